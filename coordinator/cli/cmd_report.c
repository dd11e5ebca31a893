// SPDX-License-Identifier: MIT
/* `rackbench report`: its flags. */
#include "cmds.h"

#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "report.h"
#include "report_h2h.h"
#include "report_model.h"

static struct {
	struct rb_report_args a;
	const char *format, *require, *by, *db, *campaign;
	bool minimal;
	struct rb_popt_list files, specs;
} F;

static const struct rb_popt report_opts[] = {
	{ RB_POPT_STRING, "format", 0, "table|markdown|csv|fio-json|json+|terse",
	  "the table's form (default table), or fio's output alone on stdout, a job per point "
	  "and drive: its JSON (json+: with clat_ns.bins), its terse lines (version 3)",
	  &F.format, NULL, 0 },
	{ RB_POPT_FLAG, "minimal", 0, NULL, "fio's terse lines (as --format terse)", &F.minimal,
	  NULL, 0 },
	{ RB_POPT_STRING, "baseline", 0, "DRIVE",
	  "each drive's IOPS difference from DRIVE (a part of agent:path, or a serial) at the "
	  "same point, across files too; with --wide, the column (model, file...) the others "
	  "are against",
	  &F.a.baseline, NULL, 0 },
	{ RB_POPT_FLAG, "wide", 0, NULL,
	  "the head-to-head table instead: points as rows, drives or models as columns, each "
	  "point by what it is judged by, against the baseline both ways",
	  &F.a.wide, NULL, 0 },
	{ RB_POPT_STRING, "by", 0, "drive|model|firmware|rack|file|label=KEY",
	  "the head-to-head table's columns, and the groups of the per-model table and the "
	  "outliers (default: models when there are several, else files, else drives, "
	  "grouped by model); label=KEY: each value of the agents' label KEY; rack: "
	  "label=rack. With --db: model (the default), firmware or rack",
	  &F.by, NULL, 0 },
	{ RB_POPT_STRING, "db", 0, "URL",
	  "the fleet's head-to-head from the results database (a libpq URI or key=value "
	  "string; its password is never printed) instead of files: with --campaign",
	  &F.db, NULL, 0 },
	{ RB_POPT_STRING, "campaign", 0, "NAME",
	  "with --db: every run of this campaign name (every rack's), as one report of all "
	  "their files",
	  &F.campaign, NULL, 0 },
	{ RB_POPT_STRING, "html", 0, "FILE",
	  "also write one self-contained page with charts (inline SVG)", &F.a.html, NULL, 0 },
	{ RB_POPT_STRING, "fio-logs", 0, "DIR",
	  "also write fio's per-interval logs of every job (point and drive): "
	  "rackbench_{bw,iops,lat,clat_hist}.N.log, N the job's place in --format fio-json, "
	  "and DIR/jobs.tsv naming each N",
	  &F.a.fio_logs, NULL, 0 },
	{ RB_POPT_LIST, "spec", 0, "FILE", "a vendor's claims (docs/report.md); repeatable",
	  &F.specs, NULL, 0 },
	{ RB_POPT_STRING, "require", 0, "PCT",
	  "the share of each claim a drive must reach (default 90%); below it for any check: "
	  "exit 5",
	  &F.require, NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg report_args[] = {
	{ "RESULTS.h5", &F.files, RB_PARG_MANY | RB_PARG_OPTIONAL },
	{ NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_report_spec = {
	.name = "rackbench report",
	.summary = "results as a table or an HTML page, against a baseline and a vendor spec",
	.desc = "One row per point and drive: IOPS, MB/s, mean and p99 latency per direction,\n"
		"status; then, per point and drive model, min/median/max IOPS and percentiles of\n"
		"the drives' histograms added together, with outliers flagged (" RP_OUTLIER_RULE
		").",
	.opts = report_opts,
	.args = report_args,
	.epilog =
		"Files compare side by side; when their methodology hashes differ (another plan),\n"
		"the report says so and compares points by name. When the files' drives span\n"
		"several racks (their agents' label rack), or with --by rack, a fleet summary\n"
		"comes before the rows (not in CSV): per rack its files, drives and verdicts, per\n"
		"point its median and total IOPS and the percentiles of its drives' histograms\n"
		"added together (the fleet's: every drive's), and the racks slowest first by\n"
		"their p99 against the fleet's.\n"
		"With --db URL --campaign NAME, the fleet's head-to-head from the results database\n"
		"(docs/fleet-db.md): per point and group (--by model, firmware or rack), the\n"
		"drives, min/median/max IOPS and the outliers, and p50/p99 per direction of the\n"
		"group's histograms as the database adds them up bucket by bucket -- the same\n"
		"figures the report of the campaign's files prints; --format csv gives the\n"
		"percentiles in ns. Exit 2: no run of the campaign; exit 4: the database cannot\n"
		"be reached.",
};

/* --format and --require into the report's arguments: 0, or -1 said. */
static int values(void)
{
	if (F.minimal && F.format && strcmp(F.format, "terse")) {
		rb_err("--minimal is fio's terse lines: it takes no other --format");
		return -1;
	}
	if (F.minimal)
		F.format = "terse";
	if (!F.format || !strcmp(F.format, "table")) {
		F.a.format = RB_REPORT_TABLE;
	} else if (!strcmp(F.format, "markdown")) {
		F.a.format = RB_REPORT_MARKDOWN;
	} else if (!strcmp(F.format, "csv")) {
		F.a.format = RB_REPORT_CSV;
	} else if (!strcmp(F.format, "fio-json")) {
		F.a.format = RB_REPORT_FIO_JSON;
	} else if (!strcmp(F.format, "json+") || !strcmp(F.format, "fio-json+")) {
		F.a.format = RB_REPORT_FIO_JSONPLUS;
	} else if (!strcmp(F.format, "terse")) {
		F.a.format = RB_REPORT_FIO_TERSE;
	} else {
		rb_err("'--format' must be table, markdown, csv, fio-json, json+ or terse, not '%s'",
		       F.format);
		return -1;
	}
	if (!F.by) {
		F.a.by = RP_BY_AUTO;
	} else if (!strncmp(F.by, "label=", 6) && F.by[6]) {
		F.a.by = RP_BY_LABEL;
		F.a.by_label = F.by + 6;
	} else if (!strcmp(F.by, "rack")) {
		F.a.by = RP_BY_LABEL;
		F.a.by_label = "rack";
	} else {
		static const char *const by[] = { "", "drive", "model", "firmware", "file" };

		for (F.a.by = 1; F.a.by < 5 && strcmp(by[F.a.by], F.by); F.a.by++)
			;
		if (F.a.by == 5) {
			rb_err("'--by' must be drive, model, firmware, rack, file or label=KEY, not "
			       "'%s'",
			       F.by);
			return -1;
		}
	}
	if (F.require) {
		char *end;

		F.a.require_pct = strtod(F.require, &end);
		if (end == F.require || (*end && strcmp(end, "%")) || !(F.a.require_pct > 0) ||
		    F.a.require_pct > 1000) {
			rb_err("'--require' must be a percentage like 90%%, not '%s'", F.require);
			return -1;
		}
	}
	return 0;
}

/* --db's report: its flags checked, run. */
static int db_report(void)
{
	struct rb_report_db_args a = { .url = F.db, .campaign = F.campaign, .format = F.a.format };

	if (F.files.n || F.specs.n || F.a.baseline || F.a.wide || F.a.html || F.a.fio_logs ||
	    F.require) {
		rb_err("--db reports a campaign from the database: it takes no results files, "
		       "--spec, --require, --baseline, --wide, --html nor --fio-logs");
		return RB_EXIT_USAGE;
	}
	if (!F.campaign) {
		rb_err("--db needs --campaign NAME: the campaign to report");
		return RB_EXIT_USAGE;
	}
	if (F.a.format > RB_REPORT_CSV) {
		rb_err("--db reports as a table, markdown or csv");
		return RB_EXIT_USAGE;
	}
	a.by = F.a.by == RP_BY_AUTO ? RP_BY_MODEL : F.a.by;
	if (a.by != RP_BY_MODEL && a.by != RP_BY_FIRMWARE &&
	    !(a.by == RP_BY_LABEL && !strcmp(F.a.by_label, "rack"))) {
		rb_err("--db groups drives --by model, firmware or rack, not '%s'", F.by);
		return RB_EXIT_USAGE;
	}
	return rb_report_db(&a);
}

int rb_report_cmd(int argc, char **argv)
{
	int r;

	memset(&F, 0, sizeof(F));
	r = rb_parseopt(&rb_coord_report_spec, argc, argv, NULL);
	if (r)
		r = rb_parseopt_exit(r);
	else if (values())
		r = RB_EXIT_USAGE;
	else if (F.db)
		r = db_report();
	else if (F.campaign) {
		rb_err("--campaign names a campaign of the database: it needs --db URL");
		r = RB_EXIT_USAGE;
	} else if (!F.files.n) {
		rb_err("missing RESULTS.h5 (or --db URL --campaign NAME)");
		r = RB_EXIT_USAGE;
	} else {
		F.a.files = F.files.v;
		F.a.nfiles = F.files.n;
		F.a.specs = F.specs.v;
		F.a.nspecs = F.specs.n;
		r = rb_report(&F.a);
	}
	rb_popt_list_release(&F.files);
	rb_popt_list_release(&F.specs);
	return r;
}
