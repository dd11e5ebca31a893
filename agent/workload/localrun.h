/* SPDX-License-Identifier: MIT */
/*
 * One job on this host, no coordinator (`rackbench-agent run`): the same engine and
 * safety guard as a campaign, its result as text, rackbench's JSON or fio's.
 */
#ifndef RB_LOCALRUN_H
#define RB_LOCALRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fiojob.h"
#include "fstarget.h"
#include "options.h"

/* fio's output formats of a local run. */
enum { RB_FIO_FMT_JSON = 1, RB_FIO_FMT_JSONPLUS, RB_FIO_FMT_TERSE };

/* The most targets a fio job file's filename= gives. */
#define RB_FIO_MAX_FILES 64

/* What a local run was asked. */
struct rb_localrun {
	struct rb_workload wl;
	char **targets; /* room for one more than ntargets (the null engine's own) */
	char **allow;
	size_t ntargets, nallow;
	bool json, destructive, errors_ok, wipe;
	const char *state_dir, *lat_log; /* NULL: the default state folder; no log */
	int fio_fmt;			 /* fio's output: RB_FIO_FMT_*; 0: none */
	uint64_t status_interval_ns;	 /* a status snapshot this often; 0: none */
	struct rb_fs_spec fs;		 /* a filesystem made on the target; type "" none */
	bool verify_after; /* a fio job's write with verify: its range read back after, checked */
};

/*
 * A fio job file's job (section NAME, or its only one) -- or, file NULL, the job of fio's
 * command line (line, nline: fio's options, rb_fio_cmdline) -- as the workload the run's
 * flags then override; its filename= appended to targets (room for RB_FIO_MAX_FILES).
 * Every option that does not convert is said, with its FILE:LINE. Returns 0 (also with
 * neither) or -EINVAL, said; *ret (free with rb_fio_xlate_free) holds the jobs.
 */
int rb_localrun_fio(const char *file, const char *const *line, size_t nline, const char *section,
		    struct rb_workload *wl, struct rb_fio_xlate **ret, size_t *ret_n,
		    char **targets, size_t *ntargets, bool *ret_verify_after);
/* Runs it: checks, guards, runs to its end (SIGINT and SIGTERM stop it) -- then, for a
 * fio job's write with verify, reads its range back checked, as fio does -- prints the
 * result; job names fio's output. Returns the exit code. */
int rb_localrun(struct rb_localrun *a, const char *job);

#endif
