/* SPDX-License-Identifier: MIT */
/*
 * The report of exec points (report_exec.c): each drive's command, how it ended and what
 * its output said (TPS, QPS, latency), beside what the drive did meanwhile (its IOPS,
 * MB/s and mean time per IO from the kernel's counters).
 */
#ifndef RB_REPORT_EXEC_H
#define RB_REPORT_EXEC_H

#include <stdbool.h>
#include <stdio.h>

#include "report_model.h"

bool rp_has_execs(const struct rp_report *r);
/* Cell c's command's figure of m (RP_TPS, RP_APP_IOPS) at its latest attempt; NaN: none
 * (not an exec point, not read from the output, or the command failed). */
double rp_exec_figure(const struct rp_report *r, const struct rp_cell *c, enum rp_metric m);
/* The figure an exec point is compared by: TPS when any of its commands said it, else
 * the command's own IOPS. */
enum rp_metric rp_exec_metric(const struct rp_report *r, const struct rb_row_point *p);
/* A line per drive and exec point. */
void rp_exec_text(const struct rp_report *r, bool markdown);
/* The page's section: a table of them; nothing without exec points. */
void rp_exec_html(FILE *o, const struct rp_report *r);

#endif
