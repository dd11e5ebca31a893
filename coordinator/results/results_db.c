// SPDX-License-Identifier: MIT
/*
 * The fleet's results database (results_db.h): the connection, the schema and its
 * migrations, the fleet's queries. With results_db_export.c, the one translator of
 * libpq: its results and errors become rows and negative errnos here.
 */
#include "results_db.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_db_priv.h"

/* The advisory lock every migrator takes ("rbdb"): one migrates, the others wait. */
#define MIGRATE_LOCK "1919050850"
/* Seconds a connection may take when the URL and PGCONNECT_TIMEOUT do not say. */
#define CONNECT_TIMEOUT "10"

/*
 * Each version's statements, in order: migration k brings version k - 1 to k. A new
 * version adds a migration (never edits one: databases out there ran it) and bumps
 * RB_RESDB_SCHEMA; schemas/results-db.md describes the newest.
 */
static const char *const migrations[RB_RESDB_SCHEMA] = {
	/* 1: runs, drives, placements, points, results with histograms, verdicts, health,
	 * files, and the views of the common questions */
	"CREATE TABLE rackbench.runs (run_id bigserial PRIMARY KEY, campaign text NOT NULL, "
	"methodology text NOT NULL, start_ns bigint NOT NULL, end_ns bigint NOT NULL, "
	"started timestamptz NOT NULL, ended timestamptz, status text NOT NULL, verdict text, "
	"rackbench_version text NOT NULL, file_schema integer NOT NULL, "
	"exported timestamptz NOT NULL DEFAULT now(), UNIQUE (campaign, start_ns, methodology));"
	"CREATE TABLE rackbench.drives (drive_key text PRIMARY KEY, serial text, model text, "
	"firmware text, capacity_bytes bigint, kind text, first_seen timestamptz NOT NULL, "
	"last_seen timestamptz NOT NULL);"
	"CREATE TABLE rackbench.placements (run_id bigint NOT NULL REFERENCES rackbench.runs "
	"ON DELETE CASCADE, drive integer NOT NULL, drive_key text NOT NULL REFERENCES "
	"rackbench.drives, agent text NOT NULL, host text NOT NULL, rack text, slot text, "
	"path text NOT NULL, alias text, labels text, model text, firmware text, "
	"capacity_bytes bigint, members integer NOT NULL, measured_s double precision NOT NULL, "
	"bytes bigint NOT NULL, PRIMARY KEY (run_id, drive));"
	"CREATE INDEX placements_by_drive ON rackbench.placements (drive_key);"
	"CREATE TABLE rackbench.points (run_id bigint NOT NULL REFERENCES rackbench.runs "
	"ON DELETE CASCADE, point integer NOT NULL, phase text NOT NULL, name text NOT NULL, "
	"rw text NOT NULL, bs_bytes bigint, iodepth integer, numjobs integer, "
	"rwmixread_pct integer, runtime_ns bigint, rate_iops bigint, settings text, "
	"PRIMARY KEY (run_id, point));"
	"CREATE TABLE rackbench.results (run_id bigint NOT NULL, drive integer NOT NULL, "
	"point integer NOT NULL, attempt integer NOT NULL, status text NOT NULL, "
	"start_ns bigint, elapsed_ns bigint, "
	"read_ios bigint, read_errors bigint, read_iops double precision, "
	"read_bw_bytes_per_s double precision, read_mean_ns double precision, "
	"read_p50_ns bigint, read_p99_ns bigint, read_p99_9_ns bigint, "
	"write_ios bigint, write_errors bigint, write_iops double precision, "
	"write_bw_bytes_per_s double precision, write_mean_ns double precision, "
	"write_p50_ns bigint, write_p99_ns bigint, write_p99_9_ns bigint, "
	"read_hist_buckets integer[] NOT NULL, read_hist_counts bigint[] NOT NULL, "
	"write_hist_buckets integer[] NOT NULL, write_hist_counts bigint[] NOT NULL, "
	"PRIMARY KEY (run_id, drive, point), FOREIGN KEY (run_id, drive) REFERENCES "
	"rackbench.placements ON DELETE CASCADE, FOREIGN KEY (run_id, point) REFERENCES "
	"rackbench.points ON DELETE CASCADE);"
	"CREATE TABLE rackbench.verdicts (run_id bigint NOT NULL, drive integer NOT NULL, "
	"seq integer NOT NULL, rule text NOT NULL, verdict text NOT NULL, "
	"measured double precision, limit_value double precision, point bigint, "
	"sample_interval bigint, t_ns bigint, reason text NOT NULL, "
	"PRIMARY KEY (run_id, drive, seq), FOREIGN KEY (run_id, drive) REFERENCES "
	"rackbench.placements ON DELETE CASCADE);"
	"CREATE TABLE rackbench.health (run_id bigint NOT NULL, drive integer NOT NULL, "
	"point integer NOT NULL, attempt integer NOT NULL, t_ns bigint NOT NULL, "
	"critical_warning integer, temperature_c double precision, "
	"available_spare_pct double precision, percentage_used double precision, "
	"media_errors double precision, error_log_entries double precision, "
	"data_units_written double precision, power_on_hours double precision, "
	"unsafe_shutdowns double precision, pcie_speed double precision, "
	"pcie_width double precision, aer_correctable double precision, "
	"aer_nonfatal double precision, aer_fatal double precision, slot text, "
	"FOREIGN KEY (run_id, drive) REFERENCES rackbench.placements ON DELETE CASCADE);"
	"CREATE INDEX health_by_drive ON rackbench.health (run_id, drive);"
	"CREATE TABLE rackbench.files (sha256 text PRIMARY KEY, run_id bigint NOT NULL "
	"REFERENCES rackbench.runs ON DELETE CASCADE, kind text NOT NULL, path text NOT NULL, "
	"host text NOT NULL, size_bytes bigint NOT NULL, "
	"exported timestamptz NOT NULL DEFAULT now());"
	"CREATE VIEW rackbench.drive_runs AS SELECT p.drive_key, d.serial, p.model, p.firmware, "
	"r.campaign, r.start_ns, r.end_ns, r.started, r.ended, r.status AS run_status, p.agent, "
	"p.host, p.rack, p.slot, p.path, v.verdict, v.reason, p.measured_s, p.bytes, r.run_id, "
	"p.drive, (SELECT f.path FROM rackbench.files f WHERE f.run_id = r.run_id AND "
	"f.kind = 'results' ORDER BY f.exported DESC LIMIT 1) AS file "
	"FROM rackbench.placements p JOIN rackbench.runs r USING (run_id) "
	"JOIN rackbench.drives d USING (drive_key) LEFT JOIN rackbench.verdicts v ON "
	"v.run_id = p.run_id AND v.drive = p.drive AND v.rule = 'drive';"
	"CREATE VIEW rackbench.failed_drives AS SELECT * FROM rackbench.drive_runs "
	"WHERE verdict = 'FAIL';"
	"CREATE VIEW rackbench.failures_by_model AS SELECT model, firmware, rack, "
	"count(DISTINCT drive_key) AS drives, count(*) AS failed_runs, "
	"min(started) AS first_failed, max(started) AS last_failed "
	"FROM rackbench.failed_drives GROUP BY model, firmware, rack;"
	"CREATE VIEW rackbench.point_figures AS SELECT r.campaign, r.started, p.drive_key, "
	"p.model, p.firmware, p.rack, p.host, pt.phase, pt.name AS point_name, pt.rw, "
	"pt.bs_bytes, pt.iodepth, x.* FROM rackbench.results x "
	"JOIN rackbench.placements p USING (run_id, drive) "
	"JOIN rackbench.points pt USING (run_id, point) JOIN rackbench.runs r USING (run_id);",
	/* 2: trim's IOPS, so that a row's IOPS is the report's, the sum of its directions */
	"ALTER TABLE rackbench.results ADD COLUMN trim_iops double precision;",
	/* 3: the fleet's own verdicts (rackbench judge), each of a drive's run or a domain */
	"CREATE TABLE rackbench.fleet_verdicts (campaign text NOT NULL, drive text NOT NULL, "
	"run_start_ns bigint NOT NULL, rule text NOT NULL, verdict text NOT NULL, model text, "
	"firmware text, rack text, host text, measured double precision, "
	"expected double precision, points integer, reason text NOT NULL, "
	"judged timestamptz NOT NULL DEFAULT now(), "
	"PRIMARY KEY (campaign, drive, rule, run_start_ns));",
	/* 4: a bucket's value, and each run's percentiles per point and model from the summed
	 * histograms (the dashboard's p99 per model over time): exact, as the report's */
	"CREATE FUNCTION rackbench.bucket_ns(b integer) RETURNS bigint LANGUAGE sql IMMUTABLE "
	"AS $$ SELECT CASE WHEN b < 128 THEN b::bigint ELSE ((128 + (b - 128) % 128)::bigint "
	"<< ((b - 128) / 128)) + ((1::bigint << ((b - 128) / 128)) - 1) / 2 END $$;"
	"CREATE FUNCTION rackbench.rank_bucket(p float8, total numeric, cum numeric, b integer) "
	"RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN cum >= greatest(least("
	"ceil(p / 100.0 * total::float8), total::float8), 1) THEN b END $$;"
	"CREATE VIEW rackbench.model_latency AS WITH h AS (SELECT x.run_id, pt.name AS "
	"point_name, coalesce(p.model, '') AS model, d.direction, u.b, sum(u.c) AS c "
	"FROM rackbench.results x JOIN rackbench.placements p USING (run_id, drive) JOIN rackbench.points pt USING (run_id, point) CROSS JOIN LATERAL "
	"(VALUES ('read', x.read_hist_buckets, x.read_hist_counts), ('write', "
	"x.write_hist_buckets, x.write_hist_counts)) AS d(direction, bk, ct) CROSS JOIN LATERAL "
	"unnest(d.bk, d.ct) AS u(b, c) WHERE p.members = 0 GROUP BY 1, 2, 3, 4, 5), "
	"c AS (SELECT *, sum(c) OVER (PARTITION BY run_id, point_name, model, direction ORDER "
	"BY b) AS cum, sum(c) OVER (PARTITION BY run_id, point_name, model, direction) AS total "
	"FROM h), q AS (SELECT run_id, point_name, model, direction, max(total)::bigint AS ios, "
	"min(rackbench.rank_bucket(50, total, cum, b)) AS b50, "
	"min(rackbench.rank_bucket(99, total, cum, b)) AS b99, "
	"min(rackbench.rank_bucket(99.9, total, cum, b)) AS b999 FROM c GROUP BY 1, 2, 3, 4) "
	"SELECT r.campaign, r.started, r.start_ns, q.run_id, q.point_name, q.model, "
	"q.direction, q.ios, rackbench.bucket_ns(q.b50) AS p50_ns, rackbench.bucket_ns(q.b99) "
	"AS p99_ns, rackbench.bucket_ns(q.b999) AS p99_9_ns FROM q JOIN rackbench.runs r "
	"USING (run_id);",
	/* 5: the files of evidence kept for a failing drive's vendor, on its agent's host and
	 * beside the results file */
	"CREATE TABLE rackbench.evidence (run_id bigint NOT NULL, drive integer NOT NULL, "
	"point integer NOT NULL, attempt integer NOT NULL, kind text NOT NULL, "
	"agent_path text NOT NULL, size_bytes bigint NOT NULL, sha256 text NOT NULL, "
	"stored text, FOREIGN KEY (run_id, drive) REFERENCES rackbench.placements "
	"ON DELETE CASCADE);"
	"CREATE INDEX evidence_by_drive ON rackbench.evidence (run_id, drive);",
};

