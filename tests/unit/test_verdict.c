// SPDX-License-Identifier: MIT
/*
 * Verdicts (coordinator/results/verdict.c) against known answers: each rule trips just past its
 * limit and holds at it; the data rules name the offsets (a 4 KiB block's eight chunks as
 * one range); a point a drive should have run and did not makes it INCOMPLETE, one it was
 * never in does not; health rises are over the whole run; the model rule needs three
 * drives of a model and skips files; a cliff names the interval where it began and the
 * point's last (short) interval is not one; the run's verdict is the worst drive's.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exitcode.h"
#include "verdict.h"

#define ND 4
#define NP 2

struct fx {
	struct rb_row_drive dr[ND];
	struct rb_row_point pt[NP];
	struct rb_row_result rs[ND * NP + 4];
	size_t nr;
	struct rb_row_sample sm[256];
	size_t ns;
	struct rb_row_health hl[32];
	size_t nh;
	struct rb_row_ioerror ie[32];
	size_t ne;
	struct rb_verdict_rules rules;
	struct rb_row_verdict *v;
	size_t nv;
	bool not_in[NP][ND]; /* point p does not measure drive d */
};

/* Four block drives of one model, two points, every row ok at 1000 IOPS. */
static void fixture(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	rb_verdict_rules_init(&f->rules);
	for (uint32_t d = 0; d < ND; d++) {
		f->dr[d].drive = d;
		snprintf(f->dr[d].agent, sizeof(f->dr[d].agent), "a%u", d / 2);
		snprintf(f->dr[d].id.path, sizeof(f->dr[d].id.path), "/dev/nvme%un1", d % 2);
		snprintf(f->dr[d].id.kind, sizeof(f->dr[d].id.kind), "block");
		snprintf(f->dr[d].id.model, sizeof(f->dr[d].id.model), "M1");
		snprintf(f->dr[d].id.serial, sizeof(f->dr[d].id.serial), "S%u", d);
	}
	for (uint32_t p = 0; p < NP; p++) {
		f->pt[p].point = p;
		snprintf(f->pt[p].name, sizeof(f->pt[p].name), "p%u", p);
		for (uint32_t d = 0; d < ND; d++) {
			struct rb_row_result *r = &f->rs[f->nr++];

			r->drive = d;
			r->point = p;
			snprintf(r->status, sizeof(r->status), "ok");
			r->read.ios = 1000;
			r->read.iops = 1000;
			r->read.lat_p99_ns = 100000;
			r->read.lat_p99_9_ns = 200000;
			r->core.start_ns = 1000 + p;
		}
	}
}

static bool not_in(const void *arg, uint32_t point, uint32_t drive)
{
	const struct fx *f = arg;

	return !f->not_in[point][drive];
}

/* Judges the fixture; returns the run's verdict. */
static int judge(struct fx *f)
{
	struct rb_verdict_in in = { .drives = f->dr,
				    .nd = ND,
				    .points = f->pt,
				    .np = NP,
				    .results = f->rs,
				    .nr = f->nr,
				    .samples = f->sm,
				    .ns = f->ns,
				    .health = f->hl,
				    .nh = f->nh,
				    .ioerrors = f->ie,
				    .ne = f->ne,
				    .root = &f->rules,
				    .in_point = not_in,
				    .arg = f };
	int v;

	free(f->v);
	f->v = NULL;
	v = rb_verdict_judge(&in, &f->v, &f->nv);
	assert_true(v >= 0);
	return v;
}

/* The row of drive d and rule; NULL when none. */
static const struct rb_row_verdict *row(const struct fx *f, uint32_t d, const char *rule)
{
	for (size_t i = 0; i < f->nv; i++)
		if (f->v[i].drive == d && !strcmp(f->v[i].rule, rule))
			return &f->v[i];
	return NULL;
}

static void assert_drive(const struct fx *f, uint32_t d, const char *verdict)
{
	const struct rb_row_verdict *r = row(f, d, "drive");

	assert_non_null(r);
	if (strcmp(r->verdict, verdict))
		fail_msg("drive %u: %s (%s), want %s", d, r->verdict, r->reason, verdict);
}

static struct rb_row_result *result(struct fx *f, uint32_t d, uint32_t p)
{
	for (size_t i = 0; i < f->nr; i++)
		if (f->rs[i].drive == d && f->rs[i].point == p)
			return &f->rs[i];
	fail_msg("no row of drive %u point %u", d, p);
	return NULL;
}

