// SPDX-License-Identifier: MIT
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hist.h"

static uint64_t xs = 0x1234567887654321ULL;

static uint64_t rnd(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return xs;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_hist_bucket_edges(void **state)
{
	(void)state;
	/* exact region */
	for (uint64_t v = 0; v < 256; v++) {
		unsigned i = rb_hist_index(v);

		assert_int_equal(rb_hist_bucket_lower(i), v);
		assert_int_equal(rb_hist_bucket_upper(i), v + 1);
	}
	assert_int_equal(rb_hist_index(127), 127);
	assert_int_equal(rb_hist_index(128), 128);
	assert_int_equal(rb_hist_index(256), 256);
	assert_int_equal(rb_hist_index(257), 256);
	assert_int_equal(rb_hist_index(258), 257);
	/* buckets tile the range: each upper edge is the next lower edge */
	for (unsigned i = 0; i + 1 < RB_HIST_BUCKETS; i++) {
		assert_int_equal(rb_hist_bucket_upper(i), rb_hist_bucket_lower(i + 1));
		assert_int_equal(rb_hist_index(rb_hist_bucket_lower(i)), i);
		assert_int_equal(rb_hist_index(rb_hist_bucket_upper(i) - 1), i);
		/* width at most 1/128 of the lower edge above the exact region */
		if (rb_hist_bucket_lower(i) >= 128)
			assert_true((rb_hist_bucket_upper(i) - rb_hist_bucket_lower(i)) * 128 <=
				    rb_hist_bucket_lower(i));
	}
	/* range: 60 s must be inside, not clamped */
	assert_true(rb_hist_index(60ULL * 1000000000ULL) < RB_HIST_BUCKETS - 1);
	assert_int_equal(rb_hist_bucket_upper(RB_HIST_BUCKETS - 1), 1ULL << (RB_HIST_MAX_POW + 1));
	assert_int_equal(rb_hist_index(UINT64_MAX), RB_HIST_BUCKETS - 1);
}

static void test_hist_percentile_within_error_bound(void **state)
{
	const size_t n = 200000;
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 99.99, 100 };
	uint64_t *v = malloc(n * sizeof(*v));
	struct rb_hist *h = calloc(1, sizeof(*h));

	(void)state;
	assert_non_null(v);
	assert_non_null(h);
	for (int round = 0; round < 3; round++) {
		rb_hist_clear(h);
		for (size_t i = 0; i < n; i++) {
			/* log-uniform over 1 ns .. 60 s: every region of the layout */
			double e = (double)(rnd() % 1000000) / 1000000.0 * log(60e9);

			v[i] = (uint64_t)exp(e) + (round == 2 ? 0 : rnd() % 3);
			rb_hist_record(h, v[i]);
		}
		qsort(v, n, sizeof(*v), cmp_u64);
		assert_int_equal(h->total, n);
		for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
			uint64_t rank = (uint64_t)ceil(ps[k] / 100.0 * (double)n);
			uint64_t exact = v[rank - 1], got = rb_hist_percentile(h, ps[k]);
			double err = fabs((double)got - (double)exact) / (double)exact;

			if (err > 1.0 / 256.0 + 1e-12)
				fail_msg("p%g: got %llu exact %llu error %.5f > 1/256", ps[k],
					 (unsigned long long)got, (unsigned long long)exact, err);
		}
	}
	free(v);
	free(h);
}

static void test_hist_merge_equals_single(void **state)
{
	struct rb_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)),
		       *all = calloc(1, sizeof(*all));

	(void)state;
	for (int i = 0; i < 100000; i++) {
		uint64_t x = rnd() % 50000000ULL;

		rb_hist_record(i % 3 ? a : b, x);
		rb_hist_record(all, x);
	}
	rb_hist_merge(a, b);
	assert_int_equal(a->total, all->total);
	assert_memory_equal(a->counts, all->counts, sizeof(a->counts));
	for (double p = 0.5; p <= 100; p += 0.5)
		assert_int_equal(rb_hist_percentile(a, p), rb_hist_percentile(all, p));
	free(a);
	free(b);
	free(all);
}

static void test_hist_sparse_round_trip(void **state)
{
	struct rb_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint32_t idx[RB_HIST_BUCKETS];
	uint64_t cnt[RB_HIST_BUCKETS];
	size_t n;

	(void)state;
	for (int i = 0; i < 5000; i++)
		rb_hist_record(a, rnd() % 10000000ULL);
	n = rb_hist_to_sparse(a, idx, cnt, RB_HIST_BUCKETS);
	assert_int_equal(n, rb_hist_nonzero(a));
	assert_int_equal(rb_hist_add_sparse(b, idx, cnt, n), 0);
	assert_memory_equal(a->counts, b->counts, sizeof(a->counts));
	assert_int_equal(a->total, b->total);
	/* percentiles from the sparse form equal those of the histogram */
	assert_true(rb_hist_sparse_valid(idx, n));
	for (double p = 0.5; p <= 100; p += 0.5)
		assert_int_equal(rb_hist_sparse_percentile(idx, cnt, n, p), rb_hist_percentile(a, p));
	if (n > 1) {
		uint32_t t = idx[0];

		idx[0] = idx[1]; /* out of order: refused */
		assert_false(rb_hist_sparse_valid(idx, n));
		idx[0] = t;
	}
	/* an out-of-range index from the wire adds nothing */
	idx[0] = RB_HIST_BUCKETS;
	assert_int_equal(rb_hist_add_sparse(b, idx, cnt, n), -22);
	assert_false(rb_hist_sparse_valid(idx, n));
	assert_int_equal(a->total, b->total);
	free(a);
	free(b);
}

static void test_hist_empty_and_single(void **state)
{
	struct rb_hist *h = calloc(1, sizeof(*h));

	(void)state;
	assert_int_equal(rb_hist_percentile(h, 50), 0);
	rb_hist_record(h, 100);
	assert_int_equal(rb_hist_percentile(h, 0.001), 100);
	assert_int_equal(rb_hist_percentile(h, 100), 100);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_bucket_edges),
		cmocka_unit_test(test_hist_percentile_within_error_bound),
		cmocka_unit_test(test_hist_merge_equals_single),
		cmocka_unit_test(test_hist_sparse_round_trip),
		cmocka_unit_test(test_hist_empty_and_single),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
