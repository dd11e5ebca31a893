// SPDX-License-Identifier: MIT
/*
 * The IO paths side by side (report_model.h): a drive's points that differ in their engine
 * alone -- io_uring through the block layer (uring) and NVMe passthrough (uring_cmd) -- in
 * one table, each with its IOPS, latency and what it cost in CPU: microseconds of CPU per
 * IO and IOs per CPU-second (the drive's jobs' user and system time over the point).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report_model.h"

/* Whether two points' settings are the same but for their engines. */
static bool same_but_engine(const char *x, const char *y)
{
	for (;;) {
		size_t lx, ly;

		while (*x == ' ' || !strncmp(x, "engine=", 7))
			x += *x == ' ' ? 1 : strcspn(x, " ");
		while (*y == ' ' || !strncmp(y, "engine=", 7))
			y += *y == ' ' ? 1 : strcspn(y, " ");
		if (!*x || !*y)
			return !*x && !*y;
		lx = strcspn(x, " ");
		ly = strcspn(y, " ");
		if (lx != ly || strncmp(x, y, lx))
			return false;
		x += lx;
		y += ly;
	}
}

/* The passthrough cell that pairs with block cell c (same file, drive, settings); NULL. */
static const struct rp_cell *pair_of(const struct rp_report *r, const struct rp_cell *c)
{
	if (!c->res || strcmp(c->pt->engine, "uring"))
		return NULL;
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *o = &r->cells[i];

		if (o->res && o->file == c->file && o->dr == c->dr &&
		    !strcmp(o->pt->engine, "uring_cmd") &&
		    same_but_engine(c->pt->settings, o->pt->settings))
			return o;
	}
	return NULL;
}

bool rp_has_paths(const struct rp_report *r)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (pair_of(r, &r->cells[i]))
			return true;
	return false;
}

/* The CPU a cell's IOs took: microseconds per IO, and IOs per CPU-second. NAN: unknown. */
static void cpu_of(const struct rp_cell *c, double *us_per_io, double *ios_per_cpu_s)
{
	double cpu = (c->res->core.cpu_usr_pct + c->res->core.cpu_sys_pct) / 100;

	*us_per_io = c->iops > 0 && cpu > 0 ? cpu / c->iops * 1e6 : NAN;
	*ios_per_cpu_s = c->iops > 0 && cpu > 0 ? c->iops / cpu : NAN;
}

static void row(const struct rp_cell *c, const char *path, bool md)
{
	double us, per;
	const struct rb_row_dir *d = c->res->read.ios ? &c->res->read : &c->res->write;

	cpu_of(c, &us, &per);
	printf("%s%-34.34s %-30.30s %-12s %10.0f %9.1f %9.1f %8.2f %12.0f\n", md ? "| " : "",
	       c->pt->name, c->label, path, c->iops, (double)d->lat_p50_ns / 1e3,
	       (double)d->lat_p99_ns / 1e3, us, per);
}

void rp_paths_text(const struct rp_report *r, bool md)
{
	printf("\n%sIO paths: the block layer against NVMe passthrough, the same point on the "
	       "same drive\n",
	       md ? "### " : "");
	printf("%s%-34s %-30s %-12s %10s %9s %9s %8s %12s\n", md ? "| " : "", "point", "drive",
	       "path", "IOPS", "p50 us", "p99 us", "CPU us/IO", "IOs/CPU-s");
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i], *p = pair_of(r, c);
		double ub, pb, up, pp;

		if (!p)
			continue;
		row(c, "block", md);
		row(p, "passthrough", md);
		cpu_of(c, &ub, &pb);
		cpu_of(p, &up, &pp);
		printf("%s  passthrough: %+.1f%% IOPS, %+.1f%% IOs per CPU-second\n",
		       md ? "| " : "", c->iops > 0 ? (p->iops / c->iops - 1) * 100 : NAN,
		       pb > 0 && pp > 0 ? (pp / pb - 1) * 100 : NAN);
	}
}
