/* SPDX-License-Identifier: MIT */
/*
 * Progress of `rackbench run`: on a terminal a view redrawn in place (phase, point k of
 * n, elapsed and ETA, per-drive IOPS, MB/s, p99 and temperature); otherwise one plain
 * line per point start and end and every 5 s; and, with --events FILE, JSON Lines of
 * every point, sample and health reading. NO_COLOR turns colour off.
 */
#ifndef RB_PROGRESS_H
#define RB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "campaign.h"

struct rb_progress;

/* events: a JSON Lines file to append to, or NULL. NULL with err filled on failure. */
struct rb_progress *rb_progress_new(const struct rb_campaign *c, const char *events, char *err,
				    size_t errlen);
void rb_progress_free(struct rb_progress *p);
/* Point k starts; left_out (per drive, or NULL): drives the guard refused, which it skips. */
void rb_progress_point(struct rb_progress *p, size_t k, const bool *left_out);
/* A drive's sample of one interval and direction; t_ns: the interval's end, on the
 * drive's clock (an interval's length is from the previous one's end). */
void rb_progress_sample(struct rb_progress *p, size_t drive, uint32_t interval, unsigned direction,
			int64_t t_ns, uint64_t ios, uint64_t bytes, uint64_t p99_ns);
/* The drive's measurement in the point ended (its last interval came): it reads 0, done. */
void rb_progress_finished(struct rb_progress *p, size_t drive);
/* A drive's capacity as its agent offered it: a size-based point's bytes, for progress. */
void rb_progress_capacity(struct rb_progress *p, size_t drive, uint64_t bytes);
void rb_progress_temp(struct rb_progress *p, size_t drive, double temp_c);
/* A drive's result row: its figures, and whether it ran clean (status ok, no IO error,
 * no verification mismatch), for the point's done line. */
void rb_progress_result(struct rb_progress *p, size_t drive, double iops, double bw_bytes_per_s,
			bool clean);
/* How a point ended, for its done line and event: its names are the events' words. */
enum rb_point_end { RB_POINT_OK, RB_POINT_FAILED, RB_POINT_ABORTED };
void rb_progress_point_done(struct rb_progress *p, enum rb_point_end end);
/* Redraws the view when due; call often. */
void rb_progress_tick(struct rb_progress *p);
void rb_progress_end(struct rb_progress *p, const char *status, int exit_code);

#endif
