// SPDX-License-Identifier: MIT
#include "execphase.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "fname.h"
#include "proc.h"
#include "units.h"

#define OUT_TAIL 4096
#define ERR_TAIL 2048
#define KILL_GRACE_NS (10LL * 1000000000LL)
#define MAX_METRICS 16

/* ---- the allow-list (agent.yaml 'commands') ---- */

static void push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(char *));

	if (!nv)
		return;
	*v = nv;
	if (((*v)[*n] = strdup(s)))
		(*v)[++*n] = NULL;
}

/* One command: {argv, params, timeout, output}. */
static void load_cmd(struct rb_yaml *y, yaml_node_t *v, struct rb_agent_cmd *m, struct rb_diags *d)
{
	m->timeout_ns = 3600ULL * 1000000000ULL;
	snprintf(m->parser, sizeof(m->parser), "none");
	if (v->type != YAML_MAPPING_NODE) {
		rb_yaml_error(y, d, v, m->name, "a command is {argv, params, timeout, output}");
		return;
	}
	for (struct rb_yaml_it p = rb_yaml_pairs(y, v); rb_yaml_next(&p);) {
		yaml_node_t *k = p.key, *x = p.value;
		const char *key = rb_yaml_scalar(k), *val = rb_yaml_scalar(x);

		if (key && !strcmp(key, "argv") && x->type == YAML_SEQUENCE_NODE) {
			for (struct rb_yaml_it it = rb_yaml_items(y, x); rb_yaml_next(&it);) {
				const char *a = rb_yaml_scalar(it.value);

				if (a)
					push(&m->argv, &m->argc, a);
				else
					rb_yaml_error(y, d, x, key, "argv entries are words");
			}
		} else if (key && !strcmp(key, "params") && x->type == YAML_MAPPING_NODE) {
			for (struct rb_yaml_it q = rb_yaml_pairs(y, x); rb_yaml_next(&q);) {
				const char *pk = rb_yaml_scalar(q.key);
				const char *pv = rb_yaml_scalar(q.value);
				size_t n = m->nparams;

				if (!rb_plain_word(pk, "_") || !pv) {
					rb_yaml_error(y, d, q.key, key,
						      "params are NAME: DEFAULT (names: letters, "
						      "digits, '_')");
					continue;
				}
				push(&m->keys, &n, pk);
				push(&m->defs, &m->nparams, pv);
			}
		} else if (key && !strcmp(key, "timeout") && val) {
			if (rb_parse_duration(val, &m->timeout_ns) || !m->timeout_ns)
				rb_yaml_error(y, d, x, key, "'timeout' is a duration: 2h, 30m");
		} else if (key && !strcmp(key, "output") && val) {
			if (strcmp(val, "sysbench") && strcmp(val, "fio-json") &&
			    strcmp(val, "none"))
				rb_yaml_error(y, d, x, key,
					      "'output' is sysbench, fio-json or none");
			snprintf(m->parser, sizeof(m->parser), "%s", val);
		} else {
			rb_yaml_error(y, d, k, key,
				      "a command takes argv (a list), params (a mapping), "
				      "timeout and output, not '%s'",
				      key ? key : "?");
		}
	}
	if (!m->argc)
		rb_yaml_error(y, d, v, m->name, "command '%s' has no argv", m->name);
}

