/* SPDX-License-Identifier: MIT */
/*
 * For the unit tests of commands that print: a command's stdout and stderr caught in
 * memory while it runs in this process, and small file and text helpers around it.
 */
#ifndef RB_TEST_CAPTURE_H
#define RB_TEST_CAPTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a command printed, and its exit code. */
struct out {
	int rc;
	char *out, *err;
};

static inline char *cap_slurp(FILE *f)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	s = calloc(1, n > 0 ? (size_t)n + 1 : 1);
	if (s && n > 0) {
		rewind(f);
		if (fread(s, 1, (size_t)n, f) != (size_t)n)
			s[0] = '\0';
	}
	fclose(f);
	return s;
}

/* Runs fn(argc, argv) with argv the NULL-terminated strings given; o->out, o->err and
 * o->rc what it printed and returned (free with out_free). */
static inline void cap_runv(struct out *o, int (*fn)(int, char **), const char *const *args)
{
	char *argv[64];
	int argc = 0, so, se;
	FILE *fo = tmpfile(), *fe = tmpfile();

	while (args[argc] && argc < 63) {
		argv[argc] = (char *)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	if (!fo || !fe || so < 0 || se < 0)
		abort();
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	o->rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	o->out = cap_slurp(fo);
	o->err = cap_slurp(fe);
}

#define cap_run(o, fn, ...) cap_runv((o), (fn), (const char *const[]){ __VA_ARGS__, NULL })
/* fn run with the words: its exit code is code and its stream (out or err) holds want. */
#define assert_run(code, stream, want, fn, ...)                                                    \
	do {                                                                                       \
		struct out o_;                                                                     \
		cap_run(&o_, fn, __VA_ARGS__);                                                     \
		assert_int_equal(o_.rc, (code));                                                   \
		assert_non_null(strstr(o_.stream, (want)));                                        \
		out_free(&o_);                                                                     \
	} while (0)

static inline void out_free(struct out *o)
{
	free(o->out);
	free(o->err);
	o->out = o->err = NULL;
}

/* How often needle occurs in hay. */
static inline size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0, l = strlen(needle);

	for (const char *p = hay; l && (p = strstr(p, needle)); p += l)
		n++;
	return n;
}

/* The line of text that holds needle, copied into buf ("" when none). */
static inline const char *line_with(const char *text, const char *needle, char *buf, size_t len)
{
	const char *p = strstr(text, needle), *b, *e;

	buf[0] = '\0';
	if (!p)
		return buf;
	for (b = p; b > text && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	snprintf(buf, len, "%.*s", (int)(e - b), b);
	return buf;
}

/* A file of the given text (printf-style) at path. */
static inline void __attribute__((format(printf, 2, 3)))
write_text(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "w");
	va_list ap;

	if (!f)
		abort();
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* A whole file into memory (to free), or NULL. */
static inline char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	return cap_slurp(f);
}

/* A new temporary folder in buf; rm_tree removes it and what it holds. */
static inline const char *temp_dir(char *buf, size_t len)
{
	const char *t = getenv("TMPDIR");

	snprintf(buf, len, "%s/rb-unit.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(buf))
		abort();
	return buf;
}

static inline void rm_tree(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
}

#endif
