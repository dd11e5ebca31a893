// SPDX-License-Identifier: MIT
/*
 * The agents of a run: found by name or connection, their Hellos, the campaign's
 * agent groups choosing theirs, the targets each offers and the drives each holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "campaign.h"
#include "exitcode.h"
#include "log.h"
#include "units.h"
#include "wire.h"

/* A thousand agents each sending ten messages a second: names are looked up hashed. */
static int hash_agents(struct coord *k)
{
	rb_idmap_clear(&k->reg.names);
	for (size_t i = 0; i < k->c->nagents; i++) {
		const char *n = k->reg.agents[i].name;

		if (rb_idmap_add(&k->reg.names, rb_hash_bytes(RB_HASH_INIT, n, strlen(n)), i))
			return -ENOMEM;
	}
	return 0;
}

/* The agents' table: one per agent the campaign names (groups' join later). */
int reg_init(struct coord *k)
{
	k->reg.agents = calloc(k->c->nagents + 1, sizeof(*k->reg.agents));
	if (!k->reg.agents)
		return -ENOMEM;
	k->reg.nreg = k->c->nagents;
	rb_idmap_init(&k->reg.names);
	for (size_t i = 0; i < k->c->nagents; i++) {
		k->reg.agents[i].name = k->c->agents[i];
		if (!(k->reg.agents[i].assigned = calloc(k->c->npoints + 1, sizeof(uint32_t))))
			return -ENOMEM;
	}
	return hash_agents(k);
}

void reg_release(struct coord *k)
{
	/* nreg, not c->nagents: the campaign may have grown by a group's agents and the
	 * table not (no memory) */
	for (size_t i = 0; k->reg.agents && i < k->reg.nreg; i++) {
		free(k->reg.agents[i].targets);
		free(k->reg.agents[i].didx);
		free(k->reg.agents[i].assign_msg);
		free(k->reg.agents[i].assigned);
	}
	free(k->reg.agents);
	k->reg.agents = NULL;
	rb_idmap_release(&k->reg.names);
	for (size_t i = 0; i < k->reg.ncands; i++)
		rb_msg_free(k->reg.cands[i].hello);
	free(k->reg.cands);
	k->reg.cands = NULL;
	k->reg.ncands = 0;
}

static struct ragent *agent_by_len(struct coord *k, const char *name, size_t len)
{
	uint64_t h = rb_hash_bytes(RB_HASH_INIT, name, len);
	size_t cur = 0, i;

	while ((i = rb_idmap_next(&k->reg.names, h, &cur)) != SIZE_MAX) {
		struct ragent *a = &k->reg.agents[i];

		if (!strncmp(a->name, name, len) && !a->name[len])
			return a;
	}
	return NULL;
}

struct ragent *reg_agent(struct coord *k, const char *name)
{
	return agent_by_len(k, name, strlen(name));
}

bool reg_same_peer(const struct rb_peer *a, const struct rb_peer *b)
{
	return a->rid_len == b->rid_len && !memcmp(a->rid, b->rid, a->rid_len);
}

struct ragent *reg_by_peer(struct coord *k, const struct rb_peer *p)
{
	/* agents connect with their name as routing id: try that first */
	struct ragent *a = agent_by_len(k, (const char *)p->rid, p->rid_len);

	if (a && agent_seen(a) && a->peer.rid_len == p->rid_len &&
	    !memcmp(a->peer.rid, p->rid, p->rid_len))
		return a;
	for (size_t i = 0; i < k->c->nagents; i++) {
		a = &k->reg.agents[i];
		if (agent_seen(a) && a->peer.rid_len == p->rid_len &&
		    !memcmp(a->peer.rid, p->rid, p->rid_len))
			return a;
	}
	return NULL;
}

static int reg_drive_index(struct coord *k, const char *agent, const char *path)
{
	for (size_t i = 0; i < k->c->ndrives; i++)
		if (!strcmp(k->c->drives[i].agent, agent) && !strcmp(k->c->drives[i].path, path))
			return (int)i;
	return -1;
}

