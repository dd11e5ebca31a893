/* SPDX-License-Identifier: MIT */
/*
 * What `rackbench report` computes from results files, shared by its text and HTML
 * outputs: one cell per (file, point, drive) with the latest attempt's figures, model
 * groups merged from histograms (never averaged percentiles) with outliers flagged, and
 * spec verdicts.
 */
#ifndef RB_REPORT_MODEL_H
#define RB_REPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report.h"
#include "results.h"
#include "verdict.h"

struct rp_file {
	const char *path;
	char methodology[32], campaign[128], status[16];
	int schema; /* its schema_version */
	struct rb_row_drive *dr;
	size_t nd;
	struct rb_row_point *pt;
	size_t np;
	struct rb_row_result *rs;
	size_t nr;
	struct rb_row_sample *sm;
	size_t nsm;
	struct rb_row_hist *hi;
	size_t nhi;
	struct rb_row_steady *ss; /* steady-state verdicts (schema 5 on) */
	size_t nss;
	struct rb_row_verdict *vd; /* the drives' verdicts (schema 7 on; none asked: 0) */
	size_t nvd;
	struct rb_row_health *he; /* health readings, read only for a spec's health limits */
	size_t nhe;
	struct rb_row_ckpt *ck; /* rw checkpoint's rows (schema 10 on) */
	size_t nck;
	struct rb_row_exec *ex; /* exec points' commands (schema 10 on) */
	size_t nex;
	struct rb_row_evidence *ev; /* files kept for a failing drive's vendor (schema 11 on) */
	size_t nev;
	struct rb_row_devlat *dl; /* OCP drives' own latency buckets per point (schema 13 on) */
	size_t ndl;
	struct rb_row_fdp_event *fe; /* FDP events logged during points (schema 14 on) */
	size_t nfe;
	char verdict[16]; /* the run's: PASS, FAIL, INCOMPLETE; "": not judged */
	size_t cell0;	  /* its first cell: cell0 + point row * nd + drive row */
	size_t drive0;	  /* its first drive's place among every file's drives */
};

struct rp_cell {
	size_t file;
	const struct rb_row_point *pt;
	const struct rb_row_drive *dr;
	const struct rb_row_result *res; /* the latest attempt; NULL: none */
	char label[340];		 /* agent:path, with #file when several files */
	char model[128];		 /* what it groups by: the model; a volume's width too */
	double iops, mbps, rd_mean_us, rd_p99_us, wr_mean_us, wr_p99_us;
	double vs_base; /* percent; NAN: none */
	bool outlier;
	size_t group; /* index into groups */
};

/* What drives are grouped by, for the head-to-head's columns and the groups of drives
 * (rp_cell_group): one rule for the text, --wide, the page and the Python helper. */
enum rp_by {
	RP_BY_AUTO,	/* models when there are several, else files, else drives */
	RP_BY_DRIVE,	/* each drive (its alias, else agent:path) */
	RP_BY_MODEL,	/* each model (a volume: its width and unit too) */
	RP_BY_FIRMWARE, /* each model, firmware and capacity */
	RP_BY_FILE,	/* each results file */
	RP_BY_LABEL,	/* each value of an agent's label (rp_report.by_label) */
};

/* The drives of one group (rp_cell_group: a model, or what --by names) at one point (by
 * point name, across files). */
struct rp_group {
	char point[256], name[160];
	size_t ndrives;
	double iops_min, iops_med, iops_max, mad;
	double rd_p50_us, rd_p99_us, wr_p50_us, wr_p99_us; /* from the merged histograms */
	size_t noutliers;
};

/* A point's figure: the drive's (the first five, a spec claim's too), or an application's:
 * an exec command's TPS or own IOPS, a checkpoint's seconds (report_exec.c, report_ckpt.c) */
enum rp_metric {
	RP_MBPS,
	RP_IOPS,
	RP_MEAN_US,
	RP_P99_US,
	RP_P99_9_US,
	RP_TPS,
	RP_APP_IOPS,
	RP_CKPT_S,
};

/* Whether a higher figure of m is the worse one (latencies, seconds per checkpoint). */
static inline bool rp_metric_lower_better(enum rp_metric m)
{
	return m == RP_MEAN_US || m == RP_P99_US || m == RP_P99_9_US || m == RP_CKPT_S;
}

struct rp_claim {
	char name[128], model[64], rw[16], spec_file[256];
	char phase[64]; /* "": any phase but fills and other size-based points */
	unsigned line;
	uint64_t bs;		   /* 0: any */
	unsigned iodepth, numjobs; /* 0: any */
	int rwmixread;		   /* percent; -1: any (a mix's claim must say) */
	int steady;		   /* 1: steady-state windows only; 0: any; -1: not before one */
	enum rp_metric metric;
	double value;
};

