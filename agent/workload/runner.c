// SPDX-License-Identifier: MIT
#include "runner.h"

#include <errno.h>
#include <math.h>
#include <linux/nvme_ioctl.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nvme_logs.h"
#include "replay.h"
#include "zns.h"

static bool mix_reads(const struct rb_workload *wl)
{
	if (wl->rw == RB_RW_RW || wl->rw == RB_RW_RANDRW)
		return wl->rwmixread > 0;
	return rb_rw_reads(wl->rw);
}

struct rb_prepared *rb_prepared_free(struct rb_prepared *p)
{
	if (!p)
		return NULL;
	/* the point's power state ends with it: the drive's own put back */
	for (size_t i = 0; p->power && i < p->n; i++)
		rb_power_restore(rb_nvme_runs(), &p->power[i]);
	free(p->power);
	free(p->fdp);
	free(p->fdp_page);
	free(p->ocp);
	free(p->ocp_page);
	free(p->ocp_smart);
	free(p->ocp_smart_page);
	free(p->fdp_ev);
	free(p->fdp_ev_page);
	free(p->zone_reset_ns);
	for (size_t i = 0; i < p->n; i++)
		if (p->fds && p->fds[i] >= 0)
			close(p->fds[i]);
	free(p->fds);
	free(p->spans);
	free(p->info);
	free(p);
	return NULL;
}

/* The null and NOP engines need no target: the range is the workload's size. */
static int prepare_null(const struct rb_workload *wl, const char *path, int *ret_fd,
			uint64_t *ret_span, struct rb_target_info *ti, struct rb_diags *d)
{
	memset(ti, 0, sizeof(*ti));
	snprintf(ti->path, sizeof(ti->path), "%s", path);
	ti->kind = RB_TARGET_OTHER;
	if (!wl->size) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "the %s engine needs 'size' to set its range",
			     wl->engine == RB_ENGINE_NOP ? "nop" : "null");
		return -EINVAL;
	}
	*ret_fd = -1;
	*ret_span = wl->size - wl->size % wl->bs;
	return 0;
}

/*
 * After the guard: lays out one of rackbench's own files to the size the workload
 * needs (the file rules judged again on the descriptor first), turns on O_DIRECT, and
 * resolves offset and size against the target.
 */
