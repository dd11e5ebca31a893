// SPDX-License-Identifier: MIT
/*
 * Write amplification per point (report_model.h): for drives with Flexible Data Placement,
 * the bytes the host wrote and the bytes the media wrote over each point (the endurance
 * group's FDP statistics, read before and after it) and their ratio, the WAF a placement
 * scheme is bought for.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_model.h"
#include "report_svg.h"

/* A row with FDP figures: read (not NaN) and the host wrote (an older file, whose missing
 * columns read as zeros, has none). */
static bool has_fdp(const struct rp_cell *c)
{
	return c->res && !isnan(c->res->fdp_host_bytes) && c->res->fdp_host_bytes > 0;
}

bool rp_has_waf(const struct rp_report *r)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (has_fdp(&r->cells[i]))
			return true;
	return false;
}

void rp_waf_text(const struct rp_report *r, bool md)
{
	printf("\n%sWrite amplification (FDP statistics of the drive's endurance group over each "
	       "point)\n",
	       md ? "### " : "");
	printf("%s%-34s %-30s %14s %14s %7s\n", md ? "| " : "", "point", "drive", "host MB",
	       "media MB", "WAF");
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];

		if (!has_fdp(c))
			continue;
		printf("%s%-34.34s %-30.30s %14.1f %14.1f %7.2f\n", md ? "| " : "", c->pt->name,
		       c->label, c->res->fdp_host_bytes / 1e6, c->res->fdp_media_bytes / 1e6,
		       c->res->waf);
	}
}

void rp_waf_chart(FILE *o, const struct rp_report *r)
{
	struct rp_bar *b = calloc(r->ncells + 1, sizeof(*b));
	bool *done = calloc(r->ncells + 1, sizeof(bool));

	fputs("<h2 data-section=\"waf\">Write amplification per point</h2>\n", o);
	for (size_t i = 0; b && done && i < r->ncells; i++) {
		char title[400];
		size_t n = 0;

		if (done[i] || !has_fdp(&r->cells[i]))
			continue;
		/* one chart a point: its drives' WAF, each the media bytes over the host's */
		for (size_t k = i; k < r->ncells; k++) {
			const struct rp_cell *c = &r->cells[k];

			if (done[k] || !has_fdp(c) || strcmp(c->pt->name, r->cells[i].pt->name))
				continue;
			done[k] = true;
			b[n++] = (struct rp_bar){ .name = c->label,
						  .colour = rp_cell_colour(r, c),
						  .v = c->res->waf,
						  .vs = NAN };
		}
		snprintf(title, sizeof(title),
			 "%s: WAF (media bytes per host byte, FDP statistics)",
			 r->cells[i].pt->name);
		rp_bars(o, "waf", title, "WAF", b, n, W);
	}
	free(b);
	free(done);
}
