// SPDX-License-Identifier: MIT
/*
 * The health rules of the verdicts (verdict.h): over the whole run, from a drive's health
 * snapshots -- SMART (temperature, warning bits, counters that rise, spare, wear) and the
 * PCIe link (its training, its AER correctable errors an hour).
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "verdict.h"
#include "verdict_priv.h"

static const char *warning_bits(unsigned bits, char *buf, size_t len)
{
	static const char *const names[] = {
		"available spare below its threshold",	"temperature beyond its threshold",
		"reliability degraded by media errors", "media read-only",
		"volatile memory backup failed",	"persistent memory read-only"
	};
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned b = 0; b < 8 && n < len; b++)
		if (bits & (1u << b))
			n += (size_t)snprintf(buf + n, len - n, "%sbit %u (%s)", n ? ", " : "", b,
					      b < 6 ? names[b] : "reserved");
	return buf;
}

/* A counter's rise over the run (last minus first snapshot) against its limit. */
static void rise_rule(struct judge *j, uint32_t d, const char *rule, const char *what, double limit,
		      const struct rb_row_health *first, const struct rb_row_health *last,
		      size_t off)
{
	double a = *(const double *)(const void *)((const char *)first + off);
	double b = *(const double *)(const void *)((const char *)last + off);

	if (isnan(limit) || isnan(a) || isnan(b) || b - a <= limit)
		return;
	rb_vj_add(j, d, rule, RB_FAIL, b - a, limit, last->point, -1, last->t_ns,
		  "%.0f new %s during the run (%.0f to %.0f; at most %.0f allowed)", b - a, what, a,
		  b, limit);
}

/*
 * min_spare_pct: a fall during the run below the floor, from the run's first reading at
 * or above it. A drive whose spare was below the floor from its first reading did not
 * fall: its level is judged against its own threshold, which it reports as critical
 * warning bit 0 (available spare below its threshold) -- an emulated drive reports 0%
 * with a threshold of 0, and is no worn-out drive.
 */
static void spare_rule(struct judge *j, uint32_t d, const struct rb_verdict_rules *r,
		       const struct rb_row_health *first, const struct rb_row_health *low)
{
	double floor = r->min_spare_pct;

	if (isnan(floor) || !low || isnan(first->h.available_spare_pct))
		return;
	if (first->h.available_spare_pct >= floor && low->h.available_spare_pct < floor)
		rb_vj_add(j, d, "min_spare_pct", RB_FAIL, low->h.available_spare_pct, floor,
			  low->point, -1, low->t_ns,
			  "available spare fell from %.0f%% to %.0f%% (at least %.0f%%)",
			  first->h.available_spare_pct, low->h.available_spare_pct, floor);
	else if (first->h.available_spare_pct < floor && (first->h.critical_warning & 1))
		rb_vj_add(j, d, "min_spare_pct", RB_FAIL, first->h.available_spare_pct, floor,
			  first->point, -1, first->t_ns,
			  "available spare %.0f%% from the first reading, below the drive's own "
			  "threshold (critical warning bit 0)",
			  first->h.available_spare_pct);
}

