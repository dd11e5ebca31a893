// SPDX-License-Identifier: MIT
/*
 * The verdicts of the service's runs on its metrics page (serve --metrics): when a run
 * ends, its results file's verdict rows, each with its drive's identity and labels, kept
 * per campaign (the campaign's next run replaces them) and shown as
 * rackbench_drive_verdict (metrics.c). The file is the record: the page shows what it
 * holds.
 */
#include "serve_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "log.h"
#include "metrics.h"
#include "results.h"

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

struct rb_metrics_verdict *svc_verdicts_view(const struct service *s)
{
	struct rb_metrics_verdict *v = calloc(s->nverdicts + 1, sizeof(*v));

	for (size_t i = 0; v && i < s->nverdicts; i++) {
		const struct svc_verdict *x = &s->verdicts[i];

		v[i] = (struct rb_metrics_verdict){
			.drive = { .agent = x->drive.agent,
				   .host = x->drive.host,
				   .path = x->drive.id.path,
				   .serial = x->drive.id.serial,
				   .model = x->drive.id.model,
				   .firmware = x->drive.id.firmware,
				   .alias = x->drive.alias,
				   .labels = x->drive.labels },
			.campaign = x->campaign,
			.run = x->run,
			.rule = x->rule,
			.verdict = x->verdict,
		};
	}
	return v;
}

void svc_verdicts_release(struct service *s)
{
	free(s->verdicts);
	s->verdicts = NULL;
	s->nverdicts = s->capverdicts = 0;
}
