// SPDX-License-Identifier: MIT
/*
 * `rackbench export RESULTS.h5... --db URL`: results files made anywhere (a service, a
 * run in a terminal, a Slurm task) into the fleet's database (results_db.h), each in one
 * transaction; what was added, updated and already there said.
 */
#include "cmds.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "results_db.h"

static struct {
	const char *db;
	int running;
	struct rb_popt_list files;
} X;

static const struct rb_popt export_opts[] = {
	{ RB_POPT_STRING, "db", 0, "URL",
	  "the PostgreSQL database: a libpq URI (postgresql://USER@HOST/DB) or key=value "
	  "string; its password is never printed. -: the first line of standard input (a "
	  "password kept out of the process list)",
	  &X.db, NULL, 0 },
	{ RB_POPT_FLAG, "running", 0, NULL,
	  "a run still going on is exported as far as it went: its ended points, as the run "
	  "so far (status running), which its end's export replaces",
	  &X.running, NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg export_args[] = {
	{ "RESULTS.h5", &X.files, RB_PARG_MANY },
	{ NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_export_spec = {
	.name = "rackbench export",
	.summary = "results files into the fleet's PostgreSQL database (--db URL)",
	.desc = "Writes each results file's run into the database: its drives and where each\n"
		"was (agent, host, rack label, slot, path), one row per drive and point with its\n"
		"figures and merged latency histogram, every verdict and its reasons, the health\n"
		"at each point's end, the file's path and SHA-256 -- one transaction per file.\n"
		"The schema is created and migrated first (schemas/results-db.md). A file whose\n"
		"bytes are there already adds nothing; a run exported before from other bytes\n"
		"(verdicts added since) is replaced. A run still going on is skipped, or with\n"
		"--running exported as far as it went (a service with a database does this at\n"
		"each point's end); the fleet's verdicts judge only runs that ended. Exit 2: a\n"
		"file that does not read; exit 4: a database that cannot be reached or refused a\n"
		"file, or a run still going on without --running -- run it again later: what is\n"
		"there is skipped.",
	.opts = export_opts,
	.args = export_args,
};

/* The files into db; the exit code. */
static int export_files(struct rb_resdb *db, const char *where)
{
	size_t n[6] = { 0 }, bad = 0, i;
	int rc = RB_EXIT_OK;

	for (i = 0; i < X.files.n; i++) {
		struct rb_resdb_counts c;
		enum rb_resdb_added what;
		char err[1200];
		int r = rb_resdb_export(db, X.files.v[i], X.running ? RB_RESDB_RUNNING_TOO : 0,
					&what, &c, err, sizeof(err));

		if (r == -EIO) {
			rb_err("%s", err);
			rc = RB_EXIT_PARTIAL;
			break;
		}
		if (r) {
			rb_err("not exported: %s", err);
			bad++;
			rc = rb_exit_worse(rc, RB_EXIT_USAGE);
			continue;
		}
		n[what]++;
		if (what == RB_RESDB_RUNNING) {
			printf("not exported '%s': its run is still going on\n", X.files.v[i]);
			rc = rb_exit_worse(rc, RB_EXIT_PARTIAL);
		} else if (what == RB_RESDB_SO_FAR) {
			printf("so far '%s': %zu drive(s), %zu ended point(s), %zu result row(s); "
			       "its run goes on\n",
			       X.files.v[i], c.drives, c.points, c.results);
		} else if (what == RB_RESDB_ENDED) {
			printf("not exported '%s': its run ended, and the database holds its end "
			       "already\n",
			       X.files.v[i]);
		} else if (what == RB_RESDB_KNOWN) {
			printf("already there '%s' (the same bytes)\n", X.files.v[i]);
		} else {
			printf("%s '%s': %zu drive(s), %zu point(s), %zu result row(s), %zu "
			       "verdict row(s), %zu health snapshot(s)%s\n",
			       rb_resdb_added_word(what), X.files.v[i], c.drives, c.points,
			       c.results, c.verdicts, c.health,
			       what == RB_RESDB_UPDATED ? "; the run's earlier export replaced"
							: "");
		}
	}
	printf("%s: %zu added, %zu updated, %zu already there", where, n[RB_RESDB_ADDED],
	       n[RB_RESDB_UPDATED], n[RB_RESDB_KNOWN]);
	if (n[RB_RESDB_SO_FAR])
		printf(", %zu so far", n[RB_RESDB_SO_FAR]);
	if (n[RB_RESDB_ENDED])
		printf(", %zu ended already", n[RB_RESDB_ENDED]);
	if (n[RB_RESDB_RUNNING] || bad)
		printf(", %zu not exported", n[RB_RESDB_RUNNING] + bad);
	if (i < X.files.n)
		printf(", %zu not tried (the database failed)", X.files.n - i);
	putchar('\n');
	return rc;
}

/* --db -: the URL from standard input's first line, its newline cut. */
static const char *url_from_stdin(char *buf, size_t len)
{
	if (!fgets(buf, (int)len, stdin))
		return NULL;
	buf[strcspn(buf, "\r\n")] = '\0';
	return buf[0] ? buf : NULL;
}

int rb_export_cmd(int argc, char **argv)
{
	char err[1200], where[600], line[4096];
	struct rb_resdb *db;
	int r;

	memset(&X, 0, sizeof(X));
	r = rb_parseopt(&rb_coord_export_spec, argc, argv, NULL);
	if (!r && X.db && !strcmp(X.db, "-") && !(X.db = url_from_stdin(line, sizeof(line)))) {
		rb_err("--db -: no URL on standard input's first line");
		r = RB_EXIT_USAGE;
	} else if (r) {
		r = rb_parseopt_exit(r);
	} else if (!X.db) {
		rb_err("export needs --db URL: the database to write into");
		r = RB_EXIT_USAGE;
	} else if (!(db = rb_resdb_open(X.db, err, sizeof(err), &r))) {
		rb_err("%s", err);
		r = r == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_PARTIAL;
	} else {
		rb_resdb_where(X.db, where, sizeof(where));
		r = export_files(db, where);
		rb_resdb_close(db);
	}
	rb_popt_list_release(&X.files);
	return r;
}
