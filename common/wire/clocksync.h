/* SPDX-License-Identifier: MIT */
/*
 * Clock offset between the coordinator and an agent from round trips (NTP's exchange):
 * the coordinator sends at t0 (its clock), the agent receives at t1 and answers at t2 (its
 * clock), the answer arrives at t3. With delays d1 there and d2 back,
 *   offset = ((t1 - t0) + (t2 - t3)) / 2 = true offset + (d1 - d2) / 2
 *   delay  = (t3 - t0) - (t2 - t1) = d1 + d2
 * so the error is half the asymmetry, which a short round trip bounds: the estimate is
 * the offset of the lowest-delay sample among the last RB_CLOCK_WINDOW.
 */
#ifndef RB_CLOCKSYNC_H
#define RB_CLOCKSYNC_H

#include <stdint.h>

#define RB_CLOCK_WINDOW 16

struct rb_clock_est {
	int64_t offset[RB_CLOCK_WINDOW], delay[RB_CLOCK_WINDOW];
	unsigned n, next; /* samples held, and where the next one goes */
};

/* Adds one exchange; a sample with t3 < t0 or a negative delay is ignored (-1). */
int rb_clock_add(struct rb_clock_est *e, int64_t t0, int64_t t1, int64_t t2, int64_t t3);
/* agent clock - coordinator clock, from the lowest-delay sample held; 0 with none. */
int64_t rb_clock_offset(const struct rb_clock_est *e, int64_t *ret_delay);

#endif
