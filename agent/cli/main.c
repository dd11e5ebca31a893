// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "cmd_keygen.h"
#include "exitcode.h"
#include "log.h"
#include "parseopt.h"

static int keygen(int argc, char **argv)
{
	return rb_keygen_cmd(argc, argv, "rackbench-agent", "agent");
}

static struct rb_popt_cmd keygen_spec;
static int completion(int argc, char **argv);
static const char *shell;
static const struct rb_popt no_opts[] = { { RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 } };
static const struct rb_parg completion_args[] = { { "SHELL", &shell, 0 }, { NULL, NULL, 0 } };
static const struct rb_popt_cmd completion_spec = {
	.name = "rackbench-agent completion",
	.summary = "a completion script for the shell (bash): commands and flags",
	.desc = "Prints a bash completion script made from the commands' tables: commands and\n"
		"their flags. Load it with: source <(rackbench-agent completion bash)",
	.opts = no_opts,
	.args = completion_args,
};

/* The program's commands; without one, the daemon's flags. */
static const struct rb_subcmd cmds[] = {
	{ "run", rb_agent_run_cmd, &rb_agent_run_spec },
	{ "keygen", keygen, &keygen_spec },
	{ "purge", rb_agent_purge_cmd, &rb_agent_purge_spec },
	{ "inventory", rb_agent_inventory_cmd, &rb_agent_inventory_spec },
	{ "spool", rb_agent_spool_cmd, &rb_agent_spool_spec },
	{ "options", rb_agent_options_cmd, &rb_agent_options_spec },
	{ "completion", completion, &completion_spec },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* A command's positional words for completion: "" none, NULL file names. */
static const char *words(const char *cmd)
{
	if (!strcmp(cmd, "completion"))
		return "bash";
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(cmd, cmds[i].name) && !cmds[i].spec->args)
			return "";
	return NULL;
}

static int completion(int argc, char **argv)
{
	return rb_parseopt_completion(&completion_spec, &shell, argc, argv, "rackbench-agent", cmds,
				      NCMDS, rb_agent_daemon_cmd(), words);
}

int main(int argc, char **argv)
{
	struct rb_agent_cfg cfg;
	int r;

	rb_log_init("rackbench-agent", RB_LOG_INFO);
	rb_keygen_spec(&keygen_spec, "rackbench-agent");
	switch (rb_parseopt_dispatch("rackbench-agent", cmds, NCMDS, argc, argv, &r)) {
	case 1:
		return r;
	case -1:
		return RB_EXIT_USAGE;
	}
	r = rb_agent_parse(argc, argv, &cfg);
	if (r == 0)
		r = rb_agent_serve(&cfg);
	else if (r == 1)
		r = RB_EXIT_OK;
	rb_agent_cfg_release(&cfg);
	return r;
}
