// SPDX-License-Identifier: MIT
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/*
 * Parses "<digits>[.<digits>]<suffix>" into an integer part, a fraction scaled by
 * 10^frac_digits, and a pointer to the suffix. No locale, no strtod rounding.
 */
static int parse_number(const char *s, uint64_t *ret_int, uint64_t *ret_frac,
			unsigned *ret_frac_digits, const char **ret_suffix)
{
	uint64_t v = 0, frac = 0;
	unsigned nfrac = 0;
	const char *p = s;

	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		uint64_t digit = (uint64_t)(*p - '0');

		if (v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && digit > UINT64_MAX % 10))
			return -ERANGE;
		v = v * 10 + digit;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			if (nfrac < 9) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				nfrac++;
			}
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	*ret_int = v;
	*ret_frac = frac;
	*ret_frac_digits = nfrac;
	*ret_suffix = p;
	return 0;
}

static uint64_t pow10u(unsigned n)
{
	uint64_t r = 1;

	while (n--)
		r *= 10;
	return r;
}

/* v * mult + frac/10^nd * mult, with overflow checks */
static int scale(uint64_t v, uint64_t frac, unsigned nd, uint64_t mult, uint64_t *ret)
{
	uint64_t whole, part;

	if (mult && v > UINT64_MAX / mult)
		return -ERANGE;
	whole = v * mult;
	/* frac < 10^9 and mult <= 2^40 * 3600e9 could overflow: split */
	part = (uint64_t)((unsigned __int128)frac * mult / pow10u(nd));
	if (whole > UINT64_MAX - part)
		return -ERANGE;
	*ret = whole + part;
	return 0;
}

int rb_parse_size(const char *s, uint64_t *ret_bytes)
{
	static const struct {
		const char *sfx;
		uint64_t mult;
	} units[] = {
		{ "", 1 },
		{ "b", 1 },
		{ "k", 1ULL << 10 },
		{ "kb", 1ULL << 10 },
		{ "kib", 1ULL << 10 },
		{ "m", 1ULL << 20 },
		{ "mb", 1ULL << 20 },
		{ "mib", 1ULL << 20 },
		{ "g", 1ULL << 30 },
		{ "gb", 1ULL << 30 },
		{ "gib", 1ULL << 30 },
		{ "t", 1ULL << 40 },
		{ "tb", 1ULL << 40 },
		{ "tib", 1ULL << 40 },
		{ "p", 1ULL << 50 },
		{ "pb", 1ULL << 50 },
		{ "pib", 1ULL << 50 },
	};
	uint64_t v, frac;
	unsigned nd;
	const char *sfx;
	int r;

	if (!s)
		return -EINVAL;
	r = parse_number(s, &v, &frac, &nd, &sfx);
	if (r)
		return r;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].sfx);

		if (strncasecmp(sfx, units[i].sfx, n) == 0 && sfx[n] == '\0') {
			uint64_t out;

			/* a fraction of a byte is meaningless */
			if (units[i].mult == 1 && frac)
				return -EINVAL;
			r = scale(v, frac, nd, units[i].mult, &out);
			if (r)
				return r;
			*ret_bytes = out;
			return 0;
		}
	}
	return -EINVAL;
}

int rb_parse_duration(const char *s, uint64_t *ret_ns)
{
	static const struct {
		const char *sfx;
		uint64_t mult;
	} units[] = {
		{ "", 1000000000ULL },	    { "ns", 1 },
		{ "us", 1000ULL },	    { "ms", 1000000ULL },
		{ "s", 1000000000ULL },	    { "m", 60000000000ULL },
		{ "min", 60000000000ULL },  { "h", 3600000000000ULL },
		{ "d", 86400000000000ULL },
	};
	uint64_t v, frac;
	unsigned nd;
	const char *sfx;
	int r;

	if (!s)
		return -EINVAL;
	r = parse_number(s, &v, &frac, &nd, &sfx);
	if (r)
		return r;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(sfx, units[i].sfx) == 0)
			return scale(v, frac, nd, units[i].mult, ret_ns);
	}
	return -EINVAL;
}

int rb_parse_u64(const char *s, uint64_t *ret)
{
	uint64_t v, frac;
	unsigned nd;
	const char *sfx;
	int r;

	if (!s)
		return -EINVAL;
	r = parse_number(s, &v, &frac, &nd, &sfx);
	if (r)
		return r;
	if (*sfx || nd)
		return -EINVAL;
	*ret = v;
	return 0;
}

char *rb_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char sfx[] = "kmgtp";

	for (int i = 4; i >= 0; i--) {
		uint64_t u = 1ULL << (10 * (i + 1));

		if (bytes >= u && bytes % u == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", bytes / u, sfx[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64, bytes);
	return buf;
}

char *rb_fmt_size_human(uint64_t bytes, char *buf, size_t len)
{
	static const char *const u[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int i = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	/* up a unit before rounding could print 1024 */
	while (i < 5 && (i < 0 || v >= 999.5)) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, u[i]);
	return buf;
}

char *rb_fit_name(const char *s, size_t width, char *buf, size_t len)
{
	size_t n = strlen(s), head, tail;

	if (n <= width || width < 8) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	head = (width - 3) * 2 / 5;
	tail = width - 3 - head;
	snprintf(buf, len, "%.*s...%s", (int)head, s, s + n - tail);
	return buf;
}

char *rb_fmt_duration(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		const char *sfx;
		uint64_t mult;
	} units[] = {
		{ "h", 3600000000000ULL }, { "m", 60000000000ULL }, { "s", 1000000000ULL },
		{ "ms", 1000000ULL },	   { "us", 1000ULL },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns >= units[i].mult && ns % units[i].mult == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", ns / units[i].mult, units[i].sfx);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

char *rb_fmt_duration_human(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / (uint64_t)1000000000;

	if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m", s / 3600,
			 (s % 3600 + 30) / 60 % 60);
	else if (s >= 60)
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
	else if (ns >= (uint64_t)1000000000)
		snprintf(buf, len, "%.3gs", (double)ns / 1e9);
	else if (ns >= (uint64_t)1000000)
		snprintf(buf, len, "%" PRIu64 "ms", ns / (uint64_t)1000000);
	else
		snprintf(buf, len, "0s");
	return buf;
}
