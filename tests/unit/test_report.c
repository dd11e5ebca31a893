// SPDX-License-Identifier: MIT
/*
 * `rackbench report` (coordinator/report/report.c, report_model.c, report_html.c) on results
 * files written here through the results writer: each printed figure is checked against
 * what the rows written add up to -- a cell's IOPS is its latest attempt's directions
 * added, a model's p99 comes from its drives' histograms merged, an outlier is the one
 * drive far from its model's median, a baseline difference is against that drive at the
 * same point -- and the spec checks, the HTML page and the refusals of bad input.
 */
#include <math.h>
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
#include "exitcode.h"
#include "hist.h"
#include "log.h"
#include "report.h"
#include "report_model.h"
#include "report_svg.h"
#include "results.h"

#define ND 5
#define NP 7
#define SEC 1000000000LL

/* The drives: four of model M1 (the fourth slow), and a volume whose name wants escaping. */
static const struct {
	const char *agent, *path, *model, *serial;
	uint32_t members;
} drives[ND] = {
	{ "a1", "/dev/nvme0n1", "M1", "S0", 0 }, { "a1", "/dev/nvme1n1", "M1", "S1", 0 },
	{ "a2", "/dev/nvme0n1", "M1", "S2", 0 }, { "a2", "/dev/nvme1n1", "M1", "S3", 0 },
	{ "a3", "vol<&>", "M2", "", 2 },
};

/* The points: a queue-depth sweep, a rate curve, a fill, two steady-state rounds. */
static const struct {
	const char *phase, *name, *rw;
	uint64_t bs, rate;
	uint32_t iodepth, round;
	double curve;
} points[NP] = {
	{ "qd", "randread iodepth=1", "randread", 4096, 0, 1, 0, NAN },
	{ "qd", "randread iodepth=8", "randread", 4096, 0, 8, 0, NAN },
	{ "curve", "randread curve=max", "randread", 4096, 0, 4, 0, 0 },
	{ "curve", "randread curve=50%", "randread", 4096, 5000, 4, 0, 50 },
	{ "precondition", "write fill", "write", 131072, 0, 32, 0, NAN },
	{ "ss", "randwrite round=1", "randwrite", 4096, 0, 4, 1, NAN },
	{ "ss", "randwrite round=2", "randwrite", 4096, 0, 4, 2, NAN },
};

/* A cell's IOPS as written: at the first point the fourth drive a tenth of the others. */
static double iops_of(size_t p, size_t d)
{
	if (d == 3 && p == 0)
		return 100.0;
	if (d == 4)
		return 5000.0 + (double)p;
	return 1000.0 * (double)(p + 1) + 10.0 * (double)d;
}

/* The latency every read IO of drive d at point 0 took (its histogram's one bucket). */
static uint64_t lat_of(size_t d)
{
	return 10000 * (d + 1);
}

struct fixture {
	char dir[256], path[512], path2[512];
	struct rb_row_result rs[64];
	size_t nr;
};

static void dir_set(struct rb_row_dir *x, double iops, uint64_t bs, uint64_t p99)
{
	x->ios = (uint64_t)iops * 10;
	x->bytes = x->ios * bs;
	x->iops = iops;
	x->bw_bytes_per_s = iops * (double)bs;
	x->lat_mean_ns = 1e9 / (iops > 0 ? iops : 1);
	x->lat_p50_ns = p99 / 2;
	x->lat_p99_ns = p99;
	x->lat_p99_9_ns = p99 + 1000;
	x->lat_max_ns = p99 * 2;
}

static void add_result(struct fixture *fx, struct rb_results *r, size_t p, size_t d,
		       uint32_t attempt, const char *status, double iops)
{
	struct rb_row_result x;

	memset(&x, 0, sizeof(x));
	x.drive = (uint32_t)d;
	x.point = (uint32_t)p;
	x.attempt = attempt;
	snprintf(x.status, sizeof(x.status), "%s", status);
	x.core.start_ns = (int64_t)(p + 1) * 100 * SEC;
	x.core.end_ns = x.core.start_ns + 10 * SEC;
	x.core.elapsed_ns = 10 * SEC;
	if (!strcmp(points[p].rw, "randread"))
		dir_set(&x.read, iops, points[p].bs, 40000);
	else
		dir_set(&x.write, iops, points[p].bs, 60000);
	/* a trim direction, counted in the cell's IOPS too */
	if (p == 0 && d == 2) {
		x.read.iops -= 20;
		x.trim.iops = 20;
	}
	x.health_max_temp_c = d == 0 ? 41.0 + (double)p : NAN;
	x.health_new_media_errors = d == 0 ? 1 : NAN;
	if (d == 0 && p == 6)
		x.health_critical_warning = 4;
	if (d == 0) {
		x.core.history_since_ns = 1000 * SEC;
		x.core.purge_ns = 1700000000LL * SEC;
		snprintf(x.purge_method, sizeof(x.purge_method), "format");
		x.core.written_since_purge_bytes = 1ULL << 30;
		x.core.fill_passes_since_purge = 2;
	}
	x.rate_iops = points[p].rate;
	assert_int_equal(rb_results_result(r, &x), 0);
	fx->rs[fx->nr++] = x;
}

/* A sample of one bucket (drive d at point p), as the coordinator stores one. */
static void add_bucket(struct rb_results *r, uint32_t p, uint32_t d, uint32_t attempt, uint8_t dir,
		       uint32_t bucket, uint64_t count)
{
	struct rb_row_sample s = {
		.drive = d, .point = p, .attempt = attempt, .direction = dir, .ios = count
	};

	assert_int_equal(rb_results_sample_hist(r, &s, &bucket, &count, 1), 0);
}

static void add_hist(struct rb_results *r, size_t p, size_t d, uint32_t attempt, uint8_t dir,
		     uint64_t lat, uint64_t count)
{
	add_bucket(r, (uint32_t)p, (uint32_t)d, attempt, dir, rb_hist_index(lat), count);
}

