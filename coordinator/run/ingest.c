// SPDX-License-Identifier: MIT
/*
 * Messages applied to the run: samples become rows of the results file and the live view,
 * the agents' pre-flight answers and PointDones their state; a drive's result and health
 * go to ingest_result.c. The run's agents, points and drives rows are written here.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "campaign.h"
#include "log.h"
#include "options.h"
#include "progress.h"
#include "units.h"
#include "wire.h"

/*
 * Whether agent a was given (point, attempt): live, the current point and an attempt sent
 * to it; replaying the journal, any point of the plan (the journal holds what was given).
 */
bool ing_assigned(struct coord *k, const struct ragent *a, uint32_t point, uint32_t attempt)
{
	if (point >= k->c->npoints)
		return false;
	if (k->jr.apply == APPLY_REPLAY)
		return true;
	return point == k->cur_point && a->assigned && attempt < a->assigned[point];
}

static void live_sample(struct coord *k, int di, const struct rb_msg_sample *s, uint64_t p99_ns)
{
	struct ldrive *d = &k->live.d[di];

	d->errors += s->errors;
	k->live.samples++;
	k->live.dirty = true;
	if (d->have &&
	    (s->attempt < d->attempt || (s->attempt == d->attempt && s->interval < d->interval)))
		return;
	d->seen_ns = coord_now(k);
	if (!d->have || s->attempt != d->attempt || s->interval != d->interval) {
		uint64_t nominal = k->c->points[k->cur_point].wl.interval_ns;
		/* an interval's own length, from the one before's end: a point's last one
		 * ends at its last IO, and its IOs over a whole interval would read low */
		uint64_t len =
			d->have && s->attempt == d->attempt && s->interval == d->interval + 1 &&
					s->t_ns > d->t_ns && (uint64_t)(s->t_ns - d->t_ns) < nominal
				? (uint64_t)(s->t_ns - d->t_ns)
				: nominal;

		/* the interval is whole once every drive of the point sent it: hand it on */
		if (s->interval > k->live.newest || !k->live.at_newest) {
			k->live.newest = s->interval;
			k->live.at_newest = 0;
		}
		if (s->interval == k->live.newest && ++k->live.at_newest >= k->point_drives)
			k->live.due = true;
		*d = (struct ldrive){ .have = true,
				      .attempt = s->attempt,
				      .interval = s->interval,
				      .t_ns = s->t_ns,
				      .len_ns = len,
				      .seen_ns = d->seen_ns,
				      .errors = d->errors,
				      .mismatches = d->mismatches,
				      .temp_c = d->temp_c,
				      .max_temp_c = d->max_temp_c,
				      .warnings = d->warnings };
	}
	d->ios += s->ios;
	d->bytes += s->bytes;
	d->lat_sum_ns += s->lat_sum_ns;
	if (p99_ns > d->p99_ns)
		d->p99_ns = p99_ns;
	/* its last interval: it does no IO from here on (an interval of several directions
	 * says so in each) */
	d->done |= s->last;
}

/*
 * The intervals of the current point stored so far, per drive and direction: sorted runs
 * [lo, hi] of (attempt, interval). Samples come in order, so a drive's direction holds one
 * run that its next interval extends; a gap (a message still in a spool) splits it until
 * it is filled. Memory is a few runs per drive however long the point, where a set of
 * every key grew by one per sample (2 G keys for a day of 24,000 drives at 1 s).
 */
static bool seen_take(struct seenset *set, uint32_t attempt, uint32_t interval)
{
	struct seen *v = set->v;
	size_t lo = 0, hi = set->n;

	/* the common case: the next interval of the newest run */
	if (hi && v[hi - 1].attempt == attempt && v[hi - 1].hi + 1 == interval && interval != 0) {
		v[hi - 1].hi = interval;
		return true;
	}
	/* the first run after (attempt, interval) */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid].attempt < attempt ||
		    (v[mid].attempt == attempt && v[mid].lo <= interval))
			lo = mid + 1;
		else
			hi = mid;
	}
	struct seen *prev = lo ? &v[lo - 1] : NULL;
	struct seen *next = lo < set->n ? &v[lo] : NULL;

	if (prev && prev->attempt == attempt && interval <= prev->hi)
		return false; /* stored already */
	bool join_prev = prev && prev->attempt == attempt && prev->hi + 1 == interval;
	bool join_next = next && next->attempt == attempt && interval + 1 == next->lo;

	if (join_prev && join_next) {
		prev->hi = next->hi;
		memmove(next, next + 1, (set->n - lo - 1) * sizeof(*v));
		set->n--;
		return true;
	}
	if (join_prev) {
		prev->hi = interval;
		return true;
	}
	if (join_next) {
		next->lo = interval;
		return true;
	}
	if (set->n == set->cap) {
		uint32_t cap = set->cap ? set->cap * 2 : 2;
		struct seen *t = realloc(set->v, cap * sizeof(*t));

		if (!t)
			return true; /* no memory for the check: stored, as before it */
		set->v = t;
		set->cap = cap;
		v = t;
	}
	memmove(&v[lo + 1], &v[lo], (set->n - lo) * sizeof(*v));
	v[lo] = (struct seen){ .attempt = attempt, .lo = interval, .hi = interval };
	set->n++;
	return true;
}

