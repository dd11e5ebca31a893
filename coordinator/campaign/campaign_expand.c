// SPDX-License-Identifier: MIT
/*
 * A campaign's phases into its points: the matrix expanded in order, then made curve,
 * steady-state, repeat or purge points, under the point limit. Called by campaign.c;
 * calls campaign_load.c for the values it reads.
 */
#include "campaign.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_keys.h"
#include "campaign_priv.h"
#include "fname.h"
#include "units.h"
#include "yamlcfg.h"

#define MAX_POINTS 100000

struct axis {
	const struct rb_opt *opt;
	const char **values;
	size_t n;
};

/* The point limit, said once however many points come after it. */
static void points_full(struct loader *L, yaml_node_t *at)
{
	if (!L->points_full)
		ERR(L, at, NULL, "point limit: the campaign has more than %d points", MAX_POINTS);
	L->points_full = true;
}

static int add_point(struct loader *L, unsigned phase, const struct rb_workload *wl,
		     const char *name, yaml_node_t *at)
{
	struct rb_campaign *c = L->c;
	struct rb_point *v;
	char err[256];

	if (rb_workload_check(wl, err, sizeof(err))) {
		ERR(L, at, NULL, "point '%s': %s", name, err);
		return -EINVAL;
	}
	if (c->npoints >= MAX_POINTS) {
		points_full(L, at);
		return -E2BIG;
	}
	v = realloc(c->points, (c->npoints + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->points = v;
	v = &c->points[c->npoints];
	memset(v, 0, sizeof(*v));
	v->index = (unsigned)c->npoints;
	v->phase = phase;
	v->wl = *wl;
	v->curve_pct = NAN;
	snprintf(v->name, sizeof(v->name), "%s", name);
	c->npoints++;
	return 0;
}

/* Appends a copy of tmpl named "<tmpl name> <suffix>". */
static struct rb_point *push_point(struct loader *L, const struct rb_point *tmpl,
				   const char *suffix, yaml_node_t *at)
{
	struct rb_campaign *c = L->c;
	struct rb_point *v;

	if (c->npoints >= MAX_POINTS) {
		points_full(L, at);
		return NULL;
	}
	v = realloc(c->points, (c->npoints + 1) * sizeof(*v));
	if (!v)
		return NULL;
	c->points = v;
	v = &c->points[c->npoints];
	*v = *tmpl;
	v->index = (unsigned)c->npoints;
	snprintf(v->name, sizeof(v->name), "%s %s", tmpl->name, suffix);
	c->npoints++;
	return v;
}

struct phase_extra {
	yaml_node_t *drives_node;
	double curve[64];
	size_t ncurve;
	yaml_node_t *curve_node, *steady_node;
	unsigned rounds, window;
	bool rolling;
	enum rb_track_metric metric;
	struct setting track[16];
	yaml_node_t *track_nodes[16];
	size_t ntrack;
	uint64_t idle_ns;
	unsigned repeat;
	yaml_node_t *repeat_node;
	yaml_node_t *purge_node;
	char purge[24];
	yaml_node_t *exec_node;
	char exec[64], exec_params[512];
	unsigned ses;
	struct rb_verdict_rules verdict;
};

/* purge: {method, ses} -- the drives returned to a known state before what follows. */
static void load_purge(struct loader *L, yaml_node_t *v, struct phase_extra *x)
{
	x->purge_node = v;
	if (!want(L, v, YAML_MAPPING_NODE, "purge", "a mapping: method (and ses for format)"))
		return;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, v); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *n = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(n);
		const struct rb_ckey *ck = rb_ckey_find(RB_CK_PURGE, key);
		char words[256];
		int i;

		if (key && !strcmp(key, "method")) {
			if ((i = rb_ckey_choice(ck, val)) < 0)
				ERR(L, n, key, "'method' must be %s",
				    rb_ckey_choices_text(ck, words, sizeof(words)));
			else
				snprintf(x->purge, sizeof(x->purge), "%s", val);
		} else if (key && !strcmp(key, "ses")) {
			if ((i = rb_ckey_choice(ck, val)) < 0)
				ERR(L, n, key, "'ses' must be %s (a Format's secure erase)",
				    rb_ckey_choices_text(ck, words, sizeof(words)));
			else
				x->ses = (unsigned)i + 1;
		} else {
			ERR(L, k, key, "unknown key '%s' in purge (known: %s)", key ? key : "?",
			    rb_ckey_known(RB_CK_PURGE, words, sizeof(words)));
		}
	}
	if (!x->purge[0] && rb_diags_errors(L->d) == 0)
		ERR(L, v, "method", "'purge' needs 'method'");
	if (x->ses && strcmp(x->purge, "format"))
		ERR(L, v, "ses", "'ses' goes with method format only");
}

