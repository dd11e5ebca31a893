// SPDX-License-Identifier: MIT
/*
 * The report page's chart sections (report_charts.h): the charts the reviews print,
 * found in whatever the results hold. A chart is drawn where the points make one: a
 * family of points that differ in queue depth, in rate, or in block size; a phase of
 * one read and one write point; a preconditioning phase. Called by the page
 * (report_html.c); draws with report_svg.c.
 */
#include "report_charts.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report_h2h.h"
#include "report_svg.h"
#include "units.h"

#define MAX_REFS 8

static bool same_family(const struct rb_row_point *a, const struct rb_row_point *b, bool by_rate)
{
	return !strcmp(a->phase, b->phase) && !strcmp(a->rw, b->rw) && a->bs_bytes == b->bs_bytes &&
	       a->numjobs == b->numjobs && a->rwmixread_pct == b->rwmixread_pct &&
	       (by_rate ? a->iodepth == b->iodepth : a->rate_iops == b->rate_iops);
}

static bool reads(const struct rp_cell *c)
{
	return c->res && c->res->read.ios;
}

/* The spec's claims a chart of rw, bs (0 any) and metric shows: dashed lines. */
static size_t claim_refs(const struct rp_report *r, const char *rw, uint64_t bs, unsigned jobs,
			 enum rp_metric m, struct rp_ref *refs, char (*labels)[160], size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nclaims && n < cap; i++) {
		const struct rp_claim *c = &r->claims[i];

		if (c->metric != m || strcmp(c->rw, rw) || (c->bs && bs && c->bs != bs) ||
		    (c->numjobs && c->numjobs != jobs))
			continue;
		snprintf(labels[n], sizeof(labels[0]), "spec: %s %.6g %s%s%s", c->name, c->value,
			 rp_metric_name(m), c->model[0] ? " (" : "", c->model[0] ? c->model : "");
		if (c->model[0])
			strncat(labels[n], ")", sizeof(labels[0]) - strlen(labels[n]) - 1);
		refs[n].y = c->value;
		refs[n].label = labels[n];
		n++;
	}
	return n;
}

/* One family's charts: against queue depth (three) or the rate curve (one). */
static void family_charts(FILE *o, const struct rp_report *r, const struct rb_row_point *p0,
			  bool by_rate, struct rp_series *s[3], size_t ns[3])
{
	enum rp_metric m = rp_point_metric(p0);
	struct rp_ref refs[MAX_REFS];
	char labels[MAX_REFS][160], title[512], t2[700], bs[32];
	size_t nref;

	snprintf(title, sizeof(title), "%s: %s %s, %u job(s)", p0->phase, p0->rw,
		 p0->bs_bytes ? rb_fmt_size(p0->bs_bytes, bs, sizeof(bs)) : "of a block-size split",
		 p0->numjobs);
	if (by_rate) {
		snprintf(t2, sizeof(t2),
			 "%s, QD %u: mean latency against IOPS (diamond: unthrottled)", title,
			 p0->iodepth);
		rp_line_chart(o, "curve", t2, "IOPS", "mean latency (us)", false, s[0], ns[0], NULL,
			      0);
		return;
	}
	nref = claim_refs(r, p0->rw, p0->bs_bytes, p0->numjobs, m, refs, labels, MAX_REFS);
	snprintf(t2, sizeof(t2), "%s: %s against queue depth", title,
		 m == RP_MBPS ? "MB/s" : "IOPS");
	rp_line_chart(o, "qd-throughput", t2, "queue depth", m == RP_MBPS ? "MB/s" : "IOPS", true,
		      s[0], ns[0], refs, nref);
	snprintf(t2, sizeof(t2), "%s: mean latency against queue depth", title);
	nref = claim_refs(r, p0->rw, p0->bs_bytes, p0->numjobs, RP_MEAN_US, refs, labels, MAX_REFS);
	rp_line_chart(o, "qd-latency", t2, "queue depth", "mean latency (us)", true, s[1], ns[1],
		      refs, nref);
	snprintf(t2, sizeof(t2), "%s: p99 latency against queue depth", title);
	nref = claim_refs(r, p0->rw, p0->bs_bytes, p0->numjobs, RP_P99_US, refs, labels, MAX_REFS);
	rp_line_chart(o, "qd-p99", t2, "queue depth", "p99 latency (us)", true, s[2], ns[2], refs,
		      nref);
}

