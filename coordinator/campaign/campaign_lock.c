// SPDX-License-Identifier: MIT
/*
 * A campaign's lock file ('rackbench plan --lock'): every drive the campaign measures,
 * by agent and path, with the serial it reported. Each drive's serial becomes its pin;
 * what selectors and agent groups chose when the lock was made becomes the campaign's
 * drives and agents, so a locked run measures the same drives whatever connects.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "campaign_priv.h"
#include "units.h"
#include "yamlcfg.h"
#include "idmap.h"
#include "grow.h"

/* A device of the campaign by (agent, path): a drive, or a volume's member. */
struct lock_key {
	const char *agent, *path;
	size_t drive, member;
};

/* Every device of the campaign by (agent, path), hashed: a fleet's lock is looked up so. */
struct lock_index {
	struct lock_key *v;
	size_t n;
	struct rb_idmap ix;
};

static int lock_keys(const struct rb_campaign *c, struct lock_index *k)
{
	size_t cap = 0;

	for (size_t d = 0; d < c->ndrives; d++)
		for (size_t m = 0; m < (c->drives[d].nmembers ? c->drives[d].nmembers : 1); m++) {
			const char *kp = c->drives[d].nmembers ? c->drives[d].members[m].path
							       : c->drives[d].path;

			if (RB_GROW(k->v, cap, k->n, 16) ||
			    rb_idmap_add(&k->ix, drive_hash(c->drives[d].agent, kp), k->n))
				return -ENOMEM;
			k->v[k->n++] = (struct lock_key){ c->drives[d].agent, kp, d, m };
		}
	return 0;
}

/* The selector of agent, or -1. */
static long selector_of(const struct rb_campaign *c, const char *agent)
{
	for (size_t k = 0; k < c->nselectors; k++)
		if (!strcmp(c->selectors[k].agent, agent))
			return (long)k;
	return -1;
}

static bool campaign_agent(const struct rb_campaign *c, const char *agent)
{
	for (size_t i = 0; i < c->nagents; i++)
		if (!strcmp(c->agents[i], agent))
			return true;
	return false;
}

/* The value of key in a lock's drive entry, or NULL. */
static const char *entry(struct rb_yaml *ly, yaml_node_t *dn, const char *key)
{
	for (struct rb_yaml_it q = rb_yaml_pairs(ly, dn); rb_yaml_next(&q);) {
		const char *k = rb_yaml_scalar(q.key);

		if (k && !strcmp(k, key))
			return rb_yaml_scalar(q.value);
	}
	return NULL;
}

/*
 * A lock made of a campaign with agent groups names the agents the groups chose: each
 * joins as the group made it join (its drives, its selector), and a group the lock fills
 * is chosen once and for all; one the lock fills in part is an error.
 */
static void lock_groups(struct loader *L, struct rb_yaml *ly, yaml_node_t *n, yaml_node_t *drives)
{
	struct rb_campaign *c = L->c;
	unsigned *got;
	size_t kept = 0;

	if (!c->ngroups || !(got = calloc(c->ngroups, sizeof(*got))))
		return;
	for (struct rb_yaml_it it = rb_yaml_items(ly, drives); rb_yaml_next(&it);) {
		const char *agent = entry(ly, it.value, "agent");

		if (!agent || campaign_agent(c, agent))
			continue;
		/* the first group whose name pattern takes it (its labels were seen when the
		 * lock was made; the serials pin the drives now) */
		for (size_t g = 0; g < c->ngroups; g++) {
			if ((!c->groups[g].at_least && got[g] >= c->groups[g].count) ||
			    (*c->groups[g].name && fnmatch(c->groups[g].name, agent, 0)))
				continue;
			got[g]++;
			if (rb_campaign_add_agent(c, agent, &c->groups[g]))
				ERR(L, n, "lock", "out of memory");
			break;
		}
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		struct rb_agent_group *G = &c->groups[g];

		if (got[g] && got[g] < G->count)
			ERR(L, n, "lock",
			    "the lock holds %u agent(s) of the group named '%s', the campaign "
			    "asks for %s%u: run 'rackbench plan --lock' again",
			    got[g], *G->name ? G->name : "*", G->at_least ? "at least " : "",
			    G->count);
		if (got[g]) {
			rb_agent_group_release(G);
			continue;
		}
		c->groups[kept++] = *G;
	}
	c->ngroups = kept;
	free(got);
}

