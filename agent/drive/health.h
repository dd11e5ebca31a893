/* SPDX-License-Identifier: MIT */
/*
 * Drive health snapshots: the NVMe SMART / Health log where the drive is NVMe, and the
 * kernel's IO counters (/sys/dev/block/M:m/stat) for every block device. Taken before
 * and after every point and every health_interval during it, so each number comes with
 * the drive's state (temperature, wear, errors) beside it.
 */
#ifndef RB_HEALTH_H
#define RB_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "healthsnap.h"
#include "nvme.h"

/* A snapshot is struct rb_health_snap (common/wire/healthsnap.h): one declaration from
 * here to the results file's row. */

/*
 * Reads a snapshot of the device at path. Returns 0, or -ENODEV for targets with no
 * device of their own (files).
 */
int rb_health_read(const char *path, const struct rb_nvme_ops *ops, struct rb_health_snap *ret);

#endif
