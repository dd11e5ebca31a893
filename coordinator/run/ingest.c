// SPDX-License-Identifier: MIT
/*
 * Messages applied to the run: samples, health and results become rows of the results
 * file and the summary; the agents' pre-flight answers and PointDones their state.
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

static void dir_row(struct rb_row_dir *d, const struct rb_dir_result *dr, uint64_t elapsed_ns,
		    struct rb_hist *h)
{
	double secs = (double)elapsed_ns / 1e9;

	memset(d, 0, sizeof(*d));
	if (!dr)
		return;
	rb_hist_clear(h);
	rb_hist_add_sparse(h, dr->hist.idx, dr->hist.cnt, dr->hist.n);
	d->ios = dr->ios;
	d->bytes = dr->bytes;
	d->errors = dr->errors;
	d->iops = secs > 0 ? (double)dr->ios / secs : 0;
	d->bw_bytes_per_s = secs > 0 ? (double)dr->bytes / secs : 0;
	d->lat_mean_ns = dr->ios ? (double)dr->lat_sum_ns / (double)dr->ios : 0;
	d->lat_min_ns = dr->lat_min_ns;
	d->lat_max_ns = dr->lat_max_ns;
	d->lat_p50_ns = rb_hist_percentile(h, 50);
	d->lat_p90_ns = rb_hist_percentile(h, 90);
	d->lat_p99_ns = rb_hist_percentile(h, 99);
	d->lat_p99_9_ns = rb_hist_percentile(h, 99.9);
}

/* A curve point's rate for one drive: the percentage of its own measured maximum. */
uint64_t ing_curve_rate(struct coord *k, const struct rb_point *p, int di)
{
	const struct summary *mx;
	double r;

	if (!(p->curve_pct > 0))
		return p->wl.rate_iops;
	mx = di < 0 ? NULL : &k->sum[(size_t)p->curve_base * k->c->ndrives + (size_t)di];
	r = mx && mx->have ? mx->iops * p->curve_pct / 100.0 : 0;
	/* a drive without a maximum (lost, failed) gets 1 IOPS, never unthrottled */
	return r >= 1 ? (uint64_t)(r + 0.5) : 1;
}

/*
 * A drive that ran with IO errors or mismatches did not run ok: its row says error and
 * what, whatever its agent said (the run's exit code is the errors', 6, not a partial
 * run's). Returns whether it did.
 */
static bool data_error_status(struct rb_row_result *row, enum rb_status *st)
{
	uint64_t errs = row->read.errors + row->write.errors + row->trim.errors;

	if (*st != RB_STATUS_OK || !(errs || row->verify_mismatches))
		return false;
	*st = RB_STATUS_ERROR;
	snprintf(row->message, sizeof(row->message),
		 "%" PRIu64 " IO error(s), %" PRIu64
		 " verification mismatch(es): the io_errors table lists where",
		 errs, row->verify_mismatches);
	return true;
}

/* What a result row takes from its message as it came. */
/* A drive's start skew at the fleet's instant (rackbench fleet run), for the service's status. */
static void fleet_skew(struct coord *k, uint32_t point, int64_t skew)
{
	struct rb_coord_state *st = k->o->state;

	if (!st || k->fleet_point != (int64_t)point + 1)
		return;
	if (!st->skew_n || skew < st->skew_lo_ns)
		st->skew_lo_ns = skew;
	if (!st->skew_n || skew > st->skew_hi_ns)
		st->skew_hi_ns = skew;
	st->skew_n++;
}

