// SPDX-License-Identifier: MIT
/*
 * The index of a results folder (drive_index.h), in SQLite: a table of the results files
 * it has read (path, size, modification time, the run's campaign, times, status,
 * verdict) and one of their drives (identity, verdict and reasons, measured time,
 * bytes). Everything in it comes from the files, so it can always be built again.
 */
#include "drive_index.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "results.h"
#include "grow.h"

#define INDEX_LAYOUT 2 /* PRAGMA user_version: another one is rebuilt */
/* PRAGMA application_id ("rbix", 0x72626978): a database without it is another program's */
#define INDEX_APP_ID 1919052152
#define STR_(x) #x
#define STR(x) STR_(x)

struct rb_index {
	sqlite3 *db;
	char dir[4096], path[4200];
};

/* One transaction, so that a crash or a second process never leaves half of it. */
static const char schema[] =
	"BEGIN IMMEDIATE;"
	"CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT "
	"NULL, campaign TEXT, start_ns INTEGER, end_ns INTEGER, status TEXT, verdict TEXT);"
	"CREATE TABLE IF NOT EXISTS drives(file TEXT NOT NULL, drive INTEGER NOT NULL, key TEXT NOT NULL, "
	"serial TEXT, model TEXT, firmware TEXT, agent TEXT, path TEXT, verdict TEXT, reason "
	"TEXT, seconds REAL, bytes INTEGER, PRIMARY KEY(file, drive));"
	"CREATE INDEX IF NOT EXISTS drives_by_key ON drives(key);"
	"PRAGMA user_version = " STR(INDEX_LAYOUT) ";"
						   "PRAGMA application_id = " STR(
							   INDEX_APP_ID) ";"
									 "COMMIT;";

static int db_error(struct rb_index *ix, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "index '%s': %s: %s", ix->path, what, sqlite3_errmsg(ix->db));
	return -EIO;
}

