/* SPDX-License-Identifier: MIT */
/*
 * The fleet's results database, in PostgreSQL: every exported results file's run, its
 * drives and where each was (agent, host, rack, slot, path), one row per drive and point
 * with its figures and merged latency histogram (the non-zero buckets of the 4,736-bucket
 * layout, as two arrays), every verdict row with its reason, the health snapshots at
 * point ends, and the file's path and SHA-256. The HDF5 file stays the record; the
 * database is the fleet's index of it. Tables and views: schemas/results-db.md.
 *
 * The schema is versioned (rackbench.schema_version) and migrated by rb_resdb_open().
 * A URL is any libpq connection string, handed to libpq unchanged; no message of this
 * module shows its password (rb_resdb_mask_url(), rb_resdb_where()).
 *
 * A drive is known by its serial; one without (a file, a loop device) by AGENT:PATH, as
 * in the folder's index (drive_index.h), whose row type the queries answer in.
 */
#ifndef RB_RESULTS_DB_H
#define RB_RESULTS_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "drive_index.h"
#include "fleet_verdict.h"

/* The schema version this rackbench creates and migrates to. */
#define RB_RESDB_SCHEMA 5

struct rb_resdb;

/*
 * Connects to url and brings its schema to RB_RESDB_SCHEMA (one transaction, one
 * migrator at a time). A connection takes 10 s at most unless the URL's connect_timeout
 * or PGCONNECT_TIMEOUT says otherwise. NULL with err filled (the database named, its password never) and
 * *ret_errno: -EINVAL a URL libpq does not read, -EPROTO a schema newer than this
 * program's, -ECONNREFUSED no connection, -EIO a statement that failed.
 */
struct rb_resdb *rb_resdb_open(const char *url, char *err, size_t errlen, int *ret_errno);
/* Closes the connection; NULL. */
struct rb_resdb *rb_resdb_close(struct rb_resdb *db);
/* "database 'rb' on host 'db1' port 5432, user 'ops'": what url reaches, for messages. */
void rb_resdb_where(const char *url, char *buf, size_t len);
/* url with its password (in the user part or as a parameter) written "***". */
void rb_resdb_mask_url(const char *url, char *buf, size_t len);
/*
 * Whether url is one to write down (a campaign's, stored with every results file): 0, or
 * with err filled (the URL masked) -EINVAL a URL libpq does not read, -EPERM one holding a
 * password.
 */
int rb_resdb_url_check(const char *url, char *err, size_t errlen);

/* What rb_resdb_export() did with a file. */
enum rb_resdb_added {
	RB_RESDB_ADDED,	  /* a run the database did not hold */
	RB_RESDB_KNOWN,	  /* the same bytes exported before: nothing written */
	RB_RESDB_UPDATED, /* the run was there from other bytes (verdicts added since, a
			   * resume): its rows replaced by this file's */
	RB_RESDB_RUNNING, /* a run still going on: nothing written */
	RB_RESDB_SO_FAR,  /* a run still going on, RB_RESDB_RUNNING_TOO: its finished points
			   * written as the run so far (status running, no file row) */
	RB_RESDB_ENDED,	  /* ... whose end the database holds already: nothing written */
};

/* rb_resdb_export()'s flags. */
enum {
	/* a run still going on is exported as far as it went: its points with result rows
	 * (each written when its point ended), replacing an earlier "so far"; the run's end
	 * replaces them, and a run that ended in the database is left as it is */
	RB_RESDB_RUNNING_TOO = 1u << 0,
};

/* what in words: "added", "already there", "updated", "not exported", "so far", "ended
 * already". */
const char *rb_resdb_added_word(enum rb_resdb_added what);

/* What an export wrote. */
struct rb_resdb_counts {
	size_t drives, points, results, verdicts, health;
};

/*
 * Exports one results file in one transaction (flags: RB_RESDB_*). 0 with *ret_what (and
 * *ret_counts, when not NULL, what was written), or a negative errno with err filled:
 * -EINVAL / -ENOENT a file that does not read (nothing written), -EIO the database
 * refused or went away (nothing written).
 */
int rb_resdb_export(struct rb_resdb *db, const char *path, unsigned flags,
		    enum rb_resdb_added *ret_what, struct rb_resdb_counts *ret_counts, char *err,
		    size_t errlen);

