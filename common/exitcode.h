/* SPDX-License-Identifier: MIT */
/* Exit codes shared by rackbench and rackbench-agent (DESIGN.md). */
#ifndef RB_EXITCODE_H
#define RB_EXITCODE_H

enum rb_exit {
	RB_EXIT_OK = 0,		/* success */
	RB_EXIT_FAILED = 1,	/* run failed */
	RB_EXIT_USAGE = 2,	/* bad input: config, arguments */
	RB_EXIT_REFUSED = 3,	/* refused by the safety guard, nothing written */
	RB_EXIT_PARTIAL = 4,	/* finished with partial results */
	RB_EXIT_BELOW_SPEC = 5, /* measured below a spec or threshold */
	RB_EXIT_IO_ERRORS = 6,	/* IO errors occurred */
	RB_EXIT_BUSY = 7,	/* the service took no run: one going on, or its queue full */
	RB_EXIT_SKIP = 77,	/* test harness: skipped */
};

#endif
