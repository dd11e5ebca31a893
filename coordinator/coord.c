// SPDX-License-Identifier: MIT
#include "coord.h"

#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#include "clock.h"
#include "exitcode.h"
#include "hist.h"
#include "keys.h"
#include "log.h"
#include "progress.h"
#include "steady.h"
#include "clocksync.h"
#include "crc32c.h"
#include "journal.h"
#include "results.h"
#include "transport.h"
#include "units.h"

struct rtarget {
	char path[256], kind[16], model[64], serial[64], firmware[32];
	uint64_t size;
	uint32_t lbs;
};

struct ragent {
	const char *name;
	struct rb_peer peer;
	bool seen;
	char host[64], kernel[128], version[16], proto[16];
	int64_t registered_ns;
	struct rtarget *targets;
	size_t ntargets;
	bool replied, done;
	uint64_t epoch;		/* of the agent process; another one means it restarted */
	int64_t last_seen_ns;
	bool lost, dropped, reassign;
	bool rejoin;		/* dropped, then its PointDone came: it may run the next point */
	uint32_t drop_point, drop_attempt;	/* where it was dropped */
	uint32_t *assigned;	/* per point: attempts assigned to it (0: never) */
	int64_t asked_ns;	/* when the last Preflight or Assign went to it */
	uint8_t *assign_msg;	/* the current point's Assign, packed */
	size_t assign_len;
	size_t *didx, ndidx, dhint;	/* its drives (indexes of c->drives), the next guess */
	char spool_run[96];	/* its Hello: the run of its spool, and the last message in it */
	uint64_t spooled;
	int64_t lost_deadline;
	uint32_t attempt;	/* of the current point */
	uint32_t minor;		/* protocol minor version it speaks */
	struct rb_clock_est clk;	/* its clock's offset from ours (common/clocksync.h) */
	int64_t next_probe;
	/* delivery: per agent process (epoch), the last data message applied */
	struct seqpos {
		uint64_t epoch, seq;
		bool due;	/* an Ack to send */
		uint32_t point;	/* resume: the point of the last journaled message */
	} seqs[8];
	unsigned nseqs;
};

struct summary {
	double iops, mbps, mean_ns;
	uint64_t p99_ns;
	bool have;
	char status[16];
};

/* The health seen of one drive during the current point. */
struct hstate {
	bool have_before, have_after;
	struct rb_row_health before, after;
	double max_temp_c;
	uint8_t warnings;
};

struct coord {
	const struct rb_campaign *c;
	struct rb_zap *zap;	/* NULL when insecure */
	struct hstate *health;	/* per drive */
	struct rb_progress *prog;	/* the live view; NULL before the points run */
	bool *refused;			/* per drive: the guard said no at preflight */
	struct ss_row {
		long row;
		int drive;
		unsigned round;
	} *ss;				/* results rows of the current steady-state phase */
	size_t nss, capss;
	struct roll {
		uint32_t interval;
		bool have, steady;
		uint64_t ios, bytes, lat_ns;
		double *v;
		unsigned n, cap;
		long at;
		struct rb_steady st;
	} *roll;			/* per drive, in a rolling steady-state point */
	size_t roll_steady;		/* drives steady so far in this rolling point */
	size_t point_drives;		/* drives the current point measures */
	bool roll_stopped;
	int64_t start_at;		/* the current point's start instant, our clock; 0 none */
	int journal;			/* the run's journal (RESULTS.h5.journal); -1 none */
	char journal_path[4200];
	off_t jcursor;			/* resume: the next journal record to replay */
	bool replaying;			/* resume: applying journaled messages, not live ones */
	struct jpoint {
		uint32_t attempt;	/* the newest attempt the journal has of the point */
		bool any, done;		/* any message of it; its PointDone */
		bool stopped;		/* a drive's result says it was stopped before its end */
	} *jp;				/* resume: [point][agent] */
	bool journal_dirty;
	/* resume: numbered messages a damaged stretch of the journal held */
	struct jgap {
		size_t agent;
		uint64_t epoch, lo, hi;		/* its messages lo..hi */
		uint32_t point_lo, point_hi;	/* of these points */
		uint64_t filled;		/* how many came again from the agent's spool */
		bool asked;			/* the agent was asked to send them again */
		int64_t asked_ns;
	} *gaps;
	size_t ngaps;
	int64_t last_ack_flush;
	char run[96];			/* this run's identity, for the agents' spools */
	const struct rb_coord_opts *o;
	void *sock;
	struct ragent *agents;
	size_t *ahash, ahash_mask;	/* agent names: open addressing, index + 1 */
	/* agents of no target by name, heard before agent groups are resolved */
	struct cand {
		struct rb_peer peer;
		Rb__Envelope *hello;	/* its last Hello (a copy) */
		bool taken;
	} *cands;
	size_t ncands;
	bool groups_resolved;
	bool preflighting, in_point;
	struct rb_results *res;
	struct summary *sum;	/* [point][drive] */
	struct rtarget *vinfo;	/* per drive: a volume as its agent opened it */
	unsigned cur_point;
	bool drives_written;
	bool lost_abort;
	size_t refusals;
	bool fatal;
	int store_err;		/* the journal or the results file could not be written: stop */
	/* the current point's sample keys stored: each once, whatever the epoch it came in */
	uint64_t *skeys;
	size_t nskeys, skeys_mask;
	uint64_t io_errors;
	size_t bad_drives;
	struct rb_hist scratch;
};

static size_t name_hash(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return (size_t)h;
}

/* A thousand agents each sending ten messages a second: names are looked up hashed. */
static int hash_agents(struct coord *k)
{
	size_t cap = 16;

	while (cap < k->c->nagents * 2)
		cap *= 2;
	k->ahash = calloc(cap, sizeof(*k->ahash));
	if (!k->ahash)
		return -ENOMEM;
	k->ahash_mask = cap - 1;
	for (size_t i = 0; i < k->c->nagents; i++) {
		size_t h = name_hash(k->agents[i].name, strlen(k->agents[i].name)) & k->ahash_mask;

		while (k->ahash[h])
			h = (h + 1) & k->ahash_mask;
		k->ahash[h] = i + 1;
	}
	return 0;
}

static struct ragent *agent_by_len(struct coord *k, const char *name, size_t len)
{
	for (size_t h = name_hash(name, len) & k->ahash_mask; k->ahash[h];
	     h = (h + 1) & k->ahash_mask) {
		struct ragent *a = &k->agents[k->ahash[h] - 1];

		if (!strncmp(a->name, name, len) && !a->name[len])
			return a;
	}
	return NULL;
}

static struct ragent *agent_by_name(struct coord *k, const char *name)
{
	return agent_by_len(k, name, strlen(name));
}

static bool same_peer(const struct rb_peer *a, const struct rb_peer *b)
{
	return a->rid_len == b->rid_len && !memcmp(a->rid, b->rid, a->rid_len);
}

static struct ragent *agent_by_peer(struct coord *k, const struct rb_peer *p)
{
	/* agents connect with their name as routing id: try that first */
	struct ragent *a = agent_by_len(k, (const char *)p->rid, p->rid_len);

	if (a && a->seen && a->peer.rid_len == p->rid_len &&
	    !memcmp(a->peer.rid, p->rid, p->rid_len))
		return a;
	for (size_t i = 0; i < k->c->nagents; i++) {
		a = &k->agents[i];
		if (a->seen && a->peer.rid_len == p->rid_len &&
		    !memcmp(a->peer.rid, p->rid, p->rid_len))
			return a;
	}
	return NULL;
}

static int drive_index(struct coord *k, const char *agent, const char *path)
{
	for (size_t i = 0; i < k->c->ndrives; i++)
		if (!strcmp(k->c->drives[i].agent, agent) && !strcmp(k->c->drives[i].path, path))
			return (int)i;
	return -1;
}

/* Whether path is a member of one of the agent's volumes. */
static bool volume_member(struct coord *k, const char *agent, const char *path)
{
	for (size_t i = 0; i < k->c->ndrives; i++) {
		const struct rb_drive_ref *d = &k->c->drives[i];

		for (size_t m = 0; m < d->nmembers; m++)
			if (!strcmp(d->members[m].path, path) && !strcmp(d->agent, agent))
				return true;
	}
	return false;
}

/* Each agent's drives, once the campaign's drives are final (selectors resolved). */
static void index_drives(struct coord *k)
{
	for (size_t i = 0; i < k->c->nagents; i++) {
		free(k->agents[i].didx);
		k->agents[i].didx = calloc(k->c->ndrives + 1, sizeof(size_t));
		k->agents[i].ndidx = 0;
	}
	for (size_t d = 0; d < k->c->ndrives; d++) {
		struct ragent *a = agent_by_name(k, k->c->drives[d].agent);

		if (a && a->didx)
			a->didx[a->ndidx++] = d;
	}
}

/* The index of agent a's drive path; samples come in drive order, so guess the next. */
static int agent_drive(struct coord *k, struct ragent *a, const char *path)
{
	if (!a->didx)
		return drive_index(k, a->name, path);
	for (size_t j = 0; j < a->ndidx; j++) {
		size_t at = (a->dhint + j) % a->ndidx, d = a->didx[at];

		if (!strcmp(k->c->drives[d].path, path)) {
			a->dhint = at + 1 < a->ndidx ? at + 1 : 0;
			return (int)d;
		}
	}
	return -1;
}

static void send_to(struct coord *k, struct ragent *a, Rb__Envelope *e)
{
	int r = rb_tx_send(k->sock, &a->peer, e, true);

	if (r)
		rb_err("cannot send %s to agent '%s': %s", rb_wire_body_name(e), a->name,
		       strerror(-r));
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* An agent no target names: kept (its latest Hello) until the groups choose theirs. */
static void stash(struct coord *k, const struct rb_peer *peer, const Rb__Hello *h,
		  uint32_t major, uint32_t minor)
{
	Rb__Envelope e, *copy = NULL;
	uint8_t *buf;
	size_t len, i;
	char err[128];

	/* a deep copy, by the codec: pack and unpack */
	rb_wire_init(&e);
	e.version_major = major;
	e.version_minor = minor;
	e.body_case = RB__ENVELOPE__BODY_HELLO;
	e.hello = (Rb__Hello *)h;
	if (rb_wire_pack(&e, &buf, &len))
		return;
	if (rb_wire_unpack(buf, len, &copy, err, sizeof(err))) {
		free(buf);
		return;
	}
	free(buf);
	for (i = 0; i < k->ncands; i++)
		if (!strcmp(k->cands[i].hello->hello->name, h->name))
			break;
	if (i == k->ncands) {
		struct cand *n = realloc(k->cands, (k->ncands + 1) * sizeof(*n));

		if (!n) {
			rb_wire_free(copy);
			return;
		}
		k->cands = n;
		k->cands[k->ncands++] = (struct cand){ .hello = NULL };
		rb_debug("agent '%s' connected; a candidate for the campaign's agent groups",
			 h->name);
	}
	rb_wire_free(k->cands[i].hello);
	k->cands[i].hello = copy;
	k->cands[i].peer = *peer;
}

static void on_hello(struct coord *k, const struct rb_peer *peer, const Rb__Hello *h,
		     uint32_t major, uint32_t minor);

static bool cand_matches(const struct rb_agent_group *g, const struct cand *x)
{
	const Rb__Hello *h = x->hello->hello;
	const char *keys[64], *values[64];
	size_t n = h->n_labels < 64 ? h->n_labels : 64;

	for (size_t i = 0; i < n; i++) {
		keys[i] = h->labels[i]->key;
		values[i] = h->labels[i]->value;
	}
	return rb_agent_group_matches(g, h->name, keys, values, n);
}

static int cand_cmp(const void *a, const void *b)
{
	return strcmp(((const struct cand *)a)->hello->hello->name,
		      ((const struct cand *)b)->hello->hello->name);
}

/*
 * How many agents each group lacks; with choose, the groups take theirs (each the first
 * count matching by name, in target order) and they join the campaign.
 */
static size_t groups_short(struct coord *k, bool report, bool choose)
{
	struct rb_campaign *c = (struct rb_campaign *)k->c;
	size_t lacking = 0;

	if (k->ncands)
		qsort(k->cands, k->ncands, sizeof(*k->cands), cand_cmp);
	for (size_t i = 0; i < k->ncands; i++)
		k->cands[i].taken = false;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct rb_agent_group *G = &c->groups[g];
		unsigned found = 0;
		char names[512] = "";

		for (size_t i = 0; i < k->ncands && found < G->count; i++) {
			struct cand *x = &k->cands[i];

			if (x->taken || !cand_matches(G, x))
				continue;
			x->taken = true;
			found++;
			if (strlen(names) + strlen(x->hello->hello->name) + 3 < sizeof(names))
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					 names[0] ? ", " : "", x->hello->hello->name);
			if (choose && rb_campaign_add_agent(c, x->hello->hello->name, G))
				return SIZE_MAX;
		}
		if (found < G->count) {
			lacking += G->count - found;
			if (report) {
				char labels[256] = "";

				for (size_t l = 0; l < G->nlabels; l++)
					snprintf(labels + strlen(labels), sizeof(labels) - strlen(labels),
						 "%s%s", l ? ", " : "", G->labels[l]);
				rb_err("%s:%u:%u: the campaign expects %u agent(s) named '%s'%s%s; %u "
				       "connected%s%s: missing agents",
				       c->file, G->line, G->column, G->count, *G->name ? G->name : "*",
				       labels[0] ? " with labels " : "", labels, found,
				       names[0] ? ": " : "", names);
			}
		} else if (choose) {
			rb_info("agents named '%s': chose %s", *G->name ? G->name : "*", names);
		}
	}
	return lacking;
}

