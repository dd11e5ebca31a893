// SPDX-License-Identifier: MIT
/*
 * `rackbench import-fio` (coordinator/campaign/import_fio.c) on fio job files written here: the
 * campaign it prints is loaded back with the campaign loader and checked for what the
 * jobs said -- a phase per job in order, their workloads, the drives of their filename=
 * lists, destructive when a job writes -- and what does not convert is named with its
 * FILE:LINE (once for a [global] option), an error under --strict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "campaign.h"
#include "capture.h"
#include "cmds.h"
#include "exitcode.h"
#include "import_fio.h"
#include "log.h"

struct fixture {
	char dir[256], job[512];
};

static int setup(void **st)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	temp_dir(fx->dir, sizeof(fx->dir));
	snprintf(fx->job, sizeof(fx->job), "%s/my-jobs.v2.fio", fx->dir);
	*st = fx;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *fx = *st;

	rm_tree(fx->dir);
	free(fx);
	return 0;
}

/* The campaign printed, loaded; NULL with the loader's first message on failure. */
static struct rb_campaign *load(const char *text)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	rb_diags_init(&d);
	if (rb_campaign_load("<import>", text, strlen(text), &c, &d))
		fail_msg("the campaign does not load: %s\n%s", d.n ? d.v[0].message : "?", text);
	rb_diags_release(&d);
	return c;
}

static bool has_drive(const struct rb_campaign *c, const char *agent, const char *path)
{
	for (size_t i = 0; i < c->ndrives; i++)
		if (!strcmp(c->drives[i].agent, agent) && !strcmp(c->drives[i].path, path))
			return true;
	return false;
}

/* Jobs in stonewalled order: a phase each, their settings, their drives. */
static void test_jobs_become_phases(void **st)
{
	struct fixture *fx = *st;
	struct rb_campaign *c;
	struct out o;

	write_text(fx->job, "[global]\n"
			    "ioengine=io_uring\n"
			    "direct=1\n"
			    "filename=/dev/nvme0n1:/dev/nvme1n1\n"
			    "runtime=10\n"
			    "time_based\n"
			    "[seq]\n"
			    "rw=write\n"
			    "bs=128k\n"
			    "iodepth=32\n"
			    "[rand]\n"
			    "stonewall\n"
			    "rw=randread\n"
			    "bs=4k\n"
			    "iodepth=16\n"
			    "numjobs=2\n"
			    "filename=/dev/nvme2n1\n");
	cap_run(&o, rb_import_fio_cmd, "import-fio", fx->job, "--agent", "host7");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_string_equal(o.err, "");
	c = load(o.out);
	/* the file's name up to its first dot */
	assert_string_equal(c->name, "my-jobs");
	assert_true(c->destructive);
	assert_int_equal(c->nagents, 1);
	assert_string_equal(c->agents[0], "host7");
	assert_int_equal(c->ndrives, 3);
	assert_true(has_drive(c, "host7", "/dev/nvme0n1"));
	assert_true(has_drive(c, "host7", "/dev/nvme1n1"));
	assert_true(has_drive(c, "host7", "/dev/nvme2n1"));
	assert_int_equal(c->nphases, 2);
	assert_string_equal(c->phases[0].name, "1-seq");
	assert_string_equal(c->phases[1].name, "2-rand");
	/* each phase measures its job's files */
	assert_int_equal(c->phases[0].ndrives, 2);
	assert_string_equal(c->phases[0].drives[1], "/dev/nvme1n1");
	assert_int_equal(c->phases[1].ndrives, 1);
	assert_string_equal(c->phases[1].drives[0], "/dev/nvme2n1");
	assert_int_equal(c->npoints, 2);
	assert_int_equal(c->points[0].wl.bs, 128 * 1024);
	assert_int_equal(c->points[0].wl.iodepth, 32);
	assert_int_equal(c->points[0].wl.runtime_ns, 10000000000ULL);
	assert_true(c->points[0].wl.direct);
	assert_int_equal(c->points[1].wl.bs, 4096);
	assert_int_equal(c->points[1].wl.iodepth, 16);
	assert_int_equal(c->points[1].wl.numjobs, 2);
	assert_int_equal(c->points[0].wl.rw, RB_RW_WRITE);
	assert_int_equal(c->points[1].wl.rw, RB_RW_RANDREAD);
	assert_null(strstr(o.out, "at the same time"));
	rb_campaign_free(c);
	out_free(&o);
}