/* Takes a sample key of the current point: false when it was stored already. */
static bool skey_take(struct coord *k, uint32_t di, uint32_t attempt, uint32_t interval,
		      uint32_t dir)
{
	size_t at = (size_t)di * 3 + dir;

	if (di >= k->c->ndrives || dir > 2)
		return false;
	/* drives chosen when agents connect join the campaign's list: the table follows */
	if (at >= k->nseen) {
		size_t n = k->c->ndrives * 3;
		struct seenset *t = realloc(k->seen, n * sizeof(*t));

		if (!t)
			return true; /* no memory for the check: stored, as before it */
		memset(t + k->nseen, 0, (n - k->nseen) * sizeof(*t));
		k->seen = t;
		k->nseen = n;
	}
	return seen_take(&k->seen[at], attempt, interval);
}

/* Forgets the stored keys (a point begins, or the run ends). */
void ing_seen_release(struct coord *k)
{
	for (size_t i = 0; i < k->nseen; i++)
		free(k->seen[i].v);
	free(k->seen);
	k->seen = NULL;
	k->nseen = 0;
}

/* Returns whether the samples made every drive of a rolling point steady. */
static bool on_samples(struct coord *k, struct ragent *a, const struct rb_msg_samples *b)
{
	bool steady = false;

	for (size_t i = 0; i < b->n; i++) {
		const struct rb_msg_sample *s = &b->v[i];
		int di = reg_agent_drive(k, a, s->drive);
		size_t nh = s->hist.n;
		struct rb_row_sample row;

		if (di < 0 || s->direction > 2)
			continue;
		if (!ing_assigned(k, a, s->point, s->attempt)) {
			rb_debug(
				"agent '%s' sent a sample of point %u attempt %u, which it was not "
				"given; dropped",
				a->name, s->point, s->attempt);
			continue;
		}
		/* once per key: the same interval again under another epoch is not stored twice
		 * (a straggler of an earlier point, replayed, is taken as the journal has it) */
		if (s->point == k->cur_point &&
		    !skey_take(k, (uint32_t)di, s->attempt, s->interval, s->direction))
			continue;
		/* percentiles straight from the sparse delta: no 37 KiB histogram per sample */
		if (!rb_hist_sparse_valid(s->hist.idx, nh)) {
			rb_warn("agent '%s' sent a histogram with buckets out of range or order; "
				"sample dropped",
				a->name);
			continue;
		}
		memset(&row, 0, sizeof(row));
		row.drive = (uint32_t)di;
		row.point = s->point;
		row.attempt = s->attempt;
		row.interval = s->interval;
		row.direction = (uint8_t)s->direction;
		row.t_ns = s->t_ns;
		row.ios = s->ios;
		row.bytes = s->bytes;
		row.errors = s->errors;
		row.lat_mean_ns = s->ios ? (double)s->lat_sum_ns / (double)s->ios : 0;
		row.lat_p50_ns = rb_hist_sparse_percentile(s->hist.idx, s->hist.cnt, nh, 50);
		row.lat_p99_ns = rb_hist_sparse_percentile(s->hist.idx, s->hist.cnt, nh, 99);
		rb_results_sample_hist(k->res, &row, s->hist.idx, s->hist.cnt, nh);
		rb_progress_sample(k->prog, (size_t)di, s->interval, s->direction, s->t_ns, s->ios,
				   s->bytes, row.lat_p99_ns);
		/* the drive's measurement ended with this interval (agents of 1.7 on) */
		if (s->last && s->point == k->cur_point)
			rb_progress_finished(k->prog, (size_t)di);
		if (k->live.d && k->jr.apply == APPLY_LIVE)
			live_sample(k, di, s, row.lat_p99_ns);
		steady |= srun_roll_sample(k, di, s);
	}
	return steady;
}