/*
 * Each selector the lock answered (with the drives its agent offered then) is done: those
 * drives are the campaign's, pinned; one answered in part is an error.
 */
static void selectors_locked(struct loader *L, yaml_node_t *n, const char *path,
			     const unsigned *taken)
{
	struct rb_campaign *c = L->c;
	size_t kept = 0;

	for (size_t k = 0; k < c->nselectors; k++) {
		struct rb_selector *s = &c->selectors[k];

		if (taken[k] && (s->at_least ? taken[k] < s->count : taken[k] != s->count))
			ERR(L, n, "lock",
			    "the lock '%s' holds %u drive(s) of agent '%s' for its select, the "
			    "campaign asks for %s%u: run 'rackbench plan --lock' again",
			    path, taken[k], s->agent, s->at_least ? "at least " : "", s->count);
		if (!taken[k]) {
			c->selectors[kept++] = *s;
			continue;
		}
		rb_selector_release(s);
	}
	c->nselectors = kept;
}

/* One drive the lock names: its serial pinned on each device of the campaign it is;
 * a drive a selector of its agent chose is added to the campaign. */
static void lock_drive(struct loader *L, struct rb_yaml *ly, yaml_node_t *n, yaml_node_t *dn,
		       const struct lock_index *keys, bool *seen, size_t *mseen, unsigned *taken)
{
	struct rb_campaign *c = L->c;
	const char *agent = NULL, *dpath = NULL, *serial = NULL;
	size_t i;

	for (struct rb_yaml_it q = rb_yaml_pairs(ly, dn); rb_yaml_next(&q);) {
		const char *k = rb_yaml_scalar(q.key);
		const char *v = rb_yaml_scalar(q.value);

		if (k && !strcmp(k, "agent"))
			agent = v;
		else if (k && !strcmp(k, "path"))
			dpath = v;
		else if (k && !strcmp(k, "serial"))
			serial = v;
	}
	if (!agent || !dpath || !serial) {
		rb_yaml_error(ly, L->d, dn, "drives", "a locked drive has agent, path and serial");
		return;
	}
	/* a drive, or a volume's member (of every volume holding it): locked by path */
	bool any = false;
	const char *other = NULL;

	uint64_t kh = drive_hash(agent, dpath);
	size_t cur = 0, ki;

	while ((ki = rb_idmap_next(&keys->ix, kh, &cur)) != SIZE_MAX) {
		const struct lock_key *key = &keys->v[ki];
		struct rb_drive_ref *d = &c->drives[key->drive];
		char **pin = d->nmembers ? &d->members[key->member].serial : &d->serial;

		if (strcmp(key->agent, agent) || strcmp(key->path, dpath))
			continue;
		any = true;
		i = key->drive;
		seen[i] |= !d->nmembers;
		mseen[i] += d->nmembers > 0;
		if (!*serial)
			continue; /* no serial to pin (a file, a loop device) */
		if ((*pin)[0] && strcmp(*pin, serial)) {
			other = *pin;
			continue;
		}
		free(*pin);
		*pin = xstrdup(serial);
	}
	if (!any) {
		/* what a selector of the agent chose when the lock was made: now the campaign's */
		long k = selector_of(c, agent);

		if (k >= 0) {
			for (size_t d = 0; d < c->ndrives; d++)
				if (!strcmp(c->drives[d].agent, agent) &&
				    !strcmp(c->drives[d].path, dpath)) {
					rb_yaml_error(
						ly, L->d, dn, dpath,
						"drive '%s' of agent '%s' is in the lock twice",
						dpath, agent);
					return;
				}
			taken[k]++;
			if (rb_campaign_add_drive(c, agent, dpath, serial))
				ERR(L, n, "lock", "out of memory");
			return;
		}
		rb_yaml_error(ly, L->d, dn, dpath,
			      "the lock names drive '%s' of agent '%s', which the campaign does "
			      "not target",
			      dpath, agent);
		return;
	}
	if (other)
		ERR(L, n, "lock",
		    "drive '%s' of agent '%s' is pinned to serial '%s' here and "
		    "'%s' in the lock",
		    dpath, agent, other, serial);
}