int rp_chart_sweeps(FILE *o, const struct rp_report *r, bool by_rate, const char *heading)
{
	bool *done = calloc(r->ncells + 1, sizeof(bool));
	int charts = 0;

	if (!done)
		return -ENOMEM;
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rb_row_point *p0 = r->cells[i].pt;
		struct rp_series *s[3] = { NULL, NULL, NULL };
		size_t ns[3] = { 0, 0, 0 }, distinct = 0;
		double seen[2] = { NAN, NAN };
		bool mbps = rp_point_metric(p0) == RP_MBPS;
		bool rated = p0->rate_iops || rp_is_curve(p0);

		/* steady-state rounds have their own chart */
		if (done[i] || by_rate != rated || p0->round)
			continue;
		for (size_t k = i; k < r->ncells; k++) {
			const struct rp_cell *c = &r->cells[k];
			size_t col = rp_cell_colour(r, c);
			char name[360];
			double x, mean, key;

			if (done[k] || !same_family(p0, c->pt, by_rate) || c->pt->round ||
			    by_rate != (c->pt->rate_iops || rp_is_curve(c->pt)))
				continue;
			done[k] = true;
			if (!c->res)
				continue;
			x = by_rate ? c->iops : c->pt->iodepth;
			/* a family is what its settings vary, not what the drives achieved */
			key = !by_rate		   ? x
			      : rp_is_curve(c->pt) ? 1e12 + c->pt->curve_pct
						   : (double)c->pt->rate_iops;
			if (distinct < 2 && key != seen[0] && key != seen[1])
				seen[distinct++] = key;
			mean = reads(c) ? c->rd_mean_us : c->wr_mean_us;
			if (by_rate) {
				/* the unthrottled run finds the maximum; the curve is the rates */
				bool max = rp_is_curve(c->pt) && c->pt->curve_pct == 0;
				struct rp_series *a;

				snprintf(name, sizeof(name), "%s%s", c->label,
					 max ? " (unthrottled)" : "");
				a = rp_series_for(&s[0], &ns[0], name, col);
				if (a) {
					a->markers = max;
					rp_series_add(a, x, mean);
				}
				continue;
			}
			struct rp_series *a = rp_series_for(&s[0], &ns[0], c->label, col),
					 *l = rp_series_for(&s[1], &ns[1], c->label, col),
					 *q = rp_series_for(&s[2], &ns[2], c->label, col);

			if (!a || !l || !q)
				continue;
			rp_series_add(a, x, mbps ? c->mbps : c->iops);
			rp_series_add(l, x, mean);
			rp_series_add(q, x, reads(c) ? c->rd_p99_us : c->wr_p99_us);
		}
		if (distinct >= 2) {
			if (!charts)
				fprintf(o, "<h2>%s</h2>\n", heading);
			for (size_t j = 0; j < 3; j++)
				for (size_t k = 0; k < ns[j]; k++)
					rp_series_sort(&s[j][k]);
			family_charts(o, r, p0, by_rate, s, ns);
			charts++;
		}
		for (size_t j = 0; j < 3; j++)
			rp_series_free(s[j], ns[j]);
	}
	free(done);
	return charts;
}

static bool is_precondition(const char *phase)
{
	return strcasestr(phase, "precond") || strcasestr(phase, "fill") ||
	       strcasestr(phase, "saturat") || strcasestr(phase, "prepare") ||
	       strcasestr(phase, "wipc");
}

/* A cell's throughput per second of each interval, from its samples, into x: the rule of
 * rp_interval_rates (a short last interval merged into the one before it). */
static void cell_timeseries(const struct rp_file *f, const struct rp_cell *c, bool mbps,
			    struct rp_series *x)
{
	size_t w = 0;
	uint64_t nominal_ns = 0;
	char v[32];

	if (x->n)
		return; /* one attempt per series */
	for (size_t k = 0; k < f->nsm; k++) {
		const struct rb_row_sample *m = &f->sm[k];

		if (m->drive != c->dr->drive || m->point != c->pt->point ||
		    m->attempt != c->res->attempt)
			continue;
		/* a sample's t_ns is its interval's end */
		rp_series_add(x, (double)(m->t_ns - c->res->core.start_ns) / 1e9,
			      mbps ? (double)m->bytes / 1e6 : (double)m->ios);
	}
	/* samples per direction add up within an interval */
	rp_series_sort(x);
	for (size_t q = 0; q < x->n; q++) {
		if (w && x->x[w - 1] == x->x[q]) {
			x->y[w - 1] += x->y[q];
			continue;
		}
		x->x[w] = x->x[q];
		x->y[w++] = x->y[q];
	}
	if (rb_parse_duration(rp_setting(c->pt->settings, "interval", v, sizeof(v)), &nominal_ns))
		nominal_ns = 0;
	x->n = rp_interval_rates(x->x, x->y, w, (double)nominal_ns / 1e9);
}

