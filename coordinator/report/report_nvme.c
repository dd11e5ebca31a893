// SPDX-License-Identifier: MIT
/*
 * What the drive says of itself, beside the host's measurement (report_model.h):
 * - thermal throttling within points: a drive that throttles under the rack's real airflow
 *   looks like a drive that got slower. For each drive and point whose SMART throttling
 *   counters rose during it, the intervals that marks (rb_throttled_intervals, the
 *   verdicts' rule): beside a throughput cliff, they say whether its cooling or its media
 *   made it;
 * - an OCP drive's own latency buckets (Latency Monitor C3h) over each point beside the
 *   host's IOs in the same ranges: slow IOs the host saw and the drive did not were slow
 *   above the drive (the host's stack, the PCIe path, contention);
 * - an OCP drive's own counters over each point (SMART / Health Information Extended,
 *   C0h): throttle events beside SMART's throttling counters, PCIe correctable errors
 *   beside the host's AER count, link retrains, power state changes. Two witnesses that
 *   disagree are named: one of them is not counting what the other sees.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_model.h"
#include "report_svg.h"
#include "verdict.h"

/*
 * Cell c's throttled intervals as text into buf, and how many intervals the point had;
 * 0 when none was throttled (or the drive has no SMART readings of the point).
 */
static size_t cell_throttled(const struct rp_report *r, const struct rp_cell *c, char *buf,
			     size_t len, size_t *ret_n)
{
	const struct rp_file *f = &r->files[c->file];
	size_t n = 0, marked = 0;
	int64_t *ends;
	bool *mark;

	buf[0] = '\0';
	*ret_n = 0;
	if (!c->res || !f->nhe)
		return 0;
	/* a point has no more intervals than the file has samples (a damaged row has) */
	for (size_t k = 0; k < f->nsm; k++) {
		const struct rb_row_sample *s = &f->sm[k];

		if (s->drive == c->dr->drive && s->point == c->pt->point &&
		    s->attempt == c->res->attempt && s->interval < f->nsm &&
		    (size_t)s->interval + 1 > n)
			n = (size_t)s->interval + 1;
	}
	ends = calloc(n + 1, sizeof(*ends));
	mark = calloc(n + 1, sizeof(*mark));
	for (size_t k = 0; ends && mark && k < f->nsm; k++) {
		const struct rb_row_sample *s = &f->sm[k];

		/* a sample's time is its interval's end; directions share it */
		if (s->drive == c->dr->drive && s->point == c->pt->point &&
		    s->attempt == c->res->attempt && s->interval < n && s->t_ns > ends[s->interval])
			ends[s->interval] = s->t_ns;
	}
	if (ends && mark && n)
		marked = rb_throttled_intervals(f->he, f->nhe, c->dr->drive, c->pt->point,
						c->res->attempt, c->res->core.start_ns, ends, n,
						mark);
	if (marked)
		rb_intervals_text(mark, n, buf, len);
	free(ends);
	free(mark);
	*ret_n = n;
	return marked;
}

/*
 * Which cells' drives throttled during the point: one pass over each file's health rows,
 * two consecutive readings of a drive's point whose counters rose; NULL when none did (or
 * without memory). Only those cells are looked at interval by interval: a long burn-in's
 * samples are read once per throttled point, not once per point.
 */
static bool *hot_cells(const struct rp_report *r)
{
	bool *hot = calloc(r->ncells + 1, sizeof(*hot)), any = false;

	for (size_t fi = 0; hot && fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];
		const struct rb_row_health **last;
		uint32_t top = 0;

		for (size_t k = 0; k < f->nhe; k++)
			top = f->he[k].drive > top ? f->he[k].drive : top;
		last = f->nhe ? calloc((size_t)top + 1, sizeof(*last)) : NULL;
		for (size_t k = 0; last && k < f->nhe; k++) {
			const struct rb_row_health *x = &f->he[k], *p = last[x->drive];

			if (x->member || !x->h.nvme || isnan(x->h.throttle_transitions))
				continue;
			if (p && p->point == x->point && p->attempt == x->attempt &&
			    (x->h.throttle_transitions > p->h.throttle_transitions ||
			     x->h.throttle_seconds > p->h.throttle_seconds))
				for (size_t i = 0; i < r->ncells; i++) {
					const struct rp_cell *c = &r->cells[i];

					if (c->file == fi && c->res && c->dr->drive == x->drive &&
					    c->pt->point == x->point &&
					    c->res->attempt == x->attempt)
						any = hot[i] = true;
				}
			last[x->drive] = x;
		}
		free(last);
	}
	if (!any) {
		free(hot);
		return NULL;
	}
	return hot;
}