static void test_all_pass(void **st)
{
	struct fx f;

	(void)st;
	fixture(&f);
	assert_int_equal(judge(&f), RB_PASS);
	/* one row per drive, and nothing else */
	assert_int_equal(f.nv, ND);
	for (uint32_t d = 0; d < ND; d++) {
		assert_drive(&f, d, "PASS");
		assert_non_null(strstr(row(&f, d, "drive")->reason, "health not judged"));
	}
	free(f.v);
}

static void test_data_rules_name_offsets(void **st)
{
	struct fx f;
	const struct rb_row_verdict *r;

	(void)st;
	fixture(&f);
	/* a 4 KiB block's eight chunks failed their check on drive 1 in point 1 */
	result(&f, 1, 1)->core.verify_mismatches = 8;
	for (int c = 0; c < 8; c++)
		f.ie[f.ne++] = (struct rb_row_ioerror){ .drive = 1,
							.point = 1,
							.offset = 4194304 + 512 * (uint64_t)c,
							.length = 512,
							.err = EILSEQ,
							.count = 1 };
	/* drive 2: EIO from 1 MiB, seen in interval 3 of point 0 */
	result(&f, 2, 0)->read.errors = 5;
	f.ie[f.ne++] = (struct rb_row_ioerror){
		.drive = 2, .offset = 1048576, .length = 65536, .err = EIO, .count = 5
	};
	f.sm[f.ns++] = (struct rb_row_sample){ .drive = 2, .interval = 2, .ios = 10 };
	f.sm[f.ns++] = (struct rb_row_sample){ .drive = 2, .interval = 3, .ios = 5, .errors = 5 };
	assert_int_equal(judge(&f), RB_FAIL);
	r = row(&f, 1, "mismatch");
	assert_non_null(r);
	assert_string_equal(r->verdict, "FAIL");
	assert_int_equal(r->point, 1);
	assert_non_null(strstr(r->reason, "8 verification mismatch(es) at offset 4194304 (4096 "
					  "bytes), first in point 1 'p1'"));
	assert_null(row(&f, 1, "io_errors"));
	/* ranges are of the drive, over its points: one earlier on the drive, in point 0 */
	result(&f, 1, 0)->core.verify_mismatches = 1;
	f.ie[f.ne++] = (struct rb_row_ioerror){
		.drive = 1, .point = 0, .offset = 1048576, .length = 512, .err = EILSEQ, .count = 1
	};
	judge(&f);
	r = row(&f, 1, "mismatch");
	assert_non_null(r);
	if (!strstr(r->reason, "9 verification mismatch(es) at offset 1048576 (512 bytes), "
			       "4194304 (4096 bytes), first in point 0"))
		fail_msg("%s", r->reason);
	r = row(&f, 2, "io_errors");
	assert_non_null(r);
	assert_int_equal((int)r->measured, 5);
	assert_int_equal(r->interval, 3);
	assert_non_null(strstr(r->reason, "at offset 1048576 (65536 bytes)"));
	assert_drive(&f, 0, "PASS");
	assert_drive(&f, 1, "FAIL");
	assert_drive(&f, 2, "FAIL");
	/* the drive's row carries the reason */
	assert_non_null(strstr(row(&f, 2, "drive")->reason, "IO error"));
	free(f.v);
}

/* Drops the row of drive d at point p. */
static void drop(struct fx *f, uint32_t d, uint32_t p)
{
	struct rb_row_result *r = result(f, d, p);

	*r = f->rs[--f->nr];
}

static void test_completeness(void **st)
{
	struct fx f;

	(void)st;
	fixture(&f);
	drop(&f, 3, 1); /* drive 3 never ran point 1 */
	drop(&f, 1, 1); /* drive 1 was never in point 1 */
	f.not_in[1][1] = true;
	snprintf(result(&f, 0, 0)->status, 16, "lost");
	snprintf(result(&f, 0, 0)->message, 256, "agent 'a0' lost during the point");
	assert_int_equal(judge(&f), RB_INCOMPLETE);
	assert_drive(&f, 0, "INCOMPLETE");
	assert_non_null(strstr(row(&f, 0, "lost")->reason, "agent 'a0' lost"));
	assert_drive(&f, 1, "PASS");
	assert_null(row(&f, 1, "not_run"));
	assert_non_null(strstr(row(&f, 1, "drive")->reason, "every rule held over 1 point(s)"));
	assert_drive(&f, 2, "PASS");
	assert_drive(&f, 3, "INCOMPLETE");
	assert_non_null(strstr(row(&f, 3, "not_run")->reason, "point 1 'p1' was not run on it"));
	free(f.v);
}

