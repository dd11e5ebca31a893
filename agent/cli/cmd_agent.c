// SPDX-License-Identifier: MIT
/* `rackbench-agent [options]`: the daemon's flags over its config file, to its config. */
#include "agent.h"

#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "nvme.h"
#include "parseopt.h"

/* What the flags say; the config file's values are under them. */
struct daemon_flags {
	const char *config, *coordinator, *name, *state_dir, *spool_max, *key, *coordinator_key;
	const char *nvme_pages;
	bool insecure;
	struct rb_popt_list targets, allow, labels;
};

static struct daemon_flags F;

static const struct rb_popt daemon_opts[] = {
	{ RB_POPT_STRING, "config", 0, "FILE",
	  "YAML with the keys below (coordinator, name, labels, targets, allow, state_dir, key, "
	  "coordinator_key, insecure, spool_max); the flags override it. Only there: commands "
	  "(exec phases' allow-list), serials ({PATH: SERIAL}: a serial for a target that "
	  "reports none, a file or a loop device; its key in the fleet's database) and slots "
	  "({PATH: SLOT}: where a target sits, named as the rack's people name it; else its PCI "
	  "slot's name)",
	  &F.config, NULL, 0 },
	{ RB_POPT_STRING, "coordinator", 0, "ENDPOINT", "tcp://HOST:PORT of the coordinator",
	  &F.coordinator, NULL, 0 },
	{ RB_POPT_STRING, "name", 0, "NAME", "this agent's name in campaigns (default: hostname)",
	  &F.name, NULL, 0 },
	{ RB_POPT_LIST, "label", 0, "K=V", "a label campaigns can select on (repeatable)",
	  &F.labels, NULL, 0 },
	{ RB_POPT_LIST, "target", 0, "PATH",
	  "a block device or file this agent offers (repeatable)", &F.targets, NULL, 0 },
	{ RB_POPT_LIST, "allow", 0, "PATH", "the agent's key for writes to PATH (repeatable)",
	  &F.allow, NULL, 0 },
	{ RB_POPT_STRING, "state-dir", 0, "DIR",
	  "rackbench's own files (the files it creates there) (default $RB_STATE_DIR, else "
	  "~/.local/state/rackbench, as root /var/lib/rackbench)",
	  &F.state_dir, NULL, 0 },
	{ RB_POPT_STRING, "key", 0, "FILE",
	  "this agent's CURVE key pair ('rackbench-agent keygen DIR')", &F.key, NULL, 0 },
	{ RB_POPT_STRING, "coordinator-key", 0, "FILE",
	  "the coordinator's public key (.pub): pinned", &F.coordinator_key, NULL, 0 },
	{ RB_POPT_FLAG, "insecure", 0, NULL, "run without keys: no authentication, no encryption",
	  &F.insecure, NULL, 0 },
	{ RB_POPT_STRING, "spool-max", 0, "SIZE",
	  "the spool's cap (default 4g): a point whose unacknowledged data reaches it is "
	  "stopped and reported, never dropped",
	  &F.spool_max, NULL, 0 },
	{ RB_POPT_STRING, "nvme-pages", 0, "DIR",
	  "read NVMe pages, logs and features from DIR/NAME.* instead of the drives (pages "
	  "recorded elsewhere; tests): FDP statistics and power states go to them",
	  &F.nvme_pages, NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_agent_daemon_spec = {
	.name = "rackbench-agent",
	.summary = "the per-host agent",
	.usage = "[--config FILE] [options]\n"
		 "       rackbench-agent COMMAND [ARGS] (run, inventory, purge, keygen, spool, "
		 "completion)",
	.desc = "The per-host agent. It connects out to the coordinator, reconnecting forever,\n"
		"starts idle and runs nothing until a coordinator assigns it work.",
	.opts = daemon_opts,
	.epilog =
		"Commands: run (one local job), inventory (drives and whether a write would\n"
		"be allowed), purge (format, sanitize, deallocate, discard, zero), keygen DIR (a\n"
		"CURVE key pair), spool FILE (a spool's records), completion bash (a completion\n"
		"script); each has --help.\n"
		"\n"
		"Data messages are written to STATE_DIR/spool before they are sent and kept until\n"
		"the coordinator acknowledges them; at most 16 are in flight unacknowledged (the\n"
		"acknowledgements are the credits: a slow coordinator holds the rest in the spool,\n"
		"not in memory); a restarted agent sends what the last one left for the same run.",
};

/* The flags over the config's values: strings replace, lists add. 0 or an exit code. */
static int apply(struct rb_agent_cfg *c)
{
	const struct {
		const char *flag;
		char **dst;
	} str[] = {
		{ F.coordinator, &c->coordinator },
		{ F.name, &c->name },
		{ F.state_dir, &c->state_dir },
		{ F.spool_max, &c->spool_max },
		{ F.key, &c->key },
		{ F.coordinator_key, &c->coordinator_key },
	};

	for (size_t i = 0; i < sizeof(str) / sizeof(str[0]); i++)
		if (str[i].flag)
			rb_agent_cfg_set(str[i].dst, str[i].flag);
	if (F.insecure)
		c->insecure = true;
	if (F.nvme_pages) {
		rb_nvme_pages_dir(F.nvme_pages);
		rb_nvme_use(&rb_nvme_pages);
	}
	for (size_t i = 0; i < F.labels.n; i++) {
		const char *v = F.labels.v[i];

		if (!strchr(v, '=') || *v == '=') {
			rb_err("'--label' takes KEY=VALUE, not '%s'", v);
			return RB_EXIT_USAGE;
		}
		if (rb_agent_cfg_push(&c->labels, &c->nlabels, v))
			return RB_EXIT_FAILED;
	}
	for (size_t i = 0; i < F.targets.n; i++)
		if (rb_agent_cfg_push(&c->targets, &c->ntargets, F.targets.v[i]))
			return RB_EXIT_FAILED;
	for (size_t i = 0; i < F.allow.n; i++)
		if (rb_agent_cfg_push(&c->allow, &c->nallow, F.allow.v[i]))
			return RB_EXIT_FAILED;
	return 0;
}

int rb_agent_parse(int argc, char **argv, struct rb_agent_cfg *c)
{
	int r;

	memset(c, 0, sizeof(*c));
	memset(&F, 0, sizeof(F));
	r = rb_parseopt(&rb_agent_daemon_spec, argc, argv, NULL);
	if (r)
		r = r > 0 ? 1 : RB_EXIT_USAGE;
	else if (F.config) /* the config file first, so flags override it */
		r = rb_agent_cfg_load(F.config, c);
	if (!r)
		r = apply(c);
	if (!r)
		r = rb_agent_cfg_finish(c);
	rb_popt_list_release(&F.targets);
	rb_popt_list_release(&F.allow);
	rb_popt_list_release(&F.labels);
	return r;
}
