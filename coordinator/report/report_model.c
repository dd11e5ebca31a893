// SPDX-License-Identifier: MIT
/*
 * The report's figures that both its outputs use (report_model.h): medians and the
 * outlier rule, a cell's metric, whether a point is a curve's maximum. Called by the
 * text report (report.c) and the HTML page (report_html.c); calls neither.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_model.h"
#include "results.h"
#include "units.h"

int rp_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

bool rp_is_outlier(double x, double median, double mad)
{
	double lim = fmax(3.5 * 1.4826 * mad, 0.10 * fabs(median));

	return fabs(x - median) > lim;
}

const char *rp_metric_name(enum rp_metric m)
{
	static const char *const n[] = { "mbps",     "iops", "mean_us",	 "p99_us",
					 "p99_9_us", "tps",  "app_iops", "s_per_checkpoint" };

	return n[m];
}

double rp_cell_metric(const struct rp_cell *c, enum rp_metric m)
{
	const struct rb_row_result *r = c->res;

	if (!r)
		return NAN;
	/* latency claims are about the direction the point does (reads when it reads) */
	const struct rb_row_dir *d = r->read.ios ? &r->read : &r->write;

	switch (m) {
	case RP_MBPS:
		return c->mbps;
	case RP_IOPS:
		return c->iops;
	case RP_MEAN_US:
		return d->ios ? d->lat_mean_ns / 1e3 : NAN;
	case RP_P99_US:
		return d->ios ? (double)d->lat_p99_ns / 1e3 : NAN;
	case RP_P99_9_US:
		return d->ios ? (double)d->lat_p99_9_ns / 1e3 : NAN;
	default: /* an application's: rp_exec_figure, rp_ckpt_seconds */
		return NAN;
	}
}

bool rp_cell_names(const struct rp_cell *c, const char *text)
{
	char where[340];

	snprintf(where, sizeof(where), "%s:%s", c->dr->agent, c->dr->id.path);
	return strstr(c->label, text) || strstr(where, text) ||
	       (c->dr->id.serial[0] && !strcmp(c->dr->id.serial, text));
}

enum rp_by rp_by_resolve(const struct rp_report *r, enum rp_by by)
{
	if (by != RP_BY_AUTO)
		return by;
	for (size_t i = 1; i < r->ncells; i++)
		if (strcmp(r->cells[i].model, r->cells[0].model))
			return RP_BY_MODEL;
	return r->nfiles > 1 ? RP_BY_FILE : RP_BY_DRIVE;
}

bool rp_label_value(const char *labels, const char *key, char *buf, size_t len)
{
	char v[256];

	/* KEY=VALUE among the agent's labels, K=V,K=V */
	if (rb_row_label(labels, key, v, sizeof(v))[0]) {
		snprintf(buf, len, "%s=%s", key, v);
		return true;
	}
	snprintf(buf, len, "no %s label", key);
	return false;
}

void rp_cell_subject(const struct rp_report *r, const struct rp_cell *c, enum rp_by by, char *buf,
		     size_t len)
{
	char cap[32];

	switch (by) {
	case RP_BY_MODEL:
		snprintf(buf, len, "%s", c->model);
		break;
	case RP_BY_FIRMWARE:
		snprintf(buf, len, "%s fw %s %s", c->model,
			 c->dr->id.firmware[0] ? c->dr->id.firmware : "?",
			 rb_fmt_size_human(c->dr->id.size_bytes, cap, sizeof(cap)));
		break;
	case RP_BY_FILE:
		snprintf(buf, len, "#%zu %s", c->file + 1, r->files[c->file].campaign);
		break;
	case RP_BY_LABEL:
		rp_label_value(c->dr->labels, r->by_label ? r->by_label : "", buf, len);
		break;
	default:
		snprintf(buf, len, "%s", c->label);
		break;
	}
}

void rp_cell_group(const struct rp_report *r, const struct rp_cell *c, char *buf, size_t len)
{
	/* a drive alone is no group to stand out from: its model is */
	rp_cell_subject(r, c, r->by == RP_BY_DRIVE || r->by == RP_BY_AUTO ? RP_BY_MODEL : r->by,
			buf, len);
}