/* The parameters of exec: a mapping of plain words, as "KEY=VALUE" lines. */
static void load_exec_params(struct loader *L, yaml_node_t *v, struct phase_extra *x)
{
	size_t n = 0;

	if (!want(L, v, YAML_MAPPING_NODE, "params", "a mapping: KEY: VALUE"))
		return;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, v); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *n2 = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(n2);

		if (!rb_plain_word(key, "_") || !rb_plain_value(val))
			ERR(L, k, "params",
			    "exec parameters are words (letters, digits, '_'; values also "
			    "'.:,+-', not first): the agent fills its command's declared ones, "
			    "never a command line");
		else if (n + strlen(key) + strlen(val) + 2 >= sizeof(x->exec_params))
			ERR(L, k, "params", "exec parameters take at most %zu characters",
			    sizeof(x->exec_params) - 1);
		else
			n += (size_t)snprintf(x->exec_params + n, sizeof(x->exec_params) - n,
					      "%s=%s\n", key, val);
	}
}

/* exec: {command, params} -- the agents' own command on each drive instead of IO. */
static void load_exec(struct loader *L, yaml_node_t *v, struct phase_extra *x)
{
	char words[256];

	x->exec_node = v;
	if (!want(L, v, YAML_MAPPING_NODE, "exec", "a mapping: command (and params)"))
		return;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, v); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *n = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(n);

		if (key && !strcmp(key, "command")) {
			if (!rb_plain_word(val, "._-") || strlen(val) >= sizeof(x->exec))
				ERR(L, n, key,
				    "'command' names a command of the agents' allow-list "
				    "(agent.yaml 'commands'): a word of at most %zu characters",
				    sizeof(x->exec) - 1);
			else
				snprintf(x->exec, sizeof(x->exec), "%s", val);
		} else if (key && !strcmp(key, "params")) {
			load_exec_params(L, n, x);
		} else {
			ERR(L, k, key, "unknown key '%s' in exec (known: %s)", key ? key : "?",
			    rb_ckey_known(RB_CK_EXEC, words, sizeof(words)));
		}
	}
	if (!x->exec[0] && rb_diags_errors(L->d) == 0)
		ERR(L, v, "command", "'exec' needs 'command'");
}

static void load_curve(struct loader *L, yaml_node_t *v, struct phase_extra *x)
{
	x->curve_node = v;
	if (!want(L, v, YAML_SEQUENCE_NODE, "curve", "a list of percentages of the maximum rate"))
		return;
	for (struct rb_yaml_it it = rb_yaml_items(&L->y, v); rb_yaml_next(&it);) {
		yaml_node_t *n = it.value;
		const char *t = rb_yaml_scalar(n);
		char *end = NULL;
		double pct = t ? strtod(t, &end) : NAN;

		if (end && *end == '%')
			end++;
		if (!t || end == t || *end || !(pct > 0) || pct > 1000) {
			ERR(L, n, "curve",
			    "a curve percentage must be a number above 0 and at most "
			    "1000, not '%s'",
			    t ? t : rb_yaml_kind(n));
			continue;
		}
		if (x->ncurve == sizeof(x->curve) / sizeof(x->curve[0])) {
			ERR(L, n, "curve", "a curve has at most 64 percentages");
			break;
		}
		x->curve[x->ncurve++] = pct;
	}
	if (!x->ncurve && !rb_yaml_count(v))
		ERR(L, v, "curve",
		    "'curve' is empty: give the percentages, e.g. [10, 50, 90, 100]");
}

