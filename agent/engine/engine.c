// SPDX-License-Identifier: MIT
/*
 * The engine's hot path: a job's IO loop on its own thread (generate, split, submit,
 * complete, verify, sample intervals), its CPU and NUMA pinning, direction statistics and
 * IO error lists. A run's set-up and life are in engine_run.c.
 */
#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "clock.h"
#include "engine_ops.h"
#include "engine_priv.h"

void rb_dir_stats_clear(struct rb_dir_stats *s)
{
	s->ios = s->bytes = s->errors = s->lat_sum_ns = s->lat_max_ns = 0;
	s->lat_min_ns = UINT64_MAX;
	rb_hist_clear(&s->hist);
}

void rb_dir_stats_merge(struct rb_dir_stats *dst, const struct rb_dir_stats *src)
{
	dst->ios += src->ios;
	dst->bytes += src->bytes;
	dst->errors += src->errors;
	dst->lat_sum_ns += src->lat_sum_ns;
	if (src->lat_min_ns < dst->lat_min_ns)
		dst->lat_min_ns = src->lat_min_ns;
	if (src->lat_max_ns > dst->lat_max_ns)
		dst->lat_max_ns = src->lat_max_ns;
	if (src->hist.total)
		rb_hist_merge(&dst->hist, &src->hist);
}

double rb_dir_stats_mean_ns(const struct rb_dir_stats *s)
{
	return s->ios ? (double)s->lat_sum_ns / (double)s->ios : 0.0;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ULL + (uint64_t)tv->tv_usec * 1000ULL;
}

/* The job thread's CPU time, context switches and faults since its IO began (fio's, per
 * job); false when getrusage fails. */
static bool usage_now(const struct job *j, struct rb_usage *u)
{
	const struct rusage *a = &j->ru0;
	struct rusage b;

	if (getrusage(RUSAGE_THREAD, &b) < 0)
		return false;
	u->usr_ns = tv_ns(&b.ru_utime) - tv_ns(&a->ru_utime);
	u->sys_ns = tv_ns(&b.ru_stime) - tv_ns(&a->ru_stime);
	u->ctx = (uint64_t)(b.ru_nvcsw + b.ru_nivcsw - a->ru_nvcsw - a->ru_nivcsw);
	u->majf = (uint64_t)(b.ru_majflt - a->ru_majflt);
	u->minf = (uint64_t)(b.ru_minflt - a->ru_minflt);
	return true;
}

/*
 * Hands interval i of job j to its target's slot. The job's last (final) is handed in
 * in the same critical section as the job counting itself done, so that the poller never
 * sees its last interval without seeing it finished (a size-based target's last interval
 * ends at its last completion: engine_run.c).
 */
static void flush_interval(struct job *j, unsigned i, bool final)
{
	struct tgt *t = j->t;
	struct slot *s = &t->slots[i % SLOTS];
	struct rb_usage u;
	bool used = usage_now(j, &u); /* once an interval: what a status snapshot shows */

	pthread_mutex_lock(&t->mu);
	if (used)
		j->used_sofar = u;
	j->depths_sofar = j->depths;
	while (s->used && s->interval != i)
		pthread_cond_wait(&t->cv, &t->mu);
	if (!s->used) {
		s->used = true;
		s->interval = i;
		s->reported = 0;
		for (int d = 0; d < RB_NDIR; d++)
			rb_dir_stats_clear(&s->d[d]);
	}
	for (int d = 0; d < RB_NDIR; d++)
		rb_dir_stats_merge(&s->d[d], &j->ival[d]);
	s->reported++;
	if (final) {
		t->job_last[j->idx] = i;
		t->jobs_done++;
		pthread_cond_broadcast(&t->cv);
	}
	pthread_mutex_unlock(&t->mu);
	for (int d = 0; d < RB_NDIR; d++) {
		rb_dir_stats_merge(&j->total[d], &j->ival[d]);
		if (j->ival[d].ios || j->ival[d].errors)
			rb_dir_stats_clear(&j->ival[d]);
	}
}

static void advance_to(struct job *j, unsigned idx)
{
	while (j->cur < idx)
		flush_interval(j, j->cur++, false);
}

static bool overlaps_inflight(const struct job *j, const struct rb_io *self, uint64_t pos,
			      uint64_t len)
{
	/* the position as log_offset has it: in the volume, or on the target */
	uint64_t a = (j->t->stripe ? 0 : j->run->wl.offset) + j->region_start + pos;

	for (unsigned i = 0; i < j->ctx.depth; i++) {
		const struct rb_io *o = &j->ios[i];

		if (o == self || !o->busy)
			continue;
		if (a < o->log_offset + o->orig_len && o->log_offset < a + len)
			return true;
	}
	return false;
}

