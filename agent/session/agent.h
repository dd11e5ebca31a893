/* SPDX-License-Identifier: MIT */
/* The agent daemon and its local subcommands. */
#ifndef RB_AGENT_H
#define RB_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "execphase.h"

/* agent.yaml's per-target words (serials, slots): a value for each of these paths */
struct rb_path_map {
	struct rb_path_word {
		char *path, *value;
	} * v;
	size_t n, cap;
};

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
	struct rb_exec_list exec; /* the allow-list of exec phases (agent.yaml 'commands') */
	/* agent.yaml 'serials': a serial for each of these targets that reports none */
	struct rb_path_map serials;
	/* agent.yaml 'slots': where each of these targets sits, as the rack's people name it
	 * (a drive's slot: this, else its PCI slot's name, else none) */
	struct rb_path_map slots;
};

/*
 * Parses `rackbench-agent` daemon flags (agent/cli/cmd_agent.c) and --config FILE (a YAML
 * mapping with the same keys: agent/session/agent_keys.c). Returns 0, 1 when --help was
 * printed, or an exit code >= 2 after printing what was wrong. The cfg's strings point into
 * argv or a loaded config.
 */
int rb_agent_parse(int argc, char **argv, struct rb_agent_cfg *cfg);
/* The flags' names and exit codes are the daemon's command's (agent/cli/cmd_agent.c). */
/* The checks and defaults after the file and the flags: 0 or RB_EXIT_USAGE, said. */
int rb_agent_cfg_finish(struct rb_agent_cfg *cfg);
/* The serial agent.yaml gives target path (for one that reports none), or NULL. */
const char *rb_agent_cfg_serial(const struct rb_agent_cfg *cfg, const char *path);
/* agent.yaml's slot of the target at path, or NULL (the PCI slot's name is used then). */
const char *rb_agent_cfg_slot(const struct rb_agent_cfg *cfg, const char *path);
/* A copy of s into *dst (freeing the old), and appended to a list of copies. */
void rb_agent_cfg_set(char **dst, const char *s);
int rb_agent_cfg_push(char ***v, size_t *n, const char *s);
/* Reads only the config file (for the commands that share it: inventory): no flags, no
 * daemon checks. 0 or an exit code >= 2 after printing what was wrong. */
int rb_agent_cfg_load(const char *path, struct rb_agent_cfg *cfg);
void rb_agent_cfg_release(struct rb_agent_cfg *cfg);
/* Runs the daemon until SIGTERM/SIGINT; returns the process exit code. */
int rb_agent_serve(const struct rb_agent_cfg *cfg);
struct rb_nvme_ops;
/* What the inventory lists, and how. */
struct rb_inventory_req {
	const char *root;		    /* /sys, /proc, /dev/disk under it; NULL: the host's */
	bool json;			    /* one JSON document */
	const struct rb_nvme_ops *nvme_ops; /* NULL: the drives' own pages (libnvme) */
	const char *config;		    /* the agent's config: its targets and allow; NULL */
	const char *const *allow, *const *targets;
	size_t nallow, ntargets;
};
/* The host's drives and the targets, each with the guard's verdict; the exit code. */
int rb_inventory(const struct rb_inventory_req *q);
/* `rackbench-agent inventory ...`; argv[0] is "inventory". Returns the exit code. */
int rb_agent_inventory_cmd(int argc, char **argv);
/* `rackbench-agent purge ...`; argv[0] is "purge". Returns the exit code. */
int rb_agent_purge_cmd(int argc, char **argv);
/* `rackbench-agent run ...`; argv[0] is "run". Returns the exit code. */
int rb_agent_run_cmd(int argc, char **argv);
/* `rackbench-agent spool FILE`; argv[0] is "spool". Returns the exit code. */
int rb_agent_spool_cmd(int argc, char **argv);

/* `rackbench-agent options [--json]`: agent.yaml's key table. Returns the exit code. */
int rb_agent_options_cmd(int argc, char **argv);

/* The commands' tables (agent/cli/cmd_*.c): their flags, help and completion. */
struct rb_popt_cmd;
extern const struct rb_popt_cmd rb_agent_run_spec, rb_agent_inventory_spec, rb_agent_purge_spec,
	rb_agent_spool_spec, rb_agent_options_spec;
/* The daemon's table, its flags made from agent.yaml's key table on the first call. */
const struct rb_popt_cmd *rb_agent_daemon_cmd(void);

#endif
