// SPDX-License-Identifier: MIT
#include "campaign.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "endpoint.h"
#include "fname.h"
#include "presets.h"
#include "units.h"
#include "yamlcfg.h"

#define MAX_CAMPAIGN_BYTES (4u << 20)
#define MAX_POINTS 100000

struct setting {
	const struct rb_opt *opt;
	const char *value;
};

struct axis {
	const struct rb_opt *opt;
	const char **values;
	size_t n;
};

struct loader {
	struct rb_yaml y;
	struct rb_diags *d;
	struct rb_campaign *c;
	struct setting defaults[64];
	size_t ndefaults;
	size_t *seen, seen_mask;	/* keys by (agent, path): index + 1, open addressing */
	struct seen_key {
		const char *agent, *path;
	} *keys;
	size_t nkeys, capkeys;
	yaml_node_t *stripe_node;	/* where a workload first sets 'stripe' */
	bool points_full;		/* the point limit was reported */
};

static size_t drive_hash(const char *agent, const char *path)
{
	uint64_t h = 1469598103934665603ULL;

	for (const char *p = agent; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return (size_t)h;
}

/*
 * Whether (agent, path) is listed already (a drive, a volume or a volume's member); else it
 * is noted. A fleet campaign lists tens of thousands of drives: a hash, not a scan per
 * drive. The strings are the YAML document's, alive while the campaign loads.
 */
static bool drive_listed(struct loader *L, const char *agent, const char *path)
{
	size_t h;

	if (!L->seen || L->nkeys * 2 >= L->seen_mask) {
		size_t cap = L->seen ? (L->seen_mask + 1) * 2 : 64;
		size_t *n = calloc(cap, sizeof(*n));

		if (!n)
			return false;
		free(L->seen);
		L->seen = n;
		L->seen_mask = cap - 1;
		for (size_t i = 0; i < L->nkeys; i++) {
			h = drive_hash(L->keys[i].agent, L->keys[i].path) & L->seen_mask;
			while (L->seen[h])
				h = (h + 1) & L->seen_mask;
			L->seen[h] = i + 1;
		}
	}
	for (h = drive_hash(agent, path) & L->seen_mask; L->seen[h]; h = (h + 1) & L->seen_mask) {
		const struct seen_key *d = &L->keys[L->seen[h] - 1];

		if (!strcmp(d->agent, agent) && !strcmp(d->path, path))
			return true;
	}
	if (L->nkeys == L->capkeys) {
		size_t cap = L->capkeys ? L->capkeys * 2 : 64;
		struct seen_key *k = realloc(L->keys, cap * sizeof(*k));

		if (!k)
			return false;
		L->keys = k;
		L->capkeys = cap;
	}
	L->keys[L->nkeys] = (struct seen_key){ agent, path };
	L->seen[h] = ++L->nkeys;
	return false;
}

#define ERR(L, node, subject, ...) rb_yaml_error(&(L)->y, (L)->d, node, subject, __VA_ARGS__)

static void known_keys(char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < rb_workload_nopts && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      rb_workload_opts[i].key);
}

static bool want(struct loader *L, yaml_node_t *n, yaml_node_type_t t, const char *key,
		 const char *what)
{
	if (n->type == t)
		return true;
	ERR(L, n, key, "'%s' must be %s, not %s", key, what, rb_yaml_kind(n));
	return false;
}

static bool parse_bool(struct loader *L, yaml_node_t *n, const char *key, bool *ret)
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
static bool check_value(struct loader *L, const struct rb_opt *o, yaml_node_t *v)
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
static size_t load_workload(struct loader *L, yaml_node_t *n, const char *ctx,
			    struct setting *out, size_t max)
{
	size_t cnt = 0;
	char known[512];

	if (!want(L, n, YAML_MAPPING_NODE, ctx, "a mapping of workload settings"))
		return 0;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rb_yaml_get(&L->y, p->key), *v = rb_yaml_get(&L->y, p->value);
		const char *key = rb_yaml_scalar(k);
		const struct rb_opt *o = key ? rb_opt_find(key) : NULL;

		if (!o) {
			known_keys(known, sizeof(known));
			ERR(L, k, key, "unknown key '%s' in %s (known: %s)", key ? key : "?", ctx,
			    known);
			continue;
		}
		if (!strcmp(o->key, "stripe") && !L->stripe_node)
			L->stripe_node = k;
		if (check_value(L, o, v) && cnt < max)
			out[cnt++] = (struct setting){ o, rb_yaml_scalar(v) };
	}
	return cnt;
}

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
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

/* select: {model, serial, firmware, count} -- drives chosen when the agent connects. */
static void load_selector(struct loader *L, const char *agent, yaml_node_t *n,
			  struct rb_selector *tmpl)
{
	struct rb_campaign *c = L->c;
	struct rb_selector sel = { .line = rb_yaml_line(n), .column = rb_yaml_col(n) };
	const char *model = "", *serial = "", *firmware = "";
	bool have_count = false;

	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rb_yaml_get(&L->y, p->key), *v = rb_yaml_get(&L->y, p->value);
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);
		uint64_t u;

		if (!key || !val) {
			ERR(L, v, key, "'select' takes model, serial, firmware and count, each a scalar");
		} else if (!strcmp(key, "model")) {
			model = val;
		} else if (!strcmp(key, "serial")) {
			serial = val;
		} else if (!strcmp(key, "firmware")) {
			firmware = val;
		} else if (!strcmp(key, "count")) {
			if (rb_parse_u64(val, &u) || !u || u > 100000)
				ERR(L, v, key, "'count' must be the number of drives expected, from 1");
			else
				sel.count = (unsigned)u;
			have_count = true;
		} else {
			ERR(L, k, key, "unknown key '%s' in select (known: model, serial, firmware, "
				       "count)", key);
		}
	}
	if (!have_count)
		ERR(L, n, "count", "'select' needs 'count': how many drives it must find");
	if (!*model && !*serial && !*firmware)
		ERR(L, n, "select", "'select' needs model, serial or firmware to choose by");
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

static void selector_copy(struct rb_selector *dst, const struct rb_selector *src,
			  const char *agent)
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
	for (yaml_node_pair_t *q = dn->type == YAML_MAPPING_NODE ? dn->data.mapping.pairs.start
								 : NULL;
	     q && q < dn->data.mapping.pairs.top; q++) {
		const char *k = rb_yaml_scalar(rb_yaml_get(&L->y, q->key));

		if (k && !strcmp(k, "volume"))
			return true;
	}
	return false;
}

