/* SPDX-License-Identifier: MIT */
/* What the fleet commands share (fleet_ask.c, fleet_plan.c, fleet_run.c, fleet_view.c,
 * fleet_db.c): private to coordinator/fleet/. */
#ifndef RB_FLEET_PRIV_H
#define RB_FLEET_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet.h"
#include "serve.h"

#define RB_FLEET_ID_MAX RB_RUN_ID_MAX

/* The arguments every command needs (the fleet; with id, a fleet run id): 0 or exit code. */
int fleet_need(const struct rb_fleet_args *a, bool id);
/* The fleet, this client's key pair and the deadline: 0, or the exit code said. */
int fleet_setup(const struct rb_fleet_args *a, struct rb_fleet **ret_f, struct rb_keypair *me,
		int *deadline_ms);
/* Every rack asked req; the replies (nracks of them, to free) or NULL said. */
struct rb_fleet_reply *fleet_ask_all(const struct rb_fleet *f, const struct rb_keypair *me,
				     const char *req, int deadline_ms);
/* rb_fleet_ask with a request per rack (reqs[i]; NULL: that rack is not asked, -ENOENT),
 * or req for every rack when reqs is NULL. */
size_t fleet_ask_each(const struct rb_fleet *f, const struct rb_keypair *me,
		      const char *const *reqs, const char *req, int deadline_ms,
		      struct rb_fleet_reply *ret);
struct rb_campaign;
/*
 * Each rack's shard of campaign c from the racks' "agents" replies (rep, cut in place):
 * spec[r] for its run request's "shard=" ("AGENT:GROUP,..."; NULL: no shard there, or no
 * answer), drives[r]. Returns the plan's exit code (2: the fleet cannot meet c, said).
 */
int fleet_shards(const struct rb_fleet *f, const struct rb_campaign *c, struct rb_fleet_reply *rep,
		 char **spec, size_t *drives);
/* A rack's failure to answer (err of its reply) in words, in buf. */
const char *fleet_why_not(int err, int deadline_ms, char *buf, size_t len);

/* fleet run: where each rack's shard stands, as its service last said (fleet_run.c). */
enum fleet_rack_state {
	RACK_NONE,	  /* no shard of the campaign there */
	RACK_UNREACHABLE, /* no answer at submit: INCOMPLETE */
	RACK_REFUSED,	  /* its service refused the shard: INCOMPLETE */
	RACK_QUEUED,
	RACK_RUNNING,
	RACK_DONE,
	RACK_LOST, /* its service stopped answering during the run: INCOMPLETE */
};

struct fleet_rack {
	enum fleet_rack_state st;
	char *spec;		     /* its shard ("shard=" of the run request) */
	size_t drives;		     /* the plan's */
	bool clock_ok;		     /* its clock was measured */
	int64_t offset_ns, delay_ns; /* its wall clock minus ours, the round trip it is of */
	int64_t heard_ns;	     /* our monotonic clock when it last answered */
	char id[RB_FLEET_ID_MAX], phase[16], why[256], results[4096];
	size_t point, points, ndrives;
	double iops;
	unsigned failing; /* drives with IO errors or data errors so far */
	bool unheard;	  /* the last ask had no answer */
	int exit;
	unsigned skew_n; /* its drives' start at the fleet's instant, its agents' skew */
	int64_t skew_lo, skew_hi, late;
};

/* fleet run's fleet verdict (a campaign's fleet_verdict), once every rack has ended. */
struct fleet_judgement {
	bool asked;		 /* the campaign has fleet_verdict */
	bool judged;		 /* the verdicts were made and stored */
	int exit;		 /* the judgement's part of the exit code */
	size_t drives, count[4]; /* drives judged; verdicts by enum rb_fleet_state */
	char missing[1024];	 /* the ended racks whose runs the database lacked: their names */
	char why[512];		 /* not judged: why */
};

/*
 * When c has fleet_verdict: its database waited for (up to fleet_verdict.wait) until it
 * holds each ended rack's run, those still missing named; then judged, the verdicts
 * printed on stdout (fleet_db.c). *ret says what became of it; returns its exit code.
 */
int fleet_judge(const struct rb_fleet *f, const struct fleet_rack *r, const struct rb_campaign *c,
		struct fleet_judgement *ret);

/* A status reply of its run into r. */
void fleet_rack_status(struct fleet_rack *r, const char *text);
/* A rack's state in a word (INCOMPLETE ones in capitals). */
const char *fleet_rack_word(const struct fleet_rack *r);
/* The live view on stderr: a line a rack, over the last one on a terminal. */
void fleet_view(const struct rb_fleet *f, const struct fleet_rack *r, bool tty, unsigned *drawn);
/* The fleet table on stdout, with the start skew across the racks. */
void fleet_table(const struct rb_fleet *f, const struct fleet_rack *r, const char *fid,
		 int64_t instant);
/* The fleet summary (JSON) written to path: 0, or -errno. */
int fleet_summary(const char *path, const struct rb_fleet *f, const struct fleet_rack *r,
		  const char *fid, const char *campaign, int64_t instant, int rc,
		  const struct fleet_judgement *fj);
/* The start skew across the racks (latest minus earliest start in our clock): whether known. */
bool fleet_skew(const struct rb_fleet *f, const struct fleet_rack *r, int64_t *ret_lo,
		int64_t *ret_hi);

#endif
