// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: `rackbench report` on HDF5 files it did not write.
 *
 * An input is a mode byte and then either
 *  - (mode even) an HDF5 file image, as is: the seed corpus holds small real results
 *    files and every crafted case of tests/integration/badh5.py; or
 *  - (mode odd) a list of edits applied to a real results file that the real writer
 *    made at start-up: opened with the core driver from that image (H5Pset_file_image),
 *    each edit deletes or replaces an attribute or a table (another rank, dims, type
 *    class, a column of another class, more rows than stored) or overwrites a table's
 *    rows with the input's bytes; the driver writes the result out on close (see
 *    edited()). Mutating bytes alone rarely gets past HDF5's checksums; edits reach
 *    every check of the reader and, through the rows, the report's use of ids, buckets,
 *    strings and numbers.
 * Either file is read by path by rb_report_cmd() -- table, CSV or Markdown, and the
 * HTML page -- exactly as a user's file would be. Bits 1-2 of the mode byte pick the
 * format, bit 3 the HTML page.
 */
#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmds.h"
#include "report.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The base file of edit mode: written once by the real writer. */
static void *base;
static size_t base_len;
static int fd = -1;
static char path[64];
static char dir[] = "/tmp/fuzz_results-XXXXXX", html[64], edit_path[64];

static const char *const attrs[] = { "schema_version", "methodology", "campaign_name", "status" };
static const char *const tables[] = { "drives",	    "points",	    "results", "samples",
				      "hist_bins", "steady_state", "members", "agents" };
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The input's bytes as a stream; past the end it gives zeros. */
struct in {
	const uint8_t *p;
	size_t n;
};

