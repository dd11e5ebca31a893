// SPDX-License-Identifier: MIT
#include "progress.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "clock.h"
#include "jsonout.h"
#include "log.h"
#include "units.h"

#define REDRAW_NS 500000000LL
#define LINES_NS 5000000000LL

struct pdrive {
	char label[340];
	uint32_t interval; /* the interval the figures below are of */
	uint64_t ios, bytes, p99_ns;
	double temp_c; /* NAN: unknown */
	uint64_t total_ios, total_bytes;
	int64_t t_ns, prev_t_ns; /* the current and previous intervals' ends (drive's clock) */
	uint64_t len_ns;	 /* the current interval's length: the last may be partial */
	int64_t first_t_ns;	 /* the point's first interval's end, and its length: ... */
	uint64_t first_len_ns;	 /* ... the time it has moved its bytes in, on its clock */
	int64_t seen;		 /* when its last sample came (our clock); 0: none yet */
	uint64_t capacity;	 /* bytes, as its agent offered it; 0: unknown */
	bool has_result;	 /* the point's result row came: its figures below */
	bool finished;		 /* its measurement ended: its last interval came */
	bool clean;		 /* that row's status ok, without IO errors or mismatches */
	double result_iops, result_bw;
};

struct rb_progress {
	const struct rb_campaign *c;
	FILE *events;
	bool tty, color;
	struct pdrive *d;
	size_t *in, nin; /* the drives the current point measures */
	size_t k;	 /* current point */
	int64_t run_start, point_start, last_draw, last_line;
	uint64_t point_ns; /* the current point's planned time */
	unsigned drawn;	   /* lines of the view on screen */
};

static const char *dir_name(unsigned d)
{
	return d == 0 ? "read" : d == 1 ? "write" : "trim";
}

/* Ended by what it moves, or (exec) by its command: not by a runtime. */
static bool size_based(const struct rb_point *p)
{
	return rb_workload_size_based(&p->wl) || p->exec[0];
}

/* A point's planned time; 0 for a size-based one: its drives' speed decides it. */
static uint64_t planned_ns(const struct rb_point *p)
{
	return size_based(p) ? 0 : p->wl.ramp_ns + p->wl.runtime_ns;
}

/* The bytes a size-based point moves on a drive (as the agent's engine counts them);
 * 0: unknown (its capacity is). */
static uint64_t planned_bytes(const struct rb_point *p, const struct pdrive *d)
{
	const struct rb_workload *wl = &p->wl;
	uint64_t span;

	if (wl->rw == RB_RW_CHECKPOINT)
		return rb_ckpt_moved(wl);
	if (wl->io_size)
		return wl->io_size;
	if (!wl->passes || (!wl->size && !d->capacity) || wl->offset >= d->capacity)
		return wl->size && !wl->size_pct ? wl->size * wl->passes : 0;
	span = d->capacity - wl->offset;
	if (wl->size_pct)
		span = rb_workload_pct_of(span, wl->size_pct);
	else if (wl->size)
		span = wl->size;
	return span * wl->passes;
}

void rb_progress_capacity(struct rb_progress *p, size_t drive, uint64_t bytes)
{
	if (p && drive < p->c->ndrives)
		p->d[drive].capacity = bytes;
}

static void erase(void *arg)
{
	struct rb_progress *p = arg;

	if (p->tty && p->drawn) {
		fprintf(stderr, "\033[%uA\r\033[J", p->drawn);
		p->drawn = 0;
		fflush(stderr);
	}
}