/* The results file of the drives and points above. */
static void write_file(struct fixture *fx, const char *path, const char *methodology)
{
	struct rb_results_meta m = { .campaign_name = "fix<1>",
				     .campaign_text = "name: fix\n",
				     .methodology = methodology,
				     .start_ns = 100 * SEC };
	char err[512];
	struct rb_results *r = rb_results_create(path, &m, err, sizeof(err));

	if (!r)
		fail_msg("%s", err);
	fx->nr = 0;
	for (size_t d = 0; d < ND; d++) {
		struct rb_row_drive x;

		memset(&x, 0, sizeof(x));
		x.drive = (uint32_t)d;
		snprintf(x.agent, sizeof(x.agent), "%s", drives[d].agent);
		snprintf(x.id.path, sizeof(x.id.path), "%s", drives[d].path);
		snprintf(x.id.model, sizeof(x.id.model), "%s", drives[d].model);
		snprintf(x.id.serial, sizeof(x.id.serial), "%s", drives[d].serial);
		snprintf(x.id.kind, sizeof(x.id.kind), "%s",
			 drives[d].members ? "volume" : "block");
		x.id.size_bytes = 1ULL << 40;
		x.members = drives[d].members;
		/* the campaign's name for one drive, and the agents' labels */
		if (d == 2)
			snprintf(x.alias, sizeof(x.alias), "ACME #2");
		snprintf(x.labels, sizeof(x.labels), "rack=r%d,model=%s", d < 2 ? 12 : 13,
			 d == 4 ? "V" : "B");
		x.stripe_bytes = drives[d].members ? 131072 : 0;
		assert_int_equal(rb_results_drive(r, &x), 0);
	}
	for (size_t p = 0; p < NP; p++) {
		struct rb_row_point x;

		memset(&x, 0, sizeof(x));
		x.point = (uint32_t)p;
		snprintf(x.phase, sizeof(x.phase), "%s", points[p].phase);
		snprintf(x.name, sizeof(x.name), "%s", points[p].name);
		snprintf(x.rw, sizeof(x.rw), "%s", points[p].rw);
		x.bs_bytes = points[p].bs;
		x.iodepth = points[p].iodepth;
		x.numjobs = 1;
		x.rate_iops = points[p].rate;
		x.round = points[p].round;
		x.track = points[p].round > 0;
		x.curve_pct = points[p].curve;
		/* the fill ends by bytes moved, one pass */
		snprintf(x.settings, sizeof(x.settings), "runtime=10s interval=1s io_size=0%s",
			 p == 4 ? " passes=1" : " passes=0");
		assert_int_equal(rb_results_point(r, &x), 0);
	}
	for (size_t p = 0; p < NP; p++)
		for (size_t d = 0; d < ND; d++) {
			if (p == 1 && d == 1)
				continue; /* no result: a cell of status none */
			if (p == 0 && d == 0) {
				/* attempt 1 is the latest, though its row comes first */
				add_result(fx, r, p, d, 1, "ok", iops_of(p, d));
				add_result(fx, r, p, d, 0, "lost", 1.0);
				continue;
			}
			add_result(fx, r, p, d, 0, "ok", iops_of(p, d));
		}
	/* point 0's reads: each M1 drive's latency in one bucket; attempt 0 of drive 0 far
	 * slower (not the latest attempt: not merged) */
	for (size_t d = 0; d < 4; d++)
		add_hist(r, 0, d, d == 0 ? 1 : 0, 0, lat_of(d), 100);
	add_hist(r, 0, 0, 0, 0, 5000000, 1000);
	/* rows the reader skips: a direction and a bucket out of range, an unknown drive */
	add_hist(r, 0, 1, 0, 2, 1000, 5);
	add_bucket(r, 0, 1, 0, 0, RB_HIST_BUCKETS, 7);
	add_bucket(r, 0, 99, 0, 0, 10, 7);
	/* the fill's samples: drive 0 writes 100 MB a second, in two directions' rows */
	for (uint32_t k = 0; k < 4; k++) {
		struct rb_row_sample s = { .drive = 0,
					   .point = 4,
					   .interval = k,
					   .direction = 1,
					   .t_ns = 500 * SEC + (int64_t)(k + 1) * SEC,
					   .ios = 400,
					   .bytes = 50000000 };

		assert_int_equal(rb_results_sample(r, &s), 0);
		s.direction = 0;
		assert_int_equal(rb_results_sample(r, &s), 0);
	}
	/* health readings during point 0: drive 0 runs hot (75 C), the others at 40 C; the
	 * volume (drive 4) has no SMART log of its own */
	for (uint32_t d = 0; d < ND - 1; d++) {
		struct rb_row_health h = { .drive = d,
					   .when = 1,
					   .t_ns = 150 * SEC,
					   .h.nvme = 1,
					   .h.temperature_c = d == 0 ? 75.0 : 40.0,
					   .h.available_spare_pct = 100,
					   .h.percentage_used = 3 };

		assert_int_equal(rb_results_health(r, &h), 0);
	}
	/* steady state: drive 0 steady at round 2, drive 1 not; a rolling one at point 0 */
	{
		struct rb_row_steady s = { .drive = 0,
					   .point = 6,
					   .rounds = 2,
					   .window = 2,
					   .steady = 1,
					   .steady_round = 2,
					   .avg = 7000,
					   .min = 6000,
					   .max = 7005,
					   .slope = 1.5 };

		snprintf(s.phase, sizeof(s.phase), "ss");
		snprintf(s.metric, sizeof(s.metric), "iops");
		assert_int_equal(rb_results_steady(r, &s), 0);
		s.drive = 1;
		s.steady = 0;
		s.steady_round = 0;
		assert_int_equal(rb_results_steady(r, &s), 0);
		s.drive = 2;
		s.point = 0;
		s.rolling = 1;
		s.steady = 1;
		s.steady_round = 9;
		s.window = 5;
		snprintf(s.phase, sizeof(s.phase), "qd");
		assert_int_equal(rb_results_steady(r, &s), 0);
	}
	assert_int_equal(rb_results_close(r, "complete", 900 * SEC), 0);
}

