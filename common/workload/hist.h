/* SPDX-License-Identifier: MIT */
/*
 * Latency histogram, log-linear, in nanoseconds.
 *
 * Design note. Values below 2^7 = 128 ns each have their own bucket. Above, every
 * power-of-two range [2^m, 2^(m+1)) is split into 2^7 = 128 equal buckets of width
 * 2^(m-7). A bucket's width is thus at most 1/128 of its lower edge, and the value a
 * bucket reports (its midpoint) is within 1/256 = 0.39% of every value recorded in it:
 * percentiles are exact to 0.39% (the contract is <= 1%). Values 0 … 255 ns are exact.
 * The top range is m = 42, so the histogram covers 1 ns … 2^43 ns (8796 s, 2.4 h,
 * well past the 60 s required); larger values are clamped into the last bucket and
 * counted in `clamped`. Memory is fixed: 4736 buckets of uint64_t (37 KiB).
 *
 * Histograms merge by adding counts, bucket by bucket: merging is exact, and a
 * percentile of merged histograms equals the percentile of all values recorded in
 * one histogram. Never average percentiles. Every agent and the coordinator use this
 * one layout; its parameters are stored as HDF5 attributes so anyone can recompute
 * percentiles (schemas/results-layout.md).
 */
#ifndef RB_HIST_H
#define RB_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_HIST_SUB_BITS 7
#define RB_HIST_SUB (1u << RB_HIST_SUB_BITS)
#define RB_HIST_MAX_POW 42
#define RB_HIST_BUCKETS (RB_HIST_SUB + (RB_HIST_MAX_POW - RB_HIST_SUB_BITS + 1) * RB_HIST_SUB)
/* the layout the results file and the fleet database store (schemas/results-layout.md) */
_Static_assert(RB_HIST_BUCKETS == 4736, "the histogram's buckets are a stored layout");

struct rb_hist {
	uint64_t total;
	uint64_t clamped;
	uint64_t counts[RB_HIST_BUCKETS];
};

/* Bucket index of a value in ns. */
static inline unsigned rb_hist_index(uint64_t v)
{
	unsigned m;

	if (v < RB_HIST_SUB)
		return (unsigned)v;
	m = 63u - (unsigned)__builtin_clzll(v);
	if (m > RB_HIST_MAX_POW)
		return RB_HIST_BUCKETS - 1;
	return RB_HIST_SUB + (m - RB_HIST_SUB_BITS) * RB_HIST_SUB +
	       (unsigned)((v >> (m - RB_HIST_SUB_BITS)) - RB_HIST_SUB);
}

static inline void rb_hist_record(struct rb_hist *h, uint64_t v)
{
	unsigned i = rb_hist_index(v);

	h->counts[i]++;
	h->total++;
	if (v >> (RB_HIST_MAX_POW + 1))
		h->clamped++;
}

void rb_hist_clear(struct rb_hist *h);
/* Lowest value of bucket i, and one past its highest. */
uint64_t rb_hist_bucket_lower(unsigned i);
uint64_t rb_hist_bucket_upper(unsigned i);
/* The value bucket i reports: its midpoint (exact for width-1 buckets). */
uint64_t rb_hist_bucket_value(unsigned i);
/* dst += src. */
void rb_hist_merge(struct rb_hist *dst, const struct rb_hist *src);
/* Adds counts given sparsely; indexes out of range return -EINVAL (nothing added). */
int rb_hist_add_sparse(struct rb_hist *h, const uint32_t *idx, const uint64_t *cnt, size_t n);
/*
 * Value at percentile p (0 < p <= 100): the reported value of the bucket holding the
 * value of rank ceil(p/100 * total) among the recorded values in ascending order.
 * Returns 0 for an empty histogram.
 */
uint64_t rb_hist_percentile(const struct rb_hist *h, double p);
/*
 * The same on a histogram given sparsely, without building it: indexes must be strictly
 * ascending and in range (rb_hist_sparse_valid()), as rb_hist_to_sparse() writes them.
 */
uint64_t rb_hist_sparse_percentile(const uint32_t *idx, const uint64_t *cnt, size_t n, double p);
/* Whether sparse indexes are strictly ascending and in range (input from the wire). */
bool rb_hist_sparse_valid(const uint32_t *idx, size_t n);
/* Number of non-zero buckets. */
size_t rb_hist_nonzero(const struct rb_hist *h);
/* Writes up to max non-zero (index, count) pairs; returns how many were written. */
size_t rb_hist_to_sparse(const struct rb_hist *h, uint32_t *idx, uint64_t *cnt, size_t max);

#endif