/* ---- a run's file exported at its end, and the exports owed (results_db_owed.c) ---- */

/* The list in a results folder of its files that a database did not take. */
#define RB_RESDB_OWED "rackbench-db-owed"

/* Where a run's file goes, and who hears what became of it. */
struct rb_resdb_sink {
	const char *url;	 /* rb_resdb_export_run(): the database */
	const char *tag;	 /* how the list names it: "-" the service's own (its URL, which may
			  * hold a password, is never written down), else url */
	const char *service_url; /* the database of "-" entries (serve --results-db); NULL:
				  * not a service, which leaves them */
	bool at_start; /* the file's folder is caught up at a service's start too (said) */
	/* each line said, warn: a gap (owed, still owed, dropped); else what was exported */
	void (*say)(void *arg, bool warn, const char *msg);
	void *arg;
};

/*
 * A run's results file (path) into k's database, in one transaction. When the database
 * cannot be reached or refused it, the export is owed: noted in the list of the file's
 * folder, and said. 0 exported (or nothing to export: a run that did not end), 1 owed, or
 * a negative errno (a file that does not read, a list that cannot be written): said.
 */
int rb_resdb_export_run(const struct rb_resdb_sink *k, const char *path);
/*
 * The exports folder dir owes, caught up: each database of its list over one connection,
 * each file in its own transaction; an exported file leaves the list, and each is said
 * with its name (a file gone or unreadable is dropped, said). 0 none owed any more, 1 some
 * still (their database still away, or the service's with no service_url), or a negative
 * errno (the list unreadable or not rewritten): said.
 */
int rb_resdb_catch_up(const struct rb_resdb_sink *k, const char *dir);

/* ---- a run so far, exported at each point's end (results_db_so_far.c) ---- */

/* A run's exports so far: its database, and the child exporting (one at a time). */
struct rb_resdb_so_far {
	const char *url;  /* NULL or "": none */
	const char *path; /* the run's file */
	pid_t pid;	  /* `rackbench export --running` of the file, or 0 */
	uint32_t point;	  /* the last point that ended */
	bool pending;	  /* it ended while a child exported: the next child's */
	bool warned;	  /* a failed export said (once a run) */
	bool stopping;	  /* the run's end stops the child: not a failure */
	unsigned exported;
};

/*
 * At point's end, the file flushed: a child exports the run as far as it went, or, when
 * one still does, the next does once it ended (rb_resdb_so_far_poll). Never waits on the
 * database.
 */
void rb_resdb_so_far_point(struct rb_resdb_so_far *s, const char *path, uint32_t point);
/* The child reaped if it ended, and the next started if a point waits for one: the run's
 * loop calls it every turn (nothing but a test when no child is there). */
void rb_resdb_so_far_poll(struct rb_resdb_so_far *s);
/* Before the file closes: a child still exporting is stopped (the run's end exports the
 * whole file) and reaped. */
void rb_resdb_so_far_end(struct rb_resdb_so_far *s);

/* Filters of rb_resdb_drives(): NULL or "" is any. */
struct rb_resdb_filter {
	int64_t since_ns; /* runs that started then or later; 0 ever */
	bool failed;	  /* only drives with a FAIL then: their latest failed run */
	const char *model, *firmware, *rack;
};

/* Every run of drive key (serial or AGENT:PATH), oldest first. 0 or a negative errno
 * (err filled). */
int rb_resdb_history(struct rb_resdb *db, const char *key, struct rb_index_row **ret, size_t *ret_n,
		     char *err, size_t errlen);
/* Each drive's latest run that f admits, by key. 0 or a negative errno (err filled). */
int rb_resdb_drives(struct rb_resdb *db, const struct rb_resdb_filter *f, struct rb_index_row **ret,
		    size_t *ret_n, char *err, size_t errlen);

/* ---- the fleet's head-to-head (results_db_fleet.c) ---- */

/* What a campaign's drives are grouped by. */
enum rb_resdb_by {
	RB_RESDB_BY_MODEL,    /* model (a volume: its width too) */
	RB_RESDB_BY_FIRMWARE, /* model, firmware and capacity */
	RB_RESDB_BY_RACK,     /* the agent's rack label */
};

