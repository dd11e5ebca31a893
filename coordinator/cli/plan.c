// SPDX-License-Identifier: MIT
/* A campaign's plan, the option table and the presets, as `plan`, `options`, `presets` print them. */
#include "plan.h"
#include "presets.h"

#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "campaign.h"
#include "campaign_keys.h"
#include "coord.h"
#include "transport.h"
#include "exitcode.h"
#include "jsonout.h"
#include "log.h"
#include "options.h"
#include "serve.h"
#include "units.h"
#include "stopsig.h"

static const char *type_name(enum rb_opt_type t)
{
	switch (t) {
	case RB_OPT_ENUM:
		return "enum";
	case RB_OPT_SIZE:
		return "size";
	case RB_OPT_DURATION:
		return "duration";
	case RB_OPT_UINT:
		return "uint";
	case RB_OPT_BOOL:
		return "bool";
	case RB_OPT_TEXT:
		return "text";
	}
	return "?";
}

/* The campaign key table (campaign_keys.h): the root's names, then every key's row. */
static void print_campaign_keys(void)
{
	bool first = true;

	printf("], \"campaign_keys\": [");
	for (size_t i = 0; i < rb_nckeys; i++)
		if (rb_ckeys[i].where == RB_CK_ROOT) {
			printf("%s\"%s\"", first ? "" : ", ", rb_ckeys[i].name);
			first = false;
		}
	printf("], \"campaign_key_table\": [");
	for (size_t i = 0; i < rb_nckeys; i++) {
		const struct rb_ckey *k = &rb_ckeys[i];

		printf("%s{\"name\": \"%s\", \"where\": \"%s\", \"type\": \"%s\", \"choices\": [",
		       i ? ", " : "", k->name, rb_ckey_where_id(k->where),
		       rb_ckey_type_name(k->type));
		for (size_t c = 0; k->choices && k->choices[c]; c++)
			printf("%s\"%s\"", c ? ", " : "", k->choices[c]);
		printf("], \"default\": ");
		rb_json_str(stdout, k->def);
		printf(", \"help\": ");
		rb_json_str(stdout, k->help);
		printf("}");
	}
}

int rb_options_print(bool json)
{
	if (json)
		printf("{\"options\": [");
	for (size_t i = 0; i < rb_workload_nopts; i++) {
		const struct rb_opt *o = &rb_workload_opts[i];

		if (!json) {
			printf("%-20s %-9s default %-10s %s\n", o->key, type_name(o->type),
			       *o->def ? o->def : "-", o->help);
			continue;
		}
		printf("%s{\"key\": \"%s\", \"type\": \"%s\", \"default\": ", i ? ", " : "", o->key,
		       type_name(o->type));
		rb_json_str(stdout, o->def);
		printf(", \"min\": %" PRIu64 ", \"max\": %" PRIu64 ", \"choices\": [", o->min,
		       o->max);
		for (size_t c = 0; o->choices && o->choices[c]; c++)
			printf("%s\"%s\"", c ? ", " : "", o->choices[c]);
		printf("], \"help\": ");
		rb_json_str(stdout, o->help);
		printf("}");
	}
	if (json) {
		print_campaign_keys();
		size_t np;
		const struct rb_preset *pr = rb_presets(&np);

		printf("], \"presets\": [");
		for (size_t i = 0; i < np; i++)
			printf("%s\"%s\"", i ? ", " : "", pr[i].name);
		printf("]}\n");
	}
	return RB_EXIT_OK;
}

/* Bytes one drive moves in a size-based point, with an assumed capacity; 0 unknown. */
static uint64_t sized_bytes(const struct rb_workload *wl, uint64_t capacity)
{
	uint64_t span;

	if (wl->rw == RB_RW_CHECKPOINT)
		return rb_ckpt_moved(wl);
	if (wl->io_size)
		return wl->io_size;
	if (wl->size)
		span = wl->size;
	else if (!capacity || capacity <= wl->offset)
		return 0;
	else
		span = wl->size_pct ? rb_workload_pct_of(capacity - wl->offset, wl->size_pct)
				    : capacity - wl->offset;
	return span * wl->passes;
}

