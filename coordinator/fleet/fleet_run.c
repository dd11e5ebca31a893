// SPDX-License-Identifier: MIT
/*
 * `fleet run` (fleet.h): one campaign on every rack that holds a shard of it, from one
 * UTC instant. A service's own start instant is its CLOCK_MONOTONIC, which means nothing
 * on another host, so the fleet's is a wall-clock (CLOCK_REALTIME) instant far enough
 * ahead to reach every rack. Each rack's wall clock is measured against ours first (round
 * trips of "time" over its admin endpoint, the lowest delay kept: common/wire/clocksync.h),
 * and the instant goes to it in its own wall clock; the service converts it to its
 * monotonic clock and aligns its agents to it as any run's start. The shards are then
 * followed by asking each service its run's status once a second: a rack that stops
 * answering for the deadline is lost (INCOMPLETE) and the others go on. Ctrl-C aborts
 * every rack's shard as `fleet abort` does. Once every rack has ended, a campaign with
 * fleet_verdict is judged over its results database (fleet_db.c). Nothing is kept here
 * but what is printed: the runs are the services'.
 */
#include "fleet.h"
#include "fleet_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "campaign.h"
#include "clock.h"
#include "clocksync.h"
#include "diag.h"
#include "exitcode.h"
#include "log.h"
#include "stopsig.h"
#include "transport.h"

#define ROUNDS 8 /* round trips a rack's clock is measured with */

/* One round of "time" to every rack connected; its samples into est. */
static void clock_round(const struct rb_fleet *f, void **socks, struct rb_clock_est *est,
			int deadline_ms)
{
	int64_t *t0 = calloc(f->nracks + 1, sizeof(*t0)), end;
	void **live = calloc(f->nracks + 1, sizeof(*live));
	size_t *which = calloc(f->nracks + 1, sizeof(*which));
	unsigned char *ready = calloc(f->nracks + 1, 1), *wait = calloc(f->nracks + 1, 1);

	if (!t0 || !live || !which || !ready || !wait)
		goto out;
	for (size_t i = 0; i < f->nracks; i++) {
		if (!socks[i])
			continue;
		t0[i] = rb_wall_ns();
		wait[i] = !rb_tx_text_send(socks[i], "time\n", 5);
	}
	end = rb_mono_ns() + (int64_t)deadline_ms * 1000000;
	for (;;) {
		size_t n = 0;
		int64_t left = (end - rb_mono_ns()) / 1000000;

		for (size_t i = 0; i < f->nracks; i++)
			if (wait[i]) {
				live[n] = socks[i];
				which[n++] = i;
			}
		if (!n || left <= 0 || rb_tx_poll_many(live, n, (int)left, ready) < 0)
			break;
		for (size_t w = 0; w < n; w++) {
			size_t i = which[w], len;
			char *text = NULL, v1[32], v2[32];
			int64_t t3 = rb_wall_ns();

			if (!ready[w] || rb_tx_text_recv(socks[i], 0, &text, &len))
				continue;
			wait[i] = 0;
			if (rb_control_field(text, "t1", v1, sizeof(v1)) &&
			    rb_control_field(text, "t2", v2, sizeof(v2)))
				rb_clock_add(&est[i], t0[i], strtoll(v1, NULL, 10),
					     strtoll(v2, NULL, 10), t3);
			free(text);
		}
	}
	/* a REQ socket that got no reply cannot ask again: this rack is measured no more */
	for (size_t i = 0; i < f->nracks; i++)
		if (wait[i]) {
			rb_tx_close(socks[i]);
			socks[i] = NULL;
		}
out:
	free(t0);
	free(live);
	free(which);
	free(ready);
	free(wait);
}

/* Each rack with a shard: its wall clock's offset from ours. */
static void measure_clocks(const struct rb_fleet *f, const struct rb_keypair *me,
			   struct fleet_rack *r, int deadline_ms)
{
	void **socks = calloc(f->nracks + 1, sizeof(*socks));
	struct rb_clock_est *est = calloc(f->nracks + 1, sizeof(*est));

