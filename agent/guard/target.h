/* SPDX-License-Identifier: MIT */
/* Targets: what an agent offers (block devices, files) and their identity. */
#ifndef RB_TARGET_H
#define RB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum rb_target_kind { RB_TARGET_MISSING, RB_TARGET_FILE, RB_TARGET_BLOCK, RB_TARGET_OTHER };

struct rb_target_info {
	char path[4096];  /* as given */
	char real[4096];  /* symlinks resolved; "" when missing; an NVMe generic device's
			  * namespace block device */
	char generic[64]; /* given as an NVMe generic device (/dev/ngXnY): that; else "" */
	enum rb_target_kind kind;
	dev_t rdev; /* block devices */
	uint64_t size_bytes;
	uint32_t logical_block_size;
	char model[64], serial[64], firmware[32];
};

/*
 * The block device of the NVMe namespace whose generic character device (/dev/ngXnY,
 * the passthrough node) path is: /dev/nvmeXnY into blk. 0, or negative errno when path
 * is no such device or its namespace has no block device beside it (multipath).
 */
int rb_target_nvme_block(const char *path, char *blk, size_t len);
/*
 * Fills info from path (stat, sysfs). A missing path is kind MISSING, not an error. An
 * NVMe generic device is described as its namespace's block device (real), which is
 * what the guard judges and claims: same namespace, same rules.
 */
int rb_target_probe(const char *path, struct rb_target_info *ret);
const char *rb_target_kind_name(enum rb_target_kind k);
/* Reads sysfs attribute dir/file into buf, trailing newline and spaces cut; "" if absent. */
void rb_sysfs_read(const char *dir, const char *file, char *buf, size_t len);
/*
 * Extends the regular file open at fd (O_RDWR, no O_DIRECT) to size bytes, writing
 * every byte from the start (random data, so reads never measure holes), then fsyncs.
 * A file already that large is left alone. Returns 0 or negative errno.
 */
int rb_target_layout_fd(int fd, uint64_t size);
/* Writes [offset, offset + len) of the file open at fd with random data, then fsyncs. */
int rb_target_fill_fd(int fd, uint64_t offset, uint64_t len);

#endif
