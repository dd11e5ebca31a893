// SPDX-License-Identifier: MIT
/*
 * The fleet's verdicts (fleet_verdict.h): fail_slow against the peers at the same load,
 * failures that cluster in a rack or host, drives on a minority firmware. The points are
 * sorted once by (model, firmware, point, IOPS): each drive's peers at its load are a
 * range of that order, its nearest in load taken from both sides.
 */
#include "fleet_verdict.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verdict.h"
#include "grow.h"

/* The peers' noise: a robust sigma (1.4826 x MAD) times this, as the report's outliers. */
#define NOISE_SIGMAS 3.5
/* The slow points a reason names, at most. */
#define SHOWN 6u

const char *rb_fleet_state_name(enum rb_fleet_state s)
{
	static const char *const n[] = { "HOLD", "FAIL", "QUARANTINE", "NOTE" };

	return n[s];
}

/* A drive fail_slow judges: not a file, not a volume. */
static bool judged_kind(const struct rb_fleet_drive *d)
{
	return strcmp(d->kind, "file") && strcmp(d->kind, "volume") && !d->members;
}

struct ctx {
	const struct rb_fleet_in *in;
	size_t *ix; /* the judged points, by model, firmware, point, IOPS */
	size_t n;
	struct rb_fleet_verdict *v;
	size_t nv, cap;
	bool oom;
};

static int cmp_point(const void *a, const void *b, void *arg)
{
	const struct rb_fleet_in *in = arg;
	const struct rb_fleet_point *x = &in->points[*(const size_t *)a];
	const struct rb_fleet_point *y = &in->points[*(const size_t *)b];
	const struct rb_fleet_drive *dx = &in->drives[x->drive], *dy = &in->drives[y->drive];
	int c;

	if ((c = strcmp(dx->model, dy->model)) || (c = strcmp(dx->firmware, dy->firmware)))
		return c;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->iops < y->iops ? -1 : x->iops > y->iops;
}

/* Whether judged points a and b are of one model, firmware and point. */
static bool same_cell(const struct rb_fleet_in *in, size_t a, size_t b)
{
	const struct rb_fleet_point *x = &in->points[a], *y = &in->points[b];

	return x->name == y->name &&
	       !strcmp(in->drives[x->drive].model, in->drives[y->drive].model) &&
	       !strcmp(in->drives[x->drive].firmware, in->drives[y->drive].firmware);
}

static struct rb_fleet_verdict *add(struct ctx *c, const char *subject, const char *rule,
				    enum rb_fleet_state state, size_t drive)
{
	struct rb_fleet_verdict *v;

	if (RB_GROW(c->v, c->cap, c->nv, 32)) {
		c->oom = true;
		return NULL;
	}
	v = &c->v[c->nv++];
	memset(v, 0, sizeof(*v));
	snprintf(v->subject, sizeof(v->subject), "%s", subject);
	v->rule = rule;
	v->state = state;
	v->drive = drive;
	v->run_start_ns = state == RB_FLEET_HOLD ? 0 : c->in->drives[drive].run_start_ns;
	v->measured = v->expected = NAN;
	return v;
}

/* A reason grown a piece at a time, cut with "..." at its end. */
static void cat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* What one drive's points said: how many were judged and slow, the slow ones' words. */
struct slow {
	unsigned judged, slow;
	double worst_ratio, measured, expected;
	char words[900];
};

/* The latency in words: "812 us", "3.05 ms". */
static const char *lat_words(double ns, char *buf, size_t len)
{
	if (ns >= 1e6)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g us", ns / 1e3);
	return buf;
}

/*
 * Point i (a position in c->ix, within its cell [b, e)) against its peers at its load:
 * into its drive's record s. Returns whether it had peers enough to be judged.
 */
static bool judge_point(struct ctx *c, size_t i, size_t b, size_t e, double *buf, struct slow *s)
{
	const struct rb_fleet_in *in = c->in;
	const struct rb_fleet_point *p = &in->points[c->ix[i]];
	size_t lo = i, hi = i + 1, n = 0;
	double med, mad, x = p->iops;
	char a[32], w[32];

	/* the nearest in load on both sides, within the window */
	while (n < RB_FLEET_MAX_PEERS) {
		bool l = lo > b && in->points[c->ix[lo - 1]].iops >= x / RB_FLEET_LOAD_WINDOW;
		bool h = hi < e && in->points[c->ix[hi]].iops <= x * RB_FLEET_LOAD_WINDOW;

		if (!l && !h)
			break;
		if (l &&
		    (!h || x - in->points[c->ix[lo - 1]].iops <= in->points[c->ix[hi]].iops - x))
			buf[n++] = in->points[c->ix[--lo]].p99_ns;
		else
			buf[n++] = in->points[c->ix[hi++]].p99_ns;
	}
	if (n < RB_FLEET_MIN_PEERS)
		return false;
	med = rb_median(buf, n);
	for (size_t k = 0; k < n; k++)
		buf[k] = fabs(buf[k] - med);
	mad = rb_median(buf, n);
	s->judged++;
	if (!(p->p99_ns > in->p.margin * med && p->p99_ns - med > NOISE_SIGMAS * 1.4826 * mad))
		return true;
	s->slow++;
	if (p->p99_ns / med > s->worst_ratio) {
		s->worst_ratio = p->p99_ns / med;
		s->measured = p->p99_ns;
		s->expected = med;
	}
	if (s->slow <= SHOWN)
		cat(s->words, sizeof(s->words),
		    "%s'%s' %s p99 %s against the peers' %s at %.0f IOPS (%zu peers)",
		    s->slow > 1 ? "; " : "", in->names[p->name], p->write ? "write" : "read",
		    lat_words(p->p99_ns, a, sizeof(a)), lat_words(med, w, sizeof(w)), x, n);
	return true;
}

