// SPDX-License-Identifier: MIT
/*
 * `rackbench report --html`: one self-contained page, inline SVG and CSS, nothing
 * fetched and no script. Charts the reviews use: throughput and mean latency against
 * queue depth per drive, latency against IOPS for rate curves, throughput over time for
 * preconditioning, per-point bars against a baseline; tables of drives (identity and
 * health), models (merged histograms, outliers) and spec verdicts.
 *
 * Every chart is <svg class="chart" data-chart=KIND> holding one <g class="series"
 * data-series=NAME> per drive, which is what tests/integration/test_report_html.py reads.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "report_model.h"
#include "units.h"

#define W 720
#define H 340
#define ML 78 /* margins */
#define MR 16
#define MT 34
#define MB 46
#define MAX_LEGEND 24
#define MAX_BARS 64

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				       "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22" };

static void esc(FILE *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", o);
			break;
		case '<':
			fputs("&lt;", o);
			break;
		case '>':
			fputs("&gt;", o);
			break;
		case '"':
			fputs("&quot;", o);
			break;
		case '\'':
			fputs("&#39;", o);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, o);
		}
	}
}

struct series {
	char name[340];
	size_t n, cap;
	double *x, *y;
};

static int series_add(struct series *s, double x, double y)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		double *nx = realloc(s->x, nc * sizeof(double)), *ny;

		if (!nx)
			return -ENOMEM;
		s->x = nx;
		ny = realloc(s->y, nc * sizeof(double));
		if (!ny)
			return -ENOMEM;
		s->y = ny;
		s->cap = nc;
	}
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->n++;
	return 0;
}

static void series_free(struct series *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].x);
		free(s[i].y);
	}
	free(s);
}

/* A 1-2-5 step giving about five ticks over [0, max]. */
static double nice_step(double max)
{
	double raw = max / 5, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void fmt_num(char *b, size_t len, double v)
{
	if (fabs(v) >= 1e6)
		snprintf(b, len, "%.3gM", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(b, len, "%.3gk", v / 1e3);
	else
		snprintf(b, len, "%.4g", v);
}

static void legend(FILE *o, const struct series *s, size_t ns)
{
	fputs("<div class=\"legend\">", o);
	if (ns > MAX_LEGEND) {
		fprintf(o, "%zu series (one per drive); hover a point for its drive", ns);
	} else {
		for (size_t i = 0; i < ns; i++) {
			fprintf(o, "<span><i style=\"background:%s\"></i>",
				palette[i % (sizeof(palette) / sizeof(palette[0]))]);
			esc(o, s[i].name);
			fputs("</span>", o);
		}
	}
	fputs("</div>\n", o);
}

/* x on a log2 scale (queue depths) or linear from 0; y linear from 0. */
static void line_chart(FILE *o, const char *kind, const char *title, const char *xl, const char *yl,
		       bool xlog, const struct series *s, size_t ns)
{
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0, step;
	char b[32];

	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s[i].n; k++) {
			double x = xlog ? log2(s[i].x[k] > 0 ? s[i].x[k] : 1) : s[i].x[k];

			xmin = fmin(xmin, x);
			xmax = fmax(xmax, x);
			if (isfinite(s[i].y[k]))
				ymax = fmax(ymax, s[i].y[k]);
		}
	if (!isfinite(xmin))
		xmin = 0, xmax = 1;
	if (!xlog)
		xmin = 0;
	if (xmax <= xmin)
		xmax = xmin + 1;
	if (ymax <= 0)
		ymax = 1;
	step = nice_step(ymax);
	ymax = ceil(ymax / step) * step;
#define PX(x) (ML + ((x)-xmin) / (xmax - xmin) * (W - ML - MR))
#define PY(y) (H - MB - (y) / ymax * (H - MT - MB))
	fprintf(o,
		"<figure><svg class=\"chart\" data-chart=\"%s\" viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\"><title>",
		kind, W, H, W, H);
	esc(o, title);
	fprintf(o, "</title><text class=\"t\" x=\"%d\" y=\"20\">", ML);
	esc(o, title);
	fputs("</text>\n", o);
	for (double y = 0; y <= ymax * 1.0001; y += step) {
		fmt_num(b, sizeof(b), y);
		fprintf(o,
			"<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"ax\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			ML, W - MR, PY(y), PY(y), ML - 6, PY(y) + 4, b);
	}
	if (xlog) {
		for (double x = ceil(xmin); x <= xmax + 1e-9; x++) {
			fmt_num(b, sizeof(b), pow(2, x));
			fprintf(o,
				"<text class=\"ax\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
				PX(x), H - MB + 16, b);
		}
	} else {
		double xs = nice_step(xmax);

		for (double x = 0; x <= xmax * 1.0001; x += xs) {
			fmt_num(b, sizeof(b), x);
			fprintf(o,
				"<text class=\"ax\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
				PX(x), H - MB + 16, b);
		}
	}
	fprintf(o, "\n<text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (W + ML) / 2,
		H - 8);
	esc(o, xl);
	fprintf(o,
		"</text><text class=\"ax\" transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\">",
		(H - MB + MT) / 2);
	esc(o, yl);
	fputs("</text>\n", o);
	for (size_t i = 0; i < ns; i++) {
		const char *col = palette[i % (sizeof(palette) / sizeof(palette[0]))];

		fputs("<g class=\"series\" data-series=\"", o);
		esc(o, s[i].name);
		fprintf(o,
			"\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" points=\"",
			col);
		for (size_t k = 0; k < s[i].n; k++) {
			double x = xlog ? log2(s[i].x[k] > 0 ? s[i].x[k] : 1) : s[i].x[k];

			if (isfinite(s[i].y[k]))
				fprintf(o, "%.1f,%.1f ", PX(x), PY(s[i].y[k]));
		}
		fputs("\"/>", o);
		/* markers with a native tooltip; long series (time) go without */
		for (size_t k = 0; k < s[i].n && s[i].n <= 64; k++) {
			double x = xlog ? log2(s[i].x[k] > 0 ? s[i].x[k] : 1) : s[i].x[k];

			if (!isfinite(s[i].y[k]))
				continue;
			fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\" fill=\"%s\"><title>",
				PX(x), PY(s[i].y[k]), col);
			esc(o, s[i].name);
			fprintf(o, ": %s %.4g, %s %.4g</title></circle>", xl, s[i].x[k], yl,
				s[i].y[k]);
		}
		fputs("</g>\n", o);
	}
#undef PX
#undef PY
	fputs("</svg>", o);
	legend(o, s, ns);
	fputs("</figure>\n", o);
}

