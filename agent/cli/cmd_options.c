// SPDX-License-Identifier: MIT
/*
 * `rackbench-agent options [--json]`: agent.yaml's key table (agent/session/agent_keys.c),
 * for people and, as JSON, for scripts/gen_agent_keys.py (docs/agent-keys.md) and
 * scripts/gen_man.py.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "agent_keys.h"
#include "exitcode.h"
#include "jsonout.h"
#include "parseopt.h"

static bool json;

static const struct rb_popt options_opts[] = {
	{ RB_POPT_FLAG, "json", 0, NULL,
	  "one document: the key table (name, type, default, flag, help of each key)", &json, NULL,
	  0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_agent_options_spec = {
	.name = "rackbench-agent options",
	.summary = "agent.yaml's keys: type, default, the flag that sets each too, and help",
	.desc = "Every key of agent.yaml (--config): its type, its default, the daemon's flag\n"
		"that sets it too, and what it does.",
	.opts = options_opts,
};

static void print_json(void)
{
	printf("{\"agent_keys\": [");
	for (size_t i = 0; i < rb_nakeys; i++) {
		const struct rb_akey *k = &rb_akeys[i];

		printf("%s{\"name\": \"%s\", \"type\": \"%s\", \"default\": ", i ? ", " : "",
		       k->name, rb_akey_type_name(k->type));
		rb_json_str(stdout, k->def);
		printf(", \"flag\": ");
		rb_json_str(stdout, k->flag ? k->flag : "");
		printf(", \"argname\": ");
		rb_json_str(stdout, k->argname ? k->argname : "");
		printf(", \"repeatable\": %s, \"help\": ", k->add ? "true" : "false");
		rb_json_str(stdout, k->help);
		printf("}");
	}
	printf("]}\n");
}

int rb_agent_options_cmd(int argc, char **argv)
{
	int r;

	json = false;
	r = rb_parseopt(&rb_agent_options_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	if (json) {
		print_json();
		return RB_EXIT_OK;
	}
	for (size_t i = 0; i < rb_nakeys; i++) {
		const struct rb_akey *k = &rb_akeys[i];

		printf("%-16s %-8s %s%s%s%s\n    %s%s%s%s\n", k->name, rb_akey_type_name(k->type),
		       k->flag ? "--" : "(agent.yaml only)", k->flag ? k->flag : "",
		       k->argname ? " " : "", k->argname ? k->argname : "", k->help,
		       *k->def ? " (default: " : "", k->def, *k->def ? ")" : "");
	}
	return RB_EXIT_OK;
}