/* The groups' agents join: room in agents[], the name hash, their Hellos applied. */
static int resolve_groups(struct coord *k)
{
	size_t before = k->c->nagents;
	struct ragent *n;

	if (groups_short(k, false, true) == SIZE_MAX)
		return RB_EXIT_FAILED;
	n = realloc(k->agents, (k->c->nagents + 1) * sizeof(*n));
	if (!n)
		return RB_EXIT_FAILED;
	k->agents = n;
	memset(&k->agents[before], 0, (k->c->nagents + 1 - before) * sizeof(*n));
	for (size_t i = 0; i < k->c->nagents; i++)
		k->agents[i].name = k->c->agents[i];
	for (size_t i = before; i < k->c->nagents; i++)
		if (!(k->agents[i].assigned = calloc(k->c->npoints + 1, sizeof(uint32_t))))
			return RB_EXIT_FAILED;
	free(k->ahash);
	if (hash_agents(k))
		return RB_EXIT_FAILED;
	k->groups_resolved = true;
	for (size_t i = 0; i < k->ncands; i++) {
		const Rb__Envelope *e = k->cands[i].hello;

		if (k->cands[i].taken)
			on_hello(k, &k->cands[i].peer, e->hello, e->version_major, e->version_minor);
	}
	return 0;
}

static struct seqpos *seq_pos(struct ragent *a, uint64_t epoch);
static void send_preflight(struct coord *k, struct ragent *a);

static void target_set(struct rtarget *t, const Rb__TargetInfo *ti)
{
	copy(t->path, sizeof(t->path), ti->path);
	copy(t->kind, sizeof(t->kind), ti->kind);
	copy(t->model, sizeof(t->model), ti->model);
	copy(t->serial, sizeof(t->serial), ti->serial);
	copy(t->firmware, sizeof(t->firmware), ti->firmware);
	t->size = ti->size_bytes;
	t->lbs = ti->logical_block_size;
}

static struct rtarget *target_by_path(struct ragent *a, const char *path);

/* Identity as the agent opened it for a point (files are laid out on first use). */
static void target_update(struct ragent *a, const Rb__TargetInfo *ti)
{
	struct rtarget *t = ti && ti->path ? target_by_path(a, ti->path) : NULL;

	if (t)
		target_set(t, ti);
}

/*
 * Resume over a damaged journal: an Ack below what the agent had acknowledged tells it
 * the coordinator lacks what follows; it sends again what its spool still holds of it.
 */
static void ask_gaps(struct coord *k, struct ragent *a)
{
	for (size_t i = 0; i < k->ngaps; i++) {
		struct jgap *g = &k->gaps[i];
		Rb__Envelope e;
		Rb__Ack ack = RB__ACK__INIT;

		if (g->agent != (size_t)(a - k->agents) || g->lo > g->hi)
			continue;
		ack.epoch = g->epoch;
		ack.seq = g->lo - 1;
		rb_wire_init(&e);
		e.body_case = RB__ENVELOPE__BODY_ACK;
		e.ack = &ack;
		send_to(k, a, &e);
		if (!g->asked)
			g->asked_ns = rb_mono_ns();
		g->asked = true;
	}
}

/* A numbered message the journal lacked (in a gap): it fills it. */
static bool gap_fill(struct coord *k, const struct ragent *a, uint64_t epoch, uint64_t seq)
{
	for (size_t i = 0; i < k->ngaps; i++) {
		struct jgap *g = &k->gaps[i];

		if (g->agent != (size_t)(a - k->agents) || g->epoch != epoch || seq != g->lo ||
		    g->lo > g->hi)
			continue;
		g->lo++;
		g->filled++;
		return true;
	}
	return false;
}

static void on_hello(struct coord *k, const struct rb_peer *peer, const Rb__Hello *h,
		     uint32_t major, uint32_t minor)
{
	struct ragent *a = agent_by_name(k, h->name);
	Rb__Envelope e;
	Rb__Welcome w = RB__WELCOME__INIT;
	int resend = 0;

	if (!a) {
		if (k->c->ngroups && !k->groups_resolved)
			stash(k, peer, h, major, minor);
		else
			rb_debug("agent '%s' is not in this campaign; ignored", h->name);
		return;
	}
	if (!a->seen)
		rb_info("agent '%s' connected from host %s with %zu target(s)", h->name, h->hostname,
			h->n_targets);
	else if (k->zap && !same_peer(&a->peer, peer))
		/* the caller checked that its key is this agent's */
		rb_info("agent '%s' is on a new connection with its key: it replaces the previous "
			"one", a->name);
	a->peer = *peer;
	a->seen = true;
	a->last_seen_ns = rb_mono_ns();
	if (a->epoch && h->epoch != a->epoch && !a->done && !a->dropped && k->res) {
		/* a new process: whatever point the old one ran is gone */
		a->reassign = true;
	}
	/*
	 * The same process saying hello again is idle (agents say hello only when idle) and
	 * has sent us everything it spooled: if it owes a preflight reply or should be in the
	 * current point, what we sent it was lost (a reconnect drops what was in flight).
	 */
	bool same = a->epoch && h->epoch == a->epoch && !strcmp(h->run, k->run) &&
		    h->spooled <= seq_pos(a, h->epoch)->seq &&
		    rb_mono_ns() - a->asked_ns > 1500000000LL;

	a->epoch = h->epoch;
	copy(a->spool_run, sizeof(a->spool_run), h->run);
	a->spooled = h->spooled;
	if (same && k->preflighting && !a->replied) {
		rb_warn("agent '%s' never had the safety check: asking again", a->name);
		resend = 1;
	} else if (same && k->in_point && !a->done && !a->dropped && a->assign_msg) {
		rb_warn("agent '%s' never had point %u: sending it again", a->name, k->cur_point);
		resend = 2;
	}
	copy(a->host, sizeof(a->host), h->hostname);
	copy(a->kernel, sizeof(a->kernel), h->kernel);
	copy(a->version, sizeof(a->version), h->rb_version);
	snprintf(a->proto, sizeof(a->proto), "%u.%u", major, minor);
	a->minor = minor;
	if (!a->registered_ns)
		a->registered_ns = rb_wall_ns();
	free(a->targets);
	a->targets = calloc(h->n_targets + 1, sizeof(*a->targets));
	a->ntargets = a->targets ? h->n_targets : 0;
	for (size_t i = 0; i < a->ntargets; i++)
		target_set(&a->targets[i], h->targets[i]);
	rb_wire_init(&e);
	w.campaign = k->c->name;
	w.run = k->run;
	e.body_case = RB__ENVELOPE__BODY_WELCOME;
	e.welcome = &w;
	send_to(k, a, &e);
	ask_gaps(k, a);
	if (resend == 1) {
		send_preflight(k, a);
	} else if (resend == 2) {
		rb_tx_send_raw(k->sock, &a->peer, a->assign_msg, a->assign_len, true);
		a->asked_ns = rb_mono_ns();
	}
}

static void dir_row(struct rb_row_dir *d, const Rb__DirResult *dr, uint64_t elapsed_ns,
		    struct rb_hist *h)
{
	double secs = (double)elapsed_ns / 1e9;

	memset(d, 0, sizeof(*d));
	if (!dr)
		return;
	rb_hist_clear(h);
	rb_hist_add_sparse(h, dr->hist_idx, dr->hist_cnt,
			   dr->n_hist_idx < dr->n_hist_cnt ? dr->n_hist_idx : dr->n_hist_cnt);
	d->ios = dr->ios;
	d->bytes = dr->bytes;
	d->errors = dr->errors;
	d->iops = secs > 0 ? (double)dr->ios / secs : 0;
	d->bw_bytes_per_s = secs > 0 ? (double)dr->bytes / secs : 0;
	d->lat_mean_ns = dr->ios ? (double)dr->lat_sum_ns / (double)dr->ios : 0;
	d->lat_min_ns = dr->lat_min_ns;
	d->lat_max_ns = dr->lat_max_ns;
	d->lat_p50_ns = rb_hist_percentile(h, 50);
	d->lat_p90_ns = rb_hist_percentile(h, 90);
	d->lat_p99_ns = rb_hist_percentile(h, 99);
	d->lat_p99_9_ns = rb_hist_percentile(h, 99.9);
}

/* How steady_state rows name the tracking metric (enum rb_track_metric). */
static const char *const track_metric[] = { "iops", "mbps", "mean_latency_us" };

/* A curve point's rate for one drive: the percentage of its own measured maximum. */
static uint64_t curve_rate(struct coord *k, const struct rb_point *p, int di)
{
	const struct summary *mx;
	double r;

	if (!(p->curve_pct > 0))
		return p->wl.rate_iops;
	mx = di < 0 ? NULL : &k->sum[(size_t)p->curve_base * k->c->ndrives + (size_t)di];
	r = mx && mx->have ? mx->iops * p->curve_pct / 100.0 : 0;
	/* a drive without a maximum (lost, failed) gets 1 IOPS, never unthrottled */
	return r >= 1 ? (uint64_t)(r + 0.5) : 1;
}

/* Remembers a steady-state round's results row, to mark it once the verdict is in. */
static void ss_note(struct coord *k, long row, int di, unsigned round)
{
	if (k->nss == k->capss) {
		size_t nc = k->capss ? k->capss * 2 : 64;
		struct ss_row *n = realloc(k->ss, nc * sizeof(*n));

		if (!n)
			return;
		k->ss = n;
		k->capss = nc;
	}
	k->ss[k->nss++] = (struct ss_row){ .row = row, .drive = di, .round = round };
}

static void stop_agents(struct coord *k, const char *reason);

/* A verdict row's window figures, from the judge (both steady-state modes). */
static void steady_fill(struct rb_row_steady *row, const struct rb_steady *st)
{
	row->avg = st->avg;
	row->min = st->min;
	row->max = st->max;
	row->slope = st->slope;
	row->range_ok = st->range_ok;
	row->slope_ok = st->slope_ok;
}

static void roll_free(struct coord *k)
{
	for (size_t i = 0; k->roll && i < k->c->ndrives; i++)
		free(k->roll[i].v);
	free(k->roll);
	k->roll = NULL;
}

/* A rolling steady state: one drive's interval is complete; judge the last window. */
static void roll_push(struct coord *k, const struct rb_point *p, struct roll *r)
{
	const struct rb_phase *P = &k->c->phases[p->phase];
	double s = (double)p->wl.interval_ns / 1e9, v;

	if (r->n == r->cap) {
		unsigned nc = r->cap ? r->cap * 2 : 64;
		double *nv = realloc(r->v, nc * sizeof(*nv));

		if (!nv)
			return;
		r->v = nv;
		r->cap = nc;
	}
	v = P->metric == RB_TRACK_MBPS	   ? (double)r->bytes / s / 1e6
	    : P->metric == RB_TRACK_MEAN_LAT ? (r->ios ? (double)r->lat_ns / (double)r->ios / 1e3 : 0)
					     : (double)r->ios / s;
	r->v[r->n++] = v;
	r->ios = r->bytes = r->lat_ns = 0;
	if (!r->steady && r->n >= P->steady_window) {
		rb_steady_window(r->v + r->n - P->steady_window, P->steady_window, &r->st);
		if (r->st.steady) {
			r->steady = true;
			r->at = (long)r->n - 1;
			k->roll_steady++;
		}
	}
}

/* Feeds one sample to the rolling judge; stops the point when every drive is steady. */
static void roll_sample(struct coord *k, int di, const Rb__Sample *smp)
{
	const struct rb_point *p = &k->c->points[k->cur_point];
	struct roll *r;

	if (!k->roll || smp->point != k->cur_point || di < 0)
		return;
	r = &k->roll[di];
	if (!r->have) {
		r->have = true;
		r->interval = smp->interval;
	}
	if (smp->interval != r->interval) {
		roll_push(k, p, r);
		r->interval = smp->interval;
	}
	r->ios += smp->ios;
	r->bytes += smp->bytes;
	r->lat_ns += smp->lat_sum_ns;
	if (k->roll_steady == k->point_drives && !k->roll_stopped && !k->replaying) {
		k->roll_stopped = true;
		rb_info("point %u: every drive is steady; stopping it", p->index);
		stop_agents(k, "steady state reached");
	}
}

/* A rolling point's verdict for one drive, with its result row. */
static void roll_verdict(struct coord *k, const struct rb_point *p, int di,
			 struct rb_row_result *row)
{
	const struct rb_phase *P = &k->c->phases[p->phase];
	struct roll *r = &k->roll[di];
	struct rb_row_steady st;

	if (!r->steady && r->n >= P->steady_window)
		rb_steady_window(r->v + r->n - P->steady_window, P->steady_window, &r->st);
	row->steady = r->steady ? 1 : 2;
	memset(&st, 0, sizeof(st));
	st.drive = (uint32_t)di;
	copy(st.phase, sizeof(st.phase), P->name);
	st.point = p->index;
	st.rolling = 1;
	copy(st.metric, sizeof(st.metric), track_metric[P->metric]);
	st.rounds = r->n;
	st.window = P->steady_window;
	st.steady = r->steady;
	st.steady_round = r->steady ? (uint32_t)r->at + 1 : 0;
	steady_fill(&st, &r->st);
	rb_results_steady(k->res, &st);
}

/* The progress line adds up the rows: each drive's, all directions. */
static void progress_result(struct coord *k, size_t di, const struct rb_row_result *row)
{
	rb_progress_result(k->prog, di, row->read.iops + row->write.iops + row->trim.iops,
			   row->read.bw_bytes_per_s + row->write.bw_bytes_per_s +
				   row->trim.bw_bytes_per_s);
}

/*
 * Whether agent a was given (point, attempt): live, the current point and an attempt sent
 * to it; replaying the journal, any point of the plan (the journal holds what was given).
 */
static bool assigned(struct coord *k, const struct ragent *a, uint32_t point, uint32_t attempt)
{
	if (point >= k->c->npoints)
		return false;
	if (k->replaying)
		return true;
	return point == k->cur_point && a->assigned && attempt < a->assigned[point];
}

/* The drive's own account of the point in its row: what it wrote, how hot, new errors. */
static void health_row(struct coord *k, size_t di, struct rb_row_result *row)
{
	const struct hstate *hs = &k->health[di];

	row->health_max_temp_c = hs->max_temp_c;
	row->health_new_media_errors = NAN;
	row->health_critical_warning = hs->warnings;
	if (!hs->have_before || !hs->have_after)
		return;
	if (hs->after.nvme && hs->before.nvme) {
		row->health_write_bytes = (uint64_t)((hs->after.data_units_written -
						      hs->before.data_units_written) * 512000.0);
		row->health_new_media_errors = hs->after.media_errors - hs->before.media_errors;
	} else if (hs->after.kernel_write_bytes >= hs->before.kernel_write_bytes) {
		row->health_write_bytes = hs->after.kernel_write_bytes - hs->before.kernel_write_bytes;
	}
}

