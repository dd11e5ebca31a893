/* SPDX-License-Identifier: MIT */
/*
 * How a drive's point ended, as one enum with its string table. The wire and the
 * results file keep the strings ("ok", "error", ...); the codec (wire_result.c) and the
 * row writer (coordinator/run/ingest.c) convert through this table, and everything else
 * compares the enum, never the string.
 */
#ifndef RB_STATUS_H
#define RB_STATUS_H

enum rb_status {
	RB_STATUS_OK,	   /* measured to its end */
	RB_STATUS_ERROR,   /* the drive or its setup failed; its message says how */
	RB_STATUS_REFUSED, /* the guard refused the drive; its message names every reason */
	RB_STATUS_STOPPED, /* stopped before its end (coordinator, signal, spool) */
	RB_STATUS_LOST,	   /* its agent was lost; written by the coordinator only */
	RB_NSTATUS
};

/* The status's string as the wire and the file keep it ("?" out of range). */
const char *rb_status_name(enum rb_status s);

/* s as a status: 0, or -EINVAL naming nothing when s is none of the table's strings. */
int rb_status_parse(const char *s, enum rb_status *ret);

/* A status read back from a file: unknown strings are RB_STATUS_ERROR (never ok). */
enum rb_status rb_status_of(const char *s);

#endif
