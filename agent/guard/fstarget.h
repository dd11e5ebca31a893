/* SPDX-License-Identifier: MIT */
/*
 * Filesystem targets: a filesystem made on a block device (a destructive write, guarded
 * like any other), mounted in this process's own mount namespace under the state folder,
 * and a file of rackbench's own on it for the workload. The namespace is a slave of the
 * host's (the host's mounts still show, so the guard still sees them) and private the
 * other way: no other process sees our mount, and it goes with the process, so a crash
 * leaves nothing mounted -- only an empty mount point, which the next start removes.
 *
 * A campaign's run makes each drive's filesystem once and mounts it for each of its
 * points: the state folder records (fs/NAME.made) the run and the UUID of every filesystem
 * made, and only that run's own filesystem, by that UUID, is not a signature the guard
 * refuses. A filesystem of an earlier run is any other's: wipe_signatures.
 */
#ifndef RB_FSTARGET_H
#define RB_FSTARGET_H

#include <limits.h>
#include <stdbool.h>

#include "diag.h"
#include "fsspec.h"
#include "guard.h"
#include "target.h"

/* mkfs is killed (with all it started: proc.h) if it has not ended by then */
#define RB_MKFS_DEADLINE_NS (300LL * 1000000000LL)

struct rb_fs_target {
	char dev[PATH_MAX];
	char mnt[PATH_MAX];
	char file[PATH_MAX + 32];	/* the workload's file on the filesystem */
	struct rb_target_info dev_info; /* the device, as probed before the mount */
	bool mounted, made;		/* made: by this call (not the run's earlier one) */
};

/*
 * Puts this process (the calling thread and the threads it starts later) into a mount
 * namespace of its own, once. 0, or negative errno with a diagnostic under subject.
 */
int rb_fs_own_namespace(const char *subject, struct rb_diags *d);

/*
 * What making (or mounting) s on dev needs, touching nothing: a valid spec, a block device,
 * mkfs on this host, and the guard's word for a write (both keys, every device rule; the
 * run's own filesystem, by the state folder's record, is no signature to refuse: *ret_own).
 * 0, -EPERM (the guard refused), -EINVAL; d says why, under dev.
 */
int rb_fs_target_check(const struct rb_guard_policy *gp, const struct rb_fs_spec *s,
		       const char *dev, const char *run, bool *ret_own, struct rb_diags *d);

/*
 * Guards dev for a write (both keys, every device rule), makes the filesystem unless the
 * state folder records it as run's own (run "": always), and mounts it at mnt (made, under
 * the state folder) in this process's own namespace (rb_fs_own_namespace first). Returns 0
 * with ret filled, -EPERM when the guard refused, -EINVAL for a spec or device that cannot
 * take one, or negative errno; d says why, under dev.
 */
int rb_fs_target_setup(const struct rb_guard_policy *gp, const struct rb_fs_spec *s,
		       const char *dev, const char *mnt, const char *run, struct rb_fs_target *ret,
		       struct rb_diags *d);
/* Unmounts and removes the mount point; nothing when it was not mounted. */
void rb_fs_target_teardown(struct rb_fs_target *t);
/*
 * Removes the empty mount points an earlier process left in STATE/fs (it was killed), each
 * once its device (/dev/NAME) is released by the kernel (at most 10 s in all).
 */
void rb_fs_sweep(const char *state_dir);
/* mkfs.TYPE is installed (on PATH). */
bool rb_fs_mkfs_found(const char *type);

#endif