/* What fio runs at once runs in turn here, said so; a read-only job file is not
 * destructive; the default agent is localhost. */
static void test_concurrent_jobs_and_reads(void **st)
{
	struct fixture *fx = *st;
	struct rb_campaign *c;
	struct out o;

	write_text(fx->job, "[global]\nfilename=/dev/sdb\nruntime=5\ntime_based\n"
			    "[a]\nrw=read\n[b]\nrw=randread\n");
	cap_run(&o, rb_import_fio_cmd, "import-fio", fx->job);
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_int_equal(count_of(o.out, "# fio runs this job at the same time as the one before"),
			 1);
	c = load(o.out);
	assert_false(c->destructive);
	assert_false(rb_campaign_writes(c));
	assert_string_equal(c->agents[0], "localhost");
	assert_int_equal(c->nphases, 2);
	/* every job on every drive: no phase says which */
	assert_int_equal(c->phases[0].ndrives, 0);
	assert_int_equal(c->phases[1].ndrives, 0);
	rb_campaign_free(c);
	out_free(&o);
}

/* An option with no equivalent: a warning with FILE:LINE and a comment in the campaign
 * (once, though two jobs inherit it); --strict makes it an error and prints nothing. */
static void test_unsupported_options(void **st)
{
	struct fixture *fx = *st;
	struct rb_campaign *c;
	struct out o;
	char want[600];

	write_text(fx->job, "[global]\nfilename=/dev/sdb\nstartdelay=5\n"
			    "[a]\nrw=randwrite\nzonemode=zbd\n[b]\nstonewall\nrw=randread\n");
	cap_run(&o, rb_import_fio_cmd, "import-fio", fx->job);
	assert_int_equal(o.rc, RB_EXIT_OK);
	snprintf(want, sizeof(want), "# %s:3: 'startdelay': ", fx->job);
	assert_int_equal(count_of(o.out, want), 1);
	snprintf(want, sizeof(want), "# %s:6: 'zonemode': ", fx->job);
	assert_int_equal(count_of(o.out, want), 1);
	snprintf(want, sizeof(want), "%s:3:1: warning: 'startdelay'", fx->job);
	assert_int_equal(count_of(o.err, want), 1);
	assert_non_null(strstr(o.err, "'zonemode' is not supported"));
	c = load(o.out);
	assert_int_equal(c->nphases, 2);
	rb_campaign_free(c);
	out_free(&o);

	cap_run(&o, rb_import_fio_cmd, "import-fio", "--strict", fx->job);
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_string_equal(o.out, "");
	snprintf(want, sizeof(want), "%s:6:1: 'zonemode' is not supported", fx->job);
	assert_non_null(strstr(o.err, want));
	assert_null(strstr(o.err, "warning"));
	out_free(&o);
}

/* A sign where none is meaningful is refused, naming FILE:LINE and the option: exit 2. */
static void test_signs(void **st)
{
	static const char *const bad[][2] = {
		{ "rate_iops=-1", "'rate_iops=-1': a whole number of IOs per second" },
		{ "rwmixwrite=-5", "'rwmixwrite=-5': a percentage from 0 to 100" },
		{ "rwmixwrite=150", "'rwmixwrite=150': a percentage from 0 to 100" },
		{ "offset=-5%", "'offset=-5%': a percentage from 0 to 100" },
		{ "bs=-4k", "'bs=-4k'" },
		{ "size=-1m", "'size=-1m'" },
		{ "iodepth=-8", "'iodepth=-8'" },
		{ "runtime=-3", "'runtime=-3'" },
	};
	struct fixture *fx = *st;
	struct out o;
	char text[256], want[600];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[j]\nfilename=/dev/sdb\nrw=randread\n%s\n",
			 bad[i][0]);
		write_text(fx->job, "%s", text);
		cap_run(&o, rb_import_fio_cmd, "import-fio", fx->job);
		if (o.rc != RB_EXIT_USAGE)
			fail_msg("'%s': exit %d, want 2 (%s%s)", bad[i][0], o.rc, o.out, o.err);
		snprintf(want, sizeof(want), "%s:4:1: ", fx->job);
		if (!strstr(o.err, want) || !strstr(o.err, bad[i][1]))
			fail_msg("'%s': said '%s', want '%s...%s'", bad[i][0], o.err, want,
				 bad[i][1]);
		out_free(&o);
	}
}

