// SPDX-License-Identifier: MIT
/*
 * The report page's charts, drawn (report_svg.h): series, axes, legend, escaping. Called
 * by the page (report_html.c) and its chart sections (report_charts.c); calls neither.
 */
#include "report_svg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_model.h"
#include "units.h"

/* One colour per drive on every chart; an outlier is marked by shape, not by a colour. */
const char *const rp_palette[RP_NCOLOURS] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
	"#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#d62728"
};

void rp_esc(FILE *o, const char *s)
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

int rp_series_add(struct rp_series *s, double x, double y)
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

void rp_series_free(struct rp_series *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].x);
		free(s[i].y);
	}
	free(s);
}

/* A 1-2-5 step giving about five ticks over [0, max]. */
double rp_nice_step(double max)
{
	double raw = max / 5, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

void rp_fmt_num(char *b, size_t len, double v)
{
	if (fabs(v) >= 1e6)
		snprintf(b, len, "%.3gM", v / 1e6);
	else if (fabs(v) >= 1e4)
		snprintf(b, len, "%.3gk", v / 1e3);
	else
		snprintf(b, len, "%.4g", v);
}

const char *rp_colour(size_t i)
{
	return rp_palette[i % RP_NCOLOURS];
}

void rp_legend(FILE *o, const struct rp_series *s, size_t ns)
{
	fputs("<div class=\"legend\">", o);
	if (ns > MAX_LEGEND) {
		fprintf(o, "%zu series (one per drive); hover a point for its drive", ns);
	} else {
		for (size_t i = 0; i < ns; i++) {
			fprintf(o, "<span><i style=\"background:%s\"></i>", rp_colour(s[i].colour));
			rp_esc(o, s[i].name);
			fputs("</span>", o);
		}
	}
	fputs("</div>\n", o);
}

/* x on a log2 scale (queue depths) or linear from 0; y linear from 0. */
/* The axes' ranges: x over the series (log2 or from 0), y from 0 to a whole step above
 * the series and the reference lines. */
static void ranges(const struct rp_series *s, size_t ns, bool xlog, const struct rp_ref *refs,
		   size_t nref, double *ret_xmin, double *ret_xmax, double *ret_ymax,
		   double *ret_step)
{
	double xmin = INFINITY, xmax = -INFINITY, ymax = 0;

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
	for (size_t i = 0; i < nref; i++)
		if (isfinite(refs[i].y))
			ymax = fmax(ymax, refs[i].y * 1.05);
	if (ymax <= 0)
		ymax = 1;
	*ret_step = rp_nice_step(ymax);
	*ret_ymax = ceil(ymax / *ret_step) * *ret_step;
	*ret_xmin = xmin;
	*ret_xmax = xmax;
}

void rp_line_chart(FILE *o, const char *kind, const char *title, const char *xl, const char *yl,
		   bool xlog, const struct rp_series *s, size_t ns, const struct rp_ref *refs,
		   size_t nref)
{
	double xmin, xmax, ymax, step;
	char b[32];

	ranges(s, ns, xlog, refs, nref, &xmin, &xmax, &ymax, &step);
#define PX(x) (ML + ((x)-xmin) / (xmax - xmin) * (W - ML - MR))
#define PY(y) (H - MB - (y) / ymax * (H - MT - MB))
	fprintf(o,
		"<figure><svg class=\"chart\" data-chart=\"%s\" viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\"><title>",
		kind, W, H, W, H);
	rp_esc(o, title);
	fprintf(o, "</title><text class=\"t\" x=\"%d\" y=\"20\">", ML);
	rp_esc(o, title);
	fputs("</text>\n", o);
	for (double y = 0; y <= ymax * 1.0001; y += step) {
		rp_fmt_num(b, sizeof(b), y);
		fprintf(o,
			"<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"ax\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			ML, W - MR, PY(y), PY(y), ML - 6, PY(y) + 4, b);
	}
	if (xlog) {
		for (double x = ceil(xmin); x <= xmax + 1e-9; x++) {
			rp_fmt_num(b, sizeof(b), pow(2, x));
			fprintf(o,
				"<text class=\"ax\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
				PX(x), H - MB + 16, b);
		}
	} else {
		double xs = rp_nice_step(xmax);

		for (double x = 0; x <= xmax * 1.0001; x += xs) {
			rp_fmt_num(b, sizeof(b), x);
			fprintf(o,
				"<text class=\"ax\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
				PX(x), H - MB + 16, b);
		}
	}
	fprintf(o, "\n<text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (W + ML) / 2,
		H - 8);
	rp_esc(o, xl);
	fprintf(o,
		"</text><text class=\"ax\" transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\">",
		(H - MB + MT) / 2);
	rp_esc(o, yl);
	fputs("</text>\n", o);
	for (size_t i = 0; i < nref; i++) {
		if (!isfinite(refs[i].y))
			continue;
		fprintf(o,
			"<g class=\"ref\"><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#555\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>"
			"<text class=\"ax\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
			ML, W - MR, PY(refs[i].y), PY(refs[i].y), W - MR - 2, PY(refs[i].y) - 4);
		rp_esc(o, refs[i].label);
		fputs("</text></g>\n", o);
	}
	for (size_t i = 0; i < ns; i++) {
		const char *col = rp_colour(s[i].colour);

		fputs("<g class=\"series\" data-series=\"", o);
		rp_esc(o, s[i].name);
		fprintf(o,
			"\" data-colour=\"%s\"><polyline fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"1.6\"%s points=\"",
			col, s[i].markers ? "none" : col,
			s[i].dashed ? " stroke-dasharray=\"6 4\"" : "");
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
			if (s[i].markers)
				fprintf(o,
					"<path class=\"peak\" d=\"M%.1f %.1f l5 -5 l5 5 l-5 5 z\" "
					"fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"><title>",
					PX(x) - 5, PY(s[i].y[k]), col);
			else
				fprintf(o,
					"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\" fill=\"%s\">"
					"<title>",
					PX(x), PY(s[i].y[k]), col);
			rp_esc(o, s[i].name);
			fprintf(o, ": %s %.4g, %s %.4g</title></%s>", xl, s[i].x[k], yl, s[i].y[k],
				s[i].markers ? "path" : "circle");
		}
		fputs("</g>\n", o);
	}
#undef PX
#undef PY
	fputs("</svg>", o);
	rp_legend(o, s, ns);
	fputs("</figure>\n", o);
}

