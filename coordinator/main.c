// SPDX-License-Identifier: MIT
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "coord.h"
#include "demo.h"
#include "exitcode.h"
#include "keys.h"
#include "plan.h"
#include "report.h"
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
		"                    [--listen ENDPOINT] [--events FILE]\n"
		"                    run a campaign: wait for its agents, check every drive with\n"
		"                    the safety guard, run the points, write one HDF5 file;\n"
		"                    the flags override the campaign's keys of the same names.\n"
		"                    Progress: on a terminal a live view (point k of n, ETA,\n"
		"                    per-drive IOPS, MB/s, p99, temperature; NO_COLOR honoured),\n"
		"                    else a line per point and every 5 s; --events appends JSON\n"
		"                    Lines (point_start, sample, health, point_done, run_done)\n"
		"                    Connections use CURVE: only agents whose public key is on\n"
		"                    --agent-keys (NAME KEY lines; SIGHUP rereads it) get in\n"
		"  keygen DIR [NAME] a CURVE key pair: DIR/NAME.key and DIR/NAME.pub\n"
		"  plan CAMPAIGN.yaml [--points] [--assume-capacity SIZE] [--assume-mbps N]\n"
		"                    validate a campaign: points per phase, time, methodology\n"
		"  options [--json]  the workload option table (campaign keys = run flags)\n"
		"  presets [NAME]    the reviews' procedures as campaigns ('preset: NAME')\n"
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

static int run_cmd(int argc, char **argv)
{
	const char *file = NULL, *results = NULL, *listen = NULL, *key = NULL, *agent_keys = NULL;
	const char *events = NULL;
	bool insecure = false;
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
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	rc = rb_coord_run(c, &(struct rb_coord_opts){ .stop = &stop, .events = events });
	rb_campaign_free(c);
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
	if (!strcmp(argv[1], "demo"))
		return rb_demo_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "keygen"))
		return rb_keygen_cmd(argc - 1, argv + 1, "coordinator");
	if (!strcmp(argv[1], "report"))
		return rb_report_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "plan"))
		return rb_plan_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "presets"))
		return rb_presets_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "options"))
		return rb_options_cmd(argc - 1, argv + 1);
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
