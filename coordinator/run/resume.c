// SPDX-License-Identifier: MIT
/*
 * Resume: a crashed run's journal walked (where each agent's numbering stands, which
 * points it holds whole) and replayed into a new results file; the journal of a new run.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coord_priv.h"
#include "exitcode.h"
#include "journal.h"
#include "log.h"
#include "wire.h"

static void gap_add(struct coord *k, const struct ragent *a, uint64_t epoch, uint64_t lo,
		    uint64_t hi, uint32_t point_lo, uint32_t point_hi)
{
	struct jgap *g = realloc(k->jr.gaps, (k->jr.ngaps + 1) * sizeof(*g));

	if (!g)
		return;
	k->jr.gaps = g;
	k->jr.gaps[k->jr.ngaps++] = (struct jgap){ .agent = (size_t)(a - k->reg.agents),
						   .epoch = epoch,
						   .lo = lo,
						   .hi = hi,
						   .point_lo = point_lo,
						   .point_hi = point_hi };
}

struct jwalk {
	struct coord *k;
	int pass;
	uint32_t upto; /* J_REPLAY: messages of points up to this one */
	bool stopped;  /* J_REPLAY: at a later point's message (k->jcursor) */
};

static int journal_record(void *arg, const char *agent, const uint8_t *buf, size_t len, off_t at)
{
	struct jwalk *w = arg;
	struct coord *k = w->k;
	struct ragent *a = reg_agent(k, agent);
	struct rb_msg *e;
	char err[256];
	uint32_t point = 0, attempt = 0;
	bool has;
	int rc = 0;

	if (!a)
		return 0; /* not an agent of this campaign: nothing of it was used */
	if (rb_msg_unpack(buf, len, &e, err, sizeof(err))) {
		rb_warn("%s: the record at byte %lld is unreadable (%s); skipped",
			k->jr.journal_path, (long long)at, err);
		return 0;
	}
	has = rb_msg_point(e, &point, &attempt) && point < k->c->npoints;
	switch (w->pass) {
	case J_SEQS:
		/* where each agent process's numbered messages stand: resent ones are dropped */
		if (e->seq) {
			struct seqpos *x = dlv_seq(a, e->epoch);

			/* journaled in order, one by one: a jump is what a damaged stretch held */
			if (x->seq && e->seq > x->seq + 1)
				gap_add(k, a, e->epoch, x->seq + 1, e->seq - 1, x->point,
					has ? point : x->point);
			if (e->seq > x->seq)
				x->seq = e->seq;
			if (has)
				x->point = point;
		}
		break;
	case J_POINTS:
		/* which points the journal holds whole: each agent's newest attempt, done */
		if (has) {
			struct jpoint *j =
				&k->jr.jp[point * k->c->nagents + (size_t)(a - k->reg.agents)];

			if (!j->any || attempt > j->attempt) {
				j->attempt = attempt;
				j->done = false;
				j->stopped = false;
			}
			j->any = true;
			if (attempt == j->attempt && e->kind == RB_MSG_POINT_DONE)
				j->done = true;
			/* stopped short (a full results folder, an abort): it runs again */
			if (attempt == j->attempt && e->kind == RB_MSG_RESULT &&
			    e->result.status == RB_STATUS_STOPPED &&
			    !k->c->phases[k->c->points[point].phase].steady_rolling)
				j->stopped = true;
		}
		break;
	case J_REPLAY:
		if (has && point > w->upto) {
			k->jr.jcursor = at; /* the next point's: it comes next time */
			w->stopped = true;
			rc = 1;
		} else if (has) {
			(void)ing_apply(k, a, e, coord_now(k), APPLY_REPLAY); /* no steady news */
		}
		break;
	}
	rb_msg_free(e);
	return rc;
}

int rsm_pass(struct coord *k, int pass, uint32_t upto)
{
	struct jwalk w = { .k = k, .pass = pass, .upto = upto };
	struct rb_journal_walk_info info;
	char err[512];
	long n;

	if (pass == J_REPLAY && k->jr.jcursor < 0)
		return 0; /* walked to the end already */
	n = rb_journal_walk_ex(k->jr.journal_path, pass == J_REPLAY ? k->jr.jcursor : 0, NULL,
			       journal_record, &w, &info, err, sizeof(err));
	if (n < 0) {
		rb_err("%s", err);
		return RB_EXIT_FAILED;
	}
	if (pass == J_SEQS && info.damaged) {
		rb_warn("the journal '%s' is damaged: %u stretch(es) of %lld byte(s) in all (the "
			"first at byte %lld) fail their checksum; skipped, read on from the next "
			"whole record, and kept as they are",
			k->jr.journal_path, info.damaged, (long long)info.damaged_bytes,
			(long long)info.first_damaged);
		for (size_t i = 0; i < k->jr.ngaps; i++) {
			const struct jgap *g = &k->jr.gaps[i];

			rb_warn("the damaged journal lacks agent '%s''s messages %" PRIu64
				"..%" PRIu64 " (process %" PRIx64
				", point(s) %u..%u): asking the agent for them",
				k->reg.agents[g->agent].name, g->lo, g->hi, g->epoch, g->point_lo,
				g->point_hi);
		}
	}
	if (pass == J_REPLAY && !w.stopped)
		k->jr.jcursor = -1; /* walked to the end: nothing of a later point */
	return 0;
}

/* Whether the journal holds point i whole: every agent with drives in it sent its
 * PointDone. */
bool rsm_point_whole(struct coord *k, size_t i)
{
	for (size_t a = 0; a < k->c->nagents; a++) {
		const struct jpoint *j = &k->jr.jp[i * k->c->nagents + a];
		bool drives = false;

		for (size_t d = 0; d < k->c->ndrives && !drives; d++)
			drives = !strcmp(k->c->drives[d].agent, k->reg.agents[a].name) &&
				 rb_point_has_drive(k->c, &k->c->points[i], d);
		if (drives && !(j->any && j->done && !j->stopped))
			return false;
	}
	return true;
}