/* Horizontal bars, one per drive, with the difference from the baseline. */
static void bar_chart(FILE *o, const struct rp_report *r, const char *point,
		      const struct rp_cell **c, size_t n, bool mbps)
{
	double max = 0, step;
	int bh = 18, h = MT + (int)n * (bh + 4) + 30, lw = 250;
	char b[32];

	for (size_t i = 0; i < n; i++)
		max = fmax(max, mbps ? c[i]->mbps : c[i]->iops);
	if (max <= 0)
		max = 1;
	step = nice_step(max);
	max = ceil(max / step) * step;
	fprintf(o,
		"<figure><svg class=\"chart\" data-chart=\"bars\" viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\"><title>",
		W, h, W, h);
	esc(o, point);
	fprintf(o, "</title><text class=\"t\" x=\"8\" y=\"20\">");
	esc(o, point);
	fprintf(o, ": %s%s</text>\n", mbps ? "MB/s" : "IOPS",
		r->baseline ? " (difference from the baseline drive)" : "");
	for (double x = 0; x <= max * 1.0001; x += step) {
		double px = lw + x / max * (W - lw - 70);

		fmt_num(b, sizeof(b), x);
		fprintf(o,
			"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
			"<text class=\"ax\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			px, px, MT - 4, h - 26, px, h - 10, b);
	}
	for (size_t i = 0; i < n; i++) {
		double v = mbps ? c[i]->mbps : c[i]->iops;
		int y = MT + (int)i * (bh + 4);

		fputs("<g class=\"series\" data-series=\"", o);
		esc(o, c[i]->label);
		fprintf(o, "\"><text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", lw - 6,
			y + 13);
		/* a long name keeps its end, where drives differ */
		size_t ll = strlen(c[i]->label);

		if (ll > 40)
			fputs("\u2026", o);
		esc(o, ll > 40 ? c[i]->label + ll - 39 : c[i]->label);
		fprintf(o,
			"</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
			"<title>%.6g</title></rect>",
			lw, y, v / max * (W - lw - 70), bh,
			c[i]->outlier ? "#d62728"
				      : palette[i % (sizeof(palette) / sizeof(palette[0]))],
			v);
		if (!isnan(c[i]->vs_base))
			fprintf(o, "<text class=\"ax\" x=\"%.1f\" y=\"%d\">%+.1f%%</text>",
				lw + v / max * (W - lw - 70) + 4, y + 13, c[i]->vs_base);
		fputs("</g>\n", o);
	}
	fputs("</svg></figure>\n", o);
}

static bool same_family(const struct rb_row_point *a, const struct rb_row_point *b, bool by_rate)
{
	return !strcmp(a->phase, b->phase) && !strcmp(a->rw, b->rw) && a->bs_bytes == b->bs_bytes &&
	       a->numjobs == b->numjobs && a->rwmixread_pct == b->rwmixread_pct &&
	       (by_rate ? a->iodepth == b->iodepth : a->rate_iops == b->rate_iops);
}

static struct series *series_for(struct series **s, size_t *ns, const char *name)
{
	struct series *n;

	for (size_t i = 0; i < *ns; i++)
		if (!strcmp((*s)[i].name, name))
			return &(*s)[i];
	n = realloc(*s, (*ns + 1) * sizeof(**s));
	if (!n)
		return NULL;
	*s = n;
	memset(&n[*ns], 0, sizeof(n[0]));
	snprintf(n[*ns].name, sizeof(n[0].name), "%s", name);
	return &n[(*ns)++];
}

static void sort_series(struct series *s)
{
	double *xy = malloc(s->n * 2 * sizeof(double) + 1);

	if (!xy)
		return;
	for (size_t k = 0; k < s->n; k++)
		xy[2 * k] = s->x[k], xy[2 * k + 1] = s->y[k];
	qsort(xy, s->n, 2 * sizeof(double), rp_cmp_double);
	for (size_t k = 0; k < s->n; k++)
		s->x[k] = xy[2 * k], s->y[k] = xy[2 * k + 1];
	free(xy);
}

/*
 * Queue-depth sweeps (by_rate false: points of one family differing in iodepth) and
 * rate curves (by_rate true: differing in rate_iops). Returns charts drawn.
 */
static int sweeps(FILE *o, const struct rp_report *r, bool by_rate, const char *heading)
{
	bool *done = calloc(r->ncells + 1, sizeof(bool));
	int charts = 0;

	if (!done)
		return -ENOMEM;
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rb_row_point *p0 = r->cells[i].pt;
		struct series *s = NULL, *lat = NULL;
		size_t ns = 0, nl = 0, distinct = 0;
		double seen[2] = { NAN, NAN };
		bool mbps = p0->bs_bytes >= 65536 || !p0->bs_bytes; /* a split: by MB/s */
		char title[512], bs[32];

		bool rated = p0->rate_iops || rp_is_curve(p0);

		/* steady-state rounds have their own chart */
		if (done[i] || by_rate != rated || p0->round)
			continue;
		for (size_t k = i; k < r->ncells; k++) {
			const struct rp_cell *c = &r->cells[k];
			double x;

			if (done[k] || !same_family(p0, c->pt, by_rate) || c->pt->round ||
			    by_rate != (c->pt->rate_iops || rp_is_curve(c->pt)))
				continue;
			done[k] = true;
			if (!c->res)
				continue;
			x = by_rate ? c->iops : c->pt->iodepth;
			/* a family is what its settings vary, not what the drives achieved */
			double key = !by_rate		  ? x
				     : rp_is_curve(c->pt) ? 1e12 + c->pt->curve_pct
							  : (double)c->pt->rate_iops;

			if (distinct < 2 && key != seen[0] && key != seen[1])
				seen[distinct++] = key;
			struct series *a = series_for(&s, &ns, c->label);
			struct series *l = series_for(&lat, &nl, c->label);

			if (!a || !l)
				continue;
			double mean = c->res->read.ios ? c->rd_mean_us : c->wr_mean_us;

			series_add(a, x, by_rate ? mean : (mbps ? c->mbps : c->iops));
			series_add(l, x, mean);
		}
		if (distinct >= 2) {
			if (!charts)
				fprintf(o, "<h2>%s</h2>\n", heading);
			for (size_t k = 0; k < ns; k++)
				sort_series(&s[k]), sort_series(&lat[k]);
			snprintf(title, sizeof(title), "%s: %s %s, %u job(s)%s", p0->phase, p0->rw,
				 p0->bs_bytes ? rb_fmt_size(p0->bs_bytes, bs, sizeof(bs))
					      : "of a block-size split",
				 p0->numjobs, by_rate ? "" : "");
			if (by_rate) {
				char t2[600];

				snprintf(t2, sizeof(t2), "%s, QD %u: mean latency against IOPS",
					 title, p0->iodepth);
				line_chart(o, "curve", t2, "IOPS", "mean latency (us)", false, s,
					   ns);
			} else {
				char t2[600];

				snprintf(t2, sizeof(t2), "%s: %s against queue depth", title,
					 mbps ? "MB/s" : "IOPS");
				line_chart(o, "qd-throughput", t2, "queue depth",
					   mbps ? "MB/s" : "IOPS", true, s, ns);
				snprintf(t2, sizeof(t2), "%s: mean latency against queue depth",
					 title);
				line_chart(o, "qd-latency", t2, "queue depth", "mean latency (us)",
					   true, lat, nl);
			}
			charts++;
		}
		series_free(s, ns);
		series_free(lat, nl);
	}
	free(done);
	return charts;
}

