/* SPDX-License-Identifier: MIT */
/*
 * Writes on a zoned namespace (the workload key zns): the zones a run will write checked
 * against the namespace's geometry and its open and active zone limits, and reset before
 * the run; a point of zone management (zns reset or finish) checked to be whole zones,
 * one an IO. The zones come from sysfs and the kernel's zone report (BLKREPORTZONE).
 */
#ifndef RB_ZNS_H
#define RB_ZNS_H

#include <stdint.h>

#include "diag.h"
#include "options.h"
#include "wire.h"

struct rb_zoned {
	uint64_t zone_bytes, capacity_bytes; /* the first zone's capacity: written up to it */
	uint64_t nr_zones;
	unsigned max_open, max_active; /* 0: no limit */
};

/* The geometry of the zoned block device open at fd: 0, or -ENOTBLK when not zoned. */
int rb_zns_geometry(int fd, struct rb_zoned *ret);
/*
 * Checks that wl's writes fit the zoned device open at fd for path (span bytes from
 * wl->offset, split between the jobs), naming every limit a refusal meets, and resets the
 * zones of that range (a write, already judged by the guard), the time that took in
 * *ret_reset_ns; zns reset or finish: checked only (bs a zone, whole zones). 0 or negative
 * errno, said in d.
 */
int rb_zns_prepare(const struct rb_workload *wl, const char *path, int fd, uint64_t span,
		   uint64_t *ret_reset_ns, struct rb_diags *d);

/* Zones a report holds at most (a namespace of more is reported from its start). */
#define RB_ZNS_REPORT_MAX 65536

/*
 * The zone report of the zoned block device at path (the kernel's BLKREPORTZONE, read
 * only), every zone in bytes, into *ret (malloc'd, the caller frees) and *n: 0, -ENOTBLK
 * when not zoned, or negative errno.
 */
int rb_zns_report(const char *path, struct rb_msg_zone **ret, size_t *n);

/*
 * After a zns point, once its zone report is read: every zone of [from, to) the run left
 * open or closed (written in part) finished, one BLKFINISHZONE each (the drive fills it:
 * a write, already judged by the guard for the point), through the device open at fd.
 * The time all of them took in *ret_ns and how many in *ret_zones; 0 or negative errno
 * (those finished before stay counted).
 */
int rb_zns_finish(int fd, const struct rb_msg_zone *z, size_t n, uint64_t from, uint64_t to,
		  uint64_t *ret_ns, uint32_t *ret_zones);

#endif