/* A result's block-size counts into their table, its IO errors said. */
static void result_extras(struct coord *k, const struct ragent *a, const Rb__DriveResult *dr,
			  size_t di)
{
	for (size_t i = 0; i < dr->n_bs_counts; i++) {
		struct rb_row_bs b = { .drive = (uint32_t)di,
				       .point = dr->point,
				       .attempt = dr->attempt,
				       .direction = (uint8_t)dr->bs_counts[i]->direction,
				       .bs_bytes = dr->bs_counts[i]->bs,
				       .ios = dr->bs_counts[i]->ios };

		rb_results_bs(k->res, &b);
	}
	for (size_t i = 0; i < dr->n_io_errors; i++)
		rb_err("agent '%s' drive '%s': %s error at offset %" PRIu64 " (%u bytes), %" PRIu64
		       " time(s): %s",
		       a->name, dr->drive, dr->io_errors[i]->direction ? "write" : "read",
		       dr->io_errors[i]->offset, dr->io_errors[i]->length,
		       dr->io_errors[i]->count ? dr->io_errors[i]->count : 1,
		       strerror(dr->io_errors[i]->err));
}

static void on_result(struct coord *k, struct ragent *a, const Rb__DriveResult *dr)
{
	int di = agent_drive(k, a, dr->drive);
	struct rb_row_result row;
	const Rb__DirResult *dirs[3] = { NULL, NULL, NULL };
	struct summary *s;

	if (di < 0 || dr->point != k->cur_point || !assigned(k, a, dr->point, dr->attempt)) {
		rb_warn("agent '%s' sent a result for unknown drive '%s' or point %u", a->name,
			dr->drive, dr->point);
		return;
	}
	if (a->dropped && !k->replaying) {
		/* its drives' rows for this point say "lost" already: one row per drive */
		rb_info("agent '%s' is back and finished point %u on drive '%s'; its row stays "
			"\"lost\"",
			a->name, dr->point, dr->drive);
		return;
	}
	/* identity as the agent opened it (files are laid out on first use) */
	if (dr->target && k->c->drives[di].nmembers)
		target_set(&k->vinfo[di], dr->target);
	else if (dr->target)
		target_update(a, dr->target);
	for (size_t m = 0; m < dr->n_members; m++)
		target_update(a, dr->members[m]);
	memset(&row, 0, sizeof(row));
	row.drive = (uint32_t)di;
	row.point = dr->point;
	row.attempt = dr->attempt;
	copy(row.status, sizeof(row.status), dr->status);
	copy(row.message, sizeof(row.message), dr->message);
	/* a rolling steady-state point ends by our Stop once steady: its end, not a cut */
	if (!strcmp(row.status, "stopped") &&
	    k->c->phases[k->c->points[dr->point].phase].steady_rolling &&
	    (k->roll_stopped || k->replaying)) {
		copy(row.status, sizeof(row.status), "ok");
		row.message[0] = '\0';
	}
	copy(row.uring_features, sizeof(row.uring_features), dr->uring_features);
	row.start_ns = dr->start_ns;
	row.end_ns = dr->end_ns;
	row.elapsed_ns = dr->elapsed_ns;
	row.cpu_usr_pct = dr->cpu_usr_pct;
	row.cpu_sys_pct = dr->cpu_sys_pct;
	row.verify_checked = dr->verify_checked;
	row.verify_mismatches = dr->verify_mismatches;
	/* how far from the planned instant its jobs started, in our clock */
	if (dr->start_mono_ns && k->start_at && a->clk.n && dr->attempt == 0)
		row.start_skew_ns = dr->start_mono_ns - rb_clock_offset(&a->clk, NULL) - k->start_at;
	row.history_since_ns = dr->history_since_ns;
	row.purge_ns = dr->purge_ns;
	copy(row.purge_method, sizeof(row.purge_method), dr->purge_method);
	row.written_since_purge_bytes = dr->written_since_purge;
	row.fill_passes_since_purge = dr->fill_passes_since_purge;
	if (dr->verify_mismatches)
		rb_err("agent '%s' drive '%s' point %u: %" PRIu64 " verify mismatch(es)", a->name,
		       dr->drive, dr->point, dr->verify_mismatches);
	for (size_t i = 0; i < dr->n_dirs; i++)
		if (dr->dirs[i]->direction < 3)
			dirs[dr->dirs[i]->direction] = dr->dirs[i];
	dir_row(&row.read, dirs[0], dr->elapsed_ns, &k->scratch);
	dir_row(&row.write, dirs[1], dr->elapsed_ns, &k->scratch);
	dir_row(&row.trim, dirs[2], dr->elapsed_ns, &k->scratch);
	/* the summary's latency is over both directions: merge, never average */
	rb_hist_clear(&k->scratch);
	for (int d = 0; d < 3; d++)
		if (dirs[d])
			rb_hist_add_sparse(&k->scratch, dirs[d]->hist_idx, dirs[d]->hist_cnt,
					   dirs[d]->n_hist_idx < dirs[d]->n_hist_cnt ? dirs[d]->n_hist_idx
										       : dirs[d]->n_hist_cnt);
	health_row(k, (size_t)di, &row);
	row.rate_iops = curve_rate(k, &k->c->points[dr->point], di);
	if (k->roll && strcmp(row.status, "lost"))
		roll_verdict(k, &k->c->points[dr->point], di, &row);
	if (k->c->points[dr->point].round)
		ss_note(k, rb_results_next_result(k->res), di, k->c->points[dr->point].round);
	rb_results_result(k->res, &row);
	progress_result(k, (size_t)di, &row);
	result_extras(k, a, dr, (size_t)di);
	k->io_errors += row.read.errors + row.write.errors + row.trim.errors + row.verify_mismatches;
	/* a point stopped short, replayed from the journal, runs again as the next attempt:
	 * its row is superseded, not a failure of the run */
	if (strcmp(row.status, "ok") && !(k->replaying && !strcmp(row.status, "stopped"))) {
		k->bad_drives++;
		rb_err("agent '%s' drive '%s' point %u: %s: %s", a->name, dr->drive, dr->point,
		       row.status, row.message);
	}
	s = &k->sum[(size_t)dr->point * k->c->ndrives + (size_t)di];
	s->have = true;
	copy(s->status, sizeof(s->status), row.status);
	s->iops = row.read.iops + row.write.iops + row.trim.iops;
	s->mbps = (row.read.bw_bytes_per_s + row.write.bw_bytes_per_s + row.trim.bw_bytes_per_s) /
		  1e6;
	uint64_t all = row.read.ios + row.write.ios + row.trim.ios;

	s->mean_ns = all ? (row.read.lat_mean_ns * (double)row.read.ios +
			    row.write.lat_mean_ns * (double)row.write.ios +
			    row.trim.lat_mean_ns * (double)row.trim.ios) /
				   (double)all
			 : 0;
	s->p99_ns = rb_hist_percentile(&k->scratch, 99);
}

static void on_health(struct coord *k, struct ragent *a, const Rb__Health *m)
{
	int di = agent_drive(k, a, m->drive);
	struct rb_row_health row;
	struct hstate *hs;

	if (di < 0 || m->point != k->cur_point || m->when > 2 ||
	    !assigned(k, a, m->point, m->attempt))
		return;
	memset(&row, 0, sizeof(row));
	row.drive = (uint32_t)di;
	/* a volume's member: its own row; the drive's state (deltas, alerts) is the sum's */
	if (m->member && *m->member) {
		const struct rb_drive_ref *d = &k->c->drives[di];

		for (size_t i = 0; i < d->nmembers && !row.member; i++)
			if (!strcmp(d->members[i].path, m->member))
				row.member = (uint32_t)i + 1;
		if (!row.member)
			return;
	}
	row.point = m->point;
	row.attempt = m->attempt;
	row.when = (uint8_t)m->when;
	row.t_ns = m->t_ns;
	row.nvme = m->nvme;
	row.critical_warning = (uint8_t)m->critical_warning;
	row.temperature_c = m->nvme ? m->temperature_c : NAN;
	row.available_spare_pct = m->nvme ? m->available_spare_pct : NAN;
	row.percentage_used = m->nvme ? m->percentage_used : NAN;
	row.data_units_read = m->nvme ? m->data_units_read : NAN;
	row.data_units_written = m->nvme ? m->data_units_written : NAN;
	row.host_reads = m->nvme ? m->host_reads : NAN;
	row.host_writes = m->nvme ? m->host_writes : NAN;
	row.power_on_hours = m->nvme ? m->power_on_hours : NAN;
	row.unsafe_shutdowns = m->nvme ? m->unsafe_shutdowns : NAN;
	row.media_errors = m->nvme ? m->media_errors : NAN;
	row.error_log_entries = m->nvme ? m->error_log_entries : NAN;
	row.kernel_read_ios = m->kernel_read_ios;
	row.kernel_write_ios = m->kernel_write_ios;
	row.kernel_read_bytes = m->kernel_read_bytes;
	row.kernel_write_bytes = m->kernel_write_bytes;
	rb_results_health(k->res, &row);
	if (row.member)
		return;
	hs = &k->health[di];
	if (m->when == 0) {
		hs->before = row;
		hs->have_before = true;
	} else if (m->when == 2) {
		hs->after = row;
		hs->have_after = true;
	}
	if (m->nvme && !(row.temperature_c <= hs->max_temp_c))
		hs->max_temp_c = row.temperature_c;
	if (m->nvme)
		rb_progress_temp(k->prog, (size_t)di, row.temperature_c);
	hs->warnings |= row.critical_warning;
	if (row.critical_warning) {
		char w[64];

		snprintf(w, sizeof(w), "0x%02x", row.critical_warning);
		rb_warn("agent '%s' drive '%s': health alert, critical warning %s", a->name,
			m->drive, w);
	}
}

/* Takes a sample key of the current point: false when it was stored already. */
static bool skey_take(struct coord *k, uint32_t di, uint32_t attempt, uint32_t interval,
		      uint32_t dir)
{
	uint64_t key;

	/* packed: drive 20 bits, attempt 12, interval 30, direction 2; beyond: implausible */
	if (di >= (1u << 20) || attempt >= (1u << 12) || interval >= (1u << 30))
		return false;
	key = ((uint64_t)di << 44 | (uint64_t)attempt << 32 | (uint64_t)interval << 2 | dir) + 1;
	if ((k->nskeys + 1) * 2 > k->skeys_mask + 1) {
		size_t cap = k->skeys_mask ? (k->skeys_mask + 1) * 2 : 1024;
		uint64_t *t = calloc(cap, sizeof(*t));

		if (!t)
			return true; /* no memory for the check: stored, as before it */
		for (size_t i = 0; k->skeys && i <= k->skeys_mask; i++) {
			size_t h;

			if (!k->skeys[i])
				continue;
			for (h = (size_t)(k->skeys[i] * 0x9E3779B97F4A7C15ULL) & (cap - 1); t[h];
			     h = (h + 1) & (cap - 1))
				;
			t[h] = k->skeys[i];
		}
		free(k->skeys);
		k->skeys = t;
		k->skeys_mask = cap - 1;
	}
	for (size_t h = (size_t)(key * 0x9E3779B97F4A7C15ULL) & k->skeys_mask; k->skeys[h];
	     h = (h + 1) & k->skeys_mask)
		if (k->skeys[h] == key)
			return false;
	for (size_t h = (size_t)(key * 0x9E3779B97F4A7C15ULL) & k->skeys_mask;;
	     h = (h + 1) & k->skeys_mask)
		if (!k->skeys[h]) {
			k->skeys[h] = key;
			k->nskeys++;
			return true;
		}
}

static void on_samples(struct coord *k, struct ragent *a, const Rb__SampleBatch *b)
{
	for (size_t i = 0; i < b->n_samples; i++) {
		const Rb__Sample *s = b->samples[i];
		int di = agent_drive(k, a, s->drive);
		size_t nh = s->n_hist_idx < s->n_hist_cnt ? s->n_hist_idx : s->n_hist_cnt;
		struct rb_row_sample row;

		if (di < 0 || s->direction > 2)
			continue;
		if (!assigned(k, a, s->point, s->attempt)) {
			rb_debug("agent '%s' sent a sample of point %u attempt %u, which it was not "
				 "given; dropped",
				 a->name, s->point, s->attempt);
			continue;
		}
		/* once per key: the same interval again under another epoch is not stored twice
		 * (a straggler of an earlier point, replayed, is taken as the journal has it) */
		if (s->point == k->cur_point &&
		    !skey_take(k, (uint32_t)di, s->attempt, s->interval, s->direction))
			continue;
		/* percentiles straight from the sparse delta: no 37 KiB histogram per sample */
		if (!rb_hist_sparse_valid(s->hist_idx, nh)) {
			rb_warn("agent '%s' sent a histogram with buckets out of range or order; "
				"sample dropped", a->name);
			continue;
		}
		memset(&row, 0, sizeof(row));
		row.drive = (uint32_t)di;
		row.point = s->point;
		row.attempt = s->attempt;
		row.interval = s->interval;
		row.direction = (uint8_t)s->direction;
		row.t_ns = s->t_ns;
		row.ios = s->ios;
		row.bytes = s->bytes;
		row.errors = s->errors;
		row.lat_mean_ns = s->ios ? (double)s->lat_sum_ns / (double)s->ios : 0;
		row.lat_p50_ns = rb_hist_sparse_percentile(s->hist_idx, s->hist_cnt, nh, 50);
		row.lat_p99_ns = rb_hist_sparse_percentile(s->hist_idx, s->hist_cnt, nh, 99);
		rb_results_sample(k->res, &row);
		rb_progress_sample(k->prog, (size_t)di, s->interval, s->direction, s->ios, s->bytes,
				   row.lat_p99_ns);
		roll_sample(k, di, s);
		for (size_t h = 0; h < nh; h++) {
			struct rb_row_hist hr = { .drive = (uint32_t)di,
						  .point = s->point,
						  .attempt = s->attempt,
						  .interval = s->interval,
						  .direction = (uint8_t)s->direction,
						  .bucket = s->hist_idx[h],
						  .count = s->hist_cnt[h] };

			rb_results_hist(k->res, &hr);
		}
	}
}