static int finish_one(const struct rb_workload *wl, const char *path,
		      const struct rb_guard_policy *gp, bool writes, struct rb_guard_target *t,
		      uint64_t *ret_span, struct rb_diags *d)
{
	uint64_t total, span, need;
	int r, fl;

	if (t->info.kind == RB_TARGET_MISSING) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "file does not exist yet: give 'size' to create it");
		return -EINVAL;
	}
	if (wl->size > UINT64_MAX - wl->offset) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "offset + size (%llu + %llu bytes) is past any target",
			     (unsigned long long)wl->offset, (unsigned long long)wl->size);
		return -EINVAL;
	}
	need = wl->offset + wl->size;
	if (t->info.kind == RB_TARGET_FILE && need > t->info.size_bytes) {
		struct stat st;

		if (!t->ours) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "the file holds %llu bytes, fewer than offset + size (%llu), "
				     "and rackbench lays out only files it created",
				     (unsigned long long)t->info.size_bytes,
				     (unsigned long long)need);
			return -EINVAL;
		}
		/* our own file: lay it out in full, so reads never measure holes */
		if (rb_guard_check_file(gp, path, t->fd, d))
			return -EPERM;
		if ((r = rb_guard_make_writable(t)) == 0)
			r = rb_target_layout_fd(t->fd, need);
		if (r) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path, "cannot lay out file: %s",
				     strerror(-r));
			return r;
		}
		if (fstat(t->fd, &st) == 0)
			t->info.size_bytes = (uint64_t)st.st_size;
	}
	total = t->info.size_bytes;
	if (wl->offset >= total) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "offset %llu is past the end of the target (%llu bytes)",
			     (unsigned long long)wl->offset, (unsigned long long)total);
		return -EINVAL;
	}
	span = wl->size ? wl->size : total - wl->offset;
	if (wl->size_pct)
		span = rb_workload_pct_of(total - wl->offset, wl->size_pct);
	if (span > total - wl->offset) {
		if (writes || !mix_reads(wl) || wl->size) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "offset + size (%llu bytes) is past the end of the target "
				     "(%llu bytes)",
				     (unsigned long long)(wl->offset + span),
				     (unsigned long long)total);
			return -EINVAL;
		}
	}
	span -= span % wl->bs;
	if (span < wl->bs * wl->numjobs) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "target range holds fewer than numjobs blocks of bs");
		return -EINVAL;
	}
	if (t->info.kind == RB_TARGET_FILE && wl->layout) {
		/* the range is written: only what the guard judged for a write */
		if (!t->judged_write) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "laying out the range is a write the guard did not judge");
			return -EPERM;
		}
		r = rb_target_fill_fd(t->fd, wl->offset, span);
		if (r) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "cannot lay out the range: %s", strerror(-r));
			return r;
		}
	}
	/* a hole reads as zeros from memory: a read of one measures no device */
	if (t->info.kind == RB_TARGET_FILE && mix_reads(wl) && !wl->allow_holes) {
		off_t hole = lseek(t->fd, (off_t)wl->offset, SEEK_HOLE);

		if (hole >= 0 && (uint64_t)hole < wl->offset + span) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "the file has a hole at byte %lld, inside the range to read "
				     "(%llu-%llu): reading holes measures no device; write the "
				     "range first (--layout) or read it as it is (--allow-holes)",
				     (long long)hole, (unsigned long long)wl->offset,
				     (unsigned long long)(wl->offset + span));
			return -EINVAL;
		}
	}
	fl = fcntl(t->fd, F_GETFL);
	if (wl->direct && (fl < 0 || fcntl(t->fd, F_SETFL, fl | O_DIRECT) < 0)) {
		r = -errno;
		if (r == -EINVAL)
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "cannot open with O_DIRECT (the filesystem does not support "
				     "it; set direct: false)");
		else
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path, "cannot use O_DIRECT: %s",
				     strerror(-r));
		return r;
	}
	*ret_span = span;
	return 0;
}

/* Two targets that are one device or one file: refused, naming both. */
static int same_targets(char *const *paths, const struct rb_guard_target *t, size_t n,
			struct rb_diags *d)
{
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		struct stat a, b;

		if (t[i].fd < 0 || fstat(t[i].fd, &a))
			continue;
		for (size_t j = 0; j < i; j++) {
			if (t[j].fd < 0 || fstat(t[j].fd, &b))
				continue;
			if (S_ISBLK(a.st_mode) ? S_ISBLK(b.st_mode) && a.st_rdev == b.st_rdev
					       : a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
				rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, paths[i],
					     "is the same %s as target '%s': one %s measured twice "
					     "at once",
					     S_ISBLK(a.st_mode) ? "device" : "file", paths[j],
					     S_ISBLK(a.st_mode) ? "device" : "file");
				r = -EINVAL;
				break;
			}
		}
	}
	return r;
}

/*
 * What the drive counts of itself at the start, each point's share their delta: FDP's
 * statistics (write amplification), the OCP latency monitor (its own latency buckets),
 * OCP's SMART extended log (the bytes its media wrote).
 */
static void read_counters(struct rb_prepared *p, size_t i, const char *real)
{
	struct rb_ocp_latency ol;
	struct rb_ocp_smart os;

	p->fdp[i] = rb_nvme_fdp_stats(rb_nvme_runs(), real, p->fdp_page[i]) == 0;
	for (unsigned k = 0; k < 2 && p->fdp[i]; k++)
		if (rb_nvme_fdp_events(rb_nvme_runs(), real, k, p->fdp_ev_page[i][k]) == 0)
			p->fdp_ev[i] |= (uint8_t)(1u << k);
	p->ocp[i] = rb_nvme_ocp_latency(rb_nvme_runs(), real, p->ocp_page[i]) == 0 &&
		    rb_ocp_latency_parse(p->ocp_page[i], RB_OCP_LOG_SIZE, &ol) == 0;
	p->ocp_smart[i] = rb_nvme_ocp_smart(rb_nvme_runs(), real, p->ocp_smart_page[i]) == 0 &&
			  rb_ocp_smart_parse(p->ocp_smart_page[i], RB_OCP_LOG_SIZE, &os) == 0;
}
/*
 * The write streams the block device fd has (queue/max_write_streams); -1: the kernel has
 * none (before Linux 6.16); -2: a partition, to which the block layer gives none (a
 * namespace's streams are the whole namespace's).
 */
