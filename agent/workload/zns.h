/* SPDX-License-Identifier: MIT */
/*
 * Writes on a zoned namespace (the workload key zns): the zones a run will write checked
 * against the namespace's geometry and its open and active zone limits, and reset before
 * the run. The zones come from sysfs and the kernel's zone report (BLKREPORTZONE).
 */
#ifndef RB_ZNS_H
#define RB_ZNS_H

#include <stdint.h>

#include "diag.h"
#include "options.h"

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
 * zones of that range (a write, already judged by the guard). 0 or negative errno, said in
 * d.
 */
int rb_zns_prepare(const struct rb_workload *wl, const char *path, int fd, uint64_t span,
		   struct rb_diags *d);

#endif
