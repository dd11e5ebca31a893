// SPDX-License-Identifier: MIT
/*
 * A campaign file loaded: YAML to the campaign model, the root's keys (by the key table),
 * then targets, phases, a lock and a preset through the loader's pieces (campaign_load.c,
 * campaign_expand.c, campaign_lock.c, campaign_preset.c), and the checks across targets
 * and phases. Every error names FILE:LINE:COLUMN.
 */
#include "campaign.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "campaign_keys.h"
#include "campaign_priv.h"
#include "endpoint.h"
#include "fname.h"
#include "presets.h"
#include "results_db.h"
#include "units.h"
#include "yamlcfg.h"
#include "idmap.h"
#include "grow.h"

#define MAX_CAMPAIGN_BYTES (4u << 20)

/*
 * Phase p measures its drives at once: no device may be in two of them (a drive in two
 * volumes, or a volume's member also measured alone). Returns the first clash found.
 */
static bool phase_clash(const struct rb_campaign *c, size_t ph, const char **ret_path,
			const char **ret_a, const char **ret_b, const char **ret_agent)
{
	struct rb_point probe = { .phase = (unsigned)ph };
	struct key {
		const char *agent, *path, *owner;
	} *tab = NULL;
	size_t n = 0, cap = 0;
	struct rb_idmap ix;
	bool clash = false;

	rb_idmap_init(&ix);
	for (size_t d = 0; d < c->ndrives && !clash; d++) {
		const struct rb_drive_ref *dr = &c->drives[d];

		if (!rb_point_has_drive(c, &probe, d))
			continue;
		for (size_t m = 0; m < (dr->nmembers ? dr->nmembers : 1) && !clash; m++) {
			const char *path = dr->nmembers ? dr->members[m].path : dr->path;
			uint64_t h = drive_hash(dr->agent, path);
			size_t cur = 0, i;

			while (!clash && (i = rb_idmap_next(&ix, h, &cur)) != SIZE_MAX)
				if (!strcmp(tab[i].agent, dr->agent) &&
				    !strcmp(tab[i].path, path)) {
					clash = true;
					*ret_path = path;
					*ret_a = tab[i].owner;
					*ret_b = dr->path;
					*ret_agent = dr->agent;
				}
			if (clash)
				break;
			if (RB_GROW(tab, cap, n, 16) || rb_idmap_add(&ix, h, n))
				goto out; /* no memory for the check: as if none clashed */
			tab[n++] = (struct key){ dr->agent, path, dr->path };
		}
	}
out:
	rb_idmap_release(&ix);
	free(tab);
	return clash;
}

/*
 * Volumes against the phases: 'stripe' in a workload sets volumes' units (a campaign
 * setting it needs a volume); a phase's 'drives' name drives the campaign has; no phase
 * measures one device twice at once.
 */
static void check_volumes(struct loader *L, yaml_node_t *root)
{
	struct rb_campaign *c = L->c;
	size_t nvol = 0;

	for (size_t i = 0; i < c->ndrives; i++)
		nvol += c->drives[i].nmembers > 0;
	for (size_t k = 0; !nvol && k < c->npoints; k++)
		if (c->points[k].wl.stripe) {
			ERR(L, L->stripe_node ? L->stripe_node : root, "stripe",
			    "'stripe' in a campaign sets the unit of its volumes, and no target has "
			    "one (a volume is a drive entry {volume: NAME, members: [...], stripe: "
			    "SIZE})");
			break;
		}
	for (size_t ph = 0; ph < c->nphases; ph++) {
		const struct rb_phase *P = &c->phases[ph];
		const char *path, *x, *y, *agent;

		/* drives chosen when agents connect cannot be named before */
		for (size_t i = 0; i < P->ndrives && !c->nselectors; i++) {
			bool found = false;

			for (size_t d = 0; d < c->ndrives && !found; d++)
				found = !strcmp(c->drives[d].path, P->drives[i]);
			for (size_t g = 0; g < c->ngroups && !found; g++)
				for (size_t d = 0; d < c->groups[g].ndrives && !found; d++)
					found = !strcmp(c->groups[g].drives[d], P->drives[i]);
			if (!found)
				rb_diags_add(
					L->d, RB_SEV_ERROR, c->file, P->line, P->column, "drives",
					"phase '%s' measures drive '%s', which no target has (a "
					"drive's path or a volume's name)",
					P->name, P->drives[i]);
		}
		if (nvol && phase_clash(c, ph, &path, &x, &y, &agent))
			rb_diags_add(
				L->d, RB_SEV_ERROR, c->file, P->line, P->column, "drives",
				"phase '%s' would measure '%s' of agent '%s' twice at once, in "
				"'%s' and in '%s': give the phase 'drives' naming the ones it "
				"measures",
				P->name, path, agent, x, y);
	}
}

