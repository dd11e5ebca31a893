// SPDX-License-Identifier: MIT
#include "engine.h"

#include <errno.h>
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

#define SLOTS 8
#define WAIT_CAP_NS 100000000ULL /* re-check the stop flag at least this often */

struct slot {
	bool used;
	unsigned interval;
	unsigned reported;
	struct rb_dir_stats d[RB_NDIR];
};

struct tgt {
	struct rb_run *run;
	int fd;
	uint64_t span;
	/* a striped volume (stripe > 0): unit c of the volume is unit c / n of member c % n */
	uint64_t stripe;
	unsigned nmembers;
	const int *member_fds;	/* into run->member_fds; else &fd */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot slots[SLOTS];
	unsigned next_emit;
	unsigned jobs_done;
	unsigned *job_last;	/* last interval a finished job handed in; UINT32_MAX: running */
	uint64_t rate_iops;	/* this target's limit (the workload's unless set apart) */
	struct rb_dir_stats scratch[RB_NDIR];
	struct rb_target_result res;
};

struct job {
	struct rb_run *run;
	struct tgt *t;
	unsigned tidx, idx;	/* target index, job index within the target */
	struct rb_engine_ctx ctx;
	bool ctx_ready;
	struct rb_io *ios;
	struct rb_io *parts;	/* striped volumes: pmax per slot, for IOs across units */
	unsigned pmax;		/* parts one IO may need (1: never split) */
	struct rb_io **freelist;
	unsigned nfree;
	struct rb_io **done;
	struct rb_io **queued;
	int *res;
	struct rb_rng rng;
	struct rb_offgen off;
	uint64_t region_start, region_bytes, seq_pos; /* bytes */
	uint64_t limit_bytes, issued_bytes;	/* size-based runs */
	struct rb_dir_stats ival[RB_NDIR], total[RB_NDIR];
	uint64_t bs_ios[RB_NDIR][RB_BS_MAX];
	unsigned cur;
	uint64_t issued;
	struct rb_io_error errs[RB_MAX_IO_ERRORS];
	unsigned nerrs;
	struct rb_verify_stats vst;
	struct rb_verify_mismatch vmis[RB_MAX_IO_ERRORS];
	unsigned nvmis;
	uint32_t pass;		/* sequential passes done: the verify generation */
	unsigned inflight_n;	/* verify: IOs in flight, to keep them apart */
	uint64_t usr_ns, sys_ns;
	int64_t last_completion;
	FILE *latlog;		/* debug: every measured IO's latency, uint64 ns */
	pthread_t th;
	bool started;
	int err;
	char msg[256];
};

struct rb_run {
	struct rb_workload wl;
	const struct rb_engine_ops *ops;
	size_t ntgt, njobs;
	struct tgt *tgts;
	struct job *jobs;
	atomic_bool stop;
	pthread_barrier_t b1, b2;
	bool started;
	int64_t start_ns, measure_ns, end_ns, wall_offset;
	int64_t start_at;	/* asked-for start, CLOCK_MONOTONIC; 0: at once */
	unsigned nintervals;	/* UINT32_MAX for size-based runs: no fixed count */
	bool size_based;
	struct rb_bssplit split;
	struct rb_alias alias;
	uint64_t unit, max_bs;	/* offset granularity (smallest size), largest size */
	struct rb_clock clock;
	int *member_fds;	/* every descriptor given, volumes' members in order */
	uint64_t *spans;	/* per target (a volume's: its members' whole units) */
};

static inline int64_t now_ns(const struct rb_run *r)
{
	return r->clock.now(r->clock.arg);
}

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

static uint64_t thread_cpu_ns(bool sys)
{
	struct rusage ru;
	const struct timeval *tv = sys ? &ru.ru_stime : &ru.ru_utime;

	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		return 0;
	return (uint64_t)tv->tv_sec * 1000000000ULL + (uint64_t)tv->tv_usec * 1000ULL;
}