static void load_group(struct loader *L, yaml_node_t *n, yaml_node_t *drives, yaml_node_t *select)
{
	struct rb_campaign *c = L->c;
	struct rb_agent_group g = { .line = rb_yaml_line(n), .column = rb_yaml_col(n) };
	bool have_count = false;

	g.name = xstrdup("");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rb_yaml_get(&L->y, p->key), *v = rb_yaml_get(&L->y, p->value);
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);
		uint64_t u;

		if (key && !strcmp(key, "labels")) {
			if (!want(L, v, YAML_MAPPING_NODE, "labels", "a mapping of label: value"))
				continue;
			for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
			     q < v->data.mapping.pairs.top; q++) {
				const char *lk = rb_yaml_scalar(rb_yaml_get(&L->y, q->key));
				const char *lv = rb_yaml_scalar(rb_yaml_get(&L->y, q->value));
				char **nl = realloc(g.labels, (g.nlabels + 1) * sizeof(*nl));

				if (!lk || !lv) {
					ERR(L, v, "labels", "labels are scalar 'key: value' pairs");
					continue;
				}
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
			if (rb_parse_u64(val, &u) || !u || u > 100000)
				ERR(L, v, key, "'count' must be the number of agents expected, from 1");
			else
				g.count = (unsigned)u;
			have_count = true;
		} else {
			ERR(L, k, key, "unknown key '%s' in agents (known: name, labels, count)", key);
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
	for (yaml_node_item_t *di = drives ? drives->data.sequence.items.start : NULL;
	     drives && di < drives->data.sequence.items.top; di++) {
		yaml_node_t *dn = rb_yaml_get(&L->y, *di);
		const char *path = rb_yaml_scalar(dn);
		char **nd;

		if (!path || !*path) {
			ERR(L, dn, "drives", "%s", is_volume(L, dn)
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

int rb_campaign_add_agent(struct rb_campaign *c, const char *agent,
			  const struct rb_agent_group *g)
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

static int push_drive(struct rb_campaign *c, const char *agent, const char *path,
		      const char *serial)
{
	struct rb_drive_ref *v = realloc(c->drives, (c->ndrives + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->drives = v;
	memset(&v[c->ndrives], 0, sizeof(*v));
	v[c->ndrives].agent = xstrdup(agent);
	v[c->ndrives].path = xstrdup(path);
	v[c->ndrives].serial = xstrdup(serial ? serial : "");
	c->ndrives++;
	return 0;
}

/* A drive entry: a path, or {path, serial} (the serial pins its identity). */
static bool drive_entry(struct loader *L, yaml_node_t *dn, const char *ctx, const char **ret_path,
			const char **ret_serial)
{
	const char *path = rb_yaml_scalar(dn), *serial = "";

	if (dn->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *q = dn->data.mapping.pairs.start; q < dn->data.mapping.pairs.top;
		     q++) {
			yaml_node_t *qk = rb_yaml_get(&L->y, q->key);
			const char *k2 = rb_yaml_scalar(qk);
			const char *v2 = rb_yaml_scalar(rb_yaml_get(&L->y, q->value));

			if (k2 && !strcmp(k2, "path") && v2)
				path = v2;
			else if (k2 && !strcmp(k2, "serial") && v2)
				serial = v2;
			else
				ERR(L, qk, k2, "unknown key '%s' in a drive (known: path, serial%s)",
				    k2 ? k2 : "?",
				    strcmp(ctx, "drives") ? "" : "; or a volume: volume, members, stripe");
		}
	}
	if (!path || !*path) {
		ERR(L, dn, ctx, "'%s' entries must be paths or {path, serial}, not %s", ctx,
		    rb_yaml_kind(dn));
		return false;
	}
	*ret_path = path;
	*ret_serial = serial;
	return true;
}


/*
 * A striped volume among an agent's drives: {volume: NAME, members: [drives], stripe: SIZE}.
 * It is one drive of the campaign, named NAME; its members are taken by it (listed once).
 */
static void load_volume(struct loader *L, const char *agent, yaml_node_t *dn)
{
	struct rb_campaign *c = L->c;
	const char *name = NULL;
	yaml_node_t *members = NULL, *namenode = dn;
	uint64_t stripe = 128 * 1024;
	struct rb_member *mv = NULL;
	size_t nm = 0;

	for (yaml_node_pair_t *q = dn->data.mapping.pairs.start; q < dn->data.mapping.pairs.top;
	     q++) {
		yaml_node_t *k = rb_yaml_get(&L->y, q->key), *v = rb_yaml_get(&L->y, q->value);
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);

		if (key && !strcmp(key, "volume")) {
			name = val;
			namenode = v;
			if (!name || !*name || strchr(name, '/'))
				ERR(L, v, key, "'volume' is the volume's name: a word, not a path "
					       "(no '/')");
		} else if (key && !strcmp(key, "members")) {
			if (want(L, v, YAML_SEQUENCE_NODE, "members", "a list of drives"))
				members = v;
		} else if (key && !strcmp(key, "stripe")) {
			if (!val || rb_parse_size(val, &stripe) || !stripe || stripe % 512 ||
			    stripe > (1ULL << 30))
				ERR(L, v, key, "'stripe' is the volume's unit: a size such as 128k, a "
					       "multiple of 512 up to 1g%s%s%s",
				    val ? ", not '" : "", val ? val : "", val ? "'" : "");
		} else {
			ERR(L, k, key, "unknown key '%s' in a volume (known: volume, members, stripe)",
			    key ? key : "?");
		}
	}
	if (!name || !*name || strchr(name, '/'))
		return;
	if (!members) {
		ERR(L, dn, "members", "volume '%s' has no 'members': the drives it stripes over",
		    name);
		return;
	}
	for (yaml_node_item_t *it = members->data.sequence.items.start;
	     it < members->data.sequence.items.top; it++) {
		yaml_node_t *mn = rb_yaml_get(&L->y, *it);
		const char *path, *serial;
		struct rb_member *n;

		if (!drive_entry(L, mn, "members", &path, &serial))
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
		if (members->data.sequence.items.start == members->data.sequence.items.top)
			ERR(L, members, "members", "volume '%s' has no members", name);
		free(mv);
		return;
	}
	if (drive_listed(L, agent, name)) {
		ERR(L, namenode, "volume", "'%s' of agent '%s' is listed twice", name, agent);
	} else if (!push_drive(c, agent, name, "")) {
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

static void load_targets(struct loader *L, yaml_node_t *n)
{
	struct rb_campaign *c = L->c;

	if (!want(L, n, YAML_SEQUENCE_NODE, "targets", "a list of {agent, drives}"))
		return;
	if (n->data.sequence.items.start == n->data.sequence.items.top)
		ERR(L, n, "targets", "'targets' is empty: name at least one agent and its drives");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *t = rb_yaml_get(&L->y, *it), *drives = NULL;
		const char *agent = NULL;
		yaml_node_t *select = NULL, *group = NULL;

		if (!want(L, t, YAML_MAPPING_NODE, "targets", "a list of {agent, drives}"))
			continue;
		for (yaml_node_pair_t *p = t->data.mapping.pairs.start; p < t->data.mapping.pairs.top;
		     p++) {
			yaml_node_t *k = rb_yaml_get(&L->y, p->key), *v = rb_yaml_get(&L->y, p->value);
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
			} else {
				ERR(L, k, key, "unknown key '%s' in a target (known: agent, agents, drives, "
					       "select)",
				    key ? key : "?");
			}
		}
		if (agent && group) {
			ERR(L, group, "agents", "a target has 'agent' (one) or 'agents' (a group), "
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
			    agent ? "agent '" : "an agent group", agent ? agent : "", agent ? "'" : "");
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
		for (yaml_node_item_t *di = drives->data.sequence.items.start;
		     di < drives->data.sequence.items.top; di++) {
			yaml_node_t *dn = rb_yaml_get(&L->y, *di);
			const char *path, *serial;

			if (is_volume(L, dn)) {
				load_volume(L, agent, dn);
				continue;
			}
			if (!drive_entry(L, dn, "drives", &path, &serial))
				continue;
			if (drive_listed(L, agent, path)) {
				ERR(L, dn, "drives", "drive '%s' of agent '%s' is listed twice",
				    path, agent);
				continue;
			}
			if (push_drive(c, agent, path, serial))
				return;
		}
		if (drives->data.sequence.items.start == drives->data.sequence.items.top)
			ERR(L, drives, "drives", "'drives' of agent '%s' is empty", agent);
	}
}

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
	unsigned ses;
};

/* purge: {method, ses} -- the drives returned to a known state before what follows. */
static void load_purge(struct loader *L, yaml_node_t *v, struct phase_extra *x)
{
	static const char *const methods[] = { "format", "sanitize", "sanitize-crypto",
					       "deallocate", "discard", "zero", NULL };

	x->purge_node = v;
	if (!want(L, v, YAML_MAPPING_NODE, "purge", "a mapping: method (and ses for format)"))
		return;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rb_yaml_get(&L->y, p->key), *n = rb_yaml_get(&L->y, p->value);
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(n);

		if (key && !strcmp(key, "method")) {
			size_t i;

			for (i = 0; methods[i] && !(val && !strcmp(val, methods[i])); i++)
				;
			if (!methods[i])
				ERR(L, n, key, "'method' must be format, sanitize, sanitize-crypto, "
					       "deallocate, discard or zero");
			else
				snprintf(x->purge, sizeof(x->purge), "%s", val);
		} else if (key && !strcmp(key, "ses")) {
			if (val && !strcmp(val, "user"))
				x->ses = 1;
			else if (val && !strcmp(val, "crypto"))
				x->ses = 2;
			else
				ERR(L, n, key, "'ses' must be user or crypto (a Format's secure erase)");
		} else {
			ERR(L, k, key, "unknown key '%s' in purge (known: method, ses)", key ? key : "?");
		}
	}
	if (!x->purge[0] && rb_diags_errors(L->d) == 0)
		ERR(L, v, "method", "'purge' needs 'method'");
	if (x->ses && strcmp(x->purge, "format"))
		ERR(L, v, "ses", "'ses' goes with method format only");
}

static void load_curve(struct loader *L, yaml_node_t *v, struct phase_extra *x)
{
	x->curve_node = v;
	if (!want(L, v, YAML_SEQUENCE_NODE, "curve", "a list of percentages of the maximum rate"))
		return;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		yaml_node_t *n = rb_yaml_get(&L->y, *it);
		const char *t = rb_yaml_scalar(n);
		char *end = NULL;
		double pct = t ? strtod(t, &end) : NAN;

		if (end && *end == '%')
			end++;
		if (!t || end == t || *end || !(pct > 0) || pct > 1000) {
			ERR(L, n, "curve", "a curve percentage must be a number above 0 and at most "
					   "1000, not '%s'", t ? t : rb_yaml_kind(n));
			continue;
		}
		if (x->ncurve == sizeof(x->curve) / sizeof(x->curve[0])) {
			ERR(L, n, "curve", "a curve has at most 64 percentages");
			break;
		}
		x->curve[x->ncurve++] = pct;
	}
	if (!x->ncurve && v->data.sequence.items.start == v->data.sequence.items.top)
		ERR(L, v, "curve", "'curve' is empty: give the percentages, e.g. [10, 50, 90, 100]");
}

static void load_steady(struct loader *L, yaml_node_t *v, struct phase_extra *x)
{
	x->steady_node = v;
	x->rounds = 25;
	x->window = 5;
	if (!want(L, v, YAML_MAPPING_NODE, "steady_state",
		  "a mapping: max_rounds, window, track, metric"))
		return;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rb_yaml_get(&L->y, p->key), *n = rb_yaml_get(&L->y, p->value);
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(n);
		uint64_t u;

		if (key && (!strcmp(key, "max_rounds") || !strcmp(key, "window"))) {
			if (!val || rb_parse_u64(val, &u) || u < (key[0] == 'w' ? 2 : 1) || u > 1000)
				ERR(L, n, key, "'%s' must be a whole number from %d to 1000", key,
				    key[0] == 'w' ? 2 : 1);
			else if (key[0] == 'w')
				x->window = (unsigned)u;
			else
				x->rounds = (unsigned)u;
		} else if (key && !strcmp(key, "rolling")) {
			parse_bool(L, n, key, &x->rolling);
		} else if (key && !strcmp(key, "metric")) {
			if (val && !strcmp(val, "iops"))
				x->metric = RB_TRACK_IOPS;
			else if (val && !strcmp(val, "mbps"))
				x->metric = RB_TRACK_MBPS;
			else if (val && !strcmp(val, "mean_latency"))
				x->metric = RB_TRACK_MEAN_LAT;
			else
				ERR(L, n, key, "'metric' must be iops, mbps or mean_latency");
		} else if (key && !strcmp(key, "track")) {
			if (!want(L, n, YAML_MAPPING_NODE, "track",
				  "a mapping of matrix keys to the tracking point's values"))
				continue;
			for (yaml_node_pair_t *q = n->data.mapping.pairs.start;
			     q < n->data.mapping.pairs.top && x->ntrack < 16; q++) {
				yaml_node_t *tk = rb_yaml_get(&L->y, q->key);
				const char *tkey = rb_yaml_scalar(tk);
				const char *tval = rb_yaml_scalar(rb_yaml_get(&L->y, q->value));
				const struct rb_opt *o = tkey ? rb_opt_find(tkey) : NULL;

				if (!o || !tval) {
					ERR(L, tk, tkey, "'track' takes matrix keys and one value each");
					continue;
				}
				x->track[x->ntrack].opt = o;
				x->track[x->ntrack].value = tval;
				x->track_nodes[x->ntrack++] = tk;
			}
		} else {
			ERR(L, k, key, "unknown key '%s' in steady_state (known: max_rounds, window, "
				       "track, metric, rolling)", key ? key : "?");
		}
	}
	if (x->rolling && (x->ntrack || x->rounds != 25))
		ERR(L, v, "rolling", "a rolling steady state judges each point over its own "
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
				ERR(L, at, "curve", "a curve sets the rates itself: point '%s' has "
						    "rate_iops", tmpl[i].name);
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
static bool phase_fits(struct loader *L, yaml_node_t *ph, const char *pname, const struct axis *axes,
		       size_t naxes, const struct phase_extra *x)
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
			snprintf(shape + len, sizeof(shape) - len, "%s%llu %s", len ? " times " : "",
				 (unsigned long long)times, what);
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

static void load_phases(struct loader *L, yaml_node_t *n)
{
	struct rb_campaign *c = L->c;

	if (!want(L, n, YAML_SEQUENCE_NODE, "phases", "a list of phases"))
		return;
	if (n->data.sequence.items.start == n->data.sequence.items.top)
		ERR(L, n, "phases", "'phases' is empty: give at least one phase with a workload");
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *ph = rb_yaml_get(&L->y, *it);
		struct setting ws[64];
		struct axis axes[16];
		size_t nws = 0, naxes = 0;
		const char *pname = NULL;
		char defname[32];
		bool ok = true;
		struct phase_extra x;
		size_t errs0 = rb_diags_errors(L->d);

		memset(&x, 0, sizeof(x));
		if (!want(L, ph, YAML_MAPPING_NODE, "phases", "a list of phases"))
			continue;
		for (yaml_node_pair_t *p = ph->data.mapping.pairs.start;
		     p < ph->data.mapping.pairs.top; p++) {
			yaml_node_t *k = rb_yaml_get(&L->y, p->key), *v = rb_yaml_get(&L->y, p->value);
			const char *key = rb_yaml_scalar(k);

			if (key && !strcmp(key, "name")) {
				if (want(L, v, YAML_SCALAR_NODE, "name", "a phase name"))
					pname = rb_yaml_scalar(v);
			} else if (key && !strcmp(key, "workload")) {
				size_t before = rb_diags_errors(L->d);

				nws = load_workload(L, v, "workload", ws, 64);
				ok &= rb_diags_errors(L->d) == before;
			} else if (key && !strcmp(key, "matrix")) {
				if (!want(L, v, YAML_MAPPING_NODE, "matrix",
					  "a mapping of workload keys to lists of values")) {
					ok = false;
					continue;
				}
				for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
				     q < v->data.mapping.pairs.top; q++) {
					yaml_node_t *mk = rb_yaml_get(&L->y, q->key);
					yaml_node_t *mv = rb_yaml_get(&L->y, q->value);
					const char *mkey = rb_yaml_scalar(mk);
					const struct rb_opt *o = mkey ? rb_opt_find(mkey) : NULL;
					char known[512];

					if (!o) {
						known_keys(known, sizeof(known));
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
						if (ax->values && check_value(L, o, mv))
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
					size_t cnt = (size_t)(mv->data.sequence.items.top -
							      mv->data.sequence.items.start);
					ax->values = calloc(cnt + 1, sizeof(char *));
					if (!cnt)
						ERR(L, mv, mkey, "matrix key '%s' has no values", mkey);
					for (yaml_node_item_t *vi = mv->data.sequence.items.start;
					     ax->values && vi < mv->data.sequence.items.top; vi++) {
						yaml_node_t *vn = rb_yaml_get(&L->y, *vi);

						if (check_value(L, o, vn))
							ax->values[ax->n++] = rb_yaml_scalar(vn);
						else
							ok = false;
					}
					ok &= cnt > 0;
					naxes++;
				}
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
			} else if (key && !strcmp(key, "drives")) {
				if (want(L, v, YAML_SEQUENCE_NODE, "drives",
					 "a list of the campaign's drives (paths, volume names)"))
					x.drives_node = v;
			} else if (key && !strcmp(key, "repeat")) {
				const char *t = rb_yaml_scalar(v);
				uint64_t u;

				x.repeat_node = v;
				if (!t || rb_parse_u64(t, &u) || u < 1 || u > 1000)
					ERR(L, v, key, "'repeat' must be a whole number from 1 to 1000");
				else
					x.repeat = (unsigned)u;
			} else {
				ERR(L, k, key, "unknown key '%s' in a phase (known: name, workload, "
					       "matrix, curve, steady_state, idle, repeat, purge, drives)",
				    key ? key : "?");
			}
		}
		if (x.curve_node && x.steady_node)
			ERR(L, x.steady_node, "steady_state",
			    "a phase has either a curve or steady_state, not both (put the curve in "
			    "a phase after the steady-state one)");
		if (x.purge_node && (naxes || nws || x.curve_node || x.steady_node || x.repeat_node))
			ERR(L, x.purge_node, "purge",
			    "a purge phase purges and nothing else: no workload, matrix, curve, "
			    "steady_state or repeat");
		if (x.repeat_node && (x.curve_node || x.steady_node))
			ERR(L, x.repeat_node, "repeat",
			    "'repeat' runs a matrix again; a %s decides its own points",
			    x.curve_node ? "curve" : "steady state");
		ok &= rb_diags_errors(L->d) == errs0;
		snprintf(defname, sizeof(defname), "phase%zu", c->nphases + 1);
		struct rb_phase *pv = realloc(c->phases, (c->nphases + 1) * sizeof(*pv));

		if (pv) {
			c->phases = pv;
			memset(&c->phases[c->nphases], 0, sizeof(c->phases[0]));
			c->phases[c->nphases].name = xstrdup(pname ? pname : defname);
			c->phases[c->nphases].idle_ns = x.idle_ns;
			c->phases[c->nphases].steady_rounds = x.steady_node && !x.rolling ? x.rounds : 0;
			c->phases[c->nphases].steady_rolling = x.rolling;
			c->phases[c->nphases].steady_window = x.window;
			c->phases[c->nphases].metric = x.metric;
			c->phases[c->nphases].line = rb_yaml_line(ph);
			c->phases[c->nphases].column = rb_yaml_col(ph);
			for (yaml_node_item_t *di = x.drives_node ? x.drives_node->data.sequence.items.start
								  : NULL;
			     di && di < x.drives_node->data.sequence.items.top; di++) {
				struct rb_phase *P = &c->phases[c->nphases];
				const char *nm = rb_yaml_scalar(rb_yaml_get(&L->y, *di));
				char **nd;

				if (!nm || !*nm) {
					ERR(L, rb_yaml_get(&L->y, *di), "drives", "a phase's 'drives' are "
					    "names: a drive's path or a volume's name");
					continue;
				}
				nd = realloc(P->drives, (P->ndrives + 1) * sizeof(*nd));
				if (!nd)
					break;
				P->drives = nd;
				P->drives[P->ndrives++] = xstrdup(nm);
			}
			if (x.drives_node && !c->phases[c->nphases].ndrives)
				ERR(L, x.drives_node, "drives", "'drives' is empty: name the drives the "
				    "phase measures, or leave it out for all");
			c->nphases++;
		}
		if (ok && pv && phase_fits(L, ph, c->phases[c->nphases - 1].name, axes, naxes, &x)) {
			struct rb_workload wl;
			char err[256], name[256];

			rb_workload_defaults(&wl);
			for (size_t i = 0; i < L->ndefaults; i++)
				rb_opt_set(&wl, L->defaults[i].opt, L->defaults[i].value, err,
					   sizeof(err));
			for (size_t i = 0; i < nws; i++)
				rb_opt_set(&wl, ws[i].opt, ws[i].value, err, sizeof(err));
			snprintf(name, sizeof(name), "%s", c->phases[c->nphases - 1].name);
			size_t b = c->npoints;

			expand(L, (unsigned)c->nphases - 1, name, &wl, axes, naxes, 0, &wl, name,
			       sizeof(name), ph);
			c->phases[c->nphases - 1].npoints_per_round = c->npoints - b;
			if (x.purge[0] && c->npoints > b) {
				struct rb_point *q = &c->points[c->npoints - 1];
				char nm[256];

				snprintf(q->purge, sizeof(q->purge), "%s", x.purge);
				q->purge_ses = x.ses;
				snprintf(nm, sizeof(nm), "%.200s purge=%s", q->name, x.purge);
				snprintf(q->name, sizeof(q->name), "%s", nm);
			}
			if (x.ncurve || (x.steady_node && !x.rolling)) {
				long track = x.steady_node ? track_ordinal(L, &x, axes, naxes) : 0;

				if (track >= 0)
					shape_phase(L, b, &x, track, ph);
			} else if (x.repeat > 1) {
				/* the phase's points again, as a block, x.repeat times */
				size_t m = c->npoints - b;
				struct rb_point *tmpl = malloc((m + 1) * sizeof(*tmpl));
				char sfx[32];

				if (tmpl) {
					memcpy(tmpl, c->points + b, m * sizeof(*tmpl));
					c->npoints = b;
					for (unsigned r = 1; r <= x.repeat; r++)
						for (size_t i = 0; i < m; i++) {
							snprintf(sfx, sizeof(sfx), "repeat=%u", r);
							push_point(L, &tmpl[i], sfx, ph);
						}
					free(tmpl);
				}
			}
		}
		for (size_t i = 0; i < naxes; i++)
			free(axes[i].values);
	}
}

const char *const rb_campaign_keys[] = { "name",	      "listen",	      "insecure",
					 "key",	      "agent_keys",   "destructive",
					 "wipe_signatures", "results", "wait",
					 "on_agent_lost", "lost_wait", "defaults",
					 "targets",   "phases",	      "preset", "overrides",
					 "lock",      NULL };

/* lock: FILE -- pins each drive to the serial 'rackbench plan --lock' recorded. */
static void load_lock(struct loader *L, yaml_node_t *n)
{
	struct rb_campaign *c = L->c;
	const char *name = rb_yaml_scalar(n);
	char path[4096], *text = NULL;
	size_t len = 0;
	struct rb_yaml ly;
	yaml_node_t *root, *drives = NULL;
	bool *seen;
	size_t *mseen = NULL;
	struct lock_key {
		const char *agent, *path;
		size_t drive, member;
	} *keys = NULL;
	int e;

	if (!name || !*name) {
		ERR(L, n, "lock", "'lock' must be a file written by 'rackbench plan --lock'");
		return;
	}
	/* relative to the campaign file */
	if (name[0] != '/' && strchr(c->file, '/'))
		snprintf(path, sizeof(path), "%.*s/%s", (int)(strrchr(c->file, '/') - c->file), c->file,
			 name);
	else
		snprintf(path, sizeof(path), "%s", name);
	e = rb_read_file(path, 1 << 20, &text, &len);
	if (e) {
		ERR(L, n, "lock", "cannot read lock file '%s': %s", path, strerror(-e));
		return;
	}
	if (rb_yaml_load(&ly, path, text, len, L->d)) {
		free(text);
		return;
	}
	root = rb_yaml_root(&ly);
	for (yaml_node_pair_t *p = root && root->type == YAML_MAPPING_NODE
					   ? root->data.mapping.pairs.start
					   : NULL;
	     p && p < root->data.mapping.pairs.top; p++) {
		const char *key = rb_yaml_scalar(rb_yaml_get(&ly, p->key));

		if (key && !strcmp(key, "drives"))
			drives = rb_yaml_get(&ly, p->value);
	}
	seen = calloc(c->ndrives + 1, sizeof(bool));
	mseen = calloc(c->ndrives + 1, sizeof(size_t));
	/* every device by (agent, path): a fleet's lock is looked up hashed */
	size_t nkeys = 0, kcap = 16, kmask;

	for (size_t d = 0; d < c->ndrives; d++)
		nkeys += c->drives[d].nmembers ? c->drives[d].nmembers : 1;
	while (kcap < nkeys * 2)
		kcap *= 2;
	kmask = kcap - 1;
	keys = calloc(kcap, sizeof(*keys));
	for (size_t d = 0; keys && d < c->ndrives; d++)
		for (size_t m = 0; m < (c->drives[d].nmembers ? c->drives[d].nmembers : 1); m++) {
			const char *kp = c->drives[d].nmembers ? c->drives[d].members[m].path
							       : c->drives[d].path;
			size_t h = drive_hash(c->drives[d].agent, kp) & kmask;

			while (keys[h].path)
				h = (h + 1) & kmask;
			keys[h] = (struct lock_key){ c->drives[d].agent, kp, d, m };
		}
	if (!drives || drives->type != YAML_SEQUENCE_NODE || !seen || !mseen || !keys) {
		rb_yaml_error(&ly, L->d, root, "drives", "a lock file has 'drives', a list");
		goto out;
	}
	for (yaml_node_item_t *it = drives->data.sequence.items.start;
	     it < drives->data.sequence.items.top; it++) {
		yaml_node_t *dn = rb_yaml_get(&ly, *it);
		const char *agent = NULL, *dpath = NULL, *serial = NULL;
		size_t i;

		for (yaml_node_pair_t *q = dn->type == YAML_MAPPING_NODE ? dn->data.mapping.pairs.start
									 : NULL;
		     q && q < dn->data.mapping.pairs.top; q++) {
			const char *k = rb_yaml_scalar(rb_yaml_get(&ly, q->key));
			const char *v = rb_yaml_scalar(rb_yaml_get(&ly, q->value));

			if (k && !strcmp(k, "agent"))
				agent = v;
			else if (k && !strcmp(k, "path"))
				dpath = v;
			else if (k && !strcmp(k, "serial"))
				serial = v;
		}
		if (!agent || !dpath || !serial) {
			rb_yaml_error(&ly, L->d, dn, "drives", "a locked drive has agent, path and serial");
			continue;
		}
		/* a drive, or a volume's member (of every volume holding it): locked by path */
		bool any = false;
		const char *other = NULL;

		for (size_t h = drive_hash(agent, dpath) & kmask; keys[h].path; h = (h + 1) & kmask) {
			struct rb_drive_ref *d = &c->drives[keys[h].drive];
			char **pin = d->nmembers ? &d->members[keys[h].member].serial : &d->serial;

			if (strcmp(keys[h].agent, agent) || strcmp(keys[h].path, dpath))
				continue;
			any = true;
			i = keys[h].drive;
			seen[i] |= !d->nmembers;
			mseen[i] += d->nmembers > 0;
			if (!*serial)
				continue; /* no serial to pin (a file, a loop device) */
			if ((*pin)[0] && strcmp(*pin, serial)) {
				other = *pin;
				continue;
			}
			free(*pin);
			*pin = xstrdup(serial);
		}
		if (!any) {
			rb_yaml_error(&ly, L->d, dn, dpath,
				      "the lock names drive '%s' of agent '%s', which the campaign does "
				      "not target", dpath, agent);
			continue;
		}
		if (other)
			ERR(L, n, "lock", "drive '%s' of agent '%s' is pinned to serial '%s' here and "
					  "'%s' in the lock", dpath, agent, other, serial);
	}
	for (size_t i = 0; i < c->ndrives; i++)
		if (c->drives[i].nmembers ? mseen[i] < c->drives[i].nmembers : !seen[i])
			ERR(L, n, "lock", "%s '%s' of agent '%s' is not in the lock '%s'%s: run "
					  "'rackbench plan --lock' again",
			    c->drives[i].nmembers ? "volume" : "drive", c->drives[i].path,
			    c->drives[i].agent, path, c->drives[i].nmembers ? " (every member)" : "");
out:
	free(seen);
	free(mseen);
	free(keys);
	rb_yaml_release(&ly);
	free(text);
}

/* Applies 'overrides' to the points from first on, at the overrides' positions. */
static void apply_overrides(struct loader *L, yaml_node_t *ov, size_t first)
{
	struct rb_campaign *c = L->c;

	if (!want(L, ov, YAML_MAPPING_NODE, "overrides", "a mapping of workload keys (and idle)"))
		return;
	for (yaml_node_pair_t *p = ov->data.mapping.pairs.start; p < ov->data.mapping.pairs.top; p++) {
		yaml_node_t *k = rb_yaml_get(&L->y, p->key), *v = rb_yaml_get(&L->y, p->value);
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(v);
		const struct rb_opt *o = key ? rb_opt_find(key) : NULL;
		char err[256], a[RB_OPT_VALUE_MAX], b[RB_OPT_VALUE_MAX];

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
			ERR(L, k, key, "'overrides' takes workload keys and idle; '%s' is not one",
			    key ? key : "?");
			continue;
		}
		if (!check_value(L, o, v))
			continue;
		/* an override must not collapse what a phase varies */
		for (size_t i = first; i + 1 < c->npoints; i++) {
			const struct rb_point *x = &c->points[i], *y = &c->points[i + 1];

			if (x->phase == y->phase &&
			    strcmp(rb_opt_format(&x->wl, o, a, sizeof(a)),
				   rb_opt_format(&y->wl, o, b, sizeof(b)))) {
				ERR(L, k, key, "the preset's phase '%s' varies '%s': an override would "
					       "make its points alike", c->phases[x->phase].name, key);
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
static void load_preset(struct loader *L, yaml_node_t *n, yaml_node_t *overrides)
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
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		const char *key = rb_yaml_scalar(rb_yaml_get(&L->y, p->key));

		if (key && !strcmp(key, "defaults"))
			L->ndefaults = load_workload(L, rb_yaml_get(&L->y, p->value), "defaults",
						     L->defaults, 64);
	}
	for (size_t i = 0; i < nkeep && L->ndefaults < 64; i++)
		L->defaults[L->ndefaults++] = keep[i];
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		const char *key = rb_yaml_scalar(rb_yaml_get(&L->y, p->key));

		if (key && !strcmp(key, "phases"))
			load_phases(L, rb_yaml_get(&L->y, p->value));
	}
	L->y = saved;
	if (overrides)
		apply_overrides(L, overrides, first);
	rb_yaml_release(&py);
	L->ndefaults = nkeep;
	memcpy(L->defaults, keep, nkeep * sizeof(keep[0]));
}

uint64_t rb_volume_unit(const struct rb_drive_ref *d, const struct rb_point *p)
{
	return p->wl.stripe ? p->wl.stripe : d->stripe;
}

bool rb_point_has_drive(const struct rb_campaign *c, const struct rb_point *p, size_t d)
{
	const struct rb_phase *P = &c->phases[p->phase];

	for (size_t i = 0; i < P->ndrives; i++)
		if (!strcmp(P->drives[i], c->drives[d].path))
			return true;
	return !P->ndrives;
}

/*
 * Phase p measures its drives at once: no device may be in two of them (a drive in two
 * volumes, or a volume's member also measured alone). Returns the first clash found.
 */
static bool phase_clash(const struct rb_campaign *c, size_t ph, const char **ret_path,
			const char **ret_a, const char **ret_b, const char **ret_agent)
{
	struct rb_point probe = { .phase = (unsigned)ph };
	struct key {
		const char *agent, *path, *owner;
	} *tab;
	size_t n = 0, cap = 16, mask;
	bool clash = false;

	for (size_t d = 0; d < c->ndrives; d++)
		n += c->drives[d].nmembers ? c->drives[d].nmembers : 1;
	while (cap < n * 2)
		cap *= 2;
	mask = cap - 1;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return false;
	for (size_t d = 0; d < c->ndrives && !clash; d++) {
		const struct rb_drive_ref *dr = &c->drives[d];

		if (!rb_point_has_drive(c, &probe, d))
			continue;
		for (size_t m = 0; m < (dr->nmembers ? dr->nmembers : 1) && !clash; m++) {
			const char *path = dr->nmembers ? dr->members[m].path : dr->path;
			size_t h = drive_hash(dr->agent, path) & mask;

			for (; tab[h].path; h = (h + 1) & mask)
				if (!strcmp(tab[h].agent, dr->agent) && !strcmp(tab[h].path, path)) {
					clash = true;
					*ret_path = path;
					*ret_a = tab[h].owner;
					*ret_b = dr->path;
					*ret_agent = dr->agent;
					break;
				}
			if (!clash)
				tab[h] = (struct key){ dr->agent, path, dr->path };
		}
	}
	free(tab);
	return clash;
}

/*
 * Volumes against the phases: 'stripe' in a workload sets volumes' units (a campaign
 * setting it needs a volume); a phase's 'drives' name drives the campaign has; no phase
 * measures one device twice at once.
 */
static void check_volumes(struct loader *L, yaml_node_t *root)
{
	struct rb_campaign *c = L->c;
	size_t nvol = 0;

	for (size_t i = 0; i < c->ndrives; i++)
		nvol += c->drives[i].nmembers > 0;
	for (size_t k = 0; !nvol && k < c->npoints; k++)
		if (c->points[k].wl.stripe) {
			ERR(L, L->stripe_node ? L->stripe_node : root, "stripe",
			    "'stripe' in a campaign sets the unit of its volumes, and no target has "
			    "one (a volume is a drive entry {volume: NAME, members: [...], stripe: "
			    "SIZE})");
			break;
		}
	for (size_t ph = 0; ph < c->nphases; ph++) {
		const struct rb_phase *P = &c->phases[ph];
		const char *path, *x, *y, *agent;

		/* drives chosen when agents connect cannot be named before */
		for (size_t i = 0; i < P->ndrives && !c->nselectors; i++) {
			bool found = false;

			for (size_t d = 0; d < c->ndrives && !found; d++)
				found = !strcmp(c->drives[d].path, P->drives[i]);
			for (size_t g = 0; g < c->ngroups && !found; g++)
				for (size_t d = 0; d < c->groups[g].ndrives && !found; d++)
					found = !strcmp(c->groups[g].drives[d], P->drives[i]);
			if (!found)
				rb_diags_add(L->d, RB_SEV_ERROR, c->file, P->line, P->column, "drives",
					     "phase '%s' measures drive '%s', which no target has (a "
					     "drive's path or a volume's name)", P->name, P->drives[i]);
		}
		if (nvol && phase_clash(c, ph, &path, &x, &y, &agent))
			rb_diags_add(L->d, RB_SEV_ERROR, c->file, P->line, P->column, "drives",
				     "phase '%s' would measure '%s' of agent '%s' twice at once, in "
				     "'%s' and in '%s': give the phase 'drives' naming the ones it "
				     "measures", P->name, path, agent, x, y);
	}
}

static void load_root(struct loader *L, yaml_node_t *root)
{
	struct rb_campaign *c = L->c;
	yaml_node_t *targets = NULL, *phases = NULL, *preset = NULL, *overrides = NULL,
		    *lock = NULL;

	if (root->type != YAML_MAPPING_NODE) {
		ERR(L, root, NULL, "a campaign must be a mapping (name, targets, phases, ...), not %s",
		    rb_yaml_kind(root));
		return;
	}
	/* anchors and aliases are fine (libyaml resolves them); merge keys are not YAML 1.2 */
	bool merges = false;

	for (yaml_node_t *nd = L->y.doc.nodes.start; nd < L->y.doc.nodes.top; nd++) {
		if (nd->type != YAML_MAPPING_NODE)
			continue;
		for (yaml_node_pair_t *p = nd->data.mapping.pairs.start; p < nd->data.mapping.pairs.top;
		     p++) {
			yaml_node_t *k = rb_yaml_get(&L->y, p->key);
			const char *key = rb_yaml_scalar(k);

			if (key && !strcmp(key, "<<")) {
				ERR(L, k, "<<", "YAML merge keys ('<<') are not supported: write the "
						"keys out, or use an alias for a whole value, or 'defaults'");
				merges = true;
			}
		}
	}
	if (merges)
		return;
	/* defaults first: phases apply on top of them wherever they appear */
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		const char *key = rb_yaml_scalar(rb_yaml_get(&L->y, p->key));

		if (key && !strcmp(key, "defaults"))
			L->ndefaults = load_workload(L, rb_yaml_get(&L->y, p->value), "defaults",
						     L->defaults, 64);
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = rb_yaml_get(&L->y, p->key), *v = rb_yaml_get(&L->y, p->value);
		const char *key = rb_yaml_scalar(k);

		if (!key) {
			ERR(L, k, NULL, "keys must be plain words, not %s", rb_yaml_kind(k));
		} else if (!strcmp(key, "defaults")) {
			continue;
		} else if (!strcmp(key, "name")) {
			if (want(L, v, YAML_SCALAR_NODE, key, "a name")) {
				free(c->name);
				c->name = xstrdup(rb_yaml_scalar(v));
			}
		} else if (!strcmp(key, "listen")) {
			if (want(L, v, YAML_SCALAR_NODE, key, "an endpoint such as tcp://*:7470")) {
				free(c->listen);
				c->listen = xstrdup(rb_yaml_scalar(v));
				char why[256];

				if (rb_endpoint_check(c->listen, why, sizeof(why)))
					ERR(L, v, key, "'listen' must be tcp://HOST:PORT or ipc://PATH: %s",
					    why);
			}
		} else if (!strcmp(key, "key") || !strcmp(key, "agent_keys")) {
			if (want(L, v, YAML_SCALAR_NODE, key, "a file")) {
				char **dst = !strcmp(key, "key") ? &c->key : &c->agent_keys;

				free(*dst);
				*dst = xstrdup(rb_yaml_scalar(v));
			}
		} else if (!strcmp(key, "results")) {
			if (want(L, v, YAML_SCALAR_NODE, key, "a folder")) {
				free(c->results_dir);
				c->results_dir = xstrdup(rb_yaml_scalar(v));
			}
		} else if (!strcmp(key, "insecure")) {
			parse_bool(L, v, key, &c->insecure);
		} else if (!strcmp(key, "destructive")) {
			parse_bool(L, v, key, &c->destructive);
		} else if (!strcmp(key, "wipe_signatures")) {
			parse_bool(L, v, key, &c->wipe_signatures);
		} else if (!strcmp(key, "wait")) {
			const char *s = rb_yaml_scalar(v);

			if (!s || rb_parse_duration(s, &c->wait_ns))
				ERR(L, v, key, "'wait' must be a duration such as 30s or 2m%s%s%s",
				    s ? ", not '" : "", s ? s : "", s ? "'" : "");
		} else if (!strcmp(key, "on_agent_lost")) {
			const char *s = rb_yaml_scalar(v);

			if (s && !strcmp(s, "wait"))
				c->on_agent_lost = RB_LOST_WAIT;
			else if (s && !strcmp(s, "continue"))
				c->on_agent_lost = RB_LOST_CONTINUE;
			else if (s && !strcmp(s, "abort"))
				c->on_agent_lost = RB_LOST_ABORT;
			else
				ERR(L, v, key, "'on_agent_lost' must be wait, continue or abort");
		} else if (!strcmp(key, "lost_wait")) {
			const char *s = rb_yaml_scalar(v);

			if (!s || rb_parse_duration(s, &c->lost_wait_ns))
				ERR(L, v, key, "'lost_wait' must be a duration such as 60s");
		} else if (!strcmp(key, "targets")) {
			targets = v;
			load_targets(L, v);
		} else if (!strcmp(key, "phases")) {
			phases = v;
			load_phases(L, v);
		} else if (!strcmp(key, "preset")) {
			preset = v;
		} else if (!strcmp(key, "overrides")) {
			overrides = v;
		} else if (!strcmp(key, "lock")) {
			lock = v;
		} else {
			ERR(L, k, key,
			    "unknown key '%s' (known: name, listen, insecure, key, agent_keys, "
			    "destructive, wipe_signatures, results, wait, on_agent_lost, lost_wait, "
			    "defaults, targets, lock, preset, overrides, phases)",
			    key);
		}
	}
	if (!targets)
		ERR(L, root, "targets", "campaign has no 'targets'");
	else if (lock)
		load_lock(L, lock);
	if (preset && phases)
		ERR(L, preset, "preset", "a campaign has 'preset' or 'phases', not both");
	else if (preset)
		load_preset(L, preset, overrides);
	else if (overrides)
		ERR(L, overrides, "overrides", "'overrides' adjusts a preset: give 'preset' too");
	if (!phases && !preset)
		ERR(L, root, "phases", "campaign has no 'phases' (or 'preset')");
	check_volumes(L, root);
}

int rb_campaign_load(const char *file, const char *text, size_t len, struct rb_campaign **ret,
		     struct rb_diags *diags)
{
	struct loader L = { .d = diags };
	struct rb_campaign *c = calloc(1, sizeof(*c));
	size_t before = rb_diags_errors(diags);
	const char *base;

	if (!c)
		return -ENOMEM;
	L.c = c;
	c->file = xstrdup(file);
	c->text = malloc(len + 1);
	if (!c->text) {
		rb_campaign_free(c);
		return -ENOMEM;
	}
	if (len)
		memcpy(c->text, text, len);
	c->text[len] = '\0';
	c->text_len = len;
	c->listen = xstrdup("tcp://*:7470");
	c->results_dir = xstrdup(".");
	c->wait_ns = 60ULL * 1000000000ULL;
	c->lost_wait_ns = 60ULL * 1000000000ULL;
	base = strrchr(file, '/');
	c->name = xstrdup(base ? base + 1 : file);
	if (len && memchr(text, '\0', len)) {
		rb_diags_add(diags, RB_SEV_ERROR, file, 1, 1, NULL, "file holds a NUL byte");
	} else if (rb_yaml_load(&L.y, file, text, len, diags) == 0) {
		load_root(&L, rb_yaml_root(&L.y));
	}
	rb_yaml_release(&L.y);
	free(L.seen);
	free(L.keys);
	rb_diags_sort(diags);
	if (rb_diags_errors(diags) > before) {
		rb_campaign_free(c);
		return -EINVAL;
	}
	*ret = c;
	return 0;
}

int rb_campaign_load_file(const char *path, struct rb_campaign **ret, struct rb_diags *diags)
{
	char *text;
	size_t len;
	int r = rb_read_file(path, MAX_CAMPAIGN_BYTES, &text, &len);

	if (r) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path, "cannot read campaign: %s",
			     r == -EFBIG ? "larger than 4 MiB" : strerror(-r));
		return r;
	}
	r = rb_campaign_load(path, text, len, ret, diags);
	free(text);
	return r;
}

