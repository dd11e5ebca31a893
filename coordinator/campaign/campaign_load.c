// SPDX-License-Identifier: MIT
/*
 * The campaign loader's pieces: values read and checked, the targets (drives, volumes,
 * selectors, agent groups) and lock files. Called by campaign.c and campaign_expand.c;
 * calls neither.
 */
#include "campaign.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_keys.h"
#include "campaign_priv.h"
#include "units.h"
#include "yamlcfg.h"
#include "grow.h"
#include "idmap.h"

/*
 * Whether (agent, path) is listed already (a drive, a volume or a volume's member); else it
 * is noted. A fleet campaign lists tens of thousands of drives: a hash, not a scan per
 * drive. The strings are the YAML document's, alive while the campaign loads.
 */
static bool drive_listed(struct loader *L, const char *agent, const char *path)
{
	uint64_t h = drive_hash(agent, path);
	size_t cur = 0, i;

	while ((i = rb_idmap_next(&L->seen, h, &cur)) != SIZE_MAX)
		if (!strcmp(L->keys[i].agent, agent) && !strcmp(L->keys[i].path, path))
			return true;
	if (RB_GROW(L->keys, L->capkeys, L->nkeys, 64) || rb_idmap_add(&L->seen, h, L->nkeys))
		return false;
	L->keys[L->nkeys++] = (struct seen_key){ agent, path };
	return false;
}

void rb_campaign_known_keys(char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < rb_workload_nopts && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      rb_workload_opts[i].key);
}

bool rb_campaign_parse_bool(struct loader *L, yaml_node_t *n, const char *key, bool *ret)
{
	const char *v = rb_yaml_scalar(n);

	if (v && (!strcmp(v, "true") || !strcmp(v, "yes"))) {
		*ret = true;
		return true;
	}
	if (v && (!strcmp(v, "false") || !strcmp(v, "no"))) {
		*ret = false;
		return true;
	}
	ERR(L, n, key, "'%s' must be true or false%s%s%s", key, v ? ", not '" : "", v ? v : "",
	    v ? "'" : "");
	return false;
}

/* Validates one workload value on a scratch workload; errors name the key. */
bool rb_campaign_check_value(struct loader *L, const struct rb_opt *o, yaml_node_t *v)
{
	struct rb_workload scratch;
	char err[512];

	if (!rb_yaml_scalar(v)) {
		ERR(L, v, o->key, "'%s' must be a single value, not %s", o->key, rb_yaml_kind(v));
		return false;
	}
	rb_workload_defaults(&scratch);
	if (rb_opt_set(&scratch, o, rb_yaml_scalar(v), err, sizeof(err))) {
		ERR(L, v, o->key, "%s", err);
		return false;
	}
	return true;
}

/* A workload mapping: every key from the option table. */
size_t rb_campaign_load_workload(struct loader *L, yaml_node_t *n, const char *ctx,
				 struct setting *out, size_t max)
{
	size_t cnt = 0;
	char known[512];

	if (!want(L, n, YAML_MAPPING_NODE, ctx, "a mapping of workload settings"))
		return 0;
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, n); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
		const char *key = rb_yaml_scalar(k);
		const struct rb_opt *o = key ? rb_opt_find(key) : NULL;

		if (!o) {
			rb_campaign_known_keys(known, sizeof(known));
			ERR(L, k, key, "unknown key '%s' in %s (known: %s)", key ? key : "?", ctx,
			    known);
			continue;
		}
		if (!strcmp(o->key, "stripe") && !L->stripe_node)
			L->stripe_node = k;
		if (rb_campaign_check_value(L, o, v) && cnt < max)
			out[cnt++] = (struct setting){ o, rb_yaml_scalar(v) };
	}
	return cnt;
}

static void add_agent(struct rb_campaign *c, const char *agent)
{
	for (size_t i = 0; i < c->nagents; i++)
		if (!strcmp(c->agents[i], agent))
			return;
	char **v = realloc(c->agents, (c->nagents + 1) * sizeof(*v));

	if (!v)
		return;
	c->agents = v;
	c->agents[c->nagents++] = xstrdup(agent);
}

/*
 * A count of drives or agents: N (exactly), "all" (every match, at least one) or ">= N"
 * (every match, at least N). 0, or -EINVAL.
 */
