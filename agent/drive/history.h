/* SPDX-License-Identifier: MIT */
/*
 * A drive's history, as this host's rackbench saw it: purges (rackbench-agent purge)
 * and what every point wrote, in STATE_DIR/history.jsonl, one JSON object per line.
 * A drive is known by its serial when it has one, else by its path. Every result
 * records the history before it was measured: the drive's state is part of the number.
 */
#ifndef RB_HISTORY_H
#define RB_HISTORY_H

#include <stdint.h>

struct rb_drive_history {
	int64_t first_ns; /* the first record of this drive; 0: none */
	int64_t purge_ns; /* the last successful purge; 0: none recorded */
	char purge_method[24];
	uint64_t written_bytes; /* written by rackbench since the purge (or the first record) */
	uint64_t fill_passes;	/* full sequential write passes since then */
};

/* The drive's history from STATE_DIR/history.jsonl (all zero when there is none). */
void rb_history_read(const char *state_dir, const char *device, const char *serial,
		     struct rb_drive_history *out);
/* Records a purge (result 0: done) of a drive. */
int rb_history_add_purge(const char *state_dir, const char *device, const char *serial,
			 const char *method, int result);
/* Records what a point wrote: bytes, and full sequential passes over span bytes. */
int rb_history_add_write(const char *state_dir, const char *device, const char *serial,
			 uint64_t bytes, uint64_t fill_passes, const char *what);

struct rb_workload;
/* After a run: records what it wrote on one target (nothing when it wrote nothing);
 * sequential writes count a fill pass per span written. */
void rb_history_note_run(const char *state_dir, const char *device, const char *serial,
			 const struct rb_workload *wl, uint64_t written, uint64_t span,
			 const char *what);

#endif
