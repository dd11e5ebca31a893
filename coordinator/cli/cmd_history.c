// SPDX-License-Identifier: MIT
/*
 * `rackbench history DRIVE` and `rackbench drives [--failed]`: what a results folder
 * remembers of each drive, from its index (drive_index.h), brought up to date first; with
 * --db URL, what the fleet's database remembers (results_db.h).
 */
#include "cmds.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "drive_index.h"
#include "exitcode.h"
#include "jsonout.h"
#include "log.h"
#include "results.h"
#include "results_db.h"
#include "units.h"

#define SERVICE_RESULTS "/var/lib/rackbench/results" /* deploy/rackbench.service's */

static struct {
	const char *key, *results, *since, *db, *model, *firmware, *rack;
	bool json, csv, failed;
	char where[600]; /* the folder, or the database in words */
} H;

#define RESULTS_OPT                                                                                \
	{                                                                                          \
		RB_POPT_STRING, "results", 0, "DIR",                                               \
			"the results folder (default: the service's " SERVICE_RESULTS              \
			" as root when it exists, else .)",                                        \
			&H.results, NULL, 0                                                        \
	}
#define DB_OPT                                                                                     \
	{                                                                                          \
		RB_POPT_STRING, "db", 0, "URL",                                                    \
			"the fleet's PostgreSQL database instead of a results folder (a libpq "    \
			"URI; its password never printed)",                                        \
			&H.db, NULL, 0                                                             \
	}
#define JSON_OPT                                                                                   \
	{                                                                                          \
		RB_POPT_FLAG, "json", 0, NULL, "one JSON document", &H.json, NULL, 0               \
	}
#define END_OPT                                                                                    \
	{                                                                                          \
		RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0                                    \
	}

static const struct rb_popt history_opts[] = { RESULTS_OPT, DB_OPT, JSON_OPT, END_OPT };
static const struct rb_parg history_args[] = { { "DRIVE", &H.key, 0 }, { NULL, NULL, 0 } };

const struct rb_popt_cmd rb_coord_history_spec = {
	.name = "rackbench history",
	.summary = "every run of one drive in a results folder: verdicts, reasons, hours, bytes",
	.desc = "Every run of DRIVE (its serial, or AGENT:PATH for a drive without one) the\n"
		"results folder holds, oldest first: when, the campaign, the drive's verdict and\n"
		"its reasons, the hours it was measured and the bytes it read and wrote. The\n"
		"folder's index (" RB_INDEX_FILE ") is brought up to date from its files first;\n"
		"a missing or damaged one is built again. With --db, every run the fleet's\n"
		"database holds, wherever the drive was: its rack, host and slot too. Exit 1\n"
		"when no run has the drive; 4 when the database cannot be reached.",
	.opts = history_opts,
	.args = history_args,
};

static const struct rb_popt drives_opts[] = {
	{ RB_POPT_FLAG, "failed", 0, NULL, "only drives that failed a verdict (the RMA list)",
	  &H.failed, NULL, 0 },
	{ RB_POPT_STRING, "since", 0, "DURATION",
	  "only runs that started this long ago or later (30d)", &H.since, NULL, 0 },
	{ RB_POPT_STRING, "model", 0, "MODEL", "only drives of this model (in that run)", &H.model,
	  NULL, 0 },
	{ RB_POPT_STRING, "firmware", 0, "REV", "only drives on this firmware (in that run)",
	  &H.firmware, NULL, 0 },
	{ RB_POPT_STRING, "rack", 0, "RACK",
	  "only drives whose agent's rack label was this (with --db)", &H.rack, NULL, 0 },
	RESULTS_OPT,
	DB_OPT,
	JSON_OPT,
	{ RB_POPT_FLAG, "csv", 0, NULL, "comma-separated values with a header", &H.csv, NULL, 0 },
	END_OPT,
};

const struct rb_popt_cmd rb_coord_drives_spec = {
	.name = "rackbench drives",
	.summary = "each drive a results folder knows, its latest verdict; --failed: the RMA list",
	.desc = "Each drive the results folder's runs measured, with its latest run's verdict\n"
		"and reasons; with --failed only the drives that failed one, each with its latest\n"
		"failed run (--since 30d: in the last 30 days). With --db, the fleet's database:\n"
		"every service's and export's runs, each drive's rack, host and slot (exit 4 when\n"
		"it cannot be reached).",
	.opts = drives_opts,
};

static const char *results_dir(void)
{
	struct stat st;

	if (H.results)
		return H.results;
	if (getuid() == 0 && !stat(SERVICE_RESULTS, &st) && S_ISDIR(st.st_mode))
		return SERVICE_RESULTS;
	return ".";
}

/* The folder's index, up to date; NULL after the error was said. */
static struct rb_index *index_now(void)
{
	char err[600];
	struct rb_index *ix = rb_index_open(results_dir(), err, sizeof(err));

	if (ix && rb_index_update(ix, err, sizeof(err)) < 0) {
		rb_index_close(ix);
		ix = NULL;
	}
	if (!ix)
		rb_err("%s", err);
	return ix;
}