struct rb_campaign *rb_campaign_free(struct rb_campaign *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->nagents; i++)
		free(c->agents[i]);
	for (size_t i = 0; i < c->ndrives; i++) {
		free(c->drives[i].agent);
		free(c->drives[i].path);
		free(c->drives[i].serial);
		for (size_t m = 0; m < c->drives[i].nmembers; m++) {
			free(c->drives[i].members[m].path);
			free(c->drives[i].members[m].serial);
		}
		free(c->drives[i].members);
	}
	for (size_t i = 0; i < c->nphases; i++) {
		free(c->phases[i].name);
		for (size_t j = 0; j < c->phases[i].ndrives; j++)
			free(c->phases[i].drives[j]);
		free(c->phases[i].drives);
	}
	for (size_t i = 0; i < c->nselectors; i++) {
		free(c->selectors[i].agent);
		free(c->selectors[i].model);
		free(c->selectors[i].serial);
		free(c->selectors[i].firmware);
	}
	free(c->selectors);
	for (size_t i = 0; i < c->ngroups; i++) {
		struct rb_agent_group *g = &c->groups[i];

		free(g->name);
		for (size_t j = 0; j < g->nlabels; j++)
			free(g->labels[j]);
		free(g->labels);
		for (size_t j = 0; j < g->ndrives; j++)
			free(g->drives[j]);
		free(g->drives);
		if (g->has_select) {
			free(g->select.agent);
			free(g->select.model);
			free(g->select.serial);
			free(g->select.firmware);
		}
	}
	free(c->groups);
	free(c->agents);
	free(c->drives);
	free(c->phases);
	free(c->points);
	free(c->file);
	free(c->text);
	free(c->name);
	free(c->listen);
	free(c->results_dir);
	free(c->key);
	free(c->agent_keys);
	free(c);
	return NULL;
}