static void flush_interval(struct job *j, unsigned i)
{
	struct tgt *t = j->t;
	struct slot *s = &t->slots[i % SLOTS];

	pthread_mutex_lock(&t->mu);
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
		flush_interval(j, j->cur++);
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
		pt->offset = pt->orig_offset = j->run->wl.offset + (c / t->nmembers) * unit + within;
		pt->log_offset = l + off;
		pt->len = pt->orig_len = (uint32_t)len;
		pt->orig_buf = io->orig_buf + off;
		pt->buf = pt->orig_buf;
		off += len;
	}
	io->pending = io->nparts;
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
		io->dir = RB_DIR_TRIM;
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
	if (wl->verify && io->dir == RB_DIR_WRITE)
		rb_verify_stamp(io->buf, bs, io->log_offset, j->pass, (uint32_t)wl->seed);
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
				 .length = io->len, .dir = io->dir, .err = err, .count = 1 };

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
static struct rb_io *complete(struct job *j, struct rb_io *io, int res, int64_t now)
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
	s->ios++;
	s->bytes += io->orig_len;
	j->bs_ios[io->dir][io->bs_index]++;
	s->lat_sum_ns += lat;
	if (lat < s->lat_min_ns)
		s->lat_min_ns = lat;
	if (lat > s->lat_max_ns)
		s->lat_max_ns = lat;
	rb_hist_record(&s->hist, lat);
	if (j->latlog)
		fwrite(&lat, sizeof(lat), 1, j->latlog);
	return io;
}

static void job_loop(struct job *j)
{
	struct rb_run *r = j->run;
	const struct rb_engine_ops *ops = r->ops;
	const uint64_t rate = j->t->rate_iops, n = r->wl.numjobs;
	uint64_t inflight = 0;
	bool issuing = true;
	int64_t now = now_ns(r);

	for (;;) {
		unsigned q = 0;
		int64_t next_due = 0;
		int got;

		if (issuing && (now >= r->end_ns || j->err ||
				atomic_load_explicit(&r->stop, memory_order_relaxed) ||
				(j->limit_bytes && j->issued_bytes >= j->limit_bytes)))
			issuing = false;
		while (issuing && j->nfree && (!r->wl.submit_batch || q < r->wl.submit_batch)) {
			if (rate) {
				/* IO k of job j is due at (k * numjobs + j) / rate: evenly spaced,
				 * exact over the run, the total shared by the jobs */
				int64_t due = r->start_ns +
					      (int64_t)(((unsigned __int128)(j->issued * n + j->idx) *
							 1000000000ULL) / rate);
				if (due > now) {
					next_due = due;
					break;
				}
			}
			if (j->limit_bytes && j->issued_bytes >= j->limit_bytes)
				break;
			struct rb_io *io = j->freelist[--j->nfree];

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
				r->clock.sleep_until(r->clock.arg, next_due);
			now = now_ns(r);
			continue;
		}
		/*
		 * With IOs in flight and nothing due, wait for a completion without a timer
		 * (arming one per call costs); in-flight IOs always complete or fail. A rate
		 * limit waits until the next IO is due.
		 */
		uint64_t wait = UINT64_MAX;

		if (next_due)
			wait = next_due > now ? (uint64_t)(next_due - now) : 0;
		else if (!inflight && !q)
			wait = WAIT_CAP_NS;
		/* latency starts here: just before the submitting system call */
		if (q) {
			int64_t ts = now_ns(r);

			for (unsigned k = 0; k < q; k++)
				j->queued[k]->submit_ns = ts;
			inflight += q;
		}
		unsigned want = r->wl.complete_batch;

		if (want > inflight)
			want = (unsigned)inflight;
		got = ops->submit_reap(&j->ctx, wait, want, j->done, j->res, j->ctx.entries);
		now = now_ns(r);
		if (got < 0) {
			snprintf(j->msg, sizeof(j->msg), "io_uring_enter failed: %s", strerror(-got));
			j->err = got;
			break;
		}
		for (int k = 0; k < got; k++) {
			struct rb_io *fin = complete(j, j->done[k], j->res[k], now);

			if (fin) {
				fin->busy = false;
				j->freelist[j->nfree++] = fin;
				inflight--;
			}
		}
	}
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

static void *job_main(void *arg)
{
	struct job *j = arg;
	struct rb_run *r = j->run;
	uint64_t u0, s0;
	int cpu = pin_job(j, (size_t)(j - r->jobs));

	/*
	 * A rate limit sleeps until each IO is due; Linux lets a sleep run late by the
	 * thread's timer slack (50 us by default: an IO's whole spacing at 20k IOPS), and
	 * IOs due meanwhile would then leave together. The job's sleeps are exact instead.
	 */
	if (j->t->rate_iops)
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	j->err = r->ops->setup(&j->ctx, j->msg, sizeof(j->msg));
	j->ctx_ready = j->err == 0;
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
		/* a size-based run ends with its bytes; runtime does not cut it short */
		r->end_ns = r->size_based ? INT64_MAX
					  : r->measure_ns + (int64_t)r->wl.runtime_ns;
		r->wall_offset = rb_wall_ns() - now_ns(r);
	}
	pthread_barrier_wait(&r->b2);
	u0 = thread_cpu_ns(false);
	s0 = thread_cpu_ns(true);
	if (!j->err) {
		r->clock.sleep_until(r->clock.arg, r->start_ns);
		job_loop(j);
	}
	j->usr_ns = thread_cpu_ns(false) - u0;
	j->sys_ns = thread_cpu_ns(true) - s0;
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
	flush_interval(j, j->cur);
	pthread_mutex_lock(&j->t->mu);
	j->t->job_last[j->idx] = j->cur;
	j->t->jobs_done++;
	pthread_cond_broadcast(&j->t->cv);
	pthread_mutex_unlock(&j->t->mu);
	return NULL;
}

