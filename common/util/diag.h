/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics: what loaders and the guard return when a user must see more than
 * an errno. Each entry has a severity, a position (file, 1-based line and column,
 * 0 when unknown), a subject (a key, a device) and a message.
 */
#ifndef RB_DIAG_H
#define RB_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum rb_severity { RB_SEV_ERROR, RB_SEV_WARNING };

struct rb_diag {
	enum rb_severity severity;
	char *file;
	unsigned line, column;
	char *subject;
	char *message;
};

struct rb_diags {
	struct rb_diag *v;
	size_t n, cap;
};

void rb_diags_init(struct rb_diags *d);
void rb_diags_release(struct rb_diags *d);
/* Appends one entry; the strings are copied. Returns 0 or -ENOMEM. */
int rb_diags_add(struct rb_diags *d, enum rb_severity sev, const char *file, unsigned line,
		 unsigned column, const char *subject, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
size_t rb_diags_errors(const struct rb_diags *d);
/* Sorts by file position (stable), so errors read in file order. */
void rb_diags_sort(struct rb_diags *d);
/* Prints "FILE:LINE:COLUMN: message" lines (or "subject: message"). */
void rb_diags_print(const struct rb_diags *d, FILE *out);

#endif