/* A pragma's or query's one integer; -1 when it has none. */
static int int_of(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * The layout's version, 0 for an empty database, or -1 when the file is not a database
 * of ours: damaged, of another program (its application_id), or of an older layout.
 */
static int layout_of(sqlite3 *db)
{
	sqlite3_stmt *st;
	int v = int_of(db, "PRAGMA user_version");

	if (v == 0 && int_of(db, "PRAGMA application_id") == 0 &&
	    int_of(db, "SELECT count(*) FROM sqlite_master") == 0)
		return 0;
	if (int_of(db, "PRAGMA application_id") != INDEX_APP_ID)
		return -1;
	/* quick_check answers in rows: one 'ok', else what is damaged */
	if (v == INDEX_LAYOUT &&
	    sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK) {
		const unsigned char *r =
			sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;

		if (!r || strcmp((const char *)r, "ok") || sqlite3_step(st) != SQLITE_DONE)
			v = -1;
		sqlite3_finalize(st);
	} else if (v == INDEX_LAYOUT) {
		v = -1;
	}
	return v;
}

static int open_db(struct rb_index *ix)
{
	struct stat st;

	/* a link (to another program's database, say) or anything but a file is not ours */
	if (lstat(ix->path, &st) == 0 && !S_ISREG(st.st_mode))
		return -ENOTSUP;
	if (sqlite3_open_v2(ix->path, &ix->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK)
		return -EIO;
	/* the service writes as a client reads */
	sqlite3_busy_timeout(ix->db, 10000);
	return 0;
}

struct rb_index *rb_index_open(const char *dir, char *err, size_t errlen)
{
	struct rb_index *ix = calloc(1, sizeof(*ix));
	int v, r;

	if (!ix) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(ix->dir, sizeof(ix->dir), "%s", dir);
	snprintf(ix->path, sizeof(ix->path), "%s/%s", dir, RB_INDEX_FILE);
	r = open_db(ix);
	if (r && r != -ENOTSUP) {
		snprintf(err, errlen, "cannot open the index '%s': %s", ix->path,
			 ix->db ? sqlite3_errmsg(ix->db) : "out of memory");
		rb_index_close(ix);
		return NULL;
	}
	v = r ? -1 : layout_of(ix->db);
	if (v != 0 && v != INDEX_LAYOUT) {
		/* not ours (a link, another program's), damaged, or of another layout: set
		 * aside (a link itself, its target untouched), built again */
		char aside[4300];

		sqlite3_close(ix->db);
		ix->db = NULL;
		snprintf(aside, sizeof(aside), "%s.damaged", ix->path);
		rb_warn("the index '%s' is %s: set aside as '%s' and built again from the "
			"results files",
			ix->path,
			r ? "a link or not a file"
			  : "damaged, another program's or of another layout",
			aside);
		if (rename(ix->path, aside) || open_db(ix)) {
			snprintf(err, errlen, "cannot build the index '%s' again: %s", ix->path,
				 strerror(errno));
			rb_index_close(ix);
			return NULL;
		}
		v = 0;
	}
	if (v == 0 && sqlite3_exec(ix->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		db_error(ix, "cannot create its tables", err, errlen);
		rb_index_close(ix);
		return NULL;
	}
	return ix;
}

void rb_index_close(struct rb_index *ix)
{
	if (!ix)
		return;
	sqlite3_close(ix->db);
	free(ix);
}

/* ---- adding files ---- */

struct file_rows {
	struct rb_row_drive *dr;
	size_t nd;
	struct rb_row_result *rs;
	size_t nr;
	struct rb_row_verdict *vd;
	size_t nv;
	struct rb_run_header run;
};

static void rows_free(struct file_rows *f)
{
	free(f->dr);
	free(f->rs);
	free(f->vd);
}

/* The file's rows; 1: a run not finished (nothing to index yet). */
static int read_file(const char *path, struct file_rows *f, char *err, size_t errlen)
{
	struct rb_results_in *in = rb_results_open(path, err, errlen);
	int r;

	memset(f, 0, sizeof(*f));
	if (!in)
		return -EINVAL;
	if (rb_results_run_header(in, &f->run)) {
		rb_results_in_close(in);
		return 1;
	}
	r = rb_results_read_drives(in, &f->dr, &f->nd);
	if (!r)
		r = rb_results_read_results(in, &f->rs, &f->nr);
	if (!r)
		r = rb_results_read_verdicts(in, &f->vd, &f->nv);
	if (r)
		snprintf(err, errlen, "'%s': %s", path,
			 r == -ENOMEM ? "out of memory" : rb_results_in_error(in));
	rb_results_in_close(in);
	if (r)
		rows_free(f);
	return r;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

static int put_file(struct rb_index *ix, const char *path, const struct stat *sb,
		    const struct file_rows *f)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(ix->db, "INSERT OR REPLACE INTO files VALUES(?,?,?,?,?,?,?,?)", -1,
			       &st, NULL) != SQLITE_OK)
		return -EIO;
	bind_text(st, 1, path);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)sb->st_size);
	sqlite3_bind_int64(st, 3,
			   (sqlite3_int64)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec);
	bind_text(st, 4, f->run.campaign);
	sqlite3_bind_int64(st, 5, f->run.start_ns);
	sqlite3_bind_int64(st, 6, f->run.end_ns);
	bind_text(st, 7, f->run.status);
	bind_text(st, 8, f->run.verdict);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

/* One drive of the file: its identity, its verdict row, what it ran. */
static int put_drive(sqlite3_stmt *st, const char *path, const struct file_rows *f,
		     const struct rb_row_drive *d)
{
	char key[200];
	const char *verdict = "", *reason = "";
	double seconds = 0;
	uint64_t bytes = 0;

	rb_row_drive_key(d, key, sizeof(key));
	for (size_t i = 0; i < f->nv; i++)
		if (f->vd[i].drive == d->drive && !strcmp(f->vd[i].rule, "drive")) {
			verdict = f->vd[i].verdict;
			reason = f->vd[i].reason;
		}
	for (size_t i = 0; i < f->nr; i++)
		if (f->rs[i].drive == d->drive) {
			seconds += (double)f->rs[i].core.elapsed_ns / 1e9;
			bytes += f->rs[i].read.bytes + f->rs[i].write.bytes;
		}
	sqlite3_reset(st);
	bind_text(st, 1, path);
	sqlite3_bind_int64(st, 2, d->drive);
	bind_text(st, 3, key);
	bind_text(st, 4, d->id.serial);
	bind_text(st, 5, d->id.model);
	bind_text(st, 6, d->id.firmware);
	bind_text(st, 7, d->agent);
	bind_text(st, 8, d->id.path);
	bind_text(st, 9, verdict);
	bind_text(st, 10, reason);
	sqlite3_bind_double(st, 11, seconds);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)bytes);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
}

