// SPDX-License-Identifier: MIT
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fioout.h"
#include "hist.h"

/* fio's io_u.c buckets: __io_u_mark_map (submit, complete) and io_u_mark_depth (level). */
static void test_fioout_depth_buckets_are_fios(void **state)
{
	static const struct {
		unsigned n, level, batch;
	} cases[] = {
		{ 0, 0, 0 },  { 1, 0, 1 },  { 2, 1, 1 },  { 3, 1, 1 },	  { 4, 2, 1 },
		{ 5, 2, 2 },  { 7, 2, 2 },  { 8, 3, 2 },  { 9, 3, 3 },	  { 15, 3, 3 },
		{ 16, 4, 3 }, { 17, 4, 4 }, { 31, 4, 4 }, { 32, 5, 4 },	  { 33, 5, 5 },
		{ 63, 5, 5 }, { 64, 6, 5 }, { 65, 6, 6 }, { 4096, 6, 6 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].n && rb_fio_depth_index(cases[i].n) != cases[i].level)
			fail_msg("depth %u: level bucket %u, want %u", cases[i].n,
				 rb_fio_depth_index(cases[i].n), cases[i].level);
		if (rb_fio_batch_index(cases[i].n) != cases[i].batch)
			fail_msg("batch of %u: bucket %u, want %u", cases[i].n,
				 rb_fio_batch_index(cases[i].n), cases[i].batch);
	}
}

/* Each latency lands in fio's range of latency_ns, _us or _ms, every direction's IOs. */
static void test_fioout_latency_ranges_from_histograms(void **state)
{
	static const struct {
		uint64_t ns;
		char unit;
		unsigned range;
	} cases[] = {
		{ 1, 'n', 0 },		 { 3, 'n', 1 },
		{ 9, 'n', 2 },		 { 99, 'n', 5 },
		{ 300, 'n', 7 },	 { 999, 'n', 9 },
		{ 1500, 'u', 0 },	 { 3000, 'u', 1 },
		{ 60000, 'u', 5 },	 { 800000, 'u', 9 },
		{ 1500000, 'm', 0 },	 { 30000000, 'm', 4 },
		{ 1500000000, 'm', 10 }, { 3000000000ULL, 'm', 11 },
	};
	struct rb_hist *h = calloc(2, sizeof(*h));
	struct rb_fio_job_out job = { .name = "j" };
	uint64_t ns[10], us[10], ms[12];

	(void)state;
	assert_non_null(h);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(h, 0, 2 * sizeof(*h));
		rb_hist_record(&h[i % 2], cases[i].ns); /* a read, or a write */
		job.dir[0].hist = &h[0];
		job.dir[1].hist = &h[1];
		assert_int_equal(rb_fio_lat_ranges(&job, ns, us, ms), 1);
		const uint64_t *v = cases[i].unit == 'n' ? ns : cases[i].unit == 'u' ? us : ms;

		if (v[cases[i].range] != 1)
			fail_msg("%llu ns: not in latency_%cs range %u",
				 (unsigned long long)cases[i].ns, cases[i].unit, cases[i].range);
	}
	free(h);
}

static char *write_doc(const struct rb_fio_doc *doc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	rb_fio_json_write(f, doc, false);
	fclose(f);
	return text;
}

