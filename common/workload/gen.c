// SPDX-License-Identifier: MIT
#include "gen.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "units.h"

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rb_rng_seed(struct rb_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
uint64_t rb_rng_next(struct rb_rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

static int parse_weight(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || !isfinite(v))
		return -EINVAL;
	*ret = v;
	return 0;
}

int rb_bssplit_parse(const char *text, struct rb_bssplit *ret, char *err, size_t errlen)
{
	char buf[8192], *save = NULL, *tok;
	double total = 0;

	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "'bssplit' is longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	memset(ret, 0, sizeof(*ret));
	for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(tok, '/');
		uint64_t bs;
		double w = 1;

		if (ret->n == RB_BS_MAX) {
			snprintf(err, errlen, "'bssplit' has more than %d sizes", RB_BS_MAX);
			return -EINVAL;
		}
		if (slash)
			*slash = '\0';
		if (rb_parse_size(tok, &bs) || bs < 512 || bs > (64ULL << 20) || bs % 512) {
			snprintf(err, errlen,
				 "'bssplit' size '%s' must be a multiple of 512 from 512 to 64m",
				 tok);
			return -EINVAL;
		}
		if (slash && parse_weight(slash + 1, &w)) {
			snprintf(err, errlen, "'bssplit' weight '%s' of %s must be a number >= 0",
				 slash + 1, tok);
			return -EINVAL;
		}
		if (!slash && strchr(text, ':')) {
			snprintf(err, errlen, "'bssplit' size %s needs a weight (SIZE/WEIGHT)",
				 tok);
			return -EINVAL;
		}
		ret->bs[ret->n] = bs;
		ret->weight[ret->n] = w;
		total += w;
		ret->n++;
	}
	if (!ret->n || !(total > 0)) {
		snprintf(err, errlen,
			 "'bssplit' needs at least one size with a positive weight, "
			 "as in 4k/30:64k/70");
		return -EINVAL;
	}
	return 0;
}

void rb_alias_init(struct rb_alias *a, const double *weight, unsigned n)
{
	double p[RB_BS_MAX], sum = 0;
	unsigned small[RB_BS_MAX], large[RB_BS_MAX], ns = 0, nl = 0;

	a->n = n;
	for (unsigned i = 0; i < n; i++)
		sum += weight[i];
	for (unsigned i = 0; i < n; i++) {
		p[i] = weight[i] * n / sum;
		a->alias[i] = (uint16_t)i;
		if (p[i] < 1)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns && nl) {
		unsigned s = small[--ns], l = large[nl - 1];

		a->prob[s] = p[s];
		a->alias[s] = (uint16_t)l;
		p[l] = (p[l] + p[s]) - 1;
		if (p[l] < 1) {
			nl--;
			small[ns++] = l;
		}
	}
	/* what is left is 1 up to rounding */
	while (nl)
		a->prob[large[--nl]] = 1;
	while (ns) {
		unsigned s = small[--ns];

		/* a zero weight left here (rounding) must still never be drawn */
		a->prob[s] = weight[s] > 0 ? 1 : 0;
		if (!(weight[s] > 0)) {
			for (unsigned k = 0; k < n; k++)
				if (weight[k] > 0) {
					a->alias[s] = (uint16_t)k;
					break;
				}
		}
	}
}

int rb_dist_parse(const char *text, struct rb_dist *ret, char *err, size_t errlen)
{
	const char *colon = strchr(text, ':');
	size_t klen = colon ? (size_t)(colon - text) : strlen(text);
	double v = 0;

	memset(ret, 0, sizeof(*ret));
	if (!strncmp(text, "uniform", klen) && klen == 7 && !colon) {
		ret->kind = RB_DIST_UNIFORM;
		return 0;
	}
	if (klen == 5 && !strncmp(text, "zoned", 5) && colon) {
		char buf[1024], *save = NULL, *tok;
		double io = 0, range = 0;

		snprintf(buf, sizeof(buf), "%s", colon + 1);
		ret->kind = RB_DIST_ZONED;
		for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
			char *slash = strchr(tok, '/');
			double a, b;

			if (!slash || ret->nzones == RB_ZONES_MAX)
				goto bad_zones;
			*slash = '\0';
			/* the last zone may leave its range out: the rest of the span (fio) */
			if (!slash[1] && !*save && range < 100 - 1e-6)
				b = 100 - range;
			else if (parse_weight(slash + 1, &b))
				goto bad_zones;
			if (parse_weight(tok, &a) || !(b > 0))
				goto bad_zones;
			ret->zone_io_pct[ret->nzones] = a;
			ret->zone_range_pct[ret->nzones] = b;
			io += a;
			range += b;
			ret->nzones++;
		}
		if (!ret->nzones || fabs(io - 100) > 1e-6 || fabs(range - 100) > 1e-6)
			goto bad_zones;
		return 0;
	bad_zones:
		snprintf(err, errlen,
			 "'random_distribution' zones are IO%%/RANGE%% pairs that each add up to "
			 "100, as in zoned:60/10:30/20:10/70 (the last range may be left out: the "
			 "rest), not '%s'",
			 text);
		return -EINVAL;
	}
	if (!colon || parse_weight(colon + 1, &v))
		goto bad;
	if (klen == 4 && !strncmp(text, "zipf", 4) && v > 0 && v != 1.0) {
		ret->kind = RB_DIST_ZIPF;
	} else if (klen == 6 && !strncmp(text, "pareto", 6) && v > 0 && v < 1) {
		ret->kind = RB_DIST_PARETO;
	} else if (klen == 6 && !strncmp(text, "normal", 6) && v > 0) {
		ret->kind = RB_DIST_NORMAL;
	} else {
		goto bad;
	}
	ret->param = v;
	return 0;
