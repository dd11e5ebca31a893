// SPDX-License-Identifier: MIT
/*
 * The report's sections of what the drive says of itself, from a results file written
 * with known rows: write amplification per point (FDP, else OCP C0h), the FDP events
 * logged during points, thermal throttling within points (the SMART counters' rise), the
 * drive's own latency buckets beside the host's, and its C0h counters beside SMART's and
 * the host's AER count, with the witnesses that disagree named. Text and page.
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
#include "log.h"
#include "report.h"
#include "results.h"

#define SEC 1000000000LL

/* The line of text holding want, into buf; fails when none does (capture.h's, checked). */
static void line_of(const char *text, const char *want, char *buf, size_t len)
{
	if (!line_with(text, want, buf, len)[0])
		fail_msg("no line holds '%s' in:\n%s", want, text);
}

/* One health reading of drive 0 at point p: SMART's throttling, the host's AER count. */
static void health(struct rb_results *r, uint32_t p, uint8_t when, int64_t t, double throttled,
		   double aer)
{
	struct rb_row_health h = { .point = p, .when = when, .t_ns = t };

	h.h.nvme = 1;
	h.h.throttle_transitions = throttled;
	h.h.throttle_seconds = throttled;
	h.h.pcie = 1;
	h.h.aer_correctable = aer;
	h.h.aer_nonfatal = h.h.aer_fatal = 0;
	assert_int_equal(rb_results_health(r, &h), 0);
}

/* Drive 0's result at point p: 1,000 writes of 64 KiB, its own counters as given. */
static void result(struct rb_results *r, uint32_t p, double throttle_events, double pcie)
{
	struct rb_row_result x = { .point = p, .core.elapsed_ns = 4 * SEC };

	x.core.start_ns = (int64_t)(p * 10) * SEC;
	x.core.end_ns = x.core.start_ns + 4 * SEC;
	snprintf(x.status, sizeof(x.status), "ok");
	x.write.ios = 1000;
	x.write.bytes = 1000 << 16;
	x.write.iops = 250;
	x.write.lat_p99_ns = 2000000;
	x.health_write_bytes = 1000 << 16;
	x.fdp_host_bytes = p ? NAN : 1000 << 16;
	x.fdp_media_bytes = p ? NAN : 3000 << 16;
	x.waf = p ? NAN : 3.0;
	x.ocp_media_bytes = 2000 << 16;
	x.ocp_waf = 2.0;
	x.ocp_throttle_events = throttle_events;
	x.ocp_throttle_status = throttle_events > 0;
	x.ocp_pcie_correctable = pcie;
	x.ocp_link_retrains = 0;
	x.ocp_power_state_changes = NAN; /* it fell: reset or wrapped */
	assert_int_equal(rb_results_result(r, &x), 0);
}

/* The file: one NVMe drive, two points of 4 one-second intervals. */
static void write_file(const char *path)
{
	struct rb_results_meta m = { .campaign_name = "own", .methodology = "", .start_ns = 1 };
	struct rb_row_drive d = { .drive = 0 };
	char err[256];
	struct rb_results *r = rb_results_create(path, &m, err, sizeof(err));

	if (!r)
		fail_msg("%s", err);
	snprintf(d.agent, sizeof(d.agent), "a1");
	snprintf(d.id.path, sizeof(d.id.path), "/dev/nvme0n1");
	assert_int_equal(rb_results_drive(r, &d), 0);
	for (uint32_t p = 0; p < 2; p++) {
		struct rb_row_point x = { .point = p };

		snprintf(x.name, sizeof(x.name), p ? "hot" : "cool");
		snprintf(x.rw, sizeof(x.rw), "write");
		assert_int_equal(rb_results_point(r, &x), 0);
		for (uint32_t i = 0; i < 4; i++) {
			struct rb_row_sample s = { .point = p,
						   .interval = i,
						   .direction = 1,
						   .t_ns = (int64_t)(p * 10 + i + 1) * SEC,
						   .ios = 250 };

			assert_int_equal(rb_results_sample(r, &s), 0);
		}
	}
	/* cool: C0h counts 2 throttle events SMART never saw, 3 PCIe errors the host's AER
	 * counted none of; hot: SMART rose between 2.5 s and 3.5 s, C0h counted none */
	result(r, 0, 2, 3);
	result(r, 1, 0, 0);
	health(r, 0, 0, 0, 5, 7);
	health(r, 0, 2, 4 * SEC, 5, 7);
	health(r, 1, 0, 10 * SEC, 5, 7);
	health(r, 1, 1, 12 * SEC + SEC / 2, 5, 7);
	health(r, 1, 1, 13 * SEC + SEC / 2, 6, 9);
	health(r, 1, 2, 14 * SEC, 6, 9);
	/* the drive's latency buckets at the cool point, 5, 10, 20 and 40 ms */
	for (uint32_t b = 0; b < 4; b++) {
		static const uint32_t from[4] = { 5, 10, 20, 40 };
		struct rb_row_devlat dl = { .bucket = b,
					    .from_ms = from[b],
					    .to_ms = b < 3 ? from[b + 1] : 0,
					    .writes = 10 - b,
					    .host_writes = 20 - b };

		assert_int_equal(rb_results_devlat(r, &dl), 0);
	}
	/* FDP events: an invalid placement id twice (pids 1 and 11), media moved at hot */
	struct rb_row_fdp_event ev[] = {
		{ .point = 0, .type = 3, .flags = 1, .pid = 11, .timestamp_ms = 5 },
		{ .point = 0, .type = 3, .flags = 1, .pid = 1, .timestamp_ms = 6 },
		{ .point = 1, .type = 0x80, .nlbam = 8, .lba_valid = 1, .lba = 64 },
		{ .point = 1, .type = 0x80, .nlbam = 16 },
		{ .point = 7, .type = 0x80, .nlbam = 99 }, /* no such point: not shown */
	};
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		assert_int_equal(rb_results_fdp_event(r, &ev[i]), 0);
	assert_int_equal(rb_results_close(r, "complete", 2), 0);
}