/* A spec file's health limits (its `health:`): the campaign verdict's health rules. */
struct rp_health_spec {
	char model[64], spec_file[256];
	struct rb_verdict_rules rules;
};

/* A spec check's answer: a drive a claim or limit should judge and cannot is no PASS. */
enum rp_check { RP_PASS, RP_FAIL, RP_NOT_JUDGED };

/* "PASS", "FAIL", "NOT JUDGED". */
const char *rp_check_name(enum rp_check c);

/* A drive judged against a spec's health limits over its whole run. */
struct rp_health_check {
	const struct rp_health_spec *spec;
	size_t file;
	const struct rb_row_drive *dr;
	enum rp_check state;
	char reason[600]; /* every limit it passed, or why it was not judged; "" a PASS */
};

/* A claim on a drive: judged at its best matching point, or not judged and why. */
struct rp_verdict {
	const struct rp_claim *claim;
	const struct rp_cell *cell; /* the point judged at; not judged: the drive's first */
	double measured, pct;
	enum rp_check state;
	char why[200]; /* not judged: why ("it never reached steady state in phase 'x'") */
};

/* A rack's figures (or the fleet's) at one point: its drives that ran it, their IOPS, and
 * the percentiles of its drives' histograms added bucket by bucket (ns; 0: no IO). */
struct rp_fleet_fig {
	size_t ndrives;		       /* that ran the point to its end */
	double iops_med, iops_sum;     /* of those drives; NAN: none */
	uint64_t rd_p50_ns, rd_p99_ns; /* reads */
	uint64_t wr_p50_ns, wr_p99_ns; /* writes */
	uint64_t rd_total, wr_total;   /* IOs in the summed histograms */
};

/* A rack: the drives whose agents carry one value of the label `rack`. */
struct rp_fleet_rack {
	char name[160];	   /* "rack=r1", or "no rack label" (rp_cell_subject's words) */
	size_t nfiles;	   /* files holding any of its drives */
	size_t ndrives;	   /* its rows of the files' drives tables */
	double slow_pct;   /* its p99 (or IOPS median) against the fleet's: + slower; NAN none */
	double worst_pct;  /* at its worst point */
	size_t worst, npt; /* that point; how many points the mean is over */
};

/* The fleet summary (report_fleet.c): a row per rack, its verdicts, its figures per
 * comparable point, and the racks slowest first. */
struct rp_fleet {
	struct rp_fleet_rack *racks;
	size_t nracks;
	char (*states)[16]; /* the verdict states the files hold: FAIL, INCOMPLETE, PASS, ... */
	size_t nstates;
	size_t *verdicts; /* [rack * (nstates + 1) + state]; state nstates: no verdict */
	bool any_verdicts;
	char (*points)[256]; /* the comparable points, by name */
	size_t npoints;
	struct rp_fleet_fig *fig; /* [point * (nracks + 1) + rack]; rack nracks: the fleet */
	size_t *order;		  /* the racks, slowest first */
	bool by_iops;		  /* slowness by IOPS median: no histograms */
	size_t nfiles, ndrives;
};

struct rp_report {
	struct rp_file *files;
	size_t nfiles;
	struct rp_cell *cells;
	size_t ncells;
	struct rp_group *groups;
	size_t ngroups;
	struct rp_claim *claims;
	size_t nclaims;
	struct rp_verdict *verdicts;
	size_t nverdicts;
	struct rp_health_spec *healths;
	size_t nhealths;
	struct rp_health_check *hchecks;
	size_t nhchecks;
	const char *baseline;
	double require_pct;
	bool methodology_differs;
	struct rp_h2h *h2h;	/* the head-to-head table (report_h2h.h) */
	enum rp_by by;		/* what drives are grouped by (rp_by_resolve: never AUTO) */
	const char *by_label;	/* RP_BY_LABEL: this label of the drives' agents */
	struct rp_fleet *fleet; /* the fleet summary; NULL: the drives are of one rack */
};

/* Outlier rule: |x - median| > max(3.5 * 1.4826 * MAD, 10% of the median). */
#define RP_OUTLIER_RULE                                                                            \
	"a drive is an outlier at a point when |IOPS - median| > max(3.5 x 1.4826 x MAD, 10% "     \
	"of the median) among the drives of its model (MAD: median absolute deviation)"
bool rp_is_outlier(double x, double median, double mad);
/* qsort order of doubles; also of records that start with a double (x of an x,y pair). */
int rp_cmp_double(const void *a, const void *b);
const char *rp_metric_name(enum rp_metric m);
/* A cell's figure for a metric; NAN when it has none. */
double rp_cell_metric(const struct rp_cell *c, enum rp_metric m);