static bool is_precondition(const char *phase)
{
	return strcasestr(phase, "precond") || strcasestr(phase, "fill") ||
	       strcasestr(phase, "saturat");
}

/* Throughput per interval over time, per drive, for preconditioning phases. */
static int timeseries(FILE *o, const struct rp_report *r)
{
	int charts = 0;

	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];

		for (size_t p = 0; p < f->np; p++) {
			struct series *s = NULL;
			size_t ns = 0;
			bool mbps = f->pt[p].bs_bytes >= 65536 || !f->pt[p].bs_bytes;
			char title[600];

			if (!is_precondition(f->pt[p].phase))
				continue;
			for (size_t d = 0; d < f->nd; d++) {
				const struct rp_cell *c = &r->cells[f->cell0 + p * f->nd + d];
				struct series *x;
				int64_t t0 = 0;

				if (!c->res)
					continue;
				x = series_for(&s, &ns, c->label);
				for (size_t k = 0; x && k < f->nsm; k++) {
					const struct rb_row_sample *m = &f->sm[k];

					if (m->drive != c->dr->drive || m->point != c->pt->point ||
					    m->attempt != c->res->attempt)
						continue;
					if (!t0)
						t0 = c->res->start_ns;
					/* a sample's t_ns is its interval's end; rate over its interval */
					double iv = (double)(m->t_ns - t0) / 1e9;

					series_add(x, iv,
						   mbps ? (double)m->bytes / 1e6 : (double)m->ios);
				}
			}
			/* samples per direction add up within an interval */
			for (size_t k = 0; k < ns; k++) {
				size_t w = 0;

				sort_series(&s[k]);
				for (size_t q = 0; q < s[k].n; q++) {
					if (w && s[k].x[w - 1] == s[k].x[q]) {
						s[k].y[w - 1] += s[k].y[q];
						continue;
					}
					s[k].x[w] = s[k].x[q];
					s[k].y[w++] = s[k].y[q];
				}
				s[k].n = w;
				/* per interval to per second */
				for (size_t q = 0; q < w; q++) {
					double dt = q ? s[k].x[q] - s[k].x[q - 1] : s[k].x[q];

					s[k].y[q] = dt > 0 ? s[k].y[q] / dt : NAN;
				}
			}
			snprintf(title, sizeof(title), "%s: %s over time", f->pt[p].name,
				 mbps ? "MB/s" : "IOPS");
			if (ns) {
				line_chart(o, "timeseries", title, "seconds",
					   mbps ? "MB/s" : "IOPS", false, s, ns);
				charts++;
			}
			series_free(s, ns);
		}
	}
	return charts;
}

