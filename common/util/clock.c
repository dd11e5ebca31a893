// SPDX-License-Identifier: MIT
#include "clock.h"

#include <errno.h>
#include <stdbool.h>

static int64_t real_now(void *arg)
{
	(void)arg;
	return rb_mono_ns();
}

static int64_t real_wall(void *arg)
{
	(void)arg;
	return rb_wall_ns();
}

static void real_sleep_until(void *arg, int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000LL, .tv_nsec = t % 1000000000LL };

	(void)arg;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void real_spin_until(void *arg, int64_t t)
{
	(void)arg;
	while (rb_mono_ns() < t) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ volatile("yield");
#endif
	}
}

const struct rb_clock rb_clock_real = { real_now, real_wall, real_sleep_until, NULL,
					real_spin_until };

static int64_t offset_wall(void *arg)
{
	return rb_wall_ns() + *(const int64_t *)arg;
}

struct rb_clock rb_clock_real_offset(const int64_t *wall_offset_ns)
{
	return (struct rb_clock){ real_now, offset_wall, real_sleep_until, (void *)wall_offset_ns,
				  real_spin_until };
}

static int64_t fake_now(void *arg)
{
	struct rb_clock_fake *f = arg;

	return __atomic_load_n(&f->now_ns, __ATOMIC_ACQUIRE);
}

static int64_t fake_wall(void *arg)
{
	struct rb_clock_fake *f = arg;

	return fake_now(f) + f->wall_offset_ns;
}

static void fake_sleep_until(void *arg, int64_t t)
{
	struct rb_clock_fake *f = arg;
	int64_t cur = __atomic_load_n(&f->now_ns, __ATOMIC_ACQUIRE);

	/* a sleep to a later instant moves time there; never back */
	while (t > cur && !__atomic_compare_exchange_n(&f->now_ns, &cur, t, false, __ATOMIC_ACQ_REL,
						       __ATOMIC_ACQUIRE))
		;
}

struct rb_clock rb_clock_fake(struct rb_clock_fake *f)
{
	return (struct rb_clock){ fake_now, fake_wall, fake_sleep_until, f, NULL };
}

void rb_clock_fake_advance(struct rb_clock_fake *f, int64_t ns)
{
	if (ns > 0)
		__atomic_add_fetch(&f->now_ns, ns, __ATOMIC_ACQ_REL);
}
