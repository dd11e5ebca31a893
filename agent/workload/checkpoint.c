// SPDX-License-Identifier: MIT
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "engine_ops.h"
#include "gen.h"
#include "grow.h"

#define ALIGN 4096ULL

struct writer {
	struct rb_ckpt *c;
	unsigned drive, idx;
	pthread_t th;
	bool started;
	char *bufs;			    /* depth * bs, aligned */
	struct rb_io *ios, **freel, **done; /* the IO slots, the free ones, the completed ones */
	int *res;			    /* the completed ones' results */
	/* its io_uring (the engine's backend), made in its own thread at its first shard and
	 * kept for the run: the file changes, the ring and its registered buffers stay */
	struct rb_engine_ctx ctx;
	bool ctx_ok;
	pthread_mutex_t mu;		  /* cur, against the poller */
	struct rb_dir_stats cur[RB_NDIR]; /* this interval's, handed to the poller */
	uint64_t step_ns, step_bytes;	  /* the step just done */
	uint32_t step_err;
};

struct drive {
	char dir[PATH_MAX];
	struct rb_target_result res;
	struct rb_ckpt_row *rows;
	size_t nrows, cap;
	pthread_mutex_t mu; /* res.errors, from the writers */
	struct rb_dir_stats sample[RB_NDIR];
};

struct rb_ckpt {
	struct rb_workload wl;
	size_t n, nw; /* drives, writers per drive */
	struct drive *d;
	struct writer *w;
	pthread_barrier_t bar;
	bool bar_ok, started, joined;
	atomic_bool stop;
	bool halt;	     /* the leader's word at a barrier: every writer stops */
	int64_t start_at;    /* CLOCK_MONOTONIC; 0: at once */
	int64_t t0, t0_wall; /* the step's instant */
	_Atomic int64_t first_mono;
	int64_t first_wall;
	unsigned next_ival, written;
	bool final_sent;
	atomic_uint done;
	uint64_t model_bytes, optim_bytes;
	pthread_mutex_t gate_mu; /* the writers wait until every one started */
	pthread_cond_t gate_cv;
	int gate; /* 0 wait, 1 go, -1 give up */
};

void rb_ckpt_shards(const struct rb_workload *wl, uint64_t *ret_model, uint64_t *ret_optim)
{
	uint64_t share = rb_ckpt_bytes(wl) / (wl->numjobs ? wl->numjobs : 1) / ALIGN * ALIGN;
	uint64_t model = share / 7 / ALIGN * ALIGN;

	if (!model)
		model = ALIGN;
	*ret_model = model;
	*ret_optim = share > model ? share - model : 0;
}

/* DIR/checkpoints/global_stepK[/zero_pp_rank_W_mp_rank_00_{model,optim}_states.pt] */
static void shard_path(const struct rb_ckpt *c, unsigned drive, unsigned step, int w, bool optim,
		       char *buf, size_t len)
{
	if (w < 0)
		snprintf(buf, len, "%s/checkpoints/global_step%u", c->d[drive].dir, step);
	else
		snprintf(buf, len, "%s/checkpoints/global_step%u/zero_pp_rank_%d_mp_rank_00_%s.pt",
			 c->d[drive].dir, step, w, optim ? "optim_states" : "model_states");
}

static void note_error(struct writer *w, uint64_t off, uint32_t len, int dir, int err)
{
	struct drive *d = &w->c->d[w->drive];
	struct rb_io_error e = {
		.offset = off, .length = len, .dir = (uint32_t)dir, .err = err, .count = 1
	};

	pthread_mutex_lock(&d->mu);
	rb_io_error_add(d->res.errors, &d->res.nerrors, RB_MAX_IO_ERRORS, &e);
	pthread_mutex_unlock(&d->mu);
	pthread_mutex_lock(&w->mu);
	w->cur[dir].errors++;
	pthread_mutex_unlock(&w->mu);
	w->step_err++;
}

static void measured(struct writer *w, int dir, uint64_t bytes, uint64_t lat)
{
	struct rb_dir_stats *s = &w->cur[dir];

	pthread_mutex_lock(&w->mu);
	rb_dir_stats_record(s, bytes, lat);
	pthread_mutex_unlock(&w->mu);
}

