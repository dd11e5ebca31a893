// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <unistd.h>
#include <pthread.h>
#include <cmocka.h>

#include "engine.h"
#include "engine_ops.h"
#include "target.h"

struct seen {
	uint64_t ios[RB_NDIR], hist[RB_NDIR];
	unsigned intervals[RB_NDIR];
	unsigned last_interval;
	bool ordered;
	unsigned lasts;	 /* intervals marked the target's last */
	bool after_last; /* an interval came after the one marked last */
};

static void on_sample(void *arg, unsigned target, unsigned interval, int64_t t,
		      const struct rb_dir_stats *d, bool last)
{
	struct seen *s = (struct seen *)arg + target;

	(void)t;
	if (s->intervals[0] && interval != s->last_interval + 1)
		s->ordered = false;
	s->after_last |= s->lasts > 0;
	s->lasts += last;
	s->last_interval = interval;
	for (int k = 0; k < RB_NDIR; k++) {
		s->ios[k] += d[k].ios;
		s->hist[k] += d[k].hist.total;
		s->intervals[k]++;
	}
}

static void run_and_check(struct rb_workload *wl, const int *fds, const uint64_t *spans, size_t n)
{
	struct rb_run *r = NULL;
	struct seen seen[4];
	char err[256];

	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < n; i++)
		seen[i].ordered = true;
	assert_int_equal(rb_run_new(wl, fds, spans, n, &r, err, sizeof(err)), 0);
	rb_run_start(r);
	while (!rb_run_poll(r, on_sample, seen))
		usleep(5000);
	rb_run_join(r);
	for (size_t t = 0; t < n; t++) {
		const struct rb_target_result *res = rb_run_result(r, t);
		unsigned want =
			(unsigned)((wl->runtime_ns + wl->interval_ns - 1) / wl->interval_ns);

		assert_int_equal(res->setup_err, 0);
		assert_true(res->dir[RB_DIR_READ].ios + res->dir[RB_DIR_WRITE].ios > 0);
		for (int d = 0; d < RB_NDIR; d++) {
			/* every completed IO is in the histogram, and in exactly one sample */
			assert_int_equal(res->dir[d].hist.total, res->dir[d].ios);
			assert_int_equal(seen[t].ios[d], res->dir[d].ios);
			assert_int_equal(seen[t].hist[d], res->dir[d].ios);
			assert_int_equal(seen[t].intervals[d], want);
		}
		assert_true(seen[t].ordered);
		/* its last interval, and only that one, says so */
		assert_int_equal(seen[t].lasts, 1);
		assert_false(seen[t].after_last);
	}
	rb_run_free(r);
}

static void test_engine_null_counts_every_io(void **state)
{
	struct rb_workload wl;
	char err[128];
	int fds[2] = { -1, -1 };
	uint64_t spans[2] = { 1 << 30, 1 << 30 };

	(void)state;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("engine"), "null", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("runtime"), "350ms", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("interval"), "100ms", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("iodepth"), "8", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("numjobs"), "2", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("rw"), "randrw", err, sizeof(err));
	run_and_check(&wl, fds, spans, 2);
}

/* The NOP engine goes through a real ring: every NOP is one measured IO of the full size. */
static void test_engine_nop_counts_every_io_through_the_ring(void **state)
{
	struct rb_workload wl;
	char err[128];
	int fds[2] = { -1, -1 };
	uint64_t spans[2] = { 1 << 30, 1 << 30 };
	struct rb_run *r = NULL;

	(void)state;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("engine"), "nop", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("runtime"), "250ms", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("interval"), "50ms", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("iodepth"), "16", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("rw"), "randread", err, sizeof(err));
	run_and_check(&wl, fds, spans, 2);
	/* a NOP is the whole IO: bytes are ios x bs, none short, none failed */
	assert_int_equal(rb_run_new(&wl, fds, spans, 1, &r, err, sizeof(err)), 0);
	rb_run_start(r);
	while (!rb_run_poll(r, NULL, NULL))
		usleep(5000);
	rb_run_join(r);
	const struct rb_target_result *res = rb_run_result(r, 0);

	assert_int_equal(res->setup_err, 0);
	assert_true(res->dir[RB_DIR_READ].ios > 1000);
	assert_int_equal(res->dir[RB_DIR_READ].bytes, res->dir[RB_DIR_READ].ios * 4096);
	assert_int_equal(res->dir[RB_DIR_READ].errors, 0);
	assert_non_null(strstr(res->features, "fixed_buffers"));
	rb_run_free(r);
}

