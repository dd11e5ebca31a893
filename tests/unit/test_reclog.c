// SPDX-License-Identifier: MIT
/*
 * The record log under the spool and the journal (common/store/reclog.h): records come back
 * with their extra bytes and offsets; a walk stops where its callback says and the next
 * one starts there; damage with whole records after it is skipped and counted, a torn
 * tail ends the walk, damage at the start of a log that must start whole is no log; a
 * write cut short by a full disk leaves the file as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "reclog.h"

struct seen {
	unsigned n;
	uint64_t keys[8];
	off_t at[8];
	char payload[8][32];
	unsigned stop_at;	/* 1-based record that stops the walk; 0 none */
};

static int on_record(void *arg, const uint8_t *extra, const uint8_t *payload, uint32_t len,
		     off_t at)
{
	struct seen *s = arg;

	if (s->stop_at && s->n + 1 == s->stop_at)
		return 7;
	memcpy(&s->keys[s->n], extra, 8);
	s->at[s->n] = at;
	snprintf(s->payload[s->n], sizeof(s->payload[0]), "%.*s", (int)len, payload);
	s->n++;
	return 0;
}

static const struct rb_reclog_fmt fmt = { .extra = 8, .max = 1024 };
static const struct rb_reclog_fmt whole = { .extra = 8, .max = 1024, .whole_start = true };

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/rb-reclog-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* Appends records "one", "two", "three" keyed 1, 2, 3; their offsets in at[]. */
static void three(off_t at[3])
{
	static const char *const words[] = { "one", "two", "three" };
	int fd = open(path, O_WRONLY | O_APPEND | O_TRUNC);
	off_t size = 0;

	assert_true(fd >= 0);
	for (uint64_t k = 1; k <= 3; k++) {
		struct iovec iov[2] = { { (void *)words[k - 1], 1 },
					{ (void *)(words[k - 1] + 1), strlen(words[k - 1]) - 1 } };

		at[k - 1] = size;
		assert_int_equal(rb_reclog_append(fd, size, &k, 8, iov, 2), 0);
		size += 16 + (off_t)strlen(words[k - 1]);
	}
	close(fd);
}

static off_t size_of(void)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static void flip(off_t at)
{
	int fd = open(path, O_RDWR);
	uint8_t b;

	assert_int_equal(pread(fd, &b, 1, at), 1);
	b ^= 0x5a;
	assert_int_equal(pwrite(fd, &b, 1, at), 1);
	close(fd);
}

static void test_reclog_round_trip_and_resume(void **state)
{
	struct seen s = { .stop_at = 2 };
	struct rb_reclog_info info;
	off_t at[3];

	(void)state;
	three(at);
	/* the second record stops the walk: it is where the next one starts */
	assert_int_equal(rb_reclog_walk(path, 0, &fmt, NULL, on_record, &s, &info), 2);
	assert_int_equal(info.stopped, 7);
	assert_int_equal(info.end, at[1]);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.payload[0], "one");
	s.stop_at = 0;
	assert_int_equal(rb_reclog_walk(path, info.end, &fmt, NULL, on_record, &s, &info), 2);
	assert_int_equal(info.stopped, 0);
	assert_int_equal(info.end, size_of());
	assert_int_equal(s.n, 3);
	assert_int_equal(s.keys[1], 2);
	assert_int_equal(s.keys[2], 3);
	assert_int_equal(s.at[2], at[2]);
	assert_string_equal(s.payload[1], "two");
	assert_string_equal(s.payload[2], "three");
}

static void test_reclog_damage_skipped_tail_torn(void **state)
{
	struct seen s = { 0 };
	struct rb_reclog_info info;
	off_t at[3];

	(void)state;
	three(at);
	flip(at[1] + 17);	/* the second's payload: its checksum fails */
	assert_int_equal(rb_reclog_walk(path, 0, &fmt, NULL, on_record, &s, &info), 2);
	assert_int_equal(info.damaged, 1);
	assert_int_equal(info.first_damaged, at[1]);
	assert_int_equal(info.damaged_bytes, at[2] - at[1]);
	assert_int_equal(s.keys[1], 3);
	assert_int_equal(info.end, size_of());

	/* the last record cut by a crash: a torn tail, not damage */
	three(at);
	assert_int_equal(truncate(path, size_of() - 2), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(rb_reclog_walk(path, 0, &fmt, NULL, on_record, &s, &info), 2);
	assert_int_equal(info.damaged, 0);
	assert_int_equal(info.end, at[2]);

	/* damage at the start of a log that must start whole: no log */
	three(at);
	flip(17);	/* the first one's payload */
	memset(&s, 0, sizeof(s));
	assert_int_equal(rb_reclog_walk(path, 0, &whole, NULL, on_record, &s, &info), 0);
	assert_int_equal(info.end, 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(rb_reclog_walk(path, 0, &fmt, NULL, on_record, &s, &info), 2);
}

static void test_reclog_refuses_what_is_no_file(void **state)
{
	off_t at[3];

	(void)state;
	assert_int_equal(rb_reclog_walk("/dev/zero", 0, &fmt, NULL, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(rb_reclog_walk("/nonexistent/x", 0, &fmt, NULL, NULL, NULL, NULL),
			 -ENOENT);
	three(at);
	assert_int_equal(rb_reclog_walk(path, size_of() + 1, &fmt, NULL, NULL, NULL, NULL),
			 -ERANGE);
}

/* A write the disk cuts short (here the file size limit) leaves no torn record. */
static void test_reclog_short_write_cut_back(void **state)
{
	struct rlimit old, lim;
	char big[512];
	struct iovec iov = { big, sizeof(big) };
	uint64_t key = 4;
	off_t at[3], before;
	int fd;

	(void)state;
	three(at);
	before = size_of();
	memset(big, 'x', sizeof(big));
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = (rlim_t)before + 100;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_int_equal(rb_reclog_append(fd, before, &key, 8, &iov, 1), -ENOSPC);
	close(fd);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(size_of(), before);
	assert_int_equal(rb_reclog_walk(path, 0, &fmt, NULL, NULL, NULL, NULL), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reclog_round_trip_and_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reclog_damage_skipped_tail_torn, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reclog_refuses_what_is_no_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reclog_short_write_cut_back, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