int rp_chart_timeseries(FILE *o, const struct rp_report *r)
{
	int charts = 0;
	bool *done = calloc(r->ncells + 1, sizeof(bool));

	if (!done)
		return 0;
	/* one chart per preconditioning point name: every drive of every file on it */
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rb_row_point *p0 = r->cells[i].pt;
		struct rp_series *s = NULL;
		size_t ns = 0;
		bool mbps = rp_point_metric(p0) == RP_MBPS;
		char title[600];

		if (done[i] || !is_precondition(p0->phase))
			continue;
		for (size_t k = i; k < r->ncells; k++) {
			const struct rp_cell *c = &r->cells[k];
			struct rp_series *x;

			if (done[k] || strcmp(c->pt->name, p0->name))
				continue;
			done[k] = true;
			if (!c->res)
				continue;
			x = rp_series_for(&s, &ns, c->label, rp_cell_colour(r, c));
			if (x)
				cell_timeseries(&r->files[c->file], c, mbps, x);
		}
		snprintf(title, sizeof(title), "%s: %s over time, every drive", p0->name,
			 mbps ? "MB/s" : "IOPS");
		if (ns) {
			rp_line_chart(o, "timeseries", title, "seconds", mbps ? "MB/s" : "IOPS",
				      false, s, ns, NULL, 0);
			charts++;
		}
		rp_series_free(s, ns);
	}
	free(done);
	return charts;
}

/* A drive's series together, its reads (solid) before its writes (dashed). */
static int by_drive_reads_first(const void *a, const void *b)
{
	const struct rp_series *x = a, *y = b;

	if (x->colour != y->colour)
		return x->colour < y->colour ? -1 : 1;
	return (int)x->dashed - (int)y->dashed;
}

static bool sequential(const char *rw)
{
	return !strcmp(rw, "read") || !strcmp(rw, "write");
}

int rp_chart_transfer_size(FILE *o, const struct rp_report *r)
{
	bool *done = calloc(r->ncells + 1, sizeof(bool));
	int charts = 0;

	if (!done)
		return 0;
	/* a phase of sequential points that differ in block size (read and write) */
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rb_row_point *p0 = r->cells[i].pt;
		struct rp_series *s = NULL;
		size_t ns = 0, sizes = 0;
		uint64_t seen[3] = { 0, 0, 0 };
		char title[400], name[360];

		if (done[i] || !sequential(p0->rw) || !p0->bs_bytes || p0->rate_iops ||
		    rp_is_curve(p0) || p0->round || rp_is_size_based(p0))
			continue;
		for (size_t k = i; k < r->ncells; k++) {
			const struct rp_cell *c = &r->cells[k];
			struct rp_series *x;

			if (done[k] || strcmp(c->pt->phase, p0->phase) || !sequential(c->pt->rw) ||
			    c->pt->iodepth != p0->iodepth || c->pt->numjobs != p0->numjobs ||
			    !c->pt->bs_bytes || c->pt->rate_iops || rp_is_size_based(c->pt))
				continue;
			done[k] = true;
			if (sizes < 3 && c->pt->bs_bytes != seen[0] && c->pt->bs_bytes != seen[1] &&
			    c->pt->bs_bytes != seen[2])
				seen[sizes++] = c->pt->bs_bytes;
			if (!c->res)
				continue;
			/* one colour per drive: its reads solid, its writes dashed */
			snprintf(name, sizeof(name), "%s %s", c->label, c->pt->rw);
			x = rp_series_for(&s, &ns, name, rp_cell_colour(r, c));
			if (!x)
				continue;
			x->dashed = !strcmp(c->pt->rw, "write");
			rp_series_add(x, (double)c->pt->bs_bytes, c->mbps);
		}
		if (sizes >= 3) {
			struct rp_ref refs[MAX_REFS];
			char labels[MAX_REFS][160];
			size_t nref = claim_refs(r, "read", 0, p0->numjobs, RP_MBPS, refs, labels,
						 MAX_REFS);

			nref += claim_refs(r, "write", 0, p0->numjobs, RP_MBPS, refs + nref,
					   labels + nref, MAX_REFS - nref);
			if (!charts)
				fputs("<h2 data-section=\"transfer-size\">Throughput against transfer "
				      "size</h2>\n",
				      o);
			for (size_t k = 0; k < ns; k++)
				rp_series_sort(&s[k]);
			qsort(s, ns, sizeof(*s), by_drive_reads_first);
			snprintf(title, sizeof(title),
				 "%s: MB/s against transfer size, QD %u (read solid, write dashed)",
				 p0->phase, p0->iodepth);
			/* sizes in binary units, as they were asked for; MB/s on a log axis, where
			 * a drive a hundred times slower than another is still seen */
			struct rp_chart ch = { .kind = "transfer-size",
					       .title = title,
					       .xl = "transfer size",
					       .yl = "MB/s",
					       .xlog = true,
					       .xbytes = true,
					       .ylog = true,
					       .refs = refs,
					       .nref = nref > MAX_REFS ? MAX_REFS : nref };

			rp_chart_lines(o, &ch, s, ns);
			charts++;
		}
		rp_series_free(s, ns);
	}
	free(done);
	return charts;
}

