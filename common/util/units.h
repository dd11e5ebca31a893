/* SPDX-License-Identifier: MIT */
/*
 * The one parser for sizes and durations, used by flags and campaign keys alike.
 * Sizes are binary as in fio: "4k" = 4096, "1m" = 1 MiB, "2g", "1t"; "kib"/"KiB"
 * and a trailing "b" are accepted, a bare number is bytes. Durations take
 * ns, us, ms, s, m, h; a bare number is seconds.
 */
#ifndef RB_UNITS_H
#define RB_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Each returns 0 or -EINVAL (unknown unit, garbage, negative) or -ERANGE (overflow). */
int rb_parse_size(const char *s, uint64_t *ret_bytes);
int rb_parse_duration(const char *s, uint64_t *ret_ns);
int rb_parse_u64(const char *s, uint64_t *ret);

/* "4k", "128k", "1m", "1.5g" style; returns buf. */
char *rb_fmt_size(uint64_t bytes, char *buf, size_t len);
/* A size people read, binary, three digits: 512 B, 4.00 KiB, 16.1 GiB, 1.50 TiB. */
char *rb_fmt_size_human(uint64_t bytes, char *buf, size_t len);
/*
 * A name in at most width characters (width >= 8): whole when it fits, else its start
 * and its end with "..." between, where names of one fleet differ (host and device).
 */
char *rb_fit_name(const char *s, size_t width, char *buf, size_t len);
/* "500ms", "2s", "5m" style, exact when possible; returns buf. */
char *rb_fmt_duration(uint64_t ns, char *buf, size_t len);
/* A duration people read, rounded: 1h31m, 4m05s, 12.5s, 300ms, 0s. */
char *rb_fmt_duration_human(uint64_t ns, char *buf, size_t len);

#endif
