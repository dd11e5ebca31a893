/* SPDX-License-Identifier: MIT */
/*
 * The IO engine: runs one workload on a set of targets, numjobs threads per target,
 * each thread with its own engine instance (an io_uring, or the null engine).
 *
 * Latency of an IO runs from just before its submission to the reaping of its
 * completion. Failed IOs are counted as errors with their offset and are never
 * counted as completed nor recorded in the histogram. Short reads and writes are
 * resubmitted for the remainder, keeping the first submission time. IOs that
 * complete during the ramp are not recorded at all. The hot path allocates nothing:
 * IO slots and buffers are set up before the clock starts.
 *
 * Samples: the measured time is cut into intervals from the end of the ramp; every
 * job hands each interval's counts and histogram delta to its target, and
 * rb_run_poll() emits an interval of a target once all its jobs handed it in.
 */
#ifndef RB_ENGINE_H
#define RB_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "fioout.h"
#include "gen.h"
#include "hist.h"
#include "options.h"
#include "verify.h"

enum rb_dir { RB_DIR_READ, RB_DIR_WRITE, RB_DIR_TRIM, RB_NDIR };

struct rb_dir_stats {
	uint64_t ios, bytes, errors;
	uint64_t lat_sum_ns, lat_min_ns, lat_max_ns;
	struct rb_hist hist;
};

/* A failed IO; the same failure at the same place is listed once, with a count. */
struct rb_io_error {
	uint64_t offset;
	uint32_t length;
	uint32_t dir;
	int err; /* positive errno */
	uint64_t count;
};

/* Adds e to list (n entries, at most max): merges with an equal entry, else appends. */
void rb_io_error_add(struct rb_io_error *list, unsigned *n, unsigned max,
		     const struct rb_io_error *e);

#define RB_MAX_IO_ERRORS 64

struct rb_target_result {
	int64_t start_wall_ns, end_wall_ns;
	int64_t start_mono_ns;		 /* when the jobs started: the run's clock */
	uint64_t elapsed_ns;		 /* measured time: end of ramp to last completion */
	double cpu_usr_pct, cpu_sys_pct; /* percent of one CPU, summed over jobs */
	uint64_t ctx, majf, minf;	 /* its jobs' context switches, major and minor faults */
	struct rb_fio_depths depths;	 /* measured submissions and waits, fio's buckets */
	struct rb_dir_stats dir[RB_NDIR];
	struct rb_io_error errors[RB_MAX_IO_ERRORS];
	unsigned nerrors;	       /* distinct failures listed; dir[].errors counts them all */
	struct rb_verify_stats verify; /* chunks checked, unwritten, bad */
	struct rb_verify_mismatch mismatches[RB_MAX_IO_ERRORS];
	unsigned nmismatches; /* listed; verify.bad counts them all */
	unsigned nbs;	      /* block sizes of the workload */
	uint64_t bs[RB_BS_MAX];
	uint64_t bs_ios[RB_NDIR][RB_BS_MAX]; /* completed IOs per size and direction */
	char features[128];		     /* io_uring features used */
	char trim_method[16]; /* how its trims or write-zeroes went (engine_ops.h); "" none */
	/* rw replay: the trace's IOs issued, the last line issued, whether the trace ended
	 * (not the runtime), and with a pace (timed) the issue lag: the submission instant
	 * minus the one the trace's time and the speed gave it */
	struct rb_replay_result {
		uint64_t ios, last_line;
		bool complete, timed;
		uint64_t lag_max_ns;
		struct rb_hist lag; /* ns */
	} replay;
	int setup_err; /* negative errno when jobs could not start */
	char message[256];
};

/* What jobs used: CPU time, context switches, faults (getrusage of their threads). */
struct rb_usage {
	uint64_t usr_ns, sys_ns, ctx, majf, minf;
};

/* Called for each emitted interval of a target; stats are the interval's deltas; last:
 * the target's measurement ended with it (nothing more comes of it in this run). */
typedef void (*rb_sample_fn)(void *arg, unsigned target, unsigned interval, int64_t t_wall_ns,
			     const struct rb_dir_stats *dirs, bool last);

struct rb_run;

/*
 * Prepares a run of wl on n targets given as open descriptors and the byte range to
 * use (offset/size already resolved against each target's size). The descriptors
 * stay owned by the caller. Returns 0, or negative errno with err filled.
 */
