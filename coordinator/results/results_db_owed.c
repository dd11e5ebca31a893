// SPDX-License-Identifier: MIT
/*
 * A run's results file into the fleet's database when the run ends, and the exports a
 * database did not take (results_db.h): named in their results folder's list
 * (RB_RESDB_OWED, a line "NAME<TAB>DATABASE" each) and caught up later. The file is the
 * record; the list only says which files the database lacks, so that the gap is said and
 * closed, never silent. A database is written in the list as "-" (the service's own,
 * whose URL may hold a password and is never written down) or as its URL (a campaign's,
 * which holds none: the loader refuses one that does).
 */
#include "results_db.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "grow.h"

/* A line of the list: the file's name in the folder and its database's tag. */
struct owed {
	char *name, *tag;
	bool done; /* exported (or dropped): not written back */
};

/* One line said through the caller's sink. */
static void say(const struct rb_resdb_sink *k, bool warn, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(const struct rb_resdb_sink *k, bool warn, const char *fmt, ...)
{
	char msg[6000];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (k->say)
		k->say(k->arg, warn, msg);
}

static void list_free(struct owed *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].tag);
	}
	free(v);
}

/* The folder of path into dir, its name into name. */
static void split(const char *path, char *dir, size_t dlen, char *name, size_t nlen)
{
	char a[4096], b[4096];

	snprintf(a, sizeof(a), "%s", path);
	snprintf(b, sizeof(b), "%s", path);
	snprintf(dir, dlen, "%s", dirname(a));
	snprintf(name, nlen, "%s", basename(b));
}

