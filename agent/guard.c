// SPDX-License-Identifier: MIT
#include "guard.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "target.h"

#define MAX_FAMILY 256
#define MAX_SYSTEM 64

struct blk {
	char dir[PATH_MAX];	/* resolved sysfs directory */
	char name[64];		/* kernel name: sda1, nvme0n1, dm-0 */
	dev_t dev;
};

bool rb_guard_allowed(const struct rb_guard_policy *p, const char *path)
{
	char rp[PATH_MAX], ra[PATH_MAX];
	bool have_rp = realpath(path, rp) != NULL;

	for (size_t i = 0; i < p->nallow; i++) {
		if (strcmp(p->allow[i], path) == 0)
			return true;
		if (have_rp && realpath(p->allow[i], ra) && strcmp(ra, rp) == 0)
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
			 !strncmp(v, "LVM-", 4)	      ? "LVM volume"
			 : !strncmp(v, "CRYPT-", 6)   ? "dm-crypt volume"
			 : !strncmp(v, "mpath-", 6)   ? "multipath map"
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
	dev_t disk;		/* the disk at the bottom of the chain */
	dev_t leaf;		/* the partition (or disk) the chain ends on */
	char what[64];		/* "/", "/boot", "swap" */
	char chain[512];	/* "dm-0 <- md0 <- nvme0n1p1" */
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
	char what[256];		/* mount point, or the swap entry */
};

struct uses {
	struct use *v;
	size_t n, cap;
	size_t nmounts;		/* v[0 .. nmounts) are mounts, the rest swaps */
};

static void add_use(struct uses *u, dev_t dev, const char *what)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		struct use *v = realloc(u->v, cap * sizeof(*v));

		if (!v)
			return;
		u->v = v;
		u->cap = cap;
	}
	u->v[u->n].dev = dev;
	snprintf(u->v[u->n].what, sizeof(u->v[u->n].what), "%s", what);
	u->n++;
}

static void read_uses(const struct rb_guard_policy *p, struct uses *u)
{
	char path[PATH_MAX], line[8192];
	FILE *f;

	memset(u, 0, sizeof(*u));
	snprintf(path, sizeof(path), "%s/proc/self/mountinfo", root_of(p));
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned id, parent, ma, mi;
		char root[4096], mnt[4096];

		if (sscanf(line, "%u %u %u:%u %4095s %4095s", &id, &parent, &ma, &mi, root, mnt) == 6)
			add_use(u, makedev(ma, mi), mnt);
	}
	if (f)
		fclose(f);
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

/* The use of dev among v[from, to), or NULL. */
static const char *used_as(const struct uses *u, size_t from, size_t to, dev_t dev)
{
	for (size_t i = from; i < to; i++)
		if (u->v[i].dev == dev)
			return u->v[i].what;
	return NULL;
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

static void probe_signatures(const char *subject, const char *devpath, struct rb_diags *d)
{
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
				     "device carries a %s signature (set wipe_signatures to "
				     "allow overwriting it)", type);
		if (pttype)
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, subject,
				     "device carries a %s partition table (set wipe_signatures "
				     "to allow overwriting it)", pttype);
	}
	blkid_free_probe(pr);
}

int rb_guard_check_blockdev(const struct rb_guard_policy *p, const char *subject, dev_t dev,
			    const char *devpath, struct rb_diags *diags)
{
	struct blk *fam = malloc(MAX_FAMILY * sizeof(*fam));
	struct sysdisk sys[MAX_SYSTEM];
	size_t before = rb_diags_errors(diags), nfam, nsys;
	struct blk self;
	struct uses u;
	const char *where;

	if (!fam)
		return -ENOMEM;
	if (blk_from_dev(p, dev, &self)) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
			     "device %u:%u is not in sysfs: cannot check what uses it", major(dev),
			     minor(dev));
		free(fam);
		return -EPERM;
	}
	read_uses(p, &u);
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
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject, "%s is mounted at %s",
				     who, where);
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

			for (const char *s = strstr(c, self.name); s && !ours; s = strstr(s + 1, self.name))
				ours = (s == c || s[-1] == ' ') && (s[l] == '\0' || s[l] == ' ');
		}
		if (ours)
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, subject,
				     "device is behind %s (%s)", sys[i].what, sys[i].chain);
	}
	if (devpath && !p->wipe_signatures)
		probe_signatures(subject, devpath, diags);
	free(u.v);
	free(fam);
	return rb_diags_errors(diags) > before ? -EPERM : 0;
}

int rb_guard_check_write(const struct rb_guard_policy *p, const char *path,
			 struct rb_diags *diags)
{
	return rb_guard_check_write_fd(p, path, -1, diags);
}

int rb_guard_check_write_fd(const struct rb_guard_policy *p, const char *path, int fd,
			    struct rb_diags *diags)
{
	struct rb_target_info ti;
	size_t before = rb_diags_errors(diags);
	bool allowed = rb_guard_allowed(p, path);
	struct stat st;
	int r;

	r = rb_target_probe(path, &ti);
	if (r) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path, "cannot inspect target: %s",
			     strerror(-r));
		return -EPERM;
	}
	/* what is open is what is judged */
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISBLK(st.st_mode)) {
		ti.kind = RB_TARGET_BLOCK;
		ti.rdev = st.st_rdev;
	}
	if (!p->destructive)
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "writes need the run's key: %s is not given",
			     p->destructive_key ? p->destructive_key : "destructive: true");
	switch (ti.kind) {
	case RB_TARGET_BLOCK:
		if (!allowed)
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "writes need the agent's key: '%s' is not on the agent's "
				     "--allow list", path);
		rb_guard_check_blockdev(p, path, ti.rdev, ti.real, diags);
		break;
	case RB_TARGET_FILE:
	case RB_TARGET_MISSING:
		if (!allowed && !rb_path_under(path, p->state_dir))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "writes need the agent's key: the file was not created by "
				     "rackbench (it is not under the state folder '%s') and is "
				     "not on the agent's --allow list",
				     p->state_dir ? p->state_dir : "(none)");
		if (ti.kind == RB_TARGET_MISSING && !rb_path_under(path, p->state_dir))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "target does not exist (rackbench creates files only "
				     "under its state folder)");
		break;
	default:
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "target is neither a block device nor a regular file");
		break;
	}
	return rb_diags_errors(diags) > before ? -EPERM : 0;
}
