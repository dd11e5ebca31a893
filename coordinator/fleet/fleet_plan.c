// SPDX-License-Identifier: MIT
/*
 * `fleet plan` (fleet.h): each rack's agents and drives, asked of its service, and the
 * campaign's selectors applied across the racks as a run applies them to the agents of one
 * coordinator: named agents with their drives, drive selectors by identity, agent groups by
 * name and labels. An agent is matched with its own labels, then its rack's (FLEET.yaml),
 * then rack=NAME. A group of 'count: N' takes N agents over the whole fleet (racks in file
 * order, agents by name); 'all' and '>= N' take every match on every rack.
 */
#include "fleet.h"
#include "fleet_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "diag.h"
#include "exitcode.h"
#include "log.h"
#include "units.h"
#include "grow.h"

struct ptarget {
	char *path, *model, *serial, *firmware;
};

struct pagent {
	char *name;
	size_t rack;
	const char *keys[64], *vals[64];
	size_t nlabels;
	char *labels; /* the agent's K=V,K=V, cut in place */
	struct ptarget *t;
	size_t nt;
	bool taken;
	long group;    /* the agent group that took it; -1: the campaign names it */
	size_t drives; /* the campaign's drives on it */
};

struct shard {
	size_t agents, drives;
};

struct plan {
	struct pagent *a;
	size_t n, cap;
	int rc;
};

static char *dupn(const char *s)
{
	return strdup(s ? s : "");
}

/* The tab-separated fields of line (cut in place) into f; how many. */
static int fields(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

/* An agents reply ("agents\ndrives=1") of rack r into p. */
static int parse_agents(struct plan *p, const struct rb_fleet_rack *rack, size_t r, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text + 3, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[8] = { 0 };
		int n = fields(line, f, 8);
		struct pagent *a;

		if (!strcmp(f[0], "+") && n >= 7 && p->n) {
			struct pagent *last = &p->a[p->n - 1];
			struct ptarget *t = realloc(last->t, (last->nt + 1) * sizeof(*t));

			if (!t)
				return -ENOMEM;
			last->t = t;
			t[last->nt++] =
				(struct ptarget){ dupn(f[1]), dupn(f[3]), dupn(f[4]), dupn(f[5]) };
			continue;
		}
		if (n < 7)
			continue;
		if (RB_GROW(p->a, p->cap, p->n, 64))
			return -ENOMEM;
		a = &p->a[p->n++];
		memset(a, 0, sizeof(*a));
		a->name = dupn(f[0]);
		a->rack = r;
		a->labels = dupn(n > 7 ? f[7] : "");
		for (char *s2 = NULL, *kv = strtok_r(a->labels, ",", &s2); kv && a->nlabels < 60;
		     kv = strtok_r(NULL, ",", &s2)) {
			char *eq = strchr(kv, '=');

			if (!eq)
				continue;
			*eq = '\0';
			a->keys[a->nlabels] = strdup(kv);
			a->vals[a->nlabels++] = eq + 1;
		}
		/* then the rack's labels, and its name, where the agent has none of its own */
		for (size_t l = 0; l <= rack->nlabels && a->nlabels < 64; l++) {
			const char *kv = l < rack->nlabels ? rack->labels[l] : NULL;
			size_t kl = kv ? strcspn(kv, "=") : 4;
			bool has = false;

			for (size_t j = 0; j < a->nlabels && !has; j++)
				has = strlen(a->keys[j]) == kl &&
				      !strncmp(a->keys[j], kv ? kv : "rack", kl);
			if (has)
				continue;
			/* the value stays in the fleet's string ("K=V" read as K and V) */
			a->keys[a->nlabels] = kv ? strndup(kv, kl) : strdup("rack");
			a->vals[a->nlabels++] = kv ? kv + kl + 1 : rack->name;
		}
	}
	return 0;
}

static void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct pagent *a = &p->a[i];

		for (size_t l = 0; l < a->nlabels; l++)
			free((char *)a->keys[l]);
		for (size_t t = 0; t < a->nt; t++) {
			free(a->t[t].path);
			free(a->t[t].model);
			free(a->t[t].serial);
			free(a->t[t].firmware);
		}
		free(a->t);
		free(a->name);
		free(a->labels);
	}
	free(p->a);
}

static int by_rack_name(const void *x, const void *y)
{
	const struct pagent *a = x, *b = y;

	if (a->rack != b->rack)
		return a->rack < b->rack ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The agents named name: the first in *ret, how many (on how many racks). */
static size_t find(struct plan *p, const char *name, struct pagent **ret)
{
	size_t n = 0;

	*ret = NULL;
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->a[i].name, name) && n++ == 0)
			*ret = &p->a[i];
	return n;
}

static bool offers(const struct pagent *a, const char *path)
{
	for (size_t t = 0; t < a->nt; t++)
		if (!strcmp(a->t[t].path, path))
			return true;
	return false;
}