bad:
	snprintf(err, errlen,
		 "'random_distribution' must be uniform, zipf:THETA (> 0, not 1), pareto:H "
		 "(0 < H < 1), normal:STDDEV_PCT or zoned:IO%%/RANGE%%:..., not '%s'",
		 text);
	return -EINVAL;
}

/* rejection-inversion helpers (Hörmann & Derflinger) */
static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}

static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
}

static double h_integral(double s, double x)
{
	double lx = log(x);

	return helper2((1.0 - s) * lx) * lx;
}

static double h_fn(double s, double x)
{
	return exp(-s * log(x));
}

static double h_integral_inv(double s, double x)
{
	double t = x * (1.0 - s);

	if (t < -1.0)
		t = -1.0;
	return exp(helper1(t) * x);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int rb_offgen_init(struct rb_offgen *g, const struct rb_dist *d, uint64_t nblocks, bool once,
		   struct rb_rng *r)
{
	memset(g, 0, sizeof(*g));
	if (!nblocks)
		return -EINVAL;
	g->d = *d;
	g->n = nblocks;
	g->once = once && d->kind == RB_DIST_UNIFORM;
	switch (d->kind) {
	case RB_DIST_ZIPF: {
		double s = d->param, n = (double)nblocks;

		g->hx1 = h_integral(s, 1.5) - 1.0;
		g->hn = h_integral(s, n + 0.5);
		g->sc = 2.0 - h_integral_inv(s, h_integral(s, 2.5) - h_fn(s, 2.0));
		break;
	}
	case RB_DIST_PARETO:
		g->ppow = log(d->param) / log(1.0 - d->param);
		break;
	case RB_DIST_ZONED: {
		double acc = 0;

		rb_alias_init(&g->zones, d->zone_io_pct, d->nzones);
		for (unsigned z = 0; z < d->nzones; z++) {
			uint64_t a = (uint64_t)(acc / 100.0 * (double)nblocks);
			uint64_t b;

			acc += d->zone_range_pct[z];
			b = z + 1 == d->nzones ? nblocks
					       : (uint64_t)(acc / 100.0 * (double)nblocks);
			g->zone_start[z] = a;
			g->zone_len[z] = b > a ? b - a : 1;
			if (g->zone_start[z] >= nblocks)
				g->zone_start[z] = nblocks - 1;
		}
		break;
	}
	default:
		break;
	}
	/* rank -> block: multiply by a constant coprime with n (a bijection mod n) */
	g->mult = (uint64_t)((double)nblocks * 0.6180339887) | 1;
	while (nblocks > 1 && gcd(g->mult, nblocks) != 1)
		g->mult += 2;
	if (g->once) {
		uint64_t m = 1;

		while (m < nblocks)
			m <<= 1;
		g->lcg_mask = m - 1;
		g->lcg_x = rb_rng_next(r) & g->lcg_mask;
	}
	return 0;
}

uint64_t rb_offgen_rank(struct rb_offgen *g, struct rb_rng *r)
{
	if (g->d.kind == RB_DIST_ZIPF) {
		double s = g->d.param;

		for (;;) {
			double u = g->hn + rb_rng_unit(r) * (g->hx1 - g->hn);
			double x = h_integral_inv(s, u);
			double k = floor(x + 0.5);

			if (k < 1)
				k = 1;
			else if (k > (double)g->n)
				k = (double)g->n;
			if (k - x <= g->sc || u >= h_integral(s, k + 0.5) - h_fn(s, k))
				return (uint64_t)k - 1;
		}
	}
	/* pareto */
	uint64_t k = (uint64_t)((double)(g->n - 1) * pow(rb_rng_unit(r), g->ppow) + 0.5);

	return k < g->n ? k : g->n - 1;
}

uint64_t rb_offgen_next(struct rb_offgen *g, struct rb_rng *r)
{
	switch (g->d.kind) {
	case RB_DIST_UNIFORM:
		if (g->once) {
			/* full period: a = 1 mod 4, c odd */
			do
				g->lcg_x =
					(g->lcg_x * 0x5851f42d4c957f2dULL + 0x14057b7ef767814fULL) &
					g->lcg_mask;
			while (g->lcg_x >= g->n);
			return g->lcg_x;
		}
		return rb_rng_below(r, g->n);
	case RB_DIST_ZIPF:
	case RB_DIST_PARETO:
		return (uint64_t)(((unsigned __int128)rb_offgen_rank(g, r) * g->mult) % g->n);
	case RB_DIST_NORMAL: {
		double u1 = rb_rng_unit(r), u2 = rb_rng_unit(r);
		double z = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
		double n = (double)g->n, x = n / 2.0 + z * g->d.param / 100.0 * n;

		/* fold back into the range */
		x = fmod(x, 2.0 * n);
		if (x < 0)
			x += 2.0 * n;
		if (x >= n)
			x = 2.0 * n - x - 1;
		if (x < 0)
			x = 0;
		return (uint64_t)x < g->n ? (uint64_t)x : g->n - 1;
	}
	case RB_DIST_ZONED: {
		unsigned z = rb_alias_draw(&g->zones, r);

		return g->zone_start[z] + rb_rng_below(r, g->zone_len[z]);
	}
	}
	return 0;
}

int rb_check_bssplit(const char *value, char *err, size_t errlen)
{
	struct rb_bssplit *s = malloc(sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	r = rb_bssplit_parse(value, s, err, errlen);
	free(s);
	return r;
}

int rb_check_distribution(const char *value, char *err, size_t errlen)
{
	struct rb_dist d;

	return rb_dist_parse(value, &d, err, errlen);
}