/* The run's day, for a reason: "2026-12-03". */
static const char *day(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, len, "%" PRId64, ns);
	return buf;
}

/* A drive's verdict from its points' record. */
static void slow_verdict(struct ctx *c, size_t d, const struct slow *s)
{
	const struct rb_fleet_in *in = c->in;
	const struct rb_fleet_drive *dr = &in->drives[d];
	bool again = dr->quarantined_ns && dr->quarantined_ns < dr->run_start_ns;
	struct rb_fleet_verdict *v;
	char when[40];

	if (s->slow < in->p.min_points)
		return;
	v = add(c, dr->key, "fail_slow", again ? RB_FLEET_FAIL : RB_FLEET_QUARANTINE, d);
	if (!v)
		return;
	v->measured = s->measured;
	v->expected = s->expected;
	v->points = s->slow;
	cat(v->reason, sizeof(v->reason),
	    "p99 at its load beyond %.3gx its peers' (model %s, firmware %s) in %u of %u "
	    "points: %s",
	    in->p.margin, dr->model[0] ? dr->model : "?", dr->firmware[0] ? dr->firmware : "?",
	    s->slow, s->judged, s->words);
	if (s->slow > SHOWN)
		cat(v->reason, sizeof(v->reason), "; and %u more", s->slow - SHOWN);
	if (again)
		cat(v->reason, sizeof(v->reason), "; quarantined in its run of %s too: it persists",
		    day(dr->quarantined_ns, when, sizeof(when)));
	else
		cat(v->reason, sizeof(v->reason), "; quarantine and retest it");
}

static int fail_slow(struct ctx *c, struct rb_fleet_stats *st)
{
	const struct rb_fleet_in *in = c->in;
	struct slow *s = calloc(in->nd + 1, sizeof(*s));
	double *buf = malloc((RB_FLEET_MAX_PEERS + 1) * sizeof(*buf));

	if (!s || !buf) {
		free(s);
		free(buf);
		return -ENOMEM;
	}
	for (size_t b = 0, e; b < c->n; b = e) {
		for (e = b + 1; e < c->n && same_cell(in, c->ix[b], c->ix[e]); e++)
			;
		for (size_t i = b; i < e; i++) {
			size_t d = in->points[c->ix[i]].drive;

			if (judge_point(c, i, b, e, buf, &s[d]))
				st->judged_points++;
			else
				st->unjudged_points++;
		}
	}
	for (size_t d = 0; d < in->nd; d++)
		slow_verdict(c, d, &s[d]);
	free(s);
	free(buf);
	return c->oom ? -ENOMEM : 0;
}

/* A drive that failed in its latest run: the rack's verdict, or fail_slow's now. */
static bool failed(const struct ctx *c, size_t d)
{
	if (!strcmp(c->in->drives[d].verdict, "FAIL"))
		return true;
	for (size_t k = 0; k < c->nv; k++)
		if (c->v[k].drive == d && c->v[k].state == RB_FLEET_FAIL)
			return true;
	return false;
}

static const char *domain_of(const struct rb_fleet_in *in, size_t d)
{
	return in->p.by_host ? in->drives[d].host : in->drives[d].rack;
}

static int cluster_hold(struct ctx *c)
{
	const struct rb_fleet_in *in = c->in;
	const char *what = in->p.by_host ? "host" : "rack";
	bool *done = calloc(in->nd + 1, sizeof(*done));

	if (!done)
		return -ENOMEM;
	for (size_t d = 0; d < in->nd; d++) {
		const char *dom = domain_of(in, d);
		size_t nf = 0, all = 0, first = SIZE_MAX;
		struct rb_fleet_verdict *v;
		char subject[300];

		if (done[d] || !dom[0])
			continue;
		for (size_t k = d; k < in->nd; k++) {
			if (strcmp(domain_of(in, k), dom))
				continue;
			done[k] = true;
			all++;
			if (failed(c, k) && nf++ == 0)
				first = k;
		}
		if (nf < in->p.cluster || !in->p.cluster)
			continue;
		snprintf(subject, sizeof(subject), "%s=%s", what, dom);
		v = add(c, subject, "cluster_hold", RB_FLEET_HOLD, first);
		if (!v)
			break;
		v->points = (unsigned)nf;
		cat(v->reason, sizeof(v->reason),
		    "%zu of its %zu drives failed (at least %u put a %s on hold): ", nf, all,
		    in->p.cluster, what);
		for (size_t k = first, shown = 0; k < in->nd; k++)
			if (!strcmp(domain_of(in, k), dom) && failed(c, k))
				cat(v->reason, sizeof(v->reason), "%s%s", shown++ ? ", " : "",
				    in->drives[k].key);
		cat(v->reason, sizeof(v->reason),
		    "; the %s is suspect as a whole (power, cooling, backplane): hold it, retest its "
		    "drives elsewhere",
		    what);
	}
	free(done);
	return c->oom ? -ENOMEM : 0;
}

