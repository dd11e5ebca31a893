// SPDX-License-Identifier: MIT
#include <errno.h>
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

#include "campaign.h"

static const char good[] =
	"name: t\n"
	"insecure: true\n"
	"defaults: {size: 8m, runtime: 1s}\n"
	"targets:\n"
	"  - agent: a1\n"
	"    drives: [/d/0, /d/1]\n"
	"  - agent: a2\n"
	"    drives: [{path: /d/0, serial: SN-7}]\n"
	"phases:\n"
	"  - name: rr\n"
	"    workload: {rw: randread, bs: 4k}\n"
	"    matrix:\n"
	"      iodepth: [1, 4, 16]\n"
	"      numjobs: [1, 2]\n"
	"  - name: sw\n"
	"    workload:\n"
	"      rw: write\n"
	"      bs: 128k\n";

static void test_campaign_loads_and_expands_matrix(void **state)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	(void)state;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("good.yaml", good, strlen(good), &c, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(c->nagents, 2);
	assert_int_equal(c->ndrives, 3);
	assert_string_equal(c->drives[0].serial, "");
	assert_string_equal(c->drives[2].path, "/d/0");
	assert_string_equal(c->drives[2].serial, "SN-7");
	assert_int_equal(c->npoints, 3 * 2 + 1);
	/* first matrix key outermost, file order */
	assert_int_equal(c->points[0].wl.iodepth, 1);
	assert_int_equal(c->points[0].wl.numjobs, 1);
	assert_int_equal(c->points[1].wl.numjobs, 2);
	assert_int_equal(c->points[2].wl.iodepth, 4);
	assert_int_equal(c->points[5].wl.iodepth, 16);
	assert_string_equal(c->points[5].name, "rr iodepth=16 numjobs=2");
	/* defaults apply under every phase */
	assert_int_equal(c->points[6].wl.size, 8 << 20);
	assert_int_equal(c->points[6].wl.bs, 131072);
	assert_int_equal(c->points[6].wl.runtime_ns, 1000000000ULL);
	assert_true(rb_campaign_writes(c));
	assert_true(c->insecure);
	rb_campaign_free(c);
	rb_diags_release(&d);
}

static void test_campaign_replay_counts_as_writing(void **state)
{
	/* the coordinator cannot see a trace: a replay point is judged as writing */
	static const char text[] =
		"name: t\n"
		"insecure: true\n"
		"targets:\n"
		"  - agent: a1\n"
		"    drives: [/d/0]\n"
		"phases:\n"
		"  - name: app\n"
		"    workload: {rw: replay, replay: /traces/app.txt, replay_speed: 2,\n"
		"               replay_format: blkparse, replay_device: '8,16'}\n";
	static const char missing[] =
		"name: t\n"
		"targets:\n"
		"  - agent: a1\n"
		"    drives: [/d/0]\n"
		"phases:\n"
		"  - workload: {rw: replay}\n";
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	int found = 0;

	(void)state;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("r.yaml", text, strlen(text), &c, &d), 0);
	assert_int_equal(c->npoints, 1);
	assert_int_equal(c->points[0].wl.rw, RB_RW_REPLAY);
	assert_string_equal(c->points[0].wl.replay, "/traces/app.txt");
	assert_string_equal(c->points[0].wl.replay_speed, "2");
	assert_string_equal(c->points[0].wl.replay_device, "8,16");
	assert_true(rb_campaign_writes(c));
	c = rb_campaign_free(c);
	rb_diags_release(&d);
	/* without its trace a replay point does not load */
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("r.yaml", missing, strlen(missing), &c, &d), -EINVAL);
	for (size_t i = 0; i < d.n; i++)
		found |= strstr(d.v[i].message, "needs 'replay'") != NULL;
	assert_true(found);
	rb_diags_release(&d);
}