void rb_exec_cfg_load(struct rb_yaml *y, yaml_node_t *v, struct rb_exec_list *c, struct rb_diags *d)
{
	if (v->type != YAML_MAPPING_NODE) {
		rb_yaml_error(y, d, v, "commands",
			      "'commands' must be a mapping: NAME: {argv, ...}");
		return;
	}
	for (struct rb_yaml_it p = rb_yaml_pairs(y, v); rb_yaml_next(&p);) {
		const char *name = rb_yaml_scalar(p.key);
		struct rb_agent_cmd *nv;

		if (!rb_plain_word(name, "._-")) {
			rb_yaml_error(y, d, p.key, "commands",
				      "a command's name is a word (letters, digits, '._-')");
			continue;
		}
		if (!(nv = realloc(c->cmds, (c->ncmds + 1) * sizeof(*nv))))
			return;
		c->cmds = nv;
		memset(&c->cmds[c->ncmds], 0, sizeof(*nv));
		c->cmds[c->ncmds].name = strdup(name);
		load_cmd(y, p.value, &c->cmds[c->ncmds++], d);
	}
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void rb_exec_cfg_release(struct rb_exec_list *c)
{
	for (size_t i = 0; i < c->ncmds; i++) {
		free(c->cmds[i].name);
		free_list(c->cmds[i].argv, c->cmds[i].argc);
		free_list(c->cmds[i].keys, c->cmds[i].nparams);
		free_list(c->cmds[i].defs, c->cmds[i].nparams);
	}
	free(c->cmds);
	c->cmds = NULL;
	c->ncmds = 0;
}

const struct rb_agent_cmd *rb_exec_find(const struct rb_exec_list *c, const char *name)
{
	for (size_t i = 0; name && i < c->ncmds; i++)
		if (!strcmp(c->cmds[i].name, name))
			return &c->cmds[i];
	return NULL;
}

bool rb_exec_allowed(const struct rb_exec_list *c, const char *agent, const char *name,
		     struct rb_diags *d)
{
	char list[512] = "";
	size_t n = 0;

	if (rb_exec_find(c, name))
		return true;
	for (size_t i = 0; i < c->ncmds && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				      c->cmds[i].name);
	rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, agent,
		     "command '%s' is not on agent '%s''s allow-list (its agent.yaml 'commands': "
		     "%s)",
		     name, agent, n ? list : "none");
	return false;
}

/* ---- a run ---- */

struct xdrive {
	char **argv;
	size_t argc;
	char dir[PATH_MAX], out[PATH_MAX + 64], err[PATH_MAX + 64];
	char stat_path[64];
	uint64_t base[11], last[11]; /* the kernel's counters at the start, the last interval */
	uint64_t at_end[11];	     /* and when its command ended (end_read: read then) */
	pid_t pid;
	bool started, ended, timed_out, term_sent, end_read, final_sent;
	int status;
	int64_t start_ns, end_ns, term_ns;
	struct rb_target_result res;
	struct rb_dir_stats sample[RB_NDIR];
	struct rb_msg_exec_result msg;
	char out_tail[OUT_TAIL + 1], err_tail[ERR_TAIL + 1];
	struct rb_kv metrics[MAX_METRICS];
	char vals[MAX_METRICS][32];
};

struct rb_exec {
	const struct rb_agent_cmd *cmd;
	size_t n;
	struct xdrive *d;
	int64_t start_at, first, interval;
	unsigned next_ival;
	bool started, stopping, final_sent;
};

/* The counters of /sys/dev/block/MAJ:MIN/stat (11 of them); false when unreadable. */
static bool read_stat(const char *path, uint64_t v[11])
{
	FILE *f = *path ? fopen(path, "re") : NULL;
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f,
		    "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		    " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
		    &v[10]) == 11;
	fclose(f);
	return ok;
}

/* The kernel's counts between a and b as a read and a write direction's stats. */
static void stat_delta(const uint64_t a[11], const uint64_t b[11], struct rb_dir_stats *s)
{
	for (int d = 0; d < RB_NDIR; d++)
		rb_dir_stats_clear(&s[d]);
	for (int d = 0; d < 2; d++) {
		struct rb_dir_stats *x = &s[d ? RB_DIR_WRITE : RB_DIR_READ];
		int o = d * 4; /* ios, merges, sectors, ticks (ms) */

		x->ios = b[o] - a[o];
		x->bytes = (b[o + 2] - a[o + 2]) * 512;
		x->lat_sum_ns = (b[o + 3] - a[o + 3]) * 1000000ULL;
		if (x->ios)
			x->lat_min_ns = x->lat_max_ns = x->lat_sum_ns / x->ios;
	}
}

