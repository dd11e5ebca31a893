/* SPDX-License-Identifier: MIT */
/*
 * Every key a campaign file may hold, beside the workload option table (options.h): its
 * name, where it may appear, its type, choices, default and help. The loader takes its
 * unknown-key errors ("known: ...") and its choice errors from here, stores the root's
 * scalar keys by the table, and `rackbench options --json` prints it for the JSON schema
 * (scripts/gen_campaign_schema.py) and the reference (docs/campaign-keys.md), so a key
 * added here is known everywhere at once.
 */
#ifndef RB_CAMPAIGN_KEYS_H
#define RB_CAMPAIGN_KEYS_H

#include <stdbool.h>
#include <stddef.h>

/* Where a key may appear: the root, or inside one of these mappings. */
enum rb_ckey_where {
	RB_CK_ROOT,
	RB_CK_TARGET,  /* an entry of targets */
	RB_CK_AGENTS,  /* a target's agents (a group) */
	RB_CK_SELECT,  /* a target's select */
	RB_CK_DRIVE,   /* a drive given as a mapping */
	RB_CK_VOLUME,  /* a striped volume among a target's drives */
	RB_CK_PHASE,   /* an entry of phases */
	RB_CK_PURGE,   /* a phase's purge */
	RB_CK_STEADY,  /* a phase's steady_state */
	RB_CK_VERDICT, /* the root's or a phase's verdict */
	RB_CK_FS,      /* a drive's or a target's filesystem */
	RB_CK_EXEC,    /* a phase's exec */
	RB_CK_FLEETV,  /* the root's fleet_verdict */
	RB_CK_NWHERE,
};

enum rb_ckey_type {
	RB_CK_STRING,
	RB_CK_BOOL,
	RB_CK_DURATION,
	RB_CK_UINT,
	RB_CK_SIZE,
	RB_CK_ENUM, /* one of choices */
	RB_CK_MAPPING,
	RB_CK_LIST,
	RB_CK_WORKLOAD, /* a mapping of workload keys (the option table) */
	RB_CK_NUMBER,	/* a real number: 1.5 */
};

struct rb_ckey {
	const char *name;
	enum rb_ckey_where where;
	enum rb_ckey_type type;
	const char *const *choices; /* RB_CK_ENUM: NULL-terminated */
	const char *def;	    /* the default in words; "" none */
	const char *help;
	/* a root scalar stored by the table: the field's offset in struct rb_campaign
	 * (char * for strings, bool, uint64_t ns for durations, int for choices); a verdict
	 * rule: its offset in struct rb_verdict_rules (a double); -1: the loader's own handler */
	long off;
};

extern const struct rb_ckey rb_ckeys[];
extern const size_t rb_nckeys;

/* The key name at where, or NULL. */
const struct rb_ckey *rb_ckey_find(enum rb_ckey_where where, const char *name);
/* "name, listen, ..." of where, in the table's order, into buf. */
const char *rb_ckey_known(enum rb_ckey_where where, char *buf, size_t len);
/* The place in words ("a target", "steady_state") and as the schema names it. */
const char *rb_ckey_where_name(enum rb_ckey_where where);
const char *rb_ckey_where_id(enum rb_ckey_where where);
const char *rb_ckey_type_name(enum rb_ckey_type type);
/* The index of s among k's choices, or -1. */
int rb_ckey_choice(const struct rb_ckey *k, const char *s);
/* k's choices in words: "wait, continue or abort". */
const char *rb_ckey_choices_text(const struct rb_ckey *k, char *buf, size_t len);

#endif
