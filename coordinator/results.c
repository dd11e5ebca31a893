// SPDX-License-Identifier: MIT
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <hdf5.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hist.h"

enum ftype { FT_U8, FT_U32, FT_U64, FT_I64, FT_F64, FT_STR };

struct field {
	const char *name;
	size_t off;
	enum ftype t;
	size_t len;
	const char *unit;
};

#define FLD(T, m, type, unit) { #m, offsetof(T, m), type, sizeof(((T *)0)->m), unit }
#define DIR_FIELDS(T, d)                                                                     \
	{ #d "_ios", offsetof(T, d.ios), FT_U64, 8, "1" },                                    \
	{ #d "_bytes", offsetof(T, d.bytes), FT_U64, 8, "B" },                                \
	{ #d "_errors", offsetof(T, d.errors), FT_U64, 8, "1" },                              \
	{ #d "_iops", offsetof(T, d.iops), FT_F64, 8, "1/s" },                                \
	{ #d "_bw_bytes_per_s", offsetof(T, d.bw_bytes_per_s), FT_F64, 8, "B/s" },            \
	{ #d "_lat_mean_ns", offsetof(T, d.lat_mean_ns), FT_F64, 8, "ns" },                   \
	{ #d "_lat_min_ns", offsetof(T, d.lat_min_ns), FT_U64, 8, "ns" },                     \
	{ #d "_lat_p50_ns", offsetof(T, d.lat_p50_ns), FT_U64, 8, "ns" },                     \
	{ #d "_lat_p90_ns", offsetof(T, d.lat_p90_ns), FT_U64, 8, "ns" },                     \
	{ #d "_lat_p99_ns", offsetof(T, d.lat_p99_ns), FT_U64, 8, "ns" },                     \
	{ #d "_lat_p99_9_ns", offsetof(T, d.lat_p99_9_ns), FT_U64, 8, "ns" },                 \
	{ #d "_lat_max_ns", offsetof(T, d.lat_max_ns), FT_U64, 8, "ns" }

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
	FLD(struct rb_row_drive, path, FT_STR, ""),
	FLD(struct rb_row_drive, kind, FT_STR, ""),
	FLD(struct rb_row_drive, model, FT_STR, ""),
	FLD(struct rb_row_drive, serial, FT_STR, ""),
	FLD(struct rb_row_drive, firmware, FT_STR, ""),
	FLD(struct rb_row_drive, capacity_bytes, FT_U64, "B"),
	FLD(struct rb_row_drive, logical_block_size, FT_U32, "B"),
	FLD(struct rb_row_drive, stripe_bytes, FT_U64, "B"),
	FLD(struct rb_row_drive, members, FT_U32, "1"),
};
static const struct field member_f[] = {
	FLD(struct rb_row_member, drive, FT_U32, ""),
	FLD(struct rb_row_member, member, FT_U32, ""),
	FLD(struct rb_row_member, path, FT_STR, ""),
	FLD(struct rb_row_member, kind, FT_STR, ""),
	FLD(struct rb_row_member, model, FT_STR, ""),
	FLD(struct rb_row_member, serial, FT_STR, ""),
	FLD(struct rb_row_member, firmware, FT_STR, ""),
	FLD(struct rb_row_member, capacity_bytes, FT_U64, "B"),
	FLD(struct rb_row_member, logical_block_size, FT_U32, "B"),
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
	FLD(struct rb_row_result, start_ns, FT_I64, "ns since UTC epoch"),
	FLD(struct rb_row_result, end_ns, FT_I64, "ns since UTC epoch"),
	FLD(struct rb_row_result, elapsed_ns, FT_U64, "ns"),
	DIR_FIELDS(struct rb_row_result, read),
	DIR_FIELDS(struct rb_row_result, write),
	DIR_FIELDS(struct rb_row_result, trim),
	FLD(struct rb_row_result, cpu_usr_pct, FT_F64, "%"),
	FLD(struct rb_row_result, cpu_sys_pct, FT_F64, "%"),
	FLD(struct rb_row_result, verify_checked, FT_U64, "1"),
	FLD(struct rb_row_result, verify_mismatches, FT_U64, "1"),
	FLD(struct rb_row_result, health_write_bytes, FT_U64, "B"),
	FLD(struct rb_row_result, health_max_temp_c, FT_F64, "degC"),
	FLD(struct rb_row_result, health_new_media_errors, FT_F64, "1"),
	FLD(struct rb_row_result, health_critical_warning, FT_U8, "NVMe bits"),
	FLD(struct rb_row_result, uring_features, FT_STR, ""),
	FLD(struct rb_row_result, message, FT_STR, ""),
	FLD(struct rb_row_result, rate_iops, FT_U64, "1/s"),
	FLD(struct rb_row_result, steady, FT_U8, "0=no steady-state phase 1=steady 2=not"),
	FLD(struct rb_row_result, history_since_ns, FT_I64, "ns since UTC epoch"),
	FLD(struct rb_row_result, purge_ns, FT_I64, "ns since UTC epoch"),
	FLD(struct rb_row_result, purge_method, FT_STR, ""),
	FLD(struct rb_row_result, written_since_purge_bytes, FT_U64, "B"),
	FLD(struct rb_row_result, fill_passes_since_purge, FT_U64, "1"),
	FLD(struct rb_row_result, start_skew_ns, FT_I64, "ns"),
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
	FLD(struct rb_row_health, drive, FT_U32, ""),
	FLD(struct rb_row_health, point, FT_U32, ""),
	FLD(struct rb_row_health, attempt, FT_U32, ""),
	FLD(struct rb_row_health, member, FT_U32, ""),
	FLD(struct rb_row_health, when, FT_U8, "0=before 1=during 2=after"),
	FLD(struct rb_row_health, t_ns, FT_I64, "ns since UTC epoch"),
	FLD(struct rb_row_health, nvme, FT_U8, "bool"),
	FLD(struct rb_row_health, critical_warning, FT_U8, "NVMe bits"),
	FLD(struct rb_row_health, temperature_c, FT_F64, "degC"),
	FLD(struct rb_row_health, available_spare_pct, FT_F64, "%"),
	FLD(struct rb_row_health, percentage_used, FT_F64, "%"),
	FLD(struct rb_row_health, data_units_read, FT_F64, "512000 B"),
	FLD(struct rb_row_health, data_units_written, FT_F64, "512000 B"),
	FLD(struct rb_row_health, host_reads, FT_F64, "1"),
	FLD(struct rb_row_health, host_writes, FT_F64, "1"),
	FLD(struct rb_row_health, power_on_hours, FT_F64, "h"),
	FLD(struct rb_row_health, unsafe_shutdowns, FT_F64, "1"),
	FLD(struct rb_row_health, media_errors, FT_F64, "1"),
	FLD(struct rb_row_health, error_log_entries, FT_F64, "1"),
	FLD(struct rb_row_health, kernel_read_ios, FT_U64, "1"),
	FLD(struct rb_row_health, kernel_write_ios, FT_U64, "1"),
	FLD(struct rb_row_health, kernel_read_bytes, FT_U64, "B"),
	FLD(struct rb_row_health, kernel_write_bytes, FT_U64, "B"),
};
static const struct field bs_f[] = {
	FLD(struct rb_row_bs, drive, FT_U32, ""),
	FLD(struct rb_row_bs, point, FT_U32, ""),
	FLD(struct rb_row_bs, attempt, FT_U32, ""),
	FLD(struct rb_row_bs, direction, FT_U8, "0=read 1=write 2=trim"),
	FLD(struct rb_row_bs, bs_bytes, FT_U64, "B"),
	FLD(struct rb_row_bs, ios, FT_U64, "1"),
};

enum { T_AGENTS, T_DRIVES, T_POINTS, T_RESULTS, T_SAMPLES, T_HIST, T_BS, T_HEALTH, T_STEADY,
       T_MEMBERS, NTABLES };

struct table {
	const char *name;
	const struct field *f;
	size_t nf, rowsize;
	hid_t dset, type;
	char *buf;
	size_t nbuf, capbuf;
	hsize_t queued;		/* rows handed to the writer (the caller's thread) */
	hsize_t written;	/* rows in the file (the writer's thread) */
	char *spare;		/* a buffer the writer is done with, for the next rows (mu) */
	size_t spare_cap;
};

/*
 * The writer: a thread that appends what rb_results_flush() hands it and compresses
 * it (deflate is most of a fleet's cost), so the coordinator's own thread only
 * decodes messages and copies rows. HDF5 here is not thread-safe: after creation only
 * the writer calls it, until rb_results_close() has joined it.
 */
struct job {
	struct job *next;
	bool steady;		/* rewrite one row's steady field instead of appending */
	hsize_t row;
	uint8_t value;
	char *buf[NTABLES];
	size_t n[NTABLES], cap[NTABLES], bytes;
};

struct rb_results {
	hid_t file;
	struct table t[NTABLES];
	char *path;
	pthread_t thr;
	bool thr_on, stop, failed;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a job queued, or stop */
	pthread_cond_t room;	/* the queue shrank */
	struct job *head, *tail;
	size_t queued_bytes;
};

static void *writer(void *arg);

/*
 * HDF5 once per process: its error stack not printed (every failure is said here), and
 * no exit handler of its own -- after a close that failed (a full disk) the library
 * still holds the file's id, and its handler then crashes at exit. The journal, not the
 * last flush, is what keeps the data.
 */
static void hdf5_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, (void (*)(void))H5dont_atexit);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* What the writer may be behind by before rb_results_flush() waits for it. */
#define QUEUE_MAX_BYTES (256u << 20)

#define ARRAY(a) a, sizeof(a) / sizeof((a)[0])
static const struct {
	const char *name;
	const struct field *f;
	size_t nf;
	size_t rowsize;
	const char *desc;
} table_defs[NTABLES] = {
	{ "agents", ARRAY(agent_f), sizeof(struct rb_row_agent), "one row per agent" },
	{ "drives", ARRAY(drive_f), sizeof(struct rb_row_drive), "one row per drive" },
	{ "points", ARRAY(point_f), sizeof(struct rb_row_point), "one row per test point" },
	{ "results", ARRAY(result_f), sizeof(struct rb_row_result),
	  "one row per (drive, point, attempt)" },
	{ "samples", ARRAY(sample_f), sizeof(struct rb_row_sample),
	  "one row per (drive, point, attempt, interval, direction)" },
	{ "histograms", ARRAY(hist_f), sizeof(struct rb_row_hist),
	  "non-zero latency buckets per (drive, point, attempt, interval, direction)" },
	{ "bs_counts", ARRAY(bs_f), sizeof(struct rb_row_bs),
	  "IOs per block size per (drive, point, attempt, direction)" },
	{ "health", ARRAY(health_f), sizeof(struct rb_row_health),
	  "drive health snapshots before, during and after each point" },
	{ "steady_state", ARRAY(steady_f), sizeof(struct rb_row_steady),
	  "SNIA steady-state verdict per (drive, steady-state phase)" },
	{ "members", ARRAY(member_f), sizeof(struct rb_row_member),
	  "one row per member of each striped volume" },
};

static hid_t vlstr_type(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	H5Tset_size(t, H5T_VARIABLE);
	H5Tset_cset(t, H5T_CSET_UTF8);
	return t;
}

static int attr_str(hid_t obj, const char *name, const char *value)
{
	hid_t t = vlstr_type(), sp = H5Screate(H5S_SCALAR), a;
	int r = 0;

	if (H5Aexists(obj, name) > 0)
		H5Adelete(obj, name);
	a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0 || H5Awrite(a, t, &value) < 0)
		r = -EIO;
	if (a >= 0)
		H5Aclose(a);
	H5Sclose(sp);
	H5Tclose(t);
	return r;
}

static int attr_i64(hid_t obj, const char *name, int64_t v)
{
	hid_t sp = H5Screate(H5S_SCALAR), a;
	int r = 0;

	if (H5Aexists(obj, name) > 0)
		H5Adelete(obj, name);
	a = H5Acreate2(obj, name, H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0 || H5Awrite(a, H5T_NATIVE_INT64, &v) < 0)
		r = -EIO;
	if (a >= 0)
		H5Aclose(a);
	H5Sclose(sp);
	return r;
}

static hid_t field_type(const struct field *f, bool file)
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

static int table_create(struct rb_results *r, int i)
{
	struct table *t = &r->t[i];
	hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk;
	hid_t sp, dcpl, ftype;
	char units[4096];
	size_t n = 0;

	t->name = table_defs[i].name;
	t->f = table_defs[i].f;
	t->nf = table_defs[i].nf;
	t->rowsize = table_defs[i].rowsize;
	t->type = H5Tcreate(H5T_COMPOUND, t->rowsize);
	ftype = H5Tcreate(H5T_COMPOUND, t->rowsize);
	for (size_t k = 0; k < t->nf; k++) {
		hid_t mt = field_type(&t->f[k], false);

		H5Tinsert(t->type, t->f[k].name, t->f[k].off, mt);
		H5Tinsert(ftype, t->f[k].name, t->f[k].off, mt);
		H5Tclose(mt);
	}
	chunk = 65536 / t->rowsize ? 65536 / t->rowsize : 1;
	sp = H5Screate_simple(1, &dims, &maxdims);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(dcpl, 1, &chunk);
	H5Pset_shuffle(dcpl);
	/* level 1: a fleet's samples are compressed as they come, on the coordinator's one
	 * thread; after shuffling, level 1 keeps most of level 4's ratio at a third the cost */
	H5Pset_deflate(dcpl, 1);
	t->dset = H5Dcreate2(r->file, t->name, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	H5Pclose(dcpl);
	H5Sclose(sp);
	H5Tclose(ftype);
	if (t->dset < 0)
		return -EIO;
	/* units of every column, as JSON: {"read_iops": "1/s", ...} */
	n += (size_t)snprintf(units + n, sizeof(units) - n, "{");
	for (size_t k = 0; k < t->nf && n < sizeof(units); k++)
		n += (size_t)snprintf(units + n, sizeof(units) - n, "%s\"%s\": \"%s\"",
				      k ? ", " : "", t->f[k].name, t->f[k].unit);
	if (n < sizeof(units))
		snprintf(units + n, sizeof(units) - n, "}");
	attr_str(t->dset, "units", units);
	attr_str(t->dset, "description", table_defs[i].desc);
	return 0;
}

/*
 * Why H5Fcreate() failed, said as the system would: HDF5 keeps no errno, so the same
 * exclusive create is tried here (and undone when it works, to leave nothing behind).
 */
static void create_failed(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (!lstat(path, &st)) {
		snprintf(err, errlen, "cannot create '%s': it exists", path);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
		return;
	}
	close(fd);
	unlink(path);
	snprintf(err, errlen, "cannot create '%s': the HDF5 library refused it", path);
}

struct rb_results *rb_results_create(const char *path, const struct rb_results_meta *m,
				     char *err, size_t errlen)
{
	struct rb_results *r = calloc(1, sizeof(*r));
	hid_t fapl;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	hdf5_init();
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110);
	r->file = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	if (r->file < 0) {
		create_failed(path, err, errlen);
		free(r);
		return NULL;
	}
	for (int i = 0; i < NTABLES; i++) {
		if (table_create(r, i)) {
			snprintf(err, errlen, "cannot create table '%s' in '%s'", table_defs[i].name,
				 path);
			rb_results_close(r, "failed", 0);
			return NULL;
		}
	}
	char ver[32];

	snprintf(ver, sizeof(ver), "%d", RB_RESULTS_SCHEMA_VERSION);
	attr_str(r->file, "schema_version", ver);
	attr_str(r->file, "rackbench_version", RB_VERSION);
	attr_str(r->file, "campaign_name", m->campaign_name);
	attr_str(r->file, "methodology", m->methodology ? m->methodology : "");
	attr_i64(r->file, "start_ns", m->start_ns);
	attr_i64(r->file, "end_ns", 0);
	attr_str(r->file, "status", "running");
	attr_str(r->file, "insecure", m->insecure ? "true" : "false");
	attr_i64(r->file, "hist_sub_bucket_bits", RB_HIST_SUB_BITS);
	attr_i64(r->file, "hist_max_pow", RB_HIST_MAX_POW);
	attr_i64(r->file, "hist_buckets", RB_HIST_BUCKETS);
	attr_str(r->file, "hist_rule",
		 "bucket b < 128 holds the value b; else g = (b-128)//128, s = (b-128)%128, "
		 "lower = (128+s) << g, width = 1 << g; reported value = lower + (width-1)//2; "
		 "percentile p = value of the bucket holding rank ceil(p/100*total)");
	{
		hid_t t = vlstr_type(), sp = H5Screate(H5S_SCALAR);
		hid_t d = H5Dcreate2(r->file, "campaign", t, sp, H5P_DEFAULT, H5P_DEFAULT,
				     H5P_DEFAULT);
		const char *text = m->campaign_text ? m->campaign_text : "";

		if (d >= 0) {
			H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &text);
			H5Dclose(d);
		}
		H5Sclose(sp);
		H5Tclose(t);
	}
	/*
	 * Single-writer/multiple-reader mode from here on: HDF5 then orders its metadata
	 * writes so that the file on disk is whole at every instant, and a kill -9 leaves
	 * a file that opens (its superblock still says "open for writing": readers use
	 * SWMR mode -- h5py swmr=True, rackbench report does -- or `h5clear -s` first).
	 * No objects or attributes are added until rb_results_close.
	 */
	r->path = strdup(path);
	if (!r->path || H5Fstart_swmr_write(r->file) < 0) {
		snprintf(err, errlen, "cannot write '%s' in SWMR mode", path);
		rb_results_close(r, "failed", 0);
		return NULL;
	}
	H5Fflush(r->file, H5F_SCOPE_GLOBAL);
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	pthread_cond_init(&r->room, NULL);
	if (pthread_create(&r->thr, NULL, writer, r)) {
		snprintf(err, errlen, "cannot start the writer of '%s'", path);
		rb_results_close(r, "failed", 0);
		return NULL;
	}
	r->thr_on = true;
	return r;
}

static int push(struct rb_results *r, int i, const void *row)
{
	struct table *t = &r->t[i];

	if (t->nbuf == t->capbuf) {
		size_t cap = t->capbuf ? t->capbuf * 2 : 64;
		char *nb = realloc(t->buf, cap * t->rowsize);

		if (!nb)
			return -ENOMEM;
		t->buf = nb;
		t->capbuf = cap;
	}
	memcpy(t->buf + t->nbuf * t->rowsize, row, t->rowsize);
	t->nbuf++;
	return 0;
}

int rb_results_agent(struct rb_results *r, const struct rb_row_agent *row)
{
	return push(r, T_AGENTS, row);
}
int rb_results_drive(struct rb_results *r, const struct rb_row_drive *row)
{
	return push(r, T_DRIVES, row);
}

int rb_results_member(struct rb_results *r, const struct rb_row_member *row)
{
	return push(r, T_MEMBERS, row);
}
int rb_results_point(struct rb_results *r, const struct rb_row_point *row)
{
	return push(r, T_POINTS, row);
}
int rb_results_result(struct rb_results *r, const struct rb_row_result *row)
{
	return push(r, T_RESULTS, row);
}
int rb_results_sample(struct rb_results *r, const struct rb_row_sample *row)
{
	return push(r, T_SAMPLES, row);
}
int rb_results_hist(struct rb_results *r, const struct rb_row_hist *row)
{
	return push(r, T_HIST, row);
}
int rb_results_bs(struct rb_results *r, const struct rb_row_bs *row)
{
	return push(r, T_BS, row);
}
int rb_results_health(struct rb_results *r, const struct rb_row_health *row)
{
	return push(r, T_HEALTH, row);
}

/* The writer's thread: appends n rows of buf to the table. */
static int table_append(struct table *t, const char *buf, size_t n)
{
	hsize_t size, start, count = n;
	hid_t fs, ms;
	herr_t e;

	if (!n)
		return 0;
	size = t->written + n;
	if (H5Dset_extent(t->dset, &size) < 0)
		return -EIO;
	fs = H5Dget_space(t->dset);
	start = t->written;
	H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
	ms = H5Screate_simple(1, &count, NULL);
	e = H5Dwrite(t->dset, t->type, ms, fs, H5P_DEFAULT, buf);
	H5Sclose(ms);
	H5Sclose(fs);
	if (e < 0)
		return -EIO;
	t->written = size;
	return 0;
}

/* The writer's thread: one row's steady field, rewritten in place. */
static int set_steady_row(struct table *t, hsize_t at, uint8_t steady)
{
	hsize_t one = 1;
	hid_t mt, sp, ms;
	herr_t e;

	mt = H5Tcreate(H5T_COMPOUND, sizeof(uint8_t));
	H5Tinsert(mt, "steady", 0, H5T_NATIVE_UINT8);
	sp = H5Dget_space(t->dset);
	H5Sselect_hyperslab(sp, H5S_SELECT_SET, &at, NULL, &one, NULL);
	ms = H5Screate_simple(1, &one, NULL);
	e = H5Dwrite(t->dset, mt, ms, sp, H5P_DEFAULT, &steady);
	H5Sclose(ms);
	H5Sclose(sp);
	H5Tclose(mt);
	return e < 0 ? -EIO : 0;
}

static void *writer(void *arg)
{
	struct rb_results *r = arg;

	hdf5_init();	/* the error stack is per thread where HDF5 is thread-safe */
	pthread_mutex_lock(&r->mu);
	for (;;) {
		struct job *j;
		bool bad = false;

		while (!r->head && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		if (!r->head)
			break;
		j = r->head;
		r->head = j->next;
		if (!r->head)
			r->tail = NULL;
		pthread_mutex_unlock(&r->mu);
		if (j->steady) {
			bad = set_steady_row(&r->t[T_RESULTS], j->row, j->value) != 0;
		} else {
			for (int i = 0; i < NTABLES; i++) {
				bad |= table_append(&r->t[i], j->buf[i], j->n[i]) != 0;
				/* back for the next rows: fresh memory would be page faults */
				pthread_mutex_lock(&r->mu);
				if (!r->t[i].spare && j->buf[i]) {
					r->t[i].spare = j->buf[i];
					r->t[i].spare_cap = j->cap[i];
					j->buf[i] = NULL;
				}
				pthread_mutex_unlock(&r->mu);
				free(j->buf[i]);
			}
			/* whole on disk at every flush: SWMR orders the metadata writes */
			bad |= H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0;
		}
		pthread_mutex_lock(&r->mu);
		r->failed |= bad;
		r->queued_bytes -= j->bytes;
		pthread_cond_broadcast(&r->room);
		free(j);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static void enqueue(struct rb_results *r, struct job *j)
{
	pthread_mutex_lock(&r->mu);
	/* a writer far behind holds the caller back: memory stays bounded */
	while (r->queued_bytes > QUEUE_MAX_BYTES)
		pthread_cond_wait(&r->room, &r->mu);
	r->queued_bytes += j->bytes;
	if (r->tail)
		r->tail->next = j;
	else
		r->head = j;
	r->tail = j;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

size_t rb_results_buffered(const struct rb_results *r)
{
	size_t n = 0;

	for (int i = 0; r && i < NTABLES; i++)
		n += r->t[i].nbuf * r->t[i].rowsize;
	return n;
}

int rb_results_flush(struct rb_results *r)
{
	struct job *j;
	bool failed;

	if (!r->thr_on)
		return -EIO;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	for (int i = 0; i < NTABLES; i++) {
		struct table *t = &r->t[i];

		if (!t->nbuf)
			continue;
		/* the rows go to the writer; a buffer it is done with takes their place */
		j->buf[i] = t->buf;
		j->n[i] = t->nbuf;
		j->cap[i] = t->capbuf;
		j->bytes += t->nbuf * t->rowsize;
		t->queued += t->nbuf;
		t->nbuf = 0;
		pthread_mutex_lock(&r->mu);
		t->buf = t->spare;
		t->capbuf = t->spare ? t->spare_cap : 0;
		t->spare = NULL;
		pthread_mutex_unlock(&r->mu);
	}
	enqueue(r, j);
	pthread_mutex_lock(&r->mu);
	failed = r->failed;
	pthread_mutex_unlock(&r->mu);
	return failed ? -EIO : 0;
}

int rb_results_close(struct rb_results *r, const char *status, int64_t end_ns)
{
	int rc = 0;

	if (!r)
		return 0;
	if (r->thr_on) {
		rc = rb_results_flush(r);
		pthread_mutex_lock(&r->mu);
		r->stop = true;
		pthread_cond_signal(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thr, NULL);
		if (r->failed)
			rc = -EIO;
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->cv);
		pthread_cond_destroy(&r->room);
	}
	for (int i = 0; i < NTABLES; i++) {
		if (r->t[i].dset > 0)
			H5Dclose(r->t[i].dset);
		if (r->t[i].type > 0)
			H5Tclose(r->t[i].type);
		free(r->t[i].buf);
		free(r->t[i].spare);
	}
	if (H5Fclose(r->file) < 0)
		rc = -EIO;
	/* the end, as attributes: SWMR mode adds none, so the file is opened again for them;
	 * not after a failed close (the file is what the journal rebuilds on resume) */
	if (r->path && !rc) {
		hid_t f = H5Fopen(r->path, H5F_ACC_RDWR, H5P_DEFAULT);

		if (f < 0 || attr_str(f, "status", status) || attr_i64(f, "end_ns", end_ns))
			rc = -EIO;
		if (f >= 0 && H5Fclose(f) < 0)
			rc = -EIO;
	}
	free(r->path);
	free(r);
	return rc;
}

/* ---- reading back ---- */

/*
 * The reader reads only what it checked: every attribute it uses is one string, every
 * table a rank-1 dataset of compound rows whose columns of ours have the class we write
 * (a missing column, as in an older file, reads as zeros), and a table's rows fit in
 * read_limit bytes. What does not is refused with a reason in in->why; nothing that a
 * file says is used to size a buffer before it is checked.
 */
struct rb_results_in {
	hid_t file;
	int schema;
	char why[512];
};

/* How many bytes of rows one table may take in memory. */
static size_t read_limit = (size_t)4 << 30;

/* How often a SWMR read retries metadata whose checksum fails (see rb_results_open). */
#define SWMR_READ_ATTEMPTS 20

/* An attribute's longest string we read, in bytes (the campaign text is under 4 MiB). */
#define ATTR_MAX_BYTES (8u << 20)

static int why(struct rb_results_in *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int why(struct rb_results_in *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->why, sizeof(in->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *class_name(H5T_class_t c)
{
	switch (c) {
	case H5T_INTEGER:
		return "integers";
	case H5T_FLOAT:
		return "floating-point numbers";
	case H5T_STRING:
		return "strings";
	case H5T_COMPOUND:
		return "compound rows";
	case H5T_ARRAY:
		return "arrays";
	case H5T_VLEN:
		return "variable-length sequences";
	case H5T_ENUM:
		return "an enumeration";
	case H5T_OPAQUE:
		return "opaque bytes";
	case H5T_BITFIELD:
		return "bit fields";
	case H5T_REFERENCE:
		return "references";
	case H5T_TIME:
		return "times";
	default:
		return "an unknown type";
	}
}

/* "one value", "a list of 256", "rank 2 (4 x 8)", "no dataspace". */
static void shape_of(hid_t sp, char *buf, size_t len)
{
	hsize_t dims[H5S_MAX_RANK];
	int rank;
	size_t n;

	switch (H5Sget_simple_extent_type(sp)) {
	case H5S_SCALAR:
		snprintf(buf, len, "one value");
		return;
	case H5S_SIMPLE:
		break;
	case H5S_NULL:
		snprintf(buf, len, "empty (a null dataspace)");
		return;
	default:
		snprintf(buf, len, "of no known shape");
		return;
	}
	rank = H5Sget_simple_extent_ndims(sp);
	if (rank < 1 || rank > H5S_MAX_RANK || H5Sget_simple_extent_dims(sp, dims, NULL) != rank) {
		snprintf(buf, len, "of no known shape");
		return;
	}
	if (rank == 1) {
		snprintf(buf, len, "a list of %llu", (unsigned long long)dims[0]);
		return;
	}
	n = (size_t)snprintf(buf, len, "of rank %d (", rank);
	for (int k = 0; k < rank && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%llu", k ? " x " : "",
				      (unsigned long long)dims[k]);
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

/* Root attribute name as one string into buf: 0, -ENOENT (absent) or -EINVAL/-EIO (why). */
static int attr_read(struct rb_results_in *in, const char *name, char *buf, size_t len)
{
	hid_t a, sp, ft, mt = -1;
	char shape[96], *tmp = NULL;
	int r;

	buf[0] = '\0';
	if (H5Aexists(in->file, name) <= 0)
		return -ENOENT;
	a = H5Aopen(in->file, name, H5P_DEFAULT);
	if (a < 0) {
		why(in, "cannot open its attribute '%s'", name);
		return -EIO;
	}
	sp = H5Aget_space(a);
	ft = H5Aget_type(a);
	if (sp < 0 || ft < 0) {
		r = why(in, "cannot read the type of its attribute '%s'", name);
	} else if (H5Sget_simple_extent_type(sp) != H5S_SCALAR) {
		shape_of(sp, shape, sizeof(shape));
		r = why(in, "its attribute '%s' is %s, not one string", name, shape);
	} else if (H5Tget_class(ft) != H5T_STRING) {
		r = why(in, "its attribute '%s' holds %s, not a string", name,
			class_name(H5Tget_class(ft)));
	} else if (H5Tis_variable_str(ft) > 0) {
		char *v = NULL;

		mt = vlstr_type();
		H5Tset_cset(mt, H5Tget_cset(ft));
		r = H5Aread(a, mt, &v) < 0 ? why(in, "cannot read its attribute '%s'", name) : 0;
		if (!r)
			snprintf(buf, len, "%s", v ? v : "");
		if (v)
			H5free_memory(v);
	} else {
		size_t n = H5Tget_size(ft);

		if (!n || n > ATTR_MAX_BYTES) {
			r = why(in, "its attribute '%s' is a string of %zu bytes", name, n);
		} else if (!(tmp = malloc(n + 1))) {
			r = -ENOMEM;
		} else {
			mt = H5Tcopy(H5T_C_S1);
			H5Tset_size(mt, n + 1);
			H5Tset_strpad(mt, H5T_STR_NULLTERM);
			H5Tset_cset(mt, H5Tget_cset(ft));
			r = H5Aread(a, mt, tmp) < 0 ? why(in, "cannot read its attribute '%s'", name)
						     : 0;
			if (!r) {
				tmp[n] = '\0';
				snprintf(buf, len, "%s", tmp);
			}
		}
	}
	free(tmp);
	if (mt >= 0)
		H5Tclose(mt);
	if (ft >= 0)
		H5Tclose(ft);
	if (sp >= 0)
		H5Sclose(sp);
	H5Aclose(a);
	return r;
}

void rb_results_set_read_limit(size_t bytes)
{
	read_limit = bytes;
}

struct rb_results_in *rb_results_open(const char *path, char *err, size_t errlen)
{
	struct rb_results_in *in = calloc(1, sizeof(*in));
	char ver[32], *end;
	long v;

	if (!in) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	hdf5_init();
	in->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	/*
	 * A run still going, or killed: its writer was in SWMR mode. A SWMR reader retries a
	 * metadata read whose checksum fails (the writer may be midway), 100 times by
	 * default with a sleep that doubles from 1 ns each time: a damaged file would hang
	 * the reader for centuries. 20 tries wait about a millisecond in all.
	 */
	if (in->file < 0) {
		hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);

		H5Pset_metadata_read_attempts(fapl, SWMR_READ_ATTEMPTS);
		in->file = H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl);
		H5Pclose(fapl);
	}
	if (in->file < 0 || H5Aexists(in->file, "schema_version") <= 0) {
		snprintf(err, errlen, "'%s' is not a rackbench results file (or cannot be read)",
			 path);
		goto fail;
	}
	if (attr_read(in, "schema_version", ver, sizeof(ver))) {
		snprintf(err, errlen, "'%s' is not a rackbench results file: %s", path, in->why);
		goto fail;
	}
	errno = 0;
	v = strtol(ver, &end, 10);
	if (errno || end == ver || *end || v < 1 || v > 1000000) {
		snprintf(err, errlen,
			 "'%s' is not a rackbench results file: its schema_version is '%.32s', not a "
			 "version number",
			 path, ver);
		goto fail;
	}
	in->schema = (int)v;
	return in;
fail:
	if (in->file >= 0)
		H5Fclose(in->file);
	free(in);
	return NULL;
}

void rb_results_in_close(struct rb_results_in *in)
{
	if (!in)
		return;
	H5Fclose(in->file);
	free(in);
}

int rb_results_schema(const struct rb_results_in *in)
{
	return in->schema;
}

const char *rb_results_in_error(const struct rb_results_in *in)
{
	return in->why;
}

int rb_results_attr_get(struct rb_results_in *in, const char *name, char *buf, size_t len)
{
	return attr_read(in, name, buf, len);
}

const char *rb_results_attr(struct rb_results_in *in, const char *name, char *buf, size_t len)
{
	attr_read(in, name, buf, len);
	return buf;
}

/* Whether the file's row type ft holds our table i's columns with our classes. */
static int check_columns(struct rb_results_in *in, int i, hid_t ft)
{
	const char *tname = table_defs[i].name;

	for (size_t k = 0; k < table_defs[i].nf; k++) {
		const struct field *f = &table_defs[i].f[k];
		int idx = H5Tget_member_index(ft, f->name);
		H5T_class_t want = f->t == FT_STR ? H5T_STRING
				   : f->t == FT_F64 ? H5T_FLOAT
						    : H5T_INTEGER;
		H5T_class_t got;
		hid_t mt;
		int vl;

		if (idx < 0)
			continue; /* an older file: the column reads as zeros */
		got = H5Tget_member_class(ft, (unsigned)idx);
		if (got != want)
			return why(in, "column '%s' of table '%s' holds %s, not %s", f->name, tname,
				   class_name(got), class_name(want));
		if (want != H5T_STRING)
			continue;
		mt = H5Tget_member_type(ft, (unsigned)idx);
		vl = mt >= 0 ? H5Tis_variable_str(mt) : -1;
		if (mt >= 0)
			H5Tclose(mt);
		if (vl != 0)
			return why(in, "column '%s' of table '%s' holds variable-length strings, "
				       "not the fixed-length ones rackbench writes",
				   f->name, tname);
	}
	return 0;
}

/*
 * Reads table i with this build's row type: fields match by name, so a file with more
 * columns reads too. Checked first: a rank-1 dataset of compound rows, columns of our
 * classes, rows that fit the read limit. -ENOENT when absent, -EINVAL (in->why), -EIO,
 * -ENOMEM.
 */
static int read_table(struct rb_results_in *in, int i, void **ret, size_t *ret_n)
{
	const char *tname = table_defs[i].name;
	size_t rowsize = table_defs[i].rowsize;
	hid_t d, sp, ft, mt = -1;
	hsize_t n = 0;
	char shape[96];
	char *rows = NULL;
	int r = 0;

	if (H5Lexists(in->file, tname, H5P_DEFAULT) <= 0) {
		why(in, "it has no table '%s'", tname);
		return -ENOENT;
	}
	d = H5Dopen2(in->file, tname, H5P_DEFAULT);
	if (d < 0)
		return why(in, "its '%s' is not a table (a dataset)", tname);
	sp = H5Dget_space(d);
	ft = H5Dget_type(d);
	if (sp < 0 || ft < 0) {
		r = why(in, "cannot read the shape of its table '%s'", tname);
	} else if (H5Sget_simple_extent_type(sp) != H5S_SIMPLE ||
		   H5Sget_simple_extent_ndims(sp) != 1) {
		shape_of(sp, shape, sizeof(shape));
		r = why(in, "its table '%s' is %s, not a list of rows (rank 1)", tname, shape);
	} else if (H5Sget_simple_extent_dims(sp, &n, NULL) != 1) {
		r = why(in, "cannot read the shape of its table '%s'", tname);
	} else if (H5Tget_class(ft) != H5T_COMPOUND) {
		r = why(in, "its table '%s' holds %s, not rows of columns (a compound type)", tname,
			class_name(H5Tget_class(ft)));
	} else if ((r = check_columns(in, i, ft))) {
		/* why says */
	} else if (n >= read_limit / rowsize) {
		r = why(in, "its table '%s' has %llu rows, more than %zu MiB in memory", tname,
			(unsigned long long)n, read_limit >> 20);
	}
	if (r)
		goto out;
	mt = H5Tcreate(H5T_COMPOUND, rowsize);
	for (size_t k = 0; k < table_defs[i].nf; k++) {
		const struct field *f = &table_defs[i].f[k];
		hid_t t = field_type(f, false);
		int idx = f->t == FT_STR ? H5Tget_member_index(ft, f->name) : -1;

		/* HDF5 converts no string between ASCII and UTF-8: read it as it was written */
		if (idx >= 0) {
			hid_t m = H5Tget_member_type(ft, (unsigned)idx);

			if (m >= 0) {
				H5Tset_cset(t, H5Tget_cset(m));
				H5Tclose(m);
			}
		}
		H5Tinsert(mt, f->name, f->off, t);
		H5Tclose(t);
	}
	rows = calloc((size_t)n + 1, rowsize);
	if (!rows) {
		r = -ENOMEM;
		why(in, "out of memory for its table '%s' (%llu rows)", tname, (unsigned long long)n);
	} else if (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0) {
		r = -EIO;
		why(in, "cannot read its table '%s' (damaged, or not of this layout)", tname);
	}
	/* every string ends inside its field, whatever the file held */
	for (size_t k = 0; !r && k < table_defs[i].nf; k++)
		if (table_defs[i].f[k].t == FT_STR)
			for (size_t row = 0; row < (size_t)n; row++)
				rows[row * rowsize + table_defs[i].f[k].off + table_defs[i].f[k].len -
				     1] = '\0';
out:
	if (mt >= 0)
		H5Tclose(mt);
	if (ft >= 0)
		H5Tclose(ft);
	if (sp >= 0)
		H5Sclose(sp);
	H5Dclose(d);
	if (r) {
		free(rows);
		return r;
	}
	*ret = rows;
	*ret_n = (size_t)n;
	return 0;
}

/* An optional table (newer than some files): absent is 0 rows. */
static int read_optional(struct rb_results_in *in, int i, void **ret, size_t *ret_n)
{
	int r = read_table(in, i, ret, ret_n);

	if (r != -ENOENT)
		return r;
	in->why[0] = '\0';
	*ret = calloc(1, table_defs[i].rowsize);
	*ret_n = 0;
	return *ret ? 0 : -ENOMEM;
}

int rb_results_read_drives(struct rb_results_in *in, struct rb_row_drive **ret, size_t *ret_n)
{
	return read_table(in, T_DRIVES, (void **)ret, ret_n);
}

int rb_results_read_members(struct rb_results_in *in, struct rb_row_member **ret, size_t *ret_n)
{
	return read_optional(in, T_MEMBERS, (void **)ret, ret_n);
}

int rb_results_read_points(struct rb_results_in *in, struct rb_row_point **ret, size_t *ret_n)
{
	return read_table(in, T_POINTS, (void **)ret, ret_n);
}

int rb_results_read_results(struct rb_results_in *in, struct rb_row_result **ret, size_t *ret_n)
{
	return read_table(in, T_RESULTS, (void **)ret, ret_n);
}

int rb_results_read_samples(struct rb_results_in *in, struct rb_row_sample **ret, size_t *ret_n)
{
	return read_table(in, T_SAMPLES, (void **)ret, ret_n);
}

int rb_results_read_hists(struct rb_results_in *in, struct rb_row_hist **ret, size_t *ret_n)
{
	return read_table(in, T_HIST, (void **)ret, ret_n);
}

int rb_results_read_health(struct rb_results_in *in, struct rb_row_health **ret, size_t *ret_n)
{
	return read_table(in, T_HEALTH, (void **)ret, ret_n);
}

int rb_results_steady(struct rb_results *r, const struct rb_row_steady *row)
{
	return push(r, T_STEADY, row);
}

long rb_results_next_result(const struct rb_results *r)
{
	return (long)(r->t[T_RESULTS].queued + r->t[T_RESULTS].nbuf);
}

int rb_results_set_steady(struct rb_results *r, long row, uint8_t steady)
{
	struct table *t = &r->t[T_RESULTS];
	hsize_t at = (hsize_t)row;
	struct job *j;

	if (row < 0 || at >= t->queued + t->nbuf)
		return -EINVAL;
	if (at >= t->queued) {
		/* still buffered */
		((struct rb_row_result *)(void *)(t->buf + (at - t->queued) * t->rowsize))->steady =
			steady;
		return 0;
	}
	/* handed to the writer: it rewrites that field of that row, in order */
	j = calloc(1, sizeof(*j));
	if (!j || !r->thr_on) {
		free(j);
		return -ENOMEM;
	}
	j->steady = true;
	j->row = at;
	j->value = steady;
	enqueue(r, j);
	return 0;
}

int rb_results_read_steady(struct rb_results_in *in, struct rb_row_steady **ret, size_t *ret_n)
{
	return read_optional(in, T_STEADY, (void **)ret, ret_n);
}