void rb_vj_health_rules(struct judge *j, size_t dp)
{
	const struct rb_verdict_in *in = j->in;
	const struct rb_verdict_rules *r = in->root;
	uint32_t d = in->drives[dp].drive;
	size_t end, b = RANGE(j->hs, in->nh, in->health, d, &end);
	const struct rb_row_health *first = NULL, *last = NULL, *hot = NULL, *warn = NULL,
				   *low = NULL;
	unsigned bits = 0;
	char words[256];

	for (size_t i = b; i < end; i++) {
		const struct rb_row_health *h = &in->health[j->hs[i]];

		if (h->member || !h->h.nvme)
			continue;
		if (!first)
			first = h;
		last = h;
		if (!isnan(h->h.temperature_c) &&
		    (!hot || h->h.temperature_c > hot->h.temperature_c))
			hot = h;
		if (h->h.critical_warning && !warn)
			warn = h;
		bits |= h->h.critical_warning;
		if (!isnan(h->h.available_spare_pct) &&
		    (!low || h->h.available_spare_pct < low->h.available_spare_pct))
			low = h;
	}
	if (!first)
		return; /* no SMART log: the drive row says health was not judged */
	if (!isnan(r->max_temp_c) && hot && hot->h.temperature_c > r->max_temp_c)
		rb_vj_add(j, d, "max_temp_c", RB_FAIL, hot->h.temperature_c, r->max_temp_c,
			  hot->point, -1, hot->t_ns,
			  "reached %.0f degC in point %u '%s' (at most %.0f allowed)",
			  hot->h.temperature_c, hot->point, rb_vj_point_name(j, hot->point),
			  r->max_temp_c);
	if (r->critical_warning == 1 && bits)
		rb_vj_add(j, d, "critical_warning", RB_FAIL, bits, 0, warn->point, -1, warn->t_ns,
			  "critical warning %s, first in point %u '%s'",
			  warning_bits(bits, words, sizeof(words)), warn->point,
			  rb_vj_point_name(j, warn->point));
	spare_rule(j, d, r, first, low);
	if (!isnan(r->max_wear_pct) && !isnan(first->h.percentage_used) &&
	    last->h.percentage_used - first->h.percentage_used > r->max_wear_pct)
		rb_vj_add(j, d, "max_wear_pct", RB_FAIL,
			  last->h.percentage_used - first->h.percentage_used, r->max_wear_pct,
			  last->point, -1, last->t_ns,
			  "percentage used rose from %.0f%% to %.0f%% (by at most %.0f allowed)",
			  first->h.percentage_used, last->h.percentage_used, r->max_wear_pct);
	rise_rule(j, d, "max_media_errors", "media and data integrity error(s)",
		  r->max_media_errors, first, last, offsetof(struct rb_row_health, h.media_errors));
	rise_rule(j, d, "max_error_log_entries", "error-log entries", r->max_error_log_entries,
		  first, last, offsetof(struct rb_row_health, h.error_log_entries));
	rise_rule(j, d, "max_unsafe_shutdowns", "unsafe shutdown(s)", r->max_unsafe_shutdowns,
		  first, last, offsetof(struct rb_row_health, h.unsafe_shutdowns));
	rise_rule(j, d, "max_warn_temp_minutes", "minute(s) above the warning temperature",
		  r->max_warn_temp_minutes, first, last,
		  offsetof(struct rb_row_health, h.warn_temp_minutes));
	rise_rule(j, d, "max_throttle_seconds", "second(s) of thermal throttling",
		  r->max_throttle_seconds, first, last,
		  offsetof(struct rb_row_health, h.throttle_seconds));
	rise_rule(j, d, "max_throttle_transitions", "entries into thermal throttling",
		  r->max_throttle_transitions, first, last,
		  offsetof(struct rb_row_health, h.throttle_transitions));
}

/* "x2 of x4 at 8 GT/s of 16 GT/s" and the like: what a downtrained link lacks. */
static bool link_short(const struct rb_row_health *h, char *why, size_t len)
{
	return rb_link_short(h->h.pcie_speed, h->h.pcie_max_speed, h->h.pcie_width,
			     h->h.pcie_max_width, why, len);
}

/*
 * The PCIe link over the run (any drive with a link, NVMe or not): pcie_downtrained at
 * the first reading below what both ends can do, named with its slot;
 * max_pcie_correctable_per_hour over the readings' span, from the first to the last.
 */