/* An aborted run's file holds only the points it started: every drive is INCOMPLETE. */
static void test_run_ended_early(void **st)
{
	struct fx f;
	struct rb_verdict_in in;

	(void)st;
	fixture(&f);
	in = (struct rb_verdict_in){ .drives = f.dr,
				     .nd = ND,
				     .points = f.pt,
				     .np = NP,
				     .results = f.rs,
				     .nr = f.nr,
				     .root = &f.rules,
				     .run_status = "aborted" };
	assert_int_equal(rb_verdict_judge(&in, &f.v, &f.nv), RB_INCOMPLETE);
	for (uint32_t d = 0; d < ND; d++) {
		assert_drive(&f, d, "INCOMPLETE");
		assert_non_null(
			strstr(row(&f, d, "run_ended")->reason, "the run was aborted after 2"));
	}
	free(f.v);
	in.run_status = "complete";
	assert_int_equal(rb_verdict_judge(&in, &f.v, &f.nv), RB_PASS);
	free(f.v);
}

static void health(struct fx *f, uint32_t d, uint32_t point, int64_t t, double temp, uint8_t warn,
		   double media)
{
	f->hl[f->nh++] = (struct rb_row_health){ .drive = d,
						 .point = point,
						 .t_ns = t,
						 .h.nvme = 1,
						 .h.temperature_c = temp,
						 .h.critical_warning = warn,
						 .h.available_spare_pct = 100,
						 .h.percentage_used = 3,
						 .h.media_errors = media,
						 .h.error_log_entries = 7,
						 .h.unsafe_shutdowns = 2,
						 .h.throttle_seconds = 5 };
}

static void test_health_over_the_run(void **st)
{
	struct fx f;
	const struct rb_row_verdict *r;

	(void)st;
	fixture(&f);
	f.rules.max_temp_c = 70;
	f.rules.critical_warning = 1;
	f.rules.max_media_errors = 0;
	f.rules.max_unsafe_shutdowns = 0;
	f.rules.max_throttle_seconds = 10;
	for (uint32_t d = 0; d < ND; d++) {
		health(&f, d, 0, 10, 40, 0, 1);
		health(&f, d, 1, 30, d == 0 ? 70 : 45, 0, d == 2 ? 3 : 1);
	}
	health(&f, 1, 1, 20, 71, 0x2, 1); /* between the two: hot and warned */
	assert_int_equal(judge(&f), RB_FAIL);
	assert_drive(&f, 0, "PASS"); /* 70 is the limit, not above it */
	r = row(&f, 1, "max_temp_c");
	assert_non_null(r);
	assert_true(r->measured == 71 && r->limit == 70 && r->t_ns == 20);
	r = row(&f, 1, "critical_warning");
	assert_non_null(r);
	assert_non_null(strstr(r->reason, "bit 1 (temperature beyond its threshold)"));
	r = row(&f, 2, "max_media_errors");
	assert_non_null(r);
	assert_int_equal((int)r->measured, 2);
	assert_non_null(strstr(r->reason, "2 new media and data integrity error(s)"));
	/* a counter that only holds still: the same 2 unsafe shutdowns before and after */
	assert_null(row(&f, 0, "max_unsafe_shutdowns"));
	/* drive 3 throttled 11 s more by its end: one second past the limit */
	assert_drive(&f, 3, "PASS");
	f.hl[7].h.throttle_seconds = 16;
	judge(&f);
	r = row(&f, 3, "max_throttle_seconds");
	assert_non_null(r);
	if (!strstr(r->reason, "11 new second(s) of thermal throttling during the run (5 to 16"))
		fail_msg("%s", r->reason);
	assert_null(strstr(row(&f, 0, "drive")->reason, "health not judged"));
	f.hl[7].h.throttle_seconds = 15; /* 10: the limit, held */
	judge(&f);
	assert_drive(&f, 3, "PASS");
	free(f.v);
}