/* {NAME} in t replaced: dir, device, point, or a parameter. 0, or -EINVAL with err. */
static int fill(const char *t, const struct rb_exec_drive *dr, uint32_t point, char **keys,
		char **vals, size_t n, char *out, size_t len, char *err, size_t errlen)
{
	size_t o = 0;

	while (*t && o + 1 < len) {
		const char *close = *t == '{' ? strchr(t, '}') : NULL;
		char name[64], num[16];
		const char *v = NULL;

		if (!close) {
			out[o++] = *t++;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(close - t - 1), t + 1);
		if (!strcmp(name, "dir"))
			v = dr->dir;
		else if (!strcmp(name, "device"))
			v = dr->device;
		else if (!strcmp(name, "point"))
			snprintf(num, sizeof(num), "%u", point), v = num;
		for (size_t i = 0; !v && i < n; i++)
			if (!strcmp(keys[i], name))
				v = vals[i];
		if (!v) {
			snprintf(err, errlen,
				 "argv names {%s}: neither dir, device, point nor a "
				 "declared parameter",
				 name);
			return -EINVAL;
		}
		if (!strcmp(name, "dir") && !*v) {
			snprintf(err, errlen,
				 "drive '%s': the command works in {dir}, the drive's "
				 "filesystem, and the campaign gives it none ('filesystem')",
				 dr->drive);
			return -EINVAL;
		}
		o += (size_t)snprintf(out + o, len - o, "%s", v);
		t = close + 1;
	}
	out[o < len ? o : len - 1] = '\0';
	return 0;
}

/* The parameters' values: the declared defaults, then the campaign's (declared ones only). */
static int params_of(const struct rb_agent_cmd *c, const struct rb_msg_exec *m, char **vals,
		     char *err, size_t errlen)
{
	for (size_t i = 0; i < c->nparams; i++)
		vals[i] = c->defs[i];
	for (size_t k = 0; k < m->nparams; k++) {
		size_t i = 0;

		while (i < c->nparams && strcmp(c->keys[i], m->params[k].key))
			i++;
		if (i == c->nparams) {
			snprintf(err, errlen, "command '%s' declares no parameter '%s'", c->name,
				 m->params[k].key);
			return -EINVAL;
		}
		if (!rb_plain_value(m->params[k].value)) {
			snprintf(err, errlen,
				 "parameter '%s': '%s' is not a plain word (none starts with '-' "
				 "or '.')",
				 m->params[k].key, m->params[k].value);
			return -EINVAL;
		}
		vals[i] = (char *)m->params[k].value;
	}
	return 0;
}

static int drive_init(struct rb_exec *x, struct xdrive *xd, const struct rb_exec_drive *dr,
		      const char *state_dir, uint32_t point, size_t i, char **vals, char *err,
		      size_t errlen)
{
	const struct rb_agent_cmd *c = x->cmd;
	char buf[PATH_MAX + 256], state[PATH_MAX], dir[PATH_MAX];
	struct rb_exec_drive abs = *dr;
	struct stat st;
	int r;

	/* the command runs in its folder: every path it is given is absolute */
	if (!realpath(state_dir, state))
		snprintf(state, sizeof(state), "%s", state_dir);
	if (*dr->dir && realpath(dr->dir, dir))
		abs.dir = dir;
	for (size_t a = 0; a < c->argc; a++) {
		if ((r = fill(c->argv[a], &abs, point, c->keys, vals, c->nparams, buf, sizeof(buf),
			      err, errlen)))
			return r;
		push(&xd->argv, &xd->argc, buf);
	}
	snprintf(xd->dir, sizeof(xd->dir), "%s", *abs.dir ? abs.dir : state);
	snprintf(buf, sizeof(buf), "%s/exec", state);
	mkdir(buf, 0700);
	snprintf(xd->out, sizeof(xd->out), "%s/point%u-%zu.out", buf, point, i);
	snprintf(xd->err, sizeof(xd->err), "%s/point%u-%zu.err", buf, point, i);
	if (stat(dr->device, &st) == 0 && S_ISBLK(st.st_mode))
		snprintf(xd->stat_path, sizeof(xd->stat_path), "/sys/dev/block/%u:%u/stat",
			 major(st.st_rdev), minor(st.st_rdev));
	for (int d = 0; d < RB_NDIR; d++)
		rb_dir_stats_clear(&xd->res.dir[d]);
	snprintf(xd->res.features, sizeof(xd->res.features), "exec %s", c->name);
	return 0;
}

