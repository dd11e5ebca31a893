// SPDX-License-Identifier: MIT
#include "report_ckpt.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_svg.h"
#include "units.h"

/* One drive's checkpoints at one point, of its latest attempt. */
struct ckstat {
	unsigned n, nr;			 /* written, restored */
	double first, last, mean, max;	 /* seconds per checkpoint */
	double min_gib, rmean, rmin_gib; /* GiB/s at the slowest; restores' */
	uint64_t fs_bytes;		 /* the kept ones' blocks after the last */
};

bool rp_has_ckpts(const struct rp_report *r)
{
	for (size_t fi = 0; fi < r->nfiles; fi++)
		if (r->files[fi].nck)
			return true;
	return false;
}

/* Whether row x is cell c's (its file's drive, point and latest attempt). */
static bool of_cell(const struct rb_row_ckpt *x, const struct rp_cell *c)
{
	return c->res && x->drive == c->dr->drive && x->point == c->pt->point &&
	       x->attempt == c->res->attempt;
}

static bool stats(const struct rp_report *r, const struct rp_cell *c, struct ckstat *s)
{
	const struct rp_file *f = &r->files[c->file];
	double sum = 0, rsum = 0;

	memset(s, 0, sizeof(*s));
	s->min_gib = s->rmin_gib = INFINITY;
	for (size_t i = 0; i < f->nck; i++) {
		const struct rb_row_ckpt *x = &f->ck[i];
		double sec = (double)x->duration_ns / 1e9;

		if (!of_cell(x, c))
			continue;
		if (x->direction == 0) {
			s->nr++;
			rsum += sec;
			s->rmin_gib = fmin(s->rmin_gib, x->gib_per_s);
			continue;
		}
		if (!s->n++)
			s->first = sec;
		s->last = sec;
		s->max = fmax(s->max, sec);
		s->min_gib = fmin(s->min_gib, x->gib_per_s);
		s->fs_bytes = x->fs_bytes;
		sum += sec;
	}
	s->mean = s->n ? sum / s->n : 0;
	s->rmean = s->nr ? rsum / s->nr : 0;
	return s->n > 0;
}

double rp_ckpt_seconds(const struct rp_report *r, const struct rp_cell *c)
{
	struct ckstat s;

	return c->res && rb_row_status(c->res) == RB_STATUS_OK && stats(r, c, &s) ? s.mean : NAN;
}

void rp_ckpt_text(const struct rp_report *r, bool md)
{
	char b[32];

	printf("\n%scheckpoints (seconds per checkpoint: its slowest writer's; GiB/s: the "
	       "lowest)\n",
	       md ? "### " : "");
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];
		struct ckstat s;

		if (!stats(r, c, &s))
			continue;
		printf("%s%s %s: %u written: first %.3f s, mean %.3f s, last %.3f s, max %.3f s, "
		       "%.3f GiB/s",
		       md ? "- " : "", c->label, c->pt->name, s.n, s.first, s.mean, s.last, s.max,
		       s.min_gib);
		if (s.nr)
			printf("; %u restored: mean %.3f s, %.3f GiB/s", s.nr, s.rmean, s.rmin_gib);
		printf("; kept on the filesystem: %s\n",
		       rb_fmt_size_human(s.fs_bytes, b, sizeof(b)));
	}
}

/* A drive's seconds per checkpoint (writes, or restores dashed) into x. */
static void series_of(const struct rp_report *r, const struct rp_cell *c, int dir,
		      struct rp_series *x)
{
	const struct rp_file *f = &r->files[c->file];

	for (size_t i = 0; i < f->nck; i++)
		if (of_cell(&f->ck[i], c) && f->ck[i].direction == dir)
			rp_series_add(x, f->ck[i].checkpoint + 1.0,
				      (double)f->ck[i].duration_ns / 1e9);
	rp_series_sort(x);
}

/* One chart for the checkpoint point named like cell i's: every drive of every file. */
static void point_chart(FILE *o, const struct rp_report *r, size_t i, bool *done)
{
	struct rp_series *s = NULL;
	size_t ns = 0;
	char title[400], name[400];

	for (size_t k = i; k < r->ncells; k++) {
		const struct rp_cell *c = &r->cells[k];
		struct ckstat st;
		struct rp_series *x;

		if (done[k] || strcmp(c->pt->name, r->cells[i].pt->name))
			continue;
		done[k] = true;
		if (!stats(r, c, &st))
			continue;
		if ((x = rp_series_for(&s, &ns, c->label, rp_cell_colour(r, c))))
			series_of(r, c, 1, x);
		snprintf(name, sizeof(name), "%s restore", c->label);
		if (st.nr && (x = rp_series_for(&s, &ns, name, rp_cell_colour(r, c)))) {
			x->dashed = true;
			series_of(r, c, 0, x);
		}
	}
	snprintf(title, sizeof(title), "%s: seconds per checkpoint (restores dashed)",
		 r->cells[i].pt->name);
	if (ns)
		rp_line_chart(o, "checkpoints", title, "checkpoint", "seconds", false, s, ns, NULL,
			      0);
	rp_series_free(s, ns);
}

int rp_ckpt_html(FILE *o, const struct rp_report *r)
{
	bool *done;
	int charts = 0;

	if (!rp_has_ckpts(r) || !(done = calloc(r->ncells + 1, sizeof(bool))))
		return 0;
	fputs("<h2 data-section=\"checkpoints\">Checkpoints</h2>\n<p class=\"note\">A "
	      "checkpoint's time is its slowest writer's, from their common start to its last "
	      "fsync; its throughput the checkpoint's bytes over that time.</p>\n",
	      o);
	for (size_t i = 0; i < r->ncells; i++)
		if (!done[i] && !strcmp(r->cells[i].pt->rw, "checkpoint")) {
			point_chart(o, r, i, done);
			charts++;
		}
	fputs("<table class=\"ckpt\"><tr><th>drive</th><th>point</th><th>written</th>"
	      "<th>first s</th><th>mean s</th><th>last s</th><th>max s</th><th>min GiB/s</th>"
	      "<th>restored</th><th>restore mean s</th><th>restore min GiB/s</th></tr>\n",
	      o);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];
		struct ckstat s;

		if (!stats(r, c, &s))
			continue;
		fputs("<tr><td>", o);
		rp_esc(o, c->label);
		fputs("</td><td>", o);
		rp_esc(o, c->pt->name);
		fprintf(o,
			"</td><td>%u</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>"
			"<td>%.3f</td><td>%u</td><td>%.3f</td><td>%.3f</td></tr>\n",
			s.n, s.first, s.mean, s.last, s.max, s.min_gib, s.nr, s.rmean,
			s.nr ? s.rmin_gib : 0.0);
	}
	fputs("</table>\n", o);
	free(done);
	return charts;
}
