// SPDX-License-Identifier: MIT
/*
 * The service's clients (serve.h): `rackbench agents`, `status` and `abort` ask the
 * running service over its control socket; `run` and `resume` submit to it and follow
 * the run's output until it ends.
 */
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "exitcode.h"
#include "jsonout.h"
#include "log.h"
#include "transport.h"
#include "units.h"

/* One request, one reply. Returns the reply (to free), or NULL with the error logged. */
static char *ask(const char *path, const char *req, size_t len, int timeout_ms)
{
	void *sock;
	char *rep = NULL;
	size_t rl;
	int r;

	if (!rb_service_present(path)) {
		rb_err("no rackbench service at %s (start one with 'rackbench serve')", path);
		return NULL;
	}
	sock = rb_tx_control_connect(path, timeout_ms);
	if (!sock) {
		rb_err("cannot connect to the service at %s: %s", path, strerror(errno));
		return NULL;
	}
	r = rb_tx_text_send(sock, req, len);
	if (!r)
		r = rb_tx_text_recv(sock, timeout_ms, &rep, &rl);
	rb_tx_close(sock);
	if (r) {
		rb_err("the service at %s did not answer: %s", path,
		       r == -EAGAIN ? "timed out" : strerror(-r));
		return NULL;
	}
	return rep;
}

/* Prints an error reply's message; returns whether the reply is ok. */
static bool reply_ok(const char *rep)
{
	if (!strncmp(rep, "ok\n", 3) || !strcmp(rep, "ok"))
		return true;
	fprintf(stderr, "rackbench: error: %s", strncmp(rep, "error\n", 6) ? rep : rep + 6);
	if (!*rep || rep[strlen(rep) - 1] != '\n')
		fputc('\n', stderr);
	return false;
}

/* An agent's labels (K=V,K=V) as a JSON object. */
static void print_labels_json(char *labels)
{
	char *save = NULL;
	bool first = true;

	printf("{");
	for (char *kv = strtok_r(labels, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq)
			continue;
		*eq = '\0';
		printf("%s", first ? "" : ", ");
		rb_json_str(stdout, kv);
		printf(": ");
		rb_json_str(stdout, eq + 1);
		first = false;
	}
	printf("}");
}

/* A reply line's tab-separated fields into f (at most max); how many. */
static int split_tabs(char *line, char **f, int max)
{
	int n = 0;

	for (char *t = line; n < max; n++) {
		f[n] = t;
		t = strchr(t, '\t');
		if (!t)
			return n + 1;
		*t++ = '\0';
	}
	return n;
}

/* A target line of an agent ("+" PATH KIND MODEL SERIAL FIRMWARE BYTES), as it prints. */
static void print_drive(char **f, bool json, bool first)
{
	char sz[32];

	if (!json) {
		printf("  %-38s %-7s %-24s %-20s %-10s %s\n", f[1], f[2], *f[3] ? f[3] : "-",
		       *f[4] ? f[4] : "-", *f[5] ? f[5] : "-",
		       rb_fmt_size_human(strtoull(f[6], NULL, 10), sz, sizeof(sz)));
		return;
	}
	printf("%s{\"path\": ", first ? "" : ", ");
	rb_json_str(stdout, f[1]);
	printf(", \"kind\": ");
	rb_json_str(stdout, f[2]);
	printf(", \"model\": ");
	rb_json_str(stdout, f[3]);
	printf(", \"serial\": ");
	rb_json_str(stdout, f[4]);
	printf(", \"firmware\": ");
	rb_json_str(stdout, f[5]);
	printf(", \"capacity_bytes\": %llu}", strtoull(f[6], NULL, 10));
}

/* The service's agents: a table, or JSON (labels: a service before 1.5 sends none); with
 * drives, each agent's targets after it ("drives" in JSON). */