/* The first drive of point p with (want) or without a filesystem, or -1. */
static long fs_drive(const struct rb_campaign *c, const struct rb_point *p, bool want)
{
	for (size_t i = 0; i < c->ndrives; i++)
		if (rb_fs_spec_set(&c->drives[i].fs) == want && rb_point_has_drive(c, p, i))
			return (long)i;
	return -1;
}

/*
 * A drive with a filesystem is measured through a file rackbench makes on it: each phase
 * that measures one needs 'size' (the file's); checkpoints write files on a filesystem:
 * every drive they write needs one. Said once per phase.
 */
static void check_filesystems(struct loader *L)
{
	struct rb_campaign *c = L->c;

	for (size_t ph = 0; ph < c->nphases; ph++) {
		const struct rb_phase *P = &c->phases[ph];
		long i = -1;

		for (size_t k = 0; k < c->npoints && i < 0; k++) {
			const struct rb_point *p = &c->points[k];
			bool ckpt = p->wl.rw == RB_RW_CHECKPOINT;

			if (p->phase != ph || p->purge[0] || p->exec[0] || (p->wl.size && !ckpt))
				continue;
			if ((i = fs_drive(c, p, !ckpt)) < 0)
				continue;
			if (ckpt)
				rb_diags_add(L->d, RB_SEV_ERROR, c->file, P->line, P->column, "rw",
					     "phase '%s' writes checkpoints on drive '%s' of agent "
					     "'%s', which has no filesystem: give the drive "
					     "'filesystem' (ext4 or xfs)",
					     P->name, c->drives[i].path, c->drives[i].agent);
			else
				rb_diags_add(
					L->d, RB_SEV_ERROR, c->file, P->line, P->column, "size",
					"phase '%s' measures drive '%s' of agent '%s', which has "
					"a filesystem: give the phase 'size' (the file rackbench "
					"makes there)",
					P->name, c->drives[i].path, c->drives[i].agent);
		}
	}
}

/* Anchors and aliases are fine (libyaml resolves them); merge keys are not YAML 1.2. */
static bool merge_keys(struct loader *L)
{
	bool merges = false;

	for (yaml_node_t *nd = L->y.doc.nodes.start; nd < L->y.doc.nodes.top; nd++) {
		if (nd->type != YAML_MAPPING_NODE)
			continue;
		for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, nd); rb_yaml_next(&p);) {
			yaml_node_t *k = p.key;
			const char *key = rb_yaml_scalar(k);

			if (key && !strcmp(key, "<<")) {
				ERR(L, k, "<<",
				    "YAML merge keys ('<<') are not supported: write the "
				    "keys out, or use an alias for a whole value, or 'defaults'");
				merges = true;
			}
		}
	}
	return merges;
}

/* What a string key at the root holds, in words, for "must be ...". */
static const char *string_kind(const char *key)
{
	return !strcmp(key, "name")	    ? "a name"
	       : !strcmp(key, "results")    ? "a folder"
	       : !strcmp(key, "results_db") ? "a PostgreSQL URL"
					    : "a file";
}

