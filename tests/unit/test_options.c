// SPDX-License-Identifier: MIT
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "options.h"

static void test_options_defaults_parse_back(void **state)
{
	struct rb_workload wl, back;
	char err[256], v[RB_OPT_VALUE_MAX];

	(void)state;
	rb_workload_defaults(&wl);
	assert_int_equal(wl.bs, 4096);
	assert_int_equal(wl.iodepth, 1);
	assert_int_equal(wl.direct, 1);
	assert_int_equal(wl.runtime_ns, 10000000000ULL);
	/* every option's formatted value parses back to the same value */
	memset(&back, 0, sizeof(back));
	for (size_t i = 0; i < rb_workload_nopts; i++) {
		const struct rb_opt *o = &rb_workload_opts[i];

		assert_int_equal(
			rb_opt_set(&back, o, rb_opt_format(&wl, o, v, sizeof(v)), err, sizeof(err)),
			0);
		assert_int_equal(rb_opt_get(&back, o), rb_opt_get(&wl, o));
		assert_non_null(o->help);
		assert_ptr_equal(rb_opt_find(o->key), o);
	}
}

static void test_options_table(void **state)
{
	static const struct {
		const char *key, *val;
		int rc;
		uint64_t want;
		const char *msg; /* part of the error */
	} cases[] = {
		{ "bs", "128k", 0, 131072, NULL },
		{ "bs", "4q", -EINVAL, 0, "'bs' must be a size" },
		{ "bs", "256", -ERANGE, 0, "'bs' is out of range" },
		{ "iodepth", "32", 0, 32, NULL },
		{ "iodepth", "-4", -EINVAL, 0, "'iodepth' must be a whole number" },
		{ "iodepth", "0", -ERANGE, 0, "'iodepth' is out of range: 1 to 4096" },
		{ "iodepth", "4097", -ERANGE, 0, "out of range" },
		{ "rw", "randrw", 0, RB_RW_RANDRW, NULL },
		{ "rw", "trim", 0, RB_RW_TRIM, NULL },
		{ "rw", "discard", -EINVAL, 0, "'rw' must be one of read, write" },
		{ "runtime", "2m", 0, 120000000000ULL, NULL },
		{ "runtime", "2q", -EINVAL, 0, "'runtime' must be a duration" },
		{ "direct", "false", 0, 0, NULL },
		{ "direct", "maybe", -EINVAL, 0, "'direct' must be one of false, true" },
		{ "rwmixread", "101", -ERANGE, 0, "0 to 100" },
		{ "engine", "null", 0, RB_ENGINE_NULL, NULL },
		{ "rate_iops", "20000", 0, 20000, NULL },
		{ "rw", "replay", 0, RB_RW_REPLAY, NULL },
		{ "replay_format", "blkparse", 0, 2, NULL },
		{ "replay_format", "msr", 0, 3, NULL },
		{ "replay_format", "csv", -EINVAL, 0, "auto, iolog, blkparse, msr, alibaba" },
		{ "replay_remap", "refuse", 0, 1, NULL },
		{ "replay_remap", "wrap", -EINVAL, 0,
		  "'replay_remap' must be one of modulo, refuse" },
		{ "replay_speed", "2", 0, 0, NULL },
		{ "replay_speed", "0.25", 0, 0, NULL },
		{ "replay_speed", "0", 0, 0, NULL },
		{ "replay_speed", "-1", -EINVAL, 0, "'replay_speed' must be a factor" },
		{ "replay_speed", "fast", -EINVAL, 0, "'replay_speed' must be a factor" },
		{ "replay_speed", "1e3", -EINVAL, 0, "'replay_speed' must be a factor" },
		{ "replay_speed", "2000000", -EINVAL, 0, "'replay_speed' must be a factor" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rb_workload wl;
		char err[256] = "";
		const struct rb_opt *o = rb_opt_find(cases[i].key);
		int rc;

		rb_workload_defaults(&wl);
		assert_non_null(o);
		rc = rb_opt_set(&wl, o, cases[i].val, err, sizeof(err));
		if (rc != cases[i].rc)
			fail_msg("%s=%s: rc %d want %d (%s)", cases[i].key, cases[i].val, rc,
				 cases[i].rc, err);
		if (!rc)
			assert_int_equal(rb_opt_get(&wl, o), cases[i].want);
		else if (!strstr(err, cases[i].msg))
			fail_msg("%s=%s: message '%s' lacks '%s'", cases[i].key, cases[i].val, err,
				 cases[i].msg);
	}
}

static void test_options_cpu_lists(void **state)
{
	static const struct {
		const char *in;
		int rc;
		size_t n;
		unsigned first, last;
	} cases[] = {
		{ "0", 0, 1, 0, 0 },
		{ "0-3", 0, 4, 0, 3 },
		{ "0-1,8,10-11", 0, 5, 0, 11 },
		{ "3-1", -EINVAL, 0, 0, 0 },
		{ "a", -EINVAL, 0, 0, 0 },
		{ "", -EINVAL, 0, 0, 0 },
		{ "0-5000", -EINVAL, 0, 0, 0 },
	};
	unsigned v[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = 0;
		int rc = rb_parse_cpus(cases[i].in, v, 64, &n);

		if (rc != cases[i].rc || (rc == 0 && (n != cases[i].n || v[0] != cases[i].first ||
						      v[n - 1] != cases[i].last)))
			fail_msg("cpus '%s': rc %d n %zu", cases[i].in, rc, n);
	}
	assert_int_equal(rb_parse_cpus("0-99", v, 64, &(size_t){ 0 }), -E2BIG);
}

/* placement: ids in the order writes take them, 0 to 127, 16 at most */
static void test_options_placement(void **state)
{
	uint16_t v[RB_PLACEMENT_MAX];
	char err[256];
	size_t n = 0;

	(void)state;
	assert_int_equal(rb_parse_placement("3,0-2,127", v, &n), 0);
	assert_int_equal(n, 5);
	assert_true(v[0] == 3 && v[1] == 0 && v[3] == 2 && v[4] == 127);
	assert_int_equal(rb_parse_placement("128", v, &n), -EINVAL);
	assert_int_equal(rb_parse_placement("0-16", v, &n), -EINVAL); /* 17 ids */
	assert_int_equal(rb_parse_placement("", v, &n), -EINVAL);
	assert_int_equal(rb_check_placement("", err, sizeof(err)), 0); /* none */
	assert_int_equal(rb_check_placement("x", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'x'"));
}

static void test_options_writes(void **state)
{
	struct rb_workload wl;
	char err[64];

	(void)state;
	rb_workload_defaults(&wl);
	rb_opt_set(&wl, rb_opt_find("rw"), "randread", err, sizeof(err));
	assert_false(rb_workload_writes(&wl));
	rb_opt_set(&wl, rb_opt_find("rw"), "randrw", err, sizeof(err));
	assert_true(rb_workload_writes(&wl));
	rb_opt_set(&wl, rb_opt_find("rwmixread"), "100", err, sizeof(err));
	assert_false(rb_workload_writes(&wl));
	rb_opt_set(&wl, rb_opt_find("rw"), "write", err, sizeof(err));
	assert_true(rb_workload_writes(&wl));
	rb_opt_set(&wl, rb_opt_find("engine"), "null", err, sizeof(err));
	assert_false(rb_workload_writes(&wl));
}

/* zns reset and finish: a zone an IO, as trims, once, on an engine that manages zones */
static void test_options_zns_management(void **state)
{
	static const struct {
		const char *key, *val, *msg;
	} cases[] = {
		{ "rw", "write", "rw must be trim" },
		{ "passes", "2", "passes: 1" },
		{ "bssplit", "8m/100", "without verify, stripe, bssplit or ramp" },
		{ "ramp", "1s", "without verify, stripe, bssplit or ramp" },
		{ "memory", "gpu", "memory gpu" },
		{ "engine", "null", "engine uring" },
		{ "job_region", "whole", "job_region must be split" },
	};
	struct rb_workload wl;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rb_workload_defaults(&wl);
		assert_int_equal(rb_opt_set(&wl, rb_opt_find("rw"), "trim", err, sizeof(err)), 0);
		assert_int_equal(rb_opt_set(&wl, rb_opt_find("passes"), "1", err, sizeof(err)), 0);
		assert_int_equal(rb_opt_set(&wl, rb_opt_find("bs"), "8m", err, sizeof(err)), 0);
		assert_int_equal(rb_opt_set(&wl, rb_opt_find("zns"), i % 2 ? "finish" : "reset",
					    err, sizeof(err)),
				 0);
		assert_int_equal(rb_workload_check(&wl, err, sizeof(err)), 0);
		assert_int_equal(
			rb_opt_set(&wl, rb_opt_find(cases[i].key), cases[i].val, err, sizeof(err)),
			0);
		assert_int_equal(rb_workload_check(&wl, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].msg))
			fail_msg("%s=%s: '%s' lacks '%s'", cases[i].key, cases[i].val, err,
				 cases[i].msg);
	}
}

static void test_options_replay(void **state)
{
	static const struct {
		const char *key, *val, *msg;
	} cases[] = {
		{ "replay", "", "'rw: replay' needs 'replay'" },
		{ "numjobs", "2", "'numjobs' must be 1" },
		{ "verify", "true", "'verify' does not work with a replay" },
		{ "rate_iops", "100", "give 'replay_speed', not 'rate_iops'" },
		{ "io_size", "1m", "a replay ends with its trace" },
		{ "passes", "1", "a replay ends with its trace" },
	};
	struct rb_workload wl;
	char err[256];
	double v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rb_workload_defaults(&wl);
		assert_int_equal(rb_opt_set(&wl, rb_opt_find("rw"), "replay", err, sizeof(err)), 0);
		assert_int_equal(rb_opt_set(&wl, rb_opt_find("replay"), "t.txt", err, sizeof(err)),
				 0);
		assert_int_equal(rb_workload_check(&wl, err, sizeof(err)), 0);
		assert_int_equal(
			rb_opt_set(&wl, rb_opt_find(cases[i].key), cases[i].val, err, sizeof(err)),
			0);
		assert_int_equal(rb_workload_check(&wl, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].msg))
			fail_msg("%s=%s: '%s' lacks '%s'", cases[i].key, cases[i].val, err,
				 cases[i].msg);
	}
	/* only the agent sees the trace: anyone else takes a replay as writing */
	rb_workload_defaults(&wl);
	assert_int_equal(rb_opt_set(&wl, rb_opt_find("rw"), "replay", err, sizeof(err)), 0);
	assert_true(rb_workload_writes(&wl));
	assert_string_equal(rb_rw_name(RB_RW_REPLAY), "replay");
	assert_string_equal(wl.replay_speed, "1");
	assert_int_equal(rb_parse_speed("2.5", &v), 0);
	assert_true(v == 2.5);
	assert_int_equal(rb_parse_speed("", &v), -EINVAL);
	assert_int_equal(rb_parse_speed("1.2.3", &v), -EINVAL);
}

