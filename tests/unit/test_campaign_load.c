// SPDX-License-Identifier: MIT
/*
 * The campaign loader's targets and lock files (coordinator/campaign/campaign_load.c): every bad
 * key or value of a target, a drive, a volume, a selector or an agent group is refused
 * with a diagnostic at its FILE:LINE:COL naming what was wrong; a lock file pins each
 * drive (and each member of a volume) to its serial, and every way a lock does not fit
 * the campaign is named; agent groups match by name pattern and labels.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "campaign.h"
#include "capture.h"
#include "log.h"

#define PHASES "phases:\n  - workload: {rw: randread}\n"

/* Where the first occurrence of at is in text, as 1-based line and column. */
static void position(const char *text, const char *at, unsigned *line, unsigned *col)
{
	const char *p = strstr(text, at), *bol = text;

	*line = 1;
	if (!p)
		fail_msg("'%s' is not in the case's text", at);
	for (const char *q = text; q < p; q++)
		if (*q == '\n') {
			(*line)++;
			bol = q + 1;
		}
	*col = (unsigned)(p - bol) + 1;
}

/* text does not load: -EINVAL, and a diagnostic of x.yaml at the place of 'at' holds msg. */
static void refused(const char *text, const char *at, const char *msg)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	unsigned line, col;
	bool found = false;

	position(text, at, &line, &col);
	rb_diags_init(&d);
	if (rb_campaign_load("x.yaml", text, strlen(text), &c, &d) != -EINVAL)
		fail_msg("loaded: %s", text);
	assert_null(c);
	for (size_t i = 0; i < d.n && !found; i++)
		found = strstr(d.v[i].message, msg) && d.v[i].line == line &&
			d.v[i].column == col && !strcmp(d.v[i].file, "x.yaml") &&
			d.v[i].severity == RB_SEV_ERROR;
	if (!found) {
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "  %u:%u %s\n", d.v[i].line, d.v[i].column, d.v[i].message);
		fail_msg("no error '%s' at %u:%u in:\n%s", msg, line, col, text);
	}
	rb_diags_release(&d);
}

static void test_target_errors(void **st)
{
	static const struct {
		const char *targets, *at, *msg;
	} cases[] = {
		{ "targets: []\n", "[]", "'targets' is empty" },
		{ "targets:\n  - just-a-name\n", "just-a-name",
		  "'targets' must be a list of {agent, drives}" },
		{ "targets:\n  - {agent: [a], drives: [x]}\n", "[a]",
		  "'agent' must be an agent name" },
		{ "targets:\n  - {agents: x, drives: [y]}\n", "x, drives",
		  "'agents' must be a mapping: name (a pattern), labels, count" },
		{ "targets:\n  - {agent: a, drives: x}\n", "x}",
		  "'drives' must be a list of paths" },
		{ "targets:\n  - {agent: a, select: 3}\n", "3}",
		  "'select' must be a mapping: model, serial, firmware, count" },
		{ "targets:\n  - {agent: a, drives: [x], colour: red}\n", "colour",
		  "unknown key 'colour' in a target (known: agent, agents, drives, select, filesystem)" },
		{ "targets:\n  - {agent: a, agents: {name: h, count: 2}, drives: [x]}\n", "{name",
		  "a target has 'agent' (one) or 'agents' (a group), not both" },
		{ "targets:\n  - {drives: [x]}\n", "{drives",
		  "target has no 'agent' (or 'agents')" },
		{ "targets:\n  - {agent: a, drives: [x], select: {model: M, count: 1}}\n", "{model",
		  "a target has 'drives' or 'select', not both" },
		{ "targets:\n  - {agent: a}\n", "{agent",
		  "target for agent 'a' has no 'drives' (or 'select')" },
		{ "targets:\n  - {agents: {name: h, count: 1}}\n", "{agents",
		  "target for an agent group has no 'drives' (or 'select')" },
		{ "targets:\n  - {agent: a, drives: [x, x]}\n", "x]",
		  "drive 'x' of agent 'a' is listed twice" },
		{ "targets:\n  - {agent: a, drives: [x]}\n  - {agent: a, drives: [y, x]}\n",
		  "x]}\nphases", "drive 'x' of agent 'a' is listed twice" },
		{ "targets:\n  - {agent: a, drives: []}\n", "[]",
		  "'drives' of agent 'a' is empty" },
		{ "targets:\n  - {agent: a, drives: [[x]]}\n", "[x]]",
		  "'drives' entries must be paths or {path, serial}" },
		{ "targets:\n  - {agent: a, drives: [{serial: S}]}\n", "{serial",
		  "'drives' entries must be paths or {path, serial}" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];

		snprintf(text, sizeof(text), "%s" PHASES, cases[i].targets);
		refused(text, cases[i].at, cases[i].msg);
	}
}

