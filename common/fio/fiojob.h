/* SPDX-License-Identifier: MIT */
/*
 * fio job files: read (ini sections, `include`, `$ncpus`-style expressions) and turned
 * into rackbench workloads, one per job, with every fio option that has no equivalent
 * named with its FILE:LINE and every difference in meaning said (rate per job against
 * rackbench's total, randommap, jobs fio runs at once). Both `rackbench import-fio` and
 * `rackbench-agent run --fio` use it.
 */
#ifndef RB_FIOJOB_H
#define RB_FIOJOB_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "options.h"

struct rb_fio_opt {
	char *key, *value; /* value "" for a bare flag; expressions already evaluated */
	char *file;	   /* where it was written (an include's own file) */
	unsigned line;
};

struct rb_fio_job {
	char *name; /* the section's name; "global" for [global] */
	char *file;
	unsigned line;
	struct rb_fio_opt *opts;
	size_t nopts;
};

struct rb_fio_file {
	struct rb_fio_job *jobs; /* in file order, [global] sections included */
	size_t njobs;
};

/* A job turned into a rackbench workload. */
struct rb_fio_xlate {
	char name[128];
	struct rb_workload wl;
	char **filenames; /* fio's filename= list (':' split), owned */
	size_t nfilenames;
	bool stonewall;	       /* a new phase starts here (stonewall, wait_for, new_group) */
	bool verify_after;     /* a write with verify: then read it all back, checked (fio's
				* verify phase, do_verify=1): rb_fio_verify_pass */
	struct rb_diags notes; /* warnings: unsupported options and differences, each placed */
};

/* The job file at path, includes followed (at most 8 deep). 0, or -EINVAL with errors. */
int rb_fio_parse(const char *path, struct rb_fio_file *ret, struct rb_diags *d);
void rb_fio_release(struct rb_fio_file *f);
/*
 * fio's command line as a job file: args are fio's options ("--bs=4k", "--bs" "4k",
 * "--time_based"), each --name starts a job, those before the first are [global]. 0, or -EINVAL with errors in d (an option rackbench
 * does not take, a value missing).
 */
int rb_fio_cmdline(const char *const *args, size_t n, struct rb_fio_file *ret, struct rb_diags *d);
/*
 * Whether key is a fio option rackbench takes (common/fio/fiomap.c's table): -1 no, 0 yes
 * with a value, 1 yes without one on fio's command line (time_based, norandommap).
 */
int rb_fio_option_kind(const char *key);
/*
 * The runnable jobs (not [global]) of f as workloads, each with the [global] sections
 * before it applied first. Returns 0 and *ret (n entries, free with rb_fio_xlate_free),
 * or -EINVAL with errors in d (a value rackbench cannot take, no job at all).
 */
int rb_fio_translate(const struct rb_fio_file *f, struct rb_fio_xlate **ret, size_t *ret_n,
		     struct rb_diags *d);
void rb_fio_xlate_free(struct rb_fio_xlate *x, size_t n);
/*
 * The verify phase fio runs after a job that wrote with verify: the job's range read
 * once in order, every chunk checked, with its jobs, depth and block size.
 */
void rb_fio_verify_pass(const struct rb_workload *wrote, struct rb_workload *ret);

#endif
