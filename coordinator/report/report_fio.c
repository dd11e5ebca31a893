// SPDX-License-Identifier: MIT
/*
 * `rackbench report --format fio-json | json+ | terse`: the results as fio's JSON or terse
 * lines, a job per (file, point, drive) with a result, so that fio-plot,
 * fio_jsonplus_clat2csv and the parsers teams already have read a campaign's results
 * unchanged.
 *
 * Design note. Each job is the latest attempt's result row (IOs, bytes, errors, mean,
 * min and max latency, run time), its latency histogram the drive's interval histograms
 * of that attempt added up (exact: merged, never averaged), and fio's per-sample
 * bandwidth and IOPS statistics (bw_min ... iops_stddev, bw_samples) those of the
 * drive's interval samples, as fio computes them from its own bw/iops logs.
 */
#include "report_model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fioout.h"
#include "hist.h"
#include "log.h"
#include "units.h"

/* fio's job options from the point's row: the keys fio's own JSON lists. */
static const char *const okeys[] = { "rw",	"bs",	  "iodepth",  "numjobs",
				     "runtime", "direct", "rate_iops" };
#define NOPT (sizeof(okeys) / sizeof(okeys[0]))

struct fjob {
	char name[640];
	char vals[NOPT][32];
	struct rb_hist *h[3];
	struct rb_fio_samples s[3]; /* per direction */
};

static void job_head(struct fjob *j, const struct rp_cell *c, bool multi)
{
	const struct rb_row_point *p = c->pt;
	char v[32];

	(void)multi; /* the label says #file when there are several */
	snprintf(j->name, sizeof(j->name), "%s %s", p->name, c->label);
	snprintf(j->vals[0], sizeof(j->vals[0]), "%s", p->rw);
	rb_fmt_size(p->bs_bytes, j->vals[1], sizeof(j->vals[1]));
	snprintf(j->vals[2], sizeof(j->vals[2]), "%u", p->iodepth);
	snprintf(j->vals[3], sizeof(j->vals[3]), "%u", p->numjobs);
	snprintf(j->vals[4], sizeof(j->vals[4]), "%s",
		 rp_setting(p->settings, "runtime", v, sizeof(v)));
	snprintf(j->vals[5], sizeof(j->vals[5]), "%u", p->direct);
	snprintf(j->vals[6], sizeof(j->vals[6]), "%llu", (unsigned long long)p->rate_iops);
}

/* The jobs' histograms and sample statistics from one file's rows; cell -> job in jx. */
static int fill(const struct rp_report *r, size_t fi, const long *jx, struct fjob *jobs)
{
	const struct rp_file *f = &r->files[fi];
	size_t nd_lut = 0, np_lut = 0;
	long *dl = rp_id_lut(f->dr, f->nd, sizeof(*f->dr), &nd_lut);
	long *pl = rp_id_lut(f->pt, f->np, sizeof(*f->pt), &np_lut);
	int rc = 0;

	if ((f->nd && !dl) || (f->np && !pl)) {
		rb_err("'%s': drive or point ids out of range", f->path);
		rc = -EINVAL;
	}
	for (size_t k = 0; k < f->nhi && !rc; k++) {
		const struct rb_row_hist *x = &f->hi[k];
		size_t ci;
		struct fjob *j;

		if (x->drive >= nd_lut || x->point >= np_lut || dl[x->drive] < 0 ||
		    pl[x->point] < 0 || x->direction > 2 || x->bucket >= RB_HIST_BUCKETS)
			continue;
		ci = f->cell0 + (size_t)pl[x->point] * f->nd + (size_t)dl[x->drive];
		if (jx[ci] < 0 || x->attempt != r->cells[ci].res->attempt)
			continue;
		j = &jobs[jx[ci]];
		if (!j->h[x->direction] &&
		    !(j->h[x->direction] = calloc(1, sizeof(struct rb_hist))))
			rc = -ENOMEM;
		else {
			j->h[x->direction]->counts[x->bucket] += x->count;
			j->h[x->direction]->total += x->count;
		}
	}
	for (size_t k = 0; k < f->nsm && !rc; k++) {
		const struct rb_row_sample *s = &f->sm[k];
		char v[32];
		uint64_t ins = 0;
		size_t ci;
		double secs;

		if (s->drive >= nd_lut || s->point >= np_lut || dl[s->drive] < 0 ||
		    pl[s->point] < 0 || s->direction > 2)
			continue;
		ci = f->cell0 + (size_t)pl[s->point] * f->nd + (size_t)dl[s->drive];
		if (jx[ci] < 0 || s->attempt != r->cells[ci].res->attempt ||
		    rb_parse_duration(
			    rp_setting(r->cells[ci].pt->settings, "interval", v, sizeof(v)),
			    &ins) ||
		    !ins)
			continue;
		secs = (double)ins / 1e9;
		rb_fio_samples_add(&jobs[jx[ci]].s[s->direction], (double)s->bytes / 1024.0 / secs,
				   (double)s->ios / secs);
	}
	free(dl);
	free(pl);
	return rc;
}