void rb_run_set_start_at(struct rb_run *r, int64_t mono_ns)
{
	r->start_at = mono_ns;
}

int rb_run_set_target_rate(struct rb_run *r, size_t target, uint64_t iops)
{
	if (target >= r->ntgt || r->started)
		return -EINVAL;
	r->tgts[target].rate_iops = iops;
	return 0;
}

int rb_run_set_lat_log(struct rb_run *r, const char *path, char *err, size_t errlen)
{
	for (size_t k = 0; k < r->njobs; k++) {
		char name[4096];

		if (r->njobs == 1)
			snprintf(name, sizeof(name), "%s", path);
		else
			snprintf(name, sizeof(name), "%s.%zu", path, k);
		r->jobs[k].latlog = fopen(name, "wxe");
		if (!r->jobs[k].latlog) {
			snprintf(err, errlen, "cannot create latency log '%s': %s", name,
				 strerror(errno));
			return -errno;
		}
		/* a large buffer: a write per 64 Ki IOs, not per IO */
		setvbuf(r->jobs[k].latlog, NULL, _IOFBF, 1 << 19);
	}
	return 0;
}

void rb_run_set_clock(struct rb_run *r, const struct rb_clock *c)
{
	r->clock = *c;
}

void rb_run_set_ops(struct rb_run *r, const struct rb_engine_ops *ops)
{
	r->ops = ops;
}

int rb_run_new(const struct rb_workload *wl, const int *fds, const uint64_t *span_bytes,
	       size_t n, struct rb_run **ret, char *err, size_t errlen)
{
	/* with 'stripe' the targets given form one volume */
	struct rb_volume one = { .members = (unsigned)n, .stripe = wl->stripe };

	return rb_run_new_volumes(wl, fds, span_bytes, n, wl->stripe ? &one : NULL,
				  wl->stripe ? 1 : n, ret, err, errlen);
}

static const struct rb_engine_ops *ops_for(uint32_t engine)
{
	return engine == RB_ENGINE_NULL ? &rb_engine_null
	       : engine == RB_ENGINE_NOP ? &rb_engine_nop
					 : &rb_engine_uring;
}