static void th(FILE *o, const char *const *h, size_t n)
{
	fputs("<thead><tr>", o);
	for (size_t i = 0; i < n; i++)
		fprintf(o, "<th>%s</th>", h[i]);
	fputs("</tr></thead>\n", o);
}

/* The tracking metric per round, per drive, and the verdicts. */
static void steady_section(FILE *o, const struct rp_report *r)
{
	static const char *const h[] = {
		"drive",  "phase",   "metric", "verdict", "rounds",
		"window", "average", "min",    "max",	  "slope per round"
	};
	bool any = false;

	for (size_t fi = 0; fi < r->nfiles; fi++)
		any |= r->files[fi].nss > 0;
	if (!any)
		return;
	fputs("<h2>Steady state</h2>\n<p class=\"note\">SNIA PTS: over a window of rounds, "
	      "steady when max &minus; min &le; 20% and |slope| &times; (rounds &minus; 1) &le; 10% "
	      "of the window average (least-squares slope).</p>\n",
	      o);
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];
		char phases[8][64];
		size_t nph = 0;

		/* one chart per steady-state phase: the tracking point's metric per round */
		for (size_t i = 0; i < f->nss; i++) {
			size_t k;

			for (k = 0; k < nph; k++)
				if (!strcmp(phases[k], f->ss[i].phase))
					break;
			if (k == nph && nph < 8)
				snprintf(phases[nph++], sizeof(phases[0]), "%s", f->ss[i].phase);
		}
		for (size_t ph = 0; ph < nph; ph++) {
			struct series *s = NULL;
			size_t ns = 0;
			const char *metric = "iops";
			char title[200];

			for (size_t i = 0; i < f->nss; i++)
				if (!strcmp(f->ss[i].phase, phases[ph]))
					metric = f->ss[i].metric;
			for (size_t p = 0; p < f->np; p++) {
				if (!f->pt[p].track || strcmp(f->pt[p].phase, phases[ph]))
					continue;
				for (size_t d = 0; d < f->nd; d++) {
					const struct rp_cell *c =
						&r->cells[f->cell0 + p * f->nd + d];
					struct series *x;
					double y;

					if (!c->res)
						continue;
					y = !strcmp(metric, "mbps") ? c->mbps
					    : !strcmp(metric, "mean_latency_us")
						    ? (c->res->read.ios ? c->rd_mean_us
									: c->wr_mean_us)
						    : c->iops;
					x = series_for(&s, &ns, c->label);
					if (x)
						series_add(x, f->pt[p].round, y);
				}
			}
			snprintf(title, sizeof(title), "%s: the tracking point's %s per round",
				 phases[ph], metric);
			if (ns) {
				for (size_t k = 0; k < ns; k++)
					sort_series(&s[k]);
				line_chart(o, "steady", title, "round", metric, false, s, ns);
			}
			series_free(s, ns);
		}
	}
	fputs("<table class=\"steady\">", o);
	th(o, h, sizeof(h) / sizeof(h[0]));
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];

		for (size_t i = 0; i < f->nss; i++) {
			const struct rb_row_steady *x = &f->ss[i];

			fputs("<tr><td>", o);
			for (size_t d = 0; d < f->nd; d++)
				if (f->dr[d].drive == x->drive) {
					esc(o, f->dr[d].agent);
					fputs(":", o);
					esc(o, f->dr[d].id.path);
				}
			fputs("</td><td>", o);
			esc(o, x->phase);
			fputs("</td><td>", o);
			esc(o, x->metric);
			if (x->steady)
				fprintf(o, "</td><td class=\"pass\">steady at %s %u</td>",
					x->rolling ? "interval" : "round", x->steady_round);
			else
				fputs("</td><td class=\"bad\">not steady</td>", o);
			fprintf(o,
				"<td class=\"n\">%u</td><td class=\"n\">%u&ndash;%u</td>"
				"<td class=\"n\">%.6g</td><td class=\"n\">%.6g</td><td class=\"n\">"
				"%.6g</td><td class=\"n\">%.4g</td></tr>\n",
				x->rounds, x->steady_round ? x->steady_round + 1 - x->window : 0,
				x->steady_round, x->avg, x->min, x->max, x->slope);
		}
	}
	fputs("</table>\n", o);
}

