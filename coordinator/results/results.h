/* SPDX-License-Identifier: MIT */
/*
 * The results writer: one HDF5 file per campaign run, a few long compound tables
 * (agents, drives, points, results, samples, histograms, bs_counts) and root
 * attributes. The layout is documented in schemas/results-layout.md, and a test holds
 * this module to that document. This is the one module that speaks HDF5.
 *
 * Rows are buffered and appended per table on rb_results_flush(), which also flushes
 * the file, so a coordinator killed between flushes leaves a file h5clear can repair.
 */
#ifndef RB_RESULTS_H
#define RB_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#include "options.h"

#define RB_RESULTS_SCHEMA_VERSION 14

struct rb_row_agent {
	char name[64];
	char host[64];
	char kernel[128];
	char rb_version[16];
	char protocol[16];
	int64_t registered_ns;
	int64_t clock_offset_ns; /* its CLOCK_MONOTONIC minus ours, when the run started */
	int64_t clock_delay_ns;	 /* the round trip of that estimate; -1: none */
};

struct rb_row_drive {
	uint32_t drive;
	char agent[64];
	char host[64];
	/* path (the campaign's name), kind, model, serial, firmware, capacity_bytes and
	 * logical_block_size columns; writable is not stored */
	struct rb_identity id;
	uint64_t stripe_bytes; /* a striped volume's unit (its points may override); 0: a drive */
	uint32_t members;      /* a volume's members (the members table); 0: a drive */
	char alias[64];	       /* the campaign's name for it (schema 9 on); "": none */
	char labels[256];      /* its agent's labels, K=V,K=V (schema 9 on) */
	/* a filesystem its agent made on it (schema 10 on): type "" none */
	char filesystem[16];
	char mkfs_options[256];
	char mount_options[256];
};

/* One member of a striped volume, as its agent opened it. */
struct rb_row_member {
	uint32_t drive;	       /* the volume */
	uint32_t member;       /* its place in the stripe order */
	struct rb_identity id; /* the same columns as a drive's */
};

struct rb_row_point {
	uint32_t point;
	char phase[64];
	char name[256];
	char rw[16];
	uint64_t bs_bytes;
	uint32_t iodepth;
	uint32_t numjobs;
	uint32_t rwmixread_pct;
	uint64_t runtime_ns;
	uint64_t ramp_ns;
	uint64_t rate_iops;
	uint8_t direct;
	char engine[16];
	char settings[RB_WORKLOAD_DUMP_MAX];
	uint32_t round;	  /* steady-state round, 1..; 0: not a steady-state phase */
	uint8_t track;	  /* the round's tracking point */
	double curve_pct; /* curve: 0 the unthrottled run, else percent of it; NaN: none */
};

struct rb_row_dir {
	uint64_t ios, bytes, errors;
	double iops, bw_bytes_per_s, lat_mean_ns;
	uint64_t lat_min_ns, lat_p50_ns, lat_p90_ns, lat_p99_ns, lat_p99_9_ns, lat_max_ns;
};

struct rb_row_result {
	uint32_t drive, point, attempt;
	char status[16];
	struct rb_result_core core; /* what the agent measured (common/wire/resultcore.h) */
	struct rb_row_dir read, write, trim;
	uint64_t health_write_bytes;	 /* written during the point, by the drive's counters */
	double health_max_temp_c;	 /* NaN: unknown */
	double health_new_media_errors;	 /* NaN: unknown */
	uint8_t health_critical_warning; /* every warning bit seen */
	char uring_features[64];
	char trim_method[16]; /* how its trims or write-zeroes went; "" none */
	/* FDP over the point: host and media bytes written, media over host; NaN: none */
	double fdp_host_bytes, fdp_media_bytes, waf;
	/* OCP C0h over the point (schema 13 on): the bytes the media wrote, and over the
	 * bytes written to the drive (health_write_bytes); NaN: not read */
	double ocp_media_bytes, ocp_waf;
	/* OCP C0h's other counters over the point (schema 14 on), the drive's second
	 * witness: throttle events, PCIe correctable errors, link retrains, power state
	 * changes (rises), and its throttle level at the end; NaN: not read (or fell) */
	double ocp_throttle_events, ocp_pcie_correctable, ocp_link_retrains,
		ocp_power_state_changes, ocp_throttle_status;
	char message[256];
	uint64_t rate_iops;    /* the limit this drive ran at (curves: its own); 0 none */
	uint8_t steady;	       /* 0 no steady-state phase, 1 in the steady window, 2 not */
	char purge_method[24]; /* the drive's last purge, as its agent recorded it */
	int64_t start_skew_ns; /* its jobs' start minus the point's planned instant, our clock */
};

