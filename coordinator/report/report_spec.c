// SPDX-License-Identifier: MIT
/*
 * Spec files (`rackbench report --spec`): a vendor's claims for a drive model, loaded
 * with every error at FILE:LINE, and each claim judged once per drive at the point the
 * datasheet means (docs/report.md, "Spec files"). Called by report.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "report_model.h"
#include "units.h"
#include "campaign_keys.h"
#include "verdict.h"
#include "yamlcfg.h"

static int spec_claim(struct rb_yaml *y, struct rb_diags *d, yaml_node_t *n, const char *model,
		      struct rp_claim *c)
{
	bool have_metric = false;
	size_t errs = rb_diags_errors(d);

	memset(c, 0, sizeof(*c));
	c->rwmixread = -1;
	c->steady = -1;
	snprintf(c->model, sizeof(c->model), "%s", model ? model : "");
	snprintf(c->spec_file, sizeof(c->spec_file), "%s", y->file);
	c->line = rb_yaml_line(n);
	if (n->type != YAML_MAPPING_NODE) {
		rb_yaml_error(y, d, n, "claims",
			      "a claim must be a mapping (rw, bs, a metric), not %s",
			      rb_yaml_kind(n));
		return -EINVAL;
	}
	for (struct rb_yaml_it p = rb_yaml_pairs(y, n); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);
		static const char *const metrics[] = { "mbps", "iops", "mean_us", "p99_us",
						       "p99_9_us" };
		uint64_t u;
		char *end;

		if (!key || !val) {
			rb_yaml_error(y, d, v, key, "'%s' must be a scalar", key ? key : "?");
			continue;
		}
		if (!strcmp(key, "name")) {
			snprintf(c->name, sizeof(c->name), "%s", val);
		} else if (!strcmp(key, "rw")) {
			snprintf(c->rw, sizeof(c->rw), "%s", val);
		} else if (!strcmp(key, "bs")) {
			if (rb_parse_size(val, &c->bs) || !c->bs)
				rb_yaml_error(y, d, v, key,
					      "'bs' must be a size like 4k or 128k, not '%s'", val);
		} else if (!strcmp(key, "phase")) {
			snprintf(c->phase, sizeof(c->phase), "%s", val);
		} else if (!strcmp(key, "rwmixread")) {
			if (rb_parse_u64(val, &u) || u > 100)
				rb_yaml_error(y, d, v, key,
					      "'rwmixread' must be a percentage 0-100, not '%s'",
					      val);
			else
				c->rwmixread = (int)u;
		} else if (!strcmp(key, "steady")) {
			if (!strcmp(val, "true") || !strcmp(val, "false"))
				c->steady = val[0] == 't';
			else
				rb_yaml_error(y, d, v, key,
					      "'steady' must be true or false, not '%s'", val);
		} else if (!strcmp(key, "iodepth") || !strcmp(key, "numjobs")) {
			if (rb_parse_u64(val, &u) || !u || u > 65536)
				rb_yaml_error(y, d, v, key, "'%s' must be a count from 1, not '%s'",
					      key, val);
			else if (key[0] == 'i')
				c->iodepth = (unsigned)u;
			else
				c->numjobs = (unsigned)u;
		} else {
			size_t m;

			for (m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++)
				if (!strcmp(key, metrics[m]))
					break;
			if (m == sizeof(metrics) / sizeof(metrics[0])) {
				rb_yaml_error(
					y, d, k, key,
					"unknown key '%s' in a claim (known: name, rw, bs, iodepth, "
					"numjobs, rwmixread, phase, steady, and one of mbps, iops, "
					"mean_us, p99_us, p99_9_us)",
					key);
				continue;
			}
			if (have_metric) {
				rb_yaml_error(y, d, k, key,
					      "a claim has one figure; '%s' is a second", key);
				continue;
			}
			have_metric = true;
			c->metric = (enum rp_metric)m;
			c->value = strtod(val, &end);
			if (end == val || *end || !(c->value > 0) || !isfinite(c->value))
				rb_yaml_error(y, d, v, key,
					      "'%s' must be a positive number, not '%s'", key, val);
		}
	}
	if (!c->rw[0])
		rb_yaml_error(y, d, n, "rw", "a claim needs 'rw' (read, write, randread, ...)");
	else if ((!strcmp(c->rw, "rw") || !strcmp(c->rw, "randrw")) && c->rwmixread < 0)
		rb_yaml_error(y, d, n, "rwmixread",
			      "a claim on a mix ('%s') needs 'rwmixread': a datasheet's 70/30 "
			      "figure is not its 50/50 one",
			      c->rw);
	if (!have_metric)
		rb_yaml_error(y, d, n, "claims",
			      "a claim needs one figure: mbps, iops, mean_us, p99_us or p99_9_us");
	if (!c->name[0]) {
		char bs[32];

		snprintf(c->name, sizeof(c->name), "%s%s%s %s", c->rw, c->bs ? " " : "",
			 c->bs ? rb_fmt_size(c->bs, bs, sizeof(bs)) : "",
			 rp_metric_name(c->metric));
	}
	return rb_diags_errors(d) > errs ? -EINVAL : 0;
}

/* A spec's `health:` limits, as a campaign's verdict health rules: 0, or -EINVAL said. */
static int spec_health(struct rb_yaml *y, struct rb_diags *d, yaml_node_t *n,
		       struct rb_verdict_rules *rules)
{
	size_t errs = rb_diags_errors(d);