static void test_engine_uring_on_file(void **state)
{
	char path[] = "/tmp/rb-engine.XXXXXX";
	int fd = mkstemp(path);
	struct rb_workload wl;
	char err[128];
	uint64_t span = 8 << 20;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(rb_target_layout_fd(fd, span), 0);
	close(fd);
	rb_workload_defaults(&wl);
	fd = open(path, O_RDWR | O_DIRECT);
	if (fd < 0) {
		/* a /tmp without O_DIRECT still runs the engine, buffered */
		fd = open(path, O_RDWR);
		rb_opt_set(&wl, rb_opt_find("direct"), "false", err, sizeof(err));
	}
	assert_true(fd >= 0);
	rb_opt_set(&wl, rb_opt_find("rw"), "randrw", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("runtime"), "300ms", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("interval"), "100ms", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("iodepth"), "4", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("numjobs"), "2", err, sizeof(err));
	run_and_check(&wl, &fd, &span, 1);
	close(fd);
	unlink(path);
}

static void test_engine_refuses_target_smaller_than_jobs(void **state)
{
	struct rb_workload wl;
	struct rb_run *r = NULL;
	char err[256];
	int fd = -1;
	uint64_t span = 4096;

	(void)state;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("numjobs"), "4", err, sizeof(err));
	assert_int_equal(rb_run_new(&wl, &fd, &span, 1, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "numjobs"));
}

/* a clock per job thread: time moves only when the engine sleeps, so rates are exact */
static __thread int64_t fake_ns;

static int64_t fake_now(void *arg)
{
	(void)arg;
	return fake_ns;
}

static void fake_sleep_until(void *arg, int64_t t)
{
	(void)arg;
	if (t > fake_ns)
		fake_ns = t;
}

static uint64_t run_null(struct rb_workload *wl, bool fake, struct rb_target_result *ret)
{
	struct rb_run *r = NULL;
	int fd = -1;
	uint64_t span = 1ULL << 30, ios;
	char err[256];

	assert_int_equal(rb_run_new(wl, &fd, &span, 1, &r, err, sizeof(err)), 0);
	if (fake)
		rb_run_set_clock(
			r, &(struct rb_clock){ fake_now, fake_now, fake_sleep_until, NULL, NULL });
	rb_run_start(r);
	rb_run_join(r);
	*ret = *rb_run_result(r, 0);
	ios = ret->dir[RB_DIR_READ].ios + ret->dir[RB_DIR_WRITE].ios;
	rb_run_free(r);
	return ios;
}

static void test_engine_rate_exact_with_fake_clock(void **state)
{
	static const char *const jobs[] = { "1", "4", "3" };
	/* every completion mode keeps the rate; auto spins at a rate, as the features say */
	static const char *const modes[] = { "auto", "wait", "poll" },
				 *said[] = { "spin", NULL, "poll" };
	struct rb_target_result *res = malloc(sizeof(*res));

	(void)state;
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		struct rb_workload wl;
		char err[128];
		uint64_t ios;

		rb_workload_defaults(&wl);
		rb_opt_set(&wl, rb_opt_find("engine"), "null", err, sizeof(err));
		rb_opt_set(&wl, rb_opt_find("runtime"), "5s", err, sizeof(err));
		rb_opt_set(&wl, rb_opt_find("rate_iops"), "10000", err, sizeof(err));
		rb_opt_set(&wl, rb_opt_find("iodepth"), "4", err, sizeof(err));
		rb_opt_set(&wl, rb_opt_find("numjobs"), jobs[i], err, sizeof(err));
		rb_opt_set(&wl, rb_opt_find("completion"), modes[i], err, sizeof(err));
		ios = run_null(&wl, true, res);
		if (ios < 49999 || ios > 50001)
			fail_msg(
				"%s job(s), completion %s: %llu IOs at 10000 IOPS over 5 s of fake "
				"time",
				jobs[i], modes[i], (unsigned long long)ios);
		assert_int_equal(res->dir[RB_DIR_READ].hist.total, ios);
		if (said[i])
			assert_non_null(strstr(res->features, said[i]));
		else
			assert_null(strstr(res->features, "spin"));
	}
	free(res);
}

