// SPDX-License-Identifier: MIT
#include "guard.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "target.h"
#include "grow.h"

#define MAX_FAMILY 256
#define MAX_SYSTEM 64

struct blk {
	char dir[PATH_MAX]; /* resolved sysfs directory */
	char name[64];	    /* kernel name: sda1, nvme0n1, dm-0 */
	dev_t dev;
};

/* A path resolved, an NVMe generic device as its namespace's block device: one name. */
static bool canonical(const char *path, char *out)
{
	char blk[64];

	if (!realpath(path, out))
		return false;
	if (rb_target_nvme_block(out, blk, sizeof(blk)) == 0)
		snprintf(out, PATH_MAX, "%s", blk);
	return true;
}

bool rb_guard_allowed(const struct rb_guard_policy *p, const char *path)
{
	char rp[PATH_MAX], ra[PATH_MAX];
	bool have_rp = canonical(path, rp);

	for (size_t i = 0; i < p->nallow; i++) {
		if (strcmp(p->allow[i], path) == 0)
			return true;
		if (have_rp && canonical(p->allow[i], ra) && strcmp(ra, rp) == 0)
			return true;
	}
	return false;
}

static const char *root_of(const struct rb_guard_policy *p)
{
	return p->root ? p->root : "";
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool exists(const char *dir, const char *file)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

/* Fills b from a resolved sysfs directory. */
static int blk_from_dir(const char *dir, struct blk *b)
{
	char path[PATH_MAX + 8], buf[64];
	unsigned ma, mi;

	snprintf(b->dir, sizeof(b->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s", dir);
	snprintf(b->name, sizeof(b->name), "%s", basename(path));
	snprintf(path, sizeof(path), "%s/dev", dir);
	if (read_line(path, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return -ENOENT;
	b->dev = makedev(ma, mi);
	return 0;
}

static int blk_from_dev(const struct rb_guard_policy *p, dev_t dev, struct blk *b)
{
	char path[PATH_MAX], real[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys/dev/block/%u:%u", root_of(p), major(dev), minor(dev));
	if (!realpath(path, real))
		return -errno;
	return blk_from_dir(real, b);
}

/* Entries of dir/sub (holders, slaves) as block devices. Returns how many. */
static size_t list_links(const char *dir, const char *sub, struct blk *out, size_t max)
{
	char path[PATH_MAX + 16], real[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char link[PATH_MAX + 300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", path, de->d_name);
		if (realpath(link, real) && blk_from_dir(real, &out[n]) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* The disk and all its partitions; the disk first. */
static size_t family(const struct blk *dev, struct blk *out, size_t max)
{
	char disk[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(disk, sizeof(disk), "%s", dev->dir);
	if (exists(dev->dir, "partition"))
		dirname(disk);
	if (blk_from_dir(disk, &out[n]) == 0)
		n++;
	d = opendir(disk);
	if (!d)
		return n;
	while ((de = readdir(d)) && n < max) {
		char sub[PATH_MAX + 300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", disk, de->d_name);
		if (exists(sub, "partition") && blk_from_dir(sub, &out[n]) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* A holder's kind, from its sysfs: "LVM", "dm-crypt", "MD RAID1", "device-mapper". */
static void holder_kind(const struct blk *h, char *buf, size_t len)
{
	char path[PATH_MAX + 32], v[256] = "", name[256] = "";

	snprintf(path, sizeof(path), "%s/dm/uuid", h->dir);
	if (read_line(path, v, sizeof(v)) == 0) {
		snprintf(path, sizeof(path), "%s/dm/name", h->dir);
		read_line(path, name, sizeof(name));
		snprintf(buf, len, "%s %s",
			 !strncmp(v, "LVM-", 4)	    ? "LVM volume"
			 : !strncmp(v, "CRYPT-", 6) ? "dm-crypt volume"
			 : !strncmp(v, "mpath-", 6) ? "multipath map"
						    : "device-mapper device",
			 name[0] ? name : h->name);
		return;
	}
	snprintf(path, sizeof(path), "%s/md/level", h->dir);
	if (read_line(path, v, sizeof(v)) == 0) {
		snprintf(buf, len, "MD array (%s)", v);
		return;
	}
	snprintf(path, sizeof(path), "%s/bcache", h->dir);
	snprintf(buf, len, "%s", access(path, F_OK) == 0 ? "bcache device" : "another device");
}

struct sysdisk {
	dev_t disk;	 /* the disk at the bottom of the chain */
	dev_t leaf;	 /* the partition (or disk) the chain ends on */
	char what[64];	 /* "/", "/boot", "swap" */
	char chain[512]; /* "dm-0 <- md0 <- nvme0n1p1" */
};

/* Walks from a device down its slaves to the disks under it. */
static void walk_down(const struct rb_guard_policy *p, const struct blk *b, const char *what,
		      const char *chain, struct sysdisk *out, size_t *n, int depth)
{
	struct blk slaves[32];
	size_t ns;
	char next[512];

	snprintf(next, sizeof(next), "%s%s%s", chain, *chain ? " <- " : "", b->name);
	ns = depth < 16 ? list_links(b->dir, "slaves", slaves, 32) : 0;
	if (!ns) {
		struct blk fam[1];

		if (*n >= MAX_SYSTEM || family(b, fam, 1) < 1)
			return;
		out[*n].disk = fam[0].dev;
		out[*n].leaf = b->dev;
		snprintf(out[*n].what, sizeof(out[*n].what), "%s", what);
		snprintf(out[*n].chain, sizeof(out[*n].chain), "%s", next);
		(*n)++;
		return;
	}
	for (size_t i = 0; i < ns; i++)
		walk_down(p, &slaves[i], what, next, out, n, depth + 1);
}

/* Device number of a swap entry ("/dev/sda2", "/dev/dm-1", "/swapfile" on a disk). */
static bool swap_dev(const struct rb_guard_policy *p, const char *path, dev_t *ret)
{
	struct stat st;
	char sys[PATH_MAX + 64], real[PATH_MAX];
	const char *name = strrchr(path, '/');

	/* a /dev/NAME entry resolves through /sys/class/block/NAME (works in recorded trees) */
	if (name && !strncmp(path, "/dev/", 5) && !strchr(path + 5, '/')) {
		struct blk b;

		snprintf(sys, sizeof(sys), "%s/sys/class/block/%s", root_of(p), name + 1);
		if (realpath(sys, real) && blk_from_dir(real, &b) == 0) {
			*ret = b.dev;
			return true;
		}
	}
	if (*root_of(p) || stat(path, &st) < 0)
		return false;
	*ret = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev; /* a swap file: its filesystem */
	return true;
}

/* What the host uses its block devices for: mounts and swaps, read once per check. */
struct use {
	dev_t dev;
	char what[256]; /* mount point, or the swap entry */
	bool host;	/* a mount of pid 1's namespace that the agent's own does not show */
};

struct uses {
	struct use *v;
	size_t n, cap;
	size_t nmounts;		 /* v[0 .. nmounts) are mounts, the rest swaps */
	bool hidden;		 /* the host's mount table is out of sight (a PID namespace) */
	int unread;		 /* errno of a mount table that could not be read, else 0 */
	const char *unread_what; /* which: "self" or "1" */
};

static bool add_use(struct uses *u, dev_t dev, const char *what)
{
	if (RB_GROW(u->v, u->cap, u->n, 64))
		return false;
	u->v[u->n].dev = dev;
	u->v[u->n].host = false;
	snprintf(u->v[u->n].what, sizeof(u->v[u->n].what), "%s", what);
	u->n++;
	return true;
}

/* The use of dev among v[from, to), or NULL. */
static const char *used_as(const struct uses *u, size_t from, size_t to, dev_t dev)
{
	for (size_t i = from; i < to; i++)
		if (u->v[i].dev == dev)
			return u->v[i].what;
	return NULL;
}

/* Whether dev's mount is one only the host's namespace shows. */
static bool host_mount(const struct uses *u, dev_t dev)
{
	for (size_t i = 0; i < u->nmounts; i++)
		if (u->v[i].dev == dev)
			return u->v[i].host;
	return false;
}

/* Whether v[0, to) holds dev mounted at mnt. */
static bool has_mount(const struct uses *u, size_t to, dev_t dev, const char *mnt)
{
	for (size_t i = 0; i < to; i++)
		if (u->v[i].dev == dev && !strcmp(u->v[i].what, mnt))
			return true;
	return false;
}

/* A mountinfo line's device and mount point (mnt: 4096 bytes); false when malformed. */
static bool mount_line(const char *line, dev_t *dev, char *mnt)
{
	unsigned id, parent, ma, mi;
	char root[4096];

	if (sscanf(line, "%u %u %u:%u %4095s %4095s", &id, &parent, &ma, &mi, root, mnt) != 6)
		return false;
	*dev = makedev(ma, mi);
	return true;
}

/*
 * The mounts of /proc/WHO/mountinfo; with host, only those the agent's own lack (by
 * device and mount point: a container's bind of /etc/hosts must not hide the host's /).
 * 0, or -errno when the table cannot be read.
 */
static int read_mounts(const struct rb_guard_policy *p, struct uses *u, const char *who, bool host)
{
	char path[PATH_MAX], line[8192];
	size_t own = u->n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%s/mountinfo", root_of(p), who);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char mnt[4096];
		dev_t d;

		if (!mount_line(line, &d, mnt))
			continue;
		if (host && has_mount(u, own, d, mnt))
			continue;
		if (add_use(u, d, mnt))
			u->v[u->n - 1].host = host;
	}
	fclose(f);
	return 0;
}

/* The kernel's fixed inode of the initial PID namespace (PROC_PID_INIT_INO). */
#define INIT_PID_NS_INO 0xEFFFFFFCU

/*
 * The host's mounts beside the agent's own: in a mount namespace of its own (a container,
 * a private namespace) a device mounted on the host is not in /proc/self/mountinfo, so
 * pid 1's table is read too when pid 1 is the host's init (the initial PID namespace); a
 * mount both tables show counts once, the agent's first. In a PID namespace of its own,
 * pid 1 is not the host's: hidden. Pid 1's table unreadable (ptrace rules, an LSM): its
 * errno, judged like hidden.
 */
static void read_host_mounts(const struct rb_guard_policy *p, struct uses *u)
{
	struct stat st;
	int r;

	if (*root_of(p))
		return; /* a recorded tree holds one table */
	if (stat("/proc/self/ns/pid", &st) < 0 || st.st_ino != INIT_PID_NS_INO) {
		u->hidden = true;
		return;
	}
	if ((r = read_mounts(p, u, "1", true))) {
		u->unread = -r;
		u->unread_what = "1";
	}
}

static void read_uses(const struct rb_guard_policy *p, struct uses *u)
{
	char path[PATH_MAX], line[8192];
	FILE *f;
	int r;

	memset(u, 0, sizeof(*u));
	if ((r = read_mounts(p, u, "self", false))) {
		u->unread = -r;
		u->unread_what = "self";
	}
	read_host_mounts(p, u);
	u->nmounts = u->n;
	snprintf(path, sizeof(path), "%s/proc/swaps", root_of(p));
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char swp[4096];
		dev_t d;

		if (sscanf(line, "%4095s", swp) == 1 && swp[0] == '/' && swap_dev(p, swp, &d))
			add_use(u, d, swp);
	}
	if (f)
		fclose(f);
}

/*
 * Loop devices and what they sit on, read from sysfs once per check: a loop is not a
 * holder in either direction, and losetup opens its backing device without O_EXCL, so
 * neither the holders nor the claim would see one.
 */
struct loopdev {
	char name[32];
	dev_t dev;
	char backing[PATH_MAX]; /* loop/backing_file as the kernel shows it */
	bool on_blk;		/* backed by a block device (back_rdev), else a file */
	bool known;		/* the backing could be identified */
	dev_t back_rdev;
	dev_t back_dev; /* a backing file's filesystem and inode */
	ino_t back_ino;
	bool no_ino; /* known by its filesystem and path only (from a container) */
	uint64_t offset;
};

struct loops {
	struct loopdev *v;
	size_t n;
};

/* Device number of a node path: /dev/NAME through sysfs (recorded trees too), else stat. */
static bool node_rdev(const struct rb_guard_policy *p, const char *path, dev_t *ret)
{
	char sys[PATH_MAX + 64], real[PATH_MAX];
	struct stat st;
	struct blk b;

	if (!strncmp(path, "/dev/", 5) && !strchr(path + 5, '/')) {
		snprintf(sys, sizeof(sys), "%s/sys/class/block/%s", root_of(p), path + 5);
		if (realpath(sys, real) && blk_from_dir(real, &b) == 0) {
			*ret = b.dev;
			return true;
		}
	}
	if (*root_of(p) || stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return false;
	*ret = st.st_rdev;
	return true;
}

/* The device of the mount that holds path in pid 1's (the host's) table, longest prefix. */
static bool host_mount_dev(const char *path, dev_t *ret)
{
	char line[8192], best[4096] = "";
	FILE *f = fopen("/proc/1/mountinfo", "re");
	bool found = false;

	while (f && fgets(line, sizeof(line), f)) {
		char mnt[4096];
		dev_t d;
		size_t n;

		if (!mount_line(line, &d, mnt))
			continue;
		n = strlen(mnt);
		if (strncmp(path, mnt, n) || (path[n] != '/' && path[n] && strcmp(mnt, "/")) ||
		    (found && n < strlen(best)))
			continue;
		snprintf(best, sizeof(best), "%s", mnt);
		*ret = d;
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * A loop whose node this agent cannot open (a container has only the devices passed in),
 * by its backing path as sysfs gives it, when pid 1 is the host's init: through the host's
 * root (/proc/1/root, where ptrace rules allow it); a /dev node through sysfs; else a
 * file (one in /dev/shm too), known by the host mount that holds it (its inode cannot be
 * read from here): a tmpfs or FUSE mount (0:N) cannot be the target, a block device's is
 * judged as its device. A path that resolves nowhere (renamed, deleted) leaves the loop
 * unknown, and refused.
 */
static void loop_by_host_path(const struct rb_guard_policy *p, struct loopdev *l)
{
	char path[PATH_MAX + 16];
	struct stat st;

	if (l->backing[0] != '/' || stat("/proc/self/ns/pid", &st) < 0 ||
	    st.st_ino != INIT_PID_NS_INO)
		return;
	snprintf(path, sizeof(path), "/proc/1/root%s", l->backing);
	if (stat(path, &st) == 0) {
		l->known = true;
		l->on_blk = S_ISBLK(st.st_mode);
		l->back_rdev = l->on_blk ? st.st_rdev : 0;
		l->back_dev = l->on_blk ? 0 : st.st_dev;
		l->back_ino = l->on_blk ? 0 : st.st_ino;
		return;
	}
	/* a device node; a file under /dev (/dev/shm's tmpfs) is a file like any other */
	if (!strncmp(l->backing, "/dev/", 5) && node_rdev(p, l->backing, &l->back_rdev)) {
		l->on_blk = l->known = true;
		return;
	}
	if (strstr(l->backing, " (deleted)") || !host_mount_dev(l->backing, &l->back_dev))
		return;
	l->known = true;
	l->no_ino = true;
}

static void read_loops(const struct rb_guard_policy *p, struct loops *L)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], buf[64];
	struct dirent *de;
	DIR *d;

	memset(L, 0, sizeof(*L));
	snprintf(dir, sizeof(dir), "%s/sys/block", root_of(p));
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		struct loopdev *l, *v;
		struct stat st;
		unsigned ma, mi;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s/loop/backing_file", dir, de->d_name);
		if (access(path, F_OK))
			continue; /* a loop with nothing attached */
		v = realloc(L->v, (L->n + 1) * sizeof(*v));
		if (!v)
			break;
		L->v = v;
		l = &L->v[L->n];
		memset(l, 0, sizeof(*l));
		snprintf(l->name, sizeof(l->name), "%s", de->d_name);
		read_line(path, l->backing, sizeof(l->backing));
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		if (read_line(path, buf, sizeof(buf)) || sscanf(buf, "%u:%u", &ma, &mi) != 2)
			continue;
		l->dev = makedev(ma, mi);
		snprintf(path, sizeof(path), "%s/%s/loop/offset", dir, de->d_name);
		if (read_line(path, buf, sizeof(buf)) == 0)
			l->offset = strtoull(buf, NULL, 10);
		L->n++;
		if (*root_of(p)) {
			/* a recorded tree: the backing by its name */
			l->on_blk = l->known = node_rdev(p, l->backing, &l->back_rdev);
			continue;
		}
		/*
		 * The kernel's own account, not the backing path (a path renamed, deleted or
		 * named differently in this mount namespace would point elsewhere): the
		 * backing's device number when it is a device, else its file's device and
		 * inode. A loop that cannot be read stays unknown, and is refused.
		 */
		snprintf(path, sizeof(path), "/dev/%s", l->name);
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct loop_info64 li;

		if (fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &li) == 0 && fstat(fd, &st) == 0 &&
		    S_ISBLK(st.st_mode) && st.st_rdev == l->dev) {
			l->offset = li.lo_offset;
			l->known = true;
			if (li.lo_rdevice) {
				l->on_blk = true;
				l->back_rdev = (dev_t)li.lo_rdevice;
			} else {
				l->back_dev = (dev_t)li.lo_device;
				l->back_ino = (ino_t)li.lo_inode;
			}
		}
		if (fd >= 0)
			close(fd);
		if (!l->known)
			loop_by_host_path(p, l);
	}
	if (d)
		closedir(d);
}

/* ", which is mounted at /mnt" and the like: what uses a loop device, for messages. */
static void loop_use(const struct uses *u, const struct loopdev *l, char *buf, size_t len)
{
	const char *w;

	buf[0] = '\0';
	if ((w = used_as(u, 0, u->nmounts, l->dev)))
		snprintf(buf, len, ", which is mounted at %s", w);
	else if ((w = used_as(u, u->nmounts, u->n, l->dev)))
		snprintf(buf, len, ", which is swap (%s)", w);
}

/* The disks under /, /boot, /boot/efi and every swap, through their chains. */
static size_t system_disks(const struct rb_guard_policy *p, const struct uses *u,
			   struct sysdisk *out)
{
	size_t n = 0;

	for (size_t i = 0; i < u->n; i++) {
		const char *w = u->v[i].what;
		bool swap = i >= u->nmounts;
		struct blk b;

		if (!swap && strcmp(w, "/") && strcmp(w, "/boot") && strcmp(w, "/boot/efi"))
			continue;
		if (blk_from_dev(p, u->v[i].dev, &b) == 0)
			walk_down(p, &b, swap ? "swap" : w, "", out, &n, 0);
	}
	return n;
}

static void probe_signatures(const char *subject, const char *devpath, bool under_loop,
			     struct rb_diags *d)
{
	const char *hint = under_loop ? "a loop device starts inside it, so wiping the loop's "
					"own signatures would not remove it"
				      : "set wipe_signatures to allow overwriting it";
	blkid_probe pr = blkid_new_probe_from_filename(devpath);
	const char *type = NULL, *pttype = NULL;

	if (!pr) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, subject,
			     "cannot probe for signatures (libblkid could not open it)");
		return;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	if (blkid_do_safeprobe(pr) == 0) {
		blkid_probe_lookup_value(pr, "TYPE", &type, NULL);
		blkid_probe_lookup_value(pr, "PTTYPE", &pttype, NULL);
		if (type)
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, subject,
				     "device carries a %s signature (%s)", type, hint);
		if (pttype)
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, subject,
				     "device carries a %s partition table (%s)", pttype, hint);
	}
	blkid_free_probe(pr);
}

void rb_guard_fs_uuid(const char *dev, char *buf, size_t len)
{
	blkid_probe pr = blkid_new_probe_from_filename(dev);
	const char *u = NULL;

	snprintf(buf, len, "%s", "");
	if (!pr)
		return;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "UUID", &u, NULL) == 0)
		snprintf(buf, len, "%s", u);
	blkid_free_probe(pr);
}

#define MAX_LOOP_DEPTH 8

static int check_blockdev(const struct rb_guard_policy *p, const char *subject, dev_t dev,
			  const char *devpath, struct rb_diags *diags, dev_t from_loop,
			  bool under_loop, int depth);

/* Every reason of inner, each prefixed, into d under subject. */
static void add_prefixed(struct rb_diags *d, const char *subject, const char *prefix,
			 const struct rb_diags *inner)
{
	for (size_t i = 0; i < inner->n; i++)
		rb_diags_add(d, inner->v[i].severity, NULL, 0, 0, subject, "%s%s", prefix,
			     inner->v[i].message);
}

/* Loops over the device's family, and what the device sits on when it is a loop. */
static void check_loops(const struct rb_guard_policy *p, const char *subject,
			const struct blk *self, const struct blk *fam, size_t nfam,
			const struct uses *u, struct rb_diags *diags, dev_t from_loop, int depth)
{
	bool is_part = exists(self->dir, "partition");
	struct loops L;

	read_loops(p, &L);
	for (size_t k = 0; k < L.n; k++)
		if (!L.v[k].known && L.v[k].dev != self->dev && L.v[k].dev != from_loop)
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
				     "loop device %s over '%s' cannot be identified: it may sit on "
				     "this device",
				     L.v[k].name, L.v[k].backing);
	for (size_t i = 0; i < nfam; i++) {
		const struct blk *b = &fam[i];

		if (b->dev != self->dev && is_part)
			continue;
		for (size_t k = 0; k < L.n; k++) {
			char use[320];

			/* the loop the walk came up through is the target itself */
			if (!L.v[k].on_blk || L.v[k].back_rdev != b->dev || L.v[k].dev == from_loop)
				continue;
			loop_use(u, &L.v[k], use, sizeof(use));
			rb_diags_add(
				diags, RB_SEV_ERROR, NULL, 0, 0, subject,
				"%s is the backing device of loop device %s (at offset %llu)%s: "
				"writes here change what the loop shows",
				b->dev == self->dev ? "device" : b->name, L.v[k].name,
				(unsigned long long)L.v[k].offset, use);
		}
	}
	for (size_t k = 0; k < L.n; k++) {
		const struct loopdev *l = &L.v[k];
		char prefix[PATH_MAX + 128];

		if (l->dev != self->dev)
			continue;
		if (!l->known) {
			rb_diags_add(
				diags, RB_SEV_ERROR, NULL, 0, 0, subject,
				"device is a loop device over '%s', which cannot be identified: "
				"cannot check what the writes would reach",
				l->backing);
			break;
		}
		if (l->on_blk) {
			struct rb_diags inner;

			if (depth >= MAX_LOOP_DEPTH) {
				rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
					     "loop devices stacked more than %d deep",
					     MAX_LOOP_DEPTH);
				break;
			}
			/* the writes land on the backing device at the loop's offset: it is
			 * judged as the target, signatures included when the loop starts
			 * inside it (wiping the loop's own would not touch those) */
			rb_diags_init(&inner);
			check_blockdev(p, subject, l->back_rdev, *root_of(p) ? NULL : l->backing,
				       &inner, l->dev, l->offset != 0, depth + 1);
			snprintf(prefix, sizeof(prefix),
				 "through loop device %s (over %s at offset "
				 "%llu): ",
				 l->name, l->backing, (unsigned long long)l->offset);
			add_prefixed(diags, subject, prefix, &inner);
			rb_diags_release(&inner);
		}
		/* another loop on the same backing: two devices over the same bytes */
		for (size_t j = 0; j < L.n; j++) {
			const struct loopdev *o = &L.v[j];
			char use[320];

			/* (siblings over a device: the walk down it names them); an inode this
			 * agent cannot read (a container): the kernel's paths */
			if (j == k || l->on_blk || !o->known || o->on_blk ||
			    o->back_dev != l->back_dev ||
			    (o->no_ino || l->no_ino ? strcmp(o->backing, l->backing) != 0
						    : o->back_ino != l->back_ino))
				continue;
			loop_use(u, o, use, sizeof(use));
			rb_diags_add(
				diags, RB_SEV_ERROR, NULL, 0, 0, subject,
				"loop device %s sits on the same backing file '%s' as this one%s",
				o->name, l->backing, use);
		}
		/* a backing file used as swap */
		for (size_t j = u->nmounts; !l->on_blk && j < u->n; j++) {
			struct stat st;

			if (!*root_of(p) && stat(u->v[j].what, &st) == 0 && S_ISREG(st.st_mode) &&
			    st.st_dev == l->back_dev && st.st_ino == l->back_ino)
				rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
					     "device is a loop over the swap file %s",
					     u->v[j].what);
		}
		break;
	}
	free(L.v);
}

/*
 * under_loop: the device is what a loop target sits on, from an offset inside it; its
 * signatures then refuse whatever wipe_signatures says (wiping the loop's own would
 * not touch them).
 */
static int check_blockdev(const struct rb_guard_policy *p, const char *subject, dev_t dev,
			  const char *devpath, struct rb_diags *diags, dev_t from_loop,
			  bool under_loop, int depth)
{
	struct blk *fam = malloc(MAX_FAMILY * sizeof(*fam));
	struct sysdisk sys[MAX_SYSTEM];
	size_t before = rb_diags_errors(diags), nfam, nsys;
	struct blk self;
	struct uses u;
	const char *where;

	if (!fam)
		return -ENOMEM;
	read_uses(p, &u);
	if (u.hidden)
		rb_diags_add(
			diags, RB_SEV_ERROR, NULL, 0, 0, subject,
			"the agent runs in a PID namespace of its own (a container?): pid 1 is "
			"not the host's init, so the host's mount table is out of its sight "
			"and a device mounted on the host would go unseen; run the agent in "
			"the host's PID namespace (podman/docker --pid=host, Kubernetes "
			"hostPID: true)");
	if (u.unread)
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
			     "cannot read %s mount table (%s/proc/%s/mountinfo: %s): a device "
			     "mounted there would go unseen",
			     strcmp(u.unread_what, "1") ? "the agent's" : "the host's", root_of(p),
			     u.unread_what, strerror(u.unread));
	if (blk_from_dev(p, dev, &self)) {
		/* podman masks /sys/dev/block by default */
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
			     "device %u:%u is not in sysfs (%s/sys/dev/block): cannot check what "
			     "uses it%s",
			     major(dev), minor(dev), root_of(p),
			     access("/run/.containerenv", F_OK) == 0
				     ? "; a container runtime hides it unless told not to "
				       "(podman --security-opt unmask=/sys/dev/block)"
				     : "");
		free(u.v);
		free(fam);
		return -EPERM;
	}
	nfam = family(&self, fam, MAX_FAMILY);
	for (size_t i = 0; i < nfam; i++) {
		const struct blk *b = &fam[i];
		struct blk holders[16];
		size_t nh;
		char who[96];

		/* the disk of a partition target: only the target itself and its own
		 * partitions matter, not siblings; a whole disk: everything under it */
		if (b->dev != self.dev && exists(self.dir, "partition"))
			continue;
		if (b->dev == self.dev)
			snprintf(who, sizeof(who), "device");
		else
			snprintf(who, sizeof(who), "partition %s", b->name);
		if ((where = used_as(&u, 0, u.nmounts, b->dev)))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
				     "%s is mounted at %s%s", who, where,
				     host_mount(&u, b->dev) ? " on the host (its mount namespace, "
							      "which the agent's does not show)"
							    : "");
		if ((where = used_as(&u, u.nmounts, u.n, b->dev)))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
				     "%s is in use as swap (%s)", who, where);
		nh = list_links(b->dir, "holders", holders, 16);
		for (size_t h = 0; h < nh; h++) {
			char kind[300];

			holder_kind(&holders[h], kind, sizeof(kind));
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
				     "%s is held by %s (%s)", who, holders[h].name, kind);
		}
	}
	check_loops(p, subject, &self, fam, nfam, &u, diags, from_loop, depth);
	/* the disk behind /, /boot or swap, through any chain of holders */
	nsys = system_disks(p, &u, sys);
	bool is_part = exists(self.dir, "partition");

	for (size_t i = 0; i < nsys; i++) {
		/* a disk holds what any of its partitions holds; a partition only its own */
		bool ours = is_part ? sys[i].leaf == self.dev : sys[i].disk == self.dev;

		/* a holder the target is (md0, dm-0) also leads down to system disks */
		if (!ours && strstr(sys[i].chain, self.name)) {
			const char *c = sys[i].chain;
			size_t l = strlen(self.name);

			for (const char *s = strstr(c, self.name); s && !ours;
			     s = strstr(s + 1, self.name))
				ours = (s == c || s[-1] == ' ') && (s[l] == '\0' || s[l] == ' ');
		}
		if (ours)
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
				     "device is behind %s (%s)", sys[i].what, sys[i].chain);
	}
	if (devpath && (!p->wipe_signatures || under_loop))
		probe_signatures(subject, devpath, under_loop, diags);
	free(u.v);
	free(fam);
	return rb_diags_errors(diags) > before ? -EPERM : 0;
}