static enum ing_event apply_one(struct coord *k, struct ragent *a, const struct rb_msg *e,
				int64_t t3)
{
	switch (e->kind) {
	case RB_MSG_PREFLIGHT_REPLY:
		for (size_t i = 0; i < e->preflight_reply.nrefusals; i++) {
			const struct rb_refusal *d = &e->preflight_reply.refusals[i];

			int di = reg_agent_drive(k, a, d->subject);

			/* a refusal of the agent itself (its configuration) names no drive */
			if (di < 0 && !strcmp(d->subject, a->name))
				fprintf(stderr, "  agent '%s': %s\n", a->name, d->message);
			else
				fprintf(stderr, "  agent '%s' drive '%s': %s\n", a->name,
					d->subject, d->message);
			k->refusal.refusals++;

			if (di >= 0 && k->refusal.refused) {
				char *w = k->refusal.refusal_why[di];
				size_t n = strlen(w);

				k->refusal.refused[di] = true;
				/* a pre-flight asked again answers the same */
				if (!strstr(w, d->message))
					snprintf(w + n, sizeof(k->refusal.refusal_why[di]) - n,
						 "%s%s", n ? "; " : "", d->message);
			} else {
				/* of the agent itself: no drive to skip */
				k->refusal.unmapped_refusals++;
			}
		}
		if (a->state == AGENT_CONNECTED)
			agent_enter(a, AGENT_CHECKED);
		break;
	case RB_MSG_SAMPLES:
		if (k->res && on_samples(k, a, &e->samples))
			return ING_STEADY;
		break;
	case RB_MSG_HEALTH:
		if (k->res)
			ing_health(k, a, &e->health);
		break;
	case RB_MSG_RESULT:
		if (k->res)
			ing_result(k, a, &e->result);
		break;
	case RB_MSG_EVIDENCE_DATA:
		/* also after the file is closed: a capture the verdicts ordered */
		if (k->evidence_dir[0])
			ing_evidence_data(k, a, &e->evidence_data);
		break;
	case RB_MSG_CAPTURED:
		ing_captured(k, a, &e->captured);
		break;
	case RB_MSG_POINT_DONE:
		/* dropped, and now idle: it runs the next point again */
		if (a->state == AGENT_DROPPED && e->point_done.point == a->drop_point &&
		    e->point_done.attempt == a->drop_attempt)
			a->rejoin = true;
		/* only what runs finishes: a PointDone sent again from a spool after a restart
		 * (resume) leaves an agent that still owes its pre-flight answer owing it */
		if (e->point_done.point == k->cur_point && e->point_done.attempt == a->attempt &&
		    agent_running(a))
			agent_enter(a, AGENT_DONE);
		break;
	case RB_MSG_HEARTBEAT:
		break;
	case RB_MSG_TIME_REPLY:
		rb_clock_add(&a->clk, e->time.t0, e->time.t1, e->time.t2, t3);
		break;
	case RB_MSG_ERROR:
		rb_err("agent '%s': %s", a->name, e->error.message);
		break;
	default:
		rb_debug("ignoring %s from '%s'", rb_msg_name(e), a->name);
		break;
	}
	return ING_NONE;
}

/* Applies one message of agent a (received at t3, our clock), as it came or replayed. */
enum ing_event ing_apply(struct coord *k, struct ragent *a, const struct rb_msg *e, int64_t t3,
			 enum coord_apply mode)
{
	enum ing_event ev;

	k->jr.apply = mode; /* the one writer: read by what applying calls */
	ev = apply_one(k, a, e, t3);
	k->jr.apply = APPLY_LIVE;
	return ev;
}

void ing_agent_rows(struct coord *k)
{
	const struct rb_campaign *c = k->c;

	for (size_t i = 0; i < c->nagents; i++) {
		struct ragent *a = &k->reg.agents[i];
		struct rb_row_agent row;

		memset(&row, 0, sizeof(row));
		copy(row.name, sizeof(row.name), a->name);
		copy(row.host, sizeof(row.host), a->host);
		copy(row.kernel, sizeof(row.kernel), a->kernel);
		copy(row.rb_version, sizeof(row.rb_version), a->version);
		copy(row.protocol, sizeof(row.protocol), a->proto);
		row.registered_ns = a->registered_ns;
		row.clock_offset_ns = rb_clock_offset(&a->clk, &row.clock_delay_ns);
		rb_results_agent(k->res, &row);
	}
	rb_results_flush(k->res);
}

