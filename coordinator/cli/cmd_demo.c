// SPDX-License-Identifier: MIT
/* `rackbench demo`: its flags. */
#include "cmds.h"

#include "demo.h"
#include "exitcode.h"

static const char *out;

static const struct rb_popt demo_opts[] = {
	{ RB_POPT_STRING, "out", 0, "DIR",
	  "where the results, their journal and the HTML report go (default: the current folder)",
	  &out, NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_demo_spec = {
	.name = "rackbench demo",
	.summary = "two local agents with file targets and a built-in campaign",
	.desc = "Starts two local agents, each with two file-backed targets in a\n"
		"temporary folder, runs a small built-in campaign (4K random read\n"
		"and 128K sequential write at two queue depths, 2 s each), writes\n"
		"the HDF5 file into DIR (default: the current folder) with its journal\n"
		"and an HTML report beside it, and prints the table. No drives, no\n"
		"configuration, no root needed.",
	.opts = demo_opts,
};

int rb_demo_cmd(int argc, char **argv)
{
	int r;

	out = NULL;
	r = rb_parseopt(&rb_coord_demo_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	return rb_demo(out);
}