static void print_agents(char *rep, bool json, bool drives)
{
	char *save = NULL, *line = strtok_r(rep + 3, "\n", &save);
	bool first = true, inlist = false, dfirst = true;

	if (json)
		printf("[");
	else
		printf("%-24s %-20s %-10s %-6s %7s %9s %-8s %s\n", "agent", "host", "version",
		       "proto", "targets", "heard s", "state", "labels");
	for (; line; line = strtok_r(NULL, "\n", &save)) {
		char *f[8] = { 0 };
		int n = split_tabs(line, f, 8);

		if (!strcmp(f[0], "+") && n >= 7) {
			print_drive(f, json, dfirst);
			dfirst = false;
			continue;
		}
		if (n < 7)
			continue;
		if (inlist)
			printf("]}");
		inlist = false;
		char none[1] = "";

		if (!f[7])
			f[7] = none;
		if (json) {
			printf("%s\n {\"name\": ", first ? "" : ",");
			rb_json_str(stdout, f[0]);
			printf(", \"host\": ");
			rb_json_str(stdout, f[1]);
			printf(", \"version\": ");
			rb_json_str(stdout, f[2]);
			printf(", \"protocol\": \"%s\", \"targets\": %s, \"heard_s_ago\": %s, "
			       "\"state\": \"%s\", \"labels\": ",
			       f[3], f[4], f[5], f[6]);
			print_labels_json(f[7]);
			if (drives) {
				printf(", \"drives\": [");
				inlist = true;
				dfirst = true;
			} else {
				printf("}");
			}
		} else {
			printf("%-24s %-20s %-10s %-6s %7s %9s %-8s %s\n", f[0], f[1], f[2], f[3],
			       f[4], f[5], f[6], *f[7] ? f[7] : "-");
		}
		first = false;
	}
	if (inlist)
		printf("]}");
	if (json)
		printf("%s]\n", first ? "" : "\n");
}

/* The runs waiting, in order: "queued=ID CAMPAIGN" lines of a status reply. */
static void print_queue(const char *rep)
{
	unsigned n = 0;

	for (const char *p = strstr(rep, "\nqueued="); p; p = strstr(p + 1, "\nqueued=")) {
		int len = (int)strcspn(p + 8, "\n");
		const char *sp = memchr(p + 8, ' ', (size_t)len);

		if (!n++)
			printf("queue:\n");
		if (sp)
			printf("  %u. run %.*s, campaign '%.*s'\n", n, (int)(sp - (p + 8)), p + 8,
			       (int)(p + 8 + len - sp - 1), sp + 1);
	}
}

/* Where the service's run stands, or the run id's end; that run's exit code with an id. */
static int print_status(const char *rep, const char *id)
{
	int rc = RB_EXIT_OK;

	char st[32] = "", v[4096];

	rb_control_field(rep, "state", st, sizeof(st));
	if (!strcmp(st, "queued")) {
		char pos[16] = "?", camp[256] = "", rid[64] = "?";

		rb_control_field(rep, "position", pos, sizeof(pos));
		rb_control_field(rep, "campaign", camp, sizeof(camp));
		rb_control_field(rep, "id", rid, sizeof(rid));
		printf("queued: run %s, campaign '%s', number %s in the queue\n", rid, camp, pos);
		return RB_EXIT_OK;
	}
	if (!strcmp(st, "running")) {
		char point[32] = "0", points[32] = "0", camp[256] = "", rid[64] = "?";
		char res[4096] = "", phase[32] = "?";

		rb_control_field(rep, "phase", phase, sizeof(phase));
		rb_control_field(rep, "point", point, sizeof(point));
		rb_control_field(rep, "points", points, sizeof(points));
		rb_control_field(rep, "campaign", camp, sizeof(camp));
		rb_control_field(rep, "id", rid, sizeof(rid));
		rb_control_field(rep, "results", res, sizeof(res));
		/* its points are known once its agents are in: no "point 1 of 0" before */
		if (!strcmp(points, "0"))
			printf("running: run %s, campaign '%s', %s (no point yet), results %s\n",
			       rid, camp, phase, *res ? res : "(not yet)");
		else
			printf("running: run %s, campaign '%s', point %ld of %s, results %s (phase "
			       "%s)\n",
			       rid, camp, strtol(point, NULL, 10) + 1, points,
			       *res ? res : "(not yet)", phase);
	} else if (rb_control_field(rep, "id", v, sizeof(v))) {
		char ex[16] = "?", camp[256] = "", res[4096] = "";

		rb_control_field(rep, "exit", ex, sizeof(ex));
		rb_control_field(rep, "campaign", camp, sizeof(camp));
		rb_control_field(rep, "results", res, sizeof(res));
		printf("%s: run %s, campaign '%s', ended with exit %s, results %s\n",
		       !strcmp(st, "done") ? "done" : "idle", v, camp, ex, *res ? res : "(none)");
		if (id)
			rc = (int)strtol(ex, NULL, 10);
	} else {
		printf("idle: no run yet\n");
	}
	print_queue(rep);
	return rc;
}

/* A field of the reply as a JSON member: a string, or a number (raw). */
static void json_field(const char *rep, const char *key, bool number, bool *first)
{
	char v[4096];

	if (!rb_control_field(rep, key, v, sizeof(v)))
		return;
	printf("%s\"%s\": ", *first ? "" : ", ", key);
	if (number && *v && strspn(v, "0123456789.-") == strlen(v))
		printf("%s", v);
	else
		rb_json_str(stdout, v);
	*first = false;
}

