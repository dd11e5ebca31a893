// SPDX-License-Identifier: MIT
/*
 * The coordinator's one event loop: each message received, delivered (numbered,
 * journaled) and applied; and each phase's wait on it (agents connecting, the
 * pre-flight, a point, idle time, spools after a resume, the agents stopping).
 */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "campaign.h"
#include "exitcode.h"
#include "keys.h"
#include "log.h"
#include "progress.h"
#include "units.h"
#include "wire.h"

/* A Hello registered; what the agent evidently never had goes again. */
static void on_hello(struct coord *k, const struct rb_peer *peer, const struct rb_msg *e)
{
	struct ragent *a;

	switch (reg_hello(k, peer, e)) {
	case HELLO_NONE:
		break;
	case HELLO_OWES_PREFLIGHT:
		ord_preflight(k, reg_agent(k, e->hello.name));
		break;
	case HELLO_LACKS_POINT:
		a = reg_agent(k, e->hello.name);
		a->asked_ns = coord_now(k);
		rb_tx_send_raw(k->sock, &a->peer, a->assign_msg, a->assign_len, true);
		break;
	}
}

/* The agents a service already knows say Hello first. */
void loop_known(struct coord *k)
{
	for (size_t i = 0; i < k->o->nknown; i++)
		on_hello(k, &k->o->known[i].peer, k->o->known[i].hello);
}

/*
 * The loop's one turn: the timers (clock probes, the group commit, the service's tick,
 * the export of the run so far), then one message received (up to timeout_ms),
 * delivered and applied. Returns 0, or -EAGAIN when nothing came (-EINTR: a signal came
 * first).
 */
static int pump(struct coord *k, int timeout_ms)
{
	struct rb_peer peer;
	struct rb_msg *e = NULL;
	struct ragent *a;
	char err[512];
	int r;

	dlv_probe_clocks(k);
	dlv_flush_acks(k, false);
	if (k->o->tick)
		k->o->tick(k->o->hook_arg);
	if (k->so_far.pid > 0 || k->so_far.pending)
		rb_resdb_so_far_poll(&k->so_far);
	live_publish(k, false);
	uint8_t *raw = NULL;
	size_t rawlen = 0;

	r = rb_tx_recv_keep(k->sock, timeout_ms, &peer, &e, k->jr.journal >= 0 ? &raw : NULL,
			    &rawlen, err, sizeof(err));
	int64_t t3 = coord_now(k);

	if (r == -EAGAIN)
		k->drained_ns = t3; /* everything sent before now has been read */
	if (r == -EAGAIN || r == -EINTR)
		return r;
	if (r) {
		char name[RB_RID_MAX + 1];

		/* keyed, the routing id is libzmq's number: the key's name says who */
		if (peer.user_id[0])
			snprintf(name, sizeof(name), "%s", peer.user_id);
		else
			snprintf(name, sizeof(name), "%.*s", (int)peer.rid_len,
				 (const char *)peer.rid);
		rb_err("bad message from '%s': %s", name, err);
		/* tell the agent too, in a message any version can read */
		if (r == -EPROTONOSUPPORT)
			rb_tx_send_error(k->sock, &peer, -r, err);
		return 0;
	}
	if (e->kind == RB_MSG_HELLO) {
		/* the key's name (from the allow-list) must be the name the agent claims */
		if (k->zap && strcmp(peer.user_id, e->hello.name)) {
			rb_warn("refused: the key of agent '%s' claims to be agent '%s'",
				peer.user_id, e->hello.name);
			goto out;
		}
		if (k->o->hello_hook)
			k->o->hello_hook(k->o->hook_arg, &peer, &e->hello, e->major, e->minor);
		on_hello(k, &peer, e);
		k->live.dirty = true;
		goto out;
	}
	/* with keys, the agent is the one its key names (ZAP User-Id), never a routing id */
	a = k->zap ? reg_agent(k, peer.user_id) : reg_by_peer(k, &peer);
	if (a && k->zap && !agent_seen(a))
		a = NULL;
	if (!a) {
		rb_debug("%s from an unregistered peer ignored", rb_msg_name(e));
		goto out;
	}
	if (k->zap && !reg_same_peer(&a->peer, &peer)) {
		rb_info("agent '%s' is on a new connection with its key: it replaces the previous "
			"one",
			a->name);
		a->peer = peer;
	}
	if (k->zap && strcmp(peer.user_id, a->name)) {
		rb_warn("dropped %s: sent as agent '%s' with the key of '%s'", rb_msg_name(e),
			a->name, peer.user_id);
		goto out;
	}
	a->last_seen_ns = coord_now(k); /* any traffic counts */
	if (a->silent) {
		a->silent = false;
		if (a->state == AGENT_LOST)
			agent_enter(a, AGENT_RUNNING);
		k->live.dirty = true;
		rb_info("agent '%s' is back", a->name);
	}
	switch (dlv_accept(k, a, e, raw, rawlen)) {
	case DLV_APPLY:
		/* the one turn back: every drive of a rolling point steady stops the agents */
		if (ing_apply(k, a, e, t3, APPLY_LIVE) == ING_STEADY)
			dlv_stop_agents(k, "steady state reached");
		break;
	case DLV_REFILL:
		/* of a point the journal holds: as a replay of it, never steady news */
		(void)ing_apply(k, a, e, t3, APPLY_REPLAY);
		break;
	case DLV_DROP:
		break;
	}
out:
	free(raw);
	rb_msg_free(e);
	return 0;
}

