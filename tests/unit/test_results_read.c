// SPDX-License-Identifier: MIT
/*
 * Results files read back (coordinator/results/results_read.c): every table the writer wrote
 * reads back as written, and files crafted here with HDF5 itself -- a schema_version that
 * is a number, a list or no number, a table of rank 2, of integers, with a column of
 * another class or of variable-length strings, a group where a table goes, more rows
 * than the read limit -- are each refused with the reason the reader gives.
 */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture.h"
#include "log.h"
#include "results.h"

struct fixture {
	char dir[256], path[512];
};

static int setup(void **st)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	temp_dir(fx->dir, sizeof(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/r.h5", fx->dir);
	*st = fx;
	return 0;
}

static int teardown(void **st)
{
	struct fixture *fx = *st;

	rm_tree(fx->dir);
	free(fx);
	return 0;
}

/* Every table written, every one read back the same. */
static void test_round_trip(void **st)
{
	struct fixture *fx = *st;
	struct rb_results_meta m = { .campaign_name = "rt",
				     .campaign_text = "name: rt\n",
				     .methodology = "00ff",
				     .start_ns = 5,
				     .insecure = 1 };
	char err[512], buf[64];
	struct rb_results *r = rb_results_create(fx->path, &m, err, sizeof(err));
	struct rb_results_in *in;
	struct rb_row_drive dr = { .drive = 3,
				   .id.size_bytes = 1ULL << 40,
				   .members = 2,
				   .stripe_bytes = 65536 },
			    *drs;
	struct rb_row_member mb = { .drive = 3, .member = 1, .id.size_bytes = 7 }, *mbs;
	struct rb_row_point pt = { .point = 2,
				   .iodepth = 8,
				   .round = 3,
				   .track = 1,
				   .curve_pct = 50 },
			    *pts;
	struct rb_row_result rs = { .drive = 3, .point = 2, .attempt = 1, .rate_iops = 9 }, *rss;
	struct rb_row_sample sm = { .drive = 3,
				    .point = 2,
				    .interval = 4,
				    .direction = 1,
				    .t_ns = -1,
				    .ios = 11 },
			     *sms;
	/* a count past 2^32 - 1: two rows of the bucket, added up when read */
	struct rb_row_hist hi = { .bucket = 4000, .count = (1ULL << 32) + 12 }, *his;
	struct rb_row_health he = { .drive = 3,
				    .member = 2,
				    .when = 1,
				    .h.temperature_c = 40.5,
				    .h.kernel_write_bytes = 13 },
			     *hes;
	struct rb_row_steady ss = { .drive = 3, .rolling = 1, .slope = -0.25, .steady_round = 6 },
			     *sss;
	struct rb_row_bs bs = { .drive = 3, .bs_bytes = 4096, .ios = 14 };
	struct rb_row_agent ag = { .registered_ns = 77, .clock_delay_ns = -1 };
	size_t n;

	if (!r)
		fail_msg("%s", err);
	snprintf(dr.agent, sizeof(dr.agent), "agent-1");
	snprintf(dr.id.model, sizeof(dr.id.model), "MODEL \u00e9"); /* UTF-8 as written */
	snprintf(mb.id.path, sizeof(mb.id.path), "/dev/m1");
	snprintf(pt.name, sizeof(pt.name), "p iodepth=8");
	snprintf(rs.status, sizeof(rs.status), "ok");
	rs.read.iops = 123.5;
	rs.write.lat_p99_9_ns = 99;
	rs.health_max_temp_c = NAN;
	snprintf(ss.metric, sizeof(ss.metric), "mbps");
	snprintf(ag.name, sizeof(ag.name), "agent-1");
	assert_int_equal(rb_results_agent(r, &ag), 0);
	assert_int_equal(rb_results_drive(r, &dr), 0);
	assert_int_equal(rb_results_member(r, &mb), 0);
	assert_int_equal(rb_results_point(r, &pt), 0);
	assert_int_equal(rb_results_next_result(r), 0);
	assert_int_equal(rb_results_result(r, &rs), 0);
	assert_int_equal(rb_results_next_result(r), 1);
	assert_int_equal(rb_results_sample_hist(r, &sm, &hi.bucket, &hi.count, 1), 0);
	assert_int_equal(rb_results_health(r, &he), 0);
	assert_int_equal(rb_results_steady(r, &ss), 0);
	assert_int_equal(rb_results_bs(r, &bs), 0);
	assert_true(rb_results_buffered(r) > 0);
	assert_int_equal(rb_results_flush(r), 0);
	assert_int_equal(rb_results_buffered(r), 0);
	/* a row handed to the writer already: its steady column rewritten */
	assert_int_equal(rb_results_set_steady(r, 0, 2), 0);
	assert_int_equal(rb_results_set_steady(r, 1, 2), -EINVAL);
	assert_int_equal(rb_results_close(r, "complete", 42), 0);

	in = rb_results_open(fx->path, err, sizeof(err));
	if (!in)
		fail_msg("%s", err);
	assert_int_equal(rb_results_schema(in), RB_RESULTS_SCHEMA_VERSION);
	assert_int_equal(rb_results_attr_get(in, "status", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "complete");
	assert_string_equal(rb_results_attr(in, "methodology", buf, sizeof(buf)), "00ff");
	assert_string_equal(rb_results_attr(in, "insecure", buf, sizeof(buf)), "true");
	assert_int_equal(rb_results_attr_get(in, "no_such", buf, sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "");
	/* a number is not a string: refused with why */
	assert_int_equal(rb_results_attr_get(in, "end_ns", buf, sizeof(buf)), -EINVAL);
	assert_string_equal(rb_results_in_error(in),
			    "its attribute 'end_ns' holds integers, not a string");
	assert_string_equal(rb_results_attr(in, "start_ns", buf, sizeof(buf)), "");

	assert_int_equal(rb_results_read_drives(in, &drs, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(drs[0].drive, 3);
	assert_string_equal(drs[0].agent, "agent-1");
	assert_string_equal(drs[0].id.model, "MODEL \u00e9");
	assert_int_equal(drs[0].id.size_bytes, 1ULL << 40);
	assert_int_equal(drs[0].members, 2);
	assert_int_equal(drs[0].stripe_bytes, 65536);
	free(drs);
	assert_int_equal(rb_results_read_members(in, &mbs, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(mbs[0].id.path, "/dev/m1");
	assert_int_equal(mbs[0].member, 1);
	free(mbs);
	assert_int_equal(rb_results_read_points(in, &pts, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(pts[0].name, "p iodepth=8");
	assert_int_equal(pts[0].round, 3);
	assert_int_equal(pts[0].track, 1);
	assert_true(pts[0].curve_pct == 50);
	free(pts);
	assert_int_equal(rb_results_read_results(in, &rss, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rss[0].attempt, 1);
	assert_true(rss[0].read.iops == 123.5);
	assert_int_equal(rss[0].write.lat_p99_9_ns, 99);
	assert_true(isnan(rss[0].health_max_temp_c));
	assert_int_equal(rss[0].rate_iops, 9);
	assert_int_equal(rss[0].steady, 2);
	free(rss);
	assert_int_equal(rb_results_read_samples(in, &sms, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(sms[0].t_ns, -1);
	assert_int_equal(sms[0].ios, 11);
	assert_int_equal(sms[0].direction, 1);
	assert_int_equal(sms[0].hist_first, 0);
	assert_int_equal(sms[0].hist_n, 2);
	free(sms);
	assert_int_equal(rb_results_read_hists(in, &his, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		/* each bucket with its sample's key */
		assert_int_equal(his[i].drive, 3);
		assert_int_equal(his[i].point, 2);
		assert_int_equal(his[i].interval, 4);
		assert_int_equal(his[i].direction, 1);
		assert_int_equal(his[i].bucket, 4000);
	}
	assert_int_equal(his[0].count + his[1].count, (1ULL << 32) + 12);
	free(his);
	assert_int_equal(rb_results_read_health(in, &hes, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(hes[0].member, 2);
	assert_true(hes[0].h.temperature_c == 40.5);
	assert_int_equal(hes[0].h.kernel_write_bytes, 13);
	free(hes);
	assert_int_equal(rb_results_read_steady(in, &sss, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(sss[0].metric, "mbps");
	assert_true(sss[0].slope == -0.25);
	assert_int_equal(sss[0].steady_round, 6);
	free(sss);
	rb_results_in_close(in);
	rb_results_in_close(NULL);
}

/* What the chunk test writes in sample i's bucket j: bucket 5 past 2^32 - 1 now and
 * then (two rows), bucket 7 of some samples empty (no row). */
static uint64_t bin_count(size_t i, size_t j)
{
	if (j == 7 && i % 3 == 0)
		return 0;
	return 1 + i * 131 + j * 17 + (j == 5 && i % 10 == 0 ? 1ULL << 33 : 0);
}

/*
 * Flushes of many rows: the writer compresses their whole chunks itself (shuffle and
 * deflate as the file declares); the rows around them go through HDF5. Every row reads
 * back as written, across a small flush, a large one and a small one again.
 */
static void test_whole_chunks_read_back(void **st)
{
	enum { SMALL = 5, LARGE = 3000, B = 40 };
	struct fixture *fx = *st;
	struct rb_results_meta m = { .campaign_name = "chunks", .campaign_text = "" };
	char err[512];
	struct rb_results *r = rb_results_create(fx->path, &m, err, sizeof(err));
	struct rb_results_in *in;
	struct rb_row_sample *sms;
	struct rb_row_hist *his;
	uint32_t idx[B];
	uint64_t cnt[B];
	size_t n, total = SMALL + LARGE + SMALL, k = 0;

	if (!r)
		fail_msg("%s", err);
	for (size_t i = 0; i < total; i++) {
		struct rb_row_sample sm = { .drive = (uint32_t)(i % 24),
					    .interval = (uint32_t)i,
					    .t_ns = (int64_t)i * 100000000,
					    .ios = i * 7 + 1 };
		size_t nb = 1 + i % B;

		for (size_t j = 0; j < nb; j++) {
			idx[j] = (uint32_t)(1000 + 3 * j);
			cnt[j] = bin_count(i, j);
		}
		assert_int_equal(rb_results_sample_hist(r, &sm, idx, cnt, nb), 0);
		if (i + 1 == SMALL || i + 1 == SMALL + LARGE)
			assert_int_equal(rb_results_flush(r), 0);
	}
	assert_int_equal(rb_results_close(r, "complete", 1), 0);
	in = rb_results_open(fx->path, err, sizeof(err));
	if (!in)
		fail_msg("%s", err);
	assert_int_equal(rb_results_read_samples(in, &sms, &n), 0);
	assert_int_equal(n, total);
	assert_int_equal(rb_results_read_hists(in, &his, &n), 0);
	for (size_t i = 0; i < total; i++) {
		assert_int_equal(sms[i].drive, i % 24);
		assert_int_equal(sms[i].interval, i);
		assert_int_equal(sms[i].t_ns, (int64_t)i * 100000000);
		assert_int_equal(sms[i].ios, i * 7 + 1);
		assert_int_equal(sms[i].hist_first, k);
		/* each non-zero bucket a row; a count past 2^32 - 1 as rows to be added */
		for (size_t j = 0; j < 1 + i % B; j++) {
			uint64_t want = bin_count(i, j), got = 0;

			while (got < want) {
				assert_true(k < n && k < sms[i].hist_first + sms[i].hist_n);
				assert_int_equal(his[k].interval, i);
				assert_int_equal(his[k].bucket, 1000 + 3 * j);
				got += his[k++].count;
			}
			assert_int_equal(got, want);
		}
		assert_int_equal(k, sms[i].hist_first + sms[i].hist_n);
	}
	assert_int_equal(k, n);
	free(sms);
	free(his);
	rb_results_in_close(in);
}

/* A results file written, kept open, and a file at the path refused. */
static void test_create_refused(void **st)
{
	struct fixture *fx = *st;
	struct rb_results_meta m = { .campaign_name = "x" };
	char err[512], path[600];

	write_text(fx->path, "taken\n");
	assert_null(rb_results_create(fx->path, &m, err, sizeof(err)));
	assert_non_null(strstr(err, "it exists"));
	snprintf(path, sizeof(path), "%s/no/such/dir/r.h5", fx->dir);
	assert_null(rb_results_create(path, &m, err, sizeof(err)));
	assert_non_null(strstr(err, "No such file or directory"));
}

/* ---- files made with HDF5 itself ---- */

static hid_t new_file(const char *path)
{
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

	assert_true(f >= 0);
	return f;
}

static void attr_string(hid_t f, const char *name, const char *value, bool fixed)
{
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a;

	H5Tset_size(t, fixed ? strlen(value) : H5T_VARIABLE);
	if (fixed)
		H5Tset_strpad(t, H5T_STR_NULLPAD);
	a = H5Acreate2(f, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(a >= 0);
	assert_true(H5Awrite(a, t, fixed ? (const void *)value : (const void *)&value) >= 0);
	H5Aclose(a);
	H5Sclose(sp);
	H5Tclose(t);
}

/* A file of our schema whose attribute or tables the callback adds. */
static void craft(const char *path, void (*add)(hid_t f))
{
	hid_t f = new_file(path);

	attr_string(f, "schema_version", "6", false);
	if (add)
		add(f);
	H5Fclose(f);
}

/* open fails, and the error says what. */
static void open_refused(const char *path, const char *why)
{
	char err[600];
	struct rb_results_in *in = rb_results_open(path, err, sizeof(err));

	if (in) {
		rb_results_in_close(in);
		fail_msg("'%s' opened", path);
	}
	if (!strstr(err, why))
		fail_msg("'%s' does not say '%s'", err, why);
}

static void add_nothing(hid_t f)
{
	(void)f;
}

static void test_schema_version_checked(void **st)
{
	struct fixture *fx = *st;
	hid_t f, sp, a;
	int v = 6;
	hsize_t two = 2;
	const char *vals[2] = { "6", "7" };
	char err[256];
	struct rb_results_in *in;

	write_text(fx->path, "not HDF5\n");
	open_refused(fx->path, "is not a rackbench results file (or cannot be read)");
	/* HDF5, but not ours */
	f = new_file(fx->path);
	H5Fclose(f);
	open_refused(fx->path, "is not a rackbench results file (or cannot be read)");
	/* a number */
	f = new_file(fx->path);
	sp = H5Screate(H5S_SCALAR);
	a = H5Acreate2(f, "schema_version", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
	H5Awrite(a, H5T_NATIVE_INT, &v);
	H5Aclose(a);
	H5Sclose(sp);
	H5Fclose(f);
	open_refused(fx->path, "its attribute 'schema_version' holds integers, not a string");
	/* a list of strings */
	f = new_file(fx->path);
	{
		hid_t t = H5Tcopy(H5T_C_S1);

		H5Tset_size(t, H5T_VARIABLE);
		sp = H5Screate_simple(1, &two, NULL);
		a = H5Acreate2(f, "schema_version", t, sp, H5P_DEFAULT, H5P_DEFAULT);
		H5Awrite(a, t, vals);
		H5Aclose(a);
		H5Sclose(sp);
		H5Tclose(t);
	}
	H5Fclose(f);
	open_refused(fx->path, "its attribute 'schema_version' is a list of 2, not one string");
	/* no number */
	f = new_file(fx->path);
	attr_string(f, "schema_version", "six", false);
	H5Fclose(f);
	open_refused(fx->path, "its schema_version is 'six', not a version number");
	/* a null dataspace */
	f = new_file(fx->path);
	sp = H5Screate(H5S_NULL);
	a = H5Acreate2(f, "schema_version", H5T_STD_I32LE, sp, H5P_DEFAULT, H5P_DEFAULT);
	H5Aclose(a);
	H5Sclose(sp);
	H5Fclose(f);
	open_refused(fx->path, "is empty (a null dataspace), not one string");
	/* a fixed-length string of a newer schema: read, and its number kept */
	f = new_file(fx->path);
	attr_string(f, "schema_version", "17", true);
	H5Fclose(f);
	in = rb_results_open(fx->path, err, sizeof(err));
	assert_non_null(in);
	assert_int_equal(rb_results_schema(in), 17);
	rb_results_in_close(in);
	/* of ours, with no tables: each table absent, the optional ones empty */
	craft(fx->path, add_nothing);
	in = rb_results_open(fx->path, err, sizeof(err));
	assert_non_null(in);
	{
		struct rb_row_drive *d = NULL;
		struct rb_row_steady *s = NULL;
		struct rb_row_member *m = NULL;
		size_t n = 9;

		assert_int_equal(rb_results_read_drives(in, &d, &n), -ENOENT);
		assert_string_equal(rb_results_in_error(in), "it has no table 'drives'");
		assert_int_equal(rb_results_read_steady(in, &s, &n), 0);
		assert_int_equal(n, 0);
		assert_string_equal(rb_results_in_error(in), "");
		assert_int_equal(rb_results_read_members(in, &m, &n), 0);
		assert_int_equal(n, 0);
		free(s);
		free(m);
	}
	rb_results_in_close(in);
}

/* A 'drives' of the shape the case makes, read: its error, or 0. */
static int read_drives(const char *path, char *why, size_t len, struct rb_row_drive **ret,
		       size_t *ret_n)
{
	char err[512];
	struct rb_results_in *in = rb_results_open(path, err, sizeof(err));
	int r;

	assert_non_null(in);
	*ret = NULL;
	r = rb_results_read_drives(in, ret, ret_n);
	snprintf(why, len, "%s", rb_results_in_error(in));
	rb_results_in_close(in);
	return r;
}

static void dataset(hid_t f, const char *name, hid_t type, int rank, const hsize_t *dims,
		    const void *data)
{
	hid_t sp = H5Screate_simple(rank, dims, NULL);
	hid_t d = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

	assert_true(d >= 0);
	if (data)
		assert_true(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
	H5Dclose(d);
	H5Sclose(sp);
}

static void add_rank2(hid_t f)
{
	hsize_t dims[2] = { 4, 8 };

	dataset(f, "drives", H5T_NATIVE_INT, 2, dims, NULL);
}

static void add_ints(hid_t f)
{
	hsize_t n = 3;
	int v[3] = { 1, 2, 3 };

	dataset(f, "drives", H5T_NATIVE_INT, 1, &n, v);
}

static void add_group(hid_t f)
{
	H5Gclose(H5Gcreate2(f, "drives", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}

struct old_drive {
	uint32_t drive;
	char agent[64];
	double capacity_bytes;
};

static void add_float_column(hid_t f)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct old_drive)), s = H5Tcopy(H5T_C_S1);
	hsize_t n = 1;
	struct old_drive row = { .drive = 1, .capacity_bytes = 2.5 };

	H5Tset_size(s, 64);
	H5Tinsert(t, "drive", offsetof(struct old_drive, drive), H5T_NATIVE_UINT32);
	H5Tinsert(t, "agent", offsetof(struct old_drive, agent), s);
	H5Tinsert(t, "capacity_bytes", offsetof(struct old_drive, capacity_bytes),
		  H5T_NATIVE_DOUBLE);
	dataset(f, "drives", t, 1, &n, &row);
	H5Tclose(s);
	H5Tclose(t);
}

struct vl_drive {
	uint32_t drive;
	const char *agent;
};

static void add_vlen_column(hid_t f)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct vl_drive)), s = H5Tcopy(H5T_C_S1);
	hsize_t n = 1;
	struct vl_drive row = { 1, "a1" };

	H5Tset_size(s, H5T_VARIABLE);
	H5Tinsert(t, "drive", offsetof(struct vl_drive, drive), H5T_NATIVE_UINT32);
	H5Tinsert(t, "agent", offsetof(struct vl_drive, agent), s);
	dataset(f, "drives", t, 1, &n, &row);
	H5Tclose(s);
	H5Tclose(t);
}

/* An older file's table: fewer columns (the others read as zeros), a string that fills
 * its field (read with a NUL inside it), and columns this build does not know. */
struct older_drive {
	uint32_t drive;
	char agent[64];
	uint64_t capacity_bytes;
	uint32_t future;
};

static void add_older(hid_t f)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct older_drive)), s = H5Tcopy(H5T_C_S1);
	hsize_t n = 2;
	struct older_drive rows[2] = { { .drive = 0, .capacity_bytes = 10, .future = 7 },
				       { .drive = 1, .capacity_bytes = 20 } };

	memset(rows[0].agent, 'A', sizeof(rows[0].agent));
	snprintf(rows[1].agent, sizeof(rows[1].agent), "a2");
	H5Tset_size(s, 64);
	H5Tset_strpad(s, H5T_STR_NULLPAD);
	H5Tinsert(t, "drive", offsetof(struct older_drive, drive), H5T_NATIVE_UINT32);
	H5Tinsert(t, "agent", offsetof(struct older_drive, agent), s);
	H5Tinsert(t, "capacity_bytes", offsetof(struct older_drive, capacity_bytes),
		  H5T_NATIVE_UINT64);
	H5Tinsert(t, "future", offsetof(struct older_drive, future), H5T_NATIVE_UINT32);
	dataset(f, "drives", t, 1, &n, rows);
	H5Tclose(s);
	H5Tclose(t);
}

static void test_tables_checked(void **st)
{
	struct fixture *fx = *st;
	static const struct {
		void (*add)(hid_t);
		const char *why;
	} cases[] = {
		{ add_rank2,
		  "its table 'drives' is of rank 2 (4 x 8), not a list of rows (rank 1)" },
		{ add_ints,
		  "its table 'drives' holds integers, not rows of columns (a compound type)" },
		{ add_group, "its 'drives' is not a table (a dataset)" },
		{ add_float_column,
		  "column 'capacity_bytes' of table 'drives' holds floating-point "
		  "numbers, not integers" },
		{ add_vlen_column,
		  "column 'agent' of table 'drives' holds variable-length strings, "
		  "not the fixed-length ones rackbench writes" },
	};
	struct rb_row_drive *d;
	size_t n;
	char why[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		craft(fx->path, cases[i].add);
		assert_int_equal(read_drives(fx->path, why, sizeof(why), &d, &n), -EINVAL);
		assert_null(d);
		if (strcmp(why, cases[i].why))
			fail_msg("case %zu: '%s', want '%s'", i, why, cases[i].why);
	}
	craft(fx->path, add_older);
	assert_int_equal(read_drives(fx->path, why, sizeof(why), &d, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(strlen(d[0].agent), sizeof(d[0].agent) - 1);
	assert_string_equal(d[1].agent, "a2");
	assert_int_equal(d[0].id.size_bytes, 10);
	assert_int_equal(d[1].id.size_bytes, 20);
	assert_string_equal(d[1].id.model, "");
	assert_int_equal(d[1].members, 0);
	free(d);
	/* more rows than the read limit allows: refused before anything is read */
	rb_results_set_read_limit(sizeof(struct rb_row_drive) + 1);
	assert_int_equal(read_drives(fx->path, why, sizeof(why), &d, &n), -EINVAL);
	rb_results_set_read_limit((size_t)4 << 30);
	assert_string_equal(why, "its table 'drives' has 2 rows, more than 0 MiB in memory");
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_whole_chunks_read_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_schema_version_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tables_checked, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
