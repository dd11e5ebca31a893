// SPDX-License-Identifier: MIT
/*
 * `rackbench plan`, `options` and `presets` (coordinator/cli/plan.c, presets.c) run in this
 * process on campaign files written here: each phase's points and time as its workload
 * adds up (ramp + runtime + idle per point, a steady state's window to max_rounds
 * rounds, size-based bytes from --assume-capacity and their time from --assume-mbps),
 * every point listed, the methodology hash the campaign has, and each refusal's exit code.
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
#include "campaign_keys.h"
#include "capture.h"
#include "cmds.h"
#include "exitcode.h"
#include "log.h"
#include "options.h"
#include "plan.h"
#include "presets.h"

struct fixture {
	char dir[256], file[512];
};

static int setup(void **st)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	temp_dir(fx->dir, sizeof(fx->dir));
	snprintf(fx->file, sizeof(fx->file), "%s/c.yaml", fx->dir);
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

/*
 * A fill of 2 passes over 10g; 3 queue depths of 2 s ramp + 10 s and 3 s idle (45 s) on
 * one drive; a steady state of 2 points of 1 min per round, 3 to 5 rounds (6 to 10 min);
 * a curve of 3 points of 20 s (1 min); a purge.
 */
static const char mixed[] = "name: planned\n"
			    "insecure: true\n"
			    "destructive: true\n"
			    "targets:\n"
			    "  - agent: a1\n"
			    "    drives: [/dev/x0, /dev/x1]\n"
			    "  - agent: a2\n"
			    "    select: {model: M, count: 3}\n"
			    "phases:\n"
			    "  - name: fill\n"
			    "    workload: {rw: write, bs: 128k, size: 10g, passes: 2}\n"
			    "  - name: qd\n"
			    "    workload: {rw: randread, bs: 4k, runtime: 10s, ramp: 2s}\n"
			    "    matrix: {iodepth: [1, 4, 16]}\n"
			    "    idle: 3s\n"
			    "    drives: [/dev/x0]\n"
			    "  - name: ss\n"
			    "    workload: {rw: randwrite, bs: 4k, runtime: 1m}\n"
			    "    matrix: {iodepth: [1, 8]}\n"
			    "    steady_state: {max_rounds: 5, window: 3}\n"
			    "  - name: cv\n"
			    "    workload: {rw: randread, bs: 8k, runtime: 20s}\n"
			    "    curve: [50, 100]\n"
			    "  - name: wipe\n"
			    "    purge: {method: deallocate}\n";

