// SPDX-License-Identifier: MIT
/*
 * A campaign's fleet judged (fleet_judge.h): its every drive's latest run read from the
 * results database, the fleet's verdicts made (fleet_verdict.c), stored in fleet_verdicts
 * and printed, HOLD first. `rackbench judge` and `rackbench fleet run` both come here.
 */
#include "fleet_judge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "results_db.h"

int rb_fleet_judged_exit(const struct rb_fleet_judged *j)
{
	if (j->count[RB_FLEET_FAIL])
		return RB_EXIT_BELOW_SPEC;
	if (j->count[RB_FLEET_QUARANTINE] || j->count[RB_FLEET_HOLD])
		return RB_EXIT_PARTIAL;
	return RB_EXIT_OK;
}

/* The verdicts on stdout, HOLD first, and the line of counts. */
static void print(const char *campaign, const char *where, const struct rb_resdb_fleet *f,
		  const struct rb_fleet_verdict *v, size_t n, const struct rb_fleet_stats *st,
		  struct rb_fleet_judged *j)
{
	printf("campaign '%s' in %s: %zu drive(s) of %zu model(s), %zu point(s) judged against "
	       "their peers\n",
	       campaign, where, f->nd, st->models, st->judged_points);
	for (size_t i = 0; i < n; i++) {
		j->count[v[i].state]++;
		printf("%-10s %-24s %-12s %s\n", rb_fleet_state_name(v[i].state), v[i].subject,
		       v[i].rule, v[i].reason);
	}
	printf("%zu FAIL, %zu QUARANTINE, %zu on HOLD, %zu on a minority firmware",
	       j->count[RB_FLEET_FAIL], j->count[RB_FLEET_QUARANTINE], j->count[RB_FLEET_HOLD],
	       j->count[RB_FLEET_NOTE]);
	if (st->unjudged_points)
		printf("; %zu point(s) not judged: fewer than %d peers at their load",
		       st->unjudged_points, RB_FLEET_MIN_PEERS);
	putchar('\n');
	fflush(stdout);
}

int rb_fleet_judge_db(struct rb_resdb *db, const char *where, const struct rb_fleet_judge_args *a,
		      struct rb_fleet_judged *ret)
{
	struct rb_fleet_judged j = { .judged = false };
	struct rb_resdb_fleet f;
	struct rb_fleet_verdict *v = NULL;
	struct rb_fleet_stats st;
	char err[1200];
	size_t n = 0;
	int r = rb_resdb_fleet_read(db, a->campaign, &f, err, sizeof(err));

	if (ret)
		*ret = j;
	if (r) {
		rb_err("%s", err);
		return r == -ENOMEM ? RB_EXIT_FAILED : RB_EXIT_PARTIAL;
	}
	if (!f.nd) {
		rb_err("no run of campaign '%s' in %s", a->campaign, where);
		rb_resdb_fleet_release(&f);
		return RB_EXIT_USAGE;
	}
	struct rb_fleet_in in = { .drives = f.drives,
				  .nd = f.nd,
				  .points = f.points,
				  .np = f.np,
				  .names = (const char(*)[256])f.names,
				  .nnames = f.nnames,
				  .p = a->params };

	if (rb_fleet_judge(&in, &v, &n, &st)) {
		rb_err("out of memory");
		r = RB_EXIT_FAILED;
	} else if (!a->dry_run &&
		   rb_resdb_fleet_store(db, a->campaign, &f, v, n, err, sizeof(err))) {
		rb_err("%s", err);
		r = RB_EXIT_PARTIAL;
	} else {
		print(a->campaign, where, &f, v, n, &st, &j);
		j.judged = true;
		j.drives = f.nd;
		j.unjudged = st.unjudged_points;
		r = rb_fleet_judged_exit(&j);
	}
	if (ret)
		*ret = j;
	free(v);
	rb_resdb_fleet_release(&f);
	return r;
}

int rb_fleet_judge_url(const char *url, const struct rb_fleet_judge_args *a,
		       struct rb_fleet_judged *ret)
{
	char err[1200], where[600];
	struct rb_resdb *db;
	int r;

	if (ret)
		*ret = (struct rb_fleet_judged){ .judged = false };
	db = rb_resdb_open(url, err, sizeof(err), &r);
	if (!db) {
		rb_err("%s", err);
		return r == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_PARTIAL;
	}
	rb_resdb_where(url, where, sizeof(where));
	r = rb_fleet_judge_db(db, where, a, ret);
	rb_resdb_close(db);
	return r;
}