/* A snapshot of the PCIe link: width and speed now against the most both ends can do. */
static void link(struct fx *f, uint32_t d, uint32_t point, int64_t t, double width, double gts,
		 double correctable)
{
	f->hl[f->nh++] = (struct rb_row_health){ .drive = d,
						 .point = point,
						 .t_ns = t,
						 .h.pcie = 1,
						 .h.pcie_width = width,
						 .h.pcie_max_width = 4,
						 .h.pcie_speed = gts,
						 .h.pcie_max_speed = 16,
						 .h.aer_correctable = correctable,
						 .h.slot = "7" };
}

static void test_pcie_link(void **st)
{
	struct fx f;
	const struct rb_row_verdict *r;

	(void)st;
	fixture(&f);
	f.rules.pcie_downtrained = 1;
	f.rules.max_pcie_correctable_per_hour = 5;
	/* drive 0 as it should be; 1 trained to x2; 2 at Gen3 mid-run; 3 with 12 new
	 * correctable errors over two hours: 6 an hour */
	for (uint32_t d = 0; d < ND; d++) {
		link(&f, d, 0, 0, d == 1 ? 2 : 4, 16, 100);
		link(&f, d, 1, 7200000000000LL, d == 1 ? 2 : 4, d == 2 ? 8 : 16,
		     d == 3 ? 112 : 110);
	}
	assert_int_equal(judge(&f), RB_FAIL);
	assert_drive(&f, 0, "PASS");
	r = row(&f, 1, "pcie_downtrained");
	assert_non_null(r);
	if (!strstr(r->reason, "PCIe link x2 of x4, in slot 7, first in point 0 'p0'"))
		fail_msg("%s", r->reason);
	r = row(&f, 2, "pcie_downtrained");
	assert_non_null(r);
	if (!strstr(r->reason, "8 GT/s of 16 GT/s, in slot 7, first in point 1 'p1'"))
		fail_msg("%s", r->reason);
	/* drive 0's 10 in two hours are 5 an hour: the limit, held; drive 3's 6 are not */
	assert_null(row(&f, 0, "max_pcie_correctable_per_hour"));
	r = row(&f, 3, "max_pcie_correctable_per_hour");
	assert_non_null(r);
	assert_true(r->measured == 6 && r->limit == 5);
	if (!strstr(r->reason, "12 new PCIe correctable error(s) (AER) in 2.00 h: 6.0 an hour"))
		fail_msg("%s", r->reason);
	/* printed: the short links first, each drive with its slot, then the verdicts */
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	assert_non_null(o);
	rb_verdict_print(o, f.v, f.nv, f.dr, ND);
	fclose(o);
	const char *links = strstr(buf, "PCIe links trained below"), *table = strstr(buf, "verdicts:");

	assert_true(links && table && links < table);
	assert_non_null(strstr(links, "a0:/dev/nvme1n1  S1  PCIe link x2 of x4, in slot 7"));
	assert_non_null(strstr(links, "a1:/dev/nvme0n1  S2  PCIe link 8 GT/s of 16 GT/s, in slot 7"));
	assert_true(strstr(links, "S3") == NULL || strstr(links, "S3") > table);
	free(buf);
	/* no rule set: the same rows judge nothing */
	rb_verdict_rules_init(&f.rules);
	assert_int_equal(judge(&f), RB_PASS);
	free(f.v);
}

static void test_performance_rules(void **st)
{
	struct fx f;
	const struct rb_row_verdict *r;

	(void)st;
	fixture(&f);
	f.rules.min_model_pct = 70;
	f.rules.max_p99_ns = 100000;
	/* drive 3 at 690 IOPS in point 0: below 70% of the median 1000; 700 holds */
	result(&f, 3, 0)->read.iops = 690;
	result(&f, 2, 1)->read.iops = 700;
	result(&f, 1, 1)->read.lat_p99_ns = 100001;
	assert_int_equal(judge(&f), RB_FAIL);
	r = row(&f, 3, "min_model_pct");
	assert_non_null(r);
	assert_int_equal(r->point, 0);
	assert_non_null(strstr(r->reason, "69% of its model's median 1000"));
	assert_null(row(&f, 2, "min_model_pct"));
	assert_non_null(row(&f, 1, "max_p99"));
	assert_drive(&f, 0, "PASS");
	/* files share their filesystem: not judged against their peers */
	for (uint32_t d = 0; d < ND; d++)
		snprintf(f.dr[d].id.kind, sizeof(f.dr[d].id.kind), "file");
	judge(&f);
	assert_null(row(&f, 3, "min_model_pct"));
	/* two drives of a model are too few for a median */
	for (uint32_t d = 0; d < ND; d++) {
		snprintf(f.dr[d].id.kind, sizeof(f.dr[d].id.kind), "block");
		snprintf(f.dr[d].id.model, sizeof(f.dr[d].id.model), "M%u", d / 2);
	}
	judge(&f);
	assert_null(row(&f, 3, "min_model_pct"));
	/* drives of a model need not be next to each other: M1, M2, M1, M1 */
	for (uint32_t d = 0; d < ND; d++)
		snprintf(f.dr[d].id.model, sizeof(f.dr[d].id.model), "%s", d == 1 ? "M2" : "M1");
	result(&f, 2, 0)->read.iops = 400; /* M1 at point 0: 1000, 400, 690: median 690 */
	judge(&f);
	assert_non_null(row(&f, 2, "min_model_pct"));
	assert_non_null(strstr(row(&f, 2, "min_model_pct")->reason, "median 690"));
	assert_null(row(&f, 1, "min_model_pct")); /* alone in its model */
	free(f.v);
}