/* The position of an agent process's numbered messages; the oldest is forgotten when full. */
static struct seqpos *seq_pos(struct ragent *a, uint64_t epoch)
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
static void store_failed(struct coord *k, const char *what, int err)
{
	if (k->store_err)
		return;
	k->store_err = err ? err : EIO;
	rb_err("cannot %s: %s; stopping the run (nothing further is acknowledged: the agents keep "
	       "it in their spools)", what, strerror(k->store_err));
}

/* Appends a data message, its bytes as received, to the journal (coordinator/journal.h). */
static int journal(struct coord *k, const struct ragent *a, const uint8_t *buf, size_t len)
{
	int r;

	if (k->journal < 0 || !buf)
		return 0;
	if (k->store_err)
		return -k->store_err;
	r = rb_journal_append(k->journal, a->name, buf, len);
	if (r) {
		store_failed(k, "append to the journal", -r);
		return r;
	}
	k->journal_dirty = true;
	return 0;
}

/* Group commit: the journal on disk, then one cumulative Ack per agent process owed one. */
static void flush_acks(struct coord *k, bool force)
{
	int64_t now = rb_mono_ns();
	bool any = false;

	if (!force && now - k->last_ack_flush < 20000000LL)
		return;
	k->last_ack_flush = now;
	for (size_t i = 0; i < k->c->nagents && !any; i++)
		for (unsigned j = 0; j < k->agents[i].nseqs; j++)
			any |= k->agents[i].seqs[j].due;
	/* an Ack says "on disk": never after a failed write or sync */
	if (!any || k->store_err)
		return;
	if (k->journal >= 0 && k->journal_dirty) {
		if (fdatasync(k->journal)) {
			store_failed(k, "sync the journal", errno);
			return;
		}
		k->journal_dirty = false;
	}
	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->agents[i];

		for (unsigned j = 0; j < a->nseqs; j++) {
			Rb__Envelope e;
			Rb__Ack ack = RB__ACK__INIT;

			if (!a->seqs[j].due)
				continue;
			a->seqs[j].due = false;
			ack.epoch = a->seqs[j].epoch;
			ack.seq = a->seqs[j].seq;
			rb_wire_init(&e);
			e.body_case = RB__ENVELOPE__BODY_ACK;
			e.ack = &ack;
			send_to(k, a, &e);
		}
	}
}

/* Round trips for each agent's clock offset: quickly after it registers, then every 2 s. */
static void probe_clocks(struct coord *k)
{
	int64_t now = rb_mono_ns();

	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->agents[i];
		Rb__Envelope e;
		Rb__TimeProbe tp = RB__TIME_PROBE__INIT;

		if (!a->seen || a->dropped || a->minor < 1 || now < a->next_probe)
			continue;
		a->next_probe = now + (a->clk.n < 8 ? 30000000LL : 2000000000LL);
		rb_wire_init(&e);
		e.body_case = RB__ENVELOPE__BODY_TIME_PROBE;
		e.time_probe = &tp;
		tp.t0 = rb_mono_ns();
		send_to(k, a, &e);
	}
}

static void dispatch(struct coord *k, struct ragent *a, const Rb__Envelope *e, int64_t t3);

/* Receives and dispatches one message; returns -EAGAIN on timeout. */
static int pump(struct coord *k, int timeout_ms)
{
	struct rb_peer peer;
	Rb__Envelope *e = NULL;
	struct ragent *a;
	char err[512];
	int r;

	probe_clocks(k);
	flush_acks(k, false);
	if (k->o->tick)
		k->o->tick(k->o->hook_arg);
	uint8_t *raw = NULL;
	size_t rawlen = 0;

	r = rb_tx_recv_keep(k->sock, timeout_ms, &peer, &e, k->journal >= 0 ? &raw : NULL, &rawlen,
			    err, sizeof(err));
	int64_t t3 = rb_mono_ns();

	if (r == -EAGAIN || r == -EINTR)
		return r;
	if (r) {
		char name[RB_RID_MAX + 1];

		/* keyed, the routing id is libzmq's number: the key's name says who */
		if (peer.user_id[0])
			snprintf(name, sizeof(name), "%s", peer.user_id);
		else
			snprintf(name, sizeof(name), "%.*s", (int)peer.rid_len, (const char *)peer.rid);
		rb_err("bad message from '%s': %s", name, err);
		/* tell the agent too, in a message any version can read */
		if (r == -EPROTONOSUPPORT)
			rb_tx_send_error(k->sock, &peer, -r, err);
		return 0;
	}
	if (e->body_case == RB__ENVELOPE__BODY_HELLO) {
		/* the key's name (from the allow-list) must be the name the agent claims */
		if (k->zap && strcmp(peer.user_id, e->hello->name)) {
			rb_warn("refused: the key of agent '%s' claims to be agent '%s'", peer.user_id,
				e->hello->name);
			goto out;
		}
		if (k->o->hello_hook)
			k->o->hello_hook(k->o->hook_arg, &peer, e->hello, e->version_major,
					 e->version_minor);
		on_hello(k, &peer, e->hello, e->version_major, e->version_minor);
		goto out;
	}
	/* with keys, the agent is the one its key names (ZAP User-Id), never a routing id */
	a = k->zap ? agent_by_name(k, peer.user_id) : agent_by_peer(k, &peer);
	if (a && k->zap && !a->seen)
		a = NULL;
	if (!a) {
		rb_debug("%s from an unregistered peer ignored", rb_wire_body_name(e));
		goto out;
	}
	if (k->zap && !same_peer(&a->peer, &peer)) {
		rb_info("agent '%s' is on a new connection with its key: it replaces the previous "
			"one", a->name);
		a->peer = peer;
	}
	if (k->zap && strcmp(peer.user_id, a->name)) {
		rb_warn("dropped %s: sent as agent '%s' with the key of '%s'", rb_wire_body_name(e),
			a->name, peer.user_id);
		goto out;
	}
	a->last_seen_ns = rb_mono_ns(); /* any traffic counts */
	if (a->lost) {
		a->lost = false;
		rb_info("agent '%s' is back", a->name);
	}
	/* a numbered data message: once, in order, journaled before it is acknowledged */
	if (e->seq) {
		struct seqpos *x = seq_pos(a, e->epoch);

		x->due = true;
		if (e->seq <= x->seq && k->ngaps && gap_fill(k, a, e->epoch, e->seq)) {
			/* what a damaged journal lacked: stored again, applied as it comes */
			if (journal(k, a, raw, rawlen))
				goto out;
			x->due = false;
			k->replaying = true; /* of a point the journal holds: as a replay of it */
			dispatch(k, a, e, t3);
			k->replaying = false;
			goto out;
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
			goto out; /* a duplicate, or past a gap the agent will fill by sending again */
		/* not stored: not applied either; the agent still holds it */
		if (journal(k, a, raw, rawlen))
			goto out;
		x->seq = e->seq;
	}
	dispatch(k, a, e, t3);
out:
	free(raw);
	rb_wire_free(e);
	return 0;
}

/* Applies one message of agent a (received at t3, our clock). */
static void dispatch(struct coord *k, struct ragent *a, const Rb__Envelope *e, int64_t t3)
{
	switch (e->body_case) {
	case RB__ENVELOPE__BODY_PREFLIGHT_REPLY:
		for (size_t i = 0; i < e->preflight_reply->n_refusals; i++) {
			const Rb__Diagnostic *d = e->preflight_reply->refusals[i];

			fprintf(stderr, "  agent '%s' drive '%s': %s\n", a->name, d->subject,
				d->message);
			k->refusals++;
			int di = agent_drive(k, a, d->subject);

			if (di >= 0 && k->refused)
				k->refused[di] = true;
		}
		a->replied = true;
		break;
	case RB__ENVELOPE__BODY_SAMPLES:
		if (k->res)
			on_samples(k, a, e->samples);
		break;
	case RB__ENVELOPE__BODY_HEALTH:
		if (k->res)
			on_health(k, a, e->health);
		break;
	case RB__ENVELOPE__BODY_RESULT:
		if (k->res)
			on_result(k, a, e->result);
		break;
	case RB__ENVELOPE__BODY_POINT_DONE:
		/* dropped, and now idle: it runs the next point again */
		if (a->dropped && e->point_done->point == a->drop_point &&
		    e->point_done->attempt == a->drop_attempt)
			a->rejoin = true;
		if (e->point_done->point == k->cur_point && e->point_done->attempt == a->attempt)
			a->done = true;
		break;
	case RB__ENVELOPE__BODY_HEARTBEAT:
		break;
	case RB__ENVELOPE__BODY_TIME_REPLY:
		rb_clock_add(&a->clk, e->time_reply->t0, e->time_reply->t1, e->time_reply->t2, t3);
		break;
	case RB__ENVELOPE__BODY_ERROR:
		rb_err("agent '%s': %s", a->name, e->error->message);
		break;
	default:
		rb_debug("ignoring %s from '%s'", rb_wire_body_name(e), a->name);
		break;
	}
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

static bool stopped(struct coord *k)
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
 * Pumps messages until every agent's flag (a bool member of struct ragent at offset
 * flag) is set. On the deadline names each agent still missing as "agent 'X' did not
 * WHAT" and returns timeout_rc; RB_EXIT_FAILED when stopped.
 */
static int await_agents(struct coord *k, size_t flag, int64_t deadline, const char *what,
			int timeout_rc)
{
	for (;;) {
		size_t waiting = 0;

		for (size_t i = 0; i < k->c->nagents; i++)
			waiting += !*(bool *)((char *)&k->agents[i] + flag);
		if (!waiting)
			return 0;
		if (stopped(k))
			return RB_EXIT_FAILED;
		if (rb_mono_ns() >= deadline) {
			for (size_t i = 0; i < k->c->nagents; i++)
				if (!*(bool *)((char *)&k->agents[i] + flag))
					rb_err("agent '%s' did not %s", k->agents[i].name, what);
			return timeout_rc;
		}
		pump(k, 100);
		drain(k);
	}
}

static int wait_agents(struct coord *k)
{
	int64_t deadline = rb_mono_ns() + (int64_t)k->c->wait_ns;
	char wait[32];
	char what[64];
	size_t grouped = 0;
	int rc;

	for (size_t g = 0; g < k->c->ngroups; g++)
		grouped += k->c->groups[g].count;
	rb_info("waiting up to %s for %zu agent(s)",
		rb_fmt_duration(k->c->wait_ns, wait, sizeof(wait)), k->c->nagents + grouped);
	snprintf(what, sizeof(what), "connect within %s", wait);
	rc = await_agents(k, offsetof(struct ragent, seen), deadline, what, RB_EXIT_FAILED);
	if (rc || !k->c->ngroups)
		return rc;
	/* the groups: until each has its count of matching agents */
	while (groups_short(k, false, false)) {
		if (stopped(k))
			return RB_EXIT_FAILED;
		if (rb_mono_ns() >= deadline) {
			groups_short(k, true, false);
			return RB_EXIT_FAILED;
		}
		pump(k, 100);
		drain(k);
	}
	return resolve_groups(k);
}

static int check_offered(struct coord *k)
{
	int rc = 0;
	bool curves = false;

	for (size_t i = 0; i < k->c->npoints; i++)
		curves |= k->c->points[i].curve_pct > 0 || k->c->points[i].purge[0];
	/* an agent of 1.0 ignores per-drive rates and purges: it would run the wrong IO */
	for (size_t i = 0; curves && i < k->c->nagents; i++)
		if (k->agents[i].minor < 1) {
			rb_err("agent '%s' speaks protocol %s: this campaign's curves or purges need "
			       "1.1 or newer; upgrade the agent",
			       k->agents[i].name, k->agents[i].proto);
			rc = RB_EXIT_USAGE;
		}

	for (size_t i = 0; i < k->c->ndrives; i++) {
		const struct rb_drive_ref *d = &k->c->drives[i];
		struct ragent *a = agent_by_name(k, d->agent);

		if (d->nmembers && a->minor < 3) {
			rb_err("agent '%s' speaks protocol %s: volume '%s' needs 1.3 or newer; upgrade "
			       "the agent", a->name, a->proto, d->path);
			rc = RB_EXIT_USAGE;
		}
		for (size_t m = 0; m < (d->nmembers ? d->nmembers : 1); m++) {
			const char *path = d->nmembers ? d->members[m].path : d->path;
			bool found = false;

			for (size_t t = 0; t < a->ntargets; t++)
				found |= !strcmp(a->targets[t].path, path);
			if (!found) {
				rb_err("%s: drive '%s'%s%s%s is not offered by agent '%s' (its --target "
				       "list)", k->c->file, path, d->nmembers ? " (of volume '" : "",
				       d->nmembers ? d->path : "", d->nmembers ? "')" : "", a->name);
				rc = RB_EXIT_USAGE;
			}
		}
	}
	return rc;
}

/* The agent's drives of point p (NULL: of the campaign), their identity pins in
 * ret_serials. */
static char **agent_drives(struct coord *k, struct ragent *a, const struct rb_point *p,
			   size_t *ret_n, char ***ret_serials)
{
	char **v = calloc(k->c->ndrives + 1, sizeof(*v));
	char **s = calloc(k->c->ndrives + 1, sizeof(*s));
	size_t n = 0;

	for (size_t i = 0; v && s && i < k->c->ndrives; i++)
		if (!strcmp(k->c->drives[i].agent, a->name) &&
		    (!p || rb_point_has_drive(k->c, p, i))) {
			s[n] = k->c->drives[i].serial;
			v[n++] = k->c->drives[i].path;
		}
	*ret_n = n;
	*ret_serials = s;
	return v;
}

/* The agent's volumes, for a Preflight or an Assign: units at point p (NULL: their own). */
static Rb__Volume **agent_volumes(struct coord *k, struct ragent *a, const struct rb_point *p,
				  size_t *ret_n)
{
	size_t n = 0;
	Rb__Volume **v = NULL;

	for (size_t i = 0; i < k->c->ndrives; i++) {
		const struct rb_drive_ref *d = &k->c->drives[i];
		Rb__Volume *x, **nv;

		if (!d->nmembers || strcmp(d->agent, a->name) ||
		    (p && !rb_point_has_drive(k->c, p, i)))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		x = calloc(1, sizeof(*x));
		if (!x)
			break;
		rb__volume__init(x);
		x->name = d->path;
		x->stripe = p ? rb_volume_unit(d, p) : d->stripe;
		x->members = calloc(d->nmembers, sizeof(char *));
		x->serials = calloc(d->nmembers, sizeof(char *));
		for (size_t m = 0; x->members && x->serials && m < d->nmembers; m++) {
			x->members[m] = d->members[m].path;
			x->serials[m] = d->members[m].serial;
		}
		x->n_members = x->n_serials = x->members && x->serials ? d->nmembers : 0;
		v[n++] = x;
	}
	*ret_n = n;
	return v;
}

static void volumes_free(Rb__Volume **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i]->members);
		free(v[i]->serials);
		free(v[i]);
	}
	free(v);
}

