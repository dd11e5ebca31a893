// SPDX-License-Identifier: MIT
/*
 * External commands under their supervisor (agent/workload/proc.c): the command's status read
 * through it; everything the command started -- in its group or in a session of its own
 * -- gone when the command ends, at a deadline, and when the agent that started it is
 * killed with -9 (the case no code of the agent's can handle).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock.h"
#include "proc.h"

static char pids_path[64];

/* The pids the command wrote (one a line) once there are n, waiting for them. */
static size_t read_pids(pid_t *pids, size_t n)
{
	for (int tries = 0; tries < 2000; tries++) {
		FILE *f = fopen(pids_path, "r");
		size_t got = 0;
		long v;

		while (f && got < n && fscanf(f, "%ld", &v) == 1)
			pids[got++] = (pid_t)v;
		if (f)
			fclose(f);
		if (got == n)
			return n;
		usleep(5000);
	}
	return 0;
}

/* Whether any process is pid or in process group pgid (zombies of others included). */
static bool alive(pid_t pid)
{
	return kill(pid, 0) == 0;
}

static bool group_alive(pid_t pgid)
{
	return kill(-pgid, 0) == 0;
}

/* Waits (bounded) for every pid and the group to be gone; false if one stays. */
static bool all_gone(const pid_t *pids, size_t n, pid_t pgid)
{
	for (int tries = 0; tries < 2000; tries++) {
		bool any = group_alive(pgid);

		for (size_t i = 0; i < n; i++)
			any |= alive(pids[i]);
		if (!any)
			return true;
		usleep(5000);
	}
	return false;
}

/* sh writing its own pid, a background sleep's (in its group) and a setsid one's. */
static char script[512];

static void make_script(const char *tail)
{
	snprintf(script, sizeof(script),
		 "echo $$ > %s; sleep 300 & echo $! >> %s; setsid sleep 301 & echo $! >> %s; %s",
		 pids_path, pids_path, pids_path, tail);
}

static int start(const char *cmd, pid_t *pid)
{
	char sh[] = "/bin/sh", c[] = "-c", *argv[] = { sh, c, (char *)cmd, NULL };
	struct rb_proc_spec s = { .argv = argv, .out = -1, .err = -1 };

	return rb_proc_start(&s, pid);
}

static void test_status(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	assert_int_equal(start("exit 7", &pid), 0);
	assert_int_equal(rb_proc_wait(pid, 0, &st), 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 7);
	assert_int_equal(start("kill -TERM $$", &pid), 0);
	assert_int_equal(rb_proc_wait(pid, 0, &st), 0);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	/* a program that is not there: 127, as a shell says */
	char none[] = "/nonexistent/rb-no-such-program", *argv[] = { none, NULL };
	struct rb_proc_spec s = { .argv = argv, .out = -1, .err = -1 };

	assert_int_equal(rb_proc_start(&s, &pid), 0);
	assert_int_equal(rb_proc_wait(pid, 0, &st), 0);
	assert_int_equal(WEXITSTATUS(st), 127);
	/* not blocking while it runs */
	assert_int_equal(start("sleep 300", &pid), 0);
	assert_int_equal(rb_proc_wait(pid, INT64_MAX, &st), -EAGAIN);
	rb_proc_term(pid);
	assert_int_equal(rb_proc_wait(pid, 0, &st), 0);
	assert_true(WIFSIGNALED(st));
}

/* The command ended: what it left behind, in its group or not, went with it. */
static void test_leftovers(void **state)
{
	pid_t pid, p[3];
	int st;

	(void)state;
	make_script("exit 3");
	assert_int_equal(start(script, &pid), 0);
	assert_int_equal(rb_proc_wait(pid, 0, &st), 0);
	assert_int_equal(WEXITSTATUS(st), 3);
	assert_int_equal(read_pids(p, 3), 3);
	assert_true(all_gone(p + 1, 2, p[0]));
}

/* A deadline passed: all of it killed, -ETIMEDOUT. */
static void test_deadline(void **state)
{
	pid_t pid, p[3];
	int st;

	(void)state;
	make_script("wait");
	assert_int_equal(start(script, &pid), 0);
	assert_int_equal(read_pids(p, 3), 3);
	assert_int_equal(rb_proc_wait(pid, rb_mono_ns() + 100000000, &st), -ETIMEDOUT);
	assert_true(WIFSIGNALED(st));
	assert_true(all_gone(p, 3, p[0]));
}

/* The agent killed with -9 while the command runs: nothing of the command stays. */
static void test_agent_killed(void **state)
{
	pid_t agent, p[3];
	int st;

	(void)state;
	make_script("wait");
	agent = fork();
	assert_true(agent >= 0);
	if (agent == 0) {
		pid_t pid;

		if (start(script, &pid))
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read_pids(p, 3), 3);
	assert_true(alive(p[1]) && alive(p[2]));
	kill(agent, SIGKILL);
	assert_int_equal(waitpid(agent, &st, 0), agent);
	assert_true(all_gone(p, 3, p[0]));
}

static int setup(void **state)
{
	(void)state;
	snprintf(pids_path, sizeof(pids_path), "/tmp/rb-test-proc-%d", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(pids_path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test_setup_teardown(test_leftovers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent_killed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
