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

/* ---- translating ---- */

/* fio options that are rackbench workload keys under the same meaning. */
static const struct {
	const char *fio, *rb;
} same[] = {
	{ "bs", "bs" },
	{ "blocksize", "bs" },
	{ "iodepth", "iodepth" },
	{ "rwmixread", "rwmixread" },
	{ "offset", "offset" },
	{ "size", "size" },
	{ "filesize", "size" },
	{ "io_size", "io_size" },
	{ "io_limit", "io_size" },
	{ "bssplit", "bssplit" },
	{ "randseed", "seed" },
	{ "cpus_allowed", "cpus" },
	{ "iodepth_batch_submit", "submit_batch" },
	{ "iodepth_batch", "submit_batch" },
	{ "iodepth_batch_complete_min", "complete_batch" },
	{ "iodepth_batch_complete", "complete_batch" },
};

/* fio options that change only fio's own reporting or set-up, not what is measured. */
static const char *const ignored[] = {
	"group_reporting",  "thread",
	"lat_percentiles",  "clat_percentiles",
	"slat_percentiles", "percentile_list",
	"write_bw_log",	    "write_lat_log",
	"write_iops_log",   "write_hist_log",
	"log_avg_msec",	    "log_hist_msec",
	"per_job_logs",	    "log_offset",
	"disable_lat",	    "disable_clat",
	"disable_slat",	    "gtod_reduce",
	"invalidate",	    "unified_rw_reporting",
	"fixedbufs",	    "registerfiles",
	"description",	    "exitall",
	"clocksource",	    "overwrite",
	"create_on_open",   "allow_file_create",
	"kb_base",	    "significant_figures",
	"cpumode",	    "userspace_reap",
	"nonvectored",	    "sqthread_poll_cpu",
	"fadvise_hint",
};

struct xstate {
	struct rb_fio_xlate *x;
	struct rb_diags *d; /* errors */
	bool time_based, have_runtime, have_direct, have_loops, randommap, have_visit;
	bool do_verify, fill_device;
	uint64_t rate_per_job, runtime_ns;
	unsigned rate_line;
	const char *rate_file;
	const struct rb_fio_opt *verify, *numjobs; /* where they were set (notes) */
};

static void note(struct xstate *s, const struct rb_fio_opt *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(struct xstate *s, const struct rb_fio_opt *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rb_diags_add(&s->x->notes, RB_SEV_WARNING, o->file, o->line, 1, o->key, "%s", msg);
}

static int set(struct xstate *s, const struct rb_fio_opt *o, const char *key, const char *value)
{
	char err[512];

	if (rb_opt_set(&s->x->wl, rb_opt_find(key), value, err, sizeof(err))) {
		rb_diags_add(s->d, RB_SEV_ERROR, o->file, o->line, 1, o->key, "'%s=%s': %s", o->key,
			     o->value, err);
		return -EINVAL;
	}
	return 0;
}

/* fio's bare numbers of seconds ("runtime=60") as a rackbench duration. */
static int set_seconds(struct xstate *s, const struct rb_fio_opt *o, const char *key)
{
	char v[64];
	size_t n = strlen(o->value);

	snprintf(v, sizeof(v), "%s%s", o->value,
		 n && isdigit((unsigned char)o->value[n - 1]) ? "s" : "");
	return set(s, o, key, v);
}

static bool truthy(const char *v)
{
	return !*v || !strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
	       !strcasecmp(v, "on");
}

static int split_filenames(struct rb_fio_xlate *x, const char *v)
{
	char *copy = strdup(v), *p, *start;

	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < x->nfilenames; i++)
		free(x->filenames[i]);
	x->nfilenames = 0;
	for (p = start = copy;; p++) {
		/* fio separates with ':', '\:' escapes one */
		if (*p == '\\' && p[1] == ':') {
			memmove(p, p + 1, strlen(p));
			continue;
		}
		if (*p != ':' && *p)
			continue;
		bool end = !*p;

		*p = '\0';
		if (*start) {
			char **v2 = realloc(x->filenames, (x->nfilenames + 1) * sizeof(*v2));

			if (!v2)
				break;
			x->filenames = v2;
			x->filenames[x->nfilenames++] = strdup(start);
		}
		if (end)
			break;
		start = p + 1;
	}
	free(copy);
	return 0;
}