/* its longest names, "refused" and "stopped", fit a result row's status */
_Static_assert(sizeof(((struct rb_row_result *)0)->status) >= sizeof("refused"),
	       "a result row's status holds every name of enum rb_status");

/* A result row's status as the enum (the file keeps its string; unknown is an error). */
static inline enum rb_status rb_row_status(const struct rb_row_result *r)
{
	return rb_status_of(r->status);
}

/* One row per drive and steady-state phase: the SNIA verdict and its window. */
struct rb_row_steady {
	uint32_t drive;
	char phase[64];
	uint32_t point;	 /* rolling: the point judged; rounds: the last tracking point */
	uint8_t rolling; /* 1: windows of intervals within one point; 0: of rounds */
	char metric[16];
	uint32_t rounds; /* rounds run */
	uint32_t window; /* rounds in the measurement window */
	uint8_t steady;
	uint32_t steady_round;	     /* the round that closed the steady window; 0: none */
	double avg, min, max, slope; /* of the steady window, or of the last one */
	uint8_t range_ok, slope_ok;
};

struct rb_row_sample {
	uint32_t drive, point, attempt, interval;
	uint8_t direction;
	int64_t t_ns;
	uint64_t ios, bytes, errors;
	double lat_mean_ns;
	uint64_t lat_p50_ns, lat_p99_ns;
	/* its latency histogram: rows [hist_first, hist_first + hist_n) of hist_bins */
	uint64_t hist_first;
	uint32_t hist_n;
};

/* One non-zero bucket of a sample's histogram (schema 8 on: samples say whose). */
struct rb_row_bin {
	uint32_t bucket;
	uint32_t count; /* a count past 2^32 - 1 takes several rows of one bucket: add them */
};

/* A bucket with its sample's key: what rb_results_read_hists() gives for any schema. */
struct rb_row_hist {
	uint32_t drive, point, attempt, interval;
	uint8_t direction;
	uint32_t bucket;
	uint64_t count;
};

struct rb_row_health {
	uint32_t drive, point, attempt;
	uint32_t member; /* 0: the drive (a volume's: its members added up); k: member k - 1 */
	uint8_t when;	 /* 0 before, 1 during, 2 after */
	int64_t t_ns;
	struct rb_health_snap h; /* its columns: common/wire/healthsnap.h */
};

struct rb_row_bs {
	uint32_t drive, point, attempt;
	uint8_t direction;
	uint64_t bs_bytes;
	uint64_t ios;
};

/* An IO error or a verification mismatch, where it happened (one row per distinct one). */
struct rb_row_ioerror {
	uint32_t drive, point, attempt;
	uint8_t direction; /* 0 read, 1 write, 2 trim */
	uint64_t offset;
	uint32_t length;
	uint32_t err;	/* positive errno; EILSEQ (84): the data read is not what was written */
	uint64_t count; /* times this same failure happened */
};

/* rw checkpoint: one checkpoint (direction 1) or its restore (0) on a drive (schema 10 on). */
struct rb_row_ckpt {
	uint32_t drive, point, attempt, checkpoint;
	uint8_t direction;
	uint64_t bytes;	      /* every shard's */
	int64_t start_ns;     /* the writers' common start */
	uint64_t duration_ns; /* the slowest writer's time */
	double gib_per_s;     /* bytes over duration, GiB/s */
	uint32_t writers, slowest_writer;
	uint64_t fs_bytes; /* the kept checkpoints' blocks on the filesystem, after (writes) */
	uint32_t errors;
};

