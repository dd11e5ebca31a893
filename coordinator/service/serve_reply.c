// SPDX-License-Identifier: MIT
/*
 * The service's answers on its control socket (serve_priv.h): `rackbench agents`
 * (each agent, its labels, with --drives its targets) and `rackbench status` (the run
 * going on with each drive's last interval, or the runs ended, and the queue). Lines of
 * tab-separated fields; control.c reads them.
 */
#include "serve_priv.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "clock.h"

void svc_reply(struct service *s, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (s->answered) {
		/* its client had its answer when the run was queued: what went wrong goes to
		 * the run's log (stderr by now), which the client follows */
		if (n > 0 && !strncmp(text, "error\n", 6))
			fprintf(stderr, "rackbench: error: %s", text + 6);
		free(text);
		return;
	}
	if (n < 0) {
		rb_tx_text_send(s->reply_to, "error\nout of memory\n", 20);
		return;
	}
	rb_tx_text_send(s->reply_to, text, (size_t)n);
	free(text);
}

bool svc_in_run(struct service *s, const char *name)
{
	for (size_t i = 0; s->running && s->c && i < s->c->nagents; i++)
		if (!strcmp(s->c->agents[i], name))
			return true;
	return false;
}

/* s with a tab, newline or comma (which would cut the reply's fields) as a space. */
static void put_field(FILE *f, const char *s)
{
	for (const char *c = s; c && *c; c++)
		fputc(strchr("\t\n,", *c) ? ' ' : *c, f);
}

/* An agent's labels as K=V,K=V. */
static void put_labels(FILE *f, const struct rb_msg *hello)
{
	for (size_t i = 0; hello && i < hello->hello.nlabels; i++) {
		if (i)
			fputc(',', f);
		put_field(f, hello->hello.labels[i].key);
		fputc('=', f);
		put_field(f, hello->hello.labels[i].value);
	}
}

void svc_reply_agents(struct service *s, bool drives)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int64_t now = rb_wall_ns();

	if (!f) {
		svc_reply(s, "error\nout of memory\n");
		return;
	}
	fprintf(f, "ok\n");
	for (size_t i = 0; i < s->nagents; i++) {
		const struct reg *r = &s->agents[i];

		fprintf(f, "%s\t%s\t%s\t%s\t%zu\t%.1f\t%s\t", r->name, r->host, r->version,
			r->proto, r->ntargets, (double)(now - r->last_ns) / 1e9,
			svc_in_run(s, r->name) ? "running" : "idle");
		put_labels(f, r->hello);
		fputc('\n', f);
		/* its targets as its last Hello said them: "+" PATH KIND MODEL SERIAL FW BYTES */
		for (size_t t = 0; drives && r->hello && t < r->hello->hello.ntargets; t++) {
			const struct rb_identity *x = &r->hello->hello.targets[t];

			fputs("+\t", f);
			put_field(f, x->path);
			fputc('\t', f);
			put_field(f, x->kind);
			fputc('\t', f);
			put_field(f, x->model);
			fputc('\t', f);
			put_field(f, x->serial);
			fputc('\t', f);
			put_field(f, x->firmware);
			fprintf(f, "\t%llu\n", (unsigned long long)x->size_bytes);
		}
	}
	fclose(f);
	rb_tx_text_send(s->reply_to, text, len);
	free(text);
}

/* "queued=ID CAMPAIGN" lines, in order (static: one reply at a time). */
static const char *queue_lines(const struct service *s)
{
	static char buf[QUEUE_MAX * 200];
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < s->nqueue && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "queued=%s %s\n", s->queue[i].id,
				      s->queue[i].campaign);
	return buf;
}

/*
 * The planned time of the points after the one running (their ramp and runtime; a
 * size-based point's is its drives': counted in *sized instead).
 */
static double planned_left(const struct service *s, size_t *sized)
{
	double left = 0;

	*sized = 0;
	for (size_t i = s->state.point + 1; s->c && i < s->c->npoints; i++) {
		const struct rb_workload *wl = &s->c->points[i].wl;

		if (wl->io_size || wl->passes)
			(*sized)++;
		else
			left += (double)(wl->ramp_ns + wl->runtime_ns) / 1e9;
	}
	return left;
}

/*
 * "drive=NAME\tIOPS\tMBPS\tP99US\tTEMPC\tERRORS\tMEASURED" lines of the run's first
 * max drives, then "drives_total=N": a follower's view shows a screenful and asks five
 * times a second, which for a fleet's 24,000 drives was a tenth of the coordinator.
 */
static char *running_drives(const struct service *s, size_t max)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f, "drives_total=%zu\n", s->nlive);
	for (size_t i = 0; i < s->nlive && i < max; i++) {
		const struct svc_drive *d = &s->live[i];

		fprintf(f, "drive=%s\t%.1f\t%.3f\t%.1f\t%.1f\t%llu\t%d\n", d->name, d->iops,
			d->mbps, d->p99_us, d->temp_c, (unsigned long long)d->io_errors,
			d->measured);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

void svc_reply_status(struct service *s, const char *id, size_t max_drives)
{
	size_t sized = 0;

	if (s->running && (!id || !strcmp(id, s->id))) {
		char *drives = running_drives(s, max_drives), fl[128];

		svc_reply(s,
			  "ok\nstate=running\nphase=%s\nid=%s\ncampaign=%s\npoint=%zu\npoints=%zu\n"
			  "results=%s\nplanned_left_s=%.0f\nsize_based_left=%zu\n%s%s%s",
			  s->state.phase, s->id, s->c->name, s->state.point, s->state.npoints,
			  s->state.results, planned_left(s, &sized), sized,
			  svc_fleet_lines(s, NULL, fl, sizeof(fl)), drives ? drives : "",
			  id ? "" : queue_lines(s));
		free(drives);
		return;
	}
	for (unsigned i = 0; id && i < s->nqueue; i++)
		if (!strcmp(id, s->queue[i].id)) {
			svc_reply(s, "ok\nstate=queued\nid=%s\ncampaign=%s\nposition=%u\n", id,
				  s->queue[i].campaign, i + 1);
			return;
		}
	for (unsigned i = s->ndone; i-- > 0;) {
		const struct done_run *d = &s->done[i % 16];

		if (i + 16 < s->ndone)
			break;
		if (!id || !strcmp(id, d->id)) {
			char fl[128];

			svc_reply(s, "ok\nstate=%s\nid=%s\ncampaign=%s\nexit=%d\nresults=%s\n%s%s",
				  id ? "done" : "idle", d->id, d->campaign, d->rc, d->results,
				  svc_fleet_lines(s, d, fl, sizeof(fl)), id ? "" : queue_lines(s));
			return;
		}
	}
	if (id)
		svc_reply(s, "error\nno run '%s' (the service keeps the last 16)\n", id);
	else
		svc_reply(s, "ok\nstate=idle\n");
}
