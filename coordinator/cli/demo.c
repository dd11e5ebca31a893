// SPDX-License-Identifier: MIT
#include "demo.h"

#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "campaign.h"
#include "coord.h"
#include "exitcode.h"
#include "log.h"
#include "report.h"
#include "transport.h"
#include "stopsig.h"

#define NAGENTS 2

/* The agent binary: next to ours (installed), or in the build tree, or on PATH. */
static void find_agent(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		char *dir = dirname(self);

		snprintf(buf, len, "%s/rackbench-agent", dir);
		if (access(buf, X_OK) == 0)
			return;
		snprintf(buf, len, "%s/../agent/rackbench-agent", dir);
		if (access(buf, X_OK) == 0)
			return;
	}
	snprintf(buf, len, "rackbench-agent");
}

static pid_t spawn_agent(const char *exe, const char *endpoint, const char *tmp, int idx)
{
	char name[32], dir[PATH_MAX], d0[PATH_MAX], d1[PATH_MAX], log[PATH_MAX];
	pid_t pid;

	snprintf(name, sizeof(name), "demo-a%d", idx);
	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	snprintf(d0, sizeof(d0), "%s/disk0.dat", dir);
	snprintf(d1, sizeof(d1), "%s/disk1.dat", dir);
	snprintf(log, sizeof(log), "%s/agent.log", dir);
	if (mkdir(dir, 0700) < 0)
		return -1;
	pid = fork();
	if (pid != 0)
		return pid;
	/* child: die with the demo, whatever kills it */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	execlp(exe, exe, "--coordinator", endpoint, "--name", name, "--state-dir", dir, "--target",
	       d0, "--target", d1, "--allow", d0, "--allow", d1, "--insecure", (char *)NULL);
	fprintf(stderr, "cannot run '%s': %s\n", exe, strerror(errno));
	_exit(127);
}

static void stop_children(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGTERM);
	for (int tries = 0; tries < 50; tries++) {
		int alive = 0;

		for (int i = 0; i < n; i++) {
			if (pids[i] > 0 && waitpid(pids[i], NULL, WNOHANG) == pids[i])
				pids[i] = 0;
			alive += pids[i] > 0;
		}
		if (!alive)
			return;
		struct timespec ts = { 0, 100000000 };

		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < n; i++) {
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
			pids[i] = 0;
		}
	}
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void show_log(const char *tmp, int idx)
{
	char path[PATH_MAX], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/demo-a%d/agent.log", tmp, idx);
	f = fopen(path, "re");
	if (!f)
		return;
	fprintf(stderr, "--- agent demo-a%d log ---\n", idx);
	while (fgets(line, sizeof(line), f))
		fputs(line, stderr);
	fclose(f);
}

int rb_demo(const char *out)
{
	char tmp[PATH_MAX], exe[PATH_MAX], bound[256], text[8192], path[PATH_MAX] = "";
	pid_t pids[NAGENTS] = { 0 };
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	const char *tdir = getenv("TMPDIR");
	void *sock;
	int rc = RB_EXIT_FAILED;

	if (!out)
		out = ".";
	if (mkdir(out, 0755) < 0 && errno != EEXIST) {
		rb_err("cannot create '%s': %s", out, strerror(errno));
		return RB_EXIT_USAGE;
	}
	if (access(out, W_OK) < 0) {
		rb_err("cannot write results into '%s': %s (use --out DIR)", out, strerror(errno));
		return RB_EXIT_USAGE;
	}
	snprintf(tmp, sizeof(tmp), "%s/rackbench-demo.XXXXXX", tdir && *tdir ? tdir : "/tmp");
	if (!mkdtemp(tmp)) {
		rb_err("cannot create a temporary folder: %s", strerror(errno));
		return RB_EXIT_FAILED;
	}
	rb_diags_init(&d);
	rb_stop_signals(NULL, true, NULL);
	sock = rb_tx_router_bind("tcp://127.0.0.1:0", bound, sizeof(bound));
	if (!sock) {
		rb_err("cannot bind a loopback port: %s", strerror(errno));
		goto out_rm;
	}
	find_agent(exe, sizeof(exe));
	snprintf(text, sizeof(text),
		 "# rackbench demo: the built-in campaign\n"
		 "name: demo\n"
		 "insecure: true\n"
		 "destructive: true\n"
		 "wait: 30s\n"
		 "results: %s\n"
		 "defaults:\n"
		 "  size: 64m\n"
		 "  runtime: 2s\n"
		 "targets:\n"
		 "  - agent: demo-a1\n"
		 "    drives: [%s/demo-a1/disk0.dat, %s/demo-a1/disk1.dat]\n"
		 "  - agent: demo-a2\n"
		 "    drives: [%s/demo-a2/disk0.dat, %s/demo-a2/disk1.dat]\n"
		 "phases:\n"
		 "  - name: 4k-randread\n"
		 "    workload: {rw: randread, bs: 4k}\n"
		 "    matrix: {iodepth: [1, 16]}\n"
		 "  - name: 128k-seqwrite\n"
		 "    workload: {rw: write, bs: 128k}\n"
		 "    matrix: {iodepth: [1, 8]}\n",
		 out, tmp, tmp, tmp, tmp);
	if (rb_campaign_load("<demo>", text, strlen(text), &c, &d)) {
		rb_diags_print(&d, stderr);
		goto out_close;
	}
	for (int i = 0; i < NAGENTS; i++) {
		pids[i] = spawn_agent(exe, bound, tmp, i + 1);
		if (pids[i] < 0) {
			rb_err("cannot start agent %d: %s", i + 1, strerror(errno));
			pids[i] = 0;
			goto out_stop;
		}
	}
	fprintf(stderr, "rackbench demo: 2 agents, 4 file targets in %s, coordinator on %s\n", tmp,
		bound);
	rc = rb_coord_run(c, &(struct rb_coord_opts){ .router = sock,
						      .stop = &rb_stop_flag,
						      .ret_path = path,
						      .ret_path_len = sizeof(path) });
	if (rc && rc != RB_EXIT_IO_ERRORS)
		for (int i = 0; i < NAGENTS; i++)
			show_log(tmp, i + 1);
	if (path[0] && !rb_stop_flag) {
		/* the page next to the file: demo-<time>.h5 -> demo-<time>.html */
		char html[sizeof(path) + 8];
		size_t l = strlen(path);

		if (l > 3 && !strcmp(path + l - 3, ".h5"))
			l -= 3;
		snprintf(html, sizeof(html), "%.*s.html", (int)l, path);
		if (rb_report_html(path, html) == RB_EXIT_OK)
			fprintf(stderr, "report: %s\n", html);
	}
out_stop:
	stop_children(pids, NAGENTS);
out_close:
	rb_tx_close(sock);
	rb_tx_context_term();
out_rm:
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	rb_campaign_free(c);
	rb_diags_release(&d);
	if (rb_stop_flag)
		rc = RB_EXIT_FAILED;
	return rc;
}
