// SPDX-License-Identifier: MIT
/*
 * `rackbench report --db URL --campaign NAME`: the fleet's head-to-head from the results
 * database. Per point and group (model, model and firmware, rack): the drives, their
 * IOPS (min, median, max, the outlier rule of the files' report), and p50/p99 per
 * direction of the group's histograms, which the database adds up bucket by bucket
 * (results_db_fleet.c); the percentiles come from the sum by the one rank walk and
 * bucket mapping every report uses (rb_hist_sparse_percentile), never from averaged
 * percentiles. The table is the files' report's (rp_groups_table).
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "hist.h"
#include "log.h"
#include "report_model.h"
#include "results_db.h"
#include "units.h"
#include "verdict.h"

/* A group's name as the files' report writes it (rp_cell_subject). */
static void group_name(const struct rb_resdb_group *g, enum rp_by by, char *buf, size_t len)
{
	char model[160], cap[32];

	if (by == RP_BY_LABEL) {
		if (g->rack[0])
			snprintf(buf, len, "rack=%s", g->rack);
		else
			snprintf(buf, len, "no rack label");
		return;
	}
	if (g->members)
		snprintf(model, sizeof(model), "%u x %s (volume)", g->members,
			 g->model[0] ? g->model : "?");
	else
		snprintf(model, sizeof(model), "%s", g->model[0] ? g->model : "(unknown model)");
	if (by == RP_BY_FIRMWARE)
		snprintf(buf, len, "%s fw %s %s", model, g->firmware[0] ? g->firmware : "?",
			 rb_fmt_size_human(g->capacity_bytes, cap, sizeof(cap)));
	else
		snprintf(buf, len, "%s", model);
}

/* A direction's percentile in ns of the summed histogram; 0 when it holds no IO. */
static uint64_t pct_ns(const struct rb_resdb_group *g, int dir, double p)
{
	return rb_hist_sparse_percentile(g->bucket[dir], g->count[dir], g->nbuckets[dir], p);
}

/* The IOPS figures and percentiles of the database's groups into the report's. */
static int fill(struct rp_report *r, const struct rb_resdb_group *v, size_t n)
{
	double *x = NULL;

	r->groups = calloc(n + 1, sizeof(*r->groups));
	if (!r->groups)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct rb_resdb_group *g = &v[i];
		struct rp_group *G = &r->groups[i];

		snprintf(G->point, sizeof(G->point), "%s", g->point);
		group_name(g, r->by, G->name, sizeof(G->name));
		G->ndrives = g->nok;
		G->rd_p50_us = g->nbuckets[0] ? (double)pct_ns(g, 0, 50) / 1e3 : NAN;
		G->rd_p99_us = g->nbuckets[0] ? (double)pct_ns(g, 0, 99) / 1e3 : NAN;
		G->wr_p50_us = g->nbuckets[1] ? (double)pct_ns(g, 1, 50) / 1e3 : NAN;
		G->wr_p99_us = g->nbuckets[1] ? (double)pct_ns(g, 1, 99) / 1e3 : NAN;
		r->ngroups++;
		if (!g->nok)
			continue;
		free(x);
		x = malloc(g->nok * sizeof(*x));
		if (!x)
			return -ENOMEM;
		memcpy(x, g->iops, g->nok * sizeof(*x));
		G->iops_med = rb_median(x, g->nok);
		G->iops_min = x[0];
		G->iops_max = x[g->nok - 1];
		for (size_t k = 0; k < g->nok; k++)
			x[k] = fabs(x[k] - G->iops_med);
		G->mad = rb_median(x, g->nok);
		/* with fewer than three drives there is no majority to stand out from */
		for (size_t k = 0; k < g->nok && g->nok >= 3; k++)
			G->noutliers += rp_is_outlier(g->iops[k], G->iops_med, G->mad);
	}
	free(x);
	return 0;
}

/* The table of exact figures: percentiles in ns, as the database's sums give them. */
static void csv(const struct rp_report *r, const struct rb_resdb_group *v, size_t n)
{
	printf("point,group,drives,iops_min,iops_median,iops_max,read_p50_ns,read_p99_ns,"
	       "write_p50_ns,write_p99_ns,outliers\n");
	for (size_t i = 0; i < n; i++) {
		const struct rp_group *G = &r->groups[i];
		char q[4][24];

		for (int k = 0; k < 4; k++) {
			int dir = k / 2;

			if (v[i].nbuckets[dir])
				snprintf(q[k], sizeof(q[k]), "%llu",
					 (unsigned long long)pct_ns(&v[i], dir, k % 2 ? 99 : 50));
			else
				q[k][0] = 0;
		}
		printf("\"%s\",\"%s\",%zu,%.1f,%.1f,%.1f,%s,%s,%s,%s,%zu\n", G->point, G->name,
		       G->ndrives, G->iops_min, G->iops_med, G->iops_max, q[0], q[1], q[2], q[3],
		       G->noutliers);
	}
}

/* The drives that stand out from their group, in the files' report's words. */
static void outliers(const struct rp_report *r, const struct rb_resdb_group *v, size_t n, bool md)
{
	for (size_t i = 0; i < n; i++) {
		const struct rp_group *G = &r->groups[i];

		for (size_t k = 0; k < v[i].nok && v[i].nok >= 3; k++)
			if (rp_is_outlier(v[i].iops[k], G->iops_med, G->mad))
				printf("%soutlier: %s (%s) at %s: %.0f IOPS, %s median %.0f "
				       "(%+.1f%%)\n",
				       md ? "- " : "", v[i].keys[k], G->name, G->point,
				       v[i].iops[k], r->by == RP_BY_LABEL ? "group" : "model",
				       G->iops_med,
				       100.0 * (v[i].iops[k] - G->iops_med) / G->iops_med);
	}
}

int rb_report_db(const struct rb_report_db_args *a)
{
	static const enum rb_resdb_by dbby[] = { [RP_BY_MODEL] = RB_RESDB_BY_MODEL,
						 [RP_BY_FIRMWARE] = RB_RESDB_BY_FIRMWARE,
						 [RP_BY_LABEL] = RB_RESDB_BY_RACK };
	struct rp_report r = { .by = (enum rp_by)a->by, .by_label = "rack" };
	struct rb_resdb_group *v = NULL;
	char err[1200], where[600];
	struct rb_resdb *db;
	size_t n = 0;
	int e, rc = RB_EXIT_OK;

	db = rb_resdb_open(a->url, err, sizeof(err), &e);
	if (!db) {
		rb_err("%s", err);
		return e == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_PARTIAL;
	}
	rb_resdb_where(a->url, where, sizeof(where));
	e = rb_resdb_groups(db, a->campaign, dbby[r.by], &v, &n, err, sizeof(err));
	rb_resdb_close(db);
	if (e) {
		rb_err("%s", err);
		return e == -ENOMEM ? RB_EXIT_FAILED : RB_EXIT_PARTIAL;
	}
	if (!n) {
		rb_err("no run of campaign '%s' in %s", a->campaign, where);
		rb_resdb_groups_free(v, n);
		return RB_EXIT_USAGE;
	}
	if (fill(&r, v, n)) {
		rb_err("out of memory");
		rc = RB_EXIT_FAILED;
	} else if (a->format == RB_REPORT_CSV) {
		csv(&r, v, n);
	} else {
		bool md = a->format == RB_REPORT_MARKDOWN;

		printf("%scampaign '%s' in %s\n", md ? "## " : "", a->campaign, where);
		rp_groups_table(&r, (int)a->format);
		outliers(&r, v, n, md);
	}
	free(r.groups);
	rb_resdb_groups_free(v, n);
	return rc;
}
