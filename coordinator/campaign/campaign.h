/* SPDX-License-Identifier: MIT */
/*
 * Campaign files: YAML describing targets (agent + drives), phases with a workload and
 * a matrix, and run settings. The loader reports every error it finds, in file order,
 * as FILE:LINE:COLUMN diagnostics naming the key; workload keys come from the one
 * option table (common/workload/options.h). Format: docs/campaigns.md, every key in
 * docs/campaign-keys.md.
 */
#ifndef RB_CAMPAIGN_H
#define RB_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "diag.h"
#include "fleet_verdict.h"
#include "fsspec.h"
#include "options.h"
#include "verdict.h"

struct rb_member {
	char *path;
	char *serial; /* the identity pin: "" none */
};

/* A campaign's drive: one device or file, or a striped volume of several measured as one. */
struct rb_drive_ref {
	char *agent;
	char *path;		   /* a volume: its name */
	char *serial;		   /* the identity pin: "" when the campaign pins none */
	char *alias;		   /* the name reports give it: "" none */
	struct rb_member *members; /* a volume's, in stripe order; NULL: a drive */
	size_t nmembers;
	uint64_t stripe;       /* a volume's unit in bytes (a point's 'stripe' overrides it) */
	unsigned line, column; /* a volume's place in the file */
	struct rb_fs_spec fs;  /* a filesystem the agent makes on it: type "" none */
};

/* Drives an agent offers, chosen by identity when it connects: every match, which must
 * be exactly count. */
struct rb_selector {
	char *agent;
	char *model, *serial, *firmware; /* "" any; model and firmware: substrings */
	unsigned count;
	bool at_least; /* count is a floor ("all": 1, ">= N"): every match is taken */
	unsigned line, column;
};

/*
 * Agents chosen when they connect, by name pattern (a glob) and labels: exactly count
 * of them, each with the same drives (paths it must offer) or a selector per agent.
 */
struct rb_agent_group {
	char *name;    /* a glob (fnmatch); "" any */
	char **labels; /* "KEY=VALUE", all required */
	size_t nlabels;
	unsigned count;
	bool at_least; /* count is a floor ("all": 1, ">= N"): every match is taken */
	char **drives; /* paths, or none with a selector */
	size_t ndrives;
	bool has_select;
	struct rb_selector select; /* agent "": a template */
	unsigned line, column;
	/* a fleet's shard (rb_campaign_shard): exactly these agents, whatever their labels */
	char **only;
	size_t nonly;
	bool sharded;
};

struct rb_point {
	unsigned index;
	unsigned phase;
	char name[256]; /* "randread iodepth=8" */
	struct rb_workload wl;
	unsigned round;	       /* steady-state phases: 1.., else 0 */
	bool track;	       /* the steady-state tracking point of its round */
	double curve_pct;      /* curves: 0 the unthrottled run, else percent of it; NAN: none */
	unsigned curve_base;   /* curves: index of the point measuring the maximum */
	char purge[24];	       /* a purge phase: the method (rackbench-agent purge), else "" */
	unsigned purge_ses;    /* format: 0 none, 1 user data erase, 2 crypto erase */
	char exec[64];	       /* an exec phase: the agents' command (their allow-list), else "" */
	char exec_params[512]; /* its parameters: "KEY=VALUE" lines */
};

enum rb_track_metric { RB_TRACK_IOPS, RB_TRACK_MBPS, RB_TRACK_MEAN_LAT };

struct rb_phase {
	char *name;
	uint64_t idle_ns;	/* idle time after each point of the phase */
	unsigned steady_rounds; /* 0: not a steady-state phase; else the most rounds */
	unsigned steady_window; /* rounds (rolling: intervals) in the window (5) */
	bool steady_rolling;	/* each point runs until its intervals are steady */
	enum rb_track_metric metric;
	size_t npoints_per_round; /* matrix points in one round or one curve */
	char **drives;		  /* the drives it measures (paths, volume names); none: all */
	size_t ndrives;
	struct rb_verdict_rules verdict; /* its performance rules (NAN: the root's) */
	unsigned line, column;
};

