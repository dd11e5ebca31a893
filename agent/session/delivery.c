// SPDX-License-Identifier: MIT
/*
 * The agent's delivery: every data message numbered and in the spool before it is sent,
 * at most a window of them unacknowledged (the acknowledgements are the credits), the
 * rest held; sent again after a silence, and what an earlier process left sent again.
 */
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "transport.h"
#include "grow.h"

/*
 * Data messages in flight unacknowledged, at most: the coordinator's acks are the credits.
 * 16 is 1.6 s of a 100 ms interval and far more than a round trip needs, and it bounds
 * what a fleet can queue in the coordinator (16 messages per agent).
 */
#define SEND_WINDOW 16

/* Keeps a message the spool could not take; takes buf. 0 or -ENOMEM. */
static int mem_keep(struct agent *a, uint64_t seq, uint8_t **buf, size_t len)
{
	if (RB_GROW(a->dlv.mem, a->dlv.capmem, a->dlv.nmem, 16))
		return -ENOMEM;
	a->dlv.mem[a->dlv.nmem++] = (struct memrec){ .seq = seq, .buf = *buf, .len = len };
	*buf = NULL;
	return 0;
}

/* The coordinator holds everything up to seq: what memory kept of it goes. */
static void mem_acked(struct agent *a, uint64_t seq)
{
	size_t n = 0;

	while (n < a->dlv.nmem && a->dlv.mem[n].seq <= seq)
		free(a->dlv.mem[n++].buf);
	if (!n)
		return;
	memmove(a->dlv.mem, a->dlv.mem + n, (a->dlv.nmem - n) * sizeof(*a->dlv.mem));
	a->dlv.nmem -= n;
}

/*
 * What memory kept goes to the spool, in order, when it has room again (the next
 * message then follows it there). 0, or the append's error with the rest still kept.
 */
static int mem_flush(struct agent *a)
{
	size_t n = 0;
	int r = 0;

	while (n < a->dlv.nmem && !(r = rb_spool_append(&a->dlv.spool, a->dlv.mem[n].seq,
							a->dlv.mem[n].buf, a->dlv.mem[n].len)))
		n++;
	if (n)
		mem_acked(a, a->dlv.mem[n - 1].seq);
	if (!r && n)
		rb_info("the spool has room again: %zu message(s) kept in memory are in it now", n);
	return r;
}

static void mem_clear(struct agent *a)
{
	if (a->dlv.nmem)
		rb_warn("%zu message(s) of the previous run never acknowledged (its spool could "
			"not hold them): dropped",
			a->dlv.nmem);
	mem_acked(a, UINT64_MAX);
}

static int resend_one(void *arg, uint64_t seq, const uint8_t *buf, size_t len);

/* Hands what memory kept with seq > after to resend_one, in order, while it takes them. */
static void mem_send(struct agent *a, uint64_t after)
{
	for (size_t i = 0; i < a->dlv.nmem; i++)
		if (a->dlv.mem[i].seq > after &&
		    resend_one(a, a->dlv.mem[i].seq, a->dlv.mem[i].buf, a->dlv.mem[i].len))
			return;
}