int rb_run_new(const struct rb_workload *wl, const int *fds, const uint64_t *span_bytes, size_t n,
	       struct rb_run **ret, char *err, size_t errlen);
/*
 * A target made of several descriptors: members consecutive ones of fds, striped in units
 * of stripe bytes (RAID 0; results and verify use volume offsets). members 1 and stripe 0:
 * a plain target. rb_run_new is one volume of all n when wl->stripe, else n plain ones.
 */
struct rb_volume {
	unsigned members;
	uint64_t stripe;
};
/* Like rb_run_new, with n targets made of the nfds descriptors as vols says. */
int rb_run_new_volumes(const struct rb_workload *wl, const int *fds, const uint64_t *span_bytes,
		       size_t nfds, const struct rb_volume *vols, size_t n, struct rb_run **ret,
		       char *err, size_t errlen);
/* The engine's clock (common/util/clock.h): real by default; tests give a fake one to prove
 * rate exactness. Before rb_run_start. */
void rb_run_set_clock(struct rb_run *r, const struct rb_clock *c);
/*
 * Debug: every measured IO's latency (uint64 ns, host order, completion order) into
 * PATH, or PATH.N per job when there are several. Before rb_run_start.
 */
/* A rate limit for one target apart from the workload's (curves). Before rb_run_start. */
int rb_run_set_target_rate(struct rb_run *r, size_t target, uint64_t iops);
/* Start the jobs at this CLOCK_MONOTONIC instant (if still ahead). Before rb_run_start. */
void rb_run_set_start_at(struct rb_run *r, int64_t mono_ns);
int rb_run_set_lat_log(struct rb_run *r, const char *path, char *err, size_t errlen);
/* Starts the job threads; IO begins at once. */
int rb_run_start(struct rb_run *r);
/* Emits finished intervals; returns true once every job ended and all is emitted. */
bool rb_run_poll(struct rb_run *r, rb_sample_fn fn, void *arg);
/* Asks every job to stop issuing IO (safe from any thread). */
void rb_run_stop(struct rb_run *r);
/* Joins the jobs (after rb_run_poll() returned true, or after rb_run_stop()). */
void rb_run_join(struct rb_run *r);
/* Targets measured: the n given, or 1 for a striped volume. */
size_t rb_run_ntargets(const struct rb_run *r);
/*
 * When the measured time began (the ramp's end), wall-clock ns: interval i of a sample
 * began interval_ns * i later. Known once the jobs started (in an rb_run_poll callback).
 */
int64_t rb_run_measure_wall_ns(const struct rb_run *r);
/*
 * What a target's jobs used and their IO-depth counts so far: each job's as of the last
 * interval it handed in (a status snapshot's, beside the intervals emitted). Safe while
 * the jobs run.
 */
void rb_run_usage(struct rb_run *r, size_t target, struct rb_usage *ret_used,
		  struct rb_fio_depths *ret_depths);
const struct rb_target_result *rb_run_result(const struct rb_run *r, size_t target);
/*
 * What a later run that read r's targets back checked (fio's verify phase after a write
 * with verify) added to r's results: its chunks checked, unwritten and bad, its
 * mismatches and its IO errors. r's own figures (IOPS, latency, time) stay its own.
 */
void rb_run_absorb_verify(struct rb_run *r, const struct rb_run *check);
struct rb_run *rb_run_free(struct rb_run *r);

/* Mean latency and IOPS helpers over stats. */
double rb_dir_stats_mean_ns(const struct rb_dir_stats *s);
void rb_dir_stats_merge(struct rb_dir_stats *dst, const struct rb_dir_stats *src);
void rb_dir_stats_clear(struct rb_dir_stats *s);
/* One measured IO of bytes that took lat ns: the one per-IO update (engine, checkpoint). */
static inline void rb_dir_stats_record(struct rb_dir_stats *s, uint64_t bytes, uint64_t lat)
{
	s->ios++;
	s->bytes += bytes;
	s->lat_sum_ns += lat;
	if (lat < s->lat_min_ns)
		s->lat_min_ns = lat;
	if (lat > s->lat_max_ns)
		s->lat_max_ns = lat;
	rb_hist_record(&s->hist, lat);
}

#endif