static uint64_t total(const uint64_t *v)
{
	uint64_t s = 0;

	for (int i = 0; i < RB_FIO_DEPTH_NR; i++)
		s += v[i];
	return s;
}

/*
 * fio's IO-depth counts: a full ring of 8 goes in and comes back whole (the null engine
 * completes at once), every IO at depth 8; paced IOs go one at a time, at depth 1.
 */
static void test_engine_counts_io_depths_as_fio(void **state)
{
	struct rb_target_result *res = malloc(sizeof(*res));
	struct rb_workload wl;
	char err[128];
	uint64_t ios;

	(void)state;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("engine"), "null", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("runtime"), "100ms", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("iodepth"), "8", err, sizeof(err));
	ios = run_null(&wl, false, res);
	assert_true(ios > 0);
	assert_int_equal(total(res->depths.level), ios);
	assert_int_equal(res->depths.level[3], ios);	  /* 8-15 */
	assert_int_equal(res->depths.submit[2], ios / 8); /* 5-8 a submission */
	assert_int_equal(total(res->depths.submit), ios / 8);
	assert_int_equal(res->depths.complete[2], ios / 8);
	assert_int_equal(total(res->depths.complete), ios / 8);

	rb_opt_set(&wl, rb_opt_find("runtime"), "1s", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("rate_iops"), "10000", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("iodepth"), "4", err, sizeof(err));
	ios = run_null(&wl, true, res);
	assert_true(ios >= 9999);
	assert_int_equal(res->depths.level[0], ios);
	assert_int_equal(res->depths.submit[1], ios);
	assert_int_equal(res->depths.complete[1], ios);
	assert_int_equal(total(res->depths.complete), ios);
	free(res);
}

/* A job that sleeps 10 ms between paced IOs switches context each time: counted, as fio's
 * ctx (a sleep cut short by a late wake-up may be skipped: half of them is the floor). */
static void test_engine_counts_context_switches(void **state)
{
	struct rb_target_result *res = malloc(sizeof(*res));
	struct rb_workload wl;
	char err[128];

	(void)state;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("engine"), "null", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("runtime"), "300ms", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("rate_iops"), "100", err, sizeof(err));
	assert_true(run_null(&wl, false, res) >= 29);
	if (res->ctx < 15)
		fail_msg("%llu context switches for 30 sleeps", (unsigned long long)res->ctx);
	free(res);
}

static void test_engine_size_based_passes_and_split(void **state)
{
	struct rb_target_result *res = malloc(sizeof(*res));
	struct rb_workload wl;
	char err[128];
	uint64_t ios, sum = 0, bytes = 0;

	(void)state;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("engine"), "null", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("rw"), "read", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("bs"), "128k", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("passes"), "2", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("numjobs"), "4", err, sizeof(err));
	/* runtime does not cut a size-based run short */
	rb_opt_set(&wl, rb_opt_find("runtime"), "1ms", err, sizeof(err));
	ios = run_null(&wl, false, res);
	assert_int_equal(ios, 2 * (1ULL << 30) / 131072);
	assert_int_equal(res->dir[RB_DIR_READ].bytes, 2ULL << 30);
	/* a split: counts per size add up to the IOs, and every size was drawn */
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("engine"), "null", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("rw"), "randrw", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("bssplit"), "4k/10.5:16k/0:64k/39.5:1m/50", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("io_size"), "1g", err, sizeof(err));
	ios = run_null(&wl, false, res);
	assert_int_equal(res->nbs, 4);
	for (int d = 0; d < RB_NDIR; d++)
		for (unsigned b = 0; b < res->nbs; b++) {
			sum += res->bs_ios[d][b];
			bytes += res->bs_ios[d][b] * res->bs[b];
		}
	assert_int_equal(sum, ios);
	assert_int_equal(bytes, res->dir[0].bytes + res->dir[1].bytes);
	assert_true(bytes >= 1ULL << 30 && bytes < (1ULL << 30) + (1ULL << 20));
	assert_int_equal(res->bs_ios[0][1] + res->bs_ios[1][1], 0);
	assert_true(res->bs_ios[0][0] > 0 && res->bs_ios[1][3] > 0);
	free(res);
}

static void latest_sample(void *arg, unsigned target, unsigned interval, int64_t t,
			  const struct rb_dir_stats *d, bool last)
{
	int64_t *latest = arg;

	(void)target;
	(void)interval;
	(void)d;
	(void)last;
	if (t > *latest)
		*latest = t;
}

