// SPDX-License-Identifier: MIT
/* `rackbench-agent inventory`: its flags to the inventory. */
#include "agent.h"

#include <string.h>

#include "nvme.h"
#include "parseopt.h"

static struct {
	bool json;
	const char *config, *root, *nvme_pages;
	struct rb_popt_list allow, targets;
} F;

static const struct rb_popt inventory_opts[] = {
	{ RB_POPT_FLAG, "json", 0, NULL, "one JSON document", &F.json, NULL, 0 },
	{ RB_POPT_LIST, "allow", 0, "PATH", "the agent's allow-list (as the daemon's --allow)",
	  &F.allow, NULL, 0 },
	{ RB_POPT_LIST, "target", 0, "PATH", "also list this target (files)", &F.targets, NULL, 0 },
	{ RB_POPT_STRING, "config", 0, "FILE", "read targets and allow from the agent's config",
	  &F.config, NULL, 0 },
	{ RB_POPT_STRING, "root", 0, "DIR",
	  "read /sys, /proc and /dev/disk under DIR (recorded trees)", &F.root, NULL, 0 },
	{ RB_POPT_STRING, "nvme-pages", 0, "DIR",
	  "NVMe identify and SMART pages from DIR/NAME.id-ctrl, .id-ns, .smart instead of the "
	  "drives (pages recorded elsewhere)",
	  &F.nvme_pages, NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_agent_inventory_spec = {
	.name = "rackbench-agent inventory",
	.summary = "the host's drives and whether a write would be allowed",
	.desc = "Lists this host's block devices (identity, size, block sizes, rotational,\n"
		"scheduler, NUMA node, /dev/disk/by-id names, slot) and the agent's targets, each\n"
		"with its slot (agent.yaml's slots:, else the PCI slot's name) and whether a write\n"
		"would be allowed and every reason if not. Writes also need the run's key\n"
		"(destructive: true, or --destructive), which inventory does not judge.\n"
		"Nothing is opened for writing.",
	.opts = inventory_opts,
};

int rb_agent_inventory_cmd(int argc, char **argv)
{
	struct rb_inventory_req q = { 0 };
	int r;

	memset(&F, 0, sizeof(F));
	r = rb_parseopt(&rb_agent_inventory_spec, argc, argv, NULL);
	if (r) {
		r = rb_parseopt_exit(r);
		goto out;
	}
	if (F.nvme_pages) {
		rb_nvme_pages_dir(F.nvme_pages);
		q.nvme_ops = &rb_nvme_pages;
	}
	q.root = F.root;
	q.json = F.json;
	q.config = F.config;
	q.allow = F.allow.v;
	q.nallow = F.allow.n;
	q.targets = F.targets.v;
	q.ntargets = F.targets.n;
	r = rb_inventory(&q);
out:
	rb_popt_list_release(&F.allow);
	rb_popt_list_release(&F.targets);
	return r;
}