	rb_verdict_rules_init(rules);
	for (struct rb_yaml_it p = rb_yaml_pairs(y, n); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);
		const struct rb_ckey *ck = key ? rb_ckey_find(RB_CK_VERDICT, key) : NULL;
		uint64_t u;

		if (!ck || !rb_verdict_key_is_health(key)) {
			rb_yaml_error(
				y, d, k, key,
				"unknown health limit '%s' (known: max_temp_c, critical_warning, "
				"max_media_errors, max_error_log_entries, max_unsafe_shutdowns, "
				"min_spare_pct, max_wear_pct, max_warn_temp_minutes, "
				"max_throttle_seconds, max_throttle_transitions, pcie_downtrained, "
				"max_pcie_correctable_per_hour)",
				key ? key : "?");
			continue;
		}
		double *at = (double *)(void *)((char *)rules + ck->off);

		if (ck->type == RB_CK_BOOL && val &&
		    (!strcmp(val, "true") || !strcmp(val, "false")))
			*at = val[0] == 't';
		else if (ck->type != RB_CK_BOOL && val && !rb_parse_u64(val, &u))
			*at = (double)u;
		else
			rb_yaml_error(y, d, v, key, "'%s' must be %s, not '%s'", key,
				      ck->type == RB_CK_BOOL ? "true or false" : "a whole number",
				      val ? val : rb_yaml_kind(v));
	}
	return rb_diags_errors(d) > errs ? -EINVAL : 0;
}