static int cmp_firmware(const void *a, const void *b, void *arg)
{
	const struct rb_fleet_drive *v = arg;
	const struct rb_fleet_drive *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
	int c = strcmp(x->model, y->model);

	return c ? c : strcmp(x->firmware, y->firmware);
}

/* The drives of one model ([b, e) of ix, by firmware) on a firmware fewer than half run. */
static void minority(struct ctx *c, const size_t *ix, size_t b, size_t e)
{
	const struct rb_fleet_drive *dv = c->in->drives;
	size_t most = 0, base = b;

	for (size_t f = b, g; f < e; f = g) {
		for (g = f + 1; g < e && !strcmp(dv[ix[g]].firmware, dv[ix[f]].firmware); g++)
			;
		if (g - f > most) {
			most = g - f;
			base = f;
		}
	}
	for (size_t f = b, g; f < e; f = g) {
		const char *fw = dv[ix[f]].firmware, *model = dv[ix[f]].model;

		for (g = f + 1; g < e && !strcmp(dv[ix[g]].firmware, fw); g++)
			;
		if (f == base || 2 * (g - f) >= e - b)
			continue;
		for (size_t k = f; k < g; k++) {
			struct rb_fleet_verdict *v =
				add(c, dv[ix[k]].key, "firmware", RB_FLEET_NOTE, ix[k]);

			if (!v)
				return;
			cat(v->reason, sizeof(v->reason),
			    "firmware %s on %zu of the %zu drives of model %s, whose baseline is %s "
			    "(%zu drives): judged against its own firmware's peers",
			    fw[0] ? fw : "(none)", g - f, e - b, model[0] ? model : "?",
			    dv[ix[base]].firmware[0] ? dv[ix[base]].firmware : "(none)", most);
		}
	}
}

/* Per model, the firmware most drives run, and the drives on one fewer than half run. */
static int firmware(struct ctx *c, struct rb_fleet_stats *st)
{
	const struct rb_fleet_in *in = c->in;
	size_t *ix = malloc((in->nd + 1) * sizeof(*ix)), n = 0;

	if (!ix)
		return -ENOMEM;
	for (size_t d = 0; d < in->nd; d++)
		if (judged_kind(&in->drives[d]))
			ix[n++] = d;
	qsort_r(ix, n, sizeof(*ix), cmp_firmware, (void *)in->drives);
	for (size_t b = 0, e; b < n; b = e) {
		for (e = b + 1; e < n && !strcmp(in->drives[ix[e]].model, in->drives[ix[b]].model);
		     e++)
			;
		st->models++;
		minority(c, ix, b, e);
	}
	free(ix);
	return c->oom ? -ENOMEM : 0;
}

static int cmp_verdict(const void *a, const void *b)
{
	const struct rb_fleet_verdict *x = a, *y = b;

	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	return strcmp(x->subject, y->subject);
}

int rb_fleet_judge(const struct rb_fleet_in *in, struct rb_fleet_verdict **ret, size_t *ret_n,
		   struct rb_fleet_stats *ret_stats)
{
	struct ctx c = { .in = in };
	struct rb_fleet_stats st = { .drives = in->nd };
	int r;

	c.ix = malloc((in->np + 1) * sizeof(*c.ix));
	if (!c.ix)
		return -ENOMEM;
	for (size_t i = 0; i < in->np; i++) {
		const struct rb_fleet_point *p = &in->points[i];

		if (judged_kind(&in->drives[p->drive]) && p->iops > 0 && p->p99_ns > 0)
			c.ix[c.n++] = i;
	}
	qsort_r(c.ix, c.n, sizeof(*c.ix), cmp_point, (void *)in);
	r = fail_slow(&c, &st);
	if (!r)
		r = cluster_hold(&c);
	if (!r)
		r = firmware(&c, &st);
	free(c.ix);
	if (r) {
		free(c.v);
		return r;
	}
	qsort(c.v, c.nv, sizeof(*c.v), cmp_verdict);
	*ret = c.v;
	*ret_n = c.nv;
	if (ret_stats)
		*ret_stats = st;
	return 0;
}
