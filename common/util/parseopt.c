// SPDX-License-Identifier: MIT
/* The one command-line parser: a command's table to its parse, its --help, its errors. */
#include "parseopt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "options.h"
#include "units.h"

#define NAME_MAX_LEN 128
#define HELP_WIDTH 100
#define HELP_COLUMN 28

/* One parse's state: the command, the callbacks' context, what was given already. */
struct parse {
	const struct rb_popt_cmd *cmd;
	void *ctx;
	bool *seen; /* per table entry, then per workload key */
	size_t nopts;
	size_t arg; /* the next positional argument to fill */
	int argc;
	char **argv;
	bool foreign; /* the line is the other tool's too (rb_popt_cmd.foreign_trigger) */
};

/* What one name matched: a table entry, and for RB_POPT_WORKLOAD the key. */
struct match {
	const struct rb_popt *o;
	const struct rb_opt *key;
	size_t slot; /* into seen */
};

static size_t nopts_of(const struct rb_popt *opts)
{
	size_t n = 0;

	while (opts && opts[n].type != RB_POPT_END)
		n++;
	return n;
}

/* name with '_' as '-' into buf (the spelling every comparison uses). */
static const char *hyphens(const char *name, size_t len, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size && name[i]; i++)
		buf[i] = name[i] == '_' ? '-' : name[i];
	buf[i] = '\0';
	return buf;
}

static bool takes_value(const struct rb_popt *o)
{
	if (o->type == RB_POPT_FLAG)
		return false;
	if (o->type == RB_POPT_CALLBACK)
		return !(o->flags & RB_POPT_NOARG);
	return true;
}

static bool repeatable(const struct rb_popt *o)
{
	return o->type == RB_POPT_LIST || o->type == RB_POPT_FLAG || (o->flags & RB_POPT_REPEAT) ||
	       (o->type == RB_POPT_CALLBACK && (o->flags & RB_POPT_NOARG));
}

size_t rb_parseopt_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), r;
	size_t *d;

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	d = calloc((la + 1) * (lb + 1), sizeof(*d));
	if (!d)
		return SIZE_MAX;
#define D(i, j) d[(i) * (lb + 1) + (j)]
	for (size_t i = 0; i <= la; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= lb; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1], v = D(i - 1, j - 1) + cost;

			if (D(i - 1, j) + 1 < v)
				v = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    D(i - 2, j - 2) + 1 < v)
				v = D(i - 2, j - 2) + 1;
			D(i, j) = v;
		}
	r = D(la, lb);
#undef D
	free(d);
	return r;
}

/* The closest of the table's long names to name (hyphen form), if close enough; or NULL. */
static const char *suggest(const struct parse *p, const char *name, char *buf, size_t len)
{
	size_t best = SIZE_MAX, limit = strlen(name) >= 6 ? 2 : 1;
	char cand[NAME_MAX_LEN];

	buf[0] = '\0';
	for (size_t i = 0; i < p->nopts; i++) {
		const struct rb_popt *o = &p->cmd->opts[i];
		size_t n = o->type == RB_POPT_WORKLOAD ? rb_workload_nopts : 1;

		for (size_t k = 0; k < n; k++) {
			const char *ln = o->type == RB_POPT_WORKLOAD ? rb_workload_opts[k].key
								     : o->long_name;
			size_t dist;

			if (!ln || (o->flags & RB_POPT_HIDDEN))
				continue;
			hyphens(ln, strlen(ln), cand, sizeof(cand));
			dist = rb_parseopt_distance(name, cand);
			if (dist < best) {
				best = dist;
				snprintf(buf, len, "%s", cand);
			}
		}
	}
	if (rb_parseopt_distance(name, "help") < best) {
		best = rb_parseopt_distance(name, "help");
		snprintf(buf, len, "help");
	}
	return best <= limit ? buf : NULL;
}

