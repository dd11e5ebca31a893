// SPDX-License-Identifier: MIT
/*
 * `rackbench report`: results files as a table people compare drives by, in the
 * terminal, as Markdown, as CSV or as one self-contained HTML page; --baseline puts
 * every drive's IOPS against one drive at the same point ("drive A is N% faster than B
 * at QD x"), across files too. Drives of one model are merged by adding their
 * histograms, with outliers flagged by a stated rule; --spec compares against a
 * vendor's claims and exits 5 below --require.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "hist.h"
#include "log.h"
#include "report_ckpt.h"
#include "report_exec.h"
#include "report_h2h.h"
#include "report_model.h"
#include "verdict.h"
#include "units.h"
#include "grow.h"

enum fmt {
	FMT_TABLE = RB_REPORT_TABLE,
	FMT_MARKDOWN = RB_REPORT_MARKDOWN,
	FMT_CSV = RB_REPORT_CSV
};

static const char *const cols[] = { "file",
				    "point",
				    "drive",
				    "model",
				    "serial",
				    "status",
				    "iops",
				    "mb_s",
				    "read_mean_us",
				    "read_p99_us",
				    "write_mean_us",
				    "write_p99_us",
				    "vs_baseline_pct",
				    "outlier",
				    "alias" };

/* ---- loading ---- */

static void file_free(struct rp_file *f)
{
	free(f->ck);
	free(f->ex);
	free(f->ev);
	free(f->he);
	free(f->dl);
	free(f->fe);
	free(f->vd);
	free(f->ss);
	free(f->dr);
	free(f->pt);
	free(f->rs);
	free(f->sm);
	free(f->hi);
}

/* A root attribute that may be absent (""), but when present is one string. */
static int attr_opt(struct rb_results_in *in, const char *name, char *buf, size_t len)
{
	int r = rb_results_attr_get(in, name, buf, len);

	return r == -ENOENT ? 0 : r;
}

static int load_file(struct rp_file *f, const char *path)
{
	char err[512];
	struct rb_results_in *in = rb_results_open(path, err, sizeof(err));
	int r;

	memset(f, 0, sizeof(*f));
	f->path = path;
	if (!in) {
		rb_err("%s", err);
		return RB_EXIT_USAGE;
	}
	if (rb_results_schema(in) > RB_RESULTS_SCHEMA_VERSION)
		rb_warn("'%s' has schema_version %d, newer than this rackbench reads (%d): what "
			"the newer layout added is not shown",
			path, rb_results_schema(in), RB_RESULTS_SCHEMA_VERSION);
	f->schema = rb_results_schema(in);
	r = attr_opt(in, "methodology", f->methodology, sizeof(f->methodology));
	if (!r)
		r = attr_opt(in, "campaign_name", f->campaign, sizeof(f->campaign));
	if (!r)
		r = attr_opt(in, "status", f->status, sizeof(f->status));
	if (!r)
		r = rb_results_read_drives(in, &f->dr, &f->nd);
	if (!r)
		r = rb_results_read_points(in, &f->pt, &f->np);
	if (!r)
		r = rb_results_read_results(in, &f->rs, &f->nr);
	if (!r)
		r = rb_results_read_samples(in, &f->sm, &f->nsm);
	if (!r)
		r = rb_results_read_hists(in, &f->hi, &f->nhi);
	if (!r)
		r = rb_results_read_steady(in, &f->ss, &f->nss);
	if (!r)
		r = rb_results_read_verdicts(in, &f->vd, &f->nvd);
	if (!r)
		r = rb_results_read_ckpts(in, &f->ck, &f->nck);
	if (!r)
		r = rb_results_read_execs(in, &f->ex, &f->nex);
	if (!r)
		r = rb_results_read_evidence(in, &f->ev, &f->nev);
	if (!r)
		r = rb_results_read_devlat(in, &f->dl, &f->ndl);
	if (!r)
		r = rb_results_read_fdp_events(in, &f->fe, &f->nfe);
	if (!r)
		r = attr_opt(in, "verdict", f->verdict, sizeof(f->verdict));
	/* a spec's health limits judge the readings, and throttled intervals are marked */
	if (!r)
		r = rb_results_read_health(in, &f->he, &f->nhe);
	if (r) {
		rb_err("'%s': cannot report: %s", path,
		       r == -ENOMEM ? "out of memory" : rb_results_in_error(in));
		rb_results_in_close(in);
		file_free(f);
		memset(f, 0, sizeof(*f));
		f->path = path;
		return r == -EIO || r == -ENOMEM ? RB_EXIT_FAILED : RB_EXIT_USAGE;
	}
	rb_results_in_close(in);
	return 0;
}