/* A phase that measures some of the drives says which. */
static void phase_drives(const struct rb_phase *P)
{
	for (size_t i = 0; i < P->ndrives; i++)
		printf("%s%s%s", i ? ", " : "  measures: ", P->drives[i],
		       i + 1 == P->ndrives ? "\n" : "");
}

/* --resolve: the campaign's drives as their agents see them. Frees C; the exit code. */
static int plan_resolve(struct rb_campaign *c, const struct rb_plan_args *pa)
{
	int rc;

	char cpath[4096];

	rb_stop_signals(NULL, false, NULL);
	/* the agents are the service's when one runs: it resolves on them, and writes the lock */
	if (!pa->listen && rb_service_use(pa->ctl, pa->no_service, cpath, sizeof(cpath))) {
		char *f = realpath(pa->file, NULL), *lock = rb_path_absolute(pa->lock);

		rc = rb_service_submit(&(struct rb_submit){ .ctl = cpath,
							    .kind = "resolve",
							    .arg = f ? f : pa->file,
							    .text = c->text,
							    .lock = lock,
							    .interrupted = &rb_stop_flag });
		free(f);
		free(lock);
		rb_campaign_free(c);
		return rc;
	}
	if (pa->listen) {
		free(c->listen);
		c->listen = strdup(pa->listen);
	}
	rc = rb_coord_resolve(c, &(struct rb_coord_opts){ .stop = &rb_stop_flag }, pa->lock);
	rb_campaign_free(c);
	rb_tx_context_term();
	return rc;
}

static void plan_header(const struct rb_campaign *c)
{
	unsigned selected = 0;
	bool more = false;

	for (size_t i = 0; i < c->nselectors; i++) {
		selected += c->selectors[i].count;
		more |= c->selectors[i].at_least;
	}
	printf("campaign %s: %zu agent(s), %zu drive(s)", c->name, c->nagents, c->ndrives);
	if (c->nselectors)
		printf(" + %s%u chosen by identity when their agents connect (--resolve shows them)",
		       more ? "at least " : "", selected);
	printf(", %zu phase(s), %zu point(s)%s\n", c->nphases, c->npoints,
	       rb_campaign_writes(c) ? ", writes (destructive)" : ", read-only");
}

/* The whole plan's time, over its phases. */
struct plan_totals {
	uint64_t total_ns, min_ns, max_ns;
	size_t sized;	    /* size-based phases and purges: their time is the drives' */
	size_t sized_total; /* of them, timed with --assume-mbps */
};

/* A phase's points, counted. */
struct phase_sum {
	uint64_t round_ns, all_ns, bytes; /* round_ns: the first round's time */
	size_t n, psized, curves, purges;
	bool bytes_known;
};

static void phase_count(const struct rb_campaign *c, size_t ph, uint64_t capacity,
			struct phase_sum *ps)
{
	const struct rb_phase *P = &c->phases[ph];

	*ps = (struct phase_sum){ .bytes_known = true };
	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_workload *wl = &c->points[i].wl;

		if (c->points[i].phase != ph)
			continue;
		ps->n++;
		ps->curves += c->points[i].curve_pct == 0;
		/* a purge's or a fill's own time is the drive's, an exec's its command's; the
		 * idle after it is planned */
		if (c->points[i].purge[0] || c->points[i].exec[0]) {
			ps->purges++;
			ps->all_ns += P->idle_ns;
			continue;
		}
		if (rb_workload_size_based(wl)) {
			uint64_t x = sized_bytes(wl, capacity);

			ps->psized++;
			ps->bytes += x;
			ps->bytes_known &= x > 0;
			ps->all_ns += P->idle_ns;
			continue;
		}
		ps->all_ns += wl->ramp_ns + wl->runtime_ns + P->idle_ns;
		if (c->points[i].round == 1)
			ps->round_ns += wl->ramp_ns + wl->runtime_ns + P->idle_ns;
	}
}

