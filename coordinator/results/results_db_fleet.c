// SPDX-License-Identifier: MIT
/*
 * The fleet's questions over a whole campaign (results_db.h): the fleet's verdicts' rows
 * read and their verdicts stored; the head-to-head's groups, their histograms summed by the
 * database (`unnest(buckets, counts) ... GROUP BY bucket`:
 * a few hundred rows a group come back, not every drive's histogram). With results_db.c
 * and results_db_export.c, a translator of libpq.
 */
#include "results_db.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_db_priv.h"
#include "grow.h"

/* The columns a group is known by, per enum rb_resdb_by: model, members, firmware,
 * capacity, rack (those it does not group by, constants). */
static const char *const group_key[] = {
	[RB_RESDB_BY_MODEL] = "coalesce(p.model, ''), p.members, ''::text, 0::bigint, ''::text",
	[RB_RESDB_BY_FIRMWARE] = ("coalesce(p.model, ''), p.members, coalesce(p.firmware, ''), "
				  "coalesce(p.capacity_bytes, 0), ''::text"),
	[RB_RESDB_BY_RACK] = "''::text, 0, ''::text, 0::bigint, coalesce(p.rack, '')",
};

#define FROM_RESULTS                                                                               \
	" FROM rackbench.results x JOIN rackbench.placements p USING (run_id, drive) "             \
	"JOIN rackbench.points pt USING (run_id, point) JOIN rackbench.runs r USING (run_id) "
#define OF_CAMPAIGN " WHERE r.campaign = $1 "

static const char *val(const PGresult *res, int row, int col)
{
	return PQgetvalue(res, row, col);
}

/* Whether row's point and key (columns 0 to 5) are group g's. */
static bool same_group(const PGresult *res, int row, const struct rb_resdb_group *g)
{
	return !strcmp(val(res, row, 0), g->point) && !strcmp(val(res, row, 1), g->model) &&
	       strtoul(val(res, row, 2), NULL, 10) == g->members &&
	       !strcmp(val(res, row, 3), g->firmware) &&
	       strtoull(val(res, row, 4), NULL, 10) == g->capacity_bytes &&
	       !strcmp(val(res, row, 5), g->rack);
}

/* The groups and their measured rows from the rows of the first query (ordered by group):
 * point, key (5), pos, drive key, status, IOPS. */
