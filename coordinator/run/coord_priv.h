/* SPDX-License-Identifier: MIT */
/*
 * The coordinator's run, shared by the modules that carry it out (docs/HACKING.md has
 * the map). One run is one struct coord; its state is explicit: the run's phase
 * (enum coord_phase) and each agent's (enum agent_state). Who calls whom is one way:
 *
 *   coord.c     the entry points: set-up, the phases in order, the end of the run
 *   loop.c      the one event loop (receive, deliver, apply) and each phase's wait
 *   resume.c    a crashed run's journal replayed            -> ingest, registry, delivery
 *   resolve.c   plan --resolve's table and --lock's file       -> ingest, registry
 *   orders.c    what the agents are told to do (Preflight, Assign)
 *                                                   -> ingest, registry, delivery
 *   ingest.c    messages applied: rows, summaries, the agents' answers
 *                                                   -> steady_run, registry, delivery
 *   steady_run.c steady state judged: rounds and rolling windows (over steady.c)
 *   registry.c  the agents: names, Hellos, groups, their targets and drives -> delivery
 *   delivery.c  the wire: sending, numbered messages, journal, group commit, clocks
 *   live.c      the run's figures handed to the service's metrics     -> registry, ingest
 *
 * Nothing below calls back up: a module returns what happened (an event) and the loop
 * acts on it.
 */
#ifndef RB_COORD_PRIV_H
#define RB_COORD_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "clock.h"
#include "clocksync.h"
#include "coord.h"
#include "hist.h"
#include "idmap.h"
#include "results.h"
#include "results_db.h"
#include "steady.h"
#include "transport.h"
#include "verdict.h"

/* The run's phase: where rb_coord_run is, for the log, the service's status and tests. */
enum coord_phase {
	PHASE_WAITING,	 /* for the campaign's agents to connect */
	PHASE_SELECTING, /* drives chosen from what the agents offer */
	PHASE_PREFLIGHT, /* every agent's guard checks every drive; nothing written */
	PHASE_POINT,	 /* a point runs on every agent at once */
	PHASE_IDLE,	 /* between points, as the phase says */
	PHASE_STOPPING,	 /* the agents told to stop; their last messages taken */
	PHASE_DONE,
};

/*
 * An agent of the campaign, as the coordinator sees it. Before the points it only moves
 * on, UNSEEN -> CONNECTED (a Hello, registry.c) -> CHECKED (its pre-flight answer,
 * ingest.c); then each point: RUNNING (its Assign, orders.c) -> DONE (its PointDone,
 * ingest.c), or LOST when silent and back to RUNNING when heard (loop.c), or DROPPED
 * (loop.c) until it comes back idle and takes part again.
 */
enum agent_state {
	AGENT_UNSEEN,	 /* never connected */
	AGENT_CONNECTED, /* said Hello; owes its pre-flight answer */
	AGENT_CHECKED,	 /* answered the pre-flight; idle */
	AGENT_RUNNING,	 /* given the current point */
	AGENT_DONE,	 /* finished the current point (or has no drive in it) */
	AGENT_LOST,	 /* running, and silent for LOST_AFTER_NS */
	AGENT_DROPPED,	 /* given up on: no more points until it comes back idle */
};

const char *coord_phase_name(enum coord_phase p);

#define LOST_AFTER_NS 5000000000LL   /* no traffic for this long during a point: lost */
#define GROUP_SETTLE_NS 4000000000LL /* a group of "all" agents: quiet this long, it is whole */
/* ... longer than the most an idle agent takes to be heard again (a reconnect, then a
 * Hello), with 1.5 s to spare: libzmq's random 100 ms, a fresh socket's first Hello
 * dropped (the next 0.1-0.3 s later), a slow host */
_Static_assert(GROUP_SETTLE_NS >=
		       RB_RECONNECT_MAX_MS * 1000000LL + RB_HELLO_GAP_MAX_NS + 1500000000LL,
	       "a group settles before an idle agent is heard");