/* Result rows in (point, drive, attempt, row) order, by index. */
static int cmp_result(const void *a, const void *b, void *arg)
{
	const struct rb_row_result *rs = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct rb_row_result *x = &rs[i], *y = &rs[j];

	if (x->point != y->point)
		return x->point < y->point ? -1 : 1;
	if (x->drive != y->drive)
		return x->drive < y->drive ? -1 : 1;
	if (x->attempt != y->attempt)
		return x->attempt < y->attempt ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* The latest attempt of point on drive (of equal attempts, the last row): the last of
 * its run in the sorted index ix, or NULL. */
static const struct rb_row_result *latest(const struct rb_row_result *rs, const size_t *ix,
					  size_t n, uint32_t point, uint32_t drive)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct rb_row_result *m = &rs[ix[mid]];

		if (m->point < point || (m->point == point && m->drive <= drive))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || rs[ix[lo - 1]].point != point || rs[ix[lo - 1]].drive != drive)
		return NULL;
	return &rs[ix[lo - 1]];
}

/*
 * One cell per (point, drive) of file fi. The results are looked up in a sorted index:
 * a scan of every row for every cell made a fleet's report (8000 drives, 100 points,
 * 800 000 rows) take hours, and so did a crafted file of a few kilobytes.
 */
static int add_cells(struct rp_report *r, size_t fi, size_t *cap)
{
	struct rp_file *f = &r->files[fi];
	size_t *ix = malloc((f->nr + 1) * sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	for (size_t k = 0; k < f->nr; k++)
		ix[k] = k;
	qsort_r(ix, f->nr, sizeof(*ix), cmp_result, f->rs);
	f->cell0 = r->ncells;
	f->drive0 = fi ? r->files[fi - 1].drive0 + r->files[fi - 1].nd : 0;
	for (size_t p = 0; p < f->np; p++) {
		for (size_t d = 0; d < f->nd; d++) {
			const struct rb_row_result *best =
				latest(f->rs, ix, f->nr, f->pt[p].point, f->dr[d].drive);
			struct rp_cell *c;

			if (RB_GROW(r->cells, *cap, r->ncells, 64)) {
				free(ix);
				return -ENOMEM;
			}
			c = &r->cells[r->ncells++];
			memset(c, 0, sizeof(*c));
			c->file = fi;
			c->pt = &f->pt[p];
			c->dr = &f->dr[d];
			c->res = best;
			c->vs_base = NAN;
			c->rd_mean_us = c->rd_p99_us = c->wr_mean_us = c->wr_p99_us = NAN;
			/* the campaign's alias for the drive, else where it is */
			if (c->dr->alias[0] && r->nfiles > 1)
				snprintf(c->label, sizeof(c->label), "#%zu %s", fi + 1,
					 c->dr->alias);
			else if (c->dr->alias[0])
				snprintf(c->label, sizeof(c->label), "%s", c->dr->alias);
			else if (r->nfiles > 1)
				snprintf(c->label, sizeof(c->label), "#%zu %s:%s", fi + 1,
					 c->dr->agent, c->dr->id.path);
			else
				snprintf(c->label, sizeof(c->label), "%s:%s", c->dr->agent,
					 c->dr->id.path);
			/* a volume is compared with volumes of its width and unit, never with
			 * single drives of its members' model */
			if (c->dr->members)
				snprintf(c->model, sizeof(c->model),
					 "%u x %s (volume, %llu KiB unit)", c->dr->members,
					 c->dr->id.model[0] ? c->dr->id.model : "?",
					 (unsigned long long)(c->dr->stripe_bytes >> 10));
			else
				snprintf(c->model, sizeof(c->model), "%s",
					 c->dr->id.model[0] ? c->dr->id.model : "(unknown model)");
			if (!best)
				continue;
			c->iops = best->read.iops + best->write.iops + best->trim.iops;
			c->mbps = (best->read.bw_bytes_per_s + best->write.bw_bytes_per_s +
				   best->trim.bw_bytes_per_s) /
				  1e6;
			/* a direction that moved no IO has no latency: NAN, shown as "-" */
			c->rd_mean_us = best->read.ios ? best->read.lat_mean_ns / 1e3 : NAN;
			c->rd_p99_us = best->read.ios ? (double)best->read.lat_p99_ns / 1e3 : NAN;
			c->wr_mean_us = best->write.ios ? best->write.lat_mean_ns / 1e3 : NAN;
			c->wr_p99_us = best->write.ios ? (double)best->write.lat_p99_ns / 1e3 : NAN;
		}
	}
	free(ix);
	return 0;
}

/* A cell whose drive ran the point to its end: a refused, lost or stopped one has no
 * figures to compare. */
static bool measured(const struct rp_cell *c)
{
	return c->res && rb_row_status(c->res) == RB_STATUS_OK;
}

/* Groups cells by (point name, group: rp_cell_group); medians, MAD and outliers per
 * group. */
static int make_groups(struct rp_report *r)
{
	double *v = malloc((r->ncells + 1) * sizeof(double));
	char name[sizeof(r->groups[0].name)];

	if (!v)
		return -ENOMEM;
	r->groups = calloc(r->ncells + 1, sizeof(*r->groups));
	if (!r->groups) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->ncells; i++) {
		struct rp_cell *c = &r->cells[i];
		size_t g;

		rp_cell_group(r, c, name, sizeof(name));
		for (g = 0; g < r->ngroups; g++)
			if (!strcmp(r->groups[g].point, c->pt->name) &&
			    !strcmp(r->groups[g].name, name))
				break;
		if (g == r->ngroups) {
			snprintf(r->groups[g].point, sizeof(r->groups[g].point), "%s", c->pt->name);
			snprintf(r->groups[g].name, sizeof(r->groups[g].name), "%s", name);
			r->ngroups++;
		}
		c->group = g;
	}
	for (size_t g = 0; g < r->ngroups; g++) {
		struct rp_group *G = &r->groups[g];
		size_t n = 0;

		for (size_t i = 0; i < r->ncells; i++)
			if (r->cells[i].group == g && measured(&r->cells[i]))
				v[n++] = r->cells[i].iops;
		G->ndrives = n;
		if (!n)
			continue;
		G->iops_med = rb_median(v, n);
		G->iops_min = v[0];
		G->iops_max = v[n - 1];
		for (size_t k = 0; k < n; k++)
			v[k] = fabs(v[k] - G->iops_med);
		G->mad = rb_median(v, n);
		/* with fewer than three drives there is no majority to stand out from */
		for (size_t i = 0; i < r->ncells && n >= 3; i++) {
			struct rp_cell *c = &r->cells[i];

			if (c->group == g && measured(c) &&
			    rp_is_outlier(c->iops, G->iops_med, G->mad)) {
				c->outlier = true;
				G->noutliers++;
			}
		}
	}
	free(v);
	return 0;
}