const char *rp_by_words(const struct rp_report *r, char *buf, size_t len)
{
	switch (r->by) {
	case RP_BY_FIRMWARE:
		snprintf(buf, len, "model, firmware and capacity");
		break;
	case RP_BY_FILE:
		snprintf(buf, len, "file");
		break;
	case RP_BY_LABEL:
		snprintf(buf, len, "label %s", r->by_label ? r->by_label : "");
		break;
	default:
		snprintf(buf, len, "model");
		break;
	}
	return buf;
}

size_t rp_cell_colour(const struct rp_report *r, const struct rp_cell *c)
{
	const struct rp_file *f = &r->files[c->file];

	return f->drive0 + (size_t)(c->dr - f->dr);
}

enum rp_metric rp_point_metric(const struct rb_row_point *p)
{
	if (!p->bs_bytes) /* a block-size split */
		return RP_MBPS;
	if (!strcmp(p->rw, "replay"))
		return RP_IOPS;
	return strncmp(p->rw, "rand", 4) || p->bs_bytes >= 65536 ? RP_MBPS : RP_IOPS;
}

bool rp_is_curve(const struct rb_row_point *p)
{
	/* files before schema 5 have no curve_pct: 0 there, so the name decides the max */
	return p->curve_pct > 0 || (p->curve_pct == 0 && strstr(p->name, "curve=max"));
}

size_t rp_interval_rates(double *t_s, double *amount, size_t n, double nominal_s)
{
	size_t w = 0;

	for (size_t q = 0; nominal_s <= 0 && q < n; q++)
		nominal_s = fmax(nominal_s, t_s[q] - (q ? t_s[q - 1] : 0));
	for (size_t q = 0; q < n; q++) {
		bool short_one = t_s[q] - (q ? t_s[q - 1] : 0) < RP_SHORT_INTERVAL * nominal_s;

		if (short_one && w) { /* the interval before it ends where it ends */
			t_s[w - 1] = t_s[q];
			amount[w - 1] += amount[q];
			continue;
		}
		if (short_one && q + 1 < n) { /* the first: the next starts from 0 */
			amount[q + 1] += amount[q];
			continue;
		}
		t_s[w] = t_s[q];
		amount[w++] = amount[q];
	}
	for (size_t q = w; q-- > 0;) {
		double dt = t_s[q] - (q ? t_s[q - 1] : 0);

		amount[q] = dt > 0 ? amount[q] / dt : NAN;
	}
	return w;
}

long *rp_id_lut(const void *rows, size_t n, size_t rowsize, size_t *ret_n)
{
	uint32_t max = 0;
	long *lut;

	for (size_t i = 0; i < n; i++) {
		uint32_t id = *(const uint32_t *)((const char *)rows + i * rowsize);

		if (id > max)
			max = id;
	}
	if (max > 16 * n + 1024)
		return NULL;
	lut = malloc(((size_t)max + 1) * sizeof(*lut));
	if (!lut)
		return NULL;
	for (size_t i = 0; i <= max; i++)
		lut[i] = -1;
	for (size_t i = 0; i < n; i++)
		lut[*(const uint32_t *)((const char *)rows + i * rowsize)] = (long)i;
	*ret_n = (size_t)max + 1;
	return lut;
}

const char *rp_setting(const char *settings, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	buf[0] = '\0';
	for (const char *s = settings; s && *s;) {
		const char *end = strchr(s, ' ');
		size_t n = end ? (size_t)(end - s) : strlen(s);

		if (n > kl && !strncmp(s, key, kl) && s[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)(n - kl - 1), s + kl + 1);
			break;
		}
		s = end ? end + 1 : NULL;
	}
	return buf;
}

bool rp_is_size_based(const struct rb_row_point *p)
{
	char v[64];

	/* io_size and passes end a point by bytes moved (rb_workload_dump's keys); a point
	 * of a purge has no workload and is not measured */
	return (rp_setting(p->settings, "io_size", v, sizeof(v))[0] && strcmp(v, "0")) ||
	       (rp_setting(p->settings, "passes", v, sizeof(v))[0] && strcmp(v, "0")) ||
	       !strcmp(p->rw, "checkpoint") || !strcmp(p->rw, "exec");
}

bool rp_point_comparable(const struct rb_row_point *p)
{
	return !(p->rate_iops || (!isnan(p->curve_pct) && p->curve_pct > 0) || p->round ||
		 rp_is_size_based(p) || !p->rw[0]);
}
