// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "crc32c.h"
#include "verify.h"

static struct rb_verify_mismatch seen[16];
static unsigned nseen;

static void on_bad(void *arg, const struct rb_verify_mismatch *m)
{
	(void)arg;
	if (nseen < 16)
		seen[nseen++] = *m;
}

static void test_crc32c_known_vectors(void **state)
{
	static const unsigned char zeros[32];
	uint32_t part;

	(void)state;
	assert_int_equal(rb_crc32c(0, "123456789", 9), 0xe3069283);
	assert_int_equal(rb_crc32c(0, zeros, 32), 0x8a9136aa); /* RFC 3720 B.4 */
	/* incremental equals one pass */
	part = rb_crc32c(0, "12345", 5);
	assert_int_equal(rb_crc32c(part, "6789", 4), 0xe3069283);
}

static void test_verify_finds_each_kind(void **state)
{
	const uint64_t len = 16384, off = 1 << 20;
	char *buf = malloc(len), *copy = malloc(len);
	struct rb_verify_stats st = { 0 };

	(void)state;
	for (uint64_t i = 0; i < len; i++)
		buf[i] = (char)(i * 7 + 3);
	rb_verify_stamp(buf, len, off, 2, 99);
	memcpy(copy, buf, len);
	nseen = 0;
	rb_verify_check(buf, len, off, true, &st, on_bad, NULL);
	assert_int_equal(st.checked, len / RB_VERIFY_CHUNK);
	assert_int_equal(st.bad, 0);
	/* one flipped byte: exactly its chunk */
	buf[5 * RB_VERIFY_CHUNK + 300] ^= 0x10;
	rb_verify_check(buf, len, off, true, &st, on_bad, NULL);
	assert_int_equal(st.bad, 1);
	assert_int_equal(nseen, 1);
	assert_int_equal(seen[0].offset, off + 5 * RB_VERIFY_CHUNK);
	assert_int_equal(seen[0].kind, RB_VERIFY_BAD_CRC);
	assert_int_equal(seen[0].generation, 2);
	/* the same data read back from another offset: misdirected */
	memcpy(buf, copy, len);
	nseen = 0;
	rb_verify_check(buf, len, off + len, true, &st, on_bad, NULL);
	assert_int_equal(nseen, 16);
	assert_int_equal(seen[0].kind, RB_VERIFY_WRONG_OFFSET);
	assert_int_equal(seen[0].found_offset, off);
	/* never written: a mismatch in a verify pass, only counted in a mixed run */
	memset(buf, 0, len);
	nseen = 0;
	st = (struct rb_verify_stats){ 0 };
	rb_verify_check(buf, len, off, false, &st, on_bad, NULL);
	assert_int_equal(st.unwritten, len / RB_VERIFY_CHUNK);
	assert_int_equal(st.bad, 0);
	rb_verify_check(buf, len, off, true, &st, on_bad, NULL);
	assert_int_equal(st.bad, len / RB_VERIFY_CHUNK);
	assert_int_equal(seen[0].kind, RB_VERIFY_NO_HEADER);
	free(buf);
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_known_vectors),
		cmocka_unit_test(test_verify_finds_each_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