/* A completed IO of xfer: measured, or a short one's rest queued again, or an error. */
static bool reaped(struct writer *w, struct rb_engine_ctx *ctx, struct rb_io *io, int res,
		   bool *again)
{
	*again = false;
	if (res <= 0) {
		note_error(w, io->offset, io->len, (int)io->dir, res ? -res : EIO);
		return false;
	}
	measured(w, (int)io->dir, (uint64_t)res, (uint64_t)(rb_mono_ns() - io->submit_ns));
	if ((uint32_t)res < io->len) {
		io->offset += (uint64_t)res;
		io->buf += res;
		io->len -= (uint32_t)res;
		io->submit_ns = rb_mono_ns();
		rb_engine_uring.prep(ctx, io);
		*again = true;
	}
	return true;
}

/*
 * A shard written (and fsync'd) or read, sequentially, depth IOs in flight, through the
 * engine's io_uring backend (the writer's ring: registered buffers).
 */
static uint64_t xfer(struct writer *w, const char *path, uint64_t size, int dir)
{
	const struct rb_workload *wl = &w->c->wl;
	int flags = (dir == RB_DIR_WRITE ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY) | O_CLOEXEC |
		    (wl->direct ? O_DIRECT : 0);
	unsigned depth = wl->iodepth, inflight = 0, nfree = 0;
	uint64_t pos = 0, moved = 0;
	bool failed = false;
	char err[256];
	int fd = open(path, flags, 0600);
	struct rb_engine_ctx *ctx = &w->ctx;

	if (fd >= 0 && !w->ctx_ok) {
		/* no file registered (fd -1): each shard's descriptor goes in its IOs */
		*ctx = (struct rb_engine_ctx){ .fd = -1,
					       .fds = &ctx->fd,
					       .nfds = 1,
					       .depth = depth,
					       .entries = depth,
					       .bufs = w->bufs,
					       .bs = wl->bs };
		w->ctx_ok = rb_engine_uring.setup(ctx, err, sizeof(err)) == 0;
	}
	if (fd < 0 || !w->ctx_ok) {
		note_error(w, 0, 0, dir, fd < 0 ? errno : EIO);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	ctx->fd = fd;
	for (unsigned i = 0; i < depth; i++) {
		w->ios[i] = (struct rb_io){ .slot = i,
					    .dir = (uint32_t)dir,
					    .orig_buf = w->bufs + (size_t)i * wl->bs };
		w->freel[nfree++] = &w->ios[i];
	}
	for (;;) {
		bool issuing = !failed && !atomic_load(&w->c->stop);
		int n;

		while (issuing && nfree && pos < size) {
			struct rb_io *io = w->freel[--nfree];

			io->offset = io->orig_offset = pos;
			io->len = io->orig_len =
				(uint32_t)(size - pos < wl->bs ? size - pos : wl->bs);
			io->buf = io->orig_buf;
			io->submit_ns = rb_mono_ns();
			pos += io->len;
			rb_engine_uring.prep(ctx, io);
			inflight++;
		}
		if (!inflight)
			break;
		if ((n = rb_engine_uring.submit_reap(ctx, UINT64_MAX, 1, w->done, w->res, depth)) <
		    0) {
			note_error(w, pos, 0, dir, -n);
			/* what is in flight lands in the buffers: not freed under the kernel */
			for (int tries = 0; inflight && tries < 500; tries++)
				if ((n = rb_engine_uring.submit_reap(ctx, 10000000, 1, w->done,
								     w->res, depth)) > 0)
					inflight -= (unsigned)n;
			/* a ring that still owes completions is not the next shard's */
			if (inflight) {
				rb_engine_uring.teardown(ctx);
				w->ctx_ok = false;
			}
			break;
		}
		for (int i = 0; i < n; i++) {
			struct rb_io *io = w->done[i];
			uint32_t len = io->len;
			bool again;

			if (!reaped(w, ctx, io, w->res[i], &again))
				failed = true;
			moved += again ? len - io->len : (w->res[i] > 0 ? len : 0);
			if (!again) {
				inflight--;
				w->freel[nfree++] = io;
			}
		}
	}
	if (dir == RB_DIR_WRITE && !failed && fsync(fd) < 0)
		note_error(w, 0, 0, dir, errno);
	close(fd);
	return moved;
}

/* The leader's part of a barrier; every writer waits at both sides of it. */
enum step { STEP_SETUP, STEP_WRITE, STEP_WRITTEN, STEP_READ, STEP_READ_DONE };

static void remove_step(struct rb_ckpt *c, unsigned step)
{
	char p[PATH_MAX + 128];

	for (size_t i = 0; i < c->n; i++) {
		for (size_t w = 0; w < c->nw; w++)
			for (int o = 0; o < 2; o++) {
				shard_path(c, (unsigned)i, step, (int)w, o, p, sizeof(p));
				unlink(p);
			}
		shard_path(c, (unsigned)i, step, -1, false, p, sizeof(p));
		rmdir(p);
	}
}

/* The kept checkpoints' bytes on drive i's filesystem (allocated blocks, as du counts). */
static uint64_t fs_bytes(const struct rb_ckpt *c, size_t i)
{
	unsigned keep = c->wl.checkpoint_keep,
		 from = keep && c->written > keep ? c->written - keep : 0;
	char p[PATH_MAX + 128];
	uint64_t sum = 0;
	struct stat st;

	for (unsigned k = from; k < c->written; k++)
		for (size_t w = 0; w < c->nw; w++)
			for (int o = 0; o < 2; o++) {
				shard_path(c, (unsigned)i, k, (int)w, o, p, sizeof(p));
				if (stat(p, &st) == 0)
					sum += (uint64_t)st.st_blocks * 512;
			}
	return sum;
}

/* Each drive's row of the step just done: its writers' times, the slowest one's. */
static void rows_of_step(struct rb_ckpt *c, unsigned index, int dir)
{
	for (size_t i = 0; i < c->n; i++) {
		struct drive *d = &c->d[i];
		struct rb_ckpt_row *r;

		if (RB_GROW(d->rows, d->cap, d->nrows, 16))
			continue;
		r = &d->rows[d->nrows];
		memset(r, 0, sizeof(*r));
		r->writer_ns = calloc(c->nw, sizeof(uint64_t));
		r->writer_bytes = calloc(c->nw, sizeof(uint64_t));
		if (!r->writer_ns || !r->writer_bytes) {
			free(r->writer_ns);
			free(r->writer_bytes);
			continue;
		}
		*r = (struct rb_ckpt_row){ .index = index,
					   .dir = (uint32_t)dir,
					   .start_wall_ns = c->t0_wall,
					   .nwriters = (uint32_t)c->nw,
					   .writer_ns = r->writer_ns,
					   .writer_bytes = r->writer_bytes };
		for (size_t k = 0; k < c->nw; k++) {
			const struct writer *w = &c->w[i * c->nw + k];

			r->writer_ns[k] = w->step_ns;
			r->writer_bytes[k] = w->step_bytes;
			r->bytes += w->step_bytes;
			r->errors += w->step_err;
			if (w->step_ns > r->duration_ns) {
				r->duration_ns = w->step_ns;
				r->slowest = (uint32_t)k;
			}
		}
		r->fs_bytes = dir == RB_DIR_WRITE ? fs_bytes(c, i) : 0;
		d->nrows++;
	}
}

static int unlink_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void lead(struct rb_ckpt *c, enum step s, unsigned k)
{
	char p[PATH_MAX + 128];
	unsigned keep = c->wl.checkpoint_keep;

	switch (s) {
	case STEP_SETUP:
		/* an earlier attempt's checkpoints go: this one's sequence starts empty */
		for (size_t i = 0; i < c->n; i++) {
			snprintf(p, sizeof(p), "%s/checkpoints", c->d[i].dir);
			nftw(p, unlink_one, 16, FTW_DEPTH | FTW_PHYS);
			mkdir(p, 0700);
		}
		c->first_wall = rb_wall_ns();
		atomic_store(&c->first_mono, rb_mono_ns());
		/* the drives' start: this instant, in both clocks */
		for (size_t i = 0; i < c->n; i++) {
			c->d[i].res.start_wall_ns = c->first_wall;
			c->d[i].res.start_mono_ns = atomic_load(&c->first_mono);
		}
		return;
	case STEP_WRITE:
		/* the oldest goes before one more than checkpoint_keep would be written */
		if (keep && k >= keep)
			remove_step(c, k - keep);
		for (size_t i = 0; i < c->n; i++) {
			shard_path(c, (unsigned)i, k, -1, false, p, sizeof(p));
			mkdir(p, 0700);
		}
		break;
	case STEP_WRITTEN:
		c->written = k + 1;
		rows_of_step(c, k, RB_DIR_WRITE);
		return;
	case STEP_READ_DONE:
		rows_of_step(c, k, RB_DIR_READ);
		return;
	case STEP_READ:
		break;
	}
	c->t0 = rb_mono_ns();
	c->t0_wall = rb_wall_ns();
}

/* Every writer meets here; the one the barrier picks leads. false: stop (the leader's word). */
static bool meet(struct writer *w, enum step s, unsigned k)
{
	struct rb_ckpt *c = w->c;

	if (pthread_barrier_wait(&c->bar) == PTHREAD_BARRIER_SERIAL_THREAD) {
		/* a step cut short is not recorded: its row would not be a checkpoint's */
		c->halt = atomic_load(&c->stop);
		if (!c->halt)
			lead(c, s, k);
	}
	pthread_barrier_wait(&c->bar);
	return !c->halt;
}

/* This writer's shards of step k, written or read; its time from the step's instant. */
static void do_step(struct writer *w, unsigned k, int dir)
{
	struct rb_ckpt *c = w->c;
	char p[PATH_MAX + 128];

	w->step_bytes = 0;
	w->step_err = 0;
	for (int o = 0; o < 2; o++) {
		shard_path(c, w->drive, k, (int)w->idx, o, p, sizeof(p));
		uint64_t size = o ? c->optim_bytes : c->model_bytes, got = xfer(w, p, size, dir);

		w->step_bytes += got;
		if (got != size && !atomic_load(&c->stop) && !w->step_err)
			w->step_err++;
	}
	w->step_ns = (uint64_t)(rb_mono_ns() - c->t0);
}

/* Before a restore: the shards' clean pages dropped, so the reads reach the drive. */
static void drop_cache(struct writer *w, unsigned k)
{
	char p[PATH_MAX + 128];

	for (int o = 0; o < 2; o++) {
		int fd;

		shard_path(w->c, w->drive, k, (int)w->idx, o, p, sizeof(p));
		if ((fd = open(p, O_RDONLY | O_CLOEXEC)) >= 0) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
			close(fd);
		}
	}
}

