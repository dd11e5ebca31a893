// SPDX-License-Identifier: MIT
/*
 * A results file exported into the fleet's database (results_db.h), in one
 * transaction: its run (replacing the run's rows when other bytes of the same run were
 * exported before), its drives and their placements, its points, each drive's latest
 * attempt at each point with its histograms merged over the point's intervals, its
 * verdict rows, the health snapshots at point ends, and the file with its SHA-256. A
 * run still going on can be exported as far as it went (RB_RESDB_RUNNING_TOO): its ended
 * points, status "running", no file row; its end's export replaces them.
 */
#include "results_db.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hist.h"
#include "results.h"
#include "results_db_priv.h"
#include "sha256.h"

/* The rows of one file. */
struct xfile {
	struct rb_run_header run;
	char methodology[32], version[16];
	int schema;
	struct rb_row_drive *dr;
	size_t nd;
	struct rb_row_point *pt;
	size_t np;
	struct rb_row_result *rs;
	size_t nr;
	struct rb_row_hist *hi;
	size_t nhi;
	struct rb_row_health *he;
	size_t nhe;
	struct rb_row_verdict *vd;
	size_t nvd;
	struct rb_row_evidence *ev;
	size_t nev;
};

static void xfile_free(struct xfile *f)
{
	free(f->dr);
	free(f->pt);
	free(f->rs);
	free(f->hi);
	free(f->he);
	free(f->vd);
	free(f->ev);
}

/*
 * The file's rows; 1: a run going on (nothing to export yet) unless so_far, which reads
 * it as the run so far: its header from the attributes its start wrote.
 */
static int read_file(const char *path, bool so_far, struct xfile *f, char *err, size_t errlen)
{
	struct rb_results_in *in = rb_results_open(path, err, errlen);
	int r;

	memset(f, 0, sizeof(*f));
	if (!in)
		return -EINVAL;
	if (rb_results_run_header(in, &f->run)) {
		if (!so_far) {
			rb_results_in_close(in);
			return 1;
		}
		snprintf(f->run.status, sizeof(f->run.status), "running");
		rb_results_attr(in, "campaign_name", f->run.campaign, sizeof(f->run.campaign));
		rb_results_attr_i64(in, "start_ns", &f->run.start_ns);
	}
	rb_results_attr(in, "methodology", f->methodology, sizeof(f->methodology));
	rb_results_attr(in, "rackbench_version", f->version, sizeof(f->version));
	f->schema = rb_results_schema(in);
	r = rb_results_read_drives(in, &f->dr, &f->nd);
	if (!r)
		r = rb_results_read_points(in, &f->pt, &f->np);
	if (!r)
		r = rb_results_read_results(in, &f->rs, &f->nr);
	if (!r)
		r = rb_results_read_hists(in, &f->hi, &f->nhi);
	if (!r)
		r = rb_results_read_health(in, &f->he, &f->nhe);
	if (!r)
		r = rb_results_read_verdicts(in, &f->vd, &f->nvd);
	if (!r)
		r = rb_results_read_evidence(in, &f->ev, &f->nev);
	if (r)
		snprintf(err, errlen, "'%s': %s", path,
			 r == -ENOMEM ? "out of memory" : rb_results_in_error(in));
	rb_results_in_close(in);
	if (r)
		xfile_free(f);
	return r == -ENOMEM ? r : r ? -EINVAL : 0;
}

/* ---- a statement's parameters, in text ---- */

#define MAXP 32

struct prm {
	int n;
	const char *p[MAXP];
	char num[MAXP][40];
};

static void p_text(struct prm *q, const char *s)
{
	q->p[q->n++] = s;
}

static void p_i64(struct prm *q, int64_t v)
{
	snprintf(q->num[q->n], sizeof(q->num[0]), "%" PRId64, v);
	p_text(q, q->num[q->n]);
}

