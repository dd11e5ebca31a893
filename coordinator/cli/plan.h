/* SPDX-License-Identifier: MIT */
/* A campaign's plan, the workload option table and the presets, printed. */
#ifndef RB_PLAN_H
#define RB_PLAN_H

#include <stdbool.h>
#include <stdint.h>

/* What `plan` is asked. */
struct rb_plan_args {
	const char *file;	   /* the campaign */
	const char *lock, *listen; /* --resolve's lock file to write, its endpoint; NULL */
	const char *ctl;	   /* --resolve: the service's control socket (NULL: default) */
	bool no_service;	   /* --resolve in this process even when a service listens */
	bool list, resolve;	   /* every point; the drives as their agents see them */
	uint64_t capacity, mbps;   /* assumed per drive; 0 unknown */
};

/* The campaign's plan, or with resolve its drives. Returns the exit code. */
int rb_plan(const struct rb_plan_args *a);
/* The workload option table as text, or with json as one document (campaign keys and
 * presets too). Returns the exit code. */
int rb_options_print(bool json);
/* The presets with their point counts, or the one named. Returns the exit code. */
int rb_presets_print(const char *name);

#endif