bool rb_campaign_writes(const struct rb_campaign *c)
{
	for (size_t i = 0; i < c->npoints; i++)
		if (rb_workload_writes(&c->points[i].wl) || c->points[i].purge[0])
			return true;
	return false;
}

char *rb_campaign_methodology(const struct rb_campaign *c, char *buf, size_t len)
{
	/* FNV-1a 64 over every point's phase, name and settings, in order */
	uint64_t h = 0xcbf29ce484222325ULL;
	char set[RB_WORKLOAD_DUMP_MAX];

	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_point *p = &c->points[i];
		const char *parts[3] = { c->phases[p->phase].name, p->name,
					 rb_workload_dump(&p->wl, set, sizeof(set)) };

		for (size_t k = 0; k < 3; k++) {
			for (const char *s = parts[k]; *s; s++) {
				h ^= (unsigned char)*s;
				h *= 0x100000001b3ULL;
			}
			h ^= (unsigned char)(k == 2 ? '\n' : '\t');
			h *= 0x100000001b3ULL;
		}
	}
	snprintf(buf, len, "%016llx", (unsigned long long)h);
	return buf;
}

int rb_campaign_results_path(const struct rb_campaign *c, time_t now, char *buf, size_t len)
{
	char stem[RB_FNAME_MAX + 1], ts[32];
	struct tm tm;
	size_t dlen = strlen(c->results_dir);
	int n;

	if (mkdir(c->results_dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	rb_fname_sanitize(c->name, stem, sizeof(stem));
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	n = snprintf(buf, len, "%s/%s-%s.h5", c->results_dir, stem, ts);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* what follows the folder and its '/' is one component, and not "." or ".." */
	if (strncmp(buf, c->results_dir, dlen) || buf[dlen] != '/' || strchr(buf + dlen + 1, '/') ||
	    !strcmp(buf + dlen + 1, ".") || !strcmp(buf + dlen + 1, ".."))
		return -EXDEV;
	return 0;
}

int rb_campaign_add_drive(struct rb_campaign *c, const char *agent, const char *path,
			  const char *serial)
{
	return push_drive(c, agent, path, serial);
}