/* lock: FILE -- pins each drive to the serial 'rackbench plan --lock' recorded. */
void rb_campaign_load_lock(struct loader *L, yaml_node_t *n)
{
	struct rb_campaign *c = L->c;
	const char *name = rb_yaml_scalar(n);
	char path[4096], *text = NULL;
	size_t len = 0;
	struct rb_yaml ly;
	yaml_node_t *root, *drives = NULL;
	bool *seen = NULL;
	size_t *mseen = NULL;
	struct lock_index keys = { .n = 0 };
	unsigned *taken = NULL;
	size_t ndrives;
	int e;

	if (!name || !*name) {
		ERR(L, n, "lock", "'lock' must be a file written by 'rackbench plan --lock'");
		return;
	}
	/* relative to the campaign file */
	if (name[0] != '/' && strchr(c->file, '/'))
		snprintf(path, sizeof(path), "%.*s/%s", (int)(strrchr(c->file, '/') - c->file),
			 c->file, name);
	else
		snprintf(path, sizeof(path), "%s", name);
	e = rb_read_file(path, 1 << 20, &text, &len);
	if (e) {
		ERR(L, n, "lock", "cannot read lock file '%s': %s", path, rb_input_error(e));
		return;
	}
	if (rb_yaml_load(&ly, path, text, len, L->d)) {
		free(text);
		return;
	}
	root = rb_yaml_root(&ly);
	for (struct rb_yaml_it p = rb_yaml_pairs(&ly, root); rb_yaml_next(&p);) {
		const char *key = rb_yaml_scalar(p.key);

		if (key && !strcmp(key, "drives"))
			drives = p.value;
	}
	if (!drives || drives->type != YAML_SEQUENCE_NODE) {
		rb_yaml_error(&ly, L->d, root, "drives", "a lock file has 'drives', a list");
		goto out;
	}
	/* the agents the groups chose when the lock was made join first, with their drives */
	lock_groups(L, &ly, n, drives);
	ndrives = c->ndrives;
	seen = calloc(ndrives + 1, sizeof(bool));
	mseen = calloc(ndrives + 1, sizeof(size_t));
	taken = calloc(c->nselectors + 1, sizeof(unsigned));
	if (!seen || !mseen || !taken || lock_keys(c, &keys)) {
		ERR(L, n, "lock", "out of memory");
		goto out;
	}
	for (struct rb_yaml_it it = rb_yaml_items(&ly, drives); rb_yaml_next(&it);)
		lock_drive(L, &ly, n, it.value, &keys, seen, mseen, taken);
	selectors_locked(L, n, path, taken);
	for (size_t i = 0; i < ndrives; i++)
		if (c->drives[i].nmembers ? mseen[i] < c->drives[i].nmembers : !seen[i])
			ERR(L, n, "lock",
			    "%s '%s' of agent '%s' is not in the lock '%s'%s: run "
			    "'rackbench plan --lock' again",
			    c->drives[i].nmembers ? "volume" : "drive", c->drives[i].path,
			    c->drives[i].agent, path,
			    c->drives[i].nmembers ? " (every member)" : "");
out:
	free(seen);
	free(mseen);
	free(taken);
	free(keys.v);
	rb_idmap_release(&keys.ix);
	rb_yaml_release(&ly);
	free(text);
}