	for (size_t i = 0; socks && est && i < f->nracks; i++)
		if (r[i].spec)
			socks[i] = rb_tx_admin_connect(f->racks[i].endpoint, me, f->racks[i].pub,
						       deadline_ms);
	for (int k = 0; socks && est && k < ROUNDS; k++)
		clock_round(f, socks, est, deadline_ms);
	for (size_t i = 0; socks && est && i < f->nracks; i++) {
		rb_tx_close(socks[i]);
		if (!est[i].n)
			continue;
		r[i].clock_ok = true;
		r[i].offset_ns = rb_clock_offset(&est[i], &r[i].delay_ns);
	}
	free(socks);
	free(est);
}

/* The fleet run's id: its UTC time and our pid, a word any service takes. */
static void fleet_id(char *id, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(id, len, "fleet-%Y%m%dT%H%M%SZ", &tm);
	snprintf(id + strlen(id), len - strlen(id), "-%d", (int)getpid());
}

/* Each rack's shard submitted with the instant in its wall clock: the racks' states. */
static void submit(const struct rb_fleet *f, const struct rb_keypair *me, struct fleet_rack *r,
		   const struct rb_campaign *c, const char *fid, int64_t instant, int deadline_ms)
{
	char **reqs = calloc(f->nracks + 1, sizeof(*reqs)), why[256];
	struct rb_fleet_reply *rep = calloc(f->nracks + 1, sizeof(*rep));
	const char *base = strrchr(c->file, '/');

	for (size_t i = 0; reqs && i < f->nracks; i++)
		if (r[i].spec && asprintf(&reqs[i],
					  "run\nfile=%s\nqueue=1\nfleet=%s\nstart_at=%" PRId64
					  "\nshard=%s\n\n%s",
					  base ? base + 1 : c->file, fid, instant + r[i].offset_ns,
					  r[i].spec, c->text) < 0)
			reqs[i] = NULL;
	if (reqs && rep)
		fleet_ask_each(f, me, (const char *const *)reqs, NULL, deadline_ms, rep);
	for (size_t i = 0; i < f->nracks; i++) {
		const char *t = rep ? rep[i].text : NULL;

		if (!r[i].spec)
			continue;
		r[i].heard_ns = rb_mono_ns();
		if (!t) {
			r[i].st = RACK_UNREACHABLE;
			snprintf(r[i].why, sizeof(r[i].why), "%s",
				 fleet_why_not(rep ? rep[i].err : -ENOMEM, deadline_ms, why,
					       sizeof(why)));
		} else if (strncmp(t, "ok\n", 3)) {
			r[i].st = RACK_REFUSED;
			const char *msg = strlen(t) > 6 ? t + 6 : ""; /* after "error\n" */

			snprintf(r[i].why, sizeof(r[i].why), "%.*s", (int)strcspn(msg, "\n"), msg);
		} else {
			char q[16];

			r[i].st = rb_control_field(t, "queued", q, sizeof(q)) ? RACK_QUEUED
									      : RACK_RUNNING;
			rb_control_field(t, "id", r[i].id, sizeof(r[i].id));
		}
	}
	for (size_t i = 0; reqs && i < f->nracks; i++)
		free(reqs[i]);
	free(reqs);
	rb_fleet_replies_free(rep, rep ? f->nracks : 0);
}

static bool following(const struct fleet_rack *r)
{
	return r->st == RACK_QUEUED || r->st == RACK_RUNNING;
}

/* Each rack's run asked its status once: what it says, or lost after the deadline. */
static size_t follow_once(const struct rb_fleet *f, const struct rb_keypair *me,
			  struct fleet_rack *r, int deadline_ms)
{
	char **reqs = calloc(f->nracks + 1, sizeof(*reqs));
	struct rb_fleet_reply *rep = calloc(f->nracks + 1, sizeof(*rep));
	size_t left = 0;
	/* an answer is waited for a second at most here: the view goes on meanwhile */
	int ask_ms = deadline_ms < 1000 ? deadline_ms : 1000;

