// SPDX-License-Identifier: MIT
/*
 * Opening a target the one way the guard allows, and judging what was opened: the
 * keys, then the file rules or the block-device rules of guard.c on the descriptor.
 */
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "statedir.h"
#include "target.h"

bool rb_guard_allowed_fd(const struct rb_guard_policy *p, int fd)
{
	struct stat st, a;

	if (fstat(fd, &st) < 0)
		return false;
	for (size_t i = 0; i < p->nallow; i++) {
		if (stat(p->allow[i], &a) || (a.st_mode & S_IFMT) != (st.st_mode & S_IFMT))
			continue;
		/* a device by its number (any node of it), a file by its inode */
		if (S_ISBLK(st.st_mode) ? a.st_rdev == st.st_rdev
					: a.st_dev == st.st_dev && a.st_ino == st.st_ino)
			return true;
	}
	return false;
}

/* Whether an --allow entry is the block device numbered rdev. */
static bool allowed_rdev(const struct rb_guard_policy *p, dev_t rdev)
{
	char blk[64];
	struct stat a;

	for (size_t i = 0; i < p->nallow; i++) {
		/* an NVMe generic device allows its namespace */
		const char *e = rb_target_nvme_block(p->allow[i], blk, sizeof(blk)) == 0
					? blk
					: p->allow[i];

		if (stat(e, &a) == 0 && S_ISBLK(a.st_mode) && a.st_rdev == rdev)
			return true;
	}
	return false;
}

/* rackbench's own bookkeeping in the state folder is never a target. */
static bool reserved(const char *rel)
{
	return !strcmp(rel, RB_STATE_INDEX) || !strcmp(rel, "history.jsonl") ||
	       !strcmp(rel, "power") || !strncmp(rel, "power/", 6) || !strcmp(rel, "spool") ||
	       !strncmp(rel, "spool/", 6) ||
	       (!strncmp(rel, "fs-", 3) && !strchr(rel, '/')); /* the mount point itself */
}

static int open_block(const char *path, const char *real, unsigned how, struct rb_guard_target *t,
		      struct rb_diags *d)
{
	/* a check that writes nothing claims read-only: exclusive all the same */
	int flags = O_CLOEXEC | ((how & RB_GUARD_WRITE) ? O_EXCL : 0) |
		    ((how & RB_GUARD_WRITE) && !(how & RB_GUARD_CHECK) ? O_RDWR : O_RDONLY);
	struct stat st;

	t->info.kind = RB_TARGET_BLOCK;
	t->fd = open(real, flags);
	if (t->fd < 0) {
		int e = errno;

		if (e == EBUSY && (how & RB_GUARD_WRITE))
			rb_diags_add(
				d, RB_SEV_ERROR, NULL, 0, 0, path,
				"cannot claim the device exclusively: it is in use (mounted, "
				"assembled, or open O_EXCL), here or in another mount namespace");
		else
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path, "cannot open: %s",
				     strerror(e));
		return -e;
	}
	/* what is open is what is judged */
	if (fstat(t->fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "what was opened is not the block device it was a moment before");
		close(t->fd);
		t->fd = -1;
		return -EPERM;
	}
	t->info.rdev = st.st_rdev;
	return 0;
}

