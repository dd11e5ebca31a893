// SPDX-License-Identifier: MIT
/*
 * The fleet summary of `rackbench report` (coordinator/report/report_fleet.c) on three
 * racks' results files written here through the results writer: each rack's files,
 * drives and verdicts are what the files hold and add up to its drives; each rack's and
 * the fleet's p50 and p99 are exactly the percentiles of one histogram holding every
 * sample of its drives (never an average of percentiles); the rack made slow is named
 * first among the slowest racks; the text, Markdown and the page say the same.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture.h"
#include "cmds.h"
#include "exitcode.h"
#include "hist.h"
#include "log.h"
#include "report.h"
#include "report_model.h"
#include "results.h"

#define SEC 1000000000LL
#define NF 3
#define ND 4
#define NP 3
#define NR 3
#define NI 12 /* intervals of a drive at a point */

/* The racks: file #1 holds four drives of r1, #2 four of r2, #3 three of r3 and one of r1. */
static const char *const rack_of[NF][ND] = {
	{ "r1", "r1", "r1", "r1" },
	{ "r2", "r2", "r2", "r2" },
	{ "r3", "r3", "r3", "r1" },
};
/* Each drive's verdict (rule drive); #3 was not judged. */
static const char *const verdict_of[NF][ND] = {
	{ "PASS", "PASS", "PASS", "PASS" },
	{ "FAIL", "PASS", "INCOMPLETE", "PASS" },
	{ NULL, NULL, NULL, NULL },
};

/* Two comparable points and a fill (size-based: not in the summary). */
static const struct {
	const char *name, *rw, *settings;
	uint8_t dir;
} points[NP] = {
	{ "randread qd1", "randread", "runtime=10s interval=1s", 0 },
	{ "randwrite qd4", "randwrite", "runtime=10s interval=1s", 1 },
	{ "write fill", "write", "runtime=10s interval=1s passes=1", 1 },
};

struct fixture {
	char dir[256], path[NF][512];
	struct rb_hist *want; /* [point * (NR + 1) + rack]: every sample; rack NR the fleet */
	double iops[NF][NP][ND];
};

static uint64_t lcg = 12345;

static uint64_t rnd(uint64_t n)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (lcg >> 33) % n;
}

static size_t rack_index(const char *rack)
{
	return (size_t)(rack[1] - '1');
}

/* A sample of one bucket, as the coordinator stores them: drive d's interval k. */
static void add_bucket(struct rb_results *r, uint32_t p, uint32_t d, uint32_t attempt,
		       uint32_t k, uint8_t dir, uint64_t lat, uint64_t count)
{
	uint32_t idx = rb_hist_index(lat);
	struct rb_row_sample s = { .drive = d,
				   .point = p,
				   .attempt = attempt,
				   .interval = k,
				   .direction = dir,
				   .t_ns = (int64_t)(k + 1) * SEC,
				   .ios = count };

	assert_int_equal(rb_results_sample_hist(r, &s, &idx, &count, 1), 0);
}

static void add_result(struct rb_results *r, uint32_t p, uint32_t d, uint32_t attempt,
		       const char *status, double iops)
{
	struct rb_row_result x;
	struct rb_row_dir *io = points[p].dir ? &x.write : &x.read;

	memset(&x, 0, sizeof(x));
	x.drive = d;
	x.point = p;
	x.attempt = attempt;
	snprintf(x.status, sizeof(x.status), "%s", status);
	x.core.start_ns = (int64_t)(p + 1) * 100 * SEC;
	x.core.end_ns = x.core.start_ns + 10 * SEC;
	x.core.elapsed_ns = 10 * SEC;
	io->iops = iops;
	io->ios = (uint64_t)iops * 10;
	io->bytes = io->ios * 4096;
	io->bw_bytes_per_s = iops * 4096;
	io->lat_mean_ns = 1e5;
	io->lat_p99_ns = 200000;
	assert_int_equal(rb_results_result(r, &x), 0);
}

/* File f: its drives, points, results and every interval's histogram; the samples also
 * recorded, one by one, in the histograms of their rack and of the fleet. */