static void send_preflight(struct coord *k, struct ragent *a)
{
	Rb__Envelope e;
	Rb__Preflight pf = RB__PREFLIGHT__INIT;

	pf.drives = agent_drives(k, a, NULL, &pf.n_drives, &pf.serials);
	pf.n_serials = pf.n_drives;
	pf.writes = rb_campaign_writes(k->c);
	pf.destructive = k->c->destructive;
	pf.wipe_signatures = k->c->wipe_signatures;
	pf.volumes = agent_volumes(k, a, NULL, &pf.n_volumes);
	rb_wire_init(&e);
	e.body_case = RB__ENVELOPE__BODY_PREFLIGHT;
	e.preflight = &pf;
	send_to(k, a, &e);
	a->asked_ns = rb_mono_ns();
	free(pf.drives);
	free(pf.serials);
	volumes_free(pf.volumes, pf.n_volumes);
}

static int preflight(struct coord *k)
{
	bool writes = rb_campaign_writes(k->c);
	int64_t deadline = rb_mono_ns() + 30LL * 1000000000LL;
	int rc;

	for (size_t i = 0; i < k->c->nagents; i++)
		send_preflight(k, &k->agents[i]);
	k->preflighting = true;
	if (writes)
		fprintf(stderr, "rackbench: checking %zu drive(s) with the safety guard\n",
			k->c->ndrives);
	rc = await_agents(k, offsetof(struct ragent, replied), deadline, "answer the safety check",
			  RB_EXIT_FAILED);
	k->preflighting = false;
	if (rc)
		return rc;
	if (k->refusals) {
		rb_err("refused by the safety guard (%zu reason(s) above); nothing was written "
		       "to any drive",
		       k->refusals);
		return RB_EXIT_REFUSED;
	}
	return 0;
}

static void write_static_rows(struct coord *k)
{
	const struct rb_campaign *c = k->c;

	for (size_t i = 0; i < c->nagents; i++) {
		struct ragent *a = &k->agents[i];
		struct rb_row_agent row;

		memset(&row, 0, sizeof(row));
		copy(row.name, sizeof(row.name), a->name);
		copy(row.host, sizeof(row.host), a->host);
		copy(row.kernel, sizeof(row.kernel), a->kernel);
		copy(row.rb_version, sizeof(row.rb_version), a->version);
		copy(row.protocol, sizeof(row.protocol), a->proto);
		row.registered_ns = a->registered_ns;
		row.clock_offset_ns = rb_clock_offset(&a->clk, &row.clock_delay_ns);
		rb_results_agent(k->res, &row);
	}
	rb_results_flush(k->res);
}

/* A point's row goes in when the point starts: rounds a steady state skips never run. */
static void write_point_row(struct coord *k, const struct rb_point *p)
{
	const struct rb_campaign *c = k->c;
	struct rb_row_point row;

	memset(&row, 0, sizeof(row));
	row.point = p->index;
	copy(row.phase, sizeof(row.phase), c->phases[p->phase].name);
	copy(row.name, sizeof(row.name), p->name);
	copy(row.rw, sizeof(row.rw), p->purge[0] ? "purge" : rb_rw_name(p->wl.rw));
	row.bs_bytes = p->wl.bs;
	row.iodepth = p->wl.iodepth;
	row.numjobs = p->wl.numjobs;
	row.rwmixread_pct = p->wl.rwmixread;
	row.runtime_ns = p->wl.runtime_ns;
	row.ramp_ns = p->wl.ramp_ns;
	row.rate_iops = p->wl.rate_iops;
	row.direct = (uint8_t)p->wl.direct;
	copy(row.engine, sizeof(row.engine), rb_engine_name(p->wl.engine));
	rb_workload_dump(&p->wl, row.settings, sizeof(row.settings));
	if (p->purge[0]) {
		/* no IO: the point is the purge */
		snprintf(row.settings, sizeof(row.settings), "purge=%s ses=%u", p->purge, p->purge_ses);
		row.engine[0] = '\0';
		row.bs_bytes = 0;
		row.iodepth = row.numjobs = 0;
		row.runtime_ns = row.ramp_ns = 0;
	}
	row.round = p->round;
	row.track = p->track;
	row.curve_pct = p->curve_pct;
	rb_results_point(k->res, &row);
}

/* What agent a said of its target path (Hello, then as opened for a point). */
static struct rtarget *target_by_path(struct ragent *a, const char *path)
{
	for (size_t t = 0; a && t < a->ntargets; t++)
		if (!strcmp(a->targets[t].path, path))
			return &a->targets[t];
	return NULL;
}

static const struct rtarget *target_of(struct coord *k, size_t di)
{
	return target_by_path(agent_by_name(k, k->c->drives[di].agent), k->c->drives[di].path);
}

/* A target's identity into a row of the drives or the members table (the same columns). */
#define ROW_IDENTITY(row, ti)                                                     \
	do {                                                                      \
		copy((row)->kind, sizeof((row)->kind), (ti)->kind);               \
		copy((row)->model, sizeof((row)->model), (ti)->model);            \
		copy((row)->serial, sizeof((row)->serial), (ti)->serial);         \
		copy((row)->firmware, sizeof((row)->firmware), (ti)->firmware);   \
		(row)->capacity_bytes = (ti)->size;                               \
		(row)->logical_block_size = (ti)->lbs;                            \
	} while (0)

/* Appends s to a '+'-joined list, once. */
static void join(char *dst, size_t len, const char *s)
{
	size_t n = strlen(dst), l = strlen(s);

	for (const char *p = dst; *s && (p = strstr(p, s)); p += l)
		if ((p == dst || p[-1] == '+') && (p[l] == '+' || !p[l]))
			return;
	if (*s)
		snprintf(dst + n, len - n, "%s%s", n ? "+" : "", s);
}

/*
 * A volume's row in the drives table: its kind, what its members have in common (each
 * member's own identity is in the members table), and its size as the agent opened it
 * (else whole units of the smallest member, times the members).
 */
static void volume_row(struct coord *k, size_t i, struct rb_row_drive *row)
{
	const struct rb_drive_ref *d = &k->c->drives[i];
	struct ragent *a = agent_by_name(k, d->agent);
	uint64_t min = UINT64_MAX;

	copy(row->kind, sizeof(row->kind), "volume");
	row->stripe_bytes = d->stripe;
	row->members = (uint32_t)d->nmembers;
	for (size_t m = 0; m < d->nmembers; m++) {
		const struct rtarget *t = target_by_path(a, d->members[m].path);

		if (!t)
			continue;
		join(row->model, sizeof(row->model), t->model);
		join(row->serial, sizeof(row->serial), t->serial);
		join(row->firmware, sizeof(row->firmware), t->firmware);
		if (t->size < min)
			min = t->size;
		if (t->lbs > row->logical_block_size)
			row->logical_block_size = t->lbs;
	}
	if (k->vinfo[i].size)
		row->capacity_bytes = k->vinfo[i].size;
	else if (min != UINT64_MAX && d->stripe)
		row->capacity_bytes = min / d->stripe * d->stripe * d->nmembers;
}

/*
 * Drive rows go in once the drives' identity is known from a point's results (file
 * targets are laid out on first use), or at the end if no point ran.
 */
static void write_drive_rows(struct coord *k)
{
	const struct rb_campaign *c = k->c;

	if (k->drives_written)
		return;
	k->drives_written = true;
	for (size_t i = 0; i < c->ndrives; i++) {
		const struct rb_drive_ref *d = &c->drives[i];
		struct ragent *a = agent_by_name(k, d->agent);
		struct rb_row_drive row;
		const struct rtarget *ti;

		memset(&row, 0, sizeof(row));
		row.drive = (uint32_t)i;
		copy(row.agent, sizeof(row.agent), a->name);
		copy(row.host, sizeof(row.host), a->host);
		copy(row.path, sizeof(row.path), d->path);
		if (d->nmembers) {
			volume_row(k, i, &row);
		} else if ((ti = target_of(k, i))) {
			ROW_IDENTITY(&row, ti);
		}
		rb_results_drive(k->res, &row);
		for (size_t m = 0; m < d->nmembers; m++) {
			struct rb_row_member mr;

			memset(&mr, 0, sizeof(mr));
			mr.drive = (uint32_t)i;
			mr.member = (uint32_t)m;
			copy(mr.path, sizeof(mr.path), d->members[m].path);
			if ((ti = target_by_path(a, d->members[m].path)))
				ROW_IDENTITY(&mr, ti);
			rb_results_member(k->res, &mr);
		}
	}
	rb_results_flush(k->res);
}

/*
 * Sends the point to one agent, as the given attempt, to start at the point's common
 * instant or (a re-run of one agent's part) at once. Returns 0 or RB_EXIT_FAILED.
 */
static int assign(struct coord *k, struct ragent *a, const struct rb_point *p, uint32_t attempt,
		  bool at_start)
{
	Rb__Envelope e;
	Rb__Assign as = RB__ASSIGN__INIT;
	Rb__Setting st[64], *sp[64];
	char *vals = malloc(64 * (size_t)RB_OPT_VALUE_MAX);

	if (!vals)
		return RB_EXIT_FAILED;
	a->done = false;
	a->attempt = attempt;
	if (a->assigned && a->assigned[p->index] < attempt + 1)
		a->assigned[p->index] = attempt + 1;
	as.point = p->index;
	as.attempt = attempt;
	as.destructive = k->c->destructive;
	as.wipe_signatures = k->c->wipe_signatures;
	as.drives = agent_drives(k, a, p, &as.n_drives, &as.serials);
	as.n_serials = as.n_drives;
	as.purge = (char *)p->purge;
	as.purge_ses = p->purge_ses;
	as.volumes = agent_volumes(k, a, p, &as.n_volumes);
	/* the point's instant in the agent's clock */
	if (k->start_at && at_start && a->clk.n)
		as.start_at_ns = k->start_at + rb_clock_offset(&a->clk, NULL);
	uint64_t *rates = NULL;

	if (p->curve_pct > 0 && as.n_drives) {
		rates = calloc(as.n_drives, sizeof(*rates));
		for (size_t i = 0; rates && i < as.n_drives; i++)
			rates[i] = curve_rate(k, p, agent_drive(k, a, as.drives[i]));
		as.drive_rate_iops = rates;
		as.n_drive_rate_iops = rates ? as.n_drives : 0;
	}
	/* the workload travels as text of the option table, parsed by the same table */
	for (size_t o = 0; o < rb_workload_nopts && o < 64; o++) {
		rb__setting__init(&st[o]);
		st[o].key = (char *)rb_workload_opts[o].key;
		st[o].value = rb_opt_format(&p->wl, &rb_workload_opts[o],
					    vals + o * RB_OPT_VALUE_MAX, RB_OPT_VALUE_MAX);
		sp[o] = &st[o];
	}
	as.n_settings = rb_workload_nopts < 64 ? rb_workload_nopts : 64;
	as.settings = sp;
	rb_wire_init(&e);
	e.body_case = RB__ENVELOPE__BODY_ASSIGN;
	e.assign = &as;
	if (as.n_drives && !a->dropped) {
		send_to(k, a, &e);
		a->asked_ns = rb_mono_ns();
		free(a->assign_msg);
		a->assign_msg = NULL;
		/* kept packed: sent again if the agent turns out never to have had it */
		rb_wire_pack(&e, &a->assign_msg, &a->assign_len);
	} else {
		a->done = true;
	}
	free(vals);
	free(as.drives);
	free(as.serials);
	volumes_free(as.volumes, as.n_volumes);
	free(rates);
	return 0;
}

/* An agent given up on: its drives get 'lost' rows for the point, and it gets no more. */
static void drop_agent(struct coord *k, struct ragent *a, const struct rb_point *p)
{
	if (!a->dropped) {
		rb_err("agent '%s' is lost: point %u ('%s') is partial, and the campaign goes on "
		       "without it", a->name, p->index, p->name);
		a->drop_point = p->index;
		a->drop_attempt = a->attempt;
		a->rejoin = false;
	}
	a->dropped = true;
	a->done = true;
	for (size_t i = 0; i < k->c->ndrives; i++) {
		struct rb_row_result row;

		if (strcmp(k->c->drives[i].agent, a->name) || !rb_point_has_drive(k->c, p, i))
			continue;
		memset(&row, 0, sizeof(row));
		row.drive = (uint32_t)i;
		row.point = p->index;
		row.attempt = a->attempt;
		copy(row.status, sizeof(row.status), "lost");
		snprintf(row.message, sizeof(row.message), "agent '%s' lost during the point",
			 a->name);
		row.health_max_temp_c = NAN;
		row.health_new_media_errors = NAN;
		rb_results_result(k->res, &row);
		k->sum[(size_t)p->index * k->c->ndrives + i] =
			(struct summary){ .have = true, .status = "lost" };
		k->bad_drives++;
	}
}

#define LOST_AFTER_NS 5000000000LL /* no traffic for this long during a point: lost */

