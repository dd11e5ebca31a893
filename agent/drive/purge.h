/* SPDX-License-Identifier: MIT */
/*
 * Purge: return a drive to a known state before a measurement. NVMe Format (with an
 * optional secure erase), Sanitize (block or crypto erase) and Deallocate of the whole
 * namespace through the NVMe ops table; discard or zeroing for other block devices and
 * files. Guarded like a write, and wider: every namespace the command touches must
 * pass (a Format whose controller applies it to all namespaces, any Sanitize: every
 * namespace of the controller). The drive's history (what, when, result) is appended
 * to the state folder's history.jsonl, which results take their "last purge" from.
 */
#ifndef RB_PURGE_H
#define RB_PURGE_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "guard.h"
#include "nvme.h"

enum rb_purge_method {
	RB_PURGE_FORMAT,
	RB_PURGE_SANITIZE_BLOCK,
	RB_PURGE_SANITIZE_CRYPTO,
	RB_PURGE_DEALLOCATE,
	RB_PURGE_DISCARD,
	RB_PURGE_ZERO,
};

struct rb_purge_req {
	const char *path;
	enum rb_purge_method method;
	unsigned ses; /* Format: 0 none, 1 user data erase, 2 crypto erase */
	bool dry_run; /* check and name what would be purged, touch nothing */
};

/* Parses "format", "sanitize" (block), "sanitize-crypto", "deallocate", "discard", "zero". */
int rb_purge_method_parse(const char *s, enum rb_purge_method *ret);
const char *rb_purge_method_name(enum rb_purge_method m);
/*
 * Checks and runs a purge. Progress and the namespaces touched go to log. Returns 0,
 * -EPERM when refused (diags hold every reason for every affected device), or another
 * negative errno with diags.
 */
int rb_purge(const struct rb_purge_req *req, const struct rb_guard_policy *gp,
	     const struct rb_nvme_ops *ops, struct rb_diags *diags, FILE *log);

#endif