/* A root scalar stored as the key table says (its type, at its offset in the campaign). */
static void store_root(struct loader *L, yaml_node_t *v, const struct rb_ckey *k)
{
	char *at = (char *)L->c + k->off, words[128];
	const char *s = rb_yaml_scalar(v);
	int i;

	switch (k->type) {
	case RB_CK_STRING:
		if (want(L, v, YAML_SCALAR_NODE, k->name, string_kind(k->name))) {
			free(*(char **)at);
			*(char **)at = xstrdup(s);
		}
		break;
	case RB_CK_BOOL:
		rb_campaign_parse_bool(L, v, k->name, (bool *)at);
		break;
	case RB_CK_DURATION:
		if (!s || rb_parse_duration(s, (uint64_t *)at))
			ERR(L, v, k->name, "'%s' must be a duration such as %s%s%s%s", k->name,
			    !strcmp(k->name, "wait") ? "30s or 2m" : k->def, s ? ", not '" : "",
			    s ? s : "", s ? "'" : "");
		break;
	case RB_CK_ENUM:
		if ((i = rb_ckey_choice(k, s)) < 0)
			ERR(L, v, k->name, "'%s' must be %s", k->name,
			    rb_ckey_choices_text(k, words, sizeof(words)));
		else
			*(int *)at = i;
		break;
	default:
		break;
	}
}

/* A run setting at the root (name, listen, keys, results, wait, ...); false: not one. */
static bool load_setting(struct loader *L, yaml_node_t *v, const char *key)
{
	const struct rb_ckey *k = rb_ckey_find(RB_CK_ROOT, key);
	struct rb_campaign *c = L->c;
	char why[1200];

	if (k && k->off >= 0) {
		store_root(L, v, k);
		/* stored with every results file: a URL libpq reads, and no password in it */
		if (!strcmp(key, "results_db") && c->results_db &&
		    rb_resdb_url_check(c->results_db, why, sizeof(why)))
			ERR(L, v, key, "'results_db': %s", why);
		return true;
	}
	if (strcmp(key, "listen"))
		return false;
	if (want(L, v, YAML_SCALAR_NODE, key, "an endpoint such as tcp://*:7470")) {
		free(c->listen);
		c->listen = xstrdup(rb_yaml_scalar(v));
		if (rb_endpoint_check(c->listen, why, sizeof(why)))
			ERR(L, v, key, "'listen' must be tcp://HOST:PORT or ipc://PATH: %s", why);
	}
	return true;
}