/*
 * The note on a phase's size-based points in EXTRA: their bytes, and their time at
 * --assume-mbps (added to the phase's).
 */
static void phase_sized_note(struct phase_sum *ps, uint64_t mbps, struct plan_totals *pt,
			     char *extra, size_t len)
{
	if (ps->psized && ps->bytes_known) {
		char sz[32];

		snprintf(extra, len, "; size-based: %s per drive",
			 rb_fmt_size_human(ps->bytes, sz, sizeof(sz)));
		if (mbps) {
			uint64_t ns = (uint64_t)((double)ps->bytes / ((double)mbps * 1e6) * 1e9);

			snprintf(extra + strlen(extra), len - strlen(extra),
				 ", %s at %" PRIu64 " MB/s",
				 rb_fmt_duration_human(ns, sz, sizeof(sz)), mbps);
			ps->all_ns += ns;
			pt->sized_total += ps->psized;
		}
	} else if (ps->psized) {
		snprintf(extra, len,
			 "; size-based: time depends on the drives "
			 "(--assume-capacity, --assume-mbps)");
	}
}

/* A purge phase's line: the last purge it names. */
static void phase_purge(const struct rb_campaign *c, size_t ph)
{
	const struct rb_point *x = NULL;
	char params[sizeof(x->exec_params)];

	for (size_t i = 0; i < c->npoints; i++)
		if (c->points[i].phase == ph && (c->points[i].purge[0] || c->points[i].exec[0]))
			x = &c->points[i];
	if (x && x->exec[0]) {
		/* the parameters on one line: KEY=VALUE, ... */
		snprintf(params, sizeof(params), "%s", x->exec_params);
		for (char *s = params; *s; s++)
			if (*s == '\n')
				*s = s[1] ? ' ' : '\0';
		printf("phase %s: the agents' command '%s' on each drive (%s): time is the "
		       "command's\n",
		       c->phases[ph].name, x->exec, *params ? params : "its defaults");
	} else {
		printf("phase %s: purge (%s): time depends on the drives\n", c->phases[ph].name,
		       x ? x->purge : "");
	}
	phase_drives(&c->phases[ph]);
}

/* A phase's line, and for a steady state the range its rounds allow; added to PT. */
static void plan_phase(const struct rb_campaign *c, size_t ph, const struct rb_plan_args *pa,
		       struct plan_totals *pt)
{
	const struct rb_phase *P = &c->phases[ph];
	struct phase_sum ps;
	size_t per = P->npoints_per_round;
	char extra[160] = "", a[32], b[32];

	phase_count(c, ph, pa->capacity, &ps);
	pt->sized += ps.psized;
	phase_sized_note(&ps, pa->mbps, pt, extra, sizeof(extra));
	if (ps.purges) {
		phase_purge(c, ph);
		pt->sized++;
		return;
	}
	if (P->steady_rounds) {
		printf("phase %s: steady state over %zu point(s) per round, %u to %u rounds: "
		       "%zu to %zu points, %s to %s%s\n",
		       P->name, per, P->steady_window, P->steady_rounds, per * P->steady_window,
		       ps.n, rb_fmt_duration_human(ps.round_ns * P->steady_window, a, sizeof(a)),
		       rb_fmt_duration_human(ps.all_ns, b, sizeof(b)), extra);
		pt->min_ns += ps.round_ns * P->steady_window;
	} else {
		bool untimed = ps.psized == ps.n && !pa->mbps && !ps.bytes_known;
		char cv[96] = "";

		if (ps.curves)
			snprintf(cv, sizeof(cv),
				 " (%zu curve(s): an unthrottled run, then %zu "
				 "rate(s) each)",
				 ps.curves, per - 1);
		printf("phase %s: %zu point(s)%s, %s%s\n", P->name, ps.n, cv,
		       untimed ? "size-based" : rb_fmt_duration_human(ps.all_ns, a, sizeof(a)),
		       untimed ? ": time depends on the drives (--assume-capacity, --assume-mbps)"
			       : extra);
		pt->min_ns += ps.all_ns;
	}
	phase_drives(P);
	pt->max_ns += ps.all_ns;
	pt->total_ns += ps.all_ns;
}