static void drives_table(FILE *o, const struct rp_report *r)
{
	static const char *const h[] = { "file",
					 "agent",
					 "path",
					 "model",
					 "serial",
					 "firmware",
					 "capacity",
					 "last purge",
					 "history at its last point",
					 "written during the run",
					 "max temp",
					 "new media errors",
					 "critical warning" };
	char cap[32], wr[32];

	fputs("<h2>Drives</h2>\n<table class=\"drives\">", o);
	th(o, h, sizeof(h) / sizeof(h[0]));
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];

		for (size_t d = 0; d < f->nd; d++) {
			const struct rb_row_drive *dr = &f->dr[d];
			uint64_t written = 0;
			double temp = NAN, media = NAN;
			unsigned warn = 0;
			const struct rb_row_result *last = NULL;

			for (size_t k = 0; k < f->nr; k++) {
				const struct rb_row_result *x = &f->rs[k];

				if (x->drive != dr->drive)
					continue;
				if (!last || x->start_ns >= last->start_ns)
					last = x;
				written += x->health_write_bytes;
				if (!isnan(x->health_max_temp_c))
					temp = isnan(temp) ? x->health_max_temp_c
							   : fmax(temp, x->health_max_temp_c);
				if (!isnan(x->health_new_media_errors))
					media = (isnan(media) ? 0 : media) +
						x->health_new_media_errors;
				warn |= x->health_critical_warning;
			}
			fprintf(o, "<tr><td>#%zu</td><td>", fi + 1);
			esc(o, dr->agent);
			fputs("</td><td>", o);
			esc(o, dr->id.path);
			fputs("</td><td>", o);
			esc(o, dr->id.model);
			fputs("</td><td>", o);
			esc(o, dr->id.serial);
			fputs("</td><td>", o);
			esc(o, dr->id.firmware);
			fprintf(o, "</td><td class=\"n\">%s</td>",
				rb_fmt_size(dr->id.size_bytes, cap, sizeof(cap)));
			/* the state the drive was measured in: purge, then what was written since */
			if (last && last->purge_ns) {
				char when[40];
				time_t t = (time_t)(last->purge_ns / 1000000000LL);
				struct tm tm;

				gmtime_r(&t, &tm);
				strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
				fputs("<td>", o);
				esc(o, last->purge_method);
				fprintf(o, ", %s</td>", when);
			} else {
				fputs("<td>none recorded</td>", o);
			}
			if (last && last->history_since_ns) {
				char b[32];

				fprintf(o, "<td>%s written%s, %llu passes</td>",
					rb_fmt_size(last->written_since_purge_bytes, b, sizeof(b)),
					last->purge_ns ? " since" : " (no purge recorded)",
					(unsigned long long)last->fill_passes_since_purge);
			} else {
				fputs("<td>new to rackbench</td>", o);
			}
			fprintf(o, "<td class=\"n\">%s</td>", rb_fmt_size(written, wr, sizeof(wr)));
			if (isnan(temp))
				fputs("<td class=\"n\">-</td>", o);
			else
				fprintf(o, "<td class=\"n\">%.0f &deg;C</td>", temp);
			if (isnan(media))
				fputs("<td class=\"n\">-</td>", o);
			else
				fprintf(o, "<td class=\"n\">%.0f</td>", media);
			fprintf(o, "<td class=\"n%s\">%s%u</td></tr>\n", warn ? " bad" : "",
				warn ? "0x" : "", warn);
		}
	}
	fputs("</table>\n", o);
}