int rb_exec_new(const struct rb_exec_list *l, const char *agent, const char *state_dir,
		const struct rb_msg_exec *m, const struct rb_exec_drive *d, size_t n,
		uint32_t point, uint64_t interval_ns, struct rb_exec **ret, char *err,
		size_t errlen)
{
	const struct rb_agent_cmd *c = rb_exec_find(l, m->command);
	struct rb_exec *x;
	char **vals;
	int r = -ENOMEM;

	if (!c) {
		snprintf(err, errlen, "command '%s' is not on agent '%s''s allow-list", m->command,
			 agent);
		return -EINVAL;
	}
	x = calloc(1, sizeof(*x));
	vals = calloc(c->nparams + 1, sizeof(char *));
	snprintf(err, errlen, "out of memory");
	if (!x || !vals || !(x->d = calloc(n + 1, sizeof(*x->d))))
		goto fail;
	x->cmd = c;
	x->n = n;
	x->interval = (int64_t)(interval_ns ? interval_ns : 1000000000ULL);
	if ((r = params_of(c, m, vals, err, errlen)))
		goto fail;
	for (size_t i = 0; i < n; i++)
		if ((r = drive_init(x, &x->d[i], &d[i], state_dir, point, i, vals, err, errlen)))
			goto fail;
	free(vals);
	*ret = x;
	return 0;
fail:
	free(vals);
	rb_exec_free(x);
	return r;
}

void rb_exec_set_start_at(struct rb_exec *x, int64_t mono_ns)
{
	x->start_at = mono_ns;
}

static void spawn(struct xdrive *xd)
{
	int out = open(xd->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int err = open(xd->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), r;
	struct rb_proc_spec ps = { .argv = xd->argv, .cwd = xd->dir, .out = out, .err = err };

	read_stat(xd->stat_path, xd->base);
	memcpy(xd->last, xd->base, sizeof(xd->last));
	xd->start_ns = rb_mono_ns();
	xd->res.start_wall_ns = rb_wall_ns();
	xd->res.start_mono_ns = xd->start_ns;
	xd->started = true;
	if ((r = rb_proc_start(&ps, &xd->pid))) {
		snprintf(xd->res.message, sizeof(xd->res.message), "cannot start the command: %s",
			 strerror(-r));
		xd->ended = true;
		xd->status = -1;
		xd->end_ns = xd->start_ns;
	}
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
}

/* The last len bytes of path into buf (NUL-terminated). */
static void tail(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n = 0;

	buf[0] = '\0';
	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) == 0) {
		long size = ftell(f);

		fseek(f, size > (long)len ? size - (long)len : 0, SEEK_SET);
	}
	n = fread(buf, 1, len, f);
	buf[n] = '\0';
	fclose(f);
}

/* The last max bytes of path, NUL-terminated and allocated (NULL when unreadable); the
 * file's whole size in *ret_size. */
static char *tail_alloc(const char *path, size_t max, size_t *ret_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t n = 0;

	*ret_size = 0;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		size_t size = (size_t)st.st_size, want = size < max ? size : max;
		ssize_t r = 1;

		*ret_size = size;
		if ((buf = malloc(want + 1)))
			while (n < want &&
			       (r = pread(fd, buf + n, want - n, (off_t)(size - want + n))) > 0)
				n += (size_t)r;
		if (buf)
			buf[n] = '\0';
	}
	close(fd);
	return buf;
}