struct rb_progress *rb_progress_new(const struct rb_campaign *c, const char *events, char *err,
				    size_t errlen)
{
	struct rb_progress *p = calloc(1, sizeof(*p));
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (!p || !(p->d = calloc(c->ndrives + 1, sizeof(*p->d))) ||
	    !(p->in = calloc(c->ndrives + 1, sizeof(*p->in)))) {
		if (p)
			free(p->d);
		free(p);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->c = c;
	if (events) {
		p->events = fopen(events, "ae");
		if (!p->events) {
			snprintf(err, errlen, "cannot open events file '%s': %s", events,
				 strerror(errno));
			free(p->d);
			free(p->in);
			free(p);
			return NULL;
		}
	}
	p->tty = isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb"));
	p->color = p->tty && !(nc && *nc);
	for (size_t i = 0; i < c->ndrives; i++) {
		snprintf(p->d[i].label, sizeof(p->d[i].label), "%s:%s", c->drives[i].agent,
			 c->drives[i].path);
		p->d[i].temp_c = NAN;
	}
	p->run_start = rb_mono_ns();
	if (p->tty)
		rb_log_set_hook(erase, p);
	return p;
}

static void event_head(struct rb_progress *p, const char *ev)
{
	fprintf(p->events, "{\"t_ns\": %lld, \"event\": \"%s\"", (long long)rb_wall_ns(), ev);
}

void rb_progress_point(struct rb_progress *p, size_t k, const bool *left_out)
{
	const struct rb_point *pt = &p->c->points[k];
	char dur[48], sz[24];

	p->k = k;
	p->point_start = p->last_line = rb_mono_ns();
	p->point_ns = planned_ns(pt);
	p->nin = 0;
	for (size_t i = 0; i < p->c->ndrives; i++) {
		p->d[i].ios = p->d[i].bytes = p->d[i].p99_ns = 0;
		p->d[i].total_ios = p->d[i].total_bytes = 0;
		p->d[i].interval = 0;
		p->d[i].t_ns = p->d[i].prev_t_ns = p->d[i].first_t_ns = p->d[i].seen = 0;
		p->d[i].len_ns = p->d[i].first_len_ns = pt->wl.interval_ns;
		p->d[i].has_result = p->d[i].finished = false;
		p->d[i].result_iops = p->d[i].result_bw = 0;
		/* a drive the guard refused (on_refusal: skip) moves nothing: not counted */
		if (rb_point_has_drive(p->c, pt, i) && !(left_out && left_out[i]))
			p->in[p->nin++] = i;
	}
	/* what ends the point: its time, or (size-based) what each drive moves */
	if (pt->exec[0])
		snprintf(dur, sizeof(dur), "the agents' command '%s'", pt->exec);
	else if (pt->wl.rw == RB_RW_CHECKPOINT)
		snprintf(dur, sizeof(dur), "%u checkpoint(s) of %s per drive", pt->wl.checkpoints,
			 rb_fmt_size_human(rb_ckpt_bytes(&pt->wl), sz, sizeof(sz)));
	else if (pt->wl.passes)
		snprintf(dur, sizeof(dur), "%u pass%s", pt->wl.passes,
			 pt->wl.passes == 1 ? "" : "es");
	else if (pt->wl.io_size)
		snprintf(dur, sizeof(dur), "%s per drive",
			 rb_fmt_size(pt->wl.io_size, sz, sizeof(sz)));
	else
		rb_fmt_duration_human(pt->wl.runtime_ns, dur, sizeof(dur));
	erase(p);
	fprintf(stderr, "rackbench: [%zu/%zu] %s (%s on %zu drive(s))\n", k + 1, p->c->npoints,
		pt->name, dur, p->nin);
	if (p->events) {
		event_head(p, "point_start");
		fprintf(p->events, ", \"point\": %u, \"of\": %zu, \"phase\": ", pt->index,
			p->c->npoints);
		rb_json_str(p->events, p->c->phases[pt->phase].name);
		fputs(", \"name\": ", p->events);
		rb_json_str(p->events, pt->name);
		fprintf(p->events, ", \"planned_ns\": %llu}\n", (unsigned long long)p->point_ns);
		fflush(p->events);
	}
	p->last_draw = 0;
	rb_progress_tick(p);
}

void rb_progress_sample(struct rb_progress *p, size_t drive, uint32_t interval, unsigned direction,
			int64_t t_ns, uint64_t ios, uint64_t bytes, uint64_t p99_ns)
{
	uint64_t nominal;
	struct pdrive *d;
	double s;

	if (!p || drive >= p->c->ndrives)
		return;
	nominal = p->c->points[p->k].wl.interval_ns;
	d = &p->d[drive];
	if (interval != d->interval || !d->t_ns) {
		/* an interval's length is from the previous one's end: a size-based point's last
		 * ends at its last IO, and a whole interval's figure would read low */
		if (interval == d->interval + 1 && d->t_ns && t_ns > d->t_ns)
			d->len_ns = (uint64_t)(t_ns - d->t_ns) < nominal
					    ? (uint64_t)(t_ns - d->t_ns)
					    : nominal;
		else
			d->len_ns = nominal;
		if (!d->first_t_ns) {
			d->first_t_ns = t_ns;
			d->first_len_ns = d->len_ns;
		}
		d->prev_t_ns = d->t_ns;
		d->t_ns = t_ns;
		d->interval = interval;
		d->ios = d->bytes = d->p99_ns = 0;
	}
	d->seen = rb_mono_ns();
	s = (double)d->len_ns / 1e9;
	d->ios += ios;
	d->bytes += bytes;
	d->total_ios += ios;
	d->total_bytes += bytes;
	if (p99_ns > d->p99_ns)
		d->p99_ns = p99_ns;
	if (p->events) {
		event_head(p, "sample");
		fputs(", \"drive\": ", p->events);
		rb_json_str(p->events, d->label);
		fprintf(p->events,
			", \"point\": %u, \"interval\": %u, \"direction\": \"%s\", \"iops\": %.1f, "
			"\"mb_s\": %.3f, \"p99_us\": %.3f}\n",
			p->c->points[p->k].index, interval, dir_name(direction),
			s > 0 ? (double)ios / s : 0, s > 0 ? (double)bytes / s / 1e6 : 0,
			(double)p99_ns / 1e3);
		fflush(p->events);
	}
}

void rb_progress_finished(struct rb_progress *p, size_t drive)
{
	if (p && drive < p->c->ndrives)
		p->d[drive].finished = true;
}

void rb_progress_temp(struct rb_progress *p, size_t drive, double temp_c)
{
	if (!p || drive >= p->c->ndrives || isnan(temp_c))
		return;
	p->d[drive].temp_c = temp_c;
	if (p->events) {
		event_head(p, "health");
		fputs(", \"drive\": ", p->events);
		rb_json_str(p->events, p->d[drive].label);
		fprintf(p->events, ", \"temperature_c\": %.1f}\n", temp_c);
		fflush(p->events);
	}
}

/*
 * The share of its bytes the slowest drive of a size-based point moved (0..1; a drive
 * whose result came has moved them all), and the time the slowest needs for the rest:
 * each drive's bytes left at its speed so far, measured on its own clock from its first
 * interval (the point's set-up before its first IO is no part of it). UINT64_MAX: not
 * known yet, a drive has moved nothing; -1 when a drive's bytes are unknown.
 */
static double moved(const struct rb_progress *p, uint64_t *left_ns)
{
	const struct rb_point *pt = &p->c->points[p->k];
	double least = 1;

	*left_ns = 0;
	for (size_t i = 0; i < p->nin; i++) {
		const struct pdrive *d = &p->d[p->in[i]];
		uint64_t want = planned_bytes(pt, d);
		double f, active, left;

		if (!want) {
			*left_ns = 0;
			return -1;
		}
		f = d->has_result || d->finished || d->total_bytes >= want
			    ? 1
			    : (double)d->total_bytes / (double)want;
		if (f < least)
			least = f;
		if (f >= 1 || *left_ns == UINT64_MAX)
			continue;
		active = (double)(d->t_ns - d->first_t_ns) + (double)d->first_len_ns;
		if (f <= 0 || !d->first_t_ns || active <= 0) {
			*left_ns = UINT64_MAX;
			continue;
		}
		left = (double)(want - d->total_bytes) / ((double)d->total_bytes / active);
		if (left > (double)*left_ns)
			*left_ns = (uint64_t)left;
	}
	return least;
}

/* A drive's figures now: its last interval's rate over that interval's own length, or 0
 * once its result came or when it has sent nothing for two intervals (a second at least):
 * a finished or idle drive does no IO. */
static void figures(const struct rb_progress *p, const struct pdrive *d, int64_t now, double *iops,
		    double *mbps)
{
	uint64_t iv = p->c->points[p->k].wl.interval_ns;
	int64_t idle = iv * 2 > 1000000000ULL ? (int64_t)iv * 2 : 1000000000LL;
	double s = (double)d->len_ns / 1e9;

	*iops = *mbps = 0;
	if (d->has_result || d->finished || !d->seen || now - d->seen > idle || s <= 0)
		return;
	*iops = (double)d->ios / s;
	*mbps = (double)d->bytes / s / 1e6;
}

/*
 * Time left, said: the rest of this point and the planned time of every later one; a
 * size-based point's time is its drives' (this one's estimated from its bytes so far),
 * so later ones are named, not guessed.
 */
static char *eta_text(const struct rb_progress *p, int64_t now, char *buf, size_t len)
{
	const struct rb_point *pt = &p->c->points[p->k];
	uint64_t el = (uint64_t)(now - p->point_start), left = 0;
	size_t unknown = 0, n;
	char t[32];

	if (!size_based(pt))
		left = el < p->point_ns ? p->point_ns - el : 0;
	else if (moved(p, &left) < 0 || left == UINT64_MAX)
		unknown++, left = 0;
	for (size_t i = p->k + 1; i < p->c->npoints; i++) {
		left += planned_ns(&p->c->points[i]);
		unknown += size_based(&p->c->points[i]);
	}
	n = (size_t)snprintf(
		buf, len, "%s",
		rb_fmt_duration_human(left / 1000000000ULL * 1000000000ULL, t, sizeof(t)));
	if (unknown && n < len)
		snprintf(buf + n, len - n, " + %zu size-based point(s)", unknown);
	return buf;
}

/* "1m10s of 5m00s", or for a size-based point "1m10s, 42% moved" (its slowest drive). */
static char *elapsed_text(const struct rb_progress *p, int64_t now, char *buf, size_t len)
{
	char el[32], plan[32];
	uint64_t left;
	double f;

	rb_fmt_duration_human((uint64_t)(now - p->point_start) / 1000000000ULL * 1000000000ULL, el,
			      sizeof(el));
	if (!size_based(&p->c->points[p->k]))
		snprintf(buf, len, "%s of %s", el,
			 rb_fmt_duration_human(p->point_ns, plan, sizeof(plan)));
	else if ((f = moved(p, &left)) >= 0)
		snprintf(buf, len, "%s, %.0f%% moved", el, floor(f * 100));
	else
		snprintf(buf, len, "%s, size-based", el);
	return buf;
}

/* The drives' figures added up: what runs now (a finished or idle drive adds 0). */
static void totals(const struct rb_progress *p, int64_t now, double *iops, double *mbps,
		   uint64_t *p99)
{
	*iops = *mbps = 0;
	*p99 = 0;
	for (size_t i = 0; i < p->nin; i++) {
		const struct pdrive *d = &p->d[p->in[i]];
		double di, dm;

		figures(p, d, now, &di, &dm);
		*iops += di;
		*mbps += dm;
		if (di > 0 && d->p99_ns > *p99)
			*p99 = d->p99_ns;
	}
}

static void draw(struct rb_progress *p, int64_t now)
{
	const struct rb_point *pt = &p->c->points[p->k];
	char el[64], eta[80];
	struct winsize ws = { 0 };
	unsigned rows = 24, cols = 80, lines = 0;
	size_t width = 20;
	size_t show;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 4)
		rows = ws.ws_row;
	if (ws.ws_col >= 80)
		cols = ws.ws_col;
	show = p->nin < rows - 4 ? p->nin : rows - 4;
	erase(p);
	fprintf(stderr, "%s%s \u00b7 point %zu/%zu %s \u00b7 %s \u00b7 ETA %s%s\n",
		p->color ? "\033[1m" : "", p->c->phases[pt->phase].name, p->k + 1, p->c->npoints,
		pt->name, elapsed_text(p, now, el, sizeof(el)), eta_text(p, now, eta, sizeof(eta)),
		p->color ? "\033[0m" : "");
	/* the drives' names whole where the terminal is wide enough, else cut in the middle */
	for (size_t i = 0; i < show; i++)
		if (strlen(p->d[p->in[i]].label) > width)
			width = strlen(p->d[p->in[i]].label);
	if (width > (size_t)cols - 45)
		width = (size_t)cols - 45;
	fprintf(stderr, "  %-*s %11s %9s %10s %6s\n", (int)width, "drive", "IOPS", "MB/s", "p99 us",
		"temp");
	lines = 2;
	for (size_t i = 0; i < show; i++) {
		const struct pdrive *d = &p->d[p->in[i]];
		char t[16] = "-", name[sizeof(d->label)];
		double iops, mbps;

		if (!isnan(d->temp_c))
			snprintf(t, sizeof(t), "%.0fC", d->temp_c);
		figures(p, d, now, &iops, &mbps);
		if (d->has_result || d->finished)
			fprintf(stderr, "  %-*s %11s\n", (int)width,
				rb_fit_name(d->label, width, name, sizeof(name)), "done");
		else
			fprintf(stderr, "  %-*s %11.0f %9.1f %10.1f %6s\n", (int)width,
				rb_fit_name(d->label, width, name, sizeof(name)), iops, mbps,
				iops > 0 ? (double)d->p99_ns / 1e3 : 0, t);
		lines++;
	}
	if (show < p->nin) {
		double iops, mbps;
		uint64_t p99;

		totals(p, now, &iops, &mbps, &p99);
		fprintf(stderr,
			"  ... %zu more; all drives: %.0f IOPS, %.1f MB/s, worst p99 %.1f us\n",
			p->nin - show, iops, mbps, (double)p99 / 1e3);
		lines++;
	}
	fflush(stderr);
	p->drawn = lines;
}

