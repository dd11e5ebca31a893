/* SPDX-License-Identifier: MIT */
/*
 * Filesystem targets: a filesystem made on a block device (a destructive write, guarded
 * like any other), mounted in this process's own mount namespace under the state folder,
 * and a file of rackbench's own on it for the workload. The mount is private: no other
 * process sees it, and it goes with the process, so a crash leaves nothing mounted.
 */
#ifndef RB_FSTARGET_H
#define RB_FSTARGET_H

#include <limits.h>
#include <stdbool.h>

#include "diag.h"
#include "guard.h"

struct rb_fs_spec {
	char type[16];		 /* ext4 or xfs; "" none */
	char mkfs_options[256];	 /* passed to mkfs, split at spaces */
	char mount_options[256]; /* mount(2) data */
};

struct rb_fs_target {
	char dev[PATH_MAX];
	char mnt[PATH_MAX];
	char file[PATH_MAX + 32]; /* the workload's file on the filesystem */
	bool mounted;
};

/*
 * Guards dev for a write (both keys, every device rule), makes the filesystem, mounts
 * it in a new private mount namespace of this process at STATE/fs-PID. Returns 0 with
 * ret filled, -EPERM when the guard refused, or negative errno; d says why.
 */
int rb_fs_target_setup(const struct rb_guard_policy *gp, const struct rb_fs_spec *s,
		       const char *dev, struct rb_fs_target *ret, struct rb_diags *d);
/* Unmounts and removes the mount point; nothing when it was not mounted. */
void rb_fs_target_teardown(struct rb_fs_target *t);

#endif