int rb_guard_check_blockdev(const struct rb_guard_policy *p, const char *subject, dev_t dev,
			    const char *devpath, struct rb_diags *diags)
{
	return check_blockdev(p, subject, dev, devpath, diags, makedev(0, 0), false, 0);
}

/* The first process other than this one holding the file open for writing, or 0. */
static pid_t writer_of(const struct stat *want, char *comm, size_t len)
{
	DIR *proc = opendir("/proc");
	struct dirent *pe;
	pid_t self = getpid(), found = 0;

	while (proc && !found && (pe = readdir(proc))) {
		char path[300], fdinfo[64];
		struct dirent *fe;
		pid_t pid = (pid_t)strtol(pe->d_name, NULL, 10);
		DIR *fds;

		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
		fds = opendir(path);
		while (fds && !found && (fe = readdir(fds))) {
			char fdpath[600], line[128];
			struct stat st;
			FILE *f;

			if (fe->d_name[0] == '.')
				continue;
			snprintf(fdpath, sizeof(fdpath), "%s/%s", path, fe->d_name);
			if (stat(fdpath, &st) || st.st_dev != want->st_dev ||
			    st.st_ino != want->st_ino)
				continue;
			snprintf(fdpath, sizeof(fdpath), "/proc/%d/fdinfo/%s", (int)pid,
				 fe->d_name);
			f = fopen(fdpath, "re");
			while (f && fgets(line, sizeof(line), f)) {
				unsigned long flags;

				if (sscanf(line, "flags: %lo", &flags) == 1 &&
				    (flags & O_ACCMODE) != O_RDONLY)
					found = pid;
			}
			if (f)
				fclose(f);
		}
		if (fds)
			closedir(fds);
		if (found) {
			snprintf(fdinfo, sizeof(fdinfo), "/proc/%d/comm", (int)pid);
			if (read_line(fdinfo, comm, len))
				snprintf(comm, len, "?");
		}
	}
	if (proc)
		closedir(proc);
	return found;
}