static int parse_count(const char *val, unsigned *count, bool *at_least)
{
	uint64_t u;

	*at_least = false;
	if (!strcmp(val, "all")) {
		*count = 1;
		*at_least = true;
		return 0;
	}
	if (!strncmp(val, ">=", 2)) {
		val += 2;
		while (*val == ' ')
			val++;
		*at_least = true;
	}
	if (rb_parse_u64(val, &u) || !u || u > 100000)
		return -EINVAL;
	*count = (unsigned)u;
	return 0;
}

/* select: {model, serial, firmware, count} -- drives chosen when the agent connects. */
static void load_selector(struct loader *L, const char *agent, yaml_node_t *n,
			  struct rb_selector *tmpl)
{
	char known[256];
	struct rb_campaign *c = L->c;
	struct rb_selector sel = { .line = rb_yaml_line(n), .column = rb_yaml_col(n) };
	const char *model = "", *serial = "", *firmware = "";
	bool have_count = false;

	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, n); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);

		if (!key || !val) {
			ERR(L, v, key,
			    "'select' takes model, serial, firmware and count, each a scalar");
		} else if (!strcmp(key, "model")) {
			model = val;
		} else if (!strcmp(key, "serial")) {
			serial = val;
		} else if (!strcmp(key, "firmware")) {
			firmware = val;
		} else if (!strcmp(key, "count")) {
			if (parse_count(val, &sel.count, &sel.at_least))
				ERR(L, v, key,
				    "'count' must be the number of drives expected (from 1), 'all' or "
				    "'>= N', not '%s'",
				    val);
			have_count = true;
		} else {
			ERR(L, k, key, "unknown key '%s' in select (known: %s)", key,
			    rb_ckey_known(RB_CK_SELECT, known, sizeof(known)));
		}
	}
	if (!have_count)
		ERR(L, n, "count", "'select' needs 'count': how many drives it must find");
	/* 'all' of an agent's drives needs nothing to choose by; a number of them does */
	if (!*model && !*serial && !*firmware && !sel.at_least)
		ERR(L, n, "select",
		    "'select' needs model, serial or firmware to choose by (or count: all)");
	if (tmpl) {
		/* an agent group's: copied to each agent chosen */
		*tmpl = sel;
		tmpl->agent = xstrdup("");
		tmpl->model = xstrdup(model);
		tmpl->serial = xstrdup(serial);
		tmpl->firmware = xstrdup(firmware);
		return;
	}
	struct rb_selector *v = realloc(c->selectors, (c->nselectors + 1) * sizeof(*v));

	if (!v)
		return;
	c->selectors = v;
	sel.agent = xstrdup(agent);
	sel.model = xstrdup(model);
	sel.serial = xstrdup(serial);
	sel.firmware = xstrdup(firmware);
	c->selectors[c->nselectors++] = sel;
	add_agent(c, agent);
}

static void selector_copy(struct rb_selector *dst, const struct rb_selector *src, const char *agent)
{
	*dst = *src;
	dst->agent = xstrdup(agent);
	dst->model = xstrdup(src->model);
	dst->serial = xstrdup(src->serial);
	dst->firmware = xstrdup(src->firmware);
}

/* agents: {name: GLOB, labels: {K: V}, count: N} -- agents chosen when they connect. */
static bool is_volume(struct loader *L, yaml_node_t *dn)
{
	for (struct rb_yaml_it q = rb_yaml_pairs(&L->y, dn); rb_yaml_next(&q);) {
		const char *k = rb_yaml_scalar(q.key);

		if (k && !strcmp(k, "volume"))
			return true;
	}
	return false;
}

