// SPDX-License-Identifier: MIT
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

/*
 * The supervisor runs in a fork of a threaded program and never execs: it keeps to
 * system calls (no stdio, no allocation) and holds no descriptor of the agent's (a
 * drive's, a socket's) beyond its command's stdout and stderr.
 */

/* The signal the kernel sends the supervisor when the agent dies. */
#define PDEATH_SIG (SIGRTMIN + 1)

/* The parent pid in /proc/PID/stat (the field after the name's closing parenthesis). */
static pid_t ppid_of(const char *pid)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');

	/* ") S PPID ..." */
	return p && p[1] == ' ' && p[2] && p[3] == ' ' ? (pid_t)strtol(p + 4, NULL, 10) : -1;
}

/* SIGKILL to every child of this process: those the command left, reparented here. */
static void kill_children(void)
{
	char buf[4096];
	pid_t self = getpid();
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *e = (struct dirent64 *)(buf + off);

			if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
			    ppid_of(e->d_name) == self)
				kill((pid_t)strtol(e->d_name, NULL, 10), SIGKILL);
			off += e->d_reclen;
		}
	}
	close(fd);
}

/* The command's group and everything it started, killed and reaped; its status kept. */
static void end_all(pid_t cmd, int *status, bool *ended)
{
	for (;;) {
		int st;
		pid_t p;

		kill(-cmd, SIGKILL);
		kill_children();
		p = waitpid(-1, &st, 0);
		if (p < 0 && errno == ECHILD)
			return;
		if (p == cmd && !*ended) {
			*status = st;
			*ended = true;
		}
	}
}

/* Exits as the command did: its code, or its signal (without a core file). */
static _Noreturn void exit_as(int status)
{
	struct rlimit none = { 0, 0 };
	sigset_t one;
	int sig;

	if (WIFEXITED(status))
		_exit(WEXITSTATUS(status));
	sig = WTERMSIG(status);
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}

static _Noreturn void run_command(const struct rb_proc_spec *s)
{
	sigset_t none;

	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* what the agent ignores, the command does not */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	if (s->cwd && chdir(s->cwd) < 0) {
		dprintf(2, "rackbench-agent: cannot enter %s: %s\n", s->cwd, strerror(errno));
		_exit(126);
	}
	if (strchr(s->argv[0], '/'))
		execv(s->argv[0], s->argv);
	else
		execvp(s->argv[0], s->argv);
	dprintf(2, "rackbench-agent: cannot run %s: %s\n", s->argv[0], strerror(errno));
	_exit(127);
}

static _Noreturn void supervise(const struct rb_proc_spec *s, pid_t agent)
{
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC), status = 0;
	bool ended = false;
	sigset_t set;
	pid_t cmd;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, PDEATH_SIG);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGCHLD, SIG_DFL);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_PDEATHSIG, PDEATH_SIG);
	if (getppid() != agent)
		_exit(128 + SIGKILL); /* the agent died before the line above */
	/* 0, 1, 2 the command's; nothing else of the agent's held */
	dup2(nul, 0);
	dup2(s->out >= 0 ? s->out : nul, 1);
	dup2(s->err >= 0 ? s->err : nul, 2);
	syscall(SYS_close_range, 3U, ~0U, 0U);
	if ((cmd = fork()) < 0) {
		dprintf(2, "rackbench-agent: cannot start %s: %s\n", s->argv[0], strerror(errno));
		_exit(127);
	}
	if (cmd == 0)
		run_command(s);
	setpgid(cmd, cmd);
	for (;;) {
		struct timespec second = { 1, 0 };
		siginfo_t si;
		int sig = sigtimedwait(&set, &si, &second);
		pid_t p;

		if (sig == SIGUSR1 || sig == PDEATH_SIG || getppid() != agent) {
			end_all(cmd, &status, &ended);
			exit_as(ended ? status : SIGKILL);
		}
		if (sig == SIGTERM)
			kill(-cmd, SIGTERM);
		while ((p = waitpid(-1, &status, WNOHANG)) > 0 && p != cmd)
			;
		if (p == cmd) {
			ended = true;
			/* what it left running goes with it (a daemon would hold the drive) */
			end_all(cmd, &status, &ended);
			exit_as(status);
		}
	}
}

int rb_proc_start(const struct rb_proc_spec *s, pid_t *ret_pid)
{
	pid_t agent = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		supervise(s, agent);
	*ret_pid = pid;
	return 0;
}

void rb_proc_term(pid_t pid)
{
	kill(pid, SIGTERM);
}

void rb_proc_kill(pid_t pid)
{
	kill(pid, SIGUSR1);
}

int rb_proc_wait(pid_t pid, int64_t deadline_ns, int *ret_status)
{
	int pfd = deadline_ns == INT64_MAX ? -1 : (int)syscall(SYS_pidfd_open, pid, 0);

	for (;;) {
		pid_t r = waitpid(pid, ret_status, WNOHANG);
		int64_t now = rb_mono_ns(), left;

		if (r == pid || (r < 0 && errno != EINTR)) {
			if (pfd >= 0)
				close(pfd);
			return r == pid ? 0 : -errno;
		}
		if (deadline_ns == INT64_MAX)
			return -EAGAIN;
		if (deadline_ns && now >= deadline_ns) {
			rb_proc_kill(pid);
			while (waitpid(pid, ret_status, 0) < 0 && errno == EINTR)
				;
			if (pfd >= 0)
				close(pfd);
			return -ETIMEDOUT;
		}
		left = deadline_ns ? (deadline_ns - now) / 1000000 + 1 : -1;
		if (pfd >= 0) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };

			poll(&p, 1, left < 0 || left > 1000 ? 1000 : (int)left);
		} else {
			struct timespec t = { 0, 10000000 };

			nanosleep(&t, NULL);
		}
	}
}