/*
 * An IO across unit boundaries of a volume: a part per unit it touches, each on its
 * member at its place there, each into its piece of the slot's buffer (RAID 0 splits it
 * the same way).
 */
static void split_io(struct job *j, struct rb_io *io, uint64_t l, uint64_t bs)
{
	const struct tgt *t = j->t;
	uint64_t unit = t->stripe, off = 0;
	struct rb_io *parts = j->parts + (size_t)io->slot * j->pmax;

	io->parts = parts;
	while (off < bs && io->nparts < j->pmax) {
		struct rb_io *pt = &parts[io->nparts++];
		uint64_t c = (l + off) / unit, within = (l + off) % unit;
		uint64_t len = unit - within < bs - off ? unit - within : bs - off;

		pt->parent = io;
		pt->slot = io->slot;
		pt->dir = io->dir;
		pt->fd_index = (uint32_t)(c % t->nmembers);
		pt->offset = pt->orig_offset =
			j->run->wl.offset + (c / t->nmembers) * unit + within;
		pt->log_offset = l + off;
		pt->len = pt->orig_len = (uint32_t)len;
		pt->orig_buf = io->orig_buf + off;
		pt->buf = pt->orig_buf;
		off += len;
	}
	io->pending = io->nparts;
}

/*
 * The IO of bs bytes at pos (bytes into the job's region) placed: on the target, or on a
 * member of a striped volume (split when it crosses a unit).
 */
static inline __attribute__((always_inline)) void place_io(struct job *j, struct rb_io *io,
							   uint64_t pos, uint64_t bs, unsigned k)
{
	const struct rb_workload *wl = &j->run->wl;

	io->fd_index = 0;
	io->nparts = 0;
	io->failed = false;
	if (j->t->stripe) {
		/* a striped volume: unit c of the volume is unit c / n of member c % n */
		uint64_t l = j->region_start + pos, unit = j->t->stripe, c, within;
		unsigned nm = j->t->nmembers;

		c = l / unit;
		within = l % unit;
		io->fd_index = (uint32_t)(c % nm);
		io->offset = wl->offset + (c / nm) * unit + within;
		io->log_offset = l;
		if (within + bs > unit)
			split_io(j, io, l, bs);
	} else {
		io->log_offset = wl->offset + j->region_start + pos;
		io->offset = io->log_offset;
	}
	io->orig_offset = io->offset;
	io->len = io->orig_len = (uint32_t)bs;
	io->bs_index = k;
	io->buf = io->orig_buf;
}

void rb_engine_invalidate(struct job *j)
{
	const struct rb_workload *wl = &j->run->wl;
	const int *fds = j->ctx.fds ? j->ctx.fds : &j->ctx.fd;
	unsigned n = j->ctx.nfds ? j->ctx.nfds : 1;

	j->pass_bytes = 0;
	for (unsigned i = 0; i < n; i++) {
		/* a block device: its dirty buffers written and all dropped (fio's way; root) */
		if (j->ctx.blockdev && ioctl(fds[i], BLKFLSBUF, 0) == 0)
			continue;
		/* a volume's members each hold a share: all of each, else the job's range */
		posix_fadvise(fds[i], n > 1 ? 0 : (off_t)(wl->offset + j->region_start),
			      n > 1 ? 0 : (off_t)j->region_bytes, POSIX_FADV_DONTNEED);
	}
}