static void test_selector_and_group_errors(void **st)
{
	static const struct {
		const char *target, *at, *msg;
	} cases[] = {
		{ "{agent: a, select: {model: [M], count: 1}}", "[M]",
		  "'select' takes model, serial, firmware and count, each a scalar" },
		{ "{agent: a, select: {model: M, count: 0}}", "0}",
		  "'count' must be the number of drives expected (from 1), 'all' or '>= N', not '0'" },
		{ "{agent: a, select: {model: M, count: '>= x'}}", "'>= x'",
		  "'count' must be the number of drives expected (from 1), 'all' or '>= N', not '>= x'" },
		{ "{agent: a, drives: [{path: x, alias: A}, {path: y, alias: A}]}", "{path: y",
		  "alias 'A' is drive 'x' of agent 'a' already: an alias names one drive" },
		{ "{agent: a, select: {model: M, count: 1, size: 3}}", "size",
		  "unknown key 'size' in select (known: model, serial, firmware, count)" },
		{ "{agent: a, select: {model: M}}", "{model",
		  "'select' needs 'count': how many drives it must find" },
		{ "{agent: a, select: {count: 2}}", "{count",
		  "'select' needs model, serial or firmware to choose by" },
		{ "{agents: {labels: [a], count: 1}, drives: [x]}", "[a]",
		  "'labels' must be a mapping of label: value" },
		{ "{agents: {labels: {rack: [1]}, count: 1}, drives: [x]}", "{rack",
		  "labels are scalar 'key: value' pairs" },
		/* after a good label: the list kept whole (under the sanitizer: no double free) */
		{ "{agents: {labels: {zone: a, rack: [1], row: '2'}, count: 1}, drives: [x]}",
		  "{zone", "labels are scalar 'key: value' pairs" },
		{ "{agents: {name: [h], count: 1}, drives: [x]}", "[h]",
		  "'agents' takes name, labels and count" },
		{ "{agents: {name: h, count: many}, drives: [y]}", "many",
		  "'count' must be the number of agents expected (from 1), 'all' or '>= N', not 'many'" },
		{ "{agents: {name: h, count: 1, zone: 3}, drives: [x]}", "zone",
		  "unknown key 'zone' in agents (known: name, labels, count)" },
		{ "{agents: {name: h}, drives: [x]}", "{name",
		  "'agents' needs 'count': how many agents it must find" },
		{ "{agents: {count: 2}, drives: [x]}", "{count",
		  "'agents' needs a name pattern or labels to choose by" },
		{ "{agents: {name: h, count: 1}, drives: [{volume: v, members: [x]}]}", "{volume",
		  "volumes are per agent: give a target with a volume its 'agent'" },
		{ "{agents: {name: h, count: 1}, drives: [{path: x}]}", "{path",
		  "a group's 'drives' are paths every agent offers" },
		{ "{agents: {name: h, count: 1}, drives: [x, x]}", "x]",
		  "drive 'x' is listed twice" },
		{ "{agents: {name: h, count: 1}, drives: []}", "[]", "'drives' is empty" },
		{ "{agents: {name: h, count: 1}, select: {serial: S}}", "{serial",
		  "'select' needs 'count'" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];

		snprintf(text, sizeof(text), "targets:\n  - %s\n" PHASES, cases[i].target);
		refused(text, cases[i].at, cases[i].msg);
	}
}

static void test_volume_errors(void **st)
{
	static const struct {
		const char *drives, *at, *msg;
	} cases[] = {
		{ "[{volume: a/b, members: [x]}]", "a/b",
		  "'volume' is the volume's name: a word, not a path (no '/')" },
		{ "[{volume: v, members: x}]", "x}]", "'members' must be a list of drives" },
		{ "[{volume: v, members: [x], stripe: 1000}]", "1000",
		  "a multiple of 512 up to 1g, not '1000'" },
		{ "[{volume: v, members: [x], stripe: [4k]}]", "[4k]",
		  "'stripe' is the volume's unit" },
		{ "[{volume: v, members: [x], raid: 0}]", "raid",
		  "unknown key 'raid' in a volume (known: volume, members, stripe)" },
		{ "[{volume: v}]", "{volume", "volume 'v' has no 'members'" },
		{ "[{volume: v, members: [x, x]}]", "x]", "drive 'x' is in volume 'v' twice" },
		{ "[{volume: v, members: []}]", "[]", "volume 'v' has no members" },
		{ "[{volume: v, members: [x]}, {volume: v, members: [y]}]", "v, members: [y]",
		  "'v' of agent 'a' is listed twice" },
		{ "[{volume: v, members: [[x]]}]", "[x]]",
		  "'members' entries must be paths or {path, serial}" },
		{ "[{volume: v, members: [{path: x, wwn: 1}]}]", "wwn",
		  "unknown key 'wwn' in a drive (known: path, serial)" },
	};

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];

		snprintf(text, sizeof(text), "targets:\n  - agent: a\n    drives: %s\n" PHASES,
			 cases[i].drives);
		refused(text, cases[i].at, cases[i].msg);
	}
}