/* A job without a filename needs --target; the null engine needs none. */
static void test_targets(void **st)
{
	struct fixture *fx = *st;
	struct rb_campaign *c;
	struct out o;
	char two[600];

	write_text(fx->job, "[quick]\nrw=randread\nruntime=3\ntime_based\n");
	cap_run(&o, rb_import_fio_cmd, "import-fio", fx->job);
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_non_null(strstr(o.err, "job 'quick' names no filename: give --target PATH"));
	assert_string_equal(o.out, "");
	out_free(&o);
	cap_run(&o, rb_import_fio_cmd, "import-fio", fx->job, "--target", "/dev/sdz");
	assert_int_equal(o.rc, RB_EXIT_OK);
	c = load(o.out);
	assert_int_equal(c->ndrives, 1);
	assert_string_equal(c->drives[0].path, "/dev/sdz");
	assert_int_equal(c->phases[0].ndrives, 1);
	assert_string_equal(c->phases[0].drives[0], "/dev/sdz");
	rb_campaign_free(c);
	out_free(&o);

	/* two files: their jobs in order, the campaign named after the first */
	snprintf(two, sizeof(two), "%s/nul.fio", fx->dir);
	write_text(two, "[nothing]\nioengine=null\nsize=1g\nrw=randread\nruntime=2\ntime_based\n");
	cap_run(&o, rb_import_fio_cmd, "import-fio", two, fx->job, "--target", "/dev/sdz");
	assert_int_equal(o.rc, RB_EXIT_OK);
	c = load(o.out);
	assert_string_equal(c->name, "nul");
	assert_int_equal(c->nphases, 2);
	assert_string_equal(c->phases[0].name, "1-nothing");
	assert_string_equal(c->phases[1].name, "2-quick");
	assert_true(has_drive(c, "localhost", "null0"));
	assert_true(has_drive(c, "localhost", "/dev/sdz"));
	assert_string_equal(c->phases[0].drives[0], "null0");
	rb_campaign_free(c);
	out_free(&o);
}

/* A name YAML would misread is quoted and escaped: the phase keeps it as written. */
static void test_names_quoted(void **st)
{
	struct fixture *fx = *st;
	struct rb_campaign *c;
	struct out o;

	write_text(fx->job,
		   "[a \"b\" \\c]\nfilename=/dev/my\"disk\nrw=read\nruntime=1\ntime_based\n");
	cap_run(&o, rb_import_fio_cmd, "import-fio", fx->job);
	assert_int_equal(o.rc, RB_EXIT_OK);
	c = load(o.out);
	assert_string_equal(c->phases[0].name, "1-a \"b\" \\c");
	assert_int_equal(c->ndrives, 1);
	assert_string_equal(c->drives[0].path, "/dev/my\"disk");
	rb_campaign_free(c);
	out_free(&o);
}

static void test_arguments(void **st)
{
	struct fixture *fx = *st;
	struct out o;

	assert_run(RB_EXIT_OK, out, "usage: rackbench import-fio JOB.fio", rb_import_fio_cmd,
		   "import-fio", "--help");
	assert_run(RB_EXIT_USAGE, err, "usage: rackbench import-fio JOB.fio", rb_import_fio_cmd,
		   "import-fio");
	assert_run(RB_EXIT_USAGE, err, "unknown option '--jobs'", rb_import_fio_cmd, "import-fio",
		   "--jobs", fx->job);
	cap_run(&o, rb_import_fio_cmd, "import-fio", "/nonexistent/x.fio");
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_non_null(strstr(o.err, "/nonexistent/x.fio"));
	assert_string_equal(o.out, "");
	out_free(&o);
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_jobs_become_phases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_jobs_and_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsupported_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_quoted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arguments, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
