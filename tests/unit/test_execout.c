// SPDX-License-Identifier: MIT
/*
 * An exec phase's parsers against recorded output: sysbench 1.0.20's OLTP summary and
 * fio 3.33's JSON (a randrw job, with a warning line before the document), each figure
 * against the output's own text; and what they do with output that is not theirs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "execphase.h"

static char *slurp(const char *name)
{
	char path[512], *buf = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", RB_FIXTURES, name);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_true(getdelim(&buf, &len, '\0', f) > 0);
	fclose(f);
	return buf;
}

static const char *get(const struct rb_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].value;
	return NULL;
}

static void test_sysbench(void **state)
{
	char *text = slurp("sysbench-1.0.20-oltp.txt"), vals[16][32];
	struct rb_kv kv[16];
	size_t n = rb_exec_parse_sysbench(text, kv, vals, 16);

	(void)state;
	assert_string_equal(get(kv, n, "transactions"), "2471");
	assert_string_equal(get(kv, n, "tps"), "616.78");
	assert_string_equal(get(kv, n, "qps"), "12335.66");
	assert_string_equal(get(kv, n, "lat_avg_ms"), "6.47");
	assert_string_equal(get(kv, n, "lat_p95_ms"), "9.91");
	/* the latency block's min and max, not the queries' */
	assert_string_equal(get(kv, n, "lat_min_ms"), "1.69");
	assert_string_equal(get(kv, n, "lat_max_ms"), "22.05");
	assert_null(get(kv, n, "lat_p99_ms"));
	assert_int_equal(rb_exec_parse_sysbench("no summary here", kv, vals, 16), 0);
	free(text);
}

static void test_fio(void **state)
{
	char *text = slurp("fio-3.33-randrw.json"), vals[16][32], note[256];
	struct rb_kv kv[16];
	size_t n = rb_exec_parse_fio(text, false, kv, vals, 16, note, sizeof(note));
	/* the document's own figures: read iops 12500.4995 bw 51202045, write 12484.515485
	 * 51136575; lat_ns means 144914.890674 over 12513 reads, 172029.379211 over 12497 */
	double lat = (144914.890674 * 12513 + 172029.379211 * 12497) / (12513 + 12497) / 1e6;

	(void)state;
	assert_true(fabs(atof(get(kv, n, "iops")) - (12500.4995 + 12484.515485)) < 1e-6);
	assert_true(fabs(atof(get(kv, n, "mbps")) - (51202045 + 51136575) / 1e6) < 1e-6);
	assert_true(fabs(atof(get(kv, n, "read_iops")) - 12500.4995) < 1e-9);
	assert_true(fabs(atof(get(kv, n, "lat_avg_ms")) - lat) < 1e-9);
	assert_true(fabs(atof(get(kv, n, "read_p99_ms")) - 0.428032) < 1e-12);
	assert_true(fabs(atof(get(kv, n, "write_p99_ms")) - 0.577536) < 1e-12);
	/* a mix has two p99s, and none of the point's */
	assert_null(get(kv, n, "lat_p99_ms"));
	assert_string_equal(get(kv, n, "errors"), "0");
	assert_int_equal(
		rb_exec_parse_fio("{\"no jobs\": 1}", false, kv, vals, 16, note, sizeof(note)), 0);
	assert_int_equal(rb_exec_parse_fio("not json", false, kv, vals, 16, note, sizeof(note)), 0);
	assert_int_equal(rb_exec_parse_fio("{\"jobs\": [", false, kv, vals, 16, note, sizeof(note)),
			 0);
	free(text);
}

/* Past a bound no figure is read, and the note says which bound; inf and nan are none. */
static void test_bounds(void **state)
{
	char *text = slurp("fio-3.33-randrw.json"), vals[16][32], note[256], *many, *tail;
	struct rb_kv kv[16];
	size_t len = strlen(text), n;
	FILE *f;

	(void)state;
	/* the end of a longer output: the document found by its "fio version" */
	tail = calloc(1, len + 64);
	snprintf(tail, len + 64, "s of a long log\n%s", text);
	n = rb_exec_parse_fio(tail, true, kv, vals, 16, note, sizeof(note));
	assert_true(n > 0 && get(kv, n, "iops"));
	assert_string_equal(note, "");
	/* ... and cut inside it */
	n = rb_exec_parse_fio(strstr(text, "\"timestamp\""), true, kv, vals, 16, note,
			      sizeof(note));
	assert_int_equal(n, 0);
	assert_non_null(strstr(note, "over the 2 MiB the agent reads"));
	/* more jobs than it sums: none summed (a part would be a wrong figure) */
	f = open_memstream(&many, &len);
	fprintf(f, "{\"jobs\": [");
	for (unsigned j = 0; j <= RB_EXEC_PARSE_JOBS; j++)
		fprintf(f, "%s{\"read\": {\"iops\": 1, \"total_ios\": 1}}", j ? ", " : "");
	fprintf(f, "]}");
	fclose(f);
	assert_int_equal(rb_exec_parse_fio(many, false, kv, vals, 16, note, sizeof(note)), 0);
	assert_non_null(strstr(note, "has 1025 jobs, over the 1024"));
	/* inf and nan are no figures */
	n = rb_exec_parse_sysbench("    transactions:   inf (nan per sec.)\n"
				   "    queries:   100 (50.0 per sec.)\n",
				   kv, vals, 16);
	assert_null(get(kv, n, "transactions"));
	assert_null(get(kv, n, "tps"));
	assert_string_equal(get(kv, n, "queries"), "100");
	n = rb_exec_parse_fio("{\"jobs\": [{\"read\": {\"iops\": Infinity, \"total_ios\": 1, "
			      "\"bw_bytes\": 4096}}]}",
			      false, kv, vals, 16, note, sizeof(note));
	assert_null(get(kv, n, "iops"));
	assert_string_equal(get(kv, n, "mbps"), "0.004096");
	free(many);
	free(tail);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysbench),
		cmocka_unit_test(test_fio),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