static void test_campaign_reports_every_error_in_file_order(void **state)
{
	static const char bad[] =
		"name: t\n"
		"targets:\n"
		"  - agent: a1\n"
		"    drives: [/d/0]\n"
		"phases:\n"
		"  - workload:\n"
		"      bs: 4q\n"
		"      iodepth: -1\n"
		"      colour: blue\n";
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	(void)state;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("bad.yaml", bad, strlen(bad), &c, &d), -EINVAL);
	assert_null(c);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.v[0].line, 7);
	assert_int_equal(d.v[0].column, 11);
	assert_non_null(strstr(d.v[0].message, "'bs'"));
	assert_int_equal(d.v[1].line, 8);
	assert_non_null(strstr(d.v[1].message, "'iodepth'"));
	assert_int_equal(d.v[2].line, 9);
	assert_int_equal(d.v[2].column, 7);
	assert_non_null(strstr(d.v[2].message, "unknown key 'colour'"));
	assert_string_equal(d.v[2].file, "bad.yaml");
	rb_diags_release(&d);
}

static void test_campaign_structure_errors(void **state)
{
	static const struct {
		const char *text;
		unsigned line, col;
		const char *msg;
	} cases[] = {
		{ "", 1, 1, "file is empty" },
		{ "name: [unclosed\n", 2, 1, "invalid YAML" },
		{ "- a\n- b\n", 1, 1, "must be a mapping" },
		{ "targets: {agent: a}\nphases: []\n", 1, 10, "'targets' must be a list" },
		{ "targets:\n  - agent: a\nphases:\n  - workload: {}\n", 2, 5, "has no 'drives'" },
		{ "targets:\n  - agent: a\n    drives: [x]\n", 1, 1, "no 'phases'" },
		{ "insecure: perhaps\ntargets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n",
		  1, 11, "'insecure' must be true or false" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n    matrix: {bs: []}\n",
		  5, 18, "has no values" },
		{ "targets:\n  - {agent: a, drives: [{path: x, wwn: y}]}\nphases:\n  - workload: {}\n",
		  2, 35, "unknown key 'wwn' in a drive" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n    curve: [50, 0]\n",
		  5, 17, "above 0 and at most 1000" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {rate_iops: 5}\n"
		  "    curve: [50]\n",
		  4, 5, "a curve sets the rates itself" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n    curve: [50]\n"
		  "    steady_state: {}\n",
		  6, 19, "either a curve or steady_state" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n"
		  "    steady_state: {max_rounds: 3, window: 5}\n",
		  5, 19, "'window' (5) is more than 'max_rounds' (3)" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n"
		  "    matrix: {bs: [4k, 8k]}\n    steady_state: {track: {bs: 16k}}\n",
		  6, 28, "'track' value '16k' of 'bs' is not one of the matrix's values" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n"
		  "    steady_state: {track: {iodepth: 4}}\n",
		  5, 28, "which the phase's matrix does not vary" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n    idle: soon\n",
		  5, 11, "'idle' must be a duration" },
		{ "d: &x {rw: read}\ntargets:\n  - {agent: a, drives: [x]}\nphases:\n"
		  "  - workload: {<<: *x, bs: 4k}\n",
		  5, 16, "merge keys ('<<') are not supported" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n    curve: [50]\n"
		  "    repeat: 2\n",
		  6, 13, "a curve decides its own points" },
		{ "targets:\n  - {agent: a, drives: [x]}\nphases:\n  - workload: {}\n    repeat: 0\n",
		  5, 13, "'repeat' must be a whole number" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rb_campaign *c = NULL;
		struct rb_diags d;

		rb_diags_init(&d);
		assert_int_equal(rb_campaign_load("x.yaml", cases[i].text, strlen(cases[i].text), &c,
						  &d),
				 -EINVAL);
		assert_true(d.n >= 1);
		if (d.v[0].line != cases[i].line || d.v[0].column != cases[i].col ||
		    !strstr(d.v[0].message, cases[i].msg))
			fail_msg("case %zu: got %u:%u '%s', want %u:%u '%s'", i, d.v[0].line,
				 d.v[0].column, d.v[0].message, cases[i].line, cases[i].col,
				 cases[i].msg);
		rb_diags_release(&d);
	}
}

/* Curves and steady state expand into points with their roles marked. */
static void test_campaign_curve_and_steady_state(void **state)
{
	static const char text[] = "targets:\n  - {agent: a, drives: [x]}\nphases:\n"
				   "  - name: ss\n    workload: {rw: randrw}\n"
				   "    matrix: {bs: [4k, 64k], rwmixread: [0, 100]}\n"
				   "    steady_state: {max_rounds: 4, window: 3, track: {bs: 64k}}\n"
				   "  - name: cv\n    workload: {bs: 8k}\n    matrix: {iodepth: [1, 8]}\n"
				   "    curve: [10, 50%]\n    idle: 2s\n";
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	(void)state;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("x.yaml", text, strlen(text), &c, &d), 0);
	/* 4 rounds x 4 matrix points, then 2 curves of 1 + 2 points */
	assert_int_equal(c->npoints, 16 + 6);
	assert_int_equal(c->phases[0].steady_rounds, 4);
	assert_int_equal(c->phases[0].steady_window, 3);
	assert_int_equal(c->phases[0].npoints_per_round, 4);
	for (size_t i = 0; i < 16; i++) {
		const struct rb_point *p = &c->points[i];

		assert_int_equal(p->round, i / 4 + 1);
		/* track {bs: 64k}, rwmixread unnamed: its first value; bs varies slowest */
		assert_int_equal(p->track, i % 4 == 2);
		assert_true(isnan(p->curve_pct));
	}
	assert_string_equal(c->points[6].name, "ss bs=64k rwmixread=0 round=2");
	assert_int_equal(c->phases[1].idle_ns, 2000000000ULL);
	static const double pct[] = { 0, 10, 50, 0, 10, 50 };

	for (size_t i = 0; i < 6; i++) {
		const struct rb_point *p = &c->points[16 + i];

		assert_true(p->curve_pct == pct[i]);
		assert_int_equal(p->curve_base, 16 + (i / 3) * 3);
		assert_int_equal(p->round, 0);
		assert_int_equal(p->wl.iodepth, i < 3 ? 1 : 8);
	}
	assert_string_equal(c->points[16].name, "cv iodepth=1 curve=max");

	assert_string_equal(c->points[20].name, "cv iodepth=8 curve=10%");
	rb_campaign_free(c);
	/* repeat: the matrix again, as a block; anchors and aliases resolve */
	static const char rep[] = "defaults: &d {rw: randread}\ntargets:\n  - {agent: a, drives: [x]}\n"
				  "phases:\n  - workload: *d\n    matrix: {iodepth: [1, 8]}\n"
				  "    repeat: 3\n";

	c = NULL;
	assert_int_equal(rb_campaign_load("r.yaml", rep, strlen(rep), &c, &d), 0);
	assert_int_equal(c->npoints, 6);
	assert_string_equal(c->points[0].name, "phase1 iodepth=1 repeat=1");
	assert_string_equal(c->points[3].name, "phase1 iodepth=8 repeat=2");
	assert_int_equal(c->points[5].wl.iodepth, 8);
	rb_campaign_free(c);
	rb_diags_release(&d);
}