static void load_steady(struct loader *L, yaml_node_t *v, struct phase_extra *x)
{
	x->steady_node = v;
	x->rounds = 25;
	x->window = 5;
	if (!want(L, v, YAML_MAPPING_NODE, "steady_state",
		  "a mapping: max_rounds, window, track, metric"))
		return;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, v); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *n = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(n);
		uint64_t u;

		if (key && (!strcmp(key, "max_rounds") || !strcmp(key, "window"))) {
			if (!val || rb_parse_u64(val, &u) || u < (key[0] == 'w' ? 2 : 1) ||
			    u > 1000)
				ERR(L, n, key, "'%s' must be a whole number from %d to 1000", key,
				    key[0] == 'w' ? 2 : 1);
			else if (key[0] == 'w')
				x->window = (unsigned)u;
			else
				x->rounds = (unsigned)u;
		} else if (key && !strcmp(key, "rolling")) {
			rb_campaign_parse_bool(L, n, key, &x->rolling);
		} else if (key && !strcmp(key, "metric")) {
			static const enum rb_track_metric metrics[] = { RB_TRACK_IOPS,
									RB_TRACK_MBPS,
									RB_TRACK_MEAN_LAT };
			const struct rb_ckey *ck = rb_ckey_find(RB_CK_STEADY, key);
			int i = rb_ckey_choice(ck, val);
			char words[128];

			if (i < 0)
				ERR(L, n, key, "'metric' must be %s",
				    rb_ckey_choices_text(ck, words, sizeof(words)));
			else
				x->metric = metrics[i];
		} else if (key && !strcmp(key, "track")) {
			if (!want(L, n, YAML_MAPPING_NODE, "track",
				  "a mapping of matrix keys to the tracking point's values"))
				continue;
			for (struct rb_yaml_it q = rb_yaml_pairs(&L->y, n);
			     x->ntrack < 16 && rb_yaml_next(&q);) {
				yaml_node_t *tk = q.key;
				const char *tkey = rb_yaml_scalar(tk);
				const char *tval = rb_yaml_scalar(q.value);
				const struct rb_opt *o = tkey ? rb_opt_find(tkey) : NULL;

				if (!o || !tval) {
					ERR(L, tk, tkey,
					    "'track' takes matrix keys and one value each");
					continue;
				}
				x->track[x->ntrack].opt = o;
				x->track[x->ntrack].value = tval;
				x->track_nodes[x->ntrack++] = tk;
			}
		} else {
			char known[256];

			ERR(L, k, key, "unknown key '%s' in steady_state (known: %s)",
			    key ? key : "?", rb_ckey_known(RB_CK_STEADY, known, sizeof(known)));
		}
	}
	if (x->rolling && (x->ntrack || x->rounds != 25))
		ERR(L, v, "rolling",
		    "a rolling steady state judges each point over its own "
		    "intervals: no 'track' or 'max_rounds' (the runtime is the cap)");
	else if (x->rolling)
		x->rounds = x->window;
	if (x->window > x->rounds)
		ERR(L, v, "steady_state", "'window' (%u) is more than 'max_rounds' (%u)", x->window,
		    x->rounds);
}

/* The matrix point (its ordinal in expansion order) that track names. */
static long track_ordinal(struct loader *L, const struct phase_extra *x, const struct axis *axes,
			  size_t naxes)
{
	long ord = 0;

	for (size_t t = 0; t < x->ntrack; t++) {
		size_t a;

		for (a = 0; a < naxes; a++)
			if (axes[a].opt == x->track[t].opt)
				break;
		if (a == naxes) {
			ERR(L, x->track_nodes[t], x->track[t].opt->key,
			    "'track' names '%s', which the phase's matrix does not vary",
			    x->track[t].opt->key);
			return -1;
		}
		size_t i;

		for (i = 0; i < axes[a].n; i++)
			if (!strcmp(axes[a].values[i], x->track[t].value))
				break;
		if (i == axes[a].n) {
			ERR(L, x->track_nodes[t], x->track[t].opt->key,
			    "'track' value '%s' of '%s' is not one of the matrix's values",
			    x->track[t].value, x->track[t].opt->key);
			return -1;
		}
	}
	/* the first axis varies slowest */
	for (size_t a = 0; a < naxes; a++) {
		size_t i = 0;

		for (size_t t = 0; t < x->ntrack; t++)
			if (axes[a].opt == x->track[t].opt)
				for (i = 0; i < axes[a].n; i++)
					if (!strcmp(axes[a].values[i], x->track[t].value))
						break;
		ord = ord * (long)axes[a].n + (long)(i < axes[a].n ? i : 0);
	}
	return ord;
}