static void test_plan_phases_and_times(void **st)
{
	struct fixture *fx = *st;
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	struct out o;
	char want[512], line[512], meth[32];

	write_text(fx->file, "%s", mixed);
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load_file(fx->file, &c, &d), 0);
	rb_diags_release(&d);
	cap_run(&o, rb_plan_cmd, "plan", fx->file);
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_string_equal(o.err, "");
	snprintf(want, sizeof(want),
		 "campaign planned: 2 agent(s), 2 drive(s) + 3 chosen by "
		 "identity when their agents connect (--resolve shows them), 5 phase(s), %zu "
		 "point(s), writes (destructive)\n",
		 c->npoints);
	assert_true(!strncmp(o.out, want, strlen(want)));
	assert_int_equal(c->npoints, 1 + 3 + 10 + 3 + 1);
	/* samples of 1 s: qd 3 points x 1 drive x 10, ss 10 x 2 x 60, cv 3 x 2 x 20; the fill
	 * and the purge have no time to count */
	assert_non_null(strstr(o.out, "results: about 1350 sample rows: 527 KiB of HDF5 and 1.54 "
				      "MiB of journal"));
	assert_non_null(strstr(o.out, ", plus the drives chosen when agents connect, plus the "
				      "size-based points' (--assume-capacity, --assume-mbps)\n"));
	assert_non_null(
		strstr(o.out, "phase fill: 1 point(s), 0s; size-based: 20.0 GiB per drive\n"));
	assert_non_null(strstr(o.out, "phase qd: 3 point(s), 45s\n  measures: /dev/x0\n"));
	assert_non_null(strstr(o.out, "phase ss: steady state over 2 point(s) per round, 3 to 5 "
				      "rounds: 6 to 10 points, 6m00s to 10m00s\n"));
	assert_non_null(strstr(o.out, "phase cv: 3 point(s) (1 curve(s): an unthrottled run, then "
				      "2 rate(s) each), 1m00s\n"));
	assert_non_null(
		strstr(o.out, "phase wipe: purge (deallocate): time depends on the drives"));
	/* every point listed, numbered, with its own time or kind */
	for (size_t i = 0; i < c->npoints; i++) {
		snprintf(want, sizeof(want), "  %4zu  %-44s ", i + 1, c->points[i].name);
		line_with(o.out, want, line, sizeof(line));
		assert_true(line[0]);
		if (c->points[i].purge[0])
			assert_non_null(strstr(line, " purge"));
		else if (c->points[i].wl.passes)
			assert_non_null(strstr(line, "size-based (passes)"));
		else if (c->points[i].wl.ramp_ns)
			assert_non_null(strstr(line, " 12s"));
	}
	/* at least every window, at most every round; the fill and purge have no time */
	assert_non_null(strstr(o.out, "time: 7m45s to 11m45s (idle included; steady state "
				      "decides), plus size-based points (time depends on the "
				      "drives)\n"));
	snprintf(want, sizeof(want), "methodology: %s (stored",
		 rb_campaign_methodology(c, meth, sizeof(meth)));
	assert_non_null(strstr(o.out, want));
	out_free(&o);

	/* at 1000 MB/s the fill's 20 GiB take 21.5 s, in the phase and the total */
	cap_run(&o, rb_plan_cmd, "plan", fx->file, "--assume-mbps", "1000");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out,
			       "phase fill: 1 point(s), 21.5s; size-based: 20.0 GiB per drive, "
			       "21.5s at 1000 MB/s\n"));
	assert_non_null(strstr(o.out, "time: 8m06s to 12m06s"));
	out_free(&o);
	rb_campaign_free(c);
}

/* Size-based points: bytes from the capacity assumed, time from the MB/s assumed. */
static void test_plan_size_based(void **st)
{
	struct fixture *fx = *st;
	struct out o;

	write_text(fx->file, "targets: [{agent: a, drives: [d]}]\n"
			     "phases:\n"
			     "  - name: half\n"
			     "    workload: {rw: write, bs: 128k, size_pct: 50, offset: 10g, "
			     "passes: 2}\n"
			     "  - name: some\n"
			     "    workload: {rw: write, bs: 128k, io_size: 3g}\n");
	/* no capacity: the fill's bytes are not known */
	cap_run(&o, rb_plan_cmd, "plan", fx->file);
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out, "phase half: 1 point(s), size-based: time depends on the "
				      "drives (--assume-capacity, --assume-mbps)\n"));
	assert_non_null(
		strstr(o.out, "phase some: 1 point(s), 0s; size-based: 3.00 GiB per drive\n"));
	assert_non_null(strstr(o.out, "size-based (passes)"));
	assert_non_null(strstr(o.out, "size-based (io_size)"));
	assert_non_null(strstr(o.out, "time: 0s (idle included), plus size-based points"));
	assert_non_null(strstr(o.out, ", writes (destructive)"));
	out_free(&o);
	/* 210g: half of the 200g past the offset, twice */
	assert_run(RB_EXIT_OK, out, "phase half: 1 point(s), 0s; size-based: 200 GiB per drive\n",
		   rb_plan_cmd, "plan", fx->file, "--assume-capacity", "210g");
	/* a capacity below the offset leaves nothing to fill: unknown again */
	assert_run(RB_EXIT_OK, out, "phase half: 1 point(s), size-based: time depends", rb_plan_cmd,
		   "plan", fx->file, "--assume-capacity", "5g");
	/* 3 GiB at 3 MB/s: 17m53s */
	cap_run(&o, rb_plan_cmd, "plan", fx->file, "--assume-capacity", "210g", "--assume-mbps",
		"3");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out,
			       "phase some: 1 point(s), 17m53s; size-based: 3.00 GiB per drive, "
			       "17m53s at 3 MB/s\n"));
	out_free(&o);
}

