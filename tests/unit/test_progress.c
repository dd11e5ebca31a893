// SPDX-License-Identifier: MIT
/*
 * A run's progress (coordinator/run/progress.c) fed by hand: the plain lines on a stderr that
 * is not a terminal, the JSON Lines of --events (each event's figures from what was fed:
 * a sample's IOPS its IOs over the interval, a point's its drives' result rows added),
 * and the live view on a pseudo-terminal (the drives the point measures, those past the
 * screen summed, the view erased before a log line).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <cmocka.h>

#include "campaign.h"
#include "capture.h"
#include "log.h"
#include "progress.h"

#define LONG_PATH "/dev/disk/by-id/nvme-VENDOR_MODEL_WITH_A_LONG_NAME_SERIAL0042"

static const char text[] = "name: prog\n"
			   "targets:\n"
			   "  - agent: a1\n"
			   "    drives: [/dev/d0, /dev/d1, /dev/d2]\n"
			   "  - agent: a2\n"
			   "    drives: [/dev/d0, /dev/d1, " LONG_PATH "]\n"
			   "phases:\n"
			   "  - name: all\n"
			   "    workload: {rw: randread, runtime: 10s, ramp: 2s, interval: 2s}\n"
			   "  - name: some\n"
			   "    workload: {rw: randread, runtime: 1m}\n"
			   "    matrix: {iodepth: [1, 2]}\n"
			   "    drives: [" LONG_PATH "]\n";

struct fixture {
	char dir[256], events[512];
	struct rb_campaign *c;
};

static int setup(void **st)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct rb_diags d;

	if (!fx)
		return -1;
	temp_dir(fx->dir, sizeof(fx->dir));
	snprintf(fx->events, sizeof(fx->events), "%s/events.jsonl", fx->dir);
	rb_diags_init(&d);
	if (rb_campaign_load("<progress>", text, strlen(text), &fx->c, &d))
		return -1;
	rb_diags_release(&d);
	*st = fx;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *fx = *st;

	rb_campaign_free(fx->c);
	rm_tree(fx->dir);
	free(fx);
	return 0;
}

/* An interval's end on a drive's clock. */
#define T0 5000000000000LL

/* A run of the first point and the last, as the coordinator feeds it (made here, where
 * stderr is a file, not a terminal). */
struct feed {
	struct fixture *fx;
	struct rb_progress *p;
	char err[256];
};

static int fed_run(int argc, char **argv)
{
	struct feed *f = (struct feed *)(void *)argv[0];

	(void)argc;
	f->p = rb_progress_new(f->fx->c, f->fx->events, f->err, sizeof(f->err));
	if (!f->p)
		return -1;
	rb_progress_point(f->p, 0, NULL);
	/* interval 0: drive 0 reads 1000 IOs and writes 500 in 2 s; interval 1 replaces it */
	rb_progress_sample(f->p, 0, 0, 0, T0, 1000, 4096000, 50000);
	rb_progress_sample(f->p, 0, 0, 1, T0, 500, 2048000, 80000);
	/* the last interval ended half a second after the one before: 3000 IOs in 0.5 s */
	rb_progress_sample(f->p, 0, 1, 0, T0 + 500000000, 3000, 12288000, 20000);
	rb_progress_sample(f->p, 99, 1, 0, T0, 1, 1, 1); /* no such drive: ignored */
	rb_progress_temp(f->p, 1, 45.0);
	rb_progress_temp(f->p, 1, NAN); /* unknown: ignored */
	rb_progress_temp(f->p, 99, 50.0);
	for (size_t d = 0; d < 6; d++)
		if (d != 4)
			rb_progress_result(f->p, d, 100.0 * (double)(d + 1), 1e6 * (double)(d + 1),
					   d != 2);
	rb_progress_result(f->p, 2, 350.0, 3.5e6, true); /* a later attempt: replaces */
	rb_progress_result(f->p, 3, 400.0, 4e6, false);	 /* IO errors: not clean */
	rb_progress_result(f->p, 99, 1e9, 1e9, true);
	rb_progress_tick(f->p);
	rb_progress_point_done(f->p, RB_POINT_OK);
	rb_progress_point(f->p, 2, NULL);
	rb_progress_result(f->p, 5, 777.0, 7e6, true);
	rb_progress_point_done(f->p, RB_POINT_FAILED);
	rb_progress_end(f->p, "partial", 4);
	rb_progress_free(f->p);
	return 0;
}