/* Per-point state, before the point's messages come (live or from the journal). */
static void point_begin(struct coord *k, const struct rb_point *p)
{
	k->cur_point = p->index;
	free(k->skeys);
	k->skeys = NULL;
	k->nskeys = 0;
	k->skeys_mask = 0;
	for (size_t i = 0; i < k->c->ndrives; i++)
		k->health[i] = (struct hstate){ .max_temp_c = NAN };
	/* a rolling steady state judges this point's intervals as they come */
	k->roll_stopped = false;
	k->roll_steady = 0;
	k->point_drives = 0;
	for (size_t i = 0; i < k->c->ndrives; i++)
		k->point_drives += rb_point_has_drive(k->c, p, i);
	roll_free(k);
	if (k->c->phases[p->phase].steady_rolling)
		k->roll = calloc(k->c->ndrives + 1, sizeof(*k->roll));
}

/* Runs point p on every agent as the given attempt (0, or the next after a resume). */
static int run_point(struct coord *k, const struct rb_point *p, uint32_t attempt)
{
	/* a purge may take hours (a sanitize); the agent's heartbeats say it is alive */
	int64_t budget = p->purge[0] ? 6LL * 3600 * 1000000000LL
				     : (int64_t)(p->wl.ramp_ns + p->wl.runtime_ns) * 2 +
					       60LL * 1000000000LL;
	int64_t deadline = rb_mono_ns() + budget, next_flush = rb_mono_ns() + 5000000000LL;

	point_begin(k, p);
	k->in_point = true;
	/* every agent starts the point at one instant, far enough ahead for the messages */
	k->start_at = rb_mono_ns() + 200000000LL;
	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->agents[i];

		if (a->dropped && a->rejoin && !a->lost &&
		    rb_mono_ns() - a->last_seen_ns <= LOST_AFTER_NS) {
			rb_info("agent '%s' is back: it takes part again from point %u", a->name,
				p->index);
			a->dropped = false;
		}
		k->agents[i].last_seen_ns = rb_mono_ns();
		k->agents[i].lost = false;
		k->agents[i].reassign = false;
		if (assign(k, &k->agents[i], p, attempt, true))
			return RB_EXIT_FAILED;
		if (k->agents[i].dropped)
			drop_agent(k, &k->agents[i], p);
	}
	for (;;) {
		size_t waiting = 0;
		int64_t now = rb_mono_ns();

		for (size_t i = 0; i < k->c->nagents; i++) {
			struct ragent *a = &k->agents[i];

			if (a->done)
				continue;
			waiting++;
			if (a->reassign) {
				/* it restarted and lost the point: run it again, as a new attempt */
				a->reassign = false;
				a->lost = false;
				rb_warn("agent '%s' restarted during point %u: running it again as "
					"attempt %u", a->name, p->index, a->attempt + 1);
				assign(k, a, p, a->attempt + 1, false);
				if (now + budget > deadline)
					deadline = now + budget;
			} else if (!a->lost && now - a->last_seen_ns > LOST_AFTER_NS) {
				a->lost = true;
				rb_warn("agent '%s': nothing heard for 5 s during point %u", a->name,
					p->index);
				if (k->c->on_agent_lost == RB_LOST_ABORT) {
					rb_err("aborting: the campaign says on_agent_lost: abort");
					k->lost_abort = true;
					return RB_EXIT_FAILED;
				}
				if (k->c->on_agent_lost == RB_LOST_CONTINUE)
					drop_agent(k, a, p);
				else
					a->lost_deadline = now + (int64_t)k->c->lost_wait_ns;
			} else if (a->lost && now - a->last_seen_ns <= LOST_AFTER_NS) {
				a->lost = false;
				rb_info("agent '%s' is back", a->name);
			} else if (a->lost && now >= a->lost_deadline) {
				drop_agent(k, a, p);
			}
		}
		if (!waiting)
			break;
		if (stopped(k))
			return RB_EXIT_FAILED;
		if (now >= deadline) {
			for (size_t i = 0; i < k->c->nagents; i++)
				if (!k->agents[i].done) {
					rb_err("agent '%s' did not finish point %u in time",
					       k->agents[i].name, p->index);
					drop_agent(k, &k->agents[i], p);
				}
			break;
		}
		pump(k, 100);
		drain(k);
		rb_progress_tick(k->prog);
		/* rows reach the file every few seconds (or every 32 MiB of them), not only at
		 * the point's end: memory stays bounded on long points and large fleets */
		if (now >= next_flush || rb_results_buffered(k->res) > (32u << 20)) {
			if (rb_results_flush(k->res))
				store_failed(k, "write the results file (HDF5 append failed)", EIO);
			next_flush = now + 5000000000LL;
		}
	}
	k->in_point = false;
	if (rb_results_flush(k->res))
		store_failed(k, "write the results file (HDF5 append failed)", EIO);
	return 0;
}

static void stop_agents(struct coord *k, const char *reason)
{
	for (size_t i = 0; i < k->c->nagents; i++) {
		struct ragent *a = &k->agents[i];
		Rb__Envelope e;
		Rb__Stop s = RB__STOP__INIT;

		if (!a->seen)
			continue;
		s.reason = (char *)reason;
		rb_wire_init(&e);
		e.body_case = RB__ENVELOPE__BODY_STOP;
		e.stop = &s;
		send_to(k, a, &e);
	}
}

static void print_summary(struct coord *k, FILE *out)
{
	const struct rb_campaign *c = k->c;

	fprintf(out, "\n%-40s %-28s %12s %10s %12s %12s\n", "point", "drive", "IOPS", "MB/s",
		"mean lat us", "p99 lat us");
	for (size_t p = 0; p < c->npoints; p++) {
		for (size_t d = 0; d < c->ndrives; d++) {
			const struct summary *s = &k->sum[p * c->ndrives + d];
			char drive[300];

			if (!rb_point_has_drive(c, &c->points[p], d))
				continue;
			snprintf(drive, sizeof(drive), "%s:%s", c->drives[d].agent,
				 c->drives[d].path);
			if (strlen(drive) > 28)
				memmove(drive + 1, drive + strlen(drive) - 27, 28), drive[0] = '~';
			if (!s->have) {
				fprintf(out, "%-40.40s %-28s %12s\n", c->points[p].name, drive,
					"(no result)");
				continue;
			}
			if (strcmp(s->status, "ok")) {
				fprintf(out, "%-40.40s %-28s %12s\n", c->points[p].name, drive,
					s->status);
				continue;
			}
			fprintf(out, "%-40.40s %-28s %12.0f %10.1f %12.1f %12.1f\n",
				c->points[p].name, drive, s->iops, s->mbps, s->mean_ns / 1e3,
				(double)s->p99_ns / 1e3);
		}
	}
}

/*
 * After round `round` of steady-state phase `ph`: judges every drive's tracking values
 * (SNIA PTS). When every drive that has them is steady, or at the last round, writes
 * the verdicts and marks the phase's results rows; returns true to end the phase.
 */
static bool steady_check(struct coord *k, unsigned ph, unsigned round)
{
	const struct rb_campaign *c = k->c;
	const struct rb_phase *P = &c->phases[ph];
	size_t *track = calloc(round + 1, sizeof(*track));
	double *y = calloc(round + 1, sizeof(*y));
	bool all = true, any = false, final = round >= P->steady_rounds;

	if (!track || !y) {
		free(track);
		free(y);
		return false;
	}
	for (size_t i = 0; i < c->npoints; i++)
		if (c->points[i].phase == ph && c->points[i].track && c->points[i].round <= round)
			track[c->points[i].round - 1] = i;
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0 decides; pass 1 (when the phase ends) records */
		for (size_t d = 0; d < c->ndrives; d++) {
			struct rb_steady st;
			bool complete = true;
			long at;

			if (!rb_point_has_drive(c, &c->points[track[0]], d))
				continue;
			for (unsigned r = 0; r < round; r++) {
				const struct summary *s = &k->sum[track[r] * c->ndrives + d];

				complete &= s->have && !strcmp(s->status, "ok");
				y[r] = P->metric == RB_TRACK_MBPS	 ? s->mbps
				       : P->metric == RB_TRACK_MEAN_LAT ? s->mean_ns / 1e3
									: s->iops;
			}
			at = complete ? rb_steady_find(y, round, P->steady_window, &st) : -1;
			if (!complete)
				memset(&st, 0, sizeof(st));
			if (pass == 0) {
				any |= complete;
				all &= !complete || at >= 0;
				continue;
			}
			struct rb_row_steady row;

			memset(&row, 0, sizeof(row));
			row.drive = (uint32_t)d;
			copy(row.phase, sizeof(row.phase), P->name);
			row.point = (uint32_t)track[round - 1];
			copy(row.metric, sizeof(row.metric), track_metric[P->metric]);
			row.rounds = round;
			row.window = P->steady_window;
			row.steady = at >= 0;
			row.steady_round = at >= 0 ? (uint32_t)at + 1 : 0;
			steady_fill(&row, &st);
			rb_results_steady(k->res, &row);
			for (size_t i = 0; i < k->nss; i++) {
				const struct ss_row *x = &k->ss[i];
				bool in = at >= 0 && x->round <= (unsigned)at + 1 &&
					  x->round + P->steady_window > (unsigned)at + 1;

				if (x->drive == (int)d)
					rb_results_set_steady(k->res, x->row, in ? 1 : 2);
			}
			if (at >= 0)
				rb_info("phase '%s': drive %s:%s steady at round %ld (window %ld-%ld, "
					"average %.6g %s)",
					P->name, c->drives[d].agent, c->drives[d].path, at + 1,
					at + 2 - (long)P->steady_window, at + 1, st.avg,
					track_metric[P->metric]);
			else
				rb_warn("phase '%s': drive %s:%s not steady after %u round(s)", P->name,
					c->drives[d].agent, c->drives[d].path, round);
		}
		if (pass == 0 && !(any && all) && !final)
			break;
	}
	free(track);
	free(y);
	if ((any && all) || final) {
		k->nss = 0;
		return true;
	}
	return false;
}

/* Idle time after a point: keep taking messages (heartbeats), stop on a signal. */
static void idle(struct coord *k, uint64_t ns)
{
	char d[32];

	if (!ns)
		return;
	rb_info("idle %s", rb_fmt_duration(ns, d, sizeof(d)));
	for (int64_t until = rb_mono_ns() + (int64_t)ns; rb_mono_ns() < until && !stopped(k);) {
		pump(k, 100);
		rb_progress_tick(k->prog);
	}
}

/* The identity an agent reported for one of its drives, or NULL. */

/*
 * plan --resolve: what the campaign selects, as the agents see it, and what the guard
 * says; --lock writes the identities a destructive campaign will write (only when the
 * guard let every drive through).
 */
/* Whether device path of drive i's agent comes up before (drive i, member m). */
static bool listed_before(const struct rb_campaign *c, size_t i, size_t m, const char *path)
{
	for (size_t j = 0; j <= i; j++) {
		const struct rb_drive_ref *d = &c->drives[j];
		size_t n = d->nmembers ? d->nmembers : 1;

		if (strcmp(d->agent, c->drives[i].agent))
			continue;
		for (size_t k = 0; k < (j == i ? m : n); k++)
			if (!strcmp(d->nmembers ? d->members[k].path : d->path, path))
				return true;
	}
	return false;
}

static int resolve(struct coord *k, const char *lock, int rc)
{
	const struct rb_campaign *c = k->c;
	char sz[32], method[24];
	FILE *f = NULL;
	size_t unpinnable = 0;

	printf("%-12s %-36s %-6s %-24s %-20s %-10s %9s  %s\n", "agent", "path", "kind", "model",
	       "serial", "firmware", "size", "guard");
	for (size_t i = 0; i < c->ndrives; i++) {
		const struct rb_drive_ref *d = &c->drives[i];
		struct ragent *a = agent_by_name(k, d->agent);
		const char *verdict = k->refused[i] ? "REFUSED (reasons above)"
				      : rb_campaign_writes(c) ? "writes allowed" : "reads only";

		if (d->nmembers) {
			struct rb_row_drive v;
			char u[32], label[64];

			memset(&v, 0, sizeof(v));
			volume_row(k, i, &v);
			snprintf(label, sizeof(label), "%zu x %s", d->nmembers,
				 rb_fmt_size(d->stripe, u, sizeof(u)));
			printf("%-12s %-36s %-6s %-24s %-20s %-10s %9s  %s\n", d->agent, d->path,
			       "volume", label, "-", "-", rb_fmt_size(v.capacity_bytes, sz, sizeof(sz)),
			       verdict);
		}
		for (size_t m = 0; m < (d->nmembers ? d->nmembers : 1); m++) {
			const char *path = d->nmembers ? d->members[m].path : d->path;
			const struct rtarget *t = target_by_path(a, path);
			char shown[300];

			snprintf(shown, sizeof(shown), "%s%s", d->nmembers ? "  + " : "", path);
			printf("%-12s %-36s %-6s %-24s %-20s %-10s %9s  %s\n", d->agent, shown,
			       t ? t->kind : "?", t && t->model[0] ? t->model : "-",
			       t && t->serial[0] ? t->serial : "-",
			       t && t->firmware[0] ? t->firmware : "-",
			       t ? rb_fmt_size(t->size, sz, sizeof(sz)) : "?",
			       d->nmembers ? "(member)" : verdict);
		}
	}
	if (!lock)
		return rc;
	if (rc) {
		rb_err("no lock written: the guard refused a drive, or an agent did not answer");
		return rc;
	}
	if (!rb_campaign_writes(c))
		rb_warn("campaign '%s' does not write: a lock pins drives all the same", c->name);
	f = fopen(lock, "wxe");
	if (!f) {
		rb_err("cannot create lock file '%s': %s (it exists, or the folder is not "
		       "writable)", lock, strerror(errno));
		return RB_EXIT_USAGE;
	}
	fprintf(f, "# rackbench lock: the drives campaign '%s' writes, by identity.\n"
		   "# Written by 'rackbench plan --lock'; a campaign with 'lock: THIS-FILE' runs only\n"
		   "# if each drive still reports the serial below.\n"
		   "campaign: %s\nmethodology: %s\ndrives:\n",
		c->name, c->name, rb_campaign_methodology(c, method, sizeof(method)));
	/* a volume's members are locked one by one: they are what gets written */
	size_t locked = 0;
	bool vols = false;

	for (size_t i = 0; i < c->ndrives; i++)
		vols |= c->drives[i].nmembers > 0;

	for (size_t i = 0; i < c->ndrives; i++) {
		const struct rb_drive_ref *d = &c->drives[i];

		for (size_t m = 0; m < (d->nmembers ? d->nmembers : 1); m++) {
			const char *path = d->nmembers ? d->members[m].path : d->path;
			const struct rtarget *t = target_by_path(agent_by_name(k, d->agent), path);

			if (vols && listed_before(c, i, m, path))
				continue; /* in several volumes: locked once */

			fprintf(f, "  - {agent: \"%s\", path: \"%s\", serial: \"%s\", model: \"%s\", "
				   "firmware: \"%s\", size: %llu}\n",
				d->agent, path, t ? t->serial : "", t ? t->model : "",
				t ? t->firmware : "", (unsigned long long)(t ? t->size : 0));
			if (!t || !t->serial[0])
				unpinnable++;
			locked++;
		}
	}
	if (fclose(f)) {
		rb_err("cannot write lock file '%s'", lock);
		return RB_EXIT_FAILED;
	}
	printf("lock: %s (%zu drive(s)", lock, locked);
	if (unpinnable)
		printf("; %zu without a serial (files, loop devices) are recorded, not pinned",
		       unpinnable);
	printf(")\n");
	return 0;
}