/*
 * The drives of one group at one point (by point name) over every run of a campaign:
 * each measured row's IOPS, and the group's latency histograms as the database summed
 * them (counts added per bucket over every row at the point, whatever its status: as
 * `rackbench report` merges a file's), non-zero buckets ascending.
 */
struct rb_resdb_group {
	char point[256];
	/* the group: those fields by names; the others "" or 0 */
	char model[128], firmware[64], rack[64];
	uint32_t members;	 /* a volume's members; 0 a drive */
	uint64_t capacity_bytes; /* by firmware */
	uint32_t pos;		 /* the point's place in the plan (the lowest point number) */
	size_t nrows;		 /* result rows (a drive in a run) at the point */
	size_t nok;		 /* of them measured (status ok) */
	double *iops;		 /* nok: each measured row's IOPS, read + write + trim */
	char (*keys)[200];	 /* nok: each measured row's drive key, as iops */
	uint32_t *bucket[2];	 /* per direction (0 read, 1 write): the summed histogram */
	uint64_t *count[2];
	size_t nbuckets[2];
};

/*
 * Every (point, group) of campaign's runs, in plan order then by group. 0 (no run of
 * the campaign: *ret_n 0) or a negative errno (err filled). Free with
 * rb_resdb_groups_free().
 */
int rb_resdb_groups(struct rb_resdb *db, const char *campaign, enum rb_resdb_by by,
		    struct rb_resdb_group **ret, size_t *ret_n, char *err, size_t errlen);
/* NULL. */
struct rb_resdb_group *rb_resdb_groups_free(struct rb_resdb_group *v, size_t n);

/* ---- the fleet's verdicts (results_db_fleet.c; fleet_verdict.h judges) ---- */

/* A campaign's fleet as `rackbench judge` reads it: each drive's latest run of it. */
struct rb_resdb_fleet {
	struct rb_fleet_drive *drives; /* by key */
	size_t nd;
	struct rb_fleet_point *points; /* the measured points of those runs */
	size_t np;
	char (*names)[256]; /* the points' names */
	size_t nnames;
};

/*
 * Reads the fleet of campaign: every drive's latest run in it (its rack's verdict there,
 * and the start of an earlier run that fail_slow quarantined), the measured points of
 * those runs. 0 (no run: f->nd 0) or a negative errno (err filled).
 */
int rb_resdb_fleet_read(struct rb_resdb *db, const char *campaign, struct rb_resdb_fleet *f,
			char *err, size_t errlen);
void rb_resdb_fleet_release(struct rb_resdb_fleet *f);
/*
 * Stores the verdicts of a judgement of campaign in one transaction: the rows of the
 * runs judged (each drive's latest) and the domains' holds replaced by these; an earlier
 * run's stay (they are what makes a second QUARANTINE a FAIL). 0 or -EIO (err filled).
 */
int rb_resdb_fleet_store(struct rb_resdb *db, const char *campaign, const struct rb_resdb_fleet *f,
			 const struct rb_fleet_verdict *v, size_t n, char *err, size_t errlen);

/* One of the fleet's verdicts as a rack service shows it: on a drive (subject its key) or a
 * domain's hold (subject "rack=R" or "host=H"). */
struct rb_resdb_mark {
	char subject[300], rule[32], verdict[16];
};
/*
 * The fleet's verdicts of campaign on subjects (drive keys and domains, one a line): each
 * drive's on its latest run of the campaign (an earlier run's stay in the table but are
 * not the drive's now), every hold. 0 or -EIO (err filled); *ret (free()) and *ret_n.
 */
int rb_resdb_fleet_marks(struct rb_resdb *db, const char *campaign, const char *subjects,
			 struct rb_resdb_mark **ret, size_t *ret_n, char *err, size_t errlen);

/*
 * Whether the database holds a run of campaign whose results file is named file_name (its
 * path's last part: a rack's file, wherever its service resolved the folder) and whose
 * drives were on one of agents ("A,B": the rack's; a run without drives: any agent's).
 * 0 with *ret_held, or -EIO (err filled).
 */
int rb_resdb_run_held(struct rb_resdb *db, const char *campaign, const char *file_name,
		      const char *agents, bool *ret_held, char *err, size_t errlen);

#endif
