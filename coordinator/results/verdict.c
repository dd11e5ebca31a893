// SPDX-License-Identifier: MIT
/*
 * Verdicts (verdict.h): every drive judged from its rows, every reason kept. The rows
 * are grouped once (sorted indexes), so a fleet's file is judged in n log n.
 */
#include "verdict.h"
#include "verdict_priv.h"
#include "grow.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void rb_verdict_rules_init(struct rb_verdict_rules *r)
{
	r->max_temp_c = r->min_spare_pct = r->max_wear_pct = NAN;
	r->max_media_errors = r->max_error_log_entries = r->max_unsafe_shutdowns = NAN;
	r->critical_warning = r->min_model_pct = NAN;
	r->pcie_downtrained = r->max_pcie_correctable_per_hour = NAN;
	r->max_warn_temp_minutes = r->max_throttle_seconds = r->max_throttle_transitions = NAN;
	r->max_p99_ns = r->max_p99_9_ns = r->cliff_pct = r->cliff_window = NAN;
}

#define NRULES (sizeof(struct rb_verdict_rules) / sizeof(double))
_Static_assert(sizeof(struct rb_verdict_rules) % sizeof(double) == 0, "the rules are doubles only");

static const double *rule_at(const struct rb_verdict_rules *r, size_t i)
{
	return (const double *)(const void *)r + i;
}

bool rb_verdict_rules_any(const struct rb_verdict_rules *r)
{
	for (size_t i = 0; i < NRULES; i++)
		if (!isnan(*rule_at(r, i)))
			return true;
	return false;
}

void rb_verdict_rules_merge(struct rb_verdict_rules *out, const struct rb_verdict_rules *root,
			    const struct rb_verdict_rules *phase)
{
	double *o = (double *)(void *)out;

	*out = *root;
	for (size_t i = 0; phase && i < NRULES; i++)
		if (!isnan(*rule_at(phase, i)))
			o[i] = *rule_at(phase, i);
}

bool rb_verdict_key_is_health(const char *key)
{
	static const char *const health[] = { "max_temp_c",
					      "min_spare_pct",
					      "max_wear_pct",
					      "max_media_errors",
					      "max_error_log_entries",
					      "max_unsafe_shutdowns",
					      "critical_warning",
					      "max_warn_temp_minutes",
					      "max_throttle_seconds",
					      "max_throttle_transitions",
					      "pcie_downtrained",
					      "max_pcie_correctable_per_hour" };

	for (size_t i = 0; i < sizeof(health) / sizeof(health[0]); i++)
		if (!strcmp(key, health[i]))
			return true;
	return false;
}

const char *rb_verdict_name(enum rb_verdict v)
{
	return v == RB_FAIL ? "FAIL" : v == RB_INCOMPLETE ? "INCOMPLETE" : "PASS";
}

/* ---- the rows being built ---- */

void rb_vj_add(struct judge *j, uint32_t drive, const char *rule, enum rb_verdict verdict,
	       double measured, double limit, int64_t point, int64_t interval, int64_t t_ns,
	       const char *fmt, ...)
{
	struct rb_row_verdict *r;
	va_list ap;

	if (RB_GROW(j->v, j->cap, j->n, 64)) {
		j->oom = true;
		return;
	}
	r = &j->v[j->n++];
	memset(r, 0, sizeof(*r));
	r->drive = drive;
	snprintf(r->rule, sizeof(r->rule), "%s", rule);
	snprintf(r->verdict, sizeof(r->verdict), "%s", rb_verdict_name(verdict));
	r->measured = measured;
	r->limit = limit;
	r->point = point;
	r->interval = interval;
	r->t_ns = t_ns;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	if (verdict > j->worst)
		j->worst = verdict;
}

static const struct rb_verdict_rules *rules_of(const struct judge *j, uint32_t point)
{
	const struct rb_verdict_rules *r =
		j->in->point_rules ? j->in->point_rules(j->in->arg, point) : NULL;

	return r ? r : j->in->root;
}

const char *rb_vj_point_name(const struct judge *j, uint32_t point)
{
	uint32_t pp = point < j->nppos ? j->ppos[point] : UINT32_MAX;

	return pp == UINT32_MAX ? "?" : j->in->points[pp].name;
}