/* A running run's "drive=NAME\tIOPS\tMBPS\tP99\tTEMP\tERRORS\tMEASURED" lines. */
static void json_drives(const char *rep)
{
	bool first = true;

	printf(", \"drives\": [");
	for (const char *p = strstr(rep, "\ndrive="); p; p = strstr(p + 1, "\ndrive=")) {
		char line[1024], *f[8] = { 0 };
		size_t n = strcspn(p + 7, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, p + 7);
		if (split_tabs(line, f, 8) < 7)
			continue;
		printf("%s{\"drive\": ", first ? "" : ", ");
		rb_json_str(stdout, f[0]);
		printf(", \"measured\": %s, \"iops\": %s, \"mb_s\": %s, \"p99_us\": %s, "
		       "\"temperature_c\": %s, \"io_errors\": %s}",
		       strcmp(f[6], "0") ? "true" : "false", f[1], f[2], f[3],
		       strcmp(f[4], "nan") && strcmp(f[4], "-nan") ? f[4] : "null", f[5]);
		first = false;
	}
	printf("]");
}

/* `status --json`: the reply as one JSON object (the exit code as print_status). */
static int status_json(const char *rep, const char *id)
{
	static const char *const text[] = { "state", "id", "campaign", "phase", "results" };
	static const char *const nums[] = { "points", "exit", "planned_left_s", "size_based_left",
					    "position" };
	char pt[32];
	char ex[16];
	bool first = true, any = false;

	printf("{");
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		json_field(rep, text[i], false, &first);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		json_field(rep, nums[i], true, &first);
	/* the point counted from 1, as the text says it */
	if (rb_control_field(rep, "point", pt, sizeof(pt))) {
		printf("%s\"point\": %ld", first ? "" : ", ", strtol(pt, NULL, 10) + 1);
		first = false;
	}
	if (strstr(rep, "\nstate=running"))
		json_drives(rep);
	printf("%s\"queue\": [", first ? "" : ", ");
	for (const char *p = strstr(rep, "\nqueued="); p; p = strstr(p + 1, "\nqueued=")) {
		int len = (int)strcspn(p + 8, "\n");
		const char *sp = memchr(p + 8, ' ', (size_t)len);
		char rid[64], camp[256];

		if (!sp)
			continue;
		snprintf(rid, sizeof(rid), "%.*s", (int)(sp - (p + 8)), p + 8);
		snprintf(camp, sizeof(camp), "%.*s", (int)(p + 8 + len - sp - 1), sp + 1);
		printf("%s{\"id\": ", any ? ", " : "");
		rb_json_str(stdout, rid);
		printf(", \"campaign\": ");
		rb_json_str(stdout, camp);
		printf("}");
		any = true;
	}
	printf("]}\n");
	if (id && rb_control_field(rep, "exit", ex, sizeof(ex)))
		return (int)strtol(ex, NULL, 10);
	return RB_EXIT_OK;
}

int rb_control_ask(const char *cmd, const char *ctl, const char *id, bool json, bool drives)
{
	char path[4096], *req = NULL, *rep;
	int rc = RB_EXIT_OK;

	rb_control_path(ctl, path, sizeof(path));
	/* the id whole, however long: the service judges it */
	if (asprintf(&req, "%s\n%s%s%s%s", cmd, id ? "id=" : "", id ? id : "", id ? "\n" : "",
		     drives ? "drives=1\n" : "") < 0)
		return RB_EXIT_FAILED;
	rep = ask(path, req, strlen(req), 5000);
	free(req);
	if (!rep)
		return RB_EXIT_FAILED;
	if (!reply_ok(rep)) {
		free(rep);
		return RB_EXIT_FAILED;
	}
	if (!strcmp(cmd, "agents")) {
		print_agents(rep, json, drives);
	} else if (!strcmp(cmd, "status")) {
		rc = json ? status_json(rep, id) : print_status(rep, id);
	} else {
		char v[64], dq[8];

		if (!rb_control_field(rep, "id", v, sizeof(v)))
			snprintf(v, sizeof(v), "?");
		if (rb_control_field(rep, "dequeued", dq, sizeof(dq)))
			printf("run %s taken out of the queue\n", v);
		else
			printf("abort requested for run %s\n", v);
	}
	free(rep);
	return rc;
}

/*
 * The live view of a run followed from the service on a terminal, as an in-process run
 * draws it (progress.c): the run's point and each drive's last interval, from its status,
 * redrawn in place below the log's lines.
 */