/* The file's rows in the index, in one transaction. */
static int put(struct rb_index *ix, const char *path, const struct stat *sb,
	       const struct file_rows *f, char *err, size_t errlen)
{
	sqlite3_stmt *del = NULL, *ins = NULL;
	int rc = -EIO;

	if (sqlite3_exec(ix->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_error(ix, "cannot write", err, errlen);
	if (sqlite3_prepare_v2(ix->db, "DELETE FROM drives WHERE file = ?", -1, &del, NULL) ||
	    sqlite3_prepare_v2(ix->db, "INSERT INTO drives VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1,
			       &ins, NULL))
		goto out;
	bind_text(del, 1, path);
	if (sqlite3_step(del) != SQLITE_DONE || put_file(ix, path, sb, f))
		goto out;
	for (size_t i = 0; i < f->nd; i++)
		if (put_drive(ins, path, f, &f->dr[i]))
			goto out;
	rc = sqlite3_exec(ix->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
out:
	if (rc) {
		db_error(ix, "cannot write", err, errlen);
		sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
	}
	sqlite3_finalize(del);
	sqlite3_finalize(ins);
	return rc;
}

/* Whether the index holds path as it is now (same size and modification time). */
static bool known(struct rb_index *ix, const char *path, const struct stat *sb)
{
	sqlite3_stmt *st;
	bool same = false;

	if (sqlite3_prepare_v2(ix->db, "SELECT size, mtime_ns FROM files WHERE path = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return false;
	bind_text(st, 1, path);
	if (sqlite3_step(st) == SQLITE_ROW)
		same = sqlite3_column_int64(st, 0) == (sqlite3_int64)sb->st_size &&
		       sqlite3_column_int64(st, 1) ==
			       (sqlite3_int64)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
	sqlite3_finalize(st);
	return same;
}

/*
 * 1: added, 0: nothing to add (known, or a run going on), negative: an error (-ENOENT:
 * not a file to read). A file is known by its name in the folder, however its path was
 * spelled (the service's, a client's --results).
 */
static int add_one(struct rb_index *ix, const char *path, bool warn, char *err, size_t errlen)
{
	struct file_rows f;
	struct stat sb;
	char why[600];
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int r;

	if (stat(path, &sb)) {
		snprintf(err, errlen, "'%s': %s", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "'%s': not a regular file", path);
		return -ENOENT;
	}
	if (known(ix, name, &sb))
		return 0;
	r = read_file(path, &f, why, sizeof(why));
	if (r == 1)
		return 0;
	if (r) {
		if (warn) {
			/* noted as it is (no drives), so that it is said once, not at each query */
			struct file_rows none = { .run.status = "unreadable" };

			rb_warn("not indexed: %s", why);
			put(ix, name, &sb, &none, err, errlen);
			return 0;
		}
		snprintf(err, errlen, "%s", why);
		return r;
	}
	r = put(ix, name, &sb, &f, err, errlen);
	rows_free(&f);
	return r ? r : 1;
}

int rb_index_add(struct rb_index *ix, const char *path, char *err, size_t errlen)
{
	int r = add_one(ix, path, false, err, errlen);

	return r < 0 ? r : 0;
}

/* The rows of files no longer in the folder: the index is a cache of its files. */
static int drop_gone(struct rb_index *ix, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	char gone[64][256];
	size_t n = 0;
	int r = 0;

	if (sqlite3_prepare_v2(ix->db, "SELECT path FROM files", -1, &st, NULL) != SQLITE_OK)
		return db_error(ix, "cannot read", err, errlen);
	while (n < 64 && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char path[4400];
		struct stat sb;

		snprintf(path, sizeof(path), "%s/%s", ix->dir, name ? name : "");
		if (name && stat(path, &sb) && errno == ENOENT)
			snprintf(gone[n++], sizeof(gone[0]), "%s", name);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n && !r; i++) {
		if (sqlite3_prepare_v2(ix->db, "DELETE FROM drives WHERE file = ?1", -1, &st, NULL))
			return db_error(ix, "cannot write", err, errlen);
		bind_text(st, 1, gone[i]);
		r = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
		sqlite3_finalize(st);
		if (!r && sqlite3_prepare_v2(ix->db, "DELETE FROM files WHERE path = ?1", -1, &st,
					     NULL) == SQLITE_OK) {
			bind_text(st, 1, gone[i]);
			r = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
			sqlite3_finalize(st);
		}
	}
	return r ? db_error(ix, "cannot write", err, errlen) : 0;
}

static bool is_results(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcmp(name + n - 3, ".h5") && name[0] != '.';
}

int rb_index_update(struct rb_index *ix, char *err, size_t errlen)
{
	DIR *d = opendir(ix->dir);
	struct dirent *e;
	int added = 0, r = 0;

	if (!d) {
		snprintf(err, errlen, "cannot read the results folder '%s': %s", ix->dir,
			 strerror(errno));
		return -errno;
	}
	while (r >= 0 && (e = readdir(d))) {
		char path[4400];

		if (!is_results(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", ix->dir, e->d_name);
		r = add_one(ix, path, true, err, errlen);
		if (r == -ENOENT) {
			/* a dangling link, a folder named .h5, a file gone meanwhile */
			rb_warn("not indexed: %s", err);
			r = 0;
		}
		added += r > 0;
	}
	closedir(d);
	return r < 0 ? r : drop_gone(ix, err, errlen) ? -EIO : added;
}

/* ---- queries ---- */

#define ROW_COLUMNS                                                                                \
	"d.key, d.serial, d.model, d.firmware, d.agent, d.path, f.path, f.campaign, f.start_ns, "  \
	"f.end_ns, f.status, d.verdict, d.reason, d.seconds, d.bytes"

static void column(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	snprintf(buf, len, "%s", s ? (const char *)s : "");
}

static int collect(const struct rb_index *ix, sqlite3_stmt *st, struct rb_index_row **ret,
		   size_t *ret_n)
{
	struct rb_index_row *v = NULL;
	size_t n = 0, cap = 0;
	int s;

	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rb_index_row *r;

		if (RB_GROW(v, cap, n, 16)) {
			free(v);
			return -ENOMEM;
		}
		r = &v[n++];
		memset(r, 0, sizeof(*r));
		column(st, 0, r->key, sizeof(r->key));
		column(st, 1, r->serial, sizeof(r->serial));
		column(st, 2, r->model, sizeof(r->model));
		column(st, 3, r->firmware, sizeof(r->firmware));
		column(st, 4, r->agent, sizeof(r->agent));
		column(st, 5, r->path, sizeof(r->path));
		{
			char name[256];

			column(st, 6, name, sizeof(name));
			snprintf(r->file, sizeof(r->file), "%s/%s", ix->dir, name);
		}
		column(st, 7, r->campaign, sizeof(r->campaign));
		r->start_ns = sqlite3_column_int64(st, 8);
		r->end_ns = sqlite3_column_int64(st, 9);
		column(st, 10, r->status, sizeof(r->status));
		column(st, 11, r->verdict, sizeof(r->verdict));
		column(st, 12, r->reason, sizeof(r->reason));
		r->seconds = sqlite3_column_double(st, 13);
		r->bytes = (uint64_t)sqlite3_column_int64(st, 14);
	}
	if (s != SQLITE_DONE) {
		free(v);
		return -EIO;
	}
	*ret = v ? v : calloc(1, sizeof(*v));
	*ret_n = n;
	return *ret ? 0 : -ENOMEM;
}

int rb_index_history(struct rb_index *ix, const char *key, struct rb_index_row **ret, size_t *ret_n)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(ix->db,
			       "SELECT " ROW_COLUMNS
			       " FROM drives d JOIN files f ON d.file = f.path "
			       "WHERE d.key = ?1 OR d.serial = ?1 OR d.agent || ':' || d.path = ?1 "
			       "ORDER BY f.start_ns, f.path",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	bind_text(st, 1, key);
	r = collect(ix, st, ret, ret_n);
	sqlite3_finalize(st);
	return r;
}

int rb_index_drives(struct rb_index *ix, int64_t since_ns, int failed, struct rb_index_row **ret,
		    size_t *ret_n)
{
	sqlite3_stmt *st;
	int r;

	/* each drive's latest run in the window (failed: its latest failed one); of two
	 * runs that started at one instant, the file named last */
	if (sqlite3_prepare_v2(
		    ix->db,
		    "SELECT * FROM (SELECT " ROW_COLUMNS ", row_number() OVER (PARTITION BY "
		    "d.key ORDER BY f.start_ns DESC, f.path DESC) AS latest FROM drives d "
		    "JOIN files f ON d.file = f.path WHERE f.start_ns >= ?1 AND (?2 = 0 OR "
		    "d.verdict = 'FAIL')) WHERE latest = 1 ORDER BY 1",
		    -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, since_ns);
	sqlite3_bind_int(st, 2, failed);
	r = collect(ix, st, ret, ret_n);
	sqlite3_finalize(st);
	return r;
}