/* ---- grouping ---- */

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_health(const void *a, const void *b, void *arg)
{
	const struct rb_row_health *v = ((const struct rb_verdict_in *)arg)->health;
	const struct rb_row_health *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	return x->drive != y->drive ? cmp_u32(x->drive, y->drive) : cmp_i64(x->t_ns, y->t_ns);
}

static int cmp_ioerror(const void *a, const void *b, void *arg)
{
	const struct rb_row_ioerror *v = ((const struct rb_verdict_in *)arg)->ioerrors;
	const struct rb_row_ioerror *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	/* by offset over every point: a range is contiguous on the drive, whichever point */
	if (x->drive != y->drive)
		return cmp_u32(x->drive, y->drive);
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int cmp_sample(const void *a, const void *b, void *arg)
{
	const struct rb_row_sample *v = ((const struct rb_verdict_in *)arg)->samples;
	const struct rb_row_sample *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->drive != y->drive)
		return cmp_u32(x->drive, y->drive);
	if (x->point != y->point)
		return cmp_u32(x->point, y->point);
	if (x->attempt != y->attempt)
		return cmp_u32(x->attempt, y->attempt);
	return cmp_u32(x->interval, y->interval);
}

static int cmp_result(const void *a, const void *b, void *arg)
{
	const struct rb_row_result *v = ((const struct rb_verdict_in *)arg)->results;

	return cmp_u32(v[*(const size_t *)a].drive, v[*(const size_t *)b].drive);
}

static size_t *sorted(const struct rb_verdict_in *in, size_t n,
		      int (*cmp)(const void *, const void *, void *))
{
	size_t *ix = malloc((n + 1) * sizeof(*ix));

	for (size_t i = 0; ix && i < n; i++)
		ix[i] = i;
	if (ix)
		qsort_r(ix, n, sizeof(*ix), cmp, (void *)in);
	return ix;
}

/*
 * The rows of drive d among rows sorted by drive (ix, n of them): [first, *end). Every
 * row type starts with its drive.
 */
size_t rb_vj_range(const size_t *ix, size_t n, const void *rows, size_t rowsize, uint32_t d,
		   size_t *end)
{
	size_t lo = 0, hi = n;

#define DRIVE_OF(i) (*(const uint32_t *)(const void *)((const char *)rows + ix[i] * rowsize))
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (DRIVE_OF(mid) < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < n && DRIVE_OF(hi) == d; hi++)
		;
#undef DRIVE_OF
	*end = hi;
	return lo;
}

_Static_assert(offsetof(struct rb_row_health, drive) == 0 &&
		       offsetof(struct rb_row_ioerror, drive) == 0 &&
		       offsetof(struct rb_row_sample, drive) == 0 &&
		       offsetof(struct rb_row_result, drive) == 0,
	       "every row starts with its drive");

static double row_iops(const struct rb_row_result *r)
{
	return r->read.iops + r->write.iops + r->trim.iops;
}

/* Each drive's model median IOPS at each point, over the drives of its model with an ok
 * row there; NAN where fewer than three drives of the model ran it. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double rb_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* Drive positions by model (and a volume's width): the groups the median is of. */
static int cmp_model(const void *a, const void *b, void *arg)
{
	const struct rb_row_drive *v = ((const struct rb_verdict_in *)arg)->drives;
	const struct rb_row_drive *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
	int c = strcmp(x->id.model, y->id.model);

	return c ? c : cmp_u32(x->members, y->members);
}

static bool same_model(const struct rb_row_drive *x, const struct rb_row_drive *y)
{
	return !strcmp(x->id.model, y->id.model) && x->members == y->members;
}

/*
 * Each drive's model median IOPS at each point, over the drives of its model with an ok
 * row there; NAN where fewer than three drives of the model ran it. The drives are
 * grouped once, so a fleet's points cost points x drives, not x drives squared.
 */
static int medians(struct judge *j)
{
	const struct rb_verdict_in *in = j->in;
	double *v = malloc((in->nd + 1) * sizeof(*v));
	size_t *by = sorted(in, in->nd, cmp_model);

	j->median = malloc((in->np * in->nd + 1) * sizeof(*j->median));
	if (!v || !by || !j->median) {
		free(v);
		free(by);
		return -ENOMEM;
	}
	for (size_t p = 0; p < in->np; p++) {
		for (size_t g = 0, end; g < in->nd; g = end) {
			size_t n = 0;
			double med;

			for (end = g;
			     end < in->nd && same_model(&in->drives[by[g]], &in->drives[by[end]]);
			     end++) {
				const struct rb_row_result *r = j->latest[p * in->nd + by[end]];

				if (r && rb_row_status(r) == RB_STATUS_OK)
					v[n++] = row_iops(r);
			}
			med = n >= 3 ? rb_median(v, n) : NAN;
			for (size_t k = g; k < end; k++)
				j->median[p * in->nd + by[k]] = med;
		}
	}
	free(v);
	free(by);
	return 0;
}