/*
 * Takes what is queued, but a bounded amount: a fleet sending faster than we write
 * would otherwise keep us here while the rows pile up in memory unflushed.
 */
static void drain(struct coord *k)
{
	for (int n = 0; n < 256 && pump(k, 0) == 0; n++)
		;
}

bool loop_stopped(struct coord *k)
{
	if (k->store_err)
		return true;
	/* without its ZAP handler libzmq would accept any key: stop at once */
	if (k->zap && !rb_zap_alive(k->zap)) {
		if (!k->fatal)
			rb_err("the ZAP authentication handler died: stopping, since libzmq would "
			       "now accept connections with any key");
		k->fatal = true;
		return true;
	}
	return k->o->stop && *k->o->stop;
}

/*
 * Turns the loop until every agent has reached state least: before the points an
 * agent's state only moves on (coord_priv.h), so enum agent_state's order says it. On the deadline names each agent still short as "agent 'X' did not WHAT"
 * and returns timeout_rc; RB_EXIT_FAILED when stopped.
 */
static int await_agents(struct coord *k, enum agent_state least, int64_t deadline, const char *what,
			int timeout_rc)
{
	for (;;) {
		size_t waiting = 0;

		for (size_t i = 0; i < k->c->nagents; i++)
			waiting += k->reg.agents[i].state < least;
		if (!waiting)
			return 0;
		if (loop_stopped(k))
			return RB_EXIT_FAILED;
		if (coord_now(k) >= deadline) {
			for (size_t i = 0; i < k->c->nagents; i++)
				if (k->reg.agents[i].state < least)
					rb_err("agent '%s' did not %s", k->reg.agents[i].name,
					       what);
			return timeout_rc;
		}
		pump(k, 100);
		drain(k);
	}
}

/*
 * A group of "all" or ">= N" agents takes every match: once it has its floor, the agents
 * still connecting join it until none has come for GROUP_SETTLE_NS (the wait's deadline
 * at most), so a fleet starting up is taken whole.
 */
static void settle_groups(struct coord *k, int64_t deadline)
{
	bool open = false;
	size_t seen = k->reg.ncands;
	int64_t quiet = coord_now(k);

	for (size_t g = 0; g < k->c->ngroups; g++)
		open |= k->c->groups[g].at_least;
	while (open && !loop_stopped(k) && coord_now(k) < deadline &&
	       coord_now(k) - quiet < GROUP_SETTLE_NS) {
		pump(k, 100);
		drain(k);
		if (k->reg.ncands != seen) {
			seen = k->reg.ncands;
			quiet = coord_now(k);
		}
	}
}

