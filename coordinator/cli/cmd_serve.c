// SPDX-License-Identifier: MIT
/* `rackbench serve`, and its clients `agents`, `status`, `abort`: their flags. */
#include "cmds.h"

#include <string.h>
#include <unistd.h>

#include "exitcode.h"
#include "parseopt.h"
#include "serve.h"

static struct rb_serve_args S;

static const struct rb_popt serve_opts[] = {
	{ RB_POPT_STRING, "listen", 0, "ENDPOINT",
	  "the agents' endpoint (default tcp://0.0.0.0:7470)", &S.listen, NULL, 0 },
	{ RB_POPT_STRING, "key", 0, "FILE", "the service's CURVE key pair ('rackbench keygen')",
	  &S.key, NULL, 0 },
	{ RB_POPT_STRING, "agent-keys", 0, "FILE",
	  "the allow-list: NAME KEY lines of the agents' public keys (SIGHUP rereads it)",
	  &S.agent_keys, NULL, 0 },
	{ RB_POPT_FLAG, "insecure", 0, NULL,
	  "no keys: agents are not authenticated, traffic is not "
	  "encrypted",
	  &S.insecure, NULL, 0 },
	{ RB_POPT_STRING, "control", 0, "PATH",
	  "the control socket (default $RACKBENCH_CONTROL, else /run/rackbench/control as root, "
	  "/tmp/rackbench-UID/control otherwise)",
	  &S.ctl, NULL, 0 },
	{ RB_POPT_STRING, "results", 0, "DIR", "results folder of runs submitted without one",
	  &S.results_dir, NULL, 0 },
	{ RB_POPT_STRING, "log-dir", 0, "DIR",
	  "where the runs' logs go (default: the control socket's folder)", &S.log_dir, NULL, 0 },
	{ RB_POPT_STRING, "results-db", 0, "URL",
	  "export each run's results file into the fleet's PostgreSQL database when the run ends "
	  "(a campaign's results_db wins): a libpq URI or key=value string, never printed with "
	  "its password; exports a database missed are caught up later (docs/fleet-db.md)",
	  &S.results_db, NULL, 0 },
	{ RB_POPT_STRING, "metrics", 0, "ADDR:PORT",
	  "serve Prometheus metrics over HTTP at http://ADDR:PORT/metrics (:PORT: every address; "
	  "docs/service.md lists them)",
	  &S.metrics, NULL, 0 },
	{ RB_POPT_STRING, "admin-listen", 0, "ENDPOINT",
	  "the admin endpoint (tcp://ADDR:PORT): the control socket's requests from other hosts "
	  "('rackbench fleet'), CURVE with the service's --key; needs --admin-keys and --results",
	  &S.admin_listen, NULL, 0 },
	{ RB_POPT_STRING, "admin-keys", 0, "FILE",
	  "the admins' allow-list: NAME KEY lines as --agent-keys' (an agent's key is no admin's; "
	  "SIGHUP rereads it)",
	  &S.admin_keys, NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_serve_spec = {
	.name = "rackbench serve",
	.summary = "the coordinator as a service: agents stay connected, runs are submitted",
	.usage = "[--listen ENDPOINT] [--key FILE --agent-keys FILE | --insecure] [options]",
	.desc = "The coordinator as a service: binds the agents' socket once (CURVE with the\n"
		"allow-list, reread on SIGHUP; or --insecure), keeps a registry of the agents\n"
		"connected, and runs the campaigns that 'rackbench run' and 'rackbench resume'\n"
		"submit over the control socket, one at a time; one submitted with --queue during\n"
		"a run waits its turn (up to 64, in order). 'rackbench agents', 'status' and\n"
		"'abort' ask it. Each run's log goes to LOG-DIR/run-ID.log and its summary to\n"
		"run-ID.out, which the submitting client prints on stderr and stdout. With --metrics, an HTTP server answers GET /metrics\n"
		"with the service's figures for Prometheus: each drive's IOPS, bandwidth, latency,\n"
		"temperature and errors in the run going on, the agents connected, the queue.\n"
		"With --admin-listen, the same requests come from other hosts over TCP (CURVE),\n"
		"from keys on the --admin-keys list, each logged with its key's name\n"
		"(docs/fleet.md). With --results-db, each run's results file goes into the\n"
		"fleet's PostgreSQL database when the run ends (one transaction; a file there\n"
		"already adds nothing); when the database cannot be reached the run still\n"
		"completes, the export is owed (listed in the results folder's rackbench-db-owed)\n"
		"and caught up at a later run's end and at the service's start, each file named.\n"
		"SIGTERM or SIGINT aborts a run going on (IO stops on every agent) and exits;\n"
		"queued runs do not run.",
	.opts = serve_opts,
};

int rb_serve_cmd(int argc, char **argv)
{
	int r;

	memset(&S, 0, sizeof(S));
	r = rb_parseopt(&rb_coord_serve_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	return rb_serve(&S);
}

/* The clients' flags. */
static struct {
	const char *ctl, *id;
	bool json, drives;
} C;

#define CONTROL_OPT                                                                                      \
	{                                                                                                \
		RB_POPT_STRING, "control", 0, "PATH",                                                    \
			"the service's control socket (default $RACKBENCH_CONTROL, else the service's)", \
			&C.ctl, NULL, 0                                                                  \
	}
#define END_OPT                                                                                    \
	{                                                                                          \
		RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0                                    \
	}

static const struct rb_popt agents_opts[] = {
	CONTROL_OPT,
	{ RB_POPT_FLAG, "json", 0, NULL, "one JSON document", &C.json, NULL, 0 },
	{ RB_POPT_FLAG, "drives", 0, NULL,
	  "each agent's drives too, as its last Hello offered them: path, kind, model, serial, "
	  "firmware, capacity",
	  &C.drives, NULL, 0 },
	END_OPT,
};
static const struct rb_popt status_opts[] = {
	CONTROL_OPT,
	{ RB_POPT_FLAG, "json", 0, NULL,
	  "one JSON document: the state, the point, the planned time left, each drive's last "
	  "interval (IOPS, MB/s, p99, temperature, IO errors) and the queue",
	  &C.json, NULL, 0 },
	END_OPT,
};
static const struct rb_popt control_opts[] = { CONTROL_OPT, END_OPT };
static const struct rb_parg status_args[] = { { "RUN-ID", &C.id, RB_PARG_OPTIONAL },
					      { NULL, NULL, 0 } };

const struct rb_popt_cmd rb_coord_agents_spec = {
	.name = "rackbench agents",
	.summary = "the agents registered with the running service",
	.desc = "The agents registered with the running service: name, host, version, protocol,\n"
		"targets, seconds since last heard, whether a run uses them, and labels (K=V);\n"
		"with --drives, each agent's drives under it.",
	.opts = agents_opts,
};

const struct rb_popt_cmd rb_coord_status_spec = {
	.name = "rackbench status",
	.summary = "the service's run going on, or the last one ended, and its queue",
	.desc = "The service's run going on (point k of n, results file) or the last one ended\n"
		"(its exit code), then the runs queued behind it; with RUN-ID, that run (running,\n"
		"queued, or ended: then its exit code is this command's). --json adds each drive's\n"
		"figures of its last interval while a run goes on.",
	.opts = status_opts,
	.args = status_args,
};

const struct rb_popt_cmd rb_coord_abort_spec = {
	.name = "rackbench abort",
	.summary = "stop the service's run going on, or take a queued one out",
	.desc = "Aborts the service's run going on (or run RUN-ID): IO stops on every agent, the\n"
		"results say 'aborted'. A RUN-ID waiting in the queue is taken out; it never runs.",
	.opts = control_opts,
	.args = status_args,
};

static int control(const struct rb_popt_cmd *spec, const char *cmd, int argc, char **argv)
{
	int r;

	memset(&C, 0, sizeof(C));
	r = rb_parseopt(spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	return rb_control_ask(cmd, C.ctl, C.id, C.json, C.drives);
}

int rb_agents_cmd(int argc, char **argv)
{
	return control(&rb_coord_agents_spec, "agents", argc, argv);
}

int rb_status_cmd(int argc, char **argv)
{
	return control(&rb_coord_status_spec, "status", argc, argv);
}

int rb_abort_cmd(int argc, char **argv)
{
	return control(&rb_coord_abort_spec, "abort", argc, argv);
}
