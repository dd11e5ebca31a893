// SPDX-License-Identifier: MIT
/* libFuzzer target: fio job files (the ini reader, expressions, the translation). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fiojob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct rb_fio_file f;
	struct rb_fio_xlate *x = NULL;
	struct rb_diags d;
	size_t n = 0;
	FILE *out;

	/* the reader takes a path (includes are relative to it): one scratch file */
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/rb-fuzz-fiojob-%d.fio", (int)getpid());
	out = fopen(path, "w");
	if (!out)
		return 0;
	fwrite(data, 1, size, out);
	fclose(out);
	rb_diags_init(&d);
	if (rb_fio_parse(path, &f, &d) == 0) {
		if (rb_fio_translate(&f, &x, &n, &d) == 0) {
			/* a translated job is a workload the engine accepts */
			char err[256];

			for (size_t i = 0; i < n; i++)
				if (rb_workload_check(&x[i].wl, err, sizeof(err)))
					__builtin_trap();
			rb_fio_xlate_free(x, n);
		} else if (!rb_diags_errors(&d)) {
			__builtin_trap();	/* every refusal says why */
		}
		rb_fio_release(&f);
	} else if (!rb_diags_errors(&d)) {
		__builtin_trap();
	}
	rb_diags_release(&d);
	return 0;
}