int loop_wait_agents(struct coord *k)
{
	int64_t deadline = coord_now(k) + (int64_t)k->c->wait_ns;
	char wait[32];
	char what[64];
	size_t grouped = 0;
	int rc;

	for (size_t g = 0; g < k->c->ngroups; g++)
		grouped += k->c->groups[g].count;
	rb_info("waiting up to %s for %zu agent(s)",
		rb_fmt_duration(k->c->wait_ns, wait, sizeof(wait)), k->c->nagents + grouped);
	snprintf(what, sizeof(what), "connect within %s", wait);
	rc = await_agents(k, AGENT_CONNECTED, deadline, what, RB_EXIT_FAILED);
	if (rc || !k->c->ngroups)
		return rc;
	/* the groups: until each has its count of matching agents */
	while (reg_groups_short(k, false, false)) {
		if (loop_stopped(k))
			return RB_EXIT_FAILED;
		if (coord_now(k) >= deadline) {
			reg_groups_short(k, true, false);
			return RB_EXIT_FAILED;
		}
		pump(k, 100);
		drain(k);
	}
	settle_groups(k, deadline);
	return reg_resolve_groups(k);
}

/*
 * Until each agent has answered a clock probe, at most 1 s: the agents table states the
 * offsets as the run starts, and the first point's start skew needs them. An agent that
 * registered just before the safety check answered had no round trip back yet (its
 * offset read 0 in the table).
 */
static void await_clocks(struct coord *k)
{
	int64_t deadline = coord_now(k) + 1000000000LL;

	while (!loop_stopped(k) && coord_now(k) < deadline) {
		size_t unknown = 0;

		for (size_t i = 0; i < k->c->nagents; i++) {
			const struct ragent *a = &k->reg.agents[i];

			unknown += agent_probed(a) && !a->clk.n;
		}
		if (!unknown)
			return;
		pump(k, 10);
		drain(k);
	}
}

int loop_preflight(struct coord *k)
{
	bool writes = rb_campaign_writes(k->c);
	int64_t deadline = coord_now(k) + 30LL * 1000000000LL;
	int rc;

	for (size_t i = 0; i < k->c->nagents; i++)
		ord_preflight(k, &k->reg.agents[i]);
	coord_enter(k, PHASE_PREFLIGHT);
	if (writes)
		fprintf(stderr, "rackbench: checking %zu drive(s) with the safety guard\n",
			k->c->ndrives);
	rc = await_agents(k, AGENT_CHECKED, deadline, "answer the safety check", RB_EXIT_FAILED);
	if (rc)
		return rc;
	await_clocks(k);
	if (!k->refusal.refusals)
		return 0;
	/* a refusal of the agent itself (its layout, its configuration) names no drive to
	 * leave out: it stops the campaign whatever on_refusal says */
	if (k->c->on_refusal == RB_REFUSAL_SKIP && !k->refusal.unmapped_refusals) {
		for (size_t i = 0; i < k->c->ndrives; i++)
			k->refusal.skipped += k->refusal.refused[i];
		if (k->refusal.skipped < k->c->ndrives) {
			rb_warn("on_refusal: skip: %zu drive(s) the safety guard refused (reasons "
				"above) are left out; the other %zu run",
				k->refusal.skipped, k->c->ndrives - k->refusal.skipped);
			return 0;
		}
	}
	rb_err("refused by the safety guard (%zu reason(s) above); nothing was written "
	       "to any drive",
	       k->refusal.refusals);
	return RB_EXIT_REFUSED;
}

/* A drive left out (on_refusal: skip): a 'refused' row for the point, with its reasons. */
/* The row and summary of a drive not measured in a point: refused or lost, and why. */
static void unmeasured_row(struct coord *k, size_t drive, uint32_t point, uint32_t attempt,
			   enum rb_status st, const char *why)
{
	struct rb_row_result row;

	memset(&row, 0, sizeof(row));
	row.fdp_host_bytes = row.fdp_media_bytes = row.waf = NAN; /* not read */
	row.drive = (uint32_t)drive;
	row.point = point;
	row.attempt = attempt;
	copy(row.status, sizeof(row.status), rb_status_name(st));
	copy(row.message, sizeof(row.message), why);
	row.health_max_temp_c = NAN;
	row.health_new_media_errors = NAN;
	rb_results_result(k->res, &row);
	k->sum[(size_t)point * k->c->ndrives + drive] =
		(struct summary){ .have = true, .status = st };
}

static void skip_refused(struct coord *k, const struct rb_point *p, uint32_t attempt)
{
	for (size_t i = 0; k->refusal.skipped && i < k->c->ndrives; i++) {
		char why[256];

		if (!k->refusal.refused[i] || !rb_point_has_drive(k->c, p, i))
			continue;
		snprintf(why, sizeof(why), "skipped: %s", k->refusal.refusal_why[i]);
		unmeasured_row(k, i, p->index, attempt, RB_STATUS_REFUSED, why);
	}
}

