// SPDX-License-Identifier: MIT
/*
 * A run's file exported as far as it went at each point's end (results_db.h): by a child
 * process, `rackbench export --running --db - FILE` with the URL on its standard input
 * (a password in it stays out of the process list), so that the run never waits on the
 * database. The file is written in SWMR mode and flushed at the point's end: the child
 * reads the points that ended while the run goes on. One child at a time: a point that
 * ends while one still exports is exported by the next, started as that one ends. The
 * run's end exports the whole file (and owes it when the database is away).
 */
#include "results_db.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exitcode.h"
#include "log.h"

extern char **environ;

/* Says once a run that the run so far did not reach the database, and why. */
static void warn_once(struct rb_resdb_so_far *s, const char *why)
{
	char where[600];

	if (s->warned)
		return;
	s->warned = true;
	rb_resdb_where(s->url, where, sizeof(where));
	rb_warn("the run so far did not reach %s after point %u (%s): the run's end exports its "
		"file, or owes it",
		where, s->point, why);
}

/* How the child ended: an export, or a failure said (not the stop the run's end sent). */
static void ended(struct rb_resdb_so_far *s, int st)
{
	char why[64];

	s->pid = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == RB_EXIT_OK) {
		s->exported++;
		return;
	}
	if (s->stopping)
		return;
	snprintf(why, sizeof(why), "its export %s %d",
		 WIFEXITED(st) ? "exited" : "was killed by signal",
		 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	warn_once(s, why);
}

/* The child reaped if it ended (wait: until it does). */
static void reap(struct rb_resdb_so_far *s, bool wait)
{
	int st;
	pid_t p;

	if (s->pid <= 0)
		return;
	do
		p = waitpid(s->pid, &st, wait ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == s->pid)
		ended(s, st);
	else if (p < 0)
		s->pid = 0; /* reaped by someone else: nothing to say */
}

/*
 * posix_spawn's actions: stdin from the pipe's end, stdout and stderr to /dev/null, no
 * other descriptor of the coordinator's (its results file, a service's log); a process
 * group of its own (a Ctrl-C is the run's to act on: its end stops the child). The
 * program is this one, by /proc/self/exe: still there when a package upgrade replaced the
 * file on disk during a long run.
 */
static int spawn(struct rb_resdb_so_far *s, const char *self, const char *path, int in)
{
	char *argv[] = { (char *)self,
			 (char[]){ "export" },
			 (char[]){ "--running" },
			 (char[]){ "--db" },
			 (char[]){ "-" },
			 (char *)path,
			 NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int r;

	if (posix_spawn_file_actions_init(&fa))
		return -ENOMEM;
	if (posix_spawnattr_init(&at)) {
		posix_spawn_file_actions_destroy(&fa);
		return -ENOMEM;
	}
	r = posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
	if (!r)
		r = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	if (!r)
		r = posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	if (!r)
		r = posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	if (!r)
		r = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	if (!r)
		r = posix_spawnattr_setpgroup(&at, 0);
	if (!r)
		r = posix_spawn(&s->pid, "/proc/self/exe", &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -r;
}

/* A child started on s->path, as of s->point; a failure said once a run. */
static void start(struct rb_resdb_so_far *s)
{
	char self[4096] = "rackbench", why[300];
	ssize_t n;
	int fd[2], r;

	s->pending = false;
	if (strlen(s->url) >= PIPE_BUF) {
		warn_once(s, "the database's URL is too long to hand over");
		return;
	}
	if (pipe2(fd, O_CLOEXEC)) {
		snprintf(why, sizeof(why), "cannot start its export: %s", strerror(errno));
		warn_once(s, why);
		return;
	}
	/* its name in the process list */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0)
		self[n] = '\0';
	/* the URL in the pipe before the child exists: one write under PIPE_BUF neither
	 * waits nor meets a reader gone (SIGPIPE) */
	r = dprintf(fd[1], "%s\n", s->url) < 0 ? -errno : spawn(s, self, s->path, fd[0]);
	close(fd[0]);
	close(fd[1]);
	if (r) {
		s->pid = 0;
		snprintf(why, sizeof(why), "cannot start its export: %s", strerror(-r));
		warn_once(s, why);
	}
}

void rb_resdb_so_far_point(struct rb_resdb_so_far *s, const char *path, uint32_t point)
{
	if (!s->url || !s->url[0] || !path || !path[0])
		return;
	s->path = path;
	s->point = point;
	s->pending = true;
	rb_resdb_so_far_poll(s);
}

void rb_resdb_so_far_poll(struct rb_resdb_so_far *s)
{
	if (s->pid > 0)
		reap(s, false);
	/* a point that ended while a child exported: the next child takes it */
	if (s->pending && s->pid <= 0)
		start(s);
}

void rb_resdb_so_far_end(struct rb_resdb_so_far *s)
{
	/* the run's end exports the whole file: an export of a part is not waited for */
	s->pending = false;
	s->stopping = true;
	if (s->pid > 0)
		kill(s->pid, SIGTERM);
	reap(s, true);
	if (s->exported)
		rb_debug("the run so far was exported %u time(s)", s->exported);
}
