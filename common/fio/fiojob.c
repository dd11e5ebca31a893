// SPDX-License-Identifier: MIT
#include "fiojob.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "units.h"
#include "yamlcfg.h"

#define MAX_INCLUDE_DEPTH 8
#define MAX_FILE_BYTES (1 << 20)
#define MAX_LINE 8192

/* ---- reading ---- */

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Integer arithmetic over + - * / and parentheses: fio's "($ncpus*2)". */
static int eval_expr(const char **p, long long *ret, int depth);

static int eval_atom(const char **p, long long *ret, int depth)
{
	while (**p == ' ')
		(*p)++;
	if (**p == '(') {
		(*p)++;
		if (depth > 32 || eval_expr(p, ret, depth + 1))
			return -EINVAL;
		while (**p == ' ')
			(*p)++;
		if (**p != ')')
			return -EINVAL;
		(*p)++;
		return 0;
	}
	if (**p == '-') {
		(*p)++;
		if (eval_atom(p, ret, depth + 1))
			return -EINVAL;
		*ret = -*ret;
		return 0;
	}
	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*ret = strtoll(*p, (char **)p, 10);
	return errno ? -EINVAL : 0;
}

/* One level of binary operators: times and divide over atoms, or plus and minus over that. */
static int eval_level(const char **p, long long *ret, int depth, bool sums)
{
	long long r;

	if (sums ? eval_level(p, ret, depth, false) : eval_atom(p, ret, depth))
		return -EINVAL;
	for (;;) {
		char op;

		while (**p == ' ')
			(*p)++;
		op = **p;
		if (!strchr(sums ? "+-" : "*/", op) || !op)
			return 0;
		(*p)++;
		if (sums ? eval_level(p, &r, depth, false) : eval_atom(p, &r, depth))
			return -EINVAL;
		if ((op == '/' && r == 0) || (op == '*' && __builtin_mul_overflow(*ret, r, ret)) ||
		    (op == '+' && __builtin_add_overflow(*ret, r, ret)) ||
		    (op == '-' && __builtin_sub_overflow(*ret, r, ret)))
			return -EINVAL;
		if (op == '/')
			*ret /= r;
	}
}

static int eval_expr(const char **p, long long *ret, int depth)
{
	return eval_level(p, ret, depth, true);
}

/*
 * $ncpus, $pagesize, $mb_memory and ${ENV} substituted; then a value that is only
 * arithmetic is evaluated. Returns 0, or -EINVAL with why in err.
 */
