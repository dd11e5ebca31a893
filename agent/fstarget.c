// SPDX-License-Identifier: MIT
#include "fstarget.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target.h"

/* mkfs.TYPE with its force and quiet flags, the options, the device. 0 or an error. */
static int mkfs(const struct rb_fs_spec *s, const char *dev, struct rb_diags *d)
{
	char prog[32], opts[256], *argv[64];
	int n = 0, status;
	pid_t pid;

	snprintf(prog, sizeof(prog), "mkfs.%s", s->type);
	snprintf(opts, sizeof(opts), "%s", s->mkfs_options);
	argv[n++] = prog;
	argv[n++] = (char *)(strcmp(s->type, "xfs") ? "-F" : "-f");
	argv[n++] = (char *)"-q";
	for (char *tok = strtok(opts, " "); tok && n < 61; tok = strtok(NULL, " "))
		argv[n++] = tok;
	argv[n++] = (char *)dev;
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execvp(prog, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev, "%s %s", prog,
		     WIFEXITED(status) && WEXITSTATUS(status) == 127
			     ? "is not installed"
			     : "failed (its messages are above)");
	return -EIO;
}

int rb_fs_target_setup(const struct rb_guard_policy *gp, const struct rb_fs_spec *s,
		       const char *dev, struct rb_fs_target *ret, struct rb_diags *d)
{
	struct rb_target_info ti;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (strcmp(s->type, "ext4") && strcmp(s->type, "xfs")) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev, "filesystem '%s': ext4 or xfs",
			     s->type);
		return -EINVAL;
	}
	if (rb_target_probe(dev, &ti) || ti.kind != RB_TARGET_BLOCK) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev,
			     "a filesystem is made on a block device; this is not one");
		return -EINVAL;
	}
	/* making a filesystem is a write: both keys, every device rule */
	if (rb_guard_check_write(gp, dev, d))
		return -EPERM;
	if ((r = mkfs(s, ti.real, d)))
		return r;
	/* a mount namespace of our own: nobody else sees the mount, and it dies with us */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		r = -errno;
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev,
			     "cannot make a private mount namespace: %s", strerror(-r));
		return r;
	}
	snprintf(ret->dev, sizeof(ret->dev), "%s", ti.real);
	snprintf(ret->mnt, sizeof(ret->mnt), "%s/fs-%d", gp->state_dir, (int)getpid());
	if (mkdir(ret->mnt, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, ret->mnt,
			     "cannot make the mount point: %s", strerror(-r));
		return r;
	}
	if (mount(ti.real, ret->mnt, s->type, 0, s->mount_options[0] ? s->mount_options : NULL) <
	    0) {
		r = -errno;
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev, "cannot mount the new %s: %s",
			     s->type, strerror(-r));
		rmdir(ret->mnt);
		return r;
	}
	ret->mounted = true;
	snprintf(ret->file, sizeof(ret->file), "%s/rackbench.dat", ret->mnt);
	return 0;
}

void rb_fs_target_teardown(struct rb_fs_target *t)
{
	if (!t->mounted)
		return;
	if (umount2(t->mnt, 0) < 0)
		umount2(t->mnt, MNT_DETACH);
	rmdir(t->mnt);
	t->mounted = false;
}
