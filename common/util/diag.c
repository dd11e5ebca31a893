// SPDX-License-Identifier: MIT
#include "diag.h"
#include "grow.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void rb_diags_init(struct rb_diags *d)
{
	memset(d, 0, sizeof(*d));
}

void rb_diags_release(struct rb_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].subject);
		free(d->v[i].message);
	}
	free(d->v);
	rb_diags_init(d);
}

int rb_diags_add(struct rb_diags *d, enum rb_severity sev, const char *file, unsigned line,
		 unsigned column, const char *subject, const char *fmt, ...)
{
	struct rb_diag *e;
	va_list ap;
	char buf[1024];

	if (RB_GROW(d->v, d->cap, d->n, 8))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	e = &d->v[d->n];
	e->severity = sev;
	e->line = line;
	e->column = column;
	e->file = file ? strdup(file) : NULL;
	e->subject = subject ? strdup(subject) : NULL;
	e->message = strdup(buf);
	if (!e->message)
		return -ENOMEM;
	d->n++;
	return 0;
}

size_t rb_diags_errors(const struct rb_diags *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n; i++)
		n += d->v[i].severity == RB_SEV_ERROR;
	return n;
}

void rb_diags_sort(struct rb_diags *d)
{
	/* insertion sort: stable, and lists are short */
	for (size_t i = 1; i < d->n; i++) {
		struct rb_diag x = d->v[i];
		size_t j = i;

		while (j > 0 && (d->v[j - 1].line > x.line ||
				 (d->v[j - 1].line == x.line && d->v[j - 1].column > x.column))) {
			d->v[j] = d->v[j - 1];
			j--;
		}
		d->v[j] = x;
	}
}

void rb_diags_print(const struct rb_diags *d, FILE *out)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct rb_diag *e = &d->v[i];
		const char *sev = e->severity == RB_SEV_WARNING ? "warning: " : "";

		if (e->file && e->line)
			fprintf(out, "%s:%u:%u: %s%s\n", e->file, e->line, e->column, sev,
				e->message);
		else if (e->subject)
			fprintf(out, "%s: %s%s\n", e->subject, sev, e->message);
		else
			fprintf(out, "%s%s\n", sev, e->message);
	}
}
