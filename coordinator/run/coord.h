/* SPDX-License-Identifier: MIT */
/*
 * Runs a campaign in-process: binds (or takes) the ROUTER socket, waits for the
 * campaign's agents, checks every drive with each agent's guard before anything is
 * written anywhere, runs the points in order with all targeted drives at once,
 * writes the HDF5 file and prints a summary table.
 */
#ifndef RB_COORD_H
#define RB_COORD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "campaign.h"
#include "clock.h"
#include "journal.h"
#include "transport.h"

struct rb_zap;

/* Where a run stands, for `rackbench status` (updated as the run goes). */
struct rb_coord_state {
	char phase[16];	       /* waiting, selecting, pre-flight, point, idle, ... */
	size_t point, npoints; /* the point running (index), of how many */
	char results[4096];    /* the file being written; "" before */
	bool live_due;	       /* set by the service: the loop's next turn calls o->live */
	/* rackbench fleet run (rb_coord_opts.start_wall_ns): how far the first point's drives
	 * started from the fleet's instant, in our clock (skew_n of them), and how late the
	 * point was sent past it (a run queued behind another: 0 when in time) */
	int64_t skew_lo_ns, skew_hi_ns, late_ns;
	unsigned skew_n;
};

/*
 * The run going on as the service's metrics page shows it (rb_coord_opts.live): each
 * drive's figures of its last sample interval, each agent's state. The strings and
 * arrays are the run's, valid during the call only.
 */
struct rb_live_drive {
	const char *agent, *host, *path;       /* path: the campaign's (a volume's name) */
	const char *serial, *model, *firmware; /* "": unknown */
	const char *alias;		       /* the campaign's name for it; "": none */
	const char *labels;	  /* its agent's labels as it said them, "K=V,K=V" ("": none) */
	bool measured;		  /* the figures below are of an interval of the point running */
	bool running;		  /* it does IO now: its part of the point has not ended, and it is
			     * not idle (a finished or idle drive's figures read 0) */
	uint32_t interval;	  /* that interval: the samples table's index */
	double iops, bytes_per_s; /* the interval's IOs and bytes over its length */
	double lat_mean_s, lat_p99_s; /* mean over all its IOs; p99: the worst direction's */
	double temp_c;		      /* the last reading in the run; NAN: unknown */
	uint64_t io_errors;	      /* failed IOs and verify mismatches in the run so far */
	int failing; /* the campaign asks for verdicts: 1 failing by what is known so far (data,
		      * temperature, critical warnings), else 0; -1: it asks none */
};

struct rb_live_agent {
	const char *name, *host;
	bool connected, lost; /* lost: silent too long during a point, or dropped */
};

struct rb_coord_live {
	const struct rb_live_drive *drives; /* none before the drives are chosen */
	size_t ndrives;
	const struct rb_live_agent *agents;
	size_t nagents;
	uint64_t samples; /* sample rows taken in this run so far */
};

struct rb_coord_opts {
	void *router;		     /* already bound (demo), or NULL to bind c->listen */
	const char *results_path;    /* NULL: <results>/<name>-<UTC time>.h5 */
	volatile sig_atomic_t *stop; /* set by a signal handler: abort the run */
	const char *events;	     /* JSON Lines of progress events, or NULL */
	char *ret_path;		     /* the file written */
	size_t ret_path_len;
	const struct rb_clock *clock; /* the run's timers; NULL: the real clock */
	/* rackbench fleet run: the first point starts at this instant of the clock's wall time
	 * (UTC ns), converted to its monotonic time when the point is sent; 0: at once */
	int64_t start_wall_ns;
	/* rackbench serve: its ZAP handler (with router; NULL keyless), a hook for every
	 * Hello (any agent, of this campaign or not), one called between messages (the
	 * control socket), and where the run stands */
	struct rb_zap *zap;
	/* the fleet's database (a campaign's results_db, or serve --results-db): the run so
	 * far is exported into it at each point's end but the last (results_db_so_far.c);
	 * the caller exports the file at the run's end. NULL: none */
	const char *results_db;
	void (*hello_hook)(void *arg, const struct rb_peer *peer, const struct rb_msg_hello *h,
			   uint32_t major, uint32_t minor);
	void (*tick)(void *arg);
	void *hook_arg;
	struct rb_coord_state *state;
	/* rackbench serve's metrics: the run's figures, from the run's thread, at most once a
	 * second while they change (each sample interval, a health reading, an agent's
	 * state, the phase), and when state->live_due asks */
	void (*live)(void *arg, const struct rb_coord_live *l);
	/* rackbench serve: the agents already connected, as their last Hello said: the run
	 * starts with them at once instead of waiting for the next Hello */
	const struct rb_known_agent {
		struct rb_peer peer;
		const struct rb_msg *hello;
	} * known;
	size_t nknown;
};

/*
 * Each returns the process exit code (common/util/exitcode.h). Selectors' drives are
 * appended to c when the agents connect.
 */
/* Runs the campaign: agents, pre-flight, every point, the results file. */
int rb_coord_run(struct rb_campaign *c, const struct rb_coord_opts *o);

/*
 * Resumes a crashed run: o->results_path's journal (described by m) holds what was
 * acknowledged; its whole points are replayed into a new file (the old one kept as
 * .crashed) and the rest run.
 */
int rb_coord_resume(struct rb_campaign *c, const struct rb_coord_opts *o,
		    const struct rb_journal_meta *m);

/*
 * plan --resolve: the agents, the drives they offer and the guard's verdicts; no IO.
 * With lock, the drives' identities are written there (only if the guard let all pass).
 */
int rb_coord_resolve(struct rb_campaign *c, const struct rb_coord_opts *o, const char *lock);

#endif