struct rp_series *rp_series_for(struct rp_series **s, size_t *ns, const char *name, size_t colour)
{
	struct rp_series *n;

	for (size_t i = 0; i < *ns; i++)
		if (!strcmp((*s)[i].name, name))
			return &(*s)[i];
	n = realloc(*s, (*ns + 1) * sizeof(**s));
	if (!n)
		return NULL;
	*s = n;
	memset(&n[*ns], 0, sizeof(n[0]));
	snprintf(n[*ns].name, sizeof(n[0].name), "%s", name);
	n[*ns].colour = colour;
	return &n[(*ns)++];
}

void rp_series_sort(struct rp_series *s)
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

double rp_text_px(const char *s, double font_px)
{
	double em = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c & 0xc0) == 0x80) /* the rest of a UTF-8 character */
			continue;
		if (strchr(" .,:;()[]|'!ijlft/", c))
			em += 0.42;
		else if (strchr("%mwMW", c))
			em += 1.0;
		else if ((c >= 'A' && c <= 'Z') || strchr("+=<>#&@~", c))
			em += 0.86;
		else
			em += 0.66;
	}
	return em * font_px;
}

double rp_step_for(double max, double room_px, double font_px)
{
	double step = rp_nice_step(max);

	/* fewer ticks until the widest label (the top one) and a gap fit between two */
	for (unsigned n = 5; n >= 1; n--) {
		double top, count;
		char b[32];

		step = rp_nice_step(max * 5 / n);
		top = ceil(max / step) * step;
		count = round(top / step);
		rp_fmt_num(b, sizeof(b), top);
		if (count < 1 || room_px / count >= rp_text_px(b, font_px) + 8)
			break;
	}
	return step;
}

