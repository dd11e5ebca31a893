// SPDX-License-Identifier: MIT
#include "hist.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void rb_hist_clear(struct rb_hist *h)
{
	memset(h, 0, sizeof(*h));
}

uint64_t rb_hist_bucket_lower(unsigned i)
{
	unsigned g, sub;

	if (i < RB_HIST_SUB)
		return i;
	g = (i - RB_HIST_SUB) / RB_HIST_SUB; /* m - SUB_BITS */
	sub = (i - RB_HIST_SUB) % RB_HIST_SUB;
	return (uint64_t)(RB_HIST_SUB + sub) << g;
}

uint64_t rb_hist_bucket_upper(unsigned i)
{
	unsigned g;

	if (i < RB_HIST_SUB)
		return i + 1;
	g = (i - RB_HIST_SUB) / RB_HIST_SUB;
	return rb_hist_bucket_lower(i) + (1ULL << g);
}

uint64_t rb_hist_bucket_value(unsigned i)
{
	uint64_t lo = rb_hist_bucket_lower(i), hi = rb_hist_bucket_upper(i);

	return lo + (hi - 1 - lo) / 2;
}

void rb_hist_merge(struct rb_hist *dst, const struct rb_hist *src)
{
	for (unsigned i = 0; i < RB_HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	dst->clamped += src->clamped;
}

int rb_hist_add_sparse(struct rb_hist *h, const uint32_t *idx, const uint64_t *cnt, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (idx[k] >= RB_HIST_BUCKETS)
			return -EINVAL;
	for (size_t k = 0; k < n; k++) {
		h->counts[idx[k]] += cnt[k];
		h->total += cnt[k];
	}
	return 0;
}

/* rank of percentile p among total values: ceil(p/100 * total), within 1..total */
static uint64_t rank_of(uint64_t total, double p)
{
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)total);

	if (rank < 1)
		rank = 1;
	return rank > total ? total : rank;
}

uint64_t rb_hist_sparse_percentile(const uint32_t *idx, const uint64_t *cnt, size_t n, double p)
{
	uint64_t total = 0, rank, cum = 0;

	for (size_t k = 0; k < n; k++)
		total += cnt[k];
	if (!total)
		return 0;
	rank = rank_of(total, p);
	for (size_t k = 0; k < n; k++) {
		cum += cnt[k];
		if (cum >= rank)
			return rb_hist_bucket_value(idx[k]);
	}
	return rb_hist_bucket_value(idx[n - 1]);
}

bool rb_hist_sparse_valid(const uint32_t *idx, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (idx[k] >= RB_HIST_BUCKETS || (k && idx[k] <= idx[k - 1]))
			return false;
	return true;
}

uint64_t rb_hist_percentile(const struct rb_hist *h, double p)
{
	uint64_t rank, cum = 0;

	if (!h->total)
		return 0;
	rank = rank_of(h->total, p);
	for (unsigned i = 0; i < RB_HIST_BUCKETS; i++) {
		cum += h->counts[i];
		if (cum >= rank)
			return rb_hist_bucket_value(i);
	}
	return rb_hist_bucket_value(RB_HIST_BUCKETS - 1);
}

size_t rb_hist_nonzero(const struct rb_hist *h)
{
	size_t n = 0;

	for (unsigned i = 0; i < RB_HIST_BUCKETS; i++)
		n += h->counts[i] != 0;
	return n;
}

size_t rb_hist_to_sparse(const struct rb_hist *h, uint32_t *idx, uint64_t *cnt, size_t max)
{
	size_t n = 0;

	for (unsigned i = 0; i < RB_HIST_BUCKETS && n < max; i++) {
		if (h->counts[i]) {
			idx[n] = i;
			cnt[n] = h->counts[i];
			n++;
		}
	}
	return n;
}
