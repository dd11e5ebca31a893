// SPDX-License-Identifier: MIT
/*
 * The fleet summary of `rackbench report` (docs/report.md, "The fleet summary"): when the
 * files' drives span several racks (values of their agents' label `rack`), or the report
 * is --by rack, a row per rack -- the files holding its drives, its drives, their
 * verdicts -- then per comparable point each rack's IOPS and the percentiles of its
 * drives' histograms added bucket by bucket (the fleet's: every drive's), and the racks
 * ranked by how far their p99 is above the fleet's, the slowest first. Built once
 * (rp_fleet_build) for the text report (report.c) and the page (report_html.c); a
 * percentile is only ever one of a summed histogram, never an average of percentiles.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hist.h"
#include "report_model.h"
#include "report_svg.h"
#include "verdict.h"

/* A file while the summary is built: each drive row's rack, its ids to rows, its
 * histogram rows grouped by point row, and each point row's place among the points. */
struct ffile {
	size_t *rack;  /* per drive row */
	long *dl, *pl; /* drive and point ids to rows */
	size_t ndl, npl;
	size_t *hix;	/* histogram rows, by point row */
	size_t *hstart; /* point row p's: hix[hstart[p] .. hstart[p + 1]) */
	long *pk;	/* per point row: its place in fl->points; -1 not compared */
};

/* A drive's IOPS at a point, by rack. */
struct riops {
	size_t rack;
	double iops;
};

static bool measured(const struct rp_cell *c)
{
	return c->res && rb_row_status(c->res) == RB_STATUS_OK;
}

static bool by_rack(const struct rp_report *r)
{
	return r->by == RP_BY_LABEL && r->by_label && !strcmp(r->by_label, "rack");
}

/* Whether the summary is shown: --by rack, or two racks among the drives. */
static bool shown(const struct rp_report *r)
{
	char first[160] = "", v[160];

	if (by_rack(r))
		return true;
	for (size_t fi = 0; fi < r->nfiles; fi++)
		for (size_t d = 0; d < r->files[fi].nd; d++) {
			if (!rp_label_value(r->files[fi].dr[d].labels, "rack", v, sizeof(v)))
				continue;
			if (first[0] && strcmp(first, v))
				return true;
			snprintf(first, sizeof(first), "%s", v);
		}
	return false;
}

/* Each drive row's rack, the racks' drives and files. */
static int racks_of(const struct rp_report *r, struct rp_fleet *fl, struct ffile *ff)
{
	size_t cap = 0;
	char v[160];

	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];

		ff[fi].rack = calloc(f->nd + 1, sizeof(size_t));
		if (!ff[fi].rack)
			return -ENOMEM;
		for (size_t d = 0; d < f->nd; d++) {
			size_t k = 0;

			rp_label_value(f->dr[d].labels, "rack", v, sizeof(v));
			while (k < fl->nracks && strcmp(fl->racks[k].name, v))
				k++;
			if (k == fl->nracks) {
				if (RB_GROW(fl->racks, cap, fl->nracks, 16))
					return -ENOMEM;
				memset(&fl->racks[k], 0, sizeof(fl->racks[k]));
				snprintf(fl->racks[k].name, sizeof(fl->racks[k].name), "%s", v);
				fl->nracks++;
			}
			ff[fi].rack[d] = k;
			fl->racks[k].ndrives++;
			fl->ndrives++;
		}
	}
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		bool *in = calloc(fl->nracks + 1, sizeof(bool));

		if (!in)
			return -ENOMEM;
		for (size_t d = 0; d < r->files[fi].nd; d++)
			in[ff[fi].rack[d]] = true;
		for (size_t k = 0; k < fl->nracks; k++)
			fl->racks[k].nfiles += in[k];
		free(in);
	}
	fl->nfiles = r->nfiles;
	return 0;
}

/* The place of a verdict state, added when new: the known ones first, worst first. */
static size_t state_of(struct rp_fleet *fl, const char *s)
{
	size_t k = 0;

	while (k < fl->nstates && strcmp(fl->states[k], s))
		k++;
	return k;
}