/* A drive and point that throttled: its cell, its marked intervals of how many, in words. */
struct throttled {
	const struct rp_cell *c;
	size_t k, n;
	char ivs[200];
};

/* Every cell whose drive throttled during the point, in cell order, into a new list. */
static size_t throttled_list(const struct rp_report *r, struct throttled **ret)
{
	bool *hot = hot_cells(r);
	struct throttled *v = hot ? calloc(r->ncells, sizeof(*v)) : NULL;
	size_t m = 0;

	for (size_t i = 0; v && i < r->ncells; i++) {
		struct throttled *t = &v[m];

		t->c = &r->cells[i];
		t->k = hot[i] ? cell_throttled(r, t->c, t->ivs, sizeof(t->ivs), &t->n) : 0;
		m += t->k > 0;
	}
	free(hot);
	*ret = v;
	return m;
}

void rp_throttle_text(const struct rp_report *r, bool md)
{
	struct throttled *v;
	size_t m = throttled_list(r, &v);

	if (m) {
		printf("\n%sThermal throttling within points (the intervals the drive's SMART "
		       "throttling counters rose in)\n",
		       md ? "### " : "");
		printf("%s%-34s %-30s %9s  %s\n", md ? "| " : "", "point", "drive", "intervals",
		       "throttled");
	}
	for (size_t i = 0; i < m; i++)
		printf("%s%-34.34s %-30.30s %4zu of %-3zu %s\n", md ? "| " : "", v[i].c->pt->name,
		       v[i].c->label, v[i].k, v[i].n, v[i].ivs);
	free(v);
}

void rp_throttle_html(FILE *o, const struct rp_report *r)
{
	struct throttled *v;
	size_t m = throttled_list(r, &v);

	if (m)
		fputs("<h2 data-section=\"throttling\">Thermal throttling within points</h2>\n"
		      "<p class=\"note\">The intervals in which the drive's SMART thermal "
		      "throttling counters rose (health read every sample interval marks each; a "
		      "longer <code>health_interval</code> marks the span between two readings). "
		      "A throughput cliff there is the drive's cooling, not its media.</p>\n<table "
		      "class=\"throttling\"><tr><th>point</th><th>drive</th><th>intervals</th>"
		      "<th>throttled</th></tr>\n",
		      o);
	for (size_t i = 0; i < m; i++) {
		fputs("<tr><td>", o);
		rp_esc(o, v[i].c->pt->name);
		fputs("</td><td>", o);
		rp_esc(o, v[i].c->label);
		fprintf(o, "</td><td class=\"n\">%zu of %zu</td><td>%s</td></tr>\n", v[i].k, v[i].n,
			v[i].ivs);
	}
	if (m)
		fputs("</table>\n", o);
	free(v);
}

/* A bucket's range in words: "5-10 ms", "at least 40 ms". */
static void range_text(const struct rb_row_devlat *d, char *buf, size_t len)
{
	if (d->to_ms)
		snprintf(buf, len, "%u-%u ms", d->from_ms, d->to_ms);
	else
		snprintf(buf, len, "at least %u ms", d->from_ms);
}

/* A device-latency row with its cell. */
struct devlat {
	const struct rp_cell *c;
	const struct rb_row_devlat *d;
};

/* Every file's device-latency rows that have a cell, into a new list; a file's rows find
 * their cells through its ids' rows. */
