/* SPDX-License-Identifier: MIT */
/*
 * A campaign's fleet judged in the results database and the verdicts printed: what
 * `rackbench judge` does, and `rackbench fleet run` once every rack has ended when the
 * campaign says fleet_verdict. The database's campaign read (results_db.h), judged
 * (fleet_verdict.h), stored unless a dry run, printed on stdout HOLD first, with a line of
 * counts; the exit code follows from the verdicts (docs/fleet-db.md).
 */
#ifndef RB_FLEET_JUDGE_H
#define RB_FLEET_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet_verdict.h"

struct rb_resdb;

/* What a judgement is given. */
struct rb_fleet_judge_args {
	const char *campaign;
	struct rb_fleet_params params;
	bool dry_run; /* printed, not stored */
};

/* What a judgement found. */
struct rb_fleet_judged {
	bool judged;	 /* the verdicts were made (and stored unless a dry run) */
	size_t drives;	 /* the drives judged: each one's latest run of the campaign */
	size_t count[4]; /* verdicts by enum rb_fleet_state */
	size_t unjudged; /* points with too few peers at their load */
};

/*
 * Judges campaign a->campaign over db (where: rb_resdb_where() of its URL, for the
 * messages), stores the verdicts unless a dry run, and prints them. Returns the exit
 * code, each failure said: 5 a FAIL; 4 a QUARANTINE or a HOLD, or a database that failed
 * us; 2 no run of the campaign; 1 out of memory; else 0. *ret (when not NULL) says what
 * was found.
 */
int rb_fleet_judge_db(struct rb_resdb *db, const char *where, const struct rb_fleet_judge_args *a,
		      struct rb_fleet_judged *ret);
/*
 * The same over the database at url, opened and closed here: a URL libpq does not read
 * is 2, a database that cannot be reached 4 (both said).
 */
int rb_fleet_judge_url(const char *url, const struct rb_fleet_judge_args *a,
		       struct rb_fleet_judged *ret);
/* The exit code of a judgement's counts: 5 a FAIL, 4 a QUARANTINE or HOLD, else 0. */
int rb_fleet_judged_exit(const struct rb_fleet_judged *j);

#endif
