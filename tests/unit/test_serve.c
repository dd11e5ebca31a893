// SPDX-License-Identifier: MIT
/*
 * `rackbench serve` and its clients (coordinator/service/serve.c): the service runs in a child of
 * the test (a run sends the service's own stdout and stderr to its log, which a client in
 * the same process would follow into itself) on an ipc:// endpoint and a control socket
 * in a private folder, and the clients ask it -- agents, status, abort, a run or resume submitted -- as the
 * commands do. An agent's Hello registers it while no run goes on; a campaign that does
 * not load is refused with its diagnostics; a run's exit code comes back to the client
 * that submitted it and stays in the service's status; a run going on is the only one,
 * and an abort stops it. SIGTERM ends the service.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture.h"
#include "cmds.h"
#include "exitcode.h"
#include "log.h"
#include "serve.h"
#include "transport.h"
#include "wire.h"

/* this tree's protocol version as the agents command prints it */
#define STR2(x) #x
#define STR(x) STR2(x)
#define PROTO_TEXT STR(RB_PROTO_MAJOR) "." STR(RB_PROTO_MINOR)

/* The service, in a child process. */
static struct {
	char dir[256], ctl[512], agents[512], logs[512], results[512];
	pid_t pid;
} svc;

static void service(void)
{
	char *argv[] = { (char *)"serve",
			 (char *)"--insecure",
			 (char *)"--listen",
			 svc.agents,
			 (char *)"--control",
			 svc.ctl,
			 (char *)"--log-dir",
			 svc.logs,
			 NULL };
	char out[600];
	int fd;

	/* its own messages into a file of the folder */
	snprintf(out, sizeof(out), "%s/service.out", svc.dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	exit(rb_serve_cmd(8, argv));
}

static int group_setup(void **st)
{
	(void)st;
	temp_dir(svc.dir, sizeof(svc.dir));
	snprintf(svc.ctl, sizeof(svc.ctl), "%s/ctl/control", svc.dir);
	snprintf(svc.agents, sizeof(svc.agents), "ipc://%s/agents", svc.dir);
	snprintf(svc.logs, sizeof(svc.logs), "%s/logs", svc.dir);
	snprintf(svc.results, sizeof(svc.results), "%s/results", svc.dir);
	if (mkdir(svc.logs, 0700) || mkdir(svc.results, 0700))
		return -1;
	/* before this process has a ZeroMQ context of its own */
	fflush(stdout);
	fflush(stderr);
	svc.pid = fork();
	if (svc.pid < 0)
		return -1;
	if (!svc.pid)
		service();
	/* up when its control socket answers a connect */
	for (int i = 0; i < 400 && !rb_service_present(svc.ctl); i++)
		usleep(25000);
	return rb_service_present(svc.ctl) ? 0 : -1;
}

/* SIGTERM ends the service, its exit code 0 and its socket gone. */
static int group_teardown(void **st)
{
	int status = -1;

	(void)st;
	kill(svc.pid, SIGTERM);
	waitpid(svc.pid, &status, 0);
	if (access(svc.ctl, F_OK) == 0)
		status = -1;
	rm_tree(svc.dir);
	return WIFEXITED(status) && WEXITSTATUS(status) == RB_EXIT_OK ? 0 : -1;
}

/* A request of the client's own, and its reply (to free). */
static char *ask(const char *req)
{
	void *s = rb_tx_control_connect(svc.ctl, 5000);
	char *rep = NULL;
	size_t n;

	assert_non_null(s);
	assert_int_equal(rb_tx_text_send(s, req, strlen(req)), 0);
	assert_int_equal(rb_tx_text_recv(s, 5000, &rep, &n), 0);
	rb_tx_close(s);
	return rep;
}

static int agents_cmd(int argc, char **argv)
{
	return rb_agents_cmd(argc, argv);
}

static int status_cmd(int argc, char **argv)
{
	return rb_status_cmd(argc, argv);
}

static int abort_cmd(int argc, char **argv)
{
	return rb_abort_cmd(argc, argv);
}

/* ---- without the service ---- */

static void test_paths_and_fields(void **st)
{
	char buf[4096], small[4];
	const char *msg = "ok\nid=20260101T000000Z-1\nlog=/x/run.log\nempty=\n\nid=not-this\n";

	(void)st;
	assert_string_equal(rb_control_path("/given/ctl", buf, sizeof(buf)), "/given/ctl");
	setenv("RACKBENCH_CONTROL", "/env/ctl", 1);
	assert_string_equal(rb_control_path(NULL, buf, sizeof(buf)), "/env/ctl");
	assert_string_equal(rb_control_path("", buf, sizeof(buf)), "/env/ctl");
	unsetenv("RACKBENCH_CONTROL");
	rb_control_path(NULL, buf, sizeof(buf));
	if (getuid() == 0)
		assert_string_equal(buf, "/run/rackbench/control");
	else
		assert_true(!strncmp(buf, "/tmp/rackbench-", 15) && strstr(buf, "/control"));
	assert_string_equal(rb_control_field(msg, "id", buf, sizeof(buf)), "20260101T000000Z-1");
	assert_string_equal(rb_control_field(msg, "log", buf, sizeof(buf)), "/x/run.log");
	assert_string_equal(rb_control_field(msg, "empty", buf, sizeof(buf)), "");
	/* the first line is the verdict, not a field; nothing after the empty line is */
	assert_null(rb_control_field("id=x\nlog=y\n", "id", buf, sizeof(buf)));
	assert_null(rb_control_field(msg, "not", buf, sizeof(buf)));
	assert_null(rb_control_field(msg, "lo", buf, sizeof(buf)));
	/* a value longer than the buffer is none */
	assert_null(rb_control_field(msg, "log", small, sizeof(small)));
	assert_false(rb_service_present("/nonexistent/dir/control"));
}

static void test_clients_need_a_service(void **st)
{
	char path[600];
	struct out o;

	(void)st;
	snprintf(path, sizeof(path), "%s/none/control", svc.dir);
	assert_run(RB_EXIT_FAILED, err, "no rackbench service at", status_cmd, "status",
		   "--control", path);
	assert_run(RB_EXIT_OK, out, "usage: rackbench agents [--control PATH] [--json]", agents_cmd,
		   "agents", "--help");
	cap_run(&o, status_cmd, "status", "--help");
	assert_non_null(strstr(o.out, "usage: rackbench status [RUN-ID] [--control PATH]"));
	out_free(&o);
	cap_run(&o, abort_cmd, "abort", "-h");
	assert_non_null(strstr(o.out, "Aborts the service's run going on"));
	out_free(&o);
	assert_run(RB_EXIT_USAGE, err, "unknown option '--json'", abort_cmd, "abort", "--json");
	cap_run(&o, status_cmd, "status", "a", "b");
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	out_free(&o);
	/* a socket in a folder others may write to is never used */
	{
		char open_dir[600], sock[700];

		snprintf(open_dir, sizeof(open_dir), "%s/open", svc.dir);
		snprintf(sock, sizeof(sock), "%s/control", open_dir);
		assert_int_equal(mkdir(open_dir, 0700), 0);
		chmod(open_dir, 0777);
		write_text(sock, "planted\n");
		cap_run(&o, status_cmd, "status", "--control", sock);
		assert_int_equal(o.rc, RB_EXIT_FAILED);
		assert_non_null(strstr(o.err, "is not private (others may write to it"));
		out_free(&o);
	}
}

static void test_serve_refusals(void **st)
{
	char bad[600], ctl[700], link[600];
	struct out o;

	(void)st;
	assert_run(RB_EXIT_OK, out, "usage: rackbench serve [--listen ENDPOINT]", rb_serve_cmd,
		   "serve", "--help");
	assert_run(RB_EXIT_USAGE, err, "unknown option '--port'", rb_serve_cmd, "serve", "--port",
		   "1");
	assert_run(RB_EXIT_USAGE, err, "serve needs --key (its key pair) and --agent-keys",
		   rb_serve_cmd, "serve", "--key", "k");
	/* a folder others may write to, and a link, are refused */
	snprintf(bad, sizeof(bad), "%s/shared", svc.dir);
	assert_int_equal(mkdir(bad, 0700), 0);
	chmod(bad, 0775);
	snprintf(ctl, sizeof(ctl), "%s/control", bad);
	cap_run(&o, rb_serve_cmd, "serve", "--insecure", "--control", ctl);
	assert_int_equal(o.rc, RB_EXIT_FAILED);
	assert_non_null(strstr(o.err, "refusing the service folder"));
	assert_non_null(strstr(o.err, "others may write to it (mode 0775; 0700 wanted)"));
	out_free(&o);
	snprintf(link, sizeof(link), "%s/link", svc.dir);
	assert_int_equal(symlink(svc.logs, link), 0);
	snprintf(ctl, sizeof(ctl), "%s/control", link);
	assert_run(RB_EXIT_FAILED, err, "it is a symbolic link", rb_serve_cmd, "serve",
		   "--insecure", "--control", ctl);
	/* a key pair that cannot be read */
	snprintf(ctl, sizeof(ctl), "%s/keyed/control", svc.dir);
	assert_run(RB_EXIT_USAGE, err, "/nonexistent.key", rb_serve_cmd, "serve", "--key",
		   "/nonexistent.key", "--agent-keys", "/nonexistent.allow", "--control", ctl);
	/* one service a control socket */
	assert_run(RB_EXIT_FAILED, err, "a rackbench service already listens on", rb_serve_cmd,
		   "serve", "--insecure", "--control", svc.ctl);
	/* the folders every run writes into are checked at the start, not at each run */
	snprintf(ctl, sizeof(ctl), "%s/folders/control", svc.dir);
	assert_run(RB_EXIT_USAGE, err,
		   "--log-dir '/nonexistent/logs': no such folder (make it first)", rb_serve_cmd,
		   "serve", "--insecure", "--control", ctl, "--log-dir", "/nonexistent/logs");
	assert_run(RB_EXIT_USAGE, err, "--log-dir '/etc/passwd': not a folder", rb_serve_cmd,
		   "serve", "--insecure", "--control", ctl, "--log-dir", "/etc/passwd");
	assert_run(RB_EXIT_USAGE, err,
		   "--results '/nonexistent/a/b': no such folder (nor one to make "
		   "it in)",
		   rb_serve_cmd, "serve", "--insecure", "--control", ctl, "--results",
		   "/nonexistent/a/b");
}

/* ---- with the service ---- */

static void test_idle_requests(void **st)
{
	struct out o;
	char *rep;

	(void)st;
	cap_run(&o, status_cmd, "status", "--control", svc.ctl);
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_string_equal(o.out, "idle: no run yet\n");
	out_free(&o);
	assert_run(RB_EXIT_FAILED, err, "rackbench: error: no run is going on\n", abort_cmd,
		   "abort", "--control", svc.ctl);
	cap_run(&o, status_cmd, "status", "--control", svc.ctl, "20990101T000000Z-9");
	assert_int_equal(o.rc, RB_EXIT_FAILED);
	assert_non_null(
		strstr(o.err, "no run '20990101T000000Z-9' (the service keeps the last 16)"));
	out_free(&o);
	rep = ask("reboot\nnow=1\n");
	assert_string_equal(rep, "error\nunknown request 'reboot' (agents, status, abort, run, "
				 "resume, resolve, time)\n");
	free(rep);
	/* no agent yet: the table's head only */
	cap_run(&o, agents_cmd, "agents", "--control", svc.ctl);
	assert_int_equal(o.rc, RB_EXIT_OK);
	assert_int_equal(count_of(o.out, "\n"), 1);
	assert_true(!strncmp(o.out, "agent ", 6));
	out_free(&o);
	cap_run(&o, agents_cmd, "agents", "--control", svc.ctl, "--json");
	assert_string_equal(o.out, "[]\n");
	out_free(&o);
}

/* An agent's Hello while no run goes on: welcomed to no run, and listed. */
static void test_agent_registers(void **st)
{
	void *sock = rb_tx_dealer_connect(svc.agents, "h1");
	struct rb_msg e, *w = NULL;
	char err[256], line[512];
	struct out o;

	(void)st;
	assert_non_null(sock);
	/* labels as inventories set them; a quote is escaped, a comma cannot cut the list */
	static const struct rb_kv labels[] = { { "rack", "r12" },
					       { "slot", "7" },
					       { "note", "a \"b\",c" } };

	rb_msg_init(&e, RB_MSG_HELLO);
	e.hello = (struct rb_msg_hello){ .name = "h1",
					 .hostname = "host-one",
					 .kernel = "Linux",
					 .rb_version = "9.9.9",
					 .run = "",
					 .labels = labels,
					 .nlabels = 3 };
	assert_int_equal(rb_tx_send(sock, NULL, &e, false), 0);
	assert_int_equal(rb_tx_recv(sock, 5000, NULL, &w, err, sizeof(err)), 0);
	assert_int_equal(w->kind, RB_MSG_WELCOME);
	assert_string_equal(w->welcome.run, "");
	rb_msg_free(w);
	cap_run(&o, agents_cmd, "agents", "--control", svc.ctl);
	assert_int_equal(o.rc, RB_EXIT_OK);
	line_with(o.out, "h1 ", line, sizeof(line));
	assert_non_null(strstr(line, "host-one"));
	assert_non_null(strstr(line, "9.9.9"));
	assert_non_null(strstr(line, PROTO_TEXT));
	assert_non_null(strstr(line, " idle"));
	assert_non_null(strstr(line, "rack=r12,slot=7,note=a \"b\" c"));
	out_free(&o);
	cap_run(&o, agents_cmd, "agents", "--control", svc.ctl, "--json");
	assert_non_null(strstr(o.out,
			       "{\"name\": \"h1\", \"host\": \"host-one\", \"version\": "
			       "\"9.9.9\", \"protocol\": \"" PROTO_TEXT "\", \"targets\": 0, "
			       "\"heard_s_ago\": "));
	assert_non_null(strstr(o.out, "\"state\": \"idle\", \"labels\": {\"rack\": \"r12\", "
				      "\"slot\": \"7\", \"note\": \"a \\\"b\\\" c\"}}\n]\n"));
	out_free(&o);
	/* again: still one agent */
	assert_int_equal(rb_tx_send(sock, NULL, &e, false), 0);
	assert_int_equal(rb_tx_recv(sock, 5000, NULL, &w, err, sizeof(err)), 0);
	rb_msg_free(w);
	cap_run(&o, agents_cmd, "agents", "--control", svc.ctl);
	assert_int_equal(count_of(o.out, "host-one"), 1);
	out_free(&o);
	rb_tx_close(sock);
}

/* A submission, as 'rackbench run' and 'resume' make it. */
static struct {
	const char *kind, *arg, *text;
	bool queue;
	volatile sig_atomic_t interrupted;
} sub;

static int submit_as(const char *kind, const char *arg, const char *text, bool queue)
{
	return rb_service_submit(&(struct rb_submit){ .ctl = svc.ctl,
						      .kind = kind,
						      .arg = arg,
						      .text = text,
						      .results_dir = svc.results,
						      .queue = queue,
						      .interrupted = &sub.interrupted });
}

static int submit(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return submit_as(sub.kind, sub.arg, sub.text, sub.queue);
}

static void test_submissions_refused(void **st)
{
	struct out o;
	char path[600], *rep;

	(void)st;
	sub.kind = "run";
	sub.arg = "bad.yaml";
	sub.text = "targets: [{agent: a, drives: [x]}]\nphases:\n  - workload: {bs: 4q}\n";
	cap_run(&o, submit, "submit");
	assert_int_equal(o.rc, RB_EXIT_USAGE);
	assert_non_null(strstr(o.err, "bad.yaml:3:"));
	assert_non_null(strstr(o.err, "'bs'"));
	out_free(&o);
	snprintf(path, sizeof(path), "%s/none.h5", svc.dir);
	sub.kind = "resume";
	sub.arg = path;
	sub.text = NULL;
	assert_run(RB_EXIT_USAGE, err, "none.h5.journal", submit, "submit");
	/* requests without what they need */
	rep = ask("run\nfile=x.yaml\n");
	assert_string_equal(rep, "error\nrun: no campaign\n");
	free(rep);
	rep = ask("resume\n");
	assert_string_equal(rep, "error\nresume: no results path\n");
	free(rep);
}

/* A run whose agent never comes: it fails, the client gets its exit code and its log,
 * and the service's status keeps it. */
static void test_run_ends_in_status(void **st)
{
	struct out o;
	char id[64], want[256], *p;

	(void)st;
	sub.kind = "run";
	sub.arg = "/campaigns/sub.yaml";
	sub.text =
		"name: sub\ninsecure: true\nwait: 0s\n"
		"targets: [{agent: ghost, drives: [/dev/g]}]\nphases:\n  - workload: {rw: read}\n";
	cap_run(&o, submit, "submit");
	assert_int_equal(o.rc, RB_EXIT_FAILED);
	p = strstr(o.err, "rackbench: run ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "rackbench: run %63s submitted", id), 1);
	/* the run's own output, followed from its log */
	assert_non_null(strstr(o.err, "'ghost'"));
	out_free(&o);
	cap_run(&o, status_cmd, "status", "--control", svc.ctl);
	assert_int_equal(o.rc, RB_EXIT_OK);
	snprintf(want, sizeof(want),
		 "idle: run %s, campaign 'sub', ended with exit %d, results "
		 "(none)\n",
		 id, RB_EXIT_FAILED);
	assert_string_equal(o.out, want);
	out_free(&o);
	/* by its id: done, and its exit code is the command's */
	cap_run(&o, status_cmd, "status", id, "--control", svc.ctl);
	assert_int_equal(o.rc, RB_EXIT_FAILED);
	assert_true(!strncmp(o.out, "done: run ", 10));
	out_free(&o);
	snprintf(want, sizeof(want), "%s/run-%s.log", svc.logs, id);
	assert_int_equal(access(want, R_OK), 0);
}

static void *submit_thread(void *arg)
{
	struct out *o = arg;

	o->rc = submit(0, NULL);
	return NULL;
}

/* A run going on: its status, no second run beside it, and an abort that ends it. */
static void test_run_going_on(void **st)
{
	pthread_t t;
	struct out o, r = { 0 };
	char *rep = NULL, id[64] = "", want[256];

	(void)st;
	sub.kind = "run";
	sub.arg = "/campaigns/slow.yaml";
	sub.text =
		"name: slow\ninsecure: true\nwait: 1m\n"
		"targets: [{agent: ghost, drives: [/dev/g]}]\nphases:\n  - workload: {rw: read}\n";
	assert_int_equal(pthread_create(&t, NULL, submit_thread, &r), 0);
	for (int i = 0; i < 400; i++) {
		free(rep);
		rep = ask("status\n");
		if (strstr(rep, "state=running"))
			break;
		usleep(25000);
	}
	assert_non_null(strstr(rep, "state=running"));
	assert_non_null(rb_control_field(rep, "id", id, sizeof(id)));
	free(rep);
	cap_run(&o, status_cmd, "status", "--control", svc.ctl);
	/* its agent never came: no point yet, and no "point 1 of 0" */
	snprintf(want, sizeof(want), "running: run %s, campaign 'slow', waiting (no point yet), ",
		 id);
	assert_true(!strncmp(o.out, want, strlen(want)));
	assert_non_null(strstr(o.out, "results (not yet)"));
	out_free(&o);
	cap_run(&o, status_cmd, "status", id, "--control", svc.ctl);
	assert_true(!strncmp(o.out, "running: ", 9));
	out_free(&o);
	rep = ask("run\nfile=/x.yaml\n\nname: second\n");
	snprintf(want, sizeof(want),
		 "error\nbusy: run %s (campaign 'slow') is going on; one run at "
		 "a time (run --queue waits its turn)\n",
		 id);
	assert_string_equal(rep, want);
	free(rep);
	cap_run(&o, agents_cmd, "agents", "--control", svc.ctl);
	assert_int_equal(o.rc, RB_EXIT_OK);
	out_free(&o);
	/* an id too long for the service's buffer is no run's: it must not read as "the
	 * one going on" (63 characters is the longest an id has, 64 and 300 are refused) */
	for (size_t n = 63; n <= 300; n += n == 63 ? 1 : 236) {
		char longid[301];

		memset(longid, 'n', n);
		longid[n] = '\0';
		cap_run(&o, abort_cmd, "abort", longid, "--control", svc.ctl);
		assert_int_equal(o.rc, RB_EXIT_FAILED);
		assert_non_null(strstr(o.err, "is going on or waiting"));
		assert_null(strstr(o.out, "abort requested"));
		out_free(&o);
		cap_run(&o, status_cmd, "status", longid, "--control", svc.ctl);
		assert_int_equal(o.rc, RB_EXIT_FAILED);
		out_free(&o);
	}
	rep = ask("status\n");
	assert_non_null(strstr(rep, "state=running"));
	free(rep);
	cap_run(&o, abort_cmd, "abort", "--control", svc.ctl);
	assert_int_equal(o.rc, RB_EXIT_OK);
	snprintf(want, sizeof(want), "abort requested for run %s\n", id);
	assert_string_equal(o.out, want);
	out_free(&o);
	pthread_join(t, NULL);
	assert_int_not_equal(r.rc, RB_EXIT_OK);
	cap_run(&o, status_cmd, "status", id, "--control", svc.ctl);
	assert_int_equal(o.rc, r.rc);
	out_free(&o);
}

/* A queued submission's own thread: its campaign, its exit code. */
struct queued_sub {
	const char *arg, *text;
	int rc;
};

static void *queued_thread(void *arg)
{
	struct queued_sub *q = arg;

	q->rc = submit_as("run", q->arg, q->text, true);
	return NULL;
}

/* The status reply's state once it is want (up to 10 s); the reply, to free. */
static char *await_state(const char *req, const char *want)
{
	char *rep = NULL;

	for (int i = 0; i < 400; i++) {
		free(rep);
		rep = ask(req);
		if (strstr(rep, want))
			break;
		usleep(25000);
	}
	assert_non_null(strstr(rep, want));
	return rep;
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	buf[n] = '\0';
	if (f)
		fclose(f);
}

/* Runs submitted with --queue while one runs wait their turn, in order; status lists
 * them; an abort of a queued one takes it out; a bad one is refused at once. */
static void test_queue(void **st)
{
	pthread_t t, tb;
	struct out o, r = { 0 };
	struct queued_sub qb = { "/campaigns/qb.yaml",
				 "name: qb\ninsecure: true\nwait: 0s\n"
				 "targets: [{agent: ghost, drives: [/dev/g]}]\nphases:\n"
				 "  - workload: {rw: read}\n",
				 -1 };
	char *rep, slow[64] = "", idb[64] = "", idc[64] = "", want[512], log[4096], text[8192];

	(void)st;
	sub.kind = "run";
	sub.arg = "/campaigns/slow.yaml";
	sub.queue = false;
	sub.text =
		"name: slow\ninsecure: true\nwait: 1m\n"
		"targets: [{agent: ghost, drives: [/dev/g]}]\nphases:\n  - workload: {rw: read}\n";
	assert_int_equal(pthread_create(&t, NULL, submit_thread, &r), 0);
	rep = await_state("status\n", "state=running");
	assert_non_null(rb_control_field(rep, "id", slow, sizeof(slow)));
	free(rep);
	/* B waits behind it, following its log; C is asked for by hand */
	assert_int_equal(pthread_create(&tb, NULL, queued_thread, &qb), 0);
	rep = await_state("status\n", "queued=");
	free(rep);
	rep = ask(
		"run\nfile=/c.yaml\nqueue=1\n\nname: qc\ninsecure: true\n"
		"targets: [{agent: ghost, drives: [/dev/g]}]\nphases:\n  - workload: {rw: read}\n");
	assert_true(!strncmp(rep, "ok\n", 3));
	assert_non_null(rb_control_field(rep, "id", idc, sizeof(idc)));
	assert_non_null(strstr(rep, "queued=2\n"));
	free(rep);
	/* a campaign that does not load is refused at once, not queued */
	rep = ask("run\nfile=/bad.yaml\nqueue=1\n\nphases: 3\n");
	assert_true(!strncmp(rep, "error\n", 6));
	free(rep);
	cap_run(&o, status_cmd, "status", "--control", svc.ctl);
	rep = strstr(o.out, "queue:\n  1. run ");
	assert_non_null(rep);
	assert_int_equal(sscanf(rep, "queue:\n  1. run %63s", idb), 1);
	idb[strcspn(idb, ",")] = '\0';
	snprintf(want, sizeof(want), "  1. run %s, campaign 'qb'\n  2. run %s, campaign 'qc'\n",
		 idb, idc);
	assert_non_null(strstr(o.out, want));
	out_free(&o);
	snprintf(want, sizeof(want), "queued: run %s, campaign 'qc', number 2 in the queue\n", idc);
	assert_run(RB_EXIT_OK, out, want, status_cmd, "status", idc, "--control", svc.ctl);
	/* C taken out: it never runs, its status and log say so */
	snprintf(want, sizeof(want), "run %s taken out of the queue\n", idc);
	assert_run(RB_EXIT_OK, out, want, abort_cmd, "abort", idc, "--control", svc.ctl);
	cap_run(&o, status_cmd, "status", idc, "--control", svc.ctl);
	assert_int_equal(o.rc, RB_EXIT_FAILED);
	out_free(&o);
	snprintf(log, sizeof(log), "%s/run-%s.log", svc.logs, idc);
	read_file(log, text, sizeof(text));
	assert_non_null(strstr(text, "taken out of the queue"));
	assert_run(RB_EXIT_FAILED, err, "is going on or waiting", abort_cmd, "abort", "nosuch",
		   "--control", svc.ctl);
	/* the slow run aborted: B runs next, and its client gets B's exit code */
	assert_run(RB_EXIT_OK, out, slow, abort_cmd, "abort", "--control", svc.ctl);
	pthread_join(t, NULL);
	pthread_join(tb, NULL);
	assert_int_equal(qb.rc, RB_EXIT_FAILED); /* its agent never came */
	snprintf(log, sizeof(log), "%s/run-%s.log", svc.logs, idb);
	read_file(log, text, sizeof(text));
	snprintf(want, sizeof(want), "queued behind run %s", slow);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "'ghost'")); /* and then it ran */
	cap_run(&o, status_cmd, "status", idb, "--control", svc.ctl);
	assert_true(!strncmp(o.out, "done: run ", 10));
	out_free(&o);
}

int main(void)
{
	rb_log_init("rackbench", RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_and_fields),
		cmocka_unit_test(test_clients_need_a_service),
		cmocka_unit_test(test_serve_refusals),
		cmocka_unit_test(test_idle_requests),
		cmocka_unit_test(test_agent_registers),
		cmocka_unit_test(test_submissions_refused),
		cmocka_unit_test(test_run_ends_in_status),
		cmocka_unit_test(test_run_going_on),
		cmocka_unit_test(test_queue),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