/* The entry whose long name is name (either spelling): 0, or -1 when none. */
static int find_long(const struct parse *p, const char *name, struct match *m)
{
	char want[NAME_MAX_LEN], cand[NAME_MAX_LEN];
	size_t slot = p->nopts;

	hyphens(name, strlen(name), want, sizeof(want));
	for (size_t i = 0; i < p->nopts; i++) {
		const struct rb_popt *o = &p->cmd->opts[i];

		if (o->type == RB_POPT_WORKLOAD) {
			for (size_t k = 0; k < rb_workload_nopts; k++) {
				const char *key = rb_workload_opts[k].key;

				if (!strcmp(hyphens(key, strlen(key), cand, sizeof(cand)), want)) {
					*m = (struct match){ o, &rb_workload_opts[k], slot + k };
					return 0;
				}
			}
			slot += rb_workload_nopts;
			continue;
		}
		if (o->long_name &&
		    !strcmp(hyphens(o->long_name, strlen(o->long_name), cand, sizeof(cand)),
			    want)) {
			*m = (struct match){ o, NULL, i };
			return 0;
		}
	}
	return -1;
}

static int find_short(const struct parse *p, char c, struct match *m)
{
	for (size_t i = 0; i < p->nopts; i++)
		if (p->cmd->opts[i].short_name == c && p->cmd->opts[i].type != RB_POPT_WORKLOAD) {
			*m = (struct match){ &p->cmd->opts[i], NULL, i };
			return 0;
		}
	return -1;
}

/* The option's name as errors say it: "--state-dir", "-o", "--rate-iops". */
static const char *display(const struct match *m, char *buf, size_t len)
{
	const char *ln = m->key ? m->key->key : m->o->long_name;
	char h[NAME_MAX_LEN];

	if (ln)
		snprintf(buf, len, "--%s", hyphens(ln, strlen(ln), h, sizeof(h)));
	else
		snprintf(buf, len, "-%c", m->o->short_name);
	return buf;
}

static int list_push(struct rb_popt_list *l, const char *v)
{
	const char **nv = realloc(l->v, (l->n + 2) * sizeof(*nv));

	if (!nv) {
		rb_err("out of memory");
		return -1;
	}
	l->v = nv;
	l->v[l->n++] = v;
	l->v[l->n] = NULL;
	return 0;
}

