/* SPDX-License-Identifier: MIT */
/*
 * The checkpoint workload (rw checkpoint): an AI training job saving its state, as DLIO
 * and MLPerf Storage time it. On each drive's filesystem, numjobs writers (the job's
 * ranks) each write their shards of every checkpoint -- a model file and an optimizer
 * file (1:6, the bytes of bf16 weights beside fp32 Adam state), named as DeepSpeed names
 * them under global_stepK/ -- with large sequential writes through io_uring (O_DIRECT or
 * buffered, as 'direct' says), fsync each file and close it. Every writer of every drive
 * starts each checkpoint together (one barrier); a writer's time runs from that instant
 * to its last fsync, and the checkpoint's duration on a drive is its slowest writer's,
 * its throughput the checkpoint's bytes over that duration (MLPerf's maximum duration,
 * minimum throughput). K checkpoints in a row, a pause between; the oldest deleted
 * beyond checkpoint_keep; then, with checkpoint_restore, each kept one read back the
 * same way after its page cache is dropped (POSIX_FADV_DONTNEED per file).
 *
 * The drive's IO is sampled per interval like any point (write and read bytes, IOs,
 * latency histograms); the result carries a row per checkpoint and direction, with
 * every writer's time and bytes.
 */
#ifndef RB_CHECKPOINT_H
#define RB_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "options.h"

/* One checkpoint (write) or its restore (read) on one drive. */
struct rb_ckpt_row {
	uint32_t index;	       /* 0.. in the sequence */
	uint32_t dir;	       /* RB_DIR_WRITE, or RB_DIR_READ for its restore */
	uint64_t bytes;	       /* of every shard */
	int64_t start_wall_ns; /* the barrier's instant */
	uint64_t duration_ns;  /* its slowest writer's */
	uint32_t slowest;      /* that writer */
	uint64_t fs_bytes;     /* allocated on the filesystem by the kept checkpoints, after */
	uint32_t nwriters;
	uint64_t *writer_ns;	/* each writer's time */
	uint64_t *writer_bytes; /* ... and bytes */
	uint32_t errors;	/* IOs that failed, or a shard not written whole */
};

struct rb_ckpt;

/*
 * Prepares the checkpoints of wl on n drives, each at its filesystem's folder dirs[i]
 * (the workload's files go under dirs[i]/checkpoints/). 0, or negative errno with err.
 */
int rb_ckpt_new(const struct rb_workload *wl, char *const *dirs, size_t n, struct rb_ckpt **ret,
		char *err, size_t errlen);
/* Starts at this CLOCK_MONOTONIC instant (if still ahead). Before rb_ckpt_start. */
void rb_ckpt_set_start_at(struct rb_ckpt *c, int64_t mono_ns);
/* Starts the writers' threads. 0 or negative errno. */
int rb_ckpt_start(struct rb_ckpt *c);
/* Emits finished intervals per drive; true once the writers ended and all is emitted. */
bool rb_ckpt_poll(struct rb_ckpt *c, rb_sample_fn fn, void *arg);
/* Asks the writers to stop after their IOs in flight (safe from any thread). */
void rb_ckpt_stop(struct rb_ckpt *c);
/* Joins the writers (after rb_ckpt_poll returned true, or after rb_ckpt_stop). */
void rb_ckpt_join(struct rb_ckpt *c);
/* Drive i's figures as the engine gives a target's, and its checkpoint rows. */
const struct rb_target_result *rb_ckpt_result(const struct rb_ckpt *c, size_t i);
const struct rb_ckpt_row *rb_ckpt_rows(const struct rb_ckpt *c, size_t i, size_t *ret_n);
struct rb_ckpt *rb_ckpt_free(struct rb_ckpt *c);
/* The shard sizes of one writer of wl: its model and optimizer files' bytes. */
void rb_ckpt_shards(const struct rb_workload *wl, uint64_t *ret_model, uint64_t *ret_optim);

#endif