static void dir_out(struct rb_fio_dir *o, const struct rb_row_dir *d, const struct fjob *j,
		    unsigned k, uint64_t elapsed_ns)
{
	*o = (struct rb_fio_dir){ .ios = d->ios,
				  .bytes = d->bytes,
				  .errors = d->errors,
				  .lat_sum_ns = (uint64_t)llround(d->lat_mean_ns * (double)d->ios),
				  .lat_min_ns = d->lat_min_ns,
				  .lat_max_ns = d->lat_max_ns,
				  .hist = j->h[k],
				  .runtime_ns = d->ios ? elapsed_ns : 0 };
	rb_fio_samples_put(&j->s[k], o);
}

int rp_fio(const struct rp_report *r, enum rp_fio_form form, FILE *out)
{
	long *jx = malloc((r->ncells + 1) * sizeof(*jx));
	struct fjob *jobs = calloc(r->ncells + 1, sizeof(*jobs));
	struct rb_fio_job_out *o = calloc(r->ncells + 1, sizeof(*o));
	size_t n = 0;
	int rc = 0;

	if (!jx || !jobs || !o) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->ncells; i++) {
		jx[i] = -1;
		if (!r->cells[i].res)
			continue;
		job_head(&jobs[n], &r->cells[i], r->nfiles > 1);
		jx[i] = (long)n++;
	}
	for (size_t fi = 0; fi < r->nfiles && !rc; fi++)
		rc = fill(r, fi, jx, jobs);
	if (rc)
		goto out;
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rb_row_result *res = r->cells[i].res;
		struct rb_fio_job_out *x;
		struct fjob *j;

		if (jx[i] < 0)
			continue;
		j = &jobs[jx[i]];
		x = &o[jx[i]];
		x->name = j->name;
		for (size_t k = 0; k < NOPT; k++) {
			x->options[k][0] = okeys[k];
			x->options[k][1] = j->vals[k];
		}
		dir_out(&x->dir[0], &res->read, j, 0, res->core.elapsed_ns);
		dir_out(&x->dir[1], &res->write, j, 1, res->core.elapsed_ns);
		dir_out(&x->dir[2], &res->trim, j, 2, res->core.elapsed_ns);
		x->usr_cpu_pct = res->core.cpu_usr_pct;
		x->sys_cpu_pct = res->core.cpu_sys_pct;
		x->error = rb_row_status(res) != RB_STATUS_OK ? EIO : 0;
		x->start_ms = res->core.start_ns / 1000000;
		x->iodepth = r->cells[i].pt->iodepth;
	}
	/* the file keeps no IO depths, context switches, faults nor disk counters: left out */
	if (form == RP_FIO_TERSE)
		rb_fio_terse_write(out, &(struct rb_fio_doc){ .jobs = o, .njobs = (unsigned)n });
	else
		rb_fio_json_write(out, &(struct rb_fio_doc){ .jobs = o, .njobs = (unsigned)n },
				  form == RP_FIO_JSONPLUS);
out:
	for (size_t i = 0; jobs && i < n; i++)
		for (int d = 0; d < 3; d++)
			free(jobs[i].h[d]);
	free(jobs);
	free(o);
	free(jx);
	return rc;
}

/* A sample's key (drive, point, attempt, interval, direction), from either row kind. */
#define KEY_OF(x)                                                                                  \
	{                                                                                          \
		(x)->drive, (x)->point, (x)->attempt, (x)->interval, (x)->direction                \
	}

