// SPDX-License-Identifier: MIT
/*
 * What `fleet run` shows (fleet_priv.h): each rack's shard as its service's status says it,
 * the live view on stderr (a line a rack), and at the end the fleet table on stdout and
 * the fleet summary file with the same: rack, run id, results file, status, the rack's
 * clock offset from ours and its agents' start skew at the fleet's instant; and the
 * fleet verdict's counts when the campaign asked for one (fleet_db.c).
 */
#include "fleet_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet_verdict.h"
#include "jsonout.h"
#include "serve.h"

void fleet_rack_status(struct fleet_rack *r, const char *text)
{
	char v[64];
	const char *line;

	if (rb_control_field(text, "state", v, sizeof(v))) {
		if (!strcmp(v, "running"))
			r->st = RACK_RUNNING;
		else if (!strcmp(v, "queued"))
			r->st = RACK_QUEUED;
		else if (!strcmp(v, "done"))
			r->st = RACK_DONE;
	}
	rb_control_field(text, "phase", r->phase, sizeof(r->phase));
	rb_control_field(text, "results", r->results, sizeof(r->results));
	if (rb_control_field(text, "point", v, sizeof(v)))
		r->point = strtoul(v, NULL, 10);
	if (rb_control_field(text, "points", v, sizeof(v)))
		r->points = strtoul(v, NULL, 10);
	if (rb_control_field(text, "exit", v, sizeof(v)))
		r->exit = (int)strtol(v, NULL, 10);
	if (rb_control_field(text, "start_skew", v, sizeof(v)) &&
	    sscanf(v, "%" SCNd64 " %" SCNd64 " %u", &r->skew_lo, &r->skew_hi, &r->skew_n) != 3)
		r->skew_n = 0;
	if (rb_control_field(text, "start_late", v, sizeof(v)))
		r->late = strtoll(v, NULL, 10);
	if (r->st != RACK_RUNNING)
		return;
	r->iops = 0;
	r->failing = 0;
	r->ndrives = 0;
	for (line = strstr(text, "\ndrive="); line; line = strstr(line + 1, "\ndrive=")) {
		const char *tab = strchr(line, '\t');
		double iops = 0, mbps, p99, temp;
		unsigned long long errs = 0;

		if (!tab || sscanf(tab + 1, "%lf\t%lf\t%lf\t%lf\t%llu", &iops, &mbps, &p99, &temp,
				   &errs) < 5)
			continue;
		r->ndrives++;
		r->iops += iops;
		r->failing += errs > 0;
	}
}

const char *fleet_rack_word(const struct fleet_rack *r)
{
	static const char *const words[] = { "-",	"UNREACHABLE", "REFUSED", "queued",
					     "running", "done",	       "LOST" };

	return words[r->st];
}

void fleet_view(const struct rb_fleet *f, const struct fleet_rack *r, bool tty, unsigned *drawn)
{
	static char last[4096];
	char buf[4096];
	size_t n = 0;

	for (size_t i = 0; i < f->nracks && n < sizeof(buf); i++) {
		const struct fleet_rack *x = &r[i];

		if (x->st == RACK_NONE)
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%-16s %-11s", f->racks[i].name,
				      fleet_rack_word(x));
		if (n >= sizeof(buf))
			break;
		if (x->st == RACK_RUNNING && x->unheard)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " not answering");
		else if (x->st == RACK_RUNNING && !x->points) /* its plan not known yet */
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %s",
					      x->phase[0] ? x->phase : "starting");
		else if (x->st == RACK_RUNNING)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      " point %zu/%zu %-10s %10.0f IOPS  %u failing",
					      x->point + 1, x->points, x->phase, x->iops,
					      x->failing);
		else if (x->st == RACK_DONE)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " exit %d", x->exit);
		else if (x->st != RACK_QUEUED)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %s", x->why);
		if (n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\n");
	}
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	buf[n] = '\0';
	if (tty) {
		/* over the last view: up as many lines, each cleared */
		for (unsigned k = 0; k < *drawn; k++)
			fputs("\033[A\033[2K", stderr);
		fputs(buf, stderr);
		*drawn = 0;
		for (const char *c = buf; *c; c++)
			*drawn += *c == '\n';
	} else if (strcmp(buf, last)) {
		/* a log: each rack's line when it changes */
		for (const char *line = buf; *line;) {
			size_t len = strcspn(line, "\n");

			if (!strstr(last, line) || strncmp(strstr(last, line) + len, "\n", 1))
				fprintf(stderr, "rackbench: fleet: %.*s\n", (int)len, line);
			line += len + (line[len] == '\n');
		}
		snprintf(last, sizeof(last), "%s", buf);
	}
	fflush(stderr);
}