void rb_vj_pcie_rules(struct judge *j, size_t dp)
{
	const struct rb_verdict_in *in = j->in;
	const struct rb_verdict_rules *r = in->root;
	uint32_t d = in->drives[dp].drive;
	size_t end, b = RANGE(j->hs, in->nh, in->health, d, &end);
	const struct rb_row_health *first = NULL, *last = NULL, *bad = NULL;
	char why[96], w[96];

	for (size_t i = b; i < end; i++) {
		const struct rb_row_health *h = &in->health[j->hs[i]];

		if (h->member || !h->h.pcie)
			continue;
		if (!first)
			first = h;
		last = h;
		if (!bad && link_short(h, w, sizeof(w)))
			bad = h, snprintf(why, sizeof(why), "%s", w);
	}
	if (r->pcie_downtrained == 1 && bad)
		rb_vj_add(j, d, "pcie_downtrained", RB_FAIL, bad->h.pcie_width,
			  bad->h.pcie_max_width, bad->point, -1, bad->t_ns,
			  "PCIe link %s, %s%s, first in point %u '%s'", why,
			  bad->h.slot[0] ? "in slot " : "in no slot the host names", bad->h.slot,
			  bad->point, rb_vj_point_name(j, bad->point));
	if (!isnan(r->max_pcie_correctable_per_hour) && first && last->t_ns > first->t_ns &&
	    !isnan(first->h.aer_correctable) && !isnan(last->h.aer_correctable)) {
		double h = (double)(last->t_ns - first->t_ns) / 3.6e12,
		       n = last->h.aer_correctable - first->h.aer_correctable;

		if (n / h > r->max_pcie_correctable_per_hour)
			rb_vj_add(
				j, d, "max_pcie_correctable_per_hour", RB_FAIL, n / h,
				r->max_pcie_correctable_per_hour, last->point, -1, last->t_ns,
				"%.0f new PCIe correctable error(s) (AER) in %.2f h: %.1f an hour (at "
				"most %g)%s%s",
				n, h, n / h, r->max_pcie_correctable_per_hour,
				last->h.slot[0] ? ", slot " : "", last->h.slot);
	}
}

size_t rb_throttled_intervals(const struct rb_row_health *h, size_t nh, uint32_t drive,
			      uint32_t point, uint32_t attempt, int64_t start_ns,
			      const int64_t *ends, size_t n, bool *mark)
{
	const struct rb_row_health *prev = NULL;
	size_t marked = 0;

	memset(mark, 0, n * sizeof(*mark));
	for (size_t k = 0; k < nh; k++) {
		const struct rb_row_health *x = &h[k];

		if (x->drive != drive || x->point != point || x->attempt != attempt || x->member ||
		    !x->h.nvme || isnan(x->h.throttle_transitions))
			continue;
		/* the counters rose between prev and x: throttled somewhere in (prev, x] */
		if (prev && x->t_ns >= prev->t_ns &&
		    (x->h.throttle_transitions > prev->h.throttle_transitions ||
		     x->h.throttle_seconds > prev->h.throttle_seconds))
			for (size_t i = 0; i < n; i++) {
				int64_t from = i ? ends[i - 1] : start_ns;
				int64_t lo = from > prev->t_ns ? from : prev->t_ns;
				int64_t hi = ends[i] < x->t_ns ? ends[i] : x->t_ns;

				/* at least half of the interval between the two: a snapshot
				 * taken just after an interval's end marks that one alone */
				if (!mark[i] && hi > lo && 2 * (hi - lo) >= ends[i] - from) {
					mark[i] = true;
					marked++;
				}
			}
		prev = x;
	}
	return marked;
}

void rb_intervals_text(const bool *mark, size_t n, char *buf, size_t len)
{
	size_t w = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && w < len; i++) {
		size_t j = i;

		if (!mark[i])
			continue;
		while (j + 1 < n && mark[j + 1])
			j++;
		w += (size_t)(j > i ? snprintf(buf + w, len - w, "%s%zu-%zu", w ? ", " : "", i, j)
				    : snprintf(buf + w, len - w, "%s%zu", w ? ", " : "", i));
		i = j;
	}
}