static void gen_io(struct job *j, struct rb_io *io)
{
	const struct rb_run *r = j->run;
	const struct rb_workload *wl = &r->wl;
	unsigned k = r->split.n > 1 ? rb_alias_draw(&r->alias, &j->rng) : 0;
	uint64_t bs = r->split.bs[k], pos;

	switch (wl->rw) {
	case RB_RW_READ:
	case RB_RW_RANDREAD:
		io->dir = RB_DIR_READ;
		break;
	case RB_RW_WRITE:
	case RB_RW_RANDWRITE:
		io->dir = RB_DIR_WRITE;
		break;
	case RB_RW_TRIM:
	case RB_RW_RANDTRIM:
	case RB_RW_WRITEZEROES:
	case RB_RW_RANDWRITEZEROES:
		io->dir = RB_DIR_TRIM; /* the third kind: trims, or write-zeroes (ctx.zeroes) */
		break;
	default:
		io->dir = rb_rng_below(&j->rng, 100) < wl->rwmixread ? RB_DIR_READ : RB_DIR_WRITE;
		break;
	}
	if (rb_rw_random(wl->rw)) {
		/* a position on the unit grid where the largest size still fits; with
		 * verify, not over an IO of this job in flight (a read racing a write to
		 * the same chunk would read a torn block) */
		for (int tries = 0;; tries++) {
			pos = rb_offgen_next(&j->off, &j->rng) * r->unit;
			if (!wl->verify || tries == 64 || !overlaps_inflight(j, io, pos, bs))
				break;
		}
	} else {
		if (j->seq_pos + bs > j->region_bytes) {
			j->seq_pos = 0;
			j->pass++;
		}
		pos = j->seq_pos;
		j->seq_pos += bs;
	}
	place_io(j, io, pos, bs, k);
	/* buffered: a pass's worth issued, the next reads the drive again, not the cache */
	if (j->invalidate && (j->pass_bytes += bs) > j->region_bytes) {
		rb_engine_invalidate(j);
		j->pass_bytes = bs;
	}
	if (wl->verify && io->dir == RB_DIR_WRITE)
		rb_verify_stamp(io->buf, bs, io->log_offset, j->pass, (uint32_t)wl->seed);
}

/*
 * A replay's next IO, when due: true and its instant; false when the trace ended (or
 * failed: the job's error), with nothing more to issue.
 */
static bool replay_due(struct job *j, int64_t *ret_due)
{
	int e = rb_engine_replay_peek(j, ret_due);

	if (e > 0)
		return true;
	if (e < 0 && !j->err)
		j->err = e;
	j->replay_done = true;
	return false;
}

/* The replay's IO due at due, into io: the trace's place, length and direction. */
static void replay_io(struct job *j, struct rb_io *io, int64_t due)
{
	uint64_t pos, len;
	uint32_t dir;

	rb_engine_replay_take(j, io->slot, due, &pos, &len, &dir);
	io->dir = dir;
	place_io(j, io, pos, len, 0);
}

static void on_mismatch(void *arg, const struct rb_verify_mismatch *m)
{
	struct job *j = arg;

	if (j->nvmis < RB_MAX_IO_ERRORS)
		j->vmis[j->nvmis++] = *m;
}

void rb_io_error_add(struct rb_io_error *list, unsigned *n, unsigned max,
		     const struct rb_io_error *e)
{
	for (unsigned i = 0; i < *n; i++) {
		struct rb_io_error *x = &list[i];

		if (x->offset == e->offset && x->length == e->length && x->dir == e->dir &&
		    x->err == e->err) {
			x->count += e->count;
			return;
		}
	}
	if (*n < max)
		list[(*n)++] = *e;
}

/* An error's place in the list: striped volumes report volume offsets; a short IO's rest
 * where it failed. */
static void list_error(struct job *j, struct rb_io *io, int err)
{
	struct rb_io_error e = { .offset = io->log_offset + (io->offset - io->orig_offset),
				 .length = io->len,
				 .dir = io->dir,
				 .err = err,
				 .count = 1 };

	/* errors are rare: a short linear merge keeps the list readable */
	rb_io_error_add(j->errs, &j->nerrs, RB_MAX_IO_ERRORS, &e);
}

static void record_error(struct job *j, struct rb_io *io, int err)
{
	j->ival[io->dir].errors++;
	list_error(j, io, err);
}

/*
 * A part of a split IO is done (or failed): returns the IO once its last part is, with
 * res telling how it went; NULL while parts are out. A part's error is listed at its
 * own offset; the IO counts as one error.
 */
static struct rb_io *part_done(struct job *j, struct rb_io *pt, int *res)
{
	struct rb_io *io = pt->parent;

	if (*res < 0) {
		list_error(j, pt, -*res);
		io->failed = true;
	} else if (pt->dir == RB_DIR_TRIM || (uint32_t)*res >= pt->len) {
		/* whole */
	} else if (*res == 0) {
		list_error(j, pt, ENOSPC);
		io->failed = true;
	} else {
		/* a short part: its rest goes again */
		pt->offset += (uint64_t)*res;
		pt->buf += *res;
		pt->len -= (uint32_t)*res;
		j->run->ops->prep(&j->ctx, pt);
		return NULL;
	}
	if (--io->pending)
		return NULL;
	if (io->failed) {
		j->ival[io->dir].errors++;
		*res = -EIO;
	} else {
		*res = (int)io->len;
	}
	return io;
}

