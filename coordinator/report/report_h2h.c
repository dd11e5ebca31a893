// SPDX-License-Identifier: MIT
/*
 * The head-to-head table (report_h2h.h). A subject's figure at a point: the median of
 * its drives' for MB/s and IOPS (a typical drive), the mean over all its drives' IOs for
 * mean latency, and the percentile of its drives' histograms added for p99 -- never an
 * average of percentiles. Rows: every point a review compares (rp_point_comparable: not
 * rate-limited, not a fill, not a steady-state round: the steady-state table has those),
 * with QoS rows (mean and p99 latency) for random points at one outstanding IO. Only a
 * drive's newest attempt that ran to its end (status ok) counts.
 */
#include "report_h2h.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "report_ckpt.h"
#include "report_exec.h"
#include "report_svg.h"
#include "units.h"

#define MAX_HISTS 1024 /* p99 rows x subjects merged; past it, the drives' median */

/* "4K random read QD1", "128K sequential write QD16 x 4 jobs", "70/30 random mix". */
static void workload(const struct rb_row_point *p, char *buf, size_t len)
{
	char bs[32] = "block-size split", mix[32];
	const char *rw = p->rw;

	/* an application's: what its figure is of */
	if (!strcmp(rw, "exec") || !strcmp(rw, "checkpoint")) {
		snprintf(buf, len, "%s",
			 rw[0] == 'e' ? "the command's own figure (exec)"
				      : "AI checkpoints written");
		return;
	}
	if (p->bs_bytes) {
		rb_fmt_size(p->bs_bytes, bs, sizeof(bs));
		for (char *c = bs; *c; c++)
			if (*c >= 'a' && *c <= 'z')
				*c = (char)(*c - 'a' + 'A');
	}
	if (!strcmp(rw, "read") || !strcmp(rw, "write"))
		snprintf(mix, sizeof(mix), "sequential %s", rw);
	else if (!strcmp(rw, "randread") || !strcmp(rw, "randwrite"))
		snprintf(mix, sizeof(mix), "random %s", rw + 4);
	else if (!strcmp(rw, "rw") || !strcmp(rw, "randrw"))
		snprintf(mix, sizeof(mix), "%u/%u %s mix", p->rwmixread_pct, 100 - p->rwmixread_pct,
			 rw[0] == 'r' && rw[1] == 'a' ? "random" : "sequential");
	else
		snprintf(mix, sizeof(mix), "%s", rw);
	if (p->numjobs > 1)
		snprintf(buf, len, "%s %s QD%u x %u jobs%s", bs, mix, p->iodepth, p->numjobs,
			 rp_is_curve(p) && p->curve_pct == 0 ? " (unthrottled)" : "");
	else
		snprintf(buf, len, "%s %s QD%u%s", bs, mix, p->iodepth,
			 rp_is_curve(p) && p->curve_pct == 0 ? " (unthrottled)" : "");
}

