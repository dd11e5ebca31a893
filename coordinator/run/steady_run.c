// SPDX-License-Identifier: MIT
/*
 * Steady state judged as the run goes: after each round of a phase (SNIA PTS rounds),
 * and interval by interval in a rolling point, over the judge in steady.c.
 */
#include <stdlib.h>
#include <string.h>

#include "coord_priv.h"
#include "campaign.h"
#include "log.h"
#include "wire.h"
#include "grow.h"

/* How steady_state rows name the tracking metric (enum rb_track_metric). */
static const char *const track_metric[] = { "iops", "mbps", "mean_latency_us" };

/* Remembers a steady-state round's results row, to mark it once the verdict is in. */
void srun_note(struct coord *k, long row, int di, unsigned round)
{
	if (RB_GROW(k->steady.ss, k->steady.capss, k->steady.nss, 64))
		return;
	k->steady.ss[k->steady.nss++] = (struct ss_row){ .row = row, .drive = di, .round = round };
}

/* A verdict row's window figures, from the judge (both steady-state modes). */
static void steady_fill(struct rb_row_steady *row, const struct rb_steady *st)
{
	row->avg = st->avg;
	row->min = st->min;
	row->max = st->max;
	row->slope = st->slope;
	row->range_ok = st->range_ok;
	row->slope_ok = st->slope_ok;
}

void srun_roll_free(struct coord *k)
{
	for (size_t i = 0; k->steady.roll && i < k->c->ndrives; i++)
		free(k->steady.roll[i].v);
	free(k->steady.roll);
	k->steady.roll = NULL;
}

/* A rolling steady state: one drive's interval is complete; judge the last window. */
static void roll_push(struct coord *k, const struct rb_point *p, struct roll *r)
{
	const struct rb_phase *P = &k->c->phases[p->phase];
	double s = (double)p->wl.interval_ns / 1e9, v;

	if (r->n == r->cap) {
		unsigned nc = r->cap ? r->cap * 2 : 64;
		double *nv = realloc(r->v, nc * sizeof(*nv));

		if (!nv)
			return;
		r->v = nv;
		r->cap = nc;
	}
	v = P->metric == RB_TRACK_MBPS ? (double)r->bytes / s / 1e6
	    : P->metric == RB_TRACK_MEAN_LAT
		    ? (r->ios ? (double)r->lat_ns / (double)r->ios / 1e3 : 0)
		    : (double)r->ios / s;
	r->v[r->n++] = v;
	r->ios = r->bytes = r->lat_ns = 0;
	if (!r->steady && r->n >= P->steady_window) {
		rb_steady_window(r->v + r->n - P->steady_window, P->steady_window, &r->st);
		if (r->st.steady) {
			r->steady = true;
			r->at = (long)r->n - 1;
			k->steady.roll_steady++;
		}
	}
}

/*
 * Feeds one sample to the rolling judge. Returns true once, when every drive of the point
 * is steady: the point is to stop.
 */
bool srun_roll_sample(struct coord *k, int di, const struct rb_msg_sample *smp)
{
	const struct rb_point *p = &k->c->points[k->cur_point];
	struct roll *r;

	if (!k->steady.roll || smp->point != k->cur_point || di < 0)
		return false;
	r = &k->steady.roll[di];
	if (!r->have) {
		r->have = true;
		r->interval = smp->interval;
	}
	if (smp->interval != r->interval) {
		roll_push(k, p, r);
		r->interval = smp->interval;
	}
	r->ios += smp->ios;
	r->bytes += smp->bytes;
	r->lat_ns += smp->lat_sum_ns;
	if (k->steady.roll_steady == k->point_drives && !k->steady.roll_stopped &&
	    k->jr.apply == APPLY_LIVE) {
		k->steady.roll_stopped = true;
		rb_info("point %u: every drive is steady; stopping it", p->index);
		return true;
	}
	return false;
}