bool fleet_skew(const struct rb_fleet *f, const struct fleet_rack *r, int64_t *ret_lo,
		int64_t *ret_hi)
{
	bool any = false;

	for (size_t i = 0; i < f->nracks; i++) {
		if (!r[i].skew_n || r[i].late)
			continue;
		if (!any || r[i].skew_lo < *ret_lo)
			*ret_lo = r[i].skew_lo;
		if (!any || r[i].skew_hi > *ret_hi)
			*ret_hi = r[i].skew_hi;
		any = true;
	}
	return any;
}

/* A number of ns as milliseconds, or "-". */
static const char *ms(char *buf, size_t len, bool known, int64_t ns)
{
	if (known)
		snprintf(buf, len, "%+.3f", (double)ns / 1e6);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* A rack's outcome at the fleet's end, in the table and the summary alike: a rack that
 * has not ended (lost, unreachable, refused, or left running at a second Ctrl-C) is
 * INCOMPLETE. */
static const char *outcome(const struct fleet_rack *x)
{
	return x->st == RACK_DONE ? (x->exit ? "FAILED" : "COMPLETE") : "INCOMPLETE";
}

void fleet_table(const struct rb_fleet *f, const struct fleet_rack *r, const char *fid,
		 int64_t instant)
{
	char a[32], b[32], c[32], instant_s[40];
	time_t t = (time_t)(instant / 1000000000LL);
	struct tm tm;
	int64_t lo = 0, hi = 0, delay = 0;

	gmtime_r(&t, &tm);
	strftime(instant_s, sizeof(instant_s), "%Y-%m-%dT%H:%M:%S", &tm);
	printf("fleet run %s, start %s.%03dZ\n", fid, instant_s,
	       (int)(instant % 1000000000LL / 1000000));
	printf("%-16s %-24s %-11s %4s %12s %21s  %s\n", "rack", "run", "status", "exit",
	       "offset ms", "start skew ms", "results");
	for (size_t i = 0; i < f->nracks; i++) {
		const struct fleet_rack *x = &r[i];
		char ex[8] = "-", skew[48];

		if (x->st == RACK_NONE)
			continue;
		if (x->st == RACK_DONE)
			snprintf(ex, sizeof(ex), "%d", x->exit);
		if (x->skew_n)
			snprintf(skew, sizeof(skew), "%s..%s", ms(a, sizeof(a), true, x->skew_lo),
				 ms(b, sizeof(b), true, x->skew_hi));
		else
			snprintf(skew, sizeof(skew), "-");
		printf("%-16s %-24s %-11s %4s %12s %21s  %s\n", f->racks[i].name,
		       x->id[0] ? x->id : "-", outcome(x), ex,
		       ms(c, sizeof(c), x->clock_ok, x->offset_ns), skew,
		       x->results[0] ? x->results : "-");
		if (x->clock_ok && x->delay_ns > delay)
			delay = x->delay_ns;
	}
	if (fleet_skew(f, r, &lo, &hi))
		printf("start skew across racks: %.3f ms (earliest %+.3f ms, latest %+.3f ms from "
		       "the instant; clocks measured to within %.3f ms)\n",
		       (double)(hi - lo) / 1e6, (double)lo / 1e6, (double)hi / 1e6,
		       (double)delay / 2e6);
	else
		printf("start skew across racks: unknown (no rack measured its start)\n");
	fflush(stdout);
}

/* The summary's fleet_verdict: what the judgement found, or why there was none. */
static void summary_verdict(FILE *o, const struct fleet_judgement *fj)
{
	fprintf(o, ",\n \"fleet_verdict\": {\"judged\": %s, \"exit\": %d",
		fj->judged ? "true" : "false", fj->exit);
	if (fj->judged)
		fprintf(o,
			", \"drives\": %zu, \"fail\": %zu, \"quarantine\": %zu, \"hold\": %zu, "
			"\"note\": %zu",
			fj->drives, fj->count[RB_FLEET_FAIL], fj->count[RB_FLEET_QUARANTINE],
			fj->count[RB_FLEET_HOLD], fj->count[RB_FLEET_NOTE]);
	fprintf(o, ", \"racks_missing\": [");
	for (const char *p = fj->missing, *q; *p; p = q + (*q ? 2 : 0)) {
		q = strstr(p, ", ");
		if (!q)
			q = p + strlen(p);
		fprintf(o, "%s\"%.*s\"", p == fj->missing ? "" : ", ", (int)(q - p), p);
	}
	fprintf(o, "]");
	if (fj->why[0]) {
		fprintf(o, ", \"why\": ");
		rb_json_str(o, fj->why);
	}
	fprintf(o, "}");
}

int fleet_summary(const char *path, const struct rb_fleet *f, const struct fleet_rack *r,
		  const char *fid, const char *campaign, int64_t instant, int rc,
		  const struct fleet_judgement *fj)
{
	FILE *o = fopen(path, "w");
	int64_t lo = 0, hi = 0;
	bool first = true;

	if (!o)
		return -errno;
	fprintf(o, "{\"fleet\": ");
	rb_json_str(o, fid);
	fprintf(o, ", \"campaign\": ");
	rb_json_str(o, campaign);
	fprintf(o, ", \"start_utc_ns\": %" PRId64 ", \"exit\": %d", instant, rc);
	if (fleet_skew(f, r, &lo, &hi))
		fprintf(o, ", \"start_skew_across_racks_ns\": %" PRId64, hi - lo);
	fprintf(o, ",\n \"racks\": [");
	for (size_t i = 0; i < f->nracks; i++) {
		const struct fleet_rack *x = &r[i];

		if (x->st == RACK_NONE)
			continue;
		fprintf(o, "%s\n  {\"rack\": ", first ? "" : ",");
		first = false;
		rb_json_str(o, f->racks[i].name);
		fprintf(o, ", \"endpoint\": ");
		rb_json_str(o, f->racks[i].endpoint);
		fprintf(o, ", \"status\": \"%s\", \"state\": \"%s\", \"run\": ", outcome(x),
			fleet_rack_word(x));
		rb_json_str(o, x->id);
		fprintf(o, ", \"results\": ");
		rb_json_str(o, x->results);
		fprintf(o, ", \"exit\": %d, \"drives\": %zu", x->st == RACK_DONE ? x->exit : -1,
			x->drives);
		if (x->clock_ok)
			fprintf(o,
				", \"clock_offset_ns\": %" PRId64 ", \"clock_delay_ns\": %" PRId64,
				x->offset_ns, x->delay_ns);
		if (x->skew_n)
			fprintf(o,
				", \"start_skew_lo_ns\": %" PRId64
				", \"start_skew_hi_ns\": %" PRId64 ", \"start_skew_drives\": %u",
				x->skew_lo, x->skew_hi, x->skew_n);
		if (x->late)
			fprintf(o, ", \"start_late_ns\": %" PRId64, x->late);
		if (x->why[0]) {
			fprintf(o, ", \"why\": ");
			rb_json_str(o, x->why);
		}
		fprintf(o, "}");
	}
	fprintf(o, "\n ]");
	if (fj && fj->asked)
		summary_verdict(o, fj);
	fprintf(o, "}\n");
	return fclose(o) ? -errno : 0;
}