static void write_file(struct fixture *fx, size_t f)
{
	struct rb_results_meta m = { .campaign_name = "fleet",
				     .campaign_text = "name: fleet\n",
				     .methodology = "0123456789abcdef",
				     .start_ns = 100 * SEC };
	char err[512];
	struct rb_results *r = rb_results_create(fx->path[f], &m, err, sizeof(err));

	if (!r)
		fail_msg("%s", err);
	for (uint32_t d = 0; d < ND; d++) {
		struct rb_row_drive x;

		memset(&x, 0, sizeof(x));
		x.drive = d;
		snprintf(x.agent, sizeof(x.agent), "a%zu", f + 1);
		snprintf(x.id.path, sizeof(x.id.path), "/dev/nvme%un1", d);
		snprintf(x.id.model, sizeof(x.id.model), "M1");
		snprintf(x.id.serial, sizeof(x.id.serial), "S%zu%u", f, d);
		snprintf(x.id.kind, sizeof(x.id.kind), "block");
		snprintf(x.labels, sizeof(x.labels), "zone=z1,rack=%s,model=B", rack_of[f][d]);
		assert_int_equal(rb_results_drive(r, &x), 0);
	}
	for (uint32_t p = 0; p < NP; p++) {
		struct rb_row_point x;

		memset(&x, 0, sizeof(x));
		x.point = p;
		snprintf(x.phase, sizeof(x.phase), "%s", p == 2 ? "precondition" : "qd");
		snprintf(x.name, sizeof(x.name), "%s", points[p].name);
		snprintf(x.rw, sizeof(x.rw), "%s", points[p].rw);
		x.bs_bytes = 4096;
		x.iodepth = p ? 4 : 1;
		x.numjobs = 1;
		x.curve_pct = NAN;
		snprintf(x.settings, sizeof(x.settings), "%s", points[p].settings);
		assert_int_equal(rb_results_point(r, &x), 0);
	}
	for (uint32_t p = 0; p < NP; p++)
		for (uint32_t d = 0; d < ND; d++) {
			size_t rk = rack_index(rack_of[f][d]);
			/* r3 three times slower; every drive its own spread */
			uint64_t base = (rk == 2 ? 300000 : 100000) + 3000 * d + 20000 * p;
			uint32_t attempt = f == 0 && d == 0 ? 1 : 0;

			fx->iops[f][p][d] = (rk == 2 ? 3000.0 : 9000.0) + 17.0 * (double)(f + d);
			if (attempt) {
				/* a lost first attempt, far slower: not the latest, not added */
				add_result(r, p, d, 0, "lost", 1.0);
				add_bucket(r, p, d, 0, 0, points[p].dir, 90000000, 5000);
			}
			add_result(r, p, d, attempt, "ok", fx->iops[f][p][d]);
			for (uint32_t k = 0; k < NI; k++) {
				uint64_t lat = base + rnd(base / 2), count = 1 + rnd(40);

				/* a tail: one interval in twelve far slower */
				if (rnd(12) == 0)
					lat *= 8;
				add_bucket(r, p, d, attempt, k, points[p].dir, lat, count);
				for (uint64_t c = 0; c < count; c++) {
					rb_hist_record(&fx->want[p * (NR + 1) + rk], lat);
					rb_hist_record(&fx->want[p * (NR + 1) + NR], lat);
				}
			}
		}
	assert_int_equal(rb_results_close(r, "complete", 900 * SEC), 0);
	if (verdict_of[f][0]) {
		struct rb_row_verdict vd[ND];
		const char *run = "PASS";

		memset(vd, 0, sizeof(vd));
		for (uint32_t d = 0; d < ND; d++) {
			vd[d].drive = d;
			snprintf(vd[d].rule, sizeof(vd[d].rule), "drive");
			snprintf(vd[d].verdict, sizeof(vd[d].verdict), "%s", verdict_of[f][d]);
			vd[d].measured = vd[d].limit = NAN;
			vd[d].point = vd[d].interval = -1;
			if (!strcmp(verdict_of[f][d], "FAIL"))
				run = "FAIL";
		}
		assert_int_equal(rb_results_add_verdicts(fx->path[f], vd, ND, run), 0);
	}
}

