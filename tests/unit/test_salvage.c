// SPDX-License-Identifier: MIT
/*
 * Damaged journals and spools are read on past the damage (coordinator/run/journal.h,
 * agent/session/spool.h): a record failing its checksum with whole ones after it is skipped and
 * counted, never taken for the end; damage with nothing whole after it is a torn tail;
 * resume cuts only such a tail; a file that is not a spool holds no record.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "journal.h"
#include "spool.h"

static void flip(const char *path, off_t at)
{
	int fd = open(path, O_RDWR);
	uint8_t b;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, at), 1);
	b ^= 0xff;
	assert_int_equal(pwrite(fd, &b, 1, at), 1);
	close(fd);
}

static off_t size_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

struct jseen {
	unsigned n;
	uint8_t first[16];
};

static int on_journal(void *arg, const char *agent, const uint8_t *buf, size_t len, off_t at)
{
	struct jseen *s = arg;

	(void)at;
	assert_string_equal(agent, "a1");
	assert_int_equal(len, 200);
	if (s->n < 16)
		s->first[s->n] = buf[0];
	s->n++;
	return 0;
}

/* Ten records of 200 bytes after the description; byte values 1..10. */
static void journal_of_ten(const char *path, off_t *ret_at)
{
	struct rb_journal_meta m = { .run = "r", .campaign = (char *)"name: x\n" };
	uint8_t buf[200];
	int fd;

	assert_int_equal(rb_journal_open(path, false, &fd), 0);
	assert_int_equal(rb_journal_write_meta(fd, &m), 0);
	for (int i = 1; i <= 10; i++) {
		ret_at[i - 1] = lseek(fd, 0, SEEK_END);
		memset(buf, i, sizeof(buf));
		assert_int_equal(rb_journal_append(fd, "a1", buf, sizeof(buf)), 0);
	}
	close(fd);
}

static void test_journal_damage_in_the_middle_is_skipped_not_cut(void **state)
{
	char dir[] = "/tmp/rb-salvage.XXXXXX", path[64];
	struct rb_journal_walk_info info;
	struct jseen s = { 0 };
	char err[256];
	off_t at[10], size;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j", dir);
	journal_of_ten(path, at);
	size = size_of(path);
	flip(path, at[3] + 20); /* the fourth record's body */
	assert_int_equal(rb_journal_walk_ex(path, 0, NULL, on_journal, &s, &info, err, sizeof(err)),
			 9);
	assert_int_equal(info.damaged, 1);
	assert_int_equal(info.first_damaged, at[3]);
	assert_int_equal(info.damaged_bytes, at[4] - at[3]);
	assert_int_equal(info.end, size);
	assert_int_equal(s.first[2], 3);
	assert_int_equal(s.first[3], 5); /* the fifth came after the third */
	/* resume keeps every byte: the damage stays, nothing whole is cut */
	assert_int_equal(rb_journal_open(path, true, &fd), 0);
	assert_int_equal(size_of(path), size);
	/* and holds the lock: a second opener is refused, and sees who holds it */
	int fd2;

	assert_int_equal(rb_journal_open(path, true, &fd2), -EWOULDBLOCK);
	assert_int_equal(rb_journal_holder(path), getpid());
	close(fd);
	unlink(path);
	rmdir(dir);
}

static void test_journal_damaged_tail_is_cut(void **state)
{
	char dir[] = "/tmp/rb-salvage.XXXXXX", path[64];
	struct rb_journal_walk_info info;
	char err[256];
	off_t at[10];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j", dir);
	journal_of_ten(path, at);
	flip(path, at[9] + 20); /* the last record: nothing whole after it */
	assert_int_equal(rb_journal_walk_ex(path, 0, NULL, NULL, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.damaged, 0);
	assert_int_equal(info.end, at[9]);
	assert_int_equal(rb_journal_open(path, true, &fd), 0);
	assert_int_equal(size_of(path), at[9]);
	close(fd);
	unlink(path);
	rmdir(dir);
}

struct sseen {
	uint64_t seqs[32];
	unsigned n;
};

static int on_spool(void *arg, uint64_t seq, const uint8_t *buf, size_t len)
{
	struct sseen *s = arg;

	assert_int_equal(len, 100);
	assert_int_equal(buf[0], (uint8_t)seq);
	s->seqs[s->n++] = seq;
	return 0;
}

static void test_spool_damage_is_skipped(void **state)
{
	char dir[] = "/tmp/rb-salvage.XXXXXX", sdir[64];
	struct rb_spool sp;
	struct rb_spool_walk_info info;
	struct sseen s = { .n = 0 };
	uint8_t buf[100];

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(rb_spool_open(&sp, dir, "run", 7), 0);
	for (uint64_t q = 1; q <= 8; q++) {
		memset(buf, (int)q, sizeof(buf));
		assert_int_equal(rb_spool_append(&sp, q, buf, sizeof(buf)), 0);
	}
	rb_spool_close(&sp);
	flip(sp.path, 3 * 116 + 40); /* the fourth record's body */
	assert_int_equal(rb_spool_walk_ex(sp.path, 0, 0, on_spool, &s, &info), 7);
	assert_int_equal(s.n, 7);
	assert_int_equal(s.seqs[2], 3);
	assert_int_equal(s.seqs[3], 5);
	assert_int_equal(info.damaged, 1);
	assert_int_equal(info.first_damaged, 3 * 116);
	assert_int_equal(info.last_seq, 8);
	assert_int_equal(rb_spool_last_seq(sp.path), 8);
	unlink(sp.path);
	snprintf(sdir, sizeof(sdir), "%s/spool", dir);
	rmdir(sdir);
	rmdir(dir);
}

static void test_not_a_spool(void **state)
{
	char dir[] = "/tmp/rb-salvage.XXXXXX", path[64];
	FILE *f;

	(void)state;
	/* a device never ends: refused, not read */
	assert_int_equal(rb_spool_walk("/dev/zero", 0, NULL, NULL), -EINVAL);
	/* zeros are no records (seq 0, length 0), text neither */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/zeros", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 4096; i++)
		fputc(0, f);
	fputs("name: x\nphases: []\n", f);
	fclose(f);
	assert_int_equal(rb_spool_walk(path, 0, NULL, NULL), 0);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_journal_damage_in_the_middle_is_skipped_not_cut),
		cmocka_unit_test(test_journal_damaged_tail_is_cut),
		cmocka_unit_test(test_spool_damage_is_skipped),
		cmocka_unit_test(test_not_a_spool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
