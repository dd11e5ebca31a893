// SPDX-License-Identifier: MIT
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "guard.h"

static char dir[256], state[300], outside[300], link_to_outside[300];

static int setup(void **s)
{
	FILE *f;

	(void)s;
	snprintf(dir, sizeof(dir), "/tmp/rb-guard.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(outside, sizeof(outside), "%s/user-data.bin", dir);
	snprintf(link_to_outside, sizeof(link_to_outside), "%s/state/innocent", dir);
	if (mkdir(state, 0700))
		return -1;
	f = fopen(outside, "w");
	if (!f)
		return -1;
	fputs("precious", f);
	fclose(f);
	return symlink(outside, link_to_outside);
}

static int teardown(void **s)
{
	char cmd[400];

	(void)s;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static bool mentions(const struct rb_diags *d, const char *what)
{
	for (size_t i = 0; i < d->n; i++)
		if (strstr(d->v[i].message, what))
			return true;
	return false;
}

static void test_guard_refuses_without_both_keys(void **s)
{
	struct rb_guard_policy p = { .destructive = false, .destructive_key = "--destructive",
				     .state_dir = state, .root = "" };
	struct rb_diags d;

	(void)s;
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, outside, &d), -EPERM);
	/* every reason at once, each naming the target */
	assert_int_equal(d.n, 2);
	assert_true(mentions(&d, "--destructive is not given"));
	assert_true(mentions(&d, "not on the agent's --allow list"));
	assert_string_equal(d.v[0].subject, outside);
	rb_diags_release(&d);
}

static void test_guard_one_key_is_not_enough(void **s)
{
	char *allow[] = { outside };
	struct rb_guard_policy p = { .destructive = true, .state_dir = state, .root = "" };
	struct rb_diags d;

	(void)s;
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, outside, &d), -EPERM);
	assert_int_equal(d.n, 1);
	rb_diags_release(&d);
	p.destructive = false;
	p.allow = allow;
	p.nallow = 1;
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, outside, &d), -EPERM);
	assert_int_equal(d.n, 1);
	rb_diags_release(&d);
	p.destructive = true;
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, outside, &d), 0);
	assert_int_equal(d.n, 0);
	rb_diags_release(&d);
}

static void test_guard_state_dir_files_are_rackbench_own(void **s)
{
	char mine[400];
	struct rb_guard_policy p = { .destructive = true, .state_dir = state, .root = "" };
	struct rb_diags d;

	(void)s;
	snprintf(mine, sizeof(mine), "%s/disk0.dat", state);
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, mine, &d), 0);
	rb_diags_release(&d);
}

/* A file named bare ("disk1.dat") while the state folder is the current one is its own,
 * like "./disk1.dat"; a bare name elsewhere is not. */
static void test_guard_bare_name_in_the_state_dir(void **s)
{
	struct rb_guard_policy p = { .destructive = true, .state_dir = state, .root = "" };
	struct rb_diags d;
	char cwd[4096];

	(void)s;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(state), 0);
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, "disk1.dat", &d), 0);
	assert_int_equal(rb_guard_check_write(&p, "./disk1.dat", &d), 0);
	rb_diags_release(&d);
	assert_int_equal(chdir("/"), 0);
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, "disk1.dat", &d), -EPERM);
	assert_true(mentions(&d, "does not exist"));
	rb_diags_release(&d);
	assert_int_equal(chdir(cwd), 0);
}

static void test_guard_resolves_symlinks_first(void **s)
{
	struct rb_guard_policy p = { .destructive = true, .state_dir = state, .root = "" };
	struct rb_diags d;

	(void)s;
	/* a link inside the state folder to a user's file is the user's file */
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, link_to_outside, &d), -EPERM);
	assert_true(mentions(&d, "symbolic link in the state folder"));
	assert_true(mentions(&d, "rackbench did not create"));
	rb_diags_release(&d);
}