static int judge_init(struct judge *j, const struct rb_verdict_in *in)
{
	memset(j, 0, sizeof(*j));
	j->in = in;
	for (size_t p = 0; p < in->np; p++)
		if (in->points[p].point + 1 > j->nppos)
			j->nppos = in->points[p].point + 1;
	for (size_t d = 0; d < in->nd; d++)
		if (in->drives[d].drive + 1 > j->ndpos)
			j->ndpos = in->drives[d].drive + 1;
	j->ppos = malloc((j->nppos + 1) * sizeof(*j->ppos));
	j->dpos = malloc((j->ndpos + 1) * sizeof(*j->dpos));
	j->latest = calloc(in->np * in->nd + 1, sizeof(*j->latest));
	if (!j->ppos || !j->dpos || !j->latest)
		return -ENOMEM;
	for (size_t i = 0; i < j->nppos; i++)
		j->ppos[i] = UINT32_MAX;
	for (size_t i = 0; i < j->ndpos; i++)
		j->dpos[i] = SIZE_MAX;
	for (size_t p = 0; p < in->np; p++)
		j->ppos[in->points[p].point] = (uint32_t)p;
	for (size_t d = 0; d < in->nd; d++)
		j->dpos[in->drives[d].drive] = d;
	for (size_t i = 0; i < in->nr; i++) {
		const struct rb_row_result *r = &in->results[i];
		size_t d = r->drive < j->ndpos ? j->dpos[r->drive] : SIZE_MAX;
		uint32_t p = r->point < j->nppos ? j->ppos[r->point] : UINT32_MAX;
		const struct rb_row_result **at;

		if (d == SIZE_MAX || p == UINT32_MAX)
			continue;
		at = &j->latest[(size_t)p * in->nd + d];
		if (!*at || r->attempt >= (*at)->attempt)
			*at = r;
	}
	j->hs = sorted(in, in->nh, cmp_health);
	j->es = sorted(in, in->ne, cmp_ioerror);
	j->ss = sorted(in, in->ns, cmp_sample);
	j->rs = sorted(in, in->nr, cmp_result);
	if (!j->hs || !j->es || !j->ss || !j->rs)
		return -ENOMEM;
	return medians(j);
}

static void judge_free(struct judge *j)
{
	free(j->ppos);
	free(j->dpos);
	free(j->latest);
	free(j->hs);
	free(j->es);
	free(j->ss);
	free(j->rs);
	free(j->median);
}

/* ---- the rules ---- */

/* "at offset 1048576 (4096 bytes), 2 more" over the rows [b, e) of one kind. */
static void offsets_text(const struct judge *j, size_t b, size_t e, bool mismatch, char *buf,
			 size_t len)
{
	size_t n = 0, shown = 0, ranges = 0;
	uint64_t start = 0, end = 0;
	bool open = false;

	buf[0] = '\0';
	for (size_t i = b; i <= e; i++) {
		const struct rb_row_ioerror *x = i < e ? &j->in->ioerrors[j->es[i]] : NULL;

		if (x && (x->err == EILSEQ) != mismatch)
			continue;
		/* contiguous failures (a 4 KiB block's eight chunks) are one range */
		if (x && open && x->offset <= end) {
			if (x->offset + x->length > end)
				end = x->offset + x->length;
			continue;
		}
		if (open) {
			ranges++;
			if (shown < 3 && n < len)
				n += (size_t)snprintf(
					buf + n, len - n, "%s%" PRIu64 " (%" PRIu64 " bytes)",
					shown ? ", " : "at offset ", start, end - start);
			shown += shown < 3;
		}
		if (!x)
			break;
		start = x->offset;
		end = x->offset + x->length;
		open = true;
	}
	if (ranges > shown && n < len)
		snprintf(buf + n, len - n, " and %zu more", ranges - shown);
}