/* A phase of exactly one reading and one writing point, neither a curve nor a fill. */
static bool test_pair(const struct rp_report *r, const struct rp_file *f, const char *phase,
		      size_t *rd, size_t *wr)
{
	size_t n = 0;

	*rd = *wr = SIZE_MAX;
	for (size_t p = 0; p < f->np; p++) {
		const struct rb_row_point *x = &f->pt[p];

		if (strcmp(x->phase, phase))
			continue;
		if (++n > 2 || x->rate_iops || rp_is_curve(x) || x->round || rp_is_size_based(x))
			return false;
		if (!strcmp(x->rw, "read") || !strcmp(x->rw, "randread"))
			*rd = p;
		else if (!strcmp(x->rw, "write") || !strcmp(x->rw, "randwrite"))
			*wr = p;
	}
	(void)r;
	return n == 2 && *rd != SIZE_MAX && *wr != SIZE_MAX;
}

/* One cell of the grid: a bar per drive of every file at the point named. */
static void grid_cell(FILE *o, const struct rp_report *r, const char *point, const char *what)
{
	struct rp_bar *b = calloc(r->ncells + 1, sizeof(*b));
	size_t n = 0;
	char title[400];

	if (!b)
		return;
	for (size_t k = 0; k < r->ncells; k++) {
		const struct rp_cell *c = &r->cells[k];

		if (strcmp(c->pt->name, point))
			continue;
		b[n++] = (struct rp_bar){ .name = c->label,
					  .colour = rp_cell_colour(r, c),
					  .v = c->res ? c->mbps : NAN,
					  .vs = c->vs_base,
					  .outlier = c->outlier };
	}
	snprintf(title, sizeof(title), "%s %s (MB/s)", what, point);
	fputs("<div class=\"cell\">", o);
	rp_bars(o, "test-grid-cell", title, "MB/s", b, n, W_CELL);
	fputs("</div>", o);
	free(b);
}

int rp_chart_test_grid(FILE *o, const struct rp_report *r)
{
	const struct rp_file *f = r->nfiles ? &r->files[0] : NULL;
	size_t rows = 0, rd, wr;
	char phases[16][64];

	if (!f || r->ncells > 4096)
		return 0;
	/* the phases of the first file that are one read and one write each, in order */
	for (size_t p = 0; p < f->np && rows < 16; p++) {
		bool dup = false;

		for (size_t k = 0; k < rows; k++)
			dup |= !strcmp(phases[k], f->pt[p].phase);
		if (!dup && test_pair(r, f, f->pt[p].phase, &rd, &wr))
			snprintf(phases[rows++], sizeof(phases[0]), "%s", f->pt[p].phase);
	}
	if (rows < 2)
		return 0;
	fputs("<h2 data-section=\"test-grid\">Each test, read and write</h2>\n"
	      "<p class=\"note\">CrystalDiskMark's layout: a test per row, read on the left, "
	      "write on the right, MB/s for every test.</p>\n"
	      "<div class=\"tgrid\" data-chart=\"test-grid\">\n",
	      o);
	for (size_t k = 0; k < rows; k++) {
		test_pair(r, f, phases[k], &rd, &wr);
		fputs("<div class=\"row\">", o);
		grid_cell(o, r, f->pt[rd].name, "read");
		grid_cell(o, r, f->pt[wr].name, "write");
		fputs("</div>\n", o);
	}
	fputs("</div>\n", o);
	return (int)rows;
}