const struct rp_cell *rp_row_cell(const struct rp_report *r, const struct rp_file *f,
				  uint32_t drive, uint32_t point, uint32_t attempt, const long *dl,
				  size_t ndl, const long *pl, size_t npl)
{
	const struct rp_cell *c;

	if (!dl || !pl || drive >= ndl || point >= npl || dl[drive] < 0 || pl[point] < 0)
		return NULL;
	c = &r->cells[f->cell0 + (size_t)pl[point] * f->nd + (size_t)dl[drive]];
	return c->res && attempt == c->res->attempt ? c : NULL;
}

const struct rp_cell *rp_hist_cell(const struct rp_report *r, const struct rp_file *f,
				   const struct rb_row_hist *x, const long *dl, size_t ndl,
				   const long *pl, size_t npl)
{
	if (x->direction > 1 || x->bucket >= RB_HIST_BUCKETS)
		return NULL;
	return rp_row_cell(r, f, x->drive, x->point, x->attempt, dl, ndl, pl, npl);
}

/*
 * Per group and direction, the drives' histograms added bucket by bucket (every
 * interval of each drive's latest attempt); percentiles come from the sum.
 */
static int merge_hists(struct rp_report *r)
{
	struct rb_hist *h = calloc(r->ngroups * 2 + 1, sizeof(*h));
	int rc = 0;

	if (!h)
		return -ENOMEM;
	for (size_t fi = 0; fi < r->nfiles && !rc; fi++) {
		const struct rp_file *f = &r->files[fi];
		size_t nd_lut = 0, np_lut = 0;
		long *dl = rp_id_lut(f->dr, f->nd, sizeof(*f->dr), &nd_lut);
		long *pl = rp_id_lut(f->pt, f->np, sizeof(*f->pt), &np_lut);

		/* drive and point ids are rb_results' row numbers: anything else is not ours */
		if ((f->nd && !dl) || (f->np && !pl)) {
			rb_err("'%s': drive or point ids out of range", f->path);
			rc = -EINVAL;
		}
		for (size_t k = 0; k < f->nhi && !rc; k++) {
			const struct rb_row_hist *x = &f->hi[k];
			const struct rp_cell *c = rp_hist_cell(r, f, x, dl, nd_lut, pl, np_lut);

			if (!c)
				continue;
			h[c->group * 2 + x->direction].counts[x->bucket] += x->count;
			h[c->group * 2 + x->direction].total += x->count;
		}
		free(dl);
		free(pl);
	}
	for (size_t g = 0; g < r->ngroups; g++) {
		struct rp_group *G = &r->groups[g];

		double rd = h[2 * g].total ? 1e3 : NAN, wr = h[2 * g + 1].total ? 1e3 : NAN;

		/* NAN (shown as "-") for a direction none of the group's drives moved IO in */
		G->rd_p50_us = (double)rb_hist_percentile(&h[2 * g], 50) / rd;
		G->rd_p99_us = (double)rb_hist_percentile(&h[2 * g], 99) / rd;
		G->wr_p50_us = (double)rb_hist_percentile(&h[2 * g + 1], 50) / wr;
		G->wr_p99_us = (double)rb_hist_percentile(&h[2 * g + 1], 99) / wr;
	}
	free(h);
	return rc;
}