/* A setting of the point ("interval=1s" in its settings string) into buf; "" if none. */
const char *rp_setting(const char *settings, const char *key, char *buf, size_t len);
/* A point that ends by bytes moved (io_size, passes: fills), not by time. */
bool rp_is_size_based(const struct rb_row_point *p);
/*
 * Whether drives are compared at a point (the head-to-head's rows; the Python helper's
 * compare() by the same rule, its comparable(); docs/report.md, "Comparable points"): not
 * rate-limited, not a curve's throttled point (its unthrottled run is), not size-based (a
 * fill: its time is the drive's, its figure an average over states), not a steady-state
 * round, not a point without a workload.
 */
bool rp_point_comparable(const struct rb_row_point *p);
/* Whether text names the cell's drive: a part of its label (its alias, or agent:path,
 * with #file), a part of agent:path, or its serial. */
bool rp_cell_names(const struct rp_cell *c, const char *text);
/* What --by asks for, AUTO made a choice: models when the cells are of several, else
 * files when there are several, else drives. */
enum rp_by rp_by_resolve(const struct rp_report *r, enum rp_by by);
/* The value of label key among labels (K=V,K=V) into buf as "key=value", or "no key
 * label"; whether it was there. */
bool rp_label_value(const char *labels, const char *key, char *buf, size_t len);
/* The name of a cell's drive's subject by what by names (not AUTO): its model, its
 * model, firmware and capacity, its file ("#2 campaign"), its agent's label ("rack=r12",
 * "no rack label"), or the drive itself (its label). */
void rp_cell_subject(const struct rp_report *r, const struct rp_cell *c, enum rp_by by, char *buf,
		     size_t len);
/* The group of drives a cell's drive is in, for the per-model table and the outliers: the
 * head-to-head's column of it (rp_cell_subject by r->by), its model where the columns are
 * single drives. */
void rp_cell_group(const struct rp_report *r, const struct rp_cell *c, char *buf, size_t len);
/* What the groups are, in words: "model", "label rack", ... */
const char *rp_by_words(const struct rp_report *r, char *buf, size_t len);
/* A cell's colour on every chart: its drive's place among every file's drives. */
size_t rp_cell_colour(const struct rp_report *r, const struct rp_cell *c);
/* The metric a review judges a point by: MB/s for sequential IO, block-size splits and
 * blocks of 64 KiB and more; IOPS for smaller random blocks and trace replays (the
 * Python helper's judged_metric() says the same). */
enum rp_metric rp_point_metric(const struct rb_row_point *p);
/* A point of a curve: a percentage of a maximum, or the unthrottled run finding it. */
bool rp_is_curve(const struct rb_row_point *p);

/* An interval shorter than this share of its point's nominal one (the `interval` setting)
 * is no rate of its own: a fill's last, ended by its last IO a few milliseconds after the
 * one before, would read as a spike. It is merged into the interval before it. The same
 * rule is python/rackbench_h5.py's SHORT_INTERVAL (docs/report.md, "Throughput over time"). */
#define RP_SHORT_INTERVAL 0.1
/*
 * A cell's intervals to rates, in place: n intervals in order, each its end t_s (seconds
 * from the start of measurement) and what it moved (amount: bytes, IOs); each becomes
 * amount per second of its own length (the first from 0), an interval shorter than
 * RP_SHORT_INTERVAL x nominal_s merged into the one before it (the first, into the one
 * after it). nominal_s <= 0: the longest interval's length. Returns how many are left.
 */
size_t rp_interval_rates(double *t_s, double *amount, size_t n, double nominal_s);

/* A spec file's claims added to r->claims: 0, or RB_EXIT_USAGE with every error said
 * (report_spec.c). */
int rp_load_spec(struct rp_report *r, const char *path);
/* Each claim judged against the cells into r->verdicts: 0 or -ENOMEM (report_spec.c). */
int rp_judge(struct rp_report *r);
/* Each drive of a spec's model against its health limits into r->hchecks: 0 or -ENOMEM
 * (report_spec.c; the files' health rows read). */
int rp_judge_health(struct rp_report *r);
/* The spec checks (claims and health) that failed and those not judged; the exit code
 * they make: RB_EXIT_BELOW_SPEC when any failed, else RB_EXIT_PARTIAL when any was not
 * judged (the qualification is incomplete), else RB_EXIT_OK. */
int rp_spec_counts(const struct rp_report *r, size_t *ret_fail, size_t *ret_not_judged);