/* Workload values that are not one value, or not a key of the table. */
static void test_value_errors(void **st)
{
	(void)st;
	refused("targets: [{agent: a, drives: [x]}]\nphases:\n  - workload: {bs: [4k]}\n", "[4k]",
		"'bs' must be a single value, not a list");
	refused("targets: [{agent: a, drives: [x]}]\nphases:\n  - workload: {colour: red}\n",
		"colour", "unknown key 'colour' in workload (known: rw, bs,");
	refused("destructive: maybe\ntargets: [{agent: a, drives: [x]}]\n" PHASES, "maybe",
		"'destructive' must be true or false, not 'maybe'");
	refused("wipe_signatures: [1]\ntargets: [{agent: a, drives: [x]}]\n" PHASES, "[1]",
		"'wipe_signatures' must be true or false");
}

/* results_db: stored with every results file, so a URL libpq reads and no password. */
static void test_results_db(void **st)
{
	static const char ok[] = "results_db: postgresql://ops@db1/fleet?sslmode=require\n"
				 "targets: [{agent: a, drives: [x]}]\n" PHASES;
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	(void)st;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("x.yaml", ok, strlen(ok), &c, &d), 0);
	assert_string_equal(c->results_db, "postgresql://ops@db1/fleet?sslmode=require");
	rb_campaign_free(c);
	rb_diags_release(&d);
	refused("results_db: postgresql://ops:hunter2@db1/fleet\ntargets: [{agent: a, drives: "
		"[x]}]\n" PHASES,
		"postgresql://", "'results_db': 'postgresql://ops:***@db1/fleet' holds a password");
	refused("results_db: 'host=db1 password=hunter2'\ntargets: [{agent: a, drives: [x]}]\n" PHASES,
		"'host", "holds a password");
	refused("results_db: postgresql://%zz/fleet\ntargets: [{agent: a, drives: [x]}]\n" PHASES,
		"postgresql://", "is not a connection URI or string libpq reads");
	refused("results_db: [a]\ntargets: [{agent: a, drives: [x]}]\n" PHASES, "[a]",
		"'results_db' must be a PostgreSQL URL");
}

/*
 * A rack's shard (rackbench fleet run): named agents of other racks go with their drives
 * and selectors; each group takes exactly the shard's agents given it; errors name why.
 */
