// SPDX-License-Identifier: MIT
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <hdf5.h>
#include <libdeflate.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hist.h"
#include "results_priv.h"

/*
 * Whole chunks compressed here, not by HDF5's filters: the same shuffle and the same
 * zlib stream that the declared filters (shuffle, deflate) read back, made by
 * libdeflate, which does level 1 in half zlib's time. Deflate was the largest cost of
 * a fleet's coordinator (2.9 of its 10 us per sample at 1,000 agents x 24 drives).
 */
struct chunker {
	struct libdeflate_compressor *c;
	char *shuf, *out;
	size_t outcap;
};

struct table {
	const char *name;
	const struct field *f;
	size_t nf, rowsize;
	hsize_t chunk_rows; /* rows of a chunk */
	struct chunker *z;  /* whole chunks compressed here; NULL: by HDF5 */
	hid_t dset, type;
	char *buf;
	size_t nbuf, capbuf;
	hsize_t queued;	 /* rows handed to the writer (the caller's thread) */
	hsize_t written; /* rows in the file (the writer's thread) */
	char *spare;	 /* a buffer the writer is done with, for the next rows (mu) */
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
	bool steady; /* rewrite one row's steady field instead of appending */
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
	pthread_cond_t cv;   /* a job queued, or stop */
	pthread_cond_t room; /* the queue shrank */
	struct job *head, *tail;
	size_t queued_bytes;
	uint64_t sent, done; /* jobs queued and written: rb_results_sync() waits on them */
	struct chunker z;    /* the writer's */
};

static void *writer(void *arg);

/* What the writer may be behind by before rb_results_flush() waits for it. */
#define QUEUE_MAX_BYTES (256u << 20)

