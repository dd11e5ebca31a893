// SPDX-License-Identifier: MIT
#include "clocksync.h"

int rb_clock_add(struct rb_clock_est *e, int64_t t0, int64_t t1, int64_t t2, int64_t t3)
{
	int64_t rtt, held, delay, out, back;

	/* instants from a peer are anything: a difference that does not fit is refused */
	if (__builtin_sub_overflow(t3, t0, &rtt) || __builtin_sub_overflow(t2, t1, &held) ||
	    __builtin_sub_overflow(rtt, held, &delay) || __builtin_sub_overflow(t1, t0, &out) ||
	    __builtin_sub_overflow(t2, t3, &back))
		return -1;
	if (t3 < t0 || t2 < t1 || delay < 0)
		return -1;
	/* halves of each difference: no overflow for clocks far apart */
	e->offset[e->next] = (t1 - t0) / 2 + (t2 - t3) / 2 + ((t1 - t0) % 2 + (t2 - t3) % 2) / 2;
	e->delay[e->next] = delay;
	e->next = (e->next + 1) % RB_CLOCK_WINDOW;
	if (e->n < RB_CLOCK_WINDOW)
		e->n++;
	return 0;
}

int64_t rb_clock_offset(const struct rb_clock_est *e, int64_t *ret_delay)
{
	unsigned best = 0;

	if (!e->n) {
		if (ret_delay)
			*ret_delay = -1;
		return 0;
	}
	for (unsigned i = 1; i < e->n; i++)
		if (e->delay[i] < e->delay[best])
			best = i;
	if (ret_delay)
		*ret_delay = e->delay[best];
	return e->offset[best];
}