static const char volumes[] =
	"name: v\n"
	"insecure: true\n"
	"targets:\n"
	"  - agent: a1\n"
	"    drives:\n"
	"      - /d/4\n"
	"      - volume: card\n"
	"        stripe: 256k\n"
	"        members: [/d/0, {path: /d/1, serial: SN-1}]\n"
	"  - agent: a2\n"
	"    drives: [{volume: solo, members: [/d/0]}]\n"
	"phases:\n"
	"  - name: rr\n"
	"    workload: {rw: randread, bs: 4k}\n"
	"  - name: seq\n"
	"    workload: {rw: read, bs: 1m, stripe: 1m}\n";

static void test_campaign_volumes(void **state)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	char *bad;

	(void)state;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("v.yaml", volumes, strlen(volumes), &c, &d), 0);
	assert_int_equal(c->ndrives, 3);
	assert_int_equal(c->drives[0].nmembers, 0);
	assert_string_equal(c->drives[1].path, "card");
	assert_int_equal(c->drives[1].nmembers, 2);
	assert_int_equal(c->drives[1].stripe, 256 << 10);
	assert_string_equal(c->drives[1].members[1].path, "/d/1");
	assert_string_equal(c->drives[1].members[1].serial, "SN-1");
	assert_int_equal(c->drives[1].line, 7);
	/* the default unit; a point's 'stripe' overrides a volume's own */
	assert_int_equal(c->drives[2].stripe, 128 << 10);
	assert_int_equal(rb_volume_unit(&c->drives[1], &c->points[0]), 256 << 10);
	assert_int_equal(rb_volume_unit(&c->drives[1], &c->points[1]), 1 << 20);
	rb_campaign_free(c);
	c = NULL;

	/* a member listed twice, a name that is a path; 1m IOs through a 256k unit are fine
	 * (they go as parts) */
	bad = strdup(volumes);
	memcpy(strstr(bad, ", stripe: 1m}"), "}            ", 13);
	memcpy(strstr(bad, "/d/1, serial"), "/d/0", 4);
	memcpy(strstr(bad, "volume: solo"), "volume: s/lo", 12);
	assert_int_equal(rb_campaign_load("v.yaml", bad, strlen(bad), &c, &d), -EINVAL);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.v[0].line, 9);
	assert_non_null(strstr(d.v[0].message, "drive '/d/0' is in volume 'card' twice"));
	assert_int_equal(d.v[1].line, 11);
	assert_non_null(strstr(d.v[1].message, "not a path"));
	rb_diags_release(&d);
	rb_diags_init(&d);
	/* 'stripe' in a campaign without volumes: an error where it is set */
	static const char novol[] = "name: n\ntargets:\n  - agent: a1\n    drives: [/d/0]\n"
				    "phases:\n  - workload: {rw: randread, stripe: 64k}\n";

	assert_int_equal(rb_campaign_load("n.yaml", novol, strlen(novol), &c, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].line, 6);
	assert_non_null(strstr(d.v[0].message, "sets the unit of its volumes"));
	free(bad);
	rb_diags_release(&d);
}