int rp_load_spec(struct rp_report *r, const char *path)
{
	struct rb_diags d;
	struct rb_yaml y;
	char *text = NULL;
	size_t len = 0;
	const char *model = NULL;
	yaml_node_t *root, *claims = NULL, *health = NULL;
	int rc = RB_EXIT_USAGE, e;

	rb_diags_init(&d);
	e = rb_read_file(path, 1 << 20, &text, &len);
	if (e) {
		rb_err("cannot read spec file '%s': %s", path, rb_input_error(e));
		return RB_EXIT_USAGE;
	}
	if (rb_yaml_load(&y, path, text, len, &d))
		goto out;
	root = rb_yaml_root(&y);
	if (!root || root->type != YAML_MAPPING_NODE) {
		rb_yaml_error(&y, &d, root, NULL, "a spec file is a mapping: model, claims");
		goto out_yaml;
	}
	for (struct rb_yaml_it p = rb_yaml_pairs(&y, root); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
		const char *key = rb_yaml_scalar(k);

		if (key && !strcmp(key, "model") && rb_yaml_scalar(v))
			model = rb_yaml_scalar(v);
		else if (key && !strcmp(key, "claims") && v->type == YAML_SEQUENCE_NODE)
			claims = v;
		else if (key && !strcmp(key, "health") && v->type == YAML_MAPPING_NODE)
			health = v;
		else if (key && (!strcmp(key, "model") || !strcmp(key, "claims") ||
				 !strcmp(key, "health")))
			rb_yaml_error(&y, &d, v, key, "'%s' must be %s", key,
				      key[0] == 'm'   ? "a model name"
				      : key[0] == 'c' ? "a list of claims"
						      : "a mapping of health limits");
		else
			rb_yaml_error(&y, &d, k, key,
				      "unknown key '%s' in a spec (known: model, claims, health)",
				      key ? key : "?");
	}
	if (!claims && !health && !rb_diags_errors(&d))
		rb_yaml_error(&y, &d, root, "claims",
			      "a spec file needs 'claims', a list (or 'health', its limits)");
	if (health) {
		struct rp_health_spec *nh = realloc(r->healths, (r->nhealths + 1) * sizeof(*nh));

		if (!nh)
			goto out_yaml;
		r->healths = nh;
		snprintf(nh[r->nhealths].model, sizeof(nh[0].model), "%s", model ? model : "");
		snprintf(nh[r->nhealths].spec_file, sizeof(nh[0].spec_file), "%s", path);
		if (!spec_health(&y, &d, health, &nh[r->nhealths].rules))
			r->nhealths++;
	}
	for (struct rb_yaml_it it = rb_yaml_items(&y, claims); rb_yaml_next(&it);) {
		struct rp_claim *nc = realloc(r->claims, (r->nclaims + 1) * sizeof(*nc));

		if (!nc)
			goto out_yaml;
		r->claims = nc;
		if (!spec_claim(&y, &d, it.value, model, &r->claims[r->nclaims]))
			r->nclaims++;
	}
	if (!rb_diags_errors(&d))
		rc = 0;
out_yaml:
	rb_yaml_release(&y);
out:
	rb_diags_sort(&d);
	rb_diags_print(&d, stderr);
	rb_diags_release(&d);
	free(text);
	return rc;
}

/*
 * Whether a steady-state round is in its drive's measurement window: 1 yes, 0 no (before
 * it, or the drive never got there), -1 the point is not a round of a steady-state phase.
 */
static int in_steady_window(const struct rp_file *f, const struct rb_row_point *p, uint32_t drive)
{
	if (!p->round)
		return -1;
	for (size_t i = 0; i < f->nss; i++) {
		const struct rb_row_steady *x = &f->ss[i];

		if (x->rolling || x->drive != drive || strcmp(x->phase, p->phase))
			continue;
		return x->steady && x->steady_round && p->round <= x->steady_round &&
		       p->round + x->window > x->steady_round;
	}
	return 0;
}

/*
 * How far a cell goes toward a claim, in the order of the checks: a datasheet's figure is
 * the drive's at one workload, in steady state: a claim matches its rw and what it names
 * (block size, depth, jobs, mix, phase), a point that completed, never a rate-limited
 * point (it measures the limit; a curve's unthrottled run does not), a fill or other
 * size-based point unless the claim names its phase, nor a steady-state round before its
 * window (steady: true: only those). A drive whose cells all stop short of M_OK is not
 * judged, for the reason of the stage its best cell reached.
 */
enum match { M_MODEL, M_WORKLOAD, M_STATUS, M_RATE, M_SIZE, M_STEADY, M_FIGURE, M_OK };

static enum match claim_match(const struct rp_report *r, const struct rp_claim *c,
			      const struct rp_cell *cell)
{
	const struct rb_row_point *p = cell->pt;
	int win;

	if (c->model[0] && !strstr(cell->dr->id.model, c->model))
		return M_MODEL;
	if (strcmp(c->rw, p->rw) || (c->bs && c->bs != p->bs_bytes) ||
	    (c->iodepth && c->iodepth != p->iodepth) || (c->numjobs && c->numjobs != p->numjobs) ||
	    (c->rwmixread >= 0 && (uint32_t)c->rwmixread != p->rwmixread_pct) ||
	    (c->phase[0] && strcmp(c->phase, p->phase)))
		return M_WORKLOAD;
	/* a point that failed (errors, lost, stopped) measured no datasheet figure */
	if (!cell->res || rb_row_status(cell->res) != RB_STATUS_OK)
		return M_STATUS;
	if (p->rate_iops || (!isnan(p->curve_pct) && p->curve_pct > 0))
		return M_RATE;
	if (!c->phase[0] && rp_is_size_based(p))
		return M_SIZE;
	win = in_steady_window(&r->files[cell->file], p, cell->dr->drive);
	if (win == 0 || (c->steady == 1 && win != 1))
		return M_STEADY;
	return isnan(rp_cell_metric(cell, c->metric)) ? M_FIGURE : M_OK;
}

