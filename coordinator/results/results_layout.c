// SPDX-License-Identifier: MIT
/*
 * The results file's layout: the columns of every table (schemas/results-layout.md says
 * the same in words) and the HDF5 types both the writer and the reader make from them.
 */
#include "results_priv.h"

#include <pthread.h>
#include <stddef.h>

#define FLD(T, m, type, unit)                                                                      \
	{                                                                                          \
#m, offsetof(T, m), type, sizeof(((T *)0)->m), unit                                \
	}
#define DIR_FIELDS(T, d)                                                                           \
	{ #d "_ios", offsetof(T, d.ios), FT_U64, 8, "1" },                                         \
		{ #d "_bytes", offsetof(T, d.bytes), FT_U64, 8, "B" },                             \
		{ #d "_errors", offsetof(T, d.errors), FT_U64, 8, "1" },                           \
		{ #d "_iops", offsetof(T, d.iops), FT_F64, 8, "1/s" },                             \
		{ #d "_bw_bytes_per_s", offsetof(T, d.bw_bytes_per_s), FT_F64, 8, "B/s" },         \
		{ #d "_lat_mean_ns", offsetof(T, d.lat_mean_ns), FT_F64, 8, "ns" },                \
		{ #d "_lat_min_ns", offsetof(T, d.lat_min_ns), FT_U64, 8, "ns" },                  \
		{ #d "_lat_p50_ns", offsetof(T, d.lat_p50_ns), FT_U64, 8, "ns" },                  \
		{ #d "_lat_p90_ns", offsetof(T, d.lat_p90_ns), FT_U64, 8, "ns" },                  \
		{ #d "_lat_p99_ns", offsetof(T, d.lat_p99_ns), FT_U64, 8, "ns" },                  \
		{ #d "_lat_p99_9_ns", offsetof(T, d.lat_p99_9_ns), FT_U64, 8, "ns" },              \
	{                                                                                          \
#d "_lat_max_ns", offsetof(T, d.lat_max_ns), FT_U64, 8, "ns"                       \
	}

/* a health snapshot's columns, from its one declaration; its WIRE fields are not stored */
#define FT_OF(v)                                                                                   \
	_Generic((v), uint8_t                                                                      \
		 : FT_U8, uint32_t                                                                 \
		 : FT_U32, uint64_t                                                                \
		 : FT_U64, int64_t                                                                 \
		 : FT_I64, double                                                                  \
		 : FT_F64)
#define HEALTH_COL_COL(type, name, unit)                                                           \
	{ #name, offsetof(struct rb_row_health, h.name),                                           \
	  FT_OF(((struct rb_row_health *)0)->h.name), sizeof(type), unit },
#define HEALTH_COL_WIRE(type, name, unit)
#define HEALTH_COL(col, type, name, known, agg, unit) HEALTH_COL_##col(type, name, unit)
/* what the agent measured for a point, from its one declaration (resultcore.h) */
#define RESULT_COL(type, name, wire, unit)                                                         \
	{ #name, offsetof(struct rb_row_result, core.name),                                        \
	  FT_OF(((struct rb_row_result *)0)->core.name), sizeof(type), unit },
/* A drive's identity (wire.h), as the drives and members tables store it. */
#define IDENTITY_FIELDS(T)                                                                         \
	{ "path", offsetof(T, id.path), FT_STR, sizeof(((T *)0)->id.path), "" },                   \
		{ "kind", offsetof(T, id.kind), FT_STR, sizeof(((T *)0)->id.kind), "" },           \
		{ "model", offsetof(T, id.model), FT_STR, sizeof(((T *)0)->id.model), "" },        \
		{ "serial", offsetof(T, id.serial), FT_STR, sizeof(((T *)0)->id.serial), "" },     \
		{ "firmware", offsetof(T, id.firmware), FT_STR, sizeof(((T *)0)->id.firmware),     \
		  "" },                                                                            \
		{ "capacity_bytes", offsetof(T, id.size_bytes), FT_U64, 8, "B" },                  \
	{                                                                                          \
		"logical_block_size", offsetof(T, id.logical_block_size), FT_U32, 4, "B"           \
	}

static const struct field agent_f[] = {
	FLD(struct rb_row_agent, name, FT_STR, ""),
	FLD(struct rb_row_agent, host, FT_STR, ""),
	FLD(struct rb_row_agent, kernel, FT_STR, ""),
	FLD(struct rb_row_agent, rb_version, FT_STR, ""),
	FLD(struct rb_row_agent, protocol, FT_STR, ""),
	FLD(struct rb_row_agent, registered_ns, FT_I64, "ns since UTC epoch"),
	FLD(struct rb_row_agent, clock_offset_ns, FT_I64, "ns"),
	FLD(struct rb_row_agent, clock_delay_ns, FT_I64, "ns"),
};
static const struct field drive_f[] = {
	FLD(struct rb_row_drive, drive, FT_U32, ""),
	FLD(struct rb_row_drive, agent, FT_STR, ""),
	FLD(struct rb_row_drive, host, FT_STR, ""),
	IDENTITY_FIELDS(struct rb_row_drive),
	FLD(struct rb_row_drive, stripe_bytes, FT_U64, "B"),
	FLD(struct rb_row_drive, members, FT_U32, "1"),
	FLD(struct rb_row_drive, alias, FT_STR, ""),
	FLD(struct rb_row_drive, labels, FT_STR, ""),
	FLD(struct rb_row_drive, filesystem, FT_STR, ""),
	FLD(struct rb_row_drive, mkfs_options, FT_STR, ""),
	FLD(struct rb_row_drive, mount_options, FT_STR, ""),
};
static const struct field member_f[] = {
	FLD(struct rb_row_member, drive, FT_U32, ""),
	FLD(struct rb_row_member, member, FT_U32, ""),
	IDENTITY_FIELDS(struct rb_row_member),
};
static const struct field point_f[] = {
	FLD(struct rb_row_point, point, FT_U32, ""),
	FLD(struct rb_row_point, phase, FT_STR, ""),
	FLD(struct rb_row_point, name, FT_STR, ""),
	FLD(struct rb_row_point, rw, FT_STR, ""),
	FLD(struct rb_row_point, bs_bytes, FT_U64, "B"),
	FLD(struct rb_row_point, iodepth, FT_U32, "1"),
	FLD(struct rb_row_point, numjobs, FT_U32, "1"),
	FLD(struct rb_row_point, rwmixread_pct, FT_U32, "%"),
	FLD(struct rb_row_point, runtime_ns, FT_U64, "ns"),
	FLD(struct rb_row_point, ramp_ns, FT_U64, "ns"),
	FLD(struct rb_row_point, rate_iops, FT_U64, "1/s"),
	FLD(struct rb_row_point, direct, FT_U8, "bool"),
	FLD(struct rb_row_point, engine, FT_STR, ""),
	FLD(struct rb_row_point, settings, FT_STR, ""),
	FLD(struct rb_row_point, round, FT_U32, "1"),
	FLD(struct rb_row_point, track, FT_U8, "bool"),
	FLD(struct rb_row_point, curve_pct, FT_F64, "%"),
};
static const struct field result_f[] = {
	FLD(struct rb_row_result, drive, FT_U32, ""),
	FLD(struct rb_row_result, point, FT_U32, ""),
	FLD(struct rb_row_result, attempt, FT_U32, ""),
	FLD(struct rb_row_result, status, FT_STR, ""),
	RB_RESULT_TIMES(RESULT_COL) DIR_FIELDS(struct rb_row_result, read),
	DIR_FIELDS(struct rb_row_result, write),
	DIR_FIELDS(struct rb_row_result, trim),
	RB_RESULT_WORK(RESULT_COL) FLD(struct rb_row_result, health_write_bytes, FT_U64, "B"),
	FLD(struct rb_row_result, health_max_temp_c, FT_F64, "degC"),
	FLD(struct rb_row_result, health_new_media_errors, FT_F64, "1"),
	FLD(struct rb_row_result, health_critical_warning, FT_U8, "NVMe bits"),
	FLD(struct rb_row_result, uring_features, FT_STR, ""),
	FLD(struct rb_row_result, trim_method, FT_STR, ""),
	FLD(struct rb_row_result, fdp_host_bytes, FT_F64, "B"),
	FLD(struct rb_row_result, fdp_media_bytes, FT_F64, "B"),
	FLD(struct rb_row_result, waf, FT_F64, "1"),
	FLD(struct rb_row_result, ocp_media_bytes, FT_F64, "B"),
	FLD(struct rb_row_result, ocp_waf, FT_F64, "1"),
	FLD(struct rb_row_result, ocp_throttle_events, FT_F64, "1"),
	FLD(struct rb_row_result, ocp_pcie_correctable, FT_F64, "1"),
	FLD(struct rb_row_result, ocp_link_retrains, FT_F64, "1"),
	FLD(struct rb_row_result, ocp_power_state_changes, FT_F64, "1"),
	FLD(struct rb_row_result, ocp_throttle_status, FT_F64, "0=none 1-3=level"),
	FLD(struct rb_row_result, message, FT_STR, ""),
	FLD(struct rb_row_result, rate_iops, FT_U64, "1/s"),
	FLD(struct rb_row_result, steady, FT_U8, "0=no steady-state phase 1=steady 2=not"),
	RB_RESULT_HISTORY(RESULT_COL) FLD(struct rb_row_result, purge_method, FT_STR, ""),
	RB_RESULT_SINCE_PURGE(RESULT_COL) FLD(struct rb_row_result, start_skew_ns, FT_I64, "ns"),
	RB_RESULT_TAIL(RESULT_COL)
};
static const struct field steady_f[] = {
	FLD(struct rb_row_steady, drive, FT_U32, ""),
	FLD(struct rb_row_steady, phase, FT_STR, ""),
	FLD(struct rb_row_steady, point, FT_U32, ""),
	FLD(struct rb_row_steady, rolling, FT_U8, "bool"),
	FLD(struct rb_row_steady, metric, FT_STR, ""),
	FLD(struct rb_row_steady, rounds, FT_U32, "1"),
	FLD(struct rb_row_steady, window, FT_U32, "1"),
	FLD(struct rb_row_steady, steady, FT_U8, "bool"),
	FLD(struct rb_row_steady, steady_round, FT_U32, "1"),
	FLD(struct rb_row_steady, avg, FT_F64, "metric"),
	FLD(struct rb_row_steady, min, FT_F64, "metric"),
	FLD(struct rb_row_steady, max, FT_F64, "metric"),
	FLD(struct rb_row_steady, slope, FT_F64, "metric per round"),
	FLD(struct rb_row_steady, range_ok, FT_U8, "bool"),
	FLD(struct rb_row_steady, slope_ok, FT_U8, "bool"),
};
static const struct field sample_f[] = {
	FLD(struct rb_row_sample, drive, FT_U32, ""),
	FLD(struct rb_row_sample, point, FT_U32, ""),
	FLD(struct rb_row_sample, attempt, FT_U32, ""),
	FLD(struct rb_row_sample, interval, FT_U32, ""),
	FLD(struct rb_row_sample, direction, FT_U8, "0=read 1=write 2=trim"),
	FLD(struct rb_row_sample, t_ns, FT_I64, "ns since UTC epoch"),
	FLD(struct rb_row_sample, ios, FT_U64, "1"),
	FLD(struct rb_row_sample, bytes, FT_U64, "B"),
	FLD(struct rb_row_sample, errors, FT_U64, "1"),
	FLD(struct rb_row_sample, lat_mean_ns, FT_F64, "ns"),
	FLD(struct rb_row_sample, lat_p50_ns, FT_U64, "ns"),
	FLD(struct rb_row_sample, lat_p99_ns, FT_U64, "ns"),
	FLD(struct rb_row_sample, hist_first, FT_U64, "row of hist_bins"),
	FLD(struct rb_row_sample, hist_n, FT_U32, "rows of hist_bins"),
};
static const struct field bin_f[] = {
	FLD(struct rb_row_bin, bucket, FT_U32, ""),
	FLD(struct rb_row_bin, count, FT_U32, "1"),
};
static const struct field hist_f[] = {
	FLD(struct rb_row_hist, drive, FT_U32, ""),
	FLD(struct rb_row_hist, point, FT_U32, ""),
	FLD(struct rb_row_hist, attempt, FT_U32, ""),
	FLD(struct rb_row_hist, interval, FT_U32, ""),
	FLD(struct rb_row_hist, direction, FT_U8, "0=read 1=write 2=trim"),
	FLD(struct rb_row_hist, bucket, FT_U32, ""),
	FLD(struct rb_row_hist, count, FT_U64, "1"),
};
static const struct field health_f[] = {
	FLD(struct rb_row_health, drive, FT_U32, ""), FLD(struct rb_row_health, point, FT_U32, ""),
	FLD(struct rb_row_health, attempt, FT_U32, ""),
	FLD(struct rb_row_health, member, FT_U32, ""),
	FLD(struct rb_row_health, when, FT_U8, "0=before 1=during 2=after"),
	FLD(struct rb_row_health, t_ns, FT_I64, "ns since UTC epoch"),
	/* clang-format off */
	RB_HEALTH_FIELDS(HEALTH_COL)
	{ "slot", offsetof(struct rb_row_health, h.slot), FT_STR,
	  sizeof(((struct rb_row_health *)0)->h.slot), "" },
	/* clang-format on */
};
static const struct field bs_f[] = {
	FLD(struct rb_row_bs, drive, FT_U32, ""),
	FLD(struct rb_row_bs, point, FT_U32, ""),
	FLD(struct rb_row_bs, attempt, FT_U32, ""),
	FLD(struct rb_row_bs, direction, FT_U8, "0=read 1=write 2=trim"),
	FLD(struct rb_row_bs, bs_bytes, FT_U64, "B"),
	FLD(struct rb_row_bs, ios, FT_U64, "1"),
};
static const struct field ioerror_f[] = {
	FLD(struct rb_row_ioerror, drive, FT_U32, ""),
	FLD(struct rb_row_ioerror, point, FT_U32, ""),
	FLD(struct rb_row_ioerror, attempt, FT_U32, ""),
	FLD(struct rb_row_ioerror, direction, FT_U8, "0=read 1=write 2=trim"),
	FLD(struct rb_row_ioerror, offset, FT_U64, "B"),
	FLD(struct rb_row_ioerror, length, FT_U32, "B"),
	{ "errno", offsetof(struct rb_row_ioerror, err), FT_U32, 4, "errno" },
	FLD(struct rb_row_ioerror, count, FT_U64, "1"),
};
static const struct field ckpt_f[] = {
	FLD(struct rb_row_ckpt, drive, FT_U32, ""),
	FLD(struct rb_row_ckpt, point, FT_U32, ""),
	FLD(struct rb_row_ckpt, attempt, FT_U32, ""),
	FLD(struct rb_row_ckpt, checkpoint, FT_U32, ""),
	FLD(struct rb_row_ckpt, direction, FT_U8, "0=read (restore) 1=write"),
	FLD(struct rb_row_ckpt, bytes, FT_U64, "B"),
	FLD(struct rb_row_ckpt, start_ns, FT_I64, "ns since UTC epoch"),
	FLD(struct rb_row_ckpt, duration_ns, FT_U64, "ns"),
	FLD(struct rb_row_ckpt, gib_per_s, FT_F64, "GiB/s"),
	FLD(struct rb_row_ckpt, writers, FT_U32, "1"),
	FLD(struct rb_row_ckpt, slowest_writer, FT_U32, ""),
	FLD(struct rb_row_ckpt, fs_bytes, FT_U64, "B"),
	FLD(struct rb_row_ckpt, errors, FT_U32, "1"),
};
static const struct field ckpt_writer_f[] = {
	FLD(struct rb_row_ckpt_writer, drive, FT_U32, ""),
	FLD(struct rb_row_ckpt_writer, point, FT_U32, ""),
	FLD(struct rb_row_ckpt_writer, attempt, FT_U32, ""),
	FLD(struct rb_row_ckpt_writer, checkpoint, FT_U32, ""),
	FLD(struct rb_row_ckpt_writer, direction, FT_U8, "0=read (restore) 1=write"),
	FLD(struct rb_row_ckpt_writer, writer, FT_U32, ""),
	FLD(struct rb_row_ckpt_writer, bytes, FT_U64, "B"),
	FLD(struct rb_row_ckpt_writer, duration_ns, FT_U64, "ns"),
};
static const struct field zone_f[] = {
	FLD(struct rb_row_zone, drive, FT_U32, ""),
	FLD(struct rb_row_zone, point, FT_U32, ""),
	FLD(struct rb_row_zone, attempt, FT_U32, ""),
	FLD(struct rb_row_zone, zone, FT_U32, ""),
	FLD(struct rb_row_zone, start_bytes, FT_U64, "B"),
	FLD(struct rb_row_zone, len_bytes, FT_U64, "B"),
	FLD(struct rb_row_zone, capacity_bytes, FT_U64, "B"),
	FLD(struct rb_row_zone, wp_bytes, FT_U64, "B"),
	FLD(struct rb_row_zone, cond, FT_STR, ""),
	FLD(struct rb_row_zone, type, FT_STR, ""),
};
static const struct field fdp_event_f[] = {
	FLD(struct rb_row_fdp_event, drive, FT_U32, ""),
	FLD(struct rb_row_fdp_event, point, FT_U32, ""),
	FLD(struct rb_row_fdp_event, attempt, FT_U32, ""),
	FLD(struct rb_row_fdp_event, type, FT_U8,
	    "0=RU not fully written 1=RU time limit 2=reset modified handles 3=invalid "
	    "placement id 128=media reallocated 129=handle modified"),
	FLD(struct rb_row_fdp_event, flags, FT_U8, "bits"),
	FLD(struct rb_row_fdp_event, pid, FT_U32, ""),
	FLD(struct rb_row_fdp_event, rgid, FT_U32, ""),
	FLD(struct rb_row_fdp_event, ruhid, FT_U8, ""),
	FLD(struct rb_row_fdp_event, nsid, FT_U32, ""),
	FLD(struct rb_row_fdp_event, timestamp_ms, FT_U64, "ms"),
	FLD(struct rb_row_fdp_event, nlbam, FT_U32, "blocks"),
	FLD(struct rb_row_fdp_event, lba_valid, FT_U8, "bool"),
	FLD(struct rb_row_fdp_event, lba, FT_U64, "LBA"),
};

static const struct field devlat_f[] = {
	FLD(struct rb_row_devlat, drive, FT_U32, ""),
	FLD(struct rb_row_devlat, point, FT_U32, ""),
	FLD(struct rb_row_devlat, attempt, FT_U32, ""),
	FLD(struct rb_row_devlat, bucket, FT_U32, ""),
	FLD(struct rb_row_devlat, from_ms, FT_U32, "ms"),
	FLD(struct rb_row_devlat, to_ms, FT_U32, "ms"),
	FLD(struct rb_row_devlat, reads, FT_U64, "1"),
	FLD(struct rb_row_devlat, writes, FT_U64, "1"),
	FLD(struct rb_row_devlat, trims, FT_U64, "1"),
	FLD(struct rb_row_devlat, host_reads, FT_U64, "1"),
	FLD(struct rb_row_devlat, host_writes, FT_U64, "1"),
	FLD(struct rb_row_devlat, host_trims, FT_U64, "1"),
};
static const struct field evidence_f[] = {
	FLD(struct rb_row_evidence, drive, FT_U32, ""),
	FLD(struct rb_row_evidence, point, FT_U32, ""),
	FLD(struct rb_row_evidence, attempt, FT_U32, ""),
	FLD(struct rb_row_evidence, kind, FT_STR, ""),
	FLD(struct rb_row_evidence, path, FT_STR, ""),
	FLD(struct rb_row_evidence, bytes, FT_U64, "B"),
	FLD(struct rb_row_evidence, sha256, FT_STR, "hex"),
	FLD(struct rb_row_evidence, stored, FT_STR, ""),
};
static const struct field exec_f[] = {
	FLD(struct rb_row_exec, drive, FT_U32, ""),
	FLD(struct rb_row_exec, point, FT_U32, ""),
	FLD(struct rb_row_exec, attempt, FT_U32, ""),
	FLD(struct rb_row_exec, command, FT_STR, ""),
	FLD(struct rb_row_exec, exit_code, FT_I64, ""),
	FLD(struct rb_row_exec, timed_out, FT_U8, "bool"),
	FLD(struct rb_row_exec, duration_ns, FT_U64, "ns"),
	FLD(struct rb_row_exec, parser, FT_STR, ""),
	FLD(struct rb_row_exec, tps, FT_F64, "1/s"),
	FLD(struct rb_row_exec, qps, FT_F64, "1/s"),
	FLD(struct rb_row_exec, iops, FT_F64, "1/s"),
	FLD(struct rb_row_exec, mbps, FT_F64, "MB/s"),
	FLD(struct rb_row_exec, lat_avg_ms, FT_F64, "ms"),
	FLD(struct rb_row_exec, lat_p95_ms, FT_F64, "ms"),
	FLD(struct rb_row_exec, lat_p99_ms, FT_F64, "ms"),
	FLD(struct rb_row_exec, lat_max_ms, FT_F64, "ms"),
	FLD(struct rb_row_exec, errors, FT_F64, "1"),
	FLD(struct rb_row_exec, metrics, FT_STR, ""),
	FLD(struct rb_row_exec, stdout_tail, FT_STR, ""),
	FLD(struct rb_row_exec, stderr_tail, FT_STR, ""),
};
static const struct field verdict_f[] = {
	FLD(struct rb_row_verdict, drive, FT_U32, ""),
	FLD(struct rb_row_verdict, rule, FT_STR, ""),
	FLD(struct rb_row_verdict, verdict, FT_STR, ""),
	FLD(struct rb_row_verdict, measured, FT_F64, "the rule's"),
	FLD(struct rb_row_verdict, limit, FT_F64, "the rule's"),
	FLD(struct rb_row_verdict, point, FT_I64, ""),
	FLD(struct rb_row_verdict, interval, FT_I64, ""),
	FLD(struct rb_row_verdict, t_ns, FT_I64, "ns since UTC epoch"),
	FLD(struct rb_row_verdict, reason, FT_STR, ""),
};

/*
 * HDF5 once per process: its error stack not printed (every failure is said here), and
 * no exit handler of its own -- after a close that failed (a full disk) the library
 * still holds the file's id, and its handler then crashes at exit. The journal, not the
 * last flush, is what keeps the data.
 */
void rb_results_hdf5_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, (void (*)(void))H5dont_atexit);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

#define ARRAY(a) a, sizeof(a) / sizeof((a)[0])
const struct table_def rb_results_tables[NTABLES] = {
	{ "agents", ARRAY(agent_f), sizeof(struct rb_row_agent), "one row per agent" },
	{ "drives", ARRAY(drive_f), sizeof(struct rb_row_drive), "one row per drive" },
	{ "points", ARRAY(point_f), sizeof(struct rb_row_point), "one row per test point" },
	{ "results", ARRAY(result_f), sizeof(struct rb_row_result),
	  "one row per (drive, point, attempt)" },
	{ "samples", ARRAY(sample_f), sizeof(struct rb_row_sample),
	  "one row per (drive, point, attempt, interval, direction)" },
	{ "hist_bins", ARRAY(bin_f), sizeof(struct rb_row_bin),
	  "non-zero latency buckets of the samples, each sample's rows hist_first .. + hist_n" },
	{ "bs_counts", ARRAY(bs_f), sizeof(struct rb_row_bs),
	  "IOs per block size per (drive, point, attempt, direction)" },
	{ "health", ARRAY(health_f), sizeof(struct rb_row_health),
	  "drive health snapshots before, during and after each point" },
	{ "steady_state", ARRAY(steady_f), sizeof(struct rb_row_steady),
	  "SNIA steady-state verdict per (drive, steady-state phase)" },
	{ "members", ARRAY(member_f), sizeof(struct rb_row_member),
	  "one row per member of each striped volume" },
	{ "io_errors", ARRAY(ioerror_f), sizeof(struct rb_row_ioerror),
	  "IO errors and verification mismatches per (drive, point, attempt), where they were" },
	{ "verdicts", ARRAY(verdict_f), sizeof(struct rb_row_verdict),
	  "each drive's verdict and every rule that tripped, added when the run ends" },
	{ "checkpoints", ARRAY(ckpt_f), sizeof(struct rb_row_ckpt),
	  "rw checkpoint: one row per (drive, point, attempt, checkpoint, direction)" },
	{ "checkpoint_writers", ARRAY(ckpt_writer_f), sizeof(struct rb_row_ckpt_writer),
	  "rw checkpoint: each writer's time and bytes of each checkpoint" },
	{ "exec", ARRAY(exec_f), sizeof(struct rb_row_exec),
	  "exec phases: each drive's command, how it ended, what its output said" },
	{ "evidence", ARRAY(evidence_f), sizeof(struct rb_row_evidence),
	  "files of a drive's evidence for its vendor, kept on its agent's host and beside "
	  "the results file" },
	{ "zones", ARRAY(zone_f), sizeof(struct rb_row_zone),
	  "zns points: a zoned namespace's zone report after the point" },
	{ "device_latency", ARRAY(devlat_f), sizeof(struct rb_row_devlat),
	  "an OCP drive's own latency buckets over each point, beside the host's count" },
	{ "fdp_events", ARRAY(fdp_event_f), sizeof(struct rb_row_fdp_event),
	  "the FDP events a drive logged during each point" },
	{ "histograms", ARRAY(hist_f), sizeof(struct rb_row_hist),
	  "non-zero latency buckets per (drive, point, attempt, interval, direction)" },
};

hid_t rb_results_vlstr_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	return t;
}

hid_t rb_results_field_type(const struct field *f, bool file)
{
	hid_t t;

	switch (f->t) {
	case FT_U8:
		return H5Tcopy(file ? H5T_STD_U8LE : H5T_NATIVE_UINT8);
	case FT_U32:
		return H5Tcopy(file ? H5T_STD_U32LE : H5T_NATIVE_UINT32);
	case FT_U64:
		return H5Tcopy(file ? H5T_STD_U64LE : H5T_NATIVE_UINT64);
	case FT_I64:
		return H5Tcopy(file ? H5T_STD_I64LE : H5T_NATIVE_INT64);
	case FT_F64:
		return H5Tcopy(file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE);
	case FT_STR:
		t = H5Tcopy(H5T_C_S1);
		H5Tset_size(t, f->len);
		H5Tset_strpad(t, H5T_STR_NULLTERM);
		H5Tset_cset(t, H5T_CSET_UTF8);
		return t;
	}
	return -1;
}
