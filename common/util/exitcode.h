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

/*
 * When a run ends in several of them, its code is the first in this order: a run that
 * failed, bad input, a refusal, a busy service; then a drive's verdict FAIL or a spec
 * below its requirement (which already holds the IO errors and mismatches that failed
 * it); then a partial run, an INCOMPLETE drive or a check not judged; then IO errors
 * that no verdict judged; then success. The README's and the manual pages' tables say
 * the same (scripts/gen_man.py reads this line; integration.man holds the README to it).
 */
#define RB_EXIT_PRECEDENCE                                                                         \
	{                                                                                          \
		RB_EXIT_FAILED, RB_EXIT_USAGE, RB_EXIT_REFUSED, RB_EXIT_BUSY, RB_EXIT_BELOW_SPEC,  \
			RB_EXIT_PARTIAL, RB_EXIT_IO_ERRORS, RB_EXIT_OK                             \
	}

/* The code of two outcomes together: the one first in RB_EXIT_PRECEDENCE. */
static inline int rb_exit_worse(int a, int b)
{
	static const int order[] = RB_EXIT_PRECEDENCE;

	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return a ? a : b;
}

#endif