int rp_table_curve_peaks(FILE *o, const struct rp_report *r)
{
	static const char *const h[] = { "profile",
					 "drive",
					 "peak IOPS",
					 "at (of the max)",
					 "mean latency us",
					 "unthrottled IOPS",
					 "its mean latency us" };
	bool *done = calloc(r->ncells + 1, sizeof(bool));
	int rows = 0;

	if (!done)
		return 0;
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c0 = &r->cells[i];
		const struct rp_cell *peak = NULL, *max = NULL;

		if (done[i] || !rp_is_curve(c0->pt))
			continue;
		/* one drive's curve: the cells of its family and its drive */
		for (size_t k = i; k < r->ncells; k++) {
			const struct rp_cell *c = &r->cells[k];

			if (done[k] || c->dr != c0->dr || !rp_is_curve(c->pt) ||
			    !same_family(c0->pt, c->pt, true))
				continue;
			done[k] = true;
			if (!c->res || rb_row_status(c->res) != RB_STATUS_OK)
				continue;
			if (c->pt->curve_pct == 0)
				max = c;
			else if (!peak || c->iops > peak->iops)
				peak = c;
		}
		if (!peak && !max)
			continue;
		if (!rows++) {
			fputs("<h2 data-section=\"curve-peaks\">Peak of each curve</h2>\n<p "
			      "class=\"note\">vdbench's reading: the curve's highest IOPS among its "
			      "rates and the mean latency there; the unthrottled run that found the "
			      "maximum is shown apart, not as a point of the curve.</p>\n"
			      "<table class=\"peaks\">",
			      o);
			fputs("<thead><tr>", o);
			for (size_t k = 0; k < sizeof(h) / sizeof(h[0]); k++)
				fprintf(o, "<th>%s</th>", h[k]);
			fputs("</tr></thead>\n", o);
		}
		fputs("<tr><td>", o);
		rp_esc(o, c0->pt->phase);
		fprintf(o, " %s", c0->pt->rw);
		fputs("</td><td>", o);
		rp_esc(o, c0->label);
		if (peak)
			fprintf(o,
				"</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f%%</td>"
				"<td class=\"n\">%.1f</td>",
				peak->iops, peak->pt->curve_pct,
				reads(peak) ? peak->rd_mean_us : peak->wr_mean_us);
		else
			fputs("</td><td>-</td><td>-</td><td>-</td>", o);
		if (max)
			fprintf(o, "<td class=\"n unthrottled\">%.0f</td><td class=\"n\">%.1f</td>",
				max->iops, reads(max) ? max->rd_mean_us : max->wr_mean_us);
		else
			fputs("<td>-</td><td>-</td>", o);
		fputs("</tr>\n", o);
	}
	if (rows)
		fputs("</table>\n", o);
	free(done);
	return rows;
}

void rp_chart_point_bars(FILE *o, const struct rp_report *r)
{
	size_t drives = 0;
	struct rp_bar *b;
	bool *done;

	fputs("<h2>Each point, drive by drive</h2>\n", o);
	for (size_t fi = 0; fi < r->nfiles; fi++)
		drives += r->files[fi].nd;
	if (drives > MAX_BARS) {
		fprintf(o,
			"<p class=\"note\">%zu drives: per-drive bars are left out; the model "
			"table and the point table below have every drive.</p>\n",
			drives);
		return;
	}
	b = calloc(r->ncells + 1, sizeof(*b));
	done = calloc(r->ncells + 1, sizeof(bool));
	for (size_t i = 0; b && done && i < r->ncells; i++) {
		bool mbps = rp_point_metric(r->cells[i].pt) == RP_MBPS;
		enum rp_metric app;
		/* an application's point: its own figure (TPS, seconds per checkpoint) */
		bool is_app = rp_app_metric(r, r->cells[i].pt, &app);
		const char *what = is_app ? (app == RP_TPS	  ? "TPS"
					     : app == RP_APP_IOPS ? "IOPS (the command's)"
								  : "seconds per checkpoint")
				   : mbps ? "MB/s"
					  : "IOPS";
		char title[400];
		size_t n = 0;

		if (done[i])
			continue;
		for (size_t k = i; k < r->ncells; k++) {
			const struct rp_cell *c = &r->cells[k];

			if (done[k] || strcmp(c->pt->name, r->cells[i].pt->name))
				continue;
			done[k] = true;
			b[n++] = (struct rp_bar){ .name = c->label,
						  .colour = rp_cell_colour(r, c),
						  .v = is_app	? rp_app_value(r, c, app)
						       : c->res ? (mbps ? c->mbps : c->iops)
								: NAN,
						  .vs = is_app ? NAN : c->vs_base,
						  .outlier = !is_app && c->outlier };
		}
		snprintf(title, sizeof(title), "%s: %s%s", r->cells[i].pt->name, what,
			 r->baseline && !is_app
				 ? " (in brackets: the difference from the baseline drive)"
				 : "");
		rp_bars(o, is_app ? "appbars" : "bars", title, what, b, n, W);
	}
	free(b);
	free(done);
}