static int add_subject(struct rp_h2h *h, const char *full, size_t colour)
{
	char(*ns)[160], name[sizeof(*ns)];
	size_t *nc;

	/* compared as stored: two names alike in their first 159 characters are one column */
	snprintf(name, sizeof(name), "%s", full);
	for (size_t i = 0; i < h->nsubj; i++)
		if (!strcmp(h->subj[i], name))
			return (int)i;
	ns = realloc(h->subj, (h->nsubj + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	h->subj = ns;
	nc = realloc(h->colour, (h->nsubj + 1) * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	h->colour = nc;
	snprintf(h->subj[h->nsubj], sizeof(h->subj[0]), "%s", name);
	h->colour[h->nsubj] = colour;
	return (int)h->nsubj++;
}

static int add_row(struct rp_h2h *h, const struct rb_row_point *p, enum rp_metric m, size_t first)
{
	struct rp_h2h_row *nr = realloc(h->rows, (h->nrows + 1) * sizeof(*nr)), *x;

	if (!nr)
		return -ENOMEM;
	h->rows = nr;
	x = &h->rows[h->nrows];
	memset(x, 0, sizeof(*x));
	snprintf(x->point, sizeof(x->point), "%s", p->name);
	workload(p, x->what, sizeof(x->what));
	x->metric = m;
	x->first = first;
	x->v = malloc((h->nsubj + 1) * sizeof(double));
	if (!x->v)
		return -ENOMEM;
	for (size_t i = 0; i < h->nsubj; i++)
		x->v[i] = NAN;
	return (int)h->nrows++;
}

bool rp_app_metric(const struct rp_report *r, const struct rb_row_point *p, enum rp_metric *m)
{
	if (!strcmp(p->rw, "exec"))
		*m = rp_exec_metric(r, p);
	else if (!strcmp(p->rw, "checkpoint"))
		*m = RP_CKPT_S;
	else
		return false;
	return true;
}

/* The rows: points in the order they ran, each name once; an application's by its own
 * figure (an exec command's TPS, seconds per checkpoint). */
static int make_rows(const struct rp_report *r, struct rp_h2h *h, long *row_of)
{
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rb_row_point *p = r->cells[i].pt;
		enum rp_metric app;
		long found = -1;
		int k;

		row_of[i] = -1;
		if (!rp_app_metric(r, p, &app) && !rp_point_comparable(p))
			continue;
		for (size_t j = 0; j < h->nrows && found < 0; j++)
			if (!strcmp(h->rows[j].point, p->name))
				found = (long)j;
		if (found >= 0) {
			row_of[i] = found;
			continue;
		}
		if (rp_app_metric(r, p, &app)) {
			if ((k = add_row(h, p, app, h->nrows)) < 0)
				return k;
			row_of[i] = k;
			continue;
		}
		if ((k = add_row(h, p, rp_point_metric(p), h->nrows)) < 0)
			return k;
		row_of[i] = k;
		/* QoS: a random point at one outstanding IO is judged by its latency too */
		if (rp_point_metric(p) == RP_IOPS && p->iodepth * p->numjobs == 1 &&
		    ((k = add_row(h, p, RP_MEAN_US, (size_t)row_of[i])) < 0 ||
		     (k = add_row(h, p, RP_P99_US, (size_t)row_of[i])) < 0))
			return k;
	}
	return 0;
}

double rp_app_value(const struct rp_report *r, const struct rp_cell *c, enum rp_metric m)
{
	if (m == RP_TPS || m == RP_APP_IOPS)
		return rp_exec_figure(r, c, m);
	return m == RP_CKPT_S ? rp_ckpt_seconds(r, c) : NAN;
}

static double cell_value(const struct rp_report *r, const struct rp_cell *c, enum rp_metric m)
{
	if (m >= RP_TPS)
		return rp_app_value(r, c, m);
	return c->res && rb_row_status(c->res) == RB_STATUS_OK ? rp_cell_metric(c, m) : NAN;
}

/* Per file, its histogram rows added into each (p99 row, subject) they belong to. */
static void merge_p99(const struct rp_report *r, struct rp_h2h *h, const long *row_of,
		      const int *subj_of, struct rb_hist *hist, const long *slot_of_first)
{
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];
		size_t nd = 0, np = 0;
		long *dl = rp_id_lut(f->dr, f->nd, sizeof(*f->dr), &nd);
		long *pl = rp_id_lut(f->pt, f->np, sizeof(*f->pt), &np);

		for (size_t k = 0; dl && pl && k < f->nhi; k++) {
			const struct rb_row_hist *x = &f->hi[k];
			size_t ci;
			long slot;

			if (x->drive >= nd || x->point >= np || dl[x->drive] < 0 ||
			    pl[x->point] < 0 || x->bucket >= RB_HIST_BUCKETS || x->direction > 1)
				continue;
			ci = f->cell0 + (size_t)pl[x->point] * f->nd + (size_t)dl[x->drive];
			if (row_of[ci] < 0 || !r->cells[ci].res ||
			    x->attempt != r->cells[ci].res->attempt ||
			    rb_row_status(r->cells[ci].res) != RB_STATUS_OK ||
			    x->direction != (r->cells[ci].res->read.ios ? 0 : 1))
				continue;
			slot = slot_of_first[row_of[ci]];
			if (slot < 0)
				continue;
			hist[(size_t)slot * h->nsubj + (size_t)subj_of[ci]].counts[x->bucket] +=
				x->count;
			hist[(size_t)slot * h->nsubj + (size_t)subj_of[ci]].total += x->count;
		}
		free(dl);
		free(pl);
	}
}

struct keys {
	const long *row_of;
	const int *subj_of;
};