static int set_rw(struct xstate *s, const struct rb_fio_opt *o)
{
	const char *v = o->value, *colon = strchr(v, ':');
	char pat[64];

	snprintf(pat, sizeof(pat), "%.*s", colon ? (int)(colon - v) : (int)strlen(v), v);
	if (colon)
		note(s, o,
		     "'%s': the ':%s' offset modifier is not supported (the pattern is kept "
		     "without it)",
		     v, colon + 1);
	if (!strcmp(pat, "readwrite"))
		snprintf(pat, sizeof(pat), "rw");
	if (!strcmp(pat, "trimwrite") || !strcmp(pat, "randtrimwrite")) {
		note(s, o, "'%s' is not supported", pat);
		return 0;
	}
	return set(s, o, "rw", pat);
}

/*
 * fio's verify modes: crc32c as rackbench does it; meta (a header: offset, pass) and the
 * other checksums as rackbench's own header and crc32c -- the same check, another sum;
 * pattern (a fixed pattern, no checksum) rackbench cannot do: refused by name.
 */
static int set_verify(struct xstate *s, const struct rb_fio_opt *o)
{
	static const char *const sums[] = { "md5",	"crc64",    "crc32",   "crc16", "crc7",
					    "xxhash",	"sha512",   "sha256",  "sha1",	"sha3-224",
					    "sha3-256", "sha3-384", "sha3-512" };
	const char *v = o->value;

	s->verify = o;
	if (!strcmp(v, "0") || !strcmp(v, "none") || !strcmp(v, "null"))
		return set(s, o, "verify", "false");
	if (!strcmp(v, "crc32c") || !strcmp(v, "crc32c-intel") || !strcmp(v, "1"))
		return set(s, o, "verify", "true");
	if (!strcmp(v, "meta")) {
		note(s, o,
		     "verify=meta: rackbench checks its own header (offset, pass) and a crc32c of "
		     "every 512 bytes: meta's check and the data's");
		return set(s, o, "verify", "true");
	}
	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++)
		if (!strcmp(v, sums[i])) {
			note(s, o,
			     "verify=%s: rackbench checks a crc32c of every 512 bytes and its own "
			     "header instead: the same check, another checksum",
			     v);
			return set(s, o, "verify", "true");
		}
	rb_diags_add(s->d, RB_SEV_ERROR, o->file, o->line, 1, o->key,
		     "'verify=%s' is not supported: rackbench verifies writes with a crc32c and "
		     "a header per 512 bytes of random data (verify=crc32c); a pattern it cannot "
		     "check",
		     v);
	return -EINVAL;
}

static int set_engine(struct xstate *s, const struct rb_fio_opt *o)
{
	static const char *const like[] = { "libaio",  "psync",	   "sync",	  "pvsync",
					    "pvsync2", "posixaio", "io_uring_cmd" };
	const char *v = o->value;

	if (!strcmp(v, "null"))
		return set(s, o, "engine", "null");
	if (!strcmp(v, "io_uring"))
		return set(s, o, "engine", "uring");
	for (size_t i = 0; i < sizeof(like) / sizeof(like[0]); i++)
		if (!strcmp(v, like[i])) {
			note(s, o,
			     "ioengine=%s runs on rackbench's io_uring engine: compare with fio "
			     "run with ioengine=io_uring",
			     v);
			return set(s, o, "engine", "uring");
		}
	note(s, o,
	     "ioengine=%s is not supported (rackbench drives block devices and files "
	     "through io_uring); the job runs on io_uring",
	     v);
	return 0;
}

/*
 * fio's size forms rackbench takes differently: "read,write[,trim]" sizes (the first is
 * used, said so) and a percentage of the target. Returns 1 to go on with *v (maybe
 * rewritten into buf), or the option's result (0 or -EINVAL) when it was handled here.
 */