static void models_table(FILE *o, const struct rp_report *r)
{
	static const char *const h[] = { "point",	 "model",	"drives",
					 "IOPS min",	 "IOPS median", "IOPS max",
					 "read p50 us",	 "read p99 us", "write p50 us",
					 "write p99 us", "outliers" };

	fputs("<h2>Per model</h2>\n<p class=\"note\">Latency percentiles of a model come from "
	      "its drives' histograms added bucket by bucket, never from averaged percentiles. "
	      "Outlier rule: ",
	      o);
	esc(o, RP_OUTLIER_RULE);
	fputs(".</p>\n<table class=\"models\">", o);
	th(o, h, sizeof(h) / sizeof(h[0]));
	for (size_t g = 0; g < r->ngroups; g++) {
		const struct rp_group *G = &r->groups[g];

		fputs("<tr><td>", o);
		esc(o, G->point);
		fputs("</td><td>", o);
		esc(o, G->model);
		fprintf(o,
			"</td><td class=\"n\">%zu</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f"
			"</td><td class=\"n\">%.0f</td><td class=\"n\">%.1f</td><td class=\"n\">"
			"%.1f</td><td class=\"n\">%.1f</td><td class=\"n\">%.1f</td><td class=\"n%s\">"
			"%zu</td></tr>\n",
			G->ndrives, G->iops_min, G->iops_med, G->iops_max, G->rd_p50_us,
			G->rd_p99_us, G->wr_p50_us, G->wr_p99_us, G->noutliers ? " bad" : "",
			G->noutliers);
	}
	fputs("</table>\n", o);
	fputs("<ul class=\"outliers\">", o);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];

		if (!c->outlier)
			continue;
		fputs("<li class=\"outlier\" data-drive=\"", o);
		esc(o, c->label);
		fputs("\">", o);
		esc(o, c->label);
		fputs(" at ", o);
		esc(o, c->pt->name);
		fprintf(o, ": %.0f IOPS against a model median of %.0f</li>\n", c->iops,
			r->groups[c->group].iops_med);
	}
	fputs("</ul>\n", o);
}