static int by_row_subject(const void *a, const void *b, void *arg)
{
	const struct keys *k = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (k->row_of[i] != k->row_of[j])
		return k->row_of[i] < k->row_of[j] ? -1 : 1;
	if (k->subj_of[i] != k->subj_of[j])
		return k->subj_of[i] < k->subj_of[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* A row's figure for one subject from its cells (n of them): a median, the mean over
 * their IOs, or the p99 of their histograms added (hist; NULL: the drives' median). */
static double figure(const struct rp_report *r, const struct rp_h2h_row *row, const size_t *cells,
		     size_t n, double *v, const struct rb_hist *hist)
{
	double ios = 0, sum = 0;
	size_t m = 0;

	/* no histogram rows (an older or crafted file): the drives' median, as past MAX_HISTS */
	if (row->metric == RP_P99_US && hist && hist->total)
		return (double)rb_hist_percentile(hist, 99) / 1e3;
	for (size_t i = 0; i < n; i++) {
		const struct rp_cell *c = &r->cells[cells[i]];
		double x = cell_value(r, c, row->metric);

		if (isnan(x))
			continue;
		if (row->metric == RP_MEAN_US) {
			const struct rb_row_dir *d =
				c->res->read.ios ? &c->res->read : &c->res->write;

			ios += (double)d->ios;
			sum += x * (double)d->ios;
			continue;
		}
		v[m++] = x;
	}
	if (row->metric == RP_MEAN_US)
		return ios > 0 ? sum / ios : NAN;
	return rb_median(v, m);
}

/* Each row's figure per subject, by its metric's rule. */
static int fill(const struct rp_report *r, struct rp_h2h *h, const long *row_of, const int *subj_of)
{
	double *v = malloc((r->ncells + 1) * sizeof(double));
	size_t *ix = malloc((r->ncells + 1) * sizeof(size_t)), n = 0;
	long *p99_slot = malloc((h->nrows + 1) * sizeof(long)),
	     *slot_of_first = malloc((h->nrows + 1) * sizeof(long));
	struct rb_hist *hist = NULL;
	size_t slots = 0;

	if (!v || !ix || !p99_slot || !slot_of_first) {
		free(v);
		free(ix);
		free(p99_slot);
		free(slot_of_first);
		return -ENOMEM;
	}
	for (size_t k = 0; k < h->nrows; k++)
		slot_of_first[k] = -1;
	for (size_t k = 0; k < h->nrows; k++) {
		p99_slot[k] = h->rows[k].metric == RP_P99_US ? (long)slots++ : -1;
		if (p99_slot[k] >= 0)
			slot_of_first[h->rows[k].first] = p99_slot[k];
	}
	if (slots && slots * h->nsubj <= MAX_HISTS)
		hist = calloc(slots * h->nsubj, sizeof(*hist));
	if (hist)
		merge_p99(r, h, row_of, subj_of, hist, slot_of_first);
	/* the cells in (row, subject) order: each run of them one figure per row */
	for (size_t i = 0; i < r->ncells; i++)
		if (row_of[i] >= 0)
			ix[n++] = i;
	qsort_r(ix, n, sizeof(*ix), by_row_subject, &(struct keys){ row_of, subj_of });
	for (size_t a = 0, e; a < n; a = e) {
		long row0 = row_of[ix[a]];
		int s = subj_of[ix[a]];

		for (e = a; e < n && row_of[ix[e]] == row0 && subj_of[ix[e]] == s; e++)
			;
		/* the point's rows: its first and, for QoS, the two after it */
		for (size_t k = (size_t)row0; k < h->nrows && h->rows[k].first == (size_t)row0; k++)
			h->rows[k].v[s] =
				figure(r, &h->rows[k], ix + a, e - a, v,
				       hist && p99_slot[k] >= 0
					       ? &hist[(size_t)p99_slot[k] * h->nsubj + (size_t)s]
					       : NULL);
	}
	free(hist);
	free(v);
	free(ix);
	free(p99_slot);
	free(slot_of_first);
	return 0;
}

static void find_base(const struct rp_report *r, struct rp_h2h *h, const char *baseline,
		      const int *subj_of)
{
	h->base = 0;
	h->base_found = false;
	for (size_t s = 0; baseline && s < h->nsubj && !h->base_found; s++)
		if (!strcmp(h->subj[s], baseline))
			h->base = s, h->base_found = true;
	for (size_t s = 0; baseline && s < h->nsubj && !h->base_found; s++)
		if (strstr(h->subj[s], baseline))
			h->base = s, h->base_found = true;
	/* a drive (its alias, agent:path or serial) names its column */
	for (size_t i = 0; baseline && i < r->ncells && !h->base_found; i++)
		if (rp_cell_names(&r->cells[i], baseline))
			h->base = (size_t)subj_of[i], h->base_found = true;
}

int rp_h2h_build(const struct rp_report *r, enum rp_by by, const char *baseline, struct rp_h2h *h)
{
	long *row_of = calloc(r->ncells + 1, sizeof(long));
	int *subj_of = calloc(r->ncells + 1, sizeof(int));
	char name[400];
	int rc = 0;

	memset(h, 0, sizeof(*h));
	h->by = rp_by_resolve(r, by);
	if (!row_of || !subj_of) {
		rc = -ENOMEM;
		goto out;
	}
	/* a subject is a drive's (its model, firmware, file): found once per drive */
	for (size_t fi = 0; fi < r->nfiles && rc >= 0; fi++) {
		const struct rp_file *f = &r->files[fi];

		for (size_t d = 0; f->np && d < f->nd && rc >= 0; d++) {
			const struct rp_cell *c = &r->cells[f->cell0 + d];

			rp_cell_subject(r, c, h->by, name, sizeof(name));
			rc = add_subject(h, name, rp_cell_colour(r, c));
			for (size_t p = 0; rc >= 0 && p < f->np; p++)
				subj_of[f->cell0 + p * f->nd + d] = rc;
		}
	}
	if (rc >= 0)
		rc = make_rows(r, h, row_of);
	if (rc >= 0)
		rc = fill(r, h, row_of, subj_of);
	if (rc >= 0) {
		find_base(r, h, baseline, subj_of);
		rc = 0;
	}
out:
	free(row_of);
	free(subj_of);
	return rc;
}

void rp_h2h_free(struct rp_h2h *h)
{
	for (size_t k = 0; k < h->nrows; k++)
		free(h->rows[k].v);
	free(h->rows);
	free(h->subj);
	free(h->colour);
	memset(h, 0, sizeof(*h));
}

double rp_h2h_pct(double a, double b)
{
	return isfinite(a) && isfinite(b) && b > 0 ? (a / b - 1) * 100 : NAN;
}

const char *rp_h2h_word(enum rp_metric m, double pct)
{
	if (m == RP_CKPT_S) /* seconds a checkpoint takes: more is slower */
		return pct >= 0 ? "slower" : "faster";
	if (!rp_metric_lower_better(m))
		return pct >= 0 ? "faster" : "slower";
	return pct >= 0 ? "higher" : "lower";
}

static const char *unit(enum rp_metric m)
{
	static const char *const u[] = { "MB/s",     "IOPS", "mean us",	       "p99 us",
					 "p99.9 us", "TPS",  "IOPS (command)", "s/checkpoint" };

	return u[m];
}

/* "1740" or "1.74M": four digits a person reads. */
static char *num(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e7)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
	return buf;
}

/* A column's cell in words: "1740 (41% faster; base 29% slower)". */
static void cell_words(const struct rp_h2h *h, const struct rp_h2h_row *row, size_t s, bool both,
		       char *buf, size_t len)
{
	double b = row->v[h->base], x = row->v[s], up = rp_h2h_pct(x, b), down = rp_h2h_pct(b, x);
	char v[32];

	num(x, v, sizeof(v));
	/* both ways or not at all: a zero on either side has no ratio */
	if (s == h->base || isnan(up) || isnan(down))
		snprintf(buf, len, "%s", v);
	else if (both)
		snprintf(buf, len, "%s (%.*f%% %s; base %.*f%% %s)", v, fabs(up) < 10 ? 1 : 0,
			 fabs(up), rp_h2h_word(row->metric, up), fabs(down) < 10 ? 1 : 0,
			 fabs(down), rp_h2h_word(row->metric, down));
	else
		snprintf(buf, len, "%s (%+.0f%%)", v, up);
}

static void csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void rp_h2h_text(const struct rp_h2h *h, int format, FILE *out)
{
	char b[200];

	if (!h->nsubj || !h->nrows) {
		fputs(format == 2 ? "point,workload,metric\n" : "no points to compare\n", out);
		return;
	}
	if (format == 2) {
		fputs("point,workload,metric", out);
		for (size_t s = 0; s < h->nsubj; s++) {
			fputc(',', out);
			csv_str(out, h->subj[s]);
			if (s == h->base)
				continue;
			snprintf(b, sizeof(b), "%s vs %s %%", h->subj[s], h->subj[h->base]);
			fputc(',', out);
			csv_str(out, b);
			snprintf(b, sizeof(b), "%s vs %s %%", h->subj[h->base], h->subj[s]);
			fputc(',', out);
			csv_str(out, b);
		}
		fputc('\n', out);
		for (size_t k = 0; k < h->nrows; k++) {
			const struct rp_h2h_row *row = &h->rows[k];

			csv_str(out, row->point);
			fputc(',', out);
			csv_str(out, row->what);
			fprintf(out, ",%s", unit(row->metric));
			for (size_t s = 0; s < h->nsubj; s++) {
				double up = rp_h2h_pct(row->v[s], row->v[h->base]),
				       down = rp_h2h_pct(row->v[h->base], row->v[s]);

				if (isnan(row->v[s]))
					fputc(',', out);
				else
					fprintf(out, ",%.6g", row->v[s]);
				if (s == h->base)
					continue;
				if (isnan(up) || isnan(down))
					fputs(",,", out);
				else
					fprintf(out, ",%.2f,%.2f", up, down);
			}
			fputc('\n', out);
		}
		return;
	}
	if (format == 1) {
		fprintf(out, "| point | workload | metric |");
		for (size_t s = 0; s < h->nsubj; s++)
			fprintf(out, " %s%s |", h->subj[s], s == h->base ? " (baseline)" : "");
		fputs("\n|---|---|---|", out);
		for (size_t s = 0; s < h->nsubj; s++)
			fputs("--:|", out);
		fputc('\n', out);
		for (size_t k = 0; k < h->nrows; k++) {
			fprintf(out, "| %s | %s | %s |", h->rows[k].point, h->rows[k].what,
				unit(h->rows[k].metric));
			for (size_t s = 0; s < h->nsubj; s++) {
				cell_words(h, &h->rows[k], s, true, b, sizeof(b));
				fprintf(out, " %s |", b);
			}
			fputc('\n', out);
		}
		return;
	}
	fprintf(out, "%-34s %-9s", "point", "metric");
	for (size_t s = 0; s < h->nsubj; s++) {
		char nm[32];

		fprintf(out, " %18s", rb_fit_name(h->subj[s], 18, nm, sizeof(nm)));
	}
	fputc('\n', out);
	for (size_t k = 0; k < h->nrows; k++) {
		fprintf(out, "%-34.34s %-9s", h->rows[k].point, unit(h->rows[k].metric));
		for (size_t s = 0; s < h->nsubj; s++) {
			cell_words(h, &h->rows[k], s, false, b, sizeof(b));
			fprintf(out, " %18s", b);
		}
		fputc('\n', out);
	}
	fprintf(out, "baseline: %s; in brackets, each column against it\n", h->subj[h->base]);
}

void rp_h2h_html(FILE *o, const struct rp_h2h *h)
{
	static const char *const by[] = { "",	   "drive",
					  "model", "model, firmware and capacity",
					  "file",  "an agent's label" };
	char b[200];

	if (!h->nsubj || !h->nrows)
		return;
	fputs("<h2 data-section=\"head-to-head\">Head to head</h2>\n<p class=\"note\">By ", o);
	fputs(by[h->by], o);
	fputs(": each point's figure by what it is judged by (MB/s for sequential and large "
	      "blocks, IOPS for small random blocks, mean and p99 latency at one outstanding "
	      "IO; an application's own figure: its command's TPS, seconds per checkpoint). A "
	      "column of several drives: their median for MB/s, IOPS and an application's "
	      "figure, the mean over all their IOs, the p99 of their histograms added. Against "
	      "the baseline, ",
	      o);
	rp_esc(o, h->subj[h->base]);
	fputs(", both ways.</p>\n<table class=\"h2h\"><thead><tr><th>point</th><th>workload</th>"
	      "<th>metric</th>",
	      o);
	for (size_t s = 0; s < h->nsubj; s++) {
		fprintf(o, "<th data-colour=\"%s\"><i style=\"background:%s\"></i>",
			rp_colour(h->colour[s]), rp_colour(h->colour[s]));
		rp_esc(o, h->subj[s]);
		fprintf(o, "%s</th>", s == h->base ? " (baseline)" : "");
	}
	fputs("</tr></thead>\n", o);
	for (size_t k = 0; k < h->nrows; k++) {
		const struct rp_h2h_row *row = &h->rows[k];

		fputs("<tr><td>", o);
		rp_esc(o, row->point);
		fputs("</td><td>", o);
		rp_esc(o, row->what);
		fprintf(o, "</td><td>%s</td>", unit(row->metric));
		for (size_t s = 0; s < h->nsubj; s++) {
			double up = rp_h2h_pct(row->v[s], row->v[h->base]),
			       down = rp_h2h_pct(row->v[h->base], row->v[s]);

			if (isnan(row->v[s]))
				fputs("<td class=\"n\" data-value=\"\">-", o);
			else
				fprintf(o, "<td class=\"n\" data-value=\"%.6g\">%s", row->v[s],
					num(row->v[s], b, sizeof(b)));
			if (s != h->base && !isnan(up) && !isnan(down))
				fprintf(o,
					"<br><span class=\"vs\" data-pct=\"%.2f\">%.1f%% %s</span>"
					"<br><span class=\"vs\" data-pct-base=\"%.2f\">base %.1f%% "
					"%s</span>",
					up, fabs(up), rp_h2h_word(row->metric, up), down,
					fabs(down), rp_h2h_word(row->metric, down));
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	fputs("</table>\n", o);
}