static int setup(void **st)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->want = calloc(NP * (NR + 1), sizeof(*fx->want));
	if (!fx->want)
		return -1;
	temp_dir(fx->dir, sizeof(fx->dir));
	for (size_t f = 0; f < NF; f++) {
		snprintf(fx->path[f], sizeof(fx->path[f]), "%s/rack%zu.h5", fx->dir, f + 1);
		write_file(fx, f);
	}
	*st = fx;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *fx = *st;

	rm_tree(fx->dir);
	free(fx->want);
	free(fx);
	return 0;
}

/* The report's model of the files, as rb_report builds it. */
static void build(struct fixture *fx, struct rp_report *r, size_t nfiles, int by)
{
	const char *files[NF] = { fx->path[0], fx->path[1], fx->path[2] };
	struct rb_report_args a = { .files = files, .nfiles = nfiles, .by = by };

	memset(r, 0, sizeof(*r));
	r->require_pct = 90;
	r->by_label = by == RP_BY_LABEL ? "rack" : NULL;
	assert_int_equal(rp_report_build(r, &a), 0);
}

/* The median of the written IOPS of rack rk at point p (every rack when rk is NR). */
static double want_median(const struct fixture *fx, size_t p, size_t rk, double *sum)
{
	double v[NF * ND];
	size_t n = 0;

	*sum = 0;
	for (size_t f = 0; f < NF; f++)
		for (size_t d = 0; d < ND; d++)
			if (rk == NR || rack_index(rack_of[f][d]) == rk) {
				v[n++] = fx->iops[f][p][d];
				*sum += fx->iops[f][p][d];
			}
	return rb_median(v, n);
}

/* The line of text that starts with prefix into buf ("" when none). */
static const char *line_starting(const char *text, const char *prefix, char *buf, size_t len)
{
	size_t l = strlen(prefix);

	buf[0] = '\0';
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, l)) {
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
			break;
		}
	return buf;
}

/* Each rack's files, drives and verdicts; the counts add up to its drives. */
static void test_rack_rows(void **st)
{
	struct fixture *fx = *st;
	struct rp_report r;
	const struct rp_fleet *fl;
	static const size_t files[NR] = { 2, 1, 1 }, drives[NR] = { 5, 4, 3 };
	/* FAIL, INCOMPLETE, PASS, no verdict */
	static const size_t verdicts[NR + 1][4] = {
		{ 0, 0, 4, 1 }, { 1, 1, 2, 0 }, { 0, 0, 0, 3 }, { 1, 1, 6, 4 }
	};

	build(fx, &r, NF, RP_BY_AUTO);
	fl = r.fleet;
	assert_non_null(fl);
	assert_int_equal(fl->nracks, NR);
	assert_int_equal(fl->nfiles, NF);
	assert_int_equal(fl->ndrives, NF * ND);
	assert_int_equal(fl->nstates, 3);
	assert_string_equal(fl->states[0], "FAIL");
	assert_string_equal(fl->states[1], "INCOMPLETE");
	assert_string_equal(fl->states[2], "PASS");
	assert_true(fl->any_verdicts);
	for (size_t rk = 0; rk <= NR; rk++) {
		size_t sum = 0;

		if (rk < NR) {
			char name[16];

			snprintf(name, sizeof(name), "rack=r%zu", rk + 1);
			assert_string_equal(fl->racks[rk].name, name);
			assert_int_equal(fl->racks[rk].nfiles, files[rk]);
			assert_int_equal(fl->racks[rk].ndrives, drives[rk]);
		}
		for (size_t s = 0; s < 4; s++) {
			assert_int_equal(fl->verdicts[rk * 4 + s], verdicts[rk][s]);
			sum += fl->verdicts[rk * 4 + s];
		}
		assert_int_equal(sum, rk < NR ? drives[rk] : NF * ND);
	}
	/* the fill is no comparable point */
	assert_int_equal(fl->npoints, 2);
	assert_string_equal(fl->points[0], "randread qd1");
	assert_string_equal(fl->points[1], "randwrite qd4");
	rp_report_free(&r);
}

