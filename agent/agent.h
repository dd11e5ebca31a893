/* SPDX-License-Identifier: MIT */
/* The agent daemon and its local subcommands. */
#ifndef RB_AGENT_H
#define RB_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"

struct rb_agent_cfg {
	char *coordinator; /* tcp://HOST:PORT */
	char *name;
	char **labels; /* "K=V" */
	size_t nlabels;
	char **targets;
	size_t ntargets;
	char **allow;
	size_t nallow;
	char *state_dir;
	char *key, *coordinator_key;
	bool insecure;
	char *spool_max; /* the spool's cap (a size); NULL: the default */
	uint64_t spool_max_bytes;
	/* the session's timers and time stamps; NULL: the real clock (tests give a fake) */
	const struct rb_clock *clock;
};

/*
 * Parses `rackbench-agent` daemon flags and --config FILE (a YAML mapping with the
 * same keys). Returns 0, 1 when --help was printed, or an exit code >= 2 after
 * printing what was wrong. The cfg's strings point into argv or a loaded config.
 */
int rb_agent_parse(int argc, char **argv, struct rb_agent_cfg *cfg);
/* Reads only the config file (for the commands that share it: inventory): no flags, no
 * daemon checks. 0 or an exit code >= 2 after printing what was wrong. */
int rb_agent_cfg_load(const char *path, struct rb_agent_cfg *cfg);
void rb_agent_cfg_release(struct rb_agent_cfg *cfg);
/* Runs the daemon until SIGTERM/SIGINT; returns the process exit code. */
int rb_agent_serve(const struct rb_agent_cfg *cfg);
/* `rackbench-agent inventory ...`; argv[0] is "inventory". Returns the exit code. */
int rb_agent_inventory_cmd(int argc, char **argv);
/* `rackbench-agent purge ...`; argv[0] is "purge". Returns the exit code. */
int rb_agent_purge_cmd(int argc, char **argv);
/* `rackbench-agent run ...`; argv[0] is "run". Returns the exit code. */
int rb_agent_run_cmd(int argc, char **argv);

#endif
