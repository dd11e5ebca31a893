// SPDX-License-Identifier: MIT
/*
 * A campaign's `verdict:` (the root's, a phase's, a preset's): each rule stored in
 * struct rb_verdict_rules where the key table (campaign_keys.c) says; a phase takes the
 * performance rules only, since health is judged over the whole run.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
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
