// SPDX-License-Identifier: MIT
/*
 * A rack's shard of a fleet's campaign (rackbench fleet run): the campaign as written, cut
 * to the agents `fleet plan` chose on that rack. Named drives and selectors of agents on
 * other racks go; each agent group takes exactly the rack's agents the plan gave it (the
 * plan matched them with their rack's labels too, which the rack's service does not know).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "campaign_priv.h"

struct sh_agent {
	char *name;
	long group; /* -1: a named agent */
};

static bool in_shard(const struct sh_agent *a, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(a[i].name, name))
			return true;
	return false;
}

/* The named drives, selectors and agents of agents not in the shard taken out. */
static void cut_named(struct rb_campaign *c, const struct sh_agent *a, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < c->ndrives; i++)
		if (in_shard(a, n, c->drives[i].agent))
			c->drives[k++] = c->drives[i];
		else
			rb_drive_ref_release(&c->drives[i]);
	c->ndrives = k;
	k = 0;
	for (size_t i = 0; i < c->nselectors; i++)
		if (in_shard(a, n, c->selectors[i].agent))
			c->selectors[k++] = c->selectors[i];
		else
			rb_selector_release(&c->selectors[i]);
	c->nselectors = k;
	k = 0;
	for (size_t i = 0; i < c->nagents; i++)
		if (in_shard(a, n, c->agents[i]))
			c->agents[k++] = c->agents[i];
		else
			free(c->agents[i]);
	c->nagents = k;
}

/* Each group's agents: the shard's of that group, exactly. */
static int set_groups(struct rb_campaign *c, const struct sh_agent *a, size_t n)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		struct rb_agent_group *G = &c->groups[g];

		G->only = calloc(n + 1, sizeof(*G->only));
		if (!G->only)
			return -ENOMEM;
		G->nonly = 0;
		for (size_t i = 0; i < n; i++)
			if (a[i].group == (long)g && !(G->only[G->nonly++] = strdup(a[i].name)))
				return -ENOMEM;
		G->count = (unsigned)G->nonly;
		G->at_least = false;
		G->sharded = true;
	}
	return 0;
}

int rb_campaign_shard(struct rb_campaign *c, const char *spec, char *err, size_t len)
{
	struct sh_agent *a = NULL;
	size_t n = 0;
	char *copy = strdup(spec), *save = NULL;
	int r = copy ? 0 : -ENOMEM;

	for (char *e = copy ? strtok_r(copy, ",", &save) : NULL; e && !r;
	     e = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(e, ':'), *end = NULL;
		long g = -1;
		struct sh_agent *na;

		if (colon) {
			*colon = '\0';
			if (strcmp(colon + 1, "-")) {
				g = strtol(colon + 1, &end, 10);
				if (!*(colon + 1) || *end || g < 0 || (size_t)g >= c->ngroups) {
					snprintf(
						err, len,
						"shard: agent '%s' of group '%s': the campaign has "
						"%zu group(s)",
						e, colon + 1, c->ngroups);
					r = -EINVAL;
					break;
				}
			}
		}
		na = realloc(a, (n + 1) * sizeof(*a));
		if (!na) {
			r = -ENOMEM;
			break;
		}
		a = na;
		a[n] = (struct sh_agent){ strdup(e), g };
		if (!a[n++].name)
			r = -ENOMEM;
	}
	if (!r) {
		cut_named(c, a, n);
		r = set_groups(c, a, n);
	}
	/* kept: the run's journal says it, so that a resume cuts the campaign the same way */
	if (!r) {
		free(c->shard);
		if (!(c->shard = strdup(spec)))
			r = -ENOMEM;
	}
	if (r == -ENOMEM)
		snprintf(err, len, "shard: out of memory");
	for (size_t i = 0; i < n; i++)
		free(a[i].name);
	free(a);
	free(copy);
	return r;
}