/* Returns the IO finished (its slot free again), or NULL while it is not. */
static inline __attribute__((always_inline)) struct rb_io *complete(struct job *j, struct rb_io *io,
								    int res, int64_t now)
{
	struct rb_run *r = j->run;
	struct rb_dir_stats *s;
	uint64_t lat;

	if (io->parent) {
		io = part_done(j, io, &res);
		if (!io || io->failed)
			return io;
	}
	if (res < 0) {
		if (res == -EOPNOTSUPP && r->wl.iopoll && !j->err) {
			snprintf(j->msg, sizeof(j->msg),
				 "IOPOLL: the device has no poll queues (NVMe: boot with "
				 "nvme.poll_queues=N)");
			j->err = res;
		}
		record_error(j, io, -res);
		return io;
	}
	/* a trim (fallocate) completes with 0, all of it or nothing */
	if (io->dir == RB_DIR_TRIM)
		res = (int)io->len;
	if ((uint32_t)res < io->len) {
		if (res == 0) {
			/* nothing more to read or write there: the target shrank */
			record_error(j, io, ENOSPC);
			return io;
		}
		/* a short IO: the rest goes again, keeping its first submission time */
		io->offset += (uint64_t)res;
		io->buf += res;
		io->len -= (uint32_t)res;
		r->ops->prep(&j->ctx, io);
		return NULL;
	}
	if (r->wl.verify && io->dir == RB_DIR_READ)
		rb_verify_check(io->orig_buf, io->orig_len, io->log_offset,
				!rb_workload_writes(&r->wl), &j->vst, on_mismatch, j);
	if (now < r->measure_ns)
		return io;
	if (now > j->last_completion)
		j->last_completion = now;
	uint64_t idx64 = (uint64_t)(now - r->measure_ns) / r->wl.interval_ns;
	unsigned idx = idx64 >= r->nintervals ? r->nintervals - 1 : (unsigned)idx64;

	if (idx > j->cur)
		advance_to(j, idx);
	lat = (uint64_t)(now - io->submit_ns);
	s = &j->ival[io->dir];
	rb_dir_stats_record(s, io->orig_len, lat);
	j->bs_ios[io->dir][io->bs_index]++;
	if (j->latlog)
		fwrite(&lat, sizeof(lat), 1, j->latlog);
	return io;
}

/*
 * fio's IO-depth counts of a measured submission of q IOs leaving inflight in flight, and
 * of the wait for completions that reaped got: a few adds a system call, no allocation.
 */
static inline __attribute__((always_inline)) void count_depths(struct job *j, unsigned q,
							       uint64_t inflight, int got)
{
	if (q) {
		j->depths.level[rb_fio_depth_index((unsigned)inflight)] += q;
		j->depths.submit[rb_fio_batch_index(q)]++;
	}
	j->depths.complete[rb_fio_batch_index((unsigned)got)]++;
}

/* IO k of job j is due at (k * numjobs + j) / rate: evenly spaced, exact over the run, the
 * total shared by the jobs */
static inline __attribute__((always_inline)) int64_t rate_due(const struct job *j, uint64_t rate,
							      uint64_t n)
{
	return j->run->start_ns +
	       (int64_t)(((unsigned __int128)(j->issued * n + j->idx) * 1000000000ULL) / rate);
}

/* The got completions reaped at now: each IO finished frees its slot. */
static inline __attribute__((always_inline)) void reap(struct job *j, int got, int64_t now,
						       uint64_t *inflight)
{
	for (int k = 0; k < got; k++) {
		struct rb_io *fin = complete(j, j->done[k], j->res[k], now);

		if (fin) {
			fin->busy = false;
			j->freelist[j->nfree++] = fin;
			(*inflight)--;
		}
	}
}

/*
 * Nothing in flight: to the next due IO. spin and poll sleep to SPIN_NS before it, then
 * spin to it (as fio does at a set rate: the CPU never idles between IOs).
 */
static inline __attribute__((always_inline)) void idle_until(struct rb_run *r, int64_t now,
							     int64_t next_due, bool spin)
{
	if (spin && next_due - now <= SPIN_NS && r->clock.spin_until)
		r->clock.spin_until(r->clock.arg, next_due);
	else
		r->clock.sleep_until(r->clock.arg, spin && next_due - now > SPIN_NS
							   ? next_due - SPIN_NS
							   : next_due);
}

