// SPDX-License-Identifier: MIT
/*
 * The verdicts of the service's runs on its metrics page (serve --metrics): when a run
 * ends, its results file's verdict rows, each with its drive's identity and labels, kept
 * per campaign (the campaign's next run replaces them) and shown as
 * rackbench_drive_verdict (metrics.c). The file is the record: the page shows what it
 * holds. With --results-db, the fleet's verdicts (rackbench judge) on those runs' drives
 * and on their racks and hosts too, read from the database after each run and every
 * SVC_FLEET_READ_S while none goes on (judge runs anywhere, any time), shown as
 * rackbench_fleet_verdict.
 */
#include "serve_priv.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "grow.h"
#include "log.h"
#include "metrics.h"
#include "results.h"
#include "results_db.h"

/* The drive row of drive in dr, or NULL. */
static const struct rb_row_drive *drive_of(const struct rb_row_drive *dr, size_t nd, uint32_t drive)
{
	for (size_t i = 0; i < nd; i++)
		if (dr[i].drive == drive)
			return &dr[i];
	return NULL;
}

void svc_verdicts_note(struct service *s, const char *campaign, const char *run,
		       const char *results)
{
	struct rb_row_drive *dr = NULL;
	struct rb_row_verdict *vd = NULL;
	size_t nd = 0, nvd = 0, k = 0;
	struct rb_results_in *in;
	char err[512];

	if (!s->metrics || !results[0])
		return;
	in = rb_results_open(results, err, sizeof(err));
	if (!in) {
		rb_warn("the metrics page has no verdicts of run %s: %s", run, err);
		return;
	}
	if (rb_results_read_drives(in, &dr, &nd) || rb_results_read_verdicts(in, &vd, &nvd)) {
		rb_warn("the metrics page has no verdicts of run %s: '%s': %s", run, results,
			rb_results_in_error(in));
		goto out;
	}
	/* the campaign's earlier run's rows go; a run that judged nothing leaves none */
	for (size_t i = 0; i < s->nverdicts; i++)
		if (strcmp(s->verdicts[i].campaign, campaign))
			s->verdicts[k++] = s->verdicts[i];
	s->nverdicts = k;
	/* its drives, whose fleet verdicts are read again now */
	k = 0;
	for (size_t i = 0; i < s->nran; i++)
		if (strcmp(s->ran[i].campaign, campaign))
			s->ran[k++] = s->ran[i];
	s->nran = k;
	for (size_t i = 0; i < nd && !RB_GROW(s->ran, s->capran, s->nran, 16); i++) {
		struct svc_ran *x = &s->ran[s->nran++];

		x->drive = dr[i];
		snprintf(x->campaign, sizeof(x->campaign), "%s", campaign);
		snprintf(x->run, sizeof(x->run), "%s", run);
	}
	s->nmarks = 0;
	s->fleet_next = 0;
	for (size_t i = 0; i < nvd; i++) {
		const struct rb_row_drive *d = drive_of(dr, nd, vd[i].drive);
		struct svc_verdict *v;

		if (!d || RB_GROW(s->verdicts, s->capverdicts, s->nverdicts, 64))
			continue;
		v = &s->verdicts[s->nverdicts++];
		v->drive = *d;
		snprintf(v->campaign, sizeof(v->campaign), "%s", campaign);
		snprintf(v->run, sizeof(v->run), "%s", run);
		snprintf(v->rule, sizeof(v->rule), "%s", vd[i].rule);
		snprintf(v->verdict, sizeof(v->verdict), "%s", vd[i].verdict);
	}
	s->metrics_dirty = true;
out:
	free(dr);
	free(vd);
	rb_results_in_close(in);
}

/* A drive of a results file as the page labels it. */
static struct rb_live_drive live_of(const struct rb_row_drive *d)
{
	return (struct rb_live_drive){ .agent = d->agent,
				       .host = d->host,
				       .path = d->id.path,
				       .serial = d->id.serial,
				       .model = d->id.model,
				       .firmware = d->id.firmware,
				       .alias = d->alias,
				       .labels = d->labels };
}

struct rb_metrics_verdict *svc_verdicts_view(const struct service *s)
{
	struct rb_metrics_verdict *v = calloc(s->nverdicts + s->nmarks + 1, sizeof(*v));

