// SPDX-License-Identifier: MIT
/* `rackbench-agent spool FILE`: a spool's records as JSON lines, and what was wrong. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "agent.h"
#include "exitcode.h"
#include "log.h"
#include "parseopt.h"
#include "spool.h"

static const char *path;

static const struct rb_popt spool_opts[] = {
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg spool_args[] = {
	{ "FILE", &path, 0 },
	{ NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_agent_spool_spec = {
	.name = "rackbench-agent spool",
	.summary = "a spool file's records as JSON lines",
	.desc = "Prints each whole record of a spool file (STATE_DIR/spool/RUN-EPOCH.spool) as a\n"
		"JSON line: seq, epoch, the message, and for samples each sample's key.",
	.opts = spool_opts,
	.args = spool_args,
};

int rb_agent_spool_cmd(int argc, char **argv)
{
	struct rb_spool_walk_info info;
	struct stat st;
	long n;
	int r;

	path = NULL;
	r = rb_parseopt(&rb_agent_spool_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	n = rb_spool_dump(path, stdout, &info);
	if (n == -EINVAL) {
		rb_err("'%s' is not a spool file (not a regular file)", path);
		return RB_EXIT_USAGE;
	}
	if (n < 0) {
		rb_err("cannot read '%s': %s", path, strerror((int)-n));
		return RB_EXIT_USAGE;
	}
	if (n == 0 && !stat(path, &st) && st.st_size > 0) {
		rb_err("'%s' is not a spool file: no whole record in its %lld byte(s)", path,
		       (long long)st.st_size);
		return RB_EXIT_USAGE;
	}
	if (info.damaged)
		rb_warn("'%s' is damaged: %u stretch(es) of %lld byte(s) in all (the first at byte "
			"%lld) skipped; the records after them are shown",
			path, info.damaged, (long long)info.damaged_bytes,
			(long long)info.first_damaged);
	return RB_EXIT_OK;
}