static int setup(void **st)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	temp_dir(fx->dir, sizeof(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/a.h5", fx->dir);
	snprintf(fx->path2, sizeof(fx->path2), "%s/b.h5", fx->dir);
	write_file(fx, fx->path, "0123456789abcdef");
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

/* The latest attempt's row of (point, drive), as the report must pick it. */
static const struct rb_row_result *latest(const struct fixture *fx, size_t p, size_t d)
{
	const struct rb_row_result *best = NULL;

	for (size_t i = 0; i < fx->nr; i++)
		if (fx->rs[i].point == p && fx->rs[i].drive == d &&
		    (!best || fx->rs[i].attempt >= best->attempt))
			best = &fx->rs[i];
	return best;
}

static double cell_iops(const struct fixture *fx, size_t p, size_t d)
{
	const struct rb_row_result *x = latest(fx, p, d);

	return x ? x->read.iops + x->write.iops + x->trim.iops : 0;
}

/* Splits a CSV line into fields (quotes dropped; no field here holds a comma). */
static size_t csv_fields(char *line, char **f, size_t max)
{
	size_t n = 0;

	for (char *p = line; n < max;) {
		char *c = strchr(p, ',');

		if (c)
			*c = '\0';
		if (*p == '"') {
			p++;
			if (*p && p[strlen(p) - 1] == '"')
				p[strlen(p) - 1] = '\0';
		}
		f[n++] = p;
		if (!c)
			break;
		p = c + 1;
	}
	return n;
}

/* The CSV rows: one a cell, IOPS and MB/s those of the latest attempt's row. */
static void test_csv_figures_are_the_rows(void **st)
{
	struct fixture *fx = *st;
	struct out o;
	char *save = NULL, *line;
	size_t rows = 0;

	cap_run(&o, rb_report_cmd, "report", fx->path, "--format", "csv");
	assert_int_equal(o.rc, RB_EXIT_OK);
	line = strtok_r(o.out, "\n", &save);
	assert_non_null(line);
	assert_string_equal(line,
			    "file,point,drive,model,serial,status,iops,mb_s,read_mean_us,"
			    "read_p99_us,write_mean_us,write_p99_us,vs_baseline_pct,outlier,alias");
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *f[16], label[128];
		size_t p, d;

		assert_int_equal(csv_fields(line, f, 16), 15);
		assert_string_equal(f[14], strcmp(f[2], "a2:/dev/nvme0n1") ? "" : "ACME #2");
		for (p = 0; p < NP && strcmp(points[p].name, f[1]); p++)
			;
		for (d = 0; d < ND; d++) {
			snprintf(label, sizeof(label), "%s:%s", drives[d].agent, drives[d].path);
			if (!strcmp(label, f[2]))
				break;
		}
		assert_true(p < NP && d < ND);
		assert_string_equal(f[0], "#1");
		assert_string_equal(f[3], drives[d].model);
		const struct rb_row_result *x = latest(fx, p, d);

		if (!x) {
			assert_string_equal(f[5], "none");
			assert_true(strtod(f[6], NULL) == 0);
		} else {
			double mb = (x->read.bw_bytes_per_s + x->write.bw_bytes_per_s +
				     x->trim.bw_bytes_per_s) /
				    1e6;

			assert_string_equal(f[5], x->status);
			assert_true(fabs(strtod(f[6], NULL) - cell_iops(fx, p, d)) < 0.06);
			assert_true(fabs(strtod(f[7], NULL) - mb) < 0.006);
			assert_true(fabs(strtod(f[9], NULL) - (double)x->read.lat_p99_ns / 1e3) <
				    0.006);
			/* a direction that moved no IO: nothing, not 0.00 */
			assert_true(!f[8][0] == !x->read.ios && !f[9][0] == !x->read.ios);
			assert_true(!f[10][0] == !x->write.ios && !f[11][0] == !x->write.ios);
		}
		/* the slow drive at the first point, and only it */
		assert_string_equal(f[13], p == 0 && d == 3 ? "yes" : "");
		assert_string_equal(f[12], "");
		rows++;
	}
	assert_int_equal(rows, NP * ND);
	out_free(&o);
}

/* The table and Markdown: the latest attempt (1, ok) of a drive whose attempt 0 was
 * lost, the slow drive flagged, and the model's p99 from the merged histograms. */
static void test_models_from_merged_histograms(void **st)
{
	struct fixture *fx = *st;
	struct rb_hist *h = calloc(1, sizeof(*h));
	struct out o;
	char line[1024], want[64];
	unsigned nd, outliers;
	double mn, med, mx, p50, p99;

	assert_non_null(h);
	for (size_t d = 0; d < 4; d++)
		for (int k = 0; k < 100; k++)
			rb_hist_record(h, lat_of(d));
	cap_run(&o, rb_report_cmd, "report", fx->path, "--format", "markdown");
	assert_int_equal(o.rc, RB_EXIT_OK);
	line_with(o.out, "| randread iodepth=1 | M1 |", line, sizeof(line));
	/* no drive of the model wrote at the point: a dash, not 0.0, for its writes */
	assert_int_equal(sscanf(line,
				"| randread iodepth=1 | M1 | %u | %lf | %lf | %lf | %lf | %lf "
				"| - | - | %u |",
				&nd, &mn, &med, &mx, &p50, &p99, &outliers),
			 7);
	assert_int_equal(nd, 4);
	assert_true(fabs(mn - cell_iops(fx, 0, 3)) < 0.5);
	assert_true(fabs(mx - cell_iops(fx, 0, 2)) < 0.5);
	assert_true(fabs(med - (cell_iops(fx, 0, 0) + cell_iops(fx, 0, 1)) / 2) < 0.5);
	/* drive 0's lost attempt (5 ms) would move p99 if it were merged */
	assert_true(fabs(p99 - (double)rb_hist_percentile(h, 99) / 1e3) < 0.06);
	assert_true(fabs(p50 - (double)rb_hist_percentile(h, 50) / 1e3) < 0.06);
	assert_int_equal(outliers, 1);
	/* the cell of drive 0 at point 0 is attempt 1's: ok, not lost */
	line_with(o.out, "| randread iodepth=1 | a1:/dev/nvme0n1 |", line, sizeof(line));
	assert_non_null(strstr(line, "| ok |"));
	snprintf(want, sizeof(want), "| %.0f |", cell_iops(fx, 0, 0));
	assert_non_null(strstr(line, want));
	/* no writes: dashes; no baseline asked for: no column of a difference from one */
	assert_true(strlen(line) > 10 && !strcmp(line + strlen(line) - 10, " | - | - |"));
	assert_null(strstr(o.out, "vs baseline"));
	/* the volume is its own model, by width and unit */
	assert_non_null(
		strstr(o.out, "| randread iodepth=1 | 2 x M2 (volume, 128 KiB unit) | 1 |"));
	/* the outlier named, against its model's median */
	line_with(o.out, "- outlier: a2:/dev/nvme1n1 (M1) at randread iodepth=1", line,
		  sizeof(line));
	snprintf(want, sizeof(want), "%.0f IOPS, model median %.0f", cell_iops(fx, 0, 3), med);
	assert_non_null(strstr(line, want));
	assert_int_equal(count_of(o.out, "outlier:"), 1);
	/* steady state: a phase steady at round 2, one not, a rolling point */
	assert_non_null(
		strstr(o.out, "- a1:/dev/nvme0n1 phase ss: steady at round 2 (window 1-2)"));
	assert_non_null(strstr(o.out, "- a1:/dev/nvme1n1 phase ss: NOT steady after 2 round(s)"));
	assert_non_null(strstr(o.out, "- a2:/dev/nvme0n1 point randread iodepth=1: steady at "
				      "interval 9 (window 5-9)"));
	out_free(&o);

	/* the terminal table: the same cell, its status and IOPS on its line */
	cap_run(&o, rb_report_cmd, "report", fx->path);
	assert_int_equal(o.rc, RB_EXIT_OK);
	/* the drives are of racks r12 and r13: the fleet summary (test_report_fleet.c) comes
	 * first, then the rows */
	assert_non_null(strstr(o.out, "fleet: 2 rack(s)"));
	assert_non_null(strstr(o.out, "rd mean"));
	line_with(strstr(o.out, "rd mean"), "randread iodepth=8", line, sizeof(line));
	assert_non_null(strstr(line, "a1:/dev/nvme0n1"));
	assert_non_null(strstr(line, "         -         -"));
	snprintf(want, sizeof(want), " %.0f ", cell_iops(fx, 1, 0));
	assert_non_null(strstr(line, want));
	assert_int_equal(count_of(o.out, " none "), 1);
	assert_int_equal(count_of(o.out, " outlier\n"), 1);
	assert_null(strstr(o.out, "vs base"));
	assert_non_null(strstr(o.out, "per model (histograms added across drives"));
	out_free(&o);
	free(h);
}

/* --baseline: every cell's IOPS against the baseline drive's at the same point. */
static void test_baseline_difference(void **st)
{
	struct fixture *fx = *st;
	struct out o;
	char *save = NULL, *line;
	size_t with = 0;

	cap_run(&o, rb_report_cmd, "report", fx->path, "--format", "csv", "--baseline", "S1");
	assert_int_equal(o.rc, RB_EXIT_OK);
	strtok_r(o.out, "\n", &save);
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *f[16];
		size_t p, d;

		csv_fields(line, f, 16);
		for (p = 0; p < NP && strcmp(points[p].name, f[1]); p++)
			;
		for (d = 0; d < ND && strcmp(drives[d].serial, f[4]); d++)
			;
		assert_true(p < NP && d < ND);
		if (p == 1) {
			/* the baseline has no result at point 1: no difference there */
			assert_string_equal(f[12], "");
			continue;
		}
		double base = cell_iops(fx, p, 1),
		       want = 100.0 * (cell_iops(fx, p, d) - base) / base;

		assert_true(fabs(strtod(f[12], NULL) - want) < 0.051);
		with++;
	}
	assert_int_equal(with, (NP - 1) * ND);
	out_free(&o);

	/* by a part of agent:path; one matching nothing is refused */
	cap_run(&o, rb_report_cmd, "report", fx->path, "--baseline", "a2:/dev/nvme0n1");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out, "  vs base\n"));
	out_free(&o);
	cap_run(&o, rb_report_cmd, "report", fx->path, "--baseline", "S1", "--format", "markdown");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out, " | write p99 us | vs baseline % |\n"));
	out_free(&o);
	assert_run(RB_EXIT_USAGE, err, "matches --baseline 'nosuch'", rb_report_cmd, "report",
		   fx->path, "--baseline", "nosuch");
}

/*
 * --spec: each matching cell judged against a claim; one below --require is exit 5; a
 * drive of the claim's model that it cannot judge is NOT JUDGED with why, and with none
 * below, that is exit 4 (the qualification is incomplete).
 */
static void test_spec_verdicts(void **st)
{
	struct fixture *fx = *st;
	char spec[600], line[1024];
	struct out o;

	snprintf(spec, sizeof(spec), "%s/spec.yaml", fx->dir);
	write_text(spec,
		   "model: M1\n"
		   "claims:\n"
		   "  - {rw: randread, bs: 4k, iodepth: 1, iops: 1000}\n"
		   "  - {name: qd8 latency, rw: randread, iodepth: 8, numjobs: 1, p99_us: 50}\n"
		   "  - {rw: randread, mbps: 1, iodepth: 4}\n"
		   "  - {rw: trim, iops: 5}\n");
	cap_run(&o, rb_report_cmd, "report", fx->path, "--spec", spec);
	/* the slow drive makes 10% of 1000 IOPS */
	assert_int_equal(o.rc, RB_EXIT_BELOW_SPEC);
	assert_int_equal(count_of(o.out, "\nFAIL "), 1);
	line_with(o.out, "FAIL ", line, sizeof(line));
	assert_non_null(strstr(line, "a2:/dev/nvme1n1"));
	assert_non_null(strstr(line, "measured 100.0 (10.0%)"));
	/* iodepth 1 (4 M1 drives), iodepth 8 (3 with results), the unthrottled curve point
	 * (4: a rate-limited one measures the limit, not the drive) */
	assert_int_equal(count_of(o.out, "\nPASS "), 3 + 3 + 4);
	line_with(o.out, "qd8 latency", line, sizeof(line));
	assert_non_null(strstr(line, "claimed <= 50.0 p99_us, measured 40.0 (125.0%)"));
	/* no trim ran on the four M1 drives; one had no result at QD8: named, not left out */
	assert_int_equal(count_of(o.out, "\nNOT JUDGED trim iops "), 4);
	line_with(o.out, "NOT JUDGED trim iops", line, sizeof(line));
	assert_non_null(strstr(line, "no point of this workload ran on it"));
	line_with(o.out, "NOT JUDGED qd8 latency", line, sizeof(line));
	assert_non_null(strstr(line, "its points of this workload did not complete"));
	assert_non_null(strstr(o.out,
			       "1 of 16 checks below 90%; 5 not judged: the qualification is "
			       "incomplete"));
	out_free(&o);
	/* none below: the drives not judged make it incomplete, exit 4 */
	assert_run(RB_EXIT_PARTIAL, out, "0 of 16 checks below 5%", rb_report_cmd, "report",
		   fx->path, "--spec", spec, "--require", "5%");
}

/*
 * A claim is a datasheet's figure: judged once per drive at its best matching point, never
 * at a fill (unless it names the phase) nor a steady-state round before the window.
 */