/* Widths in one campaign: volumes may share drives when each phase measures one. */
static const char widths[] =
	"name: w\n"
	"insecure: true\n"
	"targets:\n"
	"  - agent: a1\n"
	"    drives:\n"
	"      - {volume: x1, members: [/d/0]}\n"
	"      - {volume: x2, members: [/d/0, /d/1]}\n"
	"      - /d/1\n"
	"phases:\n"
	"  - name: one\n"
	"    drives: [x1]\n"
	"    workload: {rw: read, bs: 1m}\n"
	"  - name: two\n"
	"    drives: [x2]\n"
	"    workload: {rw: read, bs: 1m}\n"
	"  - name: alone\n"
	"    drives: [/d/1, x1]\n"
	"    workload: {rw: read, bs: 1m}\n";

static void test_campaign_phase_drives(void **state)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	char *bad;

	(void)state;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("w.yaml", widths, strlen(widths), &c, &d), 0);
	assert_int_equal(c->ndrives, 3);
	assert_true(rb_point_has_drive(c, &c->points[0], 0));
	assert_false(rb_point_has_drive(c, &c->points[0], 1));
	assert_false(rb_point_has_drive(c, &c->points[1], 0));
	assert_true(rb_point_has_drive(c, &c->points[1], 1));
	assert_true(rb_point_has_drive(c, &c->points[2], 0));
	assert_true(rb_point_has_drive(c, &c->points[2], 2));
	rb_campaign_free(c);
	c = NULL;
	/* a phase measuring two volumes that share a drive, and a name no target has */
	bad = strdup(widths);
	memcpy(strstr(bad, "[/d/1, x1]"), "[/d/1, x2]", 10);
	memcpy(strstr(bad, "drives: [x2]"), "drives: [x9]", 12);
	assert_int_equal(rb_campaign_load("w.yaml", bad, strlen(bad), &c, &d), -EINVAL);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.v[0].line, 13);
	assert_non_null(strstr(d.v[0].message, "phase 'two' measures drive 'x9', which no target has"));
	assert_int_equal(d.v[1].line, 16);
	assert_non_null(strstr(d.v[1].message, "phase 'alone' would measure '/d/1' of agent 'a1' "
					       "twice at once"));
	free(bad);
	rb_diags_release(&d);
	rb_diags_init(&d);
	/* every drive at once (no 'drives'): the shared drive clashes */
	bad = strdup(widths);
	memcpy(strstr(bad, "    drives: [x1]\n"), "    idle: 0s    \n", 17);
	assert_int_equal(rb_campaign_load("w.yaml", bad, strlen(bad), &c, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "phase 'one' would measure '/d/0'"));
	free(bad);
	rb_diags_release(&d);
}

