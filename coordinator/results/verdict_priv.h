/* SPDX-License-Identifier: MIT */
/*
 * The verdicts' judge, shared by the files that apply its rules (verdict.c: data,
 * completeness, performance and the drive's line; verdict_health.c: health). Internal to
 * coordinator/results/.
 */
#ifndef RB_VERDICT_PRIV_H
#define RB_VERDICT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verdict.h"

struct judge {
	const struct rb_verdict_in *in;
	struct rb_row_verdict *v;
	size_t n, cap;
	bool oom;
	enum rb_verdict worst; /* of the current drive */
	size_t first;	       /* the current drive's first row */
	/* the latest attempt's row of (point position, drive position); NULL: none */
	const struct rb_row_result **latest;
	uint32_t *ppos; /* point number -> position in in->points (UINT32_MAX: none) */
	size_t nppos;
	size_t *dpos; /* drive number -> position in in->drives */
	size_t ndpos;
	/* row indexes sorted by drive (and time, interval): health, io errors, samples */
	size_t *hs, *es, *ss, *rs;
	double *median; /* per (point position, drive position): its model's median IOPS */
};

/* A verdict row for drive: its rule, verdict, figures and reason. */
void rb_vj_add(struct judge *j, uint32_t drive, const char *rule, enum rb_verdict verdict,
	       double measured, double limit, int64_t point, int64_t interval, int64_t t_ns,
	       const char *fmt, ...) __attribute__((format(printf, 10, 11)));
/* A point's name ("?" when the file has no such point). */
const char *rb_vj_point_name(const struct judge *j, uint32_t point);
/*
 * The rows of drive d among rows sorted by drive (ix, n of them): [first, *end). Every
 * row type starts with its drive.
 */
size_t rb_vj_range(const size_t *ix, size_t n, const void *rows, size_t rowsize, uint32_t d,
		   size_t *end);
#define RANGE(ix, n, rows, d, end) rb_vj_range(ix, n, rows, sizeof(*(rows)), d, end)

/* The health rules over the run: SMART's, and the PCIe link's. */
void rb_vj_health_rules(struct judge *j, size_t dp);
void rb_vj_pcie_rules(struct judge *j, size_t dp);

#endif
