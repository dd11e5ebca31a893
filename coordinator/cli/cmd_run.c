// SPDX-License-Identifier: MIT
/* `rackbench run` and `rackbench resume`: their flags, to a service or in this process. */
#include "cmds.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "coord.h"
#include "exitcode.h"
#include "journal.h"
#include "keys.h"
#include "log.h"
#include "results_db.h"
#include "serve.h"
#include "transport.h"
#include "stopsig.h"

/* What run and resume were asked. */
static struct {
	const char *file, *path, *results, *listen, *key, *agent_keys, *events, *ctl;
	bool insecure, no_service, queue, detach;
} R;

#define OPT_LISTEN                                                                                 \
	{                                                                                          \
		RB_POPT_STRING, "listen", 0, "ENDPOINT",                                           \
			"where agents connect (the campaign's listen:)", &R.listen, NULL, 0        \
	}
#define OPT_EVENTS                                                                                           \
	{                                                                                                    \
		RB_POPT_STRING, "events", 0, "FILE",                                                         \
			"append JSON Lines of progress (point_start, sample, health, point_done, run_done)", \
			&R.events, NULL, 0                                                                   \
	}
#define OPT_CONTROL                                                                                              \
	{                                                                                                        \
		RB_POPT_STRING, "control", 0, "PATH",                                                            \
			"the service's control socket (default $RACKBENCH_CONTROL, else /run/rackbench/control " \
			"as root)",                                                                              \
			&R.ctl, NULL, 0                                                                          \
	}
#define OPT_NO_SERVICE                                                                             \
	{                                                                                          \
		RB_POPT_FLAG, "no-service", 0, NULL,                                               \
			"run in this process even when a service listens on the control socket",   \
			&R.no_service, NULL, 0                                                     \
	}
#define OPT_QUEUE                                                                                   \
	{ RB_POPT_FLAG,                                                                             \
	  "queue",                                                                                  \
	  0,                                                                                        \
	  NULL,                                                                                     \
	  "at a service with a run going on, wait its turn (else refused as busy)",                 \
	  &R.queue,                                                                                 \
	  NULL,                                                                                     \
	  0 },                                                                                      \
	{                                                                                           \
		RB_POPT_FLAG, "detach", 0, NULL,                                                    \
			"at a service, return once it took the run, its id on stdout (for timers)", \
			&R.detach, NULL, 0                                                          \
	}
#define OPT_END                                                                                    \
	{                                                                                          \
		RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0                                    \
	}

static const struct rb_popt run_opts[] = {
	{ RB_POPT_FLAG, "insecure", 0, NULL, "no keys: agents are not authenticated (insecure:)",
	  &R.insecure, NULL, 0 },
	{ RB_POPT_STRING, "key", 0, "FILE", "the coordinator's CURVE key pair (key:)", &R.key, NULL,
	  0 },
	{ RB_POPT_STRING, "agent-keys", 0, "FILE",
	  "the allow-list: NAME KEY lines of the agents' public keys; SIGHUP rereads it "
	  "(agent_keys:)",
	  &R.agent_keys, NULL, 0 },
	{ RB_POPT_STRING, "results", 0, "DIR", "the results folder (results:)", &R.results, NULL,
	  0 },
	OPT_LISTEN,
	OPT_EVENTS,
	OPT_CONTROL,
	OPT_NO_SERVICE,
	OPT_QUEUE,
	OPT_END,
};

static const struct rb_parg run_args[] = { { "CAMPAIGN.yaml", &R.file, 0 }, { NULL, NULL, 0 } };

const struct rb_popt_cmd rb_coord_run_spec = {
	.name = "rackbench run",
	.summary = "run a campaign: its agents, the guard, the points, one HDF5 file",
	.desc = "Runs a campaign: waits for its agents, checks every drive with the safety guard,\n"
		"runs the points, writes one HDF5 file; the flags override the campaign's keys of\n"
		"the same names. Progress: on a terminal a live view (point k of n, ETA, per-drive\n"
		"IOPS, MB/s, p99, temperature; NO_COLOR honoured), else a line per point and every\n"
		"5 s. Connections use CURVE: only agents whose public key is on --agent-keys get in.\n"
		"With a service listening on the control socket the run is submitted to it (its\n"
		"socket and keys serve every run; with --queue it waits behind the runs before it),\n"
		"else it runs in this process.",
	.opts = run_opts,
	.args = run_args,
};

