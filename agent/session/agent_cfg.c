// SPDX-License-Identifier: MIT
/* The agent daemon's configuration: the YAML config file, its checks and defaults. */
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "endpoint.h"
#include "exitcode.h"
#include "grow.h"
#include "log.h"
#include "statedir.h"
#include "units.h"
#include "execphase.h"
#include "yamlcfg.h"

int rb_agent_cfg_push(char ***v, size_t *n, const char *s)
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

void rb_agent_cfg_set(char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
}

static void path_map_release(struct rb_path_map *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].path);
		free(m->v[i].value);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

void rb_agent_cfg_release(struct rb_agent_cfg *c)
{
	for (size_t i = 0; i < c->nlabels; i++)
		free(c->labels[i]);
	for (size_t i = 0; i < c->ntargets; i++)
		free(c->targets[i]);
	for (size_t i = 0; i < c->nallow; i++)
		free(c->allow[i]);
	path_map_release(&c->serials);
	path_map_release(&c->slots);
	free(c->labels);
	free(c->targets);
	free(c->allow);
	free(c->coordinator);
	free(c->name);
	free(c->state_dir);
	free(c->spool_max);
	free(c->key);
	free(c->coordinator_key);
	rb_exec_cfg_release(&c->exec);
	memset(c, 0, sizeof(*c));
}

static const char *path_map_get(const struct rb_path_map *m, const char *path)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].path, path))
			return m->v[i].value;
	return NULL;
}

const char *rb_agent_cfg_serial(const struct rb_agent_cfg *c, const char *path)
{
	return path_map_get(&c->serials, path);
}

const char *rb_agent_cfg_slot(const struct rb_agent_cfg *c, const char *path)
{
	return path_map_get(&c->slots, path);
}

/*
 * A mapping of target paths to words (agent.yaml's serials and slots): each value 1 to
 * max - 1 printable characters without blanks (a slot may hold blanks: "bay 7"), each path
 * once. serials: for targets that report none of their own (a file, a loop device, a disk
 * behind a controller that hides it), their key in a results folder's index and in the
 * fleet's database, as a drive's own. slots: where a target sits, named as the rack's
 * people name it, first in every table that shows a slot.
 */