static void test_shard_cuts_to_the_rack(void **st)
{
	static const char text[] =
		"targets:\n"
		"  - agent: a\n"
		"    drives: [/dev/x]\n"
		"  - agent: b\n"
		"    select: {model: M, count: 1}\n"
		"  - agent: far\n"
		"    drives: [/dev/y]\n"
		"  - agents: {labels: {rack: r1}, count: all}\n"
		"    drives: [/dev/p]\n" PHASES;
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	char err[256] = "";

	(void)st;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("x.yaml", text, strlen(text), &c, &d), 0);
	rb_diags_release(&d);
	assert_int_equal(c->nagents, 3);
	assert_null(c->shard);
	/* a group index past the campaign's: refused, naming the agent and the count */
	assert_int_equal(rb_campaign_shard(c, "a:-,g1:3", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'g1'"));
	assert_non_null(strstr(err, "1 group(s)"));
	assert_int_equal(c->nagents, 3); /* nothing cut on a refusal */
	assert_int_equal(rb_campaign_shard(c, "a:-,b:-,g1:0,g2:0", err, sizeof(err)), 0);
	assert_string_equal(c->shard, "a:-,b:-,g1:0,g2:0");
	assert_int_equal(c->nagents, 2);
	assert_string_equal(c->agents[0], "a");
	assert_string_equal(c->agents[1], "b");
	assert_int_equal(c->ndrives, 1);
	assert_string_equal(c->drives[0].agent, "a");
	assert_int_equal(c->nselectors, 1);
	assert_string_equal(c->selectors[0].agent, "b");
	/* the group: exactly its two agents, whatever labels they have */
	assert_true(c->groups[0].sharded);
	assert_int_equal(c->groups[0].nonly, 2);
	assert_string_equal(c->groups[0].only[0], "g1");
	assert_string_equal(c->groups[0].only[1], "g2");
	assert_int_equal(c->groups[0].count, 2);
	assert_false(c->groups[0].at_least);
	rb_campaign_free(c);
}

/* What loads: drives with their pins, volumes with members, selectors, groups. */
static void test_targets_load(void **st)
{
	static const char text[] =
		"destructive: yes\n"
		"insecure: no\n"
		"targets:\n"
		"  - agent: a\n"
		"    drives:\n"
		"      - /dev/x\n"
		"      - {path: /dev/y, serial: SY, alias: 'ACME #1'}\n"
		"      - {volume: v, stripe: 64k, members: [/dev/m0, {path: /dev/m1, serial: S1}]}\n"
		"  - agent: b\n"
		"    select: {model: M, firmware: F2, count: 2}\n"
		"  - agents: {name: 'rack1-*', labels: {zone: a, row: '3'}, count: '>= 2'}\n"
		"    drives: [/dev/p, /dev/q]\n"
		"  - agents: {labels: {zone: b}, count: 1}\n"
		"    select: {serial: SN, count: all}\n" PHASES;
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	const char *keys[] = { "row", "zone" }, *vals[] = { "3", "a" }, *other[] = { "3", "b" };

	(void)st;
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("x.yaml", text, strlen(text), &c, &d), 0);
	rb_diags_release(&d);
	assert_true(c->destructive);
	assert_false(c->insecure);
	assert_int_equal(c->nagents, 2);
	assert_int_equal(c->ndrives, 3);
	assert_string_equal(c->drives[0].serial, "");
	assert_string_equal(c->drives[1].path, "/dev/y");
	assert_string_equal(c->drives[1].serial, "SY");
	assert_string_equal(c->drives[1].alias, "ACME #1");
	assert_string_equal(c->drives[0].alias, "");
	assert_string_equal(c->drives[2].path, "v");
	assert_int_equal(c->drives[2].nmembers, 2);
	assert_int_equal(c->drives[2].stripe, 65536);
	assert_string_equal(c->drives[2].members[1].serial, "S1");
	assert_int_equal(c->drives[2].line, 8);
	assert_int_equal(c->nselectors, 1);
	assert_string_equal(c->selectors[0].agent, "b");
	assert_string_equal(c->selectors[0].model, "M");
	assert_string_equal(c->selectors[0].firmware, "F2");
	assert_string_equal(c->selectors[0].serial, "");
	assert_int_equal(c->selectors[0].count, 2);
	assert_false(c->selectors[0].at_least);
	assert_int_equal(c->ngroups, 2);
	assert_int_equal(c->groups[0].count, 2);
	assert_true(c->groups[0].at_least);
	assert_false(c->groups[1].at_least);
	/* 'all': every match, at least one */
	assert_int_equal(c->groups[1].select.count, 1);
	assert_true(c->groups[1].select.at_least);
	assert_int_equal(c->groups[0].ndrives, 2);
	assert_int_equal(c->groups[0].nlabels, 2);
	assert_false(c->groups[0].has_select);
	assert_true(c->groups[1].has_select);
	assert_string_equal(c->groups[1].select.serial, "SN");
	/* a group matches by its glob and every label */
	assert_true(rb_agent_group_matches(&c->groups[0], "rack1-07", keys, vals, 2));
	assert_false(rb_agent_group_matches(&c->groups[0], "rack2-07", keys, vals, 2));
	assert_false(rb_agent_group_matches(&c->groups[0], "rack1-07", keys, other, 2));
	assert_false(rb_agent_group_matches(&c->groups[0], "rack1-07", keys, vals, 1));
	assert_true(rb_agent_group_matches(&c->groups[1], "anything", keys, other, 2));
	/* a chosen agent joins with the group's drives, or a copy of its selector */
	assert_int_equal(rb_campaign_add_agent(c, "rack1-07", &c->groups[0]), 0);
	assert_int_equal(c->nagents, 3);
	assert_string_equal(c->agents[2], "rack1-07");
	assert_int_equal(c->ndrives, 5);
	assert_string_equal(c->drives[4].agent, "rack1-07");
	assert_string_equal(c->drives[4].path, "/dev/q");
	assert_int_equal(rb_campaign_add_agent(c, "z9", &c->groups[1]), 0);
	assert_int_equal(c->nselectors, 2);
	assert_string_equal(c->selectors[1].agent, "z9");
	assert_string_equal(c->selectors[1].serial, "SN");
	/* the same agent twice is one agent */
	assert_int_equal(rb_campaign_add_agent(c, "z9", &c->groups[1]), 0);
	assert_int_equal(c->nagents, 4);
	assert_int_equal(rb_campaign_add_drive(c, "b", "/dev/chosen", "SER"), 0);
	assert_string_equal(c->drives[c->ndrives - 1].serial, "SER");
	rb_campaign_free(c);
}

/* A fleet's drives: listed once each, however many (the check is a hash). */
static void test_many_drives(void **st)
{
	size_t n = 3000, len = 0;
	char *text = malloc(n * 24 + 256);
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	(void)st;
	assert_non_null(text);
	len += (size_t)sprintf(text + len, "targets:\n  - agent: a\n    drives: [");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "%s/dev/d%zu", i ? ", " : "", i);
	len += (size_t)sprintf(text + len, ", /dev/d1234]\n" PHASES);
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("x.yaml", text, len, &c, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.v[0].message, "drive '/dev/d1234' of agent 'a' is listed twice"));
	rb_diags_release(&d);
	text[len - strlen(", /dev/d1234]\n" PHASES)] = '\0';
	strcat(text, "]\n" PHASES);
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("x.yaml", text, strlen(text), &c, &d), 0);
	assert_int_equal(c->ndrives, n);
	rb_diags_release(&d);
	rb_campaign_free(c);
	free(text);
}

