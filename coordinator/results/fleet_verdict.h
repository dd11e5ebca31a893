/* SPDX-License-Identifier: MIT */
/*
 * The fleet's verdicts (`rackbench judge`): what only the whole fleet of a campaign shows,
 * from every drive's latest run in it. A pure function of those rows; the results
 * database reads them and stores the verdicts (results_db.h).
 *
 *   fail_slow     per model and firmware, each point: a drive's latency at its load
 *                 against its peers' there. The figure is the point's read p99 (its write
 *                 p99 where it reads nothing); the load its IOPS. The peers' expectation
 *                 at that load is a running median: the median p99 of the other drives of
 *                 its model and firmware at the point whose IOPS is within 25% of the
 *                 drive's (the RB_FLEET_MAX_PEERS nearest in load, at least
 *                 RB_FLEET_MIN_PEERS, else the point is not judged). A point is slow when
 *                 the drive's p99 is beyond margin x the expectation and beyond it by more
 *                 than 3.5 x 1.4826 x the peers' MAD (their noise). K or more slow points:
 *                 QUARANTINE (retest); FAIL when an earlier run of the campaign was
 *                 QUARANTINE for it too. A drive slow in throughput alone (a lower IOPS
 *                 at a queue depth) is the rack verdict's min_model_pct, not this.
 *   cluster_hold  N or more drives whose latest run FAILed (the rack's verdict, or
 *                 fail_slow's FAIL) in one rack (or host): the domain on HOLD, its drives
 *                 named -- power, cooling or a backplane is suspect.
 *   firmware      per model, the firmware most of its drives run is its baseline; a drive
 *                 on a firmware fewer than half of its model's drives run is named (NOTE).
 *
 * Files and volumes are not judged by fail_slow nor firmware: a file's speed is its
 * filesystem's, a volume's its members'.
 */
#ifndef RB_FLEET_VERDICT_H
#define RB_FLEET_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_FLEET_LOAD_WINDOW 1.25 /* peers at its load: IOPS within this factor */
#define RB_FLEET_MIN_PEERS 3
#define RB_FLEET_MAX_PEERS 200

/* A drive as its latest run of the campaign saw it. */
struct rb_fleet_drive {
	char key[200], model[128], firmware[64], rack[64], host[256], kind[16];
	uint32_t members;	/* a volume's; 0 a drive */
	int64_t run_start_ns;	/* its latest run of the campaign */
	char verdict[16];	/* the rack's verdict of it there ("" none) */
	int64_t quarantined_ns; /* an earlier run's fail_slow QUARANTINE or FAIL: its start */
};

/* A drive's figures at a point of its latest run (a measured one). */
struct rb_fleet_point {
	size_t drive;  /* into the drives */
	uint32_t name; /* into the point names */
	bool write;    /* the figure is the write p99: the point reads nothing */
	double iops;   /* read + write + trim */
	double p99_ns; /* the figure */
};

/* The judge's parameters (`rackbench judge`'s flags, a campaign's fleet_verdict). */
struct rb_fleet_params {
	double margin;	     /* slow beyond margin x the peers' expectation (> 1) */
	unsigned min_points; /* K */
	unsigned cluster;    /* N */
	bool by_host;	     /* cluster_hold's domain: the host, not the rack */
};

/* Their defaults. */
#define RB_FLEET_PARAMS_DEFAULT                                                                    \
	(struct rb_fleet_params)                                                                   \
	{                                                                                          \
		.margin = 2.0, .min_points = 2, .cluster = 3, .by_host = false                     \
	}
/* Their bounds: a margin above 1 and at most this, counts of 1 up to this. */
#define RB_FLEET_MAX_MARGIN 1000.0
#define RB_FLEET_MAX_COUNT 100000

struct rb_fleet_in {
	const struct rb_fleet_drive *drives;
	size_t nd;
	const struct rb_fleet_point *points;
	size_t np;
	const char (*names)[256];
	size_t nnames;
	struct rb_fleet_params p; /* the rules' parameters, as judge and fleet_verdict: give */
};

enum rb_fleet_state { RB_FLEET_HOLD, RB_FLEET_FAIL, RB_FLEET_QUARANTINE, RB_FLEET_NOTE };

/* A verdict: a drive's (fail_slow, firmware) or a domain's (cluster_hold). */
struct rb_fleet_verdict {
	char subject[200];    /* the drive's key, or the domain: "rack=r4", "host=h1" */
	int64_t run_start_ns; /* the drive's run judged; a domain: 0 */
	const char *rule;     /* "fail_slow", "cluster_hold", "firmware" */
	enum rb_fleet_state state;
	size_t drive; /* a drive's: into the drives; a domain: its first failed drive */
	double measured, expected; /* fail_slow: at its worst point; else NAN */
	unsigned points;	   /* fail_slow: slow points; cluster_hold: failed drives */
	char reason[1536];
};

/* What was judged, for the summary line. */
struct rb_fleet_stats {
	size_t drives, models, judged_points, unjudged_points;
};

/* "HOLD", "FAIL", "QUARANTINE", "NOTE". */
const char *rb_fleet_state_name(enum rb_fleet_state s);

/*
 * Judges the fleet: *ret (freed by the caller) holds *ret_n verdicts, HOLD first, then
 * FAIL, QUARANTINE, NOTE, each by subject. 0 or -ENOMEM.
 */
int rb_fleet_judge(const struct rb_fleet_in *in, struct rb_fleet_verdict **ret, size_t *ret_n,
		   struct rb_fleet_stats *ret_stats);

#endif