/* The text at a bar's end: its value, its unit and its difference from a baseline. */
static void bar_text(const struct rp_bar *b, const char *unit, char *buf, size_t len)
{
	char v[32];
	int n;

	rp_fmt_num(v, sizeof(v), b->v);
	n = snprintf(buf, len, "%s %s", isfinite(b->v) ? v : "-", unit);
	if (isfinite(b->vs) && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (%+.1f%%)", b->vs);
}

void rp_bars(FILE *o, const char *kind, const char *title, const char *unit, const struct rp_bar *b,
	     size_t n, int width)
{
	double max = 0, step, vw = 0, nw = 0;
	int bh = 18, h = MT + (int)n * (bh + 4) + 30, lw, room;
	size_t chars = width >= W ? 40 : 24;
	char v[96], name[64];

	/* the room each part takes, from its widest text: the names at the left (cut in the
	 * middle to at most 2/5 of the chart), the values at the bars' ends, the bars between */
	for (size_t i = 0; i < n; i++) {
		if (isfinite(b[i].v))
			max = fmax(max, b[i].v);
		bar_text(&b[i], unit, v, sizeof(v));
		vw = fmax(vw, rp_text_px(v, 11));
	}
	for (; chars > 8; chars--) {
		nw = 0;
		for (size_t i = 0; i < n; i++)
			nw = fmax(nw, rp_text_px(rb_fit_name(b[i].name, chars, name, sizeof(name)),
						 11));
		if (nw + 10 <= width * 2 / 5)
			break;
	}
	lw = (int)ceil(nw) + 10 > 40 ? (int)ceil(nw) + 10 : 40;
	room = width - lw - (int)ceil(vw) - 12;
	if (room < 80) { /* the chart grows rather than cut a value */
		width += 80 - room;
		room = 80;
	}
	if (max <= 0)
		max = 1;
	step = rp_step_for(max, room, 11);
	max = ceil(max / step) * step;
	fprintf(o,
		"<figure><svg class=\"chart\" data-chart=\"%s\" viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\"><title>",
		kind, width, h, width, h);
	rp_esc(o, title);
	fputs("</title><text class=\"t\" x=\"8\" y=\"20\">", o);
	rp_esc(o, title);
	fputs("</text>\n", o);
	for (double x = 0; x <= max * 1.0001; x += step) {
		double px = lw + x / max * room;

		rp_fmt_num(v, sizeof(v), x);
		fprintf(o,
			"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
			"<text class=\"ax tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			px, px, MT - 4, h - 26, px, h - 10, v);
	}
	for (size_t i = 0; i < n; i++) {
		double len = isfinite(b[i].v) ? b[i].v / max * room : 0;
		int y = MT + (int)i * (bh + 4);
		const char *col = rp_colour(b[i].colour);

		fputs("<g class=\"series\" data-series=\"", o);
		rp_esc(o, b[i].name);
		fprintf(o, "\" data-colour=\"%s\"%s><title>", col,
			b[i].outlier ? " data-outlier=\"1\"" : "");
		rp_esc(o, b[i].name);
		fprintf(o, "</title><text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"end\">",
			lw - 6, y + 13);
		rp_esc(o, rb_fit_name(b[i].name, chars, name, sizeof(name)));
		fprintf(o,
			"</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"fill=\"%s\"/>",
			lw, y, len, bh, col);
		/* the value people read, at the bar's end; an outlier by a shape beside it */
		bar_text(&b[i], unit, v, sizeof(v));
		fprintf(o, "<text class=\"val\" x=\"%.1f\" y=\"%d\">", lw + len + 4, y + 13);
		rp_esc(o, v);
		fputs("</text>", o);
		if (b[i].outlier)
			fprintf(o,
				"<path class=\"outlier-mark\" d=\"M2 %d l6 -11 l6 11 z\" fill=\"none\" "
				"stroke=\"#000\" stroke-width=\"1.4\"><title>outlier</title></path>",
				y + 15);
		fputs("</g>\n", o);
	}
	fputs("</svg></figure>\n", o);
}