/* The folder locked (flock) for a change of its list: its fd, or a negative errno. */
static int lock_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* The list of folder dir (locked): 0 (none: *ret_n 0) or a negative errno. */
static int list_read(const char *dir, struct owed **ret, size_t *ret_n)
{
	char path[4200], *line = NULL;
	size_t cap = 0, n = 0, vcap = 0;
	struct owed *v = NULL;
	FILE *f;
	int r = 0;

	*ret = NULL;
	*ret_n = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, RB_RESDB_OWED);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (getline(&line, &cap, f) > 0) {
		char *tab = strchr(line, '\t');

		line[strcspn(line, "\n")] = '\0';
		if (!tab || tab == line || !tab[1])
			continue; /* not a line of ours: a person's edit */
		*tab = '\0';
		if (RB_GROW(v, vcap, n, 8)) {
			r = -ENOMEM;
			break;
		}
		v[n++] = (struct owed){ .name = strdup(line), .tag = strdup(tab + 1) };
		if (!v[n - 1].name || !v[n - 1].tag) { /* counted: list_free frees both */
			r = -ENOMEM;
			break;
		}
	}
	free(line);
	fclose(f);
	if (r) {
		list_free(v, n);
		return r;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

/* The list's entries not done written back in one rename (none: the list removed). */
static int list_write(const char *dir, const struct owed *v, size_t n)
{
	char path[4200], tmp[4300];
	size_t left = 0;
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, RB_RESDB_OWED);
	for (size_t i = 0; i < n; i++)
		left += !v[i].done;
	if (!left)
		return unlink(path) && errno != ENOENT ? -errno : 0;
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	for (size_t i = 0; i < n; i++)
		if (!v[i].done)
			fprintf(f, "%s\t%s\n", v[i].name, v[i].tag);
	if (fflush(f) || fsync(fileno(f)))
		r = -errno;
	if (fclose(f) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

/* name (in dir) owed to the database of tag: 0 or a negative errno. */
static int owe(const char *dir, const char *name, const char *tag)
{
	struct owed *v, *nv;
	size_t n;
	int fd, r;

	if (strpbrk(name, "\t\n") || strchr(tag, '\n'))
		return -EINVAL;
	fd = lock_dir(dir);
	if (fd < 0)
		return fd;
	r = list_read(dir, &v, &n);
	for (size_t i = 0; !r && i < n; i++)
		if (!strcmp(v[i].name, name) && !strcmp(v[i].tag, tag))
			goto out; /* owed already */
	nv = r ? NULL : realloc(v, (n + 1) * sizeof(*v));
	if (!r && !nv)
		r = -ENOMEM;
	if (!r) {
		v = nv;
		v[n] = (struct owed){ .name = strdup(name), .tag = strdup(tag) };
		r = v[n++].name && v[n - 1].tag ? list_write(dir, v, n) : -ENOMEM;
	}
out:
	list_free(v, n);
	close(fd);
	return r;
}

/* Whether an export's error is the database's (try again later), not the file's. */
static bool database_failed(int r)
{
	return r == -EIO || r == -ECONNREFUSED || r == -EPROTO;
}

int rb_resdb_export_run(const struct rb_resdb_sink *k, const char *path)
{
	char dir[4096], name[4096], where[600], err[1200];
	struct rb_resdb_counts c;
	enum rb_resdb_added what;
	struct rb_resdb *db;
	int r;

	rb_resdb_where(k->url, where, sizeof(where));
	split(path, dir, sizeof(dir), name, sizeof(name));
	db = rb_resdb_open(k->url, err, sizeof(err), &r);
	if (db) {
		r = rb_resdb_export(db, path, 0, &what, &c, err, sizeof(err));
		rb_resdb_close(db);
	}
	if (!r && what == RB_RESDB_RUNNING) {
		say(k, true,
		    "'%s' not exported into %s: its run did not end (resume it: the resumed "
		    "run's file is exported)",
		    path, where);
		return 0;
	}
	if (!r) {
		say(k, false, "results '%s' exported into %s: %s (%zu drive(s), %zu result row(s))",
		    path, where, rb_resdb_added_word(what), c.drives, c.results);
		return 0;
	}
	if (!database_failed(r)) {
		say(k, true, "results not exported into %s: %s", where, err);
		return r;
	}
	int o = owe(dir, name, k->tag);

	if (o) {
		say(k, true,
		    "%s; the export of '%s' is owed and could not be noted in '%s/%s' (%s): "
		    "export it by hand (rackbench export FILE --db URL)",
		    err, path, dir, RB_RESDB_OWED, strerror(-o));
		return o;
	}
	say(k, true,
	    "the export of '%s' is owed (noted in '%s/%s'): %s; it is caught up when the "
	    "database answers again: at a later run's end%s",
	    path, dir, RB_RESDB_OWED, err, k->at_start ? " or the service's start" : "");
	return 1;
}

/*
 * The entries of v owed to tag caught up into url over one connection: each exported
 * (or dropped: a file gone or unreadable) is done. The number still owed.
 */
static size_t catch_up_one(const struct rb_resdb_sink *k, const char *dir, struct owed *v, size_t n,
			   const char *tag, const char *url)
{
	char where[600], err[1200], path[8200];
	size_t owed = 0;
	struct rb_resdb *db;
	int r;

	for (size_t i = 0; i < n; i++)
		owed += !v[i].done && !strcmp(v[i].tag, tag);
	rb_resdb_where(url, where, sizeof(where));
	db = rb_resdb_open(url, err, sizeof(err), &r);
	if (!db) {
		say(k, true, "%zu export(s) of '%s' still owed: %s", owed, dir, err);
		return owed;
	}
	for (size_t i = 0; i < n; i++) {
		enum rb_resdb_added what;
		struct rb_resdb_counts c;

		if (v[i].done || strcmp(v[i].tag, tag))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, v[i].name);
		r = rb_resdb_export(db, path, 0, &what, &c, err, sizeof(err));
		if (database_failed(r)) {
			say(k, true, "%zu export(s) of '%s' still owed: %s", owed, dir, err);
			break;
		}
		v[i].done = true;
		owed--;
		if (r)
			say(k, true, "dropped from the exports owed: %s", err);
		else if (what == RB_RESDB_RUNNING)
			say(k, true, "dropped from the exports owed: '%s': its run did not end",
			    path);
		else
			say(k, false,
			    "caught up: results '%s' exported into %s: %s (%zu drive(s), %zu "
			    "result row(s)); owed since its run ended",
			    path, where, rb_resdb_added_word(what), c.drives, c.results);
	}
	rb_resdb_close(db);
	return owed;
}

int rb_resdb_catch_up(const struct rb_resdb_sink *k, const char *dir)
{
	struct owed *v;
	size_t n, owed = 0;
	int fd = lock_dir(dir), r;

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	r = list_read(dir, &v, &n);
	if (r) {
		say(k, true, "cannot read the exports owed in '%s/%s': %s", dir, RB_RESDB_OWED,
		    strerror(-r));
		close(fd);
		return r;
	}
	/* each database once, in the list's order; "-" is the service's own */
	for (size_t i = 0; i < n; i++) {
		const char *url = strcmp(v[i].tag, "-") ? v[i].tag : k->service_url;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(v[j].tag, v[i].tag);
		if (v[i].done || seen)
			continue;
		if (!url) {
			/* the service's: a run in this process leaves them to it */
			size_t left = 0;

			for (size_t j = i; j < n; j++)
				left += !strcmp(v[j].tag, v[i].tag);
			say(k, true,
			    "%zu export(s) of '%s' owed to a service's own database (serve "
			    "--results-db) are left to it",
			    left, dir);
			owed += left;
			continue;
		}
		owed += catch_up_one(k, dir, v, n, v[i].tag, url);
	}
	r = list_write(dir, v, n);
	if (r)
		say(k, true, "cannot rewrite the exports owed in '%s/%s': %s", dir, RB_RESDB_OWED,
		    strerror(-r));
	list_free(v, n);
	close(fd);
	return r ? r : (int)(owed > 0);
}
