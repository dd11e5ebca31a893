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

#include "report_charts.h"
#include "report_ckpt.h"
#include "report_exec.h"
#include "report_h2h.h"
#include "report_model.h"
#include "report_svg.h"
#include "units.h"

/* A latency cell: microseconds, or a dash for a direction that moved no IO (NAN). */
static void td_us(FILE *o, double v)
{
	if (isnan(v))
		fputs("<td class=\"n\">-</td>", o);
	else
		fprintf(o, "<td class=\"n\">%.1f</td>", v);
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
			struct rp_series *s = NULL;
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
					struct rp_series *x;
					double y;

					if (!c->res)
						continue;
					y = !strcmp(metric, "mbps") ? c->mbps
					    : !strcmp(metric, "mean_latency_us")
						    ? (c->res->read.ios ? c->rd_mean_us
									: c->wr_mean_us)
						    : c->iops;
					x = rp_series_for(&s, &ns, c->label, rp_cell_colour(r, c));
					if (x)
						rp_series_add(x, f->pt[p].round, y);
				}
			}
			snprintf(title, sizeof(title), "%s: the tracking point's %s per round",
				 phases[ph], metric);
			if (ns) {
				for (size_t k = 0; k < ns; k++)
					rp_series_sort(&s[k]);
				rp_line_chart(o, "steady", title, "round", metric, false, s, ns,
					      NULL, 0);
			}
			rp_series_free(s, ns);
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
					rp_esc(o, f->dr[d].agent);
					fputs(":", o);
					rp_esc(o, f->dr[d].id.path);
				}
			fputs("</td><td>", o);
			rp_esc(o, x->phase);
			fputs("</td><td>", o);
			rp_esc(o, x->metric);
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
				if (!last || x->core.start_ns >= last->core.start_ns)
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
			rp_esc(o, dr->agent);
			fputs("</td><td>", o);
			rp_esc(o, dr->id.path);
			fputs("</td><td>", o);
			rp_esc(o, dr->id.model);
			fputs("</td><td>", o);
			rp_esc(o, dr->id.serial);
			fputs("</td><td>", o);
			rp_esc(o, dr->id.firmware);
			fprintf(o, "</td><td class=\"n\">%s</td>",
				rb_fmt_size_human(dr->id.size_bytes, cap, sizeof(cap)));
			/* the state the drive was measured in: purge, then what was written since */
			if (last && last->core.purge_ns) {
				char when[40];
				time_t t = (time_t)(last->core.purge_ns / 1000000000LL);
				struct tm tm;

				gmtime_r(&t, &tm);
				strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
				fputs("<td>", o);
				rp_esc(o, last->purge_method);
				fprintf(o, ", %s</td>", when);
			} else {
				fputs("<td>none recorded</td>", o);
			}
			if (last && last->core.history_since_ns) {
				char b[32];

				fprintf(o, "<td>%s written%s, %llu passes</td>",
					rb_fmt_size_human(last->core.written_since_purge_bytes, b,
							  sizeof(b)),
					last->core.purge_ns ? " since" : " (no purge recorded)",
					(unsigned long long)last->core.fill_passes_since_purge);
			} else {
				fputs("<td>new to rackbench</td>", o);
			}
			fprintf(o, "<td class=\"n\">%s</td>",
				rb_fmt_size_human(written, wr, sizeof(wr)));
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
	static const char *const h[] = { "drives",	 "IOPS min",	 "IOPS median",
					 "IOPS max",	 "read p50 us",	 "read p99 us",
					 "write p50 us", "write p99 us", "outliers" };
	char by[64];

	/* a group is a model unless --by groups the drives otherwise (rp_cell_group) */
	rp_by_words(r, by, sizeof(by));
	fputs("<h2>Per ", o);
	rp_esc(o, by);
	fputs("</h2>\n<p class=\"note\">Latency percentiles of a group come from its drives' "
	      "histograms added bucket by bucket, never from averaged percentiles. Outlier rule: ",
	      o);
	rp_esc(o, RP_OUTLIER_RULE);
	fputs(".</p>\n<table class=\"models\"><thead><tr><th>point</th><th>", o);
	rp_esc(o, r->by == RP_BY_LABEL && r->by_label ? r->by_label : by);
	fputs("</th>", o);
	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		fprintf(o, "<th>%s</th>", h[i]);
	fputs("</tr></thead>\n", o);
	for (size_t g = 0; g < r->ngroups; g++) {
		const struct rp_group *G = &r->groups[g];

		fputs("<tr><td>", o);
		rp_esc(o, G->point);
		fputs("</td><td>", o);
		rp_esc(o, G->name);
		fprintf(o,
			"</td><td class=\"n\">%zu</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f"
			"</td><td class=\"n\">%.0f</td>",
			G->ndrives, G->iops_min, G->iops_med, G->iops_max);
		td_us(o, G->rd_p50_us);
		td_us(o, G->rd_p99_us);
		td_us(o, G->wr_p50_us);
		td_us(o, G->wr_p99_us);
		fprintf(o, "<td class=\"n%s\">%zu</td></tr>\n", G->noutliers ? " bad" : "",
			G->noutliers);
	}
	fputs("</table>\n", o);
	fputs("<ul class=\"outliers\">", o);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];

		if (!c->outlier)
			continue;
		fputs("<li class=\"outlier\" data-drive=\"", o);
		rp_esc(o, c->label);
		fputs("\">", o);
		rp_esc(o, c->label);
		fputs(" at ", o);
		rp_esc(o, c->pt->name);
		fprintf(o, ": %.0f IOPS against a model median of %.0f</li>\n", c->iops,
			r->groups[c->group].iops_med);
	}
	fputs("</ul>\n", o);
}