static size_t devlat_list(const struct rp_report *r, struct devlat **ret)
{
	size_t all = 0, m = 0;
	struct devlat *v;

	for (size_t fi = 0; fi < r->nfiles; fi++)
		all += r->files[fi].ndl;
	v = all ? calloc(all, sizeof(*v)) : NULL;
	for (size_t fi = 0; v && fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];
		size_t ndl = 0, npl = 0;
		long *dl = f->ndl ? rp_id_lut(f->dr, f->nd, sizeof(*f->dr), &ndl) : NULL;
		long *pl = f->ndl ? rp_id_lut(f->pt, f->np, sizeof(*f->pt), &npl) : NULL;

		for (size_t i = 0; i < f->ndl; i++) {
			const struct rb_row_devlat *d = &f->dl[i];

			v[m] = (struct devlat){ rp_row_cell(r, f, d->drive, d->point, d->attempt,
							    dl, ndl, pl, npl),
						d };
			m += v[m].c != NULL;
		}
		free(dl);
		free(pl);
	}
	*ret = v;
	return m;
}

void rp_devlat_text(const struct rp_report *r, bool md)
{
	struct devlat *v;
	size_t m = devlat_list(r, &v);

	if (m) {
		printf("\n%sThe drive's own latency (OCP latency monitor, C3h) beside the host's, "
		       "per point\n",
		       md ? "### " : "");
		printf("%s%-26s %-24s %-16s %10s %10s %10s %10s\n", md ? "| " : "", "point",
		       "drive", "bucket", "dev reads", "host reads", "dev writes", "host writes");
	}
	for (size_t i = 0; i < m; i++) {
		const struct rb_row_devlat *d = v[i].d;
		char range[48];

		range_text(d, range, sizeof(range));
		printf("%s%-26.26s %-24.24s %-16s %10llu %10llu %10llu %10llu\n", md ? "| " : "",
		       v[i].c->pt->name, v[i].c->label, range, (unsigned long long)d->reads,
		       (unsigned long long)d->host_reads, (unsigned long long)d->writes,
		       (unsigned long long)d->host_writes);
	}
	free(v);
}

void rp_devlat_html(FILE *o, const struct rp_report *r)
{
	struct devlat *v;
	size_t m = devlat_list(r, &v);

	if (m)
		fputs("<h2 data-section=\"device-latency\">The drive's own latency beside the "
		      "host's</h2>\n<p class=\"note\">An OCP drive counts its commands slower than "
		      "its thresholds in four buckets (latency monitor, log C3h, read before and "
		      "after each point); beside them, the IOs the host measured in the same "
		      "ranges. Slow IOs the host saw and the drive did not were slow above the "
		      "drive: the host's stack, the PCIe path, contention.</p>\n<table "
		      "class=\"device-latency\"><tr><th>point</th><th>drive</th><th>bucket</th>"
		      "<th>drive's reads</th><th>host's reads</th><th>drive's writes</th>"
		      "<th>host's writes</th></tr>\n",
		      o);
	for (size_t i = 0; i < m; i++) {
		const struct rb_row_devlat *d = v[i].d;
		char range[48];

		range_text(d, range, sizeof(range));
		fputs("<tr><td>", o);
		rp_esc(o, v[i].c->pt->name);
		fputs("</td><td>", o);
		rp_esc(o, v[i].c->label);
		fprintf(o,
			"</td><td>%s</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td "
			"class=\"n\">%llu</td><td class=\"n\">%llu</td></tr>\n",
			range, (unsigned long long)d->reads, (unsigned long long)d->host_reads,
			(unsigned long long)d->writes, (unsigned long long)d->host_writes);
	}
	if (m)
		fputs("</table>\n", o);
	free(v);
}

/* ---- the drive's own counters (OCP C0h) beside SMART's and the host's ---- */

/* A drive and point whose C0h counters rose (or whose witnesses disagree). */
struct ocprow {
	const struct rp_cell *c;
	const char *smart; /* SMART's throttling counters: "rose", "no", "-" not read */
	double aer;	   /* the host's AER correctable count's rise; NaN unknown */
	char note[200];	   /* the witnesses that disagree */
};