static int expand(const char *in, char *out, size_t len, char *err, size_t errlen)
{
	size_t n = 0;
	bool subst = false;

	for (const char *p = in; *p;) {
		char var[128];
		const char *val = NULL;
		char num[32];

		if (*p != '$') {
			if (n + 1 >= len)
				goto toolong;
			out[n++] = *p++;
			continue;
		}
		p++;
		if (*p == '{') {
			const char *e = strchr(p, '}');

			if (!e || (size_t)(e - p - 1) >= sizeof(var)) {
				snprintf(err, errlen, "unterminated ${...} in '%s'", in);
				return -EINVAL;
			}
			snprintf(var, sizeof(var), "%.*s", (int)(e - p - 1), p + 1);
			p = e + 1;
			val = getenv(var);
			if (!val) {
				snprintf(err, errlen, "environment variable '%s' is not set", var);
				return -EINVAL;
			}
		} else {
			size_t k = 0;

			while ((isalnum((unsigned char)*p) || *p == '_') && k + 1 < sizeof(var))
				var[k++] = *p++;
			var[k] = '\0';
			if (!strcmp(var, "ncpus"))
				snprintf(num, sizeof(num), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
			else if (!strcmp(var, "pagesize"))
				snprintf(num, sizeof(num), "%ld", sysconf(_SC_PAGESIZE));
			else if (!strcmp(var, "mb_memory"))
				snprintf(num, sizeof(num), "%lld",
					 (long long)sysconf(_SC_PHYS_PAGES) *
							 sysconf(_SC_PAGESIZE) >>
						 20);
			else {
				/* fio's per-job names ($jobnum, $filenum): kept as written */
				snprintf(num, sizeof(num), "$%s", var);
				if (n + strlen(num) >= len)
					goto toolong;
				memcpy(out + n, num, strlen(num));
				n += strlen(num);
				continue;
			}
			val = num;
		}
		subst = true;
		if (n + strlen(val) >= len)
			goto toolong;
		memcpy(out + n, val, strlen(val));
		n += strlen(val);
	}
	out[n] = '\0';
	/* arithmetic: "(4*2)", or what a substitution left ("8*2") */
	if ((subst || out[0] == '(') && strspn(out, "0123456789+-*/() ") == strlen(out)) {
		const char *p = out;
		long long v;

		if (eval_expr(&p, &v, 0) || *p) {
			snprintf(err, errlen, "cannot evaluate '%s'", in);
			return -EINVAL;
		}
		snprintf(out, len, "%lld", v);
	}
	return 0;
toolong:
	snprintf(err, errlen, "value too long");
	return -EINVAL;
}

static int add_job(struct rb_fio_file *f, const char *name, const char *file, unsigned line)
{
	struct rb_fio_job *v = realloc(f->jobs, (f->njobs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	f->jobs = v;
	memset(&v[f->njobs], 0, sizeof(v[0]));
	v[f->njobs].name = strdup(name);
	v[f->njobs].file = strdup(file);
	v[f->njobs].line = line;
	f->njobs++;
	return v[f->njobs - 1].name && v[f->njobs - 1].file ? 0 : -ENOMEM;
}

static int add_opt(struct rb_fio_job *j, const char *key, const char *value, const char *file,
		   unsigned line)
{
	struct rb_fio_opt *v = realloc(j->opts, (j->nopts + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	j->opts = v;
	v[j->nopts] = (struct rb_fio_opt){ strdup(key), strdup(value), strdup(file), line };
	j->nopts++;
	return v[j->nopts - 1].key && v[j->nopts - 1].value && v[j->nopts - 1].file ? 0 : -ENOMEM;
}

static int parse_file(const char *path, struct rb_fio_file *f, struct rb_diags *d, int depth)
{
	char line[MAX_LINE], exp[MAX_LINE], err[256];
	unsigned ln = 0;
	size_t total = 0;
	int r = 0, fd;
	FILE *in;

	if (depth > MAX_INCLUDE_DEPTH) {
		rb_diags_add(d, RB_SEV_ERROR, path, 0, 0, "include",
			     "includes nested more than %d "
			     "deep",
			     MAX_INCLUDE_DEPTH);
		return -EINVAL;
	}
	fd = rb_open_input(path);
	in = fd >= 0 ? fdopen(fd, "re") : NULL;
	if (!in) {
		rb_diags_add(d, RB_SEV_ERROR, path, 0, 0, path, "cannot open: %s",
			     rb_input_error(fd >= 0 ? -ENOMEM : fd));
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), in)) {
		char *s, *eq;

		ln++;
		total += strlen(line);
		if (total > MAX_FILE_BYTES) {
			rb_diags_add(d, RB_SEV_ERROR, path, ln, 0, path, "larger than %d bytes",
				     MAX_FILE_BYTES);
			r = -EINVAL;
			break;
		}
		if (!strchr(line, '\n') && !feof(in)) {
			rb_diags_add(d, RB_SEV_ERROR, path, ln, 0, path,
				     "line longer than %d bytes", MAX_LINE);
			r = -EINVAL;
			break;
		}
		if (memchr(line, '\0', strlen(line) + 1) != line + strlen(line)) {
			r = -EINVAL;
			break;
		}
		s = trim(line);
		if (!*s || *s == ';' || *s == '#')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');

			if (!e || e == s + 1 || trim(e + 1)[0]) {
				rb_diags_add(d, RB_SEV_ERROR, path, ln, 1, s,
					     "a section is '[name]'");
				r = -EINVAL;
				continue;
			}
			*e = '\0';
			if ((r = add_job(f, s + 1, path, ln)))
				break;
			continue;
		}
		if (!strncmp(s, "include ", 8)) {
			char inc[PATH_MAX], dir[PATH_MAX];
			const char *name = trim(s + 8);
			const char *slash = strrchr(path, '/');

			snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
				 slash ? path : ".");
			snprintf(inc, sizeof(inc), "%s%s%s", name[0] == '/' ? "" : dir,
				 name[0] == '/' ? "" : "/", name);
			if (parse_file(inc, f, d, depth + 1))
				r = -EINVAL;
			continue;
		}
		if (!f->njobs) {
			rb_diags_add(d, RB_SEV_ERROR, path, ln, 1, s,
				     "an option before any [section]");
			r = -EINVAL;
			continue;
		}
		/* a comment after a value: " ; ..." or " # ..." */
		for (char *c = s; *c; c++)
			if ((*c == ';' || *c == '#') && c > s && isspace((unsigned char)c[-1])) {
				*c = '\0';
				break;
			}
		eq = strchr(s, '=');
		if (eq)
			*eq = '\0';
		const char *key = trim(s), *val = eq ? trim(eq + 1) : "";

		if (expand(val, exp, sizeof(exp), err, sizeof(err))) {
			rb_diags_add(d, RB_SEV_ERROR, path, ln, 1, key, "%s", err);
			r = -EINVAL;
			continue;
		}
		char lkey[128];
		size_t k;

		for (k = 0; key[k] && k + 1 < sizeof(lkey); k++)
			lkey[k] = (char)tolower((unsigned char)key[k]);
		lkey[k] = '\0';
		if ((r = add_opt(&f->jobs[f->njobs - 1], lkey, exp, path, ln)))
			break;
	}
	fclose(in);
	return r;
}

int rb_fio_parse(const char *path, struct rb_fio_file *ret, struct rb_diags *d)
{
	size_t before = rb_diags_errors(d);

	memset(ret, 0, sizeof(*ret));
	if (parse_file(path, ret, d, 0) || rb_diags_errors(d) > before) {
		rb_fio_release(ret);
		return -EINVAL;
	}
	return 0;
}

void rb_fio_release(struct rb_fio_file *f)
{
	for (size_t i = 0; i < f->njobs; i++) {
		for (size_t k = 0; k < f->jobs[i].nopts; k++) {
			free(f->jobs[i].opts[k].key);
			free(f->jobs[i].opts[k].value);
			free(f->jobs[i].opts[k].file);
		}
		free(f->jobs[i].opts);
		free(f->jobs[i].name);
		free(f->jobs[i].file);
	}
	free(f->jobs);
	memset(f, 0, sizeof(*f));
}

int rb_fio_cmdline(const char *const *args, size_t n, struct rb_fio_file *ret, struct rb_diags *d)
{
	size_t before = rb_diags_errors(d);
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < n && r != -ENOMEM; i++) {
		const char *a = args[i], *eq = strchr(a, '='), *v;
		char key[128];
		int kind;

		if (strncmp(a, "--", 2) || a[2] == '-' || !a[2]) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, a,
				     "not a fio option (--NAME=VALUE)");
			continue;
		}
		/* fio's names are written with '_'; '-' taken as on rackbench's own flags */
		snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - a - 2) : (int)strlen(a + 2),
			 a + 2);
		for (char *c = key; *c; c++)
			*c = *c == '-' ? '_' : (char)tolower((unsigned char)*c);
		kind = rb_fio_option_kind(key);
		if (kind < 0) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, a,
				     "'--%s' is not a fio option rackbench-agent run takes "
				     "(docs/fio.md lists them)",
				     key);
			if (!eq && i + 1 < n && strncmp(args[i + 1], "--", 2))
				i++;
			continue;
		}
		v = eq ? eq + 1 : kind == 1 ? "" : i + 1 < n ? args[++i] : NULL;
		if (!v) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, a, "'--%s' needs a value", key);
			continue;
		}
		/* --name starts a job; what comes before the first is fio's global section */
		if (!strcmp(key, "name"))
			r = add_job(ret, v, "command line", (unsigned)i + 1);
		else if (!ret->njobs)
			r = add_job(ret, "global", "command line", (unsigned)i + 1);
		if (!r)
			r = add_opt(&ret->jobs[ret->njobs - 1], key, v, "command line", 0);
	}
	if (r == -ENOMEM || rb_diags_errors(d) > before) {
		rb_fio_release(ret);
		return -EINVAL;
	}
	return 0;
}
