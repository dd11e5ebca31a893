// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: what an exec phase's command printed (outside input: any program an
 * operator allows) read by the agent's parsers -- sysbench's summary and fio's JSON, whole
 * and as the end of a longer output -- and a filesystem's mkfs and mount options as
 * both programs judge them. Every figure read is finite; the options' offset is read
 * only from options the check took.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "execphase.h"
#include "fsspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void all_finite(const struct rb_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(strtod(kv[i].value, NULL)))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), vals[16][32], note[256], err[512];
	struct rb_kv kv[16];
	struct rb_fs_spec s;
	size_t n;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	n = rb_exec_parse_sysbench(text, kv, vals, 16);
	all_finite(kv, n);
	for (int cut = 0; cut < 2; cut++) {
		n = rb_exec_parse_fio(text, cut, kv, vals, 16, note, sizeof(note));
		all_finite(kv, n);
		if (n && note[0])
			abort(); /* figures read and a bound that stopped them: not both */
	}
	/* the text as options: split at its first newline into mkfs's and mount's */
	memset(&s, 0, sizeof(s));
	snprintf(s.type, sizeof(s.type), "%s", size % 2 ? "xfs" : "ext4");
	snprintf(s.mkfs_options, sizeof(s.mkfs_options), "%.*s", (int)strcspn(text, "\n"), text);
	snprintf(s.mount_options, sizeof(s.mount_options), "%s",
		 text[strcspn(text, "\n")] ? text + strcspn(text, "\n") + 1 : "");
	if (rb_fs_spec_check(&s, err, sizeof(err)) == 0) {
		char fl[256];
		unsigned long flags;

		rb_fs_mount_args(&s, &flags, fl, sizeof(fl));
		(void)rb_fs_spec_offset(&s);
	}
	free(text);
	return 0;
}
