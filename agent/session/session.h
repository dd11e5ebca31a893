/* SPDX-License-Identifier: MIT */
/*
 * The daemon's session with the coordinator: the state its modules share. The session
 * loop (agent.c) calls the modules; a point's life (point.c) and the pre-flight
 * (preflight.c) send through delivery (delivery.c); nothing calls back into agent.c.
 */
#ifndef RB_SESSION_H
#define RB_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent.h"
#include "checkpoint.h"
#include "execphase.h"
#include "clock.h"
#include "diag.h"
#include "engine.h"
#include "fsspec.h"
#include "guard.h"
#include "runner.h"
#include "spool.h"
#include "target.h"
#include "wire.h"

struct purging;
struct rb_fs_target;

struct point;

/*
 * Why a point's measurement stopped before its end, the most telling cause last: when
 * several come, the result says the highest (point_result.c).
 */
enum point_halt {
	HALT_NONE,	   /* ran to its end (or stopped because it had) */
	HALT_SHUT_DOWN,	   /* the agent exits (SIGTERM) before its end */
	HALT_COORDINATOR,  /* stopped by the coordinator before its end */
	HALT_SPOOL_FAILED, /* the spool could not be written */
	HALT_SPOOL_FULL,   /* the spool reached its cap */
};

/* A point's measurement, one table per kind (measure.c): point.c calls these, never a kind. */
struct measure_ops {
	const char *kind;					   /* "run", "checkpoint", "exec" */
	bool (*poll)(struct point *p, rb_sample_fn fn, void *arg); /* true once ended, all sent */
	void (*stop)(struct point *p);				   /* IO stops; results stay */
	void (*join)(struct point *p);				   /* after poll said done */
	const struct rb_target_result *(*result)(const struct point *p, size_t t);
	/* drive t's result's parts of this kind only; returns what to free after sending */
	void *(*result_extras)(const struct point *p, size_t t, struct rb_msg_result *dr);
	void (*release)(struct point *p);
	bool all_dirs;	    /* reads and writes sampled whatever rw says (the kernel's counts) */
	bool message_fails; /* a drive's message is its failure (an exec command's) */
};
extern const struct measure_ops rb_measure_run, rb_measure_ckpt, rb_measure_exec;

/* The point this agent runs (a measurement, or a purge on its thread); zero when idle. */
struct point {
	struct rb_run *run;
	struct rb_ckpt *
		ck; /* rw checkpoint: its writers (agent/workload/checkpoint.h) in the run's place */
	struct rb_exec *
		ex; /* an exec point: its commands (agent/workload/execphase.h) in the run's place */
	struct rb_target_info *devinfo; /* per drive, where no prep says: the device as probed */
	const struct measure_ops *mk;	/* the measurement's kind: run, ck or ex; NULL none */
	enum point_halt halted;		/* why it stopped before its end (rb_point_halt) */
	struct purging *purge;
	struct rb_prepared *prep;
	uint32_t point, attempt;
	char **drives; /* the campaign's names: a target each */
	size_t ndrives;
	char **paths; /* what is opened: drives, a volume's members in its place */
	size_t npaths;
	size_t *first;		/* per drive: its first path */
	struct rb_volume *vols; /* per drive: members and unit (1 and 0: a drive) */
	/* per drive: its filesystem, mounted for the point (NULL: none has one) */
	struct rb_fs_target *fs;
	char **io_paths; /* what the engine opens: paths, a filesystem's file in its drive's */
	struct rb_workload wl;
	struct rb_msg_sample *batch; /* the interval's samples (histograms their own) */
	size_t nbatch, capbatch;
	int64_t next_health;
};

/* The daemon's one session with its coordinator: its socket, its point, its delivery. */
/* delivery.c's: data messages spooled and numbered until acknowledged (spool.h) */
struct agent_delivery {
	struct rb_spool spool;
	char run[96];
	uint64_t seq;
	uint64_t sent;		   /* the last seq sent: at most SEND_WINDOW past the last ack */
	off_t sent_off;		   /* where in the spool file the record after it begins */
	uint64_t sent_emptied;	   /* ... valid while the file was not emptied since */
	bool held;		   /* messages wait in the spool for acknowledgements */
	bool walking_own;	   /* resend_one walks this process's spool (not an old one) */
	int64_t last_ack_progress; /* when an ack last moved seq on (or the run began) */
	struct oldspool {
		char path[4096];
		uint64_t epoch, last;
		bool damaged; /* kept (as PATH.damaged) once the coordinator holds the rest */
	} * old;
	size_t nold;
	/*
	 * Messages the spool could not take (its folder full): kept here, in order, until
	 * acknowledged, so that no seq is ever skipped. The next message first moves them
	 * to the spool (in order) when it has room again; until then it is kept here too.
	 */
	struct memrec {
		uint64_t seq;
		uint8_t *buf;
		size_t len;
	} * mem;
	size_t nmem, capmem;
};

struct agent {
	const struct rb_agent_cfg *cfg;
	const struct rb_clock *clock; /* every time read of the session (cfg's, or real) */
	void *sock;
	struct point pt;
	bool lost_data;
	uint64_t epoch;
	uint32_t coord_minor; /* the coordinator's protocol minor, as its last message said */
	bool ran_any;	      /* in this run: the last point and attempt started */
	uint32_t ran_point, ran_attempt;
	struct agent_delivery dlv; /* delivery.c's */
};

static inline int64_t agent_now(const struct agent *a)
{
	return rb_clock_now(a->clock);
}

