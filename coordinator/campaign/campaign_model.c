// SPDX-License-Identifier: MIT
/*
 * What a loaded campaign answers (campaign.h): which drives a point measures, a volume's
 * unit, whether it writes, its methodology hash, its results file's name; and its release.
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
#include "units.h"
#include "yamlcfg.h"

uint64_t rb_volume_unit(const struct rb_drive_ref *d, const struct rb_point *p)
{
	return p->wl.stripe ? p->wl.stripe : d->stripe;
}

bool rb_point_has_drive(const struct rb_campaign *c, const struct rb_point *p, size_t d)
{
	const struct rb_phase *P = &c->phases[p->phase];

	for (size_t i = 0; i < P->ndrives; i++)
		if (!strcmp(P->drives[i], c->drives[d].path))
			return true;
	return !P->ndrives;
}

void rb_selector_release(struct rb_selector *s)
{
	free(s->agent);
	free(s->model);
	free(s->serial);
	free(s->firmware);
}

void rb_agent_group_release(struct rb_agent_group *g)
{
	free(g->name);
	for (size_t j = 0; j < g->nlabels; j++)
		free(g->labels[j]);
	free(g->labels);
	for (size_t j = 0; j < g->ndrives; j++)
		free(g->drives[j]);
	free(g->drives);
	if (g->has_select)
		rb_selector_release(&g->select);
	for (size_t j = 0; j < g->nonly; j++)
		free(g->only[j]);
	free(g->only);
}

void rb_drive_ref_release(struct rb_drive_ref *d)
{
	free(d->agent);
	free(d->path);
	free(d->serial);
	free(d->alias);
	for (size_t m = 0; m < d->nmembers; m++) {
		free(d->members[m].path);
		free(d->members[m].serial);
	}
	free(d->members);
}

struct rb_campaign *rb_campaign_free(struct rb_campaign *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->nagents; i++)
		free(c->agents[i]);
	for (size_t i = 0; i < c->ndrives; i++)
		rb_drive_ref_release(&c->drives[i]);
	for (size_t i = 0; i < c->nphases; i++) {
		free(c->phases[i].name);
		for (size_t j = 0; j < c->phases[i].ndrives; j++)
			free(c->phases[i].drives[j]);
		free(c->phases[i].drives);
	}
	for (size_t i = 0; i < c->nselectors; i++)
		rb_selector_release(&c->selectors[i]);
	free(c->selectors);
	for (size_t i = 0; i < c->ngroups; i++)
		rb_agent_group_release(&c->groups[i]);
	free(c->groups);
	free(c->agents);
	free(c->drives);
	free(c->phases);
	free(c->points);
	free(c->file);
	free(c->text);
	free(c->shard);
	free(c->name);
	free(c->listen);
	free(c->results_dir);
	free(c->results_db);
	free(c->key);
	free(c->agent_keys);
	free(c);
	return NULL;
}

/*
 * A replay point counts as writing (rb_workload_writes): its trace is on the agent's host,
 * where the agent scans it and opens a read-only trace's targets for reading only. A
 * filesystem to make is a write too.
 */
bool rb_campaign_writes(const struct rb_campaign *c)
{
	/* making a filesystem is a write, whatever the points do */
	for (size_t i = 0; i < c->ndrives; i++)
		if (rb_fs_spec_set(&c->drives[i].fs))
			return true;
	for (size_t i = 0; i < c->npoints; i++)
		/* what an agent's command does to its drive is not known: judged as a write */
		if (rb_workload_writes(&c->points[i].wl) || c->points[i].purge[0] ||
		    c->points[i].exec[0])
			return true;
	return false;
}

char *rb_campaign_methodology(const struct rb_campaign *c, char *buf, size_t len)
{
	/* FNV-1a 64 over every point's phase, name and settings, in order */
	uint64_t h = 0xcbf29ce484222325ULL;
	char set[RB_WORKLOAD_DUMP_MAX];

	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_point *p = &c->points[i];
		/* an exec point's parameters too (none before exec phases: hashes stand) */
		const char *parts[4] = { c->phases[p->phase].name, p->name,
					 rb_workload_dump(&p->wl, set, sizeof(set)),
					 p->exec_params };

		for (size_t k = 0; k < (p->exec[0] ? 4u : 3u); k++) {
			for (const char *s = parts[k]; *s; s++) {
				h ^= (unsigned char)*s;
				h *= 0x100000001b3ULL;
			}
			h ^= (unsigned char)(k == 2 ? '\n' : '\t');
			h *= 0x100000001b3ULL;
		}
	}
	snprintf(buf, len, "%016llx", (unsigned long long)h);
	return buf;
}

int rb_campaign_results_path(const struct rb_campaign *c, time_t now, char *buf, size_t len)
{
	char stem[RB_FNAME_MAX + 1], ts[32];
	struct tm tm;
	size_t dlen = strlen(c->results_dir);
	int n;

	if (mkdir(c->results_dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	rb_fname_sanitize(c->name, stem, sizeof(stem));
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	for (unsigned k = 1;; k++) {
		char sfx[16] = "", journal[4200];
		struct stat st;

		if (k > 99)
			return -EEXIST;
		if (k > 1)
			snprintf(sfx, sizeof(sfx), "-%u", k);
		n = snprintf(buf, len, "%s/%s-%s%s.h5", c->results_dir, stem, ts, sfx);
		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		snprintf(journal, sizeof(journal), "%s.journal", buf);
		if (lstat(buf, &st) && errno == ENOENT && lstat(journal, &st) && errno == ENOENT)
			break;
	}
	/* what follows the folder and its '/' is one component, and not "." or ".." */
	if (strncmp(buf, c->results_dir, dlen) || buf[dlen] != '/' || strchr(buf + dlen + 1, '/') ||
	    !strcmp(buf + dlen + 1, ".") || !strcmp(buf + dlen + 1, ".."))
		return -EXDEV;
	return 0;
}
