// SPDX-License-Identifier: MIT
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

/* The program's commands; without one, the daemon's flags. */
static const struct rb_subcmd cmds[] = {
	{ "run", rb_agent_run_cmd, &rb_agent_run_spec },
	{ "keygen", keygen, &keygen_spec },
	{ "purge", rb_agent_purge_cmd, &rb_agent_purge_spec },
	{ "inventory", rb_agent_inventory_cmd, &rb_agent_inventory_spec },
	{ "spool", rb_agent_spool_cmd, &rb_agent_spool_spec },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

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
