/* SPDX-License-Identifier: MIT */
/*
 * What the service (serve.c) and its control-socket replies (serve_reply.c) share:
 * the registry of agents, the run going on, the queue, the runs ended. Private to them.
 */
#ifndef RB_SERVE_PRIV_H
#define RB_SERVE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coord.h"
#include "keys.h"
#include "results.h"
#include "serve.h"
#include "transport.h"
#include "wire.h"

struct reg {
	char name[64], host[64], version[16], proto[16];
	size_t ntargets;
	int64_t first_ns, last_ns; /* wall clock */
	struct rb_peer peer;
	struct rb_msg *hello; /* its last Hello, for the next run */
};

#define QUEUE_MAX 64 /* runs waiting their turn */

struct done_run {
	char id[48], campaign[128], results[4096];
	char fleet[RB_RUN_ID_MAX]; /* the fleet run it was a shard of, or "" */
	int rc;
	int64_t skew_lo, skew_hi, late; /* its start at the fleet's instant (rb_coord_state) */
	unsigned skew_n;
};

/* A drive of the run going on, as its loop last said it (copied: the loop's strings
 * are its own). */
struct svc_drive {
	char name[340]; /* agent:path */
	bool measured;	/* the figures are of an interval of the point running */
	double iops, mbps, p99_us, temp_c;
	uint64_t io_errors;
};

struct service {
	void *router, *control;
	void *admin;	/* serve --admin-listen: the admin endpoint (admin.c), or NULL */
	void *reply_to; /* the socket of the request being answered: control or admin */
	int log_fd;	/* the service's own stderr, kept while a run's log is stderr (admin.c) */
	/* its clocks (the seam: a test's wall clock may be off, fleet_shard.c) */
	struct rb_clock clock;
	int64_t wall_offset_ns;
	struct rb_zap *zap;
	struct reg *agents;
	size_t nagents, cap;
	const char *results_dir, *log_dir;
	const char *listen, *key, *agent_keys; /* its own: what a run's journal records */
	/* the run going on */
	bool running;
	char id[48];
	char fleet[RB_RUN_ID_MAX]; /* its fleet run's id (a request's "fleet="), or "" */
	const struct rb_campaign *c;
	struct rb_coord_state state;
	/* the last runs, for `status ID` */
	struct done_run done[16];
	unsigned ndone;
	unsigned seq;
	/* runs submitted with queue=1 while another ran, in order; each answered already */
	struct queued {
		char id[48], log[4200], campaign[128];
		char *req;
	} queue[QUEUE_MAX];
	unsigned nqueue;
	bool answered; /* the request being loaded was answered when it was queued */
	/* the run's drives as its loop last said them (status --json) */
	struct svc_drive *live;
	size_t nlive;
	/* serve --results-db (NULL: none); the folders other than results_dir whose exports
	 * are owed (serve_db.c); whether the run's log is stderr while its export is said */
	const char *results_db;
	char **owed_dirs;
	size_t nowed_dirs;
	bool db_in_run_log;
	/* serve --metrics: its page, the samples of runs ended, when it was last rendered */
	struct rb_metrics *metrics;
	uint64_t samples, run_samples;
	bool metrics_dirty;
	int64_t metrics_at;
	/* the verdict rows of each campaign's last run that ended (serve_verdicts.c) */
	struct svc_verdict {
		struct rb_row_drive drive;
		char campaign[128], run[48], rule[32], verdict[16];
	} * verdicts;
	size_t nverdicts, capverdicts;
	/* the drives of each campaign's last run that ended, and the fleet's verdicts
	 * (rackbench judge) on them and on their racks and hosts, read from --results-db
	 * after each run and every SVC_FLEET_READ_S while none goes on (serve_verdicts.c) */
	struct svc_ran {
		struct rb_row_drive drive;
		char campaign[128], run[48];
	} * ran;
	size_t nran, capran;
	struct svc_mark {
		size_t ran; /* the drive's row in ran; SIZE_MAX: a domain's hold */
		char campaign[128], rule[32], verdict[16];
		char subject[300]; /* the drive's key, or the domain: "rack=R", "host=H" */
	} * marks;
	size_t nmarks;
	int64_t fleet_next; /* wall clock ns of the next read; 0: at the loop's next turn */
	bool fleet_down;    /* the last read failed (said once, tried again in 5 min) */
};

