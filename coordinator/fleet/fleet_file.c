// SPDX-License-Identifier: MIT
/*
 * FLEET.yaml decoded (fleet.h): the racks, each with its name, admin endpoint, public key
 * and labels; every problem a FILE:LINE:COLUMN diagnostic naming the key.
 */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"
#include "yamlcfg.h"

#define FLEET_FILE_MAX (16u << 20)

/* A rack's name: a word (it names the rack in tables and file names). */
static bool word(const char *s)
{
	return *s && strlen(s) < 64 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789-_.") == strlen(s);
}

/* path relative to file's folder (absolute as given), malloc'd. */
static char *beside(const char *file, const char *path)
{
	const char *slash = strrchr(file, '/');
	char *r = NULL;

	if (path[0] == '/' || !slash)
		return strdup(path);
	if (asprintf(&r, "%.*s/%s", (int)(slash - file), file, path) < 0)
		return NULL;
	return r;
}

static void rack_labels(struct rb_yaml *y, struct rb_diags *d, yaml_node_t *m,
			struct rb_fleet_rack *r)
{
	if (m->type != YAML_MAPPING_NODE) {
		rb_yaml_error(y, d, m, "labels", "expected a mapping of KEY: VALUE, got %s",
			      rb_yaml_kind(m));
		return;
	}
	for (struct rb_yaml_it p = rb_yaml_pairs(y, m); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
		const char *ks = rb_yaml_scalar(k), *vs = rb_yaml_scalar(v);
		char **n;

		if (!ks || !vs || !*ks || strpbrk(ks, "=,\t\n") || strpbrk(vs, ",\t\n")) {
			rb_yaml_error(y, d, vs ? k : v, "labels",
				      "a label is KEY: VALUE, two plain words (no '=', ',', tab)");
			continue;
		}
		n = realloc(r->labels, (r->nlabels + 1) * sizeof(*n));
		if (!n || asprintf(&n[r->nlabels], "%s=%s", ks, vs) < 0) {
			if (n)
				r->labels = n;
			rb_yaml_error(y, d, k, "labels", "out of memory");
			return;
		}
		r->labels = n;
		r->nlabels++;
	}
}

/* The rack's public key: public_key's text, or public_key_file's key. */
static void rack_key(struct rb_yaml *y, struct rb_diags *d, const char *file, yaml_node_t *k,
		     yaml_node_t *v, bool from_file, struct rb_fleet_rack *r)
{
	const char *s = rb_yaml_scalar(v);
	struct rb_keypair kp;
	char err[600], *path;

	if (r->pub[0]) {
		rb_yaml_error(y, d, k, from_file ? "public_key_file" : "public_key",
			      "give public_key or public_key_file, not both");
		return;
	}
	if (!s || !*s) {
		rb_yaml_error(y, d, v, from_file ? "public_key_file" : "public_key",
			      "expected %s, got %s", from_file ? "a file" : "a key",
			      rb_yaml_kind(v));
		return;
	}
	if (!from_file) {
		if (!rb_keys_is_z85(s))
			rb_yaml_error(y, d, v, "public_key",
				      "expected the service's public key: 40 Z85 characters, "
				      "quoted (its coordinator.pub's public-key)");
		else
			memcpy(r->pub, s, 41);
		return;
	}
	path = beside(file, s);
	if (!path || rb_keys_read(path, false, &kp, err, sizeof(err)))
		rb_yaml_error(y, d, v, "public_key_file", "%s", path ? err : "out of memory");
	else
		memcpy(r->pub, kp.pub, 41);
	free(path);
}

static void rack_field(struct rb_yaml *y, struct rb_diags *d, const char *file, yaml_node_t *k,
		       yaml_node_t *v, struct rb_fleet_rack *r)
{
	const char *key = rb_yaml_scalar(k), *s = rb_yaml_scalar(v);
	char err[256];

	if (!key) {
		rb_yaml_error(y, d, k, "racks", "a key must be a word, not %s", rb_yaml_kind(k));
	} else if (!strcmp(key, "name")) {
		if (!s || !word(s))
			rb_yaml_error(y, d, v, "name",
				      "a rack's name is a word of letters, digits, '-', '_', '.' "
				      "(at most 63)");
		else if (!r->name)
			r->name = strdup(s);
	} else if (!strcmp(key, "endpoint")) {
		if (!s || rb_endpoint_check(s, err, sizeof(err)))
			rb_yaml_error(
				y, d, v, "endpoint", "%s",
				s ? err
				  : "expected tcp://HOST:PORT (the service's --admin-listen)");
		else if (!r->endpoint)
			r->endpoint = strdup(s);
	} else if (!strcmp(key, "public_key") || !strcmp(key, "public_key_file")) {
		rack_key(y, d, file, k, v, !strcmp(key, "public_key_file"), r);
	} else if (!strcmp(key, "labels")) {
		rack_labels(y, d, v, r);
	} else {
		rb_yaml_error(y, d, k, key,
			      "unknown key '%s' (known: name, endpoint, public_key, "
			      "public_key_file, labels)",
			      key);
	}
}

static void one_rack(struct rb_yaml *y, struct rb_diags *d, const char *file, yaml_node_t *n,
		     struct rb_fleet *f)
{
	struct rb_fleet_rack *r = &f->racks[f->nracks++];

