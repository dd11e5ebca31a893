// SPDX-License-Identifier: MIT
/* `rackbench plan`, `options` and `presets`: their flags. */
#include "cmds.h"

#include <string.h>

#include "exitcode.h"
#include "log.h"
#include "plan.h"
#include "units.h"

static struct {
	struct rb_plan_args a;
	const char *capacity, *mbps, *name;
	bool json;
} F;

static const struct rb_popt plan_opts[] = {
	{ RB_POPT_FLAG, "points", 0, NULL, "list every point (default when there are at most 100)",
	  &F.a.list, NULL, 0 },
	{ RB_POPT_FLAG, "resolve", 0, NULL,
	  "wait for the campaign's agents and print each drive as its agent sees it (model, "
	  "serial, firmware, size) and what the safety guard says; nothing is written (exit 3: "
	  "refused)",
	  &F.a.resolve, NULL, 0 },
	{ RB_POPT_STRING, "lock", 0, "FILE",
	  "with --resolve (implied): write the drives' identities to FILE; a campaign with "
	  "'lock: FILE' then runs only on them",
	  &F.a.lock, NULL, 0 },
	{ RB_POPT_STRING, "listen", 0, "ENDPOINT",
	  "with --resolve: where agents connect (default: the campaign's); resolves in this "
	  "process",
	  &F.a.listen, NULL, 0 },
	{ RB_POPT_STRING, "control", 0, "PATH",
	  "with --resolve: the service's control socket (default $RACKBENCH_CONTROL, else the "
	  "service's); a service there resolves on its agents and writes the lock",
	  &F.a.ctl, NULL, 0 },
	{ RB_POPT_FLAG, "no-service", 0, NULL,
	  "with --resolve: in this process even when a service listens", &F.a.no_service, NULL, 0 },
	{ RB_POPT_STRING, "assume-capacity", 0, "SIZE",
	  "a drive's capacity, for the bytes of fills and passes", &F.capacity, NULL, 0 },
	{ RB_POPT_STRING, "assume-mbps", 0, "N",
	  "a drive's MB/s during size-based points, for their time", &F.mbps, NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg plan_args[] = {
	{ "CAMPAIGN.yaml", &F.a.file, 0 },
	{ NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_plan_spec = {
	.name = "rackbench plan",
	.summary = "validate a campaign: points per phase, time, methodology",
	.desc = "Validates a campaign and prints its plan with no agent needed: per phase the\n"
		"points, the time of time-based ones (idle included), a range for steady-state\n"
		"phases (window to max_rounds rounds) and the bytes of size-based ones; then the\n"
		"methodology hash stored with the results, and what the time-based points store:\n"
		"sample rows, and the HDF5 file's and the journal's bytes.",
	.opts = plan_opts,
	.args = plan_args,
};

int rb_plan_cmd(int argc, char **argv)
{
	int r;

	memset(&F, 0, sizeof(F));
	r = rb_parseopt(&rb_coord_plan_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	if (F.capacity && (rb_parse_size(F.capacity, &F.a.capacity) || !F.a.capacity)) {
		rb_err("'--assume-capacity' must be a size like 7680g, not '%s'", F.capacity);
		return RB_EXIT_USAGE;
	}
	if (F.mbps && (rb_parse_u64(F.mbps, &F.a.mbps) || !F.a.mbps)) {
		rb_err("'--assume-mbps' must be a whole number of MB/s, not '%s'", F.mbps);
		return RB_EXIT_USAGE;
	}
	if (F.a.lock)
		F.a.resolve = true;
	return rb_plan(&F.a);
}

static const struct rb_popt options_opts[] = {
	{ RB_POPT_FLAG, "json", 0, NULL,
	  "one document: the workload options, the campaign key table, the presets", &F.json, NULL,
	  0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_options_spec = {
	.name = "rackbench options",
	.summary = "the workload option table (campaign keys = run flags)",
	.desc = "The workload option table: the keys of a campaign's workload:, defaults: and\n"
		"matrix:, the same as rackbench-agent run flags.",
	.opts = options_opts,
};

int rb_options_cmd(int argc, char **argv)
{
	int r;

	memset(&F, 0, sizeof(F));
	r = rb_parseopt(&rb_coord_options_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	return rb_options_print(F.json);
}

static const struct rb_popt presets_opts[] = {
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg presets_args[] = {
	{ "NAME", &F.name, RB_PARG_OPTIONAL },
	{ NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_presets_spec = {
	.name = "rackbench presets",
	.summary = "the reviews' procedures as campaigns ('preset: NAME')",
	.desc = "Lists the presets (the reviews' procedures as campaigns), or prints one's\n"
		"defaults and phases. A campaign uses one with 'preset: NAME' and adjusts it\n"
		"with 'overrides:' (docs/presets.md).",
	.opts = presets_opts,
	.args = presets_args,
};

int rb_presets_cmd(int argc, char **argv)
{
	int r;

	memset(&F, 0, sizeof(F));
	r = rb_parseopt(&rb_coord_presets_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	return rb_presets_print(F.name);
}