/* Turns the matrix points just added (from index b) into curve or steady-state points. */
static void shape_phase(struct loader *L, size_t b, const struct phase_extra *x, long track,
			yaml_node_t *at)
{
	struct rb_campaign *c = L->c;
	size_t m = c->npoints - b;
	struct rb_point *tmpl = malloc((m + 1) * sizeof(*tmpl));
	char sfx[64];

	if (!tmpl)
		return;
	memcpy(tmpl, c->points + b, m * sizeof(*tmpl));
	c->npoints = b;
	c->phases[c->nphases - 1].npoints_per_round = x->ncurve ? x->ncurve + 1 : m;
	if (x->ncurve) {
		for (size_t i = 0; i < m; i++) {
			struct rb_point *mx;
			unsigned base;

			if (tmpl[i].wl.rate_iops) {
				ERR(L, at, "curve",
				    "a curve sets the rates itself: point '%s' has "
				    "rate_iops",
				    tmpl[i].name);
				break;
			}
			mx = push_point(L, &tmpl[i], "curve=max", at);
			if (!mx)
				break;
			mx->curve_pct = 0;
			base = mx->index;
			mx->curve_base = base;
			for (size_t k = 0; k < x->ncurve; k++) {
				struct rb_point *q;

				snprintf(sfx, sizeof(sfx), "curve=%g%%", x->curve[k]);
				q = push_point(L, &tmpl[i], sfx, at);
				if (!q)
					break;
				q->curve_pct = x->curve[k];
				q->curve_base = base;
			}
		}
	} else {
		for (unsigned r = 1; r <= x->rounds; r++)
			for (size_t i = 0; i < m; i++) {
				struct rb_point *q;

				snprintf(sfx, sizeof(sfx), "round=%u", r);
				q = push_point(L, &tmpl[i], sfx, at);
				if (!q)
					break;
				q->round = r;
				q->track = (long)i == track;
			}
	}
	free(tmpl);
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

/*
 * Whether the phase's points fit under the point limit, counted before any is made: the
 * product of its matrix's axis lengths, times its curve's points, steady-state rounds or
 * repeats. A 16 KB campaign can name a billion points; making them first took memory
 * until the process was killed. Says which limit, once, at the phase.
 */
static bool phase_fits(struct loader *L, yaml_node_t *ph, const char *pname,
		       const struct axis *axes, size_t naxes, const struct phase_extra *x)
{
	uint64_t n = 1, times = 0;
	const char *what = NULL;
	char shape[192] = "", before[64] = "";
	size_t len = 0;

	for (size_t i = 0; i < naxes; i++) {
		n = mul_sat(n, axes[i].n);
		if (len < sizeof(shape))
			len += (size_t)snprintf(shape + len, sizeof(shape) - len, "%s%zu",
						i ? " x " : "a matrix of ", axes[i].n);
	}
	if (x->ncurve)
		times = x->ncurve + 1, what = "curve points";
	else if (x->steady_node && !x->rolling)
		times = x->rounds, what = "steady-state rounds";
	else if (x->repeat > 1)
		times = x->repeat, what = "repeats";
	if (what) {
		n = mul_sat(n, times);
		if (len < sizeof(shape))
			snprintf(shape + len, sizeof(shape) - len, "%s%llu %s",
				 len ? " times " : "", (unsigned long long)times, what);
	}
	if (n <= MAX_POINTS - L->c->npoints)
		return true;
	if (L->c->npoints)
		snprintf(before, sizeof(before), " after the %zu before it", L->c->npoints);
	if (!L->points_full)
		ERR(L, ph, NULL,
		    "point limit: phase '%s' would make %llu points (%s)%s; a campaign has at "
		    "most %d",
		    pname, (unsigned long long)n, shape, before, MAX_POINTS);
	L->points_full = true;
	return false;
}

static void expand(struct loader *L, unsigned phase, const char *pname,
		   const struct rb_workload *base, struct axis *axes, size_t naxes, size_t k,
		   struct rb_workload *wl, char *name, size_t nlen, yaml_node_t *at)
{
	if (k == naxes) {
		add_point(L, phase, wl, name, at);
		return;
	}
	for (size_t i = 0; i < axes[k].n; i++) {
		char err[256];
		size_t len = strlen(name);

		rb_opt_set(wl, axes[k].opt, axes[k].values[i], err, sizeof(err));
		snprintf(name + len, nlen - len, " %s=%s", axes[k].opt->key, axes[k].values[i]);
		expand(L, phase, pname, base, axes, naxes, k + 1, wl, name, nlen, at);
		name[len] = '\0';
	}
}

/* matrix: {KEY: [values]} -- the phase's axes; whether every value was good. */
static bool load_matrix(struct loader *L, yaml_node_t *v, struct axis *axes, size_t *ret_naxes)
{
	size_t naxes = *ret_naxes;
	bool ok = true;

	if (!want(L, v, YAML_MAPPING_NODE, "matrix",
		  "a mapping of workload keys to lists of values"))
		return false;
	for (struct rb_yaml_it q = rb_yaml_pairs(&L->y, v); rb_yaml_next(&q);) {
		yaml_node_t *mk = q.key;
		yaml_node_t *mv = q.value;
		const char *mkey = rb_yaml_scalar(mk);
		const struct rb_opt *o = mkey ? rb_opt_find(mkey) : NULL;
		char known[512];

		if (!o) {
			rb_campaign_known_keys(known, sizeof(known));
			ERR(L, mk, mkey, "unknown key '%s' in matrix (known: %s)",
			    mkey ? mkey : "?", known);
			ok = false;
			continue;
		}
		if (naxes == 16) {
			ERR(L, mk, mkey, "a matrix has at most 16 keys");
			ok = false;
			continue;
		}
		struct axis *ax = &axes[naxes];

		ax->opt = o;
		ax->n = 0;
		if (mv->type == YAML_SCALAR_NODE) {
			ax->values = malloc(sizeof(char *));
			if (ax->values && rb_campaign_check_value(L, o, mv))
				ax->values[ax->n++] = rb_yaml_scalar(mv);
			else
				ok = false;
			naxes++;
			continue;
		}
		if (!want(L, mv, YAML_SEQUENCE_NODE, mkey, "a list of values")) {
			ok = false;
			continue;
		}
		size_t cnt = rb_yaml_count(mv);
		ax->values = calloc(cnt + 1, sizeof(char *));
		if (!cnt)
			ERR(L, mv, mkey, "matrix key '%s' has no values", mkey);
		for (struct rb_yaml_it vi = rb_yaml_items(&L->y, mv);
		     ax->values && rb_yaml_next(&vi);) {
			yaml_node_t *vn = vi.value;

			if (rb_campaign_check_value(L, o, vn))
				ax->values[ax->n++] = rb_yaml_scalar(vn);
			else
				ok = false;
		}
		ok &= cnt > 0;
		naxes++;
	}
	*ret_naxes = naxes;
	return ok;
}

/* What a phase may not have together: a curve and a steady state, a purge and a workload. */
static void phase_conflicts(struct loader *L, const struct phase_extra *x, size_t naxes, size_t nws)
{
	if (x->curve_node && x->steady_node)
		ERR(L, x->steady_node, "steady_state",
		    "a phase has either a curve or steady_state, not both (put the curve in "
		    "a phase after the steady-state one)");
	if (x->purge_node && (naxes || nws || x->curve_node || x->steady_node || x->repeat_node))
		ERR(L, x->purge_node, "purge",
		    "a purge phase purges and nothing else: no workload, matrix, curve, "
		    "steady_state or repeat");
	if (x->exec_node &&
	    (naxes || x->curve_node || x->steady_node || x->repeat_node || x->purge_node))
		ERR(L, x->exec_node, "exec",
		    "an exec phase runs its command once: no matrix, curve, steady_state, "
		    "repeat or purge (its workload gives the sampling interval)");
	if (x->repeat_node && (x->curve_node || x->steady_node))
		ERR(L, x->repeat_node, "repeat",
		    "'repeat' runs a matrix again; a %s decides its own points",
		    x->curve_node ? "curve" : "steady state");
}

/* The phase's entry in c->phases (its name, idle, steady state, drives); NULL: no memory. */
static struct rb_phase *add_phase(struct loader *L, yaml_node_t *ph, const char *pname,
				  const struct phase_extra *x)
{
	struct rb_campaign *c = L->c;
	char defname[32];

	snprintf(defname, sizeof(defname), "phase%zu", c->nphases + 1);
	struct rb_phase *pv = realloc(c->phases, (c->nphases + 1) * sizeof(*pv));

	if (pv) {
		c->phases = pv;
		memset(&c->phases[c->nphases], 0, sizeof(c->phases[0]));
		c->phases[c->nphases].name = xstrdup(pname ? pname : defname);
		c->phases[c->nphases].idle_ns = x->idle_ns;
		c->phases[c->nphases].steady_rounds = x->steady_node && !x->rolling ? x->rounds : 0;
		c->phases[c->nphases].steady_rolling = x->rolling;
		c->phases[c->nphases].steady_window = x->window;
		c->phases[c->nphases].metric = x->metric;
		c->phases[c->nphases].verdict = x->verdict;
		c->phases[c->nphases].line = rb_yaml_line(ph);
		c->phases[c->nphases].column = rb_yaml_col(ph);
		for (struct rb_yaml_it di = rb_yaml_items(&L->y, x->drives_node);
		     rb_yaml_next(&di);) {
			struct rb_phase *P = &c->phases[c->nphases];
			const char *nm = rb_yaml_scalar(di.value);
			char **nd;

			if (!nm || !*nm) {
				ERR(L, di.value, "drives",
				    "a phase's 'drives' are "
				    "names: a drive's path or a volume's name");
				continue;
			}
			nd = realloc(P->drives, (P->ndrives + 1) * sizeof(*nd));
			if (!nd)
				break;
			P->drives = nd;
			P->drives[P->ndrives++] = xstrdup(nm);
		}
		if (x->drives_node && !c->phases[c->nphases].ndrives)
			ERR(L, x->drives_node, "drives",
			    "'drives' is empty: name the drives the "
			    "phase measures, or leave it out for all");
		c->nphases++;
	}
	return pv;
}

/* The phase's points: its matrix expanded, then made curve, steady-state or repeat points. */
static void phase_points(struct loader *L, yaml_node_t *ph, const struct phase_extra *x,
			 struct axis *axes, size_t naxes, const struct setting *ws, size_t nws)
{
	struct rb_campaign *c = L->c;
	struct rb_workload wl;
	char err[256], name[256];

	rb_workload_defaults(&wl);
	for (size_t i = 0; i < L->ndefaults; i++)
		rb_opt_set(&wl, L->defaults[i].opt, L->defaults[i].value, err, sizeof(err));
	for (size_t i = 0; i < nws; i++)
		rb_opt_set(&wl, ws[i].opt, ws[i].value, err, sizeof(err));
	snprintf(name, sizeof(name), "%s", c->phases[c->nphases - 1].name);
	size_t b = c->npoints;

	expand(L, (unsigned)c->nphases - 1, name, &wl, axes, naxes, 0, &wl, name, sizeof(name), ph);
	c->phases[c->nphases - 1].npoints_per_round = c->npoints - b;
	if (x->purge[0] && c->npoints > b) {
		struct rb_point *q = &c->points[c->npoints - 1];
		char nm[256];

		snprintf(q->purge, sizeof(q->purge), "%s", x->purge);
		q->purge_ses = x->ses;
		snprintf(nm, sizeof(nm), "%.200s purge=%s", q->name, x->purge);
		snprintf(q->name, sizeof(q->name), "%s", nm);
	}
	if (x->exec[0] && c->npoints > b) {
		struct rb_point *q = &c->points[c->npoints - 1];
		char nm[256];

		snprintf(q->exec, sizeof(q->exec), "%s", x->exec);
		snprintf(q->exec_params, sizeof(q->exec_params), "%s", x->exec_params);
		snprintf(nm, sizeof(nm), "%.180s exec=%s", q->name, x->exec);
		snprintf(q->name, sizeof(q->name), "%s", nm);
	}
	if (x->ncurve || (x->steady_node && !x->rolling)) {
		long track = x->steady_node ? track_ordinal(L, x, axes, naxes) : 0;

		if (track >= 0)
			shape_phase(L, b, x, track, ph);
	} else if (x->repeat > 1) {
		/* the phase's points again, as a block, x->repeat times */
		size_t m = c->npoints - b;
		struct rb_point *tmpl = malloc((m + 1) * sizeof(*tmpl));
		char sfx[32];

		if (tmpl) {
			memcpy(tmpl, c->points + b, m * sizeof(*tmpl));
			c->npoints = b;
			for (unsigned r = 1; r <= x->repeat; r++)
				for (size_t i = 0; i < m; i++) {
					snprintf(sfx, sizeof(sfx), "repeat=%u", r);
					push_point(L, &tmpl[i], sfx, ph);
				}
			free(tmpl);
		}
	}
}

void rb_campaign_load_phases(struct loader *L, yaml_node_t *n)
{
	struct rb_campaign *c = L->c;

	if (!want(L, n, YAML_SEQUENCE_NODE, "phases", "a list of phases"))
		return;
	if (!rb_yaml_count(n))
		ERR(L, n, "phases", "'phases' is empty: give at least one phase with a workload");
	for (struct rb_yaml_it it = rb_yaml_items(&L->y, n); rb_yaml_next(&it);) {
		yaml_node_t *ph = it.value;
		struct setting ws[64];
		struct axis axes[16];
		size_t nws = 0, naxes = 0;
		const char *pname = NULL;
		bool ok = true;
		struct phase_extra x;
		struct rb_phase *pv;
		size_t errs0 = rb_diags_errors(L->d);

		memset(&x, 0, sizeof(x));
		rb_verdict_rules_init(&x.verdict);
		if (!want(L, ph, YAML_MAPPING_NODE, "phases", "a list of phases"))
			continue;
		for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, ph); rb_yaml_next(&p);) {
			yaml_node_t *k = p.key, *v = p.value;
			const char *key = rb_yaml_scalar(k);

			if (key && !strcmp(key, "name")) {
				if (want(L, v, YAML_SCALAR_NODE, "name", "a phase name"))
					pname = rb_yaml_scalar(v);
			} else if (key && !strcmp(key, "workload")) {
				size_t before = rb_diags_errors(L->d);

				nws = rb_campaign_load_workload(L, v, "workload", ws, 64);
				ok &= rb_diags_errors(L->d) == before;
			} else if (key && !strcmp(key, "matrix")) {
				ok &= load_matrix(L, v, axes, &naxes);
			} else if (key && !strcmp(key, "curve")) {
				load_curve(L, v, &x);
			} else if (key && !strcmp(key, "steady_state")) {
				load_steady(L, v, &x);
			} else if (key && !strcmp(key, "idle")) {
				const char *t = rb_yaml_scalar(v);

				if (!t || rb_parse_duration(t, &x.idle_ns))
					ERR(L, v, key, "'idle' must be a duration like 30s or 1m");
			} else if (key && !strcmp(key, "purge")) {
				load_purge(L, v, &x);
			} else if (key && !strcmp(key, "exec")) {
				load_exec(L, v, &x);
			} else if (key && !strcmp(key, "verdict")) {
				rb_campaign_load_verdict(L, v, &x.verdict, true);
			} else if (key && !strcmp(key, "drives")) {
				if (want(L, v, YAML_SEQUENCE_NODE, "drives",
					 "a list of the campaign's drives (paths, volume names)"))
					x.drives_node = v;
			} else if (key && !strcmp(key, "repeat")) {
				const char *t = rb_yaml_scalar(v);
				uint64_t u;

				x.repeat_node = v;
				if (!t || rb_parse_u64(t, &u) || u < 1 || u > 1000)
					ERR(L, v, key,
					    "'repeat' must be a whole number from 1 to 1000");
				else
					x.repeat = (unsigned)u;
			} else {
				char known[256];

				ERR(L, k, key, "unknown key '%s' in a phase (known: %s)",
				    key ? key : "?",
				    rb_ckey_known(RB_CK_PHASE, known, sizeof(known)));
			}
		}
		phase_conflicts(L, &x, naxes, nws);
		ok &= rb_diags_errors(L->d) == errs0;
		pv = add_phase(L, ph, pname, &x);
		if (ok && pv && phase_fits(L, ph, c->phases[c->nphases - 1].name, axes, naxes, &x))
			phase_points(L, ph, &x, axes, naxes, ws, nws);
		for (size_t i = 0; i < naxes; i++)
			free(axes[i].values);
	}
}
