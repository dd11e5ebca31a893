// SPDX-License-Identifier: MIT
/*
 * `rackbench-agent [options]`: the daemon's flags over its config file, to its config. The
 * flags that set agent.yaml's keys are made from the key table (agent/session/agent_keys.c):
 * their names, help and defaults, and how each value is stored.
 */
#include "agent.h"

#include <stdio.h>
#include <string.h>

#include "agent_keys.h"
#include "exitcode.h"
#include "log.h"
#include "nvme.h"
#include "parseopt.h"

/* What the flags say, by the key table's rows; the config file's values are under them. */
static struct {
	const char *config, *nvme_pages;
	const char *value[RB_AKEY_MAX];	       /* a string's or a size's flag */
	bool set[RB_AKEY_MAX];		       /* a bool's */
	struct rb_popt_list list[RB_AKEY_MAX]; /* a list's or a mapping's: each entry */
} F;

/* --config, a flag for each key of the table that has one, --nvme-pages; made once. */
static struct rb_popt daemon_opts[RB_AKEY_MAX + 3];
static char key_help[RB_AKEY_MAX][640], config_help[1024];

static const struct rb_popt_cmd daemon_spec = {
	.name = "rackbench-agent",
	.summary = "the per-host agent",
	.usage = "[--config FILE] [options]\n"
		 "       rackbench-agent COMMAND [ARGS] (run, inventory, purge, keygen, spool, "
		 "options, completion)",
	.desc = "The per-host agent. It connects out to the coordinator, reconnecting forever,\n"
		"starts idle and runs nothing until a coordinator assigns it work.",
	.opts = daemon_opts,
	.epilog =
		"Commands: run (one local job), inventory (drives and whether a write would\n"
		"be allowed), purge (format, sanitize, deallocate, discard, zero), keygen DIR (a\n"
		"CURVE key pair), spool FILE (a spool's records), options (agent.yaml's keys),\n"
		"completion bash (a completion script); each has --help.\n"
		"\n"
		"Data messages are written to STATE_DIR/spool before they are sent and kept until\n"
		"the coordinator acknowledges them; at most 16 are in flight unacknowledged (the\n"
		"acknowledgements are the credits: a slow coordinator holds the rest in the spool,\n"
		"not in memory); a restarted agent sends what the last one left for the same run.",
};

/* The --config flag's help: the keys the flags set too, and those only the file holds. */
static void config_help_make(void)
{
	size_t n = 0;

	n += (size_t)snprintf(config_help, sizeof(config_help), "YAML with the keys below (");
	for (int file_only = 0; file_only < 2; file_only++) {
		bool first = true;

		if (file_only)
			n += (size_t)snprintf(config_help + n, sizeof(config_help) - n,
					      ") and those only it holds (");
		for (size_t i = 0; i < rb_nakeys && n < sizeof(config_help); i++)
			if ((rb_akeys[i].flag == NULL) == (file_only == 1)) {
				n += (size_t)snprintf(config_help + n, sizeof(config_help) - n,
						      "%s%s", first ? "" : ", ", rb_akeys[i].name);
				first = false;
			}
	}
	if (n < sizeof(config_help))
		snprintf(config_help + n, sizeof(config_help) - n,
			 "); the flags override it. Every key: 'rackbench-agent options'");
}

/* A key's flag: its row's name, help and default; a list's takes one entry a time. */
static struct rb_popt key_flag(size_t i)
{
	const struct rb_akey *k = &rb_akeys[i];
	/* a bool's flag is off unless given: its default goes without saying */
	bool def = *k->def && k->type != RB_AK_BOOL;
	struct rb_popt o = {
		.type = RB_POPT_STRING,
		.long_name = k->flag,
		.argname = k->argname,
		.help = key_help[i],
		.value = &F.value[i],
	};

	snprintf(key_help[i], sizeof(key_help[i]), "%s%s%s%s%s", k->help, def ? " (default: " : "",
		 def ? k->def : "", def ? ")" : "", k->add ? " (repeatable)" : "");
	if (k->type == RB_AK_BOOL) {
		o.type = RB_POPT_FLAG;
		o.value = &F.set[i];
	} else if (k->add) {
		o.type = RB_POPT_LIST;
		o.value = &F.list[i];
	}
	return o;
}

const struct rb_popt_cmd *rb_agent_daemon_cmd(void)
{
	static bool made;
	size_t n = 0;

	if (made)
		return &daemon_spec;
	made = true;
	config_help_make();
	daemon_opts[n++] = (struct rb_popt){
		.type = RB_POPT_STRING,
		.long_name = "config",
		.argname = "FILE",
		.help = config_help,
		.value = &F.config,
	};
	for (size_t i = 0; i < rb_nakeys; i++)
		if (rb_akeys[i].flag)
			daemon_opts[n++] = key_flag(i);
	daemon_opts[n++] = (struct rb_popt){
		.type = RB_POPT_STRING,
		.long_name = "nvme-pages",
		.argname = "DIR",
		.help = "read NVMe pages, logs and features from DIR/NAME.* instead of the drives "
			"(pages recorded elsewhere; tests): FDP statistics and power states go to "
			"them",
		.value = &F.nvme_pages,
	};
	daemon_opts[n] = (struct rb_popt){ .type = RB_POPT_END };
	return &daemon_spec;
}

/* The flags over the config's values, as their rows say: strings replace, lists add. */
static int apply(struct rb_agent_cfg *c)
{
	int r = 0;

	for (size_t i = 0; i < rb_nakeys && !r; i++) {
		const struct rb_akey *k = &rb_akeys[i];

		if (!k->flag)
			continue;
		if (k->type == RB_AK_BOOL && F.set[i])
			r = rb_agent_cfg_flag(c, k, NULL);
		else if (F.value[i])
			r = rb_agent_cfg_flag(c, k, F.value[i]);
		for (size_t j = 0; j < F.list[i].n && !r; j++)
			r = rb_agent_cfg_flag(c, k, F.list[i].v[j]);
	}
	if (!r && F.nvme_pages) {
		rb_nvme_pages_dir(F.nvme_pages);
		rb_nvme_use(&rb_nvme_pages);
	}
	return r;
}

int rb_agent_parse(int argc, char **argv, struct rb_agent_cfg *c)
{
	int r;

	memset(c, 0, sizeof(*c));
	memset(&F, 0, sizeof(F));
	r = rb_parseopt(rb_agent_daemon_cmd(), argc, argv, NULL);
	if (r)
		r = r > 0 ? 1 : RB_EXIT_USAGE;
	else if (F.config) /* the config file first, so flags override it */
		r = rb_agent_cfg_load(F.config, c);
	if (!r)
		r = apply(c);
	if (!r)
		r = rb_agent_cfg_finish(c);
	for (size_t i = 0; i < rb_nakeys; i++)
		rb_popt_list_release(&F.list[i]);
	return r;
}
