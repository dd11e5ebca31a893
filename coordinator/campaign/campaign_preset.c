// SPDX-License-Identifier: MIT
/*
 * 'preset: NAME' in a campaign: the review's procedure (presets.c) loaded as the
 * campaign's phases, and 'overrides' applied to its points.
 */
#include "campaign.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "campaign_keys.h"
#include "campaign_priv.h"
#include "endpoint.h"
#include "fname.h"
#include "presets.h"
#include "units.h"
#include "fname.h"
#include "yamlcfg.h"

/* KEY=VALUE set in a point's exec parameters ("KEY=VALUE" lines): replaced, or added. */
static bool exec_param_set(struct rb_point *p, const char *key, const char *val)
{
	char out[sizeof(p->exec_params)], *save = NULL;
	char in[sizeof(p->exec_params)];
	size_t n = 0, kl = strlen(key);
	bool done = false;

	snprintf(in, sizeof(in), "%s", p->exec_params);
	for (char *l = strtok_r(in, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		bool mine = !strncmp(l, key, kl) && l[kl] == '=';

		if (n < sizeof(out))
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s%s\n", mine ? key : l,
					      mine ? "=" : "", mine ? val : "");
		done |= mine;
	}
	if (!done)
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s=%s\n", key, val);
	if (n >= sizeof(out))
		return false;
	memcpy(p->exec_params, out, n + 1);
	return true;
}

/* overrides' exec: {KEY: VALUE}: the parameters of every exec point of the preset. */
static void override_exec(struct loader *L, yaml_node_t *v, size_t first)
{
	struct rb_campaign *c = L->c;

	if (!want(L, v, YAML_MAPPING_NODE, "exec", "a mapping of the exec command's parameters"))
		return;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, v); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key;
		const char *key = rb_yaml_scalar(k);
		const char *val = rb_yaml_scalar(p.value);
		bool any = false;

		if (!rb_plain_word(key, "_") || !rb_plain_value(val)) {
			ERR(L, k, "exec", "exec parameters are words (see a phase's 'exec')");
			continue;
		}
		for (size_t i = first; i < c->npoints; i++)
			if (c->points[i].exec[0]) {
				any = true;
				if (!exec_param_set(&c->points[i], key, val))
					ERR(L, k, key,
					    "exec parameters take at most %zu characters",
					    sizeof(c->points[i].exec_params) - 1);
			}
		if (!any)
			ERR(L, k, "exec", "the preset has no exec phase for 'exec' to adjust");
	}
}

/* Applies 'overrides' to the points from first on, at the overrides' positions. */
static void apply_overrides(struct loader *L, yaml_node_t *ov, size_t first)
{
	struct rb_campaign *c = L->c;

	if (!want(L, ov, YAML_MAPPING_NODE, "overrides", "a mapping of workload keys (and idle)"))
		return;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, ov); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);
		const struct rb_opt *o = key ? rb_opt_find(key) : NULL;
		char err[256], a[RB_OPT_VALUE_MAX], b[RB_OPT_VALUE_MAX];

		if (key && !strcmp(key, "exec")) {
			override_exec(L, v, first);
			continue;
		}
		if (key && !strcmp(key, "idle")) {
			uint64_t ns;

			if (!val || rb_parse_duration(val, &ns)) {
				ERR(L, v, key, "'idle' must be a duration like 30s or 1m");
				continue;
			}
			for (size_t i = 0; i < c->nphases; i++)
				if (c->phases[i].idle_ns)
					c->phases[i].idle_ns = ns;
			continue;
		}
		if (!o || !val) {
			ERR(L, k, key,
			    "'overrides' takes workload keys, idle and exec; '%s' is not one",
			    key ? key : "?");
			continue;
		}
		if (!rb_campaign_check_value(L, o, v))
			continue;
		/* an override must not collapse what a phase varies */
		for (size_t i = first; i + 1 < c->npoints; i++) {
			const struct rb_point *x = &c->points[i], *y = &c->points[i + 1];

			if (x->phase == y->phase &&
			    strcmp(rb_opt_format(&x->wl, o, a, sizeof(a)),
				   rb_opt_format(&y->wl, o, b, sizeof(b)))) {
				ERR(L, k, key,
				    "the preset's phase '%s' varies '%s': an override would "
				    "make its points alike",
				    c->phases[x->phase].name, key);
				goto next;
			}
		}
		for (size_t i = first; i < c->npoints; i++) {
			struct rb_workload *wl = &c->points[i].wl;
			bool sized = wl->passes || wl->io_size;

			/* runtime shortens time-based points; passes and io_size size-based ones */
			if (!strcmp(key, "runtime") && sized)
				continue;
			if (!strcmp(key, "passes") && !wl->passes)
				continue;
			if (!strcmp(key, "io_size") && !wl->io_size)
				continue;
			rb_opt_set(wl, o, val, err, sizeof(err));
			if (rb_workload_check(wl, err, sizeof(err))) {
				ERR(L, v, key, "override '%s' makes point '%s' invalid: %s", key,
				    c->points[i].name, err);
				break;
			}
		}
	next:;
	}
}

/* preset: NAME -- the preset's defaults and phases, as if written here. */
void rb_campaign_load_preset(struct loader *L, yaml_node_t *n, yaml_node_t *overrides)
{
	const char *name = rb_yaml_scalar(n);
	const struct rb_preset *pr = name ? rb_preset_find(name) : NULL;
	struct rb_yaml saved = L->y, py;
	struct setting keep[64];
	size_t nkeep = L->ndefaults, first = L->c->npoints;
	char file[128];
	yaml_node_t *root;

	if (!pr) {
		char known[512] = "";
		size_t np;
		const struct rb_preset *all = rb_presets(&np);

		for (size_t i = 0; i < np; i++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
				 i ? ", " : "", all[i].name);
		ERR(L, n, "preset", "unknown preset '%s' (known: %s; see 'rackbench presets')",
		    name ? name : "?", known);
		return;
	}
	snprintf(file, sizeof(file), "<preset %s>", pr->name);
	if (rb_yaml_load(&py, file, pr->text, strlen(pr->text), L->d))
		return;
	root = rb_yaml_root(&py);
	memcpy(keep, L->defaults, nkeep * sizeof(keep[0]));
	L->y = py;
	/* the preset's defaults, then the campaign's on top */
	L->ndefaults = 0;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, root); rb_yaml_next(&p);) {
		const char *key = rb_yaml_scalar(p.key);

		if (key && !strcmp(key, "defaults"))
			L->ndefaults =
				rb_campaign_load_workload(L, p.value, "defaults", L->defaults, 64);
	}
	for (size_t i = 0; i < nkeep && L->ndefaults < 64; i++)
		L->defaults[L->ndefaults++] = keep[i];
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, root); rb_yaml_next(&p);) {
		const char *key = rb_yaml_scalar(p.key);

		if (key && !strcmp(key, "phases"))
			rb_campaign_load_phases(L, p.value);
		if (key && !strcmp(key, "verdict")) {
			/* the preset's rules, the campaign's own over them */
			struct rb_verdict_rules pv, given = L->c->verdict;

			rb_verdict_rules_init(&pv);
			rb_campaign_load_verdict(L, p.value, &pv, false);
			rb_verdict_rules_merge(&L->c->verdict, &pv, &given);
		}
	}
	L->y = saved;
	if (overrides)
		apply_overrides(L, overrides, first);
	rb_yaml_release(&py);
	L->ndefaults = nkeep;
	memcpy(L->defaults, keep, nkeep * sizeof(keep[0]));
}
