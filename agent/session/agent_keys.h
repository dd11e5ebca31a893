/* SPDX-License-Identifier: MIT */
/*
 * Every key agent.yaml may hold: its name, type, default and help, and the daemon's flag
 * that sets it too. The loader (agent_cfg.c) stores a scalar key by its row (the field's
 * offset in struct rb_agent_cfg) and hands a key with structure to the handler its row
 * names; its unknown-key error lists the table ("known: ..."). The daemon's flags and
 * their help (agent/cli/cmd_agent.c), `rackbench-agent options [--json]`, the manual page
 * and docs/agent-keys.md (scripts/gen_agent_keys.py) are made from it, so a key added
 * here is known everywhere at once.
 */
#ifndef RB_AGENT_KEYS_H
#define RB_AGENT_KEYS_H

#include <stddef.h>

#include "agent.h"
#include "diag.h"
#include "yamlcfg.h"

enum rb_akey_type {
	RB_AK_STRING,
	RB_AK_BOOL, /* true or false */
	RB_AK_SIZE, /* a size such as 4g, kept as written and checked with the flags */
	RB_AK_LIST, /* a list of paths */
	RB_AK_MAPPING,
};

struct rb_akey {
	const char *name;
	enum rb_akey_type type;
	const char *def; /* the default in words; "" none */
	const char *help;
	/* the daemon's flag that sets the key too ("state-dir"; a list's flag takes one entry
	 * a time: "label"), and its value's name in --help ("FILE"); NULL: agent.yaml only */
	const char *flag, *argname;
	/* a scalar: its field's offset in struct rb_agent_cfg (char * for a string or a size,
	 * bool); -1: a key with structure, which load reads */
	long off;
	/* a key with structure: its node into c, each error in d at its place */
	void (*load)(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
		     struct rb_agent_cfg *c, struct rb_diags *d);
	/* such a key's flag: one value into c; 0, or an exit code after saying what was wrong */
	int (*add)(const struct rb_akey *k, const char *value, struct rb_agent_cfg *c);
};

/* The table holds at most this many rows (the daemon's flags are made in arrays of it). */
#define RB_AKEY_MAX 32

extern const struct rb_akey rb_akeys[];
extern const size_t rb_nakeys;

/* The key of that name, or NULL. */
const struct rb_akey *rb_akey_find(const char *name);
/* "coordinator, name, ..." in the table's order, into buf. */
const char *rb_akey_known(char *buf, size_t len);
/* "string", "bool", "size", "list", "mapping". */
const char *rb_akey_type_name(enum rb_akey_type type);

/* The daemon's flag of k given value (NULL for a bool's): a scalar stored at its offset,
 * a list's entry added. 0, or an exit code after saying what was wrong. */
int rb_agent_cfg_flag(struct rb_agent_cfg *c, const struct rb_akey *k, const char *value);

/* The handlers the rows name (agent_cfg.c): agent.yaml's keys with structure... */
void rb_agent_cfg_read_targets(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			       struct rb_agent_cfg *c, struct rb_diags *d);
void rb_agent_cfg_read_allow(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			     struct rb_agent_cfg *c, struct rb_diags *d);
void rb_agent_cfg_read_labels(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			      struct rb_agent_cfg *c, struct rb_diags *d);
void rb_agent_cfg_read_commands(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
				struct rb_agent_cfg *c, struct rb_diags *d);
void rb_agent_cfg_read_serials(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			       struct rb_agent_cfg *c, struct rb_diags *d);
void rb_agent_cfg_read_slots(struct rb_yaml *y, yaml_node_t *v, const struct rb_akey *k,
			     struct rb_agent_cfg *c, struct rb_diags *d);
/* ... and their flags' values: --target, --allow, --label */
int rb_agent_cfg_add_target(const struct rb_akey *k, const char *value, struct rb_agent_cfg *c);
int rb_agent_cfg_add_allow(const struct rb_akey *k, const char *value, struct rb_agent_cfg *c);
int rb_agent_cfg_add_label(const struct rb_akey *k, const char *value, struct rb_agent_cfg *c);

#endif