static void load_root(struct loader *L, yaml_node_t *root)
{
	yaml_node_t *targets = NULL, *phases = NULL, *preset = NULL, *overrides = NULL,
		    *lock = NULL, *fleetv = NULL;

	if (root->type != YAML_MAPPING_NODE) {
		ERR(L, root, NULL,
		    "a campaign must be a mapping (name, targets, phases, ...), not %s",
		    rb_yaml_kind(root));
		return;
	}
	if (merge_keys(L))
		return;
	/* defaults first: phases apply on top of them wherever they appear */
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, root); rb_yaml_next(&p);) {
		const char *key = rb_yaml_scalar(p.key);

		if (key && !strcmp(key, "defaults"))
			L->ndefaults =
				rb_campaign_load_workload(L, p.value, "defaults", L->defaults, 64);
	}
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, root); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
		const char *key = rb_yaml_scalar(k);

		if (!key) {
			ERR(L, k, NULL, "keys must be plain words, not %s", rb_yaml_kind(k));
		} else if (!strcmp(key, "defaults") || load_setting(L, v, key)) {
			continue;
		} else if (!strcmp(key, "targets")) {
			targets = v;
			rb_campaign_load_targets(L, v);
		} else if (!strcmp(key, "phases")) {
			phases = v;
			rb_campaign_load_phases(L, v);
		} else if (!strcmp(key, "preset")) {
			preset = v;
		} else if (!strcmp(key, "overrides")) {
			overrides = v;
		} else if (!strcmp(key, "lock")) {
			lock = v;
		} else if (!strcmp(key, "verdict")) {
			rb_campaign_load_verdict(L, v, &L->c->verdict, false);
		} else if (!strcmp(key, "fleet_verdict")) {
			fleetv = k;
			rb_campaign_load_fleet_verdict(L, v);
		} else {
			char known[512];

			ERR(L, k, key, "unknown key '%s' (known: %s)", key,
			    rb_ckey_known(RB_CK_ROOT, known, sizeof(known)));
		}
	}
	if (!targets)
		ERR(L, root, "targets", "campaign has no 'targets'");
	else if (lock)
		rb_campaign_load_lock(L, lock);
	if (preset && phases)
		ERR(L, preset, "preset", "a campaign has 'preset' or 'phases', not both");
	else if (preset)
		rb_campaign_load_preset(L, preset, overrides);
	else if (overrides)
		ERR(L, overrides, "overrides", "'overrides' adjusts a preset: give 'preset' too");
	if (!phases && !preset)
		ERR(L, root, "phases", "campaign has no 'phases' (or 'preset')");
	/* the fleet's verdicts are judged in the database the racks export into */
	if (fleetv && L->c->fleet_verdict.on && (!L->c->results_db || !L->c->results_db[0]))
		ERR(L, fleetv, "fleet_verdict",
		    "'fleet_verdict' judges the fleet in the campaign's database: give "
		    "'results_db' (the PostgreSQL URL every rack exports into) too");
	check_volumes(L, root);
	check_filesystems(L);
}

int rb_campaign_load(const char *file, const char *text, size_t len, struct rb_campaign **ret,
		     struct rb_diags *diags)
{
	struct loader L = { .d = diags };
	struct rb_campaign *c = calloc(1, sizeof(*c));
	size_t before = rb_diags_errors(diags);
	const char *base;

	if (!c)
		return -ENOMEM;
	L.c = c;
	c->file = xstrdup(file);
	c->text = malloc(len + 1);
	if (!c->text) {
		rb_campaign_free(c);
		return -ENOMEM;
	}
	if (len)
		memcpy(c->text, text, len);
	c->text[len] = '\0';
	c->text_len = len;
	c->listen = xstrdup("tcp://*:7470");
	c->results_dir = xstrdup(".");
	c->wait_ns = 60ULL * 1000000000ULL;
	c->lost_wait_ns = 60ULL * 1000000000ULL;
	rb_verdict_rules_init(&c->verdict);
	c->fleet_verdict.params = RB_FLEET_PARAMS_DEFAULT;
	c->fleet_verdict.wait_ns = 60ULL * 1000000000ULL;
	base = strrchr(file, '/');
	c->name = xstrdup(base ? base + 1 : file);
	if (len && memchr(text, '\0', len)) {
		rb_diags_add(diags, RB_SEV_ERROR, file, 1, 1, NULL, "file holds a NUL byte");
	} else if (rb_yaml_load(&L.y, file, text, len, diags) == 0) {
		load_root(&L, rb_yaml_root(&L.y));
	}
	rb_yaml_release(&L.y);
	rb_idmap_release(&L.seen);
	free(L.keys);
	rb_diags_sort(diags);
	if (rb_diags_errors(diags) > before) {
		rb_campaign_free(c);
		return -EINVAL;
	}
	*ret = c;
	return 0;
}

int rb_campaign_load_file(const char *path, struct rb_campaign **ret, struct rb_diags *diags)
{
	char *text;
	size_t len;
	int r = rb_read_file(path, MAX_CAMPAIGN_BYTES, &text, &len);

	if (r) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path, "cannot read campaign: %s",
			     r == -EFBIG ? "larger than 4 MiB" : rb_input_error(r));
		return r;
	}
	r = rb_campaign_load(path, text, len, ret, diags);
	free(text);
	return r;
}