static int sized(struct xstate *s, const struct rb_fio_opt *o, char *buf, size_t len,
		 const char **v)
{
	const char *k = o->key;
	size_t vl;

	if (strchr(*v, ',') &&
	    (!strcmp(k, "bs") || !strcmp(k, "blocksize") || !strcmp(k, "bssplit"))) {
		snprintf(buf, len, "%.*s", (int)strcspn(*v, ","), *v);
		note(s, o,
		     "'%s': separate sizes for reads and writes are not supported; '%s' is "
		     "used for both",
		     *v, buf);
		*v = buf;
	}
	vl = strlen(*v);
	if (vl < 2 || (*v)[vl - 1] != '%')
		return 1;
	if (!strcmp(k, "size") || !strcmp(k, "filesize")) {
		snprintf(buf, len, "%.*s", (int)(vl - 1), *v);
		return set(s, o, "size_pct", buf);
	}
	if (!strcmp(k, "offset")) {
		uint64_t pct;

		snprintf(buf, len, "%.*s", (int)(vl - 1), *v);
		if (rb_parse_u64(buf, &pct) || pct > 100) {
			rb_diags_add(s->d, RB_SEV_ERROR, o->file, o->line, 1, o->key,
				     "'%s=%s': a percentage from 0 to 100", o->key, *v);
			return -EINVAL;
		}
		if (pct != 0) {
			note(s, o, "'%s': an offset in percent is not supported", *v);
			return 0;
		}
		return set(s, o, "offset", "0");
	}
	return 1;
}

/*
 * What decides how much a job moves and what it checks: runtime (a cap without
 * time_based; timeout its old name), numjobs, fill_device, verify's companions. The
 * option's result (0 or -EINVAL), or 1 when it is none of them.
 */
static int how_much(struct xstate *s, const struct rb_fio_opt *o)
{
	const char *k = o->key, *v = o->value;

	/* timeout: fio's older name of runtime */
	if (!strcmp(k, "runtime") || !strcmp(k, "timeout")) {
		int e = set_seconds(s, o, "runtime");

		s->have_runtime = true;
		s->runtime_ns = s->x->wl.runtime_ns;
		return e;
	}
	if (!strcmp(k, "numjobs")) {
		s->numjobs = o;
		return set(s, o, "numjobs", v);
	}
	if (!strcmp(k, "do_verify")) {
		s->do_verify = truthy(v);
		return 0;
	}
	if (!strcmp(k, "fill_device") || !strcmp(k, "fill_fs")) {
		s->fill_device = truthy(v);
		return 0;
	}
	if (!strcmp(k, "verify_pattern")) {
		note(s, o,
		     "'%s': rackbench writes random data (a drive cannot compress it away) "
		     "with a crc32c header per 512 bytes, not a pattern",
		     v);
		return 0;
	}
	if (!strcmp(k, "verify_interval")) {
		uint64_t b;

		if (rb_parse_size(v, &b) || b != 512)
			note(s, o, "'%s': rackbench checks every 512 bytes", v);
		return 0;
	}
	return 1;
}