/* Each rack's and the fleet's percentiles are those of one histogram of every sample. */
static void test_percentiles_exact(void **st)
{
	struct fixture *fx = *st;
	struct rp_report r;
	const struct rp_fleet *fl;

	build(fx, &r, NF, RP_BY_AUTO);
	fl = r.fleet;
	assert_non_null(fl);
	for (size_t p = 0; p < 2; p++) {
		struct rb_hist *sum = calloc(1, sizeof(*sum));

		assert_non_null(sum);
		for (size_t rk = 0; rk <= NR; rk++) {
			const struct rp_fleet_fig *g = &fl->fig[p * (NR + 1) + rk];
			const struct rb_hist *h = &fx->want[p * (NR + 1) + rk];
			double med, tot, want_med = want_median(fx, p, rk, &tot);

			if (rk < NR)
				rb_hist_merge(sum, h);
			assert_true(h->total > 0);
			if (points[p].dir == 0) {
				assert_int_equal(g->rd_total, h->total);
				assert_int_equal(g->wr_total, 0);
				assert_int_equal(g->rd_p50_ns, rb_hist_percentile(h, 50));
				assert_int_equal(g->rd_p99_ns, rb_hist_percentile(h, 99));
			} else {
				assert_int_equal(g->wr_total, h->total);
				assert_int_equal(g->rd_total, 0);
				assert_int_equal(g->wr_p50_ns, rb_hist_percentile(h, 50));
				assert_int_equal(g->wr_p99_ns, rb_hist_percentile(h, 99));
			}
			med = g->iops_med;
			assert_true(med == want_med);
			assert_true(fabs(g->iops_sum - tot) < 1e-6);
			assert_int_equal(g->ndrives, rk < NR ? (rk == 0 ? 5 : 4 - (rk == 2)) : 12);
		}
		/* an average of the racks' p99s is not the fleet's: the test tells them apart */
		{
			const struct rp_fleet_fig *g = &fl->fig[p * (NR + 1)];
			uint64_t f99 = points[p].dir ? g[NR].wr_p99_ns : g[NR].rd_p99_ns;
			double avg = 0;

			for (size_t rk = 0; rk < NR; rk++)
				avg += (double)(points[p].dir ? g[rk].wr_p99_ns : g[rk].rd_p99_ns) / NR;
			assert_true(fabs(avg - (double)f99) > 1000);
		}
		/* the racks' histograms added are the fleet's, sample for sample */
		assert_int_equal(sum->total, fx->want[p * (NR + 1) + NR].total);
		assert_int_equal(rb_hist_percentile(sum, 99),
				 rb_hist_percentile(&fx->want[p * (NR + 1) + NR], 99));
		free(sum);
	}
	/* the slow rack first, slower than the fleet; the others faster */
	assert_int_equal(fl->order[0], 2);
	assert_false(fl->by_iops);
	assert_true(fl->racks[2].slow_pct > 0);
	assert_int_equal(fl->racks[2].npt, 2);
	assert_true(fl->racks[0].slow_pct < 0 && fl->racks[1].slow_pct < 0);
	rp_report_free(&r);
}

/* Shown for several racks or --by rack; not for one rack's file. */
static void test_when_shown(void **st)
{
	struct fixture *fx = *st;
	struct rp_report r;

	build(fx, &r, 1, RP_BY_AUTO);
	assert_null(r.fleet);
	rp_report_free(&r);
	build(fx, &r, 1, RP_BY_LABEL);
	assert_non_null(r.fleet);
	assert_int_equal(r.fleet->nracks, 1);
	assert_int_equal(r.fleet->racks[0].ndrives, ND);
	assert_int_equal(r.fleet->nstates, 1);
	assert_int_equal(r.fleet->verdicts[0], ND); /* PASS */
	rp_report_free(&r);
	build(fx, &r, 2, RP_BY_MODEL);
	assert_non_null(r.fleet);
	assert_int_equal(r.fleet->nracks, 2);
	rp_report_free(&r);
}

