/* SPDX-License-Identifier: MIT */
/* `rackbench report`: results as tables (terminal, Markdown, CSV), against a baseline. */
#ifndef RB_REPORT_H
#define RB_REPORT_H

#include <stdbool.h>
#include <stddef.h>

enum rb_report_format {
	RB_REPORT_TABLE,
	RB_REPORT_MARKDOWN,
	RB_REPORT_CSV,
	RB_REPORT_FIO_JSON,	/* fio's --output-format=json, a job per point and drive */
	RB_REPORT_FIO_JSONPLUS, /* and json+: clat_ns.bins */
	RB_REPORT_FIO_TERSE,	/* fio's terse lines (version 3), a line per point and drive */
};

/* What a report is asked. */
struct rb_report_args {
	const char *const *files; /* results files, side by side */
	size_t nfiles;
	const char *const *specs; /* vendor claims files */
	size_t nspecs;
	enum rb_report_format format;
	const char *baseline; /* a drive (part of agent:path, or a serial); NULL none */
	const char *html;     /* also write the HTML page here; NULL none */
	const char *fio_logs; /* also write fio's logs into this folder; NULL none */
	double require_pct;   /* the share of each claim to reach; 0: 90 */
	bool wide;	      /* the head-to-head table instead of a row per point and drive */
	int by;		      /* its columns: enum rp_by (report_h2h.h); 0: chosen */
	const char *by_label; /* by an agent label: its key */
};

/* The fleet's head-to-head from the results database (report_db.c). */
struct rb_report_db_args {
	const char *url;	      /* a libpq connection URI or string */
	const char *campaign;	      /* every run of this campaign name */
	enum rb_report_format format; /* table, markdown or csv */
	int by;			      /* RP_BY_MODEL, RP_BY_FIRMWARE or RP_BY_LABEL ("rack") */
};

/* The report printed (and its page written). Returns the exit code: 5 below a spec. */
int rb_report(const struct rb_report_args *a);
/* Writes the HTML page of one results file, printing nothing else. Returns an exit code. */
int rb_report_html(const char *results, const char *html);
/* The fleet's head-to-head printed: per point and group, the drives, their IOPS, and the
 * percentiles of the histograms the database added up. Returns an exit code. */
int rb_report_db(const struct rb_report_db_args *a);

#endif