static long write_streams(int fd)
{
	char dir[96], b[32] = "";
	struct stat st;

	if (fstat(fd, &st) || !S_ISBLK(st.st_mode))
		return 0;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	rb_sysfs_read(dir, "partition", b, sizeof(b));
	if (b[0])
		return -2;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/queue", major(st.st_rdev),
		 minor(st.st_rdev));
	rb_sysfs_read(dir, "max_write_streams", b, sizeof(b));
	return b[0] ? strtol(b, NULL, 10) : -1;
}

/*
 * placement: target t's writes can carry the ids -- the FDP directive on a namespace whose
 * FDP statistics read, or the block layer's write streams -- or the point is refused
 * before anything is laid out or written, saying which is missing and what would do.
 */
static int placement_refusal(const struct rb_workload *wl, const char *path,
			     const struct rb_guard_target *t, struct rb_diags *d)
{
	uint16_t ids[RB_PLACEMENT_MAX], top = 0;
	uint8_t page[64];
	size_t n = 0;
	long streams;

	if (!wl->placement[0] || rb_parse_placement(wl->placement, ids, &n))
		return 0;
	for (size_t i = 0; i < n; i++)
		top = ids[i] > top ? ids[i] : top;
	if (t->info.kind != RB_TARGET_BLOCK) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "placement: a file has no placement: it needs an NVMe namespace "
			     "(engine uring_cmd) or a block device with write streams");
		return -EINVAL;
	}
	if (wl->engine == RB_ENGINE_URING_CMD) {
		unsigned pids = 0;
		int r;

		if (rb_nvme_fdp_stats(rb_nvme_runs(), t->info.real, page)) {
			rb_diags_add(
				d, RB_SEV_ERROR, NULL, 0, 0, path,
				"placement: %s has no Flexible Data Placement to write with: "
				"its FDP statistics log (22h) does not read (the drive lacks FDP, "
				"or it is not enabled on the namespace's endurance group -- "
				"enabling it deletes the group's namespaces, which rackbench does "
				"not do; docs/nvme.md): run the point without placement",
				t->info.real);
			return -EINVAL;
		}
		r = rb_nvme_fdp_pids(rb_nvme_runs(), t->info.real, &pids);
		if (r == -ENODATA) {
			rb_diags_add(
				d, RB_SEV_ERROR, NULL, 0, 0, path,
				"placement: %s has FDP, not enabled on its endurance group (Get "
				"Features 1Dh): enabling it deletes the group's namespaces, which "
				"rackbench does not do (docs/nvme.md); run the point without "
				"placement",
				t->info.real);
			return -EINVAL;
		}
		if (!r && top >= pids) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "placement: id %u is past the %u placement id(s) %s's FDP "
				     "configuration in use allows (0 to %u, its MAXPIDS)",
				     top, pids, t->info.real, pids - 1);
			return -EINVAL;
		}
		/* a configurations log that does not read: a bad id is the drive's to refuse */
		return 0;
	}
	streams = write_streams(t->fd);
	if (streams > top)
		return 0;
	if (streams < 0)
		rb_diags_add(
			d, RB_SEV_ERROR, NULL, 0, 0, path,
			"placement: this kernel has no write streams (queue/max_write_streams: "
			"Linux 6.16 on): use engine uring_cmd on the namespace's /dev/ngXnY "
			"(the FDP directive), or run without placement");
	else
		rb_diags_add(
			d, RB_SEV_ERROR, NULL, 0, 0, path,
			"placement: %s has %ld write stream(s) (queue/max_write_streams), and "
			"placement id %u needs stream %u: the block layer gives streams to NVMe "
			"namespaces with FDP enabled; use engine uring_cmd on the namespace's "
			"/dev/ngXnY, or fewer ids",
			t->info.real, streams, top, top + 1);
	return -EINVAL;
}

/*
 * The passthrough node names the path as well as the drive: a block engine on it would
 * measure the block layer under the name of passthrough; uring_cmd needs a namespace;
 * placement a way to carry its ids.
 */