static void row_copy(struct rb_row_result *row, const struct rb_msg_result *dr)
{
	copy(row->uring_features, sizeof(row->uring_features), dr->uring_features);
	copy(row->trim_method, sizeof(row->trim_method), dr->trim_method);
	row->fdp_host_bytes = dr->fdp ? dr->fdp_host_bytes : NAN;
	row->fdp_media_bytes = dr->fdp ? dr->fdp_media_bytes : NAN;
	row->waf =
		dr->fdp && dr->fdp_host_bytes > 0 ? dr->fdp_media_bytes / dr->fdp_host_bytes : NAN;
	row->start_ns = dr->start_ns;
	row->end_ns = dr->end_ns;
	row->elapsed_ns = dr->elapsed_ns;
	row->cpu_usr_pct = dr->cpu_usr_pct;
	row->cpu_sys_pct = dr->cpu_sys_pct;
	row->verify_checked = dr->verify_checked;
	row->verify_mismatches = dr->verify_mismatches;
	row->history_since_ns = dr->history_since_ns;
	row->purge_ns = dr->purge_ns;
	copy(row->purge_method, sizeof(row->purge_method), dr->purge_method);
	row->written_since_purge_bytes = dr->written_since_purge;
	row->fill_passes_since_purge = dr->fill_passes_since_purge;
	row->replay_ios = dr->replay_ios;
	row->replay_complete = dr->replay_complete;
	row->replay_timed = dr->replay_timed;
	row->replay_lag_p50_ns = dr->replay_lag_p50_ns;
	row->replay_lag_p99_ns = dr->replay_lag_p99_ns;
	row->replay_lag_max_ns = dr->replay_lag_max_ns;
}

/*
 * The numbers a snapshot does not have are NaN in its row, unknown rather than zero: SMART's
 * without an NVMe answer, the thermal counters from an agent before 1.4 (thermal false),
 * the link's without a link, AER totals the kernel does not keep (sent negative).
 */
static void health_unknown(struct rb_health_snap *h, bool thermal)
{
	bool smart = h->nvme, pcie = h->pcie;

#define MASK_ALWAYS(f)
#define MASK_SMART(f) h->f = smart ? h->f : NAN;
#define MASK_THERMAL(f) h->f = thermal ? h->f : NAN;
#define MASK_PCIE(f) h->f = pcie ? h->f : NAN;
#define MASK_AER(f) h->f = pcie && h->f >= 0 ? h->f : NAN;
#define MASK(col, type, name, known, agg, unit) MASK_##known(name)
	RB_HEALTH_FIELDS(MASK)
#undef MASK
}

/* The progress line adds up the rows: each drive's, all directions. */
static void progress_result(struct coord *k, size_t di, const struct rb_row_result *row,
			    enum rb_status st)
{
	rb_progress_result(k->prog, di, row->read.iops + row->write.iops + row->trim.iops,
			   row->read.bw_bytes_per_s + row->write.bw_bytes_per_s +
				   row->trim.bw_bytes_per_s,
			   st == RB_STATUS_OK && !(row->read.errors + row->write.errors +
						   row->trim.errors + row->verify_mismatches));
}

/*
 * Whether agent a was given (point, attempt): live, the current point and an attempt sent
 * to it; replaying the journal, any point of the plan (the journal holds what was given).
 */
static bool assigned(struct coord *k, const struct ragent *a, uint32_t point, uint32_t attempt)
{
	if (point >= k->c->npoints)
		return false;
	if (k->jr.apply == APPLY_REPLAY)
		return true;
	return point == k->cur_point && a->assigned && attempt < a->assigned[point];
}

/* The drive's own account of the point in its row: what it wrote, how hot, new errors. */
static void health_row(struct coord *k, size_t di, struct rb_row_result *row)
{
	const struct hstate *hs = &k->health[di];

	row->health_max_temp_c = hs->max_temp_c;
	row->health_new_media_errors = NAN;
	row->health_critical_warning = hs->warnings;
	if (!hs->have_before || !hs->have_after)
		return;
	if (hs->after.h.nvme && hs->before.h.nvme) {
		row->health_write_bytes = (uint64_t)((hs->after.h.data_units_written -
						      hs->before.h.data_units_written) *
						     512000.0);
		row->health_new_media_errors = hs->after.h.media_errors - hs->before.h.media_errors;
	} else if (hs->after.h.kernel_write_bytes >= hs->before.h.kernel_write_bytes) {
		row->health_write_bytes =
			hs->after.h.kernel_write_bytes - hs->before.h.kernel_write_bytes;
	}
}

