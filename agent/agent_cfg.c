// SPDX-License-Identifier: MIT
/* The agent daemon's configuration: flags, the YAML config file, defaults. */
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "endpoint.h"
#include "exitcode.h"
#include "log.h"
#include "statedir.h"
#include "units.h"
#include "yamlcfg.h"

static int push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
}

void rb_agent_cfg_release(struct rb_agent_cfg *c)
{
	for (size_t i = 0; i < c->nlabels; i++)
		free(c->labels[i]);
	for (size_t i = 0; i < c->ntargets; i++)
		free(c->targets[i]);
	for (size_t i = 0; i < c->nallow; i++)
		free(c->allow[i]);
	free(c->labels);
	free(c->targets);
	free(c->allow);
	free(c->coordinator);
	free(c->name);
	free(c->state_dir);
	free(c->spool_max);
	free(c->key);
	free(c->coordinator_key);
	memset(c, 0, sizeof(*c));
}

static void agent_usage(FILE *out)
{
	fprintf(out,
		"usage: rackbench-agent [--config FILE] [options]\n"
		"       rackbench-agent run [--target PATH ...] [workload options] [--json]\n"
		"\n"
		"The per-host agent. It connects out to the coordinator, reconnecting forever,\n"
		"starts idle and runs nothing until a coordinator assigns it work.\n"
		"\n"
		"  --config FILE            YAML with the keys below (coordinator, name, labels,\n"
		"                           targets, allow, state_dir, key, coordinator_key, insecure,\n"
		"                           spool_max)\n"
		"  --coordinator ENDPOINT   tcp://HOST:PORT of the coordinator\n"
		"  --name NAME              this agent's name in campaigns (default: hostname)\n"
		"  --label K=V              a label campaigns can select on (repeatable)\n"
		"  --target PATH            a block device or file this agent offers (repeatable)\n"
		"  --allow PATH             the agent's key for writes to PATH (repeatable)\n"
		"  --state-dir DIR          rackbench's own files (the files it creates there)\n"
		"                           (default %s)\n"
		"  --key FILE               this agent's CURVE key pair ('rackbench-agent keygen DIR')\n"
		"  --coordinator-key FILE   the coordinator's public key (.pub): pinned\n"
		"  --insecure               run without keys: no authentication, no encryption\n"
		"  --spool-max SIZE         the spool's cap (default 4g): a point whose unacknowledged\n"
		"                           data reaches it is stopped and reported, never dropped\n"
		"  -h, --help               this text\n"
		"\n"
		"Subcommands: run (one local job), inventory (drives and whether a write would\n"
		"be allowed), purge (format, sanitize, deallocate, discard, zero), keygen DIR (a\n"
		"CURVE key pair), spool FILE (a spool's records); each has --help.\n"
		"\n"
		"Data messages are written to STATE_DIR/spool before they are sent and kept until\n"
		"the coordinator acknowledges them; at most 16 are in flight unacknowledged (the\n"
		"acknowledgements are the credits: a slow coordinator holds the rest in the spool,\n"
		"not in memory); a restarted agent sends what the last one left for the same run.\n",
		rb_default_state_dir());
}