void rb_resdb_mask_url(const char *url, char *buf, size_t len)
{
	static const char *const schemes[] = { "postgresql://", "postgres://" };
	size_t n = strlen(url), o = 0, i = 0, skip_to = 0;
	bool uri = false;

	for (size_t k = 0; k < 2; k++)
		uri |= !strncmp(url, schemes[k], strlen(schemes[k]));
	if (uri) {
		/* postgresql://user:PASSWORD@host...: the user part ends at the authority's
		 * last '@' */
		size_t start = strstr(url, "://") + 3 - url, end = start;
		const char *at = NULL;

		while (end < n && url[end] != '/' && url[end] != '?')
			end++;
		for (size_t k = start; k < end; k++)
			if (url[k] == '@')
				at = url + k;
		if (at) {
			const char *colon = memchr(url + start, ':', (size_t)(at - url) - start);

			if (colon) {
				i = (size_t)(colon - url) + 1;
				skip_to = (size_t)(at - url);
			}
		}
	}
	for (size_t k = 0; k < n && o + 1 < len; k++) {
		if (i && k == i) {
			o += (size_t)snprintf(buf + o, len - o, "***");
			k = skip_to - 1;
			continue;
		}
		/* password=VALUE: a URI's parameter, or a key=value string's (quoted or not) */
		if (!strncmp(url + k, "password", 8) && (k == 0 || strchr("?& \t", url[k - 1]))) {
			size_t e = k + 8;

			while (e < n && (url[e] == ' ' || url[e] == '\t'))
				e++;
			if (e < n && url[e] == '=') {
				e++;
				while (e < n && (url[e] == ' ' || url[e] == '\t'))
					e++;
				if (e < n && url[e] == '\'') {
					for (e++; e < n && url[e] != '\''; e++)
						e += url[e] == '\\' && e + 1 < n;
					e += e < n;
				} else {
					while (e < n && !strchr(uri ? "&" : " \t", url[e]))
						e++;
				}
				o += (size_t)snprintf(buf + o, len - o, "password=***");
				k = e - 1;
				continue;
			}
		}
		buf[o++] = url[k];
	}
	if (len)
		buf[o < len ? o : len - 1] = 0;
}

