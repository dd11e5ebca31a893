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
		/* each series' swatch drawn as its line is: solid, dashed, or its diamonds */
		for (size_t i = 0; i < ns; i++) {
			const char *col = rp_colour(s[i].colour);

			fputs("<span><svg class=\"sw\" width=\"24\" height=\"10\" "
			      "aria-hidden=\"true\">",
			      o);
			if (s[i].markers)
				fprintf(o,
					"<path d=\"M8 5 l4 -4 l4 4 l-4 4 z\" fill=\"none\" "
					"stroke=\"%s\" stroke-width=\"1.6\"/>",
					col);
			else
				fprintf(o,
					"<line x1=\"0\" y1=\"5\" x2=\"24\" y2=\"5\" stroke=\"%s\" "
					"stroke-width=\"2.5\"%s/>",
					col, s[i].dashed ? " stroke-dasharray=\"6 4\"" : "");
			fputs("</svg>", o);
			rp_esc(o, s[i].name);
			fputs("</span>", o);
		}
	}
	fputs("</div>\n", o);
}

/*
 * A chart's figure and its svg opened: the title is the figure's caption, page text that
 * wraps to the width it has, where text in the drawing ran past the chart's edge and was
 * cut; the drawing keeps it as its <title> for screen readers.
 */
static void figure_open(FILE *o, const char *kind, const char *title, int width, int height)
{
	fputs("<figure><figcaption class=\"t\">", o);
	rp_esc(o, title);
	fprintf(o,
		"</figcaption><svg class=\"chart\" data-chart=\"%s\" viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\"><title>",
		kind, width, height, width, height);
	rp_esc(o, title);
	fputs("</title>\n", o);
}

/* A chart's frame: its axes' ranges, in their scales (log2 x, log10 y), and y's step. */
struct frame {
	double x0, x1, y0, y1, ystep;
	bool xlog, ylog;
};

static double fx(const struct frame *f, double x)
{
	if (f->xlog)
		x = log2(x > 0 ? x : 1);
	return ML + (x - f->x0) / (f->x1 - f->x0) * (W - ML - MR);
}

/* A value's height on the chart; NAN where it has none (not finite; on a log axis, not
 * above 0). */
static double fy(const struct frame *f, double y)
{
	if (!isfinite(y) || (f->ylog && y <= 0))
		return NAN;
	if (f->ylog)
		y = log10(y);
	return H - MB - (y - f->y0) / (f->y1 - f->y0) * (H - MT - MB);
}

/* The frame around the series and the reference lines: x over the series (log2, or
 * linear from 0); y linear from 0 to a whole step above them, or (ylog) from a decade
 * under the least of them (a fifth of the height clear of the axis) to the decade over
 * the greatest. */
static void frame_of(const struct rp_chart *c, const struct rp_series *s, size_t ns,
		     struct frame *f)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = 0;

	for (size_t i = 0; i < ns; i++)
		for (size_t k = 0; k < s[i].n; k++) {
			double x = c->xlog ? log2(s[i].x[k] > 0 ? s[i].x[k] : 1) : s[i].x[k];

			xmin = fmin(xmin, x);
			xmax = fmax(xmax, x);
			if (isfinite(s[i].y[k]) && (!c->ylog || s[i].y[k] > 0)) {
				ymin = fmin(ymin, s[i].y[k]);
				ymax = fmax(ymax, s[i].y[k]);
			}
		}
	if (!isfinite(xmin))
		xmin = 0, xmax = 1;
	if (!c->xlog)
		xmin = 0;
	if (xmax <= xmin)
		xmax = xmin + 1;
	for (size_t i = 0; i < c->nref; i++)
		if (isfinite(c->refs[i].y) && (!c->ylog || c->refs[i].y > 0)) {
			ymin = fmin(ymin, c->refs[i].y);
			ymax = fmax(ymax, c->refs[i].y * 1.05);
		}
	*f = (struct frame){ .x0 = xmin, .x1 = xmax, .xlog = c->xlog, .ylog = c->ylog };
	if (c->ylog) {
		f->y0 = isfinite(ymin) ? floor(log10(ymin)) : 0;
		f->y1 = ymax > 0 ? ceil(log10(ymax)) : 1;
		if (f->y1 <= f->y0)
			f->y1 = f->y0 + 1;
		/* the least a fifth of the height clear of the axis, not drawn on it: a
		 * decade more below while it sits lower (each one lifts it, at most three) */
		for (int i = 0;
		     i < 3 && isfinite(ymin) && log10(ymin) - f->y0 < 0.2 * (f->y1 - f->y0); i++)
			f->y0 -= 1;
		return;
	}
	if (ymax <= 0)
		ymax = 1;
	f->ystep = rp_nice_step(ymax);
	f->y1 = ceil(ymax / f->ystep) * f->ystep;
}

/* A power of two as a size people read: 512 B, 4 KiB, 64 MiB; a binary unit, whole. */
static char *pow2_size(double e, char *b, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int x = (int)lround(e), i = x >= 0 ? x / 10 : 0;

	if (i > 5)
		i = 5;
	snprintf(b, len, "%.0f %s", ldexp(1, x - 10 * i), u[i]);
	return b;
}

