/* SPDX-License-Identifier: MIT */
/*
 * Names that come from outside (a campaign's name, an agent's run id) made into one
 * file name: a single path component that cannot leave the folder it is joined to.
 */
#ifndef RB_FNAME_H
#define RB_FNAME_H

#include <stdbool.h>
#include <stddef.h>

/* The longest name rb_fname_sanitize() writes, in bytes: room for a suffix such as
 * "-20260101T000000Z.h5.journal" under NAME_MAX (255). */
#define RB_FNAME_MAX 200

/*
 * Writes into buf (len bytes, at least 2) a file name made from name:
 *  - '/' and control characters (C0, DEL, and C1 and the bidirectional overrides
 *    and isolates when spelled in UTF-8) become '_';
 *  - a leading '.' or '-' becomes '_' (no hidden file, no "..", nothing read as an
 *    option), and a '.' right after another '.' becomes '_' (no ".." anywhere);
 *  - the result is cut to RB_FNAME_MAX bytes (and to len - 1), never inside a UTF-8
 *    sequence; an empty name becomes "_".
 * Other bytes, UTF-8 letters included, are kept, so a name people read stays readable.
 * NULL name is "". Returns buf.
 */
char *rb_fname_sanitize(const char *name, char *buf, size_t len);

/*
 * Whether s is a plain word: letters and digits (ASCII), and the characters of extra; an
 * exec phase's command name, parameter name or value (with RB_WORD_VALUE, and never a
 * leading '-' or '.': nothing read as an option or a path upward).
 */
bool rb_plain_word(const char *s, const char *extra);
#define RB_WORD_VALUE "._:,+-"
bool rb_plain_value(const char *s);

/* Whether name is already what rb_fname_sanitize() would make of it. */
bool rb_fname_is_safe(const char *name);

#endif
