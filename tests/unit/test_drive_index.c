// SPDX-License-Identifier: MIT
/*
 * A results folder's index of drives (coordinator/results/drive_index.c) and the commands over it
 * (coordinator/cli/cmd_history.c), on results files written here with the results writer:
 * each finished file is indexed once (a second update adds nothing, a changed file is
 * read again), a running or unreadable one is not; a drive is known by its serial or by
 * AGENT:PATH; history is oldest first; drives --failed lists the failed drives' latest
 * failed runs, --since leaves older runs out; a damaged index is set aside and built
 * again; the commands print text, JSON and CSV and refuse bad flags.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture.h"
#include "cmds.h"
#include "drive_index.h"
#include "exitcode.h"
#include "log.h"
#include "results.h"

static char dir[256];

/* A finished run's file: drives S1 (serial) and a1:/f.dat (none), their verdicts. */
static void write_run(const char *name, int64_t start_ns, const char *v1, const char *v2,
		      const char *status)
{
	char path[600], err[512];
	struct rb_results_meta m = { .campaign_name = name,
				     .campaign_text = "",
				     .start_ns = start_ns };
	struct rb_results *r;
	struct rb_row_drive d1 = { .drive = 0, .agent = "a0" }, d2 = { .drive = 1, .agent = "a1" };
	struct rb_row_result res = { .drive = 0, .core.elapsed_ns = 3600000000000ULL };
	struct rb_row_verdict vd[2] = { { .drive = 0, .rule = "drive" },
					{ .drive = 1, .rule = "drive" } };

	snprintf(path, sizeof(path), "%s/%s.h5", dir, name);
	r = rb_results_create(path, &m, err, sizeof(err));
	assert_non_null(r);
	snprintf(d1.id.path, sizeof(d1.id.path), "/dev/nvme0n1");
	snprintf(d1.id.serial, sizeof(d1.id.serial), "S1");
	snprintf(d1.id.model, sizeof(d1.id.model), "M1");
	snprintf(d2.id.path, sizeof(d2.id.path), "/f.dat");
	rb_results_drive(r, &d1);
	rb_results_drive(r, &d2);
	res.write.bytes = 5000000000ULL;
	snprintf(res.status, sizeof(res.status), "ok");
	rb_results_result(r, &res);
	assert_int_equal(rb_results_close(r, status, start_ns + 1), 0);
	if (!v1)
		return;
	snprintf(vd[0].verdict, sizeof(vd[0].verdict), "%s", v1);
	snprintf(vd[0].reason, sizeof(vd[0].reason), "%s of %s", v1, name);
	snprintf(vd[1].verdict, sizeof(vd[1].verdict), "%s", v2);
	assert_int_equal(rb_results_add_verdicts(path, vd, 2, v1), 0);
}

static int setup(void **st)
{
	(void)st;
	temp_dir(dir, sizeof(dir));
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	rm_tree(dir);
	return 0;
}

