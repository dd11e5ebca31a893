// SPDX-License-Identifier: MIT
/*
 * The agent daemon's configuration: the YAML config file, each key read as its row of the
 * key table says (agent_keys.c), the flags' values by the same rows, the checks and defaults.
 */
#include "agent.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_keys.h"
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

/* path's value: its own entry, else the entry of a path naming the same file (a drive
 * given by /dev/disk/by-id/... in agent.yaml and by /dev/nvme0n1 elsewhere). */
static const char *path_map_get(const struct rb_path_map *m, const char *path)
{
	char want[PATH_MAX], real[PATH_MAX];

	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].path, path))
			return m->v[i].value;
	if (!m->n || !realpath(path, want))
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		if (realpath(m->v[i].path, real) && !strcmp(real, want))
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

/* A list of paths (targets, allow), added to what the list holds. */
static void read_paths(struct rb_yaml *y, yaml_node_t *v, const char *key, char ***list,
		       size_t *nlist, struct rb_diags *d)
{
	if (v->type != YAML_SEQUENCE_NODE) {
		rb_yaml_error(y, d, v, key, "'%s' must be a list of paths, not %s", key,
			      rb_yaml_kind(v));
		return;
	}
	for (struct rb_yaml_it it = rb_yaml_items(y, v); rb_yaml_next(&it);) {
		yaml_node_t *e = it.value;

		if (!rb_yaml_scalar(e))
			rb_yaml_error(y, d, e, key, "'%s' entries must be paths", key);
		else
			rb_agent_cfg_push(list, nlist, rb_yaml_scalar(e));
	}
}

void rb_agent_cfg_read_targets(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			       struct rb_agent_cfg *c, struct rb_diags *d)
{
	read_paths(y, v, k->name, &c->targets, &c->ntargets, d);
}

void rb_agent_cfg_read_allow(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			     struct rb_agent_cfg *c, struct rb_diags *d)
{
	read_paths(y, v, k->name, &c->allow, &c->nallow, d);
}

void rb_agent_cfg_read_labels(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			      struct rb_agent_cfg *c, struct rb_diags *d)
{
	if (v->type != YAML_MAPPING_NODE) {
		rb_yaml_error(y, d, v, k->name, "'%s' must be a mapping, not %s", k->name,
			      rb_yaml_kind(v));
		return;
	}
	for (struct rb_yaml_it q = rb_yaml_pairs(y, v); rb_yaml_next(&q);) {
		const char *lk = rb_yaml_scalar(q.key);
		const char *lv = rb_yaml_scalar(q.value);
		char kv[512];

		if (!lk || !lv) {
			rb_yaml_error(y, d, q.key, k->name, "labels are KEY: VALUE scalars");
			continue;
		}
		/* sent as KEY=VALUE, split at the first '=' */
		if (!*lk || strchr(lk, '=')) {
			rb_yaml_error(y, d, q.key, k->name,
				      "label key '%s' must be a name without '='", lk);
			continue;
		}
		snprintf(kv, sizeof(kv), "%s=%s", lk, lv);
		rb_agent_cfg_push(&c->labels, &c->nlabels, kv);
	}
}

void rb_agent_cfg_read_commands(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
				struct rb_agent_cfg *c, struct rb_diags *d)
{
	(void)k;
	rb_exec_cfg_load(y, v, &c->exec, d);
}

void rb_agent_cfg_read_serials(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			       struct rb_agent_cfg *c, struct rb_diags *d)
{
	load_path_map(y, v, k->name, 64, false, &c->serials, d);
}

void rb_agent_cfg_read_slots(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			     struct rb_agent_cfg *c, struct rb_diags *d)
{
	/* a health snapshot's slot column holds 31 characters */
	load_path_map(y, v, k->name, 32, true, &c->slots, d);
}

/* A scalar key stored as its row says: its type, at its offset in the configuration. */
static void store_scalar(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			 struct rb_agent_cfg *c, struct rb_diags *d)
{
	char *at = (char *)c + k->off;
	const char *val = rb_yaml_scalar(v);

	if (!val) {
		rb_yaml_error(y, d, v, k->name, "'%s' must be a scalar, not %s", k->name,
			      rb_yaml_kind(v));
		return;
	}
	switch (k->type) {
	case RB_AK_BOOL:
		if (strcmp(val, "true") && strcmp(val, "false"))
			rb_yaml_error(y, d, v, k->name, "'%s' must be true or false", k->name);
		*(bool *)at = !strcmp(val, "true");
		break;
	case RB_AK_STRING:
	case RB_AK_SIZE: /* checked with the flags' values (rb_agent_cfg_finish) */
		rb_agent_cfg_set((char **)at, val);
		break;
	default:
		break;
	}
}

static int load_config(const char *path, struct rb_agent_cfg *c)
{
	struct rb_diags d;
	struct rb_yaml y;
	char *text = NULL, known[512];
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
	/* each key through its row of the table (agent_keys.c) */
	for (struct rb_yaml_it p = rb_yaml_pairs(&y, root); rb_yaml_next(&p);) {
		const char *key = rb_yaml_scalar(p.key);
		const struct rb_akey *k = rb_akey_find(key);

		if (!key)
			rb_yaml_error(&y, &d, p.key, NULL, "keys must be scalars");
		else if (!k)
			rb_yaml_error(&y, &d, p.key, key,
				      "unknown key '%s' in agent config (known: %s)", key,
				      rb_akey_known(known, sizeof(known)));
		else if (k->load)
			k->load(&y, p.value, k, c, &d);
		else
			store_scalar(&y, p.value, k, c, &d);
	}
	rb_diags_sort(&d);
	rb_diags_print(&d, stderr);
	r = rb_diags_errors(&d) ? RB_EXIT_USAGE : 0;
	rb_diags_release(&d);
	rb_yaml_release(&y);
	free(text);
	return r;
}

int rb_agent_cfg_add_target(const struct rb_akey *k, const char *value, struct rb_agent_cfg *c)
{
	(void)k;
	return rb_agent_cfg_push(&c->targets, &c->ntargets, value) ? RB_EXIT_FAILED : 0;
}

int rb_agent_cfg_add_allow(const struct rb_akey *k, const char *value, struct rb_agent_cfg *c)
{
	(void)k;
	return rb_agent_cfg_push(&c->allow, &c->nallow, value) ? RB_EXIT_FAILED : 0;
}

int rb_agent_cfg_add_label(const struct rb_akey *k, const char *value, struct rb_agent_cfg *c)
{
	if (!strchr(value, '=') || *value == '=') {
		rb_err("'--%s' takes KEY=VALUE, not '%s'", k->flag, value);
		return RB_EXIT_USAGE;
	}
	return rb_agent_cfg_push(&c->labels, &c->nlabels, value) ? RB_EXIT_FAILED : 0;
}

int rb_agent_cfg_flag(struct rb_agent_cfg *c, const struct rb_akey *k, const char *value)
{
	if (k->add)
		return k->add(k, value, c);
	if (k->off < 0)
		return 0;
	if (k->type == RB_AK_BOOL)
		*(bool *)((char *)c + k->off) = true;
	else
		rb_agent_cfg_set((char **)((char *)c + k->off), value);
	return 0;
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