/* A size-based run's last interval ends at its last completion, not a whole interval
 * later: a rate over it would show a cliff that was never there. */
static void test_engine_size_based_last_interval_ends_with_the_run(void **state)
{
	struct rb_run *r = NULL;
	struct rb_workload wl;
	int fd = -1;
	uint64_t span = 1ULL << 30;
	int64_t last = 0;
	char err[256];
	const struct rb_target_result *res;

	(void)state;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("engine"), "null", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("rw"), "write", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("bs"), "128k", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("passes"), "1", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("interval"), "10s", err, sizeof(err));
	assert_int_equal(rb_run_new(&wl, &fd, &span, 1, &r, err, sizeof(err)), 0);
	rb_run_start(r);
	while (!rb_run_poll(r, latest_sample, &last))
		usleep(5000);
	rb_run_join(r);
	res = rb_run_result(r, 0);
	assert_int_equal(res->dir[RB_DIR_WRITE].bytes, 1ULL << 30);
	/* a pass of a null engine takes far less than the 10 s interval */
	assert_true(res->elapsed_ns < 5000000000ULL);
	if (last > res->end_wall_ns || last < res->start_wall_ns)
		fail_msg("the last interval ends %lld ns after the run's start; the run ended at "
			 "%llu ns",
			 (long long)(last - res->start_wall_ns),
			 (unsigned long long)res->elapsed_ns);
	rb_run_free(r);
}

/*
 * A fake backend behind the ops table: every IO first completes short (half, then a
 * quarter...), then in full; every 10th IO fails once with EIO. Counts what it saw.
 */
struct fake {
	struct rb_io *q[64];
	unsigned n;
	uint64_t submissions, bytes_done, failures;
};
static struct fake fk;

static int f_setup(struct rb_engine_ctx *c, char *err, size_t len)
{
	(void)c;
	(void)err;
	(void)len;
	return 0;
}

static void f_teardown(struct rb_engine_ctx *c)
{
	(void)c;
}

static void f_prep(struct rb_engine_ctx *c, struct rb_io *io)
{
	(void)c;
	fk.q[fk.n++] = io;
	fk.submissions++;
}

static int f_submit_reap(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			 struct rb_io **done, int *res, unsigned max)
{
	unsigned n = fk.n < max ? fk.n : max;

	(void)c;
	(void)wait_ns;
	(void)wait_nr;
	for (unsigned i = 0; i < n; i++) {
		struct rb_io *io = fk.q[i];

		done[i] = io;
		if (fk.submissions % 10 == 0 && io->len == io->orig_len && io->dir == 0 &&
		    fk.failures < 5) {
			res[i] = -EIO;
			fk.failures++;
		} else if (io->len > 512) {
			res[i] = (int)(io->len / 2); /* short */
		} else {
			res[i] = (int)io->len;
		}
		if (res[i] > 0)
			fk.bytes_done += (uint64_t)res[i];
	}
	memmove(fk.q, fk.q + n, (fk.n - n) * sizeof(fk.q[0]));
	fk.n -= n;
	return (int)n;
}

static const struct rb_engine_ops fake_ops = {
	.name = "fake",
	.setup = f_setup,
	.teardown = f_teardown,
	.prep = f_prep,
	.submit_reap = f_submit_reap,
};

static void test_engine_short_ios_resubmitted_and_counted_once(void **state)
{
	struct rb_workload wl;
	struct rb_run *r = NULL;
	char err[256];
	int fd = -1;
	uint64_t span = 64 << 20;
	const struct rb_target_result *res;

	(void)state;
	memset(&fk, 0, sizeof(fk));
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("rw"), "read", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("bs"), "4k", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("iodepth"), "4", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("io_size"), "4m", err, sizeof(err));
	assert_int_equal(rb_run_new(&wl, &fd, &span, 1, &r, err, sizeof(err)), 0);
	rb_run_set_ops(r, &fake_ops);
	rb_run_start(r);
	rb_run_join(r);
	res = rb_run_result(r, 0);
	/* 4k goes 2048 + 1024 + 512 + 512: four submissions, one IO */
	assert_int_equal(res->dir[RB_DIR_READ].errors, fk.failures);
	assert_true(fk.failures > 0);
	assert_int_equal(res->dir[RB_DIR_READ].ios + res->dir[RB_DIR_READ].errors, 1024);
	assert_int_equal(res->dir[RB_DIR_READ].bytes, res->dir[RB_DIR_READ].ios * 4096);
	assert_int_equal(fk.bytes_done, res->dir[RB_DIR_READ].bytes);
	assert_int_equal(fk.submissions, res->dir[RB_DIR_READ].ios * 4 + fk.failures);
	assert_int_equal(res->dir[RB_DIR_READ].hist.total, res->dir[RB_DIR_READ].ios);
	/* a failure is listed at the offset of the IO that failed */
	assert_true(res->nerrors > 0 && res->errors[0].err == EIO && res->errors[0].length == 4096);
	rb_run_free(r);
}

