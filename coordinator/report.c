// SPDX-License-Identifier: MIT
/*
 * `rackbench report`: results files as a table people compare drives by, in the
 * terminal, as Markdown or as CSV; --baseline puts every drive's IOPS against one drive
 * at the same point ("drive A is N% faster than B at QD x"), across files too.
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "results.h"

enum fmt { FMT_TABLE, FMT_MARKDOWN, FMT_CSV };

struct line {
	char file[32], point[256], drive[320], model[64], serial[64], status[16];
	double iops, mbps, read_mean_us, read_p99_us, write_mean_us, write_p99_us;
	double vs_base;		/* percent; NAN: none */
};

static const char *const cols[] = { "file",	    "point",	"drive",	 "model",
				     "serial",	    "status",	"iops",		 "mb_s",
				     "read_mean_us", "read_p99_us", "write_mean_us", "write_p99_us",
				     "vs_baseline_pct" };

static void emit(enum fmt f, const struct line *l, bool multi)
{
	char vs[32];

	if (isnan(l->vs_base))
		snprintf(vs, sizeof(vs), "-");
	else
		snprintf(vs, sizeof(vs), "%+.1f", l->vs_base);
	switch (f) {
	case FMT_CSV:
		printf("%s,\"%s\",\"%s\",\"%s\",\"%s\",%s,%.1f,%.2f,%.2f,%.2f,%.2f,%.2f,%s\n", l->file,
		       l->point, l->drive, l->model, l->serial, l->status, l->iops, l->mbps,
		       l->read_mean_us, l->read_p99_us, l->write_mean_us, l->write_p99_us,
		       isnan(l->vs_base) ? "" : vs);
		break;
	case FMT_MARKDOWN:
		printf("| %s%s%s | %s | %s | %s | %.0f | %.1f | %.1f | %.1f | %.1f | %.1f | %s |\n",
		       multi ? l->file : "", multi ? " " : "", l->point, l->drive, l->model, l->status,
		       l->iops, l->mbps, l->read_mean_us, l->read_p99_us, l->write_mean_us,
		       l->write_p99_us, vs);
		break;
	default: {
		/* a long drive name keeps its end, where paths differ */
		size_t dl = strlen(l->drive);
		char drive[40];

		if (dl > 30)
			snprintf(drive, sizeof(drive), "~%s", l->drive + dl - 29);
		else
			snprintf(drive, sizeof(drive), "%s", l->drive);
		printf("%-3s %-34.34s %-30.30s %-8s %11.0f %9.1f %9.1f %9.1f %9.1f %9.1f %8s\n",
		       multi ? l->file : "", l->point, drive, l->status, l->iops, l->mbps,
		       l->read_mean_us, l->read_p99_us, l->write_mean_us, l->write_p99_us, vs);
		break;
	}
	}
}

