// SPDX-License-Identifier: MIT
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "units.h"

static void test_size_table(void **state)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t want;
	} cases[] = {
		{ "0", 0, 0 },
		{ "512", 0, 512 },
		{ "4k", 0, 4096 },
		{ "4K", 0, 4096 },
		{ "4kb", 0, 4096 },
		{ "4KiB", 0, 4096 },
		{ "128k", 0, 131072 },
		{ "1m", 0, 1048576 },
		{ "1.5m", 0, 1572864 },
		{ "2g", 0, 2147483648ULL },
		{ "1t", 0, 1ULL << 40 },
		{ "1p", 0, 1ULL << 50 },
		{ "16384p", -ERANGE, 0 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "4q", -EINVAL, 0 },
		{ "-4k", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "k", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 },
		{ "4 k", 0, 4096 },
		{ "4k4", -EINVAL, 0 },
		{ "1.", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		int rc = rb_parse_size(cases[i].in, &v);

		if (rc != cases[i].rc || (rc == 0 && v != cases[i].want))
			fail_msg("size '%s': rc %d value %llu, want rc %d value %llu", cases[i].in,
				 rc, (unsigned long long)v, cases[i].rc,
				 (unsigned long long)cases[i].want);
	}
}

static void test_duration_table(void **state)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t want;
	} cases[] = {
		{ "10", 0, 10000000000ULL },
		{ "10s", 0, 10000000000ULL },
		{ "500ms", 0, 500000000ULL },
		{ "250us", 0, 250000ULL },
		{ "7ns", 0, 7 },
		{ "5m", 0, 300000000000ULL },
		{ "1h", 0, 3600000000000ULL },
		{ "2d", 0, 172800000000000ULL },
		{ "1.5s", 0, 1500000000ULL },
		{ "0.001ms", 0, 1000 },
		{ "2x", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 },
		{ "s", -EINVAL, 0 },
		{ "99999999999999h", -ERANGE, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 0;
		int rc = rb_parse_duration(cases[i].in, &v);

		if (rc != cases[i].rc || (rc == 0 && v != cases[i].want))
			fail_msg("duration '%s': rc %d value %llu", cases[i].in, rc,
				 (unsigned long long)v);
	}
}

/* Sizes people read: three digits, binary units, a unit up before 1000 of one. */
static void test_size_human(void **state)
{
	static const struct {
		uint64_t v;
		const char *want;
	} cases[] = {
		{ 0, "0 B" },
		{ 1023, "1023 B" },
		{ 1024, "1.00 KiB" },
		{ 1536, "1.50 KiB" },
		{ 10 * 1024 - 6, "9.99 KiB" },
		{ 10 * 1024, "10.0 KiB" },
		{ 1023 * 1024, "1.00 MiB" }, /* not "1023 KiB": three digits */
		{ 999ULL << 20, "999 MiB" },
		{ 17280000000ULL, "16.1 GiB" },
		{ 3ULL << 39, "1.50 TiB" },
		{ UINT64_MAX, "16.0 EiB" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(rb_fmt_size_human(cases[i].v, buf, sizeof(buf)), cases[i].want);
}

/* A name in a column: whole when it fits, else its start and end kept. */
static void test_fit_name(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(rb_fit_name("a1:/dev/nvme0n1", 20, buf, sizeof(buf)),
			    "a1:/dev/nvme0n1");
	assert_string_equal(rb_fit_name("rack12-host07:/dev/disk/by-id/nvme-X_SERIAL0042", 30, buf,
					sizeof(buf)),
			    "rack12-hos...nvme-X_SERIAL0042");
	assert_int_equal(strlen(buf), 30);
	/* too narrow to cut sensibly: whole */
	assert_string_equal(rb_fit_name("abcdefghijkl", 6, buf, sizeof(buf)), "abcdefghijkl");
}

static void test_format_round_trips(void **state)
{
	static const uint64_t sizes[] = {
		512, 4096, 131072, 1 << 20, 3ULL << 30, 4097, 1ULL << 40
	};
	static const uint64_t durs[] = { 1, 999, 1000, 1500000, 2000000000ULL, 300000000000ULL };
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t v;

		assert_int_equal(rb_parse_size(rb_fmt_size(sizes[i], buf, sizeof(buf)), &v), 0);
		assert_int_equal(v, sizes[i]);
	}
	assert_string_equal(rb_fmt_size(131072, buf, sizeof(buf)), "128k");
	for (size_t i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		uint64_t v;

		assert_int_equal(rb_parse_duration(rb_fmt_duration(durs[i], buf, sizeof(buf)), &v),
				 0);
		assert_int_equal(v, durs[i]);
	}
	assert_string_equal(rb_fmt_duration(1500000, buf, sizeof(buf)), "1500us");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_table), cmocka_unit_test(test_duration_table),
		cmocka_unit_test(test_fit_name),   cmocka_unit_test(test_format_round_trips),
		cmocka_unit_test(test_size_human),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