/* A point's row goes in when the point starts: rounds a steady state skips never run. */
/* An exec point's settings: "exec=COMMAND KEY=VALUE ... interval=..." */
static void exec_settings(const struct rb_point *p, char *buf, size_t len)
{
	char iv[32];
	size_t n = (size_t)snprintf(buf, len, "exec=%s", p->exec);

	for (const char *s = p->exec_params; *s && n + 1 < len; s++)
		buf[n++] = *s == '\n' ? ' ' : *s;
	if (n && buf[n - 1] == ' ')
		n--;
	snprintf(buf + n, len - n, " interval=%s",
		 rb_fmt_duration(p->wl.interval_ns, iv, sizeof(iv)));
}

void ing_point_row(struct coord *k, const struct rb_point *p)
{
	const struct rb_campaign *c = k->c;
	struct rb_row_point row;

	memset(&row, 0, sizeof(row));
	row.point = p->index;
	copy(row.phase, sizeof(row.phase), c->phases[p->phase].name);
	copy(row.name, sizeof(row.name), p->name);
	copy(row.rw, sizeof(row.rw),
	     p->purge[0]  ? "purge"
	     : p->exec[0] ? "exec"
			  : rb_rw_name(p->wl.rw));
	/* a split has no one block size: 0, and settings says the split (not bs's default) */
	row.bs_bytes = p->wl.bssplit[0] ? 0 : p->wl.bs;
	row.iodepth = p->wl.iodepth;
	row.numjobs = p->wl.numjobs;
	row.rwmixread_pct = p->wl.rwmixread;
	row.runtime_ns = p->wl.runtime_ns;
	row.ramp_ns = p->wl.ramp_ns;
	row.rate_iops = p->wl.rate_iops;
	row.direct = (uint8_t)p->wl.direct;
	copy(row.engine, sizeof(row.engine), rb_engine_name(p->wl.engine));
	rb_workload_dump(&p->wl, row.settings, sizeof(row.settings));
	if (p->purge[0] || p->exec[0]) {
		/* no IO of rackbench's: the point is the purge, or the agents' command */
		if (p->purge[0])
			snprintf(row.settings, sizeof(row.settings), "purge=%s ses=%u", p->purge,
				 p->purge_ses);
		else
			exec_settings(p, row.settings, sizeof(row.settings));
		row.engine[0] = '\0';
		row.bs_bytes = 0;
		row.iodepth = row.numjobs = 0;
		row.runtime_ns = row.ramp_ns = 0;
	}
	row.round = p->round;
	row.track = p->track;
	row.curve_pct = p->curve_pct;
	rb_results_point(k->res, &row);
}

static const struct rb_identity *target_of(struct coord *k, size_t di)
{
	return reg_target(reg_agent(k, k->c->drives[di].agent), k->c->drives[di].path);
}

/* A target's identity as its agent said it, under the campaign's name for it (path). */
static void row_identity(struct rb_identity *row, const char *path, const struct rb_identity *ti)
{
	if (ti)
		*row = *ti;
	row->writable = false;
	copy(row->path, sizeof(row->path), path);
}

/* Appends s to a '+'-joined list, once. */
static void join(char *dst, size_t len, const char *s)
{
	size_t n = strlen(dst), l = strlen(s);

	for (const char *p = dst; *s && (p = strstr(p, s)); p += l)
		if ((p == dst || p[-1] == '+') && (p[l] == '+' || !p[l]))
			return;
	if (*s)
		snprintf(dst + n, len - n, "%s%s", n ? "+" : "", s);
}

/*
 * A volume's row in the drives table: its kind, what its members have in common (each
 * member's own identity is in the members table), and its size as the agent opened it
 * (else whole units of the smallest member, times the members).
 */
void ing_volume_row(struct coord *k, size_t i, struct rb_row_drive *row)
{
	const struct rb_drive_ref *d = &k->c->drives[i];
	struct ragent *a = reg_agent(k, d->agent);
	uint64_t min = UINT64_MAX;

	copy(row->id.kind, sizeof(row->id.kind), "volume");
	row->stripe_bytes = d->stripe;
	row->members = (uint32_t)d->nmembers;
	for (size_t m = 0; m < d->nmembers; m++) {
		const struct rb_identity *t = reg_target(a, d->members[m].path);

		if (!t)
			continue;
		join(row->id.model, sizeof(row->id.model), t->model);
		join(row->id.serial, sizeof(row->id.serial), t->serial);
		join(row->id.firmware, sizeof(row->id.firmware), t->firmware);
		if (t->size_bytes < min)
			min = t->size_bytes;
		if (t->logical_block_size > row->id.logical_block_size)
			row->id.logical_block_size = t->logical_block_size;
	}
	if (k->vinfo[i].size_bytes)
		row->id.size_bytes = k->vinfo[i].size_bytes;
	else if (min != UINT64_MAX && d->stripe)
		row->id.size_bytes = min / d->stripe * d->stripe * d->nmembers;
}