static int load_config(const char *path, struct rb_agent_cfg *c)
{
	struct rb_diags d;
	struct rb_yaml y;
	char *text = NULL;
	size_t len;
	yaml_node_t *root;
	int r;

	rb_diags_init(&d);
	r = rb_read_file(path, 1 << 20, &text, &len);
	if (r) {
		rb_err("cannot read '%s': %s", path, strerror(-r));
		return RB_EXIT_USAGE;
	}
	r = rb_yaml_load(&y, path, text, len, &d);
	root = rb_yaml_root(&y);
	if (!r && root->type != YAML_MAPPING_NODE)
		rb_yaml_error(&y, &d, root, NULL, "agent config must be a mapping, not %s",
			      rb_yaml_kind(root));
	for (yaml_node_pair_t *p = root && root->type == YAML_MAPPING_NODE
					   ? root->data.mapping.pairs.start
					   : NULL;
	     p && p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rb_yaml_get(&y, p->key), *v = rb_yaml_get(&y, p->value);
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);
		char ***list = NULL;
		size_t *nlist = NULL;

		if (!key) {
			rb_yaml_error(&y, &d, k, NULL, "keys must be scalars");
			continue;
		}
		if (!strcmp(key, "targets") || !strcmp(key, "allow")) {
			list = !strcmp(key, "targets") ? &c->targets : &c->allow;
			nlist = !strcmp(key, "targets") ? &c->ntargets : &c->nallow;
			if (v->type != YAML_SEQUENCE_NODE) {
				rb_yaml_error(&y, &d, v, key,
					      "'%s' must be a list of paths, not %s", key,
					      rb_yaml_kind(v));
				continue;
			}
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top; it++) {
				yaml_node_t *e = rb_yaml_get(&y, *it);

				if (!rb_yaml_scalar(e))
					rb_yaml_error(&y, &d, e, key, "'%s' entries must be paths",
						      key);
				else
					push(list, nlist, rb_yaml_scalar(e));
			}
		} else if (!strcmp(key, "labels")) {
			if (v->type != YAML_MAPPING_NODE) {
				rb_yaml_error(&y, &d, v, key, "'labels' must be a mapping, not %s",
					      rb_yaml_kind(v));
				continue;
			}
			for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
			     q < v->data.mapping.pairs.top; q++) {
				const char *lk = rb_yaml_scalar(rb_yaml_get(&y, q->key));
				const char *lv = rb_yaml_scalar(rb_yaml_get(&y, q->value));
				char kv[512];

				if (!lk || !lv) {
					rb_yaml_error(&y, &d, rb_yaml_get(&y, q->key), key,
						      "labels are KEY: VALUE scalars");
					continue;
				}
				/* sent as KEY=VALUE, split at the first '=' */
				if (!*lk || strchr(lk, '=')) {
					rb_yaml_error(&y, &d, rb_yaml_get(&y, q->key), key,
						      "label key '%s' must be a name without '='",
						      lk);
					continue;
				}
				snprintf(kv, sizeof(kv), "%s=%s", lk, lv);
				push(&c->labels, &c->nlabels, kv);
			}
		} else if (!val) {
			rb_yaml_error(&y, &d, v, key, "'%s' must be a scalar, not %s", key,
				      rb_yaml_kind(v));
		} else if (!strcmp(key, "coordinator")) {
			set_str(&c->coordinator, val);
		} else if (!strcmp(key, "name")) {
			set_str(&c->name, val);
		} else if (!strcmp(key, "state_dir")) {
			set_str(&c->state_dir, val);
		} else if (!strcmp(key, "spool_max")) {
			set_str(&c->spool_max, val);
		} else if (!strcmp(key, "key")) {
			set_str(&c->key, val);
		} else if (!strcmp(key, "coordinator_key")) {
			set_str(&c->coordinator_key, val);
		} else if (!strcmp(key, "insecure")) {
			if (strcmp(val, "true") && strcmp(val, "false"))
				rb_yaml_error(&y, &d, v, key, "'insecure' must be true or false");
			c->insecure = !strcmp(val, "true");
		} else {
			rb_yaml_error(&y, &d, k, key, "unknown key '%s' in agent config", key);
		}
	}
	rb_diags_sort(&d);
	rb_diags_print(&d, stderr);
	r = rb_diags_errors(&d) ? RB_EXIT_USAGE : 0;
	rb_diags_release(&d);
	rb_yaml_release(&y);
	free(text);
	return r;
}

/*
 * The coordinator's endpoint, checked before libzmq sees it (it would wrap a port past
 * 65535 and connect elsewhere, forever): one to connect to, not "*" or port 0.
 */