struct rb_campaign {
	char *file;
	char *text;  /* the campaign as written, stored with the results */
	char *shard; /* the fleet shard it was cut to (rb_campaign_shard); NULL: whole */
	size_t text_len;
	char *name;
	char *listen;
	bool insecure;
	bool destructive;
	bool wipe_signatures; /* the guard may let writes overwrite signatures */
	char *results_dir;
	char *results_db; /* the fleet's database the file is exported into; NULL: the service's */
	char *key;	  /* the coordinator's key pair file */
	char *agent_keys; /* the allow-list: NAME PUBLIC-KEY lines */
	uint64_t wait_ns;
	enum { RB_LOST_WAIT, RB_LOST_CONTINUE, RB_LOST_ABORT } on_agent_lost;
	uint64_t lost_wait_ns; /* how long a lost agent is waited for */
	/* a drive the guard refuses: the campaign stops, or it goes on without the drive */
	enum { RB_REFUSAL_STOP, RB_REFUSAL_SKIP } on_refusal;
	struct rb_verdict_rules verdict; /* every NAN: no verdicts asked for */
	/* fleet_verdict: the fleet's verdicts in results_db, judged by `fleet run` at its end */
	struct {
		bool on;
		struct rb_fleet_params params;
		uint64_t wait_ns; /* how long the racks' exports are waited for */
	} fleet_verdict;
	char **agents; /* distinct agent names, in file order */
	size_t nagents;
	struct rb_drive_ref *drives; /* selected drives are appended when agents connect */
	size_t ndrives;
	struct rb_selector *selectors;
	size_t nselectors;
	struct rb_agent_group *groups; /* their agents join agents[] when chosen */
	size_t ngroups;
	struct rb_phase *phases;
	size_t nphases;
	struct rb_point *points;
	size_t npoints;
};

/* Returns 0, or -EINVAL with every problem in diags (sorted in file order). */
int rb_campaign_load(const char *file, const char *text, size_t len, struct rb_campaign **ret,
		     struct rb_diags *diags);
int rb_campaign_load_file(const char *path, struct rb_campaign **ret, struct rb_diags *diags);
struct rb_campaign *rb_campaign_free(struct rb_campaign *c);
/* Appends a drive (a selector's choice, when its agent connected). 0 or -ENOMEM. */
int rb_campaign_add_drive(struct rb_campaign *c, const char *agent, const char *path,
			  const char *serial);
/* Appends an agent (a group's choice); its drives as paths, or a copy of a selector. */
int rb_campaign_add_agent(struct rb_campaign *c, const char *agent, const struct rb_agent_group *g);
/*
 * A rack's shard of a fleet's campaign (rackbench fleet run): spec is "AGENT:GROUP,..."
 * (the agents `fleet plan` chose on the rack, each with the index of the agent group that
 * took it, or '-' for an agent the campaign names). Drives, selectors and agents of other
 * agents go; each group takes exactly its agents of the shard. 0, or -EINVAL (err says).
 */
int rb_campaign_shard(struct rb_campaign *c, const char *spec, char *err, size_t len);
/* Whether an agent of that name and labels ("K=V" pairs) belongs to group g. */
bool rb_agent_group_matches(const struct rb_agent_group *g, const char *name,
			    const char *const *keys, const char *const *values, size_t nlabels);
/* Whether point p measures campaign drive d (its phase's 'drives', else every drive). */
bool rb_point_has_drive(const struct rb_campaign *c, const struct rb_point *p, size_t d);
/* The unit volume d stripes in at point p: the point's 'stripe', else the volume's own. */
uint64_t rb_volume_unit(const struct rb_drive_ref *d, const struct rb_point *p);
/* Whether any point writes. */
bool rb_campaign_writes(const struct rb_campaign *c);
/* The methodology hash: 16 hex digits over the expanded plan (points, settings, order),
 * not the drives; stored with the results so reports compare like with like. */
char *rb_campaign_methodology(const struct rb_campaign *c, char *buf, size_t len);
/*
 * The results file of a run started at now: "RESULTS/NAME-YYYYMMDDTHHMMSSZ.h5", NAME the
 * campaign's name made a file name by rb_fname_sanitize() ("../../x" is "_._.__x"), so
 * the file is in the results folder and nowhere else; the path made is checked for it.
 * When that name (or its journal) is taken -- two runs of one campaign in one second --
 * "-2", "-3", ... follows the time, the first free one. Creates the folder (not its
 * parents) when missing. Returns 0, or negative errno: -ENAMETOOLONG when the path does
 * not fit in len, -EXDEV when it would leave the folder, -EEXIST when 99 are taken.
 */
int rb_campaign_results_path(const struct rb_campaign *c, time_t now, char *buf, size_t len);

#endif