/* One writer's part of a checkpoint row. */
struct rb_row_ckpt_writer {
	uint32_t drive, point, attempt, checkpoint;
	uint8_t direction;
	uint32_t writer;
	uint64_t bytes, duration_ns;
};

/* A file of a drive's evidence for the vendor, kept on its agent's host (schema 11 on) and
 * beside the results file (schema 13 on). */
struct rb_row_evidence {
	uint32_t drive, point, attempt;
	char kind[16];	/* telemetry, error-log, smart, event-log */
	char path[512]; /* on the agent's host */
	uint64_t bytes;
	char sha256[65];  /* hex, of the file */
	char stored[512]; /* gzip-compressed, relative to the results file's folder; "" none */
};

/* A zoned namespace's zone after a zns point, as the kernel reports it (schema 12 on). */
struct rb_row_zone {
	uint32_t drive, point, attempt, zone;
	uint64_t start_bytes, len_bytes, capacity_bytes, wp_bytes;
	char cond[16]; /* empty, implicit-open, explicit-open, closed, full, read-only, offline */
	char type[16]; /* conventional, seq-required, seq-preferred */
};

/*
 * One of an OCP drive's own latency buckets over a point (Latency Monitor C3h, read before
 * and after it), beside the IOs the host measured in the same range (schema 13 on): where
 * the host saw more slow IOs than the drive, the time was spent above the drive.
 */
struct rb_row_devlat {
	uint32_t drive, point, attempt, bucket;
	uint32_t from_ms, to_ms;		      /* to_ms 0: no end (the last bucket) */
	uint64_t reads, writes, trims;		      /* the drive's count */
	uint64_t host_reads, host_writes, host_trims; /* the host's, its histograms' buckets */
};

/*
 * An FDP event a drive logged during a point (its events logs, the host's and the
 * controller's, read before and after it; schema 14 on): a reclaim unit not fully written
 * or past its time limit, handles modified, an invalid placement id, media reallocated.
 */
struct rb_row_fdp_event {
	uint32_t drive, point, attempt;
	uint8_t type;  /* 0, 1, 2, 3 the host's events; 128, 129 the controller's */
	uint8_t flags; /* bit 0 pid valid, 1 nsid valid, 2 location (rgid, ruhid) valid */
	uint32_t pid, rgid;
	uint8_t ruhid;
	uint32_t nsid;
	uint64_t timestamp_ms; /* the drive's clock */
	uint32_t nlbam;	       /* media reallocated: blocks moved */
	uint8_t lba_valid;
	uint64_t lba;
};

/* An exec point's command on a drive: how it ended, what its parser read (schema 10 on). */
struct rb_row_exec {
	uint32_t drive, point, attempt;
	char command[64];
	int64_t exit_code; /* -N: killed by signal N */
	uint8_t timed_out;
	uint64_t duration_ns;
	char parser[16];
	double tps, qps, iops, mbps;			       /* NaN: not read */
	double lat_avg_ms, lat_p95_ms, lat_p99_ms, lat_max_ms; /* NaN: not read */
	double errors;					       /* NaN: not read */
	char metrics[512];	/* every metric read, KEY=VALUE,KEY=VALUE */
	char stdout_tail[4096]; /* the output's last 4 KiB */
	char stderr_tail[2048];
};

/* A drive's verdict: one row per rule that tripped, and one (rule "drive") per drive. */
struct rb_row_verdict {
	uint32_t drive;
	char rule[32];	  /* "drive" (the drive's own verdict), "mismatch", "max_temp_c", ... */
	char verdict[16]; /* PASS, FAIL or INCOMPLETE */
	double measured;  /* NaN: not a number (a rule of words) */
	double limit;	  /* NaN: none */
	int64_t point;	  /* where it tripped first; -1: the whole run */
	int64_t interval; /* the sample interval where it began; -1: none */
	int64_t t_ns;	  /* when, ns since the UTC epoch; 0: not known */
	char reason[512]; /* in words */
};

struct rb_results_meta {
	const char *campaign_name;
	const char *campaign_text;
	const char *methodology; /* rb_campaign_methodology(): the expanded plan's hash */
	int64_t start_ns;
	int insecure;
};