struct ragent {
	const char *name;
	struct rb_peer peer;
	enum agent_state state;
	char host[64], kernel[128], version[16], proto[16];
	char labels[256]; /* its labels as it said them, K=V,K=V */
	int64_t registered_ns;
	struct rb_identity *targets;
	size_t ntargets;
	uint64_t epoch; /* of the agent process; another one means it restarted */
	int64_t last_seen_ns;
	bool reassign; /* a new process while it ran a point: run it again */
	bool silent;   /* went lost: its next message says it is back */
	bool rejoin;   /* dropped, then its PointDone or a Hello came: it may run the next point */
	uint32_t drop_point, drop_attempt; /* where it was dropped */
	uint32_t *assigned;		   /* per point: attempts assigned to it (0: never) */
	int64_t asked_ns;		   /* when the last Preflight or Assign went to it */
	uint8_t *assign_msg;		   /* the current point's Assign, packed */
	size_t assign_len;
	size_t *didx, ndidx, dhint; /* its drives (indexes of c->drives), the next guess */
	char spool_run[96]; /* its Hello: the run of its spool, and the last message in it */
	uint64_t spooled;
	int64_t lost_deadline;
	uint32_t attempt;	 /* of the current point */
	uint32_t minor;		 /* protocol minor version it speaks */
	struct rb_clock_est clk; /* its clock's offset from ours (common/wire/clocksync.h) */
	int64_t next_probe;
	/* delivery: per agent process (epoch), the last data message applied */
	struct seqpos {
		uint64_t epoch, seq;
		bool due;	/* an Ack to send */
		uint32_t point; /* resume: the point of the last journaled message */
	} seqs[8];
	unsigned nseqs;
};

static inline bool agent_seen(const struct ragent *a)
{
	return a->state != AGENT_UNSEEN;
}

/* Whether clock probes go to it: heard from, not given up on, and speaking 1.1 or later. */
static inline bool agent_probed(const struct ragent *a)
{
	return agent_seen(a) && a->state != AGENT_DROPPED && a->minor >= 1;
}

/* Given the current point and not finished with it. */
static inline bool agent_running(const struct ragent *a)
{
	return a->state == AGENT_RUNNING || a->state == AGENT_LOST;
}

/* Nothing more is awaited of it in the current point. */
static inline bool agent_finished(const struct ragent *a)
{
	return a->state == AGENT_DONE || a->state == AGENT_DROPPED;
}

struct summary {
	double iops, mbps, mean_ns;
	uint64_t p99_ns;
	bool have;
	enum rb_status status;
};

/* The health seen of one drive during the current point. */
struct hstate {
	bool have_before, have_after;
	struct rb_row_health before, after;
	double max_temp_c;
	uint8_t warnings;
};

/*
 * A drive's live figures (ingest.c sums them, live.c hands them on): the interval being
 * summed, and what the run has seen of it so far.
 */
struct ldrive {
	bool have;		    /* an interval of the current point came */
	bool done;		    /* its result of the point came: it does no IO now */
	uint32_t attempt, interval; /* the one summed below */
	int64_t t_ns;		    /* that interval's end, on the drive's clock */
	uint64_t len_ns;	    /* its own length: the last of a point may be short */
	int64_t seen_ns;	    /* when its last sample came, our clock */
	uint64_t ios, bytes, lat_sum_ns, p99_ns;
	uint64_t errors, mismatches; /* the run's: failed IOs (samples), verify mismatches */
	double temp_c, max_temp_c;   /* NAN: no reading yet */
	uint8_t warnings;	     /* every critical-warning bit seen in the run */
};

/* What live.c hands on, and when. */
struct live {
	struct ldrive *d;	   /* per drive; NULL before the drives are chosen */
	struct rb_live_drive *out; /* per drive */
	struct rb_identity *vid;   /* per drive: its identity as labelled (a volume's joined) */
	size_t labelled;	   /* the point (+1) the drives' labels are of; 0: none yet */
	struct rb_live_agent *agents;
	size_t agents_cap;
	uint64_t samples;
	bool dirty;	    /* a figure changed since the last call */
	bool due;	    /* every drive of the point has sent its newest interval: call now */
	bool grace;	    /* the point ended: its last figures go at the grace's end */
	int64_t at;	    /* the last call, our clock */
	int64_t left_point; /* when the last point ended */
	uint32_t newest;    /* the point's newest interval, and how many drives sent it */
	size_t at_newest;
};

/* A run of stored intervals of one attempt, and a drive direction's runs (ingest.c). */
struct seen {
	uint32_t attempt, lo, hi;
};

struct seenset {
	struct seen *v;
	uint32_t n, cap;
};

