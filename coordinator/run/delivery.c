// SPDX-License-Identifier: MIT
/*
 * The wire, for the coordinator: messages sent, numbered data messages taken once and
 * in order, journaled before they are acknowledged, acknowledged by group commit, and
 * the round trips that measure each agent's clock.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "coord_priv.h"
#include "journal.h"
#include "log.h"
#include "wire.h"

void dlv_send(struct coord *k, struct ragent *a, struct rb_msg *e)
{
	int r = rb_tx_send(k->sock, &a->peer, e, true);

	if (r)
		rb_err("cannot send %s to agent '%s': %s", rb_msg_name(e), a->name, strerror(-r));
}

/* The position of an agent process's numbered messages; the oldest is forgotten when full. */
struct seqpos *dlv_seq(struct ragent *a, uint64_t epoch)
{
	for (unsigned i = 0; i < a->nseqs; i++)
		if (a->seqs[i].epoch == epoch)
			return &a->seqs[i];
	if (a->nseqs == sizeof(a->seqs) / sizeof(a->seqs[0])) {
		/* the oldest goes, never the process the agent says it is (a flood of made-up
		 * epochs would otherwise push its real one out, and all its later messages) */
		unsigned old = a->seqs[0].epoch == a->epoch ? 1 : 0;

		memmove(a->seqs + old, a->seqs + old + 1,
			(a->nseqs - old - 1) * sizeof(a->seqs[0]));
		a->nseqs--;
	}
	a->seqs[a->nseqs] = (struct seqpos){ .epoch = epoch };
	return &a->seqs[a->nseqs++];
}

/*
 * The results folder could not take what must be stored (the journal, the HDF5 file):
 * said once, and the run stops -- nothing more is acknowledged, so the agents keep in
 * their spools what is not on disk, and `rackbench resume` carries on once there is room.
 */
void dlv_store_failed(struct coord *k, const char *what, int err)
{
	if (k->store_err)
		return;
	k->store_err = err ? err : EIO;
	rb_err("cannot %s: %s; stopping the run (nothing further is acknowledged: the agents keep "
	       "it in their spools)",
	       what, strerror(k->store_err));
}

/* Appends a data message, its bytes as received, to the journal (coordinator/run/journal.h). */
static int dlv_journal(struct coord *k, const struct ragent *a, const uint8_t *buf, size_t len)
{
	int r;

	if (k->jr.journal < 0 || !buf)
		return 0;
	if (k->store_err)
		return -k->store_err;
	r = rb_journal_append(k->jr.journal, a->name, buf, len);
	if (r) {
		dlv_store_failed(k, "append to the journal", -r);
		return r;
	}
	k->jr.journal_dirty = true;
	return 0;
}

/* Group commit: the journal on disk, then one cumulative Ack per agent process owed one. */
void dlv_flush_acks(struct coord *k, bool force)
{
	int64_t now = coord_now(k);
	bool any = false;

	if (!force && now - k->jr.last_ack_flush < 20000000LL)
		return;
	k->jr.last_ack_flush = now;
	for (size_t i = 0; i < k->c->nagents && !any; i++)
		for (unsigned j = 0; j < k->reg.agents[i].nseqs; j++)
			any |= k->reg.agents[i].seqs[j].due;
	/* an Ack says "on disk": never after a failed write or sync */
	if (!any || k->store_err)
		return;
	if (k->jr.journal >= 0 && k->jr.journal_dirty) {
		if (fdatasync(k->jr.journal)) {
			dlv_store_failed(k, "sync the journal", errno);
			return;
		}
		k->jr.journal_dirty = false;
	}
	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->reg.agents[i];

		for (unsigned j = 0; j < a->nseqs; j++) {
			struct rb_msg m;

			if (!a->seqs[j].due)
				continue;
			a->seqs[j].due = false;
			rb_msg_init(&m, RB_MSG_ACK);
			m.ack.epoch = a->seqs[j].epoch;
			m.ack.seq = a->seqs[j].seq;
			dlv_send(k, a, &m);
		}
	}
	/* after the Acks, not before them: the synced pages leave the page cache */
	if (k->jr.journal >= 0)
		rb_journal_forget(k->jr.journal, &k->jr.journal_cached);
}