static void header(enum fmt f)
{
	switch (f) {
	case FMT_CSV:
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			printf("%s%s", i ? "," : "", cols[i]);
		printf("\n");
		break;
	case FMT_MARKDOWN:
		printf("| point | drive | model | status | IOPS | MB/s | read mean us | read p99 us | "
		       "write mean us | write p99 us | vs baseline %% |\n"
		       "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
		break;
	default:
		printf("%-3s %-34s %-30s %-8s %11s %9s %9s %9s %9s %9s %8s\n", "", "point", "drive",
		       "status", "IOPS", "MB/s", "rd mean", "rd p99", "wr mean", "wr p99", "vs base");
		printf("%-3s %-34s %-30s %-8s %11s %9s %9s %9s %9s %9s %8s\n", "", "", "", "", "",
		       "", "us", "us", "us", "us", "%");
		break;
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: rackbench report RESULTS.h5 [MORE.h5 ...] [--format table|markdown|csv]\n"
		"                        [--baseline DRIVE]\n"
		"\n"
		"One row per point and drive: IOPS, MB/s, mean and p99 latency per direction,\n"
		"status. --baseline DRIVE (a part of agent:path, or a serial) adds each drive's\n"
		"IOPS difference from that drive at the same point, across files too.\n");
}

int rb_report_cmd(int argc, char **argv)
{
	enum fmt f = FMT_TABLE;
	const char *baseline = NULL;
	const char **files = calloc((size_t)argc + 1, sizeof(char *));
	size_t nfiles = 0, nlines = 0, cap = 0;
	struct line *lines = NULL;
	int rc = RB_EXIT_USAGE;

	if (!files)
		return RB_EXIT_FAILED;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			rc = RB_EXIT_OK;
			goto out;
		} else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "table"))
				f = FMT_TABLE;
			else if (!strcmp(argv[i], "markdown"))
				f = FMT_MARKDOWN;
			else if (!strcmp(argv[i], "csv"))
				f = FMT_CSV;
			else {
				rb_err("'--format' must be table, markdown or csv, not '%s'", argv[i]);
				goto out;
			}
		} else if (!strcmp(argv[i], "--baseline") && i + 1 < argc) {
			baseline = argv[++i];
		} else if (argv[i][0] == '-') {
			rb_err("unexpected argument '%s' (see 'rackbench report --help')", argv[i]);
			goto out;
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (!nfiles) {
		rb_err("no results file: rackbench report RESULTS.h5");
		goto out;
	}
	for (size_t fi = 0; fi < nfiles; fi++) {
		struct rb_results_in *in;
		struct rb_row_drive *dr = NULL;
		struct rb_row_point *pt = NULL;
		struct rb_row_result *rs = NULL;
		size_t nd = 0, np = 0, nr = 0;
		char err[512];

		in = rb_results_open(files[fi], err, sizeof(err));
		if (!in) {
			rb_err("%s", err);
			rc = RB_EXIT_USAGE;
			goto out;
		}
		if (rb_results_read_drives(in, &dr, &nd) || rb_results_read_points(in, &pt, &np) ||
		    rb_results_read_results(in, &rs, &nr)) {
			rb_err("'%s': cannot read its tables", files[fi]);
			rb_results_in_close(in);
			free(dr);
			free(pt);
			free(rs);
			rc = RB_EXIT_FAILED;
			goto out;
		}
		rb_results_in_close(in);
		for (size_t p = 0; p < np; p++) {
			for (size_t d = 0; d < nd; d++) {
				const struct rb_row_result *best = NULL;
				struct line *l;

				/* the latest attempt of the point on the drive */
				for (size_t r = 0; r < nr; r++)
					if (rs[r].point == pt[p].point && rs[r].drive == dr[d].drive &&
					    (!best || rs[r].attempt >= best->attempt))
						best = &rs[r];
				if (nlines == cap) {
					cap = cap ? cap * 2 : 64;
					struct line *nl = realloc(lines, cap * sizeof(*lines));

					if (!nl)
						goto out;
					lines = nl;
				}
				l = &lines[nlines++];
				memset(l, 0, sizeof(*l));
				snprintf(l->file, sizeof(l->file), "#%zu", fi + 1);
				snprintf(l->point, sizeof(l->point), "%s", pt[p].name);
				snprintf(l->drive, sizeof(l->drive), "%s:%s", dr[d].agent, dr[d].path);
				snprintf(l->model, sizeof(l->model), "%s", dr[d].model);
				snprintf(l->serial, sizeof(l->serial), "%s", dr[d].serial);
				snprintf(l->status, sizeof(l->status), "%s", best ? best->status : "none");
				l->vs_base = NAN;
				if (!best)
					continue;
				l->iops = best->read.iops + best->write.iops + best->trim.iops;
				l->mbps = (best->read.bw_bytes_per_s + best->write.bw_bytes_per_s +
					   best->trim.bw_bytes_per_s) / 1e6;
				l->read_mean_us = best->read.lat_mean_ns / 1e3;
				l->read_p99_us = (double)best->read.lat_p99_ns / 1e3;
				l->write_mean_us = best->write.lat_mean_ns / 1e3;
				l->write_p99_us = (double)best->write.lat_p99_ns / 1e3;
			}
		}
		free(dr);
		free(pt);
		free(rs);
	}
	if (baseline) {
		bool found = false;

		for (size_t i = 0; i < nlines; i++) {
			const struct line *b = NULL;

			/* the baseline's line at the same point name */
			for (size_t k = 0; k < nlines && !b; k++)
				if (!strcmp(lines[k].point, lines[i].point) &&
				    (strstr(lines[k].drive, baseline) ||
				     (lines[k].serial[0] && !strcmp(lines[k].serial, baseline))))
					b = &lines[k];
			if (b) {
				found = true;
				if (b->iops > 0)
					lines[i].vs_base = 100.0 * (lines[i].iops - b->iops) / b->iops;
			}
		}
		if (!found) {
			rb_err("no drive matches --baseline '%s'", baseline);
			rc = RB_EXIT_USAGE;
			goto out;
		}
	}
	if (f != FMT_CSV && nfiles > 1)
		for (size_t fi = 0; fi < nfiles; fi++)
			printf("#%zu %s\n", fi + 1, files[fi]);
	header(f);
	for (size_t i = 0; i < nlines; i++)
		emit(f, &lines[i], nfiles > 1);
	rc = RB_EXIT_OK;
out:
	free(lines);
	free(files);
	return rc;
}