static void plain_line(struct rb_progress *p, int64_t now, const char *what)
{
	double iops, mbps;
	uint64_t p99;
	char eta[80];

	totals(p, now, &iops, &mbps, &p99);
	fprintf(stderr,
		"rackbench: [%zu/%zu] %s: %s, %zu drive(s): %.0f IOPS, %.1f MB/s, worst p99 %.1f us; "
		"ETA %s\n",
		p->k + 1, p->c->npoints, p->c->points[p->k].name, what, p->nin, iops, mbps,
		(double)p99 / 1e3, eta_text(p, now, eta, sizeof(eta)));
}

void rb_progress_tick(struct rb_progress *p)
{
	int64_t now = rb_mono_ns();

	if (!p)
		return;
	if (p->tty && now - p->last_draw >= REDRAW_NS) {
		draw(p, now);
		p->last_draw = now;
	} else if (!p->tty && now - p->last_line >= LINES_NS) {
		char what[80];

		plain_line(p, now, elapsed_text(p, now, what, sizeof(what)));
		p->last_line = now;
	}
}

void rb_progress_result(struct rb_progress *p, size_t drive, double iops, double bw_bytes_per_s,
			bool clean)
{
	if (!p || drive >= p->c->ndrives)
		return;
	/* a later attempt's row replaces an earlier one's, as in the report */
	p->d[drive].has_result = true;
	p->d[drive].clean = clean;
	p->d[drive].result_iops = iops;
	p->d[drive].result_bw = bw_bytes_per_s;
}

