/* SPDX-License-Identifier: MIT */
/*
 * The run's journal, RESULTS.h5.journal: every data message an agent sends, appended as
 * received and fdatasync'ed before it is acknowledged, so that `rackbench resume` can
 * rebuild the HDF5 file and carry on after a coordinator crash.
 *
 * Records: u32 length, u32 crc32c (both little-endian host order), then `length` bytes:
 * the agent's name, NUL, the packed rb.Envelope. The first record has an empty name and
 * holds the run's description (rb_journal_meta) instead of an envelope. A torn record at
 * the end (a crash mid-append) ends the journal; resume cuts it off. A damaged record
 * with whole ones after it is skipped: readers resynchronise on the next whole record.
 */
#ifndef RB_JOURNAL_H
#define RB_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

/* What a resumed run needs to be the same run: written first, as text. */
struct rb_journal_meta {
	char run[96];	 /* the run's identity (the agents' spools carry it) */
	char file[1024]; /* the campaign file it was read from, for messages */
	char listen[256], key[1024], agent_keys[1024];
	bool insecure;
	int64_t start_ns;
	char *campaign; /* the campaign's text (allocated) */
	char *shard;	/* the fleet shard it was cut to; NULL: whole (allocated when read) */
};

/*
 * Opens (creating) the journal for appending and takes an exclusive flock on it, held
 * while the descriptor is open (one coordinator per run); resume cuts a torn tail first
 * (a damaged record with whole ones after it stays: walks skip it). -EWOULDBLOCK when
 * another process holds the lock (rb_journal_holder names it); other -errno.
 */
int rb_journal_open(const char *path, bool resume, int *ret_fd);
/* The pid holding path's lock (from /proc/locks), or 0 when none can be seen. */
pid_t rb_journal_holder(const char *path);
int rb_journal_append(int fd, const char *agent, const uint8_t *buf, size_t len);
int rb_journal_write_meta(int fd, const struct rb_journal_meta *m);
/*
 * The synced journal's whole pages from *from on dropped from the page cache, *from
 * moved past them. A run reads its journal only at a resume; kept cached, a fleet's
 * ~70 MB/s of it pushes out what the host caches for itself, and every page it takes
 * is one the kernel must find anew (on a VM that hands free memory back to its
 * hypervisor, one the hypervisor must fault in: docs/performance.md).
 */
void rb_journal_forget(int fd, off_t *from);

/* Called for each envelope record; a non-zero return stops the walk and is returned. */
typedef int (*rb_journal_fn)(void *arg, const char *agent, const uint8_t *buf, size_t len,
			     off_t at);
/*
 * Walks path's records from offset `from` (0: the start). meta, when not NULL, receives
 * the description (release with rb_journal_meta_free). Returns the number of records
 * walked, or -errno (-EBADMSG: not a journal, err says why); *ret_end is the end of the
 * last whole record.
 */
long rb_journal_walk(const char *path, off_t from, struct rb_journal_meta *meta, rb_journal_fn fn,
		     void *arg, off_t *ret_end, char *err, size_t errlen);
/* What a walk found besides records: where the whole ones end, and what it skipped. */
struct rb_journal_walk_info {
	off_t end;	     /* the end of the last whole record */
	unsigned damaged;    /* damaged stretches skipped (each followed by whole records) */
	off_t damaged_bytes; /* ... their bytes, in all */
	off_t first_damaged; /* ... where the first begins */
};
/*
 * rb_journal_walk, also saying what it skipped: a record that fails its checksum (or
 * length) with whole records after it is damage, passed over to the next whole record;
 * one with nothing whole after it is a torn tail and ends the walk.
 */
long rb_journal_walk_ex(const char *path, off_t from, struct rb_journal_meta *meta,
			rb_journal_fn fn, void *arg, struct rb_journal_walk_info *info, char *err,
			size_t errlen);
void rb_journal_meta_free(struct rb_journal_meta *m);
/*
 * A journal's whole records as JSON lines on out (a reader apart from resume: `rackbench
 * journal`): rb_journal_walk's count and meta, or its error with err filled.
 */
long rb_journal_dump(const char *path, FILE *out, struct rb_journal_meta *meta, off_t *end,
		     char *err, size_t errlen);

#endif