/* Two size-based points (passes, io_size) started: their start lines say what ends them. */
static int sized_run(int argc, char **argv)
{
	static const char sized[] = "name: sized\n"
				    "targets:\n"
				    "  - agent: a1\n"
				    "    drives: [/dev/d0]\n"
				    "phases:\n"
				    "  - name: fill\n"
				    "    workload: {rw: write, bs: 128k, passes: 2}\n"
				    "  - name: part\n"
				    "    workload: {rw: randread, io_size: 1g}\n";
	struct rb_campaign *c = NULL;
	struct rb_progress *p;
	struct rb_diags d;
	char err[256];

	(void)argc;
	(void)argv;
	rb_diags_init(&d);
	if (rb_campaign_load("<sized>", sized, strlen(sized), &c, &d)) {
		rb_diags_print(&d, stderr);
		rb_diags_release(&d);
		return -1;
	}
	rb_diags_release(&d);
	p = rb_progress_new(c, NULL, err, sizeof(err));
	if (!p)
		return -1;
	rb_progress_point(p, 0, NULL);
	rb_progress_point_done(p, RB_POINT_OK);
	rb_progress_point(p, 1, NULL);
	rb_progress_point_done(p, RB_POINT_OK);
	rb_progress_free(p);
	rb_campaign_free(c);
	return 0;
}

static void test_size_based_start_lines(void **st)
{
	struct out o;

	(void)st;
	cap_run(&o, sized_run, "sized");
	assert_int_equal(o.rc, 0);
	assert_non_null(strstr(o.err, "rackbench: [1/2] fill (2 passes on 1 drive(s))\n"));
	assert_non_null(strstr(o.err, "rackbench: [2/2] part (1g per drive on 1 drive(s))\n"));
	out_free(&o);
}

/* The JSON value of key in line (a number or a string), copied into buf. */
static const char *field(const char *line, const char *key, char *buf, size_t len)
{
	char k[64];
	const char *p;
	size_t n;

	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(line, k);
	buf[0] = '\0';
	if (!p)
		return NULL;
	p += strlen(k);
	if (*p == '"')
		p++;
	n = strcspn(p, "\",}");
	snprintf(buf, len, "%.*s", (int)n, p);
	return buf;
}

