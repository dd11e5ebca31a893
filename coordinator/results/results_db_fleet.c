// SPDX-License-Identifier: MIT
/*
 * The fleet's questions over a whole campaign (results_db.h): the head-to-head's groups,
 * their histograms summed by the database (`unnest(buckets, counts) ... GROUP BY bucket`:
 * a few hundred rows a group come back, not every drive's histogram). With results_db.c
 * and results_db_export.c, a translator of libpq.
 */
#include "results_db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_db_priv.h"

/* The columns a group is known by, per enum rb_resdb_by: model, members, firmware,
 * capacity, rack (those it does not group by, constants). */
static const char *const group_key[] = {
	[RB_RESDB_BY_MODEL] = "coalesce(p.model, ''), p.members, ''::text, 0::bigint, ''::text",
	[RB_RESDB_BY_FIRMWARE] = "coalesce(p.model, ''), p.members, coalesce(p.firmware, ''), "
				 "coalesce(p.capacity_bytes, 0), ''::text",
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
