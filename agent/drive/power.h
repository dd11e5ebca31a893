/* SPDX-License-Identifier: MIT */
/*
 * A point's NVMe power state (the workload key power_state): set with Set Features 02h
 * (Power Management) before the point, the drive's own state before it put back after, and
 * also after a kill: the state before is written to the state folder (power/NAME) first,
 * and the next run puts back whatever a killed one left there.
 */
#ifndef RB_POWER_H
#define RB_POWER_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "nvme.h"

struct rb_power_hold {
	bool held;
	char path[96];	   /* the namespace's block device */
	char record[4200]; /* the state folder's record of the state before */
	uint32_t prior;	   /* Power Management's value before (PS in bits 4:0) */
};

/*
 * Sets power state ps on the NVMe drive of path through ops, after recording the one it
 * was in under state_dir. A state the drive does not describe, a drive that is not NVMe
 * or a backend without Set Features is refused, said in d. 0 or negative errno.
 */
int rb_power_apply(const struct rb_nvme_ops *ops, const char *path, unsigned ps,
		   const char *state_dir, struct rb_power_hold *ret, struct rb_diags *d);
/* Puts back the state before and removes its record; 0 or negative errno (said). */
int rb_power_restore(const struct rb_nvme_ops *ops, struct rb_power_hold *h);
/* Puts back what a killed run left recorded under state_dir; the count put back. */
int rb_power_restore_pending(const struct rb_nvme_ops *ops, const char *state_dir);

/*
 * The drive's power now, for its health snapshot: its current power state (Get Features
 * 02h, bits 4:0) and whether autonomous power state transitions are enabled (Get Features
 * 0Ch, bit 0), each -1 when the drive or the backend does not answer it.
 */
void rb_power_now(const struct rb_nvme_ops *ops, const char *path, double *ps, double *apst);

#endif
