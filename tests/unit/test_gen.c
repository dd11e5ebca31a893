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
#include <cmocka.h>

#include "gen.h"

/* upper regularized incomplete gamma Q(a, x): the chi-square p-value is Q(k/2, x/2) */
static double gamma_q(double a, double x)
{
	double gln = lgamma(a);

	if (x < a + 1) {
		double ap = a, sum = 1.0 / a, del = sum;

		for (int n = 0; n < 100000; n++) {
			ap += 1;
			del *= x / ap;
			sum += del;
			if (fabs(del) < fabs(sum) * 1e-15)
				break;
		}
		return 1.0 - sum * exp(-x + a * log(x) - gln);
	}
	double b = x + 1 - a, c = 1 / 1e-300, d = 1 / b, h = d;

	for (int i = 1; i < 100000; i++) {
		double an = -i * (i - a), del;

		b += 2;
		d = an * d + b;
		if (fabs(d) < 1e-300)
			d = 1e-300;
		c = b + an / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return exp(-x + a * log(x) - gln) * h;
}

static void check_binomial(uint64_t got, uint64_t n, double p, const char *what)
{
	double mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));

	if (fabs((double)got - mean) > 4 * sd + 1e-9)
		fail_msg("%s: %llu draws, expected %.1f +- 4 x %.1f", what, (unsigned long long)got,
			 mean, sd);
}

/* a 125-size split like the CDN read mix: 128k at 83.21%, a fractional tail */
static void make_cdn_split(char *buf, size_t len, struct rb_bssplit *want)
{
	struct rb_rng r;
	double tail[124], sum = 0;
	size_t n = 0;
	unsigned k = 0;

	rb_rng_seed(&r, 7);
	for (int i = 0; i < 124; i++) {
		tail[i] = 0.001 + rb_rng_unit(&r);
		sum += tail[i];
	}
	memset(want, 0, sizeof(*want));
	for (unsigned i = 1; i <= 125; i++) {
		uint64_t bs = (uint64_t)i * 4096;
		double w = bs == 131072 ? 83.21 : tail[k++] / sum * 16.79;

		n += (size_t)snprintf(buf + n, len - n, "%s%lluk/%.6f", n ? ":" : "",
				      (unsigned long long)(bs / 1024), w);
		want->bs[want->n] = bs;
		want->weight[want->n] = w;
		want->n++;
	}
}

static void test_bssplit_125_sizes_fit_their_weights(void **state)
{
	static char text[8192];
	struct rb_bssplit *want = malloc(sizeof(*want)), *got = malloc(sizeof(*got));
	struct rb_alias *a = malloc(sizeof(*a));
	uint64_t counts[RB_BS_MAX] = { 0 };
	const uint64_t n = 2000000;
	double total = 0, chi2 = 0, p;
	char err[256];
	struct rb_rng r;

	(void)state;
	make_cdn_split(text, sizeof(text), want);
	assert_int_equal(rb_bssplit_parse(text, got, err, sizeof(err)), 0);
	assert_int_equal(got->n, 125);
	for (unsigned i = 0; i < got->n; i++) {
		assert_int_equal(got->bs[i], want->bs[i]);
		total += got->weight[i];
	}
	rb_alias_init(a, got->weight, got->n);
	rb_rng_seed(&r, 12345);
	for (uint64_t i = 0; i < n; i++)
		counts[rb_alias_draw(a, &r)]++;
	for (unsigned i = 0; i < got->n; i++) {
		double pi = got->weight[i] / total, e = (double)n * pi;
		char what[64];

		snprintf(what, sizeof(what), "size %llu", (unsigned long long)got->bs[i]);
		check_binomial(counts[i], n, pi, what);
		assert_true(counts[i] > 0);
		chi2 += ((double)counts[i] - e) * ((double)counts[i] - e) / e;
	}
	p = gamma_q((got->n - 1) / 2.0, chi2 / 2.0);
	print_message("125 sizes, %llu draws: chi2 %.1f on %u df, p = %.4f\n",
		      (unsigned long long)n, chi2, got->n - 1, p);
	assert_true(p > 1e-3);
	free(want);
	free(got);
	free(a);
}

