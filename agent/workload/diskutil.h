/* SPDX-License-Identifier: MIT */
/*
 * fio's disk_util of a local run: the kernel's counters (/sys/block/NAME/stat) of the disks
 * under its targets, read before and after it. A block device's disk is its own, a
 * partition's its whole disk (as fio has it); a file's is the disk of the filesystem it is
 * on. A filesystem with no block device (tmpfs, a network filesystem) has no disk, and a
 * disk's members (md, dm) are not added up: there are no aggr_* figures.
 */
#ifndef RB_DISKUTIL_H
#define RB_DISKUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "fioout.h"

#define RB_DISKUTIL_MAX 64

struct rb_diskutil {
	unsigned n;
	struct rb_fio_disk disk[RB_DISKUTIL_MAX]; /* each disk's name */
	char stat[RB_DISKUTIL_MAX][160];	  /* each disk's stat file */
	uint64_t first[RB_DISKUTIL_MAX][11];	  /* its counters at the start */
	int64_t start_ns;			  /* CLOCK_MONOTONIC */
};

/*
 * The disks under paths[0..n) (each once; a path without one is skipped), their counters
 * read now. root prefixes /sys ("" for the host's). Never fails: what cannot be read is
 * left out.
 */
void rb_diskutil_start(struct rb_diskutil *u, const char *root, char *const *paths, size_t n);
/*
 * The counters' changes since rb_diskutil_start into ret (room for u->n), as often as
 * asked (a status snapshot, the end). Returns the disks read (one no longer read drops).
 */
unsigned rb_diskutil_read(const struct rb_diskutil *u, struct rb_fio_disk *ret);

#endif