/* Whether path is a member of one of the agent's volumes. */
static bool volume_member(struct coord *k, const char *agent, const char *path)
{
	for (size_t i = 0; i < k->c->ndrives; i++) {
		const struct rb_drive_ref *d = &k->c->drives[i];

		for (size_t m = 0; m < d->nmembers; m++)
			if (!strcmp(d->members[m].path, path) && !strcmp(d->agent, agent))
				return true;
	}
	return false;
}

/*
 * Each agent's drives, once the campaign's drives are final (selectors resolved): an
 * index as long as the agent's own drives (a fleet has thousands of agents). Without
 * memory an agent keeps no index and reg_agent_drive searches the campaign's drives.
 */
void reg_index_drives(struct coord *k)
{
	size_t nd = k->c->ndrives;
	struct ragent **of = malloc((nd ? nd : 1) * sizeof(*of));

	for (size_t i = 0; i < k->c->nagents; i++) {
		free(k->reg.agents[i].didx);
		k->reg.agents[i].didx = NULL;
		k->reg.agents[i].ndidx = 0;
		k->reg.agents[i].dhint = 0;
	}
	if (!of)
		return;
	for (size_t d = 0; d < nd; d++) {
		of[d] = reg_agent(k, k->c->drives[d].agent);
		if (of[d])
			of[d]->ndidx++;
	}
	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->reg.agents[i];

		a->didx = malloc((a->ndidx ? a->ndidx : 1) * sizeof(size_t));
		a->ndidx = 0;
	}
	for (size_t d = 0; d < nd; d++)
		if (of[d] && of[d]->didx)
			of[d]->didx[of[d]->ndidx++] = d;
	free(of);
}

/* The index of agent a's drive path; samples come in drive order, so guess the next. */
int reg_agent_drive(struct coord *k, struct ragent *a, const char *path)
{
	if (!a->didx)
		return reg_drive_index(k, a->name, path);
	for (size_t j = 0; j < a->ndidx; j++) {
		size_t at = (a->dhint + j) % a->ndidx, d = a->didx[at];

		if (!strcmp(k->c->drives[d].path, path)) {
			a->dhint = at + 1 < a->ndidx ? at + 1 : 0;
			return (int)d;
		}
	}
	return -1;
}

/* An agent no target names: kept (its latest Hello) until the groups choose theirs. */
static void stash(struct coord *k, const struct rb_peer *peer, const struct rb_msg *m)
{
	struct rb_msg *copy = rb_msg_dup(m);
	size_t i;

	if (!copy)
		return;
	for (i = 0; i < k->reg.ncands; i++)
		if (!strcmp(k->reg.cands[i].hello->hello.name, m->hello.name))
			break;
	if (i == k->reg.ncands) {
		struct cand *n = realloc(k->reg.cands, (k->reg.ncands + 1) * sizeof(*n));

		if (!n) {
			rb_msg_free(copy);
			return;
		}
		k->reg.cands = n;
		k->reg.cands[k->reg.ncands++] = (struct cand){ .hello = NULL };
		rb_debug("agent '%s' connected; a candidate for the campaign's agent groups",
			 m->hello.name);
	}
	rb_msg_free(k->reg.cands[i].hello);
	k->reg.cands[i].hello = copy;
	k->reg.cands[i].peer = *peer;
}

static bool cand_matches(const struct rb_agent_group *g, const struct cand *x)
{
	const struct rb_msg_hello *h = &x->hello->hello;
	const char *keys[64], *values[64];
	size_t n = h->nlabels < 64 ? h->nlabels : 64;

	for (size_t i = 0; i < n; i++) {
		keys[i] = h->labels[i].key;
		values[i] = h->labels[i].value;
	}
	return rb_agent_group_matches(g, h->name, keys, values, n);
}

static int cand_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cand *)a)->hello->hello.name,
		      ((const struct cand *)b)->hello->hello.name);
}

/*
 * How many agents each group lacks; with choose, the groups take theirs (each the first
 * count matching by name, in target order) and they join the campaign.
 */