static int make_groups(const PGresult *res, struct rb_resdb_group **ret, size_t *ret_n)
{
	int nrows = PQntuples(res);
	struct rb_resdb_group *v = calloc((size_t)nrows + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < nrows; i++) {
		struct rb_resdb_group *g = n ? &v[n - 1] : NULL;

		if (!g || !same_group(res, i, g)) {
			int e = i;

			g = &v[n++];
			snprintf(g->point, sizeof(g->point), "%s", val(res, i, 0));
			snprintf(g->model, sizeof(g->model), "%s", val(res, i, 1));
			g->members = (uint32_t)strtoul(val(res, i, 2), NULL, 10);
			snprintf(g->firmware, sizeof(g->firmware), "%s", val(res, i, 3));
			g->capacity_bytes = strtoull(val(res, i, 4), NULL, 10);
			snprintf(g->rack, sizeof(g->rack), "%s", val(res, i, 5));
			g->pos = (uint32_t)strtoul(val(res, i, 6), NULL, 10);
			while (e < nrows && same_group(res, e, g))
				e++;
			g->iops = calloc((size_t)(e - i) + 1, sizeof(*g->iops));
			g->keys = calloc((size_t)(e - i) + 1, sizeof(*g->keys));
			if (!g->iops || !g->keys) {
				*ret = v;
				*ret_n = n;
				return -ENOMEM;
			}
		}
		g->nrows++;
		if (strcmp(val(res, i, 8), "ok"))
			continue;
		snprintf(g->keys[g->nok], sizeof(g->keys[0]), "%s", val(res, i, 7));
		g->iops[g->nok++] = strtod(val(res, i, 9), NULL);
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The summed histograms from the second query's rows (ordered as the groups): point, key
 * (5), direction, bucket, count. */
static int add_hists(const PGresult *res, struct rb_resdb_group *v, size_t n)
{
	int nrows = PQntuples(res);
	size_t g = 0;

	for (int i = 0; i < nrows;) {
		int e = i, dir = atoi(val(res, i, 6)) ? 1 : 0;
		struct rb_resdb_group *G;

		while (g < n && !same_group(res, i, &v[g]))
			g++;
		if (g == n)
			return -EPROTO; /* the two queries disagree: not expected */
		G = &v[g];
		while (e < nrows && same_group(res, e, G) && (atoi(val(res, e, 6)) ? 1 : 0) == dir)
			e++;
		G->bucket[dir] = calloc((size_t)(e - i), sizeof(uint32_t));
		G->count[dir] = calloc((size_t)(e - i), sizeof(uint64_t));
		if (!G->bucket[dir] || !G->count[dir])
			return -ENOMEM;
		for (; i < e; i++) {
			size_t k = G->nbuckets[dir]++;

			G->bucket[dir][k] = (uint32_t)strtoul(val(res, i, 7), NULL, 10);
			G->count[dir][k] = strtoull(val(res, i, 8), NULL, 10);
		}
	}
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct rb_resdb_group *x = a, *y = b;
	int c;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if ((c = strcmp(x->point, y->point)))
		return c;
	if ((c = strcmp(x->model, y->model)) || (c = strcmp(x->firmware, y->firmware)) ||
	    (c = strcmp(x->rack, y->rack)))
		return c;
	if (x->members != y->members)
		return x->members < y->members ? -1 : 1;
	return x->capacity_bytes < y->capacity_bytes ? -1 : x->capacity_bytes > y->capacity_bytes;
}

int rb_resdb_groups(struct rb_resdb *db, const char *campaign, enum rb_resdb_by by,
		    struct rb_resdb_group **ret, size_t *ret_n, char *err, size_t errlen)
{
	const char *key = group_key[by], *p[] = { campaign };
	char rows_sql[1024], hist_sql[2048];
	PGresult *rows, *hists;
	int r;

	*ret = NULL;
	*ret_n = 0;
	/* a group's rows, each measured one's IOPS; the group's place: its point's lowest
	 * number among the runs */
	snprintf(rows_sql, sizeof(rows_sql),
		 "SELECT pt.name, %s, min(pt.point) OVER (PARTITION BY pt.name), p.drive_key, "
		 "x.status, x.read_iops + x.write_iops + coalesce(x.trim_iops, 0)" FROM_RESULTS
			 OF_CAMPAIGN "ORDER BY 1, 2, 3, 4, 5, 6, 8",
		 key);
	/* the histograms added per bucket by the database, per group and direction */
	snprintf(
		hist_sql, sizeof(hist_sql),
		"SELECT pt.name, %s, 0, u.b, sum(u.c)::bigint" FROM_RESULTS
		"CROSS JOIN LATERAL unnest(x.read_hist_buckets, x.read_hist_counts) AS u(b, c)" OF_CAMPAIGN
		"GROUP BY 1, 2, 3, 4, 5, 6, u.b UNION ALL "
		"SELECT pt.name, %s, 1, u.b, sum(u.c)::bigint" FROM_RESULTS
		"CROSS JOIN LATERAL unnest(x.write_hist_buckets, x.write_hist_counts) AS u(b, c)" OF_CAMPAIGN
		"GROUP BY 1, 2, 3, 4, 5, 6, u.b ORDER BY 1, 2, 3, 4, 5, 6, 7, 8",
		key, key);
	rows = rdb_exec(db, rows_sql, 1, p, "read the campaign's results", err, errlen);
	if (!rows)
		return -EIO;
	r = make_groups(rows, ret, ret_n);
	PQclear(rows);
	if (r)
		goto fail;
	hists = rdb_exec(db, hist_sql, 1, p, "add up the campaign's histograms", err, errlen);
	if (!hists) {
		r = -EIO;
		goto fail;
	}
	r = add_hists(hists, *ret, *ret_n);
	PQclear(hists);
	if (r) {
		snprintf(err, errlen, "%s: %s", db->where,
			 r == -ENOMEM ? "out of memory"
				      : "the histograms' groups are not the rows'");
		goto fail;
	}
	qsort(*ret, *ret_n, sizeof(**ret), cmp_group);
	return 0;
fail:
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	*ret = rb_resdb_groups_free(*ret, *ret_n);
	*ret_n = 0;
	return r;
}

struct rb_resdb_group *rb_resdb_groups_free(struct rb_resdb_group *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].iops);
		free(v[i].keys);
		for (int d = 0; d < 2; d++) {
			free(v[i].bucket[d]);
			free(v[i].count[d]);
		}
	}
	free(v);
	return NULL;
}