static const struct rb_popt resume_opts[] = {
	OPT_LISTEN, OPT_EVENTS, OPT_CONTROL, OPT_NO_SERVICE, OPT_QUEUE, OPT_END,
};

static const struct rb_parg resume_args[] = { { "RESULTS.h5", &R.path, 0 }, { NULL, NULL, 0 } };

const struct rb_popt_cmd rb_coord_resume_spec = {
	.name = "rackbench resume",
	.summary = "carry on a run whose coordinator died, from its journal",
	.desc = "Carries on a run whose coordinator died: rebuilds RESULTS.h5 from\n"
		"RESULTS.h5.journal (the old file is kept as RESULTS.h5.crashed), then runs the\n"
		"points not finished (an interrupted one as its next attempt); the campaign, keys\n"
		"and endpoint are the run's own, from the journal.",
	.opts = resume_opts,
	.args = resume_args,
};

static void say(void *arg, bool warn, const char *msg)
{
	(void)arg;
	rb_log(warn ? RB_LOG_WARN : RB_LOG_INFO, "%s", msg);
}

/*
 * A run in this process: its file into the campaign's results_db, or owed in its folder;
 * when it went, the folder's exports owed to databases named by URL caught up too.
 */
static void export_run(const struct rb_campaign *c, const char *results)
{
	struct rb_resdb_sink k = { .url = c->results_db, .tag = c->results_db, .say = say };
	char dir[4096];

	if (!c->results_db || !results[0] || rb_resdb_export_run(&k, results) == 1)
		return;
	snprintf(dir, sizeof(dir), "%s", results);
	rb_resdb_catch_up(&k, dirname(dir));
}

int rb_run_cmd(int argc, char **argv)
{
	char cpath[4096];
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	struct rb_coord_state st = { .point = 0 };
	int rc;

	memset(&R, 0, sizeof(R));
	rc = rb_parseopt(&rb_coord_run_spec, argc, argv, NULL);
	if (rc)
		return rb_parseopt_exit(rc);
	rb_diags_init(&d);
	if (rb_campaign_load_file(R.file, &c, &d)) {
		rb_diags_print(&d, stderr);
		rb_diags_release(&d);
		return RB_EXIT_USAGE;
	}
	rb_diags_release(&d);
	if (c->fleet_verdict.on)
		rb_info("campaign '%s' asks for the fleet's verdicts (fleet_verdict): they are "
			"judged by 'rackbench fleet run' once every rack has ended, or by 'rackbench "
			"judge --db URL --campaign %s', not by this run",
			c->name, c->name);
	rb_stop_signals(NULL, false, NULL);
	if (R.detach && !rb_service_use(R.ctl, R.no_service, cpath, sizeof(cpath))) {
		rb_err("--detach hands the run to a service, and none listens on %s", cpath);
		rb_campaign_free(c);
		return RB_EXIT_USAGE;
	}
	if (rb_service_use(R.ctl, R.no_service, cpath, sizeof(cpath))) {
		/* the service's socket and keys serve every run */
		/* no folder given by flag or campaign: the service's (serve --results) */
		bool own = R.results || strcmp(c->results_dir, ".");
		char *f = realpath(R.file, NULL),
		     *res = own ? rb_path_absolute(R.results ? R.results : c->results_dir) : NULL,
		     *ev = rb_path_absolute(R.events);

		if (R.insecure || R.listen || R.key || R.agent_keys)
			rb_warn("--insecure, --listen, --key and --agent-keys are the service's: "
				"ignored (or use --no-service)");
		rc = rb_service_submit(&(struct rb_submit){ .ctl = cpath,
							    .kind = "run",
							    .arg = f ? f : R.file,
							    .text = c->text,
							    .results_dir = res,
							    .events = ev,
							    .queue = R.queue,
							    .detach = R.detach,
							    .interrupted = &rb_stop_flag });
		free(f);
		free(res);
		free(ev);
		rb_campaign_free(c);
		rb_tx_context_term();
		return rc;
	}
	if (R.insecure)
		c->insecure = true;
	if (R.results) {
		free(c->results_dir);
		c->results_dir = strdup(R.results);
	}
	if (R.listen) {
		free(c->listen);
		c->listen = strdup(R.listen);
	}
	if (R.key) {
		free(c->key);
		c->key = strdup(R.key);
	}
	if (R.agent_keys) {
		free(c->agent_keys);
		c->agent_keys = strdup(R.agent_keys);
	}
	rb_stop_signals(NULL, false, rb_zap_reload); /* SIGHUP: the allow-list reread */
	rc = rb_coord_run(c, &(struct rb_coord_opts){ .stop = &rb_stop_flag,
						      .events = R.events,
						      .state = &st,
						      .results_db = c->results_db });
	export_run(c, st.results);
	rb_campaign_free(c);
	rb_tx_context_term();
	return rc;
}