/* ---- lock files ---- */

struct fixture {
	char dir[256], file[512], lock[512];
};

static int setup(void **st)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	temp_dir(fx->dir, sizeof(fx->dir));
	snprintf(fx->file, sizeof(fx->file), "%s/c.yaml", fx->dir);
	snprintf(fx->lock, sizeof(fx->lock), "%s/c.lock", fx->dir);
	*st = fx;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *fx = *st;

	rm_tree(fx->dir);
	free(fx);
	return 0;
}

/* A campaign of two drives (one pinned already) and two volumes sharing a member. */
static void write_campaign(const struct fixture *fx, const char *lock)
{
	write_text(fx->file,
		   "destructive: true\n"
		   "lock: %s\n"
		   "targets:\n"
		   "  - agent: a\n"
		   "    drives:\n"
		   "      - /dev/x\n"
		   "      - {path: /dev/y, serial: SY}\n"
		   "      - {volume: v1, members: [/dev/m0, /dev/m1]}\n"
		   "      - {volume: v2, members: [/dev/m1, /dev/m2]}\n"
		   "phases:\n  - workload: {rw: write}\n    drives: [/dev/x, /dev/y, v1]\n"
		   "  - workload: {rw: read}\n    drives: [v2]\n",
		   lock);
}

static const char lock_ok[] = "campaign: c\nmethodology: 0\ndrives:\n"
			      "  - {agent: a, path: /dev/x, serial: SX}\n"
			      "  - {agent: a, path: /dev/y, serial: SY}\n"
			      "  - {agent: a, path: /dev/m0, serial: S0}\n"
			      "  - {agent: a, path: /dev/m1, serial: S1}\n"
			      "  - {agent: a, path: /dev/m2, serial: \"\"}\n";

static void test_lock_pins_serials(void **st)
{
	struct fixture *fx = *st;
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	write_text(fx->lock, "%s", lock_ok);
	/* relative to the campaign's folder */
	write_campaign(fx, "c.lock");
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load_file(fx->file, &c, &d), 0);
	assert_int_equal(d.n, 0);
	rb_diags_release(&d);
	assert_string_equal(c->drives[0].serial, "SX");
	assert_string_equal(c->drives[1].serial, "SY");
	assert_string_equal(c->drives[2].members[0].serial, "S0");
	/* a member of both volumes: pinned in each */
	assert_string_equal(c->drives[2].members[1].serial, "S1");
	assert_string_equal(c->drives[3].members[0].serial, "S1");
	/* no serial (a file): recorded, nothing pinned */
	assert_string_equal(c->drives[3].members[1].serial, "");
	rb_campaign_free(c);
}

/* The lock's file and FILE:LINE in each refusal: which file, which line, what. */
static void lock_refused(const struct fixture *fx, const char *lock_text, const char *in_file,
			 unsigned line, const char *msg)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	bool found = false;

	if (lock_text)
		write_text(fx->lock, "%s", lock_text);
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load_file(fx->file, &c, &d), -EINVAL);
	for (size_t i = 0; i < d.n && !found; i++)
		found = strstr(d.v[i].message, msg) && d.v[i].line == line &&
			!strcmp(d.v[i].file, in_file);
	if (!found) {
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "  %s:%u %s\n", d.v[i].file, d.v[i].line, d.v[i].message);
		fail_msg("no '%s' at %s:%u", msg, in_file, line);
	}
	rb_diags_release(&d);
}