/* An agent given up on: its drives get 'lost' rows for the point, and it gets no more. */
static void drop_agent(struct coord *k, struct ragent *a, const struct rb_point *p)
{
	if (a->state != AGENT_DROPPED) {
		rb_err("agent '%s' is lost: point %u ('%s') is partial, and the campaign goes on "
		       "without it",
		       a->name, p->index, p->name);
		a->drop_point = p->index;
		a->drop_attempt = a->attempt;
		a->rejoin = false;
	}
	agent_enter(a, AGENT_DROPPED);
	k->live.dirty = true;
	for (size_t i = 0; i < k->c->ndrives; i++) {
		char why[256];

		if (strcmp(k->c->drives[i].agent, a->name) || !rb_point_has_drive(k->c, p, i))
			continue;
		snprintf(why, sizeof(why), "agent '%s' lost during the point", a->name);
		unmeasured_row(k, i, p->index, a->attempt, RB_STATUS_LOST, why);
		k->bad_drives++;
	}
}

/*
 * rackbench fleet run: the run's first point waits for the fleet's instant (a UTC instant
 * in the run's wall clock, o->start_wall_ns), serving its messages meanwhile, and starts
 * at it: the instant converted to our monotonic clock with the wall clock's offset from
 * it read now, then given to the agents as any start instant is. One already past (a run
 * queued behind another) starts as a run alone does, and says how late.
 */
static void fleet_instant(struct coord *k, const struct rb_point *p)
{
	int64_t lead = 200000000LL, at;

	k->fleet_point = (int64_t)p->index + 1;
	for (;;) {
		int64_t left = k->o->start_wall_ns - coord_wall(k) - lead;

		if (left <= 0 || loop_stopped(k))
			break;
		pump(k, left > 100000000LL ? 100 : (int)(left / 1000000) + 1);
		rb_progress_tick(k->prog);
	}
	at = k->o->start_wall_ns - coord_wall(k) + coord_now(k);
	if (at > coord_now(k)) {
		k->start_at = at;
		rb_info("point %u starts at the fleet's instant (%.3f s ahead)", p->index,
			(double)(at - coord_now(k)) / 1e9);
		return;
	}
	k->start_at = coord_now(k) + lead;
	if (k->o->state)
		k->o->state->late_ns = k->start_at - at;
	rb_warn("point %u starts %.3f s after the fleet's instant, which had passed", p->index,
		(double)(k->start_at - at) / 1e9);
}

/* Every agent given the point, to start at one instant far enough ahead for the messages. */
static int point_start(struct coord *k, const struct rb_point *p, uint32_t attempt)
{
	ing_point_begin(k, p);
	skip_refused(k, p, attempt);
	coord_enter(k, PHASE_POINT);
	if (k->o->start_wall_ns && !k->fleet_point && attempt == 0)
		fleet_instant(k, p);
	else
		k->start_at = coord_now(k) + 200000000LL;
	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->reg.agents[i];

		if (a->state == AGENT_DROPPED && a->rejoin &&
		    coord_now(k) - a->last_seen_ns <= LOST_AFTER_NS) {
			rb_info("agent '%s' is back: it takes part again from point %u", a->name,
				p->index);
			agent_enter(a, AGENT_CHECKED);
		}
		a->last_seen_ns = coord_now(k);
		a->reassign = false;
		if (ord_assign(k, a, p, attempt, true))
			return RB_EXIT_FAILED;
		if (a->state == AGENT_DROPPED)
			drop_agent(k, a, p);
	}
	return 0;
}

/*
 * One agent's part of a running point, at instant now: run again if it restarted; lost
 * after LOST_AFTER_NS of silence (then, as the campaign says, aborted, dropped, or
 * waited for); back when heard again. Silence counts up to the last time the socket was
 * read empty, not to now: a coordinator behind on its queue (a busy machine, a fleet
 * past what it takes) has not heard what is waiting in it, and its agents are not
 * silent. Returns RB_EXIT_FAILED to abort the run.
 */
