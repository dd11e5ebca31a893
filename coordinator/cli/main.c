// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd_keygen.h"
#include "cmds.h"
#include "exitcode.h"
#include "log.h"
#include "presets.h"

static int keygen(int argc, char **argv)
{
	return rb_keygen_cmd(argc, argv, "rackbench", "coordinator");
}

static int help(int argc, char **argv);
static int completion(int argc, char **argv);
static const char *shell;
static const struct rb_popt no_opts[] = { { RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 } };
static const struct rb_parg completion_args[] = { { "SHELL", &shell, 0 }, { NULL, NULL, 0 } };
static const struct rb_popt_cmd completion_spec = {
	.name = "rackbench completion",
	.summary = "a completion script for the shell (bash): commands, flags, preset names",
	.desc = "Prints a bash completion script made from the commands' tables: commands,\n"
		"their flags, preset names. Load it with: source <(rackbench completion bash)",
	.opts = no_opts,
	.args = completion_args,
};

/* The program's commands: each name to its cmd_*.c, with its table (keygen's made). */
static struct rb_popt_cmd keygen_spec;
static const struct rb_subcmd cmds[] = {
	{ "run", rb_run_cmd, &rb_coord_run_spec },
	{ "resume", rb_resume_cmd, &rb_coord_resume_spec },
	{ "journal", rb_journal_cmd, &rb_coord_journal_spec },
	{ "serve", rb_serve_cmd, &rb_coord_serve_spec },
	{ "agents", rb_agents_cmd, &rb_coord_agents_spec },
	{ "status", rb_status_cmd, &rb_coord_status_spec },
	{ "abort", rb_abort_cmd, &rb_coord_abort_spec },
	{ "fleet", rb_fleet_cmd, &rb_coord_fleet_spec },
	{ "keygen", keygen, &keygen_spec },
	{ "plan", rb_plan_cmd, &rb_coord_plan_spec },
	{ "options", rb_options_cmd, &rb_coord_options_spec },
	{ "presets", rb_presets_cmd, &rb_coord_presets_spec },
	{ "import-fio", rb_import_fio_cmd, &rb_coord_import_fio_spec },
	{ "report", rb_report_cmd, &rb_coord_report_spec },
	{ "history", rb_history_cmd, &rb_coord_history_spec },
	{ "drives", rb_drives_cmd, &rb_coord_drives_spec },
	{ "export", rb_export_cmd, &rb_coord_export_spec },
	{ "judge", rb_judge_cmd, &rb_coord_judge_spec },
	{ "demo", rb_demo_cmd, &rb_coord_demo_spec },
	{ "completion", completion, &completion_spec },
	{ "help", help, NULL },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static bool version;
static char commands[8192];

static const struct rb_popt top_opts[] = {
	{ RB_POPT_FLAG, "version", 0, NULL, "the program's version", &version, NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_popt_cmd top = {
	.name = "rackbench",
	.usage = "COMMAND [ARGS]",
	.desc = commands,
	.opts = top_opts,
	.epilog = "Each command has --help. A flag of two words takes '-' or '_' between them.\n"
		  "Exit codes: 0 ok, 1 failed, 2 bad input, 3 refused by the safety guard,\n"
		  "4 partial results, 5 a drive failed its verdict or a spec, 6 IO errors.",
};

/* The command list of the program's help: each usage line and summary, from its table. */
static void make_commands(void)
{
	char line[1024];
	size_t at = 0;

	for (size_t i = 0; i < NCMDS && at < sizeof(commands); i++) {
		const struct rb_popt_cmd *c = cmds[i].spec;

		if (!c) {
			at += (size_t)snprintf(commands + at, sizeof(commands) - at,
					       "  %s\n      this text\n", cmds[i].name);
			continue;
		}
		rb_parseopt_usage(c, line, sizeof(line));
		at += (size_t)snprintf(commands + at, sizeof(commands) - at, "  %s\n      %s\n",
				       line + strlen("rackbench "), c->summary);
	}
}

static int help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	rb_parseopt_help(&top, stdout);
	return RB_EXIT_OK;
}

/* A command's positional words for completion: preset names, shells; "" none; NULL files. */
static const char *words(const char *cmd)
{
	static char names[4096];
	size_t n, at = 0;
	const struct rb_preset *p;

	if (!strcmp(cmd, "presets")) {
		p = rb_presets(&n);
		for (size_t i = 0; i < n && at < sizeof(names); i++)
			at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s", i ? " " : "",
					       p[i].name);
		return names;
	}
	if (!strcmp(cmd, "completion"))
		return "bash";
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(cmd, cmds[i].name) && (!cmds[i].spec || !cmds[i].spec->args))
			return "";
	return NULL;
}

static int completion(int argc, char **argv)
{
	return rb_parseopt_completion(&completion_spec, &shell, argc, argv, "rackbench", cmds,
				      NCMDS, &top, words);
}

int main(int argc, char **argv)
{
	int r;

	rb_log_init("rackbench", RB_LOG_INFO);
	rb_keygen_spec(&keygen_spec, "rackbench");
	make_commands();
	if (argc < 2) {
		rb_parseopt_help(&top, stderr);
		return RB_EXIT_USAGE;
	}
	switch (rb_parseopt_dispatch("rackbench", cmds, NCMDS, argc, argv, &r)) {
	case 1:
		return r;
	case -1:
		return RB_EXIT_USAGE;
	}
	r = rb_parseopt(&top, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	if (version)
		printf("rackbench %s\n", RB_VERSION);
	else
		rb_parseopt_help(&top, stdout);
	return RB_EXIT_OK;
}