static void test_guard_refuses_missing_outside_state(void **s)
{
	char missing[400], *allow[1];
	struct rb_guard_policy p = { .destructive = true, .state_dir = state, .root = "" };
	struct rb_diags d;

	(void)s;
	snprintf(missing, sizeof(missing), "%s/nope/x", dir);
	allow[0] = missing;
	p.allow = allow;
	p.nallow = 1;
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, missing, &d), -EPERM);
	assert_true(mentions(&d, "does not exist"));
	rb_diags_release(&d);
}

/* ---- recorded sysfs/proc trees through the root prefix ---- */

static char tree[300];

static void mkdirs(const char *rel)
{
	char path[1024], *p;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	for (p = path + strlen(tree) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	mkdir(path, 0755);
}

static void put(const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *target_rel, const char *link_rel)
{
	char t[1024], l[1024];

	snprintf(t, sizeof(t), "%s/%s", tree, target_rel);
	snprintf(l, sizeof(l), "%s/%s", tree, link_rel);
	assert_int_equal(symlink(t, l), 0);
}

/* a block device at sysfs dir rel with number devno; its dev/block and class links */
static void blockdev(const char *rel, const char *name, const char *devno, bool part)
{
	char p[512];

	char line[32];

	mkdirs(rel);
	snprintf(p, sizeof(p), "%s/dev", rel);
	snprintf(line, sizeof(line), "%s\n", devno);
	put(p, line);
	if (part) {
		snprintf(p, sizeof(p), "%s/partition", rel);
		put(p, "1\n");
	}
	snprintf(p, sizeof(p), "%s/holders", rel);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/slaves", rel);
	mkdirs(p);
	mkdirs("sys/dev/block");
	mkdirs("sys/class/block");
	snprintf(p, sizeof(p), "sys/dev/block/%s", devno);
	link_to(rel, p);
	snprintf(p, sizeof(p), "sys/class/block/%s", name);
	link_to(rel, p);
}

static void holds(const char *holder_rel, const char *holder, const char *slave_rel,
		  const char *slave)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/holders/%s", slave_rel, holder);
	link_to(holder_rel, p);
	snprintf(p, sizeof(p), "%s/slaves/%s", holder_rel, slave);
	link_to(slave_rel, p);
}