/* The verdict states the files hold and each rack's drives by them: 0 or -ENOMEM. */
static int verdicts_of(const struct rp_report *r, struct rp_fleet *fl, struct ffile *ff)
{
	static const char *const known[] = { "FAIL", "INCOMPLETE", "PASS" };
	size_t cap = 0, nr = fl->nracks;

	/* the known states present, worst first, then any other as it comes */
	for (size_t kn = 0; kn <= 3; kn++)
		for (size_t fi = 0; fi < r->nfiles; fi++)
			for (size_t i = 0; i < r->files[fi].nvd; i++) {
				const char *v = r->files[fi].vd[i].verdict;
				bool is_known = !strcmp(v, known[0]) || !strcmp(v, known[1]) ||
						!strcmp(v, known[2]);

				if (strcmp(r->files[fi].vd[i].rule, "drive") ||
				    (kn < 3 ? strcmp(v, known[kn]) != 0 : is_known) ||
				    state_of(fl, v) < fl->nstates)
					continue;
				if (RB_GROW(fl->states, cap, fl->nstates, 8))
					return -ENOMEM;
				snprintf(fl->states[fl->nstates++], sizeof(fl->states[0]), "%s", v);
			}
	fl->verdicts = calloc((nr + 1) * (fl->nstates + 1), sizeof(size_t));
	if (!fl->verdicts)
		return -ENOMEM;
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];
		size_t *st = malloc((f->nd + 1) * sizeof(size_t));

		if (!st)
			return -ENOMEM;
		for (size_t d = 0; d < f->nd; d++)
			st[d] = fl->nstates;
		/* a drive's own row (rule drive): its verdict; the last when there are two */
		for (size_t i = 0; i < f->nvd; i++)
			if (!strcmp(f->vd[i].rule, "drive") && f->vd[i].drive < ff[fi].ndl &&
			    ff[fi].dl[f->vd[i].drive] >= 0) {
				st[ff[fi].dl[f->vd[i].drive]] = state_of(fl, f->vd[i].verdict);
				fl->any_verdicts = true;
			}
		for (size_t d = 0; d < f->nd; d++) {
			fl->verdicts[ff[fi].rack[d] * (fl->nstates + 1) + st[d]]++;
			fl->verdicts[nr * (fl->nstates + 1) + st[d]]++;
		}
		free(st);
	}
	return 0;
}

/* A file's histogram rows grouped by point row (a counting sort); rows of unknown points
 * left out. */
static int bucket_rows(const struct rp_file *f, struct ffile *x)
{
	size_t *at = malloc((f->np + 1) * sizeof(size_t));

	if (!at)
		return -ENOMEM;
	for (size_t i = 0; i < f->nhi; i++)
		if (f->hi[i].point < x->npl && x->pl[f->hi[i].point] >= 0)
			x->hstart[x->pl[f->hi[i].point] + 1]++;
	for (size_t p = 0; p < f->np; p++)
		x->hstart[p + 1] += x->hstart[p];
	memcpy(at, x->hstart, (f->np + 1) * sizeof(size_t));
	for (size_t i = 0; i < f->nhi; i++)
		if (f->hi[i].point < x->npl && x->pl[f->hi[i].point] >= 0)
			x->hix[at[x->pl[f->hi[i].point]]++] = i;
	free(at);
	return 0;
}

/* Each file's ids to rows, its comparable points by name among fl->points, its histogram
 * rows grouped by point row. */