int rb_delivery_send(struct agent *a, struct rb_msg *e)
{
	int r;

	if (a->dlv.spool.fd >= 0) {
		/* numbered and on disk before it leaves: a crash or a cut link loses nothing */
		uint8_t *buf;
		size_t len;

		e->epoch = a->epoch;
		e->seq = ++a->dlv.seq;
		r = rb_msg_pack(e, &buf, &len);
		if (r)
			return r;
		r = mem_flush(a);
		if (!r)
			r = rb_spool_append(&a->dlv.spool, e->seq, buf, len);
		if (r) {
			/* never a gap: kept in memory, sent as any other; the point stops */
			if (!a->dlv.nmem)
				rb_err("cannot write the spool '%s': %s; what it cannot hold is kept "
				       "in memory until acknowledged",
				       a->dlv.spool.path, strerror(-r));
			if (rb_point_measuring(a) && a->pt.halted < HALT_SPOOL_FAILED) {
				rb_err("stopping point %u: its measurements could not be spooled",
				       a->pt.point);
				rb_point_halt(a, HALT_SPOOL_FAILED);
			}
			if (mem_keep(a, e->seq, &buf, len)) {
				free(buf);
				rb_err("out of memory keeping message %" PRIu64, e->seq);
				a->lost_data = true;
				return -ENOMEM;
			}
			buf = a->dlv.mem[a->dlv.nmem - 1].buf;
			if (e->seq <= a->dlv.spool.acked + SEND_WINDOW &&
			    e->seq == a->dlv.sent + 1) {
				rb_tx_send_raw(a->sock, NULL, buf, len, true);
				a->dlv.sent = e->seq;
			} else {
				a->dlv.held = true;
			}
			return 0;
		}
		/* credits: the coordinator's acknowledgements open the window */
		/* never waits: with the coordinator gone a blocking send would stall this
		 * loop, and with it the engine's intervals (a send that fails goes again
		 * from the spool, after a silence or at the next acknowledgement) */
		if (e->seq <= a->dlv.spool.acked + SEND_WINDOW && e->seq == a->dlv.sent + 1) {
			rb_tx_send_raw(a->sock, NULL, buf, len, true);
			a->dlv.sent = e->seq;
		} else if (!a->dlv.held) {
			a->dlv.held = true;
			rb_info("the coordinator is %" PRIu64
				" message(s) behind: holding the rest "
				"in the spool until it acknowledges",
				a->dlv.seq - a->dlv.spool.acked);
		}
		free(buf);
		return 0;
	}
	r = rb_tx_send(a->sock, NULL, e, false);

	if (r && !a->lost_data) {
		rb_err("cannot send %s to the coordinator: %s", rb_msg_name(e), strerror(-r));
		a->lost_data = true;
	}
	return r;
}

static int resend_one(void *arg, uint64_t seq, const uint8_t *buf, size_t len)
{
	struct agent *a = arg;

	/* the current spool: no further than the window (an old process's: all of it) */
	if (a->dlv.spool.fd >= 0 && a->dlv.spool.epoch == a->epoch &&
	    seq > a->dlv.spool.acked + SEND_WINDOW && a->dlv.walking_own)
		return 1;
	if (rb_tx_send_raw(a->sock, NULL, buf, len, true) == -EAGAIN)
		return 1;
	if (a->dlv.walking_own && seq > a->dlv.sent)
		a->dlv.sent = seq;
	return 0;
}

/* Acknowledgements came: what the spool holds beyond what was sent, up to the window. */
static void send_held(struct agent *a)
{
	/* walk once half the window is open, not at every ack */
	if (a->dlv.spool.fd < 0 || a->dlv.sent >= a->dlv.seq ||
	    a->dlv.sent + SEND_WINDOW / 2 > a->dlv.spool.acked + SEND_WINDOW)
		return;
	rb_spool_sync(&a->dlv.spool);
	/* from where the last walk stopped: linear in what is sent, not in the spool */
	if (a->dlv.sent_emptied != a->dlv.spool.emptied ||
	    a->dlv.sent_off > (off_t)a->dlv.spool.bytes) {
		a->dlv.sent_off = 0;
		a->dlv.sent_emptied = a->dlv.spool.emptied;
	}
	a->dlv.walking_own = true;
	if (a->dlv.sent < a->dlv.spool.last &&
	    rb_spool_walk_at(a->dlv.spool.path, a->dlv.sent_off, a->dlv.sent, resend_one, a,
			     &a->dlv.sent_off) < 0)
		a->dlv.sent_off = 0;
	if (a->dlv.sent >= a->dlv.spool.last)
		mem_send(a, a->dlv.sent);
	a->dlv.walking_own = false;
	if (a->dlv.sent >= a->dlv.seq && a->dlv.held) {
		a->dlv.held = false;
		rb_info("the coordinator caught up: nothing held in the spool");
	}
}

