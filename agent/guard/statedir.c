// SPDX-License-Identifier: MIT
#include "statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Folders that hold the system, never rackbench's own (exact matches, resolved). */
static const char *const system_dirs[] = {
	"/",	    "/bin",	"/boot",      "/dev",	    "/etc",	  "/home",    "/lib",
	"/lib32",   "/lib64",	"/libx32",    "/media",	    "/mnt",	  "/opt",     "/proc",
	"/root",    "/run",	"/sbin",      "/srv",	    "/sys",	  "/tmp",     "/usr",
	"/usr/bin", "/usr/lib", "/usr/local", "/usr/sbin",  "/usr/share", "/var",     "/var/lib",
	"/var/log", "/var/tmp", "/var/cache", "/var/spool", "/var/run",	  "/dev/shm", "/run/user",
};

int rb_state_dir_check(const char *dir, struct rb_diags *d)
{
	char real[PATH_MAX];
	struct stat st;
	size_t before = rb_diags_errors(d);

	if (!dir || !*dir) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, "(state folder)",
			     "no state folder is set");
		return -EPERM;
	}
	if (!realpath(dir, real)) {
		if (errno == ENOENT)
			return 0;
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dir,
			     "cannot resolve the state folder: %s", strerror(errno));
		return -EPERM;
	}
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (!strcmp(real, system_dirs[i]))
			rb_diags_add(
				d, RB_SEV_ERROR, NULL, 0, 0, dir,
				"'%s' is a system folder, not a state folder: every file in it "
				"would be at stake (use a folder of rackbench's own, such as "
				"/var/lib/rackbench)",
				real);
	if (stat(real, &st) < 0) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dir,
			     "cannot inspect the state folder: %s", strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dir, "the state folder is not a folder");
	} else {
		if (st.st_uid != geteuid())
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dir,
				     "the state folder belongs to uid %u, not to the agent's user "
				     "(uid %u)",
				     (unsigned)st.st_uid, (unsigned)geteuid());
		if (st.st_mode & S_IWOTH)
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, dir,
				     "the state folder is writable by every user (mode %04o): "
				     "anyone could plant files in it",
				     (unsigned)(st.st_mode & 07777));
	}
	return rb_diags_errors(d) > before ? -EPERM : 0;
}

bool rb_state_rel(const char *dir, const char *path, char *ret_rel, size_t len)
{
	char rd[PATH_MAX], parent[PATH_MAX], rp[PATH_MAX];
	const char *name, *slash;
	size_t n;

	if (!dir || !*dir || !path || !*path || !realpath(dir, rd))
		return false;
	slash = strrchr(path, '/');
	name = slash ? slash + 1 : path;
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else if (slash == path)
		snprintf(parent, sizeof(parent), "/");
	else
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	if (!realpath(parent, rp))
		return false;
	n = strlen(rd);
	if (!strcmp(rp, rd))
		return (size_t)snprintf(ret_rel, len, "%s", name) < len;
	if (n == 1) /* "/" as the folder: every path is beneath it */
		return (size_t)snprintf(ret_rel, len, "%s/%s", rp + 1, name) < len;
	if (strncmp(rp, rd, n) || rp[n] != '/')
		return false;
	return (size_t)snprintf(ret_rel, len, "%s/%s", rp + n + 1, name) < len;
}

/* openat2 beneath dirfd with no symlink; a component walk where the kernel lacks it. */
static int open_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char buf[PATH_MAX], *p, *slash;
	int fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));

	/* no openat2 (an old kernel, or a seccomp filter that refuses what it does not
	 * know with EPERM): the walk below does the same */
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG))
		return fd < 0 ? -errno : fd;
	/* no openat2: walk the folders one by one, refusing '..' and symlinks */
	if ((size_t)snprintf(buf, sizeof(buf), "%s", rel) >= sizeof(buf))
		return -ENAMETOOLONG;
	if (buf[0] == '/')
		return -EXDEV;
	int cur = dup(dirfd);

	if (cur < 0)
		return -errno;
	for (p = buf; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		if (!strcmp(p, ".."))
			fd = -EXDEV;
		else
			fd = openat(cur, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1)
			fd = errno == ENOTDIR ? -ELOOP : -errno;
		close(cur);
		if (fd < 0)
			return fd;
		cur = fd;
	}
	if (!strcmp(p, ".."))
		fd = -EXDEV;
	else if ((fd = openat(cur, p, flags | O_CLOEXEC | O_NOFOLLOW, mode)) < 0)
		fd = -errno;
	close(cur);
	return fd;
}