/* Sleeps until the CLOCK_MONOTONIC instant t (0: not at all), or until asked to stop. */
static void sleep_until(struct rb_ckpt *c, int64_t t)
{
	for (int64_t now; t && (now = rb_mono_ns()) < t && !atomic_load(&c->stop);) {
		int64_t left = t - now < 100000000 ? t - now : 100000000;

		nanosleep(&(struct timespec){ .tv_sec = 0, .tv_nsec = (long)left }, NULL);
	}
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct rb_ckpt *c = w->c;
	const struct rb_workload *wl = &c->wl;
	unsigned keep = wl->checkpoint_keep;

	/* every writer started, or none goes to the barrier (one that could not start would
	 * never come to it) */
	pthread_mutex_lock(&c->gate_mu);
	while (!c->gate)
		pthread_cond_wait(&c->gate_cv, &c->gate_mu);
	pthread_mutex_unlock(&c->gate_mu);
	if (c->gate < 0)
		goto out;
	sleep_until(c, c->start_at);
	if (!meet(w, STEP_SETUP, 0))
		goto out;
	for (unsigned k = 0; k < wl->checkpoints; k++) {
		if (k && wl->checkpoint_pause_ns)
			sleep_until(c, rb_mono_ns() + (int64_t)wl->checkpoint_pause_ns);
		if (!meet(w, STEP_WRITE, k))
			goto out;
		do_step(w, k, RB_DIR_WRITE);
		if (!meet(w, STEP_WRITTEN, k))
			goto out;
	}
	for (unsigned k = keep && wl->checkpoints > keep ? wl->checkpoints - keep : 0;
	     wl->checkpoint_restore && k < wl->checkpoints; k++) {
		if (!wl->direct)
			drop_cache(w, k);
		if (!meet(w, STEP_READ, k))
			goto out;
		do_step(w, k, RB_DIR_READ);
		if (!meet(w, STEP_READ_DONE, k))
			goto out;
	}
out:
	atomic_fetch_add(&c->done, 1);
	return NULL;
}

