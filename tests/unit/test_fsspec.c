// SPDX-License-Identifier: MIT
/*
 * A filesystem's spec as both programs judge it (common/workload/fsspec.c): the options that would
 * reach another device or run something are refused, and mount's flags are told from the
 * filesystem's own options.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <cmocka.h>

#include "fsspec.h"

static struct rb_fs_spec spec(const char *type, const char *mkfs, const char *mnt)
{
	struct rb_fs_spec s;

	memset(&s, 0, sizeof(s));
	snprintf(s.type, sizeof(s.type), "%s", type);
	snprintf(s.mkfs_options, sizeof(s.mkfs_options), "%s", mkfs);
	snprintf(s.mount_options, sizeof(s.mount_options), "%s", mnt);
	return s;
}

static void test_check(void **state)
{
	static const struct {
		const char *type, *mkfs, *mnt, *why; /* why: NULL when taken */
	} cases[] = {
		{ "ext4", "", "", NULL },
		{ "xfs", "-m reflink=1 -d agcount=4", "noatime,discard", NULL },
		{ "ext4", "-E nodiscard,lazy_itable_init=0 -O ^has_journal", "nodev,data=ordered",
		  NULL },
		{ "btrfs", "", "", "ext4 or xfs" },
		{ "", "", "", "ext4 or xfs" },
		/* an external journal or log writes to a drive the guard never judged */
		{ "ext4", "-J device=/dev/sdb", "", "names a path" },
		{ "ext4", "-J device=LABEL=j", "", "names a device" },
		{ "ext4", "-J device=UUID=1234", "", "names a device" },
		{ "xfs", "-l logdev=sdc", "", "names a device" },
		{ "xfs", "-r rtdev=sdc", "", "names a device" },
		{ "ext4", "", "journal_path=sdb", "names a device" },
		{ "xfs", "", "noatime,logdev=sdc", "names a device" },
		/* a word before any option would stand for the device */
		{ "ext4", "sdb", "", "does not start with an option" },
		{ "ext4", "-d ../etc", "", "names a path" },
		/* options that read or write a file of the host, or name another device */
		{ "ext4", "-d root", "", "reads or writes a file" },
		{ "ext4", "-z undo", "", "reads or writes a file" },
		{ "ext4", "-l badblocks", "", "reads or writes a file" },
		{ "xfs", "-p proto", "", "reads or writes a file" },
		{ "xfs", "-l file,name=log,size=1g", "", "in a file or on another device" },
		{ "xfs", "-l name=sdc", "", "in a file or on another device" },
		{ "xfs", "-lname=sdc", "", "in a file or on another device" },
		{ "xfs", "-r name=sdd", "", "in a file or on another device" },
		{ "xfs", "-d agcount=4 -l size=64m -L data", "", NULL },
		{ "ext4", "-q -L label -m 0", "", NULL },
		{ "ext4", "-m 0 sdb", "", "not an option's argument" },
		/* read as mke2fs's getopt reads them: joined arguments, clustered options */
		{ "ext4", "-zundo", "", "-z (in '-zundo') reads or writes a file" },
		{ "ext4", "-Fz undo", "", "-z (in '-Fz') reads or writes a file" },
		{ "ext4", "-droot", "", "-d (in '-droot') reads or writes a file" },
		{ "ext4", "-Fd root", "", "-d (in '-Fd') reads or writes a file" },
		{ "ext4", "-qFl bad", "", "-l (in '-qFl') reads or writes a file" },
		{ "xfs", "-c options=cfg", "", "-c (in '-c') reads or writes a file" },
		{ "xfs", "-fp proto", "", "-p (in '-fp') reads or writes a file" },
		/* an option's joined argument is its argument: "z" inside -L's is a label */
		{ "ext4", "-Lzed -qm0", "", NULL },
		{ "ext4", "-Ezed", "", NULL },
		/* an option without an argument leaves the next word bare */
		{ "ext4", "-F sdb", "", "not an option's argument" },
		{ "ext4", "-m", "", "-m needs an argument" },
		{ "ext4", "-Y", "", "mkfs.ext4 has no option -Y" },
		{ "ext4", "-- sdb", "", "not an option's argument" },
		{ "xfs", "-dname=sdd", "", "in a file or on another device" },
		{ "ext4", "-E offset=4096", "", NULL },
		{ "ext4", "-E offset=-1", "", "not a number of bytes" },
		{ "ext4", "-Eoffset=99999999999999999999", "", "not a number of bytes" },
		/* what acts on the host, not the drive */
		{ "ext4", "", "noatime,errors=panic", "would stop the host" },
		{ "ext4", "", "errors=remount-ro", NULL },
		/* nothing a shell would read */
		{ "ext4", "-L $(reboot)", "", "holds '$'" },
		{ "ext4", "-L a;b", "", "holds ';'" },
		{ "ext4", "", "noatime errors=remount-ro", "holds ' '" },
	};
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rb_fs_spec s = spec(cases[i].type, cases[i].mkfs, cases[i].mnt);
		int r = rb_fs_spec_check(&s, err, sizeof(err));

		if (!cases[i].why) {
			if (r)
				fail_msg("case %zu refused: %s", i, err);
			continue;
		}
		if (r != -EINVAL || !strstr(err, cases[i].why))
			fail_msg("case %zu (%s '%s' '%s'): %d '%s', want '%s'", i, cases[i].type,
				 cases[i].mkfs, cases[i].mnt, r, r ? err : "", cases[i].why);
	}
}

static void test_offset(void **state)
{
	struct rb_fs_spec s = spec("ext4", "-q -E lazy_itable_init=1,offset=1048576", "");

	(void)state;
	assert_int_equal(rb_fs_spec_offset(&s), 1048576);
	s = spec("ext4", "-Eoffset=99999999999999", "");
	assert_int_equal(rb_fs_spec_offset(&s), 99999999999999ULL);
	s = spec("ext4", "-L offset=5", ""); /* a label, not -E's */
	assert_int_equal(rb_fs_spec_offset(&s), 0);
}

static void test_mount_args(void **state)
{
	struct rb_fs_spec s = spec("ext4", "", "noatime,data=ordered,nodev,,ro,discard");
	unsigned long flags;
	char data[64];

	(void)state;
	rb_fs_mount_args(&s, &flags, data, sizeof(data));
	assert_int_equal(flags, MS_NOATIME | MS_NODEV | MS_RDONLY);
	assert_string_equal(data, "data=ordered,discard");
	s = spec("xfs", "", "");
	rb_fs_mount_args(&s, &flags, data, sizeof(data));
	assert_int_equal(flags, 0);
	assert_string_equal(data, "");
}

static void test_text(void **state)
{
	struct rb_fs_spec s = spec("ext4", "", "");
	char buf[600];

	(void)state;
	assert_string_equal(rb_fs_spec_text(&s, buf, sizeof(buf)), "ext4");
	s = spec("xfs", "-m reflink=1", "");
	assert_string_equal(rb_fs_spec_text(&s, buf, sizeof(buf)),
			    "xfs (mkfs: -m reflink=1; mount: defaults)");
	s = spec("", "", "");
	assert_string_equal(rb_fs_spec_text(&s, buf, sizeof(buf)), "");
	assert_false(rb_fs_spec_set(&s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_offset),
		cmocka_unit_test(test_mount_args),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