size_t reg_groups_short(struct coord *k, bool report, bool choose)
{
	struct rb_campaign *c = (struct rb_campaign *)k->c;
	size_t lacking = 0;

	if (k->reg.ncands)
		qsort(k->reg.cands, k->reg.ncands, sizeof(*k->reg.cands), cand_cmp);
	for (size_t i = 0; i < k->reg.ncands; i++)
		k->reg.cands[i].taken = false;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct rb_agent_group *G = &c->groups[g];
		unsigned found = 0;
		char names[512] = "";

		/* "all" and ">= N" take every match; N takes the first N by name */
		for (size_t i = 0; i < k->reg.ncands && (G->at_least || found < G->count); i++) {
			struct cand *x = &k->reg.cands[i];

			if (x->taken || !cand_matches(G, x))
				continue;
			x->taken = true;
			found++;
			if (strlen(names) + strlen(x->hello->hello.name) + 3 < sizeof(names))
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", names[0] ? ", " : "", x->hello->hello.name);
			if (choose && rb_campaign_add_agent(c, x->hello->hello.name, G))
				return SIZE_MAX;
		}
		if (found < G->count) {
			lacking += G->count - found;
			if (report) {
				char labels[256] = "";

				for (size_t l = 0; l < G->nlabels; l++)
					snprintf(labels + strlen(labels),
						 sizeof(labels) - strlen(labels), "%s%s",
						 l ? ", " : "", G->labels[l]);
				rb_err("%s:%u:%u: the campaign expects %s%u agent(s) named '%s'%s%s; %u "
				       "connected%s%s: missing agents",
				       c->file, G->line, G->column, G->at_least ? "at least " : "",
				       G->count, *G->name ? G->name : "*",
				       labels[0] ? " with labels " : "", labels, found,
				       names[0] ? ": " : "", names);
			}
		} else if (choose) {
			rb_info("agents named '%s': chose %s", *G->name ? G->name : "*", names);
		}
	}
	return lacking;
}

/* The groups' agents join: room in agents[], the name hash, their Hellos applied. */
int reg_resolve_groups(struct coord *k)
{
	size_t before = k->c->nagents;
	struct ragent *n;

	if (reg_groups_short(k, false, true) == SIZE_MAX)
		return RB_EXIT_FAILED;
	n = realloc(k->reg.agents, (k->c->nagents + 1) * sizeof(*n));
	if (!n)
		return RB_EXIT_FAILED;
	k->reg.agents = n;
	memset(&k->reg.agents[before], 0, (k->c->nagents + 1 - before) * sizeof(*n));
	k->reg.nreg = k->c->nagents;
	for (size_t i = 0; i < k->c->nagents; i++)
		k->reg.agents[i].name = k->c->agents[i];
	for (size_t i = before; i < k->c->nagents; i++)
		if (!(k->reg.agents[i].assigned = calloc(k->c->npoints + 1, sizeof(uint32_t))))
			return RB_EXIT_FAILED;
	if (hash_agents(k))
		return RB_EXIT_FAILED;
	k->reg.groups_resolved = true;
	for (size_t i = 0; i < k->reg.ncands; i++) {
		if (k->reg.cands[i].taken)
			reg_hello(k, &k->reg.cands[i].peer, k->reg.cands[i].hello);
	}
	return 0;
}

/* What agent a said of its target path (Hello, then as opened for a point). */
struct rb_identity *reg_target(struct ragent *a, const char *path)
{
	for (size_t t = 0; a && t < a->ntargets; t++)
		if (!strcmp(a->targets[t].path, path))
			return &a->targets[t];
	return NULL;
}

/* Identity as the agent opened it for a point (files are laid out on first use). */
void reg_target_update(struct ragent *a, const struct rb_identity *ti)
{
	struct rb_identity *t = ti ? reg_target(a, ti->path) : NULL;

	if (t)
		*t = *ti;
}

/*
 * An agent said Hello: it is registered (or, of no target by name, kept for the agent
 * groups) and welcomed. Returns what the loop must send it again.
 */
enum reg_hello_event reg_hello(struct coord *k, const struct rb_peer *peer, const struct rb_msg *m)
{
	const struct rb_msg_hello *h = &m->hello;
	struct ragent *a = reg_agent(k, h->name);
	struct rb_msg w;
	enum reg_hello_event ev = HELLO_NONE;