/* Every point and its time, or how many there are. */
static void plan_points(const struct rb_campaign *c, bool list)
{
	char a[32];

	if (!list && c->npoints > 100) {
		printf("  (%zu points: --points lists them)\n", c->npoints);
		return;
	}
	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_workload *wl = &c->points[i].wl;
		bool size_based = rb_workload_size_based(wl);

		printf("  %4zu  %-44s %s\n", i + 1, c->points[i].name,
		       c->points[i].purge[0]  ? "purge"
		       : c->points[i].exec[0] ? "exec (its command's own time)"
		       : size_based
			       ? (wl->rw == RB_RW_CHECKPOINT ? "size-based (checkpoints)"
				  : wl->passes		     ? "size-based (passes)"
							     : "size-based (io_size)")
			       : rb_fmt_duration_human(wl->ramp_ns + wl->runtime_ns, a, sizeof(a)));
	}
}

/*
 * What a stored sample (a drive's direction over one interval) costs on disk, measured
 * with bench/fleet.py at ~300 latency buckets a sample, a 1 s interval's spread of a 4K
 * random read (schemas/results-layout.md, "What a run stores"): the HDF5 file's rows
 * after deflate, and the journal's copy of the message.
 */
#define SAMPLE_H5_BYTES 400
#define SAMPLE_JOURNAL_BYTES 1200

/*
 * The sample rows the points store, over the drives the campaign names: time-based points
 * by their runtime, size-based ones by their bytes at --assume-mbps (else not counted:
 * *untimed says how many).
 */
static double plan_samples(const struct rb_campaign *c, const struct rb_plan_args *pa,
			   size_t *untimed)
{
	double rows = 0;

	*untimed = 0;
	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_point *p = &c->points[i];
		const struct rb_workload *wl = &p->wl;
		uint64_t ns = wl->runtime_ns;
		size_t drives = 0;
		unsigned dirs;

		if (p->purge[0] || p->exec[0] || !wl->interval_ns)
			continue;
		if (rb_workload_size_based(wl)) {
			uint64_t bytes = sized_bytes(wl, pa->capacity);

			if (!bytes || !pa->mbps) {
				(*untimed)++;
				continue;
			}
			ns = (uint64_t)((double)bytes / ((double)pa->mbps * 1e6) * 1e9);
		}
		for (size_t d = 0; d < c->ndrives; d++)
			drives += rb_point_has_drive(c, p, d);
		dirs = (unsigned)rb_rw_reads((enum rb_rw)wl->rw) +
		       (unsigned)rb_rw_writes((enum rb_rw)wl->rw);
		rows += (double)drives * (dirs ? dirs : 1) *
			(double)((ns + wl->interval_ns - 1) / wl->interval_ns);
	}
	return rows;
}

/* The results' size: rows, HDF5 and journal bytes. */
static void plan_storage(const struct rb_campaign *c, const struct rb_plan_args *pa)
{
	size_t untimed;
	double rows = plan_samples(c, pa, &untimed);
	char a[32], b[32];

	if (rows < 1) {
		if (untimed)
			printf("results: the size-based points' samples depend on the drives' speed "
			       "(--assume-capacity, --assume-mbps)\n");
		return;
	}
	printf("results: about %.0f sample rows: %s of HDF5 and %s of journal at ~300 latency "
	       "buckets a sample (schemas/results-layout.md)%s%s\n",
	       rows, rb_fmt_size_human((uint64_t)(rows * SAMPLE_H5_BYTES), a, sizeof(a)),
	       rb_fmt_size_human((uint64_t)(rows * SAMPLE_JOURNAL_BYTES), b, sizeof(b)),
	       c->nselectors || c->ngroups ? ", plus the drives chosen when agents connect" : "",
	       untimed ? ", plus the size-based points' (--assume-capacity, --assume-mbps)" : "");
}