int rb_run_new_volumes(const struct rb_workload *wl, const int *fds, const uint64_t *span_bytes,
		       size_t nfds, const struct rb_volume *vols, size_t n, struct rb_run **ret,
		       char *err, size_t errlen)
{
	struct rb_run *r;
	struct rb_dist dist;
	uint64_t *spans = NULL;
	size_t used = 0;

	if (!n || !nfds || !wl->bs || !wl->iodepth || !wl->numjobs) {
		snprintf(err, errlen, "nothing to run");
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->wl = *wl;
	r->clock = rb_clock_real;
	r->ops = ops_for(wl->engine);
	r->member_fds = malloc(nfds * sizeof(int));
	spans = calloc(n, sizeof(*spans));
	if (!r->member_fds || !spans) {
		free(spans);
		free(r->member_fds);
		free(r);
		return -ENOMEM;
	}
	r->spans = spans;
	memcpy(r->member_fds, fds, nfds * sizeof(int));
	/* a volume's span: whole units of its smallest member, times its members */
	for (size_t t = 0; t < n; t++) {
		unsigned nm = vols ? vols[t].members : 1;
		uint64_t unit = vols ? vols[t].stripe : 0, min = UINT64_MAX;

		if (!nm || used + nm > nfds) {
			snprintf(err, errlen, "target %zu: %u member(s), %zu descriptor(s) left", t,
				 nm, nfds - used);
			goto out_inval;
		}
		for (unsigned m = 0; m < nm; m++)
			if (span_bytes[used + m] < min)
				min = span_bytes[used + m];
		spans[t] = unit ? (min / unit) * unit * nm : min;
		if (unit && !spans[t]) {
			snprintf(err, errlen, "'stripe' (%llu bytes) is larger than a member",
				 (unsigned long long)unit);
			goto out_inval;
		}
		used += nm;
	}
	span_bytes = spans;
	r->ntgt = n;
	r->njobs = n * wl->numjobs;
	r->size_based = wl->io_size || wl->passes;
	if (r->size_based)
		r->nintervals = UINT32_MAX;
	else
		r->nintervals = (unsigned)((wl->runtime_ns + wl->interval_ns - 1) / wl->interval_ns);
	if (!r->nintervals)
		r->nintervals = 1;
	if (wl->bssplit[0]) {
		if (rb_bssplit_parse(wl->bssplit, &r->split, err, errlen)) {
			rb_run_free(r);
			return -EINVAL;
		}
	} else {
		r->split.n = 1;
		r->split.bs[0] = wl->bs;
		r->split.weight[0] = 1;
	}
	r->unit = r->max_bs = r->split.bs[0];
	for (unsigned k = 0; k < r->split.n; k++) {
		if (r->split.weight[k] > 0 && r->split.bs[k] < r->unit)
			r->unit = r->split.bs[k];
		if (r->split.bs[k] > r->max_bs)
			r->max_bs = r->split.bs[k];
	}
	rb_alias_init(&r->alias, r->split.weight, r->split.n);
	if (rb_dist_parse(wl->random_distribution[0] ? wl->random_distribution : "uniform", &dist,
			  err, errlen)) {
		rb_run_free(r);
		return -EINVAL;
	}
	r->tgts = calloc(n, sizeof(*r->tgts));
	r->jobs = calloc(r->njobs, sizeof(*r->jobs));
	if (!r->tgts || !r->jobs)
		goto out_nomem;
	size_t first = 0;

	for (size_t t = 0; t < n; t++) {
		struct tgt *tg = &r->tgts[t];

		if (span_bytes[t] / wl->numjobs < r->max_bs) {
			snprintf(err, errlen,
				 "target %zu: %llu bytes hold fewer than numjobs (%u) blocks of %llu "
				 "bytes", t, (unsigned long long)span_bytes[t], wl->numjobs,
				 (unsigned long long)r->max_bs);
			rb_run_free(r);
			return -EINVAL;
		}
		tg->run = r;
		tg->member_fds = r->member_fds + first;
		tg->nmembers = vols ? vols[t].members : 1;
		tg->stripe = vols ? vols[t].stripe : 0;
		tg->fd = tg->member_fds[0];
		tg->span = span_bytes[t];
		first += tg->nmembers;
		/* an IO across units goes as parts, a submission each: they must fit a ring */
		if (tg->stripe && (tg->stripe % 512 ||
				   (r->max_bs / tg->stripe + 2) * wl->iodepth > 32768)) {
			snprintf(err, errlen,
				 "target %zu: a stripe unit of %llu bytes must be a multiple of 512, "
				 "and split %llu-byte IOs at depth %u into at most 32768 parts", t,
				 (unsigned long long)tg->stripe, (unsigned long long)r->max_bs,
				 wl->iodepth);
			goto out_inval;
		}
		tg->rate_iops = wl->rate_iops;
		tg->job_last = malloc(wl->numjobs * sizeof(*tg->job_last));
		if (!tg->job_last)
			goto out_nomem;
		for (unsigned k = 0; k < wl->numjobs; k++)
			tg->job_last[k] = UINT32_MAX;
		pthread_mutex_init(&tg->mu, NULL);
		pthread_cond_init(&tg->cv, NULL);
		for (int d = 0; d < RB_NDIR; d++)
			rb_dir_stats_clear(&tg->res.dir[d]);
	}
	for (size_t k = 0; k < r->njobs; k++) {
		struct job *j = &r->jobs[k];
		size_t t = k / wl->numjobs;
		uint64_t span = r->tgts[t].span, limit = 0;
		unsigned depth = wl->iodepth;

		j->run = r;
		j->t = &r->tgts[t];
		j->tidx = (unsigned)t;
		j->idx = (unsigned)(k % wl->numjobs);
		/* sequential jobs get their own region, and so do random ones that visit
		 * once or verify while writing; others roam the whole span */
		if (rb_rw_random(wl->rw) && !wl->visit_once &&
		    !(wl->verify && rb_workload_writes(wl) && wl->numjobs > 1)) {
			j->region_start = 0;
			j->region_bytes = span;
		} else {
			uint64_t per = span / wl->numjobs;

			per -= per % r->unit;
			j->region_start = j->idx * per;
			j->region_bytes = per;
		}
		rb_rng_seed(&j->rng, wl->seed ^ ((uint64_t)t << 40) ^ ((uint64_t)j->idx << 20));
		if (rb_offgen_init(&j->off, &dist, (j->region_bytes - r->max_bs) / r->unit + 1,
				   wl->visit_once, &j->rng))
			goto out_nomem;
		/* size-based: the target's bytes shared by its jobs */
		if (wl->passes)
			limit = span * wl->passes;
		else if (wl->io_size)
			limit = wl->io_size;
		if (limit) {
			j->limit_bytes = limit / wl->numjobs + (j->idx == 0 ? limit % wl->numjobs : 0);
			if (!j->limit_bytes)
				j->limit_bytes = 1;
		}
		j->ctx.fd = r->tgts[t].fd;
		j->ctx.fds = r->tgts[t].member_fds;
		j->ctx.nfds = r->tgts[t].nmembers;
		j->ctx.sqpoll = wl->sqpoll;
		j->ctx.iopoll = wl->iopoll;
		j->ctx.depth = depth;
		/* parts: an IO touches at most max_bs / unit + 2 units of a volume */
		j->pmax = r->tgts[t].stripe ? (unsigned)(r->max_bs / r->tgts[t].stripe) + 2 : 1;
		j->ctx.entries = depth * j->pmax;
		j->ctx.bs = r->max_bs;
		if (posix_memalign((void **)&j->ctx.bufs, 4096, depth * r->max_bs))
			goto out_nomem;
		/* writes carry random data, never zeros a drive could compress away */
		for (size_t b = 0; b < depth * r->max_bs / 8; b++)
			((uint64_t *)j->ctx.bufs)[b] = rb_rng_next(&j->rng);
		j->ios = calloc(depth, sizeof(*j->ios));
		j->freelist = calloc(depth, sizeof(*j->freelist));
		j->done = calloc(j->ctx.entries, sizeof(*j->done));
		j->queued = calloc(depth, sizeof(*j->queued));
		j->res = calloc(j->ctx.entries, sizeof(*j->res));
		if (j->pmax > 1)
			j->parts = calloc((size_t)depth * j->pmax, sizeof(*j->parts));
		if (!j->ios || !j->freelist || !j->done || !j->queued || !j->res ||
		    (j->pmax > 1 && !j->parts))
			goto out_nomem;
		for (unsigned i = 0; i < depth; i++) {
			j->ios[i].slot = i;
			j->ios[i].orig_buf = j->ctx.bufs + (size_t)i * r->max_bs;
			j->freelist[j->nfree++] = &j->ios[i];
		}
		for (int d = 0; d < RB_NDIR; d++) {
			rb_dir_stats_clear(&j->ival[d]);
			rb_dir_stats_clear(&j->total[d]);
		}
	}
	*ret = r;
	return 0;
out_nomem:
	snprintf(err, errlen, "out of memory setting up %zu jobs", r->njobs);
	rb_run_free(r);
	return -ENOMEM;
out_inval:
	rb_run_free(r);
	return -EINVAL;
}

int rb_run_start(struct rb_run *r)
{
	r->started = true;
	pthread_barrier_init(&r->b1, NULL, (unsigned)r->njobs);
	pthread_barrier_init(&r->b2, NULL, (unsigned)r->njobs);
	for (size_t k = 0; k < r->njobs; k++) {
		int e = pthread_create(&r->jobs[k].th, NULL, job_main, &r->jobs[k]);

		if (e) {
			/* the barrier would never open: stop here, loudly */
			fprintf(stderr, "cannot start job thread: %s\n", strerror(e));
			abort();
		}
		r->jobs[k].started = true;
	}
	return 0;
}

/* Finished jobs whose last interval is before i: they will hand in nothing more. */
static unsigned done_before(const struct tgt *t, unsigned numjobs, unsigned i)
{
	unsigned n = 0;

	for (unsigned k = 0; k < numjobs; k++)
		n += t->job_last[k] != UINT32_MAX && t->job_last[k] < i;
	return n;
}

bool rb_run_poll(struct rb_run *r, rb_sample_fn fn, void *arg)
{
	bool all_done = true;

	for (size_t ti = 0; ti < r->ntgt; ti++) {
		struct tgt *t = &r->tgts[ti];

		for (;;) {
			struct slot *s;
			bool ready, finished;
			unsigned interval = 0;

			pthread_mutex_lock(&t->mu);
			finished = t->jobs_done == r->wl.numjobs;
			s = &t->slots[t->next_emit % SLOTS];
			if (finished && !s->used) {
				/* jobs stopped at different intervals: skip the gap */
				unsigned lo = UINT32_MAX;

				for (int k = 0; k < SLOTS; k++)
					if (t->slots[k].used && t->slots[k].interval < lo)
						lo = t->slots[k].interval;
				if (lo != UINT32_MAX) {
					t->next_emit = lo;
					s = &t->slots[lo % SLOTS];
				}
			}
			ready = s->used && s->interval == t->next_emit &&
				(finished || s->reported + done_before(t, r->wl.numjobs, s->interval) >=
						     r->wl.numjobs);
			if (ready) {
				interval = s->interval;
				memcpy(t->scratch, s->d, sizeof(t->scratch));
				s->used = false;
				t->next_emit++;
				pthread_cond_broadcast(&t->cv);
			}
			pthread_mutex_unlock(&t->mu);
			if (!ready) {
				if (!finished)
					all_done = false;
				break;
			}
			if (fn) {
				int64_t end = r->measure_ns +
					      (int64_t)((uint64_t)(interval + 1) * r->wl.interval_ns);

				if (!r->size_based && end > r->end_ns)
					end = r->end_ns;
				fn(arg, (unsigned)ti, interval, end + r->wall_offset, t->scratch);
			}
		}
	}
	return all_done;
}

void rb_run_stop(struct rb_run *r)
{
	atomic_store(&r->stop, true);
}

static void collect(struct rb_run *r)
{
	for (size_t ti = 0; ti < r->ntgt; ti++) {
		struct rb_target_result *res = &r->tgts[ti].res;
		int64_t last = 0;
		uint64_t usr = 0, sys = 0;

		for (size_t k = ti * r->wl.numjobs; k < (ti + 1) * r->wl.numjobs; k++) {
			struct job *j = &r->jobs[k];

			for (int d = 0; d < RB_NDIR; d++) {
				rb_dir_stats_merge(&res->dir[d], &j->total[d]);
				for (unsigned b = 0; b < r->split.n; b++)
					res->bs_ios[d][b] += j->bs_ios[d][b];
			}
			for (unsigned e = 0; e < j->nerrs; e++)
				rb_io_error_add(res->errors, &res->nerrors, RB_MAX_IO_ERRORS, &j->errs[e]);
			res->verify.checked += j->vst.checked;
			res->verify.unwritten += j->vst.unwritten;
			res->verify.bad += j->vst.bad;
			for (unsigned e = 0; e < j->nvmis && res->nmismatches < RB_MAX_IO_ERRORS; e++)
				res->mismatches[res->nmismatches++] = j->vmis[e];
			if (j->last_completion > last)
				last = j->last_completion;
			usr += j->usr_ns;
			sys += j->sys_ns;
			if (j->err && !res->setup_err) {
				res->setup_err = j->err;
				snprintf(res->message, sizeof(res->message), "%s", j->msg);
			}
			snprintf(res->features, sizeof(res->features), "%s", j->ctx.features);
		}
		res->nbs = r->split.n;
		memcpy(res->bs, r->split.bs, sizeof(res->bs));
		res->elapsed_ns = last > r->measure_ns ? (uint64_t)(last - r->measure_ns)
						       : r->wl.runtime_ns;
		res->start_wall_ns = r->measure_ns + r->wall_offset;
		res->start_mono_ns = r->start_ns;
		res->end_wall_ns = res->start_wall_ns + (int64_t)res->elapsed_ns;
		uint64_t wall = r->size_based ? res->elapsed_ns + r->wl.ramp_ns
					      : (uint64_t)(r->end_ns - r->start_ns);
		if (wall) {
			res->cpu_usr_pct = 100.0 * (double)usr / (double)wall;
			res->cpu_sys_pct = 100.0 * (double)sys / (double)wall;
		}
	}
}

void rb_run_join(struct rb_run *r)
{
	if (!r->started)
		return;
	/* jobs may wait for their intervals to be taken: keep draining until done */
	while (!rb_run_poll(r, NULL, NULL)) {
		struct timespec ts = { 0, 20000000 }; /* 20 ms: the jobs need the CPUs */

		nanosleep(&ts, NULL);
	}
	for (size_t k = 0; k < r->njobs; k++) {
		if (r->jobs[k].started) {
			pthread_join(r->jobs[k].th, NULL);
			r->jobs[k].started = false;
		}
	}
	collect(r);
}

size_t rb_run_ntargets(const struct rb_run *r)
{
	return r->ntgt;
}

const struct rb_target_result *rb_run_result(const struct rb_run *r, size_t target)
{
	return target < r->ntgt ? &r->tgts[target].res : NULL;
}

struct rb_run *rb_run_free(struct rb_run *r)
{
	if (!r)
		return NULL;
	for (size_t k = 0; r->jobs && k < r->njobs; k++) {
		struct job *j = &r->jobs[k];

		if (j->ctx_ready)
			r->ops->teardown(&j->ctx);
		free(j->ctx.bufs);
		free(j->ios);
		free(j->parts);
		free(j->freelist);
		free(j->done);
		free(j->queued);
		free(j->res);
		if (j->latlog)
			fclose(j->latlog);
	}
	for (size_t t = 0; r->tgts && t < r->ntgt; t++) {
		free(r->tgts[t].job_last);
		pthread_mutex_destroy(&r->tgts[t].mu);
		pthread_cond_destroy(&r->tgts[t].cv);
	}
	if (r->started) {
		pthread_barrier_destroy(&r->b1);
		pthread_barrier_destroy(&r->b2);
	}
	free(r->jobs);
	free(r->tgts);
	free(r->member_fds);
	free(r->spans);
	free(r);
	return NULL;
}
