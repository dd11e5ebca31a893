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
	for (size_t i = 0; i < p->nallow; i++)
		if (stat(p->allow[i], &a) == 0 && a.st_dev == st.st_dev && a.st_ino == st.st_ino &&
		    (a.st_mode & S_IFMT) == (st.st_mode & S_IFMT))
			return true;
	return false;
}

static int open_block(const char *path, const char *real, unsigned how,
		      struct rb_guard_target *t, struct rb_diags *d)
{
	int flags = O_CLOEXEC | ((how & RB_GUARD_WRITE) ? O_RDWR | O_EXCL : O_RDONLY);
	struct stat st;

	t->fd = open(real, flags);
	if (t->fd < 0) {
		int e = errno;

		if (e == EBUSY && (how & RB_GUARD_WRITE))
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "cannot claim the device exclusively: it is in use (mounted, "
				     "assembled, or open O_EXCL), here or in another mount namespace");
		else
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path, "cannot open: %s",
				     strerror(e));
		return -e;
	}
	/* what is open is what is judged */
	if (fstat(t->fd, &st) == 0 && S_ISBLK(st.st_mode))
		t->info.rdev = st.st_rdev;
	t->info.kind = RB_TARGET_BLOCK;
	return 0;
}

int rb_guard_open(const struct rb_guard_policy *p, const char *path, unsigned how,
		  struct rb_guard_target *ret, struct rb_diags *diags)
{
	struct rb_guard_target t = { .fd = -1 };
	char rel[PATH_MAX];
	struct stat st;
	int r;

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
	t.in_state = rb_state_rel(p->state_dir, path, rel, sizeof(rel));
	if (t.in_state) {
		if (rb_state_dir_check(p->state_dir, diags))
			return -EPERM;
		r = rb_state_open(p->state_dir, rel, O_RDWR, how & RB_GUARD_CREATE);
		if (r == -EACCES || r == -EROFS || r == -ETXTBSY)
			r = rb_state_open(p->state_dir, rel, O_RDONLY, false);
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
		t.fd = open(t.info.real, O_CLOEXEC | O_NOFOLLOW |
						 ((how & RB_GUARD_WRITE) ? O_RDWR : O_RDONLY));
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
		goto out;
	}
	if (S_ISBLK(st.st_mode)) {
		/* a device node reached without a symlink: the device rules, claimed */
		close(t.fd);
		t.fd = -1;
		t.in_state = t.ours = false;
		r = open_block(path, t.info.real[0] ? t.info.real : path, how, &t, diags);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "target is neither a block device nor a regular file");
		r = -EINVAL;
		goto out;
	}
	t.info.kind = RB_TARGET_FILE;
	t.info.size_bytes = (uint64_t)st.st_size;
	t.info.logical_block_size = 512;
	t.info.rdev = 0;
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
		if (!rb_guard_allowed(p, path) && !(t->fd >= 0 && rb_guard_allowed_fd(p, t->fd)))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "writes need the agent's key: '%s' is not on the agent's "
				     "--allow list", path);
		rb_guard_check_blockdev(p, path, t->info.rdev,
					t->info.real[0] ? t->info.real : NULL, diags);
		break;
	case RB_TARGET_MISSING:
		/* a file rackbench is to create in its state folder: only the run's key */
		break;
	case RB_TARGET_FILE:
		if (!t->ours && !rb_guard_allowed_fd(p, t->fd)) {
			if (t->in_state)
				rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
					     "writes need the agent's key: the file is in the state "
					     "folder but rackbench did not create it (it is not in "
					     "the folder's index '%s'), and it is not on the agent's "
					     "--allow list; remove it and let rackbench create it",
					     RB_STATE_INDEX);
			else if (t->linked)
				rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
					     "writes need the agent's key: the path is a symbolic "
					     "link in the state folder to '%s', a file rackbench did "
					     "not create, and it is not on the agent's --allow list",
					     t->info.real);
			else
				rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
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
	return 0;
}

int rb_guard_check_write(const struct rb_guard_policy *p, const char *path,
			 struct rb_diags *diags)
{
	struct rb_guard_target t;
	int r = rb_guard_claim(p, path, RB_GUARD_WRITE, &t, diags);

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