static int check_coordinator(const char *ep)
{
	char why[512];
	const char *port = strrchr(ep, ':');

	if (rb_endpoint_check(ep, why, sizeof(why))) {
		rb_err("coordinator '%s': %s", ep, why);
		return RB_EXIT_USAGE;
	}
	if (!strncmp(ep, "tcp://", 6) && (!strncmp(ep + 6, "*:", 2) || !strcmp(port, ":0"))) {
		rb_err("coordinator '%s' is an address to listen on, not one to connect to: give "
		       "the coordinator's host and port",
		       ep);
		return RB_EXIT_USAGE;
	}
	return 0;
}

int rb_agent_cfg_load(const char *path, struct rb_agent_cfg *c)
{
	memset(c, 0, sizeof(*c));
	return load_config(path, c);
}

int rb_agent_parse(int argc, char **argv, struct rb_agent_cfg *c)
{
	memset(c, 0, sizeof(*c));
	/* the config file first, so flags override it */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--config")) {
			if (i + 1 >= argc) {
				rb_err("'--config' needs a file");
				return RB_EXIT_USAGE;
			}
			int r = load_config(argv[i + 1], c);

			if (r)
				return r;
		}
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			agent_usage(stdout);
			return 1;
		}
		if (!strcmp(a, "--insecure")) {
			c->insecure = true;
			continue;
		}
		if (strncmp(a, "--", 2) || !v) {
			rb_err(strncmp(a, "--", 2) ? "unexpected argument '%s' (see --help)"
						   : "'%s' needs a value",
			       a);
			return RB_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--config"))
			continue;
		else if (!strcmp(a, "--coordinator"))
			set_str(&c->coordinator, v);
		else if (!strcmp(a, "--name"))
			set_str(&c->name, v);
		else if (!strcmp(a, "--state-dir"))
			set_str(&c->state_dir, v);
		else if (!strcmp(a, "--spool-max"))
			set_str(&c->spool_max, v);
		else if (!strcmp(a, "--key"))
			set_str(&c->key, v);
		else if (!strcmp(a, "--coordinator-key"))
			set_str(&c->coordinator_key, v);
		else if (!strcmp(a, "--target"))
			push(&c->targets, &c->ntargets, v);
		else if (!strcmp(a, "--allow"))
			push(&c->allow, &c->nallow, v);
		else if (!strcmp(a, "--label")) {
			if (!strchr(v, '=') || *v == '=') {
				rb_err("'--label' takes KEY=VALUE, not '%s'", v);
				return RB_EXIT_USAGE;
			}
			push(&c->labels, &c->nlabels, v);
		} else {
			rb_err("unknown option '%s' (see --help)", a);
			return RB_EXIT_USAGE;
		}
	}
	if (!c->coordinator) {
		rb_err("no coordinator: give --coordinator tcp://HOST:PORT");
		return RB_EXIT_USAGE;
	}
	if (check_coordinator(c->coordinator))
		return RB_EXIT_USAGE;
	if (!c->name) {
		char host[256] = "agent";

		gethostname(host, sizeof(host));
		set_str(&c->name, host);
	}
	if (!c->state_dir)
		set_str(&c->state_dir, rb_default_state_dir());
	c->spool_max_bytes = 4ULL << 30;
	if (c->spool_max &&
	    (rb_parse_size(c->spool_max, &c->spool_max_bytes) || c->spool_max_bytes < 65536)) {
		rb_err("spool_max '%s' is not a size of at least 64k (like 512m, 4g)",
		       c->spool_max);
		return RB_EXIT_USAGE;
	}
	for (size_t i = 0; i < c->nallow; i++) {
		bool offered = false;

		for (size_t k = 0; k < c->ntargets; k++)
			offered |= !strcmp(c->allow[i], c->targets[k]);
		if (!offered) {
			rb_err("--allow '%s' is not one of this agent's --target paths",
			       c->allow[i]);
			return RB_EXIT_USAGE;
		}
	}
	if (!c->insecure && (!c->key || !c->coordinator_key)) {
		rb_err("give --key FILE (this agent's key pair, from 'rackbench-agent keygen') and "
		       "--coordinator-key FILE (the coordinator's public key), or --insecure");
		return RB_EXIT_USAGE;
	}
	return 0;
}