/* The drives of a that selector s takes (model, serial, firmware as a run matches them). */
static unsigned select_on(const struct pagent *a, const struct rb_selector *s)
{
	unsigned found = 0;

	for (size_t t = 0; t < a->nt; t++) {
		const struct ptarget *x = &a->t[t];

		if ((s->model[0] && !strstr(x->model, s->model)) ||
		    (s->serial[0] && strcmp(x->serial, s->serial)) ||
		    (s->firmware[0] && !strstr(x->firmware, s->firmware)))
			continue;
		found++;
	}
	return found;
}

static void problem(struct plan *p, const struct rb_campaign *c, unsigned line, unsigned col,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void problem(struct plan *p, const struct rb_campaign *c, unsigned line, unsigned col,
		    const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rb_err("%s:%u:%u: %s", c->file, line, col, msg);
	p->rc = rb_exit_worse(p->rc, RB_EXIT_USAGE);
}

/* The campaign's named agents and drives, and its drive selectors. */
static void named(struct plan *p, const struct rb_campaign *c)
{
	for (size_t d = 0; d < c->ndrives; d++) {
		const struct rb_drive_ref *r = &c->drives[d];
		struct pagent *a;
		size_t n = find(p, r->agent, &a);
		bool ok = true;

		if (n != 1) {
			problem(p, c, r->line ? r->line : 1, r->column ? r->column : 1,
				"agent '%s' is on %s", r->agent,
				n ? "several racks: a fleet's agent names are one rack's"
				  : "no rack of the fleet");
			continue;
		}
		for (size_t m = 0; m < (r->nmembers ? r->nmembers : 1); m++)
			ok &= offers(a, r->nmembers ? r->members[m].path : r->path);
		if (!ok)
			problem(p, c, r->line ? r->line : 1, r->column ? r->column : 1,
				"agent '%s' does not offer '%s'", r->agent, r->path);
		a->taken = true;
		a->group = -1;
		a->drives++;
	}
	for (size_t s = 0; s < c->nselectors; s++) {
		const struct rb_selector *sel = &c->selectors[s];
		struct pagent *a;
		size_t n = find(p, sel->agent, &a);
		unsigned found = n == 1 ? select_on(a, sel) : 0;
		char want[32];

		if (n != 1) {
			problem(p, c, sel->line, sel->column, "agent '%s' is on %s", sel->agent,
				n ? "several racks: a fleet's agent names are one rack's"
				  : "no rack of the fleet");
			continue;
		}
		a->taken = true;
		a->group = -1;
		a->drives += sel->at_least || found <= sel->count ? found : sel->count;
		snprintf(want, sizeof(want), "%s%u", sel->at_least ? "at least " : "", sel->count);
		if (sel->at_least ? found < sel->count : found != sel->count)
			problem(p, c, sel->line, sel->column,
				"agent '%s' offers %u drive(s) its selector takes; it expects %s",
				sel->agent, found, want);
	}
}

/* The agent groups over the fleet: racks in file order, agents by name. */
static void groups(struct plan *p, const struct rb_campaign *c)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct rb_agent_group *G = &c->groups[g];
		unsigned found = 0;
		char want[32];

		for (size_t i = 0; i < p->n && (G->at_least || found < G->count); i++) {
			struct pagent *a = &p->a[i];

			if (a->taken ||
			    !rb_agent_group_matches(G, a->name, a->keys, a->vals, a->nlabels))
				continue;
			a->taken = true;
			a->group = (long)g;
			found++;
			if (G->has_select) {
				unsigned n = select_on(a, &G->select);

				a->drives += G->select.at_least || n <= G->select.count
						     ? n
						     : G->select.count;
			} else {
				for (size_t d = 0; d < G->ndrives; d++)
					a->drives += offers(a, G->drives[d]);
			}
		}
		snprintf(want, sizeof(want), "%s%u", G->at_least ? "at least " : "", G->count);
		if (found < G->count)
			problem(p, c, G->line, G->column,
				"the fleet has fewer agents named '%s' with the group's labels than "
				"the %s it expects",
				*G->name ? G->name : "*", want);
	}
}

/* The campaign's planned time (time-based points) and its size-based points. */
static uint64_t planned_ns(const struct rb_campaign *c, size_t *sized)
{
	uint64_t ns = 0;

	*sized = 0;
	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_workload *wl = &c->points[i].wl;

		if (wl->io_size || wl->passes)
			(*sized)++;
		else
			ns += wl->ramp_ns + wl->runtime_ns;
		ns += c->phases[c->points[i].phase].idle_ns;
	}
	return ns;
}