static void p_u64(struct prm *q, uint64_t v)
{
	/* bigint's range: a larger count or size is not one rackbench makes */
	p_i64(q, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

/* NaN and infinities (not measured, no limit) are SQL NULL. */
static void p_dbl(struct prm *q, double v)
{
	if (!isfinite(v)) {
		p_text(q, NULL);
		return;
	}
	snprintf(q->num[q->n], sizeof(q->num[0]), "%.17g", v);
	p_text(q, q->num[q->n]);
}

/* ---- histograms ---- */

/* A growing text: a histogram's arrays, "{1,2,3}". */
struct tbuf {
	char *s;
	size_t n, cap;
};

static int tb_add(struct tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int tb_add(struct tbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (k < 0)
			return -EINVAL;
		if (b->s && b->n + (size_t)k < b->cap) {
			b->n += (size_t)k;
			return 0;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		char *s;

		while (cap < b->n + (size_t)k + 1)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s)
			return -ENOMEM;
		b->s = s;
		b->cap = cap;
	}
}

static int cmp_hist(const void *a, const void *b)
{
	const struct rb_row_hist *x = a, *y = b;

	if (x->drive != y->drive)
		return x->drive < y->drive ? -1 : 1;
	if (x->point != y->point)
		return x->point < y->point ? -1 : 1;
	if (x->attempt != y->attempt)
		return x->attempt < y->attempt ? -1 : 1;
	if (x->direction != y->direction)
		return x->direction < y->direction ? -1 : 1;
	return x->bucket < y->bucket ? -1 : x->bucket > y->bucket;
}

/* The first histogram row of (drive, point, attempt) in the sorted rows, or n. */
static size_t hist_first(const struct xfile *f, const struct rb_row_result *rs)
{
	struct rb_row_hist key = { .drive = rs->drive, .point = rs->point, .attempt = rs->attempt };
	size_t lo = 0, hi = f->nhi;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_hist(&f->hi[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The drive's histogram at the point in one direction, merged over the attempt's
 * intervals (counts of one bucket added), as two arrays: buckets and counts.
 */
static int hist_arrays(const struct xfile *f, size_t first, const struct rb_row_result *rs,
		       unsigned dir, struct tbuf *b, struct tbuf *c)
{
	size_t i = first, k = 0;
	int r = 0;

	b->n = c->n = 0;
	r |= tb_add(b, "{");
	r |= tb_add(c, "{");
	while (i < f->nhi && f->hi[i].drive == rs->drive && f->hi[i].point == rs->point &&
	       f->hi[i].attempt == rs->attempt && f->hi[i].direction < dir)
		i++;
	while (!r && i < f->nhi && f->hi[i].drive == rs->drive && f->hi[i].point == rs->point &&
	       f->hi[i].attempt == rs->attempt && f->hi[i].direction == dir) {
		uint32_t bucket = f->hi[i].bucket;
		uint64_t count = 0;

		for (; i < f->nhi && f->hi[i].drive == rs->drive && f->hi[i].point == rs->point &&
		       f->hi[i].attempt == rs->attempt && f->hi[i].direction == dir &&
		       f->hi[i].bucket == bucket;
		     i++)
			count += f->hi[i].count;
		if (!count || bucket >= RB_HIST_BUCKETS)
			continue;
		r |= tb_add(b, "%s%" PRIu32, k ? "," : "", bucket);
		r |= tb_add(c, "%s%" PRIu64, k ? "," : "", count);
		k++;
	}
	r |= tb_add(b, "}");
	r |= tb_add(c, "}");
	return r ? -ENOMEM : 0;
}

/* ---- rows ---- */

static bool has_drive(const struct xfile *f, uint32_t drive)
{
	for (size_t i = 0; i < f->nd; i++)
		if (f->dr[i].drive == drive)
			return true;
	return false;
}

static bool has_point(const struct xfile *f, uint32_t point)
{
	for (size_t i = 0; i < f->np; i++)
		if (f->pt[i].point == point)
			return true;
	return false;
}

static bool so_far(const struct xfile *f)
{
	return !strcmp(f->run.status, "running");
}

/*
 * A run so far: only its points that ended (their result rows are written at their end),
 * and the health rows of those; the point going on is the next export's.
 */
static void keep_ended_points(struct xfile *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->np; i++) {
		bool ended = false;

		for (size_t j = 0; j < f->nr && !ended; j++)
			ended = f->rs[j].point == f->pt[i].point;
		if (ended)
			f->pt[n++] = f->pt[i];
	}
	f->np = n;
	n = 0;
	for (size_t i = 0; i < f->nhe; i++)
		if (has_point(f, f->he[i].point))
			f->he[n++] = f->he[i];
	f->nhe = n;
}

static int put_run(struct rb_resdb *db, const struct xfile *f, char *run_id, size_t len, char *err,
		   size_t errlen)
{
	struct prm q = { 0 };
	PGresult *res;

	p_text(&q, f->run.campaign);
	p_text(&q, f->methodology);
	p_i64(&q, f->run.start_ns);
	p_i64(&q, f->run.end_ns);
	p_text(&q, f->run.status);
	p_text(&q, f->run.verdict);
	p_text(&q, f->version);
	p_i64(&q, f->schema);
	res = rdb_exec(
		db,
		"INSERT INTO rackbench.runs (campaign, methodology, start_ns, end_ns, "
		"started, ended, status, verdict, rackbench_version, file_schema) VALUES "
		"($1, $2, $3, $4, to_timestamp($3::bigint::float8 / 1e9), CASE WHEN $4::bigint > 0 "
		"THEN to_timestamp($4::bigint::float8 / 1e9) END, $5, NULLIF($6, ''), $7, $8) "
		"RETURNING run_id",
		q.n, q.p, "add the run", err, errlen);
	if (!res)
		return -EIO;
	snprintf(run_id, len, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	return 0;
}

/* One drive: its identity (the newest run's wins) and where it was in this run. */
static int put_drive(struct rb_resdb *db, const struct xfile *f, const char *run_id,
		     const struct rb_row_drive *d, char *err, size_t errlen)
{
	char key[200], rack[64], slot[32] = "";
	struct prm q = { 0 };
	double seconds = 0;
	uint64_t bytes = 0;

	rb_row_drive_key(d, key, sizeof(key));
	for (size_t i = 0; i < f->nr; i++)
		if (f->rs[i].drive == d->drive) {
			seconds += (double)f->rs[i].core.elapsed_ns / 1e9;
			bytes += f->rs[i].read.bytes + f->rs[i].write.bytes;
		}
	for (size_t i = 0; i < f->nhe; i++)
		if (f->he[i].drive == d->drive && !f->he[i].member && f->he[i].h.slot[0])
			snprintf(slot, sizeof(slot), "%s", f->he[i].h.slot);
	p_text(&q, key);
	p_text(&q, d->id.serial);
	p_text(&q, d->id.model);
	p_text(&q, d->id.firmware);
	p_u64(&q, d->id.size_bytes);
	p_text(&q, d->id.kind);
	p_i64(&q, f->run.start_ns);
	if (rdb_do(db,
		   "INSERT INTO rackbench.drives AS d VALUES ($1, NULLIF($2, ''), NULLIF($3, ''), "
		   "NULLIF($4, ''), $5, $6, to_timestamp($7::float8 / 1e9), "
		   "to_timestamp($7::float8 / 1e9)) ON CONFLICT (drive_key) DO UPDATE SET "
		   "serial = CASE WHEN EXCLUDED.last_seen >= d.last_seen THEN EXCLUDED.serial "
		   "ELSE d.serial END, model = CASE WHEN EXCLUDED.last_seen >= d.last_seen THEN "
		   "EXCLUDED.model ELSE d.model END, firmware = CASE WHEN EXCLUDED.last_seen >= "
		   "d.last_seen THEN EXCLUDED.firmware ELSE d.firmware END, capacity_bytes = CASE "
		   "WHEN EXCLUDED.last_seen >= d.last_seen THEN EXCLUDED.capacity_bytes ELSE "
		   "d.capacity_bytes END, first_seen = least(d.first_seen, EXCLUDED.first_seen), "
		   "last_seen = greatest(d.last_seen, EXCLUDED.last_seen)",
		   q.n, q.p, "add a drive", err, errlen))
		return -EIO;
	q.n = 0;
	p_text(&q, run_id);
	p_i64(&q, d->drive);
	p_text(&q, key);
	p_text(&q, d->agent);
	p_text(&q, d->host);
	p_text(&q, rb_row_label(d->labels, "rack", rack, sizeof(rack)));
	p_text(&q, slot);
	p_text(&q, d->id.path);
	p_text(&q, d->alias);
	p_text(&q, d->labels);
	p_text(&q, d->id.model);
	p_text(&q, d->id.firmware);
	p_u64(&q, d->id.size_bytes);
	p_i64(&q, d->members);
	p_dbl(&q, seconds);
	p_u64(&q, bytes);
	return rdb_do(
		db,
		"INSERT INTO rackbench.placements VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), "
		"NULLIF($7, ''), $8, NULLIF($9, ''), NULLIF($10, ''), NULLIF($11, ''), "
		"NULLIF($12, ''), $13, $14, $15, $16)",
		q.n, q.p, "add a drive's place", err, errlen);
}

static int put_point(struct rb_resdb *db, const char *run_id, const struct rb_row_point *p,
		     char *err, size_t errlen)
{
	struct prm q = { 0 };

	p_text(&q, run_id);
	p_i64(&q, p->point);
	p_text(&q, p->phase);
	p_text(&q, p->name);
	p_text(&q, p->rw);
	p_u64(&q, p->bs_bytes);
	p_i64(&q, p->iodepth);
	p_i64(&q, p->numjobs);
	p_i64(&q, p->rwmixread_pct);
	p_u64(&q, p->runtime_ns);
	p_u64(&q, p->rate_iops);
	p_text(&q, p->settings);
	return rdb_do(db,
		      "INSERT INTO rackbench.points VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
		      "$10, $11, $12)",
		      q.n, q.p, "add a point", err, errlen);
}

/* n bytes of s appended to b. */
static int tb_put(struct tbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->n + n + 1)
			cap *= 2;
		p = realloc(b->s, cap);
		if (!p)
			return -ENOMEM;
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
	return 0;
}

/*
 * One row of a COPY in text format, its parameters in the table's column order: tabs
 * between, "\\N" for NULL, a backslash, tab, newline or carriage return escaped.
 */
static int copy_row(struct rb_resdb *db, const struct prm *q, struct tbuf *line, char *err,
		    size_t errlen)
{
	char msg[1024];
	int r = 0;

	line->n = 0;
	for (int i = 0; i < q->n && !r; i++) {
		const char *s = q->p[i];

		if (i)
			r |= tb_put(line, "\t", 1);
		if (!s) {
			r |= tb_put(line, "\\N", 2);
			continue;
		}
		while (*s && !r) {
			size_t k = strcspn(s, "\\\t\n\r");
			char e[2] = { '\\', 0 };

			r |= tb_put(line, s, k);
			if (!s[k])
				break;
			e[1] = s[k] == '\\' ? '\\' : s[k] == '\t' ? 't' : s[k] == '\n' ? 'n' : 'r';
			r |= tb_put(line, e, 2);
			s += k + 1;
		}
	}
	r |= tb_put(line, "\n", 1);
	if (r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (PQputCopyData(db->conn, line->s, (int)line->n) == 1)
		return 0;
	rdb_scrub(db, PQerrorMessage(db->conn), msg, sizeof(msg));
	snprintf(err, errlen, "%s: cannot add a drive's figures at a point: %s", db->where, msg);
	return -EIO;
}

/* A COPY ... FROM STDIN begun: 0, or -EIO with err filled. */
static int copy_begin(struct rb_resdb *db, const char *sql, char *err, size_t errlen)
{
	PGresult *res = PQexec(db->conn, sql);
	char msg[1024];

	if (PQresultStatus(res) == PGRES_COPY_IN) {
		PQclear(res);
		return 0;
	}
	rdb_scrub(db, res ? PQresultErrorMessage(res) : PQerrorMessage(db->conn), msg, sizeof(msg));
	snprintf(err, errlen, "%s: cannot add the figures: %s", db->where, msg);
	PQclear(res);
	return -EIO;
}

/* The COPY ended: 0, or -EIO with err filled (the server's reason). fail: this side's
 * reason to end it without its rows (err then left as it is). */
static int copy_end(struct rb_resdb *db, const char *fail, char *err, size_t errlen)
{
	PGresult *res;
	char msg[1024];
	int r = 0;

	if (PQputCopyEnd(db->conn, fail) != 1) {
		rdb_scrub(db, PQerrorMessage(db->conn), msg, sizeof(msg));
		snprintf(err, errlen, "%s: cannot add the figures: %s", db->where, msg);
		r = -EIO;
	}
	while ((res = PQgetResult(db->conn))) {
		if (!r && !fail && PQresultStatus(res) != PGRES_COMMAND_OK) {
			rdb_scrub(db, PQresultErrorMessage(res), msg, sizeof(msg));
			snprintf(err, errlen, "%s: cannot add the figures: %s", db->where, msg);
			r = -EIO;
		}
		PQclear(res);
	}
	return r;
}

static void p_dir(struct prm *q, const struct rb_row_dir *d)
{
	p_u64(q, d->ios);
	p_u64(q, d->errors);
	p_dbl(q, d->iops);
	p_dbl(q, d->bw_bytes_per_s);
	p_dbl(q, d->ios ? d->lat_mean_ns : NAN);
	if (d->ios) {
		p_u64(q, d->lat_p50_ns);
		p_u64(q, d->lat_p99_ns);
		p_u64(q, d->lat_p99_9_ns);
	} else {
		/* no IO, no latency */
		for (int i = 0; i < 3; i++)
			p_text(q, NULL);
	}
}

static int put_result(struct rb_resdb *db, const struct xfile *f, const char *run_id,
		      const struct rb_row_result *rs, struct tbuf *t, struct tbuf *line, char *err,
		      size_t errlen)
{
	struct prm q = { 0 };
	size_t first = hist_first(f, rs);

	p_text(&q, run_id);
	p_i64(&q, rs->drive);
	p_i64(&q, rs->point);
	p_i64(&q, rs->attempt);
	p_text(&q, rs->status);
	p_i64(&q, rs->core.start_ns);
	p_u64(&q, rs->core.elapsed_ns);
	p_dir(&q, &rs->read);
	p_dir(&q, &rs->write);
	for (unsigned dir = 0; dir < 2; dir++) {
		if (hist_arrays(f, first, rs, dir, &t[2 * dir], &t[2 * dir + 1])) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		p_text(&q, t[2 * dir].s);
		p_text(&q, t[2 * dir + 1].s);
	}
	p_dbl(&q, rs->trim.iops);
	return copy_row(db, &q, line, err, errlen);
}

static int cmp_result(const void *a, const void *b)
{
	const struct rb_row_result *x = *(const struct rb_row_result *const *)a;
	const struct rb_row_result *y = *(const struct rb_row_result *const *)b;

	if (x->drive != y->drive)
		return x->drive < y->drive ? -1 : 1;
	if (x->point != y->point)
		return x->point < y->point ? -1 : 1;
	if (x->attempt != y->attempt)
		return x->attempt < y->attempt ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Each drive's latest attempt at each point (of equal attempts, the last row). */
static int put_results(struct rb_resdb *db, const struct xfile *f, const char *run_id,
		       size_t *ret_n, char *err, size_t errlen)
{
	const struct rb_row_result **v = malloc((f->nr + 1) * sizeof(*v));
	struct tbuf t[5] = { 0 };
	int r = 0;

	*ret_n = 0;
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->nr; i++)
		v[i] = &f->rs[i];
	qsort(v, f->nr, sizeof(*v), cmp_result);
	/* the bulk of a file (a row of two histograms per drive and point): one COPY, not a
	 * statement a row (docs/performance.md: the export's rate) */
	if (copy_begin(db, "COPY rackbench.results FROM STDIN", err, errlen)) {
		free(v);
		return -EIO;
	}
	for (size_t i = 0; i < f->nr && !r; i++) {
		if (i + 1 < f->nr && v[i + 1]->drive == v[i]->drive &&
		    v[i + 1]->point == v[i]->point)
			continue;
		if (!has_drive(f, v[i]->drive) || !has_point(f, v[i]->point))
			continue;
		r = put_result(db, f, run_id, v[i], t, &t[4], err, errlen);
		*ret_n += !r;
	}
	if (r)
		copy_end(db, "the export stopped", err, 0);
	else
		r = copy_end(db, NULL, err, errlen);
	for (int i = 0; i < 5; i++)
		free(t[i].s);
	free(v);
	return r;
}

static int put_verdicts(struct rb_resdb *db, const struct xfile *f, const char *run_id,
			size_t *ret_n, char *err, size_t errlen)
{
	*ret_n = 0;
	for (size_t i = 0; i < f->nvd; i++) {
		const struct rb_row_verdict *v = &f->vd[i];
		struct prm q = { 0 };
		int64_t seq = 0;

		if (!has_drive(f, v->drive))
			continue;
		for (size_t k = 0; k < i; k++)
			seq += f->vd[k].drive == v->drive;
		p_text(&q, run_id);
		p_i64(&q, v->drive);
		p_i64(&q, seq);
		p_text(&q, v->rule);
		p_text(&q, v->verdict);
		p_dbl(&q, v->measured);
		p_dbl(&q, v->limit);
		p_i64(&q, v->point);
		p_i64(&q, v->interval);
		p_i64(&q, v->t_ns);
		p_text(&q, v->reason);
		if (rdb_do(db,
			   "INSERT INTO rackbench.verdicts VALUES ($1, $2, $3, $4, $5, $6, $7, "
			   "NULLIF($8::bigint, -1), NULLIF($9::bigint, -1), NULLIF($10::bigint, 0), $11)",
			   q.n, q.p, "add a verdict", err, errlen))
			return -EIO;
		(*ret_n)++;
	}
	return 0;
}

/*
 * The files of evidence kept for failing drives' vendors: where the agent keeps each, and
 * its copy beside the results file at path (absolute, as this host resolves it; NULL when
 * the coordinator did not receive it), with its size and sha256.
 */
static int put_evidence(struct rb_resdb *db, const struct xfile *f, const char *run_id,
			const char *path, char *err, size_t errlen)
{
	char real[PATH_MAX], stored[PATH_MAX + 600];
	const char *slash;

	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	slash = strrchr(real, '/');
	for (size_t i = 0; i < f->nev; i++) {
		const struct rb_row_evidence *e = &f->ev[i];
		struct prm q = { 0 };

		if (!has_drive(f, e->drive))
			continue;
		snprintf(stored, sizeof(stored), "%.*s%s", slash ? (int)(slash - real + 1) : 0,
			 real, e->stored);
		p_text(&q, run_id);
		p_i64(&q, e->drive);
		p_i64(&q, e->point);
		p_i64(&q, e->attempt);
		p_text(&q, e->kind);
		p_text(&q, e->path);
		p_u64(&q, e->bytes);
		p_text(&q, e->sha256);
		p_text(&q, e->stored[0] ? stored : "");
		if (rdb_do(db,
			   "INSERT INTO rackbench.evidence VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
			   "NULLIF($9, ''))",
			   q.n, q.p, "add a file of evidence", err, errlen))
			return -EIO;
	}
	return 0;
}

/* The drives' health at each point's end (the drive's own, a volume's members added up). */
static int put_health(struct rb_resdb *db, const struct xfile *f, const char *run_id, size_t *ret_n,
		      char *err, size_t errlen)
{
	*ret_n = 0;
	for (size_t i = 0; i < f->nhe; i++) {
		const struct rb_row_health *h = &f->he[i];
		struct prm q = { 0 };

		if (h->when != 2 || h->member || !has_drive(f, h->drive))
			continue;
		p_text(&q, run_id);
		p_i64(&q, h->drive);
		p_i64(&q, h->point);
		p_i64(&q, h->attempt);
		p_i64(&q, h->t_ns);
		if (h->h.nvme)
			p_i64(&q, h->h.critical_warning);
		else
			p_text(&q, NULL);
		p_dbl(&q, h->h.nvme ? h->h.temperature_c : NAN);
		p_dbl(&q, h->h.nvme ? h->h.available_spare_pct : NAN);
		p_dbl(&q, h->h.nvme ? h->h.percentage_used : NAN);
		p_dbl(&q, h->h.nvme ? h->h.media_errors : NAN);
		p_dbl(&q, h->h.nvme ? h->h.error_log_entries : NAN);
		p_dbl(&q, h->h.nvme ? h->h.data_units_written : NAN);
		p_dbl(&q, h->h.nvme ? h->h.power_on_hours : NAN);
		p_dbl(&q, h->h.nvme ? h->h.unsafe_shutdowns : NAN);
		p_dbl(&q, h->h.pcie ? h->h.pcie_speed : NAN);
		p_dbl(&q, h->h.pcie ? h->h.pcie_width : NAN);
		p_dbl(&q, h->h.pcie && h->h.aer_correctable >= 0 ? h->h.aer_correctable : NAN);
		p_dbl(&q, h->h.pcie && h->h.aer_nonfatal >= 0 ? h->h.aer_nonfatal : NAN);
		p_dbl(&q, h->h.pcie && h->h.aer_fatal >= 0 ? h->h.aer_fatal : NAN);
		p_text(&q, h->h.slot);
		if (rdb_do(db,
			   "INSERT INTO rackbench.health VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
			   "$9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, NULLIF($20, ''))",
			   q.n, q.p, "add a health snapshot", err, errlen))
			return -EIO;
		(*ret_n)++;
	}
	return 0;
}

static int put_file(struct rb_resdb *db, const char *run_id, const char *path, const char *sha,
		    uint64_t size, char *err, size_t errlen)
{
	char real[PATH_MAX], host[256] = "";
	struct prm q = { 0 };

	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	gethostname(host, sizeof(host) - 1);
	p_text(&q, sha);
	p_text(&q, run_id);
	p_text(&q, real);
	p_text(&q, host);
	p_u64(&q, size);
	return rdb_do(db,
		      "INSERT INTO rackbench.files (sha256, run_id, kind, path, host, size_bytes) "
		      "VALUES ($1, $2, 'results', $3, $4, $5)",
		      q.n, q.p, "add the file", err, errlen);
}

/*
 * Inside the transaction: the run's rows, unless these bytes are there already; a run
 * exported before from other bytes is replaced.
 */
static int put_all(struct rb_resdb *db, const char *path, const char *sha, uint64_t size,
		   const struct xfile *f, enum rb_resdb_added *ret_what, struct rb_resdb_counts *c,
		   char *err, size_t errlen)
{
	char start[32], run_id[32];
	const char *key[] = { f->run.campaign, start, f->methodology };
	const char *shap[] = { sha };
	PGresult *res;
	int r = 0;

	snprintf(start, sizeof(start), "%" PRId64, f->run.start_ns);
	/* one exporter of a run at a time: the second sees the first's rows */
	if (rdb_do(db,
		   "SELECT pg_advisory_xact_lock(hashtextextended($1 || '/' || $2 || '/' || $3, 0))",
		   3, key, "lock the run", err, errlen))
		return -EIO;
	res = rdb_exec(db, "SELECT 1 FROM rackbench.files WHERE sha256 = $1", 1, shap,
		       "look the file up", err, errlen);
	if (!res)
		return -EIO;
	*ret_what = PQntuples(res) ? RB_RESDB_KNOWN : RB_RESDB_ADDED;
	PQclear(res);
	if (*ret_what == RB_RESDB_KNOWN)
		return 0;
	/* a run so far never replaces the run that ended (a late exporter of its points) */
	if (so_far(f)) {
		res = rdb_exec(db,
			       "SELECT 1 FROM rackbench.runs WHERE campaign = $1 AND start_ns = $2 "
			       "AND methodology = $3 AND status <> 'running'",
			       3, key, "look the run up", err, errlen);
		if (!res)
			return -EIO;
		*ret_what = PQntuples(res) ? RB_RESDB_ENDED : RB_RESDB_SO_FAR;
		PQclear(res);
		if (*ret_what == RB_RESDB_ENDED)
			return 0;
	}
	res = rdb_exec(db,
		       "DELETE FROM rackbench.runs WHERE campaign = $1 AND start_ns = $2 AND "
		       "methodology = $3 RETURNING status",
		       3, key, "replace the run", err, errlen);
	if (!res)
		return -EIO;
	/* the run so far replaced by its end is the run added, not updated */
	for (int i = 0; i < PQntuples(res); i++)
		if (strcmp(PQgetvalue(res, i, 0), "running") && !so_far(f))
			*ret_what = RB_RESDB_UPDATED;
	PQclear(res);
	r = put_run(db, f, run_id, sizeof(run_id), err, errlen);
	for (size_t i = 0; i < f->nd && !r; i++)
		r = put_drive(db, f, run_id, &f->dr[i], err, errlen);
	for (size_t i = 0; i < f->np && !r; i++)
		r = put_point(db, run_id, &f->pt[i], err, errlen);
	c->drives = f->nd;
	c->points = f->np;
	if (!r)
		r = put_results(db, f, run_id, &c->results, err, errlen);
	if (!r)
		r = put_verdicts(db, f, run_id, &c->verdicts, err, errlen);
	if (!r)
		r = put_health(db, f, run_id, &c->health, err, errlen);
	if (!r)
		r = put_evidence(db, f, run_id, path, err, errlen);
	/* the file of a run so far is not its record yet: its bytes change */
	if (!r && !so_far(f))
		r = put_file(db, run_id, path, sha, size, err, errlen);
	return r;
}

/* Whether a file of these bytes (sha) was exported: 1, 0, or -EIO with err filled. */
static int known(struct rb_resdb *db, const char *sha, char *err, size_t errlen)
{
	const char *p[] = { sha };
	PGresult *res = rdb_exec(db, "SELECT 1 FROM rackbench.files WHERE sha256 = $1", 1, p,
				 "look the file up", err, errlen);
	int r;

	if (!res)
		return -EIO;
	r = PQntuples(res) > 0;
	PQclear(res);
	return r;
}

int rb_resdb_export(struct rb_resdb *db, const char *path, unsigned flags,
		    enum rb_resdb_added *ret_what, struct rb_resdb_counts *ret_counts, char *err,
		    size_t errlen)
{
	struct rb_resdb_counts c = { 0 };
	enum rb_resdb_added what = RB_RESDB_ADDED;
	struct xfile f;
	struct stat sb;
	char sha[65];
	int r;

	if (stat(path, &sb)) {
		snprintf(err, errlen, "'%s': %s", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "'%s': not a regular file", path);
		return -ENOENT;
	}
	/* a run so far is read first: its bytes change, their hash is no file's (a long run's
	 * file is not hashed at every point's end) */
	if (flags & RB_RESDB_RUNNING_TOO) {
		r = read_file(path, true, &f, err, errlen);
		if (r)
			return r;
		sha[0] = '\0';
		if (so_far(&f))
			goto put;
	}
	r = rb_sha256_file(path, sha);
	if (r) {
		snprintf(err, errlen, "'%s': %s", path, strerror(-r));
		r = -ENOENT; /* the file's, not the database's */
	} else {
		/* bytes exported before (committed, so there to stay) are not read again: a
		 * folder exported again costs a hash a file; put_all() looks again under the
		 * run's lock */
		r = known(db, sha, err, errlen);
	}
	if (r) {
		if (flags & RB_RESDB_RUNNING_TOO)
			xfile_free(&f);
		if (r < 0)
			return r;
		*ret_what = RB_RESDB_KNOWN;
		if (ret_counts)
			*ret_counts = c;
		return 0;
	}
	r = flags & RB_RESDB_RUNNING_TOO ? 0 : read_file(path, false, &f, err, errlen);
	if (r == 1) {
		*ret_what = RB_RESDB_RUNNING;
		return 0;
	}
	if (r)
		return r;
put:
	if (so_far(&f))
		keep_ended_points(&f);
	qsort(f.hi, f.nhi, sizeof(*f.hi), cmp_hist);
	r = rdb_do(db, "BEGIN", 0, NULL, "begin", err, errlen);
	if (!r)
		r = put_all(db, path, sha, (uint64_t)sb.st_size, &f, &what, &c, err, errlen);
	if (!r)
		r = rdb_do(db, "COMMIT", 0, NULL, "commit", err, errlen);
	else
		rdb_rollback(db);
	xfile_free(&f);
	if (r)
		return r == -ENOMEM ? r : -EIO;
	*ret_what = what;
	if (ret_counts)
		*ret_counts = c;
	return 0;
}