static int one(struct xstate *s, const struct rb_fio_opt *o)
{
	const char *k = o->key, *v = o->value;
	char first[RB_OPT_VALUE_MAX];
	int r = sized(s, o, first, sizeof(first), &v);

	if (r <= 0)
		return r;
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (!strcmp(k, same[i].fio))
			return set(s, o, same[i].rb, v);
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		if (!strcmp(k, ignored[i]))
			return 0;
	if (!strcmp(k, "rw") || !strcmp(k, "readwrite"))
		return set_rw(s, o);
	if (!strcmp(k, "rwmixwrite")) {
		char mix[32];
		uint64_t w;

		if (rb_parse_u64(v, &w) || w > 100) {
			rb_diags_add(s->d, RB_SEV_ERROR, o->file, o->line, 1, o->key,
				     "'%s=%s': a percentage from 0 to 100", o->key, v);
			return -EINVAL;
		}
		snprintf(mix, sizeof(mix), "%" PRIu64, 100 - w);
		return set(s, o, "rwmixread", mix);
	}
	if ((r = how_much(s, o)) <= 0)
		return r;
	if (!strcmp(k, "ramp_time"))
		return set_seconds(s, o, "ramp");
	if (!strcmp(k, "time_based")) {
		s->time_based = truthy(v);
		return 0;
	}
	if (!strcmp(k, "loops")) {
		s->have_loops = true;
		return set(s, o, "passes", v);
	}
	if (!strcmp(k, "direct") || !strcmp(k, "buffered")) {
		bool direct = truthy(v) == !strcmp(k, "direct");

		s->have_direct = true;
		return set(s, o, "direct", direct ? "true" : "false");
	}
	if (!strcmp(k, "ioengine"))
		return set_engine(s, o);
	if (!strcmp(k, "rate_iops")) {
		if (strchr(v, ',')) {
			note(s, o, "'%s': separate read and write rates are not supported", v);
			return 0;
		}
		if (rb_parse_u64(v, &s->rate_per_job)) {
			rb_diags_add(s->d, RB_SEV_ERROR, o->file, o->line, 1, o->key,
				     "'%s=%s': a whole number of IOs per second (0 or more)",
				     o->key, v);
			return -EINVAL;
		}
		s->rate_line = o->line;
		s->rate_file = o->file;
		return 0;
	}
	if (!strcmp(k, "random_distribution")) {
		if (!strcmp(v, "random"))
			return set(s, o, "random_distribution", "uniform");
		return set(s, o, "random_distribution", v);
	}
	if (!strcmp(k, "norandommap")) {
		s->randommap = !truthy(v);
		return 0;
	}
	if (!strcmp(k, "randrepeat") || !strcmp(k, "random_generator"))
		return 0; /* rackbench's offsets are always reproducible from the seed */
	if (!strcmp(k, "verify"))
		return set_verify(s, o);
	if (!strcmp(k, "filename"))
		return split_filenames(s->x, v);
	if (!strcmp(k, "name")) {
		snprintf(s->x->name, sizeof(s->x->name), "%s", v);
		return 0;
	}
	if (!strcmp(k, "stonewall") || !strcmp(k, "wait_for_previous") || !strcmp(k, "new_group") ||
	    !strcmp(k, "wait_for")) {
		s->x->stonewall = true;
		return 0;
	}
	if (!strcmp(k, "sqthread_poll"))
		return set(s, o, "sqpoll", truthy(v) ? "true" : "false");
	if (!strcmp(k, "hipri"))
		return set(s, o, "iopoll", truthy(v) ? "true" : "false");
	note(s, o, "'%s' is not supported", k);
	return 0;
}

static int translate_job(const struct rb_fio_file *f, size_t j, struct rb_fio_xlate *x,
			 struct rb_diags *d)
{
	struct xstate s = { .x = x, .d = d, .randommap = true, .do_verify = true };
	char v[64];
	int r = 0;