static int point_watch(struct coord *k, struct ragent *a, const struct rb_point *p, int64_t now,
		       int64_t budget, int64_t *deadline)
{
	if (a->reassign) {
		/* it restarted and lost the point: run it again, as a new attempt */
		a->reassign = false;
		rb_warn("agent '%s' restarted during point %u: running it again as attempt %u",
			a->name, p->index, a->attempt + 1);
		ord_assign(k, a, p, a->attempt + 1, false);
		if (now + budget > *deadline)
			*deadline = now + budget;
	} else if (a->state == AGENT_RUNNING &&
		   (now < k->drained_ns ? now : k->drained_ns) - a->last_seen_ns > LOST_AFTER_NS) {
		agent_enter(a, AGENT_LOST);
		a->silent = true;
		k->live.dirty = true;
		rb_warn("agent '%s': nothing heard for 5 s during point %u", a->name, p->index);
		if (k->c->on_agent_lost == RB_LOST_ABORT) {
			rb_err("aborting: the campaign says on_agent_lost: abort");
			k->lost_abort = true;
			return RB_EXIT_FAILED;
		}
		if (k->c->on_agent_lost == RB_LOST_CONTINUE)
			drop_agent(k, a, p);
		else
			a->lost_deadline = now + (int64_t)k->c->lost_wait_ns;
	} else if (a->state == AGENT_LOST && now - a->last_seen_ns <= LOST_AFTER_NS) {
		agent_enter(a, AGENT_RUNNING);
		a->silent = false;
		k->live.dirty = true;
		rb_info("agent '%s' is back", a->name);
	} else if (a->state == AGENT_LOST && now >= a->lost_deadline) {
		drop_agent(k, a, p);
	}
	return 0;
}

/* Rows reach the file every few seconds (or every 32 MiB of them), not only at the point's
 * end: memory stays bounded on long points and large fleets. */
static void point_flush(struct coord *k, int64_t now, int64_t *next_flush, bool force)
{
	bool timed = now >= *next_flush;

	if (force || timed || rb_results_buffered(k->res) > (32u << 20)) {
		if (rb_results_flush(k->res))
			dlv_store_failed(k, "write the results file (HDF5 append failed)", EIO);
		*next_flush = now + 5000000000LL;
	}
	/*
	 * A fleet's backlog (messages queued while the machine was busy: up to the agents'
	 * credit windows, and the writer's queue) is freed once taken; what malloc then holds
	 * free is handed back every 5 s (a few ms). Measured (bench/fleet.py, 1,000 x 24 at
	 * 1 s): after a 40 s backlog RSS stays at a plateau (460 -> 880 MiB), not the peak's
	 * growth again: the row buffers keep their high-water size and the threads' arenas
	 * stay fragmented. Bounded, not returned: schemas/results-layout.md says how much.
	 */
	if (timed)
		malloc_trim(0);
}

/* Runs point p on every agent as the given attempt (0, or the next after a resume). */
int loop_run_point(struct coord *k, const struct rb_point *p, uint32_t attempt)
{
	/* a purge may take hours (a sanitize); the agent's heartbeats say it is alive */
	int64_t budget =
		p->purge[0] ? 6LL * 3600 * 1000000000LL
			    : (int64_t)(p->wl.ramp_ns + p->wl.runtime_ns) * 2 + 60LL * 1000000000LL;
	int64_t deadline = coord_now(k) + budget, next_flush = coord_now(k) + 5000000000LL;

	if (point_start(k, p, attempt))
		return RB_EXIT_FAILED;
	for (;;) {
		size_t waiting = 0;
		int64_t now = coord_now(k);

		for (size_t i = 0; i < k->c->nagents; i++) {
			struct ragent *a = &k->reg.agents[i];

			if (agent_finished(a))
				continue;
			waiting++;
			if (point_watch(k, a, p, now, budget, &deadline))
				return RB_EXIT_FAILED;
		}
		if (!waiting)
			break;
		if (loop_stopped(k))
			return RB_EXIT_FAILED;
		if (now >= deadline) {
			for (size_t i = 0; i < k->c->nagents; i++)
				if (!agent_finished(&k->reg.agents[i])) {
					rb_err("agent '%s' did not finish point %u in time",
					       k->reg.agents[i].name, p->index);
					drop_agent(k, &k->reg.agents[i], p);
				}
			break;
		}
		pump(k, 100);
		drain(k);
		rb_progress_tick(k->prog);
		point_flush(k, now, &next_flush, false);
	}
	point_flush(k, coord_now(k), &next_flush, true);
	return 0;
}