/* ---- the fleet's verdicts ---- */

/* Each drive's latest run of the campaign ($1) that ended (a run so far is not judged):
 * its key, run, drive number, start. */
#define LATEST                                                                                     \
	"WITH latest AS (SELECT DISTINCT ON (p.drive_key) p.drive_key, p.run_id, p.drive, "        \
	"r.start_ns FROM rackbench.placements p JOIN rackbench.runs r USING (run_id) WHERE "       \
	"r.campaign = $1 AND r.status <> 'running' ORDER BY p.drive_key, r.start_ns DESC, r.run_id DESC) "

static int fleet_drives(PGresult *res, struct rb_resdb_fleet *f)
{
	int n = PQntuples(res);

	f->drives = calloc((size_t)n + 1, sizeof(*f->drives));
	if (!f->drives)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct rb_fleet_drive *d = &f->drives[f->nd++];

		snprintf(d->key, sizeof(d->key), "%s", val(res, i, 0));
		d->run_start_ns = strtoll(val(res, i, 1), NULL, 10);
		snprintf(d->model, sizeof(d->model), "%s", val(res, i, 2));
		snprintf(d->firmware, sizeof(d->firmware), "%s", val(res, i, 3));
		snprintf(d->rack, sizeof(d->rack), "%s", val(res, i, 4));
		snprintf(d->host, sizeof(d->host), "%s", val(res, i, 5));
		snprintf(d->kind, sizeof(d->kind), "%s", val(res, i, 6));
		d->members = (uint32_t)strtoul(val(res, i, 7), NULL, 10);
		snprintf(d->verdict, sizeof(d->verdict), "%s", val(res, i, 8));
		d->quarantined_ns = strtoll(val(res, i, 9), NULL, 10);
	}
	return 0;
}

/* A point name's index, added when new. */
static long name_of(struct rb_resdb_fleet *f, const char *name, size_t *cap)
{
	for (size_t k = f->nnames; k-- > 0;)
		if (!strcmp(f->names[k], name))
			return (long)k;
	if (RB_GROW(f->names, *cap, f->nnames, 32))
		return -1;
	snprintf(f->names[f->nnames], sizeof(f->names[0]), "%s", name);
	return (long)f->nnames++;
}

/* The points' rows, ordered by drive key as the drives' are. */
static int fleet_points(PGresult *res, struct rb_resdb_fleet *f)
{
	int n = PQntuples(res);
	size_t d = 0, cap = 0;

	f->points = calloc((size_t)n + 1, sizeof(*f->points));
	if (!f->points)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct rb_fleet_point *p = &f->points[f->np];
		long name;

		while (d < f->nd && strcmp(f->drives[d].key, val(res, i, 0)))
			d++;
		if (d == f->nd)
			return -EPROTO;
		name = name_of(f, val(res, i, 1), &cap);
		if (name < 0)
			return -ENOMEM;
		p->drive = d;
		p->name = (uint32_t)name;
		p->iops = strtod(val(res, i, 2), NULL);
		p->p99_ns = strtod(val(res, i, 3), NULL);
		p->write = !strcmp(val(res, i, 4), "t");
		f->np++;
	}
	return 0;
}