static void test_plain_lines_and_events(void **st)
{
	struct fixture *fx = *st;
	char line[1024], v[128], *ev, *save = NULL;
	struct feed f = { .fx = fx };
	struct out o;
	size_t n[6] = { 0 };

	cap_run(&o, fed_run, (const char *)(void *)&f);
	assert_int_equal(o.rc, 0);
	/* the start line: k of n, the runtime, the drives the point measures */
	assert_non_null(strstr(o.err, "rackbench: [1/3] all (10s on 6 drive(s))\n"));
	assert_non_null(strstr(o.err, "rackbench: [3/3] some iodepth=2 (1m00s on 1 drive(s))\n"));
	/* the done line: the result rows added, the later attempt's in place of the earlier */
	/* a drive with errors: the point ran to its end, but not "ok" */
	line_with(o.err, "rackbench: [1/3] all: done (1 of 5 drive(s) with errors) in ", line,
		  sizeof(line));
	assert_non_null(strstr(line, "s, 6 drive(s): 1650 IOPS, 16.5 MB/s (from 5 drive(s) with "
				     "results)"));
	line_with(o.err, "rackbench: [3/3] some iodepth=2: done (failed)", line, sizeof(line));
	assert_non_null(strstr(line, ", 1 drive(s): 777 IOPS, 7.0 MB/s"));
	assert_null(strstr(line, "from"));
	out_free(&o);

	ev = read_text(fx->events);
	assert_non_null(ev);
	for (char *l = strtok_r(ev, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		static const char *const kinds[] = { "point_start", "sample", "health",
						     "point_done", "run_done" };
		size_t k;

		assert_true(!strncmp(l, "{\"t_ns\": ", 9));
		assert_string_equal(l + strlen(l) - 1, "}");
		field(l, "event", v, sizeof(v));
		for (k = 0; k < 5 && strcmp(kinds[k], v); k++)
			;
		assert_true(k < 5);
		n[k]++;
		if (k == 0 && n[0] == 1) {
			assert_string_equal(field(l, "phase", v, sizeof(v)), "all");
			assert_string_equal(field(l, "of", v, sizeof(v)), "3");
			/* ramp and runtime */
			assert_string_equal(field(l, "planned_ns", v, sizeof(v)), "12000000000");
		}
		if (k == 1 && n[1] == 1) {
			/* 1000 IOs of 4096 bytes in a 2 s interval */
			assert_string_equal(field(l, "drive", v, sizeof(v)), "a1:/dev/d0");
			assert_string_equal(field(l, "direction", v, sizeof(v)), "read");
			assert_string_equal(field(l, "iops", v, sizeof(v)), "500.0");
			assert_string_equal(field(l, "mb_s", v, sizeof(v)), "2.048");
			assert_string_equal(field(l, "p99_us", v, sizeof(v)), "50.000");
		}
		if (k == 1 && n[1] == 2)
			assert_string_equal(field(l, "direction", v, sizeof(v)), "write");
		if (k == 1 && n[1] == 3) {
			/* a partial last interval: its IOs over its own length, not 2 s */
			assert_string_equal(field(l, "interval", v, sizeof(v)), "1");
			assert_string_equal(field(l, "iops", v, sizeof(v)), "6000.0");
		}
		if (k == 2) {
			assert_string_equal(field(l, "drive", v, sizeof(v)), "a1:/dev/d1");
			assert_string_equal(field(l, "temperature_c", v, sizeof(v)), "45.0");
		}
		if (k == 3 && n[3] == 1) {
			assert_string_equal(field(l, "status", v, sizeof(v)), "errors");
			assert_string_equal(field(l, "drives_with_errors", v, sizeof(v)), "1");
			assert_string_equal(field(l, "iops", v, sizeof(v)), "1650.0");
			assert_string_equal(field(l, "bw_bytes_per_s", v, sizeof(v)), "16500000.0");
		}
		if (k == 4) {
			assert_string_equal(field(l, "status", v, sizeof(v)), "partial");
			assert_string_equal(field(l, "exit_code", v, sizeof(v)), "4");
		}
	}
	assert_int_equal(n[0], 2);
	assert_int_equal(n[1], 3);
	assert_int_equal(n[2], 1);
	assert_int_equal(n[3], 2);
	assert_int_equal(n[4], 1);
	free(ev);
}

/* An events file that cannot be opened: no progress, and why. */
static void test_events_file_refused(void **st)
{
	struct fixture *fx = *st;
	char err[256];

	assert_null(rb_progress_new(fx->c, "/nonexistent/dir/ev.jsonl", err, sizeof(err)));
	assert_non_null(strstr(err, "cannot open events file '/nonexistent/dir/ev.jsonl'"));
	/* calls on no progress are nothing */
	rb_progress_sample(NULL, 0, 0, 0, T0, 1, 1, 1);
	rb_progress_capacity(NULL, 0, 1);
	rb_progress_temp(NULL, 0, 1);
	rb_progress_result(NULL, 0, 1, 1, true);
	rb_progress_tick(NULL);
	rb_progress_free(NULL);
}

/* A pseudo-terminal of 8 rows and what was written to it. */
struct tty {
	int master, slave, saved;
};

static bool tty_open(struct tty *t)
{
	struct termios tio;
	struct winsize ws = { .ws_row = 8, .ws_col = 160 };

	t->master = posix_openpt(O_RDWR | O_NOCTTY);
	if (t->master < 0 || grantpt(t->master) || unlockpt(t->master))
		return false;
	t->slave = open(ptsname(t->master), O_RDWR | O_NOCTTY);
	if (t->slave < 0 || tcgetattr(t->slave, &tio))
		return false;
	cfmakeraw(&tio);
	tcsetattr(t->slave, TCSANOW, &tio);
	ioctl(t->slave, TIOCSWINSZ, &ws);
	fcntl(t->master, F_SETFL, O_NONBLOCK);
	fflush(stderr);
	t->saved = dup(2);
	dup2(t->slave, 2);
	return true;
}

static char *tty_close(struct tty *t)
{
	char *s = calloc(1, 65536);
	size_t n = 0;
	ssize_t r;

	fflush(stderr);
	dup2(t->saved, 2);
	close(t->saved);
	close(t->slave);
	while (s && n < 65535 && (r = read(t->master, s + n, 65535 - n)) > 0)
		n += (size_t)r;
	close(t->master);
	return s;
}

static void test_live_view(void **st)
{
	struct fixture *fx = *st;
	struct tty t;
	struct rb_progress *p;
	char err[256], *screen;

	setenv("TERM", "xterm", 1);
	unsetenv("NO_COLOR");
	if (!tty_open(&t))
		skip();
	p = rb_progress_new(fx->c, NULL, err, sizeof(err));
	if (p) {
		/* a temperature read before the point: in its view */
		rb_progress_temp(p, 1, 45.0);
		rb_progress_point(p, 0, NULL);
		rb_progress_sample(p, 0, 0, 0, T0, 1000, 4096000, 50000);
		/* a log line while the view is up: the view goes first */
		rb_warn("a warning");
		rb_progress_point(p, 1, NULL);
		rb_progress_free(p);
	}
	screen = tty_close(&t);
	assert_non_null(p);
	assert_non_null(screen);
	/* bold heading: phase, point k of n */
	assert_non_null(strstr(screen, "\033[1mall \u00b7 point 1/3 all \u00b7 "));
	assert_non_null(strstr(screen, "\033[0m"));
	/* 8 rows: 4 drives shown, the other 2 summed */
	assert_non_null(strstr(screen, "  ... 2 more; all drives: "));
	assert_non_null(strstr(screen, "a1:/dev/d1"));
	assert_non_null(strstr(screen, "45C"));
	/* erased before the log line: the heading, the column names, 4 drives, the sum */
	assert_non_null(strstr(screen, "\033[7A\r\033[J"));
	assert_non_null(strstr(screen, "rackbench: warning: a warning"));
	assert_non_null(strstr(screen, "point 2/3 some iodepth=1"));
	/* the second point measures one drive: no summary line in its view; its long label
	 * whole on a terminal of 160 columns */
	assert_null(strstr(strstr(screen, "point 2/3"), "more; all drives"));
	assert_non_null(strstr(strstr(screen, "point 2/3"), "  a2:" LONG_PATH " "));
	free(screen);
	/* NO_COLOR: the same view without colour */
	setenv("NO_COLOR", "1", 1);
	if (!tty_open(&t))
		skip();
	p = rb_progress_new(fx->c, NULL, err, sizeof(err));
	if (p) {
		rb_progress_point(p, 0, NULL);
		rb_progress_free(p);
	}
	screen = tty_close(&t);
	unsetenv("NO_COLOR");
	assert_non_null(screen);
	assert_null(strstr(screen, "\033[1m"));
	assert_non_null(strstr(screen, "all \u00b7 point 1/3"));
	free(screen);
}

/* A point whose every drive had errors is "failed", not "done (ok)"; one whose drives
 * sent no result row neither. */
static int failed_run(int argc, char **argv)
{
	struct fixture *fx = (struct fixture *)(void *)argv[0];
	struct rb_progress *p = rb_progress_new(fx->c, NULL, NULL, 0);

	(void)argc;
	if (!p)
		return -1;
	rb_progress_point(p, 1, NULL);
	rb_progress_result(p, 5, 10.0, 1e4, false);
	rb_progress_point_done(p, RB_POINT_OK);
	rb_progress_point(p, 2, NULL);
	rb_progress_point_done(p, RB_POINT_OK);
	rb_progress_free(p);
	return 0;
}

static void test_failed_points(void **st)
{
	struct out o;

	cap_run(&o, failed_run, (const char *)*st);
	assert_int_equal(o.rc, 0);
	assert_non_null(
		strstr(o.err, "[2/3] some iodepth=1: done (failed: every drive had errors)"));
	assert_non_null(
		strstr(o.err, "[3/3] some iodepth=2: done (failed: no drive's result came)"));
	assert_null(strstr(o.err, "(ok)"));
	out_free(&o);
}

/* A size-based point's view: the share of its bytes the drive moved (from its capacity),
 * not a runtime it does not have; the ETA names the size-based points it cannot time. */
static void test_size_based_view(void **st)
{
	static const char sized[] = "name: sized\n"
				    "targets:\n"
				    "  - agent: a1\n"
				    "    drives: [/dev/d0]\n"
				    "phases:\n"
				    "  - name: fill\n"
				    "    workload: {rw: write, bs: 128k, passes: 2, interval: 1s}\n"
				    "  - name: timed\n"
				    "    workload: {rw: randread, runtime: 1m}\n"
				    "  - name: part\n"
				    "    workload: {rw: randread, io_size: 1g}\n";
	struct rb_campaign *c = NULL;
	struct rb_progress *p;
	struct rb_diags d;
	struct tty t;
	char err[256], *screen;

	(void)st;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("<sized>", sized, strlen(sized), &c, &d), 0);
	rb_diags_release(&d);
	setenv("TERM", "xterm", 1);
	if (!tty_open(&t))
		skip();
	p = rb_progress_new(c, NULL, err, sizeof(err));
	if (p) {
		rb_progress_capacity(p, 0, 1ULL << 30);
		rb_progress_point(p, 0, NULL);
		/* 512 MiB of the 2 GiB two passes move */
		rb_progress_sample(p, 0, 0, 1, T0, 4096, 512ULL << 20, 1000);
		usleep(600000); /* the view is redrawn twice a second */
		rb_progress_tick(p);
		rb_progress_free(p);
	}
	screen = tty_close(&t);
	rb_campaign_free(c);
	assert_non_null(p);
	assert_non_null(screen);
	assert_non_null(strstr(screen, "fill · point 1/3 fill · "));
	assert_non_null(strstr(screen, ", 25% moved · ETA "));
	/* the timed point's minute is counted, the io_size one is named */
	assert_non_null(strstr(screen, " + 1 size-based point(s)"));
	assert_null(strstr(screen, " of 0s"));
	free(screen);
}

