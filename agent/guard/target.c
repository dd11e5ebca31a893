// SPDX-License-Identifier: MIT
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static void read_sysfs(const char *path, char *buf, size_t len);

void rb_sysfs_read(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX + 128];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	read_sysfs(path, buf, len);
}

static void read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	buf[0] = '\0';
	if (!f)
		return;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
}

int rb_target_nvme_block(const char *path, char *blk, size_t len)
{
	char sys[PATH_MAX], real[PATH_MAX], dev[32], *leaf;
	unsigned inst, nsid, maj, min;
	struct stat st, b;
	char tail;

	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return -EINVAL;
	/* .../nvme/nvme0/ng0n1: a generic device in its controller's folder */
	snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(sys, real) || !(leaf = strrchr(real, '/')) ||
	    sscanf(leaf, "/ng%un%u%c", &inst, &nsid, &tail) != 2)
		return -EINVAL;
	/* its namespace's block device beside it (a multipath namespace has none there) */
	*leaf = '\0';
	snprintf(sys, sizeof(sys), "%s/nvme%un%u/dev", real, inst, nsid);
	read_sysfs(sys, dev, sizeof(dev));
	if (sscanf(dev, "%u:%u", &maj, &min) != 2)
		return -ENODEV;
	snprintf(blk, len, "/dev/nvme%un%u", inst, nsid);
	if (stat(blk, &b) || !S_ISBLK(b.st_mode) || b.st_rdev != makedev(maj, min))
		return -ENODEV;
	return 0;
}

int rb_target_probe(const char *path, struct rb_target_info *ret)
{
	struct stat st;
	char sys[PATH_MAX + 64], link[PATH_MAX];

	memset(ret, 0, sizeof(*ret));
	snprintf(ret->path, sizeof(ret->path), "%s", path);
	if (!realpath(path, ret->real)) {
		ret->real[0] = '\0';
		if (errno == ENOENT) {
			ret->kind = RB_TARGET_MISSING;
			return 0;
		}
		return -errno;
	}
	if (stat(ret->real, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode)) {
		ret->kind = RB_TARGET_FILE;
		ret->size_bytes = (uint64_t)st.st_size;
		ret->logical_block_size = 512;
		snprintf(ret->model, sizeof(ret->model), "file");
		return 0;
	}
	/* an NVMe namespace's generic device: the namespace is judged, as its block device */
	if (S_ISCHR(st.st_mode) && rb_target_nvme_block(ret->real, link, sizeof(link)) == 0 &&
	    stat(link, &st) == 0) {
		snprintf(ret->generic, sizeof(ret->generic), "%s", ret->real);
		snprintf(ret->real, sizeof(ret->real), "%s", link);
	}
	if (!S_ISBLK(st.st_mode)) {
		ret->kind = RB_TARGET_OTHER;
		return 0;
	}
	ret->kind = RB_TARGET_BLOCK;
	ret->rdev = st.st_rdev;
	int fd = open(ret->real, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		uint64_t sz = 0;
		int lbs = 0;

		if (ioctl(fd, BLKGETSIZE64, &sz) == 0)
			ret->size_bytes = sz;
		if (ioctl(fd, BLKSSZGET, &lbs) == 0)
			ret->logical_block_size = (uint32_t)lbs;
		close(fd);
	}
	/* /sys/dev/block/M:m is the device; partitions have their disk as parent */
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/device/model", major(st.st_rdev),
		 minor(st.st_rdev));
	read_sysfs(sys, ret->model, sizeof(ret->model));
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/device/serial", major(st.st_rdev),
		 minor(st.st_rdev));
	read_sysfs(sys, ret->serial, sizeof(ret->serial));
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/device/firmware_rev", major(st.st_rdev),
		 minor(st.st_rdev));
	read_sysfs(sys, ret->firmware, sizeof(ret->firmware));
	if (!ret->model[0]) {
		/* loop devices: name the backing file */
		snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/loop/backing_file",
			 major(st.st_rdev), minor(st.st_rdev));
		read_sysfs(sys, link, sizeof(link));
		if (link[0])
			snprintf(ret->model, sizeof(ret->model), "loop");
	}
	return 0;
}

const char *rb_target_kind_name(enum rb_target_kind k)
{
	switch (k) {
	case RB_TARGET_FILE:
		return "file";
	case RB_TARGET_BLOCK:
		return "block";
	case RB_TARGET_MISSING:
		return "missing";
	default:
		return "other";
	}
}

int rb_target_fill_fd(int fd, uint64_t offset, uint64_t len)
{
	uint64_t pos, end = offset + len, x = 0x9e3779b97f4a7c15ULL;
	const size_t chunk = 1 << 20;
	uint64_t *buf;
	int r = 0;

	buf = malloc(chunk);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < chunk / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = x;
	}
	for (pos = offset; pos < end;) {
		size_t n = end - pos < chunk ? (size_t)(end - pos) : chunk;
		ssize_t w = pwrite(fd, buf, n, (off_t)pos);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		pos += (uint64_t)w;
	}
	free(buf);
	if (!r && fsync(fd) < 0)
		r = -errno;
	return r;
}

int rb_target_layout_fd(int fd, uint64_t size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size >= size)
		return 0;
	/* rewrite from the start: a hole anywhere would make reads measure nothing */
	return rb_target_fill_fd(fd, 0, size);
}