static void test_spec_datasheet_point(void **st)
{
	struct fixture *fx = *st;
	char spec[600], line[1024];
	struct out o;

	snprintf(spec, sizeof(spec), "%s/spec.yaml", fx->dir);
	write_text(spec, "claims:\n"
			 "  - {name: any depth, rw: randread, bs: 4k, iops: 2000}\n"
			 "  - {name: seq write, rw: write, bs: 128k, mbps: 1}\n"
			 "  - {name: steady write, rw: randwrite, iops: 6000}\n"
			 "  - {name: steady read, rw: randread, steady: true, iops: 1}\n");
	cap_run(&o, rb_report_cmd, "report", fx->path, "--spec", spec);
	/* every drive judged by the first; the others judge some, and name the rest */
	assert_int_equal(o.rc, RB_EXIT_PARTIAL);
	/* no depth named: each drive at its best point -- M1's at the curve's unthrottled run
	 * (3000 + 10 d IOPS), never the rate-limited one; the volume at QD8 */
	assert_int_equal(count_of(o.out, "any depth"), ND);
	line_with(o.out, "PASS       any depth", line, sizeof(line));
	assert_non_null(strstr(line, "a1:/dev/nvme0n1"));
	assert_non_null(strstr(line, "randread curve=max"));
	assert_non_null(strstr(line, "measured 3000.0 (150.0%)"));
	/* the fill is size-based: no datasheet's sequential write figure, and each drive
	 * says so and how to judge it */
	assert_int_equal(count_of(o.out, "NOT JUDGED seq write"), ND);
	line_with(o.out, "NOT JUDGED seq write", line, sizeof(line));
	assert_non_null(strstr(line, "size-based (phase 'precondition'): a claim naming that "
				     "phase judges them"));
	/* steady state: only drive 0 got there, at round 2 (window 1-2): judged there, once;
	 * the other drives never reached it, named */
	assert_int_equal(count_of(o.out, "PASS       steady write"), 1);
	line_with(o.out, "PASS       steady write", line, sizeof(line));
	assert_non_null(strstr(line, "a1:/dev/nvme0n1"));
	assert_non_null(strstr(line, "randwrite round=2"));
	assert_non_null(strstr(line, "measured 7000.0"));
	assert_int_equal(count_of(o.out, "NOT JUDGED steady write"), ND - 1);
	line_with(o.out, "NOT JUDGED steady write", line, sizeof(line));
	assert_non_null(strstr(line, "it never reached steady state in phase 'ss'"));
	/* steady: true on a workload no steady-state phase ran */
	assert_int_equal(count_of(o.out, "NOT JUDGED steady read"), ND);
	line_with(o.out, "NOT JUDGED steady read", line, sizeof(line));
	assert_non_null(strstr(line, "no steady-state phase of this workload ran on it"));
	assert_non_null(strstr(o.out, "0 of 20 checks below 90%; 14 not judged"));
	out_free(&o);

	/* naming the fill's phase judges the fill */
	write_text(spec, "claims:\n"
			 "  - {name: seq write, rw: write, bs: 128k, phase: precondition, "
			 "iops: 1}\n");
	assert_run(RB_EXIT_OK, out, "0 of 5 checks below 90%", rb_report_cmd, "report", fx->path,
		   "--spec", spec);
}

/*
 * --wide: the head-to-head table, by model here (M1 and the volume): a model's IOPS the
 * median of its drives', its mean latency over all their IOs, its p99 from their
 * histograms added, and each column against the baseline both ways.
 */
static void test_wide_table(void **st)
{
	struct fixture *fx = *st;
	char *save = NULL, *line, *f[16], want[200];
	double v[4], m1, mean_ns = 0, ios = 0;
	struct rb_hist h;
	bool iops = false, mean = false, p99 = false;
	struct out o;

	cap_run(&o, rb_report_cmd, "report", fx->path, "--wide", "--format", "csv");
	assert_int_equal(o.rc, RB_EXIT_OK);
	line = strtok_r(o.out, "\n", &save);
	assert_string_equal(line,
			    "point,workload,metric,\"M1\",\"2 x M2 (volume, 128 KiB unit)\","
			    "\"2 x M2 (volume, 128 KiB unit) vs M1 %\",\"M1 vs 2 x M2 (volume, "
			    "128 KiB unit) %\"");
	for (size_t d = 0; d < 4; d++) {
		const struct rb_row_result *x = latest(fx, 0, d);

		v[d] = cell_iops(fx, 0, d);
		ios += (double)x->read.ios;
		mean_ns += x->read.lat_mean_ns * (double)x->read.ios;
	}
	memset(&h, 0, sizeof(h));
	for (size_t d = 0; d < 4; d++)
		for (int k = 0; k < 100; k++)
			rb_hist_record(&h, lat_of(d));
	m1 = rb_median(v, 4);
	while ((line = strtok_r(NULL, "\n", &save))) {
		csv_fields(line, f, 16);
		if (strcmp(f[0], "randread iodepth=1"))
			continue;
		assert_string_equal(f[1], "4K random read QD1");
		if (!strcmp(f[2], "IOPS")) {
			iops = true;
			assert_true(fabs(strtod(f[3], NULL) - m1) < 0.01);
			assert_true(fabs(strtod(f[4], NULL) - cell_iops(fx, 0, 4)) < 0.01);
			assert_true(fabs(strtod(f[5], NULL) -
					 (cell_iops(fx, 0, 4) / m1 - 1) * 100) < 0.01);
			assert_true(fabs(strtod(f[6], NULL) -
					 (m1 / cell_iops(fx, 0, 4) - 1) * 100) < 0.01);
		} else if (!strcmp(f[2], "mean us")) {
			mean = true;
			assert_true(fabs(strtod(f[3], NULL) - mean_ns / ios / 1e3) < 0.01);
		} else if (!strcmp(f[2], "p99 us")) {
			p99 = true;
			assert_true(fabs(strtod(f[3], NULL) -
					 (double)rb_hist_percentile(&h, 99) / 1e3) < 0.001);
		}
	}
	assert_true(iops && mean && p99);
	out_free(&o);

	/* Markdown: the difference in words both ways */
	cap_run(&o, rb_report_cmd, "report", fx->path, "--wide", "--format", "markdown");
	snprintf(want, sizeof(want), "%.0f (%.0f%% faster; base %.0f%% slower)",
		 cell_iops(fx, 0, 4), (cell_iops(fx, 0, 4) / m1 - 1) * 100,
		 (1 - m1 / cell_iops(fx, 0, 4)) * 100);
	assert_non_null(strstr(o.out, want));
	out_free(&o);
	/* by drive, against a drive's serial: a column per drive */
	cap_run(&o, rb_report_cmd, "report", fx->path, "--wide", "--by", "drive", "--baseline",
		"S1", "--format", "csv");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out, "\"a1:/dev/nvme0n1 vs a1:/dev/nvme1n1 %\""));
	out_free(&o);
	assert_run(RB_EXIT_USAGE, err,
		   "'--by' must be drive, model, firmware, rack, file or label=KEY, not 'x'",
		   rb_report_cmd, "report", fx->path, "--wide", "--by", "x");
	/* by an agent label: its values as columns */
	cap_run(&o, rb_report_cmd, "report", fx->path, "--wide", "--by", "label=rack", "--format",
		"csv");
	assert_int_equal(o.rc, RB_EXIT_OK);
	snprintf(want, sizeof(want), "point,workload,metric,\"rack=r12\",\"rack=r13\",");
	assert_true(!strncmp(o.out, want, strlen(want)));
	out_free(&o);
	/* an alias names its drive in every table; its agent:path still finds it */
	cap_run(&o, rb_report_cmd, "report", fx->path, "--baseline", "a2:/dev/nvme0n1");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_int_equal(count_of(o.out, " ACME #2 "), NP);
	out_free(&o);
	/* by drive against an aliased drive named by its agent:path: its alias's column */
	cap_run(&o, rb_report_cmd, "report", fx->path, "--wide", "--by", "drive", "--baseline",
		"a2:/dev/nvme0n1", "--format", "csv");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out, "\"a1:/dev/nvme0n1 vs ACME #2 %\""));
	out_free(&o);
	/* a model names a baseline too; nothing at all is refused */
	assert_run(RB_EXIT_OK, out, "baseline: 2 x M2", rb_report_cmd, "report", fx->path, "--wide",
		   "--baseline", "M2");
}

