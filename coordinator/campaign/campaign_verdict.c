// SPDX-License-Identifier: MIT
/*
 * A campaign's `verdict:` (the root's, a phase's, a preset's): each rule stored in
 * struct rb_verdict_rules where the key table (campaign_keys.c) says; a phase takes the
 * performance rules only, since health is judged over the whole run. And its
 * `fleet_verdict:`, the parameters of the fleet's verdicts (`rackbench judge`'s) that
 * `fleet run` judges with once every rack has ended.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_keys.h"
#include "campaign_priv.h"
#include "units.h"
#include "verdict.h"

/* One rule of a verdict into its place in r, as the key table says. */
static void store_rule(struct loader *L, yaml_node_t *v, const struct rb_ckey *k,
		       struct rb_verdict_rules *r)
{
	double *at = (double *)(void *)((char *)r + k->off);
	const char *s = rb_yaml_scalar(v);
	uint64_t u;
	bool b;

	switch (k->type) {
	case RB_CK_BOOL:
		if (rb_campaign_parse_bool(L, v, k->name, &b))
			*at = b;
		break;
	case RB_CK_DURATION:
		if (!s || rb_parse_duration(s, &u) || !u)
			ERR(L, v, k->name, "'%s' must be a latency such as 2ms or 500us", k->name);
		else
			*at = (double)u;
		break;
	default:
		if (!s || rb_parse_u64(s, &u))
			ERR(L, v, k->name, "'%s' must be a whole number, not '%s'", k->name,
			    s ? s : rb_yaml_kind(v));
		else if ((strstr(k->name, "_pct") && !strstr(k->name, "wear") && u > 100) ||
			 (!strcmp(k->name, "cliff_window") && u < 2))
			ERR(L, v, k->name, "'%s' must be %s, not %" PRIu64, k->name,
			    !strcmp(k->name, "cliff_window") ? "2 or more"
							     : "from 0 (not judged) to 100",
			    u);
		else /* a share of 0 is kept: not judged, a preset's rule turned off */
			*at = (double)u;
		break;
	}
}

void rb_campaign_load_verdict(struct loader *L, yaml_node_t *v, struct rb_verdict_rules *r,
			      bool phase)
{
	if (!want(L, v, YAML_MAPPING_NODE, "verdict",
		  "a mapping of rules such as {critical_warning: true, max_temp_c: 70}"))
		return;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, v); rb_yaml_next(&p);) {
		yaml_node_t *kn = p.key, *vn = p.value;
		const char *key = rb_yaml_scalar(kn);
		const struct rb_ckey *k = rb_ckey_find(RB_CK_VERDICT, key);
		char known[512];

		if (!k)
			ERR(L, kn, key, "unknown key '%s' in verdict (known: %s)", key ? key : "?",
			    rb_ckey_known(RB_CK_VERDICT, known, sizeof(known)));
		else if (phase && rb_verdict_key_is_health(key))
			ERR(L, kn, key,
			    "'%s' judges a drive's health over the whole run: give it in the "
			    "campaign's own 'verdict', not a phase's",
			    key);
		else
			store_rule(L, vn, k, r);
	}
}

/* A value as an error shows it: 'text', or its kind ("a list"). */
static const char *shown(yaml_node_t *v, char *buf, size_t len)
{
	const char *s = rb_yaml_scalar(v);

	if (!s)
		return rb_yaml_kind(v);
	snprintf(buf, len, "'%s'", s);
	return buf;
}

/* One key of fleet_verdict into the campaign's parameters; errors name its path. */
static void store_fleet(struct loader *L, yaml_node_t *v, const struct rb_ckey *k)
{
	struct rb_fleet_params *p = &L->c->fleet_verdict.params;
	const char *s = rb_yaml_scalar(v);
	char *end = NULL, words[64], was[128];
	double x = s ? strtod(s, &end) : NAN;
	uint64_t u = 0;
	int i;

	if (!strcmp(k->name, "margin")) {
		if (!s || end == s || *end || !(x > 1) || x > RB_FLEET_MAX_MARGIN)
			ERR(L, v, k->name,
			    "'fleet_verdict.margin' must be a factor above 1 like 2 or 1.5, not %s",
			    shown(v, was, sizeof(was)));
		else
			p->margin = x;
	} else if (!strcmp(k->name, "domain")) {
		if ((i = rb_ckey_choice(k, s)) < 0)
			ERR(L, v, k->name, "'fleet_verdict.domain' must be %s, not %s",
			    rb_ckey_choices_text(k, words, sizeof(words)),
			    shown(v, was, sizeof(was)));
		else
			p->by_host = i == 1;
	} else if (!strcmp(k->name, "wait")) {
		if (!s || rb_parse_duration(s, &u))
			ERR(L, v, k->name,
			    "'fleet_verdict.wait' must be a duration such as 60s or "
			    "5m, not %s",
			    shown(v, was, sizeof(was)));
		else
			L->c->fleet_verdict.wait_ns = u;
	} else if (!s || rb_parse_u64(s, &u) || u < 1 || u > RB_FLEET_MAX_COUNT) {
		ERR(L, v, k->name, "'fleet_verdict.%s' must be a count of 1 or more, not %s",
		    k->name, shown(v, was, sizeof(was)));
	} else if (!strcmp(k->name, "min_points")) {
		p->min_points = (unsigned)u;
	} else {
		p->cluster = (unsigned)u;
	}
}

void rb_campaign_load_fleet_verdict(struct loader *L, yaml_node_t *v)
{
	const char *s = rb_yaml_scalar(v);
	char known[256];

	/* true: the judge's defaults; false: none (as without the key) */
	if (s && (!strcmp(s, "true") || !strcmp(s, "false"))) {
		L->c->fleet_verdict.on = !strcmp(s, "true");
		return;
	}
	if (v->type != YAML_MAPPING_NODE) {
		ERR(L, v, "fleet_verdict",
		    "'fleet_verdict' must be true, false or a mapping of the judge's keys such as "
		    "{margin: 2, cluster: 3}, not %s%s%s",
		    s ? "'" : rb_yaml_kind(v), s ? s : "", s ? "'" : "");
		return;
	}
	L->c->fleet_verdict.on = true;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, v); rb_yaml_next(&p);) {
		const char *key = rb_yaml_scalar(p.key);
		const struct rb_ckey *k = rb_ckey_find(RB_CK_FLEETV, key);

		if (!k)
			ERR(L, p.key, key, "unknown key '%s' in fleet_verdict (known: %s)",
			    key ? key : "?", rb_ckey_known(RB_CK_FLEETV, known, sizeof(known)));
		else
			store_fleet(L, p.value, k);
	}
}