/* A descriptor of the same file, for writing (a read-only open of rackbench's own). */
static int reopen_rw(int fd)
{
	char proc[64];
	struct stat a, b;
	int nfd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	nfd = open(proc, O_RDWR | O_CLOEXEC);
	if (nfd < 0)
		return -errno;
	if (fstat(fd, &a) || fstat(nfd, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
		close(nfd);
		return -EPERM;
	}
	return nfd;
}

int rb_guard_make_writable(struct rb_guard_target *t)
{
	int fl = fcntl(t->fd, F_GETFL), nfd;

	if (fl < 0)
		return -errno;
	if ((fl & O_ACCMODE) == O_RDWR)
		return 0;
	nfd = reopen_rw(t->fd);
	if (nfd < 0)
		return nfd;
	close(t->fd);
	t->fd = nfd;
	return 0;
}

int rb_guard_open(const struct rb_guard_policy *p, const char *path, unsigned how,
		  struct rb_guard_target *ret, struct rb_diags *diags)
{
	struct rb_guard_target t = { .fd = -1 };
	char rel[PATH_MAX];
	struct stat st;
	int r, acc, fl;

	*ret = t;
	r = rb_target_probe(path, &t.info);
	if (r) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path, "cannot inspect target: %s",
			     strerror(-r));
		return r;
	}
	if (t.info.kind == RB_TARGET_BLOCK) {
		r = open_block(path, t.info.real, how, &t, diags);
		goto out;
	}
	/* a FIFO, a character device: refused before anything opens it (an open alone
	 * may block, or arm a watchdog) */
	if (t.info.kind == RB_TARGET_OTHER) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "target is neither a block device nor a regular file");
		return -EINVAL;
	}
	/* written only when judged for writing; rackbench's own file is reopened for its
	 * layout (rb_guard_make_writable) */
	acc = (how & RB_GUARD_WRITE) && !(how & RB_GUARD_CHECK) ? O_RDWR : O_RDONLY;
	t.in_state = rb_state_rel(p->state_dir, path, rel, sizeof(rel));
	if (t.in_state && reserved(rel)) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "is rackbench's own bookkeeping in the state folder (its index of "
			     "files, the drives' history, the spool, a mount point), not a target");
		return -EINVAL;
	}
	if (t.in_state) {
		if (rb_state_dir_check(p->state_dir, diags))
			return -EPERM;
		r = rb_state_open(p->state_dir, rel, acc | O_NONBLOCK | O_NOCTTY,
				  how & RB_GUARD_CREATE);
		if (r == -ENOENT && !(how & RB_GUARD_CREATE)) {
			t.info.kind = RB_TARGET_MISSING;
			*ret = t;
			return 0;
		}
		if (r >= 0) {
			t.fd = r;
			r = 0;
			t.ours = rb_state_owns(p->state_dir, t.fd);
		} else if (r != -ELOOP) {
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path, "cannot open: %s",
				     strerror(-r));
			return r;
		}
		/* a symlink inside the state folder: what it names is not rackbench's */
	}
	if (t.fd < 0) {
		if (t.info.kind == RB_TARGET_MISSING) {
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     t.in_state ? "target is a dangling symbolic link (rackbench "
						  "follows no link in its state folder)"
						: "target does not exist (rackbench creates files "
						  "only in its state folder)");
			return -ENOENT;
		}
		t.fd = open(t.info.real, O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | acc);
		if (t.fd < 0) {
			r = -errno;
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path, "cannot open: %s",
				     strerror(-r));
			return r;
		}
		t.linked = t.in_state;
		t.in_state = false;
		r = 0;
	}
	if (fstat(t.fd, &st) < 0) {
		r = -errno;
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path, "cannot inspect: %s",
			     strerror(-r));
		goto out;
	}
	/* it was a file a moment ago: anything else now was swapped in */
	if (!S_ISREG(st.st_mode)) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "what was opened is not the regular file it was a moment before");
		r = -EPERM;
		goto out;
	}
	/* O_NONBLOCK was for the open only (io_uring would not wait on such a file) */
	fl = fcntl(t.fd, F_GETFL);
	if (fl < 0 || fcntl(t.fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		r = -errno;
		goto out;
	}
	t.info.kind = RB_TARGET_FILE;
	t.info.size_bytes = (uint64_t)st.st_size;
	t.info.logical_block_size = 512;
	t.info.rdev = 0;
	/* as rb_target_probe names a file that was there: one just created is one too */
	snprintf(t.info.model, sizeof(t.info.model), "file");
out:
	if (r && t.fd >= 0) {
		close(t.fd);
		t.fd = -1;
	}
	*ret = t;
	return r;
}