/*
 * How long the submit may wait for a completion: UINT64_MAX with nothing due, without a
 * timer (arming one per call costs; in-flight IOs always complete or fail); to the next
 * due IO under a rate. spin waits for a completion without a timer, as fio does at a set
 * rate (its quiesce): an IO due meanwhile leaves late, the next ones catch up. poll does
 * not wait within SPIN_NS of a due IO or of the last event (a submission, a completion);
 * farther off it sleeps to SPIN_NS before the due time, or (nothing due) waits.
 */
static inline __attribute__((always_inline)) uint64_t wait_for(int64_t now, int64_t next_due,
							       int64_t last_event, unsigned q,
							       uint64_t inflight, bool spin,
							       bool poll)
{
	uint64_t wait = UINT64_MAX;

	if (next_due)
		wait = next_due > now ? (uint64_t)(next_due - now) : 0;
	if (poll && wait) {
		if (q || now - last_event < SPIN_NS || wait <= SPIN_NS)
			wait = 0;
		else if (wait != UINT64_MAX)
			wait -= SPIN_NS;
	} else if (spin && next_due && inflight + q) {
		wait = UINT64_MAX;
	}
	return wait;
}

/*
 * A job's IO loop; replay (a constant where it is inlined) makes it the replay's: IOs from
 * the trace, each when due, until the trace ends. Every other workload runs the loop
 * compiled without it.
 */
static inline __attribute__((always_inline)) void job_loop_of(struct job *j, const bool replay)
{
	struct rb_run *r = j->run;
	const struct rb_engine_ops *ops = r->ops;
	const uint64_t rate = j->t->rate_iops, n = r->wl.numjobs;
	const bool spin = j->ctx.completion != RB_COMPLETION_WAIT,
		   poll = j->ctx.completion == RB_COMPLETION_POLL;
	uint64_t inflight = 0;
	bool issuing = true;
	int64_t now = now_ns(r), last_event = now;

	for (;;) {
		unsigned q = 0;
		int64_t next_due = 0, due = 0;
		int got;

		if (issuing && (now >= r->end_ns || j->err ||
				atomic_load_explicit(&r->stop, memory_order_relaxed) ||
				(j->limit_bytes && j->issued_bytes >= j->limit_bytes) ||
				(replay && j->replay_done)))
			issuing = false;
		while (issuing && j->nfree && (!r->wl.submit_batch || q < r->wl.submit_batch)) {
			if (replay) {
				if (!replay_due(j, &due))
					break;
				if (due > now) {
					next_due = due;
					break;
				}
			} else if (rate) {
				due = rate_due(j, rate, n);
				if (due > now) {
					next_due = due;
					break;
				}
			}
			if (j->limit_bytes && j->issued_bytes >= j->limit_bytes)
				break;
			struct rb_io *io = j->freelist[--j->nfree];

			if (replay)
				replay_io(j, io, due);
			else
				gen_io(j, io);
			io->busy = true;
			if (io->nparts)
				for (unsigned p = 0; p < io->nparts; p++)
					ops->prep(&j->ctx, &io->parts[p]);
			else
				ops->prep(&j->ctx, io);
			j->queued[q++] = io;
			j->issued++;
			j->issued_bytes += io->orig_len;
		}
		/* a short IO's requeued rest still counts in flight */
		if (!inflight && !q) {
			if (!issuing)
				break;
			if (next_due)
				idle_until(r, now, next_due, spin);
			now = now_ns(r);
			continue;
		}
		uint64_t wait = wait_for(now, next_due, last_event, q, inflight, spin, poll);

		/* latency starts here: just before the submitting system call */
		if (q) {
			int64_t ts = now_ns(r);

			for (unsigned k = 0; k < q; k++)
				j->queued[k]->submit_ns = ts;
			if (replay)
				rb_engine_replay_submitted(j, j->queued, q, ts);
			inflight += q;
		}
		unsigned want = r->wl.complete_batch;

		if (want > inflight)
			want = (unsigned)inflight;
		bool measured = now >= r->measure_ns;

		got = ops->submit_reap(&j->ctx, wait, want, j->done, j->res, j->ctx.entries);
		now = now_ns(r);
		if (got < 0) {
			snprintf(j->msg, sizeof(j->msg), "io_uring_enter failed: %s",
				 strerror(-got));
			j->err = got;
			break;
		}
		if (got > 0 || q)
			last_event = now;
		if (measured)
			count_depths(j, q, inflight, got);
		reap(j, got, now, &inflight);
	}
}

static void job_loop(struct job *j)
{
	job_loop_of(j, false);
}