/* The first interval of point p where drive d's samples counted errors; -1 none. */
static int64_t first_error_interval(const struct judge *j, uint32_t d, uint32_t p)
{
	size_t end, b = RANGE(j->ss, j->in->ns, j->in->samples, d, &end);

	for (size_t i = b; i < end; i++) {
		const struct rb_row_sample *s = &j->in->samples[j->ss[i]];

		if (s->point == p && s->errors)
			return s->interval;
	}
	return -1;
}

static void data_rules(struct judge *j, size_t dp)
{
	const struct rb_verdict_in *in = j->in;
	uint32_t d = in->drives[dp].drive;
	uint64_t mism = 0, errs = 0;
	int64_t mp = -1, ep = -1;
	size_t end, b = RANGE(j->es, in->ne, in->ioerrors, d, &end), rend;
	size_t rb = RANGE(j->rs, in->nr, in->results, d, &rend);
	char where[200];

	/* every attempt counts: a failure in one that was run again still happened */
	for (size_t i = rb; i < rend; i++) {
		const struct rb_row_result *r = &in->results[j->rs[i]];
		uint64_t e = r->read.errors + r->write.errors + r->trim.errors;

		if (r->core.verify_mismatches && (mp < 0 || r->point < mp))
			mp = r->point;
		if (e && (ep < 0 || r->point < ep))
			ep = r->point;
		mism += r->core.verify_mismatches;
		errs += e;
	}
	if (mism) {
		offsets_text(j, b, end, true, where, sizeof(where));
		rb_vj_add(j, d, "mismatch", RB_FAIL, (double)mism, 0, mp, -1, 0,
			  "%" PRIu64 " verification mismatch(es)%s%s, first in point %" PRId64
			  " '%s': the data read back is not what was written",
			  mism, where[0] ? " " : "", where, mp, rb_vj_point_name(j, (uint32_t)mp));
	}
	if (errs) {
		int64_t iv = first_error_interval(j, d, (uint32_t)ep);

		offsets_text(j, b, end, false, where, sizeof(where));
		rb_vj_add(j, d, "io_errors", RB_FAIL, (double)errs, 0, ep, iv, 0,
			  "%" PRIu64 " IO error(s)%s%s, from point %" PRId64 " '%s'", errs,
			  where[0] ? " " : "", where, ep, rb_vj_point_name(j, (uint32_t)ep));
	}
}

static void completeness_rules(struct judge *j, size_t dp)
{
	const struct rb_verdict_in *in = j->in;
	uint32_t d = in->drives[dp].drive;

	/* the points it never reached are not in the file: the run's status says so */
	if (in->run_status &&
	    (!strcmp(in->run_status, "aborted") || !strcmp(in->run_status, "failed")))
		rb_vj_add(j, d, "run_ended", RB_INCOMPLETE, NAN, NAN, -1, -1, 0,
			  "the run was %s after %zu point(s): the points after them did not run",
			  in->run_status, in->np);

	for (size_t p = 0; p < in->np; p++) {
		uint32_t pt = in->points[p].point;
		const struct rb_row_result *r = j->latest[p * in->nd + dp];

		if (in->in_point && !in->in_point(in->arg, pt, d))
			continue;
		if (!r) {
			rb_vj_add(j, d, "not_run", RB_INCOMPLETE, NAN, NAN, pt, -1, 0,
				  "point %u '%s' was not run on it", pt, in->points[p].name);
		} else if (rb_row_status(r) != RB_STATUS_OK) {
			/* an error with IO errors is judged by the data rule; without, the
			 * drive was not measured */
			if (rb_row_status(r) == RB_STATUS_ERROR &&
			    r->read.errors + r->write.errors + r->trim.errors +
				    r->core.verify_mismatches)
				continue;
			rb_vj_add(j, d, r->status, RB_INCOMPLETE, NAN, NAN, pt, -1,
				  r->core.start_ns, "point %u '%s': %s%s%s", pt, in->points[p].name,
				  r->status, r->message[0] ? ": " : "", r->message);
		}
	}
}

/* Throughput windows of the latest attempt of (d, point): a fall from an earlier one. */
/*
 * Whether the drive entered thermal throttling during the point's attempt (its SMART
 * transition counters rose between two of the point's snapshots): how many times, and
 * when it was first seen (its snapshot's time). A cliff then is the drive's cooling's, not
 * its media's -- the verdict says so.
 */