static void set(struct rb_workload *wl, const char *key, const char *val)
{
	char err[256];

	if (rb_opt_set(wl, rb_opt_find(key), val, err, sizeof(err)))
		fail_msg("%s=%s: %s", key, val, err);
}

static void test_options_checkpoint(void **state)
{
	static const struct {
		const char *key, *val, *msg;
	} cases[] = {
		{ "checkpoint_model", "llama3-8b",
		  "'checkpoint_model' or 'checkpoint_size', not both" },
		{ "checkpoint_size", "0", "needs 'checkpoint_model' or 'checkpoint_size'" },
		{ "numjobs", "64", "at least two blocks (bs) per writer" },
		{ "io_size", "1g", "writes its shards in full" },
		{ "rate_iops", "10", "writes its shards in full" },
		{ "verify", "true", "writes its shards in full" },
		{ "engine", "null", "runs on the uring engine" },
	};
	struct rb_workload wl;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rb_workload_defaults(&wl);
		set(&wl, "rw", "checkpoint");
		set(&wl, "checkpoint_size", "64m");
		set(&wl, "bs", "1m");
		assert_int_equal(rb_workload_check(&wl, err, sizeof(err)), 0);
		set(&wl, cases[i].key, cases[i].val);
		assert_int_equal(rb_workload_check(&wl, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].msg))
			fail_msg("%s=%s: '%s' lacks '%s'", cases[i].key, cases[i].val, err,
				 cases[i].msg);
	}
	/* MLPerf Storage's sizes, binary units, scaled; what a drive moves in all */
	rb_workload_defaults(&wl);
	set(&wl, "rw", "checkpoint");
	set(&wl, "checkpoint_model", "llama3-405b");
	assert_int_equal(rb_ckpt_bytes(&wl), (uint64_t)(5.29 * (1ULL << 40)));
	set(&wl, "checkpoint_scale", "1000");
	assert_int_equal(rb_ckpt_bytes(&wl), (uint64_t)(5.29 * (1ULL << 40)) / 1000);
	set(&wl, "checkpoint_model", "llama3-8b");
	set(&wl, "checkpoint_scale", "1");
	assert_int_equal(rb_ckpt_bytes(&wl), 105ULL << 30);
	set(&wl, "checkpoints", "10");
	set(&wl, "checkpoint_keep", "3");
	assert_int_equal(rb_ckpt_moved(&wl), 13 * (105ULL << 30));
	set(&wl, "checkpoint_restore", "false");
	assert_int_equal(rb_ckpt_moved(&wl), 10 * (105ULL << 30));
	assert_true(rb_workload_size_based(&wl));
	assert_true(rb_workload_writes(&wl));
	assert_string_equal(rb_ckpt_model_name(RB_CKPT_LLAMA3_70B), "llama3-70b");
}