static void y_tick(FILE *o, const struct frame *f, double y)
{
	char b[32];

	rp_fmt_num(b, sizeof(b), y);
	fprintf(o,
		"<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
		"<text class=\"ax ytick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		ML, W - MR, fy(f, y), fy(f, y), ML - 6, fy(f, y) + 4, b);
}

/* The label of a log2 x axis's tick at 2^e. */
static char *x_label(const struct rp_chart *c, double e, char *b, size_t len)
{
	if (c->xbytes)
		return pow2_size(e, b, len);
	rp_fmt_num(b, len, pow(2, e));
	return b;
}

static void x_tick(FILE *o, const struct frame *f, double x, const char *label)
{
	double px = fx(f, x), half = rp_text_px(label, 11) / 2;

	/* a label at the right edge ends at its tick rather than past the chart */
	fprintf(o, "<text class=\"ax xtick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>", px,
		H - MB + 16, px + half > W - 2 ? "end" : "middle", label);
}

/* The axes: y's gridlines and ticks, x's ticks (as many as fit their labels a gap
 * apart; on a log2 axis every 1st, 2nd, 4th or 10th power), and the axes' names. */
static void axes(FILE *o, const struct rp_chart *c, const struct frame *f)
{
	double plot = W - ML - MR;
	char b[32];

	if (f->ylog) {
		for (double d = f->y0; d <= f->y1 + 1e-9; d++) {
			y_tick(o, f, pow(10, d));
			/* within a decade or two, 2 and 5 times each too */
			for (int m = 2; f->y1 - f->y0 <= 2 && d < f->y1 && m <= 5; m += 3)
				y_tick(o, f, m * pow(10, d));
		}
	} else {
		for (double y = 0; y <= f->y1 * 1.0001; y += f->ystep)
			y_tick(o, f, y);
	}
	if (f->xlog) {
		static const int every[] = { 1, 2, 4, 10, 20 };
		double widest = 0, unit = plot / (f->x1 - f->x0);
		int k = 0;

		for (double x = ceil(f->x0); x <= f->x1 + 1e-9; x++)
			widest = fmax(widest, rp_text_px(x_label(c, x, b, sizeof(b)), 11));
		while (k < 4 && every[k] * unit < widest + 8)
			k++;
		for (double x = ceil(f->x0); x <= f->x1 + 1e-9; x++)
			if (!((long)x % every[k]))
				x_tick(o, f, pow(2, x), x_label(c, x, b, sizeof(b)));
	} else {
		double xs = rp_step_for(f->x1, plot, 11);

		for (double x = 0; x <= f->x1 * 1.0001; x += xs) {
			rp_fmt_num(b, sizeof(b), x);
			x_tick(o, f, x, b);
		}
	}
	fprintf(o, "\n<text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (W + ML) / 2,
		H - 8);
	rp_esc(o, c->xl);
	fprintf(o,
		"</text><text class=\"ax\" transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\">",
		(H - MB + MT) / 2);
	rp_esc(o, c->yl);
	fputs(f->ylog ? " (log scale)</text>\n" : "</text>\n", o);
}

/* A series: its line, and its points with a native tooltip (long series, over time,
 * without). */
static void series(FILE *o, const struct rp_chart *c, const struct frame *f,
		   const struct rp_series *s)
{
	const char *col = rp_colour(s->colour);
	char b[32];

	fputs("<g class=\"series\" data-series=\"", o);
	rp_esc(o, s->name);
	fprintf(o,
		"\" data-colour=\"%s\"><polyline fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"1.6\"%s points=\"",
		col, s->markers ? "none" : col, s->dashed ? " stroke-dasharray=\"6 4\"" : "");
	for (size_t k = 0; k < s->n; k++)
		if (isfinite(fy(f, s->y[k])))
			fprintf(o, "%.1f,%.1f ", fx(f, s->x[k]), fy(f, s->y[k]));
	fputs("\"/>", o);
	for (size_t k = 0; k < s->n && s->n <= 64; k++) {
		double px = fx(f, s->x[k]), py = fy(f, s->y[k]);

		if (!isfinite(py))
			continue;
		if (s->markers)
			fprintf(o,
				"<path class=\"peak\" d=\"M%.1f %.1f l5 -5 l5 5 l-5 5 z\" "
				"fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\"><title>",
				px - 5, py, col);
		else
			fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.6\" fill=\"%s\"><title>",
				px, py, col);
		rp_esc(o, s->name);
		fprintf(o, ": %s ", c->xl);
		if (c->xbytes && s->x[k] > 0 && s->x[k] == ldexp(1, (int)lround(log2(s->x[k]))))
			fputs(pow2_size(log2(s->x[k]), b, sizeof(b)), o);
		else
			fprintf(o, "%.4g", s->x[k]);
		fprintf(o, ", %s %.4g</title></%s>", c->yl, s->y[k],
			s->markers ? "path" : "circle");
	}
	fputs("</g>\n", o);
}

void rp_chart_lines(FILE *o, const struct rp_chart *c, const struct rp_series *s, size_t ns)
{
	struct frame f;

	frame_of(c, s, ns, &f);
	figure_open(o, c->kind, c->title, W, H);
	axes(o, c, &f);
	for (size_t i = 0; i < c->nref; i++) {
		double y = fy(&f, c->refs[i].y);

		if (!isfinite(y))
			continue;
		fprintf(o,
			"<g class=\"ref\"><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#555\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>"
			"<text class=\"ax\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
			ML, W - MR, y, y, W - MR - 2, y - 4);
		rp_esc(o, c->refs[i].label);
		fputs("</text></g>\n", o);
	}
	for (size_t i = 0; i < ns; i++)
		series(o, c, &f, &s[i]);
	fputs("</svg>", o);
	rp_legend(o, s, ns);
	fputs("</figure>\n", o);
}

void rp_line_chart(FILE *o, const char *kind, const char *title, const char *xl, const char *yl,
		   bool xlog, const struct rp_series *s, size_t ns, const struct rp_ref *refs,
		   size_t nref)
{
	struct rp_chart c = { .kind = kind,
			      .title = title,
			      .xl = xl,
			      .yl = yl,
			      .xlog = xlog,
			      .refs = refs,
			      .nref = nref };

	rp_chart_lines(o, &c, s, ns);
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
	figure_open(o, kind, title, width, h);
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