/* Why a drive whose best cell reached stage m was not judged by claim c, in words. */
static void not_judged(const struct rp_report *r, const struct rp_claim *c, enum match m,
		       const struct rp_cell *at, char *buf, size_t len)
{
	switch (m) {
	case M_WORKLOAD:
		snprintf(buf, len, "no point of this workload ran on it");
		break;
	case M_STATUS:
		snprintf(buf, len, "its points of this workload did not complete (%s)",
			 at->res ? at->res->status : "no result");
		break;
	case M_RATE:
		snprintf(buf, len, "its points of this workload were rate-limited");
		break;
	case M_SIZE:
		snprintf(buf, len,
			 "its points of this workload were size-based (phase '%s'): a claim "
			 "naming that phase judges them",
			 at->pt->phase);
		break;
	case M_STEADY:
		if (in_steady_window(&r->files[at->file], at->pt, at->dr->drive) < 0)
			snprintf(buf, len,
				 "the claim is of steady state, and no steady-state phase of this "
				 "workload ran on it");
		else
			snprintf(buf, len, "it never reached steady state in phase '%s'",
				 at->pt->phase);
		break;
	default:
		snprintf(buf, len, "its points of this workload did not measure %s",
			 rp_metric_name(c->metric));
		break;
	}
}

/* Higher is better for rates, lower for latencies. */
static bool better(enum rp_metric m, double x, double than)
{
	return m == RP_MBPS || m == RP_IOPS ? x > than : x < than;
}