/* Several size-based points in a phase, each timed by --assume-mbps: the total is the
 * whole plan's, with nothing left to the drives. */
static void test_plan_size_based_all_timed(void **st)
{
	struct fixture *fx = *st;
	struct out o;

	write_text(fx->file, "targets: [{agent: a, drives: [d]}]\n"
			     "phases:\n"
			     "  - name: fill\n"
			     "    workload: {rw: write, bs: 128k, size: 1g, passes: 1}\n"
			     "    matrix: {iodepth: [1, 2]}\n");
	cap_run(&o, rb_plan_cmd, "plan", fx->file, "--assume-mbps", "1000");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out,
			       "phase fill: 2 point(s), 2.15s; size-based: 2.00 GiB per drive, "
			       "2.15s at 1000 MB/s\n"));
	assert_non_null(strstr(o.out, "time: 2.15s (idle included)\n"));
	/* 1 GiB at 1000 MB/s: 1.07 s, two intervals of 1 s, at each point */
	assert_non_null(strstr(o.out, "results: about 4 sample rows: "));
	out_free(&o);
	assert_run(RB_EXIT_OK, out,
		   "results: the size-based points' samples depend on the drives' speed",
		   rb_plan_cmd, "plan", fx->file);
	/* without the rate their time is open, and said so */
	assert_run(RB_EXIT_OK, out, "time: 0s (idle included), plus size-based points", rb_plan_cmd,
		   "plan", fx->file);
	/* the idle after each fill is planned time either way; the run has none after its
	 * last point */
	write_text(fx->file, "targets: [{agent: a, drives: [d]}]\n"
			     "phases:\n"
			     "  - name: fill\n"
			     "    workload: {rw: write, bs: 128k, size: 1g, passes: 1}\n"
			     "    matrix: {iodepth: [1, 2]}\n"
			     "    idle: 30s\n");
	assert_run(RB_EXIT_OK, out, "phase fill: 2 point(s), 1m00s; size-based", rb_plan_cmd,
		   "plan", fx->file);
	assert_run(RB_EXIT_OK, out, "time: 30s (idle included), plus size-based points",
		   rb_plan_cmd, "plan", fx->file);
	assert_run(RB_EXIT_OK, out,
		   "phase fill: 2 point(s), 1m02s; size-based: 2.00 GiB per drive, "
		   "2.15s at 1000 MB/s\n",
		   rb_plan_cmd, "plan", fx->file, "--assume-mbps", "1000");
}

/* A read-only campaign of more than 100 points lists them only when asked. */
static void test_plan_many_points(void **st)
{
	struct fixture *fx = *st;
	struct out o;

	write_text(fx->file,
		   "targets: [{agent: a, drives: [d]}]\n"
		   "phases:\n"
		   "  - workload: {rw: randread, runtime: 1s}\n"
		   "    matrix: {iodepth: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],\n"
		   "             bs: [4k, 8k, 12k, 16k, 20k, 24k, 28k, 32k, 36k, 40k]}\n");
	cap_run(&o, rb_plan_cmd, "plan", fx->file);
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out, "1 phase(s), 110 point(s), read-only\n"));
	assert_non_null(strstr(o.out, "  (110 points: --points lists them)\n"));
	assert_null(strstr(o.out, "     1  "));
	/* 110 points of 1 s */
	assert_non_null(strstr(o.out, "time: 1m50s (idle included)\n"));
	out_free(&o);
	cap_run(&o, rb_plan_cmd, "plan", "--points", fx->file);
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_non_null(strstr(o.out, "   110  "));
	assert_null(strstr(o.out, "--points lists them"));
	out_free(&o);
}