/*
 * What a fill's view says while some drives have ended and one was refused: the refused
 * drive is not counted (not in "N drive(s)", not the slowest of "% moved"); a drive whose
 * result came reads "done" and adds nothing to the total, which is the running drive's
 * alone; the ETA is the running drive's bytes left at its speed on its own clock (not
 * counting the point's set-up before its first IO).
 */
static void test_finished_and_refused(void **st)
{
	static const char fill[] =
		"name: fill\n"
		"targets:\n"
		"  - agent: a1\n"
		"    drives: [/dev/d0, /dev/d1, /dev/d2, /dev/d3, /dev/d4, /dev/d5]\n"
		"phases:\n"
		"  - name: fill\n"
		"    workload: {rw: write, bs: 128k, passes: 1, interval: 1s}\n";
	static const bool refused[6] = { false, false, false, false, false, true };
	struct rb_campaign *c = NULL;
	struct rb_progress *p;
	struct rb_diags d;
	struct tty t;
	char err[256], *screen, *view;

	(void)st;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("<fill>", fill, strlen(fill), &c, &d), 0);
	rb_diags_release(&d);
	setenv("TERM", "xterm", 1);
	if (!tty_open(&t))
		skip();
	p = rb_progress_new(c, NULL, err, sizeof(err));
	if (p) {
		for (size_t i = 0; i < 6; i++)
			rb_progress_capacity(p, i, 1ULL << 30);
		rb_progress_point(p, 0, refused);
		/* d0: 100 MiB a second for two seconds (800 writes of 128 KiB a second) */
		rb_progress_sample(p, 0, 0, 1, T0, 800, 100ULL << 20, 1000);
		rb_progress_sample(p, 0, 1, 1, T0 + 1000000000, 800, 100ULL << 20, 1000);
		/* d1: its whole GiB in three intervals, then its result: done */
		rb_progress_sample(p, 1, 0, 1, T0, 3000, 375ULL << 20, 1000);
		rb_progress_sample(p, 1, 1, 1, T0 + 1000000000, 3000, 375ULL << 20, 1000);
		rb_progress_sample(p, 1, 2, 1, T0 + 1700000000, 2192, 274ULL << 20, 1000);
		rb_progress_result(p, 1, 4400, 600e6, true);
		usleep(600000); /* the view is redrawn twice a second */
		rb_progress_tick(p);
		rb_progress_free(p);
	}
	screen = tty_close(&t);
	rb_campaign_free(c);
	assert_non_null(p);
	assert_non_null(screen);
	/* 5 drives run (the refused one is not counted) */
	assert_non_null(strstr(screen, "fill (1 pass on 5 drive(s))"));
	/* the last view drawn: the slowest running drive moved 200 of 1024 MiB; d2..d4 have
	 * moved nothing yet, so no time is known */
	view = screen;
	for (char *x = strstr(view, "fill \u00b7 point"); x; x = strstr(x + 1, "fill \u00b7 point"))
		view = x;
	assert_non_null(strstr(view, ", 0% moved \u00b7 ETA "));
	snprintf(err, sizeof(err), "  %-20s %11s\n", "a1:/dev/d1", "done");
	assert_non_null(strstr(view, err));
	/* 8 rows: 4 of the 5 drives shown; the total is d0's alone: 800 IOPS, 104.9 MB/s */
	assert_non_null(strstr(view, "  ... 1 more; all drives: 800 IOPS, 104.9 MB/s"));
	free(screen);
}