/* A spec's health limits: each drive of its model over its whole run, exit 5 beyond. */
static void test_spec_health(void **st)
{
	struct fixture *fx = *st;
	char spec[600], line[1024];
	struct out o;

	snprintf(spec, sizeof(spec), "%s/health.yaml", fx->dir);
	write_text(spec, "model: M1\nhealth: {max_temp_c: 70, critical_warning: true}\n");
	cap_run(&o, rb_report_cmd, "report", fx->path, "--spec", spec);
	assert_int_equal(o.rc, RB_EXIT_BELOW_SPEC);
	/* the four M1 drives judged, the volume (M2) not */
	assert_int_equal(
		count_of(o.out, "PASS       health ") + count_of(o.out, "FAIL       health "), 4);
	line_with(o.out, "FAIL       health a1:/dev/nvme0n1", line, sizeof(line));
	assert_non_null(strstr(line, "75"));
	assert_non_null(strstr(o.out, "PASS       health a2:/dev/nvme1n1"));
	assert_non_null(strstr(o.out, "1 of 4 drives beyond their health limits"));
	out_free(&o);
	/* the volume has no SMART log: its health is not judged (as its verdict says), not
	 * "within every limit"; with nothing beyond a limit that is exit 4 */
	write_text(spec, "health: {max_temp_c: 80}\n");
	cap_run(&o, rb_report_cmd, "report", fx->path, "--spec", spec);
	assert_int_equal(o.rc, RB_EXIT_PARTIAL);
	line_with(o.out, "NOT JUDGED health a3:vol<&>", line, sizeof(line));
	assert_non_null(strstr(line, ": health not judged (no SMART log)"));
	assert_non_null(strstr(o.out, "0 of 5 drives beyond their health limits"));
	assert_non_null(strstr(o.out, "1 drive(s) whose health was not judged (no SMART log)"));
	out_free(&o);
	write_text(spec, "health: {max_temp: 80, critical_warning: maybe}\n");
	cap_run(&o, rb_report_cmd, "report", fx->path, "--spec", spec);
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_non_null(strstr(o.err, "unknown health limit 'max_temp'"));
	assert_non_null(strstr(o.err, "'critical_warning' must be true or false, not 'maybe'"));
	out_free(&o);
}

/* A bad spec file: every problem with FILE:LINE, exit 2, nothing judged. */
static void test_spec_errors(void **st)
{
	struct fixture *fx = *st;
	char spec[600], want[700];
	struct out o;

	snprintf(spec, sizeof(spec), "%s/bad.yaml", fx->dir);
	write_text(spec, "model: M1\n"
			 "claims:\n"
			 "  - {rw: randread, iops: 1, mbps: 2}\n"
			 "  - {rw: read, bs: 3x, iops: 1}\n"
			 "  - {rw: read, iodepth: 0, iops: 1}\n"
			 "  - {rw: read, speed: 1}\n"
			 "  - {iops: -4}\n"
			 "  - just a claim\n"
			 "  - {rw: [a], iops: 1}\n"
			 "  - {rw: randrw, iops: 1, steady: maybe}\n"
			 "  - {rw: read, rwmixread: 101, iops: 1}\n"
			 "vendor: x\n");
	cap_run(&o, rb_report_cmd, "report", fx->path, "--spec", spec);
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_string_equal(o.out, "");
	snprintf(want, sizeof(want), "%s:3:", spec);
	assert_non_null(strstr(o.err, want));
	assert_non_null(strstr(o.err, "a claim has one figure; 'mbps' is a second"));
	assert_non_null(strstr(o.err, "'bs' must be a size like 4k or 128k, not '3x'"));
	assert_non_null(strstr(o.err, "'iodepth' must be a count from 1, not '0'"));
	assert_non_null(strstr(o.err, "unknown key 'speed' in a claim"));
	assert_non_null(strstr(o.err, "a claim needs one figure"));
	assert_non_null(strstr(o.err, "'iops' must be a positive number, not '-4'"));
	assert_non_null(strstr(o.err, "a claim needs 'rw'"));
	assert_non_null(strstr(o.err, "a claim must be a mapping"));
	assert_non_null(strstr(o.err, "'rw' must be a scalar"));
	assert_non_null(strstr(o.err, "unknown key 'vendor' in a spec"));
	assert_non_null(strstr(o.err, "'steady' must be true or false, not 'maybe'"));
	assert_non_null(strstr(o.err, "a claim on a mix ('randrw') needs 'rwmixread'"));
	assert_non_null(strstr(o.err, "'rwmixread' must be a percentage 0-100, not '101'"));
	snprintf(want, sizeof(want), "%s:7:", spec);
	assert_non_null(strstr(o.err, want));
	out_free(&o);

	/* no claims; claims not a list; a file that is not there; not a mapping */
	write_text(spec, "model: M1\n");
	assert_run(RB_EXIT_USAGE, err, "a spec file needs 'claims', a list", rb_report_cmd,
		   "report", fx->path, "--spec", spec);
	write_text(spec, "model: [M1]\nclaims: 3\n");
	cap_run(&o, rb_report_cmd, "report", fx->path, "--spec", spec);
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_non_null(strstr(o.err, "'model' must be a model name"));
	assert_non_null(strstr(o.err, "'claims' must be a list of claims"));
	out_free(&o);
	write_text(spec, "- 1\n");
	assert_run(RB_EXIT_USAGE, err, "a spec file is a mapping", rb_report_cmd, "report",
		   fx->path, "--spec", spec);
	assert_run(RB_EXIT_USAGE, err, "cannot read spec file '/nonexistent/spec.yaml'",
		   rb_report_cmd, "report", fx->path, "--spec", "/nonexistent/spec.yaml");
}

/* Two files side by side: numbered, and told apart when their plans differ. */
static void test_two_files_compare(void **st)
{
	struct fixture *fx = *st;
	struct fixture other;
	struct out o;
	char want[700], line[1024];

	write_file(&other, fx->path2, "fedcba9876543210");
	cap_run(&o, rb_report_cmd, "report", fx->path, fx->path2, "--baseline",
		"#2 a1:/dev/nvme0n1");
	assert_int_equal(o.rc, RB_EXIT_OK);
	snprintf(want, sizeof(want),
		 "#2 '%s' ran another methodology (fedcba9876543210) than #1 "
		 "(0123456789abcdef)",
		 fx->path2);
	assert_non_null(strstr(o.err, want));
	snprintf(want, sizeof(want), "#1 %s (methodology 0123456789abcdef)", fx->path);
	assert_non_null(strstr(o.out, want));
	/* the same drive in file 1 against itself in file 2: the same figures, +0.0 */
	line_with(o.out, "#1  randread iodepth=8", line, sizeof(line));
	assert_non_null(strstr(line, "+0.0"));
	/* the models merge the drives of both files: twice as many */
	assert_int_equal(count_of(o.out, "outlier:"), 2);
	out_free(&o);
}