/*
 * Volumes: a fake backend that checks, for every IO, that the member and offset are the
 * RAID 0 map of the volume offset, and counts bytes per descriptor. Per-context queues:
 * each job thread has its own.
 */
struct vq {
	struct rb_io *q[64];
	unsigned n;
};
static pthread_mutex_t v_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t v_bytes[16], v_bad, v_unit[16], v_members[16], v_subs;
static uint64_t v_fail_at = UINT64_MAX; /* a part at this volume offset fails with EIO */

static int v_setup(struct rb_engine_ctx *c, char *err, size_t len)
{
	(void)err;
	(void)len;
	c->priv = calloc(1, sizeof(struct vq));
	return c->priv ? 0 : -ENOMEM;
}

static void v_teardown(struct rb_engine_ctx *c)
{
	free(c->priv);
}

static void v_prep(struct rb_engine_ctx *c, struct rb_io *io)
{
	struct vq *q = c->priv;
	int fd = c->fds[io->fd_index];
	uint64_t unit = v_unit[c->fds[0]], n = v_members[c->fds[0]], u, want_fd, want_off;

	if (unit) {
		u = io->log_offset / unit;
		want_fd = (uint64_t)c->fds[u % n];
		want_off = (u / n) * unit + io->log_offset % unit;
	} else {
		want_fd = (uint64_t)c->fds[0];
		want_off = io->log_offset;
	}
	pthread_mutex_lock(&v_mu);
	if ((uint64_t)fd != want_fd || io->offset != want_off || io->fd_index >= c->nfds ||
	    (unit && io->log_offset % unit + io->len > unit))
		v_bad++;
	v_bytes[fd] += io->len;
	v_subs++;
	pthread_mutex_unlock(&v_mu);
	q->q[q->n++] = io;
}

static int v_submit_reap(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			 struct rb_io **done, int *res, unsigned max)
{
	struct vq *q = c->priv;
	unsigned n = q->n < max ? q->n : max;

	(void)wait_ns;
	(void)wait_nr;
	for (unsigned i = 0; i < n; i++) {
		done[i] = q->q[i];
		res[i] = q->q[i]->log_offset == v_fail_at ? -EIO : (int)q->q[i]->len;
	}
	memmove(q->q, q->q + n, (q->n - n) * sizeof(q->q[0]));
	q->n -= n;
	return (int)n;
}

static const struct rb_engine_ops volume_ops = {
	.name = "volume-fake",
	.setup = v_setup,
	.teardown = v_teardown,
	.prep = v_prep,
	.submit_reap = v_submit_reap,
};