/* size_pct of a target: exact, not 100ths rounded down first; no overflow */
static void test_options_pct_of(void **state)
{
	(void)state;
	assert_int_equal(rb_workload_pct_of(16 << 20, 50), 8 << 20);
	assert_int_equal(rb_workload_pct_of(16 << 20, 25), 4 << 20);
	assert_int_equal(rb_workload_pct_of(1ULL << 63, 100), 1ULL << 63);
	assert_int_equal(rb_workload_pct_of(UINT64_MAX, 50), UINT64_MAX / 2);
	assert_int_equal(rb_workload_pct_of(99, 1), 0);
}

/* every choice of a key is in its --help description, the last one whole */
static void test_options_describe_names_every_choice(void **state)
{
	char buf[320];

	(void)state;
	for (size_t k = 0; k < rb_workload_nopts; k++) {
		const struct rb_opt *o = &rb_workload_opts[k];

		if (!o->choices)
			continue;
		rb_opt_describe(o, buf, sizeof(buf));
		for (size_t i = 0; o->choices[i]; i++)
			assert_non_null(strstr(buf, o->choices[i]));
		assert_true(buf[strlen(buf) - 1] != ' ' && buf[strlen(buf) - 1] != ',');
	}
}

static void test_options_dump_names_every_key(void **state)
{
	struct rb_workload wl;
	char buf[RB_WORKLOAD_DUMP_MAX];

	(void)state;
	rb_workload_defaults(&wl);
	rb_workload_dump(&wl, buf, sizeof(buf));
	for (size_t i = 0; i < rb_workload_nopts; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s=", rb_workload_opts[i].key);
		assert_non_null(strstr(buf, key));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_defaults_parse_back),
		cmocka_unit_test(test_options_table),
		cmocka_unit_test(test_options_writes),
		cmocka_unit_test(test_options_cpu_lists),
		cmocka_unit_test(test_options_replay),
		cmocka_unit_test(test_options_checkpoint),
		cmocka_unit_test(test_options_dump_names_every_key),
		cmocka_unit_test(test_options_describe_names_every_choice),
		cmocka_unit_test(test_options_pct_of),
		cmocka_unit_test(test_options_placement),
		cmocka_unit_test(test_options_zns_management),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
