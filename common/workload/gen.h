/* SPDX-License-Identifier: MIT */
/*
 * Generators of the engine: random numbers reproducible from a seed, block sizes
 * drawn from a weighted split, and block numbers drawn from a distribution.
 *
 * Design note. Block-size splits have any number of sizes (up to RB_BS_MAX) with
 * fractional weights; a size is drawn in O(1) with Walker's alias method (one uniform
 * number picks a column, a second compares with its threshold), so a 125-size split
 * costs what a 2-size one does. Offsets: uniform; zipf(theta) by rejection-inversion
 * (Hörmann & Derflinger 1996), exact for any theta > 0 in O(1) expected time; pareto(h)
 * as fio defines it (a fraction h of the blocks receives 1 - h of the IOs); normal with
 * a standard deviation in percent of the range, centred, folded back into it; hot zones
 * (percent of IOs to percent of the range). Ranked distributions (zipf, pareto) spread
 * their hot ranks over the range with a fixed bijection, so hot blocks are not all at
 * the start. visit_once walks a full-period LCG over the next power of two, skipping
 * values past the range: every block exactly once per pass, about 1.5 steps per draw.
 * Nothing here allocates after rb_gen_init().
 */
#ifndef RB_GEN_H
#define RB_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_BS_MAX 256
#define RB_ZONES_MAX 32

struct rb_rng {
	uint64_t s[4];
};

void rb_rng_seed(struct rb_rng *r, uint64_t seed);
uint64_t rb_rng_next(struct rb_rng *r);
/* uniform in [0, n) */
static inline uint64_t rb_rng_below(struct rb_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rb_rng_next(r) * n) >> 64);
}
/* uniform in [0, 1) with 53 bits */
static inline double rb_rng_unit(struct rb_rng *r)
{
	return (double)(rb_rng_next(r) >> 11) * 0x1.0p-53;
}

/* A parsed block-size split: sizes with weights that need not add up to 100. */
struct rb_bssplit {
	unsigned n;
	uint64_t bs[RB_BS_MAX];
	double weight[RB_BS_MAX];
};

/* Parses "4k/10:64k/50.5:128k/39.5" (weights optional only when alone). 0 or -EINVAL. */
int rb_bssplit_parse(const char *text, struct rb_bssplit *ret, char *err, size_t errlen);

struct rb_alias {
	unsigned n;
	double prob[RB_BS_MAX];
	uint16_t alias[RB_BS_MAX];
};

void rb_alias_init(struct rb_alias *a, const double *weight, unsigned n);
static inline unsigned rb_alias_draw(const struct rb_alias *a, struct rb_rng *r)
{
	unsigned col = (unsigned)rb_rng_below(r, a->n);

	return rb_rng_unit(r) < a->prob[col] ? col : a->alias[col];
}

enum rb_dist_kind { RB_DIST_UNIFORM, RB_DIST_ZIPF, RB_DIST_PARETO, RB_DIST_NORMAL, RB_DIST_ZONED };

struct rb_dist {
	enum rb_dist_kind kind;
	double param;
	unsigned nzones;
	double zone_io_pct[RB_ZONES_MAX], zone_range_pct[RB_ZONES_MAX];
};

/* Parses "uniform", "zipf:1.2", "pareto:0.2", "normal:5", "zoned:60/10:30/20:10/70". */
int rb_dist_parse(const char *text, struct rb_dist *ret, char *err, size_t errlen);

/* A distribution prepared for n blocks. */
struct rb_offgen {
	struct rb_dist d;
	uint64_t n;
	/* zipf rejection-inversion */
	double hx1, hn, sc;
	/* pareto */
	double ppow;
	/* zoned */
	struct rb_alias zones;
	uint64_t zone_start[RB_ZONES_MAX], zone_len[RB_ZONES_MAX];
	/* rank -> block bijection */
	uint64_t mult;
	/* visit_once */
	bool once;
	uint64_t lcg_mask, lcg_x;
};

int rb_offgen_init(struct rb_offgen *g, const struct rb_dist *d, uint64_t nblocks, bool once,
		   struct rb_rng *r);
/* The next block number in [0, n). */
uint64_t rb_offgen_next(struct rb_offgen *g, struct rb_rng *r);
/* The rank (0 = hottest) of a zipf or pareto draw, before spreading: for tests. */
uint64_t rb_offgen_rank(struct rb_offgen *g, struct rb_rng *r);

#endif