static const char tiny[] = "name: %s\n"
			   "results: %s\n"
			   "listen: %s\n"
			   "targets:\n"
			   "  - agent: a1\n"
			   "    drives: [/d/0]\n"
			   "phases:\n"
			   "  - name: p\n"
			   "    workload: {rw: randread}\n"
			   "%s";

static int load_tiny(const char *name, const char *results, const char *listen,
		     const char *extra, struct rb_campaign **ret, struct rb_diags *d)
{
	char text[32768];

	snprintf(text, sizeof(text), tiny, name, results, listen, extra);
	return rb_campaign_load("t.yaml", text, strlen(text), ret, d);
}

static void test_campaign_refuses_deep_nesting_and_second_document(void **state)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	size_t n = 100000;
	char *deep = malloc(2 * n + 8);

	(void)state;
	rb_diags_init(&d);
	/* 100 000 levels: libyaml alone takes minutes; refused at the 65th */
	memcpy(deep, "x: ", 3);
	memset(deep + 3, '[', n);
	memset(deep + 3 + n, ']', n);
	deep[3 + 2 * n] = '\0';
	assert_int_equal(rb_campaign_load("deep.yaml", deep, strlen(deep), &c, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].line, 1);
	assert_int_equal(d.v[0].column, 3 + 64);
	assert_non_null(strstr(d.v[0].message, "nesting limit"));
	free(deep);
	rb_diags_release(&d);
	/* 64 levels load (the root mapping is the first) */
	rb_diags_init(&d);
	assert_int_equal(load_tiny("t", ".", "tcp://*:7470",
				   "    matrix: {iodepth: [[[[[[[[[[1]]]]]]]]]]}\n", &c, &d),
			 -EINVAL);
	assert_null(strstr(d.v[0].message, "nesting limit"));
	rb_diags_release(&d);
	rb_diags_init(&d);
	assert_int_equal(load_tiny("t", ".", "tcp://*:7470", "---\nname: u\n", &c, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].line, 10);
	assert_non_null(strstr(d.v[0].message, "a second YAML document"));
	rb_diags_release(&d);
}

static void test_campaign_point_limit_before_expansion(void **state)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	char extra[16384], vals[8192];
	size_t n = 0;

	(void)state;
	for (int i = 1; i <= 1000; i++)
		n += (size_t)snprintf(vals + n, sizeof(vals) - n, "%s%d", i > 1 ? ", " : "", i);
	snprintf(extra, sizeof(extra),
		 "    matrix: {iodepth: &v [%s], seed: *v, rate_iops: *v}\n", vals);
	rb_diags_init(&d);
	assert_int_equal(load_tiny("t", ".", "tcp://*:7470", extra, &c, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].line, 8);
	assert_non_null(strstr(d.v[0].message, "point limit: phase 'p' would make 1000000000 "
					       "points (a matrix of 1000 x 1000 x 1000)"));
	rb_diags_release(&d);
	/* repeats count: 101 x 1000 is past 100 000, said once */
	snprintf(extra, sizeof(extra), "    repeat: 1000\n    matrix: {iodepth: [%.*s]}\n",
		 (int)(strstr(vals, ", 102") - vals), vals);
	rb_diags_init(&d);
	assert_int_equal(load_tiny("t", ".", "tcp://*:7470", extra, &c, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "101000 points (a matrix of 101 times 1000 "
					       "repeats)"));
	rb_diags_release(&d);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/* 100 x 1000 is the limit itself: it loads (100 000 points of ~5 KB: seconds here,
	 * past the stage's time under the sanitizers, so only in the plain build) */
	snprintf(extra, sizeof(extra), "    repeat: 1000\n    matrix: {iodepth: [%.*s]}\n",
		 (int)(strstr(vals, ", 101") - vals), vals);
	rb_diags_init(&d);
	assert_int_equal(load_tiny("t", ".", "tcp://*:7470", extra, &c, &d), 0);
	assert_int_equal(c->npoints, 100000);
	c = rb_campaign_free(c);
	rb_diags_release(&d);
