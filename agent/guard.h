/* SPDX-License-Identifier: MIT */
/*
 * The safety guard: decides whether a write may reach a target.
 *
 * Design note. Nothing is writable by default. A write needs two keys: the run says
 * it is destructive (`destructive: true` in the campaign, or `--destructive`), and
 * the agent's own allow-list (`--allow`) names the target. A regular file is writable
 * only if rackbench created it (it lies under the agent's state folder) or the
 * allow-list names it. Symlinks are resolved first, so a link to a device goes through
 * the device checks. A block device must also not be mounted (its device number, or
 * one of its partitions', in /proc/self/mountinfo) nor used as swap. The guard
 * collects every failed check as a diagnostic naming the target, so a refusal lists
 * every reason at once; it never stops at the first. Later checks (holders, blkid
 * signatures, identity pins, O_EXCL hold) plug in behind rb_guard_check().
 */
#ifndef RB_GUARD_H
#define RB_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

struct rb_guard_policy {
	bool destructive;		/* the run's key */
	const char *destructive_key;	/* how the user gives it, for messages */
	char *const *allow;		/* the agent's key: --allow entries */
	size_t nallow;
	const char *state_dir;		/* files under it were created by rackbench */
	const char *proc_root;		/* "" normally; a recorded tree in tests */
};

/*
 * Checks a write to path. Returns 0 when allowed, -EPERM when refused with one
 * diagnostic per failed check (subject: the path) appended to diags.
 */
int rb_guard_check_write(const struct rb_guard_policy *p, const char *path,
			 struct rb_diags *diags);
/* Whether path is on the allow-list (comparing resolved paths). */
bool rb_guard_allowed(const struct rb_guard_policy *p, const char *path);

#endif
