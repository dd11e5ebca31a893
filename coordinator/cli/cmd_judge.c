// SPDX-License-Identifier: MIT
/*
 * `rackbench judge --db URL --campaign NAME`: the fleet's verdicts (fleet_verdict.h) over
 * a campaign's every drive in the results database -- fail_slow against the peers at the
 * same load, failures that cluster in a rack or host, minority firmwares -- stored in
 * fleet_verdicts and printed, HOLD first (coordinator/results/fleet_judge.c, which
 * `fleet run` calls too). Its flags here.
 */
#include "cmds.h"

#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "fleet_judge.h"
#include "log.h"

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

/* The flags' values checked into p: 0, or -1 said. */
static int values(struct rb_fleet_params *p)
{
	char *end = NULL;

	*p = RB_FLEET_PARAMS_DEFAULT;
	if (J.margin)
		p->margin = strtod(J.margin, &end);
	if (!J.db || !J.campaign) {
		rb_err("judge needs --db URL and --campaign NAME");
		return -1;
	}
	if (J.margin &&
	    (end == J.margin || *end || !(p->margin > 1) || p->margin > RB_FLEET_MAX_MARGIN)) {
		rb_err("'--margin' must be a factor above 1 like 2 or 1.5, not '%s'", J.margin);
		return -1;
	}
	if (J.min_points < 1 || J.min_points > RB_FLEET_MAX_COUNT || J.cluster < 1 ||
	    J.cluster > RB_FLEET_MAX_COUNT) {
		rb_err("'--min-points' and '--cluster' must be counts of 1 or more");
		return -1;
	}
	if (J.domain && strcmp(J.domain, "rack") && strcmp(J.domain, "host")) {
		rb_err("'--domain' must be rack or host, not '%s'", J.domain);
		return -1;
	}
	p->min_points = (unsigned)J.min_points;
	p->cluster = (unsigned)J.cluster;
	p->by_host = J.domain && !strcmp(J.domain, "host");
	return 0;
}

int rb_judge_cmd(int argc, char **argv)
{
	struct rb_fleet_judge_args a = { .campaign = NULL };
	int r;

	memset(&J, 0, sizeof(J));
	J.min_points = RB_FLEET_PARAMS_DEFAULT.min_points;
	J.cluster = RB_FLEET_PARAMS_DEFAULT.cluster;
	r = rb_parseopt(&rb_coord_judge_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	if (values(&a.params))
		return RB_EXIT_USAGE;
	a.campaign = J.campaign;
	a.dry_run = J.dry_run;
	return rb_fleet_judge_url(J.db, &a, NULL);
}
