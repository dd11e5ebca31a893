// SPDX-License-Identifier: MIT
/*
 * A drive's end of a point applied to the run (coord_priv.h): its result becomes a
 * `results` row (the agent's measured numbers as one struct, common/wire/resultcore.h; the
 * directions' figures from their histograms; health deltas, rate, steady state and skew
 * added here), its summary line and progress; its health snapshots become `health` rows.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "campaign.h"
#include "hist.h"
#include "log.h"
#include "progress.h"
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

	if (*st != RB_STATUS_OK || !(errs || row->core.verify_mismatches))
		return false;
	*st = RB_STATUS_ERROR;
	snprintf(row->message, sizeof(row->message),
		 "%" PRIu64 " IO error(s), %" PRIu64
		 " verification mismatch(es): the io_errors table lists where",
		 errs, row->core.verify_mismatches);
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
	row->ocp_media_bytes = dr->ocp_smart ? dr->ocp_media_bytes : NAN;
	row->ocp_waf = NAN; /* over the bytes written, once health_row() has them */
	row->ocp_throttle_events = dr->ocp.valid ? dr->ocp.throttle_events : NAN;
	row->ocp_pcie_correctable = dr->ocp.valid ? dr->ocp.pcie_correctable : NAN;
	row->ocp_link_retrains = dr->ocp.valid ? dr->ocp.link_retrains : NAN;
	row->ocp_power_state_changes = dr->ocp.valid ? dr->ocp.power_state_changes : NAN;
	row->ocp_throttle_status = dr->ocp.valid ? dr->ocp.throttle_status : NAN;
	row->core = dr->core; /* as the agent measured it, one struct both ways */
	copy(row->purge_method, sizeof(row->purge_method), dr->purge_method);
}

/*
 * The numbers a snapshot does not have are NaN in its row, unknown rather than zero: SMART's
 * without an NVMe answer, the thermal counters from an agent before 1.4 (thermal false),
 * the link's without a link, AER totals the kernel does not keep (sent negative), the power
 * state and APST from an agent before 1.8 or not answered (sent negative).
 */
static void health_unknown(struct rb_health_snap *h, bool thermal, bool power)
{
	bool smart = h->nvme, pcie = h->pcie;

#define MASK_ALWAYS(f)
#define MASK_SMART(f) h->f = smart ? h->f : NAN;
#define MASK_THERMAL(f) h->f = thermal ? h->f : NAN;
#define MASK_PCIE(f) h->f = pcie ? h->f : NAN;
#define MASK_AER(f) h->f = pcie && h->f >= 0 ? h->f : NAN;
#define MASK_POWER(f) h->f = power && h->f >= 0 ? h->f : NAN;
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
						   row->trim.errors + row->core.verify_mismatches));
}

