// SPDX-License-Identifier: MIT
/* Reading a results file back (rackbench report), checked before it is used. */
#include "results.h"

#include <errno.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results_priv.h"
#include "yamlcfg.h"

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

static int why(struct rb_results_in *in, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

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

		mt = rb_results_vlstr_type();
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
			r = H5Aread(a, mt, tmp) < 0
				    ? why(in, "cannot read its attribute '%s'", name)
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
	/* HDF5 opens without O_NONBLOCK: a FIFO would hang it; no file but a regular one */
	int fd = rb_open_input(path);

	if (fd < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path, rb_input_error(fd));
		free(in);
		return NULL;
	}
	close(fd);
	rb_results_hdf5_init();
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
		snprintf(
			err, errlen,
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

int rb_results_run_header(struct rb_results_in *in, struct rb_run_header *h)
{
	memset(h, 0, sizeof(*h));
	rb_results_attr(in, "status", h->status, sizeof(h->status));
	if (!strcmp(h->status, "running") || !h->status[0])
		return 1;
	rb_results_attr(in, "campaign_name", h->campaign, sizeof(h->campaign));
	rb_results_attr(in, "verdict", h->verdict, sizeof(h->verdict));
	rb_results_attr_i64(in, "start_ns", &h->start_ns);
	rb_results_attr_i64(in, "end_ns", &h->end_ns);
	return 0;
}

int rb_results_attr_i64(struct rb_results_in *in, const char *name, int64_t *v)
{
	hid_t a, sp, ft;
	int r = 0;

	*v = 0;
	if (H5Aexists(in->file, name) <= 0)
		return -ENOENT;
	a = H5Aopen(in->file, name, H5P_DEFAULT);
	if (a < 0)
		return why(in, "cannot open its attribute '%s'", name);
	sp = H5Aget_space(a);
	ft = H5Aget_type(a);
	if (sp < 0 || ft < 0 || H5Sget_simple_extent_type(sp) != H5S_SCALAR ||
	    H5Tget_class(ft) != H5T_INTEGER)
		r = why(in, "its attribute '%s' is not one integer", name);
	else if (H5Aread(a, H5T_NATIVE_INT64, v) < 0)
		r = why(in, "cannot read its attribute '%s'", name);
	if (ft >= 0)
		H5Tclose(ft);
	if (sp >= 0)
		H5Sclose(sp);
	H5Aclose(a);
	return r;
}

const char *rb_results_attr(struct rb_results_in *in, const char *name, char *buf, size_t len)
{
	attr_read(in, name, buf, len);
	return buf;
}

/* Whether the file's row type ft holds our table i's columns with our classes. */
static int check_columns(struct rb_results_in *in, int i, hid_t ft)
{
	const char *tname = rb_results_tables[i].name;

	for (size_t k = 0; k < rb_results_tables[i].nf; k++) {
		const struct field *f = &rb_results_tables[i].f[k];
		int idx = H5Tget_member_index(ft, f->name);
		H5T_class_t want = f->t == FT_STR   ? H5T_STRING
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
			return why(in,
				   "column '%s' of table '%s' holds variable-length strings, "
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
	const char *tname = rb_results_tables[i].name;
	size_t rowsize = rb_results_tables[i].rowsize;
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
	for (size_t k = 0; k < rb_results_tables[i].nf; k++) {
		const struct field *f = &rb_results_tables[i].f[k];
		hid_t t = rb_results_field_type(f, false);
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
		why(in, "out of memory for its table '%s' (%llu rows)", tname,
		    (unsigned long long)n);
	} else if (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0) {
		r = -EIO;
		why(in, "cannot read its table '%s' (damaged, or not of this layout)", tname);
	}
	/* every string ends inside its field, whatever the file held */
	for (size_t k = 0; !r && k < rb_results_tables[i].nf; k++)
		if (rb_results_tables[i].f[k].t == FT_STR)
			for (size_t row = 0; row < (size_t)n; row++)
				rows[row * rowsize + rb_results_tables[i].f[k].off +
				     rb_results_tables[i].f[k].len - 1] = '\0';
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
	*ret = calloc(1, rb_results_tables[i].rowsize);
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

/*
 * Every non-zero bucket with its sample's key. Schema 8 on: the samples' hist_first and
 * hist_n over hist_bins (a sample whose range is not inside hist_bins is damage); older
 * files: the histograms table as it is.
 */
int rb_results_read_hists(struct rb_results_in *in, struct rb_row_hist **ret, size_t *ret_n)
{
	struct rb_row_sample *s = NULL;
	struct rb_row_bin *b = NULL;
	struct rb_row_hist *h = NULL;
	size_t ns, nb, n = 0;
	int r;

	/* a file of schema 8 on without hist_bins is damaged: said so by that name */
	if (H5Lexists(in->file, rb_results_tables[T_HIST].name, H5P_DEFAULT) <= 0)
		return read_table(in, in->schema >= 8 ? T_HIST : T_HIST_V7, (void **)ret, ret_n);
	if ((r = read_table(in, T_SAMPLES, (void **)&s, &ns)) ||
	    (r = read_table(in, T_HIST, (void **)&b, &nb)))
		goto out;
	for (size_t i = 0; i < ns; i++) {
		if (s[i].hist_first > nb || s[i].hist_n > nb - s[i].hist_first) {
			r = why(in,
				"sample row %zu's histogram (hist_bins rows %llu + %u) is past the "
				"end of hist_bins (%zu rows)",
				i, (unsigned long long)s[i].hist_first, s[i].hist_n, nb);
			goto out;
		}
		n += s[i].hist_n;
		if (n >= read_limit / sizeof(*h)) {
			r = why(in, "its samples' histograms hold more than %zu MiB in memory",
				read_limit >> 20);
			goto out;
		}
	}
	h = malloc((n + 1) * sizeof(*h));
	if (!h) {
		r = -ENOMEM;
		why(in, "out of memory for %zu histogram buckets", n);
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < ns; i++)
		for (uint32_t k = 0; k < s[i].hist_n; k++)
			h[n++] = (struct rb_row_hist){ .drive = s[i].drive,
						       .point = s[i].point,
						       .attempt = s[i].attempt,
						       .interval = s[i].interval,
						       .direction = s[i].direction,
						       .bucket = b[s[i].hist_first + k].bucket,
						       .count = b[s[i].hist_first + k].count };
	*ret = h;
	*ret_n = n;
	h = NULL;
out:
	free(s);
	free(b);
	free(h);
	return r;
}

int rb_results_read_health(struct rb_results_in *in, struct rb_row_health **ret, size_t *ret_n)
{
	return read_table(in, T_HEALTH, (void **)ret, ret_n);
}

int rb_results_read_steady(struct rb_results_in *in, struct rb_row_steady **ret, size_t *ret_n)
{
	return read_optional(in, T_STEADY, (void **)ret, ret_n);
}

int rb_results_read_ioerrors(struct rb_results_in *in, struct rb_row_ioerror **ret, size_t *ret_n)
{
	return read_optional(in, T_IOERRORS, (void **)ret, ret_n);
}

int rb_results_read_ckpts(struct rb_results_in *in, struct rb_row_ckpt **ret, size_t *ret_n)
{
	return read_optional(in, T_CKPT, (void **)ret, ret_n);
}

int rb_results_read_ckpt_writers(struct rb_results_in *in, struct rb_row_ckpt_writer **ret,
				 size_t *ret_n)
{
	return read_optional(in, T_CKPT_WRITERS, (void **)ret, ret_n);
}

int rb_results_read_execs(struct rb_results_in *in, struct rb_row_exec **ret, size_t *ret_n)
{
	return read_optional(in, T_EXEC, (void **)ret, ret_n);
}

int rb_results_read_evidence(struct rb_results_in *in, struct rb_row_evidence **ret, size_t *ret_n)
{
	return read_optional(in, T_EVIDENCE, (void **)ret, ret_n);
}

int rb_results_read_zones(struct rb_results_in *in, struct rb_row_zone **ret, size_t *ret_n)
{
	return read_optional(in, T_ZONES, (void **)ret, ret_n);
}

int rb_results_read_devlat(struct rb_results_in *in, struct rb_row_devlat **ret, size_t *ret_n)
{
	return read_optional(in, T_DEVLAT, (void **)ret, ret_n);
}

int rb_results_read_fdp_events(struct rb_results_in *in, struct rb_row_fdp_event **ret,
			       size_t *ret_n)
{
	return read_optional(in, T_FDP_EVENTS, (void **)ret, ret_n);
}

int rb_results_read_verdicts(struct rb_results_in *in, struct rb_row_verdict **ret, size_t *ret_n)
{
	return read_optional(in, T_VERDICTS, (void **)ret, ret_n);
}

void rb_row_drive_key(const struct rb_row_drive *d, char *buf, size_t len)
{
	if (d->id.serial[0])
		snprintf(buf, len, "%s", d->id.serial);
	else
		snprintf(buf, len, "%s:%s", d->agent, d->id.path);
}

const char *rb_row_label(const char *labels, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	buf[0] = 0;
	for (const char *s = labels; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, key, kl) && s[kl] == '=') {
			snprintf(buf, len, "%.*s", (int)strcspn(s + kl + 1, ","), s + kl + 1);
			break;
		}
	return buf;
}
