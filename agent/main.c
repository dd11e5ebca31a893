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

/* The program's commands; without one, the daemon's flags. */
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "run", rb_agent_run_cmd },	 { "keygen", keygen },
	{ "purge", rb_agent_purge_cmd }, { "inventory", rb_agent_inventory_cmd },
	{ "spool", rb_agent_spool_cmd },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

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
		rb_err("unknown command '%s' (see 'rackbench-agent --help')", name);
	return RB_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct rb_agent_cfg cfg;
	int r;

	rb_log_init("rackbench-agent", RB_LOG_INFO);
	if (argc > 1 && argv[1][0] != '-') {
		for (size_t i = 0; i < NCMDS; i++)
			if (!strcmp(argv[1], cmds[i].name))
				return cmds[i].fn(argc - 1, argv + 1);
		return unknown(argv[1]);
	}
	r = rb_agent_parse(argc, argv, &cfg);
	if (r == 0)
		r = rb_agent_serve(&cfg);
	else if (r == 1)
		r = RB_EXIT_OK;
	rb_agent_cfg_release(&cfg);
	return r;
}
