// SPDX-License-Identifier: MIT
/* SNIA PTS steady state on synthetic series with exact (integer) values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "steady.h"

static struct rb_steady judge(const double *y, size_t n)
{
	struct rb_steady s;

	rb_steady_window(y, n, &s);
	return s;
}

static void test_flat_is_steady(void **state)
{
	const double y[] = { 1000, 1000, 1000, 1000, 1000 };
	struct rb_steady s = judge(y, 5);

	(void)state;
	assert_true(s.steady);
	assert_true(s.avg == 1000 && s.slope == 0 && s.min == 1000 && s.max == 1000);
}

/* Range: max - min = 20 = 20% of the average 100 exactly: steady; 21 over 100.2: not. */
static void test_range_boundary(void **state)
{
	const double at[] = { 90, 110, 100, 100, 100 }, over[] = { 90, 111, 100, 100, 100 };
	struct rb_steady s = judge(at, 5);

	(void)state;
	assert_true(s.range_ok);
	assert_true(s.slope_ok);
	assert_true(s.steady);
	s = judge(over, 5);
	assert_false(s.range_ok);
	assert_false(s.steady);
}

/*
 * Slope: 190..210 by 5 has slope 5 per round, 5 x (5 - 1) = 20 = 10% of the average 200
 * exactly: steady. One more IO in the last round makes the slope 5.2: 20.8 > 20.02.
 */
static void test_slope_boundary(void **state)
{
	const double at[] = { 190, 195, 200, 205, 210 }, over[] = { 190, 195, 200, 205, 211 };
	struct rb_steady s = judge(at, 5);

	(void)state;
	assert_true(s.slope == 5);
	assert_true(s.range_ok && s.slope_ok && s.steady);
	s = judge(over, 5);
	assert_true(fabs(s.slope - 5.2) < 1e-12);
	assert_true(s.range_ok);
	assert_false(s.slope_ok);
	assert_false(s.steady);
	/* a falling series is judged by |slope| */
	const double down[] = { 210, 205, 200, 195, 190 };

	s = judge(down, 5);
	assert_true(s.slope == -5 && s.steady);
}

/*
 * By hand, following the PTS: IOPS of the tracking point per round, a fresh drive
 * falling to steady state.
 *   round:  1     2     3     4     5     6     7     8
 *   IOPS:   9000  7000  5200  4400  4300  4200  4250  4150
 * Window 1-5: avg 5980, range 4700 > 1196: not steady.
 * Window 2-6: avg 5020, range 2800 > 1004: not.
 * Window 3-7: avg 4470, range 1000 > 894: not.
 * Window 4-8: avg 4260, range 250 <= 852; slope over (4400 4300 4200 4250 4150):
 *   u = -4 -2 0 2 4, sum u y = -17600 - 8600 + 0 + 8500 + 16600 = -1100, sum u^2 = 40,
 *   slope = 2 x -1100 / 40 = -55 per round, |slope| x 4 = 220 <= 426: steady at round 8.
 */
static void test_hand_example(void **state)
{
	const double y[] = { 9000, 7000, 5200, 4400, 4300, 4200, 4250, 4150 };
	struct rb_steady s;
	long r = rb_steady_find(y, 8, 5, &s);

	(void)state;
	assert_int_equal(r, 7);
	assert_true(s.avg == 4260 && s.min == 4150 && s.max == 4400);
	assert_true(s.slope == -55);
	/* seven rounds are not enough */
	assert_int_equal(rb_steady_find(y, 7, 5, &s), -1);
	assert_false(s.steady);
	/* fewer rounds than the window: never steady */
	assert_int_equal(rb_steady_find(y + 3, 4, 5, &s), -1);
}

/* All zero (a drive doing nothing) is not steady: there is nothing to track. */
static void test_zero_not_steady(void **state)
{
	const double y[] = { 0, 0, 0, 0, 0 };

	(void)state;
	assert_false(judge(y, 5).steady);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_is_steady),	cmocka_unit_test(test_range_boundary),
		cmocka_unit_test(test_slope_boundary),	cmocka_unit_test(test_hand_example),
		cmocka_unit_test(test_zero_not_steady),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