	if (!a) {
		if (k->c->ngroups && !k->reg.groups_resolved)
			stash(k, peer, m);
		else
			rb_debug("agent '%s' is not in this campaign; ignored", h->name);
		return HELLO_NONE;
	}
	if (!agent_seen(a))
		rb_info("agent '%s' connected from host %s with %zu target(s)", h->name,
			h->hostname, h->ntargets);
	else if (k->zap && !reg_same_peer(&a->peer, peer))
		/* the caller checked that its key is this agent's */
		rb_info("agent '%s' is on a new connection with its key: it replaces the previous "
			"one",
			a->name);
	a->peer = *peer;
	if (a->state == AGENT_UNSEEN)
		agent_enter(a, AGENT_CONNECTED);
	a->last_seen_ns = coord_now(k);
	if (a->epoch && h->epoch != a->epoch && agent_running(a) && k->res) {
		/* a new process: whatever point the old one ran is gone */
		a->reassign = true;
	}
	/* dropped, and idle now (agents say hello only when idle; a new process after a
	 * kill sends no PointDone of the point it was dropped in): it runs the next point */
	if (a->state == AGENT_DROPPED)
		a->rejoin = true;
	/*
	 * The same process saying hello again is idle (agents say hello only when idle) and
	 * has sent us everything it spooled: if it owes a preflight reply or should be in the
	 * current point, what we sent it was lost (a reconnect drops what was in flight).
	 */
	bool same = a->epoch && h->epoch == a->epoch && !strcmp(h->run, k->run) &&
		    h->spooled <= dlv_seq(a, h->epoch)->seq &&
		    coord_now(k) - a->asked_ns > 1500000000LL;

	a->epoch = h->epoch;
	copy(a->spool_run, sizeof(a->spool_run), h->run);
	a->spooled = h->spooled;
	if (same && k->phase == PHASE_PREFLIGHT && a->state == AGENT_CONNECTED) {
		rb_warn("agent '%s' never had the safety check: asking again", a->name);
		ev = HELLO_OWES_PREFLIGHT;
	} else if (same && k->phase == PHASE_POINT && agent_running(a) && a->assign_msg) {
		rb_warn("agent '%s' never had point %u: sending it again", a->name, k->cur_point);
		ev = HELLO_LACKS_POINT;
	}
	copy(a->host, sizeof(a->host), h->hostname);
	a->labels[0] = '\0';
	for (size_t i = 0; i < h->nlabels; i++) {
		size_t n = strlen(a->labels);

		snprintf(a->labels + n, sizeof(a->labels) - n, "%s%s=%s", i ? "," : "",
			 h->labels[i].key, h->labels[i].value);
	}
	copy(a->kernel, sizeof(a->kernel), h->kernel);
	copy(a->version, sizeof(a->version), h->rb_version);
	snprintf(a->proto, sizeof(a->proto), "%u.%u", m->major, m->minor);
	a->minor = m->minor;
	if (!a->registered_ns)
		a->registered_ns = coord_wall(k);
	free(a->targets);
	a->targets = calloc(h->ntargets + 1, sizeof(*a->targets));
	a->ntargets = a->targets ? h->ntargets : 0;
	for (size_t i = 0; i < a->ntargets; i++)
		a->targets[i] = h->targets[i];
	rb_msg_init(&w, RB_MSG_WELCOME);
	w.welcome.campaign = k->c->name;
	w.welcome.run = k->run;
	dlv_send(k, a, &w);
	dlv_ask_gaps(k, a);
	k->probe_scan_ns = 0; /* its first clock probe at the loop's next turn */
	return ev;
}

/*
 * A point reaching past the end of a block device its agent offered is refused now,
 * before any IO (the agent would refuse it only when the point starts, after the points
 * before it ran). Files are laid out to the point's size; volumes the agent judges.
 * One line per drive: the first point past its end, and how many more.
 */
