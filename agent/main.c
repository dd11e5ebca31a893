// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "exitcode.h"
#include "keys.h"
#include "log.h"
#include "spool.h"

int main(int argc, char **argv)
{
	struct rb_agent_cfg cfg;
	int r;

	rb_log_init("rackbench-agent", RB_LOG_INFO);
	if (argc > 1 && !strcmp(argv[1], "run"))
		return rb_agent_run_cmd(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "keygen"))
		return rb_keygen_cmd(argc - 1, argv + 1, "agent");
	if (argc > 1 && !strcmp(argv[1], "purge"))
		return rb_agent_purge_cmd(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "inventory"))
		return rb_agent_inventory_cmd(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "spool"))
		return rb_spool_dump_cmd(argc - 1, argv + 1);
	if (argc > 1 && argv[1][0] != '-') {
		rb_err("unknown subcommand '%s' (see --help)", argv[1]);
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
