/* SPDX-License-Identifier: MIT */
/*
 * Synthesized traces for replay (trace_synth.c): "synth:vdi-boot[:DESKTOPS]" and
 * "synth:vdi-login[:DESKTOPS]", made on the fly as fio iolog v3 text, deterministic.
 */
#ifndef RB_TRACE_SYNTH_H
#define RB_TRACE_SYNTH_H

#include <stdbool.h>
#include <stddef.h>

#define RB_SYNTH_PREFIX "synth:"

struct rb_synth;

/* The generator of spec (starting with RB_SYNTH_PREFIX). 0, or -EINVAL/-ENOMEM with err. */
int rb_synth_open(const char *spec, struct rb_synth **ret, char *err, size_t errlen);
/* Up to room bytes of the trace's text; 0 at its end. */
size_t rb_synth_read(struct rb_synth *s, char *buf, size_t room);
struct rb_synth *rb_synth_free(struct rb_synth *s);

#endif