static void verdicts_table(FILE *o, const struct rp_report *r)
{
	static const char *const h[] = { "verdict", "claim",	"drive", "point",
					 "claimed", "measured", "share" };
	size_t fails = 0, nj = 0;

	rp_spec_counts(r, &fails, &nj);
	fprintf(o,
		"<h2>Against spec</h2>\n<p class=\"note\">Required: %.0f%% of each claim "
		"(for latencies: claimed / measured). %zu of %zu checks below it",
		r->require_pct, fails, r->nverdicts + r->nhchecks);
	if (nj)
		fprintf(o, "; %zu not judged: the qualification is incomplete", nj);
	fputs(".</p>\n<table class=\"spec\">", o);
	th(o, h, sizeof(h) / sizeof(h[0]));
	for (size_t i = 0; i < r->nverdicts; i++) {
		const struct rp_verdict *v = &r->verdicts[i];

		fprintf(o, "<tr class=\"%s\"><td>%s</td><td>",
			v->state == RP_PASS   ? "pass"
			: v->state == RP_FAIL ? "fail"
					      : "notjudged",
			rp_check_name(v->state));
		rp_esc(o, v->claim->name);
		fputs("</td><td>", o);
		rp_esc(o, v->cell->label);
		fputs("</td><td>", o);
		if (v->state == RP_NOT_JUDGED) {
			fputs("-</td><td colspan=\"3\">", o);
			rp_esc(o, v->why);
			fputs("</td></tr>\n", o);
			continue;
		}
		rp_esc(o, v->cell->pt->name);
		fprintf(o,
			"</td><td class=\"n\">%.6g %s</td><td class=\"n\">%.6g</td>"
			"<td class=\"n\">%.1f%%</td></tr>\n",
			v->claim->value, rp_metric_name(v->claim->metric), v->measured, v->pct);
	}
	/* a spec's health limits: a row per drive, over its whole run */
	for (size_t i = 0; i < r->nhchecks; i++) {
		const struct rp_health_check *c = &r->hchecks[i];

		fprintf(o, "<tr class=\"%s health\"><td>%s</td><td>health limits</td><td>",
			c->state == RP_PASS   ? "pass"
			: c->state == RP_FAIL ? "fail"
					      : "notjudged",
			rp_check_name(c->state));
		rp_esc(o, c->dr->agent);
		fputs(":", o);
		rp_esc(o, c->dr->id.path);
		fputs("</td><td>the whole run</td><td colspan=\"3\">", o);
		rp_esc(o, c->state == RP_PASS ? "within every limit" : c->reason);
		fputs("</td></tr>\n", o);
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
		rp_esc(o, F->verdict[0] ? F->verdict : "not judged");
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
				rp_esc(o, d ? d->agent : "?");
				fputs(":", o);
				rp_esc(o, d ? d->id.path : "?");
				fputs("</td><td>", o);
				rp_esc(o, d ? d->id.model : "");
				fputs("</td><td>", o);
				rp_esc(o, d ? d->id.serial : "");
				fputs("</td><td>", o);
				rp_esc(o, v->reason);
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

	/* the difference from the baseline: a column only when one was asked for */
	fputs("<h2>Every point</h2>\n<table class=\"results\">", o);
	th(o, h, sizeof(h) / sizeof(h[0]) - !r->baseline);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];

		fprintf(o, "<tr%s><td>", c->outlier ? " class=\"outlier\"" : "");
		rp_esc(o, c->pt->name);
		fputs("</td><td>", o);
		rp_esc(o, c->label);
		fputs("</td><td>", o);
		rp_esc(o, c->res ? c->res->status : "none");
		fprintf(o, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.1f</td>", c->iops,
			c->mbps);
		td_us(o, c->rd_mean_us);
		td_us(o, c->rd_p99_us);
		td_us(o, c->wr_mean_us);
		td_us(o, c->wr_p99_us);
		if (!r->baseline)
			fputs("</tr>\n", o);
		else if (isnan(c->vs_base))
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
	"#fff}.t{font-size:14px;font-weight:600}figcaption.t{margin:0 0 4px;overflow-wrap:anywhere}"
	".ax{font-size:11px;fill:#444}line.grid{stroke:#e5e5e5}"
	".legend{font-size:12px;margin-top:4px}.legend span{margin-right:14px;white-space:nowrap}"
	".legend svg{vertical-align:middle;margin-right:4px}table{border-"
	"collapse:collapse;font-size:12px;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 6px;"
	"text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:"
	"#f4f4f4}.bad,.fail td:first-child{color:#b00;font-weight:600}.notjudged td:first-child{color:#a60;font-weight:600}.pass td:first-child{color:"
	"#070}tr.outlier td{background:#fff0f0}.note{color:#555;font-size:13px}.warn{background:"
	"#fff6d5;padding:8px;border:1px solid #e8d48a}.val{font-size:11px;fill:#222}"
	".summary ul{margin:8px 0;padding-left:20px}.toc{font-size:13px;columns:2;margin:12px 0}"
	".toc ol{margin:4px 0}.tgrid .row{display:flex;gap:8px}.tgrid .cell{flex:1;min-width:0}"
	"table.h2h i{display:inline-block;width:10px;height:10px;margin-right:4px}"
	".vs{font-size:11px;color:#555}"
	"@media (prefers-color-scheme:dark){body{background:#161616;color:#ddd}th{background:"
	"#262626}td,th{border-color:#333}svg.chart{background:#fff}}";

/* The verdicts of every file's drives: counts of PASS, FAIL and INCOMPLETE. */
static void verdict_counts(const struct rp_report *r, size_t n[3])
{
	n[0] = n[1] = n[2] = 0;
	for (size_t fi = 0; fi < r->nfiles; fi++)
		for (size_t i = 0; i < r->files[fi].nvd; i++)
			if (!strcmp(r->files[fi].vd[i].rule, "drive"))
				n[verdict_rank(r->files[fi].vd[i].verdict)]++;
}

/* What ran, on what, and what stands out: the page's first words. */
static void summary(FILE *o, const struct rp_report *r)
{
	size_t drives = 0, points = 0, outliers = 0, errors = 0, fails = 0, v[3], shown = 0;

	for (size_t fi = 0; fi < r->nfiles; fi++) {
		drives += r->files[fi].nd;
		points += r->files[fi].np;
	}
	for (size_t i = 0; i < r->ncells; i++) {
		outliers += r->cells[i].outlier;
		errors += r->cells[i].res && rb_row_status(r->cells[i].res) != RB_STATUS_OK;
	}
	for (size_t i = 0; i < r->nverdicts; i++)
		fails += r->verdicts[i].state == RP_FAIL;
	verdict_counts(r, v);
	fprintf(o,
		"<section class=\"summary\" data-section=\"summary\"><ul>\n<li>%zu file(s), "
		"%zu point(s), %zu drive(s)",
		r->nfiles, points, drives);
	if (r->h2h && r->h2h->by == RP_BY_MODEL) {
		fprintf(o, " of %zu model(s): ", r->h2h->nsubj);
		for (size_t s = 0; s < r->h2h->nsubj; s++) {
			fputs(s ? ", " : "", o);
			rp_esc(o, r->h2h->subj[s]);
		}
	}
	fputs(".</li>\n", o);
	if (v[0] + v[1] + v[2])
		fprintf(o, "<li class=\"%s\">Verdicts: %zu PASS, %zu FAIL, %zu INCOMPLETE.</li>\n",
			v[0] ? "bad" : "", v[2], v[0], v[1]);
	if (r->nverdicts) {
		size_t nj = 0;

		for (size_t i = 0; i < r->nverdicts; i++)
			nj += r->verdicts[i].state == RP_NOT_JUDGED;
		fprintf(o, "<li class=\"%s\">Against spec: %zu of %zu checks below %.0f%%",
			fails || nj ? "bad" : "", fails, r->nverdicts, r->require_pct);
		if (nj)
			fprintf(o, "; %zu not judged (the qualification is incomplete)", nj);
		fputs(".</li>\n", o);
	}
	fails = 0;
	for (size_t i = 0; i < r->nhchecks; i++)
		fails += r->hchecks[i].state == RP_FAIL;
	if (r->nhchecks)
		fprintf(o, "<li class=\"%s\">Health limits: %zu of %zu drives beyond them.</li>\n",
			fails ? "bad" : "", fails, r->nhchecks);
	if (errors)
		fprintf(o,
			"<li class=\"bad\">%zu point and drive result(s) not ok (errors, lost, "
			"refused).</li>\n",
			errors);
	fprintf(o, "<li>Outliers: %zu", outliers);
	for (size_t i = 0; i < r->ncells && shown < 5; i++)
		if (r->cells[i].outlier) {
			fputs(shown++ ? "; " : ": ", o);
			rp_esc(o, r->cells[i].label);
			fputs(" at ", o);
			rp_esc(o, r->cells[i].pt->name);
		}
	fprintf(o, "%s.</li>\n", outliers > shown ? "; ..." : "");
	if (r->methodology_differs)
		fputs("<li class=\"warn\">These files ran different methodologies (their plan "
		      "hashes differ): points compare by name only.</li>\n",
		      o);
	fputs("</ul></section>\n", o);
}

/* The page's sections, in the order a reviewer reads them. */
static void body(FILE *o, const struct rp_report *r)
{
	rp_fleet_html(o, r);
	fleet_table(o, r);
	if (r->nclaims || r->nhealths)
		verdicts_table(o, r);
	if (r->h2h && r->h2h->nrows && r->h2h->nsubj <= MAX_LEGEND)
		rp_h2h_html(o, r->h2h);
	else if (r->h2h && r->h2h->nrows)
		fprintf(o,
			"<h2>Head to head</h2>\n<p class=\"note\">%zu columns are too many for a "
			"page: <code>rackbench report --wide --by model</code>, or "
			"<code>--format csv</code>.</p>\n",
			r->h2h->nsubj);
	rp_chart_test_grid(o, r);
	rp_chart_transfer_size(o, r);
	if (rp_chart_sweeps(o, r, false, "Throughput and latency against queue depth") == 0)
		fputs("<h2>Throughput and latency against queue depth</h2>\n<p class=\"note\">No "
		      "queue-depth sweep in these results.</p>\n",
		      o);
	rp_chart_sweeps(o, r, true, "Latency against IOPS (rate curves)");
	rp_table_curve_peaks(o, r);
	steady_section(o, r);
	rp_ckpt_html(o, r);
	rp_exec_html(o, r);
	fputs("<h2>Preconditioning</h2>\n", o);
	if (rp_chart_timeseries(o, r) == 0)
		fputs("<p class=\"note\">No preconditioning phase in these results.</p>\n", o);
	rp_chart_point_bars(o, r);
	if (rp_has_waf(r))
		rp_waf_chart(o, r);
	rp_fdp_events_html(o, r);
	rp_throttle_html(o, r);
	rp_devlat_html(o, r);
	rp_ocp_html(o, r);
	drives_table(o, r);
	models_table(o, r);
	results_table(o, r);
}

/*
 * The body with an id on each section heading, after a table of contents of them. The
 * headings are the sections' own words, already escaped.
 */
static void contents(FILE *o, const char *text)
{
	size_t n = 0;

	fputs("<nav class=\"toc\" data-section=\"toc\"><b>Contents</b><ol>\n", o);
	for (const char *p = strstr(text, "<h2"); p; p = strstr(p + 3, "<h2")) {
		const char *gt = strchr(p, '>'), *end = gt ? strstr(gt, "</h2>") : NULL;

		if (!end)
			break;
		fprintf(o, "<li><a href=\"#s%zu\">%.*s</a></li>\n", ++n, (int)(end - gt - 1),
			gt + 1);
	}
	fputs("</ol></nav>\n", o);
	n = 0;
	for (const char *p = text, *h; *p; p = h + 3) {
		h = strstr(p, "<h2");
		if (!h) {
			fputs(p, o);
			break;
		}
		fprintf(o, "%.*s<h2 id=\"s%zu\"", (int)(h - p), p, ++n);
	}
}

/*
 * What the page is of: one file's campaign; of several files, their campaigns, each
 * once, and how many runs ("qual-a, qual-b (3 runs)"), or past three campaigns only how
 * many ("12 runs of 5 campaigns").
 */
static void page_subject(FILE *o, const struct rp_report *r)
{
	size_t distinct = 0;

	for (size_t fi = 0; fi < r->nfiles; fi++) {
		size_t k = 0;

		while (k < fi && strcmp(r->files[k].campaign, r->files[fi].campaign))
			k++;
		distinct += k == fi;
	}
	if (distinct > 3) {
		fprintf(o, "%zu runs of %zu campaigns", r->nfiles, distinct);
		return;
	}
	for (size_t fi = 0, n = 0; fi < r->nfiles; fi++) {
		size_t k = 0;

		while (k < fi && strcmp(r->files[k].campaign, r->files[fi].campaign))
			k++;
		if (k < fi)
			continue;
		fputs(n++ ? ", " : "", o);
		rp_esc(o, r->files[fi].campaign[0] ? r->files[fi].campaign : "unnamed");
	}
	if (r->nfiles > 1)
		fprintf(o, " (%zu runs)", r->nfiles);
}

int rp_html(const struct rp_report *r, const char *path)
{
	char tmp[4096], *text = NULL;
	size_t len = 0;
	FILE *o, *b;
	int e;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	b = open_memstream(&text, &len);
	if (!b)
		return -ENOMEM;
	body(b, r);
	if (ferror(b) | fclose(b)) {
		free(text);
		return -ENOMEM;
	}
	o = fopen(tmp, "we");
	if (!o) {
		free(text);
		return -errno;
	}
	fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		   "<meta name=\"viewport\" content=\"width=device-width\">"
		   "<meta name=\"generator\" content=\"rackbench " RB_VERSION "\">"
		   "<title>rackbench: ");
	page_subject(o, r);
	fprintf(o, "</title><style>%s</style></head><body>\n<h1>rackbench report: ", css);
	page_subject(o, r);
	fputs("</h1>\n<ul class=\"files\">", o);
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		fprintf(o, "<li>#%zu <code>", fi + 1);
		rp_esc(o, r->files[fi].path);
		fputs("</code>: campaign ", o);
		rp_esc(o, r->files[fi].campaign);
		fputs(", status ", o);
		rp_esc(o, r->files[fi].status);
		fputs(", methodology <code>", o);
		rp_esc(o, r->files[fi].methodology[0] ? r->files[fi].methodology : "not recorded");
		fputs("</code></li>\n", o);
	}
	fputs("</ul>\n", o);
	summary(o, r);
	contents(o, text);
	free(text);
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