int rb_guard_check_file(const struct rb_guard_policy *p, const char *path, int fd,
			struct rb_diags *diags)
{
	size_t before = rb_diags_errors(diags);
	char comm[64], use[320];
	struct stat st;
	struct uses u;
	struct loops L;
	pid_t w;

	if (fstat(fd, &st) < 0) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path, "cannot inspect the file: %s",
			     strerror(errno));
		return -EPERM;
	}
	if (st.st_nlink > 1)
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "the file has %ju links: its bytes are also another file's (a hard "
			     "link), which rackbench cannot see",
			     (uintmax_t)st.st_nlink);
	read_uses(p, &u);
	read_loops(p, &L);
	for (size_t k = 0; k < L.n; k++) {
		if (L.v[k].on_blk || !L.v[k].known || L.v[k].back_dev != st.st_dev ||
		    (L.v[k].back_ino != st.st_ino && !L.v[k].no_ino))
			continue;
		loop_use(&u, &L.v[k], use, sizeof(use));
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     L.v[k].no_ino ? "the file may be the backing file of loop device "
					     "%s%s ('%s' on the same filesystem, whose inode "
					     "cannot be read from here)"
					   : "the file is the backing file of loop device %s%s",
			     L.v[k].name, use, L.v[k].backing);
	}
	for (size_t j = u.nmounts; j < u.n; j++) {
		struct stat sw;

		if (!*root_of(p) && stat(u.v[j].what, &sw) == 0 && sw.st_dev == st.st_dev &&
		    sw.st_ino == st.st_ino)
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "the file is in use as swap (%s)", u.v[j].what);
	}
	if (!*root_of(p) && (w = writer_of(&st, comm, sizeof(comm))))
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "the file is open for writing by process %d (%s)", (int)w, comm);
	free(L.v);
	free(u.v);
	return rb_diags_errors(diags) > before ? -EPERM : 0;
}
