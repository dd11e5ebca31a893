// SPDX-License-Identifier: MIT
/*
 * `fleet run`'s fleet verdict (fleet_priv.h): a campaign with fleet_verdict is judged
 * over the results database its racks export into (results_db) once every rack has
 * ended. Each rack's service exports its run's file when the run ends, on its own host
 * and in its own time, so the database is asked first, a few times a second and up to
 * fleet_verdict.wait, until it holds every ended rack's run: a run of the campaign whose
 * file has the name the rack's service gave it and whose drives were on the rack's
 * agents. A rack whose run is still missing then is named and the fleet judged without
 * it; a database that cannot be reached is said and leaves the fleet unjudged (exit 4).
 * The judgement is `rackbench judge`'s (coordinator/results/fleet_judge.h), printed
 * after the fleet table. Nothing is written to the racks.
 */
#include "fleet_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "clock.h"
#include "exitcode.h"
#include "fleet_judge.h"
#include "log.h"
#include "results_db.h"
#include "stopsig.h"

#define POLL_NS 200000000LL /* how often the database is asked while waited for */

/* A rack's shard's agents ("AGENT:GROUP,...") as "AGENT,AGENT" into buf. */
static const char *rack_agents(const char *spec, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const char *p = spec; p && *p && n < len;) {
		size_t word = strcspn(p, ":,");

		n += (size_t)snprintf(buf + n, len - n, "%s%.*s", n ? "," : "", (int)word, p);
		p += strcspn(p, ",");
		p += *p == ',';
	}
	return buf;
}

/* The last part of a rack's results path. */
static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Whether rack i's run is one the database must hold: it ended, with a results file. */
static bool owed_run(const struct fleet_rack *r)
{
	return r->st == RACK_DONE && r->results[0];
}

/*
 * One pass over the racks still wanted (want[i]): those the database holds now are
 * wanted no more. Returns how many are still wanted, or -EIO (said).
 */
static long ask_once(struct rb_resdb *db, const struct rb_fleet *f, const struct fleet_rack *r,
		     const char *campaign, bool *want)
{
	char agents[4096], err[1200];
	long left = 0;

	for (size_t i = 0; i < f->nracks; i++) {
		bool held = false;

		if (!want[i])
			continue;
		if (rb_resdb_run_held(db, campaign, file_name(r[i].results),
				      rack_agents(r[i].spec, agents, sizeof(agents)), &held, err,
				      sizeof(err))) {
			rb_err("fleet verdict: %s", err);
			return -EIO;
		}
		want[i] = !held;
		left += !held;
	}
	return left;
}

/*
 * Waits until db holds every ended rack's run, or the campaign's wait is over, or Ctrl-C;
 * the racks still missing named into fj->missing (and said). 0, -EIO (said) or -EINTR.
 */
static int wait_runs(struct rb_resdb *db, const char *where, const struct rb_fleet *f,
		     const struct fleet_rack *r, const struct rb_campaign *c,
		     struct fleet_judgement *fj)
{
	bool want[RB_FLEET_MAX_RACKS];
	int64_t end = rb_mono_ns() + (int64_t)c->fleet_verdict.wait_ns;
	long left = 0;

	for (size_t i = 0; i < f->nracks; i++) {
		want[i] = owed_run(&r[i]);
		left += want[i];
	}
	if (left && (left = ask_once(db, f, r, c->name, want)) > 0)
		rb_info("fleet verdict: waiting up to %.0f s for %ld rack run(s) to reach %s",
			(double)c->fleet_verdict.wait_ns / 1e9, left, where);
	while (left > 0 && rb_mono_ns() < end && !rb_stop_flag) {
		int64_t next = rb_mono_ns() + POLL_NS;

		while (!rb_stop_flag && rb_mono_ns() < next && rb_mono_ns() < end)
			usleep(20000);
		left = ask_once(db, f, r, c->name, want);
	}
	if (left < 0)
		return -EIO;
	if (rb_stop_flag)
		return -EINTR;
	for (size_t i = 0; i < f->nracks; i++) {
		size_t n = strlen(fj->missing);

		if (!want[i])
			continue;
		rb_warn("fleet verdict: rack %s's run (%s) is not in %s after %.0f s: the fleet is "
			"judged without it",
			f->racks[i].name, file_name(r[i].results), where,
			(double)c->fleet_verdict.wait_ns / 1e9);
		snprintf(fj->missing + n, sizeof(fj->missing) - n, "%s%s", n ? ", " : "",
			 f->racks[i].name);
	}
	return 0;
}

/* The judgement over an open database, printed under its heading. Its exit code. */
static int judge(struct rb_resdb *db, const char *where, const struct rb_campaign *c,
		 struct fleet_judgement *fj)
{
	const struct rb_fleet_params *p = &c->fleet_verdict.params;
	struct rb_fleet_judge_args a = { .campaign = c->name, .params = *p };
	struct rb_fleet_judged j;
	int rc;

	printf("\nfleet verdict (margin %g, min_points %u, cluster %u, domain %s)%s%s\n", p->margin,
	       p->min_points, p->cluster, p->by_host ? "host" : "rack",
	       fj->missing[0] ? ": judged without rack(s) " : "", fj->missing);
	fflush(stdout);
	rc = rb_fleet_judge_db(db, where, &a, &j);
	fj->judged = j.judged;
	fj->drives = j.drives;
	memcpy(fj->count, j.count, sizeof(fj->count));
	if (!j.judged) {
		snprintf(fj->why, sizeof(fj->why), "%s",
			 rc == RB_EXIT_USAGE ? "no run of the campaign in the database"
					     : "the database failed (said)");
		/* nothing to judge is the fleet's incompleteness, not bad input */
		if (rc == RB_EXIT_USAGE)
			rc = RB_EXIT_PARTIAL;
	}
	return rc;
}

int fleet_judge(const struct rb_fleet *f, const struct fleet_rack *r, const struct rb_campaign *c,
		struct fleet_judgement *ret)
{
	struct fleet_judgement *fj = ret;
	char err[1200], where[600];
	struct rb_resdb *db;
	int e, rc;

	memset(fj, 0, sizeof(*fj));
	if (!c->fleet_verdict.on || !c->results_db)
		return RB_EXIT_OK;
	fj->asked = true;
	if (rb_stop_flag) { /* a second Ctrl-C: leave now */
		snprintf(fj->why, sizeof(fj->why), "interrupted");
		rb_warn("fleet verdict: not judged: interrupted");
		return fj->exit = RB_EXIT_PARTIAL;
	}
	rb_resdb_where(c->results_db, where, sizeof(where));
	db = rb_resdb_open(c->results_db, err, sizeof(err), &e);
	if (!db) {
		rb_err("fleet verdict: not judged: %s", err);
		snprintf(fj->why, sizeof(fj->why), "%s cannot be reached", where);
		return fj->exit = RB_EXIT_PARTIAL;
	}
	e = wait_runs(db, where, f, r, c, fj);
	if (e) {
		snprintf(fj->why, sizeof(fj->why), "%s",
			 e == -EINTR ? "interrupted while the racks' runs were waited for"
				     : "the database failed while the racks' runs were waited for");
		if (e == -EINTR)
			rb_warn("fleet verdict: not judged: interrupted");
		rc = RB_EXIT_PARTIAL;
	} else {
		rc = judge(db, where, c, fj);
	}
	rb_resdb_close(db);
	return fj->exit = rc;
}
