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

struct rb_fio_job_out {
	const char *name;
	const char *options[16][2]; /* "job options": key, value; NULL-terminated */
	struct rb_fio_dir dir[3];   /* read, write, trim */
	double usr_cpu_pct, sys_cpu_pct;
	int error;
};

/* fio's bucket index of a value in ns, and the value fio reports for bucket i. */
unsigned rb_fio_plat_index(uint64_t ns);
uint64_t rb_fio_plat_value(unsigned i);
/* Writes the document: jobs[0..n) as fio's "jobs"; plus = json+ (clat_ns.bins). */
void rb_fio_json_write(FILE *out, const struct rb_fio_job_out *jobs, unsigned n, bool plus);

#endif
