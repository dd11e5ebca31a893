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

#include "report_model.h"

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