static int index_files(const struct rp_report *r, struct rp_fleet *fl, struct ffile *ff)
{
	size_t cap = 0;

	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];
		struct ffile *x = &ff[fi];

		x->dl = rp_id_lut(f->dr, f->nd, sizeof(*f->dr), &x->ndl);
		x->pl = rp_id_lut(f->pt, f->np, sizeof(*f->pt), &x->npl);
		x->pk = malloc((f->np + 1) * sizeof(long));
		x->hstart = calloc(f->np + 2, sizeof(size_t));
		x->hix = malloc((f->nhi + 1) * sizeof(size_t));
		/* ids that are not row numbers: merge_hists has said so */
		if ((f->nd && !x->dl) || (f->np && !x->pl) || !x->pk || !x->hstart || !x->hix)
			return -ENOMEM;
		for (size_t p = 0; p < f->np; p++) {
			size_t k = 0;

			x->pk[p] = -1;
			if (!rp_point_comparable(&f->pt[p]))
				continue;
			while (k < fl->npoints && strcmp(fl->points[k], f->pt[p].name))
				k++;
			if (k == fl->npoints) {
				if (RB_GROW(fl->points, cap, fl->npoints, 16))
					return -ENOMEM;
				snprintf(fl->points[k], sizeof(fl->points[k]), "%s", f->pt[p].name);
				fl->npoints++;
			}
			x->pk[p] = (long)k;
		}
		if (bucket_rows(f, x))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_riops(const void *a, const void *b)
{
	const struct riops *x = a, *y = b;

	if (x->rack != y->rack)
		return x->rack < y->rack ? -1 : 1;
	return x->iops < y->iops ? -1 : x->iops > y->iops;
}

/* Point k's IOPS of the drives that ran it to its end: each rack's median drive and sum,
 * and the fleet's. v and t: room for every cell. */
static void iops_at(const struct rp_report *r, struct rp_fleet *fl, const struct ffile *ff,
		    size_t k, struct riops *v, double *t)
{
	struct rp_fleet_fig *fig = &fl->fig[k * (fl->nracks + 1)];
	size_t n = 0;
	double sum = 0;

	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];

		for (size_t p = 0; p < f->np; p++)
			for (size_t d = 0; ff[fi].pk[p] == (long)k && d < f->nd; d++) {
				const struct rp_cell *c = &r->cells[f->cell0 + p * f->nd + d];

				if (!measured(c))
					continue;
				v[n].rack = ff[fi].rack[d];
				v[n++].iops = c->iops;
			}
	}
	qsort(v, n, sizeof(*v), cmp_riops);
	for (size_t i = 0, j; i < n; i = j) {
		struct rp_fleet_fig *g = &fig[v[i].rack];

		for (j = i; j < n && v[j].rack == v[i].rack; j++) {
			t[j - i] = v[j].iops;
			g->iops_sum += v[j].iops;
		}
		g->ndrives = j - i;
		g->iops_med = rb_median(t, j - i);
		sum += g->iops_sum;
	}
	for (size_t i = 0; i < n; i++)
		t[i] = v[i].iops;
	fig[fl->nracks].ndrives = n;
	fig[fl->nracks].iops_sum = n ? sum : NAN;
	fig[fl->nracks].iops_med = rb_median(t, n);
	for (size_t rk = 0; rk < fl->nracks; rk++)
		if (!fig[rk].ndrives)
			fig[rk].iops_med = fig[rk].iops_sum = NAN;
}

/* Point k's histograms added per rack and direction (h[rack * 2 + direction]; the fleet's
 * after the racks'), by rp_hist_cell's rule: every interval of each drive's latest attempt;
 * their percentiles. */
static void hists_at(const struct rp_report *r, struct rp_fleet *fl, const struct ffile *ff,
		     size_t k, struct rb_hist *h)
{
	struct rp_fleet_fig *fig = &fl->fig[k * (fl->nracks + 1)];
	size_t nr = fl->nracks;

	memset(h, 0, (nr + 1) * 2 * sizeof(*h));
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];
		const struct ffile *x = &ff[fi];

		for (size_t p = 0; p < f->np; p++)
			for (size_t j = x->hstart[p]; x->pk[p] == (long)k && j < x->hstart[p + 1];
			     j++) {
				const struct rb_row_hist *b = &f->hi[x->hix[j]];
				size_t rk;

				if (!rp_hist_cell(r, f, b, x->dl, x->ndl, x->pl, x->npl))
					continue;
				rk = x->rack[x->dl[b->drive]];
				h[rk * 2 + b->direction].counts[b->bucket] += b->count;
				h[rk * 2 + b->direction].total += b->count;
				h[nr * 2 + b->direction].counts[b->bucket] += b->count;
				h[nr * 2 + b->direction].total += b->count;
			}
	}
	for (size_t rk = 0; rk <= nr; rk++) {
		fig[rk].rd_total = h[rk * 2].total;
		fig[rk].wr_total = h[rk * 2 + 1].total;
		fig[rk].rd_p50_ns = rb_hist_percentile(&h[rk * 2], 50);
		fig[rk].rd_p99_ns = rb_hist_percentile(&h[rk * 2], 99);
		fig[rk].wr_p50_ns = rb_hist_percentile(&h[rk * 2 + 1], 50);
		fig[rk].wr_p99_ns = rb_hist_percentile(&h[rk * 2 + 1], 99);
	}
}