static void test_drive_own_view(void **st)
{
	char dir[] = "/tmp/rb-repnvme-XXXXXX", path[600], html[600], line[512], *page;
	struct out o;
	FILE *f;

	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/own.h5", dir);
	snprintf(html, sizeof(html), "%s/own.html", dir);
	write_file(path);
	cap_run(&o, rb_report_cmd, "report", path);
	assert_int_equal(o.rc, RB_EXIT_OK);
	/* WAF: FDP's where the drive has it, C0h's at the other point */
	line_of(o.out, "196.6", line, sizeof(line));
	assert_non_null(strstr(line, "65.5          196.6    3.00  FDP"));
	line_of(o.out, "131.1", line, sizeof(line));
	assert_non_null(strstr(line, "65.5          131.1    2.00  OCP C0h"));
	/* the events by point and type, the pids each once, the blocks added */
	line_of(o.out, "invalid placement id", line, sizeof(line));
	assert_non_null(strstr(line, "cool"));
	assert_non_null(strstr(line, "     2        0  11,1"));
	line_of(o.out, "media reallocated", line, sizeof(line));
	assert_non_null(strstr(line, "hot"));
	assert_non_null(strstr(line, "     2       24  -"));
	assert_null(strstr(o.out, "      99  -")); /* point 7 is no cell: its event no row */
	/* throttling: the hot point's intervals between the readings that saw the rise */
	line_of(o.out, "of 4", line, sizeof(line));
	assert_non_null(strstr(line, "hot"));
	assert_non_null(strstr(line, "2 of 4   2-3"));
	/* the drive's own latency beside the host's */
	line_of(o.out, "5-10 ms", line, sizeof(line));
	assert_non_null(strstr(line, "0          0         10         20"));
	line_of(o.out, "at least 40 ms", line, sizeof(line));
	/* C0h beside SMART and AER, each disagreement named; a fallen counter a dash */
	line_of(o.out, "SMART's throttling counters did not rise", line, sizeof(line));
	assert_non_null(strstr(line, "cool"));
	assert_non_null(strstr(line, "the host's AER counted no error"));
	assert_non_null(strstr(line, "       2    no     1        3        0        0        -"));
	line_of(o.out, "C0h counted no throttle event", line, sizeof(line));
	assert_non_null(strstr(line, "hot"));
	assert_non_null(strstr(line, "       0  rose     0        0        2        0        -"));
	assert_non_null(strstr(line, "the drive counted no PCIe error"));
	out_free(&o);

	assert_int_equal(rb_report_html(path, html), RB_EXIT_OK);
	assert_non_null(f = fopen(html, "re"));
	fseek(f, 0, SEEK_END);
	page = cap_slurp(f);
	assert_non_null(strstr(page, "data-section=\"fdp-events\""));
	assert_non_null(strstr(page, "<td>invalid placement id</td><td class=\"n\">2</td>"));
	assert_non_null(strstr(page, "data-section=\"ocp-counters\""));
	assert_non_null(strstr(page, "data-section=\"throttling\""));
	assert_non_null(strstr(page, "data-section=\"device-latency\""));
	assert_non_null(strstr(page, "data-chart=\"waf\""));
	free(page);
	unlink(path);
	unlink(html);
	rmdir(dir);
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drive_own_view),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