/*
 * The rows asked for: from the database with --db (history: key's runs; else the drives
 * by the filters), else from the folder's index. The exit code: 0, else after the error
 * was said.
 */
static int rows(bool history, int64_t since_ns, struct rb_index_row **v, size_t *n)
{
	struct rb_resdb_filter f = { since_ns, H.failed, H.model, H.firmware, H.rack };
	char err[1200];
	struct rb_resdb *db;
	struct rb_index *ix;
	int r;

	if (H.db) {
		rb_resdb_where(H.db, H.where, sizeof(H.where));
		db = rb_resdb_open(H.db, err, sizeof(err), &r);
		if (!db) {
			rb_err("%s", err);
			return r == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_PARTIAL;
		}
		r = history ? rb_resdb_history(db, H.key, v, n, err, sizeof(err))
			    : rb_resdb_drives(db, &f, v, n, err, sizeof(err));
		rb_resdb_close(db);
		if (r)
			rb_err("%s", err);
		return r ? RB_EXIT_PARTIAL : 0;
	}
	snprintf(H.where, sizeof(H.where), "'%s'", results_dir());
	ix = index_now();
	if (!ix)
		return RB_EXIT_FAILED;
	r = history ? rb_index_history(ix, H.key, v, n)
		    : rb_index_drives(ix, since_ns, H.failed, v, n);
	rb_index_close(ix);
	if (r) {
		rb_err("cannot read the index of '%s'", results_dir());
		return RB_EXIT_FAILED;
	}
	/* the folder's index keeps no rack; a model or firmware is each run's */
	for (size_t i = 0; i < *n;) {
		const struct rb_index_row *x = &(*v)[i];

		if ((H.model && strcmp(x->model, H.model)) ||
		    (H.firmware && strcmp(x->firmware, H.firmware)))
			memmove(&(*v)[i], &(*v)[i + 1], (--*n - i) * sizeof(**v));
		else
			i++;
	}
	return 0;
}

static const char *when(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm);
	return buf;
}

/* JSON "key": "text" pairs, each after a comma. */
static void json_strs(FILE *o, const char *const (*kv)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(o, ", \"%s\": ", kv[i][0]);
		rb_json_str(o, kv[i][1]);
	}
}

static void json_row(FILE *o, const struct rb_index_row *r, bool first)
{
	char t[32];
	const char *const who[][2] = {
		{ "serial", r->serial },     { "model", r->model },
		{ "firmware", r->firmware }, { "agent", r->agent },
		{ "path", r->path },	     { "host", r->host },
		{ "rack", r->rack },	     { "slot", r->slot },
		{ "campaign", r->campaign }, { "start", when(r->start_ns, t, sizeof(t)) }
	};
	const char *const what[][2] = { { "status", r->status },
					{ "verdict", r->verdict },
					{ "reason", r->reason } };

	fprintf(o, "%s\n  {\"drive\": ", first ? "" : ",");
	rb_json_str(o, r->key);
	json_strs(o, who, sizeof(who) / sizeof(who[0]));
	fprintf(o, ", \"start_ns\": %" PRId64, r->start_ns);
	json_strs(o, what, sizeof(what) / sizeof(what[0]));
	fprintf(o, ", \"hours\": %.4f, \"bytes\": %" PRIu64 ", \"file\": ", r->seconds / 3600,
		r->bytes);
	rb_json_str(o, r->file);
	fputs("}", o);
}

/* A CSV field: quoted, its quotes doubled. */
static void csv(FILE *o, const char *s, const char *sep)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', o);
		fputc(*s, o);
	}
	fprintf(o, "\"%s", sep);
}

/* One file of evidence: where its agent keeps it, and its copy beside the results file. */
static void evidence_line(const struct rb_index_row *r, const struct rb_row_evidence *e)
{
	const char *slash = strrchr(r->file, '/');

	printf("    evidence: %s, %llu bytes, sha256 %s, on %s at %s\n", e->kind,
	       (unsigned long long)e->bytes, e->sha256, r->agent, e->path);
	if (e->stored[0])
		printf("      kept beside the results: %.*s%s\n",
		       slash ? (int)(slash - r->file + 1) : 0, r->file, e->stored);
}

/* The evidence a run kept for the drive of row r (its results file's evidence table),
 * each file a line under the run's; a file that no longer reads says nothing. */
static void evidence_of(const struct rb_index_row *r)
{
	char err[256];
	struct rb_results_in *in = rb_results_open(r->file, err, sizeof(err));
	struct rb_row_drive *dr = NULL;
	struct rb_row_evidence *ev = NULL;
	size_t nd = 0, ne = 0;

	if (!in)
		return;
	if (!rb_results_read_drives(in, &dr, &nd) && !rb_results_read_evidence(in, &ev, &ne))
		for (size_t d = 0; d < nd; d++) {
			if (strcmp(dr[d].agent, r->agent) || strcmp(dr[d].id.path, r->path))
				continue;
			for (size_t i = 0; i < ne; i++)
				if (ev[i].drive == dr[d].drive)
					evidence_line(r, &ev[i]);
		}
	free(dr);
	free(ev);
	rb_results_in_close(in);
}

