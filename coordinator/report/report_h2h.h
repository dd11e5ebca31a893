/* SPDX-License-Identifier: MIT */
/*
 * The head-to-head table of `rackbench report --wide` and the page: the reviews' layout,
 * points as rows, drives (or models, firmware, files) as columns, each point's figure by
 * the metric it is judged by, and every column against a baseline in words both ways
 * ("41% faster", "base 29% slower").
 */
#ifndef RB_REPORT_H2H_H
#define RB_REPORT_H2H_H

#include <stdbool.h>
#include <stdio.h>

#include "report_model.h"

struct rp_h2h_row {
	char point[256];
	char what[96]; /* the workload in words: "4K random read QD1" */
	enum rp_metric metric;
	size_t first; /* the point's first row (a QoS row's is its IOPS row) */
	double *v;    /* per subject; NAN: none */
};

struct rp_h2h {
	enum rp_by by;
	char (*subj)[160];
	size_t *colour; /* a subject's colour: its first drive's */
	size_t nsubj, base;
	bool base_found; /* the baseline asked for names a column (else the first is) */
	struct rp_h2h_row *rows;
	size_t nrows;
};

/*
 * The table of r by subjects (by: enum rp_by, AUTO chosen by rp_by_resolve); baseline names one (its name or a part of it; a drive's
 * serial), NULL or none matching: the first. Returns 0 or -ENOMEM.
 */
int rp_h2h_build(const struct rp_report *r, enum rp_by by, const char *baseline, struct rp_h2h *h);
void rp_h2h_free(struct rp_h2h *h);
/* Whether p is an application's point -- an exec command's, or checkpoints -- and the
 * figure it is compared by (an exec command's TPS or own IOPS, seconds per checkpoint). */
bool rp_app_metric(const struct rp_report *r, const struct rb_row_point *p, enum rp_metric *m);
/* Cell c's figure of an application's metric m; NaN: none. */
double rp_app_value(const struct rp_report *r, const struct rp_cell *c, enum rp_metric m);
/* Signed percent a is above b ((a / b - 1) x 100); NAN when either is missing. */
double rp_h2h_pct(double a, double b);
/* The words for a difference: faster/slower for rates, higher/lower for latencies. */
const char *rp_h2h_word(enum rp_metric m, double pct);
/* As a terminal table (0), Markdown (1) or CSV (2). */
void rp_h2h_text(const struct rp_h2h *h, int format, FILE *out);
/* As the page's section. */
void rp_h2h_html(FILE *o, const struct rp_h2h *h);

#endif
