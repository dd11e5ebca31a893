// SPDX-License-Identifier: MIT
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "spool.h"

struct seen {
	uint64_t seqs[64];
	unsigned n, stop_at;	/* stop (return 1) at this many records; 0 never */
};

static int on_rec(void *arg, uint64_t seq, const uint8_t *buf, size_t len)
{
	struct seen *s = arg;

	assert_int_equal(len, 100 + seq);
	assert_int_equal(buf[0], (uint8_t)seq);
	if (s->stop_at && s->n == s->stop_at)
		return 1;
	s->seqs[s->n++] = seq;
	return 0;
}

/*
 * A walk resumes where the last one ended (the agent sends what its spool holds from
 * there, not from the file's start): records passed over are not read, a record the
 * callback stopped on comes again, and emptying the file voids earlier offsets.
 */
static void test_spool_walk_resumes_at_offset(void **state)
{
	char dir[] = "/tmp/rb-spool.XXXXXX";
	struct rb_spool sp;
	uint8_t buf[200];
	struct seen s;
	off_t end = 0, stop = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(rb_spool_open(&sp, dir, "run1", 7), 0);
	for (uint64_t q = 1; q <= 10; q++) {
		memset(buf, (int)q, sizeof(buf));
		assert_int_equal(rb_spool_append(&sp, q, buf, 100 + q), 0);
	}
	/* after seq 3, stopping at the 4th record handed over (seq 8) */
	memset(&s, 0, sizeof(s));
	s.stop_at = 4;
	assert_true(rb_spool_walk_at(sp.path, 0, 3, on_rec, &s, &stop) > 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.seqs[0], 4);
	assert_int_equal(s.seqs[3], 7);
	/* the offset is where seq 8 begins: 7 records of 16 + 100 + seq bytes */
	assert_int_equal(stop, 7 * 116 + 28);
	/* from there: 8, 9, 10 and the end of the file */
	memset(&s, 0, sizeof(s));
	assert_int_equal(rb_spool_walk_at(sp.path, stop, 7, on_rec, &s, &end), 3);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.seqs[0], 8);
	assert_int_equal(end, (off_t)sp.bytes);
	/* all acknowledged and large enough: emptied, which voids the offsets */
	uint64_t before = sp.emptied;

	rb_spool_acked(&sp, 10, 1);
	assert_int_equal(sp.bytes, 0);
	assert_int_equal(sp.emptied, before + 1);
	rb_spool_retire(&sp);
	assert_int_equal(access(sp.path, F_OK), -1);	/* all held by the coordinator: gone */
	snprintf((char *)buf, sizeof(buf), "%s/spool", dir);
	rmdir((char *)buf);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spool_walk_resumes_at_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
