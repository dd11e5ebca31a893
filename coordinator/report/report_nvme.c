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
 *   above the drive (the host's stack, the PCIe path, contention).
 */
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
	for (size_t k = 0; k < f->nsm; k++) {
		const struct rb_row_sample *s = &f->sm[k];

		if (s->drive == c->dr->drive && s->point == c->pt->point &&
		    s->attempt == c->res->attempt && s->interval + 1 > n)
			n = s->interval + 1;
	}
	ends = calloc(n + 1, sizeof(*ends));
	mark = calloc(n + 1, sizeof(*mark));
	for (size_t k = 0; ends && mark && k < f->nsm; k++) {
		const struct rb_row_sample *s = &f->sm[k];

		/* a sample's time is its interval's end; directions share it */
		if (s->drive == c->dr->drive && s->point == c->pt->point &&
		    s->attempt == c->res->attempt && s->t_ns > ends[s->interval])
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

void rp_throttle_text(const struct rp_report *r, bool md)
{
	bool head = false;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];
		char ivs[200];
		size_t n, k = cell_throttled(r, c, ivs, sizeof(ivs), &n);

		if (!k)
			continue;
		if (!head) {
			printf("\n%sThermal throttling within points (the intervals the drive's SMART "
			       "throttling counters rose in)\n",
			       md ? "### " : "");
			printf("%s%-34s %-30s %9s  %s\n", md ? "| " : "", "point", "drive",
			       "intervals", "throttled");
			head = true;
		}
		printf("%s%-34.34s %-30.30s %4zu of %-3zu %s\n", md ? "| " : "", c->pt->name,
		       c->label, k, n, ivs);
	}
}

void rp_throttle_html(FILE *o, const struct rp_report *r)
{
	bool head = false;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];
		char ivs[200];
		size_t n, k = cell_throttled(r, c, ivs, sizeof(ivs), &n);

		if (!k)
			continue;
		if (!head) {
			fputs("<h2 data-section=\"throttling\">Thermal throttling within points</h2>\n"
			      "<p class=\"note\">The intervals in which the drive's SMART thermal "
			      "throttling counters rose (health read every sample interval marks "
			      "each; a longer <code>health_interval</code> marks the span between "
			      "two readings). A throughput cliff there is the drive's cooling, not "
			      "its media.</p>\n<table class=\"throttling\"><tr><th>point</th>"
			      "<th>drive</th><th>intervals</th><th>throttled</th></tr>\n",
			      o);
			head = true;
		}
		fputs("<tr><td>", o);
		rp_esc(o, c->pt->name);
		fputs("</td><td>", o);
		rp_esc(o, c->label);
		fprintf(o, "</td><td class=\"n\">%zu of %zu</td><td>%s</td></tr>\n", k, n, ivs);
	}
	if (head)
		fputs("</table>\n", o);
}

/* A bucket's range in words: "5-10 ms", "at least 40 ms". */
static void range_text(const struct rb_row_devlat *d, char *buf, size_t len)
{
	if (d->to_ms)
		snprintf(buf, len, "%u-%u ms", d->from_ms, d->to_ms);
	else
		snprintf(buf, len, "at least %u ms", d->from_ms);
}

/* The row's cell: the file's drive and point it names (NULL: none). */
static const struct rp_cell *devlat_cell(const struct rp_report *r, size_t fi,
					 const struct rb_row_devlat *d)
{
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];

		if (c->file == fi && c->res && c->dr->drive == d->drive &&
		    c->pt->point == d->point && c->res->attempt == d->attempt)
			return c;
	}
	return NULL;
}

void rp_devlat_text(const struct rp_report *r, bool md)
{
	bool head = false;

	for (size_t fi = 0; fi < r->nfiles; fi++)
		for (size_t i = 0; i < r->files[fi].ndl; i++) {
			const struct rb_row_devlat *d = &r->files[fi].dl[i];
			const struct rp_cell *c = devlat_cell(r, fi, d);
			char range[48];

			if (!c)
				continue;
			if (!head) {
				printf("\n%sThe drive's own latency (OCP latency monitor, C3h) beside "
				       "the host's, per point\n",
				       md ? "### " : "");
				printf("%s%-26s %-24s %-16s %10s %10s %10s %10s\n", md ? "| " : "",
				       "point", "drive", "bucket", "dev reads", "host reads",
				       "dev writes", "host writes");
				head = true;
			}
			range_text(d, range, sizeof(range));
			printf("%s%-26.26s %-24.24s %-16s %10llu %10llu %10llu %10llu\n",
			       md ? "| " : "", c->pt->name, c->label, range,
			       (unsigned long long)d->reads, (unsigned long long)d->host_reads,
			       (unsigned long long)d->writes, (unsigned long long)d->host_writes);
		}
}

void rp_devlat_html(FILE *o, const struct rp_report *r)
{
	bool head = false;

	for (size_t fi = 0; fi < r->nfiles; fi++)
		for (size_t i = 0; i < r->files[fi].ndl; i++) {
			const struct rb_row_devlat *d = &r->files[fi].dl[i];
			const struct rp_cell *c = devlat_cell(r, fi, d);
			char range[48];

			if (!c)
				continue;
			if (!head) {
				fputs("<h2 data-section=\"device-latency\">The drive's own latency "
				      "beside the host's</h2>\n<p class=\"note\">An OCP drive counts "
				      "its commands slower than its thresholds in four buckets (latency "
				      "monitor, log C3h, read before and after each point); beside them, "
				      "the IOs the host measured in the same ranges. Slow IOs the host "
				      "saw and the drive did not were slow above the drive: the host's "
				      "stack, the PCIe path, contention.</p>\n<table "
				      "class=\"device-latency\"><tr><th>point</th><th>drive</th>"
				      "<th>bucket</th><th>drive's reads</th><th>host's reads</th>"
				      "<th>drive's writes</th><th>host's writes</th></tr>\n",
				      o);
				head = true;
			}
			range_text(d, range, sizeof(range));
			fputs("<tr><td>", o);
			rp_esc(o, c->pt->name);
			fputs("</td><td>", o);
			rp_esc(o, c->label);
			fprintf(o,
				"</td><td>%s</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
				"<td class=\"n\">%llu</td><td class=\"n\">%llu</td></tr>\n",
				range, (unsigned long long)d->reads,
				(unsigned long long)d->host_reads, (unsigned long long)d->writes,
				(unsigned long long)d->host_writes);
		}
	if (head)
		fputs("</table>\n", o);
}