/* Idle time after a point: keep taking messages (heartbeats), stop on a signal. */
void loop_idle(struct coord *k, uint64_t ns)
{
	char d[32];

	if (!ns)
		return;
	coord_enter(k, PHASE_IDLE);
	rb_info("idle %s", rb_fmt_duration(ns, d, sizeof(d)));
	for (int64_t until = coord_now(k) + (int64_t)ns;
	     coord_now(k) < until && !loop_stopped(k);) {
		pump(k, 100);
		rb_progress_tick(k->prog);
	}
}

/*
 * After a restart the agents send again what the crashed coordinator never
 * acknowledged; their Hello says up to which message. Wait (up to 20 s) until the
 * journal holds it, so that a point they finished meanwhile counts as done.
 */
void loop_await_spooled(struct coord *k)
{
	int64_t deadline = coord_now(k) + 20000000000LL;

	for (;;) {
		size_t behind = rsm_spool_behind(k);

		if (!behind || loop_stopped(k)) {
			rsm_report_gaps(k);
			return;
		}
		if (coord_now(k) >= deadline) {
			rb_warn("%zu agent(s) did not send all of their spool within 20 s; what comes "
				"later is still kept",
				behind);
			rsm_report_gaps(k);
			return;
		}
		pump(k, 100);
	}
}

/*
 * After a Stop: up to 5 s for every agent running a point to stop and send what it
 * measured (a partial point is recorded, and the stops are surely out of the socket: a
 * loaded machine can hold them in libzmq's queue past a close). Agents between points
 * owe nothing: it returns at once (the socket's linger still sends the stops).
 */
void loop_await_stopped(struct coord *k)
{
	for (int64_t until = coord_now(k) + 5000000000LL; coord_now(k) < until;) {
		size_t running = 0;

		for (size_t i = 0; i < k->c->nagents; i++)
			running += agent_running(&k->reg.agents[i]);
		if (!running)
			break;
		pump(k, 100);
	}
}

void loop_await_captures(struct coord *k, int64_t deadline)
{
	while (k->cap.waiting && coord_now(k) < deadline && !loop_stopped(k)) {
		pump(k, 100);
		drain(k);
	}
	dlv_flush_acks(k, true);
}

void loop_await_quiet(struct coord *k)
{
	int64_t end = coord_now(k) + 500000000LL;

	while (coord_now(k) < end && pump(k, 100) == 0)
		;
}

static const char *const phase_names[] = {
	[PHASE_WAITING] = "waiting",
	[PHASE_SELECTING] = "selecting",
	[PHASE_PREFLIGHT] = "pre-flight",
	[PHASE_POINT] = "point",
	[PHASE_IDLE] = "idle",
	[PHASE_STOPPING] = "stopping",
	[PHASE_DONE] = "done",
};

const char *coord_phase_name(enum coord_phase p)
{
	return (unsigned)p < sizeof(phase_names) / sizeof(phase_names[0]) ? phase_names[p] : "?";
}

static const char *agent_state_name(enum agent_state st)
{
	static const char *const names[] = {
		[AGENT_UNSEEN] = "unseen",   [AGENT_CONNECTED] = "connected",
		[AGENT_CHECKED] = "checked", [AGENT_RUNNING] = "running",
		[AGENT_DONE] = "done",	     [AGENT_LOST] = "lost",
		[AGENT_DROPPED] = "dropped",
	};

	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

void agent_enter(struct ragent *a, enum agent_state st)
{
	if (a->state == st)
		return;
	rb_debug("agent '%s': %s -> %s", a->name, agent_state_name(a->state), agent_state_name(st));
	a->state = st;
}

void coord_enter(struct coord *k, enum coord_phase p)
{
	if (k->phase != p)
		rb_debug("run: %s -> %s", coord_phase_name(k->phase), coord_phase_name(p));
	if (k->phase == PHASE_POINT && p != PHASE_POINT) {
		k->live.left_point = coord_now(k);
		k->live.grace = true;
	}
	k->phase = p;
	k->live.dirty = true;
	if (k->o->state)
		snprintf(k->o->state->phase, sizeof(k->o->state->phase), "%s", coord_phase_name(p));
}
