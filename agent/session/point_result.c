// SPDX-License-Identifier: MIT
/*
 * A point's results on the agent: each drive's DriveResult at the point's end -- how it
 * ran and why it stopped, what it did per direction, the drive as opened (a filesystem's
 * device), its history, and a checkpoint's rows or an exec's command -- and the sparse
 * histograms the samples share with it. point.c calls it; it calls only delivery.
 */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "evidence.h"
#include "execphase.h"
#include "fstarget.h"
#include "history.h"
#include "log.h"
#include "target.h"
#include "verify.h"
#include "zns.h"

/* A histogram as the wire's sparse lists, allocated (sparse_free()); empty without memory. */
struct rb_sparse rb_point_sparse_new(const struct rb_hist *h)
{
	size_t nz = rb_hist_nonzero(h);
	uint32_t *idx = malloc((nz + 1) * sizeof(uint32_t));
	uint64_t *cnt = malloc((nz + 1) * sizeof(uint64_t));

	if (!idx || !cnt) {
		free(idx);
		free(cnt);
		return (struct rb_sparse){ NULL, NULL, 0 };
	}
	return (struct rb_sparse){ idx, cnt, rb_hist_to_sparse(h, idx, cnt, nz) };
}

void rb_point_sparse_free(struct rb_sparse *x)
{
	free((void *)x->idx);
	free((void *)x->cnt);
	*x = (struct rb_sparse){ NULL, NULL, 0 };
}

static void fill_dir(struct rb_dir_result *dr, int dir, const struct rb_dir_stats *s)
{
	memset(dr, 0, sizeof(*dr));
	dr->direction = (uint32_t)dir;
	dr->ios = s->ios;
	dr->bytes = s->bytes;
	dr->errors = s->errors;
	dr->lat_sum_ns = s->lat_sum_ns;
	dr->lat_min_ns = s->ios ? s->lat_min_ns : 0;
	dr->lat_max_ns = s->lat_max_ns;
	dr->hist = rb_point_sparse_new(&s->hist);
}

/* One drive's result message and what it points to, filled by the result_*() below. */
/* FDP events a result carries at most (a member logs 2 x 63 at most; a wide volume: its
 * first members'). */
#define RB_POINT_FDP_EVENTS 256

struct result_msg {
	struct rb_msg_result dr;
	struct rb_dir_result dirs[RB_NDIR];
	struct rb_bs_count *bc;
	struct rb_msg_io_error ie[2 * RB_MAX_IO_ERRORS]; /* IO errors, then mismatches */
	struct rb_identity ti, mi[64];
	struct rb_drive_history hist; /* the drive's state: dr.purge_method points here */
	struct rb_evidence ev[4 * RB_EVIDENCE_MAX]; /* kept for the vendor: 4 members at most */
	struct rb_msg_evidence mev[4 * RB_EVIDENCE_MAX];
	struct rb_msg_fdp_event fdp_ev[RB_POINT_FDP_EVENTS]; /* the FDP events logged during it */
};

/*
 * A drive whose point ended with IO errors or mismatches: what its vendor will ask for
 * (telemetry, error log, SMART) read from it now and kept in the state folder, named in
 * its result. Drives without NVMe log pages keep nothing, silently.
 */
static void result_evidence(struct agent *a, size_t t, const struct rb_target_result *res,
			    struct result_msg *m)
{
	const struct point *p = &a->pt;
	size_t n = 0;

	if (!p->prep || !(res->nerrors + res->nmismatches))
		return;
	for (size_t k = 0; k < p->vols[t].members && k < 4; k++) {
		const struct rb_target_info *x = &p->prep->info[p->first[t] + k];
		int r;

		if (x->kind != RB_TARGET_BLOCK)
			continue;
		r = rb_evidence_capture(rb_nvme_runs(), x->real, a->cfg->state_dir, m->ev + n,
					RB_EVIDENCE_MAX);
		for (int i = 0; i < r; i++, n++)
			m->mev[n] = (struct rb_msg_evidence){ m->ev[n].kind, m->ev[n].path,
							      m->ev[n].sha256, m->ev[n].bytes };
	}
	m->dr.evidence = m->mev;
	m->dr.nevidence = n;
}

/*
 * The evidence files named in m, each sent in pieces ahead of the result to a coordinator
 * that keeps them (1.9 on): data like the rest, so a killed agent or a cut link loses none.
 * A file that cannot be read is said; its row still names it on this host.
 */