/* Each cell against the baseline drive's at its point; whether a drive matched. */
static bool apply_baseline(struct rp_report *r)
{
	bool found = false;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct rp_cell *b = NULL;

		/* the baseline's cell at the same point name */
		for (size_t k = 0; k < r->ncells && !b; k++)
			if (!strcmp(r->cells[k].pt->name, r->cells[i].pt->name) &&
			    rp_cell_names(&r->cells[k], r->baseline))
				b = &r->cells[k];
		if (b) {
			found = true;
			if (b->iops > 0 && r->cells[i].res)
				r->cells[i].vs_base =
					100.0 * (r->cells[i].iops - b->iops) / b->iops;
		}
	}
	return found;
}

/* ---- text outputs ---- */

/* A latency in microseconds, or for a direction that moved no IO (NAN) a dash; in CSV
 * nothing. */
static const char *us(double v, enum fmt f, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "%s", f == FMT_CSV ? "" : "-");
	else
		snprintf(buf, len, f == FMT_CSV ? "%.2f" : "%.1f", v);
	return buf;
}

/* A cell's row; base: a baseline was asked for, so its column is there. */
static void emit(enum fmt f, const struct rp_cell *l, bool multi, bool base)
{
	char vs[32], drive[40], u[4][32];
	const char *status = l->res ? l->res->status : "none";

	us(l->rd_mean_us, f, u[0], sizeof(u[0]));
	us(l->rd_p99_us, f, u[1], sizeof(u[1]));
	us(l->wr_mean_us, f, u[2], sizeof(u[2]));
	us(l->wr_p99_us, f, u[3], sizeof(u[3]));
	if (isnan(l->vs_base))
		snprintf(vs, sizeof(vs), "-");
	else
		snprintf(vs, sizeof(vs), "%+.1f", l->vs_base);
	switch (f) {
	case FMT_CSV:
		/* the CSV keeps its columns, empty where there is nothing */
		printf("#%zu,\"%s\",\"%s:%s\",\"%s\",\"%s\",%s,%.1f,%.2f,%s,%s,%s,%s,%s,%s,"
		       "\"%s\"\n",
		       l->file + 1, l->pt->name, l->dr->agent, l->dr->id.path, l->dr->id.model,
		       l->dr->id.serial, status, l->iops, l->mbps, u[0], u[1], u[2], u[3],
		       isnan(l->vs_base) ? "" : vs, l->outlier ? "yes" : "", l->dr->alias);
		break;
	case FMT_MARKDOWN:
		printf("| %s | %s | %s | %s%s | %.0f | %.1f | %s | %s | %s | %s |", l->pt->name,
		       l->label, l->dr->id.model, status, l->outlier ? ", outlier" : "", l->iops,
		       l->mbps, u[0], u[1], u[2], u[3]);
		printf(base ? " %s |\n" : "\n", vs);
		break;
	default: {
		/* a long drive name keeps its start and its end, where names differ */
		char d[340];

		if (l->dr->alias[0])
			snprintf(d, sizeof(d), "%s", l->dr->alias);
		else
			snprintf(d, sizeof(d), "%s:%s", l->dr->agent, l->dr->id.path);
		rb_fit_name(d, 30, drive, sizeof(drive));
		char file[16] = "";

		if (multi)
			snprintf(file, sizeof(file), "#%zu", l->file + 1);
		printf("%-3s %-34.34s %-30.30s %-8s %11.0f %9.1f %9s %9s %9s %9s", file,
		       l->pt->name, drive, status, l->iops, l->mbps, u[0], u[1], u[2], u[3]);
		if (base)
			printf(" %8s", vs);
		puts(l->outlier ? " outlier" : "");
		break;
	}
	}
}