/* Round trips for each agent's clock offset: quickly after it registers, then every 2 s. */
void dlv_probe_clocks(struct coord *k)
{
	int64_t now = coord_now(k);

	/* every 10 ms, not at every message: a fleet's 10,000 messages a second each walked
	 * every agent (2.6% of the coordinator's time at 1,000 agents) */
	if (now < k->probe_scan_ns)
		return;
	k->probe_scan_ns = now + 10000000LL;
	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->reg.agents[i];
		struct rb_msg m;

		if (!agent_probed(a) || now < a->next_probe)
			continue;
		/* the whole window at once (the lowest delay of 16 bounds the offset's error
		 * best), then one every 2 s */
		a->next_probe = now + (a->clk.n < RB_CLOCK_WINDOW ? 30000000LL : 2000000000LL);
		rb_msg_init(&m, RB_MSG_TIME_PROBE);
		m.time.t0 = coord_now(k);
		dlv_send(k, a, &m);
	}
}

/*
 * Resume over a damaged journal: an Ack below what the agent had acknowledged tells it
 * the coordinator lacks what follows; it sends again what its spool still holds of it.
 */
void dlv_ask_gaps(struct coord *k, struct ragent *a)
{
	for (size_t i = 0; i < k->jr.ngaps; i++) {
		struct jgap *g = &k->jr.gaps[i];
		struct rb_msg m;

		if (g->agent != (size_t)(a - k->reg.agents) || g->lo > g->hi)
			continue;
		rb_msg_init(&m, RB_MSG_ACK);
		m.ack.epoch = g->epoch;
		m.ack.seq = g->lo - 1;
		dlv_send(k, a, &m);
		if (!g->asked)
			g->asked_ns = coord_now(k);
		g->asked = true;
	}
}

/* A numbered message the journal lacked (in a gap): it fills it. */
static bool dlv_gap_fill(struct coord *k, const struct ragent *a, uint64_t epoch, uint64_t seq)
{
	for (size_t i = 0; i < k->jr.ngaps; i++) {
		struct jgap *g = &k->jr.gaps[i];

		if (g->agent != (size_t)(a - k->reg.agents) || g->epoch != epoch || seq != g->lo ||
		    g->lo > g->hi)
			continue;
		g->lo++;
		g->filled++;
		return true;
	}
	return false;
}

void dlv_stop_agents(struct coord *k, const char *reason)
{
	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->reg.agents[i];
		struct rb_msg m;

		if (!agent_seen(a))
			continue;
		rb_msg_init(&m, RB_MSG_STOP);
		m.stop.reason = reason;
		dlv_send(k, a, &m);
	}
}

/*
 * A numbered data message: taken once, in order, journaled before it is acknowledged.
 * Messages without a number (Hello, answers, heartbeats) are applied as they come.
 */
enum dlv_verdict dlv_accept(struct coord *k, struct ragent *a, const struct rb_msg *e,
			    const uint8_t *raw, size_t rawlen)
{
	struct seqpos *x;

	if (!e->seq)
		return DLV_APPLY;
	x = dlv_seq(a, e->epoch);
	x->due = true;
	if (e->seq <= x->seq && k->jr.ngaps && dlv_gap_fill(k, a, e->epoch, e->seq)) {
		/* what a damaged journal lacked: stored again, applied as it comes */
		if (dlv_journal(k, a, raw, rawlen))
			return DLV_DROP;
		x->due = false;
		return DLV_REFILL;
	}
	if (e->seq > x->seq + 1 && a->epoch && e->epoch != a->epoch) {
		/*
		 * An earlier process's spool, sent again in one ordered pass by the next:
		 * a jump is a record its spool lost (damaged), never to come. Said, and
		 * what follows is taken.
		 */
		rb_err("lost: agent '%s''s messages %" PRIu64 "..%" PRIu64 " of its earlier "
		       "process %" PRIx64 " (its spool was damaged there)",
		       a->name, x->seq + 1, e->seq - 1, e->epoch);
		k->bad_drives++; /* the file lacks measurements: partial */
		x->seq = e->seq - 1;
	}
	if (e->seq != x->seq + 1)
		return DLV_DROP; /* a duplicate, or past a gap the agent will fill by sending again */
	/* not stored: not applied either; the agent still holds it */
	if (dlv_journal(k, a, raw, rawlen))
		return DLV_DROP;
	x->seq = e->seq;
	return DLV_APPLY;
}