static void send_evidence(struct agent *a, uint32_t point, uint32_t attempt, const char *drive,
			  const struct rb_evidence *ev, size_t nev)
{
	_Static_assert(RB_EVIDENCE_TELEMETRY_MAX <= RB_EVIDENCE_FILE_MAX,
		       "the coordinator takes every file the agent keeps");
	uint8_t *buf;

	if (!nev || a->coord_minor < 9)
		return;
	buf = malloc(RB_EVIDENCE_CHUNK);
	for (size_t i = 0; buf && i < nev; i++) {
		const struct rb_evidence *x = &ev[i];
		FILE *f = fopen(x->path, "rbe");
		uint64_t off = 0;
		size_t n;

		if (!f) {
			rb_err("cannot read %s to send it to the coordinator: %s", x->path,
			       strerror(errno));
			continue;
		}
		/* an empty file still goes, as one empty piece */
		do {
			struct rb_msg e;

			n = fread(buf, 1, RB_EVIDENCE_CHUNK, f);
			rb_msg_init(&e, RB_MSG_EVIDENCE_DATA);
			e.evidence_data = (struct rb_msg_evidence_data){
				.point = point,
				.attempt = attempt,
				.drive = drive,
				.path = x->path,
				.sha256 = x->sha256,
				.offset = off,
				.bytes = x->bytes,
				.data = buf,
				.len = n,
			};
			rb_delivery_send(a, &e);
			off += n;
		} while (n == RB_EVIDENCE_CHUNK && off < x->bytes);
		if (off != x->bytes)
			rb_err("%s: read %" PRIu64 " of its %" PRIu64 " bytes to send", x->path,
			       off, x->bytes);
		fclose(f);
	}
	free(buf);
}

/* How the drive ran: its times, CPU, and its status with the reason. */
static void result_status(const struct point *p, size_t t, const struct rb_target_result *res,
			  struct result_msg *m)
{
	struct rb_msg_result *dr = &m->dr;

	dr->point = p->point;
	dr->attempt = p->attempt;
	dr->drive = p->drives[t];
	dr->core.start_ns = res->start_wall_ns;
	dr->start_mono_ns = res->start_mono_ns;
	dr->core.replay_ios = res->replay.ios;
	dr->core.replay_complete = res->replay.complete;
	dr->core.replay_timed = res->replay.timed;
	if (res->replay.timed && res->replay.lag.total) {
		dr->core.replay_lag_p50_ns = rb_hist_percentile(&res->replay.lag, 50);
		dr->core.replay_lag_p99_ns = rb_hist_percentile(&res->replay.lag, 99);
		dr->core.replay_lag_max_ns = res->replay.lag_max_ns;
	}
	dr->core.end_ns = res->end_wall_ns;
	dr->core.elapsed_ns = res->elapsed_ns;
	dr->core.cpu_usr_pct = res->cpu_usr_pct;
	dr->core.cpu_sys_pct = res->cpu_sys_pct;
	dr->uring_features = res->features;
	dr->trim_method = res->trim_method;
	/* FDP: what the drive's endurance groups wrote for the host and on the media (a
	 * volume's members added up), from the statistics read at the point's start */
	for (size_t k = 0; p->prep && k < p->vols[t].members; k++) {
		double host, media;

		if (rb_runner_fdp(p->prep, p->first[t] + k, &host, &media)) {
			dr->fdp = true;
			dr->fdp_host_bytes += host;
			dr->fdp_media_bytes += media;
		}
	}
	/* what the media wrote and the drive counted over the point (OCP C0h): a volume's
	 * members added up (a throttle level: the highest) */
	for (size_t k = 0; p->prep && k < p->vols[t].members; k++) {
		struct rb_ocp_counters c, *o = &dr->ocp;
		double media;

		if (!rb_runner_ocp_smart(p->prep, p->first[t] + k, &media, &c))
			continue;
		if (!isnan(media)) {
			dr->ocp_smart = true;
			dr->ocp_media_bytes += media;
		}
		o->throttle_events += c.throttle_events;
		o->pcie_correctable += c.pcie_correctable;
		o->link_retrains += c.link_retrains;
		o->power_state_changes += c.power_state_changes;
		o->throttle_status = c.throttle_status > o->throttle_status ? c.throttle_status
									    : o->throttle_status;
		o->valid = true;
	}
	/* the FDP events each member's drive logged during the point */
	for (size_t k = 0; p->prep && k < p->vols[t].members; k++)
		dr->nfdp_events +=
			rb_runner_fdp_events(p->prep, p->first[t] + k, m->fdp_ev + dr->nfdp_events,
					     RB_POINT_FDP_EVENTS - dr->nfdp_events);
	dr->fdp_events = dr->nfdp_events ? m->fdp_ev : NULL;
	/* the drive's own latency buckets over the point (OCP C3h): a drive, not a volume */
	if (p->prep && p->vols[t].members == 1)
		dr->dev_lat.valid = rb_runner_dev_latency(
			p->prep, p->first[t], dr->dev_lat.threshold_ms, dr->dev_lat.cmds);
	static const char *const why[] = {
		[HALT_SHUT_DOWN] = "stopped: the agent was shut down before the point's end",
		[HALT_COORDINATOR] = "stopped by the coordinator before the point's end",
		[HALT_SPOOL_FAILED] = "stopped: the spool could not be written (its folder is "
				      "full or failing); nothing measured was dropped",
		[HALT_SPOOL_FULL] = "stopped: the spool reached its cap (spool_max) while the "
				    "coordinator did not acknowledge; nothing measured was dropped",
	};
	enum point_halt h = p->halted;
	bool spool = h >= HALT_SPOOL_FAILED, cut = h == HALT_SHUT_DOWN || h == HALT_COORDINATOR;