static struct rp_verdict *new_verdict(struct rp_report *r)
{
	struct rp_verdict *nv = realloc(r->verdicts, (r->nverdicts + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	r->verdicts = nv;
	memset(&nv[r->nverdicts], 0, sizeof(nv[0]));
	return &nv[r->nverdicts++];
}

/*
 * One check per claim and drive: at the drive's best matching point, since a datasheet's
 * figure is what the drive reaches ("up to"); a claim that names every setting matches one
 * point. The verdict names the point it was judged at. A drive of the claim's model with
 * no such point is NOT JUDGED, with why: never silently left out.
 */
int rp_judge(struct rp_report *r)
{
	for (size_t i = 0; i < r->nclaims; i++) {
		const struct rp_claim *c = &r->claims[i];
		bool any = false;

		for (size_t k = 0; k < r->ncells; k++) {
			const struct rp_file *f = &r->files[r->cells[k].file];
			const struct rp_cell *best = NULL, *near = NULL;
			enum match reach = M_MODEL;
			struct rp_verdict *v;
			double x, bx = NAN;

			/* each drive of each file once, from its cell at the first point */
			if (k >= f->cell0 + f->nd)
				continue;
			for (size_t j = k; j < f->cell0 + f->np * f->nd; j += f->nd) {
				const struct rp_cell *o = &r->cells[j];
				enum match m = claim_match(r, c, o);

				if (!near || m > reach) {
					reach = m;
					near = o;
				}
				if (m != M_OK)
					continue;
				x = rp_cell_metric(o, c->metric);
				if (!best || better(c->metric, x, bx)) {
					best = o;
					bx = x;
				}
			}
			/* a drive of another model is no drive of this claim's */
			if (reach == M_MODEL)
				continue;
			if (!(v = new_verdict(r)))
				return -ENOMEM;
			v->claim = c;
			any = true;
			if (!best) {
				v->cell = &r->cells[k];
				v->measured = v->pct = NAN;
				v->state = RP_NOT_JUDGED;
				not_judged(r, c, reach, near, v->why, sizeof(v->why));
				continue;
			}
			v->cell = best;
			v->measured = bx;
			/* pct >= 100 meets the claim */
			if (c->metric == RP_MBPS || c->metric == RP_IOPS)
				v->pct = 100.0 * bx / c->value;
			else
				v->pct = bx > 0 ? 100.0 * c->value / bx : INFINITY;
			v->state = v->pct >= r->require_pct ? RP_PASS : RP_FAIL;
		}
		if (!any)
			rb_warn("%s:%u: claim '%s' judges no drive%s%s", c->spec_file, c->line,
				c->name, c->model[0] ? ": none is of model " : "", c->model);
	}
	return 0;
}

/* Every limit a drive passed (the verdict's rows of its health rules), in words. */
static void tripped(const struct rb_row_verdict *v, size_t nv, uint32_t drive,
		    struct rp_health_check *hc)
{
	size_t n = 0;

	hc->state = RP_PASS;
	hc->reason[0] = '\0';
	for (size_t i = 0; i < nv; i++) {
		if (v[i].drive != drive || strcmp(v[i].verdict, "FAIL") ||
		    !rb_verdict_key_is_health(v[i].rule))
			continue;
		hc->state = RP_FAIL;
		n += (size_t)snprintf(hc->reason + n,
				      n < sizeof(hc->reason) ? sizeof(hc->reason) - n : 0, "%s%s",
				      n ? "; " : "", v[i].reason);
		if (n >= sizeof(hc->reason))
			break;
	}
}

/* Whether the file has a SMART reading of the drive. */
static bool has_smart(const struct rp_file *f, uint32_t drive)
{
	for (size_t i = 0; i < f->nhe; i++)
		if (f->he[i].drive == drive && f->he[i].h.nvme && !f->he[i].member)
			return true;
	return false;
}

int rp_judge_health(struct rp_report *r)
{
	for (size_t h = 0; h < r->nhealths; h++) {
		const struct rp_health_spec *hs = &r->healths[h];

		for (size_t fi = 0; fi < r->nfiles; fi++) {
			const struct rp_file *f = &r->files[fi];
			struct rb_row_verdict *v = NULL;
			size_t nv = 0;
			struct rb_verdict_in in = { .drives = f->dr,
						    .nd = f->nd,
						    .points = f->pt,
						    .np = f->np,
						    .results = f->rs,
						    .nr = f->nr,
						    .samples = f->sm,
						    .ns = f->nsm,
						    .health = f->he,
						    .nh = f->nhe,
						    .root = &hs->rules };

			/* the verdicts' health rules, over the whole run (the rest are ignored) */
			if (rb_verdict_judge(&in, &v, &nv) < 0)
				return -ENOMEM;
			for (size_t d = 0; d < f->nd; d++) {
				struct rp_health_check *nc;

				if (hs->model[0] && !strstr(f->dr[d].id.model, hs->model))
					continue;
				nc = realloc(r->hchecks, (r->nhchecks + 1) * sizeof(*nc));
				if (!nc) {
					free(v);
					return -ENOMEM;
				}
				r->hchecks = nc;
				nc[r->nhchecks] = (struct rp_health_check){ .spec = hs,
									    .file = fi,
									    .dr = &f->dr[d] };
				tripped(v, nv, f->dr[d].drive, &nc[r->nhchecks]);
				/* no SMART log (a file, a loop device): its health is not known,
				 * as its verdict says -- not within every limit */
				if (!has_smart(f, f->dr[d].drive)) {
					nc[r->nhchecks].state = RP_NOT_JUDGED;
					snprintf(nc[r->nhchecks].reason, sizeof(nc[0].reason),
						 "health not judged (no SMART log)");
				}
				r->nhchecks++;
			}
			free(v);
		}
	}
	return 0;
}

const char *rp_check_name(enum rp_check c)
{
	return c == RP_PASS ? "PASS" : c == RP_FAIL ? "FAIL" : "NOT JUDGED";
}

int rp_spec_counts(const struct rp_report *r, size_t *ret_fail, size_t *ret_not_judged)
{
	size_t fail = 0, nj = 0;

	for (size_t i = 0; i < r->nverdicts; i++) {
		fail += r->verdicts[i].state == RP_FAIL;
		nj += r->verdicts[i].state == RP_NOT_JUDGED;
	}
	for (size_t i = 0; i < r->nhchecks; i++) {
		fail += r->hchecks[i].state == RP_FAIL;
		nj += r->hchecks[i].state == RP_NOT_JUDGED;
	}
	if (ret_fail)
		*ret_fail = fail;
	if (ret_not_judged)
		*ret_not_judged = nj;
	return fail ? RB_EXIT_BELOW_SPEC : nj ? RB_EXIT_PARTIAL : RB_EXIT_OK;
}
