// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "cmd_keygen.h"
#include "cmds.h"
#include "exitcode.h"
#include "log.h"

static int keygen(int argc, char **argv)
{
	return rb_keygen_cmd(argc, argv, "rackbench", "coordinator");
}

/* The program's commands: each name to its cmd_*.c, with its table (keygen's made). */
static struct rb_popt_cmd keygen_spec;
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct rb_popt_cmd *spec;
} cmds[] = {
	{ "run", rb_run_cmd, &rb_coord_run_spec },
	{ "resume", rb_resume_cmd, &rb_coord_resume_spec },
	{ "journal", rb_journal_cmd, &rb_coord_journal_spec },
	{ "serve", rb_serve_cmd, &rb_coord_serve_spec },
	{ "agents", rb_agents_cmd, &rb_coord_agents_spec },
	{ "status", rb_status_cmd, &rb_coord_status_spec },
	{ "abort", rb_abort_cmd, &rb_coord_abort_spec },
	{ "keygen", keygen, &keygen_spec },
	{ "plan", rb_plan_cmd, &rb_coord_plan_spec },
	{ "options", rb_options_cmd, &rb_coord_options_spec },
	{ "presets", rb_presets_cmd, &rb_coord_presets_spec },
	{ "import-fio", rb_import_fio_cmd, &rb_coord_import_fio_spec },
	{ "report", rb_report_cmd, &rb_coord_report_spec },
	{ "demo", rb_demo_cmd, &rb_coord_demo_spec },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* The program's help: each command's usage line and summary, from its table. */
static void usage(FILE *out)
{
	char line[1024];

	fprintf(out, "usage: rackbench COMMAND [ARGS]\n\n");
	for (size_t i = 0; i < NCMDS; i++) {
		rb_parseopt_usage(cmds[i].spec, line, sizeof(line));
		fprintf(out, "  %s\n      %s\n", line + strlen("rackbench "),
			cmds[i].spec->summary);
	}
	fprintf(out, "  help\n      this text\n\n"
		     "Each command has --help. A flag of two words takes '-' or '_' between them.\n"
		     "Exit codes: 0 ok, 1 failed, 2 bad input, 3 refused by the safety guard,\n"
		     "4 partial results, 5 below a spec (report --spec), 6 IO errors.\n");
}

static int unknown(const char *name)
{
	size_t best = SIZE_MAX, pick = 0;

	for (size_t i = 0; i < NCMDS; i++) {
		size_t d = rb_parseopt_distance(name, cmds[i].name);

		if (d < best) {
			best = d;
			pick = i;
		}
	}
	if (best <= 2)
		rb_err("unknown command '%s'; did you mean '%s'?", name, cmds[pick].name);
	else
		rb_err("unknown command '%s' (see 'rackbench help')", name);
	return RB_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	rb_log_init("rackbench", RB_LOG_INFO);
	rb_keygen_spec(&keygen_spec, "rackbench");
	if (argc < 2) {
		usage(stderr);
		return RB_EXIT_USAGE;
	}
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return RB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rackbench %s\n", RB_VERSION);
		return RB_EXIT_OK;
	}
	return unknown(argv[1]);
}
