/* SPDX-License-Identifier: MIT */
/*
 * rw replay outside the engine: what the runner asks of a trace before anything is opened
 * (does it write, where first; does every IO have a place on the target), and a replay's
 * figures in the run's output (its IOs, whether the trace ended, the issue lag).
 */
#ifndef RB_REPLAY_H
#define RB_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "engine.h"
#include "options.h"
#include "trace.h"

/* The workload's trace scanned to its end: 0, or -EINVAL with the trace's error in d. */
int rb_replay_scan(const struct rb_workload *wl, struct rb_trace_summary *ret, struct rb_diags *d);
/* A refused replay that writes: the trace's first writing line said in d. */
void rb_replay_refused(const struct rb_workload *wl, const struct rb_trace_summary *s,
		       struct rb_diags *d);
/* Whether every IO of the trace has a place on target's span bytes: 0, or -EINVAL said. */
int rb_replay_fits(const struct rb_workload *wl, const char *target, uint64_t span, uint32_t lbs,
		   struct rb_diags *d);
/* Adds src to dst (the first: copies it): a run's replay over all its targets. */
void rb_replay_merge(struct rb_replay_result *dst, const struct rb_replay_result *src, bool first);
/* A target's replay figures: a line of text, or the JSON member ', "replay": {...}'. */
void rb_replay_print_text(FILE *out, const struct rb_workload *wl,
			  const struct rb_target_result *res);
void rb_replay_print_json(FILE *out, const struct rb_workload *wl,
			  const struct rb_target_result *res);

#endif