/* The ETA of a fill: the slowest running drive's bytes left at its speed on its own clock. */
static void test_fill_eta(void **st)
{
	static const char fill[] = "name: fill\n"
				   "targets:\n"
				   "  - agent: a1\n"
				   "    drives: [/dev/d0, /dev/d1]\n"
				   "phases:\n"
				   "  - name: fill\n"
				   "    workload: {rw: write, bs: 128k, passes: 1, interval: 1s}\n";
	struct rb_campaign *c = NULL;
	struct rb_progress *p;
	struct rb_diags d;
	struct tty t;
	char err[256], *screen, *view;

	(void)st;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("<fill>", fill, strlen(fill), &c, &d), 0);
	rb_diags_release(&d);
	setenv("TERM", "xterm", 1);
	if (!tty_open(&t))
		skip();
	p = rb_progress_new(c, NULL, err, sizeof(err));
	if (p) {
		rb_progress_capacity(p, 0, 1ULL << 30);
		rb_progress_capacity(p, 1, 1ULL << 30);
		rb_progress_point(p, 0, NULL);
		/* d0: 256 MiB in its first 2 s: 768 MiB left at 128 MiB/s is 6 s; d1 done */
		rb_progress_sample(p, 0, 0, 1, T0, 1024, 128ULL << 20, 1000);
		rb_progress_sample(p, 0, 1, 1, T0 + 1000000000, 1024, 128ULL << 20, 1000);
		rb_progress_result(p, 1, 1000, 1e9, true);
		usleep(600000);
		rb_progress_tick(p);
		rb_progress_free(p);
	}
	screen = tty_close(&t);
	rb_campaign_free(c);
	assert_non_null(screen);
	view = screen;
	for (char *x = strstr(view, "fill \u00b7 point"); x; x = strstr(x + 1, "fill \u00b7 point"))
		view = x;
	assert_non_null(strstr(view, ", 25% moved \u00b7 ETA 6s"));
	free(screen);
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_based_start_lines),
		cmocka_unit_test_setup_teardown(test_plain_lines_and_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_points, setup, teardown),
		cmocka_unit_test(test_size_based_view),
		cmocka_unit_test(test_finished_and_refused),
		cmocka_unit_test(test_fill_eta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