static void test_engine_volumes_map_raid0(void **state)
{
	/* target 0: a volume of descriptors 3, 4, 5 in 64k units; target 1: descriptor 6 */
	int fds[4] = { 3, 4, 5, 6 };
	uint64_t spans[4] = { 1 << 20, (1 << 20) + 100000, 2 << 20, 1 << 20 };
	struct rb_volume vols[2] = { { .members = 3, .stripe = 65536 }, { .members = 1 } };
	struct rb_workload wl;
	struct rb_run *r = NULL;
	char err[256];

	(void)state;
	memset(v_bytes, 0, sizeof(v_bytes));
	v_bad = 0;
	v_unit[3] = 65536;
	v_members[3] = 3;
	v_unit[6] = 0;
	v_members[6] = 1;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("rw"), "write", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("bs"), "16k", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("iodepth"), "8", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("numjobs"), "2", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("passes"), "1", err, sizeof(err));
	assert_int_equal(rb_run_new_volumes(&wl, fds, spans, 4, vols, 2, &r, err, sizeof(err)), 0);
	rb_run_set_ops(r, &volume_ops);
	rb_run_start(r);
	rb_run_join(r);
	assert_int_equal(rb_run_ntargets(r), 2);
	/* the volume: whole units of its smallest member, on each member */
	assert_int_equal(rb_run_result(r, 0)->dir[RB_DIR_WRITE].bytes, 3 << 20);
	assert_int_equal(rb_run_result(r, 1)->dir[RB_DIR_WRITE].bytes, 1 << 20);
	assert_int_equal(v_bad, 0);
	assert_int_equal(v_bytes[3], 1 << 20);
	assert_int_equal(v_bytes[4], 1 << 20);
	assert_int_equal(v_bytes[5], 1 << 20);
	assert_int_equal(v_bytes[6], 1 << 20);
	rb_run_free(r);
	/* more members than descriptors, or a unit not of whole sectors: refused */
	vols[0].members = 4;
	assert_int_equal(rb_run_new_volumes(&wl, fds, spans, 4, vols, 2, &r, err, sizeof(err)),
			 -EINVAL);
	vols[0].members = 3;
	vols[0].stripe = 65536 + 100;
	assert_int_equal(rb_run_new_volumes(&wl, fds, spans, 4, vols, 2, &r, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "multiple of 512"));
}

/*
 * IOs larger than the unit go as parts, one per unit touched, each on its member at its
 * place (the fake checks every part against RAID 0's map); the IO is measured once, when
 * its last part is done. A failing part makes its IO one error, listed at the part's
 * volume offset, and the IO is not measured.
 */
static void test_engine_volumes_split_ios_across_units(void **state)
{
	int fds[3] = { 3, 4, 5 };
	uint64_t spans[3] = { 1 << 20, 1 << 20, 1 << 20 };
	struct rb_volume vol = { .members = 3, .stripe = 65536 };
	struct rb_workload wl;
	struct rb_run *r = NULL;
	const struct rb_target_result *res;
	char err[256];

	(void)state;
	memset(v_bytes, 0, sizeof(v_bytes));
	v_bad = v_subs = 0;
	v_unit[3] = 65536;
	v_members[3] = 3;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("rw"), "write", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("bs"), "96k", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("iodepth"), "8", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("numjobs"), "2", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("passes"), "1", err, sizeof(err));
	assert_int_equal(rb_run_new_volumes(&wl, fds, spans, 3, &vol, 1, &r, err, sizeof(err)), 0);
	rb_run_set_ops(r, &volume_ops);
	rb_run_start(r);
	rb_run_join(r);
	res = rb_run_result(r, 0);
	/* 3 MiB in 32 IOs of 96k, each across a unit boundary: 64 parts */
	assert_int_equal(res->dir[RB_DIR_WRITE].bytes, 3 << 20);
	assert_int_equal(res->dir[RB_DIR_WRITE].ios, 32);
	assert_int_equal(res->dir[RB_DIR_WRITE].hist.total, 32);
	assert_int_equal(v_subs, 64);
	assert_int_equal(v_bad, 0);
	assert_int_equal(v_bytes[3], 1 << 20);
	assert_int_equal(v_bytes[4], 1 << 20);
	assert_int_equal(v_bytes[5], 1 << 20);
	rb_run_free(r);

	/* the part at volume offset 320k (unit 5: member 2) fails */
	v_fail_at = 5 * 65536;
	assert_int_equal(rb_run_new_volumes(&wl, fds, spans, 3, &vol, 1, &r, err, sizeof(err)), 0);
	rb_run_set_ops(r, &volume_ops);
	rb_run_start(r);
	rb_run_join(r);
	res = rb_run_result(r, 0);
	v_fail_at = UINT64_MAX;
	assert_int_equal(res->dir[RB_DIR_WRITE].errors, 1);
	assert_int_equal(res->dir[RB_DIR_WRITE].ios, 31);
	assert_int_equal(res->dir[RB_DIR_WRITE].hist.total, 31);
	assert_int_equal(res->nerrors, 1);
	assert_int_equal(res->errors[0].offset, 5 * 65536);
	assert_int_equal(res->errors[0].err, EIO);
	rb_run_free(r);
}

/*
 * Replays: a backend that records every IO as it is submitted (offset, length, direction,
 * the fake clock's instant) and completes it at once.
 */
