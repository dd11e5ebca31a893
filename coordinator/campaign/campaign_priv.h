/* SPDX-License-Identifier: MIT */
/*
 * What the files of the campaign loader share: the loader's state while a campaign file
 * is read, the helpers that read and check its values, and the calls between the files.
 * campaign.c (the root keys, presets, the checks, the loaded campaign) calls
 * campaign_expand.c (phases into points) and campaign_load.c (values, targets, locks);
 * campaign_expand.c calls campaign_load.c; campaign_load.c calls neither. Private to
 * those files; campaign.h is the module's API.
 */
#ifndef RB_CAMPAIGN_PRIV_H
#define RB_CAMPAIGN_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "campaign.h"
#include "idmap.h"
#include "yamlcfg.h"

/* A workload key as a campaign sets it: the option, and its value as written. */
struct setting {
	const struct rb_opt *opt;
	const char *value;
};

/* The loader's state while one campaign file (and its preset, its lock) is read. */
struct loader {
	struct rb_yaml y;
	struct rb_diags *d;
	struct rb_campaign *c;
	struct setting defaults[64];
	size_t ndefaults;
	struct rb_idmap seen; /* keys[] by (agent, path) */
	struct seen_key {
		const char *agent, *path;
	} * keys;
	size_t nkeys, capkeys;
	yaml_node_t *stripe_node; /* where a workload first sets 'stripe' */
	bool points_full;	  /* the point limit was reported */
};

#define ERR(L, node, subject, ...) rb_yaml_error(&(L)->y, (L)->d, node, subject, __VA_ARGS__)

/* A device's key (agent, path) for the loader's indexes (rb_idmap). */
static inline uint64_t drive_hash(const char *agent, const char *path)
{
	return rb_hash_str(rb_hash_str(RB_HASH_INIT, agent), path);
}

/* Whether n is of type t; else an error at n: "'key' must be WHAT, not ...". */
static inline bool want(struct loader *L, yaml_node_t *n, yaml_node_type_t t, const char *key,
			const char *what)
{
	if (n->type == t)
		return true;
	ERR(L, n, key, "'%s' must be %s, not %s", key, what, rb_yaml_kind(n));
	return false;
}

/* strdup(), "" for NULL. */
static inline char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

/* campaign_load.c: values read and checked (known_keys: the workload keys, for errors) */
void rb_campaign_known_keys(char *buf, size_t len);
bool rb_campaign_parse_bool(struct loader *L, yaml_node_t *n, const char *key, bool *ret);
bool rb_campaign_check_value(struct loader *L, const struct rb_opt *o, yaml_node_t *v);
size_t rb_campaign_load_workload(struct loader *L, yaml_node_t *n, const char *ctx,
				 struct setting *out, size_t max);

/* campaign_load.c: targets; campaign_lock.c: lock files */
void rb_campaign_load_targets(struct loader *L, yaml_node_t *n);
void rb_campaign_load_lock(struct loader *L, yaml_node_t *n);
/* A selector's or an agent group's strings freed (campaign_model.c). */
void rb_selector_release(struct rb_selector *s);
/* A drive reference's strings and members freed (the campaign's and a shard's cut). */
void rb_drive_ref_release(struct rb_drive_ref *d);
void rb_agent_group_release(struct rb_agent_group *g);
/* preset: NAME, with its overrides (campaign_preset.c). */
void rb_campaign_load_preset(struct loader *L, yaml_node_t *n, yaml_node_t *overrides);

/* campaign_verdict.c: a verdict's rules into r (a phase's: performance rules only) */
void rb_campaign_load_verdict(struct loader *L, yaml_node_t *v, struct rb_verdict_rules *r,
			      bool phase);

/* campaign_verdict.c: fleet_verdict (true, false, or a mapping of the judge's keys) */
void rb_campaign_load_fleet_verdict(struct loader *L, yaml_node_t *v);

/* campaign_expand.c: phases, each expanded into its points */
void rb_campaign_load_phases(struct loader *L, yaml_node_t *n);

#endif