/* The table's head; base: with the column of the difference from the baseline. */
static void header(enum fmt f, bool base)
{
	switch (f) {
	case FMT_CSV:
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			printf("%s%s", i ? "," : "", cols[i]);
		printf("\n");
		break;
	case FMT_MARKDOWN:
		printf("| point | drive | model | status | IOPS | MB/s | read mean us | read p99 us | "
		       "write mean us | write p99 us |%s\n"
		       "|---|---|---|---|--:|--:|--:|--:|--:|--:|%s\n",
		       base ? " vs baseline % |" : "", base ? "--:|" : "");
		break;
	default:
		printf("%-3s %-34s %-30s %-8s %11s %9s %9s %9s %9s %9s%s\n", "", "point", "drive",
		       "status", "IOPS", "MB/s", "rd mean", "rd p99", "wr mean", "wr p99",
		       base ? "  vs base" : "");
		printf("%-3s %-34s %-30s %-8s %11s %9s %9s %9s %9s %9s%s\n", "", "", "", "", "", "",
		       "us", "us", "us", "us", base ? "        %" : "");
		break;
	}
}

void rp_groups_table(const struct rp_report *r, int form)
{
	enum fmt f = (enum fmt)form;
	bool md = f == FMT_MARKDOWN;
	char by[64];

	/* a group is a model unless --by groups the drives otherwise (rp_cell_group) */
	rp_by_words(r, by, sizeof(by));
	printf("\n%sper %s (histograms added across drives; outliers: %s)\n", md ? "### " : "", by,
	       RP_OUTLIER_RULE);
	if (md)
		printf("\n| point | %s | drives | IOPS min | IOPS median | IOPS max | read p50 us | "
		       "read p99 us | write p50 us | write p99 us | outliers |\n"
		       "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
		       r->by == RP_BY_LABEL ? r->by_label : by);
	else
		printf("%-34s %-20s %6s %11s %11s %11s %9s %9s %9s %9s %8s\n", "point",
		       r->by == RP_BY_LABEL ? r->by_label : by, "drives", "IOPS min", "median",
		       "max", "rd p50", "rd p99", "wr p50", "wr p99", "outliers");
	for (size_t g = 0; g < r->ngroups; g++) {
		const struct rp_group *G = &r->groups[g];
		char u[4][32];

		us(G->rd_p50_us, f, u[0], sizeof(u[0]));
		us(G->rd_p99_us, f, u[1], sizeof(u[1]));
		us(G->wr_p50_us, f, u[2], sizeof(u[2]));
		us(G->wr_p99_us, f, u[3], sizeof(u[3]));
		printf(md ? "| %s | %s | %zu | %.0f | %.0f | %.0f | %s | %s | %s | %s | %zu |\n"
			  : "%-34.34s %-20.20s %6zu %11.0f %11.0f %11.0f %9s %9s %9s %9s %8zu\n",
		       G->point, G->name, G->ndrives, G->iops_min, G->iops_med, G->iops_max, u[0],
		       u[1], u[2], u[3], G->noutliers);
	}
}

static void models_text(const struct rp_report *r, enum fmt f)
{
	bool md = f == FMT_MARKDOWN;

	rp_groups_table(r, (int)f);
	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].outlier)
			printf("%soutlier: %s (%s) at %s: %.0f IOPS, %s median %.0f (%+.1f%%)\n",
			       md ? "- " : "", r->cells[i].label, r->groups[r->cells[i].group].name,
			       r->cells[i].pt->name, r->cells[i].iops,
			       r->by == RP_BY_LABEL || r->by == RP_BY_FILE ? "group" : "model",
			       r->groups[r->cells[i].group].iops_med,
			       100.0 * (r->cells[i].iops - r->groups[r->cells[i].group].iops_med) /
				       r->groups[r->cells[i].group].iops_med);
}

