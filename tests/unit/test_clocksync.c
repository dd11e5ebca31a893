// SPDX-License-Identifier: MIT
/* The clock offset estimator, driven by a fake clock with known offsets and delays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "clocksync.h"

/* One exchange: coordinator sends at t, the agent's clock is coordinator + off. */
static void exchange(struct rb_clock_est *e, int64_t t, int64_t off, int64_t d1, int64_t hold,
		     int64_t d2)
{
	int64_t t0 = t, t1 = t + d1 + off, t2 = t1 + hold, t3 = t + d1 + hold + d2;

	assert_int_equal(rb_clock_add(e, t0, t1, t2, t3), 0);
}

/* Symmetric delays: exact, whatever the offset's size or sign (time namespaces: +-N s). */
static void test_symmetric_exact(void **state)
{
	static const int64_t offs[] = { 0, 5000000000LL, -7000000000LL, 123456789LL,
					-86400000000000LL };

	(void)state;
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		struct rb_clock_est e = { 0 };
		int64_t d;

		exchange(&e, 1000000, offs[i], 40000, 5000, 40000);
		assert_true(rb_clock_offset(&e, &d) == offs[i]);
		assert_int_equal(d, 80000);
	}
}

/*
 * Asymmetric delays, as a loaded link gives: the estimate is off by half the asymmetry of
 * the sample it uses, and it uses the lowest-delay one. Eight samples with 0.2-5 ms one
 * way and 0.1-9 ms the other; the fastest exchange is 50 us each way: exact.
 */
static void test_lowest_delay_wins(void **state)
{
	struct rb_clock_est e = { 0 };
	const int64_t off = -3000000000LL;
	int64_t d;
	uint64_t x = 42;

	(void)state;
	for (int i = 0; i < 8; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		int64_t d1 = 200000 + (int64_t)(x >> 33) % 4800000;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		int64_t d2 = 100000 + (int64_t)(x >> 33) % 8900000;

		exchange(&e, 10000000 * i, off, d1, 10000, d2);
	}
	exchange(&e, 90000000, off, 50000, 10000, 50000);
	assert_true(rb_clock_offset(&e, &d) == off);
	assert_int_equal(d, 100000);
	/* one asymmetric fast sample: off by exactly half its asymmetry */
	struct rb_clock_est f = { 0 };

	exchange(&f, 0, off, 30000, 0, 10000);
	exchange(&f, 1000000, off, 900000, 0, 700000);
	assert_true(rb_clock_offset(&f, &d) == off + 10000);
	assert_int_equal(d, 40000);
}

/* Only the last RB_CLOCK_WINDOW samples count: a drifted clock is followed. */
static void test_window_follows_drift(void **state)
{
	struct rb_clock_est e = { 0 };

	(void)state;
	exchange(&e, 0, 1000, 10, 0, 10); /* very fast, old */
	for (int i = 0; i < RB_CLOCK_WINDOW; i++)
		exchange(&e, 1000000 * (i + 1), 2000, 500, 0, 500);
	assert_true(rb_clock_offset(&e, NULL) == 2000);
}

static void test_bad_samples_ignored(void **state)
{
	struct rb_clock_est e = { 0 };
	int64_t d;

	(void)state;
	assert_int_equal(rb_clock_add(&e, 100, 0, 0, 50), -1);	/* answer before question */
	assert_int_equal(rb_clock_add(&e, 0, 100, 50, 10), -1);	/* agent answered before */
	assert_true(rb_clock_offset(&e, &d) == 0 && d == -1);
}

/* A TimeReply with absurd instants (an allowed but hostile agent): refused, no overflow. */
static void test_absurd_instants_refused(void **state)
{
	struct rb_clock_est e = { 0 };
	int64_t d;

	(void)state;
	assert_int_equal(rb_clock_add(&e, 1000, INT64_MAX, INT64_MIN, 2000), -1);
	assert_int_equal(rb_clock_add(&e, INT64_MIN, 0, 1, INT64_MAX), -1);
	assert_int_equal(rb_clock_add(&e, 0, INT64_MIN, INT64_MIN + 1, 10), -1);
	assert_int_equal(rb_clock_add(&e, -10, INT64_MAX - 1, INT64_MAX, 10), -1);
	assert_true(rb_clock_offset(&e, &d) == 0 && d == -1);
	/* far apart but representable still works */
	assert_int_equal(rb_clock_add(&e, 0, INT64_MAX / 2, INT64_MAX / 2 + 10, 100), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symmetric_exact),
		cmocka_unit_test(test_lowest_delay_wins),
		cmocka_unit_test(test_window_follows_drift),
		cmocka_unit_test(test_bad_samples_ignored),
		cmocka_unit_test(test_absurd_instants_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
