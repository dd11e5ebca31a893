// SPDX-License-Identifier: MIT
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "coord.h"
#include "demo.h"
#include "exitcode.h"
#include "import_fio.h"
#include "cmd_keygen.h"
#include "keys.h"
#include "plan.h"
#include "report.h"
#include "serve.h"
#include "log.h"
#include "transport.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	if (sig == SIGHUP) {
		rb_zap_reload_requested = 1; /* the ZAP handler rereads the allow-list */
		return;
	}
	stop = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: rackbench COMMAND [ARGS]\n"
		"\n"
		"  run CAMPAIGN.yaml [--insecure] [--key FILE --agent-keys FILE] [--results DIR]\n"
		"                    [--listen ENDPOINT] [--events FILE] [--control PATH] [--no-service]\n"
		"                    run a campaign: wait for its agents, check every drive with\n"
		"                    the safety guard, run the points, write one HDF5 file;\n"
		"                    the flags override the campaign's keys of the same names.\n"
		"                    Progress: on a terminal a live view (point k of n, ETA,\n"
		"                    per-drive IOPS, MB/s, p99, temperature; NO_COLOR honoured),\n"
		"                    else a line per point and every 5 s; --events appends JSON\n"
		"                    Lines (point_start, sample, health, point_done, run_done)\n"
		"                    Connections use CURVE: only agents whose public key is on\n"
		"                    --agent-keys (NAME KEY lines; SIGHUP rereads it) get in\n"
		"  resume RESULTS.h5 [--listen ENDPOINT] [--events FILE] [--control PATH] [--no-service]\n"
		"                    carry on a run whose coordinator died: rebuild RESULTS.h5\n"
		"                    from RESULTS.h5.journal (the old file is kept as\n"
		"                    RESULTS.h5.crashed), then run the points not finished\n"
		"                    (an interrupted one as its next attempt); the campaign, keys\n"
		"                    and endpoint are the run's own, from the journal\n"
		"  journal RESULTS.h5.journal\n"
		"                    print a run's journal as JSON lines\n"
		"  serve [--listen EP] [--key FILE --agent-keys FILE | --insecure] [--control PATH]\n"
		"                    the coordinator as a service: agents stay connected; run and\n"
		"                    resume submit campaigns to it (one at a time), and\n"
		"  agents | status [RUN-ID] | abort [--control PATH]\n"
		"                    ask it: its agents, the run going on or ended, stop the run.\n"
		"                    'run' and 'resume' use a service when one listens on the\n"
		"                    control socket (--control, $RACKBENCH_CONTROL, default\n"
		"                    /run/rackbench/control as root), else run in-process;\n"
		"                    --no-service forces in-process\n"
		"  keygen DIR [NAME] a CURVE key pair: DIR/NAME.key and DIR/NAME.pub\n"
		"  plan CAMPAIGN.yaml [--points] [--assume-capacity SIZE] [--assume-mbps N]\n"
		"                    validate a campaign: points per phase, time, methodology\n"
		"  options [--json]  the workload option table (campaign keys = run flags)\n"
		"  presets [NAME]    the reviews' procedures as campaigns ('preset: NAME')\n"
		"  import-fio JOB.fio [...] [--agent NAME] [--target PATH] [--strict]\n"
		"                    fio job files as a campaign (on stdout), a phase per job;\n"
		"                    what does not convert is named with FILE:LINE\n"
		"  report RESULTS.h5 [MORE.h5 ...] [--format table|markdown|csv] [--baseline DRIVE]\n"
		"                    [--html FILE] [--spec SPEC.yaml] [--require PCT]\n"
		"                    results as a table or an HTML page, each drive against a\n"
		"                    baseline, per model with outliers, against a vendor spec\n"
		"  demo [--out DIR]  two local agents with file targets and a built-in campaign\n"
		"  help              this text\n"
		"\n"
		"Exit codes: 0 ok, 1 failed, 2 bad input, 3 refused by the safety guard,\n"
		"4 partial results, 5 below a spec (report --spec), 6 IO errors.\n");
}

/* path as an absolute one (for a service with another working folder); NULL stays. */
static char *absolute(const char *path)
{
	char cwd[4096], *r = NULL;

	if (!path)
		return NULL;
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	if (asprintf(&r, "%s/%s", cwd, path) < 0)
		return NULL;
	return r;
}

/* A service listening on the control socket, unless --no-service; its path in buf. */
static bool use_service(const char *ctl, bool no_service, char *buf, size_t len)
{
	rb_control_path(ctl, buf, len);
	return !no_service && rb_service_present(buf);
}