	for (size_t i = 0; reqs && i < f->nracks; i++)
		if (following(&r[i]) &&
		    asprintf(&reqs[i], "status\nid=%s\ndrives=256\n", r[i].id) < 0)
			reqs[i] = NULL;
	if (reqs && rep)
		fleet_ask_each(f, me, (const char *const *)reqs, NULL, ask_ms, rep);
	for (size_t i = 0; i < f->nracks; i++) {
		if (!following(&r[i]))
			continue;
		if (rep && rep[i].text && !strncmp(rep[i].text, "ok\n", 3)) {
			r[i].heard_ns = rb_mono_ns();
			r[i].unheard = false;
			fleet_rack_status(&r[i], rep[i].text);
		} else {
			r[i].unheard = true;
			if (rb_mono_ns() - r[i].heard_ns > (int64_t)deadline_ms * 1000000) {
				r[i].st = RACK_LOST;
				snprintf(r[i].why, sizeof(r[i].why),
					 "its service stopped answering (nothing for %.1f s)",
					 deadline_ms / 1e3);
			}
		}
		left += following(&r[i]);
	}
	for (size_t i = 0; reqs && i < f->nracks; i++)
		free(reqs[i]);
	free(reqs);
	rb_fleet_replies_free(rep, rep ? f->nracks : 0);
	return left;
}

/* Ctrl-C: every rack's shard aborted as `fleet abort` does. */
static void abort_all(const struct rb_fleet_args *a, const char *fid)
{
	struct rb_fleet_args ab = *a;

	rb_warn("interrupted: aborting fleet run %s on every rack (Ctrl-C again: leave now)", fid);
	ab.id = fid;
	rb_fleet_abort(&ab);
}

/* Followed until every shard ended or was lost (or a second Ctrl-C). */
static void follow(const struct rb_fleet_args *a, const struct rb_fleet *f,
		   const struct rb_keypair *me, struct fleet_rack *r, const char *fid,
		   int deadline_ms)
{
	bool tty = isatty(2), aborted = false;
	unsigned drawn = 0;

	for (;;) {
		int64_t next = rb_mono_ns() + 1000000000LL;
		size_t left = follow_once(f, me, r, deadline_ms);

		fleet_view(f, r, tty, &drawn);
		if (!left)
			break;
		if (rb_stop_flag && aborted)
			break;
		if (rb_stop_flag && !aborted) {
			aborted = true;
			abort_all(a, fid);
			rb_stop_flag = 0;
		}
		while (!rb_stop_flag && rb_mono_ns() < next)
			usleep(50000);
	}
}

/* What fleet run needs loaded: the fleet, the key, the campaign. 0 or the exit code. */
static int run_setup(const struct rb_fleet_args *a, struct rb_fleet **f, struct rb_keypair *me,
		     int *deadline_ms, struct rb_campaign **c)
{
	struct rb_diags d;
	int rc = fleet_need(a, false);

	if (rc || (rc = fleet_setup(a, f, me, deadline_ms)))
		return rc;
	rb_diags_init(&d);
	if (rb_campaign_load_file(a->campaign, c, &d)) {
		rb_diags_print(&d, stderr);
		rc = RB_EXIT_USAGE;
	}
	rb_diags_release(&d);
	return rc;
}

/* The exit code from the racks' ends; the INCOMPLETE ones named. */
static int fleet_rc(const struct rb_fleet *f, const struct fleet_rack *r, const char *fid)
{
	char names[1024] = "";
	int rc = RB_EXIT_OK;
	size_t n = 0;

	for (size_t i = 0; i < f->nracks; i++) {
		if (r[i].st == RACK_DONE) {
			rc = rb_exit_worse(rc, r[i].exit);
		} else if (r[i].st != RACK_NONE) {
			n++;
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s (%s)",
				 names[0] ? ", " : "", f->racks[i].name, r[i].why);
		}
	}
	if (n) {
		rb_err("fleet run %s: INCOMPLETE on %zu rack(s): %s", fid, n, names);
		rc = rb_exit_worse(rc, RB_EXIT_PARTIAL);
	}
	return rc;
}