/* Drive d's point 0 samples: n intervals of MB/s given by fn. */
static void series(struct fx *f, uint32_t d, size_t n, double (*mbps)(size_t))
{
	for (size_t i = 0; i < n; i++)
		f->sm[f->ns++] = (struct rb_row_sample){ .drive = d,
							 .interval = (uint32_t)i,
							 .t_ns = (int64_t)(i + 1) * 1000000000LL,
							 .bytes = (uint64_t)(mbps(i) * 1e6) };
}

static double steady(size_t i)
{
	return 100 + (double)(i % 3); /* and its last interval is short: see below */
}

static double falls_at_11(size_t i)
{
	return i < 11 ? 100 : 30;
}

/* a dip at 3 that recovered, then the cliff from 12 on (mid-window) */
static double dip_then_falls(size_t i)
{
	return i == 3 ? 10 : i < 12 ? 100 : 30;
}

static double short_end(size_t i)
{
	return i < 19 ? 100 : 5;
}

static void test_cliff(void **st)
{
	struct fx f;
	const struct rb_row_verdict *r;

	(void)st;
	fixture(&f);
	f.rules.cliff_pct = 50;
	f.rules.cliff_window = 5;
	series(&f, 0, 20, steady);
	series(&f, 1, 20, falls_at_11);
	series(&f, 2, 20, short_end);
	series(&f, 3, 25, dip_then_falls);
	assert_int_equal(judge(&f), RB_FAIL);
	assert_drive(&f, 0, "PASS");
	r = row(&f, 1, "cliff_pct");
	assert_non_null(r);
	assert_int_equal(r->interval, 11);
	assert_int_equal(r->point, 0);
	assert_non_null(strstr(r->reason, "from interval 11 on"));
	/* the point's last interval, cut short, is not a cliff */
	assert_drive(&f, 2, "PASS");
	/* the cliff began where the drop stayed, not at an earlier dip */
	r = row(&f, 3, "cliff_pct");
	assert_non_null(r);
	assert_int_equal(r->interval, 12);
	assert_null(strstr(row(&f, 1, "cliff_pct")->reason, "throttled"));
	/* drive 1's SMART snapshots during the point: it entered thermal throttling twice
	 * between the 2nd and the 3rd (5 s into the point): the cliff says it throttled */
	for (int k = 0; k < 4; k++) {
		health(&f, 1, 0, k ? (int64_t)k * 2500000000LL : 1000, 40, 0, 0);
		f.hl[f.nh - 1].h.throttle_transitions = k < 2 ? 3 : 5;
	}
	health(&f, 1, 1, 20000000000LL, 40, 0, 0); /* another point's: not this one's */
	f.hl[f.nh - 1].h.throttle_transitions = 9;
	judge(&f);
	r = row(&f, 1, "cliff_pct");
	assert_non_null(r);
	/* the rise lay between the snapshots at 2.5 s and 5.0 s: intervals 2 to 4 */
	if (!strstr(r->reason, "from interval 11 on; throttled: the drive entered thermal "
			       "throttling 2 time(s) during the point (SMART), first seen 5.0 s in, "
			       "in intervals 2-4"))
		fail_msg("%s", r->reason);
	free(f.v);
}

/*
 * Health read every sample interval, just after each interval's end: a rise of the
 * throttling counters marks the one interval it closed; seconds count as entries do; a
 * member's or another point's snapshot marks nothing; the text joins runs.
 */
