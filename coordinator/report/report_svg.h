/* SPDX-License-Identifier: MIT */
/*
 * The report page's drawing: inline SVG charts with no script, their series and legend,
 * and HTML escaping. A series carries its colour: the report gives each drive (or model)
 * one colour on every chart. Every chart is <svg class="chart" data-chart=KIND> holding
 * one <g class="series" data-series=NAME data-colour=C> per series, which is what
 * tests/integration/test_report_html.py reads.
 */
#ifndef RB_REPORT_SVG_H
#define RB_REPORT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define W 720
#define H 340
#define W_CELL 520 /* a chart of a grid's cell: two side by side on the page */
#define ML 78	   /* margins */
#define MR 16
#define MT 14 /* the title is the figure's caption, above */
#define MB 46
#define MAX_LEGEND 24
#define MAX_BARS 64

#define RP_NCOLOURS 10
extern const char *const rp_palette[RP_NCOLOURS];

struct rp_series {
	char name[340];
	size_t colour; /* index into rp_palette (modulo its size) */
	bool dashed;   /* drawn dashed (the writes beside the reads of one drive) */
	bool markers;  /* its points alone, as diamonds, not joined (a curve's maximum) */
	size_t n, cap;
	double *x, *y;
};

/* A horizontal reference line across a chart (a datasheet's figure), dashed. */
struct rp_ref {
	double y;
	const char *label;
};

/* A bar: its name, colour, value (written on the bar), difference from a baseline
 * (percent; NAN none) and whether it is an outlier (marked by a shape). */
struct rp_bar {
	const char *name;
	size_t colour;
	double v, vs;
	bool outlier;
};

void rp_esc(FILE *o, const char *s);
const char *rp_colour(size_t i);
int rp_series_add(struct rp_series *s, double x, double y);
void rp_series_free(struct rp_series *s, size_t n);
/* The series named name in *s (made, with colour, when new); NULL out of memory. */
struct rp_series *rp_series_for(struct rp_series **s, size_t *ns, const char *name, size_t colour);
/* A series' points in x order. */
void rp_series_sort(struct rp_series *s);
/* A 1-2-5 step giving about five ticks over [0, max]. */
double rp_nice_step(double max);
/* The width (CSS pixels) text takes in a font of font_px, at most: each character by the
 * advance of the widest font a page falls back to (DejaVu Sans). What labels get room by. */
double rp_text_px(const char *s, double font_px);
/* A 1-2-5 step over [0, max] with as many ticks, five at most, as fit room_px with their
 * labels (in a font of font_px) a gap apart. */
double rp_step_for(double max, double room_px, double font_px);
void rp_fmt_num(char *b, size_t len, double v);
void rp_legend(FILE *o, const struct rp_series *s, size_t ns);
/* A chart of lines: what it is, its axes, and the lines across it. */
struct rp_chart {
	const char *kind, *title, *xl, *yl;
	bool xlog;		   /* x on a log2 scale (queue depths, block sizes), else from 0 */
	bool xbytes;		   /* x's ticks binary sizes: 512 B, 4 KiB, 1 MiB (with xlog) */
	bool ylog;		   /* y on a log10 scale, decades around the series and refs:
				    * series a hundred times apart all read; else linear from 0 */
	const struct rp_ref *refs; /* dashed horizontal lines, nref of them (may be 0) */
	size_t nref;
};

/* The chart of the series, its legend below it. */
void rp_chart_lines(FILE *o, const struct rp_chart *c, const struct rp_series *s, size_t ns);
/* rp_chart_lines with y linear from 0, x's ticks numbers. */
void rp_line_chart(FILE *o, const char *kind, const char *title, const char *xl, const char *yl,
		   bool xlog, const struct rp_series *s, size_t ns, const struct rp_ref *refs,
		   size_t nref);
/* Horizontal bars, one per entry, each with its value (and difference) written at its
 * end; width: the chart's (W for a full one, W_CELL for a cell of a grid of two), wider
 * only where the bars would get under 80 pixels between names and values. */
void rp_bars(FILE *o, const char *kind, const char *title, const char *unit, const struct rp_bar *b,
	     size_t n, int width);

#endif