int rb_fleet_run(const struct rb_fleet_args *a)
{
	struct rb_fleet *f = NULL;
	struct rb_campaign *c = NULL;
	struct rb_keypair me;
	struct rb_fleet_reply *rep = NULL;
	struct fleet_rack *r = NULL;
	struct fleet_judgement fj;
	char fid[RB_FLEET_ID_MAX], path[4200];
	int deadline_ms, rc = run_setup(a, &f, &me, &deadline_ms, &c);
	int64_t instant, start_in = a->start_in_ns ? (int64_t)a->start_in_ns : 3000000000LL;
	size_t shards = 0;

	if (rc)
		goto out;
	rc = RB_EXIT_FAILED;
	r = calloc(f->nracks + 1, sizeof(*r));
	rep = fleet_ask_all(f, &me, "agents\ndrives=1\n", deadline_ms);
	if (!r || !rep)
		goto out;
	for (size_t i = 0; i < f->nracks; i++)
		if (!rep[i].text) {
			r[i].st = RACK_UNREACHABLE;
			fleet_why_not(rep[i].err, deadline_ms, r[i].why, sizeof(r[i].why));
		} else if (strncmp(rep[i].text, "ok\n", 3)) {
			/* it answered, and said no: its words, not an errno's */
			const char *msg = strlen(rep[i].text) > 6 ? rep[i].text + 6 : "";

			r[i].st = RACK_UNREACHABLE;
			snprintf(r[i].why, sizeof(r[i].why), "%.*s", (int)strcspn(msg, "\n"), msg);
		}
	{
		char **spec = calloc(f->nracks + 1, sizeof(*spec));
		size_t *drives = calloc(f->nracks + 1, sizeof(*drives));

		rc = spec && drives ? fleet_shards(f, c, rep, spec, drives) : RB_EXIT_FAILED;
		for (size_t i = 0; spec && drives && i < f->nracks; i++) {
			r[i].spec = spec[i];
			r[i].drives = drives[i];
			shards += spec[i] != NULL;
		}
		free(spec);
		free(drives);
	}
	if (rc)
		goto out;
	if (!shards) {
		rb_err("no rack of the fleet has a shard of campaign '%s'", c->name);
		rc = RB_EXIT_PARTIAL;
		goto out;
	}
	fleet_id(fid, sizeof(fid));
	rb_stop_signals(NULL, false, NULL);
	measure_clocks(f, &me, r, deadline_ms);
	instant = rb_wall_ns() + start_in;
	rb_info("fleet run %s: campaign '%s' on %zu rack(s), starting at the UTC instant "
		"%" PRId64 ".%09" PRId64 " (in %.1f s)",
		fid, c->name, shards, instant / (int64_t)1000000000, instant % (int64_t)1000000000,
		(double)start_in / 1e9);
	submit(f, &me, r, c, fid, instant, deadline_ms);
	follow(a, f, &me, r, fid, deadline_ms);
	fleet_table(f, r, fid, instant);
	rc = fleet_rc(f, r, fid);
	rc = rb_exit_worse(rc, fleet_judge(f, r, c, &fj));
	if (a->summary)
		snprintf(path, sizeof(path), "%s", a->summary);
	else
		snprintf(path, sizeof(path), "%s.json", fid);
	if (fleet_summary(path, f, r, fid, c->name, instant, rc, &fj))
		rb_err("cannot write the fleet summary '%s': %s", path, strerror(errno));
	else
		rb_info("fleet summary: %s", path);
out:
	for (size_t i = 0; r && i < f->nracks; i++)
		free(r[i].spec);
	free(r);
	rb_fleet_replies_free(rep, rep ? f->nracks : 0);
	rb_campaign_free(c);
	rb_fleet_free(f);
	return rc;
}