static void test_lock_refusals(void **st)
{
	struct fixture *fx = *st;
	char missing[600];

	write_campaign(fx, fx->lock);
	/* the lock's own problems are placed in the lock */
	lock_refused(fx, "campaign: c\ndrives:\n  - {agent: a, path: /dev/x}\n", fx->lock, 3,
		     "a locked drive has agent, path and serial");
	lock_refused(fx, "campaign: c\n", fx->lock, 1, "a lock file has 'drives', a list");
	lock_refused(fx, "drives: [\n", fx->lock, 2, "invalid YAML");
	{
		char t[2048];

		snprintf(t, sizeof(t), "%s  - {agent: b, path: /dev/x, serial: Q}\n", lock_ok);
		lock_refused(fx, t, fx->lock, 9,
			     "the lock names drive '/dev/x' of agent 'b', which the campaign does "
			     "not target");
		/* a serial other than the campaign's own pin: at the campaign's 'lock' */
		snprintf(t, sizeof(t), "%s", lock_ok);
		*strstr(t, "serial: SY") = '\0';
		strcat(t, "serial: S9}\n  - {agent: a, path: /dev/m0, serial: S0}\n"
			  "  - {agent: a, path: /dev/m1, serial: S1}\n"
			  "  - {agent: a, path: /dev/m2, serial: \"\"}\n");
		lock_refused(
			fx, t, fx->file, 2,
			"drive '/dev/y' of agent 'a' is pinned to serial 'SY' here and 'S9' in "
			"the lock");
	}
	/* what the campaign targets and the lock leaves out */
	lock_refused(fx,
		     "drives:\n  - {agent: a, path: /dev/x, serial: SX}\n"
		     "  - {agent: a, path: /dev/m1, serial: S1}\n",
		     fx->file, 2, "drive '/dev/y' of agent 'a' is not in the lock");
	lock_refused(fx, NULL, fx->file, 2, "volume 'v1' of agent 'a' is not in the lock");
	lock_refused(fx, NULL, fx->file, 2, "(every member): run 'rackbench plan --lock' again");
	/* no lock file, and no name */
	snprintf(missing, sizeof(missing), "%s/none.lock", fx->dir);
	write_campaign(fx, missing);
	lock_refused(fx, NULL, fx->file, 2, "cannot read lock file");
	write_campaign(fx, "\"\"");
	lock_refused(fx, NULL, fx->file, 2,
		     "'lock' must be a file written by 'rackbench plan --lock'");
}

/* Loads fx's campaign (with its lock): 0 and the campaign, or fails with the diagnostics. */
static struct rb_campaign *load_ok(const struct fixture *fx)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	rb_diags_init(&d);
	if (rb_campaign_load_file(fx->file, &c, &d)) {
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "  %s:%u %s\n", d.v[i].file, d.v[i].line, d.v[i].message);
		fail_msg("the locked campaign did not load");
	}
	rb_diags_release(&d);
	return c;
}

/*
 * A lock made of a campaign whose drives a selector chose: the lock's drives are the
 * campaign's, pinned, and nothing is left to choose when the agent connects; a lock that
 * answers the selector in part is refused with both counts.
 */
static void test_lock_answers_a_selector(void **st)
{
	struct fixture *fx = *st;
	struct rb_campaign *c;

	write_text(fx->file, "lock: c.lock\n"
			     "targets:\n"
			     "  - agent: a\n"
			     "    drives: [/dev/x]\n"
			     "  - agent: b\n"
			     "    select: {model: ACME, count: 2}\n"
			     "phases:\n  - workload: {rw: randread}\n");
	write_text(fx->lock, "campaign: c\ndrives:\n"
			     "  - {agent: a, path: /dev/x, serial: SX}\n"
			     "  - {agent: b, path: /dev/nvme0n1, serial: B0}\n"
			     "  - {agent: b, path: /dev/nvme1n1, serial: B1}\n");
	c = load_ok(fx);
	assert_int_equal(c->nselectors, 0);
	assert_int_equal(c->ndrives, 3);
	assert_string_equal(c->drives[0].serial, "SX");
	assert_string_equal(c->drives[1].agent, "b");
	assert_string_equal(c->drives[1].path, "/dev/nvme0n1");
	assert_string_equal(c->drives[1].serial, "B0");
	assert_string_equal(c->drives[2].serial, "B1");
	rb_campaign_free(c);
	write_text(fx->lock, "campaign: c\ndrives:\n"
			     "  - {agent: a, path: /dev/x, serial: SX}\n"
			     "  - {agent: b, path: /dev/nvme0n1, serial: B0}\n");
	lock_refused(fx, NULL, fx->file, 1,
		     "holds 1 drive(s) of agent 'b' for its select, the campaign asks for 2");
	/* one chosen drive named twice: refused there, not counted twice */
	write_text(fx->lock, "campaign: c\ndrives:\n"
			     "  - {agent: a, path: /dev/x, serial: SX}\n"
			     "  - {agent: b, path: /dev/nvme0n1, serial: B0}\n"
			     "  - {agent: b, path: /dev/nvme0n1, serial: B0}\n");
	lock_refused(fx, NULL, fx->lock, 5,
		     "drive '/dev/nvme0n1' of agent 'b' is in the lock twice");
}

/*
 * A lock made of a campaign with an agent group names the agents the group chose: they
 * join with the group's drives, pinned, and the group is chosen already; a lock holding
 * fewer of them than the group's count is refused.
 */
