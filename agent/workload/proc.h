/* SPDX-License-Identifier: MIT */
/*
 * External commands the agent starts (exec phases' commands, mkfs), each under a
 * supervisor of its own: a forked copy of the agent that is the command's parent and
 * the subreaper of everything the command starts (PR_SET_CHILD_SUBREAPER), and that
 * learns of the agent's death from the kernel (PR_SET_PDEATHSIG). A process killed with
 * -9 runs no code, so the agent cannot end its commands itself: when it dies, each
 * supervisor kills its command's process group and every process the command left
 * behind in other groups (they are reparented to the supervisor), then exits. The same
 * happens when the command ends (a daemon it started goes with it) and when the agent
 * asks (rb_proc_kill). The supervisor exits as the command did (its code or signal), so
 * waitpid on it reads the command's status.
 */
#ifndef RB_PROC_H
#define RB_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct rb_proc_spec {
	char *const *argv; /* argv[0] with a '/' is a path, else searched on PATH */
	const char *cwd;   /* NULL: the agent's */
	int out, err;	   /* the command's stdout and stderr (-1: /dev/null); stdin is /dev/null */
};

/* Starts the command; *ret_pid is its supervisor's pid. 0 or a negative errno. */
int rb_proc_start(const struct rb_proc_spec *s, pid_t *ret_pid);
/* Asks the command to end: SIGTERM to its process group. */
void rb_proc_term(pid_t pid);
/* Ends the command and all it started, at once (SIGKILL from its supervisor). */
void rb_proc_kill(pid_t pid);
/*
 * Waits for the supervisor until the CLOCK_MONOTONIC deadline (0: none, INT64_MAX: do
 * not block); past it, ends everything (rb_proc_kill) and reaps it. 0 with the command's
 * waitpid status, -EAGAIN when still running (a non-blocking wait), -ETIMEDOUT when the
 * deadline ended it (*ret_status is then how it died), or another negative errno.
 */
int rb_proc_wait(pid_t pid, int64_t deadline_ns, int *ret_status);

#endif