/* A result's block-size counts into their table, its IO errors said. */
static void result_extras(struct coord *k, const struct ragent *a, const struct rb_msg_result *dr,
			  size_t di)
{
	for (size_t i = 0; i < dr->nbs_counts; i++) {
		struct rb_row_bs b = { .drive = (uint32_t)di,
				       .point = dr->point,
				       .attempt = dr->attempt,
				       .direction = (uint8_t)dr->bs_counts[i].direction,
				       .bs_bytes = dr->bs_counts[i].bs,
				       .ios = dr->bs_counts[i].ios };

		rb_results_bs(k->res, &b);
	}
	ing_checkpoints(k, di, dr);
	ing_exec(k, di, dr);
	for (size_t i = 0; i < dr->nevidence; i++) {
		struct rb_row_evidence ev = { .drive = (uint32_t)di,
					      .point = dr->point,
					      .attempt = dr->attempt,
					      .bytes = dr->evidence[i].bytes };

		copy(ev.kind, sizeof(ev.kind), dr->evidence[i].kind);
		copy(ev.path, sizeof(ev.path), dr->evidence[i].path);
		copy(ev.sha256, sizeof(ev.sha256), dr->evidence[i].sha256);
		rb_results_evidence(k->res, &ev);
		rb_warn("drive '%s' point %u: its %s kept for the vendor on agent '%s': %s "
			"(sha256 %.16s...)",
			dr->drive, dr->point, ev.kind, a->name, ev.path, ev.sha256);
	}
	uint64_t n[2] = { 0, 0 }, first[2] = { 0, 0 }; /* IO errors, mismatches */
	uint32_t err = 0;

	for (size_t i = 0; i < dr->nio_errors; i++) {
		const struct rb_msg_io_error *e = &dr->io_errors[i];
		struct rb_row_ioerror row = { .drive = (uint32_t)di,
					      .point = dr->point,
					      .attempt = dr->attempt,
					      .direction = (uint8_t)(e->direction < 3 ? e->direction
										      : 0),
					      .offset = e->offset,
					      .length = e->length,
					      .err = e->err > 0 ? (uint32_t)e->err : EIO,
					      .count = e->count ? e->count : 1 };

		rb_results_ioerror(k->res, &row);
		/* a mismatch comes as EILSEQ (agent/session/point.c) */
		size_t m = row.err == EILSEQ;

		if (!n[m] || row.offset < first[m])
			first[m] = row.offset;
		if (!m && !err)
			err = row.err;
		n[m] += row.count;
	}
	/* one line per drive and point: every one is in the io_errors table */
	char ioe[160] = "", mis[128] = "";

	if (n[0])
		snprintf(ioe, sizeof(ioe),
			 "%" PRIu64 " IO error(s) (%s), the first at offset %" PRIu64, n[0],
			 strerror((int)err), first[0]);
	if (n[1])
		snprintf(mis, sizeof(mis),
			 "%" PRIu64 " verification mismatch(es), the first at offset %" PRIu64,
			 n[1], first[1]);
	if (n[0] || n[1])
		rb_err("agent '%s' drive '%s' point %u: %s%s%s; each is in the results' io_errors "
		       "table",
		       a->name, dr->drive, dr->point, ioe, n[0] && n[1] ? "; " : "", mis);
}

