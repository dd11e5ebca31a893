/* SPDX-License-Identifier: MIT */
/*
 * Runs a campaign in-process: binds (or takes) the ROUTER socket, waits for the
 * campaign's agents, checks every drive with each agent's guard before anything is
 * written anywhere, runs the points in order with all targeted drives at once,
 * writes the HDF5 file and prints a summary table.
 */
#ifndef RB_COORD_H
#define RB_COORD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "campaign.h"

struct rb_coord_opts {
	void *router;			/* already bound (demo), or NULL to bind c->listen */
	const char *results_path;	/* NULL: <results>/<name>-<UTC time>.h5 */
	volatile sig_atomic_t *stop;	/* set by a signal handler: abort the run */
	const char *events;		/* JSON Lines of progress events, or NULL */
	char *ret_path;			/* the file written */
	size_t ret_path_len;
	bool resolve_only;		/* plan --resolve: agents, drives, guard verdicts; no IO */
	const char *lock_path;		/* plan --lock: write the drives' identities here */
};

/* Returns the process exit code (common/exitcode.h). */
/* Selectors' drives are appended to c when the agents connect. */
int rb_coord_run(struct rb_campaign *c, const struct rb_coord_opts *o);

#endif