static void test_bssplit_zero_weight_never_drawn(void **state)
{
	struct rb_bssplit s;
	struct rb_alias a;
	struct rb_rng r;
	char err[256];

	(void)state;
	assert_int_equal(rb_bssplit_parse("4k/0:8k/1.5:16k/0:64k/98.5", &s, err, sizeof(err)), 0);
	rb_alias_init(&a, s.weight, s.n);
	rb_rng_seed(&r, 1);
	for (int i = 0; i < 200000; i++) {
		unsigned k = rb_alias_draw(&a, &r);

		assert_true(k == 1 || k == 3);
	}
}

static void test_bssplit_parse_errors(void **state)
{
	static const struct {
		const char *in, *msg;
	} bad[] = {
		{ "4k/10:8q/20", "'8q'" },	{ "4k/x", "weight 'x'" },     { "4k/-1", "weight '-1'" },
		{ "4k:8k/1", "needs a weight" }, { "100/1", "multiple of 512" }, { "4k/0", "positive" },
		{ "", "at least one size" },
	};
	struct rb_bssplit s;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(rb_bssplit_parse(bad[i].in, &s, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].msg))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].in, err, bad[i].msg);
	}
	assert_int_equal(rb_bssplit_parse("128k", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
}

static double zeta(double s, uint64_t n)
{
	double z = 0;

	for (uint64_t k = n; k >= 1; k--)
		z += pow((double)k, -s);
	return z;
}

static void test_zipf_hit_rates(void **state)
{
	static const double thetas[] = { 0.8, 1.2, 2.0 };
	const uint64_t nblocks = 10000, draws = 1000000;

	(void)state;
	for (size_t t = 0; t < sizeof(thetas) / sizeof(thetas[0]); t++) {
		struct rb_dist d = { .kind = RB_DIST_ZIPF, .param = thetas[t] };
		struct rb_offgen g;
		struct rb_rng r;
		uint64_t top1 = 0, top100 = 0, first = 0;
		double zn = zeta(thetas[t], nblocks);
		char what[64];

		rb_rng_seed(&r, 99);
		assert_int_equal(rb_offgen_init(&g, &d, nblocks, false, &r), 0);
		for (uint64_t i = 0; i < draws; i++) {
			uint64_t k = rb_offgen_rank(&g, &r);

			assert_true(k < nblocks);
			first += k == 0;
			top1 += k < nblocks / 100;
			top100 += k < 100;
		}
		snprintf(what, sizeof(what), "zipf %.1f rank 1", thetas[t]);
		check_binomial(first, draws, 1.0 / zn, what);
		snprintf(what, sizeof(what), "zipf %.1f top 1%%", thetas[t]);
		check_binomial(top1, draws, zeta(thetas[t], nblocks / 100) / zn, what);
		snprintf(what, sizeof(what), "zipf %.1f top 100", thetas[t]);
		check_binomial(top100, draws, zeta(thetas[t], 100) / zn, what);
		/* spread: the block of the hottest rank is not block 0 for every theta */
		for (int i = 0; i < 1000; i++)
			assert_true(rb_offgen_next(&g, &r) < nblocks);
	}
}

static void test_pareto_hit_rate(void **state)
{
	const uint64_t n = 100000, draws = 1000000, m = n / 5;
	struct rb_dist d = { .kind = RB_DIST_PARETO, .param = 0.2 };
	struct rb_offgen g;
	struct rb_rng r;
	uint64_t hot = 0;
	double p;

	(void)state;
	rb_rng_seed(&r, 5);
	assert_int_equal(rb_offgen_init(&g, &d, n, false, &r), 0);
	for (uint64_t i = 0; i < draws; i++)
		hot += rb_offgen_rank(&g, &r) < m;
	/* rank = round((n-1) u^p) < m  <=>  u < ((m - 0.5) / (n - 1))^(1/p); about 80% */
	p = pow((m - 0.5) / (double)(n - 1), 1.0 / g.ppow);
	assert_true(fabs(p - 0.8) < 0.01);
	check_binomial(hot, draws, p, "pareto 0.2: 20% of blocks");
}

static void test_zoned_and_normal(void **state)
{
	struct rb_dist d;
	struct rb_offgen g;
	struct rb_rng r;
	char err[256];
	const uint64_t n = 1000000, draws = 500000;
	uint64_t zone[3] = { 0 };
	double sum = 0, sq = 0;

	(void)state;
	assert_int_equal(rb_dist_parse("zoned:60/10:30/20:10/70", &d, err, sizeof(err)), 0);
	rb_rng_seed(&r, 3);
	assert_int_equal(rb_offgen_init(&g, &d, n, false, &r), 0);
	for (uint64_t i = 0; i < draws; i++) {
		uint64_t b = rb_offgen_next(&g, &r);

		assert_true(b < n);
		zone[b < n / 10 ? 0 : b < n * 3 / 10 ? 1 : 2]++;
	}
	check_binomial(zone[0], draws, 0.6, "zone 1");
	check_binomial(zone[1], draws, 0.3, "zone 2");
	check_binomial(zone[2], draws, 0.1, "zone 3");
	assert_int_equal(rb_dist_parse("normal:5", &d, err, sizeof(err)), 0);
	assert_int_equal(rb_offgen_init(&g, &d, n, false, &r), 0);
	for (uint64_t i = 0; i < draws; i++) {
		double x = (double)rb_offgen_next(&g, &r);

		sum += x;
		sq += x * x;
	}
	double mean = sum / draws, sd = sqrt(sq / draws - mean * mean);

	assert_true(fabs(mean - n / 2.0) < n * 0.001);
	assert_true(fabs(sd - n * 0.05) < n * 0.001);
	assert_int_equal(rb_dist_parse("zoned:60/10:30/20", &d, err, sizeof(err)), -EINVAL);
	/* fio's rand-zones.fio: the last zone without a range gets the rest */
	assert_int_equal(rb_dist_parse("zoned:50/5:30/15:20/", &d, err, sizeof(err)), 0);
	assert_int_equal(d.nzones, 3);
	assert_true(fabs(d.zone_range_pct[2] - 80) < 1e-9);
	/* only the last; and only when there is a rest */
	assert_int_equal(rb_dist_parse("zoned:50/:50/100", &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(rb_dist_parse("zoned:50/100:50/", &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(rb_dist_parse("zipf:1", &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(rb_dist_parse("pareto:1.5", &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(rb_dist_parse("gauss:3", &d, err, sizeof(err)), -EINVAL);
}

static void test_visit_once_is_a_permutation_per_pass(void **state)
{
	static const uint64_t sizes[] = { 1, 2, 1000, 1024, 4099 };
	struct rb_dist d = { .kind = RB_DIST_UNIFORM };

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s];
		unsigned char *seen = calloc(n, 1);
		struct rb_offgen g;
		struct rb_rng r;

		rb_rng_seed(&r, 11);
		assert_int_equal(rb_offgen_init(&g, &d, n, true, &r), 0);
		for (int pass = 1; pass <= 3; pass++) {
			for (uint64_t i = 0; i < n; i++) {
				uint64_t b = rb_offgen_next(&g, &r);

				assert_true(b < n);
				assert_int_equal(seen[b], pass - 1);
				seen[b] = (unsigned char)pass;
			}
		}
		free(seen);
	}
}

static void test_draws_reproducible_from_seed(void **state)
{
	struct rb_rng a, b, c;
	int same = 0;

	(void)state;
	rb_rng_seed(&a, 42);
	rb_rng_seed(&b, 42);
	rb_rng_seed(&c, 43);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = rb_rng_next(&a);

		assert_int_equal(x, rb_rng_next(&b));
		same += x == rb_rng_next(&c);
	}
	assert_int_equal(same, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bssplit_125_sizes_fit_their_weights),
		cmocka_unit_test(test_bssplit_zero_weight_never_drawn),
		cmocka_unit_test(test_bssplit_parse_errors),
		cmocka_unit_test(test_zipf_hit_rates),
		cmocka_unit_test(test_pareto_hit_rate),
		cmocka_unit_test(test_zoned_and_normal),
		cmocka_unit_test(test_visit_once_is_a_permutation_per_pass),
		cmocka_unit_test(test_draws_reproducible_from_seed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
