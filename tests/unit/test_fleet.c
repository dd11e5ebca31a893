// SPDX-License-Identifier: MIT
/*
 * The fleet's pure parts without a server: FLEET.yaml decoded (and its errors placed), and
 * the fleet verdicts on a synthetic fleet with known answers -- drives slow against their
 * peers at equal load are QUARANTINE, a second time FAIL; a rack with enough failed drives
 * is on HOLD; a minority firmware is a NOTE.
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

#include "diag.h"
#include "fleet.h"
#include "fleet_verdict.h"
#include "log.h"

#define KEY "rq>X/1x3#=4@ZDcM$wCL5i0YOiB8cTO7)N%<Ew[?" /* 40 Z85 characters */

static void test_fleet_file(void **st)
{
	static const char good[] = "racks:\n"
				   "  - name: r01\n"
				   "    endpoint: tcp://10.1.0.5:7471\n"
				   "    public_key: \"" KEY "\"\n"
				   "    labels: {row: a, room: dc1}\n"
				   "  - name: r02\n"
				   "    endpoint: tcp://10.1.0.6:7471\n"
				   "    public_key: \"" KEY "\"\n";
	static const char bad[] = "racks:\n"
				  "  - name: r01\n"
				  "    endpoint: 10.1.0.5\n"
				  "    public_key: short\n"
				  "  - name: r01\n"
				  "    endpoint: tcp://10.1.0.6:7471\n"
				  "    public_key: \"" KEY "\"\n"
				  "    color: blue\n";
	struct rb_fleet *f = NULL;
	struct rb_diags d;

	(void)st;
	rb_diags_init(&d);
	assert_int_equal(rb_fleet_load("FLEET.yaml", good, strlen(good), &f, &d), 0);
	assert_int_equal(f->nracks, 2);
	assert_string_equal(f->racks[0].name, "r01");
	assert_string_equal(f->racks[1].endpoint, "tcp://10.1.0.6:7471");
	assert_string_equal(f->racks[0].pub, KEY);
	assert_int_equal(f->racks[0].nlabels, 2);
	assert_string_equal(f->racks[0].labels[0], "row=a");
	rb_fleet_free(f);
	f = NULL;
	assert_int_equal(rb_fleet_load("FLEET.yaml", bad, strlen(bad), &f, &d), -EINVAL);
	assert_null(f);
	/* every problem, each where it is */
	assert_true(rb_diags_errors(&d) >= 3);
	rb_diags_release(&d);
}

/* 60 drives of model M over 6 racks at 4 points; slow[] 3x slower p99 at equal load. */
static void fleet(struct rb_fleet_drive *dr, struct rb_fleet_point *pt, size_t *np,
		  const bool *slow)
{
	*np = 0;
	for (size_t i = 0; i < 60; i++) {
		dr[i] = (struct rb_fleet_drive){ .members = 0, .run_start_ns = 1000 };
		snprintf(dr[i].key, sizeof(dr[i].key), "S%02zu", i);
		snprintf(dr[i].model, sizeof(dr[i].model), "M");
		snprintf(dr[i].firmware, sizeof(dr[i].firmware), i < 2 ? "OLD" : "NEW");
		snprintf(dr[i].rack, sizeof(dr[i].rack), "r%zu", i % 6);
		snprintf(dr[i].host, sizeof(dr[i].host), "h%zu", i);
		snprintf(dr[i].kind, sizeof(dr[i].kind), "block");
		/* three failed drives in rack r5 (the rack's own verdicts) */
		snprintf(dr[i].verdict, sizeof(dr[i].verdict), "%s",
			 i == 5 || i == 11 || i == 17 ? "FAIL" : "PASS");
		for (uint32_t p = 0; p < 4; p++)
			pt[(*np)++] = (struct rb_fleet_point){
				.drive = i,
				.name = p,
				.iops = 10000.0 * (p + 1) * (1 + (double)(i % 7) / 100),
				.p99_ns = 100000.0 * (p + 1) * (1 + (double)(i % 5) / 50) *
					  (slow[i] ? 3 : 1),
			};
	}
}

static const struct rb_fleet_verdict *find(const struct rb_fleet_verdict *v, size_t n,
					   const char *subject, const char *rule)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].subject, subject) && !strcmp(v[i].rule, rule))
			return &v[i];
	return NULL;
}

static void test_fleet_verdicts(void **st)
{
	static struct rb_fleet_drive dr[60];
	static struct rb_fleet_point pt[240];
	static const char names[4][256] = { "qd1", "qd4", "qd16", "qd64" };
	bool slow[60] = { false };
	struct rb_fleet_verdict *v = NULL;
	struct rb_fleet_stats s;
	size_t np, n = 0, quarantined = 0;

	(void)st;
	slow[20] = slow[41] = true;
	fleet(dr, pt, &np, slow);
	struct rb_fleet_in in = { .drives = dr,
				  .nd = 60,
				  .points = pt,
				  .np = np,
				  .names = names,
				  .nnames = 4,
				  .p = { .margin = 2, .min_points = 2, .cluster = 3 } };

	assert_int_equal(rb_fleet_judge(&in, &v, &n, &s), 0);
	for (size_t i = 0; i < n; i++)
		quarantined += v[i].state == RB_FLEET_QUARANTINE;
	assert_int_equal(quarantined, 2);
	assert_non_null(find(v, n, "S20", "fail_slow"));
	assert_non_null(find(v, n, "S41", "fail_slow"));
	assert_int_equal(find(v, n, "S20", "fail_slow")->state, RB_FLEET_QUARANTINE);
	assert_true(find(v, n, "S20", "fail_slow")->measured >
		    2 * find(v, n, "S20", "fail_slow")->expected);
	/* the rack with three failed drives is on HOLD, first */
	assert_int_equal(v[0].state, RB_FLEET_HOLD);
	assert_string_equal(v[0].subject, "rack=r5");
	assert_null(find(v, n, "rack=r0", "cluster_hold"));
	/* two drives on a firmware the rest of the model does not run */
	assert_non_null(find(v, n, "S00", "firmware"));
	assert_int_equal(find(v, n, "S00", "firmware")->state, RB_FLEET_NOTE);
	assert_string_equal(rb_fleet_state_name(RB_FLEET_QUARANTINE), "QUARANTINE");
	free(v);
	/* slow again after an earlier quarantine: FAIL */
	dr[20].quarantined_ns = 500;
	assert_int_equal(rb_fleet_judge(&in, &v, &n, &s), 0);
	assert_int_equal(find(v, n, "S20", "fail_slow")->state, RB_FLEET_FAIL);
	assert_int_equal(find(v, n, "S41", "fail_slow")->state, RB_FLEET_QUARANTINE);
	free(v);
	/* by host: no host holds three failures */
	in.p.by_host = true;
	assert_int_equal(rb_fleet_judge(&in, &v, &n, &s), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_not_equal(v[i].state, RB_FLEET_HOLD);
	free(v);
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fleet_file),
		cmocka_unit_test(test_fleet_verdicts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
