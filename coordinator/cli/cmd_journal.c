// SPDX-License-Identifier: MIT
/* `rackbench journal FILE`: a run's journal as JSON lines, and what was wrong with it. */
#include "cmds.h"

#include <stdio.h>

#include "exitcode.h"
#include "journal.h"
#include "log.h"

static const char *path;

static const struct rb_popt journal_opts[] = {
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg journal_args[] = {
	{ "RESULTS.h5.journal", &path, 0 },
	{ NULL, NULL, 0 },
};

const struct rb_popt_cmd rb_coord_journal_spec = {
	.name = "rackbench journal",
	.summary = "print a run's journal as JSON lines",
	.desc = "Prints the run's description, then each whole record of the journal as a JSON\n"
		"line: its byte offset, the agent, epoch, seq, the message, and for samples each\n"
		"sample's key.",
	.opts = journal_opts,
	.args = journal_args,
};

int rb_journal_cmd(int argc, char **argv)
{
	struct rb_journal_meta m;
	char err[600];
	off_t end;
	long n;
	int r;

	path = NULL;
	r = rb_parseopt(&rb_coord_journal_spec, argc, argv, NULL);
	if (r)
		return rb_parseopt_exit(r);
	n = rb_journal_dump(path, stdout, &m, &end, err, sizeof(err));
	if (n < 0) {
		rb_err("%s", err);
		return RB_EXIT_USAGE;
	}
	fprintf(stderr, "run %s, campaign file %s: %ld record(s), %lld bytes whole\n", m.run,
		m.file, n, (long long)end);
	rb_journal_meta_free(&m);
	return RB_EXIT_OK;
}