void rb_resdb_where(const char *url, char *buf, size_t len)
{
	PQconninfoOption *opts = PQconninfoParse(url, NULL);
	const char *host = NULL, *port = NULL, *dbname = NULL, *user = NULL;
	char masked[1024];

	if (!opts) {
		rb_resdb_mask_url(url, masked, sizeof(masked));
		snprintf(buf, len, "'%s'", masked);
		return;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val || !*o->val)
			continue;
		if (!strcmp(o->keyword, "host") || (!strcmp(o->keyword, "hostaddr") && !host))
			host = o->val;
		else if (!strcmp(o->keyword, "port"))
			port = o->val;
		else if (!strcmp(o->keyword, "dbname"))
			dbname = o->val;
		else if (!strcmp(o->keyword, "user"))
			user = o->val;
	}
	snprintf(buf, len, "database '%s' on %s%s%s%s%s%s%s%s", dbname ? dbname : "(the default)",
		 host ? "host '" : "the default host", host ? host : "", host ? "'" : "",
		 port ? " port " : "", port ? port : "", user ? ", user '" : "", user ? user : "",
		 user ? "'" : "");
	PQconninfoFree(opts);
}

void rdb_scrub(const struct rb_resdb *db, const char *msg, char *buf, size_t len)
{
	size_t pl = strlen(db->password), o = 0;

	for (const char *s = msg; *s && o + 1 < len;) {
		/* libpq's lines (a hint after a newline and a tab) as one */
		if (*s == '\n' && s[1]) {
			o += (size_t)snprintf(buf + o, len - o, "; ");
			for (s++; *s == '\t' || *s == ' ';)
				s++;
			continue;
		}
		if (pl && !strncmp(s, db->password, pl)) {
			o += (size_t)snprintf(buf + o, len - o, "***");
			s += pl;
			continue;
		}
		buf[o++] = *s++;
	}
	if (len)
		buf[o < len ? o : len - 1] = 0;
	/* libpq's messages end in a newline */
	while (o && o < len && (buf[o - 1] == '\n' || buf[o - 1] == ' '))
		buf[--o] = 0;
}