void rb_progress_point_done(struct rb_progress *p, enum rb_point_end end)
{
	static const char *const names[] = {
		[RB_POINT_OK] = "ok", [RB_POINT_FAILED] = "failed", [RB_POINT_ABORTED] = "aborted"
	};
	const char *status = names[end];
	const struct rb_point *pt = &p->c->points[p->k];
	double el = (double)(rb_mono_ns() - p->point_start) / 1e9;
	double iops = 0, mbps = 0;
	size_t nres = 0, bad = 0;
	char words[96];

	erase(p);
	/*
	 * The point's figures are its result rows added up: each drive's IOs over its own
	 * measured time. Never over the coordinator's wall time, which includes set-up and
	 * however long the coordinator took to drain the samples.
	 */
	for (size_t i = 0; i < p->nin; i++) {
		const struct pdrive *d = &p->d[p->in[i]];

		if (!d->has_result)
			continue;
		nres++;
		bad += !d->clean;
		iops += d->result_iops;
		mbps += d->result_bw / 1e6;
	}
	/* "ok" says the point ran to its end; a drive's errors are not "ok" */
	const char *ev_status = status;

	if (end == RB_POINT_OK && bad && bad == nres) {
		snprintf(words, sizeof(words), "failed: every drive had errors");
		status = words;
		ev_status = "failed";
	} else if (end == RB_POINT_OK && bad) {
		snprintf(words, sizeof(words), "%zu of %zu drive(s) with errors", bad, nres);
		status = words;
		ev_status = "errors";
	} else if (end == RB_POINT_OK && !nres && p->nin) {
		snprintf(words, sizeof(words), "failed: no drive's result came");
		status = words;
		ev_status = "failed";
	}
	fprintf(stderr,
		"rackbench: [%zu/%zu] %s: done (%s) in %.1f s, %zu drive(s): %.0f IOPS, "
		"%.1f MB/s",
		p->k + 1, p->c->npoints, pt->name, status, el, p->nin, iops, mbps);
	if (nres < p->nin)
		fprintf(stderr, " (from %zu drive(s) with results)", nres);
	fputc('\n', stderr);
	if (p->events) {
		event_head(p, "point_done");
		fprintf(p->events, ", \"point\": %u, \"status\": ", pt->index);
		rb_json_str(p->events, ev_status);
		fprintf(p->events,
			", \"elapsed_ns\": %lld, \"iops\": %.1f, \"bw_bytes_per_s\": %.1f, "
			"\"drives_with_errors\": %zu}\n",
			(long long)(rb_mono_ns() - p->point_start), iops, mbps * 1e6, bad);
		fflush(p->events);
	}
}

void rb_progress_end(struct rb_progress *p, const char *status, int exit_code)
{
	erase(p);
	if (p->events) {
		event_head(p, "run_done");
		fputs(", \"status\": ", p->events);
		rb_json_str(p->events, status);
		fprintf(p->events, ", \"exit_code\": %d, \"elapsed_ns\": %lld}\n", exit_code,
			(long long)(rb_mono_ns() - p->run_start));
		fflush(p->events);
	}
}

void rb_progress_free(struct rb_progress *p)
{
	if (!p)
		return;
	erase(p);
	if (p->tty)
		rb_log_set_hook(NULL, NULL);
	if (p->events)
		fclose(p->events);
	free(p->d);
	free(p->in);
	free(p);
}