static int path_refusals(const struct rb_workload *wl, char *const *paths,
			 const struct rb_guard_target *t, size_t n, struct rb_diags *diags)
{
	int r = 0;

	for (size_t i = 0; i < n; i++)
		if (t[i].info.generic[0] && wl->engine != RB_ENGINE_URING_CMD) {
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, paths[i],
				     "is the NVMe passthrough device of %s: run it with engine "
				     "uring_cmd, or name %s for the block layer's path",
				     t[i].info.real, t[i].info.real);
			r = -EINVAL;
		} else if (wl->engine == RB_ENGINE_URING_CMD &&
			   (t[i].info.kind != RB_TARGET_BLOCK ||
			    ioctl(t[i].fd, NVME_IOCTL_ID) <= 0)) {
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, paths[i],
				     "engine uring_cmd sends NVMe commands: it needs an NVMe "
				     "namespace (/dev/nvmeXnY or its /dev/ngXnY), not a %s",
				     t[i].info.kind == RB_TARGET_BLOCK ? "block device of another "
									 "kind"
								       : "file");
			r = -EINVAL;
		} else if (placement_refusal(wl, paths[i], &t[i], diags)) {
			r = -EINVAL;
		}
	return r;
}

int rb_runner_prepare(const struct rb_workload *wl, char *const *paths, size_t n,
		      const struct rb_guard_policy *gp, struct rb_prepared **ret,
		      struct rb_diags *diags)
{
	bool writes = rb_workload_writes(wl);
	bool replay = wl->rw == RB_RW_REPLAY && rb_engine_needs_target(wl->engine);
	struct rb_trace_summary rs = { 0 };
	unsigned how;
	struct rb_guard_target *t;
	struct rb_prepared *p;
	int refused = 0, r = 0;

