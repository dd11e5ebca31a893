/* SPDX-License-Identifier: MIT */
/*
 * The safety guard: decides whether a write (or trim) may reach a target.
 *
 * Design note. Nothing is writable by default. A write needs two keys: the run says
 * it is destructive (`destructive: true` in the campaign, or `--destructive`), and
 * the agent's own allow-list (`--allow`) names the target. A regular file is writable
 * with the run's key alone only if rackbench created it (statedir.h: made O_EXCL
 * beneath the state folder and recorded there by device and inode); any other needs
 * the allow-list too. Every target is opened once (rb_guard_open) and the descriptor,
 * never the path, is judged. A file is refused whatever the keys when it has more
 * than one link, backs a loop device, is swap, or another process has it open for
 * writing. Symlinks to block devices are resolved, so a link to a device goes
 * through the device checks. A block device is refused when, for the disk or any of
 * its partitions (device numbers, read from sysfs): it is mounted (/proc/self/
 * mountinfo); it is swap (/proc/swaps); something holds it (sysfs holders: LVM, MD,
 * dm-crypt, ...); it carries a partition table or a filesystem, RAID, LVM or swap
 * signature (libblkid), unless the run allows wiping them; or it is, through any
 * chain of holders, the disk behind /, /boot or swap; or a loop device sits on it, or
 * it is a loop device whose backing device fails these checks (recursively) or whose
 * backing file another loop also uses. The guard collects every failed
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
#include "target.h"

struct rb_guard_policy {
	bool destructive;	     /* the run's key */
	const char *destructive_key; /* how the user gives it, for messages */
	char *const *allow;	     /* the agent's key: --allow entries */
	size_t nallow;
	const char *state_dir; /* rackbench's own files: statedir.h */
	const char *root;      /* prefix of /sys and /proc: "" normally */
	bool wipe_signatures;  /* the run allows overwriting signatures */
};

/* What rb_guard_open is asked for. */
enum {
	RB_GUARD_WRITE = 1 << 0,  /* the run writes: claim a block device O_EXCL */
	RB_GUARD_CREATE = 1 << 1, /* make a missing file in the state folder */
	RB_GUARD_CHECK = 1 << 2,  /* with WRITE: judge only; open read-only, claim too */
};

/* A target opened by rb_guard_open: the descriptor is what every check judges. */
struct rb_guard_target {
	int fd;			    /* -1: a file in the state folder not made yet */
	bool ours;		    /* a file rackbench created (the state folder's index) */
	bool in_state;		    /* the path lies inside the state folder */
	bool linked;		    /* ... as a symlink: what it names was opened instead */
	bool judged_write;	    /* rb_guard_claim judged a write to it and allowed it */
	struct rb_target_info info; /* kind, device and size from the descriptor */
};

/*
 * Opens path the way every reader and writer of targets must: a block device (through
 * symlinks) read-only, or claimed O_RDWR|O_EXCL with RB_GUARD_WRITE (nobody mounts or
 * assembles it from now on); a file inside the state folder relative to the folder,
 * following no symlink (made O_CREAT|O_EXCL and recorded with RB_GUARD_CREATE); any
 * other file by its resolved path with O_NOFOLLOW. Nothing is written. Returns 0 and
 * ret (fd -1 for a missing state-folder file without RB_GUARD_CREATE), or negative
 * errno with a diagnostic naming path; ret is filled then too (fd -1), so a device
 * that could not be claimed can still be judged for every other reason.
 */
int rb_guard_open(const struct rb_guard_policy *p, const char *path, unsigned how,
		  struct rb_guard_target *ret, struct rb_diags *diags);
/*
 * Judges a write to the target open in t: both keys, then the block-device rules or
 * the file rules (rb_guard_check_file) on the descriptor. Returns 0 when allowed,
 * -EPERM with one diagnostic per failed check (subject: path).
 */
int rb_guard_judge(const struct rb_guard_policy *p, const char *path,
		   const struct rb_guard_target *t, struct rb_diags *diags);
/*
 * rb_guard_open, then, with RB_GUARD_WRITE, rb_guard_judge on what was opened (a
 * device that could not be claimed is judged too, so every reason shows). Returns 0
 * with the target open in ret (the caller closes ret->fd), -EPERM when refused
 * (nothing left open), or another negative errno from the open with a diagnostic.
 */
int rb_guard_claim(const struct rb_guard_policy *p, const char *path, unsigned how,
		   struct rb_guard_target *ret, struct rb_diags *diags);
/*
 * Makes t->fd writable: a file opened read-only (rackbench's own, to be laid out) is
 * reopened through its descriptor, the same inode checked. 0 or negative errno.
 */
int rb_guard_make_writable(struct rb_guard_target *t);
/*
 * The rules for touching a file's bytes at all (a write, or laying out one of
 * rackbench's files): one link only, not the backing file of a loop device, not a swap
 * file, not open for writing by another process. Returns 0 or -EPERM with diagnostics.
 */
int rb_guard_check_file(const struct rb_guard_policy *p, const char *path, int fd,
			struct rb_diags *diags);
/*
 * Checks a write to path: opens it as a run would (claiming a block device, creating
 * nothing), judges the descriptor, closes it. Returns 0 when allowed, -EPERM when
 * refused with one diagnostic per failed check (subject: the path).
 */
int rb_guard_check_write(const struct rb_guard_policy *p, const char *path, struct rb_diags *diags);
/*
 * The block-device checks alone, for the device numbered dev (the keys are not
 * checked): the disk and its partitions mounted, swap, held, behind /, /boot or swap;
 * loop devices both ways (a loop over the device, and, when the device is a loop, what
 * it sits on, recursively). devpath, when not NULL, is probed with libblkid for
 * signatures. subject names the device in messages. Returns 0 or -EPERM.
 */
int rb_guard_check_blockdev(const struct rb_guard_policy *p, const char *subject, dev_t dev,
			    const char *devpath, struct rb_diags *diags);
/*
 * Refuses two different names of one device or file among paths (symlinks followed;
 * the same name twice is one drive shared on purpose). Returns 0, or -EPERM with a
 * diagnostic naming both.
 */
int rb_guard_same_devices(char *const *paths, size_t n, struct rb_diags *diags);
/* Whether path is on the allow-list (comparing resolved paths). */
bool rb_guard_allowed(const struct rb_guard_policy *p, const char *path);
/* Whether the file open at fd is one an --allow entry names (same device and inode). */
bool rb_guard_allowed_fd(const struct rb_guard_policy *p, int fd);

/* The UUID of the filesystem on dev (libblkid), into buf; "" when it carries none. */
void rb_guard_fs_uuid(const char *dev, char *buf, size_t len);

#endif
