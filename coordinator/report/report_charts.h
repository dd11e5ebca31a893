/* SPDX-License-Identifier: MIT */
/*
 * The report page's chart sections (report_charts.c): the reviews' charts of a set of
 * results, each a function that writes its section and returns how many charts it drew.
 * Every drive keeps one colour on every chart (rp_cell_colour).
 */
#ifndef RB_REPORT_CHARTS_H
#define RB_REPORT_CHARTS_H

#include <stdbool.h>
#include <stdio.h>

#include "report_model.h"

/* Queue-depth sweeps (throughput, mean and p99 latency against QD; a spec's claim as a
 * dashed line) or, by_rate, rate curves (latency against IOPS, the unthrottled run
 * marked apart). */
int rp_chart_sweeps(FILE *o, const struct rp_report *r, bool by_rate, const char *heading);
/* Preconditioning: throughput over time, every drive of every file on one chart. */
int rp_chart_timeseries(FILE *o, const struct rp_report *r);
/* ATTO's chart: MB/s against transfer size, read and write on one chart. */
int rp_chart_transfer_size(FILE *o, const struct rp_report *r);
/* CrystalDiskMark's grid: each test a row, read and write its columns, a bar per drive. */
int rp_chart_test_grid(FILE *o, const struct rp_report *r);
/* vdbench's peak table: per profile and drive, the peak IOPS of its curve and the
 * latency there, and the unthrottled run apart. */
int rp_table_curve_peaks(FILE *o, const struct rp_report *r);
/* Bars per point, drive by drive, the value written on each. */
void rp_chart_point_bars(FILE *o, const struct rp_report *r);

#endif
