// SPDX-License-Identifier: MIT
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "clock.h"

static void test_clock_fake_stands_still_until_advanced(void **s)
{
	struct rb_clock_fake f = { .now_ns = 1000, .wall_offset_ns = 5000 };
	struct rb_clock c = rb_clock_fake(&f);

	(void)s;
	assert_int_equal(rb_clock_now(&c), 1000);
	assert_int_equal(rb_clock_now(&c), 1000);
	assert_int_equal(rb_clock_wall(&c), 6000);
	rb_clock_fake_advance(&f, 250);
	assert_int_equal(rb_clock_now(&c), 1250);
	rb_clock_fake_advance(&f, -100);	/* never back */
	assert_int_equal(rb_clock_now(&c), 1250);
	/* a sleep to a later instant returns at once, there; to an earlier one changes nothing */
	c.sleep_until(c.arg, 9000);
	assert_int_equal(rb_clock_now(&c), 9000);
	c.sleep_until(c.arg, 10);
	assert_int_equal(rb_clock_now(&c), 9000);
}

static void *advance(void *arg)
{
	for (int i = 0; i < 100000; i++)
		rb_clock_fake_advance(arg, 1);
	return NULL;
}

static void test_clock_fake_advances_from_threads(void **s)
{
	struct rb_clock_fake f = { 0 };
	pthread_t t[4];

	(void)s;
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, advance, &f), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(f.now_ns, 400000);
}

static void test_clock_real_is_monotonic_and_sleeps(void **s)
{
	int64_t a = rb_clock_now(&rb_clock_real), b;

	(void)s;
	rb_clock_real.sleep_until(NULL, a + 2000000);
	b = rb_clock_now(&rb_clock_real);
	assert_true(b >= a + 2000000);
	assert_true(rb_clock_wall(&rb_clock_real) > 1600000000LL * 1000000000LL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_fake_stands_still_until_advanced),
		cmocka_unit_test(test_clock_fake_advances_from_threads),
		cmocka_unit_test(test_clock_real_is_monotonic_and_sleeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