/* How far rack rk's figure is from the fleet's at point k, + slower: its p99 above the
 * fleet's (reads; writes where the fleet read nothing there), or by_iops its median IOPS
 * below the fleet's. NAN: not compared there. */
static double pct_at(const struct rp_fleet *fl, size_t k, size_t rk)
{
	const struct rp_fleet_fig *F = &fl->fig[k * (fl->nracks + 1) + fl->nracks];
	const struct rp_fleet_fig *R = &fl->fig[k * (fl->nracks + 1) + rk];
	bool rd = F->rd_total > 0;
	uint64_t fp = rd ? F->rd_p99_ns : F->wr_p99_ns;

	if (fl->by_iops)
		return R->ndrives && F->iops_med > 0 ? 100.0 * (1.0 - R->iops_med / F->iops_med)
						     : NAN;
	if (!(rd ? R->rd_total : R->wr_total) || !fp)
		return NAN;
	return 100.0 * ((double)(rd ? R->rd_p99_ns : R->wr_p99_ns) / (double)fp - 1.0);
}

static int cmp_slow(const void *a, const void *b, void *arg)
{
	const struct rp_fleet_rack *rk = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = rk[i].slow_pct, y = rk[j].slow_pct;

	if (isnan(x) != isnan(y))
		return isnan(x) ? 1 : -1;
	if (!isnan(x) && x != y)
		return x > y ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Each rack's mean and worst difference from the fleet over the points; the racks slowest
 * first. */
static void rank(struct rp_fleet *fl)
{
	fl->by_iops = true;
	for (size_t k = 0; k < fl->npoints; k++) {
		const struct rp_fleet_fig *F = &fl->fig[k * (fl->nracks + 1) + fl->nracks];

		if (F->rd_total || F->wr_total)
			fl->by_iops = false;
	}
	for (size_t rk = 0; rk < fl->nracks; rk++) {
		struct rp_fleet_rack *R = &fl->racks[rk];
		double sum = 0;

		R->npt = 0;
		R->worst_pct = NAN;
		for (size_t k = 0; k < fl->npoints; k++) {
			double pct = pct_at(fl, k, rk);

			if (isnan(pct))
				continue;
			sum += pct;
			if (!R->npt++ || pct > R->worst_pct) {
				R->worst_pct = pct;
				R->worst = k;
			}
		}
		R->slow_pct = R->npt ? sum / (double)R->npt : NAN;
		fl->order[rk] = rk;
	}
	qsort_r(fl->order, fl->nracks, sizeof(*fl->order), cmp_slow, fl->racks);
}

static void ffile_free(struct ffile *x)
{
	free(x->rack);
	free(x->dl);
	free(x->pl);
	free(x->hix);
	free(x->hstart);
	free(x->pk);
}

/* The figures of every point and the ranking, once the racks and points are known. */
static int figures(const struct rp_report *r, struct rp_fleet *fl, const struct ffile *ff)
{
	size_t nr = fl->nracks;
	struct rb_hist *h = malloc((nr + 1) * 2 * sizeof(*h));
	struct riops *v = malloc((r->ncells + 1) * sizeof(*v));
	double *t = malloc((r->ncells + 1) * sizeof(*t));
	int rc = 0;

	fl->fig = calloc(fl->npoints * (nr + 1) + 1, sizeof(*fl->fig));
	fl->order = calloc(nr + 1, sizeof(*fl->order));
	if (!h || !v || !t || !fl->fig || !fl->order) {
		rc = -ENOMEM;
	} else {
		for (size_t k = 0; k < fl->npoints; k++) {
			iops_at(r, fl, ff, k, v, t);
			hists_at(r, fl, ff, k, h);
		}
		rank(fl);
	}
	free(h);
	free(v);
	free(t);
	return rc;
}

int rp_fleet_build(struct rp_report *r)
{
	struct rp_fleet *fl;
	struct ffile *ff;
	int rc;

	r->fleet = NULL;
	if (!shown(r))
		return 0;
	fl = calloc(1, sizeof(*fl));
	ff = calloc(r->nfiles + 1, sizeof(*ff));
	if (!fl || !ff) {
		free(fl);
		free(ff);
		return -ENOMEM;
	}
	r->fleet = fl;
	rc = racks_of(r, fl, ff);
	if (!rc)
		rc = index_files(r, fl, ff);
	if (!rc)
		rc = verdicts_of(r, fl, ff);
	if (!rc)
		rc = figures(r, fl, ff);
	for (size_t fi = 0; fi < r->nfiles; fi++)
		ffile_free(&ff[fi]);
	free(ff);
	if (rc)
		rp_fleet_free(r);
	return rc;
}

void rp_fleet_free(struct rp_report *r)
{
	struct rp_fleet *fl = r->fleet;

	if (!fl)
		return;
	free(fl->racks);
	free(fl->states);
	free(fl->verdicts);
	free(fl->points);
	free(fl->fig);
	free(fl->order);
	free(fl);
	r->fleet = NULL;
}

/* ---- the section ---- */

/* A latency of a summed histogram in microseconds; "-" when it holds no IO. */
static const char *us(uint64_t ns, uint64_t total, char *buf, size_t len)
{
	if (total)
		snprintf(buf, len, "%.1f", (double)ns / 1e3);
	else
		snprintf(buf, len, "-");
	return buf;
}

static const char *iops(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

/* Rack rk's verdicts in words ("1 FAIL, 3 PASS", "no verdicts"); rk nracks: the fleet's. */
static const char *vwords(const struct rp_fleet *fl, size_t rk, char *buf, size_t len)
{
	const size_t *n = &fl->verdicts[rk * (fl->nstates + 1)];
	size_t o = 0, judged = 0;

	for (size_t s = 0; s < fl->nstates; s++)
		judged += n[s];
	snprintf(buf, len, "no verdicts");
	for (size_t s = 0; judged && s <= fl->nstates; s++) {
		if (!n[s] || o + 1 >= len)
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%zu %s", o ? ", " : "", n[s],
				      s < fl->nstates ? fl->states[s] : "no verdict");
	}
	return buf;
}

static const char *rack_name(const struct rp_fleet *fl, size_t rk)
{
	return rk < fl->nracks ? fl->racks[rk].name : "fleet";
}

/* Per comparable point, each rack's row and the fleet's. */
static void points_text(const struct rp_fleet *fl, bool md)
{
	printf("\n%sracks per point (IOPS: the median drive's and the drives' sum; "
	       "percentiles in us of the rack's histograms added bucket by bucket, the fleet's "
	       "of every drive's)\n",
	       md ? "### " : "");
	if (md)
		printf("\n| point | rack | drives | IOPS median | IOPS total | read p50 us | "
		       "read p99 us | write p50 us | write p99 us |\n"
		       "|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
	else
		printf("%-34s %-20s %6s %11s %12s %9s %9s %9s %9s\n", "point", "rack", "drives",
		       "IOPS median", "IOPS total", "rd p50", "rd p99", "wr p50", "wr p99");
	for (size_t k = 0; k < fl->npoints; k++)
		for (size_t rk = 0; rk <= fl->nracks; rk++) {
			const struct rp_fleet_fig *g = &fl->fig[k * (fl->nracks + 1) + rk];
			char m[32], t[32], u[4][32];

			if (rk < fl->nracks && !g->ndrives && !g->rd_total && !g->wr_total)
				continue; /* the rack did not run it */
			us(g->rd_p50_ns, g->rd_total, u[0], sizeof(u[0]));
			us(g->rd_p99_ns, g->rd_total, u[1], sizeof(u[1]));
			us(g->wr_p50_ns, g->wr_total, u[2], sizeof(u[2]));
			us(g->wr_p99_ns, g->wr_total, u[3], sizeof(u[3]));
			printf(md ? "| %s | %s | %zu | %s | %s | %s | %s | %s | %s |\n"
				  : "%-34.34s %-20.20s %6zu %11s %12s %9s %9s %9s %9s\n",
			       fl->points[k], rack_name(fl, rk), g->ndrives,
			       iops(g->iops_med, m, sizeof(m)), iops(g->iops_sum, t, sizeof(t)),
			       u[0], u[1], u[2], u[3]);
		}
}

/* What the racks are ranked by, in words. */
static const char *slow_rule(const struct rp_fleet *fl)
{
	return fl->by_iops ? "median drive's IOPS below the fleet's"
			   : "read p99 above the fleet's (write p99 at a point that reads nothing)";
}

void rp_fleet_text(const struct rp_report *r, bool md)
{
	const struct rp_fleet *fl = r->fleet;
	char vw[256];

	if (!fl)
		return;
	printf("\n%sfleet: %zu rack(s) by the agents' label rack, %zu file(s), %zu drive(s)\n",
	       md ? "### " : "", fl->nracks, fl->nfiles, fl->ndrives);
	if (md)
		printf("\n| rack | files | drives | verdicts |\n|---|--:|--:|---|\n");
	else
		printf("%-24s %6s %7s  %s\n", "rack", "files", "drives", "verdicts");
	for (size_t rk = 0; rk <= fl->nracks; rk++)
		printf(md ? "| %s | %zu | %zu | %s |\n" : "%-24.24s %6zu %7zu  %s\n",
		       rack_name(fl, rk), rk < fl->nracks ? fl->racks[rk].nfiles : fl->nfiles,
		       rk < fl->nracks ? fl->racks[rk].ndrives : fl->ndrives,
		       vwords(fl, rk, vw, sizeof(vw)));
	if (fl->npoints)
		points_text(fl, md);
	if (fl->nracks < 2) {
		printf("\n");
		return;
	}
	printf("\n%sslowest racks, by the rack's %s, the mean over the points; + is slower\n",
	       md ? "### " : "", slow_rule(fl));
	if (md)
		printf("\n");
	for (size_t i = 0; i < fl->nracks; i++) {
		const struct rp_fleet_rack *R = &fl->racks[fl->order[i]];

		if (isnan(R->slow_pct))
			printf("%s%zu. %s: not compared (it ran no comparable point)\n",
			       md ? "" : "  ", i + 1, R->name);
		else
			printf("%s%zu. %s: %+.1f%% over %zu point(s); worst at %s: %+.1f%%\n",
			       md ? "" : "  ", i + 1, R->name, R->slow_pct, R->npt,
			       fl->points[R->worst], R->worst_pct);
	}
	printf("\n");
}

/* The page's rows of racks: files, drives, and their drives by verdict. */
static void racks_html(FILE *o, const struct rp_fleet *fl)
{
	size_t ns = fl->nstates, *all = &fl->verdicts[fl->nracks * (ns + 1)];
	char vw[256];

	fputs("<table class=\"racks\" data-section=\"racks\"><thead><tr><th>rack</th>"
	      "<th>files</th><th>drives</th>",
	      o);
	for (size_t s = 0; fl->any_verdicts && s < ns; s++) {
		fputs("<th>", o);
		rp_esc(o, fl->states[s]);
		fputs("</th>", o);
	}
	fputs(!fl->any_verdicts ? "<th>verdicts</th>" : all[ns] ? "<th>no verdict</th>" : "", o);
	fputs("</tr></thead>\n", o);
	for (size_t rk = 0; rk <= fl->nracks; rk++) {
		const size_t *n = &fl->verdicts[rk * (ns + 1)];

		fputs(rk < fl->nracks ? "<tr data-rack=\"" : "<tr class=\"fleet\" data-rack=\"", o);
		rp_esc(o, rack_name(fl, rk));
		fputs("\"><td>", o);
		rp_esc(o, rack_name(fl, rk));
		fprintf(o, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>",
			rk < fl->nracks ? fl->racks[rk].nfiles : fl->nfiles,
			rk < fl->nracks ? fl->racks[rk].ndrives : fl->ndrives);
		for (size_t s = 0; fl->any_verdicts && s <= ns; s++)
			if (s < ns || all[ns])
				fprintf(o, "<td class=\"n%s\" data-verdict=\"%s\">%zu</td>",
					n[s] && s < ns && strcmp(fl->states[s], "PASS") ? " bad"
											: "",
					s < ns ? fl->states[s] : "none", n[s]);
		if (!fl->any_verdicts)
			fprintf(o, "<td>%s</td>", vwords(fl, rk, vw, sizeof(vw)));
		fputs("</tr>\n", o);
	}
	fputs("</table>\n", o);
}

/* The page's rows of each rack's figures per point, the fleet's after them. */
static void rack_points_html(FILE *o, const struct rp_fleet *fl)
{
	fputs("<table class=\"rack-points\"><thead><tr><th>point</th><th>rack</th><th>drives</th>"
	      "<th>IOPS median</th><th>IOPS total</th><th>read p50 us</th><th>read p99 us</th>"
	      "<th>write p50 us</th><th>write p99 us</th></tr></thead>\n",
	      o);
	for (size_t k = 0; k < fl->npoints; k++)
		for (size_t rk = 0; rk <= fl->nracks; rk++) {
			const struct rp_fleet_fig *g = &fl->fig[k * (fl->nracks + 1) + rk];
			char m[32], t[32], u[4][32];

			if (rk < fl->nracks && !g->ndrives && !g->rd_total && !g->wr_total)
				continue;
			fputs(rk < fl->nracks ? "<tr><td>" : "<tr class=\"fleet\"><td>", o);
			rp_esc(o, fl->points[k]);
			fputs("</td><td>", o);
			rp_esc(o, rack_name(fl, rk));
			fprintf(o,
				"</td><td class=\"n\">%zu</td><td class=\"n\">%s</td><td "
				"class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
				"<td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
				g->ndrives, iops(g->iops_med, m, sizeof(m)),
				iops(g->iops_sum, t, sizeof(t)),
				us(g->rd_p50_ns, g->rd_total, u[0], sizeof(u[0])),
				us(g->rd_p99_ns, g->rd_total, u[1], sizeof(u[1])),
				us(g->wr_p50_ns, g->wr_total, u[2], sizeof(u[2])),
				us(g->wr_p99_ns, g->wr_total, u[3], sizeof(u[3])));
		}
	fputs("</table>\n", o);
}

void rp_fleet_html(FILE *o, const struct rp_report *r)
{
	const struct rp_fleet *fl = r->fleet;

	if (!fl)
		return;
	fprintf(o,
		"<h2>Racks</h2>\n<p class=\"note\">%zu rack(s) by the agents' label "
		"<code>rack</code>, %zu file(s), %zu drive(s). A rack's latency percentiles come "
		"from its drives' histograms added bucket by bucket, the fleet's from every "
		"drive's, never from averaged percentiles.</p>\n",
		fl->nracks, fl->nfiles, fl->ndrives);
	racks_html(o, fl);
	if (fl->npoints)
		rack_points_html(o, fl);
	if (fl->nracks < 2)
		return;
	fprintf(o,
		"<p class=\"note\">Slowest racks first, by the rack's %s: the mean over the "
		"points (+ is slower).</p>\n<ol class=\"slowest\">\n",
		slow_rule(fl));
	for (size_t i = 0; i < fl->nracks; i++) {
		const struct rp_fleet_rack *R = &fl->racks[fl->order[i]];

		fputs("<li data-rack=\"", o);
		rp_esc(o, R->name);
		fputs("\">", o);
		rp_esc(o, R->name);
		if (isnan(R->slow_pct)) {
			fputs(": not compared (it ran no comparable point)</li>\n", o);
			continue;
		}
		fprintf(o, ": %+.1f%% over %zu point(s); worst at ", R->slow_pct, R->npt);
		rp_esc(o, fl->points[R->worst]);
		fprintf(o, ": %+.1f%%</li>\n", R->worst_pct);
	}
	fputs("</ol>\n", o);
}
