/* SPDX-License-Identifier: MIT */
/*
 * The index of a results folder: every finished run's drives with their verdicts, by
 * drive, in an SQLite file beside the results (RESULTS/rackbench-index.sqlite). It is a
 * cache of the HDF5 files: each query first adds the files it has not seen (or that
 * changed), a missing index is built from them, and a corrupt one (or one of another
 * layout) is set aside and rebuilt. The service adds each run's file as the run ends.
 *
 * A drive is known by its serial; one without (a file, a loop device) by AGENT:PATH.
 */
#ifndef RB_DRIVE_INDEX_H
#define RB_DRIVE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define RB_INDEX_FILE "rackbench-index.sqlite"

struct rb_index;

/* One drive in one run. */
struct rb_index_row {
	char key[200]; /* the serial, else AGENT:PATH */
	char serial[64], model[64], firmware[32], agent[64], path[256];
	char file[4096]; /* the results file */
	char campaign[128];
	int64_t start_ns, end_ns;
	char status[16];  /* the run's: complete, partial, aborted, failed */
	char verdict[16]; /* the drive's: PASS, FAIL, INCOMPLETE; "": not judged */
	char reason[512];
	double seconds; /* measured time, over its points */
	uint64_t bytes; /* read and written */
	/* where it was: its agent's host, its rack label, its PCIe slot ("" unknown; the
	 * fleet's database knows them, results_db.h) */
	char host[64], rack[64], slot[32];
};

/* Opens (or builds) the index of folder dir. NULL with err filled. */
struct rb_index *rb_index_open(const char *dir, char *err, size_t errlen);
void rb_index_close(struct rb_index *ix);
/*
 * Adds the folder's finished results files it has not seen or that changed; a file
 * that does not read is skipped with a warning. The number added, or a negative errno
 * with err filled.
 */
int rb_index_update(struct rb_index *ix, char *err, size_t errlen);
/* Adds one results file (the service, as a run ends). 0, or a negative errno. */
int rb_index_add(struct rb_index *ix, const char *path, char *err, size_t errlen);

/* Every run of drive key (serial or AGENT:PATH), oldest first. 0 or a negative errno. */
int rb_index_history(struct rb_index *ix, const char *key, struct rb_index_row **ret,
		     size_t *ret_n);
/*
 * Each drive's latest run since since_ns (0: ever), by key; failed: only drives with a
 * FAIL in that time (their latest failed run). 0 or a negative errno.
 */
int rb_index_drives(struct rb_index *ix, int64_t since_ns, int failed, struct rb_index_row **ret,
		    size_t *ret_n);

#endif