/* The per-group table of r->groups (report.c): its heading and a row per point and group,
 * percentiles in microseconds; form is RB_REPORT_TABLE or RB_REPORT_MARKDOWN. The
 * files' report and the fleet's (report_db.c) print it alike. */
void rp_groups_table(const struct rp_report *r, int form);

/* The files of a read (rb_report's arguments), a cell per point and drive, their groups
 * and merged histograms, and the fleet summary when it is shown: 0, or an exit code with
 * the reason said. rp_report_free releases it (also after a failure). */
int rp_report_build(struct rp_report *r, const struct rb_report_args *a);
void rp_report_free(struct rp_report *r);

/* The fleet summary (report_fleet.c), shown when the drives span several racks (values of
 * their agents' label rack) or the report is --by rack: r->fleet built, 0 or -ENOMEM
 * (nothing built when it is not shown); freed. */
int rp_fleet_build(struct rp_report *r);
void rp_fleet_free(struct rp_report *r);
/* Its section in the text report (md: Markdown) and on the page. */
void rp_fleet_text(const struct rp_report *r, bool md);
void rp_fleet_html(FILE *o, const struct rp_report *r);

int rp_html(const struct rp_report *r, const char *path);
/* fio's output of every cell with a result, to out (report_fio.c): its JSON, json+ or terse
 * lines. */
enum rp_fio_form { RP_FIO_JSON, RP_FIO_JSONPLUS, RP_FIO_TERSE };
int rp_fio(const struct rp_report *r, enum rp_fio_form form, FILE *out);
/* fio's bw, iops, lat and clat_hist logs of every job with samples into dir, and
 * dir/jobs.tsv naming each job number (report_fio.c). */
int rp_fio_logs(const struct rp_report *r, const char *dir);
/* Row index by id (the row's first u32), for ids that are row numbers or close to them;
 * -1 when unknown; NULL when they are not (or no memory). */
long *rp_id_lut(const void *rows, size_t n, size_t rowsize, size_t *ret_n);
/*
 * The cell a row of file f names (its drive, point and attempt): that drive's at that
 * point when the row is of the cell's latest attempt; else NULL. dl and pl (ndl, npl of
 * them): the file's drive and point ids to rows (rp_id_lut; NULL: none).
 */
const struct rp_cell *rp_row_cell(const struct rp_report *r, const struct rp_file *f,
				  uint32_t drive, uint32_t point, uint32_t attempt, const long *dl,
				  size_t ndl, const long *pl, size_t npl);
/*
 * The cell a histogram row of file f counts for: its drive's at its point, when the row
 * is of that cell's latest attempt and a read or write bucket in range; else NULL. dl
 * and pl (ndl, npl of them): the file's drive and point ids to rows (rp_id_lut). The one
 * rule by which every table adds histograms.
 */
const struct rp_cell *rp_hist_cell(const struct rp_report *r, const struct rp_file *f,
				   const struct rb_row_hist *x, const long *dl, size_t ndl,
				   const long *pl, size_t npl);

/* The IO paths side by side (report_paths.c): whether any drive ran the same point through
 * the block layer (engine uring) and NVMe passthrough (uring_cmd); the table of them. */
bool rp_has_paths(const struct rp_report *r);
void rp_paths_text(const struct rp_report *r, bool md);
/*
 * What the drive says of itself (report_nvme.c), nothing printed where it said nothing:
 * thermal throttling within points, each drive and point whose SMART throttling counters
 * rose during it with the intervals that marks (rb_throttled_intervals); and an OCP
 * drive's own latency buckets over each point beside the host's IOs in the same ranges.
 */
void rp_throttle_text(const struct rp_report *r, bool md);
void rp_throttle_html(FILE *o, const struct rp_report *r);
void rp_devlat_text(const struct rp_report *r, bool md);
/* An OCP drive's own C0h counters over each point beside SMART's and the host's AER. */
void rp_ocp_text(const struct rp_report *r, bool md);
void rp_ocp_html(FILE *o, const struct rp_report *r);
void rp_devlat_html(FILE *o, const struct rp_report *r);

/* Write amplification per point (report_fdp.c): whether any drive has FDP statistics; the
 * table of host and media bytes and their ratio. */
bool rp_has_waf(const struct rp_report *r);
void rp_waf_text(const struct rp_report *r, bool md);
/* The page's charts of it: a bar chart a point, its drives' WAF. */
void rp_waf_chart(FILE *o, const struct rp_report *r);
/* The FDP events drives logged during points, by drive, point and type. */
void rp_fdp_events_text(const struct rp_report *r, bool md);
void rp_fdp_events_html(FILE *o, const struct rp_report *r);

#endif
