/* SPDX-License-Identifier: MIT */
/* Writing JSON by hand: strings escaped once, the same way in both programs. */
#ifndef RB_JSONOUT_H
#define RB_JSONOUT_H

#include <stdio.h>

/* Writes s as a JSON string literal, quotes included. */
void rb_json_str(FILE *out, const char *s);

#endif