static int run_cmd(int argc, char **argv)
{
	const char *file = NULL, *results = NULL, *listen = NULL, *key = NULL, *agent_keys = NULL;
	const char *events = NULL, *ctl = NULL;
	bool insecure = false, no_service = false;
	char cpath[4096];
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	struct sigaction sa = { .sa_handler = on_signal };
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return RB_EXIT_OK;
		} else if (!strcmp(argv[i], "--insecure")) {
			insecure = true;
		} else if (!strcmp(argv[i], "--results") && i + 1 < argc) {
			results = argv[++i];
		} else if (!strcmp(argv[i], "--listen") && i + 1 < argc) {
			listen = argv[++i];
		} else if (!strcmp(argv[i], "--key") && i + 1 < argc) {
			key = argv[++i];
		} else if (!strcmp(argv[i], "--agent-keys") && i + 1 < argc) {
			agent_keys = argv[++i];
		} else if (!strcmp(argv[i], "--events") && i + 1 < argc) {
			events = argv[++i];
		} else if (!strcmp(argv[i], "--control") && i + 1 < argc) {
			ctl = argv[++i];
		} else if (!strcmp(argv[i], "--no-service")) {
			no_service = true;
		} else if (argv[i][0] == '-' || file) {
			rb_err("unexpected argument '%s' (see 'rackbench help')", argv[i]);
			return RB_EXIT_USAGE;
		} else {
			file = argv[i];
		}
	}
	if (!file) {
		rb_err("no campaign file: rackbench run CAMPAIGN.yaml");
		return RB_EXIT_USAGE;
	}
	rb_diags_init(&d);
	if (rb_campaign_load_file(file, &c, &d)) {
		rb_diags_print(&d, stderr);
		rb_diags_release(&d);
		return RB_EXIT_USAGE;
	}
	rb_diags_release(&d);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (use_service(ctl, no_service, cpath, sizeof(cpath))) {
		/* the service's socket and keys serve every run */
		/* no folder given by flag or campaign: the service's (serve --results) */
		bool own = results || strcmp(c->results_dir, ".");
		char *f = realpath(file, NULL),
		     *res = own ? absolute(results ? results : c->results_dir) : NULL,
		     *ev = absolute(events);

		if (insecure || listen || key || agent_keys)
			rb_warn("--insecure, --listen, --key and --agent-keys are the service's: "
				"ignored (or use --no-service)");
		rc = rb_service_submit(cpath, "run", f ? f : file, c->text, res, ev, &stop);
		free(f);
		free(res);
		free(ev);
		rb_campaign_free(c);
		rb_tx_context_term();
		return rc;
	}
	if (insecure)
		c->insecure = true;
	if (results) {
		free(c->results_dir);
		c->results_dir = strdup(results);
	}
	if (listen) {
		free(c->listen);
		c->listen = strdup(listen);
	}
	if (key) {
		free(c->key);
		c->key = strdup(key);
	}
	if (agent_keys) {
		free(c->agent_keys);
		c->agent_keys = strdup(agent_keys);
	}
	sigaction(SIGHUP, &sa, NULL);
	rc = rb_coord_run(c, &(struct rb_coord_opts){ .stop = &stop, .events = events });
	rb_campaign_free(c);
	rb_tx_context_term();
	return rc;
}

static int resume_cmd(int argc, char **argv)
{
	const char *path = NULL, *events = NULL, *listen = NULL, *ctl = NULL;
	bool no_service = false;
	char cpath[4096];
	struct rb_journal_meta m;
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	struct sigaction sa = { .sa_handler = on_signal };
	char jp[4200], err[600];
	long n;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return RB_EXIT_OK;
		} else if (!strcmp(argv[i], "--events") && i + 1 < argc) {
			events = argv[++i];
		} else if (!strcmp(argv[i], "--listen") && i + 1 < argc) {
			listen = argv[++i];
		} else if (!strcmp(argv[i], "--control") && i + 1 < argc) {
			ctl = argv[++i];
		} else if (!strcmp(argv[i], "--no-service")) {
			no_service = true;
		} else if (argv[i][0] == '-' || path) {
			rb_err("unexpected argument '%s' (see 'rackbench help')", argv[i]);
			return RB_EXIT_USAGE;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		rb_err("no results file: rackbench resume RESULTS.h5");
		return RB_EXIT_USAGE;
	}
	snprintf(jp, sizeof(jp), "%s.journal", path);
	n = rb_journal_walk(jp, 0, &m, NULL, NULL, NULL, err, sizeof(err));
	if (n < 0) {
		rb_err("%s", err);
		return RB_EXIT_USAGE;
	}
	if (use_service(ctl, no_service, cpath, sizeof(cpath))) {
		char *p = absolute(path), *ev = absolute(events);

		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		rc = rb_service_submit(cpath, "resume", p, NULL, NULL, ev, &stop);
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
	/* the run's own settings, as it ran (flags included) */
	c->insecure = m.insecure;
	free(c->listen);
	c->listen = strdup(listen ? listen : m.listen);
	free(c->key);
	c->key = m.key[0] ? strdup(m.key) : NULL;
	free(c->agent_keys);
	c->agent_keys = m.agent_keys[0] ? strdup(m.agent_keys) : NULL;
	rb_info("resuming run %s of campaign '%s' (%s)", m.run, c->name, path);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	rc = rb_coord_resume(
		c, &(struct rb_coord_opts){ .stop = &stop, .events = events, .results_path = path },
		&m);
	rb_campaign_free(c);
	rb_journal_meta_free(&m);
	rb_tx_context_term();
	return rc;
}

int main(int argc, char **argv)
{
	rb_log_init("rackbench", RB_LOG_INFO);
	if (argc < 2) {
		usage(stderr);
		return RB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "run"))
		return run_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "serve"))
		return rb_serve_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "agents") || !strcmp(argv[1], "status") || !strcmp(argv[1], "abort"))
		return rb_control_cmd(argv[1], argc - 1, argv + 1);
	if (!strcmp(argv[1], "journal"))
		return rb_journal_dump_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "resume"))
		return resume_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "demo"))
		return rb_demo_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "keygen"))
		return rb_keygen_cmd(argc - 1, argv + 1, "rackbench", "coordinator");
	if (!strcmp(argv[1], "report"))
		return rb_report_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "plan"))
		return rb_plan_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "presets"))
		return rb_presets_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "options"))
		return rb_options_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "import-fio"))
		return rb_import_fio_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return RB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rackbench %s\n", RB_VERSION);
		return RB_EXIT_OK;
	}
	rb_err("unknown command '%s' (see 'rackbench help')", argv[1]);
	return RB_EXIT_USAGE;
}