static int check_sizes(struct coord *k, size_t di, const struct rb_identity *id)
{
	const struct rb_campaign *c = k->c;
	size_t bad = 0, first = 0;
	uint64_t want = 0;
	char a[32], b[32], more[48] = "";

	if (strcmp(id->kind, "block") || !id->size_bytes)
		return 0;
	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_point *p = &c->points[i];
		const struct rb_workload *wl = &p->wl;
		uint64_t end = wl->offset + (wl->size_pct ? 0 : wl->size);

		if (p->purge[0] || wl->rw == RB_RW_REPLAY || !rb_point_has_drive(c, p, di))
			continue;
		if (wl->offset < id->size_bytes && end <= id->size_bytes)
			continue;
		if (!bad++) {
			first = i;
			want = wl->offset >= id->size_bytes ? wl->offset : end;
		}
	}
	if (!bad)
		return 0;
	if (bad > 1)
		snprintf(more, sizeof(more), "; so do %zu more point(s)", bad - 1);
	rb_err("%s: point '%s' reaches %s into drive '%s' of agent '%s', which holds %s (%llu "
	       "bytes)%s: lower size or offset, or give size_pct",
	       c->file, c->points[first].name, rb_fmt_size_human(want, a, sizeof(a)),
	       c->drives[di].path, c->drives[di].agent,
	       rb_fmt_size_human(id->size_bytes, b, sizeof(b)), (unsigned long long)id->size_bytes,
	       more);
	return RB_EXIT_USAGE;
}

int reg_check_offered(struct coord *k)
{
	int rc = 0;
	bool curves = false, execs = false, fio_keys = false;

	for (size_t i = 0; i < k->c->npoints; i++) {
		const struct rb_workload *wl = &k->c->points[i].wl;

		curves |= k->c->points[i].curve_pct > 0 || k->c->points[i].purge[0];
		execs |= k->c->points[i].exec[0] != '\0';
		fio_keys |= wl->job_region != RB_REGION_SPLIT || wl->max_runtime_ns ||
			    wl->trim_method != RB_TRIM_AUTO || wl->rw == RB_RW_WRITEZEROES ||
			    wl->rw == RB_RW_RANDWRITEZEROES ||
			    wl->completion != RB_COMPLETION_AUTO ||
			    (!wl->direct && wl->invalidate) || wl->engine == RB_ENGINE_URING_CMD ||
			    wl->zns;
	}
	/* a 1.6 agent ignores job_region, max_runtime, trim_method, completion, zns and
	 * buffered IO's invalidate and knows no write-zeroes nor engine uring_cmd: it would
	 * move other bytes, wait otherwise, or read the page cache */
	for (size_t i = 0; fio_keys && i < k->c->nagents; i++)
		if (k->reg.agents[i].minor < 7) {
			rb_err("agent '%s' speaks protocol %s: this campaign's job_region, "
			       "max_runtime, trim_method, completion, writezeroes, zns, engine "
			       "uring_cmd or buffered IO's invalidate needs 1.7 or newer (an older "
			       "agent would move other bytes); upgrade the agent",
			       k->reg.agents[i].name, k->reg.agents[i].proto);
			rc = RB_EXIT_USAGE;
		}
	/* a 1.5 agent would ignore the command and run the point's default IO */
	for (size_t i = 0; execs && i < k->c->nagents; i++)
		if (k->reg.agents[i].minor < 6) {
			rb_err("agent '%s' speaks protocol %s: this campaign's exec phases need 1.6 "
			       "or newer; upgrade the agent",
			       k->reg.agents[i].name, k->reg.agents[i].proto);
			rc = RB_EXIT_USAGE;
		}
	/* an agent of 1.0 ignores per-drive rates and purges: it would run the wrong IO */
	for (size_t i = 0; curves && i < k->c->nagents; i++)
		if (k->reg.agents[i].minor < 1) {
			rb_err("agent '%s' speaks protocol %s: this campaign's curves or purges need "
			       "1.1 or newer; upgrade the agent",
			       k->reg.agents[i].name, k->reg.agents[i].proto);
			rc = RB_EXIT_USAGE;
		}

	for (size_t i = 0; i < k->c->ndrives; i++) {
		const struct rb_drive_ref *d = &k->c->drives[i];
		struct ragent *a = reg_agent(k, d->agent);

		if (rb_fs_spec_set(&d->fs) && a->minor < 6) {
			rb_err("agent '%s' speaks protocol %s: drive '%s' has a filesystem, which "
			       "needs 1.6 or newer (an older agent would run on the raw drive); "
			       "upgrade the agent",
			       a->name, a->proto, d->path);
			rc = RB_EXIT_USAGE;
		}
		if (d->nmembers && a->minor < 3) {
			rb_err("agent '%s' speaks protocol %s: volume '%s' needs 1.3 or newer; upgrade "
			       "the agent",
			       a->name, a->proto, d->path);
			rc = RB_EXIT_USAGE;
		}
		for (size_t m = 0; m < (d->nmembers ? d->nmembers : 1); m++) {
			const char *path = d->nmembers ? d->members[m].path : d->path;
			bool found = false;

			for (size_t t = 0; t < a->ntargets && !found; t++)
				if (!strcmp(a->targets[t].path, path)) {
					found = true;
					if (!d->nmembers && check_sizes(k, i, &a->targets[t]))
						rc = RB_EXIT_USAGE;
				}
			if (!found) {
				rb_err("%s: drive '%s'%s%s%s is not offered by agent '%s' (its --target "
				       "list)",
				       k->c->file, path, d->nmembers ? " (of volume '" : "",
				       d->nmembers ? d->path : "", d->nmembers ? "')" : "",
				       a->name);
				rc = RB_EXIT_USAGE;
			}
		}
	}
	return rc;
}

