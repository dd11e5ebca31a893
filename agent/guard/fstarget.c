// SPDX-License-Identifier: MIT
#include "fstarget.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "proc.h"

/* mkfs.TYPE with its force and quiet flags, the options, the device, within its deadline;
 * 0 or an error. Its messages go to the agent's stderr. */
static int mkfs(const struct rb_fs_spec *s, const char *dev, const char *cwd, struct rb_diags *d)
{
	char prog[32], opts[256], *argv[64];
	/* rackbench's own folder: a relative name an option might still hold lands there */
	struct rb_proc_spec ps = { .argv = argv, .cwd = cwd, .out = 1, .err = 2 };
	int n = 0, status, r;
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
	if ((r = rb_proc_start(&ps, &pid)))
		return r;
	r = rb_proc_wait(pid, rb_mono_ns() + RB_MKFS_DEADLINE_NS, &status);
	if (r == -ETIMEDOUT) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev,
			     "%s did not end within %d s: killed (are its options right for "
			     "this drive?)",
			     prog, (int)(RB_MKFS_DEADLINE_NS / 1000000000LL));
		return r;
	}
	if (r)
		return r;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev, "%s %s", prog,
		     WIFEXITED(status) && WEXITSTATUS(status) == 127
			     ? "is not installed"
			     : "failed (its messages are above)");
	return -EIO;
}

bool rb_fs_mkfs_found(const char *type)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX], prog[PATH_MAX + 48];

	if (!path || !*path)
		path = "/usr/sbin:/usr/bin:/sbin:/bin";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, p);
		snprintf(prog, sizeof(prog), "%s/mkfs.%s", *dir ? dir : ".", type);
		if (access(prog, X_OK) == 0)
			return true;
		p += n;
		p += *p == ':';
	}
	return false;
}

int rb_fs_own_namespace(const char *subject, struct rb_diags *d)
{
	static bool done;

	if (done)
		return 0;
	/* a slave: the host's mounts still reach us (the guard reads them), ours go nowhere */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
		int r = -errno;

		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, subject,
			     "cannot make a mount namespace of its own: %s", strerror(-r));
		return r;
	}
	done = true;
	return 0;
}

/* STATE/fs/NAME.made: the record of the filesystem rackbench made on dev. */
static void record_path(const char *state_dir, const char *dev, char *buf, size_t len)
{
	const char *base = strrchr(dev, '/');

	snprintf(buf, len, "%s/fs/%s.made", state_dir, base ? base + 1 : dev);
}

/* Whether dev carries the filesystem the state folder records as run's own. */
static bool ours(const char *state_dir, const char *dev, const char *run)
{
	char path[PATH_MAX + 64], want[256], rec_run[128], rec_uuid[64], now[64];
	FILE *f;
	bool yes = false;

	if (!run || !*run)
		return false;
	record_path(state_dir, dev, path, sizeof(path));
	if (!(f = fopen(path, "re")))
		return false;
	if (fgets(want, sizeof(want), f) && sscanf(want, "%127s %63s", rec_run, rec_uuid) == 2 &&
	    !strcmp(rec_run, run)) {
		rb_guard_fs_uuid(dev, now, sizeof(now));
		yes = *now && !strcmp(now, rec_uuid);
	}
	fclose(f);
	return yes;
}

static void record(const char *state_dir, const char *dev, const char *run,
		   const struct rb_fs_spec *s)
{
	char path[PATH_MAX + 64], tmp[PATH_MAX + 80], uuid[64];
	FILE *f;

	rb_guard_fs_uuid(dev, uuid, sizeof(uuid));
	record_path(state_dir, dev, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!*uuid || !(f = fopen(tmp, "we")))
		return;
	fprintf(f, "%s %s %s\n", *run ? run : "-", uuid, s->type);
	if (fclose(f) == 0)
		rename(tmp, path);
}

/* STATE/fs, rackbench's own folder of mount points and records. */
static int fs_dir(const char *state_dir, const char *subject, struct rb_diags *d)
{
	char dir[PATH_MAX + 8];

	snprintf(dir, sizeof(dir), "%s/fs", state_dir);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int r = -errno;

		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, subject, "cannot make %s: %s", dir,
			     strerror(-r));
		return r;
	}
	return 0;
}