	/* a setup error says more than a cut; the spool's cause more than either */
	dr->status = res->setup_err || spool || (p->mk->message_fails && res->message[0] && !cut)
			     ? RB_STATUS_ERROR
		     : cut ? RB_STATUS_STOPPED
			   : RB_STATUS_OK;
	dr->message = spool || (cut && !res->setup_err) ? why[h] : res->message;
}

/* What the drive did: per direction, its block sizes, its IO errors. */
static void result_dirs(const struct rb_target_result *res, struct result_msg *m)
{
	size_t nb = 0;

	m->bc = calloc(RB_NDIR * RB_BS_MAX, sizeof(*m->bc));
	for (int d = 0; d < RB_NDIR; d++) {
		fill_dir(&m->dirs[d], d, &res->dir[d]);
		for (unsigned b = 0; m->bc && b < res->nbs; b++) {
			if (!res->bs_ios[d][b])
				continue;
			m->bc[nb++] = (struct rb_bs_count){ .direction = (uint32_t)d,
							    .bs = res->bs[b],
							    .ios = res->bs_ios[d][b] };
		}
	}
	m->dr.ndirs = RB_NDIR;
	m->dr.dirs = m->dirs;
	m->dr.nbs_counts = nb;
	m->dr.bs_counts = m->bc;
	for (unsigned k = 0; k < res->nerrors; k++)
		m->ie[k] = (struct rb_msg_io_error){ .offset = res->errors[k].offset,
						     .length = res->errors[k].length,
						     .direction = res->errors[k].dir,
						     .err = res->errors[k].err,
						     .count = res->errors[k].count };
	/* each mismatch listed the same way, as EILSEQ: its offset reaches the results */
	for (unsigned k = 0; k < res->nmismatches; k++)
		m->ie[res->nerrors + k] =
			(struct rb_msg_io_error){ .offset = res->mismatches[k].offset,
						  .length = RB_VERIFY_CHUNK,
						  .direction = RB_DIR_READ,
						  .err = EILSEQ,
						  .count = 1 };
	m->dr.nio_errors = res->nerrors + res->nmismatches;
	m->dr.io_errors = m->ie;
}

/* Member k of drive t as opened for the point (a checkpoint's drive: its device). */
static const struct rb_target_info *drive_info(const struct point *p, size_t t, size_t k)
{
	/* a filesystem's drive is its device, not the file the workload ran on */
	if (p->fs && p->fs[t].mounted)
		return &p->fs[t].dev_info;
	return p->prep ? &p->prep->info[p->first[t] + k] : &p->devinfo[t];
}

/* Drive t's figures: the engine's, the checkpoint's writers', or the exec's counters. */
static const struct rb_target_result *point_result(const struct point *p, size_t t)
{
	return p->mk->result(p, t);
}

/* What was measured: the drive as opened, or a volume with its own size and its members. */
static void result_target(const struct rb_agent_cfg *c, const struct point *p, size_t t,
			  struct result_msg *m)
{
	size_t f = p->first[t], nm = p->vols[t].members;