static void test_lock_answers_a_group(void **st)
{
	struct fixture *fx = *st;
	struct rb_campaign *c;

	write_text(fx->file, "lock: c.lock\n"
			     "targets:\n"
			     "  - agents: {name: \"jbof-*\", labels: {rack: r7}, count: 2}\n"
			     "    drives: [/dev/nvme0n1]\n"
			     "phases:\n  - workload: {rw: randread}\n");
	write_text(fx->lock, "campaign: c\ndrives:\n"
			     "  - {agent: jbof-2, path: /dev/nvme0n1, serial: J2}\n"
			     "  - {agent: jbof-5, path: /dev/nvme0n1, serial: J5}\n");
	c = load_ok(fx);
	assert_int_equal(c->ngroups, 0);
	assert_int_equal(c->nagents, 2);
	assert_string_equal(c->agents[0], "jbof-2");
	assert_string_equal(c->agents[1], "jbof-5");
	assert_int_equal(c->ndrives, 2);
	assert_string_equal(c->drives[1].agent, "jbof-5");
	assert_string_equal(c->drives[1].serial, "J5");
	rb_campaign_free(c);
	write_text(fx->lock, "campaign: c\ndrives:\n"
			     "  - {agent: jbof-2, path: /dev/nvme0n1, serial: J2}\n");
	lock_refused(fx, NULL, fx->file, 1,
		     "the lock holds 1 agent(s) of the group named 'jbof-*', the campaign asks "
		     "for 2");
}

/* Loads text, which must load. */
static struct rb_campaign *loads(const char *text)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	rb_diags_init(&d);
	if (rb_campaign_load("x.yaml", text, strlen(text), &c, &d))
		fail_msg("refused (%zu diagnostics): %s", d.n, d.n ? d.v[0].message : "");
	rb_diags_release(&d);
	return c;
}

#define TARGET "targets:\n  - {agent: a, drives: [/dev/x]}\n"

static void test_verdict_keys(void **st)
{
	struct rb_campaign *c;

	(void)st;
	c = loads(TARGET "on_refusal: skip\n"
			 "verdict: {max_temp_c: 70, max_p99: 2ms, min_model_pct: 0, "
			 "critical_warning: true}\n"
			 "phases:\n  - workload: {rw: randread}\n"
			 "    verdict: {max_p99: 5ms, cliff_pct: 40}\n");
	assert_int_equal(c->on_refusal, RB_REFUSAL_SKIP);
	assert_true(c->verdict.max_temp_c == 70 && c->verdict.max_p99_ns == 2e6);
	assert_true(c->verdict.critical_warning == 1);
	assert_true(c->verdict.min_model_pct == 0); /* not judged */
	assert_true(isnan(c->verdict.cliff_pct));
	assert_true(c->phases[0].verdict.max_p99_ns == 5e6 && c->phases[0].verdict.cliff_pct == 40);
	assert_true(isnan(c->phases[0].verdict.max_temp_c));
	rb_campaign_free(c);
	/* the burnin preset's rules, and the campaign's own over them */
	c = loads(TARGET "preset: burnin\ndestructive: true\n"
			 "verdict: {min_model_pct: 0, max_temp_c: 65}\n");
	assert_true(c->verdict.critical_warning == 1 && c->verdict.max_media_errors == 0);
	assert_true(c->verdict.min_model_pct == 0 && c->verdict.max_temp_c == 65);
	rb_campaign_free(c);
	c = loads(TARGET PHASES);
	assert_false(rb_verdict_rules_any(&c->verdict));
	assert_int_equal(c->on_refusal, RB_REFUSAL_STOP);
	rb_campaign_free(c);

	refused(TARGET PHASES "verdict: {max_tmp: 70}\n", "max_tmp",
		"unknown key 'max_tmp' in verdict (known: max_temp_c, critical_warning,");
	refused(TARGET PHASES "verdict: {min_model_pct: 150}\n", "150",
		"'min_model_pct' must be from 0 (not judged) to 100, not 150");
	refused(TARGET PHASES "verdict: {max_p99: fast}\n", "fast",
		"'max_p99' must be a latency such as 2ms or 500us");
	refused(TARGET PHASES "verdict: {cliff_window: 1}\n", "1}",
		"'cliff_window' must be 2 or more, not 1");
	refused(TARGET PHASES "verdict: [max_temp_c]\n", "[max",
		"'verdict' must be a mapping of rules");
	refused(TARGET "phases:\n  - workload: {rw: read}\n    verdict: {max_temp_c: 70}\n",
		"max_temp_c", "'max_temp_c' judges a drive's health over the whole run");
	refused(TARGET PHASES "on_refusal: ignore\n", "ignore",
		"'on_refusal' must be stop or skip");
}

/*
 * fleet_verdict: `rackbench judge`'s parameters for `fleet run`, true for the defaults;
 * each bad value refused at its place with the key's path, and the key without results_db
 * refused naming both.
 */