static void on_result(struct coord *k, struct ragent *a, const struct rb_msg_result *dr)
{
	int di = reg_agent_drive(k, a, dr->drive);
	struct rb_row_result row;
	const struct rb_dir_result *dirs[3] = { NULL, NULL, NULL };
	struct summary *s;
	enum rb_status st = dr->status;

	if (di < 0 || dr->point != k->cur_point || !assigned(k, a, dr->point, dr->attempt)) {
		rb_warn("agent '%s' sent a result for unknown drive '%s' or point %u", a->name,
			dr->drive, dr->point);
		return;
	}
	if (a->state == AGENT_DROPPED && k->jr.apply == APPLY_LIVE) {
		/* its drives' rows for this point say "lost" already: one row per drive */
		rb_info("agent '%s' is back and finished point %u on drive '%s'; its row stays "
			"\"lost\"",
			a->name, dr->point, dr->drive);
		return;
	}
	/* identity as the agent opened it (files are laid out on first use) */
	if (dr->target && k->c->drives[di].nmembers)
		k->vinfo[di] = *dr->target;
	else if (dr->target)
		reg_target_update(a, dr->target);
	for (size_t m = 0; m < dr->nmembers; m++)
		reg_target_update(a, &dr->members[m]);
	memset(&row, 0, sizeof(row));
	row.drive = (uint32_t)di;
	row.point = dr->point;
	row.attempt = dr->attempt;
	copy(row.message, sizeof(row.message), dr->message);
	/* a rolling steady-state point ends by our Stop once steady: its end, not a cut */
	if (st == RB_STATUS_STOPPED && k->c->phases[k->c->points[dr->point].phase].steady_rolling &&
	    (k->steady.roll_stopped || k->jr.apply == APPLY_REPLAY)) {
		st = RB_STATUS_OK;
		row.message[0] = '\0';
	}
	row_copy(&row, dr);
	/* how far from the planned instant its jobs started, in our clock */
	if (dr->start_mono_ns && k->start_at && a->clk.n && dr->attempt == 0) {
		row.start_skew_ns =
			dr->start_mono_ns - rb_clock_offset(&a->clk, NULL) - k->start_at;
		fleet_skew(k, dr->point, row.start_skew_ns);
	}
	for (size_t i = 0; i < dr->ndirs; i++)
		if (dr->dirs[i].direction < 3)
			dirs[dr->dirs[i].direction] = &dr->dirs[i];
	dir_row(&row.read, dirs[0], dr->elapsed_ns, &k->scratch);
	dir_row(&row.write, dirs[1], dr->elapsed_ns, &k->scratch);
	dir_row(&row.trim, dirs[2], dr->elapsed_ns, &k->scratch);
	bool data_error = data_error_status(&row, &st);

	copy(row.status, sizeof(row.status), rb_status_name(st)); /* the file keeps the string */

	/* the summary's latency is over both directions: merge, never average */
	rb_hist_clear(&k->scratch);
	for (int d = 0; d < 3; d++)
		if (dirs[d])
			rb_hist_add_sparse(&k->scratch, dirs[d]->hist.idx, dirs[d]->hist.cnt,
					   dirs[d]->hist.n);
	health_row(k, (size_t)di, &row);
	row.rate_iops = ing_curve_rate(k, &k->c->points[dr->point], di);
	if (k->steady.roll && st != RB_STATUS_LOST)
		srun_roll_verdict(k, &k->c->points[dr->point], di, &row);
	if (k->c->points[dr->point].round)
		srun_note(k, rb_results_next_result(k->res), di, k->c->points[dr->point].round);
	rb_results_result(k->res, &row);
	progress_result(k, (size_t)di, &row, st);
	result_extras(k, a, dr, (size_t)di);
	k->io_errors +=
		row.read.errors + row.write.errors + row.trim.errors + row.verify_mismatches;
	if (k->live.d && k->jr.apply == APPLY_LIVE) {
		/* its part of the point ended: it reads 0 from now on, not its last interval */
		k->live.d[di].done = true;
		k->live.d[di].mismatches += row.verify_mismatches;
		k->live.dirty = true;
	}
	/* a point stopped short, replayed from the journal, runs again as the next attempt:
	 * its row is superseded, not a failure of the run */
	if (st != RB_STATUS_OK && !(k->jr.apply == APPLY_REPLAY && st == RB_STATUS_STOPPED)) {
		k->bad_drives += !data_error;
		rb_err("agent '%s' drive '%s' point %u: %s: %s", a->name, dr->drive, dr->point,
		       row.status, row.message);
	}
	s = &k->sum[(size_t)dr->point * k->c->ndrives + (size_t)di];
	s->have = true;
	s->status = st;
	s->iops = row.read.iops + row.write.iops + row.trim.iops;
	s->mbps = (row.read.bw_bytes_per_s + row.write.bw_bytes_per_s + row.trim.bw_bytes_per_s) /
		  1e6;
	uint64_t all = row.read.ios + row.write.ios + row.trim.ios;

	s->mean_ns = all ? (row.read.lat_mean_ns * (double)row.read.ios +
			    row.write.lat_mean_ns * (double)row.write.ios +
			    row.trim.lat_mean_ns * (double)row.trim.ios) /
				     (double)all
			 : 0;
	s->p99_ns = rb_hist_percentile(&k->scratch, 99);
}