static int attr_str(hid_t obj, const char *name, const char *value)
{
	hid_t t = rb_results_vlstr_type(), sp = H5Screate(H5S_SCALAR), a;
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

static int table_create(struct rb_results *r, int i)
{
	struct table *t = &r->t[i];
	hsize_t dims = 0, maxdims = H5S_UNLIMITED, chunk;
	hid_t sp, dcpl, ftype;
	char units[4096];
	size_t n = 0;

	t->name = rb_results_tables[i].name;
	t->f = rb_results_tables[i].f;
	t->nf = rb_results_tables[i].nf;
	t->rowsize = rb_results_tables[i].rowsize;
	t->type = H5Tcreate(H5T_COMPOUND, t->rowsize);
	ftype = H5Tcreate(H5T_COMPOUND, t->rowsize);
	for (size_t k = 0; k < t->nf; k++) {
		hid_t mt = rb_results_field_type(&t->f[k], false);

		H5Tinsert(t->type, t->f[k].name, t->f[k].off, mt);
		H5Tinsert(ftype, t->f[k].name, t->f[k].off, mt);
		H5Tclose(mt);
	}
	chunk = 65536 / t->rowsize ? 65536 / t->rowsize : 1;
	t->chunk_rows = chunk;
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
	attr_str(t->dset, "description", rb_results_tables[i].desc);
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

/* The writer's compressor and buffers, for every table's whole chunks (64 KiB each). */
static int chunker_init(struct rb_results *r)
{
	struct chunker *z = &r->z;

	z->c = libdeflate_alloc_compressor(1);
	z->outcap = libdeflate_zlib_compress_bound(z->c, 65536);
	z->shuf = malloc(65536);
	z->out = malloc(z->outcap);
	if (!z->c || !z->shuf || !z->out)
		return -ENOMEM;
	for (int i = 0; i < NWRITTEN; i++)
		r->t[i].z = z;
	return 0;
}

struct rb_results *rb_results_create(const char *path, const struct rb_results_meta *m, char *err,
				     size_t errlen)
{
	struct rb_results *r = calloc(1, sizeof(*r));
	hid_t fapl;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rb_results_hdf5_init();
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
		if (i < NWRITTEN && table_create(r, i)) {
			snprintf(err, errlen, "cannot create table '%s' in '%s'",
				 rb_results_tables[i].name, path);
			rb_results_close(r, "failed", 0);
			return NULL;
		}
	}
	if (chunker_init(r)) {
		snprintf(err, errlen, "out of memory");
		rb_results_close(r, "failed", 0);
		return NULL;
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
		hid_t t = rb_results_vlstr_type(), sp = H5Screate(H5S_SCALAR);
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

/* Room for at least want rows in t's buffer (doubling). */
static int reserve(struct table *t, size_t want)
{
	size_t cap = t->capbuf ? t->capbuf : 64;
	char *nb;

	while (cap < want)
		cap *= 2;
	if (cap == t->capbuf)
		return 0;
	nb = realloc(t->buf, cap * t->rowsize);
	if (!nb)
		return -ENOMEM;
	t->buf = nb;
	t->capbuf = cap;
	return 0;
}

static int push(struct rb_results *r, int i, const void *row)
{
	struct table *t = &r->t[i];

	if (t->nbuf == t->capbuf && reserve(t, t->nbuf + 1))
		return -ENOMEM;
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
int rb_results_sample_hist(struct rb_results *r, struct rb_row_sample *row, const uint32_t *idx,
			   const uint64_t *cnt, size_t n)
{
	struct table *t = &r->t[T_HIST];
	struct rb_row_bin *b;
	size_t i = 0;

	row->hist_first = t->queued + t->nbuf;
	row->hist_n = 0;
	/* room for every bucket once, written in place: a fleet's commonest rows */
	if (t->capbuf - t->nbuf < n && reserve(t, t->nbuf + n))
		return -ENOMEM;
	b = n ? (struct rb_row_bin *)(void *)(t->buf + t->nbuf * t->rowsize) : NULL;
	for (; i < n && cnt[i] <= UINT32_MAX; i++)
		if (cnt[i])
			b[row->hist_n++] =
				(struct rb_row_bin){ .bucket = idx[i], .count = (uint32_t)cnt[i] };
	t->nbuf += row->hist_n;
	/* from a count past 2^32 - 1 on: rows of at most that, to be added */
	for (; i < n; i++)
		for (uint64_t left = cnt[i]; left;) {
			struct rb_row_bin one = { .bucket = idx[i],
						  .count = left > UINT32_MAX ? UINT32_MAX
									     : (uint32_t)left };

			if (push(r, T_HIST, &one))
				return -ENOMEM;
			row->hist_n++;
			left -= one.count;
		}
	return push(r, T_SAMPLES, row);
}
int rb_results_bs(struct rb_results *r, const struct rb_row_bs *row)
{
	return push(r, T_BS, row);
}
int rb_results_health(struct rb_results *r, const struct rb_row_health *row)
{
	return push(r, T_HEALTH, row);
}

/* n rows at row `at` through HDF5's own pipeline (the dataset already that long). */
static int rows_write(struct table *t, hsize_t at, const char *buf, size_t n)
{
	hsize_t count = n;
	hid_t fs, ms;
	herr_t e;

	fs = H5Dget_space(t->dset);
	H5Sselect_hyperslab(fs, H5S_SELECT_SET, &at, NULL, &count, NULL);
	ms = H5Screate_simple(1, &count, NULL);
	e = H5Dwrite(t->dset, t->type, ms, fs, H5P_DEFAULT, buf);
	H5Sclose(ms);
	H5Sclose(fs);
	return e < 0 ? -EIO : 0;
}

/*
 * HDF5's shuffle of n rows of rs bytes: byte k of every row together, k = 0 .. rs - 1.
 * Rows of a multiple of 8 bytes go eight rows at a time, each 8 x 8 block of bytes
 * transposed in SSE2 registers (the byte-by-byte loop was a tenth of the coordinator).
 */
static void shuffle(char *o, const char *in, size_t rs, size_t n)
{
	size_t i = 0;

#ifdef __SSE2__
	for (; rs % 8 == 0 && i + 8 <= n; i += 8) {
		for (size_t c = 0; c < rs; c += 8) {
			const char *p = in + i * rs + c;
			__m128i r[8], a[4], b[4], x[4];
			char *q = o + c * n + i;

			for (int j = 0; j < 8; j++)
				r[j] = _mm_loadl_epi64((const __m128i *)(const void *)(p + j * rs));
			for (int j = 0; j < 4; j++)
				a[j] = _mm_unpacklo_epi8(r[2 * j], r[2 * j + 1]);
			b[0] = _mm_unpacklo_epi16(a[0], a[1]); /* bytes 0-3 of rows 0-3 */
			b[1] = _mm_unpackhi_epi16(a[0], a[1]); /* bytes 4-7 of rows 0-3 */
			b[2] = _mm_unpacklo_epi16(a[2], a[3]); /* ... of rows 4-7 */
			b[3] = _mm_unpackhi_epi16(a[2], a[3]);
			x[0] = _mm_unpacklo_epi32(b[0], b[2]); /* byte 0 of rows 0-7, byte 1 */
			x[1] = _mm_unpackhi_epi32(b[0], b[2]); /* bytes 2, 3 */
			x[2] = _mm_unpacklo_epi32(b[1], b[3]); /* bytes 4, 5 */
			x[3] = _mm_unpackhi_epi32(b[1], b[3]); /* bytes 6, 7 */
			for (int j = 0; j < 4; j++) {
				_mm_storel_epi64((__m128i *)(void *)(q + 2 * j * n), x[j]);
				_mm_storel_epi64((__m128i *)(void *)(q + (2 * j + 1) * n),
						 _mm_unpackhi_epi64(x[j], x[j]));
			}
		}
	}
#endif
	for (; i < n; i++)
		for (size_t k = 0; k < rs; k++)
			o[k * n + i] = in[i * rs + k];
}

/* One whole chunk of rows at row `at` (a chunk's first): shuffled, deflated, written. */
static int chunk_write(struct table *t, hsize_t at, const char *buf)
{
	struct chunker *z = t->z;
	size_t rs = t->rowsize, n = t->chunk_rows, len;

	shuffle(z->shuf, buf, rs, n);
	len = libdeflate_zlib_compress(z->c, z->shuf, n * rs, z->out, z->outcap);
	if (!len)
		return -EIO;
	return H5Dwrite_chunk(t->dset, H5P_DEFAULT, 0, &at, len, z->out) < 0 ? -EIO : 0;
}

static int table_append(struct table *t, const char *buf, size_t n)
{
	hsize_t size, at = t->written;
	size_t rs = t->rowsize;
	int r = 0;

	if (!n)
		return 0;
	size = t->written + n;
	if (H5Dset_extent(t->dset, &size) < 0)
		return -EIO;
	if (t->z && n >= t->chunk_rows) {
		/* up to a chunk's start through HDF5 (that chunk has rows already), then
		 * whole chunks here; what is left after them through HDF5 again */
		size_t head = (size_t)((t->chunk_rows - at % t->chunk_rows) % t->chunk_rows);

		if (head)
			r = rows_write(t, at, buf, head);
		at += head;
		buf += head * rs;
		n -= head;
		for (; !r && n >= t->chunk_rows; n -= t->chunk_rows) {
			r = chunk_write(t, at, buf);
			at += t->chunk_rows;
			buf += t->chunk_rows * rs;
		}
	}
	if (!r && n)
		r = rows_write(t, at, buf, n);
	if (r)
		return r;
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

	rb_results_hdf5_init(); /* the error stack is per thread where HDF5 is thread-safe */
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
		r->done++;
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
	r->sent++;
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

int rb_results_sync(struct rb_results *r)
{
	int rc = rb_results_flush(r);

	if (rc)
		return rc;
	pthread_mutex_lock(&r->mu);
	while (r->done != r->sent)
		pthread_cond_wait(&r->room, &r->mu);
	rc = r->failed ? -EIO : 0;
	pthread_mutex_unlock(&r->mu);
	return rc;
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
	if (r->z.c)
		libdeflate_free_compressor(r->z.c);
	free(r->z.shuf);
	free(r->z.out);
	free(r->path);
	free(r);
	return rc;
}

int rb_results_steady(struct rb_results *r, const struct rb_row_steady *row)
{
	return push(r, T_STEADY, row);
}

int rb_results_ioerror(struct rb_results *r, const struct rb_row_ioerror *row)
{
	return push(r, T_IOERRORS, row);
}

int rb_results_ckpt(struct rb_results *r, const struct rb_row_ckpt *row)
{
	return push(r, T_CKPT, row);
}

int rb_results_ckpt_writer(struct rb_results *r, const struct rb_row_ckpt_writer *row)
{
	return push(r, T_CKPT_WRITERS, row);
}

int rb_results_exec(struct rb_results *r, const struct rb_row_exec *row)
{
	return push(r, T_EXEC, row);
}

int rb_results_evidence(struct rb_results *r, const struct rb_row_evidence *row)
{
	return push(r, T_EVIDENCE, row);
}

int rb_results_zone(struct rb_results *r, const struct rb_row_zone *row)
{
	return push(r, T_ZONES, row);
}

int rb_results_devlat(struct rb_results *r, const struct rb_row_devlat *row)
{
	return push(r, T_DEVLAT, row);
}

int rb_results_fdp_event(struct rb_results *r, const struct rb_row_fdp_event *row)
{
	return push(r, T_FDP_EVENTS, row);
}

/* The verdicts table of an open file (empty since its creation) given its rows. */
/* Rows of table ti appended to the closed file f's; replace: instead of those it has. */
static int closed_rows_write(hid_t f, int ti, const void *rows, size_t n, bool replace)
{
	const struct table_def *def = &rb_results_tables[ti];
	struct table t = { .rowsize = def->rowsize };
	hsize_t dims;
	hid_t sp;
	int r;

	t.dset = H5Dopen2(f, def->name, H5P_DEFAULT);
	if (t.dset < 0)
		return -EIO;
	sp = H5Dget_space(t.dset);
	if (H5Sget_simple_extent_dims(sp, &dims, NULL) != 1)
		dims = 0;
	H5Sclose(sp);
	t.written = dims;
	t.type = H5Tcreate(H5T_COMPOUND, t.rowsize);
	for (size_t k = 0; k < def->nf; k++) {
		hid_t mt = rb_results_field_type(&def->f[k], false);

		H5Tinsert(t.type, def->f[k].name, def->f[k].off, mt);
		H5Tclose(mt);
	}
	/* a file judged again (rackbench verdict): its rows replace the earlier ones */
	if (dims && replace) {
		hsize_t zero = 0;

		H5Dset_extent(t.dset, &zero);
		t.written = 0;
	}
	r = table_append(&t, (const char *)rows, n);
	H5Tclose(t.type);
	if (H5Dclose(t.dset) < 0)
		r = -EIO;
	return r;
}

/* Rows of table ti written into the closed file at path (see closed_rows_write), and the
 * run's verdict attribute when verdict is not NULL. */
static int closed_add(const char *path, int ti, const void *rows, size_t n, bool replace,
		      const char *verdict)
{
	hid_t f;
	int r;

	rb_results_hdf5_init();
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (f < 0)
		return -EIO;
	r = closed_rows_write(f, ti, rows, n, replace);
	if (!r && verdict)
		r = attr_str(f, "verdict", verdict);
	if (H5Fclose(f) < 0)
		r = -EIO;
	return r;
}

int rb_results_add_verdicts(const char *path, const struct rb_row_verdict *rows, size_t n,
			    const char *verdict)
{
	return closed_add(path, T_VERDICTS, rows, n, true, verdict);
}

int rb_results_add_evidence(const char *path, const struct rb_row_evidence *rows, size_t n)
{
	return closed_add(path, T_EVIDENCE, rows, n, false, NULL);
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