/* A command that ended: its result, its output's tails, what the parser read. */
static void ended(struct rb_exec *x, struct xdrive *xd)
{
	struct rb_target_result *res = &xd->res;
	int code = WIFEXITED(xd->status)     ? WEXITSTATUS(xd->status)
		   : WIFSIGNALED(xd->status) ? -WTERMSIG(xd->status)
					     : -1;
	uint64_t now[11];
	size_t nm = 0;
	char dur[32], note[256] = "";

	xd->ended = true;
	xd->end_ns = rb_mono_ns();
	res->end_wall_ns = rb_wall_ns();
	res->elapsed_ns = (uint64_t)(xd->end_ns - xd->start_ns);
	if (read_stat(xd->stat_path, now)) {
		struct rb_dir_stats all[RB_NDIR];

		stat_delta(xd->base, now, all);
		for (int d = 0; d < RB_NDIR; d++)
			res->dir[d] = all[d];
		memcpy(xd->at_end, now, sizeof(now));
		xd->end_read = true;
	}
	tail(xd->out, xd->out_tail, OUT_TAIL);
	tail(xd->err, xd->err_tail, ERR_TAIL);
	if (strcmp(x->cmd->parser, "none")) {
		/* its last RB_EXEC_PARSE_MAX bytes only: a command's output is not bounded */
		size_t size = 0;
		char *text = tail_alloc(xd->out, RB_EXEC_PARSE_MAX, &size);

		nm = !strcmp(x->cmd->parser, "sysbench")
			     ? rb_exec_parse_sysbench(text, xd->metrics, xd->vals, MAX_METRICS)
			     : rb_exec_parse_fio(text, size > RB_EXEC_PARSE_MAX, xd->metrics,
						 xd->vals, MAX_METRICS, note, sizeof(note));
		free(text);
	}
	if (xd->timed_out)
		snprintf(res->message, sizeof(res->message), "command '%s' timed out after %s",
			 x->cmd->name, rb_fmt_duration_human(x->cmd->timeout_ns, dur, sizeof(dur)));
	else if (code)
		snprintf(res->message, sizeof(res->message), "command '%s' %s %d (its stderr: %s)",
			 x->cmd->name, code < 0 ? "was killed by signal" : "exited",
			 code < 0 ? -code : code, xd->err);
	else if (note[0])
		snprintf(res->message, sizeof(res->message), "command '%s': %s", x->cmd->name,
			 note);
	xd->msg = (struct rb_msg_exec_result){
		.command = x->cmd->name,
		.exit_code = code,
		.timed_out = xd->timed_out,
		.duration_ns = res->elapsed_ns,
		.stdout_tail = xd->out_tail,
		.stderr_tail = xd->err_tail,
		.parser = x->cmd->parser,
		.metrics = xd->metrics,
		.nmetrics = nm,
	};
}

/* Reaps, and ends what ran past its timeout or was asked to stop. */
static void reap(struct rb_exec *x, int64_t now)
{
	for (size_t i = 0; i < x->n; i++) {
		struct xdrive *xd = &x->d[i];

		if (!xd->started || xd->ended)
			continue;
		/* what it left running went with it (proc.h) */
		if (rb_proc_wait(xd->pid, INT64_MAX, &xd->status) == 0) {
			ended(x, xd);
			continue;
		}
		if (!xd->term_sent &&
		    (x->stopping || now - xd->start_ns > (int64_t)x->cmd->timeout_ns)) {
			xd->timed_out = !x->stopping;
			xd->term_sent = true;
			xd->term_ns = now;
			rb_proc_term(xd->pid);
		} else if (xd->term_sent && now - xd->term_ns > KILL_GRACE_NS) {
			rb_proc_kill(xd->pid);
		}
	}
}

bool rb_exec_poll(struct rb_exec *x, rb_sample_fn fn, void *arg)
{
	int64_t now = rb_mono_ns();

	if (x->final_sent)
		return true;
	if (!x->started) {
		if (x->start_at && now < x->start_at && !x->stopping)
			return false;
		x->started = true;
		x->first = now;
		for (size_t i = 0; i < x->n && !x->stopping; i++)
			spawn(&x->d[i]);
	}
	reap(x, now);
	for (;;) {
		int64_t end = x->first + (int64_t)(x->next_ival + 1) * x->interval;
		size_t open = 0;

		/*
		 * A drive whose command ended: its last interval, up to the instant it ended, so
		 * that its samples add up to its result. The IO its drive does after (its
		 * filesystem writing back, while another drive's command still runs) is no
		 * command's.
		 */
		for (size_t i = 0; i < x->n; i++) {
			struct xdrive *xd = &x->d[i];

			/* stopped before its instant: nothing ran, nothing to sample */
			if (!xd->started || !xd->ended || xd->final_sent)
				continue;
			stat_delta(xd->last, xd->end_read ? xd->at_end : xd->last, xd->sample);
			if (xd->end_read)
				memcpy(xd->last, xd->at_end, sizeof(xd->last));
			fn(arg, (unsigned)i, x->next_ival,
			   xd->res.start_wall_ns + (xd->end_ns - x->first), xd->sample, true);
			xd->final_sent = true;
		}
		for (size_t i = 0; i < x->n; i++)
			open += x->d[i].started && !x->d[i].final_sent;
		if (!open) {
			x->final_sent = true;
			return true;
		}
		if (now < end)
			return false;
		for (size_t i = 0; i < x->n; i++) {
			struct xdrive *xd = &x->d[i];
			uint64_t cur[11];

			if (!xd->started || xd->final_sent)
				continue;
			if (!read_stat(xd->stat_path, cur))
				memcpy(cur, xd->last, sizeof(cur));
			stat_delta(xd->last, cur, xd->sample);
			memcpy(xd->last, cur, sizeof(cur));
			fn(arg, (unsigned)i, x->next_ival, xd->res.start_wall_ns + (end - x->first),
			   xd->sample, false);
		}
		x->next_ival++;
	}
}

