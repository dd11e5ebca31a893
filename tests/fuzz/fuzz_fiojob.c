// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: fio job files (the ini reader, expressions, the translation), and
 * the same bytes as fio's command line (a line an argument) through rb_fio_cmdline.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fiojob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(struct rb_fio_file *f, struct rb_diags *d)
{
	struct rb_fio_xlate *x = NULL;
	size_t n = 0;

	if (rb_fio_translate(f, &x, &n, d) == 0) {
		/* a translated job is a workload the engine accepts */
		char err[256];

		for (size_t i = 0; i < n; i++)
			if (rb_workload_check(&x[i].wl, err, sizeof(err)))
				__builtin_trap();
		rb_fio_xlate_free(x, n);
	} else if (!rb_diags_errors(d)) {
		__builtin_trap(); /* every refusal says why */
	}
	rb_fio_release(f);
}

/* The bytes as argv, a line an argument (at most 64). */
static void as_command_line(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *save = NULL;
	const char *args[64];
	struct rb_fio_file f;
	struct rb_diags d;
	size_t n = 0;

	if (!copy)
		return;
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (char *t = strtok_r(copy, "\n", &save); t && n < 64; t = strtok_r(NULL, "\n", &save))
		args[n++] = t;
	rb_diags_init(&d);
	if (rb_fio_cmdline(args, n, &f, &d) == 0)
		check(&f, &d);
	else if (!rb_diags_errors(&d) && n)
		__builtin_trap();
	rb_diags_release(&d);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct rb_fio_file f;
	struct rb_diags d;
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
	if (rb_fio_parse(path, &f, &d) == 0)
		check(&f, &d);
	else if (!rb_diags_errors(&d))
		__builtin_trap();
	rb_diags_release(&d);
	as_command_line(data, size);
	return 0;
}
