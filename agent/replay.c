// SPDX-License-Identifier: MIT
/* rw replay outside the engine: its figures printed. */
#include "replay.h"

#include <inttypes.h>
#include <string.h>

#include "units.h"

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
