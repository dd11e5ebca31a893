// SPDX-License-Identifier: MIT
/* `rackbench plan` and `rackbench options`: what a campaign expands to, and the table. */
#include "plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "campaign.h"
#include "exitcode.h"
#include "jsonout.h"
#include "log.h"
#include "options.h"
#include "units.h"


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

int rb_options_cmd(int argc, char **argv)
{
	bool json = argc > 1 && !strcmp(argv[1], "--json");

	if (argc > 1 && !json) {
		printf("usage: rackbench options [--json]\n\nThe workload option table: the keys of "
		       "a campaign's workload:, defaults: and matrix:,\nthe same as "
		       "rackbench-agent run flags.\n");
		return strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? RB_EXIT_USAGE : RB_EXIT_OK;
	}
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
		printf(", \"min\": %" PRIu64 ", \"max\": %" PRIu64 ", \"choices\": [", o->min, o->max);
		for (size_t c = 0; o->choices && o->choices[c]; c++)
			printf("%s\"%s\"", c ? ", " : "", o->choices[c]);
		printf("], \"help\": ");
		rb_json_str(stdout, o->help);
		printf("}");
	}
	if (json) {
		printf("], \"campaign_keys\": [");
		for (size_t i = 0; rb_campaign_keys[i]; i++)
			printf("%s\"%s\"", i ? ", " : "", rb_campaign_keys[i]);
		printf("]}\n");
	}
	return RB_EXIT_OK;
}

int rb_plan_cmd(int argc, char **argv)
{
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	uint64_t total_ns = 0;
	size_t sized = 0;
	char a[32], b[32];

	if (argc != 2 || argv[1][0] == '-') {
		printf("usage: rackbench plan CAMPAIGN.yaml\n\nValidates a campaign and prints its "
		       "expanded plan (points, their settings and\ntime), with no agent needed.\n");
		return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
			       ? RB_EXIT_OK
			       : RB_EXIT_USAGE;
	}
	rb_diags_init(&d);
	if (rb_campaign_load_file(argv[1], &c, &d)) {
		rb_diags_print(&d, stderr);
		rb_diags_release(&d);
		return RB_EXIT_USAGE;
	}
	rb_diags_release(&d);
	printf("campaign %s: %zu agent(s), %zu drive(s), %zu phase(s), %zu point(s)%s\n", c->name,
	       c->nagents, c->ndrives, c->nphases, c->npoints,
	       rb_campaign_writes(c) ? ", writes (destructive)" : ", read-only");
	/* per phase: its points, and for a steady state the range its rounds allow */
	uint64_t min_ns = 0, max_ns = 0;

	for (size_t ph = 0; ph < c->nphases; ph++) {
		const struct rb_phase *P = &c->phases[ph];
		uint64_t round_ns = 0, all_ns = 0;
		size_t n = 0, per = P->npoints_per_round, psized = 0, curves = 0;

		for (size_t i = 0; i < c->npoints; i++) {
			const struct rb_workload *wl = &c->points[i].wl;

			if (c->points[i].phase != ph)
				continue;
			n++;
			curves += c->points[i].curve_pct == 0;
			if (wl->io_size || wl->passes) {
				psized++;
				continue;
			}
			all_ns += wl->ramp_ns + wl->runtime_ns + P->idle_ns;
			if (c->points[i].round == 1)
				round_ns += wl->ramp_ns + wl->runtime_ns + P->idle_ns;
		}
		sized += psized;
		if (P->steady_rounds) {
			printf("phase %s: steady state over %zu point(s) per round, %u to %u rounds: "
			       "%zu to %zu points, %s to %s\n",
			       P->name, per, P->steady_window, P->steady_rounds,
			       per * P->steady_window, n,
			       rb_fmt_duration(round_ns * P->steady_window, a, sizeof(a)),
			       rb_fmt_duration(all_ns, b, sizeof(b)));
			min_ns += round_ns * P->steady_window;
		} else {
			char cv[96] = "";

			if (curves)
				snprintf(cv, sizeof(cv), " (%zu curve(s): an unthrottled run, then %zu "
					 "rate(s) each)", curves, per - 1);
			printf("phase %s: %zu point(s)%s, %s%s\n", P->name, n, cv,
			       rb_fmt_duration(all_ns, a, sizeof(a)),
			       psized ? " plus size-based points" : "");
			min_ns += all_ns;
		}
		max_ns += all_ns;
		total_ns += all_ns;
	}
	for (size_t i = 0; i < c->npoints; i++) {
		const struct rb_workload *wl = &c->points[i].wl;
		bool size_based = wl->io_size || wl->passes;

		printf("  %3zu  %-44s %s\n", i + 1, c->points[i].name,
		       size_based ? (wl->passes ? "size-based (passes)" : "size-based (io_size)")
				  : rb_fmt_duration(wl->ramp_ns + wl->runtime_ns, a, sizeof(a)));
	}
	if (min_ns == max_ns)
		printf("time: %s for the time-based points (idle included)%s%s\n",
		       rb_fmt_duration(total_ns, b, sizeof(b)), sized ? ", plus " : "",
		       sized ? "size-based points (time depends on the drives)" : "");
	else
		printf("time: %s to %s for the time-based points (idle included; steady state "
		       "decides)%s%s\n",
		       rb_fmt_duration(min_ns, a, sizeof(a)), rb_fmt_duration(max_ns, b, sizeof(b)),
		       sized ? ", plus " : "",
		       sized ? "size-based points (time depends on the drives)" : "");
	printf("methodology: %s (stored with the results; equal hashes ran the same plan)\n",
	       rb_campaign_methodology(c, a, sizeof(a)));
	rb_campaign_free(c);
	return RB_EXIT_OK;
}