/* The plan's time and its methodology hash. */
static void plan_footer(const struct rb_campaign *c, const struct plan_totals *pt)
{
	bool open_ended = pt->sized > pt->sized_total;
	const char *plus =
		open_ended ? ", plus size-based points (time depends on the drives)" : "";
	char a[32], b[32];
	/* the run does not idle after its last point */
	uint64_t last = c->npoints ? c->phases[c->points[c->npoints - 1].phase].idle_ns : 0;
	uint64_t lo = pt->min_ns > last ? pt->min_ns - last : 0,
		 hi = pt->max_ns > last ? pt->max_ns - last : 0;

	if (pt->min_ns == pt->max_ns)
		printf("time: %s (idle included)%s\n",
		       rb_fmt_duration_human(pt->total_ns > last ? pt->total_ns - last : 0, b,
					     sizeof(b)),
		       plus);
	else
		printf("time: %s to %s (idle included; steady state decides)%s\n",
		       rb_fmt_duration_human(lo, a, sizeof(a)),
		       rb_fmt_duration_human(hi, b, sizeof(b)), plus);
	printf("methodology: %s (stored with the results; equal hashes ran the same plan)\n",
	       rb_campaign_methodology(c, a, sizeof(a)));
}

int rb_plan(const struct rb_plan_args *a)
{
	struct rb_plan_args pa = *a;
	struct plan_totals pt = { 0 };
	struct rb_campaign *c = NULL;
	struct rb_diags d;

	rb_diags_init(&d);
	if (rb_campaign_load_file(pa.file, &c, &d)) {
		rb_diags_print(&d, stderr);
		rb_diags_release(&d);
		return RB_EXIT_USAGE;
	}
	rb_diags_release(&d);
	if (pa.resolve)
		return plan_resolve(c, &pa);
	plan_header(c);
	for (size_t ph = 0; ph < c->nphases; ph++)
		plan_phase(c, ph, &pa, &pt);
	plan_points(c, pa.list);
	plan_footer(c, &pt);
	plan_storage(c, &pa);
	rb_campaign_free(c);
	return RB_EXIT_OK;
}

int rb_presets_print(const char *name)
{
	size_t n;
	const struct rb_preset *p = rb_presets(&n);

	if (name) {
		const struct rb_preset *x = rb_preset_find(name);

		if (!x) {
			rb_err("unknown preset '%s' (see 'rackbench presets')", name);
			return RB_EXIT_USAGE;
		}
		printf("# preset %s: %s\n# source: %s\n%s", x->name, x->summary, x->source,
		       x->text);
		return RB_EXIT_OK;
	}
	for (size_t i = 0; i < n; i++) {
		/* the point count, from the preset loaded as a campaign of one drive */
		char text[256];
		struct rb_campaign *c = NULL;
		struct rb_diags d;
		size_t pts = 0;

		/* checkpoints are written on a filesystem of the drive's */
		snprintf(text, sizeof(text),
			 "insecure: true\ntargets: [{agent: a, %sdrives: [d]}]\npreset: %s\n",
			 strstr(p[i].text, "rw: checkpoint") ? "filesystem: xfs, " : "", p[i].name);
		rb_diags_init(&d);
		if (!rb_campaign_load("<presets>", text, strlen(text), &c, &d)) {
			pts = c->npoints;
			rb_campaign_free(c);
		}
		rb_diags_release(&d);
		printf("%-20s %5zu points  %s\n%-20s               source: %s\n", p[i].name, pts,
		       p[i].summary, "", p[i].source);
	}
	printf("\nDetails: docs/presets.md; 'rackbench presets NAME' prints one; 'rackbench plan' "
	       "counts a campaign using it.\n");
	return RB_EXIT_OK;
}