/* Seconds between two reads of the fleet's verdicts while no run goes on. */
#define SVC_FLEET_READ_S 15

/*
 * Whether the admin endpoint refuses request req of the admin key named who (logged, with
 * the key's name, either way): a field naming a file on the service's host, a resume of a
 * file outside the service's results folder. true with why filled.
 */
bool svc_admin_refuses(const struct service *s, const char *who, const char *req, char *why,
		       size_t len);
/*
 * The run a status or abort request names: its "id=", else the run of its "fleet=" (the
 * one going on, waiting, or the last ended of that fleet id) copied into buf; NULL: none.
 */
const char *svc_request_id(const struct service *s, const char *req, char *buf, size_t len);
/* Whether req names a fleet id ("fleet=") of no run the service has (its id in buf). */
bool svc_fleet_unknown(const struct service *s, const char *req, char *buf, size_t len);
/* The admin endpoint bound at endpoint with the service's key pair: 0, or -errno said. */
int svc_admin_bind(struct service *s, const char *endpoint, const struct rb_keypair *server);

/*
 * A run's results file into its database (the campaign's results_db, else serve
 * --results-db), said in its log (stderr now) and the service's: 1 when the export is
 * owed (the database away), else 0.
 */
int svc_db_export_run(struct service *s, const struct rb_campaign *c, const char *results);
/* The exports owed in the service's results folder and in the folders of runs since its
 * start, caught up (at its start and after a run whose export went through). */
void svc_db_catch_up(struct service *s);
void svc_db_release(struct service *s);
/* The service's clocks: the host's, the wall clock moved by $RB_TEST_WALL_OFFSET_NS. */
void svc_fleet_clock(struct service *s);
/* "time": the instant the request came (t1) and the reply's (t2), in its wall clock. */
void svc_fleet_time(struct service *s, int64_t t1);
/* A run request's fleet start instant ("start_at=", UTC ns in its wall clock), or 0. */
int64_t svc_fleet_start(const char *req);
/*
 * c cut to the request's "shard=", or to journaled (a resumed run's, from its journal) when
 * given (rb_campaign_shard); NULL: freed, the error replied.
 */
struct rb_campaign *svc_fleet_cut(struct service *s, struct rb_campaign *c, const char *req,
				  const char *journaled);
/* The run just ended's start skew at the fleet's instant kept in dr. */
void svc_fleet_done(const struct service *s, struct done_run *dr);
/* A status reply's lines of the start at the fleet's instant (dr's, NULL: the running's). */
const char *svc_fleet_lines(const struct service *s, const struct done_run *dr, char *buf,
			    size_t len);

/* The verdict rows of run's results file (its campaign's earlier run's replaced), for the
 * metrics page; a file that does not read leaves none, said. Nothing without --metrics. */
void svc_verdicts_note(struct service *s, const char *campaign, const char *run,
		       const char *results);
/*
 * The page's view of them (their strings the service's), then of the fleet's verdicts (a
 * domain's hold without a drive): nverdicts + nmarks rows the caller frees; NULL: no
 * memory.
 */
struct rb_metrics_verdict *svc_verdicts_view(const struct service *s);
/* The fleet's verdicts on the drives of the campaigns' last runs read again when due
 * (serve --metrics with --results-db; a database away keeps the last ones, said). */
void svc_fleet_read(struct service *s);
void svc_verdicts_release(struct service *s);

/* A reply to the request being answered (or, for a queued run answered already, its log). */
void svc_reply(struct service *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether agent name is in the run going on. */
bool svc_in_run(struct service *s, const char *name);
/* The agents registered: a line each (with drives: a line per target after it). */
void svc_reply_agents(struct service *s, bool drives);
/* The run going on (or id's), the last ended, the queue; a running run's drives. */
void svc_reply_status(struct service *s, const char *id, size_t max_drives);

#endif