void rb_exec_stop(struct rb_exec *x)
{
	x->stopping = true;
}

const struct rb_target_result *rb_exec_result(const struct rb_exec *x, size_t i)
{
	return &x->d[i].res;
}

const struct rb_msg_exec_result *rb_exec_msg(const struct rb_exec *x, size_t i)
{
	return x->d[i].ended ? &x->d[i].msg : NULL;
}

struct rb_exec *rb_exec_free(struct rb_exec *x)
{
	if (!x)
		return NULL;
	for (size_t i = 0; x->d && i < x->n; i++) {
		struct xdrive *xd = &x->d[i];

		/* never left running behind the agent */
		if (xd->started && !xd->ended) {
			int st;

			rb_proc_kill(xd->pid);
			rb_proc_wait(xd->pid, 0, &st);
		}
		free_list(xd->argv, xd->argc);
	}
	free(x->d);
	free(x);
	return NULL;
}

/* ---- sysbench's summary ---- */

/* The number after label (and its first '(' for a rate) in text; false when absent. */
static bool number_after(const char *text, const char *label, bool rate, double *ret)
{
	const char *p = strstr(text, label);

	if (!p)
		return false;
	p += strlen(label);
	if (rate && !(p = strchr(p, '(')))
		return false;
	p += rate;
	while (*p == ' ' || *p == '\t' || *p == ':')
		p++;
	char *end;
	double v = strtod(p, &end);

	if (end == p)
		return false;
	*ret = v;
	return true;
}

size_t rb_exec_parse_sysbench(const char *text, struct rb_kv *kv, char (*vals)[32], size_t max)
{
	static const struct {
		const char *name, *label;
		bool rate;
	} keys[] = {
		{ "transactions", "transactions:", false },
		{ "tps", "transactions:", true },
		{ "queries", "    queries:", false },
		{ "qps", "    queries:", true },
		{ "errors", "ignored errors:", false },
		{ "total_time_s", "total time:", false },
		{ "lat_min_ms", "min:", false },
		{ "lat_avg_ms", "avg:", false },
		{ "lat_max_ms", "max:", false },
		{ "lat_p95_ms", "95th percentile:", false },
		{ "lat_p99_ms", "99th percentile:", false },
	};
	const char *lat = text ? strstr(text, "Latency (ms):") : NULL;
	size_t n = 0;

	for (size_t i = 0; text && i < sizeof(keys) / sizeof(keys[0]) && n < max; i++) {
		double v;
		/* the latency block's min/avg/max, not another's */
		const char *from = !strncmp(keys[i].name, "lat_", 4) ? lat : text;

		/* "inf" or "nan" is no figure: left out, as one it did not print */
		if (!from || !number_after(from, keys[i].label, keys[i].rate, &v) || !isfinite(v))
			continue;
		snprintf(vals[n], 32, "%.10g", v);
		kv[n] = (struct rb_kv){ keys[i].name, vals[n] };
		n++;
	}
	return n;
}

/* ---- fio's JSON (--output-format=json) ---- */

static double jnum(struct json_object *o, const char *const *path)
{
	for (; *path && o; path++)
		if (!json_object_object_get_ex(o, *path, &o))
			return NAN;
	return o ? json_object_get_double(o) : NAN;
}

/* A member summed over jobs: one a job lacks adds nothing. */
static void jadd(double *sum, struct json_object *o, const char *const *path)
{
	double v = jnum(o, path);

	if (!isnan(v))
		*sum += v;
}