static void load_group(struct loader *L, yaml_node_t *n, yaml_node_t *drives, yaml_node_t *select)
{
	char known[256];
	struct rb_campaign *c = L->c;
	struct rb_agent_group g = { .line = rb_yaml_line(n), .column = rb_yaml_col(n) };
	bool have_count = false;

	g.name = xstrdup("");
	for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, n); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *v = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);

		if (key && !strcmp(key, "labels")) {
			if (!want(L, v, YAML_MAPPING_NODE, "labels", "a mapping of label: value"))
				continue;
			for (struct rb_yaml_it q = rb_yaml_pairs(&L->y, v); rb_yaml_next(&q);) {
				const char *lk = rb_yaml_scalar(q.key);
				const char *lv = rb_yaml_scalar(q.value);
				char **nl;

				if (!lk || !lv) {
					ERR(L, v, "labels", "labels are scalar 'key: value' pairs");
					continue;
				}
				nl = realloc(g.labels, (g.nlabels + 1) * sizeof(*nl));
				if (!nl)
					break;
				g.labels = nl;
				if (asprintf(&g.labels[g.nlabels], "%s=%s", lk, lv) < 0)
					break;
				g.nlabels++;
			}
		} else if (!key || !val) {
			ERR(L, v, key, "'agents' takes name, labels and count");
		} else if (!strcmp(key, "name")) {
			free(g.name);
			g.name = xstrdup(val);
		} else if (!strcmp(key, "count")) {
			if (parse_count(val, &g.count, &g.at_least))
				ERR(L, v, key,
				    "'count' must be the number of agents expected (from 1), 'all' or "
				    "'>= N', not '%s'",
				    val);
			have_count = true;
		} else {
			ERR(L, k, key, "unknown key '%s' in agents (known: %s)", key,
			    rb_ckey_known(RB_CK_AGENTS, known, sizeof(known)));
		}
	}
	if (!have_count)
		ERR(L, n, "count", "'agents' needs 'count': how many agents it must find");
	if (!*g.name && !g.nlabels)
		ERR(L, n, "agents", "'agents' needs a name pattern or labels to choose by");
	if (select) {
		g.has_select = true;
		load_selector(L, NULL, select, &g.select);
	}
	for (struct rb_yaml_it di = rb_yaml_items(&L->y, drives); rb_yaml_next(&di);) {
		yaml_node_t *dn = di.value;
		const char *path = rb_yaml_scalar(dn);
		char **nd;

		if (!path || !*path) {
			ERR(L, dn, "drives", "%s",
			    is_volume(L, dn)
				    ? "volumes are per agent: give a target with a volume its 'agent'"
				    : "a group's 'drives' are paths every agent offers (pin serials with "
				      "per-agent targets)");
			continue;
		}
		for (size_t i = 0; i < g.ndrives; i++)
			if (!strcmp(g.drives[i], path))
				ERR(L, dn, "drives", "drive '%s' is listed twice", path);
		nd = realloc(g.drives, (g.ndrives + 1) * sizeof(*nd));
		if (!nd)
			break;
		g.drives = nd;
		g.drives[g.ndrives++] = xstrdup(path);
	}
	if (drives && !g.ndrives)
		ERR(L, drives, "drives", "'drives' is empty");
	struct rb_agent_group *v = realloc(c->groups, (c->ngroups + 1) * sizeof(*v));

	if (!v)
		return;
	c->groups = v;
	c->groups[c->ngroups++] = g;
}

bool rb_agent_group_matches(const struct rb_agent_group *g, const char *name,
			    const char *const *keys, const char *const *values, size_t nlabels)
{
	if (g->sharded) {
		for (size_t i = 0; i < g->nonly; i++)
			if (!strcmp(g->only[i], name))
				return true;
		return false;
	}
	if (*g->name && fnmatch(g->name, name, 0))
		return false;
	for (size_t i = 0; i < g->nlabels; i++) {
		const char *eq = strchr(g->labels[i], '=');
		size_t kl = (size_t)(eq - g->labels[i]);
		bool found = false;

		for (size_t j = 0; j < nlabels && !found; j++)
			found = strlen(keys[j]) == kl && !strncmp(keys[j], g->labels[i], kl) &&
				!strcmp(values[j], eq + 1);
		if (!found)
			return false;
	}
	return true;
}

