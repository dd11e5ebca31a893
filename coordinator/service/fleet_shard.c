// SPDX-License-Identifier: MIT
/*
 * What the service does for `rackbench fleet run` (serve_priv.h): the "time" request that
 * measures its clock against the fleet client's (one round trip each, as an agent's
 * probes: common/wire/clocksync.h), a shard's fields of a run request (its agents, the
 * fleet's start instant in this service's wall clock), and the start skew its status
 * reports. The service's clocks are the clock seam's (common/util/clock.h): a test gives a
 * service a wall clock that is off with RB_TEST_WALL_OFFSET_NS.
 */
#include "serve_priv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "clock.h"
#include "log.h"

void svc_fleet_clock(struct service *s)
{
	const char *off = getenv("RB_TEST_WALL_OFFSET_NS");

	s->wall_offset_ns = off ? strtoll(off, NULL, 10) : 0;
	s->clock = rb_clock_real_offset(&s->wall_offset_ns);
	if (s->wall_offset_ns)
		rb_warn("test: this service's wall clock is off by %+.3f s",
			(double)s->wall_offset_ns / 1e9);
}

void svc_fleet_time(struct service *s, int64_t t1)
{
	svc_reply(s, "ok\nt1=%" PRId64 "\nt2=%" PRId64 "\n", t1, rb_clock_wall(&s->clock));
}

int64_t svc_fleet_start(const char *req)
{
	char v[32];

	return rb_control_field(req, "start_at", v, sizeof(v)) ? strtoll(v, NULL, 10) : 0;
}

struct rb_campaign *svc_fleet_cut(struct service *s, struct rb_campaign *c, const char *req,
				  const char *journaled)
{
	char *spec = malloc(RB_CONTROL_VALUE_MAX), err[512];

	if (!spec) {
		/* never the whole fleet's campaign on this rack for want of memory */
		svc_reply(s, "error\nout of memory\n");
		return rb_campaign_free(c);
	}
	/* a resume's shard is the journal's: the run cut again as it ran */
	if (journaled)
		snprintf(spec, RB_CONTROL_VALUE_MAX, "%s", journaled);
	else if (!rb_control_field(req, "shard", spec, RB_CONTROL_VALUE_MAX)) {
		free(spec);
		return c;
	}
	if (rb_campaign_shard(c, spec, err, sizeof(err))) {
		svc_reply(s, "error\n%s\n", err);
		c = rb_campaign_free(c);
	}
	free(spec);
	return c;
}

void svc_fleet_done(const struct service *s, struct done_run *dr)
{
	dr->skew_lo = s->state.skew_lo_ns;
	dr->skew_hi = s->state.skew_hi_ns;
	dr->skew_n = s->state.skew_n;
	dr->late = s->state.late_ns;
}

const char *svc_fleet_lines(const struct service *s, const struct done_run *dr, char *buf,
			    size_t len)
{
	int64_t lo = dr ? dr->skew_lo : s->state.skew_lo_ns;
	int64_t hi = dr ? dr->skew_hi : s->state.skew_hi_ns;
	int64_t late = dr ? dr->late : s->state.late_ns;
	unsigned n = dr ? dr->skew_n : s->state.skew_n;

	buf[0] = '\0';
	if (n)
		snprintf(buf, len, "start_skew=%" PRId64 " %" PRId64 " %u\n", lo, hi, n);
	if (late)
		snprintf(buf + strlen(buf), len - strlen(buf), "start_late=%" PRId64 "\n", late);
	return buf;
}