static void test_throttled_intervals(void **st)
{
	struct rb_row_health h[12];
	int64_t ends[10];
	bool mark[10];
	char text[64];
	size_t n = 0;

	(void)st;
	memset(h, 0, sizeof(h));
	for (int i = 0; i < 10; i++)
		ends[i] = (int64_t)(i + 1) * 1000000000LL;
	for (int k = 0; k <= 10; k++, n++) {
		h[n].drive = 2;
		h[n].t_ns = (int64_t)k * 1000000000LL + 3000000; /* 3 ms after each end */
		h[n].h.nvme = true;
		h[n].h.throttle_transitions = k >= 7 ? 1 : 0; /* entered in interval 6 */
		h[n].h.throttle_seconds = k >= 10 ? 1 : 0;    /* ... and 9 */
	}
	h[n++] = (struct rb_row_health){ .drive = 2, .member = 1, .t_ns = 4500000000LL,
					 .h = { .nvme = true, .throttle_transitions = 50 } };
	assert_int_equal(rb_throttled_intervals(h, n, 2, 0, 0, 0, ends, 10, mark), 2);
	for (int i = 0; i < 10; i++)
		assert_int_equal(mark[i], i == 6 || i == 9);
	rb_intervals_text(mark, 10, text, sizeof(text));
	assert_string_equal(text, "6, 9");
	/* another point or drive: nothing */
	assert_int_equal(rb_throttled_intervals(h, n, 2, 1, 0, 0, ends, 10, mark), 0);
	assert_int_equal(rb_throttled_intervals(h, n, 3, 0, 0, 0, ends, 10, mark), 0);
	/* health every 3 s: the span between the two snapshots */
	h[0].t_ns = 0;
	h[1] = h[3];
	h[1].h.throttle_transitions = 0;
	h[2] = h[6];
	h[2].h.throttle_transitions = 1; /* (3 s, 6 s]: intervals 3, 4, 5 */
	assert_int_equal(rb_throttled_intervals(h, 3, 2, 0, 0, 0, ends, 10, mark), 3);
	rb_intervals_text(mark, 10, text, sizeof(text));
	assert_string_equal(text, "3-5");
}

static void test_rules_merge(void **st)
{
	struct rb_verdict_rules root, phase, out;

	(void)st;
	rb_verdict_rules_init(&root);
	assert_false(rb_verdict_rules_any(&root));
	root.max_temp_c = 70;
	root.max_p99_ns = 1e6;
	assert_true(rb_verdict_rules_any(&root));
	rb_verdict_rules_init(&phase);
	phase.max_p99_ns = 2e6;
	rb_verdict_rules_merge(&out, &root, &phase);
	assert_true(out.max_temp_c == 70 && out.max_p99_ns == 2e6);
	assert_true(isnan(out.cliff_pct));
	assert_true(rb_verdict_key_is_health("max_temp_c"));
	assert_false(rb_verdict_key_is_health("max_p99"));
}

/* min_spare_pct: a fall from the run's first reading, or a level below the drive's own
 * threshold (its critical warning bit 0); 0% from the start on an emulated drive is none */
static void test_spare(void **st)
{
	struct fx f;
	const struct rb_row_verdict *r;

	(void)st;
	fixture(&f);
	f.rules.min_spare_pct = 5;
	for (uint32_t d = 0; d < ND; d++) {
		health(&f, d, 0, 10, 40, 0, 1);
		health(&f, d, 1, 30, 40, 0, 1);
	}
	/* drive 0: 0% from the start, its threshold 0 (no warning): no fall, no FAIL */
	f.hl[0].h.available_spare_pct = f.hl[1].h.available_spare_pct = 0;
	/* drive 1: 10% then 3%: fell below the floor */
	f.hl[2].h.available_spare_pct = 10;
	f.hl[3].h.available_spare_pct = 3;
	/* drive 2: 2% from the start, below its own threshold by its warning bit 0 */
	f.hl[4].h.available_spare_pct = f.hl[5].h.available_spare_pct = 2;
	f.hl[4].h.critical_warning = f.hl[5].h.critical_warning = 0x1;
	assert_int_equal(judge(&f), RB_FAIL);
	assert_null(row(&f, 0, "min_spare_pct"));
	assert_drive(&f, 0, "PASS");
	r = row(&f, 1, "min_spare_pct");
	assert_non_null(r);
	assert_string_equal(r->reason, "available spare fell from 10% to 3% (at least 5%)");
	r = row(&f, 2, "min_spare_pct");
	assert_non_null(r);
	assert_non_null(strstr(r->reason, "2% from the first reading, below the drive's own "
					  "threshold"));
	assert_drive(&f, 3, "PASS");
	free(f.v);
}