PGresult *rdb_exec(struct rb_resdb *db, const char *sql, int n, const char *const *params,
		   const char *what, char *err, size_t errlen)
{
	/* without parameters, several statements may go in one string */
	PGresult *res = n ? PQexecParams(db->conn, sql, n, NULL, params, NULL, NULL, 0)
			  : PQexec(db->conn, sql);
	ExecStatusType st = PQresultStatus(res);
	char msg[1024];

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return res;
	rdb_scrub(db, res ? PQresultErrorMessage(res) : PQerrorMessage(db->conn), msg, sizeof(msg));
	snprintf(err, errlen, "%s: cannot %s: %s", db->where, what, msg);
	PQclear(res);
	return NULL;
}

int rdb_do(struct rb_resdb *db, const char *sql, int n, const char *const *params, const char *what,
	   char *err, size_t errlen)
{
	PGresult *res = rdb_exec(db, sql, n, params, what, err, errlen);

	PQclear(res);
	return res ? 0 : -EIO;
}

void rdb_rollback(struct rb_resdb *db)
{
	PQclear(PQexec(db->conn, "ROLLBACK"));
}

/* The schema brought to RB_RESDB_SCHEMA in one transaction: 0 or a negative errno. */
static int migrate(struct rb_resdb *db, char *err, size_t errlen)
{
	PGresult *res;
	int version, r;

	if (rdb_do(db, "SET client_min_messages = warning", 0, NULL, "set up", err, errlen) ||
	    rdb_do(db, "BEGIN", 0, NULL, "begin", err, errlen))
		return -EIO;
	r = rdb_do(db,
		   "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ");"
		   "CREATE SCHEMA IF NOT EXISTS rackbench;"
		   "CREATE TABLE IF NOT EXISTS rackbench.schema_version (version integer "
		   "PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())",
		   0, NULL, "create its schema", err, errlen);
	res = r ? NULL
		: rdb_exec(db, "SELECT coalesce(max(version), 0) FROM rackbench.schema_version", 0,
			   NULL, "read its schema version", err, errlen);
	if (!res) {
		rdb_rollback(db);
		return -EIO;
	}
	version = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (version > RB_RESDB_SCHEMA) {
		snprintf(err, errlen,
			 "%s holds rackbench's schema version %d, newer than this program's %d: "
			 "use a newer rackbench",
			 db->where, version, RB_RESDB_SCHEMA);
		rdb_rollback(db);
		return -EPROTO;
	}
	for (int v = version; v < RB_RESDB_SCHEMA && !r; v++) {
		char n[16];
		const char *p[] = { n };

		snprintf(n, sizeof(n), "%d", v + 1);
		r = rdb_do(db, migrations[v], 0, NULL, "migrate its schema", err, errlen);
		if (!r)
			r = rdb_do(db, "INSERT INTO rackbench.schema_version (version) VALUES ($1)",
				   1, p, "record its schema version", err, errlen);
	}
	if (!r)
		r = rdb_do(db, "COMMIT", 0, NULL, "commit its schema", err, errlen);
	else
		rdb_rollback(db);
	return r;
}