static void load_path_map(struct rb_yaml *y, yaml_node_t *v, const char *key, size_t max,
			  bool blanks, struct rb_path_map *m, struct rb_diags *d)
{
	if (v->type != YAML_MAPPING_NODE) {
		rb_yaml_error(y, d, v, key, "'%s' must be a mapping PATH: %s, not %s", key,
			      !strcmp(key, "slots") ? "SLOT" : "SERIAL", rb_yaml_kind(v));
		return;
	}
	for (struct rb_yaml_it q = rb_yaml_pairs(y, v); rb_yaml_next(&q);) {
		const char *path = rb_yaml_scalar(q.key), *val = rb_yaml_scalar(q.value);
		bool plain = val && *val && strlen(val) < max;

		for (const char *p = val; plain && *p; p++)
			plain = ((unsigned char)*p > ' ' || (blanks && *p == ' ')) && *p != 0x7f;
		if (!path || !*path) {
			rb_yaml_error(y, d, q.key, key, "'%s' keys are target paths", key);
			continue;
		}
		if (!plain) {
			rb_yaml_error(y, d, q.value, key,
				      "the %.*s of '%s' must be 1 to %zu printable characters%s",
				      (int)strlen(key) - 1, key, path, max - 1,
				      blanks ? "" : " without blanks");
			continue;
		}
		if (path_map_get(m, path)) {
			rb_yaml_error(y, d, q.key, key, "'%s' is given a %.*s twice", path,
				      (int)strlen(key) - 1, key);
			continue;
		}
		struct rb_path_word w = { strdup(path), strdup(val) };

		if (!w.path || !w.value || RB_GROW(m->v, m->cap, m->n, 8)) {
			free(w.path);
			free(w.value);
			return;
		}
		m->v[m->n++] = w;
	}
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
		rb_err("cannot read '%s': %s", path, rb_input_error(r));
		return RB_EXIT_USAGE;
	}
	r = rb_yaml_load(&y, path, text, len, &d);
	root = rb_yaml_root(&y);
	if (!r && root->type != YAML_MAPPING_NODE)
		rb_yaml_error(&y, &d, root, NULL, "agent config must be a mapping, not %s",
			      rb_yaml_kind(root));
	for (struct rb_yaml_it p = rb_yaml_pairs(&y, root); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
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
			for (struct rb_yaml_it it = rb_yaml_items(&y, v); rb_yaml_next(&it);) {
				yaml_node_t *e = it.value;

				if (!rb_yaml_scalar(e))
					rb_yaml_error(&y, &d, e, key, "'%s' entries must be paths",
						      key);
				else
					rb_agent_cfg_push(list, nlist, rb_yaml_scalar(e));
			}
		} else if (!strcmp(key, "labels")) {
			if (v->type != YAML_MAPPING_NODE) {
				rb_yaml_error(&y, &d, v, key, "'labels' must be a mapping, not %s",
					      rb_yaml_kind(v));
				continue;
			}
			for (struct rb_yaml_it q = rb_yaml_pairs(&y, v); rb_yaml_next(&q);) {
				const char *lk = rb_yaml_scalar(q.key);
				const char *lv = rb_yaml_scalar(q.value);
				char kv[512];

				if (!lk || !lv) {
					rb_yaml_error(&y, &d, q.key, key,
						      "labels are KEY: VALUE scalars");
					continue;
				}
				/* sent as KEY=VALUE, split at the first '=' */
				if (!*lk || strchr(lk, '=')) {
					rb_yaml_error(&y, &d, q.key, key,
						      "label key '%s' must be a name without '='",
						      lk);
					continue;
				}
				snprintf(kv, sizeof(kv), "%s=%s", lk, lv);
				rb_agent_cfg_push(&c->labels, &c->nlabels, kv);
			}
		} else if (!strcmp(key, "commands")) {
			rb_exec_cfg_load(&y, v, &c->exec, &d);
		} else if (!strcmp(key, "serials")) {
			load_path_map(&y, v, key, 64, false, &c->serials, &d);
		} else if (!strcmp(key, "slots")) {
			/* a health snapshot's slot column holds 31 characters */
			load_path_map(&y, v, key, 32, true, &c->slots, &d);
		} else if (!val) {
			rb_yaml_error(&y, &d, v, key, "'%s' must be a scalar, not %s", key,
				      rb_yaml_kind(v));
		} else if (!strcmp(key, "coordinator")) {
			rb_agent_cfg_set(&c->coordinator, val);
		} else if (!strcmp(key, "name")) {
			rb_agent_cfg_set(&c->name, val);
		} else if (!strcmp(key, "state_dir")) {
			rb_agent_cfg_set(&c->state_dir, val);
		} else if (!strcmp(key, "spool_max")) {
			rb_agent_cfg_set(&c->spool_max, val);
		} else if (!strcmp(key, "key")) {
			rb_agent_cfg_set(&c->key, val);
		} else if (!strcmp(key, "coordinator_key")) {
			rb_agent_cfg_set(&c->coordinator_key, val);
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

int rb_agent_cfg_finish(struct rb_agent_cfg *c)
{
	if (!c->coordinator) {
		rb_err("no coordinator: give --coordinator tcp://HOST:PORT");
		return RB_EXIT_USAGE;
	}
	if (check_coordinator(c->coordinator))
		return RB_EXIT_USAGE;
	if (!c->name) {
		char host[256] = "agent";

		gethostname(host, sizeof(host));
		rb_agent_cfg_set(&c->name, host);
	}
	if (!c->state_dir)
		rb_agent_cfg_set(&c->state_dir, rb_default_state_dir());
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
	for (int w = 0; w < 2; w++) {
		const struct rb_path_map *m = w ? &c->slots : &c->serials;

		for (size_t i = 0; i < m->n; i++) {
			bool offered = false;

			for (size_t k = 0; k < c->ntargets; k++)
				offered |= !strcmp(m->v[i].path, c->targets[k]);
			if (!offered) {
				rb_err("%s: '%s' is not one of this agent's targets",
				       w ? "slots" : "serials", m->v[i].path);
				return RB_EXIT_USAGE;
			}
		}
	}
	if (!c->insecure && (!c->key || !c->coordinator_key)) {
		rb_err("give --key FILE (this agent's key pair, from 'rackbench-agent keygen') and "
		       "--coordinator-key FILE (the coordinator's public key), or --insecure");
		return RB_EXIT_USAGE;
	}
	return 0;
}
