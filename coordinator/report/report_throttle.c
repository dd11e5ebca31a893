// SPDX-License-Identifier: MIT
/*
 * Thermal throttling within points (report_model.h): a drive that throttles under the
 * rack's real airflow looks like a drive that got slower. For each drive and point whose
 * SMART thermal-throttling counters rose during it, the intervals that marks
 * (rb_throttled_intervals, the verdicts' rule): beside a throughput cliff, they say whether
 * the drive's cooling or its media made it.
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