static void test_fleet_verdict_key(void **st)
{
#define DB "results_db: postgresql://ops@db1/fleet\n"
	struct rb_campaign *c;

	(void)st;
	c = loads(TARGET PHASES);
	assert_false(c->fleet_verdict.on);
	rb_campaign_free(c);
	c = loads(TARGET PHASES DB "fleet_verdict: true\n");
	assert_true(c->fleet_verdict.on);
	assert_true(c->fleet_verdict.params.margin == 2 && c->fleet_verdict.params.min_points == 2);
	assert_true(c->fleet_verdict.params.cluster == 3 && !c->fleet_verdict.params.by_host);
	assert_true(c->fleet_verdict.wait_ns == 60000000000ULL);
	rb_campaign_free(c);
	c = loads(TARGET PHASES "fleet_verdict: {margin: 1.5, min_points: 1, cluster: 4, domain: "
				"host, wait: 2m}\n" DB);
	assert_true(c->fleet_verdict.on && c->fleet_verdict.params.margin == 1.5);
	assert_true(c->fleet_verdict.params.min_points == 1 && c->fleet_verdict.params.cluster == 4);
	assert_true(c->fleet_verdict.params.by_host && c->fleet_verdict.wait_ns == 120000000000ULL);
	rb_campaign_free(c);
	/* false is as if it were not there: no database needed */
	c = loads(TARGET PHASES "fleet_verdict: false\n");
	assert_false(c->fleet_verdict.on);
	rb_campaign_free(c);

	refused(TARGET PHASES "fleet_verdict: true\n", "fleet_verdict",
		"'fleet_verdict' judges the fleet in the campaign's database: give 'results_db'");
	refused(TARGET PHASES DB "fleet_verdict: {margin: -1}\n", "-1",
		"'fleet_verdict.margin' must be a factor above 1 like 2 or 1.5, not '-1'");
	refused(TARGET PHASES DB "fleet_verdict: {margin: 1}\n", "1}",
		"'fleet_verdict.margin' must be a factor above 1");
	refused(TARGET PHASES DB "fleet_verdict: {domain: row}\n", "row",
		"'fleet_verdict.domain' must be rack or host, not 'row'");
	refused(TARGET PHASES DB "fleet_verdict: {cluster: 0}\n", "0}",
		"'fleet_verdict.cluster' must be a count of 1 or more, not '0'");
	refused(TARGET PHASES DB "fleet_verdict: {min_points: [2]}\n", "[2]",
		"'fleet_verdict.min_points' must be a count of 1 or more, not a list");
	refused(TARGET PHASES DB "fleet_verdict: {wait: soon}\n", "soon",
		"'fleet_verdict.wait' must be a duration");
	refused(TARGET PHASES DB "fleet_verdict: {marg: 2}\n", "marg",
		"unknown key 'marg' in fleet_verdict (known: margin, min_points, cluster, domain, "
		"wait)");
	refused(TARGET PHASES DB "fleet_verdict: maybe\n", "maybe",
		"'fleet_verdict' must be true, false or a mapping of the judge's keys");
#undef DB
}

/*
 * A preset's exec phases take overrides' exec parameters (replaced, or added), and only
 * words; a preset without an exec phase refuses them. A filesystem loads from a drive or
 * from its target.
 */
static void test_exec_overrides_and_filesystems(void **st)
{
	struct rb_campaign *c;

	(void)st;
	c = loads("targets: [{agent: a, filesystem: {type: xfs, mount_options: noatime}, "
		  "drives: [x, {path: y, filesystem: ext4}]}]\n"
		  "preset: sysbench-oltp\noverrides: {exec: {time: 60, fresh: no, extra: 1}}\n");
	assert_int_equal(c->npoints, 2);
	assert_string_equal(c->points[0].exec, "sysbench-mariadb");
	assert_string_equal(c->points[0].exec_params,
			    "threads=32\ntime=60\ntables=100\nrows=10000000\nfresh=no\nextra=1\n");
	assert_string_equal(c->drives[0].fs.type, "xfs");
	assert_string_equal(c->drives[0].fs.mount_options, "noatime");
	assert_string_equal(c->drives[1].fs.type, "ext4");
	assert_string_equal(c->drives[1].fs.mount_options, "");
	assert_true(rb_campaign_writes(c));
	rb_campaign_free(c);
	refused("targets: [{agent: a, drives: [x]}]\npreset: sysbench-oltp\n"
		"overrides: {exec: {time: --help}}\n",
		"time", "exec parameters are words");
	refused("targets: [{agent: a, drives: [x]}]\npreset: atto\noverrides: {exec: {time: 1}}\n",
		"time", "the preset has no exec phase");
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_errors),
		cmocka_unit_test(test_selector_and_group_errors),
		cmocka_unit_test(test_volume_errors),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_results_db),
		cmocka_unit_test(test_targets_load),
		cmocka_unit_test(test_many_drives),
		cmocka_unit_test(test_verdict_keys),
		cmocka_unit_test(test_fleet_verdict_key),
		cmocka_unit_test_setup_teardown(test_lock_pins_serials, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_answers_a_selector, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_answers_a_group, setup, teardown),
		cmocka_unit_test(test_exec_overrides_and_filesystems),
		cmocka_unit_test(test_shard_cuts_to_the_rack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