static void verdicts_table(FILE *o, const struct rp_report *r)
{
	static const char *const h[] = { "verdict", "claim",	"drive", "point",
					 "claimed", "measured", "share" };
	size_t fails = 0;

	for (size_t i = 0; i < r->nverdicts; i++)
		fails += !r->verdicts[i].pass;
	fprintf(o,
		"<h2>Against spec</h2>\n<p class=\"note\">Required: %.0f%% of each claim "
		"(for latencies: claimed / measured). %zu of %zu checks below it.</p>\n"
		"<table class=\"spec\">",
		r->require_pct, fails, r->nverdicts);
	th(o, h, sizeof(h) / sizeof(h[0]));
	for (size_t i = 0; i < r->nverdicts; i++) {
		const struct rp_verdict *v = &r->verdicts[i];

		fprintf(o, "<tr class=\"%s\"><td>%s</td><td>", v->pass ? "pass" : "fail",
			v->pass ? "PASS" : "FAIL");
		esc(o, v->claim->name);
		fputs("</td><td>", o);
		esc(o, v->cell->label);
		fputs("</td><td>", o);
		esc(o, v->cell->pt->name);
		fprintf(o,
			"</td><td class=\"n\">%.6g %s</td><td class=\"n\">%.6g</td>"
			"<td class=\"n\">%.1f%%</td></tr>\n",
			v->claim->value, rp_metric_name(v->claim->metric), v->measured, v->pct);
	}
	fputs("</table>\n", o);
}

static int verdict_rank(const char *v)
{
	return !strcmp(v, "FAIL") ? 0 : !strcmp(v, "INCOMPLETE") ? 1 : 2;
}

/* The fleet: every drive's verdict, failed drives at the top, the reason in words. */
static void fleet_table(FILE *o, const struct rp_report *r)
{
	static const char *const h[] = { "verdict", "drive", "model", "serial", "why" };

	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *F = &r->files[fi];

		if (!F->nvd)
			continue;
		fputs("<h2>Verdicts</h2>\n<p class=\"note\">The run: ", o);
		esc(o, F->verdict[0] ? F->verdict : "not judged");
		fputs(". Every rule that tripped is in the file's <code>verdicts</code> "
		      "table.</p>\n<table class=\"spec\">",
		      o);
		th(o, h, sizeof(h) / sizeof(h[0]));
		for (int rank = 0; rank < 3; rank++)
			for (size_t i = 0; i < F->nvd; i++) {
				const struct rb_row_verdict *v = &F->vd[i];
				const struct rb_row_drive *d = NULL;

				if (strcmp(v->rule, "drive") || verdict_rank(v->verdict) != rank)
					continue;
				for (size_t k = 0; k < F->nd && !d; k++)
					if (F->dr[k].drive == v->drive)
						d = &F->dr[k];
				fprintf(o, "<tr class=\"%s\"><td>%s</td><td>",
					rank == 2 ? "pass" : "fail", v->verdict);
				esc(o, d ? d->agent : "?");
				fputs(":", o);
				esc(o, d ? d->id.path : "?");
				fputs("</td><td>", o);
				esc(o, d ? d->id.model : "");
				fputs("</td><td>", o);
				esc(o, d ? d->id.serial : "");
				fputs("</td><td>", o);
				esc(o, v->reason);
				fputs("</td></tr>\n", o);
			}
		fputs("</table>\n", o);
	}
}

static void results_table(FILE *o, const struct rp_report *r)
{
	static const char *const h[] = { "point",	"drive",	 "status",
					 "IOPS",	"MB/s",		 "read mean us",
					 "read p99 us", "write mean us", "write p99 us",
					 "vs baseline" };

	fputs("<h2>Every point</h2>\n<table class=\"results\">", o);
	th(o, h, sizeof(h) / sizeof(h[0]));
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];

		fprintf(o, "<tr%s><td>", c->outlier ? " class=\"outlier\"" : "");
		esc(o, c->pt->name);
		fputs("</td><td>", o);
		esc(o, c->label);
		fputs("</td><td>", o);
		esc(o, c->res ? c->res->status : "none");
		fprintf(o,
			"</td><td class=\"n\">%.0f</td><td class=\"n\">%.1f</td><td class=\"n\">"
			"%.1f</td><td class=\"n\">%.1f</td><td class=\"n\">%.1f</td><td "
			"class=\"n\">%.1f</td>",
			c->iops, c->mbps, c->rd_mean_us, c->rd_p99_us, c->wr_mean_us, c->wr_p99_us);
		if (isnan(c->vs_base))
			fputs("<td class=\"n\">-</td></tr>\n", o);
		else
			fprintf(o, "<td class=\"n\">%+.1f%%</td></tr>\n", c->vs_base);
	}
	fputs("</table>\n", o);
}