static __attribute__((noinline)) void job_loop_replay(struct job *j)
{
	job_loop_of(j, true);
}

/* The CPUs of the NUMA node the device behind fd hangs off; 0 when unknown. */
static size_t numa_cpus(int fd, unsigned *cpus, size_t max)
{
	struct stat st;
	char path[128], buf[512];
	FILE *f;
	int node = -1;
	size_t n = 0;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode))
		return 0;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/device/numa_node", major(st.st_rdev),
		 minor(st.st_rdev));
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	if (node < 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (rb_parse_cpus(buf, cpus, max, &n))
		return 0;
	return n;
}

/* Pins the job as --cpus or --numa say; returns the CPU, or -1 when not pinned. */
static int pin_job(struct job *j, size_t global_index)
{
	unsigned list[4096];
	size_t n = 0;
	cpu_set_t set;

	if (j->run->wl.cpus[0])
		rb_parse_cpus(j->run->wl.cpus, list, 4096, &n);
	else if (j->run->wl.numa)
		n = numa_cpus(j->ctx.fd, list, 4096);
	if (!n)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(list[global_index % n], &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		return -1;
	return (int)list[global_index % n];
}

void *rb_job_main(void *arg)
{
	struct job *j = arg;
	struct rb_run *r = j->run;
	int cpu = pin_job(j, (size_t)(j - r->jobs));

	/*
	 * A rate limit sleeps until each IO is due; Linux lets a sleep run late by the
	 * thread's timer slack (50 us by default: an IO's whole spacing at 20k IOPS), and
	 * IOs due meanwhile would then leave together. The job's sleeps are exact instead.
	 */
	if (j->t->rate_iops || (r->replay && r->replay_speed > 0))
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	j->err = r->ops->setup(&j->ctx, j->msg, sizeof(j->msg));
	j->ctx_ready = j->err == 0;
	if (j->ctx.completion != RB_COMPLETION_WAIT) {
		size_t l = strlen(j->ctx.features);

		snprintf(j->ctx.features + l, sizeof(j->ctx.features) - l, "%s%s",
			 l && j->ctx.features[l - 1] != ' ' ? " " : "",
			 j->ctx.completion == RB_COMPLETION_POLL ? "poll" : "spin");
	}
	if (cpu >= 0) {
		size_t l = strlen(j->ctx.features);

		snprintf(j->ctx.features + l, sizeof(j->ctx.features) - l, "%scpu%d",
			 l && j->ctx.features[l - 1] != ' ' ? " " : "", cpu);
	}
	if (pthread_barrier_wait(&r->b1) == PTHREAD_BARRIER_SERIAL_THREAD) {
		/* every ring is ready: start all jobs at one instant (the one asked for, if ahead) */
		r->start_ns = now_ns(r) + 1000000;
		if (r->start_at > r->start_ns)
			r->start_ns = r->start_at;
		r->measure_ns = r->start_ns + (int64_t)r->wl.ramp_ns;
		/* a size-based run ends with its bytes; runtime does not cut it short (a
		 * replay's it does, when shorter than the trace), max_runtime does */
		r->end_ns = !r->size_based || r->replay ? r->measure_ns + (int64_t)r->wl.runtime_ns
			    : r->wl.max_runtime_ns ? r->measure_ns + (int64_t)r->wl.max_runtime_ns
						   : INT64_MAX;
		r->wall_offset = rb_wall_ns() - now_ns(r);
	}
	pthread_barrier_wait(&r->b2);
	if (getrusage(RUSAGE_THREAD, &j->ru0) < 0)
		memset(&j->ru0, 0, sizeof(j->ru0));
	if (!j->err) {
		r->clock.sleep_until(r->clock.arg, r->start_ns);
		if (r->replay)
			job_loop_replay(j);
		else
			job_loop(j);
	}
	usage_now(j, &j->used);
	/*
	 * The ring is torn down by the thread that set it up: a ring of one issuer takes
	 * (un)registrations from that thread only, and its registered files must be let go
	 * now -- left to the ring's asynchronous exit they would hold an O_EXCL-claimed
	 * device past the run.
	 */
	if (j->ctx_ready) {
		r->ops->teardown(&j->ctx);
		j->ctx_ready = false;
	}
	/* hand in every interval of a time-based run (idle ones too: a stalled drive
	 * shows); stopped and size-based jobs up to the one they were in */
	if (!atomic_load(&r->stop) && !j->err && !r->size_based)
		advance_to(j, r->nintervals - 1);
	flush_interval(j, j->cur, true);
	return NULL;
}