int rb_resdb_fleet_read(struct rb_resdb *db, const char *campaign, struct rb_resdb_fleet *f,
			char *err, size_t errlen)
{
	const char *p[] = { campaign };
	PGresult *res;
	int r;

	memset(f, 0, sizeof(*f));
	res = rdb_exec(
		db,
		LATEST
		"SELECT l.drive_key, l.start_ns, coalesce(p.model, ''), "
		"coalesce(p.firmware, ''), coalesce(p.rack, ''), p.host, coalesce(d.kind, ''), "
		"p.members, coalesce(v.verdict, ''), coalesce((SELECT max(f.run_start_ns) "
		"FROM rackbench.fleet_verdicts f WHERE f.campaign = $1 AND f.drive = "
		"l.drive_key AND f.rule = 'fail_slow' AND f.verdict IN ('QUARANTINE', 'FAIL') "
		"AND f.run_start_ns < l.start_ns), 0) FROM latest l JOIN "
		"rackbench.placements p ON p.run_id = l.run_id AND p.drive = l.drive JOIN "
		"rackbench.drives d ON d.drive_key = l.drive_key LEFT JOIN rackbench.verdicts "
		"v ON v.run_id = l.run_id AND v.drive = l.drive AND v.rule = 'drive' "
		"ORDER BY 1",
		1, p, "read the campaign's drives", err, errlen);
	if (!res)
		return -EIO;
	r = fleet_drives(res, f);
	PQclear(res);
	if (r)
		goto fail;
	res = rdb_exec(db,
		       LATEST
		       "SELECT l.drive_key, pt.name, x.read_iops + x.write_iops + "
		       "coalesce(x.trim_iops, 0), CASE WHEN x.read_ios > 0 THEN x.read_p99_ns "
		       "ELSE x.write_p99_ns END, x.read_ios = 0 FROM latest l JOIN "
		       "rackbench.results x ON x.run_id = l.run_id AND x.drive = l.drive JOIN "
		       "rackbench.points pt ON pt.run_id = x.run_id AND pt.point = x.point "
		       "WHERE x.status = 'ok' AND (x.read_ios > 0 OR x.write_ios > 0) "
		       "ORDER BY 1, 2",
		       1, p, "read the campaign's points", err, errlen);
	if (!res) {
		rb_resdb_fleet_release(f);
		return -EIO;
	}
	r = fleet_points(res, f);
	PQclear(res);
	if (!r)
		return 0;
fail:
	snprintf(err, errlen, "%s: %s", db->where,
		 r == -ENOMEM ? "out of memory" : "the points' drives are not the drives'");
	rb_resdb_fleet_release(f);
	return r;
}

void rb_resdb_fleet_release(struct rb_resdb_fleet *f)
{
	free(f->drives);
	free(f->points);
	free(f->names);
	memset(f, 0, sizeof(*f));
}

static int store_one(struct rb_resdb *db, const char *campaign, const struct rb_resdb_fleet *f,
		     const struct rb_fleet_verdict *v, char *err, size_t errlen)
{
	const struct rb_fleet_drive *d = v->drive < f->nd ? &f->drives[v->drive] : NULL;
	bool domain = !strcmp(v->rule, "cluster_hold");
	char start[32], m[40], e[40], pts[16];
	const char *p[] = { campaign,
			    v->subject,
			    start,
			    v->rule,
			    rb_fleet_state_name(v->state),
			    d && !domain ? d->model : NULL,
			    d && !domain ? d->firmware : NULL,
			    d ? d->rack : NULL,
			    d && !domain ? d->host : NULL,
			    isnan(v->measured) ? NULL : m,
			    isnan(v->expected) ? NULL : e,
			    pts,
			    v->reason };

	snprintf(start, sizeof(start), "%lld", domain ? 0LL : (long long)v->run_start_ns);
	snprintf(m, sizeof(m), "%.17g", v->measured);
	snprintf(e, sizeof(e), "%.17g", v->expected);
	snprintf(pts, sizeof(pts), "%u", v->points);
	return rdb_do(db,
		      "INSERT INTO rackbench.fleet_verdicts (campaign, drive, run_start_ns, rule, "
		      "verdict, model, firmware, rack, host, measured, expected, points, reason) "
		      "VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), NULLIF($7, ''), NULLIF($8, ''), "
		      "NULLIF($9, ''), $10, $11, $12, $13)",
		      13, p, "store a fleet verdict", err, errlen);
}

