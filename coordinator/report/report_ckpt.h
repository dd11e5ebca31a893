/* SPDX-License-Identifier: MIT */
/*
 * The report of rw checkpoint points (report_ckpt.c): per drive, the seconds each
 * checkpoint took (its slowest writer's) and the throughput, in words for the terminal and
 * as a chart of seconds per checkpoint over the sequence, a line per drive, for the page.
 */
#ifndef RB_REPORT_CKPT_H
#define RB_REPORT_CKPT_H

#include <stdbool.h>
#include <stdio.h>

#include "report_model.h"

/* Whether any file has checkpoint rows. */
bool rp_has_ckpts(const struct rp_report *r);
/* Cell c's mean seconds per checkpoint written (its slowest writer's each); NaN: none. */
double rp_ckpt_seconds(const struct rp_report *r, const struct rp_cell *c);
/* A line per drive and checkpoint point: its checkpoints' seconds and GiB/s, its restores. */
void rp_ckpt_text(const struct rp_report *r, bool markdown);
/* The page's section: a chart per checkpoint point and its table; nothing without rows. */
int rp_ckpt_html(FILE *o, const struct rp_report *r);

#endif
