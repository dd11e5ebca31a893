// SPDX-License-Identifier: MIT
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "diskutil.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * A file on a partition: its disk is the whole disk (sdz, not sdz1), read once however
 * many targets are on it; the counters' changes come out, a 32-bit counter that wrapped
 * around included, and the in-flight count is no change.
 */
static void test_diskutil_partition_counts_for_its_disk(void **state)
{
	char root[] = "/tmp/rbtest-diskutil-XXXXXX", p[PATH_MAX], link[PATH_MAX], file[PATH_MAX];
	char *paths[3];
	struct rb_diskutil *u = malloc(sizeof(*u));
	struct rb_fio_disk d[RB_DISKUTIL_MAX];
	struct stat st;

	(void)state;
	assert_non_null(u);
	assert_non_null(mkdtemp(root));
	snprintf(file, sizeof(file), "%s/data.bin", root);
	put(file, "x");
	assert_int_equal(stat(file, &st), 0);
	snprintf(p, sizeof(p), "mkdir -p %s/sys/dev/block %s/sys/devices/pci0/block/sdz/sdz1", root,
		 root);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof(p), "%s/sys/devices/pci0/block/sdz/sdz1/partition", root);
	put(p, "1\n");
	snprintf(p, sizeof(p), "%s/sys/devices/pci0/block/sdz/stat", root);
	put(p, "100 1 800 50 10 0 80 4294967290 3 1000 2000 0 0 0 0\n");
	snprintf(link, sizeof(link), "%s/sys/dev/block/%u:%u", root, major(st.st_dev),
		 minor(st.st_dev));
	assert_int_equal(symlink("../../devices/pci0/block/sdz/sdz1", link), 0);
	paths[0] = file;
	paths[1] = file;
	paths[2] = (char *)"/nonexistent/target";
	rb_diskutil_start(u, root, paths, 3);
	assert_int_equal(u->n, 1);
	assert_string_equal(u->disk[0].name, "sdz");
	put(p, "150 3 1200 70 20 1 160 4 0 1400 2600 0 0 0 0\n");
	assert_int_equal(rb_diskutil_read(u, d), 1);
	assert_int_equal(d[0].ios[0], 50);
	assert_int_equal(d[0].merges[0], 2);
	assert_int_equal(d[0].sectors[0], 400);
	assert_int_equal(d[0].ticks_ms[0], 20);
	assert_int_equal(d[0].ios[1], 10);
	assert_int_equal(d[0].sectors[1], 80);
	assert_int_equal(d[0].ticks_ms[1], 10); /* 4294967290 -> 4: wrapped */
	assert_int_equal(d[0].io_ticks_ms, 400);
	assert_int_equal(d[0].in_queue_ms, 600);
	/* read as often as asked (a status snapshot, the end): the changes since the start */
	memset(d, 0, sizeof(d));
	assert_int_equal(rb_diskutil_read(u, d), 1);
	assert_string_equal(d[0].name, "sdz");
	assert_int_equal(d[0].ios[0], 50);
	snprintf(p, sizeof(p), "rm -rf %s", root);
	assert_int_equal(system(p), 0);
	free(u);
}

/* A path on no block device (no sysfs entry for its device) has no disk: left out. */
static void test_diskutil_no_disk_left_out(void **state)
{
	char root[] = "/tmp/rbtest-diskutil-XXXXXX", p[PATH_MAX];
	char *paths[1] = { root };
	struct rb_diskutil *u = malloc(sizeof(*u));

	(void)state;
	assert_non_null(u);
	assert_non_null(mkdtemp(root));
	rb_diskutil_start(u, root, paths, 1);
	assert_int_equal(u->n, 0);
	assert_int_equal(rb_diskutil_read(u, NULL), 0);
	snprintf(p, sizeof(p), "rm -rf %s", root);
	assert_int_equal(system(p), 0);
	free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diskutil_partition_counts_for_its_disk),
		cmocka_unit_test(test_diskutil_no_disk_left_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