/*
 * Drive rows go in once the drives' identity is known from a point's results (file
 * targets are laid out on first use), or at the end if no point ran.
 */
void ing_drive_rows(struct coord *k)
{
	const struct rb_campaign *c = k->c;

	if (k->drives_written)
		return;
	k->drives_written = true;
	for (size_t i = 0; i < c->ndrives; i++) {
		const struct rb_drive_ref *d = &c->drives[i];
		struct ragent *a = reg_agent(k, d->agent);
		struct rb_row_drive row;

		memset(&row, 0, sizeof(row));
		row.drive = (uint32_t)i;
		copy(row.agent, sizeof(row.agent), a->name);
		copy(row.host, sizeof(row.host), a->host);
		copy(row.alias, sizeof(row.alias), d->alias ? d->alias : "");
		copy(row.labels, sizeof(row.labels), a->labels);
		copy(row.filesystem, sizeof(row.filesystem), d->fs.type);
		copy(row.mkfs_options, sizeof(row.mkfs_options), d->fs.mkfs_options);
		copy(row.mount_options, sizeof(row.mount_options), d->fs.mount_options);
		if (d->nmembers) {
			row_identity(&row.id, d->path, NULL);
			ing_volume_row(k, i, &row);
		} else {
			row_identity(&row.id, d->path, target_of(k, i));
		}
		rb_results_drive(k->res, &row);
		for (size_t m = 0; m < d->nmembers; m++) {
			struct rb_row_member mr;

			memset(&mr, 0, sizeof(mr));
			mr.drive = (uint32_t)i;
			mr.member = (uint32_t)m;
			row_identity(&mr.id, d->members[m].path, reg_target(a, d->members[m].path));
			rb_results_member(k->res, &mr);
		}
	}
	rb_results_flush(k->res);
}

void ing_print_summary(struct coord *k, FILE *out)
{
	const struct rb_campaign *c = k->c;

	fprintf(out, "\n%-40s %-28s %12s %10s %12s %12s\n", "point", "drive", "IOPS", "MB/s",
		"mean lat us", "p99 lat us");
	for (size_t p = 0; p < c->npoints; p++) {
		for (size_t d = 0; d < c->ndrives; d++) {
			const struct summary *s = &k->sum[p * c->ndrives + d];
			char drive[300];

			if (!rb_point_has_drive(c, &c->points[p], d))
				continue;
			snprintf(drive, sizeof(drive), "%s:%s", c->drives[d].agent,
				 c->drives[d].path);
			if (strlen(drive) > 28)
				memmove(drive + 1, drive + strlen(drive) - 27, 28), drive[0] = '~';
			if (!s->have) {
				fprintf(out, "%-40.40s %-28s %12s\n", c->points[p].name, drive,
					"(no result)");
				continue;
			}
			if (s->status != RB_STATUS_OK) {
				fprintf(out, "%-40.40s %-28s %12s\n", c->points[p].name, drive,
					rb_status_name(s->status));
				continue;
			}
			fprintf(out, "%-40.40s %-28s %12.0f %10.1f %12.1f %12.1f\n",
				c->points[p].name, drive, s->iops, s->mbps, s->mean_ns / 1e3,
				(double)s->p99_ns / 1e3);
		}
	}
}

/* Per-point state, before the point's messages come (live or from the journal). */
void ing_point_begin(struct coord *k, const struct rb_point *p)
{
	k->cur_point = p->index;
	ing_seen_release(k);
	for (size_t i = 0; i < k->c->ndrives; i++)
		k->health[i] = (struct hstate){ .max_temp_c = NAN };
	for (size_t i = 0; k->live.d && i < k->c->ndrives; i++)
		k->live.d[i].have = k->live.d[i].done = false; /* the figures are the point's */
	k->live.newest = 0;
	k->live.at_newest = 0;
	/* a rolling steady state judges this point's intervals as they come */
	k->steady.roll_stopped = false;
	k->steady.roll_steady = 0;
	k->point_drives = 0;
	for (size_t i = 0; i < k->c->ndrives; i++)
		k->point_drives += rb_point_has_drive(k->c, p, i);
	srun_roll_free(k);
	if (k->c->phases[p->phase].steady_rolling)
		k->steady.roll = calloc(k->c->ndrives + 1, sizeof(*k->steady.roll));
}