/* Where fio's document starts in text: its first '{', or (text being the end of a longer
 * output) the '{' before its "fio version" member. */
static const char *fio_document(const char *text, bool cut)
{
	const char *v;

	if (!text)
		return NULL;
	if (!cut)
		return strchr(text, '{');
	if (!(v = strstr(text, "\"fio version\"")))
		return NULL;
	while (v > text && *v != '{')
		v--;
	return *v == '{' ? v : NULL;
}

size_t rb_exec_parse_fio(const char *text, bool cut, struct rb_kv *kv, char (*vals)[32], size_t max,
			 char *note, size_t notelen)
{
	const char *open = fio_document(text, cut);
	/* json-c's tree takes tens of times the text: the text is bounded, and so its depth */
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *root = open && tok ? json_tokener_parse_ex(tok, open, -1) : NULL;
	struct json_object *jobs = NULL;
	double iops[2] = { 0, 0 }, bw[2] = { 0, 0 }, lat_sum = 0, ios = 0, errors = 0, p99[2];
	size_t njobs, n = 0;
	static const char *const dirs[2] = { "read", "write" };

	if (notelen)
		note[0] = '\0';
	json_tokener_free(tok);
	if (cut && !root)
		snprintf(note, notelen,
			 "its output is over the %u MiB the agent reads for figures, and fio's "
			 "JSON is not whole in its last %u MiB: no figures read",
			 RB_EXEC_PARSE_MAX >> 20, RB_EXEC_PARSE_MAX >> 20);
	if (!root || !json_object_object_get_ex(root, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array)) {
		json_object_put(root);
		return 0;
	}
	if (json_object_array_length(jobs) > RB_EXEC_PARSE_JOBS) {
		snprintf(note, notelen,
			 "fio's JSON has %zu jobs, over the %u the agent sums: no figures read "
			 "(group_reporting=1 makes one)",
			 json_object_array_length(jobs), RB_EXEC_PARSE_JOBS);
		json_object_put(root);
		return 0;
	}
	njobs = json_object_array_length(jobs);
	for (size_t j = 0; j < njobs; j++) {
		struct json_object *job = json_object_array_get_idx(jobs, j);

		jadd(&errors, job, (const char *const[]){ "error", NULL });
		for (int d = 0; d < 2; d++) {
			double t = jnum(job, (const char *const[]){ dirs[d], "total_ios", NULL });
			double m =
				jnum(job, (const char *const[]){ dirs[d], "lat_ns", "mean", NULL });

			jadd(&iops[d], job, (const char *const[]){ dirs[d], "iops", NULL });
			jadd(&bw[d], job, (const char *const[]){ dirs[d], "bw_bytes", NULL });
			if (t > 0 && !isnan(m)) {
				lat_sum += t * m;
				ios += t;
			}
			/* a percentile of one job only: those of several do not add up */
			p99[d] = njobs == 1 && t > 0
					 ? jnum(job, (const char *const[]){ dirs[d], "clat_ns",
									    "percentile",
									    "99.000000", NULL })
					 : NAN;
		}
	}
	json_object_put(root);
	struct {
		const char *name;
		double v;
	} out[] = {
		{ "iops", iops[0] + iops[1] },
		{ "mbps", (bw[0] + bw[1]) / 1e6 },
		{ "read_iops", iops[0] },
		{ "write_iops", iops[1] },
		{ "lat_avg_ms", ios > 0 ? lat_sum / ios / 1e6 : NAN },
		{ "read_p99_ms", p99[0] / 1e6 },
		{ "write_p99_ms", p99[1] / 1e6 },
		/* one direction moved IO: its p99 is the point's */
		{ "lat_p99_ms", isnan(p99[0])	? p99[1] / 1e6
				: isnan(p99[1]) ? p99[0] / 1e6
						: NAN },
		{ "errors", errors },
	};
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]) && n < max; i++) {
		if (!isfinite(out[i].v))
			continue;
		snprintf(vals[n], 32, "%.15g", out[i].v);
		kv[n] = (struct rb_kv){ out[i].name, vals[n] };
		n++;
	}
	return n;
}