/* Arguments and campaigns that do not load: exit 2, and why. */
static void test_plan_refusals(void **st)
{
	struct fixture *fx = *st;
	struct out o;
	char want[600];

	write_text(fx->file, "%s", mixed);
	assert_run(RB_EXIT_OK, out, "usage: rackbench plan CAMPAIGN.yaml", rb_plan_cmd, "plan",
		   "--help");
	assert_run(RB_EXIT_USAGE, err, "usage: rackbench plan CAMPAIGN.yaml", rb_plan_cmd, "plan");
	assert_run(RB_EXIT_USAGE, err, "'--assume-capacity' must be a size like 7680g, not '0'",
		   rb_plan_cmd, "plan", fx->file, "--assume-capacity", "0");
	cap_run(&o, rb_plan_cmd, "plan", fx->file, "--assume-mbps", "fast");
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_non_null(
		strstr(o.err, "'--assume-mbps' must be a whole number of MB/s, not 'fast'"));
	out_free(&o);
	assert_run(RB_EXIT_USAGE, err, "unexpected argument", rb_plan_cmd, "plan", fx->file,
		   fx->file);
	assert_run(RB_EXIT_USAGE, err, "'--lock' needs a value", rb_plan_cmd, "plan", "--lock");
	/* a campaign with an error: its FILE:LINE:COL, nothing planned */
	write_text(fx->file, "targets: [{agent: a, drives: [d]}]\nphases:\n"
			     "  - workload: {rw: randread, iodepth: lots}\n");
	cap_run(&o, rb_plan_cmd, "plan", fx->file);
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_string_equal(o.out, "");
	snprintf(want, sizeof(want), "%s:3:", fx->file);
	assert_non_null(strstr(o.err, want));
	assert_non_null(strstr(o.err, "iodepth"));
	out_free(&o);
}

/* --resolve waits for the agents; none within 'wait' is a failed run, told so. */
static void test_plan_resolve_without_agents(void **st)
{
	struct fixture *fx = *st;
	char ep[600], lock[600];
	struct out o;

	snprintf(ep, sizeof(ep), "ipc://%s/sock", fx->dir);
	snprintf(lock, sizeof(lock), "%s/c.lock", fx->dir);
	write_text(fx->file, "insecure: true\nwait: 0s\ntargets: [{agent: a, drives: [d]}]\n"
			     "phases:\n  - workload: {rw: randread}\n");
	cap_run(&o, rb_plan_cmd, "plan", fx->file, "--lock", lock, "--listen", ep);
	assert_int_equal(o.rc, RB_EXIT_FAILED);
	assert_non_null(strstr(o.err, "'a'"));
	assert_int_equal(access(lock, F_OK), -1);
	out_free(&o);
}

