// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sha256.h"

static void digest(const char *text, size_t len, char hex[65])
{
	struct rb_sha256 s;

	rb_sha256_init(&s);
	rb_sha256_update(&s, text, len);
	rb_sha256_hex(&s, hex);
}

/* FIPS 180-4's examples and the lengths around the padding's edge (55, 56, 64 bytes) */
static void test_sha256_known_digests(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
	};
	char hex[65];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		digest(cases[i].in, strlen(cases[i].in), hex);
		assert_string_equal(hex, cases[i].want);
	}
}

/* a million 'a's in pieces of every size: the same digest as in one piece */
static void test_sha256_pieces_and_files_agree(void **state)
{
	char *a = malloc(1000000), hex[65], path[4096];
	const char *tmp = getenv("TMPDIR");
	struct rb_sha256 s;
	size_t at = 0, step = 1;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/rbsha-XXXXXX", tmp && *tmp ? tmp : P_tmpdir);
	memset(a, 'a', 1000000);
	rb_sha256_init(&s);
	while (at < 1000000) {
		size_t n = step < 1000000 - at ? step : 1000000 - at;

		rb_sha256_update(&s, a + at, n);
		at += n;
		step = step * 3 % 1000 + 1;
	}
	rb_sha256_hex(&s, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, a, 1000000), 1000000);
	close(fd);
	memset(hex, 0, sizeof(hex));
	assert_int_equal(rb_sha256_file(path, hex), 0);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	unlink(path);
	assert_int_equal(rb_sha256_file(path, hex), -ENOENT);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_known_digests),
		cmocka_unit_test(test_sha256_pieces_and_files_agree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