/* Whether a measurement (the engine's run, or checkpoints) is running. */
static inline bool rb_point_measuring(const struct agent *a)
{
	return a->pt.mk != NULL;
}

/* Whether a point (a measurement or a purge) is running. */
static inline bool rb_agent_busy(const struct agent *a)
{
	return rb_point_measuring(a) || a->pt.purge;
}

/* ---- delivery.c: data messages numbered, spooled, sent within the credit window ---- */

/*
 * Sends a data message: numbered and in the spool first (when the run has one), sent now
 * while the window is open, else held until acknowledgements open it. 0 or negative errno.
 */
int rb_delivery_send(struct agent *a, struct rb_msg *m);
/* Welcomed into run: its spool, and what an earlier process left for it sent again. */
void rb_delivery_for_run(struct agent *a, const char *run);
/* The coordinator holds the messages of epoch up to seq. */
void rb_delivery_on_ack(struct agent *a, uint64_t epoch, uint64_t seq);
/* Sends again what the coordinator has not acknowledged (after a silence). */
void rb_delivery_resend_unacked(struct agent *a);
/* The spool on disk; at its cap (spool_max) the running point is stopped, and says so. */
void rb_delivery_sync(struct agent *a);
/* At exit: the spool kept for the next process, memory's messages said lost. */
void rb_delivery_close(struct agent *a);

/*
 * A point's drives as the engine sees them: each drive is a target; a volume's (protocol
 * 1.3) members stand in its place among the paths, in stripe order.
 */
struct layout {
	char **paths;	/* drives and members (the message's strings) */
	char **serials; /* identity pins, parallel to paths ("" none) */
	size_t npaths;
	struct rb_volume *vols; /* per drive */
	size_t *first;		/* per drive: its first path */
	const char **volume;	/* per path: the volume it belongs to, or NULL */
	struct rb_fs_spec *fs;	/* per drive: a filesystem to make on it (type "" none) */
};

/* ---- preflight.c: the agent's identity, the guard's policy, pins, a point's layout ---- */

/* Says who this agent is to the coordinator: name, host, labels, targets, run, spooled. */
void rb_preflight_hello(struct agent *a, uint64_t epoch);
/* Checks what the coordinator's pre-flight asks and answers with the refusals. */
void rb_preflight_handle(struct agent *a, const struct rb_msg_preflight *pf);
/* Whether path is one of the targets this agent offers. */
bool rb_preflight_offered(const struct rb_agent_cfg *c, const char *path);
/* A target's identity as the protocol carries it (its serial, else agent.yaml's for it). */
void rb_preflight_identity(struct rb_identity *m, const struct rb_agent_cfg *c, const char *path,
			   const struct rb_target_info *x);
/* The guard's policy for a campaign's point: this agent's allow-list and state folder. */
void rb_preflight_policy(const struct agent *a, bool destructive, bool wipe,
			 struct rb_guard_policy *gp);
/* The campaign's identity pin: an error in d unless the drive reports serial (or has none
 * and agent.yaml gives it that one). */
void rb_preflight_pin(const struct rb_agent_cfg *c, const char *path, const char *serial,
		      struct rb_diags *d);
/* A point's or a pre-flight's drives as the coordinator gave them. */
struct layout_msg {
	const char *const *drives;
	size_t n;
	const char *const *serials;
	size_t nserials;
	const struct rb_msg_volume *vols;
	size_t nvols;
	const struct rb_msg_fs *fs; /* parallel to drives, or none */
	size_t nfs;
};
/*
 * A point's layout from its drives, pins, volumes and filesystems (the strings stay the
 * message's). 0, or negative errno with err set.
 */
int rb_preflight_layout(struct layout *L, const struct layout_msg *m, char *err, size_t errlen);
void rb_preflight_layout_free(struct layout *L);
/* Diagnostics from index from on about a volume's member become the volume's. */
void rb_preflight_layout_subjects(const struct layout *L, struct rb_diags *d, size_t from);

/* ---- point.c: a point's life ---- */

/* ---- point_result.c: a drive's result at the point's end ---- */

/* Drive t's DriveResult, sent: how it ran, what it did, what it is, its history. */
void rb_point_send_result(struct agent *a, size_t t);
/* The coordinator's Capture (after a FAIL verdict): the drive's evidence kept and sent as
 * after a point's IO errors, then a Captured saying what was kept or why nothing was. */
void rb_point_capture(struct agent *a, const struct rb_msg_capture *c);
/* A histogram as the wire's sparse lists, allocated (rb_point_sparse_free()); empty
 * without memory. */
struct rb_sparse rb_point_sparse_new(const struct rb_hist *h);
void rb_point_sparse_free(struct rb_sparse *x);

/* Starts the point the coordinator assigned; one that cannot start is reported failed. */
void rb_point_start(struct agent *a, const struct rb_msg_assign *as);
/* The coordinator stopped the running point before its end (a purge is not stopped). */
void rb_point_stop(struct agent *a, const char *reason);
/*
 * The measurement's IO stops (its results stay), and why: the spool cannot take more, the
 * coordinator said so, the agent exits. The one writer of the point's halted cause.
 */
static inline void rb_point_halt(struct agent *a, enum point_halt why)
{
	if (why > a->pt.halted)
		a->pt.halted = why;
	if (a->pt.mk)
		a->pt.mk->stop(&a->pt);
}
/* A running point's health snapshot, and the next one scheduled. */
void rb_point_health(struct agent *a);
/* The running point's samples sent; a finished point's or purge's results. */
void rb_point_poll(struct agent *a);
/* At exit: a purge waited for, a measurement stopped, their results sent. */
void rb_point_end(struct agent *a);

#endif
