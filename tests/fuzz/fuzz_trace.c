// SPDX-License-Identifier: MIT
/* libFuzzer target: block traces (every format, told or detected), records placed. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const devices[] = { NULL, "8,0", "0", "/dev/sdb" };

	for (int format = RB_TRACE_AUTO; format <= RB_TRACE_BLKTRACE; format++) {
		struct rb_trace *t = NULL;
		struct rb_trace_rec r;
		char err[512] = "";
		uint64_t line = 0;
		int e;

		e = rb_trace_open_mem("fuzz", data, size, format, devices[size % 4], &t, err,
				      sizeof(err));
		if (e) {
			/* every refusal says why */
			if (!err[0])
				__builtin_trap();
			continue;
		}
		while ((e = rb_trace_next(t, &r, err, sizeof(err))) == 1) {
			uint64_t off, len, span = 1 << 20;

			/* records are IOs, in line order, that end before 2^64 */
			if (!r.len || r.len > RB_TRACE_MAX_IO || r.offset > UINT64_MAX - r.len ||
			    r.line <= line || r.dir > RB_TRACE_TRIM)
				__builtin_trap();
			line = r.line;
			if (rb_trace_place(&r, span, 512, RB_TRACE_MODULO, &off, &len) == 0 &&
			    (off + len > span || off % 512 || len % 512 || len < r.len))
				__builtin_trap();
		}
		/* an error names the trace and its line */
		if (e < 0 && strncmp(err, "fuzz", 4))
			__builtin_trap();
		rb_trace_free(t);
	}
	return 0;
}