void rb_delivery_resend_unacked(struct agent *a)
{
	if (a->dlv.spool.fd < 0 || a->dlv.seq <= a->dlv.spool.acked)
		return;
	static int64_t said;
	int64_t now = agent_now(a);

	rb_spool_sync(&a->dlv.spool);
	a->dlv.walking_own = true;
	long n = a->dlv.spool.last > a->dlv.spool.acked
			 ? rb_spool_walk(a->dlv.spool.path, a->dlv.spool.acked, resend_one, a)
			 : 0;

	mem_send(a, a->dlv.spool.acked);
	a->dlv.walking_own = false;

	/* said once in a while: a coordinator gone for good would fill the log otherwise */
	if (now - said > 30000000000LL) {
		rb_info("sent again %" PRIu64
			" unacknowledged message(s) from the spool (%ld held, "
			"%zu in memory)",
			a->dlv.seq - a->dlv.spool.acked, n, a->dlv.nmem);
		said = now;
	}
}

/*
 * Registered with a run: the spool for it, and the spools an earlier process of this
 * agent left for the same run (killed mid-point) are sent again; each goes once the
 * coordinator acknowledges its last message.
 */
void rb_delivery_for_run(struct agent *a, const char *run)
{
	char dir[4096], prefix[128];
	DIR *d;
	struct dirent *de;

	if (!run || !*run || !strcmp(run, a->dlv.run))
		return;
	/* the previous run's spool: gone when its coordinator holds all of it, else kept */
	rb_spool_retire(&a->dlv.spool);
	mem_clear(a);
	snprintf(a->dlv.run, sizeof(a->dlv.run), "%s", run);
	a->dlv.seq = 0; /* numbered from 1 in each run */
	a->dlv.sent = 0;
	a->dlv.sent_off = 0; /* a new file: its records from the start */
	a->dlv.sent_emptied = 0;
	a->dlv.held = false;
	a->ran_any = false;
	a->dlv.last_ack_progress = agent_now(a);
	if (rb_spool_open(&a->dlv.spool, a->cfg->state_dir, run, a->epoch)) {
		rb_warn("no spool in '%s/spool': %s; data is sent unspooled", a->cfg->state_dir,
			strerror(errno));
		a->dlv.spool.fd = -1;
		return;
	}
	snprintf(dir, sizeof(dir), "%s/spool", a->cfg->state_dir);
	snprintf(prefix, sizeof(prefix), "%s-", run);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		struct oldspool *o;
		uint64_t ep;
		long n;

		if (strncmp(de->d_name, prefix, strlen(prefix)) ||
		    sscanf(de->d_name + strlen(prefix), "%" SCNu64 ".spool", &ep) != 1 ||
		    ep == a->epoch)
			continue;
		o = realloc(a->dlv.old, (a->dlv.nold + 1) * sizeof(*o));
		if (!o)
			break;
		a->dlv.old = o;
		o = &a->dlv.old[a->dlv.nold++];
		snprintf(o->path, sizeof(o->path), "%s/%s", dir, de->d_name);
		o->epoch = ep;
		o->last = 0;
		struct rb_spool_walk_info info;

		n = rb_spool_walk_ex(o->path, 0, 0, resend_one, a, &info);
		o->last = info.last_seq;
		o->damaged = info.damaged > 0;
		if (o->damaged)
			rb_warn("the spool '%s' is damaged: %u stretch(es) of %lld byte(s) (the first "
				"at byte %lld) fail their checksum; what they held is lost, the "
				"records after them are sent, and the file is kept",
				o->path, info.damaged, (long long)info.damaged_bytes,
				(long long)info.first_damaged);
		if (!o->last && !o->damaged) {
			unlink(o->path);
			a->dlv.nold--;
			continue;
		}
		rb_info("sent again %ld message(s) of this agent's earlier process (%s)", n,
			o->path);
	}
	if (d)
		closedir(d);
}

/* Hands records with seq <= upto to resend_one (a walk's callback). */
struct upto {
	struct agent *a;
	uint64_t upto;
	long n;
};

static int resend_upto(void *arg, uint64_t seq, const uint8_t *buf, size_t len)
{
	struct upto *u = arg;

	if (seq > u->upto)
		return 1;
	u->n++;
	return rb_tx_send_raw(u->a->sock, NULL, buf, len, true) == -EAGAIN;
}