static double throttled_in(const struct judge *j, uint32_t d, const struct rb_row_result *res,
			   int64_t *ret_t)
{
	const struct rb_verdict_in *in = j->in;
	size_t end, b = RANGE(j->hs, in->nh, in->health, d, &end);
	const struct rb_row_health *prev = NULL;
	double n = 0;

	for (size_t i = b; i < end; i++) {
		const struct rb_row_health *h = &in->health[j->hs[i]];

		if (h->member || !h->h.nvme || h->point != res->point ||
		    h->attempt != res->attempt || isnan(h->h.throttle_transitions))
			continue;
		if (prev && h->h.throttle_transitions > prev->h.throttle_transitions) {
			if (!n)
				*ret_t = h->t_ns;
			n += h->h.throttle_transitions - prev->h.throttle_transitions;
		}
		prev = h;
	}
	return n;
}

static void cliff_rule(struct judge *j, uint32_t d, const struct rb_row_result *res,
		       const struct rb_verdict_rules *r)
{
	const struct rb_verdict_in *in = j->in;
	size_t end, b = RANGE(j->ss, in->ns, in->samples, d, &end), n = 0;
	unsigned w = isnan(r->cliff_window) || r->cliff_window < 1 ? 5 : (unsigned)r->cliff_window;
	double *x, peak = 0, thr;
	size_t peak_end = 0, all;
	int64_t t0 = 0, *ends;

	x = calloc(end - b + 1, sizeof(*x));
	ends = calloc(end - b + 1, sizeof(*ends));
	if (!x || !ends) {
		free(x);
		free(ends);
		j->oom = true;
		return;
	}
	/* bytes per interval over the directions, by interval number */
	for (size_t i = b; i < end; i++) {
		const struct rb_row_sample *s = &in->samples[j->ss[i]];

		if (s->point != res->point || s->attempt != res->attempt)
			continue;
		if (s->interval >= end - b)
			continue;
		if (s->interval + 1 > n)
			n = s->interval + 1;
		x[s->interval] += (double)s->bytes;
		if (s->t_ns > ends[s->interval])
			ends[s->interval] = s->t_ns;
		if (!t0 || s->t_ns < t0)
			t0 = s->t_ns;
	}
	/* the last interval is cut short by the end of the point: not judged */
	all = n;
	if (n)
		n--;
	for (size_t s = 0; s + w <= n; s += w) {
		double m = 0;

		for (size_t i = s; i < s + w; i++)
			m += x[i] / w;
		thr = peak * (1 - r->cliff_pct / 100);
		if (s && m < thr) {
			/* where the drop began: the first of the run of intervals below the
			 * threshold that the failing window holds (a dip that recovered
			 * before it is not the cliff) */
			size_t at = s;

			while (at > peak_end && x[at - 1] < thr)
				at--;
			while (at < s + w - 1 && x[at] >= thr)
				at++;
			int64_t tt = 0;
			double hot = throttled_in(j, d, res, &tt);
			char why[320] = "", ivs[120] = "";

			if (hot > 0) {
				bool *mark = calloc(all + 1, sizeof(*mark));

				if (mark && rb_throttled_intervals(
						    in->health, in->nh, d, res->point, res->attempt,
						    res->core.start_ns, ends, all, mark))
					rb_intervals_text(mark, all, ivs, sizeof(ivs));
				free(mark);
				snprintf(
					why, sizeof(why),
					"; throttled: the drive entered thermal throttling %.0f "
					"time(s) during the point (SMART), first seen %.1f s in%s%s",
					hot,
					tt > res->core.start_ns
						? (double)(tt - res->core.start_ns) / 1e9
						: 0.0,
					ivs[0] ? ", in intervals " : "", ivs);
			}
			rb_vj_add(
				j, d, "cliff_pct", RB_FAIL, 100 * (1 - m / peak), r->cliff_pct,
				res->point, (int64_t)at, 0,
				"throughput fell %.0f%% in point %u '%s' (windows of %u intervals: "
				"%.1f MB/s, then %.1f MB/s), from interval %zu on%s",
				100 * (1 - m / peak), res->point, rb_vj_point_name(j, res->point),
				w, peak / 1e6, m / 1e6, at, why);
			break;
		}
		if (m > peak) {
			peak = m;
			peak_end = s + w;
		}
	}
	free(x);
	free(ends);
}