static int writer_init(struct rb_ckpt *c, struct writer *w, char *err, size_t errlen)
{
	unsigned depth = c->wl.iodepth;

	pthread_mutex_init(&w->mu, NULL);
	for (int d = 0; d < RB_NDIR; d++)
		rb_dir_stats_clear(&w->cur[d]);
	w->ios = calloc(depth, sizeof(*w->ios));
	w->freel = calloc(depth, sizeof(*w->freel));
	w->done = calloc(depth, sizeof(*w->done));
	w->res = calloc(depth, sizeof(*w->res));
	if (!w->ios || !w->freel || !w->done || !w->res ||
	    posix_memalign((void **)&w->bufs, ALIGN, (size_t)depth * c->wl.bs)) {
		snprintf(err, errlen, "out of memory for the checkpoint's buffers");
		return -ENOMEM;
	}
	/* incompressible data, as a model's weights are */
	struct rb_rng rng;

	rb_rng_seed(&rng, c->wl.seed + w->drive * 1000003ULL + w->idx);
	for (size_t b = 0; b < (size_t)depth * c->wl.bs / 8; b++)
		((uint64_t *)w->bufs)[b] = rb_rng_next(&rng);
	return 0;
}

int rb_ckpt_new(const struct rb_workload *wl, char *const *dirs, size_t n, struct rb_ckpt **ret,
		char *err, size_t errlen)
{
	struct rb_ckpt *c = calloc(1, sizeof(*c));
	int r = -ENOMEM;

	snprintf(err, errlen, "out of memory");
	if (!c)
		return -ENOMEM;
	c->wl = *wl;
	c->n = n;
	pthread_mutex_init(&c->gate_mu, NULL);
	pthread_cond_init(&c->gate_cv, NULL);
	c->nw = wl->numjobs;
	rb_ckpt_shards(wl, &c->model_bytes, &c->optim_bytes);
	c->d = calloc(n + 1, sizeof(*c->d));
	c->w = calloc(n * c->nw + 1, sizeof(*c->w));
	if (!c->d || !c->w)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		snprintf(c->d[i].dir, sizeof(c->d[i].dir), "%s", dirs[i]);
		pthread_mutex_init(&c->d[i].mu, NULL);
		for (int d = 0; d < RB_NDIR; d++)
			rb_dir_stats_clear(&c->d[i].res.dir[d]);
		snprintf(c->d[i].res.features, sizeof(c->d[i].res.features), "checkpoint%s",
			 wl->direct ? " direct" : " buffered");
	}
	for (size_t k = 0; k < n * c->nw; k++) {
		c->w[k] = (struct writer){ .c = c,
					   .drive = (unsigned)(k / c->nw),
					   .idx = (unsigned)(k % c->nw) };
		if ((r = writer_init(c, &c->w[k], err, errlen)))
			goto fail;
	}
	if (pthread_barrier_init(&c->bar, NULL, (unsigned)(n * c->nw)))
		goto fail;
	c->bar_ok = true;
	*ret = c;
	return 0;