/* What is known is written as fio writes it; what is not is left out, never a 0. */
static void test_fioout_writes_known_members_and_leaves_out_unknown(void **state)
{
	struct rb_hist *h = calloc(1, sizeof(*h));
	struct rb_fio_depths dp = { .level = { 0, 0, 100 },
				    .submit = { 0, 50 },
				    .complete = { 10, 40 } };
	struct rb_fio_job_out job = { .name = "j", .iodepth = 4 };
	struct rb_fio_disk disk = {
		.name = "nvme0n1", .ios = { 100, 0 }, .io_ticks_ms = 500, .msec = 1000
	};
	struct rb_fio_doc doc = { .jobs = &job, .njobs = 1 };
	char *text;

	(void)state;
	for (int i = 0; i < 100; i++)
		rb_hist_record(h, 60000);
	job.dir[0] = (struct rb_fio_dir){
		.ios = 100, .bytes = 409600, .hist = h, .runtime_ns = 1000000000
	};
	text = write_doc(&doc);
	assert_non_null(strstr(text, "\"latency_us\": {"));
	assert_non_null(strstr(text, "\"100\": 100.000000"));
	assert_non_null(strstr(text, "\"latency_ms\": {"));
	assert_non_null(strstr(text, "\"latency_depth\": 4"));
	assert_null(strstr(text, "\"ctx\""));
	assert_null(strstr(text, "\"iodepth_level\""));
	assert_null(strstr(text, "\"disk_util\""));
	assert_null(strstr(text, "\"job_start\""));
	free(text);

	job.rusage = true;
	job.ctx = 1234;
	job.depths = &dp;
	job.start_ms = 1700000000123;
	doc.disks = &disk;
	doc.ndisks = 1;
	text = write_doc(&doc);
	assert_non_null(strstr(text, "\"ctx\": 1234, \"majf\": 0, \"minf\": 0"));
	assert_non_null(strstr(text, "\"iodepth_level\": {\"1\": 0.000000, \"2\": 0.000000, "
				     "\"4\": 100.000000"));
	assert_non_null(strstr(text, "\"iodepth_complete\": {\"0\": 20.000000, \"4\": 80.000000"));
	assert_non_null(strstr(text, "\"job_start\": 1700000000123"));
	assert_non_null(strstr(text, "\"name\": \"nvme0n1\", \"read_ios\": 100"));
	assert_non_null(strstr(text, "\"util\": 50.000000"));
	free(text);
	free(h);
}

/* fio's terse line, version 3: 121 fields a job, 9 more a disk; an unknown figure is an
 * empty field, never a 0. */
static void test_fioout_terse_line_has_fios_fields(void **state)
{
	struct rb_hist *h = calloc(1, sizeof(*h));
	struct rb_fio_job_out job = { .name = "point a;b", .usr_cpu_pct = 1.5 };
	struct rb_fio_disk disk = { .name = "sdz", .msec = 1000 };
	struct rb_fio_doc doc = { .jobs = &job, .njobs = 1 };
	char *text = NULL, *p;
	size_t len = 0, fields = 1;
	FILE *f;

	(void)state;
	for (int i = 0; i < 10; i++)
		rb_hist_record(h, 2500000); /* 2.5 ms */
	job.dir[0] = (struct rb_fio_dir){ .ios = 10,
					  .bytes = 40960,
					  .hist = h,
					  .lat_sum_ns = 25000000,
					  .lat_min_ns = 2500000,
					  .lat_max_ns = 2500000,
					  .runtime_ns = 1000000000 };
	for (int k = 0; k < 2; k++) {
		f = open_memstream(&text, &len);
		rb_fio_terse_write(f, &doc);
		fclose(f);
		fields = 1;
		for (p = text; *p; p++)
			fields += *p == ';';
		assert_int_equal(fields, k ? 130 : 121);
		assert_int_equal(strchr(text, '\n') - text + 1, (long)strlen(text)); /* one line */
		assert_non_null(strstr(text, "3;rackbench-"));
		assert_non_null(strstr(
			text, ";point a_b;0;0;40;40;10;1000;0;0;0.000000;0.000000;2500;2500;"));
		/* CPU known, ctx, majf and minf not; no IO depths */
		assert_non_null(strstr(text, ";1.500000%;0.000000%;;;;;;;;;;;"));
		/* the latency ranges: all in 2-4 ms */
		assert_non_null(strstr(text, ";0.00%;100.00%;0.00%;"));
		free(text);
		doc.disks = &disk;
		doc.ndisks = 1;
	}
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fioout_depth_buckets_are_fios),
		cmocka_unit_test(test_fioout_latency_ranges_from_histograms),
		cmocka_unit_test(test_fioout_writes_known_members_and_leaves_out_unknown),
		cmocka_unit_test(test_fioout_terse_line_has_fios_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