	memset(x, 0, sizeof(*x));
	rb_diags_init(&x->notes);
	rb_workload_defaults(&x->wl);
	snprintf(x->name, sizeof(x->name), "%s", f->jobs[j].name);
	/* fio's defaults where they differ from rackbench's: buffered IO */
	rb_opt_set(&x->wl, rb_opt_find("direct"), "false", v, sizeof(v));
	/* every [global] before the job, then the job's own options */
	for (size_t g = 0; g <= j; g++) {
		if (g < j && strcmp(f->jobs[g].name, "global"))
			continue;
		for (size_t k = 0; k < f->jobs[g].nopts; k++)
			if (one(&s, &f->jobs[g].opts[k]))
				r = -EINVAL;
	}
	if (s.rate_per_job) {
		const struct rb_fio_opt o = { (char *)"rate_iops", v, (char *)s.rate_file,
					      s.rate_line };

		snprintf(v, sizeof(v), "%" PRIu64, s.rate_per_job * x->wl.numjobs);
		if (x->wl.numjobs > 1)
			note(&s, &o,
			     "fio's rate_iops is per job: %" PRIu64 " x numjobs %u is "
			     "rackbench's total, rate_iops: %s",
			     s.rate_per_job, x->wl.numjobs, v);
		if (set(&s, &o, "rate_iops", v))
			r = -EINVAL;
	}
	/* fio visits every block once per pass unless norandommap (uniform offsets) */
	if (s.randommap && !strcmp(x->wl.random_distribution, "uniform") &&
	    (x->wl.rw == RB_RW_RANDREAD || x->wl.rw == RB_RW_RANDWRITE ||
	     x->wl.rw == RB_RW_RANDRW || x->wl.rw == RB_RW_RANDTRIM ||
	     x->wl.rw == RB_RW_RANDWRITEZEROES))
		rb_opt_set(&x->wl, rb_opt_find("visit_once"), "true", v, sizeof(v));
	/* fill_device: write until the device is full, whatever size says */
	if (s.fill_device)
		x->wl.size = 0, x->wl.size_pct = 0;
	if (!s.time_based) {
		/* fio stops after one pass over size (or loops of them, or fill_device's one
		 * over the device) or at runtime, whichever comes first: runtime a cap */
		if (!s.have_loops && !x->wl.io_size)
			rb_opt_set(&x->wl, rb_opt_find("passes"), "1", v, sizeof(v));
		if (s.have_runtime) {
			snprintf(v, sizeof(v), "%" PRIu64 "ns", s.runtime_ns);
			rb_opt_set(&x->wl, rb_opt_find("max_runtime"), v, v, sizeof(v));
		}
	} else if (!s.have_runtime) {
		rb_diags_add(d, RB_SEV_ERROR, f->jobs[j].file, f->jobs[j].line, 0, f->jobs[j].name,
			     "time_based without a runtime runs for ever");
		r = -EINVAL;
	}
	/*
	 * fio's numjobs: every job does the whole job, over the same region of the same file
	 * (numjobs 4 with size 8m moves 32 MiB) -- said in the workload, job_region: whole.
	 * Verifying writers each get a slice: over one another's chunks no header would hold
	 * (fio gives each job a file of its own unless filename= names one).
	 */
	if (x->wl.numjobs > 1) {
		bool verifying = x->wl.verify && rb_workload_writes(&x->wl);

		rb_opt_set(&x->wl, rb_opt_find("job_region"), verifying ? "split" : "whole", v,
			   sizeof(v));
		if (verifying && s.numjobs)
			note(&s, s.numjobs,
			     "numjobs=%u writing with verify: each job writes and checks a slice of "
			     "the target of its own (job_region: split), as fio's jobs each write a "
			     "file of their own",
			     x->wl.numjobs);
	}
	/* fio's write with verify reads it all back and checks it after (do_verify=1) */
	x->verify_after = x->wl.verify && s.do_verify && rb_workload_writes(&x->wl);
	if (!r && rb_workload_check(&x->wl, v, sizeof(v))) {
		rb_diags_add(d, RB_SEV_ERROR, f->jobs[j].file, f->jobs[j].line, 0, f->jobs[j].name,
			     "%s", v);
		r = -EINVAL;
	}
	return r;
}

int rb_fio_translate(const struct rb_fio_file *f, struct rb_fio_xlate **ret, size_t *ret_n,
		     struct rb_diags *d)
{
	struct rb_fio_xlate *x = calloc(f->njobs + 1, sizeof(*x));
	size_t n = 0;
	int r = 0;

	if (!x)
		return -ENOMEM;
	for (size_t j = 0; j < f->njobs; j++) {
		if (!strcmp(f->jobs[j].name, "global"))
			continue;
		if (translate_job(f, j, &x[n], d))
			r = -EINVAL;
		n++;
	}
	if (!n) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, f->njobs ? f->jobs[0].file : "(job file)",
			     "no job in the file (only [global] sections)");
		r = -EINVAL;
	}
	if (r) {
		rb_fio_xlate_free(x, n);
		return r;
	}
	*ret = x;
	*ret_n = n;
	return 0;
}

void rb_fio_xlate_free(struct rb_fio_xlate *x, size_t n)
{
	if (!x)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < x[i].nfilenames; k++)
			free(x[i].filenames[k]);
		free(x[i].filenames);
		rb_diags_release(&x[i].notes);
	}
	free(x);
}

void rb_fio_verify_pass(const struct rb_workload *wrote, struct rb_workload *ret)
{
	char err[128];

	*ret = *wrote;
	rb_opt_set(ret, rb_opt_find("rw"), "read", err, sizeof(err));
	rb_opt_set(ret, rb_opt_find("verify"), "true", err, sizeof(err));
	rb_opt_set(ret, rb_opt_find("passes"), "1", err, sizeof(err));
	ret->io_size = 0;
	ret->rate_iops = 0;
	ret->max_runtime_ns = 0;
	ret->visit_once = 0;
	ret->ramp_ns = 0;
	/* each job reads back the slice it wrote */
	ret->job_region = RB_REGION_SPLIT;
}
