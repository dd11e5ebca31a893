/* SPDX-License-Identifier: MIT */
/*
 * The agent's spool: every data message (samples, health, results, point done) is written
 * to STATE_DIR/spool/RUN-EPOCH.spool before it is sent, numbered (epoch, seq). The
 * coordinator acknowledges cumulatively once its journal holds them; what it has not
 * acknowledged is sent again (after a silence, or by the next process of this agent after
 * a crash). A record: u32 length, u32 crc32c of the bytes, u64 seq, the envelope bytes.
 * A damaged record with whole ones after it is skipped, never taken for the end.
 */
#ifndef RB_SPOOL_H
#define RB_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct rb_spool {
	int fd;
	char path[4096];
	uint64_t epoch;
	uint64_t last;	  /* the last seq written */
	uint64_t acked;	  /* the coordinator's cumulative ack */
	bool dirty;	  /* written since the last fsync */
	uint64_t bytes;	  /* the file's size */
	uint64_t emptied; /* times it was emptied: byte offsets from before are void */
};

/* Opens (creates) dir/RUN-EPOCH.spool. 0 or negative errno. */
int rb_spool_open(struct rb_spool *s, const char *state_dir, const char *run, uint64_t epoch);
void rb_spool_close(struct rb_spool *s);
/* Closes it, and removes the file when the coordinator holds all of it. */
void rb_spool_retire(struct rb_spool *s);
/* Appends one record with seq; 0 or negative errno (the message must not be sent then). */
int rb_spool_append(struct rb_spool *s, uint64_t seq, const uint8_t *buf, size_t len);
int rb_spool_sync(struct rb_spool *s);
/* The coordinator holds everything up to seq; when that is all and the file has at
 * least min_bytes, it is emptied. */
void rb_spool_acked(struct rb_spool *s, uint64_t seq, uint64_t min_bytes);
/* Calls fn for each whole record of a spool file with seq > after, in order; a torn tail
 * (a crash mid-write) ends the walk. Returns records seen, or negative errno. */
long rb_spool_walk(const char *path, uint64_t after,
		   int (*fn)(void *arg, uint64_t seq, const uint8_t *buf, size_t len), void *arg);

/*
 * The same from byte offset start (a record's beginning, as a previous walk's ret_end
 * said); records with seq <= after are passed over unread. ret_end: where the next walk
 * may start -- after the last record handed to fn, or at the one fn stopped on.
 */
long rb_spool_walk_at(const char *path, off_t start, uint64_t after,
		      int (*fn)(void *arg, uint64_t seq, const uint8_t *buf, size_t len), void *arg,
		      off_t *ret_end);

/* What a walk found besides records. */
struct rb_spool_walk_info {
	off_t end;	   /* as rb_spool_walk_at's ret_end */
	uint64_t last_seq; /* of the last whole record */
	unsigned damaged;  /* damaged stretches skipped, each with whole records after */
	off_t damaged_bytes, first_damaged;
};
/*
 * rb_spool_walk_at, also saying what it skipped: a record failing its checksum (or
 * length, or seq order) with whole records after it is damage, skipped to the next
 * whole record; with nothing whole after it, a torn tail that ends the walk. -EINVAL for
 * what is not a regular file (a device never ends).
 */
long rb_spool_walk_ex(const char *path, off_t start, uint64_t after,
		      int (*fn)(void *arg, uint64_t seq, const uint8_t *buf, size_t len), void *arg,
		      struct rb_spool_walk_info *info);

/* The last whole record's seq of a spool file; 0 when it holds none. */
uint64_t rb_spool_last_seq(const char *path);

/*
 * A spool file's whole records as JSON lines on out (a reader apart from the coordinator,
 * for tests and for people: `rackbench-agent spool`). Returns rb_spool_walk_ex's count
 * or its error; info says what was skipped.
 */
long rb_spool_dump(const char *path, FILE *out, struct rb_spool_walk_info *info);

#endif