struct rb_results;

/* Creates path (failing if it exists). Returns NULL with err filled. */
struct rb_results *rb_results_create(const char *path, const struct rb_results_meta *m, char *err,
				     size_t errlen);
int rb_results_agent(struct rb_results *r, const struct rb_row_agent *row);
int rb_results_drive(struct rb_results *r, const struct rb_row_drive *row);
int rb_results_member(struct rb_results *r, const struct rb_row_member *row);
int rb_results_point(struct rb_results *r, const struct rb_row_point *row);
int rb_results_result(struct rb_results *r, const struct rb_row_result *row);
int rb_results_sample(struct rb_results *r, const struct rb_row_sample *row);
/*
 * A sample and its sparse histogram (n buckets idx[] ascending with their counts):
 * the buckets go to hist_bins, the row (its hist_first and hist_n set) to samples.
 */
int rb_results_sample_hist(struct rb_results *r, struct rb_row_sample *row, const uint32_t *idx,
			   const uint64_t *cnt, size_t n);
int rb_results_bs(struct rb_results *r, const struct rb_row_bs *row);
int rb_results_health(struct rb_results *r, const struct rb_row_health *row);
int rb_results_steady(struct rb_results *r, const struct rb_row_steady *row);
int rb_results_ioerror(struct rb_results *r, const struct rb_row_ioerror *row);
int rb_results_ckpt(struct rb_results *r, const struct rb_row_ckpt *row);
int rb_results_ckpt_writer(struct rb_results *r, const struct rb_row_ckpt_writer *row);
int rb_results_exec(struct rb_results *r, const struct rb_row_exec *row);
int rb_results_evidence(struct rb_results *r, const struct rb_row_evidence *row);
int rb_results_zone(struct rb_results *r, const struct rb_row_zone *row);
int rb_results_devlat(struct rb_results *r, const struct rb_row_devlat *row);
int rb_results_fdp_event(struct rb_results *r, const struct rb_row_fdp_event *row);
/* The row index the next rb_results_result() gets. */
long rb_results_next_result(const struct rb_results *r);
/* Sets the steady column of a results row already added. 0 or negative errno. */
int rb_results_set_steady(struct rb_results *r, long row, uint8_t steady);
/* Appends buffered rows and flushes the file. 0 or negative errno. */
int rb_results_flush(struct rb_results *r);
/* The same, and waits until the writer has them on disk (another process may read them
 * then: a SWMR reader). 0 or negative errno. */
int rb_results_sync(struct rb_results *r);
/* Bytes of rows buffered, not yet appended. */
size_t rb_results_buffered(const struct rb_results *r);
/* Sets status and end time, flushes and closes. Returns 0 or negative errno. */
int rb_results_close(struct rb_results *r, const char *status, int64_t end_ns);

/*
 * The drives' verdicts, added to a closed results file (its verdicts table) with the
 * run's in one root attribute, verdict: PASS, FAIL or INCOMPLETE. 0 or negative errno.
 */
int rb_results_add_verdicts(const char *path, const struct rb_row_verdict *rows, size_t n,
			    const char *verdict);
/* Evidence rows appended to a closed file's (a capture the verdicts ordered): 0 or -EIO. */
int rb_results_add_evidence(const char *path, const struct rb_row_evidence *rows, size_t n);

/* ---- reading a results file back (rackbench report) ---- */

struct rb_results_in;

/*
 * Opens a results file for reading; NULL with err filled (also when its schema_version
 * is not one string holding a number). Every reader below checks the type class, rank
 * and dimensions of what it reads before reading it, and refuses what does not match
 * with a reason rb_results_in_error() gives.
 */
struct rb_results_in *rb_results_open(const char *path, char *err, size_t errlen);
void rb_results_in_close(struct rb_results_in *in);
/* The file's schema_version (a newer file than RB_RESULTS_SCHEMA_VERSION may differ). */
int rb_results_schema(const struct rb_results_in *in);
/* Why the last read failed, as "its table 'results' is of rank 2 (4 x 8), ...". */
const char *rb_results_in_error(const struct rb_results_in *in);
/* A root attribute that is one string into buf: 0, -ENOENT when absent (buf ""), or
 * -EINVAL / -EIO when it is not one string (an array, a number), why in the error. */
