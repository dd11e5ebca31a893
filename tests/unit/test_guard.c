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

static void test_guard_resolves_symlinks_first(void **s)
{
	struct rb_guard_policy p = { .destructive = true, .state_dir = state, .root = "" };
	struct rb_diags d;

	(void)s;
	/* a link inside the state folder to a user's file is the user's file */
	rb_diags_init(&d);
	assert_int_equal(rb_guard_check_write(&p, link_to_outside, &d), -EPERM);
	assert_true(mentions(&d, "not created by rackbench"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_refuses_without_both_keys),
		cmocka_unit_test(test_guard_one_key_is_not_enough),
		cmocka_unit_test(test_guard_state_dir_files_are_rackbench_own),
		cmocka_unit_test(test_guard_resolves_symlinks_first),
		cmocka_unit_test(test_guard_refuses_missing_outside_state),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