	if (p->vols[t].stripe) {
		/* a volume: its own size, its members as opened */
		uint64_t min = UINT64_MAX, unit = p->vols[t].stripe;

		rb_wire_strcpy(m->ti.path, sizeof(m->ti.path), p->drives[t]);
		rb_wire_strcpy(m->ti.kind, sizeof(m->ti.kind), "volume");
		for (size_t k = 0; k < nm; k++) {
			const struct rb_target_info *x = &p->prep->info[f + k];

			if (p->prep->spans[f + k] < min)
				min = p->prep->spans[f + k];
			if (x->logical_block_size > m->ti.logical_block_size)
				m->ti.logical_block_size = x->logical_block_size;
			if (k >= 64)
				continue;
			rb_preflight_identity(&m->mi[k], c, p->paths[f + k], x);
		}
		m->ti.size_bytes = min / unit * unit * nm;
		m->dr.members = m->mi;
		m->dr.nmembers = nm < 64 ? nm : 64;
	} else {
		/* a filesystem's: the drive under it, not the file the workload ran on */
		rb_preflight_identity(&m->ti, c, p->drives[t],
				      p->fs && p->fs[t].mounted ? &p->fs[t].dev_info
								: drive_info(p, t, 0));
	}
	m->dr.target = &m->ti;
}

/*
 * The state the drive was measured in, then what this point wrote. A volume is as fresh
 * as its least fresh member: the oldest purge (none if one has none), the fewest fill
 * passes; what was written, added up. Each member is noted with its share (the stripe
 * spreads writes evenly over whole units).
 */
static void result_history(struct agent *a, size_t t, const struct rb_target_result *res,
			   struct result_msg *m)
{
	struct point *p = &a->pt;
	size_t f = p->first[t], nm = p->vols[t].members;
	struct rb_drive_history *hist = &m->hist;
	char what[300];

	snprintf(what, sizeof(what), "point %u attempt %u", p->point, p->attempt);
	for (size_t k = 0; k < nm; k++) {
		const struct rb_target_info *x = drive_info(p, t, k);
		struct rb_drive_history h;

		rb_history_read(a->cfg->state_dir, p->paths[f + k], x->serial, &h);
		if (!k) {
			*hist = h;
		} else {
			if (h.first_ns && (!hist->first_ns || h.first_ns < hist->first_ns))
				hist->first_ns = h.first_ns;
			if (h.purge_ns < hist->purge_ns) {
				hist->purge_ns = h.purge_ns;
				memcpy(hist->purge_method, h.purge_method,
				       sizeof(hist->purge_method));
			}
			hist->written_bytes += h.written_bytes;
			if (h.fill_passes < hist->fill_passes)
				hist->fill_passes = h.fill_passes;
		}
	}
	m->dr.core.history_since_ns = hist->first_ns;
	m->dr.core.purge_ns = hist->purge_ns;
	m->dr.purge_method = hist->purge_method;
	m->dr.core.written_since_purge_bytes = hist->written_bytes;
	m->dr.core.fill_passes_since_purge = hist->fill_passes;
	for (size_t k = 0; k < nm; k++) {
		uint64_t w = res->dir[RB_DIR_WRITE].bytes / nm;
		/* checkpoints: what they wrote is the range, never a fill of the drive */
		bool fs = p->fs && p->fs[t].mounted;
		uint64_t span = p->vols[t].stripe ? m->ti.size_bytes / nm
				: p->prep && !fs  ? p->prep->spans[f]
						  : w + 1;

		rb_history_note_run(a->cfg->state_dir, p->paths[f + k], drive_info(p, t, k)->serial,
				    &p->wl, w, span, what);
	}
}

/* A zns point's drive: its zone report after the point, what the run left in each zone. */
static struct rb_msg_zone *result_zones(const struct point *p, size_t t, struct rb_msg_result *dr)
{
	const char *dev;
	struct rb_msg_zone *z = NULL;
	size_t n = 0;
	int r;

	if (p->wl.zns == RB_ZNS_OFF || !p->prep)
		return NULL;
	dev = p->prep->info[p->first[t]].real; /* a generic device's: its namespace's */
	dr->core.zone_reset_ns = p->prep->zone_reset_ns[p->first[t]];
	r = rb_zns_report(dev, &z, &n);
	if (r) {
		rb_warn("point %u drive '%s': no zone report of %s: %s", p->point, p->drives[t],
			dev, strerror(-r));
		return NULL;
	}
	dr->zones = z;
	dr->nzones = n;
	/* what the run left written in part is finished now, timed: after the report, which
	 * keeps the write pointers the run left (the namespace's block device, which this
	 * process holds: a generic device's target is finished through it) */
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	r = fd < 0 ? -errno
		   : rb_zns_finish(fd, z, n, p->wl.offset,
				   p->wl.offset + p->prep->spans[p->first[t]],
				   &dr->core.zone_finish_ns, &dr->core.zones_finished);
	if (fd >= 0)
		close(fd);
	if (r)
		rb_warn("point %u drive '%s': cannot finish its open zones: %s", p->point,
			p->drives[t], strerror(-r));
	else if (dr->core.zones_finished)
		rb_info("point %u drive '%s': finished %u open zone(s) in %.1f ms", p->point,
			p->drives[t], dr->core.zones_finished,
			(double)dr->core.zone_finish_ns / 1e6);
	return z;
}

