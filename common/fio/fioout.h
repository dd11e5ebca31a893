/* SPDX-License-Identifier: MIT */
/*
 * fio's JSON output format (--output-format=json and json+), written from rackbench's
 * figures, so that dashboards and scripts that parse fio, and fio's own tools
 * (fio_jsonplus_clat2csv), read rackbench's results unchanged.
 *
 * Design note. rackbench measures each IO from its submission to its completion; with
 * io_uring that is fio's completion latency (clat), its submission latency (slat) being
 * the few ns of the SQE write, so slat is reported as 0 and lat equals clat. json+ adds
 * clat_ns.bins in fio's own histogram layout: 29 groups of 64 buckets (1856), values
 * below 128 ns exact, each bucket of the group [2^m, 2^(m+1)) 2^(m-6) wide, keyed by the
 * bucket's midpoint in ns as fio writes them. rackbench's buckets (1/128 of their lower
 * edge) are finer, so each falls within one fio bucket: its count moves there whole.
 *
 * Every member fio 3.x writes is written where rackbench's figures fill it, and left out
 * where they cannot (never a made-up 0): latency_ns/us/ms, fio's share of IOs per
 * latency range, come from the histogram, each bucket's IOs counted at its reported value
 * (so an IO within the histogram's 0.39% of a range's edge may count on its other side);
 * the IO-depth distributions (iodepth_level, _submit, _complete) are written where the
 * engine counted them, as are ctx, majf and minf, and disk_util where the kernel's
 * counters of the disks were read.
 */
#ifndef RB_FIOOUT_H
#define RB_FIOOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

#define RB_FIO_PLAT_BITS 6
#define RB_FIO_PLAT_VAL (1u << RB_FIO_PLAT_BITS)
#define RB_FIO_PLAT_NR (29 * RB_FIO_PLAT_VAL)

/* fio's IO-depth distributions: 7 buckets each (FIO_IO_U_MAP_NR). */
#define RB_FIO_DEPTH_NR 7
struct rb_fio_depths {
	/* IOs submitted, by how many were in flight with them: 1, 2-3, 4-7, ..., >=64 */
	uint64_t level[RB_FIO_DEPTH_NR];
	/* submissions, by the IOs each one submitted: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64 */
	uint64_t submit[RB_FIO_DEPTH_NR];
	/* waits for completions, by the IOs each one reaped, in the same buckets */
	uint64_t complete[RB_FIO_DEPTH_NR];
};

/* The bucket of iodepth_level of a depth (>= 1), and of _submit/_complete of a count. */
static inline unsigned rb_fio_depth_index(unsigned depth)
{
	unsigned l = depth > 1 ? 31u - (unsigned)__builtin_clz(depth) : 0;

	return l < RB_FIO_DEPTH_NR - 1 ? l : RB_FIO_DEPTH_NR - 1;
}

static inline unsigned rb_fio_batch_index(unsigned n)
{
	unsigned l;

	if (n <= 4)
		return n ? 1 : 0;
	l = 32u - (unsigned)__builtin_clz(n - 1); /* ceil(log2 n): 5-8 -> 3 */
	return l - 1 < RB_FIO_DEPTH_NR - 1 ? l - 1 : RB_FIO_DEPTH_NR - 1;
}

/* One direction of a job, as fio reports it. */
struct rb_fio_dir {
	uint64_t ios, bytes, errors;
	uint64_t lat_sum_ns, lat_min_ns, lat_max_ns;
	const struct rb_hist *hist; /* every measured IO's latency */
	uint64_t runtime_ns;
	/* per-interval statistics, as fio's from its bw and iops logs; nsamples 0: none */
	unsigned nsamples;
	double bw_min, bw_max, bw_mean, bw_dev; /* KiB/s */
	double iops_min, iops_max, iops_mean, iops_dev;
};

/* fio's bw and iops sample statistics of a direction, gathered one interval at a time. */
struct rb_fio_samples {
	unsigned n;
	double sum[2], sq[2], min[2], max[2]; /* KiB/s, IOPS */
};

struct rb_fio_job_out {
	const char *name;
	const char *options[16][2]; /* "job options": key, value; NULL-terminated */
	struct rb_fio_dir dir[3];   /* read, write, trim */
	double usr_cpu_pct, sys_cpu_pct;
	int error;
	int64_t start_ms;		    /* job_start, wall-clock ms; 0: unknown (left out) */
	unsigned iodepth;		    /* latency_depth, the depth it ran at; 0: unknown */
	const struct rb_fio_depths *depths; /* NULL: not counted (left out) */
	bool rusage;			    /* ctx, majf and minf are known */
	uint64_t ctx, majf, minf;	    /* context switches, major and minor faults */
};

/* A disk's counters over the run (/sys/block/NAME/stat deltas), as fio's disk_util. */
struct rb_fio_disk {
	char name[64];
	uint64_t ios[2], merges[2], sectors[2], ticks_ms[2]; /* read, write */
	uint64_t io_ticks_ms, in_queue_ms;
	uint64_t msec; /* the wall-clock time the deltas span */
};

/* A document: its jobs and the disks they ran on (ndisks 0: disk_util left out). */
struct rb_fio_doc {
	const struct rb_fio_job_out *jobs;
	unsigned njobs;
	const struct rb_fio_disk *disks;
	unsigned ndisks;
};

/* fio's bucket index of a value in ns, and the value fio reports for bucket i. */
unsigned rb_fio_plat_index(uint64_t ns);
uint64_t rb_fio_plat_value(unsigned i);
/*
 * fio's latency ranges of a job: IOs of every direction's histogram counted per range of
 * latency_ns (10: <2, <4, <10, <20, <50, <100, <250, <500, <750, <1000 ns), latency_us
 * (the same in us) and latency_ms (12: the same in ms, then <2000, >=2000 ms). Returns
 * the IOs counted.
 */
uint64_t rb_fio_lat_ranges(const struct rb_fio_job_out *job, uint64_t ret_ns[10],
			   uint64_t ret_us[10], uint64_t ret_ms[12]);
/* An interval's bandwidth (KiB/s) and IOPS added to s. */
void rb_fio_samples_add(struct rb_fio_samples *s, double kib_per_s, double iops);
/* s's count, min, max, mean and standard deviation (of a sample, n - 1) into d. */
void rb_fio_samples_put(const struct rb_fio_samples *s, struct rb_fio_dir *d);
/* Writes the document as fio's JSON; plus = json+ (clat_ns.bins). */
void rb_fio_json_write(FILE *out, const struct rb_fio_doc *doc, bool plus);
/*
 * Writes the document as fio's terse lines (version 3, fio's HOWTO "Terse output"): a line
 * a job, semicolon-separated; a figure rackbench does not know (ctx, majf, minf, the IO
 * depths of a results file) is an empty field, and the disks' fields follow where known.
 */
void rb_fio_terse_write(FILE *out, const struct rb_fio_doc *doc);

#endif