static void print_plan(const struct plan *p, const struct rb_fleet *f, const struct rb_campaign *c,
		       const struct rb_fleet_reply *rep, int deadline_ms)
{
	size_t sized, tot_agents = 0, tot_drives = 0, racks = 0;
	char dur[32], why[256];
	uint64_t ns = planned_ns(c, &sized);

	printf("%-16s %-28s %7s %7s %7s  %s\n", "rack", "endpoint", "agents", "drives", "points",
	       "time");
	for (size_t r = 0; r < f->nracks; r++) {
		struct shard sh = { 0 };

		if (!rep[r].text || strncmp(rep[r].text, "ok\n", 3)) {
			printf("%-16s %-28s UNREACHABLE: %s\n", f->racks[r].name,
			       f->racks[r].endpoint,
			       rep[r].text
				       ? rep[r].text + 6
				       : fleet_why_not(rep[r].err, deadline_ms, why, sizeof(why)));
			continue;
		}
		for (size_t i = 0; i < p->n; i++)
			if (p->a[i].rack == r && p->a[i].taken) {
				sh.agents++;
				sh.drives += p->a[i].drives;
			}
		printf("%-16s %-28s %7zu %7zu %7zu  %s%s\n", f->racks[r].name, f->racks[r].endpoint,
		       sh.agents, sh.drives, sh.drives ? c->npoints : 0,
		       sh.drives ? rb_fmt_duration_human(ns, dur, sizeof(dur)) : "-",
		       sh.drives && sized ? " + size-based points" : "");
		for (size_t i = 0; i < p->n; i++)
			if (p->a[i].rack == r && p->a[i].taken)
				printf("  %-30s %zu drive(s)\n", p->a[i].name, p->a[i].drives);
		tot_agents += sh.agents;
		tot_drives += sh.drives;
		racks += sh.drives > 0;
	}
	printf("fleet: %zu of %zu rack(s) with a shard, %zu agent(s), %zu drive(s); campaign '%s', "
	       "%zu point(s) each, %s%s\n",
	       racks, f->nracks, tot_agents, tot_drives, c->name, c->npoints,
	       rb_fmt_duration_human(ns, dur, sizeof(dur)),
	       sized ? " planned, and the size-based points' time" : " planned");
}

/* The racks' agents from their replies, the campaign's selectors across them: 0, or
 * -ENOMEM said (p->rc: the plan's exit code). */
static int plan_build(struct plan *p, const struct rb_fleet *f, const struct rb_campaign *c,
		      struct rb_fleet_reply *rep)
{
	for (size_t r = 0; r < f->nracks; r++) {
		if (!rep[r].text || strncmp(rep[r].text, "ok\n", 3)) {
			p->rc = rb_exit_worse(p->rc, RB_EXIT_FAILED);
			continue;
		}
		if (parse_agents(p, &f->racks[r], r, rep[r].text)) {
			rb_err("out of memory");
			return -ENOMEM;
		}
	}
	if (p->n)
		qsort(p->a, p->n, sizeof(*p->a), by_rack_name);
	named(p, c);
	groups(p, c);
	return 0;
}

int fleet_shards(const struct rb_fleet *f, const struct rb_campaign *c, struct rb_fleet_reply *rep,
		 char **spec, size_t *drives)
{
	struct plan p = { .rc = RB_EXIT_OK };
	int rc;

	if (plan_build(&p, f, c, rep)) {
		plan_release(&p);
		return RB_EXIT_FAILED;
	}
	rc = p.rc == RB_EXIT_USAGE ? RB_EXIT_USAGE : RB_EXIT_OK;
	for (size_t r = 0; r < f->nracks; r++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		drives[r] = 0;
		spec[r] = NULL;
		for (size_t i = 0; m && i < p.n; i++)
			if (p.a[i].rack == r && p.a[i].taken) {
				if (p.a[i].group < 0)
					fprintf(m, "%s%s:-", ftell(m) ? "," : "", p.a[i].name);
				else
					fprintf(m, "%s%s:%ld", ftell(m) ? "," : "", p.a[i].name,
						p.a[i].group);
				drives[r] += p.a[i].drives;
			}
		if (!m || fclose(m)) {
			rc = RB_EXIT_FAILED;
			free(buf);
			continue;
		}
		if (len)
			spec[r] = buf;
		else
			free(buf);
	}
	plan_release(&p);
	return rc;
}

int rb_fleet_plan(const struct rb_fleet_args *a)
{
	struct rb_fleet *f = NULL;
	struct rb_campaign *c = NULL;
	struct rb_keypair me;
	struct rb_fleet_reply *rep = NULL;
	struct plan p = { .rc = RB_EXIT_OK };
	struct rb_diags d;
	int deadline_ms, rc = fleet_need(a, false);

	if (rc || (rc = fleet_setup(a, &f, &me, &deadline_ms)))
		return rc;
	rb_diags_init(&d);
	if (rb_campaign_load_file(a->campaign, &c, &d)) {
		rb_diags_print(&d, stderr);
		rb_diags_release(&d);
		rb_fleet_free(f);
		return RB_EXIT_USAGE;
	}
	rb_diags_release(&d);
	rep = fleet_ask_all(f, &me, "agents\ndrives=1\n", deadline_ms);
	if (!rep) {
		rc = RB_EXIT_FAILED;
		goto out;
	}
	if (plan_build(&p, f, c, rep)) {
		rc = RB_EXIT_FAILED;
		goto out;
	}
	print_plan(&p, f, c, rep, deadline_ms);
	rc = p.rc;
	if (rc == RB_EXIT_FAILED)
		rb_err("not every rack answered: the plan is of the racks that did");
out:
	plan_release(&p);
	rb_fleet_replies_free(rep, f->nracks);
	rb_campaign_free(c);
	rb_fleet_free(f);
	return rc;
}
