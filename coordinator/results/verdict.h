/* SPDX-License-Identifier: MIT */
/*
 * Verdicts: PASS, FAIL or INCOMPLETE for every drive of a run, with every reason, from
 * the rows of its results file and the campaign's rules (`verdict:`). A pure function
 * of those rows: the coordinator judges a run as it ends and stores the verdicts in the
 * file; the rules are schemas/results-layout.md's `verdicts` and docs/burn-in.md's.
 *
 *   data          any verification mismatch, any IO error (always judged), with offsets
 *   completeness  a point not run on a drive, its agent lost, the drive refused
 *   health        over the whole run: temperature, critical-warning bits, new media
 *                 errors, error-log entries and unsafe shutdowns, spare, wear; the
 *                 PCIe link's training and its AER correctable errors an hour
 *   performance   per point: below a share of its model's median IOPS, a p99 or p99.9
 *                 above a bound, a throughput cliff between windows of intervals
 */
#ifndef RB_VERDICT_H
#define RB_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "results.h"

/*
 * Every rule's limit; NAN: not judged (nor is a share of 0: min_model_pct, cliff_pct,
 * min_spare_pct). A phase's performance rules override the root's.
 */
struct rb_verdict_rules {
	double max_temp_c;		 /* the highest composite temperature allowed */
	double min_spare_pct;		 /* available spare may not fall below */
	double max_wear_pct;		 /* percentage used may rise by at most */
	double max_media_errors;	 /* new media and data integrity errors allowed */
	double max_error_log_entries;	 /* new error-log entries allowed */
	double max_unsafe_shutdowns;	 /* new unsafe shutdowns allowed */
	double max_warn_temp_minutes;	 /* new minutes above the warning temperature allowed */
	double max_throttle_seconds;	 /* new seconds of thermal throttling allowed */
	double max_throttle_transitions; /* new entries into thermal throttling allowed */
	double critical_warning;	 /* 1: any critical-warning bit fails the drive */
	double pcie_downtrained;	 /* 1: a link below the most both ends can do fails */
	double max_pcie_correctable_per_hour; /* new AER correctable errors an hour allowed */
	double min_model_pct;		      /* IOPS at least this share of its model's median */
	double max_p99_ns, max_p99_9_ns;
	double cliff_pct;    /* a window's throughput this far below an earlier one's */
	double cliff_window; /* intervals per window (5 unless set) */
};

/* Every limit NAN: nothing but the data and completeness rules. */
void rb_verdict_rules_init(struct rb_verdict_rules *r);
/* Whether any rule is set (a campaign asked for verdicts). */
bool rb_verdict_rules_any(const struct rb_verdict_rules *r);
/* The rules of a phase: its own where set, else the root's. */
void rb_verdict_rules_merge(struct rb_verdict_rules *out, const struct rb_verdict_rules *root,
			    const struct rb_verdict_rules *phase);
/* Whether a key of the rules is judged over the whole run (root only). */
bool rb_verdict_key_is_health(const char *key);

struct rb_verdict_in {
	const struct rb_row_drive *drives;
	size_t nd;
	const struct rb_row_point *points; /* the points that ran */
	size_t np;
	const struct rb_row_result *results;
	size_t nr;
	const struct rb_row_sample *samples;
	size_t ns;
	const struct rb_row_health *health;
	size_t nh;
	const struct rb_row_ioerror *ioerrors;
	size_t ne;
	const struct rb_verdict_rules *root;
	/* the rules of point p (a phase's merged over the root's); NULL: the root's */
	const struct rb_verdict_rules *(*point_rules)(const void *arg, uint32_t point);
	/* the run's status (the file's): aborted or failed make every drive INCOMPLETE, since
	 * the points it never reached are not in the file; NULL: complete */
	const char *run_status;
	/* whether point p measures drive d; NULL: every drive */
	bool (*in_point)(const void *arg, uint32_t point, uint32_t drive);
	const void *arg;
};

enum rb_verdict { RB_PASS, RB_INCOMPLETE, RB_FAIL };

/*
 * Judges every drive: rows for each rule that tripped, then one row per drive with rule
 * "drive" and its verdict. *ret (freed by the caller) has *ret_n rows. Returns the run's
 * verdict (the worst of its drives'), or -ENOMEM.
 */
int rb_verdict_judge(const struct rb_verdict_in *in, struct rb_row_verdict **ret, size_t *ret_n);
const char *rb_verdict_name(enum rb_verdict v);
/* The table people read: failed drives first, each with its reasons in words. */
void rb_verdict_print(FILE *out, const struct rb_row_verdict *v, size_t n,
		      const struct rb_row_drive *drives, size_t nd);

/*
 * Judges a closed results file and stores its verdicts there; prints the table to out.
 * Returns the run's verdict, or a negative errno with err filled.
 */
int rb_verdict_file(const char *path, const struct rb_verdict_rules *root,
		    const struct rb_verdict_rules *(*point_rules)(const void *, uint32_t),
		    bool (*in_point)(const void *, uint32_t, uint32_t), const void *arg, FILE *out,
		    char *err, size_t errlen);

/* The median of v's n values (NAN for none); sorts v. The report's and the verdicts'. */
double rb_median(double *v, size_t n);

/*
 * The intervals of a point's attempt during which drive d throttled (verdict_health.c):
 * interval i spans (ends[i - 1], ends[i]] (the first from start_ns), ends[] being its
 * samples' times. Two of the drive's consecutive snapshots of that point whose thermal
 * throttling counters (entries or seconds, SMART) rose mark every interval at least half
 * of which lies between them: health read every sample interval (just after each
 * interval's end) marks exactly the interval, a coarser health_interval the span the drive
 * throttled within. mark[] gets n flags;
 * returns how many are set.
 */
size_t rb_throttled_intervals(const struct rb_row_health *h, size_t nh, uint32_t drive,
			      uint32_t point, uint32_t attempt, int64_t start_ns,
			      const int64_t *ends, size_t n, bool *mark);
/* The marked intervals as ranges, "2-4, 9", into buf. */
void rb_intervals_text(const bool *mark, size_t n, char *buf, size_t len);

#endif