static void verdicts_text(const struct rp_report *r, enum fmt f)
{
	bool md = f == FMT_MARKDOWN;
	size_t fails = 0, nj = 0;

	printf("\n%sagainst spec (required: %.0f%% of each claim)\n", md ? "### " : "",
	       r->require_pct);
	for (size_t i = 0; i < r->nverdicts; i++) {
		const struct rp_verdict *v = &r->verdicts[i];
		bool lat = v->claim->metric >= RP_MEAN_US;

		fails += v->state == RP_FAIL;
		nj += v->state == RP_NOT_JUDGED;
		if (v->state == RP_NOT_JUDGED) {
			printf("%s%-10s %-28.28s %-30.30s %s\n", md ? "- " : "",
			       rp_check_name(v->state), v->claim->name, v->cell->label, v->why);
			continue;
		}
		printf("%s%-10s %-28.28s %-30.30s %-28.28s claimed %s%.1f %s, measured %.1f "
		       "(%.1f%%)\n",
		       md ? "- " : "", rp_check_name(v->state), v->claim->name, v->cell->label,
		       v->cell->pt->name, lat ? "<= " : "", v->claim->value,
		       rp_metric_name(v->claim->metric), v->measured, v->pct);
	}
	if (r->nverdicts)
		printf("%zu of %zu checks below %.0f%%%s", fails, r->nverdicts, r->require_pct,
		       nj ? "; " : "\n");
	if (nj)
		printf("%zu not judged: the qualification is incomplete\n", nj);
	fails = nj = 0;
	for (size_t i = 0; i < r->nhchecks; i++) {
		const struct rp_health_check *h = &r->hchecks[i];

		fails += h->state == RP_FAIL;
		nj += h->state == RP_NOT_JUDGED;
		printf("%s%-10s health %s:%s (%s)%s%s\n", md ? "- " : "", rp_check_name(h->state),
		       h->dr->agent, h->dr->id.path, h->spec->spec_file,
		       h->state == RP_PASS ? "" : ": ", h->reason);
	}
	if (r->nhealths)
		printf("%zu of %zu drives beyond their health limits\n", fails, r->nhchecks);
	if (r->nhealths && nj)
		printf("%zu drive(s) whose health was not judged (no SMART log)\n", nj);
}

static void steady_text(const struct rp_report *r, enum fmt f)
{
	bool md = f == FMT_MARKDOWN;

	printf("\n%ssteady state (SNIA PTS: over the window, max - min <= 20%% and |slope| x "
	       "(rounds - 1) <= 10%% of the average)\n",
	       md ? "### " : "");
	for (size_t fi = 0; fi < r->nfiles; fi++) {
		const struct rp_file *F = &r->files[fi];

		for (size_t i = 0; i < F->nss; i++) {
			const struct rb_row_steady *x = &F->ss[i];
			const struct rb_row_drive *d = NULL;

			for (size_t k = 0; k < F->nd; k++)
				if (F->dr[k].drive == x->drive)
					d = &F->dr[k];
			const char *unit = x->rolling ? "interval" : "round";
			const char *pname = "";

			for (size_t k = 0; x->rolling && k < F->np; k++)
				if (F->pt[k].point == x->point)
					pname = F->pt[k].name;
			printf("%s%s:%s %s %s: %s", md ? "- " : "", d ? d->agent : "?",
			       d ? d->id.path : "?", x->rolling ? "point" : "phase",
			       x->rolling ? pname : x->phase, x->steady ? "steady" : "NOT steady");
			if (x->steady)
				printf(" at %s %u (window %u-%u)", unit, x->steady_round,
				       x->steady_round + 1 - x->window, x->steady_round);
			else
				printf(" after %u %s(s)", x->rounds, unit);
			printf(": %s average %.6g, range %.6g, slope %.4g per round\n", x->metric,
			       x->avg, x->max - x->min, x->slope);
		}
	}
}

static const char *meth(const struct rp_file *f)
{
	return f->methodology[0] ? f->methodology : "none recorded";
}

/* The table of rows, or --wide's head-to-head one. */
static void tables(const struct rp_report *r, enum fmt f, bool wide)
{
	if (wide) {
		rp_h2h_text(r->h2h, f == FMT_CSV ? 2 : f == FMT_MARKDOWN ? 1 : 0, stdout);
		return;
	}
	header(f, r->baseline);
	for (size_t i = 0; i < r->ncells; i++)
		emit(f, &r->cells[i], r->nfiles > 1, r->baseline);
}

