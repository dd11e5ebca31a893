/* SPDX-License-Identifier: MIT */
/*
 * Exec phases: an application run on the drive under test beside its telemetry. The
 * agent's own allow-list (agent.yaml 'commands') says which commands exist: each a name,
 * an argv template, declared parameters with defaults, a timeout and a parser of its
 * output. The coordinator can only name a command and fill declared parameters with plain
 * words; it never sends a command line. Placeholders in the argv: {dir} (the drive's
 * filesystem, mounted by rackbench), {device} (the drive), {point}, and each {PARAM}.
 *
 * One process group per drive, started when the point's instant comes, its stdout and
 * stderr in the state folder (STATE/exec/); meanwhile the drive is sampled from the
 * kernel's counters (/sys/dev/block/MAJ:MIN/stat: IOs, bytes, time in the queue, per
 * interval), as any point's samples. At its end: the exit code, the output's tails and
 * what the parser read (sysbench: TPS, QPS, latency).
 */
#ifndef RB_EXECPHASE_H
#define RB_EXECPHASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "engine.h"
#include "wire.h"
#include "yamlcfg.h"

struct rb_agent_cmd {
	char *name;
	char **argv;
	size_t argc;
	char **keys, **defs; /* declared parameters and their defaults */
	size_t nparams;
	uint64_t timeout_ns;
	char parser[16]; /* sysbench, fio-json, none */
};

/* The agent's allow-list of exec phases (agent.yaml 'commands'): its configuration holds
 * one, and nothing here reads the rest of that. */
struct rb_exec_list {
	struct rb_agent_cmd *cmds;
	size_t ncmds;
};

/* agent.yaml's 'commands' mapping into c (errors in d at their place). */
void rb_exec_cfg_load(struct rb_yaml *y, yaml_node_t *v, struct rb_exec_list *c,
		      struct rb_diags *d);
void rb_exec_cfg_release(struct rb_exec_list *c);
const struct rb_agent_cmd *rb_exec_find(const struct rb_exec_list *c, const char *name);
/* Whether the agent has the command; a refusal naming it, the agent and the list in d if
 * not. */
bool rb_exec_allowed(const struct rb_exec_list *c, const char *agent, const char *name,
		     struct rb_diags *d);

/* A drive of an exec point: its campaign name, its device, its filesystem ("" none). */
struct rb_exec_drive {
	const char *drive, *device, *dir;
};

struct rb_exec;

/*
 * The command m names (from the agent's list l), its argv filled for each of n drives, to
 * start at the point's instant; its output kept under the agent's state_dir, the agent
 * named in what it says. 0, or -EINVAL with err (an unknown command or parameter, {dir}
 * for a drive without a filesystem), or another negative errno.
 */
int rb_exec_new(const struct rb_exec_list *l, const char *agent, const char *state_dir,
		const struct rb_msg_exec *m, const struct rb_exec_drive *d, size_t n,
		uint32_t point, uint64_t interval_ns, struct rb_exec **ret, char *err,
		size_t errlen);
/* Starts at this CLOCK_MONOTONIC instant (if still ahead), else at the first poll. */
void rb_exec_set_start_at(struct rb_exec *x, int64_t mono_ns);
/* Starts the commands when due, emits each drive's finished intervals, reaps the ended;
 * true once every one ended and all is emitted. */
bool rb_exec_poll(struct rb_exec *x, rb_sample_fn fn, void *arg);
/* Ends every command (SIGTERM to its group, SIGKILL 10 s later). */
void rb_exec_stop(struct rb_exec *x);
const struct rb_target_result *rb_exec_result(const struct rb_exec *x, size_t i);
const struct rb_msg_exec_result *rb_exec_msg(const struct rb_exec *x, size_t i);
struct rb_exec *rb_exec_free(struct rb_exec *x);

/*
 * A command's output is read for figures from its last RB_EXEC_PARSE_MAX bytes only, and
 * fio's JSON summed over at most RB_EXEC_PARSE_JOBS jobs: past a bound no figure is read
 * and the drive's result says which bound (a sum over part of the jobs would be wrong).
 * A figure printed as inf or nan is left out, as one not printed.
 */
#define RB_EXEC_PARSE_MAX (2u << 20)
#define RB_EXEC_PARSE_JOBS 1024u

/* sysbench's summary into name=value metrics (tps, qps, lat_*_ms, ...); how many. */
size_t rb_exec_parse_sysbench(const char *text, struct rb_kv *kv, char (*vals)[32], size_t max);
/*
 * fio's JSON (--output-format=json, after anything printed before it) into metrics: iops,
 * mbps and per direction, lat_avg_ms over every IO, p99 (of one job only: percentiles of
 * several do not add up), errors; how many. cut: text is the end of a longer output. Why
 * no figure was read, when a bound stopped it, in note ("" otherwise).
 */
size_t rb_exec_parse_fio(const char *text, bool cut, struct rb_kv *kv, char (*vals)[32], size_t max,
			 char *note, size_t notelen);

#endif
