// SPDX-License-Identifier: MIT
/*
 * `rackbench demo` (coordinator/cli/demo.c) up to where it would start its agents: --help,
 * and the refusals of bad arguments and of an --out it cannot write into, each before
 * any agent, socket or temporary folder.
 */
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

#include "capture.h"
#include "cmds.h"
#include "demo.h"
#include "exitcode.h"
#include "log.h"

static void test_demo_refusals(void **st)
{
	char dir[256], file[512], ro[512];
	struct out o;

	(void)st;
	temp_dir(dir, sizeof(dir));
	assert_run(RB_EXIT_OK, out, "usage: rackbench demo [--out DIR]", rb_demo_cmd, "demo",
		   "--help");
	assert_run(RB_EXIT_USAGE, err, "unknown option '--agents'", rb_demo_cmd, "demo", "--agents",
		   "3");
	/* --out naming a file: not a folder to create */
	snprintf(file, sizeof(file), "%s/file", dir);
	write_text(file, "x\n");
	snprintf(ro, sizeof(ro), "%s/sub", file);
	cap_run(&o, rb_demo_cmd, "demo", "--out", ro);
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_non_null(strstr(o.err, "cannot create '"));
	assert_non_null(strstr(o.err, "Not a directory"));
	out_free(&o);
	/* a folder it may not write into (root may write anywhere) */
	if (geteuid() != 0) {
		snprintf(ro, sizeof(ro), "%s/ro", dir);
		assert_int_equal(mkdir(ro, 0500), 0);
		cap_run(&o, rb_demo_cmd, "demo", "--out", ro);
		assert_int_equal(o.rc, RB_EXIT_USAGE);
		assert_non_null(strstr(o.err, "cannot write results into '"));
		assert_non_null(strstr(o.err, "(use --out DIR)"));
		out_free(&o);
		chmod(ro, 0700);
	}
	rm_tree(dir);
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demo_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