/* A rolling point's verdict for one drive, with its result row. */
void srun_roll_verdict(struct coord *k, const struct rb_point *p, int di, struct rb_row_result *row)
{
	const struct rb_phase *P = &k->c->phases[p->phase];
	struct roll *r = &k->steady.roll[di];
	struct rb_row_steady st;

	if (!r->steady && r->n >= P->steady_window)
		rb_steady_window(r->v + r->n - P->steady_window, P->steady_window, &r->st);
	row->steady = r->steady ? 1 : 2;
	memset(&st, 0, sizeof(st));
	st.drive = (uint32_t)di;
	copy(st.phase, sizeof(st.phase), P->name);
	st.point = p->index;
	st.rolling = 1;
	copy(st.metric, sizeof(st.metric), track_metric[P->metric]);
	st.rounds = r->n;
	st.window = P->steady_window;
	st.steady = r->steady;
	st.steady_round = r->steady ? (uint32_t)r->at + 1 : 0;
	steady_fill(&st, &r->st);
	rb_results_steady(k->res, &st);
}

/*
 * After round `round` of steady-state phase `ph`: judges every drive's tracking values
 * (SNIA PTS). When every drive that has them is steady, or at the last round, writes
 * the verdicts and marks the phase's results rows; returns true to end the phase.
 */
bool srun_check(struct coord *k, unsigned ph, unsigned round)
{
	const struct rb_campaign *c = k->c;
	const struct rb_phase *P = &c->phases[ph];
	size_t *track = calloc(round + 1, sizeof(*track));
	double *y = calloc(round + 1, sizeof(*y));
	bool all = true, any = false, final = round >= P->steady_rounds;

	if (!track || !y) {
		free(track);
		free(y);
		return false;
	}
	for (size_t i = 0; i < c->npoints; i++)
		if (c->points[i].phase == ph && c->points[i].track && c->points[i].round <= round)
			track[c->points[i].round - 1] = i;
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0 decides; pass 1 (when the phase ends) records */
		for (size_t d = 0; d < c->ndrives; d++) {
			struct rb_steady st;
			bool complete = true;
			long at;

			if (!rb_point_has_drive(c, &c->points[track[0]], d))
				continue;
			for (unsigned r = 0; r < round; r++) {
				const struct summary *s = &k->sum[track[r] * c->ndrives + d];

				complete &= s->have && s->status == RB_STATUS_OK;
				y[r] = P->metric == RB_TRACK_MBPS	? s->mbps
				       : P->metric == RB_TRACK_MEAN_LAT ? s->mean_ns / 1e3
									: s->iops;
			}
			at = complete ? rb_steady_find(y, round, P->steady_window, &st) : -1;
			if (!complete)
				memset(&st, 0, sizeof(st));
			if (pass == 0) {
				any |= complete;
				all &= !complete || at >= 0;
				continue;
			}
			struct rb_row_steady row;

			memset(&row, 0, sizeof(row));
			row.drive = (uint32_t)d;
			copy(row.phase, sizeof(row.phase), P->name);
			row.point = (uint32_t)track[round - 1];
			copy(row.metric, sizeof(row.metric), track_metric[P->metric]);
			row.rounds = round;
			row.window = P->steady_window;
			row.steady = at >= 0;
			row.steady_round = at >= 0 ? (uint32_t)at + 1 : 0;
			steady_fill(&row, &st);
			rb_results_steady(k->res, &row);
			for (size_t i = 0; i < k->steady.nss; i++) {
				const struct ss_row *x = &k->steady.ss[i];
				bool in = at >= 0 && x->round <= (unsigned)at + 1 &&
					  x->round + P->steady_window > (unsigned)at + 1;

				if (x->drive == (int)d)
					rb_results_set_steady(k->res, x->row, in ? 1 : 2);
			}
			if (at >= 0)
				rb_info("phase '%s': drive %s:%s steady at round %ld (window %ld-%ld, "
					"average %.6g %s)",
					P->name, c->drives[d].agent, c->drives[d].path, at + 1,
					at + 2 - (long)P->steady_window, at + 1, st.avg,
					track_metric[P->metric]);
			else
				rb_warn("phase '%s': drive %s:%s not steady after %u round(s)",
					P->name, c->drives[d].agent, c->drives[d].path, round);
		}
		if (pass == 0 && !(any && all) && !final)
			break;
	}
	free(track);
	free(y);
	if ((any && all) || final) {
		k->steady.nss = 0;
		return true;
	}
	return false;
}