#endif
}

static void test_campaign_listen_is_checked_at_load(void **state)
{
	static const char *const bad[] = { "tcp://*:99999", "tcp://127.0.0.1:7470/extra",
					   "tcp://127.0.0.1", "udp://*:1" };
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rb_diags_init(&d);
		assert_int_equal(load_tiny("t", ".", bad[i], "", &c, &d), -EINVAL);
		assert_int_equal(d.n, 1);
		assert_int_equal(d.v[0].line, 3);
		assert_int_equal(d.v[0].column, 9);
		assert_non_null(strstr(d.v[0].message, "'listen' must be"));
		rb_diags_release(&d);
	}
	rb_diags_init(&d);
	assert_int_equal(load_tiny("t", ".", "tcp://127.0.0.1:0", "", &c, &d), 0);
	c = rb_campaign_free(c);
	rb_diags_release(&d);
}

static void test_campaign_results_path_stays_in_the_folder(void **state)
{
	char dir[] = "/tmp/rb-test-results-XXXXXX", path[512], want[512];
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	time_t t = 1767225600; /* 2026-01-01T00:00:00Z */

	(void)state;
	assert_non_null(mkdtemp(dir));
	rb_diags_init(&d);
	assert_int_equal(load_tiny("'../../escaped-by-name'", dir, "tcp://*:7470", "", &c, &d), 0);
	assert_string_equal(c->name, "../../escaped-by-name");
	assert_int_equal(rb_campaign_results_path(c, t, path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/_._.__escaped-by-name-20260101T000000Z.h5", dir);
	assert_string_equal(path, want);
	free(c->name);
	c->name = strdup("a/b/c");
	assert_int_equal(rb_campaign_results_path(c, t, path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/a_b_c-20260101T000000Z.h5", dir);
	assert_string_equal(path, want);
	assert_int_equal(rb_campaign_results_path(c, t, path, 20), -ENAMETOOLONG);
	/* a second run in the same second: the name and a suffix, the first free one (a
	 * journal alone takes a name too) */
	char taken[600];

	snprintf(taken, sizeof(taken), "%s/a_b_c-20260101T000000Z.h5", dir);
	fclose(fopen(taken, "w"));
	snprintf(taken, sizeof(taken), "%s/a_b_c-20260101T000000Z-2.h5.journal", dir);
	fclose(fopen(taken, "w"));
	assert_int_equal(rb_campaign_results_path(c, t, path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/a_b_c-20260101T000000Z-3.h5", dir);
	assert_string_equal(path, want);
	unlink(taken);
	snprintf(taken, sizeof(taken), "%s/a_b_c-20260101T000000Z.h5", dir);
	unlink(taken);
	c = rb_campaign_free(c);
	rb_diags_release(&d);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_campaign_loads_and_expands_matrix),
		cmocka_unit_test(test_campaign_replay_counts_as_writing),
		cmocka_unit_test(test_campaign_reports_every_error_in_file_order),
		cmocka_unit_test(test_campaign_structure_errors),
		cmocka_unit_test(test_campaign_curve_and_steady_state),
		cmocka_unit_test(test_campaign_volumes),
		cmocka_unit_test(test_campaign_phase_drives),
		cmocka_unit_test(test_campaign_refuses_deep_nesting_and_second_document),
		cmocka_unit_test(test_campaign_point_limit_before_expansion),
		cmocka_unit_test(test_campaign_listen_is_checked_at_load),
		cmocka_unit_test(test_campaign_results_path_stays_in_the_folder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