static uint8_t u8(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint64_t u64(struct in *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | u8(in);
	return v;
}

/* Fills buf with the input's next bytes (zeros when they run out). */
static void fill(struct in *in, void *buf, size_t len)
{
	size_t k = len < in->n ? len : in->n;

	memcpy(buf, in->p, k);
	memset((char *)buf + k, 0, len - k);
	in->p += k;
	in->n -= k;
}

static void make_base(void)
{
	char file[64], err[256];
	struct rb_results *r;
	FILE *f;
	long n;

	snprintf(file, sizeof(file), "%s/base.h5", dir);
	r = rb_results_create(file,
			      &(struct rb_results_meta){ .campaign_name = "fuzz",
							 .campaign_text = "name: fuzz\n",
							 .methodology = "0123456789abcdef",
							 .start_ns = 1 },
			      err, sizeof(err));
	if (!r)
		abort();
	for (uint32_t d = 0; d < 2; d++) {
		struct rb_row_drive dr = { .drive = d,
					   .id.size_bytes = 1 << 30,
					   .id.logical_block_size = 512 };

		snprintf(dr.agent, sizeof(dr.agent), "a%u", d);
		snprintf(dr.id.path, sizeof(dr.id.path), "/dev/nvme%un1", d);
		snprintf(dr.id.model, sizeof(dr.id.model), "model %u", d % 2);
		snprintf(dr.id.kind, sizeof(dr.id.kind), "nvme");
		rb_results_drive(r, &dr);
	}
	struct rb_row_member mb = { .drive = 1, .member = 0, .id.path = "/dev/loop0" };

	rb_results_member(r, &mb);
	for (uint32_t p = 0; p < 2; p++) {
		struct rb_row_point pt = { .point = p,
					   .bs_bytes = 4096,
					   .iodepth = 1 + p,
					   .numjobs = 1,
					   .runtime_ns = 1000000000,
					   .curve_pct = p ? 50.0 : 0.0,
					   .round = p };

		snprintf(pt.phase, sizeof(pt.phase), "ph");
		snprintf(pt.name, sizeof(pt.name), p ? "ph curve=50%%" : "ph curve=max");
		snprintf(pt.rw, sizeof(pt.rw), "randread");
		rb_results_point(r, &pt);
		for (uint32_t d = 0; d < 2; d++) {
			struct rb_row_result rs = {
				.drive = d, .point = p, .attempt = 0, .core.elapsed_ns = 1000000000
			};

			snprintf(rs.status, sizeof(rs.status), "ok");
			rs.read.ios = 1000 + d;
			rs.read.iops = 1000.0 + d;
			rs.read.lat_p99_ns = 200000;
			rb_results_result(r, &rs);
			for (uint32_t i = 0; i < 2; i++) {
				struct rb_row_sample sm = { .drive = d,
							    .point = p,
							    .interval = i,
							    .ios = 500,
							    .bytes = 500 * 4096 };
				uint32_t bucket = 100 + i * 300;
				uint64_t count = 250;

				rb_results_sample_hist(r, &sm, &bucket, &count, 1);
			}
		}
	}
	struct rb_row_steady st = {
		.drive = 0, .phase = "ph", .point = 1, .rounds = 2, .window = 2, .steady = 1
	};

	rb_results_steady(r, &st);
	if (rb_results_close(r, "complete", 2))
		abort();
	f = fopen(file, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		abort();
	base_len = (size_t)n;
	base = malloc(base_len);
	if (!base || fread(base, 1, base_len, f) != base_len)
		abort();
	fclose(f);
	unlink(file);
}

/* A dataspace of rank (0: scalar, 9: null) with small dims from the input. */
static hid_t small_space(struct in *in, hsize_t *ret_n)
{
	uint8_t rank = u8(in) % 10;
	hsize_t dims[8], n = 1;

	if (rank == 9) {
		*ret_n = 0;
		return H5Screate(H5S_NULL);
	}
	for (int k = 0; k < rank; k++) {
		dims[k] = u8(in) % 5;
		n *= dims[k];
	}
	*ret_n = n;
	return rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
}

/* Writes n elements of type t from the input, unless t holds pointers (vlen). */
static void write_from_input(struct in *in, hid_t obj, hid_t t, hsize_t n, bool attr)
{
	size_t sz = H5Tget_size(t);
	void *buf;

	if (!n || !sz || n > 4096 || H5Tdetect_class(t, H5T_VLEN) != 0 ||
	    (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) != 0))
		return;
	buf = malloc(n * sz);
	if (!buf)
		return;
	fill(in, buf, n * sz);
	if (attr)
		H5Awrite(obj, t, buf);
	else
		H5Dwrite(obj, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
	free(buf);
}

/* One of a few types, by the input: what a crafted file might put where we expect else. */
static hid_t odd_type(struct in *in)
{
	hid_t t;
	hsize_t three = 3;

	switch (u8(in) % 7) {
	case 0:
		return H5Tcopy(H5T_STD_I64LE);
	case 1:
		return H5Tcopy(H5T_IEEE_F64LE);
	case 2:
		t = H5Tcopy(H5T_C_S1);
		H5Tset_size(t, (size_t)u8(in) + 1);
		return t;
	case 3:
		t = H5Tcopy(H5T_C_S1);
		H5Tset_size(t, H5T_VARIABLE);
		return t;
	case 4:
		return H5Tarray_create2(H5T_IEEE_F64LE, 1, &three);
	case 5:
		t = H5Tcreate(H5T_COMPOUND, 8);
		H5Tinsert(t, "x", 0, H5T_STD_U64LE);
		return t;
	default:
		return H5Tcopy(H5T_STD_U8LE);
	}
}

static void edit_attr(struct in *in, hid_t f, const char *name, uint8_t op)
{
	hid_t sp, t, a;
	hsize_t n;

	if (H5Aexists(f, name) > 0)
		H5Adelete(f, name);
	if (op % 4 == 0)
		return; /* deleted */
	sp = small_space(in, &n);
	t = odd_type(in);
	a = H5Acreate2(f, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		write_from_input(in, a, t, H5Sget_simple_extent_type(sp) == H5S_SCALAR ? 1 : n,
				 true);
		H5Aclose(a);
	}
	H5Tclose(t);
	H5Sclose(sp);
}

/* The table's row type with member k given another type. */
static hid_t retyped(hid_t rt, unsigned k, hid_t with)
{
	int nm = H5Tget_nmembers(rt);
	size_t off = 0;
	hid_t t;

	for (int i = 0; i < nm; i++) {
		hid_t m = (unsigned)i == k ? H5Tcopy(with) : H5Tget_member_type(rt, (unsigned)i);

		off += H5Tget_size(m);
		H5Tclose(m);
	}
	t = H5Tcreate(H5T_COMPOUND, off ? off : 1);
	off = 0;
	for (int i = 0; i < nm; i++) {
		hid_t m = (unsigned)i == k ? H5Tcopy(with) : H5Tget_member_type(rt, (unsigned)i);
		char *mn = H5Tget_member_name(rt, (unsigned)i);

		H5Tinsert(t, mn, off, m);
		off += H5Tget_size(m);
		H5free_memory(mn);
		H5Tclose(m);
	}
	return t;
}

static void edit_table(struct in *in, hid_t f, const char *name, uint8_t op)
{
	hid_t d, rt, t = -1, sp = -1, nd;
	hsize_t n = 0, cur = 0;

	if (H5Lexists(f, name, H5P_DEFAULT) <= 0)
		return;
	d = H5Dopen2(f, name, H5P_DEFAULT);
	if (d < 0)
		return;
	rt = H5Dget_type(d);
	sp = H5Dget_space(d);
	if (H5Sget_simple_extent_ndims(sp) == 1)
		H5Sget_simple_extent_dims(sp, &cur, NULL);
	H5Sclose(sp);
	sp = -1;
	switch (op % 6) {
	case 0: /* gone */
		H5Dclose(d);
		H5Ldelete(f, name, H5P_DEFAULT);
		H5Tclose(rt);
		return;
	case 1: /* same rows, another shape */
		t = H5Tcopy(rt);
		sp = small_space(in, &n);
		break;
	case 2: /* another type altogether */
		t = odd_type(in);
		sp = small_space(in, &n);
		break;
	case 3: /* one column of another type */
		if (H5Tget_class(rt) == H5T_COMPOUND && H5Tget_nmembers(rt) > 0) {
			hid_t o = odd_type(in);

			t = retyped(rt, u8(in) % (unsigned)H5Tget_nmembers(rt), o);
			H5Tclose(o);
		} else {
			t = H5Tcopy(rt);
		}
		n = u8(in) % 8;
		sp = H5Screate_simple(1, &n, NULL);
		break;
	case 4: { /* more rows than stored: a chunked table grown, nothing written */
		hsize_t want = u64(in) >> (u8(in) % 64);

		/* only grown: shrinking visits every chunk the extent held (hours for 2^40) */
		if (want > cur)
			H5Dset_extent(d, &want);
		H5Dclose(d);
		H5Tclose(rt);
		return;
	}
	default: { /* the rows rewritten from the input, maybe more of them */
		hsize_t rows = u8(in) % 17;

		if (cur <= 65536 && H5Dset_extent(d, &rows) >= 0)
			write_from_input(in, d, rt, rows, false);
		H5Dclose(d);
		H5Tclose(rt);
		return;
	}
	}
	H5Dclose(d);
	H5Ldelete(f, name, H5P_DEFAULT);
	nd = H5Dcreate2(f, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (nd >= 0) {
		if (H5Sget_simple_extent_type(sp) == H5S_SCALAR)
			n = 1;
		write_from_input(in, nd, t, n, false);
		H5Dclose(nd);
	}
	H5Sclose(sp);
	H5Tclose(t);
	H5Tclose(rt);
}

/*
 * The base file with the input's edits, written to edit_path: the core driver starts
 * from the base image (H5Pset_file_image) and writes the edited file to its backing
 * store when it closes (a file that must not exist yet). H5Fget_file_image() of the
 * open file would need no file at all, but HDF5 1.10 clears the superblock's write flag
 * in that copy without updating its checksum, so no such image opens.
 */
static int edited(struct in *in)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f;

	unlink(edit_path);
	H5Pset_fapl_core(fapl, 1 << 16, 1);
	H5Pset_file_image(fapl, base, base_len);
	f = H5Fopen(edit_path, H5F_ACC_RDWR, fapl);
	H5Pclose(fapl);
	if (f < 0)
		return -EIO;
	for (int k = 0; k < 8 && in->n; k++) {
		uint8_t op = u8(in), which = u8(in);

		if (which % 2)
			edit_attr(in, f, attrs[(which >> 1) % N(attrs)], op);
		else
			edit_table(in, f, tables[(which >> 1) % N(tables)], op);
	}
	return H5Fclose(f) < 0 ? -EIO : 0;
}

static void cleanup(void)
{
	unlink(edit_path);
	unlink(html);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "table", "csv", "markdown", "table" };
	struct in in = { data + 1, size ? size - 1 : 0 };
	uint8_t mode = size ? data[0] : 0;

	if (!size)
		return 0;
	if (fd < 0) {
		H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
		/* HDF5 keeps freed blocks for reuse without bound: not in a long fuzz run */
		H5set_free_list_limits(1 << 20, 1 << 18, 1 << 20, 1 << 18, 1 << 20, 1 << 18);
		/* the folder of the base file and of the HTML page (written as tmp, renamed) */
		if (!mkdtemp(dir))
			abort();
		snprintf(html, sizeof(html), "%s/report.html", dir);
		/* in memory where there is a /dev/shm */
		snprintf(edit_path, sizeof(edit_path), "%s/fuzz_results-%d.h5",
			 access("/dev/shm", W_OK) ? dir : "/dev/shm", (int)getpid());
		make_base();
		atexit(cleanup);
		fd = memfd_create("fuzz_results", 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		/* the report's tables and messages are not the fuzzer's output (libFuzzer and
		 * the sanitizers keep their own handle on fd 2) */
		if (!freopen("/dev/null", "w", stdout))
			abort();
		if (!getenv("RB_FUZZ_VERBOSE")) {
			FILE *null = fopen("/dev/null", "w");

			if (null)
				stderr = null;
		}
		/* the fuzzer's memory limit is 2 GiB: a table may take 64 MiB here */
		rb_results_set_read_limit(64u << 20);
	}
	if (mode & 1) {
		if (edited(&in))
			return 0;
	} else if (ftruncate(fd, 0) || pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1)) {
		return 0;
	}
	char a0[] = "report", a2[] = "--format", a4[] = "--html", fmt[16];
	char *argv[] = { a0, mode & 1 ? edit_path : path, a2, fmt, a4, html, NULL };
	int argc = (mode >> 3) & 1 ? 6 : 4;

	snprintf(fmt, sizeof(fmt), "%s", formats[(mode >> 1) & 3]);
	argv[argc] = NULL;
	rb_report_cmd(argc, argv);
	return 0;
}