static const char css[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#222;"
	"padding:0 16px}h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px "
	"solid #ddd}figure{margin:12px 0 20px}svg.chart{max-width:100%;height:auto;background:"
	"#fff}.t{font-size:14px;font-weight:600}.ax{font-size:11px;fill:#444}.grid{stroke:#e5e5e5}"
	".legend{font-size:12px;margin-top:4px}.legend span{margin-right:14px;white-space:nowrap}"
	".legend i{display:inline-block;width:10px;height:10px;margin-right:4px}table{border-"
	"collapse:collapse;font-size:12px;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 6px;"
	"text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:"
	"#f4f4f4}.bad,.fail td:first-child{color:#b00;font-weight:600}.pass td:first-child{color:"
	"#070}tr.outlier td{background:#fff0f0}.note{color:#555;font-size:13px}.warn{background:"
	"#fff6d5;padding:8px;border:1px solid #e8d48a}"
	"@media (prefers-color-scheme:dark){body{background:#161616;color:#ddd}th{background:"
	"#262626}td,th{border-color:#333}svg.chart{background:#fff}}";

int rp_html(const struct rp_report *r, const char *path)
{
	char tmp[4096];
	FILE *o;
	int e;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	o = fopen(tmp, "we");
	if (!o)
		return -errno;
	fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		   "<meta name=\"viewport\" content=\"width=device-width\">"
		   "<meta name=\"generator\" content=\"rackbench " RB_VERSION "\">"
		   "<title>rackbench: ");
	esc(o, r->nfiles ? r->files[0].campaign : "");
	fprintf(o, "</title><style>%s</style></head><body>\n<h1>rackbench report: ", css);
	esc(o, r->nfiles ? r->files[0].campaign : "");
	fputs("</h1>\n<ul class=\"files\">", o);
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		fprintf(o, "<li>#%zu <code>", fi + 1);
		esc(o, r->files[fi].path);
		fputs("</code>: campaign ", o);
		esc(o, r->files[fi].campaign);
		fputs(", status ", o);
		esc(o, r->files[fi].status);
		fputs(", methodology <code>", o);
		esc(o, r->files[fi].methodology[0] ? r->files[fi].methodology : "not recorded");
		fputs("</code></li>\n", o);
	}
	fputs("</ul>\n", o);
	if (r->methodology_differs)
		fputs("<p class=\"warn\">These files ran different methodologies (their plan hashes "
		      "differ): points compare by name only.</p>\n",
		      o);
	fleet_table(o, r);
	if (r->nclaims)
		verdicts_table(o, r);
	e = sweeps(o, r, false, "Throughput and latency against queue depth");
	if (e == 0)
		fputs("<h2>Throughput and latency against queue depth</h2>\n<p class=\"note\">No "
		      "queue-depth sweep in these results.</p>\n",
		      o);
	sweeps(o, r, true, "Latency against IOPS (rate curves)");
	steady_section(o, r);
	fputs("<h2>Preconditioning</h2>\n", o);
	e = timeseries(o, r);
	if (e == 0)
		fputs("<p class=\"note\">No preconditioning phase in these results.</p>\n", o);
	fputs("<h2>Each point, drive by drive</h2>\n", o);
	{
		size_t drives = 0;

		for (size_t fi = 0; fi < r->nfiles; fi++)
			drives += r->files[fi].nd;
		if (drives > MAX_BARS) {
			fprintf(o,
				"<p class=\"note\">%zu drives: per-drive bars are left out; the "
				"model table and the point table below have every drive.</p>\n",
				drives);
		} else {
			const struct rp_cell **sel = calloc(r->ncells + 1, sizeof(*sel));
			bool *done = calloc(r->ncells + 1, sizeof(bool));

			for (size_t i = 0; sel && done && i < r->ncells; i++) {
				size_t n = 0;

				if (done[i])
					continue;
				for (size_t k = i; k < r->ncells; k++)
					if (!done[k] &&
					    !strcmp(r->cells[k].pt->name, r->cells[i].pt->name)) {
						done[k] = true;
						sel[n++] = &r->cells[k];
					}
				bar_chart(o, r, r->cells[i].pt->name, sel, n,
					  r->cells[i].pt->bs_bytes >= 65536 ||
						  !r->cells[i].pt->bs_bytes);
			}
			free(sel);
			free(done);
		}
	}
	drives_table(o, r);
	models_table(o, r);
	results_table(o, r);
	{
		char ts[64];
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M UTC", &tm);
		fprintf(o, "<p class=\"note\">rackbench " RB_VERSION ", %s.</p>\n</body></html>\n",
			ts);
	}
	if (ferror(o) | fclose(o)) {
		e = -EIO;
		unlink(tmp);
		return e;
	}
	if (rename(tmp, path) < 0) {
		e = -errno;
		unlink(tmp);
		return e;
	}
	return 0;
}