static void test_index_and_queries(void **st)
{
	char err[600], path[600];
	struct rb_index *ix;
	struct rb_index_row *v;
	size_t n;
	int64_t day = 86400LL * 1000000000LL, now = (int64_t)time(NULL) * 1000000000LL;

	(void)st;
	write_run("w1", now - 40 * day, "PASS", "PASS", "complete");
	write_run("w2", now - 20 * day, "FAIL", "PASS", "complete");
	write_run("w3", now - 1 * day, "PASS", "FAIL", "partial");
	write_run("running", now, NULL, NULL, "running");
	snprintf(path, sizeof(path), "%s/junk.h5", dir);
	FILE *f = fopen(path, "w");

	fputs("not hdf5", f);
	fclose(f);
	ix = rb_index_open(dir, err, sizeof(err));
	assert_non_null(ix);
	/* three finished runs; the running one and the junk are not indexed */
	assert_int_equal(rb_index_update(ix, err, sizeof(err)), 3);
	assert_int_equal(rb_index_update(ix, err, sizeof(err)), 0);
	assert_int_equal(rb_index_history(ix, "S1", &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].campaign, "w1");
	assert_string_equal(v[1].verdict, "FAIL");
	assert_string_equal(v[1].reason, "FAIL of w2");
	assert_string_equal(v[2].status, "partial");
	assert_true(v[0].seconds == 3600 && v[0].bytes == 5000000000ULL);
	assert_string_equal(v[0].model, "M1");
	free(v);
	/* by AGENT:PATH, and by AGENT:PATH of a drive with a serial too */
	assert_int_equal(rb_index_history(ix, "a1:/f.dat", &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].key, "a1:/f.dat");
	free(v);
	assert_int_equal(rb_index_history(ix, "a0:/dev/nvme0n1", &v, &n), 0);
	assert_int_equal(n, 3);
	free(v);
	/* failed drives, each with its latest failed run; --since leaves out w2 */
	assert_int_equal(rb_index_drives(ix, 0, 1, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].key, "S1");
	assert_string_equal(v[0].campaign, "w2");
	assert_string_equal(v[1].key, "a1:/f.dat");
	assert_string_equal(v[1].campaign, "w3");
	free(v);
	assert_int_equal(rb_index_drives(ix, now - 10 * day, 1, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].key, "a1:/f.dat");
	free(v);
	/* every drive's latest run */
	assert_int_equal(rb_index_drives(ix, 0, 0, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].campaign, "w3");
	assert_string_equal(v[0].verdict, "PASS");
	free(v);
	/* a folder named like a results file is passed over; a file gone leaves the index */
	snprintf(path, sizeof(path), "%s/folder.h5", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(rb_index_update(ix, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/w3.h5", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rb_index_update(ix, err, sizeof(err)), 0);
	assert_int_equal(rb_index_history(ix, "S1", &v, &n), 0);
	assert_int_equal(n, 2);
	free(v);
	write_run("w3", now - 1 * day, "PASS", "FAIL", "partial");
	assert_int_equal(rb_index_update(ix, err, sizeof(err)), 1);
	/* a changed file is read again */
	snprintf(path, sizeof(path), "%s/w1.h5", dir);
	struct rb_row_verdict vd = { .drive = 0, .rule = "drive", .verdict = "FAIL" };

	assert_int_equal(rb_results_add_verdicts(path, &vd, 1, "FAIL"), 0);
	assert_int_equal(rb_index_update(ix, err, sizeof(err)), 1);
	assert_int_equal(rb_index_history(ix, "S1", &v, &n), 0);
	assert_string_equal(v[0].verdict, "FAIL");
	free(v);
	rb_index_close(ix);
}

static void test_damaged_index_built_again(void **st)
{
	char err[600], path[600], aside[700];
	struct rb_index *ix;
	struct rb_index_row *v;
	size_t n;
	FILE *f;

	(void)st;
	write_run("only", 1000, "FAIL", "PASS", "complete");
	snprintf(path, sizeof(path), "%s/%s", dir, RB_INDEX_FILE);
	f = fopen(path, "w");
	for (int i = 0; i < 200; i++)
		fputs("garbage, not a database ", f);
	fclose(f);
	ix = rb_index_open(dir, err, sizeof(err));
	assert_non_null(ix);
	snprintf(aside, sizeof(aside), "%s.damaged", path);
	assert_int_equal(access(aside, F_OK), 0);
	assert_int_equal(rb_index_update(ix, err, sizeof(err)), 1);
	assert_int_equal(rb_index_drives(ix, 0, 1, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].key, "S1");
	free(v);
	rb_index_close(ix);
	/* a folder that cannot be read */
	ix = rb_index_open("/nonexistent-folder", err, sizeof(err));
	assert_null(ix);
	assert_non_null(strstr(err, "/nonexistent-folder"));
}

static int history(int argc, char **argv)
{
	return rb_history_cmd(argc, argv);
}

static int drives(int argc, char **argv)
{
	return rb_drives_cmd(argc, argv);
}

static void test_commands(void **st)
{
	struct out o;

	(void)st;
	write_run("r1", 1000000000000000000LL, "PASS", "PASS", "complete");
	write_run("r2", 1000000100000000000LL, "FAIL", "INCOMPLETE", "complete");
	assert_run(RB_EXIT_OK, out, "drive S1: M1 S1, firmware unknown; 2 run(s)", history,
		   "history", "S1", "--results", dir);
	assert_run(RB_EXIT_OK, out, "FAIL of r2", history, "history", "S1", "--results", dir);
	assert_run(RB_EXIT_FAILED, err, "no run in", history, "history", "nobody", "--results",
		   dir);
	cap_run(&o, history, "history", "S1", "--json", "--results", dir);
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out, "\"drive\": \"S1\""));
	assert_non_null(strstr(o.out, "\"verdict\": \"FAIL\""));
	assert_non_null(strstr(o.out, "\"hours\": 1.0000"));
	out_free(&o);
	cap_run(&o, drives, "drives", "--failed", "--csv", "--results", dir);
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_true(!strncmp(o.out, "drive,serial,model,", 19));
	assert_non_null(strstr(o.out, "\n\"S1\",\"S1\",\"M1\","));
	assert_null(strstr(o.out, "a1:/f.dat")); /* INCOMPLETE is not failed */
	out_free(&o);
	assert_run(RB_EXIT_OK, out, "a1:/f.dat", drives, "drives", "--results", dir);
	assert_run(RB_EXIT_OK, out, "no failed drive", drives, "drives", "--failed", "--since",
		   "1h", "--results", dir);
	assert_run(RB_EXIT_USAGE, err, "--since takes a duration", drives, "drives", "--since",
		   "later", "--results", dir);
	assert_run(RB_EXIT_USAGE, err, "--json or --csv", drives, "drives", "--json", "--csv",
		   "--results", dir);
	assert_run(RB_EXIT_FAILED, err, "cannot", drives, "drives", "--results",
		   "/nonexistent-folder");
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_index_and_queries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_index_built_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
