/* SPDX-License-Identifier: MIT */
/*
 * The engine's insides, shared by its two halves: a job's IO loop on its thread
 * (engine.c) and a run's set-up and life -- targets, volumes, jobs started, polled,
 * stopped, collected (engine_run.c). Private to them.
 */
#ifndef RB_ENGINE_PRIV_H
#define RB_ENGINE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "clock.h"
#include "engine.h"
#include "engine_ops.h"

#define SLOTS 8
#define WAIT_CAP_NS 100000000ULL /* re-check the stop flag at least this often */
/* completion spin: reap without sleeping this close to a due IO or the last event */
#define SPIN_NS 1000000LL

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
	const int *member_fds; /* into run->member_fds; else &fd */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot slots[SLOTS];
	unsigned next_emit;
	unsigned jobs_done;
	unsigned *job_last; /* last interval a finished job handed in; UINT32_MAX: running */
	uint64_t rate_iops; /* this target's limit (the workload's unless set apart) */
	struct rb_dir_stats scratch[RB_NDIR];
	struct rb_target_result res;
};

struct job {
	struct rb_run *run;
	struct tgt *t;
	unsigned tidx, idx; /* target index, job index within the target */
	struct rb_engine_ctx ctx;
	bool ctx_ready;
	struct rb_io *ios;
	struct rb_io *parts; /* striped volumes: pmax per slot, for IOs across units */
	unsigned pmax;	     /* parts one IO may need (1: never split) */
	struct rb_io **freelist;
	unsigned nfree;
	struct rb_io **done;
	struct rb_io **queued;
	int *res;
	struct rb_rng rng;
	struct rb_offgen off;
	uint64_t region_start, region_bytes, seq_pos; /* bytes */
	uint64_t limit_bytes, issued_bytes;	      /* size-based runs */
	uint64_t pass_bytes; /* issued since the page cache was last dropped (invalidate) */
	bool invalidate;     /* buffered, invalidate: drop the range's cache each pass */
	struct rb_dir_stats ival[RB_NDIR], total[RB_NDIR];
	uint64_t bs_ios[RB_NDIR][RB_BS_MAX];
	unsigned cur;
	uint64_t issued;
	struct rb_io_error errs[RB_MAX_IO_ERRORS];
	unsigned nerrs;
	struct rb_engine_replay *rp; /* rw replay: the trace and its state (engine_replay.c) */
	bool replay_done;	     /* the trace ended, or failed */
	struct rb_verify_stats vst;
	struct rb_verify_mismatch vmis[RB_MAX_IO_ERRORS];
	unsigned nvmis;
	uint32_t pass;	      /* sequential passes done: the verify generation */
	unsigned inflight_n;  /* verify: IOs in flight, to keep them apart */
	struct rusage ru0;    /* the thread's usage when its IO began */
	struct rb_usage used; /* from then to its end */
	struct rb_fio_depths depths;
	/* as of the last interval it handed in (under its target's mu): status snapshots */
	struct rb_usage used_sofar;
	struct rb_fio_depths depths_sofar;
	int64_t last_completion;
	FILE *latlog; /* debug: every measured IO's latency, uint64 ns */
	pthread_t th;
	bool started;
	int err;
	char msg[256];
};

/*
 * Buffered IO with invalidate: the job's range out of the page cache (a block device's
 * buffers flushed and dropped, BLKFLSBUF, as fio does; a file's clean pages dropped).
 */
void rb_engine_invalidate(struct job *j);

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
	int64_t start_at;    /* asked-for start, CLOCK_MONOTONIC; 0: at once */
	unsigned nintervals; /* UINT32_MAX for size-based runs: no fixed count */
	bool size_based;
	bool replay;	     /* rw replay: a size-based run that runtime may still cut */
	double replay_speed; /* 0: as fast as it goes */
	struct rb_bssplit split;
	struct rb_alias alias;
	uint64_t unit, max_bs; /* offset granularity (smallest size), largest size */
	struct rb_clock clock;
	int *member_fds; /* every descriptor given, volumes' members in order */
	uint64_t *spans; /* per target (a volume's: its members' whole units) */
};

static inline int64_t now_ns(const struct rb_run *r)
{
	return r->clock.now(r->clock.arg);
}

/* A job's thread: its IO loop until the run's end (engine.c). */
void *rb_job_main(void *arg);

/*
 * A replay (engine_replay.c). setup: the trace scanned, its speed, the slots' size (from
 * run_settings). job: the job's own reader of the trace. peek: 1 with the next IO's due
 * instant, 0 at the trace's end, negative with j->msg. take: that IO, for the slot, as a
 * position in the job's region, a length and a direction. submitted: the lag of the IOs
 * just submitted at ts. collect: the job's figures into its target's result.
 */
struct rb_engine_replay;
int rb_engine_replay_setup(struct rb_run *r, char *err, size_t errlen);
int rb_engine_replay_job(struct job *j, char *err, size_t errlen);
int rb_engine_replay_peek(struct job *j, int64_t *ret_due);
void rb_engine_replay_take(struct job *j, unsigned slot, int64_t due, uint64_t *ret_pos,
			   uint64_t *ret_len, uint32_t *ret_dir);
void rb_engine_replay_submitted(struct job *j, struct rb_io *const *q, unsigned n, int64_t ts);
void rb_engine_replay_collect(const struct job *j, struct rb_target_result *res);
void rb_engine_replay_free(struct job *j);

#endif