static int open_dir(const char *dir)
{
	char real[PATH_MAX];
	int fd;

	if (!realpath(dir, real))
		return -errno;
	fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * A file's identity: device and inode, and, since a freed inode number is soon given
 * to a new file, its birth time and generation where the filesystem keeps them (0
 * where it does not, the same at every look).
 */
struct ident {
	uint64_t dev, ino, btime_ns, gen;
	uint32_t nlink;
	bool reg;
};

static int identify(int fd, struct ident *id)
{
	struct statx sx;
	unsigned int gen = 0;

	memset(id, 0, sizeof(*id));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, &sx) < 0)
		return -errno;
	id->dev = ((uint64_t)sx.stx_dev_major << 32) | sx.stx_dev_minor;
	id->ino = sx.stx_ino;
	id->nlink = sx.stx_nlink;
	id->reg = S_ISREG(sx.stx_mode);
	if (sx.stx_mask & STATX_BTIME)
		id->btime_ns = (uint64_t)sx.stx_btime.tv_sec * 1000000000u + sx.stx_btime.tv_nsec;
	if (ioctl(fd, FS_IOC_GETVERSION, &gen) == 0)
		id->gen = gen;
	return 0;
}

/* The index may vouch for files only if no one else could have written it. */
static bool index_fit(int idx)
{
	struct stat st;

	return fstat(idx, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	       st.st_uid == geteuid() && !(st.st_mode & 022);
}

static int record(int dirfd, const char *rel, int fd)
{
	struct ident id;
	char line[PATH_MAX + 96];
	int idx, n, r;

	if ((r = identify(fd, &id)))
		return r;
	idx = open_beneath(dirfd, RB_STATE_INDEX, O_RDWR | O_APPEND | O_CREAT | O_NONBLOCK, 0600);
	if (idx < 0)
		return idx;
	if (!index_fit(idx)) {
		close(idx);
		return -EPERM;
	}
	r = 0;
	/* a torn last line is ended first, so the new one stands on its own */
	off_t end = lseek(idx, 0, SEEK_END);
	char last = '\n';

	if (end > 0 && pread(idx, &last, 1, end - 1) == 1 && last != '\n' &&
	    write(idx, "\n", 1) != 1)
		r = -EIO;
	n = snprintf(line, sizeof(line), "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
		     id.dev, id.ino, id.btime_ns, id.gen, rel);
	if (r)
		;
	else if (n < 0 || (size_t)n >= sizeof(line))
		r = -ENAMETOOLONG;
	else if (write(idx, line, (size_t)n) != n)
		r = errno ? -errno : -EIO;
	else if (fsync(idx) < 0)
		r = -errno;
	close(idx);
	return r;
}

int rb_state_open(const char *dir, const char *rel, int flags, bool create)
{
	int dirfd = open_dir(dir), fd;

	if (dirfd < 0)
		return dirfd;
	fd = open_beneath(dirfd, rel, flags & ~(O_CREAT | O_EXCL), 0);
	if (fd == -ENOENT && create) {
		fd = open_beneath(dirfd, rel, flags | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			int r = record(dirfd, rel, fd);

			if (r) {
				/* not recorded, so not ours: take it back */
				close(fd);
				unlinkat(dirfd, rel, 0);
				fd = r;
			}
		}
	}
	close(dirfd);
	return fd;
}

bool rb_state_owns(const char *dir, int fd)
{
	struct ident id;
	char line[PATH_MAX + 96];
	bool found = false;
	int dirfd, idx;
	FILE *f;

	if (identify(fd, &id) || !id.reg || id.nlink != 1)
		return false;
	dirfd = open_dir(dir);
	if (dirfd < 0)
		return false;
	idx = open_beneath(dirfd, RB_STATE_INDEX, O_RDONLY | O_NONBLOCK, 0);
	close(dirfd);
	if (idx < 0)
		return false;
	/* an index others could write (or another file's bytes) would vouch for anything */
	if (!index_fit(idx) || !(f = fdopen(idx, "r"))) {
		close(idx);
		return false;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t dev, ino, bt, gen;

		if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &dev, &ino, &bt,
			   &gen) == 4)
			found = dev == id.dev && ino == id.ino && bt == id.btime_ns &&
				gen == id.gen;
	}
	fclose(f);
	return found;
}

const char *rb_default_state_dir(void)
{
	static char buf[4096];
	const char *env = getenv("RB_STATE_DIR"), *home = getenv("HOME");

	if (env && *env)
		return env;
	if (geteuid() == 0 || !home)
		return "/var/lib/rackbench";
	snprintf(buf, sizeof(buf), "%s/.local/state/rackbench", home);
	return buf;
}