/* The text, Markdown and the page print the figures of the model. */
static void test_printed(void **st)
{
	struct fixture *fx = *st;
	struct out o;
	char line[1024], want[128], page[600];
	const struct rb_hist *fleet = &fx->want[NR];
	char *html;

	cap_run(&o, rb_report_cmd, "report", fx->path[0], fx->path[1], fx->path[2]);
	assert_int_equal(o.rc, RB_EXIT_BELOW_SPEC); /* #2 failed a drive */
	assert_non_null(strstr(o.out, "fleet: 3 rack(s) by the agents' label rack, 3 file(s), "
				      "12 drive(s)"));
	{
		static const char *const racks[] = { "rack=r1 ", "rack=r2 ", "rack=r3 ", "fleet " };
		static const size_t files[] = { 2, 1, 1, 3 }, drives[] = { 5, 4, 3, 12 };
		static const char *const words[] = { "4 PASS, 1 no verdict",
						     "1 FAIL, 1 INCOMPLETE, 2 PASS", "no verdicts",
						     "1 FAIL, 1 INCOMPLETE, 6 PASS, 4 no verdict" };

		for (size_t k = 0; k < 4; k++) {
			size_t nf, nd;
			char v[200];

			line_starting(o.out, racks[k], line, sizeof(line));
			assert_int_equal(sscanf(line + strlen(racks[k]), "%zu %zu %199[^\n]", &nf,
						&nd, v),
					 3);
			assert_int_equal(nf, files[k]);
			assert_int_equal(nd, drives[k]);
			assert_string_equal(v, words[k]);
		}
	}
	/* the fleet's p99 at the first point: the one histogram's */
	snprintf(want, sizeof(want), "%-34s %-20s %6d ", "randread qd1", "fleet", 12);
	line_starting(o.out, want, line, sizeof(line));
	snprintf(want, sizeof(want), " %.1f ", (double)rb_hist_percentile(fleet, 99) / 1e3);
	assert_non_null(strstr(line, want));
	assert_non_null(strstr(o.out, "\n  1. rack=r3: +"));
	/* before the rows of the drives */
	assert_true(strstr(o.out, "fleet: 3 rack(s)") < strstr(o.out, "rd mean"));
	out_free(&o);

	cap_run(&o, rb_report_cmd, "report", fx->path[0], fx->path[1], fx->path[2], "--format",
		"markdown");
	assert_non_null(strstr(o.out, "### fleet: 3 rack(s)"));
	assert_non_null(strstr(o.out, "| rack=r3 | 1 | 3 | no verdicts |\n"));
	snprintf(want, sizeof(want), "| randread qd1 | fleet | 12 | %.0f |",
		 want_median(fx, 0, NR, &(double){ 0 }));
	line_starting(o.out, want, line, sizeof(line));
	snprintf(want, sizeof(want), "| %.1f | %.1f | - | - |",
		 (double)rb_hist_percentile(fleet, 50) / 1e3,
		 (double)rb_hist_percentile(fleet, 99) / 1e3);
	assert_non_null(strstr(line, want));
	assert_non_null(strstr(o.out, "\n1. rack=r3: +"));
	out_free(&o);

	/* CSV stays one table of rows */
	cap_run(&o, rb_report_cmd, "report", fx->path[0], fx->path[1], fx->path[2], "--format",
		"csv");
	assert_null(strstr(o.out, "rack="));
	out_free(&o);

	snprintf(page, sizeof(page), "%s/fleet.html", fx->dir);
	cap_run(&o, rb_report_cmd, "report", fx->path[0], fx->path[1], fx->path[2], "--html",
		page);
	out_free(&o);
	html = read_text(page);
	assert_non_null(html);
	assert_non_null(strstr(html, ">Racks</h2>"));
	assert_true(strstr(html, ">Racks</h2>") < strstr(html, ">Verdicts</h2>"));
	assert_non_null(strstr(html, "<tr data-rack=\"rack=r1\"><td>rack=r1</td><td class=\"n\">2"
				     "</td><td class=\"n\">5</td>"));
	assert_non_null(strstr(html, "<td class=\"n\" data-verdict=\"none\">3</td></tr>"));
	assert_non_null(strstr(html, "<ol class=\"slowest\">\n<li data-rack=\"rack=r3\">"));
	free(html);
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rack_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_percentiles_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_when_shown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_printed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