/* The HTML page: its charts and tables, names escaped, written via a temporary file. */
static void test_html_page(void **st)
{
	struct fixture *fx = *st;
	char html[600], want[128];
	struct out o;
	char *page;

	snprintf(html, sizeof(html), "%s/r.html", fx->dir);
	assert_int_equal(rb_report_html(fx->path, html), RB_EXIT_OK);
	page = read_text(html);
	assert_non_null(page);
	assert_non_null(strstr(page, "<title>rackbench: fix&lt;1&gt;</title>"));
	assert_int_equal(count_of(page, "data-chart=\"qd-throughput\""), 1);
	assert_int_equal(count_of(page, "data-chart=\"qd-latency\""), 1);
	assert_int_equal(count_of(page, "data-chart=\"qd-p99\""), 1);
	assert_int_equal(count_of(page, "data-chart=\"curve\""), 1);
	assert_int_equal(count_of(page, "data-chart=\"timeseries\""), 1);
	assert_int_equal(count_of(page, "data-chart=\"steady\""), 1);
	assert_int_equal(count_of(page, "data-chart=\"bars\""), NP);
	/* a series per drive on the sweep: the one without a result at iodepth 8 too */
	assert_non_null(strstr(page, "data-series=\"a3:vol&lt;&amp;&gt;\""));
	assert_null(strstr(page, "vol<&>"));
	/* the fill: 100 MB per second of each direction's rows added */
	assert_non_null(strstr(page, "seconds 4, MB/s 100</title>"));
	/* the summary first, then the contents: a link per section */
	assert_true(strstr(page, "data-section=\"summary\"") < strstr(page, "<nav class=\"toc\""));
	assert_non_null(strstr(page, "Outliers: 1: a2:/dev/nvme1n1 at randread iodepth=1."));
	assert_int_equal(count_of(page, "<li><a href=\"#s"), count_of(page, "<h2 id=\"s"));
	assert_non_null(strstr(page, "<a href=\"#s1\">"));
	/* the head-to-head table: by drive (one model, one file besides the volume's) */
	assert_non_null(strstr(page, "data-section=\"head-to-head\""));
	/* the curve's peak and its unthrottled run apart: drive 0's 3000 IOPS there */
	assert_non_null(strstr(page, "<td class=\"n unthrottled\">3000</td>"));
	assert_non_null(strstr(page, "class=\"peak\""));
	/* one colour per drive on every chart it is on */
	{
		const char *k = "data-series=\"a1:/dev/nvme0n1\" data-colour=\"";
		const char *first = strstr(page, k);
		size_t n = 0;

		assert_non_null(first);
		for (const char *q = first; (q = strstr(q, k)); q += strlen(k), n++)
			assert_memory_equal(q + strlen(k), first + strlen(k), 7);
		assert_true(n >= 5);
	}
	/* the outlier in the model list, its bar marked by a shape, not a colour */
	assert_int_equal(count_of(page, "data-outlier=\"1\""), 1);
	assert_int_equal(count_of(page, "class=\"outlier-mark\""), 1);
	snprintf(want, sizeof(want), "a2:/dev/nvme1n1 at randread iodepth=1: %.0f IOPS",
		 cell_iops(fx, 0, 3));
	assert_non_null(strstr(page, want));
	assert_int_equal(count_of(page, "<li class=\"outlier\""), 1);
	/* the model's writes at a point of reads: dashes, not 0.0 */
	assert_non_null(strstr(page, "<td class=\"n\">-</td><td class=\"n\">-</td><td "
				     "class=\"n bad\">1</td></tr>"));
	/* the drives' table: the purge before the run, the hottest reading, the warning */
	assert_non_null(strstr(page, "<td>format, 2023-11-14 22:13 UTC</td>"));
	assert_non_null(strstr(page, "<td>1.00 GiB written since, 2 passes</td>"));
	assert_non_null(strstr(page, "47 &deg;C"));
	assert_non_null(strstr(page, ">0x4</td>"));
	assert_non_null(strstr(page, "<td class=\"pass\">steady at round 2</td>"));
	assert_null(strstr(page, "Against spec"));
	assert_null(strstr(page, "<th>vs baseline</th>")); /* none asked for */
	free(page);
	assert_int_equal(access(html, F_OK), 0);

	/* through the command, with a spec: the verdicts' table too */
	snprintf(want, sizeof(want), "%s/spec.yaml", fx->dir);
	write_text(want, "claims:\n  - {rw: randread, iodepth: 1, iops: 1}\n");
	cap_run(&o, rb_report_cmd, "report", fx->path, "--html", html, "--spec", want, "--baseline",
		"S0");
	assert_int_equal(o.rc, RB_EXIT_OK);
	page = read_text(html);
	assert_non_null(page);
	assert_non_null(strstr(page, ">Against spec</h2>"));
	assert_int_equal(count_of(page, "<tr class=\"pass\"><td>PASS</td>"), 5);
	assert_non_null(strstr(page, "(in brackets: the difference from the baseline drive)"));
	assert_non_null(strstr(page, "<th>write p99 us</th><th>vs baseline</th>"));
	free(page);
	out_free(&o);
	/* a page that cannot be written: exit 1, nothing left behind */
	assert_run(RB_EXIT_FAILED, err, "cannot write '/nonexistent/dir/r.html'", rb_report_cmd,
		   "report", fx->path, "--html", "/nonexistent/dir/r.html");
}

/* A file with drives and no point: nothing to compare, said, no crash. */
static void test_wide_nothing(void **st)
{
	struct fixture *fx = *st;
	struct rb_results_meta m = { .campaign_name = "empty", .methodology = "" };
	char err[256], path[600], html[600], *page;
	struct rb_results *r;
	struct rb_row_drive x = { .drive = 0 };
	struct out o;

	snprintf(path, sizeof(path), "%s/empty.h5", fx->dir);
	snprintf(html, sizeof(html), "%s/empty.html", fx->dir);
	r = rb_results_create(path, &m, err, sizeof(err));
	assert_non_null(r);
	snprintf(x.agent, sizeof(x.agent), "a1");
	snprintf(x.id.path, sizeof(x.id.path), "/dev/x");
	assert_int_equal(rb_results_drive(r, &x), 0);
	assert_int_equal(rb_results_close(r, "complete", 1), 0);
	assert_run(RB_EXIT_OK, out, "no points to compare", rb_report_cmd, "report", path,
		   "--wide");
	assert_run(RB_EXIT_OK, out, "point,workload,metric\n", rb_report_cmd, "report", path,
		   "--wide", "--format", "csv");
	assert_int_equal(rb_report_html(path, html), RB_EXIT_OK);
	/* a page of several files is of each of their campaigns, and says how many runs */
	cap_run(&o, rb_report_cmd, "report", fx->path, path, fx->path, "--html", html);
	assert_int_equal(o.rc, RB_EXIT_OK);
	out_free(&o);
	page = read_text(html);
	assert_non_null(page);
	assert_non_null(strstr(page, "<title>rackbench: fix&lt;1&gt;, empty (3 runs)</title>"));
	assert_non_null(strstr(page, "<h1>rackbench report: fix&lt;1&gt;, empty (3 runs)</h1>"));
	free(page);
}

/* A checkpoint point's rows: drive d's write of checkpoint k took secs[k], its restores. */
static void add_ckpt(struct rb_results *r, uint32_t d, uint32_t k, uint8_t dir, double secs)
{
	struct rb_row_ckpt c = { .drive = d,
				 .point = 0,
				 .checkpoint = k,
				 .direction = dir,
				 .bytes = 1ULL << 30,
				 .duration_ns = (uint64_t)(secs * 1e9),
				 .gib_per_s = 1.0 / secs,
				 .writers = 4,
				 .fs_bytes = 3ULL << 30 };

	assert_int_equal(rb_results_ckpt(r, &c), 0);
}

/*
 * A checkpoint point and an exec point: the report's line per drive is the rows' first,
 * mean, last and max seconds and lowest GiB/s; the exec's line says what the command
 * printed beside the drive's figures; the page draws the checkpoint chart and the
 * applications' table.
 */