fail:
	rb_ckpt_free(c);
	return r;
}

void rb_ckpt_set_start_at(struct rb_ckpt *c, int64_t mono_ns)
{
	c->start_at = mono_ns;
}

int rb_ckpt_start(struct rb_ckpt *c)
{
	int r = 0;

	c->started = true;
	for (size_t k = 0; k < c->n * c->nw && !r; k++) {
		if ((r = pthread_create(&c->w[k].th, NULL, writer_main, &c->w[k]))) {
			/* the ones that never started count as ended */
			for (size_t j = k; j < c->n * c->nw; j++)
				atomic_fetch_add(&c->done, 1);
			break;
		}
		c->w[k].started = true;
	}
	/* all go to the barrier, or (one could not start) none */
	pthread_mutex_lock(&c->gate_mu);
	c->gate = r ? -1 : 1;
	pthread_cond_broadcast(&c->gate_cv);
	pthread_mutex_unlock(&c->gate_mu);
	if (r) {
		atomic_store(&c->stop, true);
		for (size_t i = 0; i < c->n; i++) {
			c->d[i].res.setup_err = -r;
			snprintf(c->d[i].res.message, sizeof(c->d[i].res.message),
				 "cannot start the checkpoint's writers: %s", strerror(r));
		}
	}
	return -r;
}

