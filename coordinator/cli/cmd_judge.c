// SPDX-License-Identifier: MIT
/*
 * `rackbench judge --db URL --campaign NAME`: the fleet's verdicts (fleet_verdict.h) over
 * a campaign's every drive in the results database -- fail_slow against the peers at the
 * same load, failures that cluster in a rack or host, minority firmwares -- stored in
 * fleet_verdicts and printed, HOLD first.
 */
#include "cmds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "fleet_verdict.h"
#include "log.h"
#include "results_db.h"

static struct {
	const char *db, *campaign, *margin, *domain;
	int64_t min_points, cluster;
	bool dry_run;
} J;

static const struct rb_popt judge_opts[] = {
	{ RB_POPT_STRING, "db", 0, "URL",
	  "the PostgreSQL database: a libpq URI (postgresql://USER@HOST/DB) or key=value "
	  "string; its password is never printed",
	  &J.db, NULL, 0 },
	{ RB_POPT_STRING, "campaign", 0, "NAME",
	  "the campaign judged: each drive's latest run of it", &J.campaign, NULL, 0 },
	{ RB_POPT_STRING, "margin", 0, "X",
	  "fail_slow: a point is slow when the drive's p99 is beyond X times its peers' at its "
	  "load (and beyond their noise; default 2)",
	  &J.margin, NULL, 0 },
	{ RB_POPT_INT, "min-points", 0, "K",
	  "fail_slow: slow in K points or more is QUARANTINE (default 2)", &J.min_points, NULL, 0 },
	{ RB_POPT_INT, "cluster", 0, "N",
	  "cluster_hold: N or more failed drives put their rack (or host) on HOLD (default 3)",
	  &J.cluster, NULL, 0 },
	{ RB_POPT_STRING, "domain", 0, "rack|host",
	  "cluster_hold's domain: the agents' rack label (default) or the host", &J.domain, NULL,
	  0 },
	{ RB_POPT_FLAG, "dry-run", 0, NULL, "print the verdicts without storing them", &J.dry_run,
	  NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_judge_spec = {
	.name = "rackbench judge",
	.summary = "the fleet's verdicts over a campaign in the results database",
	.desc = "Judges every drive's latest run of the campaign against the fleet\n"
		"(docs/fleet-db.md):\n"
		"fail_slow: per model and firmware and point, a drive's p99 (read; write where\n"
		"the point reads nothing) against the median p99 of its peers at its load (their\n"
		"IOPS within 25% of its own, at least 3 of them). Beyond --margin times it and\n"
		"beyond 3.5 x 1.4826 x the peers' MAD in --min-points points: QUARANTINE (retest);\n"
		"FAIL when an earlier run of the campaign was QUARANTINE too.\n"
		"cluster_hold: --cluster or more drives whose latest run FAILed (the rack's\n"
		"verdict, or fail_slow's) in one rack (or host): the domain on HOLD.\n"
		"firmware: a drive on a firmware fewer than half of its model's drives run\n"
		"(NOTE).\n"
		"The verdicts are stored in fleet_verdicts (the judged runs' rows replaced) and\n"
		"printed, HOLD first. Exit 5: a FAIL; exit 4: a QUARANTINE or HOLD, or the\n"
		"database cannot be reached; exit 2: no run of the campaign.",
	.opts = judge_opts,
};

/* The flags' values checked: 0, or -1 said. */
static int values(double *ret_margin)
{
	char *end = NULL;

	*ret_margin = J.margin ? strtod(J.margin, &end) : 2.0;
	if (!J.db || !J.campaign) {
		rb_err("judge needs --db URL and --campaign NAME");
		return -1;
	}
	if (J.margin && (end == J.margin || *end || !(*ret_margin > 1) || *ret_margin > 1000)) {
		rb_err("'--margin' must be a factor above 1 like 2 or 1.5, not '%s'", J.margin);
		return -1;
	}
	if (J.min_points < 1 || J.min_points > 100000 || J.cluster < 1 || J.cluster > 100000) {
		rb_err("'--min-points' and '--cluster' must be counts of 1 or more");
		return -1;
	}
	if (J.domain && strcmp(J.domain, "rack") && strcmp(J.domain, "host")) {
		rb_err("'--domain' must be rack or host, not '%s'", J.domain);
		return -1;
	}
	return 0;
}

static int print(const struct rb_resdb_fleet *f, const struct rb_fleet_verdict *v, size_t n,
		 const struct rb_fleet_stats *st, const char *where)
{
	size_t count[4] = { 0 };
	int rc = RB_EXIT_OK;

	printf("campaign '%s' in %s: %zu drive(s) of %zu model(s), %zu point(s) judged against "
	       "their peers\n",
	       J.campaign, where, f->nd, st->models, st->judged_points);
	for (size_t i = 0; i < n; i++) {
		count[v[i].state]++;
		printf("%-10s %-24s %-12s %s\n", rb_fleet_state_name(v[i].state), v[i].subject,
		       v[i].rule, v[i].reason);
	}
	printf("%zu FAIL, %zu QUARANTINE, %zu on HOLD, %zu on a minority firmware",
	       count[RB_FLEET_FAIL], count[RB_FLEET_QUARANTINE], count[RB_FLEET_HOLD],
	       count[RB_FLEET_NOTE]);
	if (st->unjudged_points)
		printf("; %zu point(s) not judged: fewer than %d peers at their load",
		       st->unjudged_points, RB_FLEET_MIN_PEERS);
	putchar('\n');
	if (count[RB_FLEET_QUARANTINE] || count[RB_FLEET_HOLD])
		rc = RB_EXIT_PARTIAL;
	if (count[RB_FLEET_FAIL])
		rc = RB_EXIT_BELOW_SPEC;
	return rc;
}

static int judge(struct rb_resdb *db, double margin, const char *where)
{
	struct rb_resdb_fleet f;
	struct rb_fleet_verdict *v = NULL;
	struct rb_fleet_stats st;
	char err[1200];
	size_t n = 0;
	int r = rb_resdb_fleet_read(db, J.campaign, &f, err, sizeof(err));

	if (r) {
		rb_err("%s", err);
		return r == -ENOMEM ? RB_EXIT_FAILED : RB_EXIT_PARTIAL;
	}
	if (!f.nd) {
		rb_err("no run of campaign '%s' in %s", J.campaign, where);
		rb_resdb_fleet_release(&f);
		return RB_EXIT_USAGE;
	}
	struct rb_fleet_in in = { .drives = f.drives,
				  .nd = f.nd,
				  .points = f.points,
				  .np = f.np,
				  .names = (const char(*)[256])f.names,
				  .nnames = f.nnames,
				  .margin = margin,
				  .min_points = (unsigned)J.min_points,
				  .cluster = (unsigned)J.cluster,
				  .by_host = J.domain && !strcmp(J.domain, "host") };

	if (rb_fleet_judge(&in, &v, &n, &st)) {
		rb_err("out of memory");
		r = RB_EXIT_FAILED;
	} else if (!J.dry_run && rb_resdb_fleet_store(db, J.campaign, &f, v, n, err, sizeof(err))) {
		rb_err("%s", err);
		r = RB_EXIT_PARTIAL;
	} else {
		r = print(&f, v, n, &st, where);
		fflush(stdout);
	}
	free(v);
	rb_resdb_fleet_release(&f);
	return r;
}

int rb_judge_cmd(int argc, char **argv)
{
	char err[1200], where[600];
	struct rb_resdb *db;
	double margin;
	int r;

	memset(&J, 0, sizeof(J));
	J.min_points = 2;
	J.cluster = 3;
	r = rb_parseopt(&rb_coord_judge_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	if (values(&margin))
		return RB_EXIT_USAGE;
	db = rb_resdb_open(J.db, err, sizeof(err), &r);
	if (!db) {
		rb_err("%s", err);
		return r == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_PARTIAL;
	}
	rb_resdb_where(J.db, where, sizeof(where));
	r = judge(db, margin, where);
	rb_resdb_close(db);
	return r;
}
