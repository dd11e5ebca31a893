// SPDX-License-Identifier: MIT
/*
 * Write amplification per point (report_model.h): for drives with Flexible Data Placement,
 * the bytes the host wrote and the bytes the media wrote over each point (the endurance
 * group's FDP statistics, read before and after it) and their ratio, the WAF a placement
 * scheme is bought for; and the FDP events the drives logged during each point.
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

/* ---- the FDP events drives logged during points ---- */

static const char *event_name(uint8_t type)
{
	switch (type) {
	case 0:
		return "reclaim unit not fully written";
	case 1:
		return "reclaim unit time limit exceeded";
	case 2:
		return "handles modified by a reset";
	case 3:
		return "invalid placement id";
	case 0x80:
		return "media reallocated";
	case 0x81:
		return "handle modified implicitly";
	default:
		return "vendor or reserved";
	}
}

/* The events of one type a drive logged during a point: how many, blocks, the pids. */
struct evsum {
	const struct rp_cell *c;
	uint8_t type;
	size_t n;
	uint64_t blocks;
	uint32_t pid[8]; /* the first ones, each once */
	unsigned npid;
	bool more; /* more pids than those */
};

static void add_pid(struct evsum *e, uint32_t pid)
{
	for (unsigned i = 0; i < e->npid; i++)
		if (e->pid[i] == pid)
			return;
	if (e->npid < sizeof(e->pid) / sizeof(e->pid[0]))
		e->pid[e->npid++] = pid;
	else
		e->more = true;
}

/* The pids as text: "5", "1,11", "-" none, "..." after the first eight. */
static const char *pids_text(const struct evsum *e, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < e->npid && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%u", i ? "," : "", e->pid[i]);
	if (e->more && n < len)
		snprintf(buf + n, len - n, ",...");
	return buf[0] ? buf : "-";
}

/* Every file's FDP events with a cell, summed by cell and type, into a new list. */
static size_t evsum_list(const struct rp_report *r, struct evsum **ret)
{
	size_t all = 0, m = 0;
	struct evsum *v;

	for (size_t fi = 0; fi < r->nfiles; fi++)
		all += r->files[fi].nfe;
	v = all ? calloc(all, sizeof(*v)) : NULL;
	for (size_t fi = 0; v && fi < r->nfiles; fi++) {
		const struct rp_file *f = &r->files[fi];
		size_t ndl = 0, npl = 0;
		long *dl = rp_id_lut(f->dr, f->nd, sizeof(*f->dr), &ndl);
		long *pl = rp_id_lut(f->pt, f->np, sizeof(*f->pt), &npl);

		for (size_t i = 0; i < f->nfe; i++) {
			const struct rb_row_fdp_event *x = &f->fe[i];
			const struct rp_cell *c =
				rp_row_cell(r, f, x->drive, x->point, x->attempt, dl, ndl, pl, npl);
			size_t j = 0;

			if (!c)
				continue;
			while (j < m && !(v[j].c == c && v[j].type == x->type))
				j++;
			if (j == m)
				v[m++] = (struct evsum){ .c = c, .type = x->type };
			v[j].n++;
			v[j].blocks += x->type == 0x80 ? x->nlbam : 0;
			if (x->flags & 1)
				add_pid(&v[j], x->pid);
		}
		free(dl);
		free(pl);
	}
	*ret = v;
	return m;
}

void rp_fdp_events_text(const struct rp_report *r, bool md)
{
	struct evsum *v;
	size_t m = evsum_list(r, &v);

	if (m) {
		printf("\n%sFDP events the drives logged during points\n", md ? "### " : "");
		printf("%s%-26s %-24s %-34s %6s %8s  %s\n", md ? "| " : "", "point", "drive",
		       "event", "count", "blocks", "placement ids");
	}
	for (size_t i = 0; i < m; i++) {
		char pids[128];

		printf("%s%-26.26s %-24.24s %-34s %6zu %8llu  %s\n", md ? "| " : "",
		       v[i].c->pt->name, v[i].c->label, event_name(v[i].type), v[i].n,
		       (unsigned long long)v[i].blocks, pids_text(&v[i], pids, sizeof(pids)));
	}
	free(v);
}

void rp_fdp_events_html(FILE *o, const struct rp_report *r)
{
	struct evsum *v;
	size_t m = evsum_list(r, &v);

	if (m)
		fputs("<h2 data-section=\"fdp-events\">FDP events during points</h2>\n<p "
		      "class=\"note\">What an FDP drive logged while each point ran (its events "
		      "logs, the host's and the controller's, read before and after it): reclaim "
		      "units written in part or past their time, invalid placement ids the "
		      "writes carried, media the drive reallocated.</p>\n<table "
		      "class=\"fdp-events\"><tr><th>point</th><th>drive</th><th>event</th>"
		      "<th>count</th><th>blocks</th><th>placement ids</th></tr>\n",
		      o);
	for (size_t i = 0; i < m; i++) {
		char pids[128];

		fputs("<tr><td>", o);
		rp_esc(o, v[i].c->pt->name);
		fputs("</td><td>", o);
		rp_esc(o, v[i].c->label);
		fprintf(o,
			"</td><td>%s</td><td class=\"n\">%zu</td><td class=\"n\">%llu</td>"
			"<td>%s</td></tr>\n",
			event_name(v[i].type), v[i].n, (unsigned long long)v[i].blocks,
			pids_text(&v[i], pids, sizeof(pids)));
	}
	if (m)
		fputs("</table>\n", o);
	free(v);
}