static void performance_rules(struct judge *j, size_t dp)
{
	const struct rb_verdict_in *in = j->in;
	uint32_t d = in->drives[dp].drive;

	for (size_t p = 0; p < in->np; p++) {
		const struct rb_row_result *res = j->latest[p * in->nd + dp];
		const struct rb_verdict_rules *r = rules_of(j, in->points[p].point);
		double med = j->median[p * in->nd + dp];
		uint32_t pt = in->points[p].point;
		const char *pn = in->points[p].name;

		if (!res || rb_row_status(res) != RB_STATUS_OK)
			continue;
		/* files share their filesystem: their speed is not a drive's */
		if (!isnan(r->min_model_pct) && !isnan(med) && med > 0 &&
		    strcmp(in->drives[dp].id.kind, "file") &&
		    row_iops(res) < med * r->min_model_pct / 100)
			rb_vj_add(
				j, d, "min_model_pct", RB_FAIL, 100 * row_iops(res) / med,
				r->min_model_pct, pt, -1, res->core.start_ns,
				"%.0f IOPS in point %u '%s': %.0f%% of its model's median %.0f (at "
				"least %.0f%%)",
				row_iops(res), pt, pn, 100 * row_iops(res) / med, med,
				r->min_model_pct);
		for (int dir = 0; dir < 3; dir++) {
			const struct rb_row_dir *x = dir == 0	? &res->read
						     : dir == 1 ? &res->write
								: &res->trim;
			const char *dn = dir == 0 ? "read" : dir == 1 ? "write" : "trim";

			if (!x->ios)
				continue;
			if (!isnan(r->max_p99_ns) && (double)x->lat_p99_ns > r->max_p99_ns)
				rb_vj_add(j, d, "max_p99", RB_FAIL, (double)x->lat_p99_ns,
					  r->max_p99_ns, pt, -1, res->core.start_ns,
					  "%s p99 %.4g us in point %u '%s' (at most %.4g us)", dn,
					  (double)x->lat_p99_ns / 1e3, pt, pn, r->max_p99_ns / 1e3);
			if (!isnan(r->max_p99_9_ns) && (double)x->lat_p99_9_ns > r->max_p99_9_ns)
				rb_vj_add(j, d, "max_p99_9", RB_FAIL, (double)x->lat_p99_9_ns,
					  r->max_p99_9_ns, pt, -1, res->core.start_ns,
					  "%s p99.9 %.4g us in point %u '%s' (at most %.4g us)", dn,
					  (double)x->lat_p99_9_ns / 1e3, pt, pn,
					  r->max_p99_9_ns / 1e3);
		}
		if (!isnan(r->cliff_pct) && r->cliff_pct > 0)
			cliff_rule(j, d, res, r);
	}
}

/* The points drive dp was in (that ran). */
static size_t points_of(const struct judge *j, size_t dp)
{
	size_t n = 0;

	for (size_t p = 0; p < j->in->np; p++)
		n += !j->in->in_point ||
		     j->in->in_point(j->in->arg, j->in->points[p].point, j->in->drives[dp].drive);
	return n;
}

/* Whether row a is worse than row b of the same rule: a floor's lower figure, else higher. */
static bool worse(const struct rb_row_verdict *a, const struct rb_row_verdict *b)
{
	bool floor = !strncmp(a->rule, "min_", 4);

	if (isnan(a->measured) || isnan(b->measured))
		return false;
	return floor ? a->measured < b->measured : a->measured > b->measured;
}

/*
 * A rule's rows of the drive (verdict v) in one sentence: the one row's reason, or for a
 * rule that tripped at several points its count, the first and the worst (the rows
 * stay in the verdicts table, one a point). Returns its length.
 */
static size_t rule_sentence(const struct judge *j, size_t at, const char *verdict, char *buf,
			    size_t len)
{
	const struct rb_row_verdict *first = &j->v[at], *worst = first;
	size_t count = 0;

	for (size_t i = at; i < j->n; i++) {
		const struct rb_row_verdict *x = &j->v[i];

		if (strcmp(x->rule, first->rule) || strcmp(x->verdict, verdict))
			continue;
		count++;
		if (worse(x, worst))
			worst = x;
	}
	if (count == 1)
		return (size_t)snprintf(buf, len, "%s", first->reason);
	if (worst == first)
		return (size_t)snprintf(buf, len, "%s: %zu point(s), the first and worst %s",
					first->rule, count, first->reason);
	return (size_t)snprintf(buf, len, "%s: %zu point(s), the first %s; the worst %s",
				first->rule, count, first->reason, worst->reason);
}

