/* SPDX-License-Identifier: MIT */
/*
 * A record log: the one on-disk shape of the agent's spool (agent/session/spool.h) and the
 * coordinator's journal (coordinator/run/journal.h). A record is
 *
 *	u32 length, u32 crc32c of the payload (host order), `extra` bytes the format
 *	defines (the spool's seq; the journal has none), then `length` bytes of payload.
 *
 * Appends are one writev: a crash leaves at worst a torn last record, and a short write
 * (a full folder) is cut back so that no torn record stays before a later one. Walks
 * read on past damage: a record that fails its frame (length, checksum, the format's
 * own test) with a whole record somewhere after it is skipped up to that one and
 * counted; with nothing whole after it, it is a torn tail and ends the walk.
 */
#ifndef RB_RECLOG_H
#define RB_RECLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define RB_RECLOG_EXTRA_MAX 16

/* What one log's records are beyond their frame. */
struct rb_reclog_fmt {
	size_t extra; /* bytes between the checksum and the payload */
	uint32_t max; /* the largest payload */
	/* damage at offset 0 is no log at all (the journal's first record describes it) */
	bool whole_start;
	/* whether a framed record is one of this log (seq order, a name); NULL: any */
	bool (*valid)(void *state, const uint8_t *extra, const uint8_t *payload, uint32_t len);
	/* a record was taken: the state moves on (the spool's last seq) */
	void (*taken)(void *state, const uint8_t *extra);
};

/* What a walk found besides records. */
struct rb_reclog_info {
	off_t end;	     /* after the last whole record taken (or where fn stopped) */
	unsigned damaged;    /* damaged stretches skipped, each with whole records after */
	off_t damaged_bytes; /* ... their bytes, in all */
	off_t first_damaged; /* ... where the first begins */
	int stopped;	     /* fn's non-zero return, when it stopped the walk */
};

/*
 * Called for each whole record from offset at; a non-zero return stops the walk on it
 * (info->end stays at its start, so the next walk begins with it again).
 */
typedef int (*rb_reclog_fn)(void *arg, const uint8_t *extra, const uint8_t *payload, uint32_t len,
			    off_t at);

/*
 * Walks the regular file path from byte `from` (a record's start). state is the
 * format's (its valid() and taken()). Returns the whole records seen (one fn stopped on
 * included), -EINVAL for what is not a regular file (a device never ends), -ERANGE for
 * a start past its end, or another -errno.
 */
long rb_reclog_walk(const char *path, off_t from, const struct rb_reclog_fmt *fmt, void *state,
		    rb_reclog_fn fn, void *arg, struct rb_reclog_info *info);

/*
 * Appends one record to fd (opened O_APPEND) whose size is `size`: extra (fmt's bytes)
 * and the payload in parts. A short write is cut back to size. 0 or -errno (-ENOSPC for
 * a short write).
 */
int rb_reclog_append(int fd, off_t size, const void *extra, size_t nextra,
		     const struct iovec *parts, int nparts);

#endif