/* A zns point's zone i after it: the kernel's numbers in words (linux/blkzoned.h). */
static void zone_row(struct coord *k, size_t di, const struct rb_msg_result *dr, size_t i)
{
	static const char *const cond[16] = {
		[0x0] = "not-wp",	 [0x1] = "empty",  [0x2] = "implicit-open",
		[0x3] = "explicit-open", [0x4] = "closed", [0xd] = "read-only",
		[0xe] = "full",		 [0xf] = "offline"
	};
	static const char *const type[4] = {
		[1] = "conventional", [2] = "seq-required", [3] = "seq-preferred"
	};
	const struct rb_msg_zone *z = &dr->zones[i];
	struct rb_row_zone row = { .drive = (uint32_t)di,
				   .point = dr->point,
				   .attempt = dr->attempt,
				   .zone = (uint32_t)i,
				   .start_bytes = z->start_bytes,
				   .len_bytes = z->len_bytes,
				   .capacity_bytes = z->capacity_bytes,
				   .wp_bytes = z->wp_bytes };

	snprintf(row.cond, sizeof(row.cond), "%s",
		 z->cond < 16 && cond[z->cond] ? cond[z->cond] : "unknown");
	snprintf(row.type, sizeof(row.type), "%s",
		 z->type < 4 && type[z->type] ? type[z->type] : "unknown");
	rb_results_zone(k->res, &row);
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

/*
 * An OCP drive's own latency buckets over the point, each beside the IOs the host measured
 * in its range: the host's histogram buckets whose value lies there.
 */
static void devlat_rows(struct coord *k, size_t di, const struct rb_msg_result *dr)
{
	const struct rb_dev_latency *d = &dr->dev_lat;

	for (uint32_t b = 0; d->valid && b < 4; b++) {
		struct rb_row_devlat row = { .drive = (uint32_t)di,
					     .point = dr->point,
					     .attempt = dr->attempt,
					     .bucket = b,
					     .from_ms = d->threshold_ms[b],
					     .to_ms = b < 3 ? d->threshold_ms[b + 1] : 0,
					     .reads = d->cmds[0][b],
					     .writes = d->cmds[1][b],
					     .trims = d->cmds[2][b] };
		uint64_t lo = (uint64_t)row.from_ms * 1000000, hi = (uint64_t)row.to_ms * 1000000;

		for (size_t i = 0; i < dr->ndirs; i++) {
			const struct rb_sparse *h = &dr->dirs[i].hist;
			uint64_t *to = dr->dirs[i].direction == 0   ? &row.host_reads
				       : dr->dirs[i].direction == 1 ? &row.host_writes
								    : &row.host_trims;

			for (size_t j = 0; j < h->n; j++) {
				uint64_t v = h->idx[j] < RB_HIST_BUCKETS
						     ? rb_hist_bucket_value(h->idx[j])
						     : 0;

				if (h->idx[j] < RB_HIST_BUCKETS && v >= lo && (!hi || v < hi))
					*to += h->cnt[j];
			}
		}
		rb_results_devlat(k->res, &row);
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
		ing_evidence_stored(k, a, ev.path, ev.stored, sizeof(ev.stored));
		rb_results_evidence(k->res, &ev);
		rb_warn("drive '%s' point %u: its %s kept for the vendor on agent '%s': %s%s%s "
			"(sha256 %.16s...)",
			dr->drive, dr->point, ev.kind, a->name, ev.path,
			ev.stored[0] ? ", and beside the results: " : "", ev.stored, ev.sha256);
	}
	for (size_t i = 0; i < dr->nzones; i++)
		zone_row(k, di, dr, i);
	devlat_rows(k, di, dr);
	/* an agent sends a member's two logs' events at most (63 each): more are no drive's */
	for (size_t i = 0; i < dr->nfdp_events && i < 4096; i++) {
		const struct rb_msg_fdp_event *e = &dr->fdp_events[i];

		rb_results_fdp_event(k->res,
				     &(struct rb_row_fdp_event){ .drive = (uint32_t)di,
								 .point = dr->point,
								 .attempt = dr->attempt,
								 .type = e->type,
								 .flags = e->flags,
								 .pid = e->pid,
								 .rgid = e->rgid,
								 .ruhid = e->ruhid,
								 .nsid = e->nsid,
								 .timestamp_ms = e->timestamp_ms,
								 .nlbam = e->nlbam,
								 .lba_valid = e->lba_valid,
								 .lba = e->lba });
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

void ing_result(struct coord *k, struct ragent *a, const struct rb_msg_result *dr)
{
	int di = reg_agent_drive(k, a, dr->drive);
	struct rb_row_result row;
	const struct rb_dir_result *dirs[3] = { NULL, NULL, NULL };
	struct summary *s;
	enum rb_status st = dr->status;

	if (di < 0 || dr->point != k->cur_point || !ing_assigned(k, a, dr->point, dr->attempt)) {
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
	dir_row(&row.read, dirs[0], dr->core.elapsed_ns, &k->scratch);
	dir_row(&row.write, dirs[1], dr->core.elapsed_ns, &k->scratch);
	dir_row(&row.trim, dirs[2], dr->core.elapsed_ns, &k->scratch);
	bool data_error = data_error_status(&row, &st);

	copy(row.status, sizeof(row.status), rb_status_name(st)); /* the file keeps the string */

	/* the summary's latency is over both directions: merge, never average */
	rb_hist_clear(&k->scratch);
	for (int d = 0; d < 3; d++)
		if (dirs[d])
			rb_hist_add_sparse(&k->scratch, dirs[d]->hist.idx, dirs[d]->hist.cnt,
					   dirs[d]->hist.n);
	health_row(k, (size_t)di, &row);
	if (!isnan(row.ocp_media_bytes) && row.health_write_bytes)
		row.ocp_waf = row.ocp_media_bytes / (double)row.health_write_bytes;
	row.rate_iops = ing_curve_rate(k, &k->c->points[dr->point], di);
	if (k->steady.roll && st != RB_STATUS_LOST)
		srun_roll_verdict(k, &k->c->points[dr->point], di, &row);
	if (k->c->points[dr->point].round)
		srun_note(k, rb_results_next_result(k->res), di, k->c->points[dr->point].round);
	rb_results_result(k->res, &row);
	progress_result(k, (size_t)di, &row, st);
	result_extras(k, a, dr, (size_t)di);
	k->io_errors +=
		row.read.errors + row.write.errors + row.trim.errors + row.core.verify_mismatches;
	if (k->live.d && k->jr.apply == APPLY_LIVE) {
		/* its part of the point ended: it reads 0 from now on, not its last interval */
		k->live.d[di].done = true;
		k->live.d[di].mismatches += row.core.verify_mismatches;
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

void ing_health(struct coord *k, struct ragent *a, const struct rb_msg_health *m)
{
	int di = reg_agent_drive(k, a, m->drive);
	struct rb_row_health row;
	struct hstate *hs;

	if (di < 0 || m->point != k->cur_point || m->when > 2 ||
	    !ing_assigned(k, a, m->point, m->attempt))
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
	health_unknown(&row.h, m->h.nvme && a->minor >= 4, m->h.nvme && a->minor >= 8);
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