static int key_cmp(const uint32_t *kx, const uint32_t *ky)
{
	for (int i = 0; i < 5; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

/* Order of histogram rows by their sample's key. */
static int cmp_hist_key(const void *a, const void *b, void *arg)
{
	const struct rb_row_hist *h = arg;
	const struct rb_row_hist *x = &h[*(const size_t *)a], *y = &h[*(const size_t *)b];
	uint32_t kx[5] = KEY_OF(x), ky[5] = KEY_OF(y);

	return key_cmp(kx, ky);
}

/* The first row of ix (sorted by key) whose key is not below s's. */
static size_t hist_lower(const struct rb_row_hist *h, const size_t *ix, size_t n,
			 const struct rb_row_sample *s)
{
	uint32_t kk[5] = KEY_OF(s);
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint32_t kx[5] = KEY_OF(&h[ix[mid]]);

		if (key_cmp(kx, kk) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct logs {
	FILE *f[4]; /* bw, iops, lat, clat_hist */
};

static const char *const log_kind[4] = { "bw", "iops", "lat", "clat_hist" };

static int logs_open(struct logs *L, const char *dir, const char *prefix, long job)
{
	char path[4200];

	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s_%s.%ld.log", dir, prefix, log_kind[i], job);
		L->f[i] = fopen(path, "w");
		if (!L->f[i]) {
			rb_err("cannot write '%s': %s", path, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static int logs_close(struct logs *L)
{
	int rc = 0;

	for (int i = 0; i < 4; i++)
		if (L->f[i] && (ferror(L->f[i]) | fclose(L->f[i])))
			rc = -EIO;
	return rc;
}

/* One sample's lines: averaged over its interval, as fio's logs with log_avg_msec. */
static void log_sample(struct logs *L, const struct rb_row_sample *s, int64_t start_ns,
		       uint64_t ins, const struct rb_row_hist *h, const size_t *ix, size_t nh,
		       uint64_t *bins)
{
	double secs = (double)ins / 1e9;
	unsigned long long ms =
		s->t_ns > start_ns ? (unsigned long long)((s->t_ns - start_ns) / 1000000) : 0;
	size_t k = hist_lower(h, ix, nh, s);

	/* fio's fields: msec, value, direction, block size (0: averaged), priority */
	fprintf(L->f[0], "%llu, %.0f, %u, 0, 0\n", ms, (double)s->bytes / 1024 / secs,
		s->direction);
	fprintf(L->f[1], "%llu, %.0f, %u, 0, 0\n", ms, (double)s->ios / secs, s->direction);
	fprintf(L->f[2], "%llu, %.0f, %u, 0, 0\n", ms, s->lat_mean_ns, s->direction);
	memset(bins, 0, RB_FIO_PLAT_NR * sizeof(*bins));
	for (; k < nh; k++) {
		const struct rb_row_hist *x = &h[ix[k]];

		uint32_t kx[5] = KEY_OF(x), ks[5] = KEY_OF(s);

		if (key_cmp(kx, ks))
			break;
		if (x->bucket < RB_HIST_BUCKETS)
			bins[rb_fio_plat_index(rb_hist_bucket_value(x->bucket))] += x->count;
	}
	/* fio's histogram log: msec, direction, block size, then its 1856 buckets */
	fprintf(L->f[3], "%llu, %u, 0", ms, s->direction);
	for (unsigned b = 0; b < RB_FIO_PLAT_NR; b++)
		fprintf(L->f[3], ", %llu", (unsigned long long)bins[b]);
	fputc('\n', L->f[3]);
}

/* Order of sample rows by their key. */
static int cmp_sample_key(const void *a, const void *b, void *arg)
{
	const struct rb_row_sample *sm = arg;
	const struct rb_row_sample *x = &sm[*(const size_t *)a], *y = &sm[*(const size_t *)b];
	uint32_t kx[5] = KEY_OF(x), ky[5] = KEY_OF(y);

	return key_cmp(kx, ky);
}

/* One file's logs: its samples in key order, a job's files open while its rows go. */
static int file_logs(const struct rp_report *r, size_t fi, const char *dir, long job0, FILE *index,
		     uint64_t *bins)
{
	const struct rp_file *f = &r->files[fi];
	size_t *hx = malloc((f->nhi + 1) * sizeof(*hx));
	size_t *sx = malloc((f->nsm + 1) * sizeof(*sx));
	size_t nd_lut = 0, np_lut = 0;
	long *dl = rp_id_lut(f->dr, f->nd, sizeof(*f->dr), &nd_lut);
	long *pl = rp_id_lut(f->pt, f->np, sizeof(*f->pt), &np_lut);
	long *jx = calloc(f->np * f->nd + 1, sizeof(*jx));
	struct logs L = { { NULL } };
	size_t open_cell = SIZE_MAX;
	uint64_t ins = 0;
	int rc = 0;

	if (!hx || !sx || !jx || (f->nd && !dl) || (f->np && !pl)) {
		rb_err("'%s': drive or point ids out of range, or no memory", f->path);
		rc = -EINVAL;
		goto out;
	}
	for (size_t k = 0; k < f->nhi; k++)
		hx[k] = k;
	qsort_r(hx, f->nhi, sizeof(*hx), cmp_hist_key, f->hi);
	for (size_t k = 0; k < f->nsm; k++)
		sx[k] = k;
	qsort_r(sx, f->nsm, sizeof(*sx), cmp_sample_key, f->sm);
	/* job numbers as in the fio-json document: cells with a result, in order */
	for (size_t c = 0; c < f->np * f->nd; c++) {
		const struct rp_cell *cell = &r->cells[f->cell0 + c];

		jx[c] = cell->res ? ++job0 : 0;
		if (jx[c])
			fprintf(index, "%ld\t%s\t%s\t%s\n", jx[c], f->path, cell->pt->name,
				cell->label);
	}
	for (size_t k = 0; k < f->nsm && !rc; k++) {
		const struct rb_row_sample *s = &f->sm[sx[k]];
		size_t c;
		char v[32];

		if (s->drive >= nd_lut || s->point >= np_lut || dl[s->drive] < 0 ||
		    pl[s->point] < 0 || s->direction > 2)
			continue;
		c = (size_t)pl[s->point] * f->nd + (size_t)dl[s->drive];
		if (!jx[c] || s->attempt != r->cells[f->cell0 + c].res->attempt)
			continue;
		if (c != open_cell) {
			rc = logs_close(&L);
			memset(&L, 0, sizeof(L));
			open_cell = c;
			if (rc ||
			    rb_parse_duration(rp_setting(r->cells[f->cell0 + c].pt->settings,
							 "interval", v, sizeof(v)),
					      &ins) ||
			    !ins || (rc = logs_open(&L, dir, "rackbench", jx[c])))
				break;
		}
		log_sample(&L, s, r->cells[f->cell0 + c].res->core.start_ns, ins, f->hi, hx, f->nhi,
			   bins);
	}
	if (logs_close(&L) && !rc) {
		rb_err("cannot write the logs in '%s'", dir);
		rc = -EIO;
	}
out:
	free(hx);
	free(sx);
	free(dl);
	free(pl);
	free(jx);
	return rc;
}

int rp_fio_logs(const struct rp_report *r, const char *dir)
{
	uint64_t *bins = malloc(RB_FIO_PLAT_NR * sizeof(*bins));
	char path[4200];
	FILE *index = NULL;
	long job0 = 0;
	int rc = bins ? 0 : -ENOMEM;

	if (!rc && mkdir(dir, 0777) && errno != EEXIST) {
		rb_err("cannot create '%s': %s", dir, strerror(errno));
		rc = -errno;
	}
	snprintf(path, sizeof(path), "%s/jobs.tsv", dir);
	if (!rc && !(index = fopen(path, "w"))) {
		rb_err("cannot write '%s': %s", path, strerror(errno));
		rc = -errno;
	}
	if (index)
		fprintf(index, "job\tfile\tpoint\tdrive\n");
	for (size_t fi = 0; fi < r->nfiles && !rc; fi++) {
		rc = file_logs(r, fi, dir, job0, index, bins);
		for (size_t c = 0; c < r->files[fi].np * r->files[fi].nd; c++)
			job0 += r->cells[r->files[fi].cell0 + c].res != NULL;
	}
	if (index && (ferror(index) | fclose(index)) && !rc) {
		rb_err("cannot write '%s'", path);
		rc = -EIO;
	}
	free(bins);
	return rc;
}