	p = calloc(1, sizeof(*p));
	t = calloc(n + 1, sizeof(*t));
	if (!p || !t)
		goto out_nomem;
	p->fds = malloc((n + 1) * sizeof(*p->fds));
	p->spans = calloc(n + 1, sizeof(*p->spans));
	p->info = calloc(n + 1, sizeof(*p->info));
	p->power = calloc(n + 1, sizeof(*p->power));
	p->fdp = calloc(n + 1, sizeof(*p->fdp));
	p->fdp_page = calloc(n + 1, sizeof(*p->fdp_page));
	p->zone_reset_ns = calloc(n + 1, sizeof(*p->zone_reset_ns));
	p->ocp = calloc(n + 1, sizeof(*p->ocp));
	p->ocp_page = calloc(n + 1, sizeof(*p->ocp_page));
	p->ocp_smart = calloc(n + 1, sizeof(*p->ocp_smart));
	p->ocp_smart_page = calloc(n + 1, sizeof(*p->ocp_smart_page));
	p->fdp_ev = calloc(n + 1, sizeof(*p->fdp_ev));
	p->fdp_ev_page = calloc(n + 1, sizeof(*p->fdp_ev_page));
	if (!p->fds || !p->spans || !p->info || !p->power || !p->fdp || !p->fdp_page ||
	    !p->zone_reset_ns || !p->ocp || !p->ocp_page || !p->ocp_smart || !p->ocp_smart_page ||
	    !p->fdp_ev || !p->fdp_ev_page)
		goto out_nomem;
	/* a killed run's power states first: the drives' own put back */
	if (rb_engine_needs_target(wl->engine) && gp->state_dir)
		rb_power_restore_pending(rb_nvme_runs(), gp->state_dir);
	for (size_t i = 0; i < n; i++)
		p->fds[i] = t[i].fd = -1;
	p->n = n;
	if (!rb_engine_needs_target(wl->engine)) {
		for (size_t i = 0; i < n && !r; i++)
			r = prepare_null(wl, paths[i], &p->fds[i], &p->spans[i], &p->info[i],
					 diags);
		goto out;
	}
	/* a replay writes when its trace does: read through (streamed) before anything opens */
	if (replay) {
		r = rb_replay_scan(wl, &rs, diags);
		if (r)
			goto out;
		writes = rs.first_write_line != 0;
	}
	/* laying out a range writes it: the whole run is judged as a write */
	how = (writes || wl->layout ? RB_GUARD_WRITE : 0) | (wl->size ? RB_GUARD_CREATE : 0);
	/*
	 * Every target is opened first (a block device to write claimed O_EXCL: nobody
	 * mounts or assembles it from now on), and the guard judges each descriptor
	 * before anything is written or laid out; the run keeps those descriptors, so
	 * nothing can be swapped in between the checks and the IO.
	 */
	for (size_t i = 0; i < n; i++) {
		int e = rb_guard_claim(gp, paths[i], how, &t[i], diags);

		if (e == -EPERM && (how & RB_GUARD_WRITE))
			refused = -EPERM;
		else if (e && !r)
			r = e;
	}
	if (!refused && !r)
		r = same_targets(paths, t, n, diags);
	if (!refused && !r)
		r = path_refusals(wl, paths, t, n, diags);
	if (refused || r) {
		if (refused && replay)
			rb_replay_refused(wl, &rs, diags);
		r = refused ? refused : r;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int e = finish_one(wl, paths[i], gp, writes, &t[i], &p->spans[i], diags);

		if (!e && wl->zns)
			e = rb_zns_prepare(wl, paths[i], t[i].fd, p->spans[i], &p->zone_reset_ns[i],
					   diags);
		if (!e && t[i].info.kind == RB_TARGET_BLOCK)
			read_counters(p, i, t[i].info.real);
		if (!e && wl->power_state[0])
			e = rb_power_apply(rb_nvme_runs(), t[i].info.real,
					   (unsigned)atoi(wl->power_state), gp->state_dir,
					   &p->power[i], diags);

		p->info[i] = t[i].info;
		if (e && !r)
			r = e;
	}
	/* every IO of the trace has a place on each target (or the run is refused, said) */
	for (size_t i = 0; i < n && replay && !r; i++)
		r = rb_replay_fits(
			wl, paths[i], p->spans[i],
			t[i].info.logical_block_size ? t[i].info.logical_block_size : 512, diags);
	for (size_t i = 0; i < n && !r; i++) {
		p->fds[i] = t[i].fd;
		t[i].fd = -1;
	}
out:
	for (size_t i = 0; i < n; i++)
		if (t[i].fd >= 0)
			close(t[i].fd);
	free(t);
	if (r) {
		rb_prepared_free(p);
		return r;
	}
	*ret = p;
	return 0;
out_nomem:
	free(t);
	rb_prepared_free(p);
	return -ENOMEM;
}

bool rb_runner_fdp(const struct rb_prepared *p, size_t i, double *ret_host, double *ret_media)
{
	struct rb_fdp_stats a, b;
	uint8_t now[64];

	if (!p || i >= p->n || !p->fdp[i] ||
	    rb_nvme_fdp_stats(rb_nvme_runs(), p->info[i].real, now) ||
	    rb_fdp_stats_parse(p->fdp_page[i], 64, &a) || rb_fdp_stats_parse(now, 64, &b) ||
	    b.hbmw < a.hbmw || b.mbmw < a.mbmw)
		return false;
	*ret_host = b.hbmw - a.hbmw;
	*ret_media = b.mbmw - a.mbmw;
	return true;
}

bool rb_runner_dev_latency(const struct rb_prepared *p, size_t i, uint32_t threshold_ms[4],
			   uint64_t cmds[3][4])
{
	struct rb_ocp_latency a, b;
	uint8_t now[RB_OCP_LOG_SIZE];

	if (!p || i >= p->n || !p->ocp[i] ||
	    rb_nvme_ocp_latency(rb_nvme_runs(), p->info[i].real, now) ||
	    rb_ocp_latency_parse(p->ocp_page[i], RB_OCP_LOG_SIZE, &a) ||
	    rb_ocp_latency_parse(now, RB_OCP_LOG_SIZE, &b) ||
	    b.bucket_timer_min < a.bucket_timer_min)
		return false;
	/* a monitor that is off counts nothing: zeros would read as a drive never slow */
	if (!(a.feature_status & b.feature_status & 1))
		return false;
	for (int k = 0; k < 4; k++) {
		const struct rb_ocp_lat_counters *x = &a.active[k], *y = &b.active[k];

		/* a counter that fell restarted: the point's share is not known */
		if (y->read < x->read || y->write < x->write || y->trim < x->trim)
			return false;
		cmds[0][k] = y->read - x->read;
		cmds[1][k] = y->write - x->write;
		cmds[2][k] = y->trim - x->trim;
		threshold_ms[k] = b.threshold_ms[k];
	}
	return true;
}