int rb_fs_target_check(const struct rb_guard_policy *gp, const struct rb_fs_spec *s,
		       const char *dev, const char *run, bool *ret_own, struct rb_diags *d)
{
	struct rb_guard_policy g = *gp;
	struct rb_target_info ti;
	char err[512];
	int r = 0;

	*ret_own = false;
	if (rb_fs_spec_check(s, err, sizeof(err))) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev, "%s", err);
		return -EINVAL;
	}
	if (rb_target_probe(dev, &ti) || ti.kind != RB_TARGET_BLOCK) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev,
			     "a filesystem is made on a block device; this is not one");
		return -EINVAL;
	}
	/* mke2fs given an offset past the end counts blocks from a wrapped size, for ever */
	if (rb_fs_spec_offset(s) && rb_fs_spec_offset(s) >= ti.size_bytes) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev,
			     "mkfs_options: -E offset=%" PRIu64 " is not inside the drive (%" PRIu64
			     " bytes)",
			     rb_fs_spec_offset(s), ti.size_bytes);
		return -EINVAL;
	}
	*ret_own = ours(gp->state_dir, ti.real, run);
	if (!*ret_own && !rb_fs_mkfs_found(s->type)) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev,
			     "mkfs.%s is not installed on this host (its package: %s)", s->type,
			     strcmp(s->type, "xfs") ? "e2fsprogs" : "xfsprogs");
		r = -EINVAL;
	}
	/* making a filesystem is a write: both keys, every device rule; the run's own
	 * filesystem is no signature to refuse */
	if (*ret_own)
		g.wipe_signatures = true;
	if (rb_guard_check_write(&g, dev, d))
		return -EPERM;
	return r;
}

int rb_fs_target_setup(const struct rb_guard_policy *gp, const struct rb_fs_spec *s,
		       const char *dev, const char *mnt, const char *run, struct rb_fs_target *ret,
		       struct rb_diags *d)
{
	char data[256];
	unsigned long flags;
	bool own;
	int r;

	memset(ret, 0, sizeof(*ret));
	if ((r = rb_fs_target_check(gp, s, dev, run, &own, d)))
		return r;
	rb_target_probe(dev, &ret->dev_info);
	snprintf(ret->dev, sizeof(ret->dev), "%s", ret->dev_info.real);
	if ((r = fs_dir(gp->state_dir, dev, d)))
		return r;
	if (!own) {
		snprintf(ret->mnt, sizeof(ret->mnt), "%s/fs", gp->state_dir);
		if ((r = mkfs(s, ret->dev, ret->mnt, d)))
			return r;
		ret->made = true;
		record(gp->state_dir, ret->dev, run, s);
	}
	if ((r = rb_fs_own_namespace(dev, d)))
		return r;
	snprintf(ret->mnt, sizeof(ret->mnt), "%s", mnt);
	if (mkdir(ret->mnt, 0700) < 0 && errno != EEXIST) {
		r = -errno;
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, ret->mnt,
			     "cannot make the mount point: %s", strerror(-r));
		return r;
	}
	rb_fs_mount_args(s, &flags, data, sizeof(data));
	if (mount(ret->dev, ret->mnt, s->type, flags, data[0] ? data : NULL) < 0) {
		r = -errno;
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dev, "cannot mount its %s: %s%s", s->type,
			     strerror(-r),
			     ret->made ? "" : " (made by this run earlier: was it changed since?)");
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
	if (umount2(t->mnt, 0) < 0) {
		rb_warn("%s: cannot unmount %s (%s); detached instead", t->dev, t->mnt,
			strerror(errno));
		umount2(t->mnt, MNT_DETACH);
	}
	rmdir(t->mnt);
	t->mounted = false;
}

/*
 * Whether /dev/NAME, a device a killed agent had mounted in its namespace, is free: the
 * kernel lets the namespace go some time after the process (its io_uring's requests end
 * first). Waits up to the deadline; true when free (or no such device).
 */
static bool released(const char *name, struct timespec *deadline)
{
	char dev[PATH_MAX];
	struct stat st;
	bool said = false;

	snprintf(dev, sizeof(dev), "/dev/%s", name);
	if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
		return true;
	for (;;) {
		struct timespec now;
		int fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);

		if (fd >= 0) {
			close(fd);
			return true;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (errno != EBUSY || now.tv_sec > deadline->tv_sec ||
		    (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec))
			return false;
		if (!said)
			rb_info("waiting for %s, which this agent's killed process had mounted, to be "
				"released",
				dev);
		said = true;
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	}
}

void rb_fs_sweep(const char *state_dir)
{
	char dir[PATH_MAX + 8], path[PATH_MAX + 300];
	struct timespec deadline;
	DIR *dd;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/fs", state_dir);
	if (!(dd = opendir(dir)))
		return;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += 10;
	/*
	 * A mount point of another namespace looks empty from here, and rmdir would detach
	 * that mount: a 'rackbench-agent run' still running keeps its run-PID. The ones
	 * named by device are the daemon's of this state folder -- this process's killed
	 * predecessor (a daemon per state folder: they would share its spool too).
	 */
	while ((e = readdir(dd)))
		if (e->d_type == DT_DIR && e->d_name[0] != '.') {
			int pid = 0;

			if (sscanf(e->d_name, "run-%d", &pid) == 1 &&
			    (kill(pid, 0) == 0 || errno != ESRCH))
				continue;
			if (!released(e->d_name, &deadline))
				rb_warn("/dev/%s, which this agent's killed process had mounted, is "
					"still in use",
					e->d_name);
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			rmdir(path);
		}
	closedir(dd);
}