/* The option table: one line an option, or JSON naming each, the keys and presets. */
static void test_options(void **st)
{
	struct out o;
	char want[256];
	size_t np;
	const struct rb_preset *pr = rb_presets(&np);

	(void)st;
	cap_run(&o, rb_options_cmd, "options");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_int_equal(count_of(o.out, "\n"), rb_workload_nopts);
	for (size_t i = 0; i < rb_workload_nopts; i++) {
		snprintf(want, sizeof(want), "%-20s ", rb_workload_opts[i].key);
		assert_non_null(strstr(o.out, want));
	}
	assert_non_null(strstr(o.out, "bs                   size "));
	assert_non_null(strstr(o.out, "rw                   enum "));
	out_free(&o);
	cap_run(&o, rb_options_cmd, "options", "--json");
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_true(!strncmp(o.out, "{\"options\": [{\"key\": ", 21));
	assert_int_equal(count_of(o.out, "{\"key\": "), rb_workload_nopts);
	assert_non_null(
		strstr(o.out, "{\"key\": \"iodepth\", \"type\": \"uint\", \"default\": \"1\""));
	assert_non_null(strstr(o.out, "\"type\": \"bool\""));
	assert_non_null(strstr(o.out, "\"type\": \"duration\""));
	assert_non_null(strstr(o.out, "\"choices\": [\"read\", \"write\""));
	/* every key of the campaign key table, in its row */
	for (size_t i = 0; i < rb_nckeys; i++) {
		snprintf(want, sizeof(want), "{\"name\": \"%s\", \"where\": \"%s\"",
			 rb_ckeys[i].name, rb_ckey_where_id(rb_ckeys[i].where));
		assert_non_null(strstr(o.out, want));
	}
	for (size_t i = 0; i < np; i++) {
		snprintf(want, sizeof(want), "\"%s\"", pr[i].name);
		assert_non_null(strstr(strstr(o.out, "\"presets\": ["), want));
	}
	assert_string_equal(o.out + strlen(o.out) - 3, "]}\n");
	out_free(&o);
	assert_run(RB_EXIT_OK, out, "usage: rackbench options [--json]", rb_options_cmd, "options",
		   "--help");
	cap_run(&o, rb_options_cmd, "options", "--yaml");
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	out_free(&o);
}

/* The presets: listed with the points each expands to (as plan counts a campaign using
 * it), printed one by one, unknown ones refused. */
static void test_presets(void **st)
{
	struct fixture *fx = *st;
	struct out o, one;
	size_t np;
	const struct rb_preset *pr = rb_presets(&np);
	char line[1024];

	assert_true(np >= 2);
	assert_ptr_equal(rb_preset_find(pr[1].name), &pr[1]);
	assert_null(rb_preset_find("no-such-preset"));
	cap_run(&o, rb_presets_cmd, "presets");
	assert_int_equal(o.rc, RB_EXIT_OK);
	for (size_t i = 0; i < np; i++) {
		unsigned listed = 0, planned = 0;
		char *p;

		/* checkpoints are written on a filesystem of the drive's */
		write_text(fx->file,
			   "insecure: true\ntargets: [{agent: a, %sdrives: [/dev/d]}]\n"
			   "preset: %s\n",
			   strstr(pr[i].text, "rw: checkpoint") ? "filesystem: xfs, " : "",
			   pr[i].name);
		cap_run(&one, rb_plan_cmd, "plan", fx->file);
		assert_int_equal(one.rc, RB_EXIT_OK);
		p = strstr(one.out, "phase(s), ");
		assert_non_null(p);
		assert_int_equal(sscanf(p, "phase(s), %u point(s)", &planned), 1);
		out_free(&one);
		line_with(o.out, pr[i].summary, line, sizeof(line));
		assert_true(!strncmp(line, pr[i].name, strlen(pr[i].name)));
		assert_int_equal(sscanf(line + strlen(pr[i].name), "%u points", &listed), 1);
		assert_true(listed > 0);
		assert_int_equal(listed, planned);
		cap_run(&one, rb_presets_cmd, "presets", pr[i].name);
		assert_int_equal(one.rc, RB_EXIT_OK);
		assert_non_null(strstr(one.out, pr[i].text));
		assert_true(!strncmp(one.out, "# preset ", 9));
		out_free(&one);
	}
	out_free(&o);
	assert_run(RB_EXIT_USAGE, err, "unknown preset 'no-such-preset'", rb_presets_cmd, "presets",
		   "no-such-preset");
	assert_run(RB_EXIT_OK, out, "usage: rackbench presets [NAME]", rb_presets_cmd, "presets",
		   "--help");
	cap_run(&o, rb_presets_cmd, "presets", "a", "b");
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	out_free(&o);
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_plan_phases_and_times, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_size_based, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_size_based_all_timed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_many_points, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_resolve_without_agents, setup, teardown),
		cmocka_unit_test(test_options),
		cmocka_unit_test_setup_teardown(test_presets, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