int rb_guard_judge(const struct rb_guard_policy *p, const char *path,
		   const struct rb_guard_target *t, struct rb_diags *diags)
{
	size_t before = rb_diags_errors(diags);

	if (!p->destructive)
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "writes need the run's key: %s is not given",
			     p->destructive_key ? p->destructive_key : "destructive: true");
	switch (t->info.kind) {
	case RB_TARGET_BLOCK:
		/* the key by the claimed device's number, never the path again */
		if (!allowed_rdev(p, t->info.rdev))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "writes need the agent's key: '%s' is not on the agent's "
				     "--allow list",
				     path);
		rb_guard_check_blockdev(p, path, t->info.rdev,
					t->info.real[0] ? t->info.real : NULL, diags);
		break;
	case RB_TARGET_MISSING:
		/* a file rackbench is to create in its state folder: only the run's key */
		break;
	case RB_TARGET_FILE:
		if (!t->ours && !rb_guard_allowed_fd(p, t->fd)) {
			if (t->in_state)
				rb_diags_add(
					diags, RB_SEV_ERROR, NULL, 0, 0, path,
					"writes need the agent's key: the file is in the state "
					"folder but rackbench did not create it (it is not in "
					"the folder's index '%s'), and it is not on the agent's "
					"--allow list; remove it and let rackbench create it",
					RB_STATE_INDEX);
			else if (t->linked)
				rb_diags_add(
					diags, RB_SEV_ERROR, NULL, 0, 0, path,
					"writes need the agent's key: the path is a symbolic "
					"link in the state folder to '%s', a file rackbench did "
					"not create, and it is not on the agent's --allow list",
					t->info.real);
			else
				rb_diags_add(
					diags, RB_SEV_ERROR, NULL, 0, 0, path,
					"writes need the agent's key: the file was not created "
					"by rackbench (it is not in the state folder '%s') and "
					"is not on the agent's --allow list",
					p->state_dir ? p->state_dir : "(none)");
		}
		rb_guard_check_file(p, path, t->fd, diags);
		break;
	default:
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "target is neither a block device nor a regular file");
		break;
	}
	return rb_diags_errors(diags) > before ? -EPERM : 0;
}

int rb_guard_claim(const struct rb_guard_policy *p, const char *path, unsigned how,
		   struct rb_guard_target *ret, struct rb_diags *diags)
{
	int r = rb_guard_open(p, path, how, ret, diags);

	if (!(how & RB_GUARD_WRITE))
		return r;
	/* a device that could not be claimed is judged all the same: every reason at once */
	if (r && ret->info.kind != RB_TARGET_BLOCK) {
		if (!p->destructive)
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "writes need the run's key: %s is not given",
				     p->destructive_key ? p->destructive_key : "destructive: true");
		return -EPERM;
	}
	if (rb_guard_judge(p, path, ret, diags) || r) {
		if (ret->fd >= 0)
			close(ret->fd);
		ret->fd = -1;
		return -EPERM;
	}
	ret->judged_write = true;
	return 0;
}

int rb_guard_check_write(const struct rb_guard_policy *p, const char *path, struct rb_diags *diags)
{
	struct rb_guard_target t;
	int r = rb_guard_claim(p, path, RB_GUARD_WRITE | RB_GUARD_CHECK, &t, diags);

	if (!r && t.fd >= 0)
		close(t.fd);
	return r ? -EPERM : 0;
}

int rb_guard_same_devices(char *const *paths, size_t n, struct rb_diags *diags)
{
	struct stat *st = calloc(n + 1, sizeof(*st));
	bool *ok = calloc(n + 1, sizeof(*ok));
	int r = 0;

	if (!st || !ok) {
		free(st);
		free(ok);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		ok[i] = stat(paths[i], &st[i]) == 0 &&
			(S_ISBLK(st[i].st_mode) || S_ISREG(st[i].st_mode));
		for (size_t j = 0; ok[i] && j < i; j++) {
			bool blk = S_ISBLK(st[i].st_mode);

			/* the same name twice is one drive shared on purpose (volumes) */
			if (!ok[j] || !strcmp(paths[i], paths[j]) ||
			    blk != S_ISBLK(st[j].st_mode) ||
			    (blk ? st[i].st_rdev != st[j].st_rdev
				 : st[i].st_dev != st[j].st_dev || st[i].st_ino != st[j].st_ino))
				continue;
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, paths[i],
				     "is the same %s as '%s': one %s under two names would be "
				     "measured twice at once (or written by two jobs)",
				     blk ? "device" : "file", paths[j], blk ? "device" : "file");
			r = -EPERM;
			break;
		}
	}
	free(st);
	free(ok);
	return r;
}
