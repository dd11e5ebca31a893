/* SPDX-License-Identifier: MIT */
/*
 * Turns a workload and target paths into open descriptors ready for the engine:
 * runs the guard when the workload writes (every target first, before anything is
 * opened for writing), lays out files rackbench owns, opens with O_DIRECT, and
 * resolves offset and size against each target. Shared by `run` and the daemon.
 */
#ifndef RB_RUNNER_H
#define RB_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "guard.h"
#include "power.h"
#include "options.h"
#include "target.h"

struct rb_prepared {
	size_t n;
	int *fds;
	uint64_t *spans;
	struct rb_target_info *info;
	struct rb_power_hold *power; /* power_state: each target's state before, put back */
};

/*
 * Returns 0 and the prepared targets; -EPERM when the guard refused (diags hold every
 * reason for every target; nothing was written); other negative errno with diags.
 */
int rb_runner_prepare(const struct rb_workload *wl, char *const *paths, size_t n,
		      const struct rb_guard_policy *gp, struct rb_prepared **ret,
		      struct rb_diags *diags);
struct rb_prepared *rb_prepared_free(struct rb_prepared *p);

#endif
