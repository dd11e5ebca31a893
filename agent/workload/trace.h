/* SPDX-License-Identifier: MIT */
/*
 * Block traces read for replay, streamed: a trace is read in chunks of a fixed buffer and
 * handed out a record at a time, so a trace of any size costs the same memory. Formats:
 * fio's iolog (versions 2 and 3, told by their header line), blkparse's default text
 * output (its queue events, and the kernel's blk tracer in its classic layout, which is
 * the same without the sequence column), the MSR Cambridge CSV, the Alibaba block
 * trace CSV, and blktrace's binary records (queue events). A record is an IO: its time since the trace's first record, offset, length
 * and direction, and the line it came from. A line that does not parse is an error
 * "FILE:LINE: message", never a crash (tests/fuzz/fuzz_trace.c).
 */
#ifndef RB_TRACE_H
#define RB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The order of the replay_format choices (common/workload/options.c). */
enum rb_trace_format {
	RB_TRACE_AUTO,
	RB_TRACE_IOLOG,
	RB_TRACE_BLKPARSE,
	RB_TRACE_MSR,
	RB_TRACE_ALIBABA,
	RB_TRACE_BLKTRACE, /* binary struct blk_io_trace records (blktrace, blkparse -d) */
};
/* The values of enum rb_dir (agent/engine/engine.h). */
enum rb_trace_dir { RB_TRACE_READ, RB_TRACE_WRITE, RB_TRACE_TRIM };
/* The order of the replay_remap choices. */
enum rb_trace_remap { RB_TRACE_MODULO, RB_TRACE_REFUSE };

/* The longest IO a trace may hold (the engine's largest block size). */
#define RB_TRACE_MAX_IO (64ULL << 20)

struct rb_trace_rec {
	uint64_t t_ns;	      /* since the trace's first record (after the device filter) */
	uint64_t offset, len; /* bytes */
	uint32_t dir;	      /* enum rb_trace_dir */
	uint64_t line;	      /* 1-based */
};

struct rb_trace;

/*
 * Opens the trace at path in format (RB_TRACE_AUTO: told from its first line), keeping
 * only the records of device (blkparse's "MAJ,MIN", MSR's DiskNumber, Alibaba's
 * device_id, iolog's file name; NULL or "" keeps all). Returns 0, or negative errno with
 * err filled ("FILE:LINE: message" where a line is to blame).
 */
int rb_trace_open(const char *path, int format, const char *device, struct rb_trace **ret,
		  char *err, size_t errlen);
/* The same over bytes in memory (tests, the fuzzer); name stands for the file in messages. */
int rb_trace_open_mem(const char *name, const void *data, size_t len, int format,
		      const char *device, struct rb_trace **ret, char *err, size_t errlen);
/* The next record: 1, 0 at the end, or -EINVAL (-EIO) with err "FILE:LINE: message". */
int rb_trace_next(struct rb_trace *t, struct rb_trace_rec *ret, char *err, size_t errlen);
/* The format read (the one told, with AUTO). */
int rb_trace_format_of(const struct rb_trace *t);
struct rb_trace *rb_trace_free(struct rb_trace *t);
/* "auto", "iolog", "blkparse", "msr", "alibaba", "blktrace". */
const char *rb_trace_format_name(int format);

/* What a whole trace holds, read once to its end. */
struct rb_trace_summary {
	int format;
	uint64_t records, ios[3];  /* by enum rb_trace_dir */
	uint64_t first_write_line; /* the first write or trim; 0: the trace only reads */
	uint64_t max_len, max_end; /* the longest IO; the furthest byte an IO reaches */
	uint64_t duration_ns;	   /* the last record's time */
};

/* Reads t to its end. Returns 0, or negative errno with err; an empty trace is -EINVAL. */
int rb_trace_summarize(struct rb_trace *t, struct rb_trace_summary *ret, char *err, size_t errlen);
/*
 * rb_trace_open and rb_trace_summarize of a file; the last few answers are kept by the
 * file's identity (device, inode, size, change time) and settings, so the guard's scan and
 * the engine's set-up read a trace once. Thread-safe.
 */
int rb_trace_scan(const char *path, int format, const char *device, struct rb_trace_summary *ret,
		  char *err, size_t errlen);
/*
 * The place of record r on a target of span bytes whose logical blocks are lbs bytes: the
 * offset rounded down and the length up to whole blocks; with RB_TRACE_MODULO an IO past
 * the end wraps (offset modulo span, pulled back so that it ends by the end). Returns 0,
 * or -ERANGE: past the end with RB_TRACE_REFUSE, or longer than the target.
 */
int rb_trace_place(const struct rb_trace_rec *r, uint64_t span, uint32_t lbs, int remap,
		   uint64_t *ret_offset, uint64_t *ret_len);
/*
 * Whether every record of the trace at path has a place on a target of span bytes (see
 * rb_trace_place): 0, or -ERANGE with err naming the first line that has none (or another
 * error of the trace, said).
 */
int rb_trace_check_fits(const char *path, int format, const char *device, uint64_t span,
			uint32_t lbs, int remap, char *err, size_t errlen);

#endif