int rb_resume_cmd(int argc, char **argv)
{
	char cpath[4096];
	struct rb_journal_meta m;
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	struct rb_coord_state st = { .point = 0 };
	char jp[4200], err[600];
	long n;
	int rc;

	memset(&R, 0, sizeof(R));
	rc = rb_parseopt(&rb_coord_resume_spec, argc, argv, NULL);
	if (rc)
		return rb_parseopt_exit(rc);
	snprintf(jp, sizeof(jp), "%s.journal", R.path);
	n = rb_journal_walk(jp, 0, &m, NULL, NULL, NULL, err, sizeof(err));
	if (n < 0) {
		rb_err("%s", err);
		return RB_EXIT_USAGE;
	}
	if (rb_service_use(R.ctl, R.no_service, cpath, sizeof(cpath))) {
		char *p = rb_path_absolute(R.path), *ev = rb_path_absolute(R.events);

		rb_stop_signals(NULL, false, NULL);
		rc = rb_service_submit(&(struct rb_submit){ .ctl = cpath,
							    .kind = "resume",
							    .arg = p,
							    .events = ev,
							    .queue = R.queue,
							    .detach = R.detach,
							    .interrupted = &rb_stop_flag });
		free(p);
		free(ev);
		rb_journal_meta_free(&m);
		rb_tx_context_term();
		return rc;
	}
	rb_diags_init(&d);
	if (rb_campaign_load(m.file, m.campaign, strlen(m.campaign), &c, &d)) {
		rb_err("the campaign in '%s' no longer loads:", jp);
		rb_diags_print(&d, stderr);
		rb_diags_release(&d);
		rb_journal_meta_free(&m);
		return RB_EXIT_USAGE;
	}
	rb_diags_release(&d);
	/* a fleet's shard is cut again as it ran: the same agents, drives and groups */
	if (m.shard && rb_campaign_shard(c, m.shard, err, sizeof(err))) {
		rb_err("the run in '%s': %s", jp, err);
		rb_campaign_free(c);
		rb_journal_meta_free(&m);
		return RB_EXIT_USAGE;
	}
	/* the run's own settings, as it ran (flags included) */
	c->insecure = m.insecure;
	free(c->listen);
	c->listen = strdup(R.listen ? R.listen : m.listen);
	free(c->key);
	c->key = m.key[0] ? strdup(m.key) : NULL;
	free(c->agent_keys);
	c->agent_keys = m.agent_keys[0] ? strdup(m.agent_keys) : NULL;
	rb_info("resuming run %s of campaign '%s' (%s)", m.run, c->name, R.path);
	rb_stop_signals(NULL, false, rb_zap_reload);
	rc = rb_coord_resume(c,
			     &(struct rb_coord_opts){ .stop = &rb_stop_flag,
						      .events = R.events,
						      .results_path = R.path,
						      .state = &st,
						      .results_db = c->results_db },
			     &m);
	export_run(c, st.results);
	rb_campaign_free(c);
	rb_journal_meta_free(&m);
	rb_tx_context_term();
	return rc;
}
