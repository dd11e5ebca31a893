// SPDX-License-Identifier: MIT
/* rw replay outside the engine: the runner's questions of a trace, and its figures printed. */
#include "replay.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "units.h"

int rb_replay_scan(const struct rb_workload *wl, struct rb_trace_summary *ret, struct rb_diags *d)
{
	char err[512];
	int e = rb_trace_scan(wl->replay, (int)wl->replay_format, wl->replay_device, ret, err,
			      sizeof(err));

	if (!e)
		return 0;
	rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, "replay", "%s", err);
	return e == -ENOMEM ? e : -EINVAL;
}

void rb_replay_refused(const struct rb_workload *wl, const struct rb_trace_summary *s,
		       struct rb_diags *d)
{
	char where[4200];

	if (!s->first_write_line)
		return;
	snprintf(where, sizeof(where), "%s:%" PRIu64, wl->replay, s->first_write_line);
	rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, where,
		     "the trace writes from here on (%" PRIu64 " writes, %" PRIu64
		     " trims): a replay that writes needs both keys, the target allowed "
		     "and the run's destructive key",
		     s->ios[RB_TRACE_WRITE], s->ios[RB_TRACE_TRIM]);
}

int rb_replay_fits(const struct rb_workload *wl, const char *target, uint64_t span, uint32_t lbs,
		   struct rb_diags *d)
{
	char err[512];
	int e = rb_trace_check_fits(wl->replay, (int)wl->replay_format, wl->replay_device, span,
				    lbs, (int)wl->replay_remap, err, sizeof(err));

	if (!e)
		return 0;
	rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, target, "%s", err);
	return e == -ENOMEM ? e : -EINVAL;
}

void rb_replay_merge(struct rb_replay_result *dst, const struct rb_replay_result *src, bool first)
{
	if (first) {
		*dst = *src;
		return;
	}
	dst->ios += src->ios;
	dst->complete &= src->complete;
	if (src->last_line > dst->last_line)
		dst->last_line = src->last_line;
	if (src->lag_max_ns > dst->lag_max_ns)
		dst->lag_max_ns = src->lag_max_ns;
	if (src->lag.total)
		rb_hist_merge(&dst->lag, &src->lag);
}

void rb_replay_print_text(FILE *out, const struct rb_workload *wl,
			  const struct rb_target_result *res)
{
	char rt[32];

	if (wl->rw != RB_RW_REPLAY)
		return;
	fprintf(out, "  replay %" PRIu64 " IOs of %s", res->replay.ios, wl->replay);
	if (res->replay.timed)
		fprintf(out, ", issue lag (us): p50=%.2f p99=%.2f max=%.2f",
			(double)rb_hist_percentile(&res->replay.lag, 50) / 1e3,
			(double)rb_hist_percentile(&res->replay.lag, 99) / 1e3,
			(double)res->replay.lag_max_ns / 1e3);
	fputc('\n', out);
	if (!res->replay.complete && !res->setup_err)
		fprintf(out,
			"  replay stopped at line %" PRIu64 " of the trace, before its end: "
			"runtime (%s) ended it (give a longer --runtime)\n",
			res->replay.last_line, rb_fmt_duration(wl->runtime_ns, rt, sizeof(rt)));
}

void rb_replay_print_json(FILE *out, const struct rb_workload *wl,
			  const struct rb_target_result *res)
{
	if (wl->rw != RB_RW_REPLAY)
		return;
	fprintf(out,
		", \"replay\": {\"ios\": %" PRIu64 ", \"last_line\": %" PRIu64
		", \"complete\": %s, \"timed\": %s, \"lag_ns\": {\"p50\": %" PRIu64
		", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "}}",
		res->replay.ios, res->replay.last_line, res->replay.complete ? "true" : "false",
		res->replay.timed ? "true" : "false", rb_hist_percentile(&res->replay.lag, 50),
		rb_hist_percentile(&res->replay.lag, 99), res->replay.lag_max_ns);
}