/*
 * Where the events a log holds now begin after those it held at the start (a and b, raw):
 * after the start's last entry, found again (the log keeps them oldest first; older ones
 * fall off its front), else after the newest of its stamps. The index of b's first new one.
 */
static unsigned first_new(const uint8_t *a_raw, const struct rb_fdp_events *a, const uint8_t *b_raw,
			  const struct rb_fdp_events *b)
{
	uint64_t newest = 0;
	unsigned e;

	if (!a->n)
		return 0; /* an empty log then: every event now is the point's */
	for (e = b->n; e-- > 0;)
		if (!memcmp(b_raw + 64 + 64 * e, a_raw + 64 + 64 * (a->n - 1), 64))
			return e + 1;
	for (e = 0; e < a->n; e++)
		newest = a->event[e].timestamp_ms > newest ? a->event[e].timestamp_ms : newest;
	for (e = 0; e < b->n && b->event[e].timestamp_ms <= newest; e++)
		;
	return e;
}

size_t rb_runner_fdp_events(const struct rb_prepared *p, size_t i, struct rb_msg_fdp_event *out,
			    size_t max)
{
	struct rb_fdp_events *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	uint8_t *now = malloc(RB_FDP_EVENTS_SIZE);
	size_t m = 0;

	for (unsigned k = 0; a && b && now && p && i < p->n && k < 2; k++) {
		if (!(p->fdp_ev[i] & (1u << k)) ||
		    rb_nvme_fdp_events(rb_nvme_runs(), p->info[i].real, k, now) ||
		    rb_fdp_events_parse(p->fdp_ev_page[i][k], RB_FDP_EVENTS_SIZE, a) ||
		    rb_fdp_events_parse(now, RB_FDP_EVENTS_SIZE, b))
			continue;
		for (unsigned e = first_new(p->fdp_ev_page[i][k], a, now, b); e < b->n && m < max;
		     e++) {
			const struct rb_fdp_event *x = &b->event[e];

			out[m++] = (struct rb_msg_fdp_event){ .type = x->type,
							      .flags = x->flags,
							      .ruhid = x->ruhid,
							      .pid = x->pid,
							      .rgid = x->rgid,
							      .nlbam = x->nlbam,
							      .nsid = x->nsid,
							      .timestamp_ms = x->timestamp_ms,
							      .lba_valid = x->lba_valid,
							      .lba = x->lba };
		}
	}
	free(a);
	free(b);
	free(now);
	return m;
}

/* A counter's rise from a to b; NaN when it fell (the drive reset it, or it wrapped). */
static double rise(double a, double b)
{
	return b >= a ? b - a : NAN;
}

bool rb_runner_ocp_smart(const struct rb_prepared *p, size_t i, double *ret_media,
			 struct rb_ocp_counters *ret)
{
	struct rb_ocp_smart a, b;
	uint8_t now[RB_OCP_LOG_SIZE];

	if (!p || i >= p->n || !p->ocp_smart[i] ||
	    rb_nvme_ocp_smart(rb_nvme_runs(), p->info[i].real, now) ||
	    rb_ocp_smart_parse(p->ocp_smart_page[i], RB_OCP_LOG_SIZE, &a) ||
	    rb_ocp_smart_parse(now, RB_OCP_LOG_SIZE, &b))
		return false;
	*ret_media = rise(a.media_bytes_written, b.media_bytes_written);
	*ret = (struct rb_ocp_counters){
		.valid = true,
		.throttle_events = rise(a.throttle_events, b.throttle_events),
		.pcie_correctable =
			rise((double)a.pcie_correctable_errors, (double)b.pcie_correctable_errors),
		.link_retrains = rise((double)a.link_retrains, (double)b.link_retrains),
		.power_state_changes =
			rise((double)a.power_state_changes, (double)b.power_state_changes),
		.throttle_status = b.throttle_status,
	};
	return true;
}