/* registry.c's: the campaign's agents, and those heard before groups are resolved */
struct coord_reg {
	struct ragent *agents;
	size_t nreg;	       /* agents[]'s entries (c->nagents once groups have joined) */
	struct rb_idmap names; /* agents by name */
	/* agents of no target by name, heard before agent groups are resolved */
	struct cand {
		struct rb_peer peer;
		struct rb_msg *hello; /* its last Hello (a copy) */
		bool taken;
	} * cands;
	size_t ncands;
	bool groups_resolved;
};

/*
 * How a message is applied: as it comes from its agent, or replayed from the journal (a
 * resume, or a refill of what a damaged journal lacked): a replay moves no live figure,
 * stops nothing and judges no steady state anew.
 */
enum coord_apply { APPLY_LIVE, APPLY_REPLAY };

/* resume.c's and delivery.c's: the run's journal, and what a resume replays from it */
struct coord_journal {
	int journal; /* the run's journal (RESULTS.h5.journal); -1 none */
	char journal_path[4200];
	off_t jcursor;		/* resume: the next journal record to replay */
	enum coord_apply apply; /* how the message being applied came (ing_apply sets it) */
	struct jpoint {
		uint32_t attempt; /* the newest attempt the journal has of the point */
		bool any, done;	  /* any message of it; its PointDone */
		bool stopped;	  /* a drive's result says it was stopped before its end */
	} * jp;			  /* resume: [point][agent] */
	bool journal_dirty;
	off_t journal_cached; /* the journal's bytes before this are out of the page cache */
	/* resume: numbered messages a damaged stretch of the journal held */
	struct jgap {
		size_t agent;
		uint64_t epoch, lo, hi;	     /* its messages lo..hi */
		uint32_t point_lo, point_hi; /* of these points */
		uint64_t filled;	     /* how many came again from the agent's spool */
		bool asked;		     /* the agent was asked to send them again */
		int64_t asked_ns;
	} * gaps;
	size_t ngaps;
	int64_t last_ack_flush;
};

/* steady_run.c's: the rows of a steady-state phase's rounds, and the rolling judge */
struct coord_steady {
	struct ss_row {
		long row;
		int drive;
		unsigned round;
	} * ss; /* results rows of the current steady-state phase */
	size_t nss, capss;
	struct roll {
		uint32_t interval;
		bool have, steady;
		uint64_t ios, bytes, lat_ns;
		double *v;
		unsigned n, cap;
		long at;
		struct rb_steady st;
	} * roll;	    /* per drive, in a rolling steady-state point */
	size_t roll_steady; /* drives steady so far in this rolling point */
	bool roll_stopped;
};

/* the pre-flight's refusals: which drives, why, and how many were left out */
struct coord_refusal {
	bool *refused;		  /* per drive: the guard said no at preflight */
	char (*refusal_why)[256]; /* per drive: its reasons, joined (on_refusal: skip) */
	size_t refusals;
	size_t skipped;		  /* drives refused and left out (on_refusal: skip) */
	size_t unmapped_refusals; /* refusals naming no drive of the campaign (the agent) */
};

struct coord {
	const struct rb_campaign *c;
	char evidence_dir[4200]; /* RESULTS.evidence beside RESULTS.h5 (ingest_evidence.c) */
	/* after the verdicts: the evidence captures ordered for FAILed drives (ingest_evidence.c) */
	struct coord_capture {
		struct rb_row_evidence *rows; /* what the Captured answers named */
		size_t n, cap;
		size_t waiting; /* captures ordered, not answered */
	} cap;
	bool finished; /* the points ran to the end: the agents are stopped after the verdicts */
	/* the run's timers and its agents' instants: real, or a test's fake (the results
	 * file's name and the progress view read the host's clock) */
	const struct rb_clock *clock;
	enum coord_phase phase;
	struct rb_zap *zap;		 /* NULL when insecure */
	struct hstate *health;		 /* per drive */
	struct rb_progress *prog;	 /* the live view; NULL before the points run */
	struct rb_verdict_rules *vrules; /* per phase: the verdict's rules, merged */
	uint8_t *warned;		 /* per drive: critical-warning bits said already */
	size_t point_drives;		 /* drives the current point measures */
	int64_t start_at;		 /* the current point's start instant, our clock; 0 none */
	int64_t fleet_point; /* the point started at the fleet's instant, plus 1; 0: none */
	char run[96];	     /* this run's identity, for the agents' spools */
	const struct rb_coord_opts *o;
	void *sock;
	struct rb_results *res;
	struct rb_resdb_so_far so_far; /* the run so far into o->results_db at point ends */
	struct summary *sum;	       /* [point][drive] */
	struct rb_identity *vinfo;     /* per drive: a volume as its agent opened it */
	unsigned cur_point;
	bool drives_written;
	bool lost_abort;
	bool fatal;
	int store_err; /* the journal or the results file could not be written: stop */
	/* the current point's sample keys stored: each once, whatever the epoch it came in;
	 * per drive and direction (drive x 3 + direction), grown as drives join */
	struct seenset *seen;
	size_t nseen;
	int64_t probe_scan_ns; /* when the agents' clock probes are looked at next */
	int64_t drained_ns;    /* when the agents' socket was last read empty (loop.c) */
	uint64_t io_errors;
	size_t bad_drives;
	struct rb_hist scratch;
	struct live live; /* rackbench serve's metrics (o->live) */
	struct coord_reg reg;
	struct coord_journal jr;
	struct coord_steady steady;
	struct coord_refusal refusal;
};

