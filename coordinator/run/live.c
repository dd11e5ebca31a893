// SPDX-License-Identifier: MIT
/*
 * The run's figures handed to `rackbench serve`'s metrics page (rb_coord_opts.live):
 * each drive's last sample interval (summed by ingest.c as samples come, a few additions
 * each), its labels, what the run knows of its verdict, and each agent's state. The hand-
 * over is at most once a second, so a fleet's 100k samples a second cost the page nothing.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "campaign.h"
#include "results.h"
#include "verdict.h"

#define LIVE_EVERY_NS 1000000000LL /* a hand-over a second at most, ... */
#define LIVE_WHOLE_NS 100000000LL  /* ... or one an interval, once every drive sent it */

/* How long a point's last figures stay after it: two intervals (a second at least). */
static int64_t grace_ns(const struct coord *k)
{
	uint64_t iv = k->cur_point < k->c->npoints ? k->c->points[k->cur_point].wl.interval_ns : 0;

	return iv * 2 > 1000000000ULL ? (int64_t)iv * 2 : 1000000000LL;
}

int live_init(struct coord *k)
{
	size_t n = k->c->ndrives + 1;

	if (!k->o->live)
		return 0;
	k->live.d = calloc(n, sizeof(*k->live.d));
	k->live.out = calloc(n, sizeof(*k->live.out));
	k->live.vid = calloc(n, sizeof(*k->live.vid));
	if (!k->live.d || !k->live.out || !k->live.vid) {
		live_release(k);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		k->live.d[i].temp_c = k->live.d[i].max_temp_c = NAN;
	k->live.dirty = true;
	return 0;
}

void live_release(struct coord *k)
{
	free(k->live.d);
	free(k->live.out);
	free(k->live.vid);
	free(k->live.agents);
	k->live = (struct live){ 0 };
}

/* What is known of a drive's verdict: failing by the rules a run can judge as it goes. */
static int failing(const struct coord *k, const struct ldrive *d)
{
	const struct rb_verdict_rules *r = &k->c->verdict;

	if (!rb_verdict_rules_any(r) && !k->refusal.skipped)
		return -1;
	return d->errors || d->mismatches ||
	       (!isnan(r->max_temp_c) && d->max_temp_c > r->max_temp_c) ||
	       (r->critical_warning == 1 && d->warnings);
}

/*
 * Drive i's labels: its agent's host, its identity as the agent said (a volume's joined),
 * copied: the registry's entry is updated in place when a result comes, and a series
 * whose labels change at a point's end is a second series in Prometheus.
 */
static void labels(struct coord *k, size_t i, struct rb_live_drive *o)
{
	const struct rb_drive_ref *dr = &k->c->drives[i];
	struct ragent *a = reg_agent(k, dr->agent);
	const struct rb_identity *id = NULL;

	o->agent = dr->agent;
	o->path = dr->path;
	o->alias = dr->alias ? dr->alias : "";
	o->host = a ? a->host : "";
	o->labels = a ? a->labels : "";
	if (dr->nmembers) {
		struct rb_row_drive row;

		memset(&row, 0, sizeof(row));
		ing_volume_row(k, i, &row);
		k->live.vid[i] = row.id;
		id = &k->live.vid[i];
	} else if ((id = reg_target(a, dr->path))) {
		k->live.vid[i] = *id;
		id = &k->live.vid[i];
	}
	o->serial = id ? id->serial : "";
	o->model = id ? id->model : "";
	o->firmware = id ? id->firmware : "";
}

/*
 * Whether a drive does IO now: its result of the point has not come, and it sent an
 * interval within the last two (a second at least). A finished or idle drive reads 0,
 * not its last interval's figures.
 */
static bool running(const struct coord *k, const struct ldrive *d, int64_t now)
{
	return !d->done && now - d->seen_ns <= grace_ns(k);
}

static void drives(struct coord *k, int64_t now)
{
	bool shown = k->phase == PHASE_POINT || now - k->live.left_point < grace_ns(k);
	/* labels once a point: the same series through it, and its grace after */
	bool relabel = k->live.labelled != k->cur_point + 1;

	k->live.labelled = k->cur_point + 1;
	for (size_t i = 0; k->live.d && i < k->c->ndrives; i++) {
		const struct ldrive *d = &k->live.d[i];
		struct rb_live_drive *o = &k->live.out[i];
		/* each per-second figure over its interval's own length */
		double s = (double)d->len_ns / 1e9;
		bool on = running(k, d, now) && s > 0;
		uint64_t ios = on ? d->ios : 0;

		if (relabel)
			labels(k, i, o);
		o->measured = d->have && shown;
		o->running = o->measured && on;
		o->interval = d->interval;
		o->iops = o->measured && on ? (double)ios / s : 0;
		o->bytes_per_s = o->measured && on ? (double)d->bytes / s : 0;
		o->lat_mean_s = ios ? (double)d->lat_sum_ns / (double)ios / 1e9 : 0;
		o->lat_p99_s = on ? (double)d->p99_ns / 1e9 : 0;
		o->temp_c = d->temp_c;
		o->io_errors = d->errors + d->mismatches;
		o->failing = failing(k, d);
	}
}

/* The campaign's agents: connected unless lost or dropped (or never seen). */
static int agents(struct coord *k)
{
	size_t n = k->c->nagents;

	if (n > k->live.agents_cap) {
		struct rb_live_agent *a = realloc(k->live.agents, n * sizeof(*a));

		if (!a)
			return -ENOMEM;
		k->live.agents = a;
		k->live.agents_cap = n;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ragent *a = &k->reg.agents[i];
		bool lost = a->state == AGENT_LOST || a->state == AGENT_DROPPED;

		k->live.agents[i] = (struct rb_live_agent){ .name = a->name,
							    .host = a->host,
							    .connected = agent_seen(a) && !lost,
							    .lost = lost };
	}
	return 0;
}

void live_publish(struct coord *k, bool force)
{
	const struct rb_coord_opts *o = k->o;
	struct rb_coord_live l = { 0 };
	int64_t now;

	if (!o->live || !k->reg.agents)
		return;
	if (o->state && o->state->live_due) {
		o->state->live_due = false;
		force = k->live.dirty = true;
	}
	now = coord_now(k);
	/* a drive that went idle sends nothing to say so: look again every second */
	if (k->phase == PHASE_POINT && now - k->live.at >= LIVE_EVERY_NS)
		k->live.dirty = true;
	if (!k->live.dirty && !k->live.grace)
		return;
	if (k->live.grace && k->phase != PHASE_POINT && now - k->live.left_point >= grace_ns(k)) {
		k->live.grace = false; /* the point's last figures go */
		force = k->live.dirty = true;
	}
	if (!k->live.dirty)
		return;
	if (!force && now - k->live.at < (k->live.due ? LIVE_WHOLE_NS : LIVE_EVERY_NS))
		return;
	if (agents(k))
		return;
	if (k->live.d && k->cur_point < k->c->npoints)
		drives(k, now);
	l.drives = k->live.d ? k->live.out : NULL;
	l.ndrives = k->live.d ? k->c->ndrives : 0;
	l.agents = k->live.agents;
	l.nagents = k->c->nagents;
	l.samples = k->live.samples;
	o->live(o->hook_arg, &l);
	k->live.dirty = k->live.due = false;
	k->live.at = now;
}