int rb_resdb_fleet_store(struct rb_resdb *db, const char *campaign, const struct rb_resdb_fleet *f,
			 const struct rb_fleet_verdict *v, size_t n, char *err, size_t errlen)
{
	const char *p[] = { campaign };
	int r = rdb_do(db, "BEGIN", 0, NULL, "begin", err, errlen);

	/* the judged runs' verdicts and the holds, replaced; one judge at a time */
	if (!r)
		r = rdb_do(db, "SELECT pg_advisory_xact_lock(hashtextextended('judge/' || $1, 0))",
			   1, p, "lock the campaign's verdicts", err, errlen);
	if (!r)
		r = rdb_do(db,
			   LATEST
			   "DELETE FROM rackbench.fleet_verdicts f WHERE f.campaign = $1 AND "
			   "(f.run_start_ns = 0 OR EXISTS (SELECT 1 FROM latest l WHERE "
			   "l.drive_key = f.drive AND l.start_ns = f.run_start_ns))",
			   1, p, "replace the campaign's fleet verdicts", err, errlen);
	for (size_t i = 0; i < n && !r; i++)
		r = store_one(db, campaign, f, &v[i], err, errlen);
	if (!r)
		r = rdb_do(db, "COMMIT", 0, NULL, "commit", err, errlen);
	else
		rdb_rollback(db);
	return r ? -EIO : 0;
}

/* ---- the fleet's verdicts on a rack's drives, as its service shows them ---- */

int rb_resdb_fleet_marks(struct rb_resdb *db, const char *campaign, const char *subjects,
			 struct rb_resdb_mark **ret, size_t *ret_n, char *err, size_t errlen)
{
	const char *p[] = { campaign, subjects };
	PGresult *res =
		rdb_exec(db,
			 LATEST "SELECT f.drive, f.rule, f.verdict FROM rackbench.fleet_verdicts f "
				"WHERE f.campaign = $1 AND f.drive = ANY (string_to_array($2, "
				"E'\\n')) AND (f.run_start_ns = 0 OR EXISTS (SELECT 1 FROM "
				"latest l WHERE l.drive_key = f.drive AND l.start_ns = "
				"f.run_start_ns)) ORDER BY f.drive, f.rule",
			 2, p, "read the fleet's verdicts", err, errlen);
	struct rb_resdb_mark *v;
	int n;

	if (!res)
		return -EIO;
	n = PQntuples(res);
	v = calloc((size_t)n + 1, sizeof(*v));
	if (!v) {
		PQclear(res);
		snprintf(err, errlen, "out of memory");
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		snprintf(v[i].subject, sizeof(v[i].subject), "%s", val(res, i, 0));
		snprintf(v[i].rule, sizeof(v[i].rule), "%s", val(res, i, 1));
		snprintf(v[i].verdict, sizeof(v[i].verdict), "%s", val(res, i, 2));
	}
	PQclear(res);
	*ret = v;
	*ret_n = (size_t)n;
	return 0;
}

/* ---- a rack's run, as `fleet run` waits for it ---- */

int rb_resdb_run_held(struct rb_resdb *db, const char *campaign, const char *file_name,
		      const char *agents, bool *ret_held, char *err, size_t errlen)
{
	const char *p[] = { campaign, file_name, agents };
	PGresult *res = rdb_exec(
		db,
		"SELECT EXISTS (SELECT 1 FROM rackbench.runs r JOIN rackbench.files f USING "
		"(run_id) WHERE r.campaign = $1 AND f.kind = 'results' AND right(f.path, "
		"length($2) + 1) = '/' || $2 AND (EXISTS (SELECT 1 FROM rackbench.placements p "
		"WHERE p.run_id = r.run_id AND p.agent = ANY (string_to_array($3, ','))) OR NOT "
		"EXISTS (SELECT 1 FROM rackbench.placements p WHERE p.run_id = r.run_id)))",
		3, p, "look for a rack's run", err, errlen);

	if (!res)
		return -EIO;
	*ret_held = PQntuples(res) == 1 && !strcmp(val(res, 0, 0), "t");
	PQclear(res);
	return 0;
}