	for (size_t i = 0; v && i < s->nverdicts; i++) {
		const struct svc_verdict *x = &s->verdicts[i];

		v[i] = (struct rb_metrics_verdict){
			.drive = live_of(&x->drive),
			.campaign = x->campaign,
			.run = x->run,
			.rule = x->rule,
			.verdict = x->verdict,
		};
	}
	for (size_t i = 0; v && i < s->nmarks; i++) {
		const struct svc_mark *m = &s->marks[i];
		const struct svc_ran *r = m->ran < s->nran ? &s->ran[m->ran] : NULL;

		v[s->nverdicts + i] = (struct rb_metrics_verdict){
			.drive = r ? live_of(&r->drive) : (struct rb_live_drive){ 0 },
			.campaign = m->campaign,
			.run = r ? r->run : NULL,
			.rule = m->rule,
			.verdict = m->verdict,
			.domain = r ? NULL : m->subject,
		};
	}
	return v;
}

/* The subjects of campaign's fleet verdicts a page shows, one a line: its last run's
 * drives' keys, their hosts and racks as the judge names a domain. NULL: no memory. */
static char *subjects_of(const struct service *s, const char *campaign)
{
	char *buf = NULL, key[320], rack[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < s->nran; i++) {
		const struct svc_ran *r = &s->ran[i];

		if (strcmp(r->campaign, campaign))
			continue;
		rb_row_drive_key(&r->drive, key, sizeof(key));
		fprintf(f, "%s\nhost=%s\n", key, r->drive.host);
		if (rb_row_label(r->drive.labels, "rack", rack, sizeof(rack))[0])
			fprintf(f, "rack=%s\n", rack);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The row in ran of campaign's drive of key; SIZE_MAX: none (a domain). */
static size_t ran_of(const struct service *s, const char *campaign, const char *key)
{
	char k[320];

	for (size_t i = 0; i < s->nran; i++) {
		if (strcmp(s->ran[i].campaign, campaign))
			continue;
		rb_row_drive_key(&s->ran[i].drive, k, sizeof(k));
		if (!strcmp(k, key))
			return i;
	}
	return SIZE_MAX;
}

/* Campaign's marks from the database after the n kept: the new count, or -1 (err). */
static int read_campaign(struct service *s, struct rb_resdb *db, const char *campaign,
			 struct svc_mark **marks, size_t n, size_t *cap, char *err, size_t len)
{
	struct rb_resdb_mark *m = NULL;
	size_t nm = 0;
	char *subjects = subjects_of(s, campaign);
	int r;

	if (!subjects) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	r = rb_resdb_fleet_marks(db, campaign, subjects, &m, &nm, err, len);
	free(subjects);
	if (r)
		return -1;
	for (size_t i = 0; i < nm && !RB_GROW(*marks, *cap, n, 16); i++) {
		struct svc_mark *x = &(*marks)[n++];

		x->ran = ran_of(s, campaign, m[i].subject);
		snprintf(x->campaign, sizeof(x->campaign), "%s", campaign);
		snprintf(x->rule, sizeof(x->rule), "%s", m[i].rule);
		snprintf(x->verdict, sizeof(x->verdict), "%s", m[i].verdict);
		snprintf(x->subject, sizeof(x->subject), "%s", m[i].subject);
	}
	free(m);
	return (int)n;
}

void svc_fleet_read(struct service *s)
{
	struct svc_mark *marks = NULL;
	size_t n = 0, cap = 0;
	struct rb_resdb *db;
	char err[1024];
	int e, r = 0;

	if (!s->metrics || !s->results_db || !s->nran || rb_wall_ns() < s->fleet_next)
		return;
	s->fleet_next = rb_wall_ns() + SVC_FLEET_READ_S * 1000000000LL;
	db = rb_resdb_open(s->results_db, err, sizeof(err), &e);
	/* each campaign once: its drives' rows are together, in the order its run ended */
	for (size_t i = 0; db && r >= 0 && i < s->nran; i++) {
		if (i && !strcmp(s->ran[i].campaign, s->ran[i - 1].campaign))
			continue;
		r = read_campaign(s, db, s->ran[i].campaign, &marks, n, &cap, err, sizeof(err));
		if (r >= 0)
			n = (size_t)r;
	}
	rb_resdb_close(db);
	if (!db || r < 0) {
		free(marks);
		if (!s->fleet_down)
			rb_warn("the metrics page keeps the fleet's verdicts it had: %s (tried "
				"again in 5 min)",
				err);
		s->fleet_down = true;
		s->fleet_next = rb_wall_ns() + 300 * 1000000000LL;
		return;
	}
	if (s->fleet_down)
		rb_info("the metrics page reads the fleet's verdicts again");
	s->fleet_down = false;
	free(s->marks);
	s->marks = marks;
	s->nmarks = n;
	s->metrics_dirty = true;
}

void svc_verdicts_release(struct service *s)
{
	free(s->verdicts);
	s->verdicts = NULL;
	s->nverdicts = s->capverdicts = 0;
	free(s->ran);
	s->ran = NULL;
	s->nran = s->capran = 0;
	free(s->marks);
	s->marks = NULL;
	s->nmarks = 0;
}
