/* SPDX-License-Identifier: MIT */
/*
 * Time in nanoseconds: instants are int64_t, durations uint64_t. And the clock seam:
 * code whose timing tests must control (the engine's pacing, the daemons' timers)
 * reads time through a struct rb_clock, real in the programs, fake in tests.
 */
#ifndef RB_CLOCK_H
#define RB_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns. */
static inline int64_t rb_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* CLOCK_REALTIME in ns since the UTC epoch. */
static inline int64_t rb_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * A clock: now() is CLOCK_MONOTONIC-like (ns), wall() ns since the UTC epoch, and
 * sleep_until() returns at (or after) the now() instant t; spin_until() too, without
 * giving up the CPU (NULL: sleep_until, as a clock that moves only when slept needs).
 * Each is called with arg.
 */
struct rb_clock {
	int64_t (*now)(void *arg);
	int64_t (*wall)(void *arg);
	void (*sleep_until)(void *arg, int64_t t);
	void *arg;
	void (*spin_until)(void *arg, int64_t t);
};

/* The host's clocks: CLOCK_MONOTONIC, CLOCK_REALTIME, clock_nanosleep. */
extern const struct rb_clock rb_clock_real;
/*
 * The host's clocks with wall() moved by *wall_offset_ns (which must outlive it): a host
 * whose CLOCK_REALTIME is off by that much, as tests make a rack service (rackbench
 * serve's RB_TEST_WALL_OFFSET_NS).
 */
struct rb_clock rb_clock_real_offset(const int64_t *wall_offset_ns);

/*
 * A fake clock for tests: time stands still until advanced (by hand, or by a sleep to a
 * later instant, which returns at once). Safe to read and advance from several threads.
 * wall() is now() plus wall_offset_ns.
 */
struct rb_clock_fake {
	int64_t now_ns; /* read and written atomically */
	int64_t wall_offset_ns;
};

/* A struct rb_clock reading f (which must outlive it). */
struct rb_clock rb_clock_fake(struct rb_clock_fake *f);
/* Moves f forward by ns (never back). */
void rb_clock_fake_advance(struct rb_clock_fake *f, int64_t ns);

static inline int64_t rb_clock_now(const struct rb_clock *c)
{
	return c->now(c->arg);
}

static inline int64_t rb_clock_wall(const struct rb_clock *c)
{
	return c->wall(c->arg);
}

#endif