struct view {
	bool tty, color;
	unsigned drawn; /* lines of the view on screen */
	int64_t last;	/* when it was drawn */
};

static void view_erase(struct view *v)
{
	if (v->tty && v->drawn) {
		fprintf(stderr, "\033[%uA\r\033[J", v->drawn);
		v->drawn = 0;
		fflush(stderr);
	}
}

/*
 * How many drives' lines the view has room for: a terminal's rows less its two header
 * lines, the "more drives" line and the cursor's and a spare one.
 */
static unsigned view_rows(const struct view *v)
{
	struct winsize ws = { 0 };
	unsigned rows = 24;

	if (!v->tty)
		return 0;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 6)
		rows = ws.ws_row;
	return rows - 5;
}

/* The view from a running run's status reply (its "drive=" lines). */
static void view_draw(struct view *v, const char *rep)
{
	char camp[128] = "", phase[32] = "", pt[16] = "0", pts[16] = "0", left[32] = "0";
	char sized[16] = "0", dur[32];
	char total[24];
	unsigned room = view_rows(v), more = 0, shown = 0;

	if (!v->tty || !strstr(rep, "\nstate=running"))
		return;
	rb_control_field(rep, "campaign", camp, sizeof(camp));
	rb_control_field(rep, "phase", phase, sizeof(phase));
	rb_control_field(rep, "point", pt, sizeof(pt));
	rb_control_field(rep, "points", pts, sizeof(pts));
	rb_control_field(rep, "planned_left_s", left, sizeof(left));
	rb_control_field(rep, "size_based_left", sized, sizeof(sized));
	view_erase(v);
	/* before the points are known (waiting, pre-flight) there is no "point k of n" */
	if (!strcmp(pts, "0"))
		fprintf(stderr, "%s%s \u00b7 %s\n", v->color ? "\033[1m" : "", camp, phase);
	else
		fprintf(stderr, "%s%s \u00b7 point %ld/%s \u00b7 %s \u00b7 after it: %s%s%s%s\n",
			v->color ? "\033[1m" : "", camp, strtol(pt, NULL, 10) + 1, pts, phase,
			rb_fmt_duration_human((uint64_t)(strtod(left, NULL) * 1e9), dur,
					      sizeof(dur)),
			strcmp(sized, "0") ? " + " : "", strcmp(sized, "0") ? sized : "",
			strcmp(sized, "0") ? " size-based point(s)" : "");
	if (v->color)
		fputs("\033[0m", stderr);
	fprintf(stderr, "  %-44s %11s %9s %10s %6s\n", "drive", "IOPS", "MB/s", "p99 us", "temp");
	v->drawn = 2;
	for (const char *p = strstr(rep, "\ndrive="); p; p = strstr(p + 1, "\ndrive=")) {
		char line[1024], name[48], *f[8] = { 0 };

		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p + 7, "\n"), p + 7);
		if (split_tabs(line, f, 8) < 7)
			continue;
		if (shown >= room) {
			more++;
			continue;
		}
		fprintf(stderr, "  %-44s %11.0f %9.1f %10.1f %6s\n",
			rb_fit_name(f[0], 44, name, sizeof(name)), strtod(f[1], NULL),
			strtod(f[2], NULL), strtod(f[3], NULL),
			strcmp(f[4], "nan") && strcmp(f[4], "-nan") ? f[4] : "-");
		v->drawn++;
		shown++;
	}
	/* the service sends only what fits (a newer one), and says how many there are */
	if (rb_control_field(rep, "drives_total", total, sizeof(total)) &&
	    strtoul(total, NULL, 10) > shown)
		more = (unsigned)(strtoul(total, NULL, 10) - shown);
	if (more) {
		fprintf(stderr, "  ... %u more drive(s): rackbench status --json\n", more);
		v->drawn++;
	}
	fflush(stderr);
	v->last = rb_mono_ns();
}

/* Copies what the run's log has beyond *at to stderr (the view out of its way first). */
static void follow(const char *log, off_t *at, struct view *v)
{
	char buf[65536];
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = pread(fd, buf, sizeof(buf), *at)) > 0) {
		view_erase(v);
		fwrite(buf, 1, (size_t)n, stderr);
		*at += n;
	}
	fflush(stderr);
	close(fd);
}