/* The spec files and the results files read, a cell per point and drive: 0 or the code. */
static int load(struct rp_report *r, const struct rb_report_args *a)
{
	size_t cap = 0;
	int rc;

	for (size_t i = 0; i < a->nspecs; i++)
		if ((rc = rp_load_spec(r, a->specs[i])))
			return rc;
	r->files = calloc(a->nfiles, sizeof(*r->files));
	if (!r->files)
		return RB_EXIT_FAILED;
	for (size_t fi = 0; fi < a->nfiles; fi++) {
		r->nfiles = fi + 1;
		if ((rc = load_file(&r->files[fi], a->files[fi])))
			return rc;
	}
	for (size_t fi = 0; fi < a->nfiles; fi++) {
		if (add_cells(r, fi, &cap))
			return RB_EXIT_FAILED;
		if (strcmp(r->files[fi].methodology, r->files[0].methodology)) {
			r->methodology_differs = true;
			rb_warn("#%zu '%s' ran another methodology (%s) than #1 (%s): its points "
				"compare by name only",
				fi + 1, a->files[fi], meth(&r->files[fi]), meth(&r->files[0]));
		}
	}
	return 0;
}

int rp_report_build(struct rp_report *r, const struct rb_report_args *a)
{
	int rc = load(r, a);

	if (rc)
		return rc;
	/* one grouping for the head-to-head, the per-model table and the outliers */
	r->by = rp_by_resolve(r, (enum rp_by)a->by);
	if (make_groups(r) || merge_hists(r) || rp_fleet_build(r))
		return RB_EXIT_FAILED;
	return 0;
}

void rp_report_free(struct rp_report *r)
{
	rp_fleet_free(r);
	for (size_t fi = 0; fi < r->nfiles; fi++)
		file_free(&r->files[fi]);
	free(r->files);
	free(r->cells);
	free(r->groups);
	free(r->claims);
	free(r->verdicts);
	free(r->healths);
	free(r->hchecks);
	memset(r, 0, sizeof(*r));
}

/* a->format < 0: no text output (the demo's page). */
/* What a failing drive's vendor will ask for, and where it is: the files agents kept. */
static void evidence_text(const struct rp_report *r)
{
	for (size_t fi = 0; fi < r->nfiles; fi++)
		for (size_t i = 0; i < r->files[fi].nev; i++) {
			const struct rb_row_evidence *e = &r->files[fi].ev[i];
			const struct rb_row_drive *dr = NULL;

			for (size_t d = 0; d < r->files[fi].nd && !dr; d++)
				if (r->files[fi].dr[d].drive == e->drive)
					dr = &r->files[fi].dr[d];
			if (!i)
				printf("evidence kept for the vendor (on the agents' hosts, and "
				       "beside the results file where it came whole):\n");
			printf("  %s:%s  %s  point %u  %s, %llu bytes, sha256 %s\n",
			       dr ? dr->agent : "?", dr ? dr->id.path : "?",
			       dr && dr->id.serial[0] ? dr->id.serial : "-", e->point, e->path,
			       (unsigned long long)e->bytes, e->sha256);
			if (e->stored[0])
				printf("    beside the results: %s\n", e->stored);
			if (i + 1 == r->files[fi].nev)
				printf("\n");
		}
}