/*
 * The drive's own row: its verdict and its reasons, the failures first, one sentence a
 * rule. Whole sentences only: those past the row's room are counted, not cut mid-word.
 */
static void drive_row(struct judge *j, size_t dp)
{
	const struct rb_row_drive *dr = &j->in->drives[dp];
	size_t first = j->first, last = j->n;
	/* the results column's size less what the count of the rest takes */
	char why[sizeof(j->v[0].reason)], one[sizeof(j->v[0].reason) * 3];
	size_t n = 0, more = 0, hend, h = RANGE(j->hs, j->in->nh, j->in->health, dr->drive, &hend);
	const size_t room = sizeof(why) - 48;
	bool smart = false;

	for (; h < hend && !smart; h++)
		smart = j->in->health[j->hs[h]].h.nvme;
	why[0] = '\0';
	for (int pass = RB_FAIL; pass >= RB_INCOMPLETE; pass--) {
		const char *name = rb_verdict_name((enum rb_verdict)pass);

		for (size_t i = first; i < last; i++) {
			bool seen = false;
			size_t l;

			if (strcmp(j->v[i].verdict, name))
				continue;
			/* a rule once: at its first row */
			for (size_t k = first; k < i && !seen; k++)
				seen = !strcmp(j->v[k].verdict, name) &&
				       !strcmp(j->v[k].rule, j->v[i].rule);
			if (seen)
				continue;
			l = rule_sentence(j, i, name, one, sizeof(one));
			if (more || n + (n ? 2 : 0) + l > room) {
				more++;
				continue;
			}
			n += (size_t)snprintf(why + n, sizeof(why) - n, "%s%s", n ? "; " : "", one);
		}
	}
	if (more)
		snprintf(why + n, sizeof(why) - n, "%s%zu more rule(s): the verdicts table",
			 n ? "; and " : "", more);
	if (first == last)
		snprintf(why, sizeof(why), "every rule held over %zu point(s)%s", points_of(j, dp),
			 smart ? "" : "; health not judged (no SMART log)");
	rb_vj_add(j, dr->drive, "drive", j->worst, NAN, NAN, -1, -1, 0, "%s", why);
}

int rb_verdict_judge(const struct rb_verdict_in *in, struct rb_row_verdict **ret, size_t *ret_n)
{
	struct judge j;
	enum rb_verdict run = RB_PASS;
	int rc = judge_init(&j, in);

	for (size_t dp = 0; !rc && dp < in->nd; dp++) {
		j.worst = RB_PASS;
		j.first = j.n;
		data_rules(&j, dp);
		completeness_rules(&j, dp);
		rb_vj_health_rules(&j, dp);
		rb_vj_pcie_rules(&j, dp);
		performance_rules(&j, dp);
		drive_row(&j, dp);
		if (j.worst > run)
			run = j.worst;
	}
	judge_free(&j);
	if (rc || j.oom) {
		free(j.v);
		return -ENOMEM;
	}
	*ret = j.v ? j.v : calloc(1, sizeof(**ret));
	*ret_n = j.n;
	return *ret ? (int)run : -ENOMEM;
}

static int verdict_rank(const char *v)
{
	return !strcmp(v, "FAIL") ? 0 : !strcmp(v, "INCOMPLETE") ? 1 : 2;
}

static const struct rb_row_verdict *print_rows;

static int cmp_drive_rows(const void *a, const void *b)
{
	const struct rb_row_verdict *x = &print_rows[*(const size_t *)a];
	const struct rb_row_verdict *y = &print_rows[*(const size_t *)b];
	int rx = verdict_rank(x->verdict), ry = verdict_rank(y->verdict);

	if (rx != ry)
		return rx - ry;
	return x->drive < y->drive ? -1 : x->drive > y->drive;
}