/* One drive's result, sent: how it ran, what it did, what it is, its history. */
void rb_point_send_result(struct agent *a, size_t t)
{
	struct point *p = &a->pt;
	const struct rb_target_result *res = point_result(p, t);
	struct result_msg m = { 0 };
	void *extras = NULL;
	struct rb_msg e;

	result_status(p, t, res, &m);
	result_dirs(res, &m);
	result_target(a->cfg, p, t, &m);
	m.dr.core.verify_checked = res->verify.checked;
	m.dr.core.verify_mismatches = res->verify.bad;
	result_history(a, t, res, &m);
	result_evidence(a, t, res, &m);
	struct rb_msg_zone *zones = result_zones(p, t, &m.dr);

	/* one line per drive: the offsets go with the result, into the io_errors table */
	if (res->nmismatches)
		rb_err("point %u drive '%s': %" PRIu64 " verification mismatch(es) in %" PRIu64
		       " block(s) checked, the first at offset %" PRIu64 " (%s)",
		       p->point, p->drives[t], (uint64_t)res->verify.bad,
		       (uint64_t)res->verify.checked, res->mismatches[0].offset,
		       rb_verify_kind_name(res->mismatches[0].kind));
	if (p->mk->result_extras)
		extras = p->mk->result_extras(p, t, &m.dr);
	send_evidence(a, m.dr.point, m.dr.attempt, m.dr.drive, m.ev, m.dr.nevidence);
	rb_msg_init(&e, RB_MSG_RESULT);
	e.result = m.dr;
	rb_delivery_send(a, &e);
	for (int d = 0; d < RB_NDIR; d++)
		rb_point_sparse_free(&m.dirs[d].hist);
	free(m.bc);
	free(extras);
	free(zones);
}

void rb_point_capture(struct agent *a, const struct rb_msg_capture *c)
{
	struct rb_evidence ev[RB_EVIDENCE_MAX];
	struct rb_msg_evidence mev[RB_EVIDENCE_MAX];
	struct rb_target_info x;
	char why[256] = "";
	bool offered = false;
	struct rb_msg e;
	int n = 0;

	for (size_t i = 0; i < a->cfg->ntargets; i++)
		offered |= !strcmp(a->cfg->targets[i], c->drive);
	rb_info("capturing the evidence of '%s' for its vendor: %s", c->drive, c->reason);
	/* only a drive the agent offers: the order names a path, the agent decides; never
	 * while a point runs (the coordinator orders it between runs): answered, not done */
	if (rb_agent_busy(a))
		snprintf(why, sizeof(why), "a point is running on this agent: no capture now");
	else if (!offered)
		snprintf(why, sizeof(why), "'%s' is not a target of this agent", c->drive);
	else if (rb_target_probe(c->drive, &x) || x.kind != RB_TARGET_BLOCK)
		snprintf(why, sizeof(why), "'%s' is not a block device here", c->drive);
	else if ((n = rb_evidence_capture(rb_nvme_runs(), x.real, a->cfg->state_dir, ev,
					  RB_EVIDENCE_MAX)) < 0)
		snprintf(why, sizeof(why), "'%s' kept nothing: %s", c->drive,
			 n == -EOPNOTSUPP || n == -EIO ? "it answers no NVMe log pages"
						       : strerror(-n));
	if (why[0])
		rb_warn("%s", why);
	n = n < 0 ? 0 : n;
	send_evidence(a, c->point, c->attempt, c->drive, ev, (size_t)n);
	for (int i = 0; i < n; i++)
		mev[i] = (struct rb_msg_evidence){ ev[i].kind, ev[i].path, ev[i].sha256,
						   ev[i].bytes };
	rb_msg_init(&e, RB_MSG_CAPTURED);
	e.captured = (struct rb_msg_captured){ .point = c->point,
					       .attempt = c->attempt,
					       .drive = c->drive,
					       .error = why,
					       .evidence = mev,
					       .nevidence = (size_t)n };
	rb_delivery_send(a, &e);
}