/* The journal's messages up to point p (stragglers of earlier points too), as they came. */
int rsm_replay(struct coord *k, const struct rb_point *p, uint32_t upto)
{
	struct rb_progress *prog = k->prog;
	int rc;

	ing_point_begin(k, p);
	k->prog = NULL; /* the live view shows live points */
	rc = rsm_pass(k, J_REPLAY, upto);
	k->prog = prog;
	return rc;
}

/* What a damaged journal lacked and the agents gave again, and what is lost for good. */
void rsm_report_gaps(struct coord *k)
{
	uint64_t lost = 0, filled = 0;

	for (size_t i = 0; i < k->jr.ngaps; i++) {
		const struct jgap *g = &k->jr.gaps[i];

		filled += g->filled;
		if (g->lo > g->hi)
			continue;
		lost += g->hi - g->lo + 1;
		rb_err("lost: agent '%s''s messages %" PRIu64 "..%" PRIu64 " (process %" PRIx64
		       ", of point(s) %u..%u): the journal was damaged there and the agent no "
		       "longer holds them; what they measured is missing from the file",
		       k->reg.agents[g->agent].name, g->lo, g->hi, g->epoch, g->point_lo,
		       g->point_hi);
	}
	if (lost)
		k->bad_drives++; /* the file lacks measurements: partial, never complete */
	if (k->jr.ngaps)
		rb_info("damaged journal: %" PRIu64 " message(s) recovered from the agents' "
			"spools, %" PRIu64 " lost",
			filled, lost);
}

/* Whether path is a results file whose run ended complete. */
bool rsm_run_complete(const char *path)
{
	char err[256], st[32];
	struct rb_results_in *in =
		access(path, F_OK) ? NULL : rb_results_open(path, err, sizeof(err));
	bool done;

	if (!in)
		return false;
	done = !strcmp(rb_results_attr(in, "status", st, sizeof(st)), "complete");
	rb_results_in_close(in);
	return done;
}

/* The crashed run's HDF5 file is kept beside, as PATH.crashed (or .crashed.N). */
int rsm_set_aside(const char *path)
{
	char to[4200];

	if (access(path, F_OK))
		return 0;
	snprintf(to, sizeof(to), "%s.crashed", path);
	for (int n = 1; !access(to, F_OK) && n < 1000; n++)
		snprintf(to, sizeof(to), "%s.crashed.%d", path, n);
	if (rename(path, to)) {
		rb_err("cannot move '%s' aside: %s", path, strerror(errno));
		return RB_EXIT_FAILED;
	}
	rb_info("the crashed run's file is kept as %s; a new one is built from the journal", to);
	return 0;
}

/* The journal of a new run, opened before the first message, with the run's description. */
int rsm_journal_create(struct coord *k, const char *path)
{
	struct rb_journal_meta m = { .insecure = k->c->insecure, .start_ns = coord_wall(k) };
	char *abs;
	int r;

	snprintf(k->jr.journal_path, sizeof(k->jr.journal_path), "%s.journal", path);
	r = rb_journal_open(k->jr.journal_path, false, &k->jr.journal);
	if (r) {
		rb_err("cannot create the journal '%s': %s", k->jr.journal_path, strerror(-r));
		return RB_EXIT_FAILED;
	}
	copy(m.run, sizeof(m.run), k->run);
	copy(m.file, sizeof(m.file), k->c->file);
	copy(m.listen, sizeof(m.listen), k->c->listen);
	/* keys by absolute path: resume may run from another folder */
	abs = k->c->key ? realpath(k->c->key, NULL) : NULL;
	copy(m.key, sizeof(m.key), abs ? abs : k->c->key);
	free(abs);
	abs = k->c->agent_keys ? realpath(k->c->agent_keys, NULL) : NULL;
	copy(m.agent_keys, sizeof(m.agent_keys), abs ? abs : k->c->agent_keys);
	free(abs);
	m.campaign = k->c->text;
	m.shard = k->c->shard;
	r = rb_journal_write_meta(k->jr.journal, &m);
	if (!r && fdatasync(k->jr.journal))
		r = -errno;
	if (r) {
		rb_err("cannot write the journal '%s': %s", k->jr.journal_path, strerror(-r));
		return RB_EXIT_FAILED;
	}
	return 0;
}

/* The attempt point i runs as, after what the journal holds of it (its old attempts stay). */
uint32_t rsm_next_attempt(struct coord *k, size_t i)
{
	uint32_t attempt = 0;

	for (size_t a = 0; a < k->c->nagents; a++) {
		const struct jpoint *j = &k->jr.jp[i * k->c->nagents + a];

		if (j->any && j->attempt + 1 > attempt)
			attempt = j->attempt + 1;
	}
	return attempt;
}

/*
 * How many agents still owe what their Hello said their spool holds of this run, and how
 * many gaps of a damaged journal an agent was asked to fill within the last 3 s.
 */
size_t rsm_spool_behind(struct coord *k)
{
	size_t behind = 0;

	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->reg.agents[i];

		if (!strcmp(a->spool_run, k->run) && a->spooled > dlv_seq(a, a->epoch)->seq)
			behind++;
	}
	for (size_t i = 0; i < k->jr.ngaps; i++)
		behind += k->jr.gaps[i].asked && k->jr.gaps[i].lo <= k->jr.gaps[i].hi &&
			  coord_now(k) - k->jr.gaps[i].asked_ns < 3000000000LL;
	return behind;
}
