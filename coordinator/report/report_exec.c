// SPDX-License-Identifier: MIT
#include "report_exec.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "report_svg.h"

bool rp_has_execs(const struct rp_report *r)
{
	for (size_t fi = 0; fi < r->nfiles; fi++)
		if (r->files[fi].nex)
			return true;
	return false;
}

/* Cell c's exec row (its latest attempt), or NULL. */
static const struct rb_row_exec *exec_of(const struct rp_report *r, const struct rp_cell *c)
{
	const struct rp_file *f = &r->files[c->file];

	for (size_t i = 0; c->res && i < f->nex; i++)
		if (f->ex[i].drive == c->dr->drive && f->ex[i].point == c->pt->point &&
		    f->ex[i].attempt == c->res->attempt)
			return &f->ex[i];
	return NULL;
}

double rp_exec_figure(const struct rp_report *r, const struct rp_cell *c, enum rp_metric m)
{
	const struct rb_row_exec *x = exec_of(r, c);

	/* a command that failed or ran out of time measured no figure of the drive's */
	if (!x || x->exit_code || x->timed_out)
		return NAN;
	return m == RP_TPS ? x->tps : m == RP_APP_IOPS ? x->iops : NAN;
}

enum rp_metric rp_exec_metric(const struct rp_report *r, const struct rb_row_point *p)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].pt == p || !strcmp(r->cells[i].pt->name, p->name)) {
			const struct rb_row_exec *x = exec_of(r, &r->cells[i]);

			if (x && !isnan(x->tps))
				return RP_TPS;
		}
	return RP_APP_IOPS;
}

/* "616.78 TPS" style, or "-" when the parser did not read it. */
static const char *num(char *b, size_t len, double v, const char *unit)
{
	if (isnan(v))
		snprintf(b, len, "-");
	else
		snprintf(b, len, "%.2f%s%s", v, *unit ? " " : "", unit);
	return b;
}

void rp_exec_text(const struct rp_report *r, bool md)
{
	char a[32], b[32], c1[32], d[32];

	printf("\n%sapplications (exec phases: what each command's output said; the drive "
	       "meanwhile, from the kernel's counters)\n",
	       md ? "### " : "");
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];
		const struct rb_row_exec *x = exec_of(r, c);

		if (!x)
			continue;
		printf("%s%s %s: %s %s %lld%s after %.1f s: %s, %s, latency avg %s, p95 %s; the "
		       "drive: %.0f IOPS, %.1f MB/s\n",
		       md ? "- " : "", c->label, c->pt->name, x->command,
		       x->exit_code < 0 ? "killed by signal" : "exit",
		       (long long)(x->exit_code < 0 ? -x->exit_code : x->exit_code),
		       x->timed_out ? " (timed out)" : "", (double)x->duration_ns / 1e9,
		       num(a, sizeof(a), x->tps, "TPS"), num(b, sizeof(b), x->qps, "QPS"),
		       num(c1, sizeof(c1), x->lat_avg_ms, "ms"),
		       num(d, sizeof(d), x->lat_p95_ms, "ms"), c->iops, c->mbps);
	}
}

void rp_exec_html(FILE *o, const struct rp_report *r)
{
	char a[32], b[32], c1[32], d[32];

	if (!rp_has_execs(r))
		return;
	fputs("<h2 data-section=\"applications\">Applications</h2>\n<p class=\"note\">Each "
	      "drive's command (exec phases) as its output said, beside what the drive did "
	      "meanwhile by the kernel's counters.</p>\n<table class=\"exec\"><tr><th>drive</th>"
	      "<th>point</th><th>command</th><th>exit</th><th>seconds</th><th>TPS</th>"
	      "<th>QPS</th><th>latency avg</th><th>latency p95</th><th>drive IOPS</th>"
	      "<th>drive MB/s</th></tr>\n",
	      o);
	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *c = &r->cells[i];
		const struct rb_row_exec *x = exec_of(r, c);

		if (!x)
			continue;
		fputs("<tr><td>", o);
		rp_esc(o, c->label);
		fputs("</td><td>", o);
		rp_esc(o, c->pt->name);
		fputs("</td><td>", o);
		rp_esc(o, x->command);
		fprintf(o,
			"</td><td>%lld%s</td><td>%.1f</td><td>%s</td><td>%s</td><td>%s</td>"
			"<td>%s</td><td>%.0f</td><td>%.1f</td></tr>\n",
			(long long)x->exit_code, x->timed_out ? " (timed out)" : "",
			(double)x->duration_ns / 1e9, num(a, sizeof(a), x->tps, ""),
			num(b, sizeof(b), x->qps, ""), num(c1, sizeof(c1), x->lat_avg_ms, "ms"),
			num(d, sizeof(d), x->lat_p95_ms, "ms"), c->iops, c->mbps);
	}
	fputs("</table>\n", o);
}
