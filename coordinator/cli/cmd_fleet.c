// SPDX-License-Identifier: MIT
/* `rackbench fleet` and its commands `plan`, `run`, `status`, `abort`: their flags. */
#include "cmds.h"

#include <string.h>

#include "exitcode.h"
#include "fleet.h"
#include "log.h"

static struct rb_fleet_args A;

#define FLEET_OPTS                                                                                 \
	{ RB_POPT_STRING,                                                                          \
	  "fleet",                                                                                 \
	  0,                                                                                       \
	  "FLEET.yaml",                                                                            \
	  "the rack services: name, admin endpoint, public key, labels (docs/fleet.md)",           \
	  &A.fleet,                                                                                \
	  NULL,                                                                                    \
	  0 },                                                                                     \
		{ RB_POPT_STRING,                                                                  \
		  "key",                                                                           \
		  0,                                                                               \
		  "FILE",                                                                          \
		  "this client's key pair ('rackbench keygen'), on each service's --admin-keys",   \
		  &A.key,                                                                          \
		  NULL,                                                                            \
		  0 },                                                                             \
		{ RB_POPT_DURATION,                                                                \
		  "deadline",                                                                      \
		  0,                                                                               \
		  "DURATION",                                                                      \
		  "how long a rack's answer is waited for (default 5s): one that does not answer " \
		  "by then is named, not waited on",                                               \
		  &A.deadline_ns,                                                                  \
		  NULL,                                                                            \
		  0 },                                                                             \
	{                                                                                          \
		RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0                                    \
	}

static const struct rb_popt fleet_opts[] = { FLEET_OPTS };
static const struct rb_popt run_opts[] = {
	{ RB_POPT_DURATION, "start-in", 0, "DURATION",
	  "how far ahead the fleet's UTC start instant is (default 3s): long enough for every "
	  "rack to be reached and its agents given the first point",
	  &A.start_in_ns, NULL, 0 },
	{ RB_POPT_STRING, "summary", 0, "FILE",
	  "the fleet summary (JSON) written at the end (default fleet-ID.json here)", &A.summary,
	  NULL, 0 },
	FLEET_OPTS
};
static const struct rb_parg id_args[] = { { "FLEET-ID", &A.id, 0 }, { NULL, NULL, 0 } };
static const struct rb_parg plan_args[] = { { "CAMPAIGN.yaml", &A.campaign, 0 },
					    { NULL, NULL, 0 } };

static const struct rb_popt_cmd plan_spec = {
	.name = "rackbench fleet plan",
	.summary = "each rack's shard of a campaign: agents, drives, points, time",
	.desc = "Asks every rack service of FLEET.yaml for its agents and their drives (all at\n"
		"once, over their admin endpoints) and applies the campaign's selectors across\n"
		"the racks: named agents, drive selectors, agent groups by name and labels (an\n"
		"agent's own, then its rack's, then rack=NAME; 'count: N' is N over the fleet,\n"
		"'all' every match on every rack). Prints per rack its shard: agents, drives,\n"
		"points, planned time. A rack that does not answer by the deadline is named\n"
		"(exit 1); a campaign the fleet cannot meet is exit 2.",
	.opts = fleet_opts,
	.args = plan_args,
};

static const struct rb_popt_cmd run_spec = {
	.name = "rackbench fleet run",
	.summary = "run a campaign on every rack from one UTC instant, followed in one view",
	.desc = "Plans the campaign across the racks as 'fleet plan' does and submits each\n"
		"rack's shard to its service (queued behind a run going on there), tagged with\n"
		"a new fleet id. Every shard starts at one UTC instant (--start-in ahead): each\n"
		"rack's wall clock is measured against this client's over its admin endpoint\n"
		"first, and the instant goes to it in its own clock; the service aligns its\n"
		"agents to it as to any run's start. A live view on stderr follows the racks\n"
		"(state, point, IOPS, failing drives, racks not answering); at the end the\n"
		"fleet table on stdout (rack, run, status, exit, clock offset, start skew,\n"
		"results) and the fleet summary (--summary). A rack unreachable at submit or\n"
		"whose service stops answering for the deadline is INCOMPLETE: the others go\n"
		"on, and the exit is 4 with those racks named; else the worst of the racks'\n"
		"codes. A campaign with fleet_verdict is then judged over its results_db as\n"
		"'rackbench judge' does, once the database holds every ended rack's run (or\n"
		"fleet_verdict's wait is over: the racks missing named): the verdicts printed\n"
		"after the fleet table, counted in the summary, and the exit the most severe of\n"
		"the racks' and the judge's (5 a FAIL, 4 a QUARANTINE or HOLD, 4 a database\n"
		"that cannot be reached). Ctrl-C aborts every rack's shard ('fleet abort'); the\n"
		"runs are the services' own, so a client that dies leaves them running ('fleet\n"
		"status').",
	.opts = run_opts,
	.args = plan_args,
};