#define R_MAX 256
static struct {
	struct rb_io *q[64];
	unsigned n, count;
	uint64_t off[R_MAX], len[R_MAX], dir[R_MAX];
	int64_t at[R_MAX];
} rk;

static void r_prep(struct rb_engine_ctx *c, struct rb_io *io)
{
	(void)c;
	rk.q[rk.n++] = io;
}

static int r_submit_reap(struct rb_engine_ctx *c, uint64_t wait_ns, unsigned wait_nr,
			 struct rb_io **done, int *res, unsigned max)
{
	unsigned n = rk.n < max ? rk.n : max;

	(void)c;
	(void)wait_ns;
	(void)wait_nr;
	for (unsigned i = 0; i < n; i++) {
		struct rb_io *io = rk.q[i];

		if (rk.count < R_MAX) {
			rk.off[rk.count] = io->offset;
			rk.len[rk.count] = io->len;
			rk.dir[rk.count] = io->dir;
			rk.at[rk.count] = io->submit_ns;
		}
		rk.count++;
		done[i] = io;
		res[i] = (int)io->len;
	}
	memmove(rk.q, rk.q + n, (rk.n - n) * sizeof(rk.q[0]));
	rk.n -= n;
	return (int)n;
}

static const struct rb_engine_ops record_ops = {
	.name = "record",
	.setup = f_setup,
	.teardown = f_teardown,
	.prep = r_prep,
	.submit_reap = r_submit_reap,
};

/* A trace file of text; its path into path (a mkstemp template). */
static void write_trace(char *path, const char *text)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Replays path on a 1 MiB target with the recording backend on the fake clock. */
static struct rb_run *replay_run(const char *path, const char *const *kv, size_t nkv)
{
	struct rb_workload wl;
	struct rb_run *r = NULL;
	char err[512];
	int fd = -1;
	uint64_t span = 1 << 20;

	memset(&rk, 0, sizeof(rk));
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("rw"), "replay", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("replay"), path, err, sizeof(err));
	for (size_t i = 0; i + 1 < nkv; i += 2)
		assert_int_equal(rb_opt_set(&wl, rb_opt_find(kv[i]), kv[i + 1], err, sizeof(err)),
				 0);
	assert_int_equal(rb_workload_check(&wl, err, sizeof(err)), 0);
	if (rb_run_new(&wl, &fd, &span, 1, &r, err, sizeof(err)))
		fail_msg("%s", err);
	rb_run_set_ops(r, &record_ops);
	rb_run_set_clock(r, &(struct rb_clock){ fake_now, fake_now, fake_sleep_until, NULL, NULL });
	rb_run_start(r);
	rb_run_join(r);
	return r;
}

static const char replay_text[] = "fio version 3 iolog\n"
				  "0 f add\n"
				  "100 f read 8192 4096\n"
				  "600 f write 4096 8192\n"
				  "600 f trim 65536 65536\n"
				  "2100 f read 1049600 1000\n" /* past the end: wraps to 1024 */
				  "3100 f close\n";

static void test_engine_replay_in_order_at_its_times(void **state)
{
	static const uint64_t off[] = { 8192, 4096, 65536, 1024 },
			      len[] = { 4096, 8192, 65536, 1024 };
	static const uint64_t dir[] = { RB_DIR_READ, RB_DIR_WRITE, RB_DIR_TRIM, RB_DIR_READ };
	static const int64_t at_us[] = { 0, 500, 500, 2000 }; /* since the first record */
	static const char *const speeds[] = { "1", "2", "0" };
	char path[] = "/tmp/rb-test-replay-XXXXXX";

	(void)state;
	write_trace(path, replay_text);
	for (size_t s = 0; s < 3; s++) {
		const char *kv[] = { "replay_speed", speeds[s], "iodepth", "2" };
		struct rb_run *r = replay_run(path, kv, 4);
		const struct rb_target_result *res = rb_run_result(r, 0);
		int64_t start = rk.at[0];

		assert_int_equal(res->setup_err, 0);
		assert_int_equal(rk.count, 4);
		for (unsigned i = 0; i < 4; i++) {
			int64_t want = s == 2 ? 0 : at_us[i] * 1000 / (int64_t)(s + 1);

			assert_int_equal(rk.off[i], off[i]);
			assert_int_equal(rk.len[i], len[i]);
			assert_int_equal(rk.dir[i], dir[i]);
			/* on the fake clock each IO goes exactly when due */
			assert_int_equal(rk.at[i] - start, want);
		}
		assert_int_equal(res->dir[RB_DIR_READ].ios, 2);
		assert_int_equal(res->dir[RB_DIR_WRITE].ios, 1);
		assert_int_equal(res->dir[RB_DIR_TRIM].ios, 1);
		assert_int_equal(res->replay.ios, 4);
		assert_int_equal(res->replay.last_line, 6);
		assert_true(res->replay.complete);
		/* the issue lag: one entry per IO with a pace, none at speed 0 */
		assert_int_equal(res->replay.timed, s != 2);
		assert_int_equal(res->replay.lag.total, s == 2 ? 0 : 4);
		assert_int_equal(res->replay.lag_max_ns, 0);
		assert_int_equal(res->nbs, 0);
		rb_run_free(r);
	}
	unlink(path);
}