	memset(r, 0, sizeof(*r));
	r->line = rb_yaml_line(n);
	r->column = rb_yaml_col(n);
	if (n->type != YAML_MAPPING_NODE) {
		rb_yaml_error(y, d, n, "racks",
			      "a rack is a mapping (name, endpoint, public_key), "
			      "got %s",
			      rb_yaml_kind(n));
		return;
	}
	for (struct rb_yaml_it p = rb_yaml_pairs(y, n); rb_yaml_next(&p);)
		rack_field(y, d, file, p.key, p.value, r);
	if (!r->name || !r->endpoint || !r->pub[0])
		rb_yaml_error(y, d, n, r->name ? r->name : "racks", "a rack needs %s",
			      !r->name	     ? "a name"
			      : !r->endpoint ? "an endpoint"
					     : "a public_key");
	for (size_t i = 0; r->name && i + 1 < f->nracks; i++)
		if (f->racks[i].name && !strcmp(f->racks[i].name, r->name))
			rb_yaml_error(y, d, n, r->name, "rack '%s' is named twice (line %u first)",
				      r->name, f->racks[i].line);
		else if (r->endpoint && f->racks[i].endpoint &&
			 !strcmp(f->racks[i].endpoint, r->endpoint))
			rb_yaml_error(y, d, n, r->name, "endpoint '%s' is rack '%s''s too",
				      r->endpoint, f->racks[i].name ? f->racks[i].name : "?");
}

static void racks(struct rb_yaml *y, struct rb_diags *d, const char *file, yaml_node_t *v,
		  struct rb_fleet *f)
{
	size_t n;

	if (v->type != YAML_SEQUENCE_NODE) {
		rb_yaml_error(y, d, v, "racks", "expected a list of racks, got %s",
			      rb_yaml_kind(v));
		return;
	}
	n = rb_yaml_count(v);
	if (!n || n > RB_FLEET_MAX_RACKS) {
		rb_yaml_error(y, d, v, "racks", "a fleet has 1 to %d racks, not %zu",
			      RB_FLEET_MAX_RACKS, n);
		return;
	}
	f->racks = calloc(n, sizeof(*f->racks));
	if (!f->racks) {
		rb_yaml_error(y, d, v, "racks", "out of memory");
		return;
	}
	for (struct rb_yaml_it i = rb_yaml_items(y, v); rb_yaml_next(&i);)
		one_rack(y, d, file, i.value, f);
}

int rb_fleet_load(const char *file, const char *text, size_t len, struct rb_fleet **ret,
		  struct rb_diags *d)
{
	struct rb_fleet *f = calloc(1, sizeof(*f));
	struct rb_yaml y;
	yaml_node_t *root;
	size_t before = rb_diags_errors(d);
	bool seen = false;

	if (!f || !(f->file = strdup(file))) {
		free(f);
		return -ENOMEM;
	}
	if (rb_yaml_load(&y, file, text, len, d)) {
		rb_fleet_free(f);
		return -EINVAL;
	}
	root = rb_yaml_root(&y);
	if (!root || root->type != YAML_MAPPING_NODE) {
		rb_yaml_error(&y, d, root, "fleet", "expected a mapping with 'racks:', got %s",
			      root ? rb_yaml_kind(root) : "nothing");
	} else {
		for (struct rb_yaml_it p = rb_yaml_pairs(&y, root); rb_yaml_next(&p);) {
			yaml_node_t *k = p.key;
			const char *key = rb_yaml_scalar(k);

			if (key && !strcmp(key, "racks") && !seen) {
				seen = true;
				racks(&y, d, file, p.value, f);
			} else {
				rb_yaml_error(
					&y, d, k, key ? key : "fleet", "%s '%s'%s",
					key && !strcmp(key, "racks") ? "twice:" : "unknown key",
					key ? key : "?",
					key && !strcmp(key, "racks") ? "" : " (known: racks)");
			}
		}
		if (!seen)
			rb_yaml_error(&y, d, root, "racks", "the fleet names no racks ('racks:')");
	}
	rb_yaml_release(&y);
	if (rb_diags_errors(d) > before) {
		rb_diags_sort(d);
		rb_fleet_free(f);
		return -EINVAL;
	}
	*ret = f;
	return 0;
}

int rb_fleet_load_file(const char *path, struct rb_fleet **ret, struct rb_diags *d)
{
	char *text = NULL;
	size_t len = 0;
	int r = rb_read_file(path, FLEET_FILE_MAX, &text, &len);

	if (r) {
		rb_diags_add(d, RB_SEV_ERROR, path, 0, 0, "fleet", "cannot read it: %s",
			     rb_input_error(r));
		return r;
	}
	r = rb_fleet_load(path, text, len, ret, d);
	free(text);
	return r;
}

struct rb_fleet *rb_fleet_free(struct rb_fleet *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->nracks; i++) {
		free(f->racks[i].name);
		free(f->racks[i].endpoint);
		for (size_t l = 0; l < f->racks[i].nlabels; l++)
			free(f->racks[i].labels[l]);
		free(f->racks[i].labels);
	}
	free(f->racks);
	free(f->file);
	free(f);
	return NULL;
}