void rb_popt_list_release(struct rb_popt_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* A number's text into *ret: 0, or -1 said. */
static int store_number(const struct rb_popt *o, const char *flag, const char *v)
{
	uint64_t u;
	int r;

	switch (o->type) {
	case RB_POPT_INT: {
		char *end;
		long long x;

		errno = 0;
		x = strtoll(v, &end, 10);
		if (!*v || *end || errno) {
			rb_err("'%s' must be a whole number, not '%s'", flag, v);
			return -1;
		}
		*(int64_t *)o->value = x;
		return 0;
	}
	case RB_POPT_UINT:
		r = rb_parse_u64(v, &u);
		if (r)
			rb_err("'%s' must be a whole number, not '%s'", flag, v);
		break;
	case RB_POPT_SIZE:
		r = rb_parse_size(v, &u);
		if (r)
			rb_err("'%s' must be a size such as 4k, 1m or 2g (binary units), not '%s'",
			       flag, v);
		break;
	default:
		r = rb_parse_duration(v, &u);
		if (r)
			rb_err("'%s' must be a duration such as 500ms, 30s or 5m, not '%s'", flag,
			       v);
		break;
	}
	if (r)
		return -1;
	*(uint64_t *)o->value = u;
	return 0;
}

/* The matched option given value v (NULL: none): stored, or its callback called. */
static int apply(struct parse *p, const struct match *m, const char *v)
{
	const struct rb_popt *o = m->o;
	char flag[NAME_MAX_LEN + 2];

	display(m, flag, sizeof(flag));
	if (p->seen[m->slot] && !repeatable(o)) {
		rb_err("'%s' given twice", flag);
		return -1;
	}
	p->seen[m->slot] = true;
	switch (o->type) {
	case RB_POPT_FLAG:
		*(bool *)o->value = true;
		return 0;
	case RB_POPT_STRING:
		*(const char **)o->value = v;
		return 0;
	case RB_POPT_LIST:
		return list_push(o->value, v);
	case RB_POPT_CALLBACK:
		return o->cb(o, o->long_name ? o->long_name : flag + 1, v, p->ctx);
	case RB_POPT_WORKLOAD:
		return o->cb(o, m->key->key, v, p->ctx);
	case RB_POPT_INT:
	case RB_POPT_UINT:
	case RB_POPT_SIZE:
	case RB_POPT_DURATION:
		return store_number(o, flag, v);
	case RB_POPT_END:
	case RB_POPT_GROUP:
		break;
	}
	return -1;
}

static void see_help(const struct parse *p, char *buf, size_t len)
{
	snprintf(buf, len, "(see '%s --help')", p->cmd->name);
}

/*
 * argv[*i], named name, as the other tool's option (rb_popt_cmd.foreign_*): 1 taken into
 * the foreign list (its value with it), 0 not the other tool's, -1 refused (said).
 */
static int foreign_option(struct parse *p, const char *name, int found, const struct match *m,
			  bool has_value, int *i)
{
	const struct rb_popt_cmd *c = p->cmd;
	char under[NAME_MAX_LEN];
	int kind;

	if (!c->foreign_kind || (found == 0 && !m->key))
		return 0; /* the command's own */
	for (size_t k = 0; k <= strlen(name); k++)
		under[k] = name[k] == '-' ? '_' : name[k];
	kind = c->foreign_kind(under);
	if (!p->foreign) {
		if (kind < 0 || found == 0)
			return 0;
		rb_err("'--%s' is %s", name, c->foreign_hint);
		return -1;
	}
	if (kind < 0 && found == 0)
		return 0; /* a workload key the other tool has not */
	if (list_push(c->foreign_list, p->argv[*i]))
		return -1;
	if (kind != 1 && !has_value && *i + 1 < p->argc)
		return list_push(c->foreign_list, p->argv[++*i]) ? -1 : 1;
	return 1;
}

/* argv[*i], a long option: matched, its value taken (from "=" or the next argument). */
static int long_option(struct parse *p, int *i)
{
	const char *a = p->argv[*i] + 2, *eq = strchr(a, '='), *v = NULL;
	char name[NAME_MAX_LEN], flag[NAME_MAX_LEN + 2], near[NAME_MAX_LEN], see[256];
	struct match m = { 0 };
	int found, r;

	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
	found = find_long(p, name, &m);
	r = foreign_option(p, name, found, &m, eq != NULL, i);
	if (r)
		return r < 0 ? -1 : 0;
	if (found) {
		char h[NAME_MAX_LEN];

		hyphens(name, strlen(name), h, sizeof(h));
		if (suggest(p, h, near, sizeof(near))) {
			rb_err("unknown option '--%s'; did you mean '--%s'?", name, near);
		} else {
			see_help(p, see, sizeof(see));
			rb_err("unknown option '--%s' %s", name, see);
		}
		return -1;
	}
	display(&m, flag, sizeof(flag));
	if (!takes_value(m.o)) {
		if (eq) {
			rb_err("'%s' takes no value", flag);
			return -1;
		}
		return apply(p, &m, NULL);
	}
	if (eq)
		v = eq + 1;
	else if (*i + 1 < p->argc)
		v = p->argv[++*i];
	if (!v) {
		rb_err("'%s' needs a value", flag);
		return -1;
	}
	return apply(p, &m, v);
}

/* argv[*i], a short option: "-o VALUE" or "-oVALUE". */
static int short_option(struct parse *p, int *i)
{
	const char *a = p->argv[*i], *v = NULL;
	char flag[NAME_MAX_LEN + 2], see[256];
	struct match m;

	if (find_short(p, a[1], &m)) {
		see_help(p, see, sizeof(see));
		rb_err("unknown option '%s' %s", a, see);
		return -1;
	}
	display(&m, flag, sizeof(flag));
	if (!takes_value(m.o)) {
		if (a[2]) {
			rb_err("unknown option '%s' %s", a, (see_help(p, see, sizeof(see)), see));
			return -1;
		}
		return apply(p, &m, NULL);
	}
	if (a[2])
		v = a + 2;
	else if (*i + 1 < p->argc)
		v = p->argv[++*i];
	if (!v) {
		rb_err("'%s' needs a value", flag);
		return -1;
	}
	return apply(p, &m, v);
}

static int positional(struct parse *p, const char *a)
{
	const struct rb_parg *g = p->cmd->args ? &p->cmd->args[p->arg] : NULL;
	char see[256];

	if (!g || !g->name) {
		see_help(p, see, sizeof(see));
		rb_err("unexpected argument '%s' %s", a, see);
		return -1;
	}
	if (g->flags & RB_PARG_MANY)
		return list_push(g->value, a);
	*(const char **)g->value = a;
	p->arg++;
	return 0;
}

/* After the arguments: every required positional given. */
static int positionals_done(const struct parse *p)
{
	const struct rb_parg *g = p->cmd->args;
	char usage[1024];

	for (size_t k = p->arg; g && g[k].name; k++) {
		if (g[k].flags & RB_PARG_OPTIONAL)
			continue;
		if ((g[k].flags & RB_PARG_MANY) && ((struct rb_popt_list *)g[k].value)->n)
			continue;
		rb_parseopt_usage(p->cmd, usage, sizeof(usage));
		rb_err("missing %s (usage: %s)", g[k].name, usage);
		return -1;
	}
	return 0;
}

int rb_parseopt(const struct rb_popt_cmd *cmd, int argc, char **argv, void *ctx)
{
	struct parse p = {
		.cmd = cmd, .ctx = ctx, .nopts = nopts_of(cmd->opts), .argc = argc, .argv = argv
	};
	bool options = true;
	int r = 0;

	p.seen = calloc(p.nopts + rb_workload_nopts + 1, sizeof(*p.seen));
	if (!p.seen) {
		rb_err("out of memory");
		return -1;
	}
	for (int i = 1; cmd->foreign_trigger && i < argc && strcmp(argv[i], "--"); i++) {
		size_t n = strlen(cmd->foreign_trigger);

		p.foreign |= !strncmp(argv[i], "--", 2) &&
			     !strncmp(argv[i] + 2, cmd->foreign_trigger, n) &&
			     (!argv[i][2 + n] || argv[i][2 + n] == '=');
	}
	for (int i = 1; i < argc && !r; i++) {
		const char *a = argv[i];

		if (options && !strcmp(a, "--")) {
			options = false;
		} else if (options && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			rb_parseopt_help(cmd, stdout);
			r = 1;
		} else if (options && a[0] == '-' && a[1] == '-') {
			r = long_option(&p, &i);
		} else if (options && a[0] == '-' && a[1]) {
			r = short_option(&p, &i);
		} else {
			r = positional(&p, a);
		}
	}
	if (!r)
		r = positionals_done(&p);
	free(p.seen);
	return r;
}

int rb_parseopt_exit(int r)
{
	return r > 0 ? RB_EXIT_OK : RB_EXIT_USAGE;
}

/* The visible entries a usage line would list one by one; SIZE_MAX: too many. */
static size_t usage_options(const struct rb_popt *opts)
{
	size_t n = 0;

	for (size_t i = 0; opts && opts[i].type != RB_POPT_END; i++) {
		if (opts[i].type == RB_POPT_WORKLOAD)
			return SIZE_MAX;
		if (opts[i].type != RB_POPT_GROUP && !(opts[i].flags & RB_POPT_HIDDEN))
			n++;
	}
	return n;
}

__attribute__((format(printf, 4, 5))) static size_t add(char *buf, size_t len, size_t at,
							const char *fmt, ...)
{
	va_list ap;

	if (at >= len)
		return at;
	va_start(ap, fmt);
	at += (size_t)vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	return at;
}

void rb_parseopt_usage(const struct rb_popt_cmd *cmd, char *buf, size_t len)
{
	size_t at = add(buf, len, 0, "%s", cmd->name), n = usage_options(cmd->opts);

	if (cmd->usage) {
		add(buf, len, at, " %s", cmd->usage);
		return;
	}
	for (size_t k = 0; cmd->args && cmd->args[k].name; k++) {
		const struct rb_parg *g = &cmd->args[k];
		bool opt = g->flags & RB_PARG_OPTIONAL, many = g->flags & RB_PARG_MANY;

		if (opt)
			at = add(buf, len, at, " [%s%s]", g->name, many ? "..." : "");
		else
			at = add(buf, len, at, " %s%s", g->name, many ? "..." : "");
	}
	if (n > 3) {
		add(buf, len, at, " [options]");
		return;
	}
	for (size_t i = 0; cmd->opts && cmd->opts[i].type != RB_POPT_END; i++) {
		const struct rb_popt *o = &cmd->opts[i];

		if (o->type == RB_POPT_GROUP || (o->flags & RB_POPT_HIDDEN) || !o->long_name)
			continue;
		if (takes_value(o))
			at = add(buf, len, at, " [--%s %s]", o->long_name,
				 o->argname ? o->argname : "VALUE");
		else
			at = add(buf, len, at, " [--%s]", o->long_name);
	}
}

/* text from column col on, wrapped to HELP_WIDTH, its lines after the first indented. */
static void wrap(FILE *out, const char *text, size_t col)
{
	size_t at = col;

	while (*text) {
		size_t w = strcspn(text, " \n");

		if (at > col && at + 1 + w > HELP_WIDTH) {
			fprintf(out, "\n%*s", (int)col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', out);
			at++;
		}
		fprintf(out, "%.*s", (int)w, text);
		at += w;
		text += w;
		if (*text == '\n') {
			fprintf(out, "\n%*s", (int)col, "");
			at = col;
		}
		while (*text == ' ' || *text == '\n')
			text++;
	}
	fputc('\n', out);
}

/* "  -o, --long ARG": an entry's left side. */
static void left_side(const struct rb_popt *o, const char *name, char *buf, size_t len)
{
	char h[NAME_MAX_LEN];
	size_t at = (size_t)snprintf(buf, len, "  ");

	if (o->short_name)
		at += (size_t)snprintf(buf + at, len - at, "-%c%s", o->short_name,
				       name ? ", " : "");
	if (name && at < len)
		at += (size_t)snprintf(buf + at, len - at, "--%s",
				       hyphens(name, strlen(name), h, sizeof(h)));
	if (takes_value(o) && at < len)
		snprintf(buf + at, len - at, " %s", o->argname ? o->argname : "VALUE");
}

static void entry(FILE *out, const char *left, const char *help)
{
	size_t l = strlen(left);

	if (l + 2 > HELP_COLUMN) {
		fprintf(out, "%s\n%*s", left, HELP_COLUMN, "");
	} else {
		fprintf(out, "%-*s", HELP_COLUMN, left);
	}
	wrap(out, help ? help : "", HELP_COLUMN);
}

static void workload_entries(FILE *out, const struct rb_popt *o)
{
	for (size_t k = 0; k < rb_workload_nopts; k++) {
		const struct rb_opt *w = &rb_workload_opts[k];
		struct rb_popt shown = { .type = RB_POPT_STRING, .argname = w->metavar };
		char left[160], help[1024], desc[320];

		(void)o;
		left_side(&shown, w->key, left, sizeof(left));
		snprintf(help, sizeof(help), "%s (%s)", w->help,
			 rb_opt_describe(w, desc, sizeof(desc)));
		entry(out, left, help);
	}
}

void rb_parseopt_help(const struct rb_popt_cmd *cmd, FILE *out)
{
	char usage[1024], left[160];
	bool help_shown = false;

	rb_parseopt_usage(cmd, usage, sizeof(usage));
	fprintf(out, "usage: %s\n", usage);
	if (cmd->desc)
		fprintf(out, "\n%s%s", cmd->desc,
			cmd->desc[strlen(cmd->desc) - 1] == '\n' ? "" : "\n");
	fprintf(out, "\n");
	for (size_t i = 0; cmd->opts && cmd->opts[i].type != RB_POPT_END; i++) {
		const struct rb_popt *o = &cmd->opts[i];

		if (o->flags & RB_POPT_HIDDEN)
			continue;
		if (o->type == RB_POPT_GROUP) {
			if (!help_shown)
				entry(out, "  -h, --help", "this text");
			help_shown = true;
			fprintf(out, "\n%s\n", o->help);
		} else if (o->type == RB_POPT_WORKLOAD) {
			workload_entries(out, o);
		} else {
			left_side(o, o->long_name, left, sizeof(left));
			entry(out, left, o->help);
		}
	}
	if (!help_shown)
		entry(out, "  -h, --help", "this text");
	if (cmd->epilog)
		fprintf(out, "\n%s%s", cmd->epilog,
			cmd->epilog[strlen(cmd->epilog) - 1] == '\n' ? "" : "\n");
}

void rb_parseopt_names(const struct rb_popt_cmd *cmd, void (*fn)(const char *flag, void *arg),
		       void *arg)
{
	char h[NAME_MAX_LEN], flag[NAME_MAX_LEN + 2];

	for (size_t i = 0; cmd->opts && cmd->opts[i].type != RB_POPT_END; i++) {
		const struct rb_popt *o = &cmd->opts[i];
		size_t n = o->type == RB_POPT_WORKLOAD ? rb_workload_nopts : 1;

		if (o->type == RB_POPT_GROUP || (o->flags & RB_POPT_HIDDEN))
			continue;
		for (size_t k = 0; k < n; k++) {
			const char *ln = o->type == RB_POPT_WORKLOAD ? rb_workload_opts[k].key
								     : o->long_name;

			if (!ln)
				continue;
			snprintf(flag, sizeof(flag), "--%s", hyphens(ln, strlen(ln), h, sizeof(h)));
			fn(flag, arg);
		}
	}
	fn("--help", arg);
}

int rb_parseopt_dispatch(const char *prog, const struct rb_subcmd *cmds, size_t n, int argc,
			 char **argv, int *ret_rc)
{
	const char *word = argc > 1 ? argv[1] : NULL;
	size_t best = SIZE_MAX, pick = 0;

	if (!word || word[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t d = rb_parseopt_distance(word, cmds[i].name);

		if (d == 0) {
			*ret_rc = cmds[i].fn(argc - 1, argv + 1);
			return 1;
		}
		if (d < best) {
			best = d;
			pick = i;
		}
	}
	if (best <= 2)
		rb_err("unknown command '%s'; did you mean '%s'?", word, cmds[pick].name);
	else
		rb_err("unknown command '%s' (see '%s --help')", word, prog);
	return -1;
}

static void print_flag(const char *flag, void *arg)
{
	fprintf(arg, " %s", flag);
}

void rb_parseopt_bash(FILE *out, const char *prog, const struct rb_subcmd *cmds, size_t n,
		      const struct rb_popt_cmd *top, const char *(*words)(const char *cmd))
{
	char fn[64];

	snprintf(fn, sizeof(fn), "_%s", prog);
	for (char *p = fn; *p; p++)
		if (*p == '-')
			*p = '_';
	fprintf(out, "# bash completion for %s: from its commands' tables ('%s completion bash')\n",
		prog, prog);
	fprintf(out, "%s() {\n\tlocal cur=\"${COMP_WORDS[COMP_CWORD]}\" words=\"\" files=1\n", fn);
	fprintf(out,
		"\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tcase \"$cur\" in\n\t\t-*) words=\"");
	if (top)
		rb_parseopt_names(top, print_flag, out);
	fprintf(out, "\" ;;\n\t\t*) words=\"");
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %s", cmds[i].name);
	fprintf(out, "\" ;;\n\t\tesac\n\t\tfiles=0\n\telse\n\t\tcase \"${COMP_WORDS[1]}\" in\n");
	for (size_t i = 0; i < n; i++) {
		const char *w = words ? words(cmds[i].name) : NULL;

		fprintf(out, "\t\t%s)\n\t\t\tcase \"$cur\" in\n\t\t\t-*) words=\"", cmds[i].name);
		if (cmds[i].spec)
			rb_parseopt_names(cmds[i].spec, print_flag, out);
		fprintf(out, "\"; files=0 ;;\n");
		if (w)
			fprintf(out, "\t\t\t*) words=\"%s\"; files=0 ;;\n", w);
		fprintf(out, "\t\t\tesac ;;\n");
	}
	fprintf(out, "\t\tesac\n\t\tcase \"$cur/${COMP_WORDS[COMP_CWORD-1]}\" in\n"
		     "\t\t-*) ;;\n\t\t*/--?*) words=\"\"; files=1 ;;\n\t\tesac\n\tfi\n");
	fprintf(out, "\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n");
	fprintf(out, "\tif [ \"$files\" = 1 ] && [ ${#COMPREPLY[@]} -eq 0 ]; then\n"
		     "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\n");
	fprintf(out, "complete -F %s %s\n", fn, prog);
}

int rb_parseopt_completion(const struct rb_popt_cmd *spec, const char **shell, int argc,
			   char **argv, const char *prog, const struct rb_subcmd *cmds, size_t n,
			   const struct rb_popt_cmd *top, const char *(*words)(const char *cmd))
{
	int r;

	*shell = NULL;
	r = rb_parseopt(spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	if (strcmp(*shell, "bash")) {
		rb_err("no completion for '%s': bash only", *shell);
		return RB_EXIT_USAGE;
	}
	rb_parseopt_bash(stdout, prog, cmds, n, top, words);
	return RB_EXIT_OK;
}