static void print_rows(const struct rb_index_row *v, size_t n, bool history)
{
	char t[32];

	if (H.json) {
		fputs("[", stdout);
		for (size_t i = 0; i < n; i++)
			json_row(stdout, &v[i], !i);
		fputs(n ? "\n]\n" : "]\n", stdout);
		return;
	}
	if (H.csv) {
		puts("drive,serial,model,firmware,agent,path,start,campaign,verdict,reason,hours,"
		     "bytes,file,host,rack,slot");
		for (size_t i = 0; i < n; i++) {
			const struct rb_index_row *r = &v[i];

			csv(stdout, r->key, ",");
			csv(stdout, r->serial, ",");
			csv(stdout, r->model, ",");
			csv(stdout, r->firmware, ",");
			csv(stdout, r->agent, ",");
			csv(stdout, r->path, ",");
			csv(stdout, when(r->start_ns, t, sizeof(t)), ",");
			csv(stdout, r->campaign, ",");
			csv(stdout, r->verdict, ",");
			csv(stdout, r->reason, ",");
			printf("%.4f,%" PRIu64 ",", r->seconds / 3600, r->bytes);
			csv(stdout, r->file, ",");
			csv(stdout, r->host, ",");
			csv(stdout, r->rack, ",");
			csv(stdout, r->slot, "\n");
		}
		return;
	}
	if (history && n)
		printf("drive %s: %s %s, firmware %s; %zu run(s)\n", v[0].key,
		       v[0].model[0] ? v[0].model : "(model unknown)",
		       v[0].serial[0] ? v[0].serial : "(no serial)",
		       v[0].firmware[0] ? v[0].firmware : "unknown", n);
	printf("%-*s%-20s  %-24s  %-*s%s%-10s  %8s  %10s  %s\n", history ? 0 : 30,
	       history ? "" : "drive", "start", "campaign", H.db ? 30 : 0, H.db ? "where" : "",
	       H.db ? "  " : "", "verdict", "hours", "GB", "why");
	for (size_t i = 0; i < n; i++) {
		const struct rb_index_row *r = &v[i];
		char where[200] = "";

		/* the fleet's database knows where it was: rack, host, slot */
		if (H.db)
			snprintf(where, sizeof(where), "%s%s%s%s%s", r->rack[0] ? r->rack : "-",
				 "/", r->host[0] ? r->host : r->agent, r->slot[0] ? " slot " : "",
				 r->slot);
		printf("%-*.*s%-20s  %-24.24s  %-*.*s%s%-10s  %8.2f  %10.2f  %s\n",
		       history ? 0 : 30, history ? 0 : 28, history ? "" : r->key,
		       when(r->start_ns, t, sizeof(t)), r->campaign, H.db ? 30 : 0, H.db ? 30 : 0,
		       where, H.db ? "  " : "", r->verdict[0] ? r->verdict : "-", r->seconds / 3600,
		       (double)r->bytes / 1e9, r->reason[0] ? r->reason : "(not judged)");
		if (history && !H.db)
			evidence_of(r);
	}
}

int rb_history_cmd(int argc, char **argv)
{
	struct rb_index_row *v = NULL;
	size_t n = 0;
	int r;

	memset(&H, 0, sizeof(H));
	r = rb_parseopt(&rb_coord_history_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	r = rows(true, 0, &v, &n);
	if (r)
		return r;
	if (!n && !H.json && !H.csv)
		rb_err("no run in %s measured drive '%s' (a serial, or AGENT:PATH)", H.where,
		       H.key);
	else
		print_rows(v, n, true);
	free(v);
	return n ? RB_EXIT_OK : RB_EXIT_FAILED;
}

int rb_drives_cmd(int argc, char **argv)
{
	struct rb_index_row *v = NULL;
	uint64_t since = 0;
	size_t n = 0;
	int r;

	memset(&H, 0, sizeof(H));
	r = rb_parseopt(&rb_coord_drives_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	if (H.json && H.csv) {
		rb_err("--json or --csv, not both");
		return RB_EXIT_USAGE;
	}
	if (H.since && rb_parse_duration(H.since, &since)) {
		rb_err("--since takes a duration such as 30d or 12h, not '%s'", H.since);
		return RB_EXIT_USAGE;
	}
	if (H.rack && !H.db) {
		rb_err("--rack needs --db: a results folder's index keeps no rack");
		return RB_EXIT_USAGE;
	}
	r = rows(false, since ? rb_wall_ns() - (int64_t)since : 0, &v, &n);
	if (r)
		return r;
	if (!n && !H.json && !H.csv)
		printf("%s in %s%s\n", H.failed ? "no failed drive" : "no drive", H.where,
		       H.since ? " in that time" : "");
	else
		print_rows(v, n, false);
	free(v);
	return RB_EXIT_OK;
}
