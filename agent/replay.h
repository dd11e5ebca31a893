/* SPDX-License-Identifier: MIT */
/*
 * rw replay outside the engine: a replay's figures in the run's output (its IOs, whether
 * the trace ended, the issue lag).
 */
#ifndef RB_REPLAY_H
#define RB_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "options.h"

/* Adds src to dst (the first: copies it): a run's replay over all its targets. */
void rb_replay_merge(struct rb_replay_result *dst, const struct rb_replay_result *src, bool first);
/* A target's replay figures: a line of text, or the JSON member ', "replay": {...}'. */
void rb_replay_print_text(FILE *out, const struct rb_workload *wl,
			  const struct rb_target_result *res);
void rb_replay_print_json(FILE *out, const struct rb_workload *wl,
			  const struct rb_target_result *res);

#endif