/* The run's results file: the campaign's name made a file name, inside the folder. */
static int results_path(const struct rb_campaign *c, char *buf, size_t len)
{
	return rb_campaign_results_path(c, time(NULL), buf, len);
}

/*
 * Each selector's drives, from what its agent offered: every target matching it, which
 * must be exactly the expected count; a selected drive is pinned to the serial it was
 * chosen by. Returns 0 or RB_EXIT_USAGE naming what is missing.
 */
static int select_drives(struct coord *k, struct rb_campaign *c)
{
	int rc = 0;
	bool volumes = false;

	for (size_t d = 0; d < c->ndrives && !volumes; d++)
		volumes = c->drives[d].nmembers > 0;

	for (size_t s = 0; s < c->nselectors; s++) {
		const struct rb_selector *sel = &c->selectors[s];
		struct ragent *a = agent_by_name(k, sel->agent);
		unsigned found = 0;
		char what[256];

		what[0] = '\0';
		if (sel->model[0])
			snprintf(what, sizeof(what), "model ~ %s", sel->model);
		if (sel->serial[0])
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%sserial = %s",
				 what[0] ? ", " : "", sel->serial);
		if (sel->firmware[0])
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "%sfirmware ~ %s",
				 what[0] ? ", " : "", sel->firmware);
		for (size_t t = 0; a && t < a->ntargets; t++) {
			const struct rtarget *x = &a->targets[t];

			if ((sel->model[0] && !strstr(x->model, sel->model)) ||
			    (sel->serial[0] && strcmp(x->serial, sel->serial)) ||
			    (sel->firmware[0] && !strstr(x->firmware, sel->firmware)) ||
			    (volumes && volume_member(k, a->name, x->path)))
				continue; /* a volume's members are the volume's */
			found++;
			if (found <= sel->count && drive_index(k, a->name, x->path) < 0)
				rb_campaign_add_drive(c, a->name, x->path, x->serial);
		}
		if (found != sel->count) {
			rb_err("%s:%u:%u: agent '%s' offers %u drive(s) with %s; the campaign expects "
			       "%u%s", c->file, sel->line, sel->column, sel->agent, found, what,
			       sel->count, found < sel->count ? ": missing drives" : "");
			rc = RB_EXIT_USAGE;
		} else {
			rb_info("agent '%s': %u drive(s) with %s selected", sel->agent, found, what);
		}
	}
	return rc;
}

/* ---- resume: a crashed run's journal replayed into a new HDF5 file, then onwards ---- */

/* The point (and attempt) a data message belongs to; false for messages of no point. */
static bool msg_point(const Rb__Envelope *e, uint32_t *point, uint32_t *attempt)
{
	switch (e->body_case) {
	case RB__ENVELOPE__BODY_SAMPLES:
		if (!e->samples->n_samples)
			return false;
		*point = e->samples->samples[0]->point;
		*attempt = e->samples->samples[0]->attempt;
		return true;
	case RB__ENVELOPE__BODY_HEALTH:
		*point = e->health->point;
		*attempt = e->health->attempt;
		return true;
	case RB__ENVELOPE__BODY_RESULT:
		*point = e->result->point;
		*attempt = e->result->attempt;
		return true;
	case RB__ENVELOPE__BODY_POINT_DONE:
		*point = e->point_done->point;
		*attempt = e->point_done->attempt;
		return true;
	default:
		return false;
	}
}

static void gap_add(struct coord *k, const struct ragent *a, uint64_t epoch, uint64_t lo,
		    uint64_t hi, uint32_t point_lo, uint32_t point_hi)
{
	struct jgap *g = realloc(k->gaps, (k->ngaps + 1) * sizeof(*g));

	if (!g)
		return;
	k->gaps = g;
	k->gaps[k->ngaps++] = (struct jgap){ .agent = (size_t)(a - k->agents),
					     .epoch = epoch,
					     .lo = lo,
					     .hi = hi,
					     .point_lo = point_lo,
					     .point_hi = point_hi };
}

enum { J_SEQS, J_POINTS, J_REPLAY };

struct jwalk {
	struct coord *k;
	int pass;
	uint32_t upto;	/* J_REPLAY: messages of points up to this one */
	bool stopped;	/* J_REPLAY: at a later point's message (k->jcursor) */
};

static int journal_record(void *arg, const char *agent, const uint8_t *buf, size_t len, off_t at)
{
	struct jwalk *w = arg;
	struct coord *k = w->k;
	struct ragent *a = agent_by_name(k, agent);
	Rb__Envelope *e;
	char err[256];
	uint32_t point = 0, attempt = 0;
	bool has;
	int rc = 0;

	if (!a)
		return 0; /* not an agent of this campaign: nothing of it was used */
	if (rb_wire_unpack(buf, len, &e, err, sizeof(err))) {
		rb_warn("%s: the record at byte %lld is unreadable (%s); skipped", k->journal_path,
			(long long)at, err);
		return 0;
	}
	has = msg_point(e, &point, &attempt) && point < k->c->npoints;
	switch (w->pass) {
	case J_SEQS:
		/* where each agent process's numbered messages stand: resent ones are dropped */
		if (e->seq) {
			struct seqpos *x = seq_pos(a, e->epoch);

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
			struct jpoint *j = &k->jp[point * k->c->nagents + (size_t)(a - k->agents)];

			if (!j->any || attempt > j->attempt) {
				j->attempt = attempt;
				j->done = false;
				j->stopped = false;
			}
			j->any = true;
			if (attempt == j->attempt && e->body_case == RB__ENVELOPE__BODY_POINT_DONE)
				j->done = true;
			/* stopped short (a full results folder, an abort): it runs again */
			if (attempt == j->attempt && e->body_case == RB__ENVELOPE__BODY_RESULT &&
			    e->result->status && !strcmp(e->result->status, "stopped") &&
			    !k->c->phases[k->c->points[point].phase].steady_rolling)
				j->stopped = true;
		}
		break;
	case J_REPLAY:
		if (has && point > w->upto) {
			k->jcursor = at; /* the next point's: it comes next time */
			w->stopped = true;
			rc = 1;
		} else if (has) {
			dispatch(k, a, e, rb_mono_ns());
		}
		break;
	}
	rb_wire_free(e);
	return rc;
}

static int journal_pass(struct coord *k, int pass, uint32_t upto)
{
	struct jwalk w = { .k = k, .pass = pass, .upto = upto };
	struct rb_journal_walk_info info;
	char err[512];
	long n;

	if (pass == J_REPLAY && k->jcursor < 0)
		return 0; /* walked to the end already */
	n = rb_journal_walk_ex(k->journal_path, pass == J_REPLAY ? k->jcursor : 0, NULL,
			       journal_record, &w, &info, err, sizeof(err));
	if (n < 0) {
		rb_err("%s", err);
		return RB_EXIT_FAILED;
	}
	if (pass == J_SEQS && info.damaged) {
		rb_warn("the journal '%s' is damaged: %u stretch(es) of %lld byte(s) in all (the "
			"first at byte %lld) fail their checksum; skipped, read on from the next "
			"whole record, and kept as they are",
			k->journal_path, info.damaged, (long long)info.damaged_bytes,
			(long long)info.first_damaged);
		for (size_t i = 0; i < k->ngaps; i++) {
			const struct jgap *g = &k->gaps[i];

			rb_warn("the damaged journal lacks agent '%s''s messages %" PRIu64 "..%" PRIu64
				" (process %" PRIx64 ", point(s) %u..%u): asking the agent for them",
				k->agents[g->agent].name, g->lo, g->hi, g->epoch, g->point_lo,
				g->point_hi);
		}
	}
	if (pass == J_REPLAY && !w.stopped)
		k->jcursor = -1; /* walked to the end: nothing of a later point */
	return 0;
}

/* Whether the journal holds point i whole: every agent with drives in it sent its
 * PointDone. */
static bool point_whole(struct coord *k, size_t i)
{
	for (size_t a = 0; a < k->c->nagents; a++) {
		const struct jpoint *j = &k->jp[i * k->c->nagents + a];
		bool drives = false;

		for (size_t d = 0; d < k->c->ndrives && !drives; d++)
			drives = !strcmp(k->c->drives[d].agent, k->agents[a].name) &&
				 rb_point_has_drive(k->c, &k->c->points[i], d);
		if (drives && !(j->any && j->done && !j->stopped))
			return false;
	}
	return true;
}

/* The journal's messages up to point p (stragglers of earlier points too), as they came. */
static int replay(struct coord *k, const struct rb_point *p, uint32_t upto)
{
	struct rb_progress *prog = k->prog;
	int rc;

	point_begin(k, p);
	k->replaying = true;
	k->prog = NULL; /* the live view shows live points */
	rc = journal_pass(k, J_REPLAY, upto);
	k->prog = prog;
	k->replaying = false;
	return rc;
}

/* What a damaged journal lacked and the agents gave again, and what is lost for good. */
static void report_gaps(struct coord *k)
{
	uint64_t lost = 0, filled = 0;

	for (size_t i = 0; i < k->ngaps; i++) {
		const struct jgap *g = &k->gaps[i];

		filled += g->filled;
		if (g->lo > g->hi)
			continue;
		lost += g->hi - g->lo + 1;
		rb_err("lost: agent '%s''s messages %" PRIu64 "..%" PRIu64 " (process %" PRIx64
		       ", of point(s) %u..%u): the journal was damaged there and the agent no "
		       "longer holds them; what they measured is missing from the file",
		       k->agents[g->agent].name, g->lo, g->hi, g->epoch, g->point_lo, g->point_hi);
	}
	if (lost)
		k->bad_drives++; /* the file lacks measurements: partial, never complete */
	if (k->ngaps)
		rb_info("damaged journal: %" PRIu64 " message(s) recovered from the agents' "
			"spools, %" PRIu64 " lost",
			filled, lost);
}

/*
 * After a restart the agents send again what the crashed coordinator never
 * acknowledged; their Hello says up to which message. Wait (up to 20 s) until the
 * journal holds it, so that a point they finished meanwhile counts as done.
 */
static void await_spooled(struct coord *k)
{
	int64_t deadline = rb_mono_ns() + 20000000000LL;

	for (;;) {
		size_t behind = 0;

		for (size_t i = 0; i < k->c->nagents; i++) {
			struct ragent *a = &k->agents[i];

			if (!strcmp(a->spool_run, k->run) && a->spooled > seq_pos(a, a->epoch)->seq)
				behind++;
		}
		/* asked to fill a damaged journal's gap: 3 s for what the agent still holds */
		for (size_t i = 0; i < k->ngaps; i++)
			behind += k->gaps[i].asked && k->gaps[i].lo <= k->gaps[i].hi &&
				  rb_mono_ns() - k->gaps[i].asked_ns < 3000000000LL;
		if (!behind || stopped(k)) {
			report_gaps(k);
			return;
		}
		if (rb_mono_ns() >= deadline) {
			rb_warn("%zu agent(s) did not send all of their spool within 20 s; what comes "
				"later is still kept",
				behind);
			report_gaps(k);
			return;
		}
		pump(k, 100);
	}
}

/* Whether path is a results file whose run ended complete. */
static bool run_complete(const char *path)
{
	char err[256], st[32];
	struct rb_results_in *in = access(path, F_OK) ? NULL : rb_results_open(path, err, sizeof(err));
	bool done;

	if (!in)
		return false;
	done = !strcmp(rb_results_attr(in, "status", st, sizeof(st)), "complete");
	rb_results_in_close(in);
	return done;
}