void rb_delivery_on_ack(struct agent *a, uint64_t epoch, uint64_t seq)
{
	if (epoch == a->epoch && seq < a->dlv.spool.acked) {
		/*
		 * Below what it acknowledged before: a resumed coordinator whose journal was
		 * damaged lacks what follows. What the spool (or memory) still holds of it goes
		 * again; the rest is gone, which the coordinator says.
		 */
		struct upto u = { .a = a, .upto = a->dlv.spool.acked };

		rb_spool_sync(&a->dlv.spool);
		if (a->dlv.spool.fd >= 0)
			rb_spool_walk(a->dlv.spool.path, seq, resend_upto, &u);
		for (size_t i = 0; i < a->dlv.nmem && a->dlv.mem[i].seq <= u.upto; i++)
			if (a->dlv.mem[i].seq > seq)
				resend_upto(&u, a->dlv.mem[i].seq, a->dlv.mem[i].buf,
					    a->dlv.mem[i].len);
		rb_warn("the coordinator lacks messages %" PRIu64 "..%" PRIu64 " (a damaged "
			"journal): sent again the %ld the spool still holds",
			seq + 1, a->dlv.spool.acked, u.n);
		return;
	}
	if (epoch == a->epoch) {
		if (seq > a->dlv.spool.acked)
			a->dlv.last_ack_progress = agent_now(a);
		/*
		 * Once the coordinator holds everything the file starts over: between points,
		 * and during one whenever it has grown past 1 MiB or a quarter of the cap (a
		 * day-long point's spool is then what is unacknowledged, which the cap bounds).
		 */
		uint64_t min = a->cfg->spool_max_bytes / 4 < (1u << 20)
				       ? a->cfg->spool_max_bytes / 4
				       : (1u << 20);

		rb_spool_acked(&a->dlv.spool, seq, rb_agent_busy(a) ? min : 0);
		mem_acked(a, seq);
		send_held(a);
		return;
	}
	for (size_t i = 0; i < a->dlv.nold; i++)
		if (a->dlv.old[i].epoch == epoch && seq >= a->dlv.old[i].last) {
			char kept[4200];

			snprintf(kept, sizeof(kept), "%s.damaged", a->dlv.old[i].path);
			if (a->dlv.old[i].damaged && !rename(a->dlv.old[i].path, kept)) {
				rb_warn("the coordinator holds all that is whole of '%s'; the damaged "
					"file is kept as '%s'",
					a->dlv.old[i].path, kept);
			} else {
				rb_info("the coordinator holds all of '%s': removed",
					a->dlv.old[i].path);
				unlink(a->dlv.old[i].path);
			}
			a->dlv.old[i] = a->dlv.old[--a->dlv.nold];
			return;
		}
}

void rb_delivery_sync(struct agent *a)
{
	const struct rb_agent_cfg *cfg = a->cfg;

	rb_spool_sync(&a->dlv.spool);
	/* at the cap IO stops (and says so): what was measured stays, none dropped */
	if (rb_point_measuring(a) && a->pt.halted != HALT_SPOOL_FULL && a->dlv.spool.fd >= 0 &&
	    a->dlv.spool.bytes >= cfg->spool_max_bytes) {
		rb_err("the spool '%s' reached its cap (%s bytes) with %" PRIu64
		       " message(s) unacknowledged: stopping point %u",
		       a->dlv.spool.path, cfg->spool_max ? cfg->spool_max : "4g",
		       a->dlv.spool.last - a->dlv.spool.acked, a->pt.point);
		rb_point_halt(a, HALT_SPOOL_FULL);
	}
}

void rb_delivery_close(struct agent *a)
{
	/* what was not acknowledged stays in the spool for the next process */
	if (a->dlv.nmem)
		rb_err("%zu message(s) the spool could not hold were never acknowledged: lost "
		       "with this process",
		       a->dlv.nmem);
	rb_spool_retire(&a->dlv.spool);
	mem_acked(a, UINT64_MAX);
	free(a->dlv.mem);
	free(a->dlv.old);
}
