// SPDX-License-Identifier: MIT
/* `rackbench import-fio`: its flags. */
#include "cmds.h"

#include <string.h>

#include "import_fio.h"

static struct {
	const char *agent, *target;
	bool strict;
	struct rb_popt_list files;
} F;

static const struct rb_popt import_opts[] = {
	{ RB_POPT_STRING, "agent", 0, "NAME",
	  "the agent whose drives the jobs' filename= lists are (default: localhost)", &F.agent,
	  NULL, 0 },
	{ RB_POPT_STRING, "target", 0, "PATH", "the drive of jobs without a filename=", &F.target,
	  NULL, 0 },
	{ RB_POPT_FLAG, "strict", 0, NULL, "an option with no rackbench equivalent: exit 2",
	  &F.strict, NULL, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg import_args[] = {
	{ "JOB.fio", &F.files, RB_PARG_MANY },
	{ NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_import_fio_spec = {
	.name = "rackbench import-fio",
	.summary = "fio job files as a campaign (on stdout), a phase per job",
	.desc = "Prints a campaign with a phase for each fio job, in order. fio options with no\n"
		"rackbench equivalent are named with FILE:LINE on stderr and in the campaign's\n"
		"comments (--strict: exit 2 then); where meanings differ (rate per job, jobs fio\n"
		"runs at once) a comment says so.",
	.opts = import_opts,
	.args = import_args,
};

int rb_import_fio_cmd(int argc, char **argv)
{
	int r;

	memset(&F, 0, sizeof(F));
	r = rb_parseopt(&rb_coord_import_fio_spec, argc, argv, NULL);
	if (r)
		r = rb_parseopt_exit(r);
	else
		r = rb_import_fio(F.files.v, F.files.n, F.agent, F.target, F.strict);
	rb_popt_list_release(&F.files);
	return r;
}