static void test_checkpoints_and_execs(void **st)
{
	struct fixture *fx = *st;
	struct rb_results_meta m = { .campaign_name = "ai", .methodology = "" };
	static const double secs[2][3] = { { 2.0, 3.0, 7.0 }, { 1.5, 1.5, 1.5 } };
	char err[256], path[600], html[600], *page;
	struct rb_results *r;
	struct out o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/ai.h5", fx->dir);
	snprintf(html, sizeof(html), "%s/ai.html", fx->dir);
	assert_non_null(r = rb_results_create(path, &m, err, sizeof(err)));
	for (uint32_t d = 0; d < 2; d++) {
		struct rb_row_drive x = { .drive = d };

		snprintf(x.agent, sizeof(x.agent), "gpu%u", d + 1);
		snprintf(x.id.path, sizeof(x.id.path), "/dev/nvme0n1");
		snprintf(x.filesystem, sizeof(x.filesystem), "xfs");
		assert_int_equal(rb_results_drive(r, &x), 0);
	}
	for (uint32_t p = 0; p < 2; p++) {
		struct rb_row_point x = { .point = p };

		snprintf(x.phase, sizeof(x.phase), p ? "oltp" : "ckpt");
		snprintf(x.name, sizeof(x.name), p ? "oltp exec=sysbench" : "ckpt");
		snprintf(x.rw, sizeof(x.rw), p ? "exec" : "checkpoint");
		assert_int_equal(rb_results_point(r, &x), 0);
		for (uint32_t d = 0; d < 2; d++) {
			struct rb_row_result y = { .drive = d, .point = p, .core.elapsed_ns = 10 * SEC };

			snprintf(y.status, sizeof(y.status), "ok");
			dir_set(&y.write, 100, 1 << 20, 5000000);
			assert_int_equal(rb_results_result(r, &y), 0);
		}
	}
	for (uint32_t d = 0; d < 2; d++) {
		for (uint32_t k = 0; k < 3; k++)
			add_ckpt(r, d, k, 1, secs[d][k]);
		add_ckpt(r, d, 2, 0, 0.5);
	}
	struct rb_row_exec e = { .drive = 0,
				 .point = 1,
				 .exit_code = 0,
				 .duration_ns = 60 * SEC,
				 .tps = 616.78,
				 .qps = 12335.66,
				 .iops = NAN,
				 .mbps = NAN,
				 .lat_avg_ms = 6.47,
				 .lat_p95_ms = 9.91,
				 .lat_p99_ms = NAN,
				 .lat_max_ms = 22.05,
				 .errors = 0 };

	snprintf(e.command, sizeof(e.command), "sysbench-mariadb");
	assert_int_equal(rb_results_exec(r, &e), 0);
	e = (struct rb_row_exec){ .drive = 1,
				  .point = 1,
				  .exit_code = -9,
				  .timed_out = 1,
				  .duration_ns = 120 * SEC,
				  .tps = NAN,
				  .qps = NAN,
				  .lat_avg_ms = NAN,
				  .lat_p95_ms = NAN };
	snprintf(e.command, sizeof(e.command), "sysbench-mariadb");
	assert_int_equal(rb_results_exec(r, &e), 0);
	assert_int_equal(rb_results_close(r, "complete", 1), 0);

	cap_run(&o, rb_report_cmd, "report", path);
	assert_int_equal(o.rc, RB_EXIT_OK);
	/* drive 1: 2, 3, 7 s (mean 4), the lowest rate 1/7 GiB/s; one restore of 0.5 s */
	assert_non_null(strstr(o.out,
			       "gpu1:/dev/nvme0n1 ckpt: 3 written: first 2.000 s, mean "
			       "4.000 s, last 7.000 s, max 7.000 s, 0.143 GiB/s; 1 restored: "
			       "mean 0.500 s, 2.000 GiB/s"));
	assert_non_null(strstr(o.out, "gpu2:/dev/nvme0n1 ckpt: 3 written: first 1.500 s, mean "
				      "1.500 s, last 1.500 s"));
	assert_non_null(strstr(o.out,
			       "sysbench-mariadb exit 0 after 60.0 s: 616.78 TPS, 12335.66 "
			       "QPS, latency avg 6.47 ms, p95 9.91 ms; the drive: 100 IOPS"));
	assert_non_null(strstr(o.out, "sysbench-mariadb killed by signal 9 (timed out) after "
				      "120.0 s: -, -, latency avg -, p95 -"));
	out_free(&o);
	assert_int_equal(rb_report_html(path, html), RB_EXIT_OK);
	assert_non_null(f = fopen(html, "re"));
	fseek(f, 0, SEEK_END); /* where the capture's reader starts from */
	page = cap_slurp(f);   /* closes it */
	assert_non_null(strstr(page, "data-chart=\"checkpoints\""));
	assert_non_null(strstr(page, "data-series=\"gpu1:/dev/nvme0n1 restore\""));
	assert_non_null(strstr(page, "<td>616.78</td><td>12335.66</td><td>6.47 ms</td>"));
	assert_int_equal(count_of(page, "data-section=\"applications\""), 1);
	/* their figures across drives: bars of TPS and of seconds per checkpoint */
	assert_non_null(strstr(page, "oltp exec=sysbench: TPS"));
	assert_non_null(strstr(page, "ckpt: seconds per checkpoint"));
	free(page);

	/* the head-to-head compares them: seconds per checkpoint (the mean of each drive's:
	 * 4 and 1.5: the second 62% faster, the first 167% slower), the command's TPS (the timed-out one has none) */
	cap_run(&o, rb_report_cmd, "report", path, "--wide", "--by", "drive", "--format",
		"markdown");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_null(strstr(o.out, "no points to compare"));
	line_with(o.out, "| ckpt |", err, sizeof(err));
	assert_non_null(strstr(err, "s/checkpoint"));
	assert_non_null(strstr(err, "| 4 |"));
	assert_non_null(strstr(err, "1.5 (62% faster; base 167% slower)"));
	line_with(o.out, "| oltp exec=sysbench |", err, sizeof(err));
	assert_non_null(strstr(err, "| TPS | 617 | - |"));
	out_free(&o);
}

/* A fleet's page: too many drives for bars or a legend, said so. */
static void test_html_many_drives(void **st)
{
	struct fixture *fx = *st;
	struct rb_results_meta m = { .campaign_name = "fleet", .methodology = "" };
	char err[256], html[600], path[600];
	struct rb_results *r;
	char *page;

	snprintf(path, sizeof(path), "%s/fleet.h5", fx->dir);
	snprintf(html, sizeof(html), "%s/fleet.html", fx->dir);
	r = rb_results_create(path, &m, err, sizeof(err));
	assert_non_null(r);
	for (uint32_t p = 0; p < 2; p++) {
		struct rb_row_point x = { .point = p,
					  .bs_bytes = 4096,
					  .iodepth = 1u << (p * 3),
					  .numjobs = 1,
					  .curve_pct = NAN };

		snprintf(x.phase, sizeof(x.phase), "qd");
		snprintf(x.name, sizeof(x.name), "read qd%u", x.iodepth);
		snprintf(x.rw, sizeof(x.rw), "read");
		assert_int_equal(rb_results_point(r, &x), 0);
	}
	for (uint32_t d = 0; d < 70; d++) {
		struct rb_row_drive x = { .drive = d };

		snprintf(x.agent, sizeof(x.agent), "host%02u", d);
		snprintf(x.id.path, sizeof(x.id.path),
			 "/dev/a-rather-long-device-name-for-the-bars-%u", d);
		assert_int_equal(rb_results_drive(r, &x), 0);
		for (uint32_t p = 0; p < 2; p++) {
			struct rb_row_result y = { .drive = d, .point = p };

			snprintf(y.status, sizeof(y.status), "ok");
			dir_set(&y.read, 1000 + d + p * 100, 4096, 1000);
			assert_int_equal(rb_results_result(r, &y), 0);
		}
	}
	assert_int_equal(rb_results_close(r, "complete", 1), 0);
	assert_int_equal(rb_report_html(path, html), RB_EXIT_OK);
	page = read_text(html);
	assert_non_null(page);
	assert_non_null(strstr(page, "70 drives: per-drive bars are left out"));
	assert_non_null(strstr(page, "70 series (one per drive)"));
	assert_non_null(strstr(page, "No preconditioning phase in these results."));
	assert_non_null(strstr(page, "(unknown model)"));
	free(page);
}

/* Drive ids that are not row numbers: not a file of ours, refused. */
static void test_ids_out_of_range(void **st)
{
	struct fixture *fx = *st;
	struct rb_results_meta m = { .campaign_name = "x" };
	char err[256], path[600];
	struct rb_results *r;

	snprintf(path, sizeof(path), "%s/ids.h5", fx->dir);
	r = rb_results_create(path, &m, err, sizeof(err));
	assert_non_null(r);
	struct rb_row_drive d = { .drive = 4000000000u };
	struct rb_row_point p = { .point = 0 };

	assert_int_equal(rb_results_drive(r, &d), 0);
	assert_int_equal(rb_results_point(r, &p), 0);
	assert_int_equal(rb_results_close(r, "complete", 1), 0);
	assert_run(RB_EXIT_FAILED, err, "drive or point ids out of range", rb_report_cmd, "report",
		   path);
}

/* fio's formats: a job per cell with a result, its IOs the row's and its bins adding up to
 * them; the logs: jobs.tsv names every job, the sampled job's lines are its samples. */
static void test_fio_formats(void **st)
{
	struct fixture *fx = *st;
	struct out o;
	char logs[700], path[800], line[1024], want[128];
	size_t njobs = 0, cells = 0, tsv = 0, nlines = 0;
	unsigned long fill = 0;
	const char *s;
	FILE *f;

	snprintf(logs, sizeof(logs), "%s/fio-logs", fx->dir);
	cap_run(&o, rb_report_cmd, "report", fx->path, "--format", "json+", "--fio-logs", logs);
	assert_int_equal(o.rc, RB_EXIT_OK);
	for (s = o.out; (s = strstr(s, "\"jobname\"")); s++)
		njobs++;
	for (size_t p = 0; p < NP; p++)
		for (size_t d = 0; d < ND; d++) {
			const struct rb_row_result *x = latest(fx, p, d);

			if (!x)
				continue;
			cells++;
			snprintf(want, sizeof(want), "\"total_ios\": %llu",
				 (unsigned long long)x->read.ios);
			assert_non_null(strstr(o.out, want));
		}
	assert_int_equal(njobs, cells);
	assert_non_null(strstr(o.out, "\"bins\": {"));
	assert_non_null(strstr(o.out, "\"iops_samples\": 4"));
	out_free(&o);
	snprintf(path, sizeof(path), "%s/jobs.tsv", logs);
	f = fopen(path, "r");
	assert_non_null(f);
	/* the job of the fill (point 4) on drive 0 */
	snprintf(want, sizeof(want), "\t%s\t%s:%s\n", points[4].name, drives[0].agent,
		 drives[0].path);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, want))
			fill = strtoul(line, NULL, 10);
		tsv++;
	}
	fclose(f);
	assert_int_equal(tsv, cells + 1);
	assert_true(fill > 0);
	/* its samples: 50,000,000 B (48,828 KiB) a second, four intervals in each direction */
	snprintf(path, sizeof(path), "%s/rackbench_bw.%lu.log", logs, fill);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		assert_non_null(strstr(line, ", 48828, "));
		nlines++;
	}
	fclose(f);
	assert_int_equal(nlines, 8);
	/* a folder it cannot make */
	snprintf(path, sizeof(path), "%s/x", fx->path);
	assert_run(RB_EXIT_FAILED, err, "cannot create", rb_report_cmd, "report", fx->path,
		   "--fio-logs", path);
}