static const struct rb_popt_cmd status_spec = {
	.name = "rackbench fleet status",
	.summary = "each rack's shard of fleet run FLEET-ID: state, run, point, exit, results",
	.desc = "Asks every rack service for its run of fleet FLEET-ID (each service keeps the\n"
		"fleet id with its shard, also once ended: its last 16 runs) and prints a line a\n"
		"rack: running, queued or done, its run id, its point, its exit code, its\n"
		"results file. Exit: the worst of the racks' codes once ended; 4 when a rack\n"
		"does not answer or has no shard of that run (INCOMPLETE, named).",
	.opts = fleet_opts,
	.args = id_args,
};

static const struct rb_popt_cmd abort_spec = {
	.name = "rackbench fleet abort",
	.summary = "abort fleet run FLEET-ID on every rack",
	.desc = "Asks every rack service to abort its run of fleet FLEET-ID (IO stops on its\n"
		"agents, the results say aborted) or to take it out of its queue. A rack that\n"
		"does not answer is named (exit 4).",
	.opts = fleet_opts,
	.args = id_args,
};

static int sub(const struct rb_popt_cmd *spec, int (*fn)(const struct rb_fleet_args *), int argc,
	       char **argv)
{
	int r;

	memset(&A, 0, sizeof(A));
	r = rb_parseopt(spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	return fn(&A);
}

static int plan_cmd(int argc, char **argv)
{
	return sub(&plan_spec, rb_fleet_plan, argc, argv);
}

static int run_cmd(int argc, char **argv)
{
	return sub(&run_spec, rb_fleet_run, argc, argv);
}

static int status_cmd(int argc, char **argv)
{
	return sub(&status_spec, rb_fleet_status, argc, argv);
}

static int abort_cmd(int argc, char **argv)
{
	return sub(&abort_spec, rb_fleet_abort, argc, argv);
}

static const struct rb_subcmd fleet_cmds[] = {
	{ "plan", plan_cmd, &plan_spec },
	{ "run", run_cmd, &run_spec },
	{ "status", status_cmd, &status_spec },
	{ "abort", abort_cmd, &abort_spec },
};

static const struct rb_popt no_opts[] = { { RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 } };

const struct rb_popt_cmd rb_coord_fleet_spec = {
	.name = "rackbench fleet",
	.summary = "one campaign across many rack services: plan, run, status, abort",
	.usage = "COMMAND [ARGS] --fleet FLEET.yaml --key FILE",
	.desc = "A client of many rack services (each a 'rackbench serve' with --admin-listen),\n"
		"named in FLEET.yaml; it keeps no state of its own (docs/fleet.md).\n"
		"\n"
		"commands:\n"
		"  plan CAMPAIGN.yaml\n"
		"      each rack's shard of a campaign: agents, drives, points, time\n"
		"  run CAMPAIGN.yaml\n"
		"      run a campaign on every rack from one UTC instant, followed in one view\n"
		"  status FLEET-ID\n"
		"      each rack's shard of fleet run FLEET-ID: state, run, point, exit, results\n"
		"  abort FLEET-ID\n"
		"      abort fleet run FLEET-ID on every rack\n"
		"\n"
		"Each command has --help.",
	.opts = no_opts,
};

int rb_fleet_cmd(int argc, char **argv)
{
	int r;

	switch (rb_parseopt_dispatch("rackbench fleet", fleet_cmds,
				     sizeof(fleet_cmds) / sizeof(fleet_cmds[0]), argc, argv, &r)) {
	case 1:
		return r;
	case -1:
		return RB_EXIT_USAGE;
	}
	r = rb_parseopt(&rb_coord_fleet_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	rb_parseopt_help(&rb_coord_fleet_spec, stderr);
	return RB_EXIT_USAGE;
}