int rb_results_attr_get(struct rb_results_in *in, const char *name, char *buf, size_t len);
/* A root attribute that is one integer (start_ns, end_ns): 0, -ENOENT, or -EINVAL (why). */
int rb_results_attr_i64(struct rb_results_in *in, const char *name, int64_t *v);
/* The same, for callers that need no reason: buf, "" when absent or not one string. */
const char *rb_results_attr(struct rb_results_in *in, const char *name, char *buf, size_t len);
/* A run as its file's attributes name it: what the drive index and the export key it by. */
struct rb_run_header {
	char campaign[128], status[16], verdict[16];
	int64_t start_ns, end_ns;
};
/* Reads it: 0, or 1 when the run is still going on (status running, or none yet). */
int rb_results_run_header(struct rb_results_in *in, struct rb_run_header *h);
/*
 * Whole tables into new arrays the caller frees: 0, -ENOENT (no such table), -EINVAL
 * (not of this layout: rank, type, a column's class, more rows than the read limit),
 * -EIO or -ENOMEM. String fields always end in a NUL inside the field.
 */
int rb_results_read_drives(struct rb_results_in *in, struct rb_row_drive **ret, size_t *ret_n);
/* A drive's key across runs and racks (the drive index's, the results database's): its
 * serial, else AGENT:PATH. */
void rb_row_drive_key(const struct rb_row_drive *d, char *buf, size_t len);
/* The value of key among an agent's labels ("K=V,K=V") in buf, "" when none: buf. */
const char *rb_row_label(const char *labels, const char *key, char *buf, size_t len);
/* Files older than schema 6 have no members table, older ones no steady_state: 0 rows. */
int rb_results_read_members(struct rb_results_in *in, struct rb_row_member **ret, size_t *ret_n);
int rb_results_read_points(struct rb_results_in *in, struct rb_row_point **ret, size_t *ret_n);
int rb_results_read_results(struct rb_results_in *in, struct rb_row_result **ret, size_t *ret_n);
int rb_results_read_samples(struct rb_results_in *in, struct rb_row_sample **ret, size_t *ret_n);
int rb_results_read_hists(struct rb_results_in *in, struct rb_row_hist **ret, size_t *ret_n);
int rb_results_read_health(struct rb_results_in *in, struct rb_row_health **ret, size_t *ret_n);
int rb_results_read_steady(struct rb_results_in *in, struct rb_row_steady **ret, size_t *ret_n);
/* Files older than schema 7 have neither: 0 rows. */
int rb_results_read_ioerrors(struct rb_results_in *in, struct rb_row_ioerror **ret, size_t *ret_n);
int rb_results_read_verdicts(struct rb_results_in *in, struct rb_row_verdict **ret, size_t *ret_n);
/* Files older than schema 10 have neither: 0 rows. */
int rb_results_read_ckpts(struct rb_results_in *in, struct rb_row_ckpt **ret, size_t *ret_n);
int rb_results_read_ckpt_writers(struct rb_results_in *in, struct rb_row_ckpt_writer **ret,
				 size_t *ret_n);
int rb_results_read_execs(struct rb_results_in *in, struct rb_row_exec **ret, size_t *ret_n);
/* The evidence table (none in files of schema 10 and older). */
int rb_results_read_evidence(struct rb_results_in *in, struct rb_row_evidence **ret, size_t *ret_n);
/* The zones table (none in files of schema 11 and older). */
int rb_results_read_zones(struct rb_results_in *in, struct rb_row_zone **ret, size_t *ret_n);
/* The device_latency table (none in files of schema 12 and older). */
int rb_results_read_devlat(struct rb_results_in *in, struct rb_row_devlat **ret, size_t *ret_n);
int rb_results_read_fdp_events(struct rb_results_in *in, struct rb_row_fdp_event **ret,
			       size_t *ret_n);
/* How many bytes of rows one table read may take (4 GiB unless set; the fuzzer sets less). */
void rb_results_set_read_limit(size_t bytes);

#endif