void rb_verdict_print(FILE *out, const struct rb_row_verdict *v, size_t n,
		      const struct rb_row_drive *drives, size_t nd)
{
	size_t *ix = malloc((n + 1) * sizeof(*ix)), m = 0, count[3] = { 0, 0, 0 };

	if (!ix)
		return;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].rule, "drive")) {
			ix[m++] = i;
			count[verdict_rank(v[i].verdict)]++;
		}
	print_rows = v;
	qsort(ix, m, sizeof(*ix), cmp_drive_rows);
	/* a link trained short is the rack's defect (a slot, a riser, a cable), not the
	 * drive's: named first, with the slot to go to */
	for (size_t i = 0, first = 1; i < n; i++) {
		const struct rb_row_drive *dr = NULL;

		if (strcmp(v[i].rule, "pcie_downtrained"))
			continue;
		for (size_t k = 0; k < nd && !dr; k++)
			if (drives[k].drive == v[i].drive)
				dr = &drives[k];
		if (first)
			fprintf(out, "\nPCIe links trained below what both ends can do (check the "
				     "slot, riser and cable first):\n");
		first = 0;
		fprintf(out, "  %s:%s  %s  %s\n", dr ? dr->agent : "?", dr ? dr->id.path : "?",
			dr && dr->id.serial[0] ? dr->id.serial : "-", v[i].reason);
	}
	fprintf(out, "\nverdicts: %zu drive(s): %zu FAIL, %zu INCOMPLETE, %zu PASS\n", m, count[0],
		count[1], count[2]);
	fprintf(out, "  %-10s  %-32s  %-20s  %s\n", "verdict", "drive", "serial", "why");
	for (size_t i = 0; i < m; i++) {
		const struct rb_row_verdict *r = &v[ix[i]];
		const struct rb_row_drive *dr = NULL;
		char name[200];

		for (size_t k = 0; k < nd && !dr; k++)
			if (drives[k].drive == r->drive)
				dr = &drives[k];
		snprintf(name, sizeof(name), "%s:%s", dr ? dr->agent : "?", dr ? dr->id.path : "?");
		fprintf(out, "  %-10s  %-32s  %-20s  %s\n", r->verdict, name,
			dr && dr->id.serial[0] ? dr->id.serial : "-", r->reason);
	}
	free(ix);
}

int rb_verdict_file(const char *path, const struct rb_verdict_rules *root,
		    const struct rb_verdict_rules *(*point_rules)(const void *, uint32_t),
		    bool (*in_point)(const void *, uint32_t, uint32_t), const void *arg, FILE *out,
		    char *err, size_t errlen)
{
	struct rb_verdict_in in = {
		.root = root, .point_rules = point_rules, .in_point = in_point, .arg = arg
	};
	struct rb_row_drive *dr = NULL;
	struct rb_row_point *pt = NULL;
	struct rb_row_result *rs = NULL;
	struct rb_row_sample *sm = NULL;
	struct rb_row_health *hl = NULL;
	struct rb_row_ioerror *ie = NULL;
	struct rb_row_verdict *v = NULL;
	size_t nv = 0;
	char status[16];
	struct rb_results_in *f = rb_results_open(path, err, errlen);
	int rc;

	if (!f)
		return -EIO;
	rc = rb_results_read_drives(f, &dr, &in.nd);
	rc = rc ? rc : rb_results_read_points(f, &pt, &in.np);
	rc = rc ? rc : rb_results_read_results(f, &rs, &in.nr);
	rc = rc ? rc : rb_results_read_samples(f, &sm, &in.ns);
	rc = rc ? rc : rb_results_read_health(f, &hl, &in.nh);
	rc = rc ? rc : rb_results_read_ioerrors(f, &ie, &in.ne);
	rb_results_attr(f, "status", status, sizeof(status));
	in.run_status = status;
	if (rc)
		snprintf(err, errlen, "cannot read '%s' to judge it: %s", path,
			 rb_results_in_error(f)[0] ? rb_results_in_error(f) : strerror(-rc));
	rb_results_in_close(f);
	in.drives = dr;
	in.points = pt;
	in.results = rs;
	in.samples = sm;
	in.health = hl;
	in.ioerrors = ie;
	if (!rc) {
		rc = rb_verdict_judge(&in, &v, &nv);
		if (rc < 0)
			snprintf(err, errlen, "out of memory judging '%s'", path);
	}
	/* said first: a full disk that cannot take them still lets them be read here */
	if (rc >= 0 && out)
		rb_verdict_print(out, v, nv, dr, in.nd);
	if (rc >= 0 && rb_results_add_verdicts(path, v, nv, rb_verdict_name((enum rb_verdict)rc))) {
		snprintf(err, errlen, "cannot store the verdicts in '%s'", path);
		rc = -EIO;
	}
	free(dr);
	free(pt);
	free(rs);
	free(sm);
	free(hl);
	free(ie);
	free(v);
	return rc;
}