/* Drive i's interval: its writers' deltas added up, into its totals too. */
static void collect(struct rb_ckpt *c, size_t i)
{
	struct drive *d = &c->d[i];

	for (int k = 0; k < RB_NDIR; k++)
		rb_dir_stats_clear(&d->sample[k]);
	for (size_t k = 0; k < c->nw; k++) {
		struct writer *w = &c->w[i * c->nw + k];

		pthread_mutex_lock(&w->mu);
		for (int x = 0; x < RB_NDIR; x++) {
			rb_dir_stats_merge(&d->sample[x], &w->cur[x]);
			rb_dir_stats_clear(&w->cur[x]);
		}
		pthread_mutex_unlock(&w->mu);
	}
	for (int x = 0; x < RB_NDIR; x++)
		rb_dir_stats_merge(&d->res.dir[x], &d->sample[x]);
}

bool rb_ckpt_poll(struct rb_ckpt *c, rb_sample_fn fn, void *arg)
{
	int64_t first = atomic_load(&c->first_mono), iv = (int64_t)c->wl.interval_ns;
	bool done = atomic_load(&c->done) == c->n * c->nw;

	if (!c->started || c->final_sent)
		return true;
	if (!first)
		return done && (c->final_sent = true);
	for (;;) {
		int64_t now = rb_mono_ns(), end = first + (int64_t)(c->next_ival + 1) * iv;
		bool last = done && now < end;

		if (now < end && !done)
			return false;
		for (size_t i = 0; i < c->n; i++) {
			collect(c, i);
			fn(arg, (unsigned)i, c->next_ival,
			   c->first_wall + (last ? now - first : end - first), c->d[i].sample,
			   last);
		}
		c->next_ival++;
		if (last) {
			c->final_sent = true;
			return true;
		}
	}
}

void rb_ckpt_stop(struct rb_ckpt *c)
{
	atomic_store(&c->stop, true);
}

void rb_ckpt_join(struct rb_ckpt *c)
{
	int64_t now = rb_wall_ns(), first = atomic_load(&c->first_mono);

	if (c->joined)
		return;
	for (size_t k = 0; k < c->n * c->nw; k++)
		if (c->w[k].started)
			pthread_join(c->w[k].th, NULL);
	c->joined = true;
	for (size_t i = 0; i < c->n; i++) {
		struct rb_target_result *res = &c->d[i].res;

		res->end_wall_ns = now;
		res->elapsed_ns = first ? (uint64_t)(rb_mono_ns() - first) : 0;
		/* what the last interval did not take yet */
		collect(c, i);
		if (atomic_load(&c->stop) && c->written < c->wl.checkpoints && !res->setup_err)
			snprintf(res->message, sizeof(res->message),
				 "stopped after %u of %u checkpoint(s)", c->written,
				 c->wl.checkpoints);
	}
}

const struct rb_target_result *rb_ckpt_result(const struct rb_ckpt *c, size_t i)
{
	return &c->d[i].res;
}

const struct rb_ckpt_row *rb_ckpt_rows(const struct rb_ckpt *c, size_t i, size_t *ret_n)
{
	*ret_n = c->d[i].nrows;
	return c->d[i].rows;
}

struct rb_ckpt *rb_ckpt_free(struct rb_ckpt *c)
{
	if (!c)
		return NULL;
	if (c->started && !c->joined) {
		rb_ckpt_stop(c);
		rb_ckpt_join(c);
	}
	for (size_t k = 0; c->w && k < c->n * c->nw; k++) {
		struct writer *w = &c->w[k];

		if (w->ctx_ok)
			rb_engine_uring.teardown(&w->ctx);
		free(w->bufs);
		free(w->ios);
		free(w->freel);
		free(w->done);
		free(w->res);
		pthread_mutex_destroy(&w->mu);
	}
	for (size_t i = 0; c->d && i < c->n; i++) {
		for (size_t r = 0; r < c->d[i].nrows; r++) {
			free(c->d[i].rows[r].writer_ns);
			free(c->d[i].rows[r].writer_bytes);
		}
		free(c->d[i].rows);
		pthread_mutex_destroy(&c->d[i].mu);
	}
	if (c->bar_ok)
		pthread_barrier_destroy(&c->bar);
	pthread_mutex_destroy(&c->gate_mu);
	pthread_cond_destroy(&c->gate_cv);
	free(c->w);
	free(c->d);
	free(c);
	return NULL;
}
