// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "statedir.h"

static char dir[256], state[300], outside[300];

static int setup(void **s)
{
	(void)s;
	snprintf(dir, sizeof(dir), "/tmp/rb-statedir.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(outside, sizeof(outside), "%s/outside", dir);
	return mkdir(state, 0700) || mkdir(outside, 0755);
}

static int teardown(void **s)
{
	char cmd[400];

	(void)s;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_state_rel_resolves_the_folder_not_the_name(void **s)
{
	char rel[256], p[600];

	(void)s;
	snprintf(p, sizeof(p), "%s/x.bin", state);
	assert_true(rb_state_rel(state, p, rel, sizeof(rel)));
	assert_string_equal(rel, "x.bin");
	snprintf(p, sizeof(p), "%s/../state/y.bin", state);
	assert_true(rb_state_rel(state, p, rel, sizeof(rel)));
	assert_string_equal(rel, "y.bin");
	snprintf(p, sizeof(p), "%s/x.bin", outside);
	assert_false(rb_state_rel(state, p, rel, sizeof(rel)));
	snprintf(p, sizeof(p), "%s/", state);
	assert_false(rb_state_rel(state, p, rel, sizeof(rel)));
	snprintf(p, sizeof(p), "%s/..", state);
	assert_false(rb_state_rel(state, p, rel, sizeof(rel)));
}

static void test_state_open_follows_no_link_and_never_leaves(void **s)
{
	char p[600];
	int fd;

	(void)s;
	/* a folder link inside the state folder leading out of it */
	snprintf(p, sizeof(p), "%s/out", state);
	assert_int_equal(symlink(outside, p), 0);
	fd = rb_state_open(state, "out/new.bin", O_RDWR, true);
	assert_true(fd == -ELOOP || fd == -EXDEV);
	snprintf(p, sizeof(p), "%s/new.bin", outside);
	assert_int_equal(access(p, F_OK), -1);
	fd = rb_state_open(state, "../outside/new2.bin", O_RDWR, true);
	assert_int_equal(fd, -EXDEV);
	/* a link to a file */
	snprintf(p, sizeof(p), "%s/lnk.bin", state);
	assert_int_equal(symlink("/etc/hostname", p), 0);
	assert_int_equal(rb_state_open(state, "lnk.bin", O_RDONLY, false), -ELOOP);
}

static void test_state_owns_only_what_it_created(void **s)
{
	char p[600], q[600];
	int fd, other;

	(void)s;
	fd = rb_state_open(state, "own.bin", O_RDWR, true);
	assert_true(fd >= 0);
	assert_true(rb_state_owns(state, fd));
	/* a second link: its bytes are another file's too */
	snprintf(p, sizeof(p), "%s/own.bin", state);
	snprintf(q, sizeof(q), "%s/own-link", outside);
	assert_int_equal(link(p, q), 0);
	assert_false(rb_state_owns(state, fd));
	assert_int_equal(unlink(q), 0);
	assert_true(rb_state_owns(state, fd));
	close(fd);
	/* a file made by someone else under the same name is not rackbench's */
	assert_int_equal(unlink(p), 0);
	other = open(p, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(other >= 0);
	assert_false(rb_state_owns(state, other));
	close(other);
	/* nor a file that was there already */
	fd = rb_state_open(state, "own.bin", O_RDWR, true);
	assert_true(fd >= 0);
	assert_false(rb_state_owns(state, fd));
	close(fd);
}

static void test_state_dir_check_refuses_system_and_shared_folders(void **s)
{
	struct rb_diags d;
	char shared[400];

	(void)s;
	rb_diags_init(&d);
	assert_int_equal(rb_state_dir_check(state, &d), 0);
	assert_int_equal(rb_state_dir_check("/", &d), -EPERM);
	assert_int_equal(rb_state_dir_check("/etc", &d), -EPERM);
	assert_int_equal(rb_state_dir_check("/var/lib/", &d), -EPERM);
	snprintf(shared, sizeof(shared), "%s/shared", dir);
	assert_int_equal(mkdir(shared, 0700), 0);
	assert_int_equal(chmod(shared, 0777), 0);
	assert_int_equal(rb_state_dir_check(shared, &d), -EPERM);
	assert_int_equal(d.n, 4);
	assert_non_null(strstr(d.v[3].message, "writable by every user"));
	rb_diags_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_rel_resolves_the_folder_not_the_name),
		cmocka_unit_test(test_state_open_follows_no_link_and_never_leaves),
		cmocka_unit_test(test_state_owns_only_what_it_created),
		cmocka_unit_test(test_state_dir_check_refuses_system_and_shared_folders),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
