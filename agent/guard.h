/* SPDX-License-Identifier: MIT */
/*
 * The safety guard: decides whether a write (or trim) may reach a target.
 *
 * Design note. Nothing is writable by default. A write needs two keys: the run says
 * it is destructive (`destructive: true` in the campaign, or `--destructive`), and
 * the agent's own allow-list (`--allow`) names the target. A regular file is writable
 * only if rackbench created it (it lies under the agent's state folder) or the
 * allow-list names it. Symlinks are resolved first, so a link to a device goes
 * through the device checks. A block device is refused when, for the disk or any of
 * its partitions (device numbers, read from sysfs): it is mounted (/proc/self/
 * mountinfo); it is swap (/proc/swaps); something holds it (sysfs holders: LVM, MD,
 * dm-crypt, ...); it carries a partition table or a filesystem, RAID, LVM or swap
 * signature (libblkid), unless the run allows wiping them; or it is, through any
 * chain of holders, the disk behind /, /boot or swap. The guard collects every failed
 * check as a diagnostic naming the target, so a refusal lists every reason at once.
 * /sys and /proc are read under a root prefix, so recorded trees (root on LVM on MD
 * on NVMe, dm-crypt holders) stand in for machines this one is not.
 */
#ifndef RB_GUARD_H
#define RB_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "diag.h"

struct rb_guard_policy {
	bool destructive;		/* the run's key */
	const char *destructive_key;	/* how the user gives it, for messages */
	char *const *allow;		/* the agent's key: --allow entries */
	size_t nallow;
	const char *state_dir;		/* files under it were created by rackbench */
	const char *root;		/* prefix of /sys and /proc: "" normally */
	bool wipe_signatures;		/* the run allows overwriting signatures */
};

/*
 * Checks a write to path. Returns 0 when allowed, -EPERM when refused with one
 * diagnostic per failed check (subject: the path) appended to diags.
 */
int rb_guard_check_write(const struct rb_guard_policy *p, const char *path,
			 struct rb_diags *diags);
/*
 * The same on an open descriptor: a block device is judged by fstat(fd), not by its
 * path again, so nothing can swap the device between the checks and the writes.
 */
int rb_guard_check_write_fd(const struct rb_guard_policy *p, const char *path, int fd,
			    struct rb_diags *diags);
/*
 * The block-device checks alone, for the device numbered dev (the keys are not
 * checked). devpath, when not NULL, is probed with libblkid for signatures.
 * subject names the device in messages. Returns 0 or -EPERM with diagnostics.
 */
int rb_guard_check_blockdev(const struct rb_guard_policy *p, const char *subject, dev_t dev,
			    const char *devpath, struct rb_diags *diags);
/* Whether path is on the allow-list (comparing resolved paths). */
bool rb_guard_allowed(const struct rb_guard_policy *p, const char *path);

#endif