int rb_campaign_add_agent(struct rb_campaign *c, const char *agent, const struct rb_agent_group *g)
{
	add_agent(c, agent);
	for (size_t i = 0; i < g->ndrives; i++)
		if (rb_campaign_add_drive(c, agent, g->drives[i], ""))
			return -ENOMEM;
	if (g->has_select) {
		struct rb_selector *v = realloc(c->selectors, (c->nselectors + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->selectors = v;
		selector_copy(&c->selectors[c->nselectors++], &g->select, agent);
	}
	return 0;
}

/*
 * A filesystem for a drive: its type alone (ext4), or {type, mkfs_options, mount_options}.
 * Judged as the agent judges it (fsspec.h). Returns false after an error at n.
 */
static bool load_fs(struct loader *L, yaml_node_t *n, struct rb_fs_spec *ret)
{
	char known[128], err[512];
	const char *v = rb_yaml_scalar(n);

	memset(ret, 0, sizeof(*ret));
	if (v) {
		snprintf(ret->type, sizeof(ret->type), "%s", v);
	} else if (want(L, n, YAML_MAPPING_NODE, "filesystem",
			"ext4, xfs or {type, mkfs_options, mount_options}")) {
		for (struct rb_yaml_it q = rb_yaml_pairs(&L->y, n); rb_yaml_next(&q);) {
			yaml_node_t *qk = q.key;
			const char *k = rb_yaml_scalar(qk);
			const char *x = rb_yaml_scalar(q.value);
			char *dst = NULL;
			size_t len = 0;

			if (k && !strcmp(k, "type"))
				dst = ret->type, len = sizeof(ret->type);
			else if (k && !strcmp(k, "mkfs_options"))
				dst = ret->mkfs_options, len = sizeof(ret->mkfs_options);
			else if (k && !strcmp(k, "mount_options"))
				dst = ret->mount_options, len = sizeof(ret->mount_options);
			if (!dst) {
				ERR(L, qk, k ? k : "filesystem",
				    "unknown key '%s' in a filesystem (known: %s)", k ? k : "?",
				    rb_ckey_known(RB_CK_FS, known, sizeof(known)));
				continue;
			}
			if (!x || strlen(x) >= len) {
				ERR(L, qk, k, "'%s' must be a text of at most %zu characters", k,
				    len - 1);
				continue;
			}
			snprintf(dst, len, "%s", x);
		}
	} else {
		return false;
	}
	if (rb_fs_spec_check(ret, err, sizeof(err))) {
		ERR(L, n, "filesystem", "%s", err);
		return false;
	}
	return true;
}

static int push_drive(struct rb_campaign *c, const char *agent, const char *path,
		      const char *serial, const char *alias)
{
	struct rb_drive_ref *v = realloc(c->drives, (c->ndrives + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->drives = v;
	memset(&v[c->ndrives], 0, sizeof(*v));
	v[c->ndrives].agent = xstrdup(agent);
	v[c->ndrives].path = xstrdup(path);
	v[c->ndrives].serial = xstrdup(serial ? serial : "");
	v[c->ndrives].alias = xstrdup(alias ? alias : "");
	c->ndrives++;
	return 0;
}

/* A drive entry: a path, or {path, serial, alias, filesystem} (the serial pins its
 * identity; the alias, where given (ret_alias), names it in reports; the filesystem, where
 * asked for (ret_fs), is made on it). */
static bool drive_entry(struct loader *L, yaml_node_t *dn, const char *ctx, const char **ret_path,
			const char **ret_serial, const char **ret_alias, struct rb_fs_spec *ret_fs)
{
	char known[256], vknown[256];
	const char *path = rb_yaml_scalar(dn), *serial = "", *alias = "";

	if (dn->type == YAML_MAPPING_NODE) {
		for (struct rb_yaml_it q = rb_yaml_pairs(&L->y, dn); rb_yaml_next(&q);) {
			yaml_node_t *qk = q.key;
			const char *k2 = rb_yaml_scalar(qk);
			const char *v2 = rb_yaml_scalar(q.value);

			if (k2 && !strcmp(k2, "path") && v2)
				path = v2;
			else if (k2 && !strcmp(k2, "serial") && v2)
				serial = v2;
			else if (k2 && !strcmp(k2, "alias") && v2 && ret_alias && strlen(v2) < 64)
				alias = v2;
			else if (k2 && !strcmp(k2, "alias") && v2 && ret_alias)
				ERR(L, qk, k2, "an alias is at most 63 characters, not %zu",
				    strlen(v2));
			else if (k2 && !strcmp(k2, "filesystem") && ret_fs)
				load_fs(L, q.value, ret_fs);
			else
				ERR(L, qk, k2, "unknown key '%s' in a drive (known: %s%s%s)",
				    k2 ? k2 : "?",
				    ret_alias ? rb_ckey_known(RB_CK_DRIVE, known, sizeof(known))
					      : "path, serial",
				    strcmp(ctx, "drives") ? "" : "; or a volume: ",
				    strcmp(ctx, "drives")
					    ? ""
					    : rb_ckey_known(RB_CK_VOLUME, vknown, sizeof(vknown)));
		}
	}
	if (!path || !*path) {
		ERR(L, dn, ctx, "'%s' entries must be paths or {path, serial}, not %s", ctx,
		    rb_yaml_kind(dn));
		return false;
	}
	*ret_path = path;
	*ret_serial = serial;
	if (ret_alias)
		*ret_alias = alias;
	return true;
}

/*
 * A striped volume among an agent's drives: {volume: NAME, members: [drives], stripe: SIZE}.
 * It is one drive of the campaign, named NAME; its members are taken by it (listed once).
 */
static void load_volume(struct loader *L, const char *agent, yaml_node_t *dn)
{
	char known[256];
	struct rb_campaign *c = L->c;
	const char *name = NULL;
	yaml_node_t *members = NULL, *namenode = dn;
	uint64_t stripe = 128 * 1024;
	struct rb_member *mv = NULL;
	size_t nm = 0;

	for (struct rb_yaml_it q = rb_yaml_pairs(&L->y, dn); rb_yaml_next(&q);) {
		yaml_node_t *k = q.key, *v = q.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);

		if (key && !strcmp(key, "volume")) {
			name = val;
			namenode = v;
			if (!name || !*name || strchr(name, '/'))
				ERR(L, v, key,
				    "'volume' is the volume's name: a word, not a path "
				    "(no '/')");
		} else if (key && !strcmp(key, "members")) {
			if (want(L, v, YAML_SEQUENCE_NODE, "members", "a list of drives"))
				members = v;
		} else if (key && !strcmp(key, "stripe")) {
			if (!val || rb_parse_size(val, &stripe) || !stripe || stripe % 512 ||
			    stripe > (1ULL << 30))
				ERR(L, v, key,
				    "'stripe' is the volume's unit: a size such as 128k, a "
				    "multiple of 512 up to 1g%s%s%s",
				    val ? ", not '" : "", val ? val : "", val ? "'" : "");
		} else {
			ERR(L, k, key, "unknown key '%s' in a volume (known: %s)", key ? key : "?",
			    rb_ckey_known(RB_CK_VOLUME, known, sizeof(known)));
		}
	}
	if (!name || !*name || strchr(name, '/'))
		return;
	if (!members) {
		ERR(L, dn, "members", "volume '%s' has no 'members': the drives it stripes over",
		    name);
		return;
	}
	for (struct rb_yaml_it it = rb_yaml_items(&L->y, members); rb_yaml_next(&it);) {
		yaml_node_t *mn = it.value;
		const char *path, *serial;
		struct rb_member *n;

		if (!drive_entry(L, mn, "members", &path, &serial, NULL, NULL))
			continue;
		/* a drive may be in several volumes (phases choose which they measure) */
		bool twice = false;

		for (size_t i = 0; i < nm; i++)
			twice |= !strcmp(mv[i].path, path);
		if (twice) {
			ERR(L, mn, "members", "drive '%s' is in volume '%s' twice", path,
			    name ? name : "?");
			continue;
		}
		n = realloc(mv, (nm + 1) * sizeof(*n));
		if (!n)
			break;
		mv = n;
		mv[nm].path = xstrdup(path);
		mv[nm].serial = xstrdup(serial);
		nm++;
	}
	if (!nm) {
		if (!rb_yaml_count(members))
			ERR(L, members, "members", "volume '%s' has no members", name);
		free(mv);
		return;
	}
	if (drive_listed(L, agent, name)) {
		ERR(L, namenode, "volume", "'%s' of agent '%s' is listed twice", name, agent);
	} else if (!push_drive(c, agent, name, "", "")) {
		struct rb_drive_ref *d = &c->drives[c->ndrives - 1];

		d->members = mv;
		d->nmembers = nm;
		d->stripe = stripe;
		d->line = rb_yaml_line(dn);
		d->column = rb_yaml_col(dn);
		return;
	}
	for (size_t i = 0; i < nm; i++) {
		free(mv[i].path);
		free(mv[i].serial);
	}
	free(mv);
}

void rb_campaign_load_targets(struct loader *L, yaml_node_t *n)
{
	char known[256];
	struct rb_campaign *c = L->c;

	if (!want(L, n, YAML_SEQUENCE_NODE, "targets", "a list of {agent, drives}"))
		return;
	if (!rb_yaml_count(n))
		ERR(L, n, "targets", "'targets' is empty: name at least one agent and its drives");
	for (struct rb_yaml_it it = rb_yaml_items(&L->y, n); rb_yaml_next(&it);) {
		yaml_node_t *t = it.value, *drives = NULL;
		const char *agent = NULL;
		yaml_node_t *select = NULL, *group = NULL, *fsn = NULL;
		struct rb_fs_spec tfs = { 0 };

		if (!want(L, t, YAML_MAPPING_NODE, "targets", "a list of {agent, drives}"))
			continue;
		for (struct rb_yaml_it p = rb_yaml_pairs(&L->y, t); rb_yaml_next(&p);) {
			yaml_node_t *k = p.key, *v = p.value;
			const char *key = rb_yaml_scalar(k);

			if (key && !strcmp(key, "agent")) {
				if (want(L, v, YAML_SCALAR_NODE, "agent", "an agent name"))
					agent = rb_yaml_scalar(v);
			} else if (key && !strcmp(key, "agents")) {
				if (want(L, v, YAML_MAPPING_NODE, "agents",
					 "a mapping: name (a pattern), labels, count"))
					group = v;
			} else if (key && !strcmp(key, "drives")) {
				if (want(L, v, YAML_SEQUENCE_NODE, "drives", "a list of paths"))
					drives = v;
			} else if (key && !strcmp(key, "select")) {
				if (want(L, v, YAML_MAPPING_NODE, "select",
					 "a mapping: model, serial, firmware, count"))
					select = v;
			} else if (key && !strcmp(key, "filesystem")) {
				if (load_fs(L, v, &tfs))
					fsn = v;
			} else {
				ERR(L, k, key, "unknown key '%s' in a target (known: %s)",
				    key ? key : "?",
				    rb_ckey_known(RB_CK_TARGET, known, sizeof(known)));
			}
		}
		if (agent && group) {
			ERR(L, group, "agents",
			    "a target has 'agent' (one) or 'agents' (a group), "
			    "not both");
			continue;
		}
		if (!agent && !group) {
			ERR(L, t, "agent", "target has no 'agent' (or 'agents')");
			continue;
		}
		if (drives && select) {
			ERR(L, select, "select", "a target has 'drives' or 'select', not both");
			continue;
		}
		if (!drives && !select) {
			ERR(L, t, "drives", "target for %s%s%s has no 'drives' (or 'select')",
			    agent ? "agent '" : "an agent group", agent ? agent : "",
			    agent ? "'" : "");
			continue;
		}
		if (fsn && !drives) {
			ERR(L, fsn, "filesystem",
			    "a filesystem is made on drives listed by path ('drives'); a target's "
			    "'select' cannot take one yet: list its drives");
			continue;
		}
		if (group) {
			load_group(L, group, drives, select);
			continue;
		}
		if (select) {
			load_selector(L, agent, select, NULL);
			continue;
		}
		add_agent(c, agent);
		for (struct rb_yaml_it di = rb_yaml_items(&L->y, drives); rb_yaml_next(&di);) {
			yaml_node_t *dn = di.value;
			const char *path, *serial, *alias;
			struct rb_fs_spec fs = tfs;

			if (is_volume(L, dn)) {
				if (fsn)
					ERR(L, dn, "filesystem",
					    "a striped volume cannot take a filesystem (rackbench "
					    "stripes its IO itself); list the volume in a target "
					    "without one");
				load_volume(L, agent, dn);
				continue;
			}
			if (!drive_entry(L, dn, "drives", &path, &serial, &alias, &fs))
				continue;
			if (drive_listed(L, agent, path)) {
				ERR(L, dn, "drives", "drive '%s' of agent '%s' is listed twice",
				    path, agent);
				continue;
			}
			for (size_t d = 0; *alias && d < c->ndrives; d++)
				if (!strcmp(c->drives[d].alias, alias))
					ERR(L, dn, "alias",
					    "alias '%s' is drive '%s' of agent '%s' already: an alias "
					    "names one drive",
					    alias, c->drives[d].path, c->drives[d].agent);
			if (push_drive(c, agent, path, serial, alias))
				return;
			c->drives[c->ndrives - 1].fs = fs;
		}
		if (!rb_yaml_count(drives))
			ERR(L, drives, "drives", "'drives' of agent '%s' is empty", agent);
	}
}

int rb_campaign_add_drive(struct rb_campaign *c, const char *agent, const char *path,
			  const char *serial)
{
	return push_drive(c, agent, path, serial, "");
}
