// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fname.h"

static void test_fname_keeps_plain_and_utf8_names(void **state)
{
	char buf[256];

	(void)state;
	assert_string_equal(rb_fname_sanitize("nightly-fleet_3", buf, sizeof(buf)), "nightly-fleet_3");
	assert_string_equal(rb_fname_sanitize("r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80", buf, sizeof(buf)),
			    "r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80");
	assert_string_equal(rb_fname_sanitize("v1.2", buf, sizeof(buf)), "v1.2");
	assert_true(rb_fname_is_safe("nightly-fleet_3"));
}

static void test_fname_never_leaves_the_folder(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "../../escaped-by-name", "_._.__escaped-by-name" },
		{ "a/b/c", "a_b_c" },
		{ "/etc/passwd", "_etc_passwd" },
		{ "..", "_." },
		{ ".", "_" },
		{ ".hidden", "_hidden" },
		{ "-rf", "_rf" },
		{ "a..b", "a._b" },
		{ "tab\there", "tab_here" },
		{ "new\nline", "new_line" },
		{ "del\x7f", "del_" },
		{ "c1\xc2\x85x", "c1_x" },
		{ "rtl\xe2\x80\xaegnp.exe", "rtl_gnp.exe" },
		{ "iso\xe2\x81\xa6x", "iso_x" },
		{ "", "_" },
	};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rb_fname_sanitize(cases[i].in, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			fail_msg("'%s' became '%s', want '%s'", cases[i].in, buf, cases[i].want);
		assert_null(strchr(buf, '/'));
		assert_null(strstr(buf, ".."));
		assert_true(buf[0] != '.' && buf[0] != '-');
		assert_true(rb_fname_is_safe(buf));
		assert_false(rb_fname_is_safe(cases[i].in));
	}
	assert_string_equal(rb_fname_sanitize(NULL, buf, sizeof(buf)), "_");
}

static void test_fname_cuts_long_names_on_a_character(void **state)
{
	char in[1024], buf[512];

	(void)state;
	memset(in, 'x', sizeof(in) - 1);
	in[sizeof(in) - 1] = '\0';
	assert_int_equal(strlen(rb_fname_sanitize(in, buf, sizeof(buf))), RB_FNAME_MAX);
	/* 'x' then two-byte characters: the cut falls between two of them */
	in[0] = 'x';
	for (size_t i = 1; i + 2 < sizeof(in); i += 2)
		memcpy(in + i, "\xc3\xa9", 2);
	in[sizeof(in) - 1] = '\0';
	rb_fname_sanitize(in, buf, sizeof(buf));
	assert_int_equal(strlen(buf), RB_FNAME_MAX - 1);
	assert_int_equal((unsigned char)buf[strlen(buf) - 1], 0xa9);
	/* a small buffer cuts sooner */
	assert_string_equal(rb_fname_sanitize("abcdef", buf, 4), "abc");
	/* a stray continuation byte or a cut sequence is kept as a byte, not read past */
	assert_string_equal(rb_fname_sanitize("a\xa9\xe2", buf, sizeof(buf)), "a\xa9\xe2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fname_keeps_plain_and_utf8_names),
		cmocka_unit_test(test_fname_never_leaves_the_folder),
		cmocka_unit_test(test_fname_cuts_long_names_on_a_character),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