static void on_health(struct coord *k, struct ragent *a, const struct rb_msg_health *m)
{
	int di = reg_agent_drive(k, a, m->drive);
	struct rb_row_health row;
	struct hstate *hs;

	if (di < 0 || m->point != k->cur_point || m->when > 2 ||
	    !assigned(k, a, m->point, m->attempt))
		return;
	memset(&row, 0, sizeof(row));
	row.drive = (uint32_t)di;
	/* a volume's member: its own row; the drive's state (deltas, alerts) is the sum's */
	if (m->member && *m->member) {
		const struct rb_drive_ref *d = &k->c->drives[di];

		for (size_t i = 0; i < d->nmembers && !row.member; i++)
			if (!strcmp(d->members[i].path, m->member))
				row.member = (uint32_t)i + 1;
		if (!row.member)
			return;
	}
	row.point = m->point;
	row.attempt = m->attempt;
	row.when = (uint8_t)m->when;
	row.t_ns = m->t_ns;
	row.h = m->h;
	/* an agent of 1.3 does not send the thermal counters: unknown, not zero */
	health_unknown(&row.h, m->h.nvme && a->minor >= 4);
	rb_results_health(k->res, &row);
	if (row.member)
		return;
	hs = &k->health[di];
	if (m->when == 0) {
		hs->before = row;
		hs->have_before = true;
	} else if (m->when == 2) {
		hs->after = row;
		hs->have_after = true;
	}
	if (m->h.nvme && !(row.h.temperature_c <= hs->max_temp_c))
		hs->max_temp_c = row.h.temperature_c;
	if (m->h.nvme)
		rb_progress_temp(k->prog, (size_t)di, row.h.temperature_c);
	hs->warnings |= row.h.critical_warning;
	if (k->live.d && k->jr.apply == APPLY_LIVE) {
		struct ldrive *ld = &k->live.d[di];

		if (m->h.nvme && !isnan(row.h.temperature_c)) {
			ld->temp_c = row.h.temperature_c;
			if (!(row.h.temperature_c <= ld->max_temp_c))
				ld->max_temp_c = row.h.temperature_c;
		}
		ld->warnings |= row.h.critical_warning;
		k->live.dirty = true;
	}
	/* said once per drive and run for each bit, not with every snapshot */
	if (row.h.critical_warning & ~k->warned[di]) {
		k->warned[di] |= row.h.critical_warning;
		rb_warn("agent '%s' drive '%s': health alert, critical warning 0x%02x (bits: 0 "
			"spare, 1 temperature, 2 reliability, 3 read-only, 4 backup)",
			a->name, m->drive, row.h.critical_warning);
	}
}

/*
 * A sample into its drive's live figures (live.c hands them to the service's metrics):
 * the newest interval summed over its directions; a straggler of an older one only
 * counts its errors.
 */
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
		if (!assigned(k, a, s->point, s->attempt)) {
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
			on_health(k, a, &e->health);
		break;
	case RB_MSG_RESULT:
		if (k->res)
			on_result(k, a, &e->result);
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
