/* SPDX-License-Identifier: MIT */
/* Presets: the reviews' procedures as campaign text (docs/presets.md). */
#ifndef RB_PRESETS_H
#define RB_PRESETS_H

#include <stddef.h>

struct rb_preset {
	const char *name;
	const char *summary;
	const char *source; /* where the procedure comes from */
	const char *text;   /* YAML: defaults and phases */
};

const struct rb_preset *rb_presets(size_t *n);
const struct rb_preset *rb_preset_find(const char *name);

#endif