static inline int64_t coord_now(const struct coord *k)
{
	return rb_clock_now(k->clock);
}

static inline int64_t coord_wall(const struct coord *k)
{
	return rb_clock_wall(k->clock);
}

static inline void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* Enters phase p (said in the log, and in the service's status). */
void coord_enter(struct coord *k, enum coord_phase p);
/* The one writer of an agent's state: sets it and logs the transition (loop.c). */
void agent_enter(struct ragent *a, enum agent_state st);

/* ---- delivery.c: the wire ---- */
void dlv_send(struct coord *k, struct ragent *a, struct rb_msg *e);
void dlv_stop_agents(struct coord *k, const char *reason);
struct seqpos *dlv_seq(struct ragent *a, uint64_t epoch);
void dlv_store_failed(struct coord *k, const char *what, int err);
void dlv_flush_acks(struct coord *k, bool force);
void dlv_probe_clocks(struct coord *k);
void dlv_ask_gaps(struct coord *k, struct ragent *a);
/* What to do with a received numbered message (after dlv_accept journaled it or not). */
enum dlv_verdict {
	DLV_APPLY,  /* new and in order (journaled): apply it */
	DLV_REFILL, /* what a damaged journal lacked (journaled again): apply as a replay */
	DLV_DROP,   /* a duplicate, out of order, or not stored: the agent still holds it */
};
enum dlv_verdict dlv_accept(struct coord *k, struct ragent *a, const struct rb_msg *e,
			    const uint8_t *raw, size_t rawlen);

/* ---- registry.c: the agents ---- */
int reg_init(struct coord *k);
void reg_release(struct coord *k);
struct ragent *reg_agent(struct coord *k, const char *name);
struct ragent *reg_by_peer(struct coord *k, const struct rb_peer *p);
bool reg_same_peer(const struct rb_peer *a, const struct rb_peer *b);
void reg_index_drives(struct coord *k);
int reg_agent_drive(struct coord *k, struct ragent *a, const char *path);
struct rb_identity *reg_target(struct ragent *a, const char *path);
void reg_target_update(struct ragent *a, const struct rb_identity *ti);
/* What a Hello asks of the loop: nothing, or what the agent evidently never had. */
enum reg_hello_event {
	HELLO_NONE,
	HELLO_OWES_PREFLIGHT, /* the same process, idle, and no pre-flight answer */
	HELLO_LACKS_POINT,    /* the same process, idle, and in the current point */
};
enum reg_hello_event reg_hello(struct coord *k, const struct rb_peer *peer, const struct rb_msg *m);
size_t reg_groups_short(struct coord *k, bool report, bool choose);
int reg_resolve_groups(struct coord *k);
int reg_select_drives(struct coord *k, struct rb_campaign *c);
int reg_check_offered(struct coord *k);

/* ---- steady_run.c: steady state ---- */
void srun_note(struct coord *k, long row, int di, unsigned round);
void srun_roll_free(struct coord *k);
bool srun_roll_sample(struct coord *k, int di, const struct rb_msg_sample *smp);
void srun_roll_verdict(struct coord *k, const struct rb_point *p, int di,
		       struct rb_row_result *row);
bool srun_check(struct coord *k, unsigned ph, unsigned round);

/* ---- ingest.c: messages applied ---- */
/* What applying a message asks of the loop: nothing, or the agents stopped (steady). */
enum ing_event { ING_NONE, ING_STEADY };
enum ing_event ing_apply(struct coord *k, struct ragent *a, const struct rb_msg *e, int64_t t3,
			 enum coord_apply mode);
bool ing_assigned(struct coord *k, const struct ragent *a, uint32_t point, uint32_t attempt);
/* A drive's end of a point (ingest_result.c): its result row, its health snapshots. */
void ing_result(struct coord *k, struct ragent *a, const struct rb_msg_result *dr);
void ing_health(struct coord *k, struct ragent *a, const struct rb_msg_health *m);
/* A piece of a drive's evidence (ingest_evidence.c): written beside the results file, the
 * whole file checked against its sha256 and kept compressed; errors said. */
void ing_evidence_data(struct coord *k, struct ragent *a, const struct rb_msg_evidence_data *m);
/* Where agent a's evidence file path is kept whole, relative to the results file's folder
 * (RESULTS.evidence/AGENT/CAPTURE/FILE.gz) into rel; -ENOENT: not kept here. */
int ing_evidence_stored(const struct coord *k, const struct ragent *a, const char *path, char *rel,
			size_t len);
/* A Capture's answer: its files' rows kept for the file (k->cap). */
void ing_captured(struct coord *k, struct ragent *a, const struct rb_msg_captured *m);
/* After the verdicts of the closed file path: each FAILed drive without evidence has it
 * captured by its agent (up to CAPTURE_WAIT_NS), the rows added to the file and printed. */
#define CAPTURE_WAIT_NS (120 * 1000000000LL)
void ing_capture_failed(struct coord *k, const char *path);
uint64_t ing_curve_rate(struct coord *k, const struct rb_point *p, int di);
void ing_agent_rows(struct coord *k);
void ing_point_row(struct coord *k, const struct rb_point *p);
void ing_volume_row(struct coord *k, size_t i, struct rb_row_drive *row);
void ing_drive_rows(struct coord *k);
void ing_print_summary(struct coord *k, FILE *out);
void ing_point_begin(struct coord *k, const struct rb_point *p);
void ing_seen_release(struct coord *k);
/* A drive's result's application rows (ingest_apps.c): checkpoints, an exec command. */
void ing_checkpoints(struct coord *k, size_t di, const struct rb_msg_result *dr);
void ing_exec(struct coord *k, size_t di, const struct rb_msg_result *dr);

/* ---- orders.c: what the agents are told ---- */
void ord_preflight(struct coord *k, struct ragent *a);
int ord_assign(struct coord *k, struct ragent *a, const struct rb_point *p, uint32_t attempt,
	       bool at_start);

/* ---- resume.c: a crashed run's journal ---- */
enum { J_SEQS, J_POINTS, J_REPLAY };
int rsm_pass(struct coord *k, int pass, uint32_t upto);
bool rsm_point_whole(struct coord *k, size_t i);
uint32_t rsm_next_attempt(struct coord *k, size_t i);
int rsm_replay(struct coord *k, const struct rb_point *p, uint32_t upto);
size_t rsm_spool_behind(struct coord *k);
void rsm_report_gaps(struct coord *k);
bool rsm_run_complete(const char *path);
int rsm_set_aside(const char *path);
int rsm_journal_create(struct coord *k, const char *path);

/* ---- resolve.c: plan --resolve and --lock ---- */
int rsv_print(struct coord *k, const char *lock, int rc);

/* ---- live.c: the run's figures for the service's metrics ---- */
int live_init(struct coord *k);
void live_release(struct coord *k);
/* Calls o->live when due (force: now, if a figure changed since the last call). */
void live_publish(struct coord *k, bool force);

/* ---- loop.c: the event loop and the phases' waits ---- */
void loop_known(struct coord *k);
bool loop_stopped(struct coord *k);
int loop_wait_agents(struct coord *k);
int loop_preflight(struct coord *k);
int loop_run_point(struct coord *k, const struct rb_point *p, uint32_t attempt);
void loop_idle(struct coord *k, uint64_t ns);
void loop_await_spooled(struct coord *k);
void loop_await_stopped(struct coord *k);
/* Turns the loop until every capture ordered is answered (k->cap.waiting), or deadline. */
void loop_await_captures(struct coord *k, int64_t deadline);
/* After the last Stops: turns the loop until nothing came for 100 ms (500 ms at most), so
 * the Stops leave the socket before it closes. */
void loop_await_quiet(struct coord *k);

#endif