/*
 * A connection to url as libpq reads it, unchanged; only when neither the URL nor
 * PGCONNECT_TIMEOUT says how long a connection may take, CONNECT_TIMEOUT seconds (a
 * host that drops packets would hold a service's loop for minutes): the URL comes after
 * it and wins.
 */
static PGconn *connect_url(const char *url)
{
	const char *const keys[] = { "connect_timeout", "dbname", NULL };
	const char *const values[] = { CONNECT_TIMEOUT, url, NULL };
	const char *env = getenv("PGCONNECT_TIMEOUT");

	if (env && *env)
		return PQconnectdb(url);
	return PQconnectdbParams(keys, values, 1);
}

int rb_resdb_url_check(const char *url, char *err, size_t errlen)
{
	PQconninfoOption *opts = PQconninfoParse(url, NULL);
	char masked[1024];
	int r = 0;

	rb_resdb_mask_url(url, masked, sizeof(masked));
	if (!opts) {
		snprintf(err, errlen, "'%s' is not a connection URI or string libpq reads", masked);
		return -EINVAL;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (!strcmp(o->keyword, "password") && o->val)
			r = -EPERM;
	PQconninfoFree(opts);
	if (r)
		snprintf(err, errlen,
			 "'%s' holds a password: give it through ~/.pgpass, PGPASSFILE or "
			 "PGPASSWORD instead",
			 masked);
	return r;
}

const char *rb_resdb_added_word(enum rb_resdb_added what)
{
	static const char *const words[] = {
		[RB_RESDB_ADDED] = "added",	[RB_RESDB_KNOWN] = "already there",
		[RB_RESDB_UPDATED] = "updated", [RB_RESDB_RUNNING] = "not exported",
		[RB_RESDB_SO_FAR] = "so far",	[RB_RESDB_ENDED] = "ended already",
	};

	return (unsigned)what < sizeof(words) / sizeof(words[0]) ? words[what] : "?";
}

struct rb_resdb *rb_resdb_open(const char *url, char *err, size_t errlen, int *ret_errno)
{
	struct rb_resdb *db = calloc(1, sizeof(*db));
	PQconninfoOption *opts;
	char *why = NULL, msg[1024];
	int r;

	if (!db) {
		snprintf(err, errlen, "out of memory");
		*ret_errno = -ENOMEM;
		return NULL;
	}
	rb_resdb_where(url, db->where, sizeof(db->where));
	opts = PQconninfoParse(url, &why);
	if (!opts) {
		/* libpq's reason may quote the text it read: said without the password */
		rb_resdb_mask_url(url, msg, sizeof(msg));
		snprintf(err, errlen, "'%s' is not a connection URI or string libpq reads", msg);
		PQfreemem(why);
		free(db);
		*ret_errno = -EINVAL;
		return NULL;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (!strcmp(o->keyword, "password") && o->val)
			snprintf(db->password, sizeof(db->password), "%s", o->val);
	PQconninfoFree(opts);
	db->conn = connect_url(url);
	if (!db->conn || PQstatus(db->conn) != CONNECTION_OK) {
		rdb_scrub(db, db->conn ? PQerrorMessage(db->conn) : "out of memory", msg,
			  sizeof(msg));
		snprintf(err, errlen, "cannot connect to %s: %s", db->where, msg);
		rb_resdb_close(db);
		*ret_errno = -ECONNREFUSED;
		return NULL;
	}
	r = migrate(db, err, errlen);
	if (r) {
		rb_resdb_close(db);
		*ret_errno = r;
		return NULL;
	}
	return db;
}

struct rb_resdb *rb_resdb_close(struct rb_resdb *db)
{
	if (db) {
		PQfinish(db->conn);
		free(db);
	}
	return NULL;
}

/* ---- the fleet's queries ---- */

#define ROW_COLUMNS                                                                                \
	"drive_key, serial, model, firmware, agent, path, file, campaign, start_ns, end_ns, "      \
	"run_status, verdict, reason, measured_s, bytes, host, rack, slot"

static void column(const PGresult *res, int row, int col, char *buf, size_t len)
{
	snprintf(buf, len, "%s", PQgetisnull(res, row, col) ? "" : PQgetvalue(res, row, col));
}

static int collect(PGresult *res, struct rb_index_row **ret, size_t *ret_n)
{
	size_t n = (size_t)PQntuples(res);
	struct rb_index_row *v = calloc(n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct rb_index_row *r = &v[i];
		int k = (int)i;

		column(res, k, 0, r->key, sizeof(r->key));
		column(res, k, 1, r->serial, sizeof(r->serial));
		column(res, k, 2, r->model, sizeof(r->model));
		column(res, k, 3, r->firmware, sizeof(r->firmware));
		column(res, k, 4, r->agent, sizeof(r->agent));
		column(res, k, 5, r->path, sizeof(r->path));
		column(res, k, 6, r->file, sizeof(r->file));
		column(res, k, 7, r->campaign, sizeof(r->campaign));
		r->start_ns = strtoll(PQgetvalue(res, k, 8), NULL, 10);
		r->end_ns = strtoll(PQgetvalue(res, k, 9), NULL, 10);
		column(res, k, 10, r->status, sizeof(r->status));
		column(res, k, 11, r->verdict, sizeof(r->verdict));
		column(res, k, 12, r->reason, sizeof(r->reason));
		r->seconds = strtod(PQgetvalue(res, k, 13), NULL);
		r->bytes = strtoull(PQgetvalue(res, k, 14), NULL, 10);
		column(res, k, 15, r->host, sizeof(r->host));
		column(res, k, 16, r->rack, sizeof(r->rack));
		column(res, k, 17, r->slot, sizeof(r->slot));
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int rb_resdb_history(struct rb_resdb *db, const char *key, struct rb_index_row **ret, size_t *ret_n,
		     char *err, size_t errlen)
{
	const char *p[] = { key };
	PGresult *res = rdb_exec(db,
				 "SELECT " ROW_COLUMNS " FROM rackbench.drive_runs WHERE "
				 "drive_key = $1 OR serial = $1 OR agent || ':' || path = $1 "
				 "ORDER BY start_ns, run_id, drive",
				 1, p, "read a drive's history", err, errlen);
	int r;

	if (!res)
		return -EIO;
	r = collect(res, ret, ret_n);
	PQclear(res);
	return r;
}

int rb_resdb_drives(struct rb_resdb *db, const struct rb_resdb_filter *f, struct rb_index_row **ret,
		    size_t *ret_n, char *err, size_t errlen)
{
	char since[32];
	const char *p[] = { since, f->failed ? "t" : "f", f->model ? f->model : "",
			    f->firmware ? f->firmware : "", f->rack ? f->rack : "" };
	PGresult *res;
	int r;

	snprintf(since, sizeof(since), "%" PRId64, f->since_ns);
	/* each drive's latest run the filters admit (failed: its latest failed one); of two
	 * runs that started at one instant, the one exported last */
	res = rdb_exec(db,
		       "SELECT " ROW_COLUMNS " FROM (SELECT *, row_number() OVER (PARTITION BY "
		       "drive_key ORDER BY start_ns DESC, run_id DESC) AS latest FROM "
		       "rackbench.drive_runs WHERE start_ns >= $1 AND (NOT $2::boolean OR "
		       "verdict = 'FAIL') AND ($3 = '' OR model = $3) AND ($4 = '' OR "
		       "firmware = $4) AND ($5 = '' OR rack = $5)) x WHERE latest = 1 ORDER BY 1",
		       5, p, "read the drives", err, errlen);
	if (!res)
		return -EIO;
	r = collect(res, ret, ret_n);
	PQclear(res);
	return r;
}