static int report(struct rp_report *r, const struct rb_report_args *a)
{
	const char *const *files = a->files;
	const char *html = a->html, *fio_logs = a->fio_logs;
	size_t nfiles = a->nfiles;
	int rc = 0, f = (int)a->format;
	struct rp_h2h h2h = { .nsubj = 0 };
	bool drive_base = false;

	if ((rc = rp_report_build(r, a)))
		goto out;
	if (r->baseline)
		drive_base = apply_baseline(r);
	if (rp_h2h_build(r, r->by, r->baseline, &h2h)) {
		rc = RB_EXIT_FAILED;
		goto out;
	}
	r->h2h = &h2h;
	if (r->baseline && !drive_base && !h2h.base_found) {
		rb_err("no drive (a part of agent:path, or a serial) nor column of the head-to-head "
		       "table (a model, a file) matches --baseline '%s'",
		       r->baseline);
		rc = RB_EXIT_USAGE;
		goto out;
	}
	if (rp_judge(r) || rp_judge_health(r)) {
		rc = RB_EXIT_FAILED;
		goto out;
	}
	if (fio_logs && rp_fio_logs(r, fio_logs)) {
		rc = RB_EXIT_FAILED;
		goto out;
	}
	if (f == RB_REPORT_FIO_JSON || f == RB_REPORT_FIO_JSONPLUS || f == RB_REPORT_FIO_TERSE) {
		/* fio's output alone on stdout: what parsers of fio read */
		if (rp_fio(r,
			   f == RB_REPORT_FIO_JSON	 ? RP_FIO_JSON
			   : f == RB_REPORT_FIO_JSONPLUS ? RP_FIO_JSONPLUS
							 : RP_FIO_TERSE,
			   stdout)) {
			rc = RB_EXIT_FAILED;
			goto out;
		}
		f = -1;
	}
	if (f >= 0 && f != FMT_CSV && nfiles > 1)
		for (size_t fi = 0; fi < nfiles; fi++)
			printf("#%zu %s (methodology %s)\n", fi + 1, files[fi],
			       r->files[fi].methodology[0] ? r->files[fi].methodology
							   : "not recorded");
	/* the drives' verdicts come first: what a burn-in is run for */
	for (size_t fi = 0; f >= 0 && f != FMT_CSV && fi < nfiles; fi++)
		if (r->files[fi].nvd) {
			if (nfiles > 1)
				printf("#%zu:", fi + 1);
			rb_verdict_print(stdout, r->files[fi].vd, r->files[fi].nvd, r->files[fi].dr,
					 r->files[fi].nd);
			printf("\n");
		}
	if (f >= 0 && f != FMT_CSV)
		evidence_text(r);
	/* the racks side by side before the rows of their drives */
	if (f >= 0 && f != FMT_CSV && r->fleet)
		rp_fleet_text(r, f == FMT_MARKDOWN);
	if (f >= 0)
		tables(r, (enum fmt)f, a->wide);
	if (f >= 0 && f != FMT_CSV && !a->wide) {
		models_text(r, (enum fmt)f);
		for (size_t fi = 0; fi < r->nfiles; fi++)
			if (r->files[fi].nss) {
				steady_text(r, (enum fmt)f);
				break;
			}
		if (r->nclaims || r->nhealths)
			verdicts_text(r, (enum fmt)f);
		if (rp_has_ckpts(r))
			rp_ckpt_text(r, f == FMT_MARKDOWN);
		if (rp_has_execs(r))
			rp_exec_text(r, f == FMT_MARKDOWN);
		if (rp_has_paths(r))
			rp_paths_text(r, f == FMT_MARKDOWN);
		if (rp_has_waf(r))
			rp_waf_text(r, f == FMT_MARKDOWN);
		rp_fdp_events_text(r, f == FMT_MARKDOWN);
		rp_throttle_text(r, f == FMT_MARKDOWN);
		rp_devlat_text(r, f == FMT_MARKDOWN);
		rp_ocp_text(r, f == FMT_MARKDOWN);
	}
	/* what was printed ends before anything is said on stderr: the two often go to one
	 * terminal or file, and stdout's buffer would be flushed in the middle of a line */
	fflush(stdout);
	if (html) {
		int e = rp_html(r, html);

		if (e) {
			rb_err("cannot write '%s': %s", html, strerror(-e));
			rc = RB_EXIT_FAILED;
			goto out;
		}
		if (f >= 0)
			rb_info("wrote %s", html);
	}
	/* 5 when a check failed, else 4 when a drive was not judged (incomplete), else 0 */
	rc = rp_spec_counts(r, NULL, NULL);
	for (size_t fi = 0; fi < r->nfiles; fi++)
		if (!strcmp(r->files[fi].verdict, "FAIL"))
			rc = RB_EXIT_BELOW_SPEC;
out:
	rp_h2h_free(&h2h);
	r->h2h = NULL;
	rp_report_free(r);
	return rc;
}

int rb_report(const struct rb_report_args *a)
{
	struct rp_report r = { .require_pct = a->require_pct > 0 ? a->require_pct : 90.0,
			       .baseline = a->baseline,
			       .by_label = a->by_label };

	return report(&r, a);
}

int rb_report_html(const char *results, const char *html)
{
	struct rp_report r = { .require_pct = 90.0 };
	struct rb_report_args a = {
		.files = &results, .nfiles = 1, .format = (enum rb_report_format) - 1, .html = html
	};

	return report(&r, &a);
}