/*
 * What the other witnesses of each cell read, from one pass over each file's health rows
 * (a long burn-in's readings are read once, not once a cell): the first and last reading
 * of the host's AER correctable count, and whether SMART's throttling counters were read.
 */
struct witness {
	const struct rb_row_health *first, *last;
	bool smart;
};

static struct witness *witnesses(const struct rp_report *r)
{
	struct witness *w = calloc(r->ncells + 1, sizeof(*w));

	for (size_t fi = 0; w && fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];
		size_t ndl = 0, npl = 0;
		long *dl = f->nhe ? rp_id_lut(f->dr, f->nd, sizeof(*f->dr), &ndl) : NULL;
		long *pl = f->nhe ? rp_id_lut(f->pt, f->np, sizeof(*f->pt), &npl) : NULL;

		for (size_t k = 0; k < f->nhe; k++) {
			const struct rb_row_health *x = &f->he[k];
			const struct rp_cell *c =
				x->member ? NULL
					  : rp_row_cell(r, f, x->drive, x->point, x->attempt, dl,
							ndl, pl, npl);
			struct witness *e = c ? &w[c - r->cells] : NULL;

			if (!e)
				continue;
			e->smart |= x->h.nvme && !isnan(x->h.throttle_transitions);
			if (!x->h.pcie || !(x->h.aer_correctable >= 0)) /* negative or NaN */
				continue;
			if (!e->first || x->t_ns < e->first->t_ns)
				e->first = x;
			if (!e->last || x->t_ns >= e->last->t_ns)
				e->last = x;
		}
		free(dl);
		free(pl);
	}
	return w;
}

/* The rise of the host's AER correctable count over a cell's readings; NaN: unknown. */
static double aer_rise(const struct witness *e)
{
	const struct rb_row_health *a = e->first, *b = e->last;

	return a && b && a != b && b->h.aer_correctable >= a->h.aer_correctable
		       ? b->h.aer_correctable - a->h.aer_correctable
		       : NAN;
}

static void note_add(char *buf, size_t len, const char *what)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s", n ? "; " : "", what);
}

/* Whether the row says anything: a counter rose or fell, a level, a witness that saw. */
static bool ocp_worth(const struct rb_row_result *x, const struct ocprow *o)
{
	const double v[] = { x->ocp_throttle_events, x->ocp_pcie_correctable, x->ocp_link_retrains,
			     x->ocp_power_state_changes, x->ocp_throttle_status };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (isnan(v[i]) || v[i] > 0)
			return true;
	return o->note[0] != '\0';
}

/* The witnesses of row o that disagree, into its note. */
static void ocp_witness(const struct rb_row_result *x, struct ocprow *o)
{
	if (x->ocp_throttle_events > 0 && !strcmp(o->smart, "no"))
		note_add(o->note, sizeof(o->note), "SMART's throttling counters did not rise");
	if (x->ocp_throttle_events == 0 && !strcmp(o->smart, "rose"))
		note_add(o->note, sizeof(o->note), "C0h counted no throttle event");
	if (x->ocp_pcie_correctable > 0 && o->aer == 0)
		note_add(o->note, sizeof(o->note), "the host's AER counted no error");
	if (x->ocp_pcie_correctable == 0 && o->aer > 0)
		note_add(o->note, sizeof(o->note), "the drive counted no PCIe error");
}

/* Every cell whose drive's C0h was read (schema 14 on) and says something, into a list. */
static size_t ocp_list(const struct rp_report *r, struct ocprow **ret)
{
	bool *hot = hot_cells(r);
	struct witness *w = witnesses(r);
	struct ocprow *v = w ? calloc(r->ncells + 1, sizeof(*v)) : NULL;
	size_t m = 0;

	for (size_t i = 0; v && i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];
		const struct rp_file *f = &r->files[c->file];
		const struct rb_row_result *x = c->res;
		struct ocprow *o = &v[m];

		/* an older file reads the columns as zeros: not read */
		if (!x || f->schema < 14 || isnan(x->ocp_throttle_status))
			continue;
		*o = (struct ocprow){ .c = c, .aer = aer_rise(&w[i]) };
		o->smart = hot && hot[i] ? "rose" : w[i].smart ? "no" : "-";
		ocp_witness(x, o);
		m += ocp_worth(x, o);
	}
	free(hot);
	free(w);
	*ret = v;
	return m;
}