/* What the run printed on stdout (the service kept it in its own file), on ours. */
static void print_out(const char *out)
{
	char buf[65536];
	int fd = out[0] ? open(out, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	fflush(stdout);
	close(fd);
}

/* The submit request: the command, its fields, the campaign text after an empty line. */
static char *submit_request(const struct rb_submit *sub, size_t *len)
{
	char *req = NULL, cwd[4096];
	FILE *f = open_memstream(&req, len);

	if (!f)
		return NULL;
	fprintf(f, "%s\n%s=%s\n", sub->kind, !strcmp(sub->kind, "resume") ? "path" : "file",
		sub->arg);
	if (sub->results_dir)
		fprintf(f, "results=%s\n", sub->results_dir);
	/* where results go when neither the run nor the service names a folder: here */
	if (getcwd(cwd, sizeof(cwd)))
		fprintf(f, "default_results=%s\n", cwd);
	if (sub->events)
		fprintf(f, "events=%s\n", sub->events);
	if (sub->queue)
		fprintf(f, "queue=1\n");
	if (sub->lock)
		fprintf(f, "lock=%s\n", sub->lock);
	fprintf(f, "\n%s", sub->text ? sub->text : "");
	fclose(f);
	return req;
}

int rb_service_submit(const struct rb_submit *sub)
{
	char *req, *rep, id[64], log[4200], out[4200] = "", st[32], ex[16], queued[16];
	size_t len = 0;
	bool aborted = false;
	off_t at = 0;
	int rc = RB_EXIT_FAILED, misses = 0;
	const char *term = getenv("TERM"), *nc = getenv("NO_COLOR");
	struct view v = { .tty = isatty(STDERR_FILENO) && term && strcmp(term, "dumb"),
			  .color = !(nc && *nc) };

	req = submit_request(sub, &len);
	if (!req)
		return RB_EXIT_FAILED;
	rep = ask(sub->ctl, req, len, 10000);
	free(req);
	if (!rep)
		return RB_EXIT_FAILED;
	if (!reply_ok(rep) || !rb_control_field(rep, "id", id, sizeof(id)) ||
	    !rb_control_field(rep, "log", log, sizeof(log))) {
		/* a campaign the service cannot load is bad input, as in-process; the service
		 * busy or its queue full is its own code (try again); its log folder failing
		 * is a failure */
		if (!strncmp(rep, "error\nbusy", 10) ||
		    !strncmp(rep, "error\nthe queue is full", 23))
			rc = RB_EXIT_BUSY;
		else if (!strncmp(rep, "error\ncannot create the run's log", 33))
			rc = RB_EXIT_FAILED;
		else
			rc = RB_EXIT_USAGE;
		free(rep);
		return rc;
	}
	/* a service of 0.x before the split has no out: its log holds the summary too */
	if (!rb_control_field(rep, "out", out, sizeof(out)))
		out[0] = '\0';
	if (rb_control_field(rep, "queued", queued, sizeof(queued)))
		fprintf(stderr,
			"rackbench: run %s queued at the service at %s: %s run(s) waiting with it\n",
			id, sub->ctl, queued);
	else
		fprintf(stderr, "rackbench: run %s submitted to the service at %s\n", id, sub->ctl);
	free(rep);
	if (sub->detach) {
		printf("%s\n", id);
		fflush(stdout);
		return RB_EXIT_OK;
	}
	for (;;) {
		char q[128];

		follow(log, &at, &v);
		if (*sub->interrupted && !aborted) {
			/* this run, running or waiting: never another's */
			aborted = true;
			snprintf(q, sizeof(q), "abort\nid=%s\n", id);
			rep = ask(sub->ctl, q, strlen(q), 5000);
			free(rep);
		}
		/* the drives the view can show, none without one */
		snprintf(q, sizeof(q), "status\nid=%s\ndrives=%u\n", id, view_rows(&v));
		rep = ask(sub->ctl, q, strlen(q), 30000);
		/* a service busy winding a run down may miss a question: ask again */
		if ((!rep || !reply_ok(rep)) && ++misses < 5) {
			free(rep);
			follow(log, &at, &v);
			usleep(500000);
			continue;
		}
		if (!rep)
			break;
		if (!reply_ok(rep)) {
			free(rep);
			break;
		}
		misses = 0;
		if (rb_control_field(rep, "state", st, sizeof(st)) && !strcmp(st, "done")) {
			view_erase(&v);
			follow(log, &at, &v);
			print_out(out);
			rc = rb_control_field(rep, "exit", ex, sizeof(ex))
				     ? (int)strtol(ex, NULL, 10)
				     : RB_EXIT_FAILED;
			free(rep);
			break;
		}
		/* the view twice a second, or at once when log lines moved it away */
		if (!v.drawn || rb_mono_ns() - v.last >= 500000000LL)
			view_draw(&v, rep);
		free(rep);
		usleep(200000);
	}
	view_erase(&v);
	return rc;
}
