// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: NVMe log pages (FDP, OCP, telemetry header), the input given whole
 * to every parser, and its two halves of 64 bytes as FDP statistics before and after.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "nvme_logs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_ret(int r)
{
	if (r != 0 && r != -EINVAL && r != -EBADMSG)
		__builtin_trap();
}

static void fuzz_stats(const uint8_t *data, size_t size)
{
	struct rb_fdp_stats a, b;
	double waf;

	check_ret(rb_fdp_stats_parse(data, size, &a));
	if (size < 128 || rb_fdp_stats_parse(data, 64, &a) || rb_fdp_stats_parse(data + 64, 64, &b))
		return;
	/* a ratio of bytes: NAN, or finite and not negative when the host wrote */
	waf = rb_fdp_waf(&a, &b);
	if (!isnan(waf) && !(waf >= 0))
		__builtin_trap();
	if (b.hbmw > a.hbmw && b.mbmw >= a.mbmw && b.mbe >= a.mbe && isnan(waf))
		__builtin_trap();
}

static void fuzz_fdp(const uint8_t *data, size_t size)
{
	static struct rb_fdp_configs c;
	static struct rb_fdp_ruhu u;
	static struct rb_fdp_events ev;
	size_t used = 16;
	int r;

	r = rb_fdp_configs_parse(data, size, &c);
	check_ret(r);
	if (r == 0) {
		/* within the maxima, and every decoded descriptor inside the buffer */
		if (c.n > RB_FDP_MAX_CONFIGS || c.n > c.total || c.total > 65536)
			__builtin_trap();
		for (unsigned i = 0; i < c.n; i++) {
			if (c.config[i].size_bytes < 64 + 4 * (size_t)c.config[i].nruh)
				__builtin_trap();
			used += c.config[i].size_bytes;
		}
		if (used > size)
			__builtin_trap();
	}
	r = rb_fdp_ruhu_parse(data, size, &u);
	check_ret(r);
	if (r == 0 && (u.n > RB_FDP_MAX_RUH || u.n > u.total || 8 + 8 * (size_t)u.n > size))
		__builtin_trap();
	r = rb_fdp_events_parse(data, size, &ev);
	check_ret(r);
	if (r == 0 &&
	    (ev.n > RB_FDP_MAX_EVENTS || ev.n > ev.total || 64 + 64 * (size_t)ev.n > size))
		__builtin_trap();
	for (unsigned i = 0; r == 0 && i < ev.n; i++)
		if (ev.event[i].timestamp_ms >> 48)
			__builtin_trap();
}

static void fuzz_ocp(const uint8_t *data, size_t size)
{
	struct rb_ocp_smart s;
	struct rb_ocp_latency l;
	int r;

	r = rb_ocp_smart_parse(data, size, &s);
	check_ret(r);
	if (r == 0 && (size < RB_OCP_LOG_SIZE || s.bad_user_blocks >> 48 ||
		       s.bad_system_blocks >> 48 || s.refreshes >> 56))
		__builtin_trap();
	r = rb_ocp_latency_parse(data, size, &l);
	check_ret(r);
	if (r == 0 && size < RB_OCP_LOG_SIZE)
		__builtin_trap();
	/* thresholds run from 5 ms (00h) to 1.28 s (FFh) */
	for (int i = 0; r == 0 && i < 4; i++)
		if (l.threshold_ms[i] < 5 || l.threshold_ms[i] > 1280)
			__builtin_trap();
}

static void fuzz_telemetry(const uint8_t *data, size_t size)
{
	struct rb_telemetry_header h;
	size_t prev = 512;
	int r;

	r = rb_telemetry_header_parse(data, size, &h);
	check_ret(r);
	if (r)
		return;
	if (size < RB_TELEMETRY_HDR_SIZE || (h.lid != 0x07 && h.lid != 0x08))
		__builtin_trap();
	/* the header at least, whole blocks, never less for a later area */
	if (rb_telemetry_bytes(&h, 0) || rb_telemetry_bytes(&h, 5))
		__builtin_trap();
	for (unsigned a = 1; a <= 4; a++) {
		size_t n = rb_telemetry_bytes(&h, a);

		if (n < prev || n % 512)
			__builtin_trap();
		prev = n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_stats(data, size);
	fuzz_fdp(data, size);
	fuzz_ocp(data, size);
	fuzz_telemetry(data, size);
	return 0;
}