/* A counter as the tables print it: "-" when it fell (reset or wrapped) or is unknown. */
static void count_text(double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f", v);
}

/* Row o's counters as text: throttle events, PCIe errors, host AER, retrains, p-states. */
static void ocp_cols(const struct ocprow *o, char b[5][32])
{
	const struct rb_row_result *x = o->c->res;

	count_text(x->ocp_throttle_events, b[0], 32);
	count_text(x->ocp_pcie_correctable, b[1], 32);
	count_text(o->aer, b[2], 32);
	count_text(x->ocp_link_retrains, b[3], 32);
	count_text(x->ocp_power_state_changes, b[4], 32);
}

void rp_ocp_text(const struct rp_report *r, bool md)
{
	struct ocprow *v;
	size_t m = ocp_list(r, &v);

	if (m) {
		printf("\n%sThe drive's own counters over each point (OCP C0h) beside SMART's and "
		       "the host's AER\n",
		       md ? "### " : "");
		printf("%s%-26s %-24s %8s %5s %5s %8s %8s %8s %8s  %s\n", md ? "| " : "", "point",
		       "drive", "throttle", "SMART", "level", "PCIe err", "host AER", "retrains",
		       "p-states", "witnesses");
	}
	for (size_t i = 0; i < m; i++) {
		char b[5][32];

		ocp_cols(&v[i], b);
		printf("%s%-26.26s %-24.24s %8s %5s %5.0f %8s %8s %8s %8s  %s\n", md ? "| " : "",
		       v[i].c->pt->name, v[i].c->label, b[0], v[i].smart,
		       v[i].c->res->ocp_throttle_status, b[1], b[2], b[3], b[4],
		       v[i].note[0] ? v[i].note : "agree");
	}
	free(v);
}

void rp_ocp_html(FILE *o, const struct rp_report *r)
{
	struct ocprow *v;
	size_t m = ocp_list(r, &v);

	if (m)
		fputs("<h2 data-section=\"ocp-counters\">The drive's own counters over each "
		      "point</h2>\n<p class=\"note\">An OCP drive's SMART / Health Information "
		      "Extended log (C0h), read before and after each point: its thermal throttle "
		      "events beside its SMART throttling counters, its PCIe correctable errors "
		      "beside the host's AER count, its link retrains and power state changes, "
		      "and its throttle level at the point's end. Where two witnesses disagree, "
		      "one is not counting what the other sees. A dash: a counter that fell "
		      "(reset, wrapped) or was not read.</p>\n<table class=\"ocp-counters\"><tr>"
		      "<th>point</th><th>drive</th><th>throttle events</th><th>SMART "
		      "throttling</th><th>level at end</th><th>PCIe errors</th><th>host AER</th>"
		      "<th>link retrains</th><th>power state changes</th><th>witnesses</th></tr>\n",
		      o);
	for (size_t i = 0; i < m; i++) {
		char b[5][32];

		ocp_cols(&v[i], b);
		fputs("<tr><td>", o);
		rp_esc(o, v[i].c->pt->name);
		fputs("</td><td>", o);
		rp_esc(o, v[i].c->label);
		fprintf(o,
			"</td><td class=\"n\">%s</td><td>%s</td><td class=\"n\">%.0f</td><td "
			"class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td "
			"class=\"n\">%s</td><td>%s</td></tr>\n",
			b[0], v[i].smart, v[i].c->res->ocp_throttle_status, b[1], b[2], b[3], b[4],
			v[i].note[0] ? v[i].note : "agree");
	}
	if (m)
		fputs("</table>\n", o);
	free(v);
}