/*
 * Each selector's drives, from what its agent offered: every target matching it, which
 * must be exactly the expected count; a selected drive is pinned to the serial it was
 * chosen by. Returns 0 or RB_EXIT_USAGE naming what is missing.
 */
int reg_select_drives(struct coord *k, struct rb_campaign *c)
{
	int rc = 0;
	bool volumes = false;

	for (size_t d = 0; d < c->ndrives && !volumes; d++)
		volumes = c->drives[d].nmembers > 0;

	for (size_t s = 0; s < c->nselectors; s++) {
		const struct rb_selector *sel = &c->selectors[s];
		struct ragent *a = reg_agent(k, sel->agent);
		unsigned found = 0;
		char what[256];

		snprintf(what, sizeof(what), "any identity");
		if (sel->model[0] || sel->serial[0] || sel->firmware[0])
			what[0] = '\0';
		if (sel->model[0])
			snprintf(what, sizeof(what), "model ~ %s", sel->model);
		if (sel->serial[0])
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%sserial = %s",
				 what[0] ? ", " : "", sel->serial);
		if (sel->firmware[0])
			snprintf(what + strlen(what), sizeof(what) - strlen(what),
				 "%sfirmware ~ %s", what[0] ? ", " : "", sel->firmware);
		for (size_t t = 0; a && t < a->ntargets; t++) {
			const struct rb_identity *x = &a->targets[t];

			if ((sel->model[0] && !strstr(x->model, sel->model)) ||
			    (sel->serial[0] && strcmp(x->serial, sel->serial)) ||
			    (sel->firmware[0] && !strstr(x->firmware, sel->firmware)) ||
			    (volumes && volume_member(k, a->name, x->path)))
				continue; /* a volume's members are the volume's */
			found++;
			if ((sel->at_least || found <= sel->count) &&
			    reg_drive_index(k, a->name, x->path) < 0)
				rb_campaign_add_drive(c, a->name, x->path, x->serial);
		}
		if (sel->at_least ? found < sel->count : found != sel->count) {
			rb_err("%s:%u:%u: agent '%s' offers %u drive(s) with %s; the campaign expects "
			       "%s%u%s",
			       c->file, sel->line, sel->column, sel->agent, found, what,
			       sel->at_least ? "at least " : "", sel->count,
			       found < sel->count ? ": missing drives" : "");
			rc = RB_EXIT_USAGE;
		} else {
			rb_info("agent '%s': %u drive(s) with %s selected", sel->agent, found,
				what);
		}
	}
	return rc;
}