/* Arguments: each bad one is exit 2 with what was wrong; --help is 0. */
static void test_arguments(void **st)
{
	struct fixture *fx = *st;
	struct out o;
	char junk[600];

	assert_run(RB_EXIT_OK, out, "usage: rackbench report [RESULTS.h5", rb_report_cmd, "report",
		   "--help");
	assert_run(RB_EXIT_USAGE, err, "missing RESULTS.h5", rb_report_cmd, "report");
	assert_run(RB_EXIT_USAGE, err,
		   "'--format' must be table, markdown, csv, fio-json, json+ or terse, not 'xml'",
		   rb_report_cmd, "report", fx->path, "--format", "xml");
	assert_run(RB_EXIT_USAGE, err, "--minimal is fio's terse lines", rb_report_cmd, "report",
		   fx->path, "--minimal", "--format", "csv");
	assert_run(RB_EXIT_USAGE, err, "'--require' must be a percentage", rb_report_cmd, "report",
		   fx->path, "--require", "0");
	cap_run(&o, rb_report_cmd, "report", fx->path, "--require", "90x");
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	out_free(&o);
	assert_run(RB_EXIT_USAGE, err, "unknown option '--bogus'", rb_report_cmd, "report",
		   fx->path, "--bogus");
	assert_run(RB_EXIT_USAGE, err, "unknown option '-x'", rb_report_cmd, "report", "-x",
		   fx->path);
	/* files that are not results */
	assert_run(RB_EXIT_USAGE, err, "cannot read '/nonexistent.h5': No such file or directory",
		   rb_report_cmd, "report", "/nonexistent.h5");
	/* a FIFO would hang HDF5's open: refused before it */
	snprintf(junk, sizeof(junk), "%s/fifo.h5", fx->dir);
	assert_int_equal(mkfifo(junk, 0600), 0);
	assert_run(RB_EXIT_USAGE, err, "fifo.h5': not a regular file", rb_report_cmd, "report",
		   junk);
	snprintf(junk, sizeof(junk), "%s/junk.h5", fx->dir);
	write_text(junk, "not hdf5\n");
	cap_run(&o, rb_report_cmd, "report", fx->path, junk);
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_string_equal(o.out, "");
	out_free(&o);
}

/* The shared figures: median, the outlier rule's two limits, a cell's metrics. */
static void test_model_rules(void **st)
{
	double v[] = { 5, 1, 3, 2 };
	struct rb_row_result res;
	struct rp_cell c;
	struct rb_row_point pt;

	(void)st;
	assert_true(rb_median(v, 4) == 2.5);
	assert_true(v[0] == 1 && v[3] == 5);
	assert_true(rb_median(v, 3) == 2);
	assert_true(isnan(rb_median(v, 0)));
	/* 10% of the median when the drives agree closely */
	assert_false(rp_is_outlier(109, 100, 0.1));
	assert_true(rp_is_outlier(111, 100, 0.1));
	/* 3.5 x 1.4826 x MAD when they spread */
	assert_false(rp_is_outlier(150, 100, 10));
	assert_true(rp_is_outlier(152, 100, 10));
	memset(&c, 0, sizeof(c));
	assert_true(isnan(rp_cell_metric(&c, RP_IOPS)));
	memset(&res, 0, sizeof(res));
	res.write.ios = 5;
	res.write.lat_mean_ns = 2500;
	res.write.lat_p99_ns = 7000;
	res.write.lat_p99_9_ns = 9000;
	c.res = &res;
	c.iops = 12;
	c.mbps = 3;
	assert_true(rp_cell_metric(&c, RP_IOPS) == 12);
	assert_true(rp_cell_metric(&c, RP_MBPS) == 3);
	assert_true(rp_cell_metric(&c, RP_MEAN_US) == 2.5);
	assert_true(rp_cell_metric(&c, RP_P99_US) == 7);
	assert_true(rp_cell_metric(&c, RP_P99_9_US) == 9);
	res.write.ios = 0;
	assert_true(isnan(rp_cell_metric(&c, RP_P99_US)));
	assert_string_equal(rp_metric_name(RP_P99_9_US), "p99_9_us");
	memset(&pt, 0, sizeof(pt));
	snprintf(pt.name, sizeof(pt.name), "read curve=max");
	assert_true(rp_is_curve(&pt));
	pt.curve_pct = NAN;
	assert_false(rp_is_curve(&pt));
	pt.curve_pct = 30;
	assert_true(rp_is_curve(&pt));
}

/* Rates per interval: a last interval of 9 ms after ones of 250 ms is merged into the one
 * before it, not drawn as 2 MB over 9 ms; a short first one into the next; 10% is not short. */
static void test_interval_rates(void **st)
{
	double t[] = { 0.25, 0.5, 0.75, 0.759 }, a[] = { 5, 5, 5, 2 };
	double t1[] = { 0.01, 0.26, 0.51 }, a1[] = { 1, 5, 5 };
	double t2[] = { 0.25, 0.275 }, a2[] = { 5, 1 };
	double t3[] = { 1, 2, 2.05 }, a3[] = { 10, 10, 1 };

	(void)st;
	assert_int_equal(rp_interval_rates(t, a, 4, 0.25), 3);
	assert_true(a[0] == 20 && a[1] == 20 && fabs(a[2] - 7 / 0.259) < 1e-9);
	assert_true(t[2] == 0.759);
	assert_int_equal(rp_interval_rates(t1, a1, 3, 0.25), 2);
	assert_true(fabs(a1[0] - 6 / 0.26) < 1e-9 && fabs(a1[1] - 20) < 1e-9 && t1[0] == 0.26);
	assert_int_equal(rp_interval_rates(t2, a2, 2, 0.25), 2);
	assert_true(fabs(a2[1] - 40) < 1e-9);
	/* no nominal interval known: the longest one's length is it */
	assert_int_equal(rp_interval_rates(t3, a3, 3, 0), 2);
	assert_true(a3[0] == 10 && fabs(a3[1] - 11 / 1.05) < 1e-9);
	assert_int_equal(rp_interval_rates(t3, a3, 0, 1), 0);
}

/* A log axis: the least of the series a fifth of the height clear of the axis, not
 * drawn on it (1.2 MB/s over a floor at 1 sat 7 px above it, as if it were none) */
static void test_log_axis_clear(void **st)
{
	double x[] = { 4096, 65536, 1048576 }, y[] = { 1.2, 40, 300 };
	struct rp_series s = { .name = "a", .n = 3, .x = x, .y = y };
	struct rp_chart c = { .kind = "k", .title = "t", .xl = "x", .yl = "MB/s", .xlog = true,
			      .ylog = true };
	double top = INFINITY, bottom = -INFINITY, low = -INFINITY, v;
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	(void)st;
	assert_non_null(o);
	rp_chart_lines(o, &c, &s, 1);
	fclose(o);
	for (const char *p = buf; (p = strstr(p, "class=\"grid\"")); p++)
		if (sscanf(strstr(p, "y1=\""), "y1=\"%lf", &v) == 1)
			top = fmin(top, v), bottom = fmax(bottom, v);
	for (const char *p = buf; (p = strstr(p, "<circle cx=")); p++)
		if (sscanf(strstr(p, "cy=\""), "cy=\"%lf", &v) == 1)
			low = fmax(low, v);
	assert_true(isfinite(top) && isfinite(low) && bottom > top);
	assert_true(bottom - low >= 0.2 * (bottom - top));
	/* and still a log axis over the rest: 300 below the top decade */
	assert_true(low < bottom && strstr(buf, ">1000</text>"));
	free(buf);
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_csv_figures_are_the_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_models_from_merged_histograms, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_baseline_difference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spec_verdicts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spec_datasheet_point, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wide_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wide_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoints_and_execs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spec_health, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spec_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_files_compare, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_many_drives, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ids_out_of_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fio_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arguments, setup, teardown),
		cmocka_unit_test(test_model_rules),
		cmocka_unit_test(test_interval_rates),
		cmocka_unit_test(test_log_axis_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