/* The crashed run's HDF5 file is kept beside, as PATH.crashed (or .crashed.N). */
static int set_aside(const char *path)
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
static int journal_create(struct coord *k, const char *path)
{
	struct rb_journal_meta m = { .insecure = k->c->insecure, .start_ns = rb_wall_ns() };
	char *abs;
	int r;

	snprintf(k->journal_path, sizeof(k->journal_path), "%s.journal", path);
	r = rb_journal_open(k->journal_path, false, &k->journal);
	if (r) {
		rb_err("cannot create the journal '%s': %s", k->journal_path, strerror(-r));
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
	r = rb_journal_write_meta(k->journal, &m);
	if (!r && fdatasync(k->journal))
		r = -errno;
	if (r) {
		rb_err("cannot write the journal '%s': %s", k->journal_path, strerror(-r));
		return RB_EXIT_FAILED;
	}
	return 0;
}

/* The folder a results file is in, and its free space ("?" when it cannot be read). */
static void folder_space(const char *path, char *dir, size_t dirlen, char *free_s, size_t flen)
{
	const char *slash = strrchr(path, '/');
	struct statvfs v;

	if (!slash)
		snprintf(dir, dirlen, ".");
	else if (slash == path)
		snprintf(dir, dirlen, "/");
	else
		snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
	if (statvfs(dir, &v))
		snprintf(free_s, flen, "?");
	else
		rb_fmt_size((uint64_t)v.f_bavail * v.f_frsize, free_s, flen);
}

static void report_store_failure(struct coord *k, const char *path)
{
	char dir[4096], fr[32];

	folder_space(path, dir, sizeof(dir), fr, sizeof(fr));
	rb_err("the run stopped: the results folder '%s' could not store what came (%s; %s "
	       "free); the journal holds everything acknowledged and the agents' spools the "
	       "rest: free space, then run 'rackbench resume %s'",
	       dir, strerror(k->store_err), fr, path);
}

/*
 * After a Stop: up to 5 s for every agent to stop and send what it measured (a partial
 * point is recorded, and the stops are surely out of the socket: a loaded machine can
 * hold them in libzmq's queue past a close).
 */
static void await_stopped(struct coord *k)
{
	for (int64_t until = rb_mono_ns() + 5000000000LL; rb_mono_ns() < until;) {
		size_t running = 0;

		for (size_t i = 0; i < k->c->nagents; i++)
			running += !k->agents[i].done && !k->agents[i].dropped;
		if (!running)
			break;
		pump(k, 100);
	}
}

/*
 * A rough size of what the run stores (journal and HDF5 file): per sample interval and
 * drive, about 2 KiB for both directions with their histograms. Warns when the results
 * folder has less free space than that.
 */
static void check_space(struct coord *k, const char *path)
{
	const struct rb_campaign *c = k->c;
	double need = 0;
	char dir[4096], fr[32], nd[32];
	struct statvfs v;

	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_point *p = &c->points[i];
		uint64_t iv = p->wl.interval_ns ? p->wl.interval_ns : 1000000000ULL;
		size_t nd_ = 0;

		for (size_t d = 0; d < c->ndrives; d++)
			nd_ += rb_point_has_drive(c, p, d);
		need += ((double)(p->wl.ramp_ns + p->wl.runtime_ns) / (double)iv + 2) *
			(double)nd_ * 2048.0;
	}
	folder_space(path, dir, sizeof(dir), fr, sizeof(fr));
	if (statvfs(dir, &v))
		return;
	if ((double)v.f_bavail * (double)v.f_frsize < need) {
		rb_fmt_size((uint64_t)need, nd, sizeof(nd));
		rb_warn("the results folder '%s' has %s free; this run may need about %s (a full "
			"folder stops the run: resume it once there is room)",
			dir, fr, nd);
	}
}

int rb_coord_run(struct rb_campaign *c, const struct rb_coord_opts *o)
{
	struct coord k = { .c = c, .o = o, .journal = -1 };
	char path[4096], err[512], bound[256] = "";
	const char *status = "complete";
	int rc = RB_EXIT_FAILED, r;
	bool started = false;

	k.agents = calloc(c->nagents + 1, sizeof(*k.agents));
	if (!k.agents)
		goto out;
	/* this run's identity: the agents' spool files carry it */
	snprintf(k.run, sizeof(k.run), "%" PRIx64 "-%d", (uint64_t)rb_wall_ns(), (int)getpid());
	for (size_t i = 0; i < c->nagents; i++)
		k.agents[i].name = c->agents[i];
	if (hash_agents(&k))
		goto out;
	for (size_t i = 0; i < c->nagents; i++)
		if (!(k.agents[i].assigned = calloc(c->npoints + 1, sizeof(uint32_t))))
			goto out;
	if (o->resume) {
		/* the same run: the agents' spools and numbering go on where they were */
		snprintf(k.run, sizeof(k.run), "%s", o->resume->run);
		snprintf(k.journal_path, sizeof(k.journal_path), "%s.journal", o->results_path);
		if (run_complete(o->results_path)) {
			/* nothing to do, and nothing changes: not a byte of file or journal */
			rb_info("the run in '%s' is complete: there is nothing to resume",
				o->results_path);
			rc = RB_EXIT_OK;
			goto out;
		}
		r = rb_journal_open(k.journal_path, true, &k.journal);
		if (r == -EWOULDBLOCK) {
			pid_t pid = rb_journal_holder(k.journal_path);

			if (pid > 0)
				rb_err("the run in '%s' is still going: its coordinator (pid %d) holds "
				       "the journal '%s'; not resumed",
				       o->results_path, (int)pid, k.journal_path);
			else
				rb_err("the run in '%s' is still going: another process holds the "
				       "journal '%s'; not resumed",
				       o->results_path, k.journal_path);
			goto out;
		}
		if (r) {
			rb_err("cannot reopen the journal '%s': %s", k.journal_path, strerror(-r));
			goto out;
		}
		if (journal_pass(&k, J_SEQS, 0))
			goto out;
	}
	struct rb_keypair server;

	if (o->router) {
		/* the socket (and its keys) belong to the caller: demo or service */
		k.zap = o->zap;
		c->insecure = !o->zap;
		if (c->insecure)
			rb_warn("running without keys (insecure): agents are not authenticated and "
				"traffic is not encrypted");
	} else if (!c->insecure) {
		if (!c->key || !c->agent_keys) {
			rb_err("%s: a keyed run needs 'key' (the coordinator's key pair) and "
			       "'agent_keys' (the allow-list); or say 'insecure: true'", c->file);
			rc = RB_EXIT_USAGE;
			goto out;
		}
		if (rb_keys_read(c->key, true, &server, err, sizeof(err))) {
			rb_err("%s", err);
			rc = RB_EXIT_USAGE;
			goto out;
		}
		/* the handler first: bound before the socket, or libzmq accepts any key */
		k.zap = rb_zap_start(c->agent_keys, err, sizeof(err));
		if (!k.zap) {
			rb_err("%s", err);
			rc = RB_EXIT_USAGE;
			goto out;
		}
	} else {
		rb_warn("running without keys (insecure): agents are not authenticated and "
			"traffic is not encrypted");
	}
	k.sock = o->router;
	if (!k.sock) {
		k.sock = rb_tx_router_bind_keyed(c->listen, c->insecure ? NULL : &server, bound,
						 sizeof(bound));
		if (!k.sock) {
			rb_err("cannot listen on '%s': %s", c->listen, strerror(errno));
			goto out;
		}
		rb_info("listening on %s", bound);
	}
	for (size_t i = 0; i < o->nknown; i++)
		on_hello(&k, &o->known[i].peer, o->known[i].hello->hello,
			 o->known[i].hello->version_major, o->known[i].hello->version_minor);
	rc = wait_agents(&k);
	if (rc)
		goto out_close;
	/* the drives are known now: selectors chose theirs from what the agents offer */
	rc = select_drives(&k, c);
	if (rc)
		goto out_close;
	index_drives(&k);
	k.sum = calloc(c->npoints * c->ndrives + 1, sizeof(*k.sum));
	k.health = calloc(c->ndrives + 1, sizeof(*k.health));
	k.vinfo = calloc(c->ndrives + 1, sizeof(*k.vinfo));
	k.prog = rb_progress_new(c, o->events, err, sizeof(err));
	if (!k.sum || !k.health || !k.vinfo || !k.prog) {
		rb_err("%s", k.prog ? "out of memory" : err);
		rc = RB_EXIT_USAGE;
		goto out_close;
	}
	rc = check_offered(&k);
	if (rc)
		goto out_close;
	k.refused = calloc(c->ndrives + 1, sizeof(bool));
	rc = preflight(&k);
	if (o->resolve_only) {
		rc = k.refused ? resolve(&k, o->lock_path, rc) : RB_EXIT_FAILED;
		stop_agents(&k, "plan --resolve done");
		started = true;
		goto out_close;
	}
	if (rc)
		goto out_close;
	if (o->resume) {
		await_spooled(&k);
		if (set_aside(o->results_path))
			goto out_close;
	}
	if (o->results_path) {
		snprintf(path, sizeof(path), "%s", o->results_path);
	} else if ((r = results_path(c, path, sizeof(path)))) {
		rb_err("cannot create results folder '%s': %s", c->results_dir, strerror(-r));
		rc = RB_EXIT_FAILED;
		goto out_close;
	}
	char method[24];

	k.res = rb_results_create(path, &(struct rb_results_meta){ .campaign_name = c->name,
								    .campaign_text = c->text,
								    .methodology = rb_campaign_methodology(
									    c, method, sizeof(method)),
								    .start_ns = o->resume ? o->resume->start_ns
											  : rb_wall_ns(),
								    .insecure = c->insecure },
				  err, sizeof(err));
	if (!k.res) {
		rb_err("%s", err);
		rc = RB_EXIT_FAILED;
		goto out_close;
	}
	if (o->ret_path)
		snprintf(o->ret_path, o->ret_path_len, "%s", path);
	if (o->state) {
		snprintf(o->state->results, sizeof(o->state->results), "%s", path);
		o->state->npoints = c->npoints;
	}
	/* every data message an agent sends, as received, before it is acknowledged */
	if (!o->resume && journal_create(&k, path))
		goto out_close;
	check_space(&k, path);
	write_static_rows(&k);
	started = true;
	unsigned skip_phase = UINT_MAX;
	/* resume: the points the journal holds whole are replayed, the rest run */
	bool replaying = o->resume != NULL;
	uint32_t attempt = 0;

	if (replaying) {
		k.jp = calloc(c->npoints * c->nagents + 1, sizeof(*k.jp));
		if (!k.jp || journal_pass(&k, J_POINTS, 0)) {
			rc = RB_EXIT_FAILED;
			goto out_close;
		}
	}

	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_point *p = &c->points[i];

		/* a steady-state phase ends at its first steady round */
		if (p->round && p->phase == skip_phase)
			continue;
		write_point_row(&k, p);
		if (o->state)
			o->state->point = i;
		if (replaying && point_whole(&k, i)) {
			rc = replay(&k, p, p->index);
			rb_info("point %u ('%s'): restored from the journal", p->index, p->name);
		} else {
			if (replaying) {
				/* what the journal has of this point stays, as its old attempt(s) */
				for (size_t a = 0; a < c->nagents; a++) {
					const struct jpoint *j = &k.jp[i * c->nagents + a];

					if (j->any && j->attempt + 1 > attempt)
						attempt = j->attempt + 1;
				}
				rc = replay(&k, p, UINT32_MAX);
				replaying = false;
				rb_info("resuming at point %u ('%s') as attempt %u", p->index, p->name,
					attempt);
			}
			rb_progress_point(k.prog, i);
			if (!rc)
				rc = run_point(&k, p, attempt);
			k.in_point = false; /* however it ended: no Assign goes again */
			attempt = 0;
			rb_progress_point_done(k.prog, stopped(&k) ? "aborted" : rc ? "failed" : "ok");
		}
		write_drive_rows(&k);
		if (rc)
			break;
		if (p->round && (i + 1 == c->npoints || c->points[i + 1].phase != p->phase ||
				 c->points[i + 1].round != p->round) &&
		    p->round >= c->phases[p->phase].steady_window &&
		    steady_check(&k, p->phase, p->round))
			skip_phase = p->phase;
		rb_results_flush(k.res);
		size_t next = i + 1;

		while (next < c->npoints && c->points[next].round &&
		       c->points[next].phase == skip_phase)
			next++;
		if (next < c->npoints && !replaying)
			idle(&k, c->phases[p->phase].idle_ns);
		if (stopped(&k))
			break;
	}
	/* every point was whole in the journal: what came after the last one, too */
	if (replaying && c->npoints && !rc)
		rc = replay(&k, &c->points[c->npoints - 1], UINT32_MAX);
	/* the last messages acknowledged before the agents are told to stop */
	flush_acks(&k, true);
	if (k.store_err) {
		status = "aborted";
		stop_agents(&k, "the coordinator's results folder is full (or failing)");
		/* their stop reaches them and their last messages stay in their spools */
		await_stopped(&k);
		report_store_failure(&k, path);
		rc = RB_EXIT_PARTIAL;
	} else if (k.fatal) {
		status = "failed";
		rc = RB_EXIT_FAILED;
	} else if (k.lost_abort) {
		status = "aborted";
		stop_agents(&k, "campaign aborted: an agent was lost");
		rc = RB_EXIT_FAILED;
	} else if (stopped(&k)) {
		status = "aborted";
		stop_agents(&k, "campaign aborted by the user");
		await_stopped(&k);
		rb_err("campaign aborted; results so far are in %s", path);
		rc = RB_EXIT_FAILED;
	} else {
		stop_agents(&k, "campaign finished");
		if (!rc && k.bad_drives)
			rc = RB_EXIT_PARTIAL;
		if (rc == RB_EXIT_PARTIAL)
			status = "partial";
		else if (rc)
			status = "failed";
		else if (k.io_errors)
			rc = RB_EXIT_IO_ERRORS;
	}
	rb_progress_end(k.prog, status, rc);
	write_drive_rows(&k);
	if (rb_results_close(k.res, status, rb_wall_ns())) {
		rb_err("cannot finish '%s'%s", path,
		       k.store_err ? ": its journal holds what was acknowledged" : "");
		/* a file that could not be closed is never reported complete */
		if (!strcmp(status, "complete")) {
			status = "failed";
			rc = RB_EXIT_FAILED;
		}
	}
	k.res = NULL;
	print_summary(&k, stdout);
	printf("\nresults: %s (%s)\n", path, status);
	fflush(stdout);
out_close:
	if (!started)
		stop_agents(&k, "campaign failed before it started");
	/* let queued stops leave before the socket goes */
	if (!o->router)
		rb_tx_close(k.sock);
out:
	for (size_t i = 0; k.agents && i < c->nagents; i++) {
		free(k.agents[i].targets);
		free(k.agents[i].didx);
		free(k.agents[i].assign_msg);
		free(k.agents[i].assigned);
	}
	free(k.ahash);
	for (size_t i = 0; i < k.ncands; i++)
		rb_wire_free(k.cands[i].hello);
	free(k.cands);
	if (k.zap != o->zap)
		rb_zap_stop(k.zap);
	free(k.agents);
	free(k.sum);
	free(k.health);
	free(k.vinfo);
	roll_free(&k);
	if (k.journal >= 0) {
		fdatasync(k.journal);
		close(k.journal);
	}
	free(k.ss);
	free(k.jp);
	free(k.gaps);
	free(k.skeys);
	free(k.refused);
	rb_progress_free(k.prog);
	return rc;
}