/*
 * The drive's line: one sentence a rule (a rule tripped at several points says how
 * many, the first and the worst; the table keeps a row a point), whole sentences only,
 * those past the column's room counted.
 */
static void test_drive_line(void **st)
{
	struct fx f;
	const struct rb_row_verdict *r;
	size_t p99_rows = 0;

	(void)st;
	fixture(&f);
	f.rules.max_p99_ns = 150000;
	result(&f, 0, 0)->read.lat_p99_ns = 160000;
	result(&f, 0, 1)->read.lat_p99_ns = 900000;
	assert_int_equal(judge(&f), RB_FAIL);
	r = row(&f, 0, "drive");
	assert_string_equal(r->reason, "max_p99: 2 point(s), the first read p99 160 us in point 0 "
				       "'p0' (at most 150 us); the worst read p99 900 us in point "
				       "1 'p1' (at most 150 us)");
	for (size_t i = 0; i < f.nv; i++)
		p99_rows += f.v[i].drive == 0 && !strcmp(f.v[i].rule, "max_p99");
	assert_int_equal(p99_rows, 2);
	/* more rules than the line holds: whole sentences, the rest counted */
	f.rules.max_p99_9_ns = 150000;
	f.rules.max_temp_c = 30;
	f.rules.critical_warning = 1;
	f.rules.max_media_errors = 0;
	f.rules.max_unsafe_shutdowns = 0;
	f.rules.max_throttle_seconds = 0;
	health(&f, 0, 0, 10, 40, 0x1f, 1);
	health(&f, 0, 1, 30, 45, 0x1f, 3);
	f.hl[1].h.unsafe_shutdowns = 9;
	f.hl[1].h.throttle_seconds = 99;
	judge(&f);
	r = row(&f, 0, "drive");
	assert_string_equal(r->verdict, "FAIL");
	assert_true(strlen(r->reason) < sizeof(r->reason) - 1);
	assert_non_null(strstr(r->reason, " more rule(s): the verdicts table"));
	/* what stands before the count ends a sentence: no reason cut in the middle */
	assert_non_null(strstr(r->reason, "); and "));
	free(f.v);
}

/* Which code a run of several outcomes exits with: exitcode.h's one order. */
static void test_exit_precedence(void **st)
{
	(void)st;
	/* a burn-in with IO errors, mismatches and a FAIL: the FAIL holds them */
	assert_int_equal(rb_exit_worse(RB_EXIT_IO_ERRORS, RB_EXIT_BELOW_SPEC), RB_EXIT_BELOW_SPEC);
	assert_int_equal(rb_exit_worse(RB_EXIT_BELOW_SPEC, RB_EXIT_PARTIAL), RB_EXIT_BELOW_SPEC);
	assert_int_equal(rb_exit_worse(RB_EXIT_PARTIAL, RB_EXIT_IO_ERRORS), RB_EXIT_PARTIAL);
	assert_int_equal(rb_exit_worse(RB_EXIT_OK, RB_EXIT_IO_ERRORS), RB_EXIT_IO_ERRORS);
	assert_int_equal(rb_exit_worse(RB_EXIT_BELOW_SPEC, RB_EXIT_FAILED), RB_EXIT_FAILED);
	assert_int_equal(rb_exit_worse(RB_EXIT_REFUSED, RB_EXIT_USAGE), RB_EXIT_USAGE);
	assert_int_equal(rb_exit_worse(RB_EXIT_OK, RB_EXIT_OK), RB_EXIT_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_pass),
		cmocka_unit_test(test_data_rules_name_offsets),
		cmocka_unit_test(test_completeness),
		cmocka_unit_test(test_run_ended_early),
		cmocka_unit_test(test_health_over_the_run),
		cmocka_unit_test(test_pcie_link),
		cmocka_unit_test(test_performance_rules),
		cmocka_unit_test(test_cliff),
		cmocka_unit_test(test_throttled_intervals),
		cmocka_unit_test(test_rules_merge),
		cmocka_unit_test(test_spare),
		cmocka_unit_test(test_drive_line),
		cmocka_unit_test(test_exit_precedence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
