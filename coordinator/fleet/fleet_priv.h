/* SPDX-License-Identifier: MIT */
/* What the fleet commands share (fleet_ask.c, fleet_plan.c): private to coordinator/fleet/. */
#ifndef RB_FLEET_PRIV_H
#define RB_FLEET_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet.h"

/* The arguments every command needs (the fleet; with id, a fleet run id): 0 or exit code. */
int fleet_need(const struct rb_fleet_args *a, bool id);
/* The fleet, this client's key pair and the deadline: 0, or the exit code said. */
int fleet_setup(const struct rb_fleet_args *a, struct rb_fleet **ret_f, struct rb_keypair *me,
		int *deadline_ms);
/* Every rack asked req; the replies (nracks of them, to free) or NULL said. */
struct rb_fleet_reply *fleet_ask_all(const struct rb_fleet *f, const struct rb_keypair *me,
				     const char *req, int deadline_ms);
/* A rack's failure to answer (err of its reply) in words, in buf. */
const char *fleet_why_not(int err, int deadline_ms, char *buf, size_t len);

#endif