static void test_engine_replay_runtime_and_refusal(void **state)
{
	char path[] = "/tmp/rb-test-replay-XXXXXX";
	const char *cut[] = { "runtime", "1ms" };
	const char *refuse[] = { "replay_remap", "refuse", "replay_speed", "0" };
	struct rb_run *r;
	const struct rb_target_result *res;

	(void)state;
	write_trace(path, replay_text);
	/* runtime shorter than the trace: the IOs due before it, and the replay says so */
	r = replay_run(path, cut, 2);
	res = rb_run_result(r, 0);
	assert_int_equal(rk.count, 3);
	assert_int_equal(res->replay.ios, 3);
	assert_false(res->replay.complete);
	assert_int_equal(res->setup_err, 0);
	rb_run_free(r);
	/* refuse: the IO past the end stops the replay, naming its line */
	r = replay_run(path, refuse, 4);
	res = rb_run_result(r, 0);
	assert_int_equal(rk.count, 3);
	assert_int_equal(res->setup_err, -ERANGE);
	assert_non_null(
		strstr(res->message, ":6: the IO at byte 1049600 (1000 bytes) has no place"));
	rb_run_free(r);
	unlink(path);
	/* a trace that is not there: rb_run_new says so */
	struct rb_workload wl;
	char err[512];
	int fd = -1;
	uint64_t span = 1 << 20;

	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("rw"), "replay", err, sizeof(err));
	rb_opt_set(&wl, rb_opt_find("replay"), path, err, sizeof(err));
	assert_int_equal(rb_run_new(&wl, &fd, &span, 1, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cannot open trace"));
}

/* The FDP directive's fields land where NVMe puts them, the block count kept (as fio's
 * io_uring_cmd engine sets them: dtype << 20 in CDW12, dspec << 16 in CDW13). */
static void test_engine_placement_directive(void **state)
{
	uint32_t cdw12 = 15, cdw13 = 0xabcd;

	(void)state;
	rb_nvme_placement(&cdw12, &cdw13, 7);
	assert_int_equal(cdw12, (2u << 20) | 15);
	assert_int_equal(cdw13, (7u << 16) | 0xabcd);
	rb_nvme_placement(&cdw12, &cdw13, 0xffff); /* again: replaced, not or-ed */
	assert_int_equal(cdw12, (2u << 20) | 15);
	assert_int_equal(cdw13, 0xffffabcdu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_null_counts_every_io),
		cmocka_unit_test(test_engine_nop_counts_every_io_through_the_ring),
		cmocka_unit_test(test_engine_uring_on_file),
		cmocka_unit_test(test_engine_refuses_target_smaller_than_jobs),
		cmocka_unit_test(test_engine_rate_exact_with_fake_clock),
		cmocka_unit_test(test_engine_counts_io_depths_as_fio),
		cmocka_unit_test(test_engine_counts_context_switches),
		cmocka_unit_test(test_engine_size_based_passes_and_split),
		cmocka_unit_test(test_engine_size_based_last_interval_ends_with_the_run),
		cmocka_unit_test(test_engine_short_ios_resubmitted_and_counted_once),
		cmocka_unit_test(test_engine_volumes_map_raid0),
		cmocka_unit_test(test_engine_volumes_split_ios_across_units),
		cmocka_unit_test(test_engine_replay_in_order_at_its_times),
		cmocka_unit_test(test_engine_replay_runtime_and_refusal),
		cmocka_unit_test(test_engine_placement_directive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
