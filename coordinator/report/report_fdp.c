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

/* A row with OCP C0h's media bytes and bytes written to the drive (not FDP's: those first). */
static bool has_ocp(const struct rp_cell *c)
{
	/* a file before schema 13 reads the columns as zeros: no media bytes, no row */
	return c->res && !has_fdp(c) && !isnan(c->res->ocp_waf) && c->res->ocp_media_bytes > 0 &&
	       c->res->health_write_bytes > 0;
}

/* A cell's WAF and its two byte counts, from FDP's statistics or else OCP C0h's. */
static double cell_waf(const struct rp_cell *c, double *host, double *media, const char **src)
{
	if (has_fdp(c)) {
		*host = c->res->fdp_host_bytes;
		*media = c->res->fdp_media_bytes;
		*src = "FDP";
		return c->res->waf;
	}
	*host = (double)c->res->health_write_bytes;
	*media = c->res->ocp_media_bytes;
	*src = "OCP C0h";
	return c->res->ocp_waf;
}

bool rp_has_waf(const struct rp_report *r)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (has_fdp(&r->cells[i]) || has_ocp(&r->cells[i]))
			return true;
	return false;
}

void rp_waf_text(const struct rp_report *r, bool md)
{
	printf("\n%sWrite amplification (FDP statistics of the drive's endurance group over each "
	       "point; else OCP C0h's media bytes over the bytes written to the drive)\n",
	       md ? "### " : "");
	printf("%s%-34s %-30s %14s %14s %7s  %s\n", md ? "| " : "", "point", "drive", "host MB",
	       "media MB", "WAF", "from");
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];
		double host, media, waf;
		const char *src;

		if (!has_fdp(c) && !has_ocp(c))
			continue;
		waf = cell_waf(c, &host, &media, &src);
		printf("%s%-34.34s %-30.30s %14.1f %14.1f %7.2f  %s\n", md ? "| " : "", c->pt->name,
		       c->label, host / 1e6, media / 1e6, waf, src);
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

		if (done[i] || (!has_fdp(&r->cells[i]) && !has_ocp(&r->cells[i])))
			continue;
		/* one chart a point: its drives' WAF, each the media bytes over the host's */
		for (size_t k = i; k < r->ncells; k++) {
			const struct rp_cell *c = &r->cells[k];

			double host, media;
			const char *src;

			if (done[k] || (!has_fdp(c) && !has_ocp(c)) ||
			    strcmp(c->pt->name, r->cells[i].pt->name))
				continue;
			done[k] = true;
			b[n++] = (struct rp_bar){ .name = c->label,
						  .colour = rp_cell_colour(r, c),
						  .v = cell_waf(c, &host, &media, &src),
						  .vs = NAN };
		}
		snprintf(title, sizeof(title),
			 "%s: WAF (media bytes per host byte, FDP statistics or OCP C0h)",
			 r->cells[i].pt->name);
		rp_bars(o, "waf", title, "WAF", b, n, W);
	}
	free(b);
	free(done);
}