static void new_tree(void)
{
	char cmd[400];

	if (tree[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
		assert_int_equal(system(cmd), 0);
	}
	snprintf(tree, sizeof(tree), "/tmp/rb-tree.XXXXXX");
	assert_non_null(mkdtemp(tree));
	mkdirs("proc/self");
	put("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n");
}

static size_t check_dev(unsigned ma, unsigned mi, struct rb_diags *d)
{
	struct rb_guard_policy p = { .root = tree, .wipe_signatures = true };

	rb_diags_init(d);
	rb_guard_check_blockdev(&p, "dev", makedev(ma, mi), NULL, d);
	return d->n;
}

#define NV "sys/devices/pci0000:00/0000:00:04.0/nvme"
#define VB "sys/devices/virtual/block"

static void test_guard_refuses_every_disk_under_lvm_on_md_root(void **unused)
{
	struct rb_diags d;

	(void)unused;
	new_tree();
	blockdev(NV "/nvme0/nvme0n1", "nvme0n1", "259:0", false);
	blockdev(NV "/nvme0/nvme0n1/nvme0n1p1", "nvme0n1p1", "259:1", true);
	blockdev(NV "/nvme1/nvme1n1", "nvme1n1", "259:2", false);
	blockdev(NV "/nvme1/nvme1n1/nvme1n1p1", "nvme1n1p1", "259:3", true);
	blockdev(VB "/md0", "md0", "9:0", false);
	mkdirs(VB "/md0/md");
	put(VB "/md0/md/level", "raid1\n");
	blockdev(VB "/dm-0", "dm-0", "253:0", false);
	mkdirs(VB "/dm-0/dm");
	put(VB "/dm-0/dm/name", "vg-root\n");
	put(VB "/dm-0/dm/uuid", "LVM-Zx9kq\n");
	holds(VB "/md0", "md0", NV "/nvme0/nvme0n1/nvme0n1p1", "nvme0n1p1");
	holds(VB "/md0", "md0", NV "/nvme1/nvme1n1/nvme1n1p1", "nvme1n1p1");
	holds(VB "/dm-0", "dm-0", VB "/md0", "md0");
	put("proc/self/mountinfo", "25 1 253:0 / / rw,relatime shared:1 - ext4 /dev/mapper/vg-root rw\n"
				   "30 25 0:5 / /proc rw - proc proc rw\n");
	/* each NVMe disk: its partition is in the array, and it is behind / */
	for (unsigned mi = 0; mi <= 2; mi += 2) {
		assert_int_equal(check_dev(259, mi, &d), 2);
		assert_true(mentions(&d, "is held by md0 (MD array (raid1))"));
		assert_true(mentions(&d, "device is behind / (dm-0 <- md0 <- nvme"));
		rb_diags_release(&d);
	}
	/* the array and the volume themselves */
	check_dev(9, 0, &d);
	assert_true(mentions(&d, "device is held by dm-0 (LVM volume vg-root)"));
	assert_true(mentions(&d, "device is behind /"));
	rb_diags_release(&d);
	check_dev(253, 0, &d);
	assert_true(mentions(&d, "device is mounted at /"));
	rb_diags_release(&d);
}

static void test_guard_root_on_a_partition_and_swap(void **unused)
{
	struct rb_diags d;

	(void)unused;
	new_tree();
	blockdev("sys/devices/pci/ata1/sda", "sda", "8:0", false);
	blockdev("sys/devices/pci/ata1/sda/sda1", "sda1", "8:1", true);
	blockdev("sys/devices/pci/ata1/sda/sda2", "sda2", "8:2", true);
	blockdev("sys/devices/pci/ata2/sdb", "sdb", "8:16", false);
	put("proc/self/mountinfo", "25 1 8:1 / / rw - ext4 /dev/sda1 rw\n");
	put("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n"
			  "/dev/sda2 partition\t1048572\t0\t-2\n");
	assert_int_equal(check_dev(8, 0, &d), 4);
	assert_true(mentions(&d, "partition sda1 is mounted at /"));
	assert_true(mentions(&d, "partition sda2 is in use as swap (/dev/sda2)"));
	assert_true(mentions(&d, "device is behind / (sda1)"));
	assert_true(mentions(&d, "device is behind swap (sda2)"));
	rb_diags_release(&d);
	/* a partition target: itself, not its siblings */
	assert_int_equal(check_dev(8, 2, &d), 2);
	assert_true(mentions(&d, "device is in use as swap"));
	rb_diags_release(&d);
	/* the other disk is clean */
	assert_int_equal(check_dev(8, 16, &d), 0);
	rb_diags_release(&d);
}

static void test_guard_names_a_dm_crypt_holder(void **unused)
{
	struct rb_diags d;

	(void)unused;
	new_tree();
	blockdev("sys/devices/pci/ata3/sdc", "sdc", "8:32", false);
	blockdev(VB "/dm-1", "dm-1", "253:1", false);
	mkdirs(VB "/dm-1/dm");
	put(VB "/dm-1/dm/name", "crypt-data\n");
	put(VB "/dm-1/dm/uuid", "CRYPT-LUKS2-0f1e2d3c-crypt-data\n");
	holds(VB "/dm-1", "dm-1", "sys/devices/pci/ata3/sdc", "sdc");
	put("proc/self/mountinfo", "40 1 253:1 / /data rw - xfs /dev/mapper/crypt-data rw\n");
	assert_int_equal(check_dev(8, 32, &d), 1);
	assert_true(mentions(&d, "device is held by dm-1 (dm-crypt volume crypt-data)"));
	rb_diags_release(&d);
	/* a number sysfs does not know is refused, not waved through */
	assert_int_equal(check_dev(8, 48, &d), 1);
	assert_true(mentions(&d, "is not in sysfs"));
	rb_diags_release(&d);
}

/* a loop device in the recorded tree: loop/backing_file and offset */
static void loopdev(const char *name, const char *devno, const char *backing,
		    const char *offset)
{
	char rel[256], p[300], line[300];

	snprintf(rel, sizeof(rel), VB "/%s", name);
	blockdev(rel, name, devno, false);
	snprintf(p, sizeof(p), "%s/loop", rel);
	mkdirs(p);
	snprintf(p, sizeof(p), "%s/loop/backing_file", rel);
	snprintf(line, sizeof(line), "%s\n", backing);
	put(p, line);
	snprintf(p, sizeof(p), "%s/loop/offset", rel);
	snprintf(line, sizeof(line), "%s\n", offset);
	put(p, line);
	/* the tree's /sys/block lists it */
	mkdirs("sys/block");
	snprintf(p, sizeof(p), "sys/block/%s", name);
	link_to(rel, p);
}

/* The shape that reaches the root disk: a loop over it at an offset holds no signature
 * and no holder link, and losetup does not claim the disk; the guard walks down it. */
static void test_guard_follows_loops_to_the_root_disk(void **unused)
{
	struct rb_diags d;

	(void)unused;
	new_tree();
	blockdev("sys/devices/pci/ata1/sda", "sda", "8:0", false);
	blockdev("sys/devices/pci/ata1/sda/sda1", "sda1", "8:1", true);
	blockdev("sys/devices/pci/ata2/sdb", "sdb", "8:16", false);
	put("proc/self/mountinfo", "25 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
				   "26 25 7:3 / /mnt ro - ext4 /dev/loop3 ro\n");
	loopdev("loop0", "7:0", "/dev/sda", "1048576");	/* over the root disk */
	loopdev("loop1", "7:1", "/dev/loop0", "4096");	/* two deep */
	loopdev("loop3", "7:3", "/dev/sdb", "0");	/* sits on sdb, mounted */
	loopdev("loop4", "7:4", "/dev/sdb", "65536");	/* a sibling over sdb */
	check_dev(7, 0, &d);
	assert_true(mentions(&d, "through loop device loop0 (over /dev/sda at offset 1048576): "
				 "partition sda1 is mounted at /"));
	assert_true(mentions(&d, "device is behind / (sda1)"));
	/* loop1 sits on loop0: refused through both, and loop0 is not its own backing */
	rb_diags_release(&d);
	check_dev(7, 1, &d);
	assert_true(mentions(&d, "through loop device loop1 (over /dev/loop0 at offset 4096): "
				 "through loop device loop0"));
	assert_true(mentions(&d, "behind /"));
	assert_false(mentions(&d, "backing device of loop device loop1"));
	rb_diags_release(&d);
	/* the disk a loop sits on: refused, naming the loop and its mount */
	check_dev(8, 16, &d);
	assert_true(mentions(&d, "device is the backing device of loop device loop3 (at offset 0), "
				 "which is mounted at /mnt"));
	assert_true(mentions(&d, "backing device of loop device loop4 (at offset 65536)"));
	rb_diags_release(&d);
	/* loop4 over sdb: refused through sdb, which loop3 (mounted) also sits on */
	check_dev(7, 4, &d);
	assert_true(mentions(&d, "through loop device loop4 (over /dev/sdb at offset 65536): "
				 "device is the backing device of loop device loop3"));
	rb_diags_release(&d);
}

static int teardown_tree(void **s)
{
	char cmd[400];

	(void)s;
	if (!tree[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_refuses_without_both_keys),
		cmocka_unit_test(test_guard_one_key_is_not_enough),
		cmocka_unit_test(test_guard_state_dir_files_are_rackbench_own),
		cmocka_unit_test(test_guard_bare_name_in_the_state_dir),
		cmocka_unit_test(test_guard_resolves_symlinks_first),
		cmocka_unit_test(test_guard_refuses_missing_outside_state),
		cmocka_unit_test(test_guard_refuses_every_disk_under_lvm_on_md_root),
		cmocka_unit_test(test_guard_root_on_a_partition_and_swap),
		cmocka_unit_test(test_guard_names_a_dm_crypt_holder),
		cmocka_unit_test(test_guard_follows_loops_to_the_root_disk),
	};
	int r = cmocka_run_group_tests(tests, setup, teardown);

	teardown_tree(NULL);
	return r;
}
