// SPDX-License-Identifier: MIT
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "campaign.h"
#include "clock.h"
#include "coord.h"
#include "diag.h"
#include "drive_index.h"
#include "endpoint.h"
#include "exitcode.h"
#include "journal.h"
#include "keys.h"
#include "log.h"
#include "metrics.h"
#include "results_db.h"
#include "serve_priv.h"
#include "transport.h"
#include "grow.h"
#include "stopsig.h"

/* ---- the service ---- */

/* a stop signal raises it too: a run going on stops first, IO ends on every agent */
static volatile sig_atomic_t abort_run;

static struct reg *reg_find(struct service *s, const char *name, bool add)
{
	for (size_t i = 0; i < s->nagents; i++)
		if (!strcmp(s->agents[i].name, name))
			return &s->agents[i];
	if (!add)
		return NULL;
	if (RB_GROW(s->agents, s->cap, s->nagents, 64))
		return NULL;
	memset(&s->agents[s->nagents], 0, sizeof(s->agents[0]));
	snprintf(s->agents[s->nagents].name, sizeof(s->agents[0].name), "%s", name);
	s->agents[s->nagents].first_ns = rb_wall_ns();
	return &s->agents[s->nagents++];
}

/* The metrics page from the registry (heard within 5 s), the run and its figures (l). */
static void metrics_feed(struct service *s, const struct rb_coord_live *l)
{
	struct rb_metrics_agent *ag = calloc(s->nagents + 1, sizeof(*ag));
	struct rb_metrics_verdict *vd = svc_verdicts_view(s);
	int64_t now = rb_wall_ns();

	for (size_t i = 0; ag && i < s->nagents; i++)
		ag[i] = (struct rb_metrics_agent){ .name = s->agents[i].name,
						   .host = s->agents[i].host,
						   .connected = now - s->agents[i].last_ns <
								5000000000LL };
	if (ag && rb_metrics_update(s->metrics,
				    &(struct rb_metrics_snap){
					    .running = s->running,
					    .run = s->running ? s->id : NULL,
					    .campaign = s->running && s->c ? s->c->name : NULL,
					    .phase = s->running ? s->state.phase : NULL,
					    .point = s->state.point,
					    .npoints = s->state.npoints,
					    .queued = s->nqueue,
					    .samples = s->samples + s->run_samples,
					    .verdicts = vd,
					    .nverdicts = vd ? s->nverdicts : 0,
					    .fleet = vd ? vd + s->nverdicts : NULL,
					    .nfleet = vd ? s->nmarks : 0 },
				    ag, s->nagents, l))
		rb_warn("the metrics page was not rendered: out of memory");
	free(ag);
	free(vd);
	s->metrics_dirty = false;
	s->metrics_at = now;
}

/* A run's figures, from its loop: each drive's kept for `status`, and the metrics. */
static void on_live(void *arg, const struct rb_coord_live *l)
{
	struct service *s = arg;

	s->run_samples = l->samples;
	if (l->ndrives != s->nlive) {
		struct svc_drive *n = realloc(s->live, (l->ndrives + 1) * sizeof(*n));

		if (!n)
			return;
		s->live = n;
		s->nlive = l->ndrives;
	}
	for (size_t i = 0; i < l->ndrives; i++) {
		const struct rb_live_drive *d = &l->drives[i];
		struct svc_drive *x = &s->live[i];

		snprintf(x->name, sizeof(x->name), "%s:%s", d->agent, d->path);
		x->measured = d->measured;
		x->iops = d->iops;
		x->mbps = d->bytes_per_s / 1e6;
		x->p99_us = d->lat_p99_s * 1e6;
		x->temp_c = d->temp_c;
		x->io_errors = d->io_errors;
	}
	if (s->metrics)
		metrics_feed(s, l);
}

/* Every Hello, idle or during a run: the registry; agents no run needs are welcomed. */
static void on_hello(void *arg, const struct rb_peer *peer, const struct rb_msg_hello *h,
		     uint32_t major, uint32_t minor)
{
	struct service *s = arg;
	struct reg *r = reg_find(s, h->name, true);

	if (!r)
		return;
	if (!r->last_ns) {
		rb_info("agent '%s' registered from host %s with %zu target(s)", h->name,
			h->hostname, h->ntargets);
		s->metrics_dirty = true;
	}
	r->peer = *peer;
	r->last_ns = rb_wall_ns();
	snprintf(r->host, sizeof(r->host), "%s", h->hostname);
	snprintf(r->version, sizeof(r->version), "%s", h->rb_version);
	snprintf(r->proto, sizeof(r->proto), "%u.%u", major, minor);
	r->ntargets = h->ntargets;
	if (!svc_in_run(s, h->name)) {
		struct rb_msg w;

		rb_msg_init(&w, RB_MSG_WELCOME);
		rb_tx_send(s->router, peer, &w, true);
	}
}

/* Keeps e (a Hello whose agent is registered) as that agent's last; false: not kept. */
static bool keep_hello(struct service *s, struct rb_msg *e)
{
	struct reg *r = reg_find(s, e->hello.name, false);

	if (!r)
		return false;
	rb_msg_free(r->hello);
	r->hello = e;
	return true;
}

/* An agent's message while no run goes on: its liveness, or a Hello. */
static void idle_message(struct service *s)
{
	struct rb_peer peer;
	struct rb_msg *e = NULL;
	char err[512];
	int r = rb_tx_recv(s->router, 0, &peer, &e, err, sizeof(err));

	if (r == -EAGAIN || r == -EINTR)
		return;
	if (r) {
		rb_err("bad message from '%.*s': %s", (int)peer.rid_len, (const char *)peer.rid,
		       err);
		if (r == -EPROTONOSUPPORT)
			rb_tx_send_error(s->router, &peer, -r, err);
		return;
	}
	if (e->kind == RB_MSG_HELLO) {
		if (s->zap && strcmp(peer.user_id, e->hello.name))
			rb_warn("refused: the key of agent '%s' claims to be agent '%s'",
				peer.user_id, e->hello.name);
		else {
			on_hello(s, &peer, &e->hello, e->major, e->minor);
			if (keep_hello(s, e))
				e = NULL;
		}
	} else {
		for (size_t i = 0; i < s->nagents; i++)
			if (s->agents[i].peer.rid_len == peer.rid_len &&
			    !memcmp(s->agents[i].peer.rid, peer.rid, peer.rid_len))
				s->agents[i].last_ns = rb_wall_ns();
	}
	rb_msg_free(e);
}

static void control_request(struct service *s, void *sock, bool idle_now, char **pending);

/* Between a run's messages: the control socket and the admin endpoint (status, agents,
 * abort; no second run). */
static void tick(void *arg)
{
	struct service *s = arg;
	char *pending = NULL;

	control_request(s, s->control, false, &pending);
	if (s->admin)
		control_request(s, s->admin, false, &pending);
	free(pending);
	/*
	 * The queue changed, an agent registered: the run's loop renders the page next. Only
	 * a page to render asks: without one nothing clears metrics_dirty, and every turn of
	 * the loop would hand over the whole fleet's figures (a fleet's ingest fell to 2%).
	 */
	if (s->metrics && s->metrics_dirty && rb_wall_ns() - s->metrics_at >= 1000000000LL)
		s->state.live_due = true;
}

/*
 * The campaign a run or resume request carries (a resume's from its journal, described
 * in m, its results file in path); NULL after the error was replied.
 */
static struct rb_campaign *submitted(struct service *s, const char *req, bool resume,
				     struct rb_journal_meta *m, char *path, size_t pathlen)
{
	char file[4096], err[600];
	const char *text = strstr(req, "\n\n");
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	char *diag = NULL;
	size_t dlen = 0;

	if (resume) {
		char jp[4200];

		if (!rb_control_field(req, "path", path, pathlen)) {
			svc_reply(s, "error\nresume: no results path\n");
			return NULL;
		}
		snprintf(jp, sizeof(jp), "%s.journal", path);
		if (rb_journal_walk(jp, 0, m, NULL, NULL, NULL, err, sizeof(err)) < 0) {
			svc_reply(s, "error\n%s\n", err);
			return NULL;
		}
		snprintf(file, sizeof(file), "%s", m->file);
		text = m->campaign;
	} else {
		if (!text || !rb_control_field(req, "file", file, sizeof(file))) {
			svc_reply(s, "error\nrun: no campaign\n");
			return NULL;
		}
		text += 2;
	}
	rb_diags_init(&d);
	if (rb_campaign_load(file, text, strlen(text), &c, &d)) {
		FILE *f = open_memstream(&diag, &dlen);

		if (f) {
			rb_diags_print(&d, f);
			fclose(f);
		}
		svc_reply(s, "error\n%s", diag ? diag : "the campaign does not load\n");
		free(diag);
		c = NULL;
	}
	rb_diags_release(&d);
	return c ? svc_fleet_cut(s, c, req, resume ? m->shard : NULL) : NULL;
}

/* A new run's id: its start (UTC) and a count, so two in one second differ. */
static void new_id(struct service *s, char *id, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(id, len, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(id + strlen(id), len - strlen(id), "-%u", ++s->seq);
}

/* The run's log file: a new one (never one planted, or a link), or a queued run's own. */
static int open_log(const char *log, bool queued)
{
	return open(log, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (queued ? O_APPEND : O_CREAT | O_EXCL),
		    0600);
}

/*
 * stderr into fd, stdout into out (both closed), or back as saved: the run's log and
 * what an in-process run prints on stdout (its summary), which the client prints on its
 * own stdout. out < 0: stdout into the log too.
 */
static void redirect(int fd, int out, int saved[2])
{
	fflush(stdout);
	fflush(stderr);
	saved[0] = dup(1);
	saved[1] = dup(2);
	dup2(out >= 0 ? out : fd, 1);
	dup2(fd, 2);
	close(fd);
	if (out >= 0)
		close(out);
}

/* The run's stdout file beside its log ("run-ID.out"). */
static void out_path(char *out, size_t len, const char *log)
{
	size_t n = strlen(log);

	snprintf(out, len, "%.*s.out", (int)(n > 4 && !strcmp(log + n - 4, ".log") ? n - 4 : n),
		 log);
}

static int open_out(const char *log)
{
	char out[4200];

	out_path(out, sizeof(out), log);
	return open(out, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_CREAT | O_TRUNC, 0600);
}

static void restore(int saved[2])
{
	fflush(stdout);
	fflush(stderr);
	dup2(saved[0], 1);
	dup2(saved[1], 2);
	close(saved[0]);
	close(saved[1]);
}

/* src into dst (len bytes, cut), where both may be fields of the service. */
static void put(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memmove(dst, src, n);
	dst[n] = '\0';
}

/* A run ended (req: its request, which may name its fleet id), for `status ID`. */
static void record_done(struct service *s, const char *req, const char *id, const char *campaign,
			const char *results, int rc)
{
	struct done_run *dr = &s->done[s->ndone++ % 16];

	memset(dr, 0, sizeof(*dr));
	if (!rb_control_field(req, "fleet", dr->fleet, sizeof(dr->fleet)))
		dr->fleet[0] = '\0';
	put(dr->id, sizeof(dr->id), id);
	put(dr->campaign, sizeof(dr->campaign), campaign);
	put(dr->results, sizeof(dr->results), results);
	dr->rc = rc;
}

/* The run's campaign made the service's: its folders, endpoint, keys. */
static void campaign_of_service(struct service *s, struct rb_campaign *c, const char *req)
{
	char results[4096];
	/* the run's own folder, else the service's (serve --results), else the client's */
	const char *rdir = rb_control_field(req, "results", results, sizeof(results));

	if (!rdir)
		rdir = s->results_dir;
	if (!rdir)
		rdir = rb_control_field(req, "default_results", results, sizeof(results));
	if (rdir) {
		free(c->results_dir);
		c->results_dir = strdup(rdir);
	}
	/* the run is the service's: its endpoint and keys (a resume without the service
	 * then listens where the agents connect, with the keys they trust) */
	free(c->listen);
	c->listen = strdup(s->listen);
	free(c->key);
	c->key = s->key ? strdup(s->key) : NULL;
	free(c->agent_keys);
	c->agent_keys = s->agent_keys ? strdup(s->agent_keys) : NULL;
}

static int coord_of_service(struct service *s, struct rb_campaign *c, const char *req, bool resume,
			    const char *path, struct rb_journal_meta *m)
{
	char events[4096];
	int rc;

	if (!rb_control_field(req, "events", events, sizeof(events)))
		events[0] = '\0';
	s->running = true;
	s->c = c;
	memset(&s->state, 0, sizeof(s->state));
	/* a SIGTERM that came while the run was loading stops it at once */
	abort_run = rb_stop_flag;
	/* the agents heard from lately start the run at once, as they last said hello */
	struct rb_known_agent *known = calloc(s->nagents + 1, sizeof(*known));
	size_t nknown = 0;
	int64_t now_ns = rb_wall_ns();

	for (size_t i = 0; known && i < s->nagents; i++)
		if (s->agents[i].hello && now_ns - s->agents[i].last_ns < 5000000000LL)
			known[nknown++] = (struct rb_known_agent){ .peer = s->agents[i].peer,
								   .hello = s->agents[i].hello };
	struct rb_coord_opts co = { .router = s->router,
				    .zap = s->zap,
				    .results_db = c->results_db ? c->results_db : s->results_db,
				    .stop = &abort_run,
				    .events = events[0] ? events : NULL,
				    .results_path = resume ? path : NULL,
				    .hello_hook = on_hello,
				    .tick = tick,
				    .hook_arg = s,
				    .clock = &s->clock,
				    .start_wall_ns = resume ? 0 : svc_fleet_start(req),
				    .state = &s->state,
				    .live = on_live,
				    .known = known,
				    .nknown = nknown };

	if (!strncmp(req, "resolve\n", 8)) {
		char lock[4096];

		/* plan --resolve [--lock FILE]: the pre-flight alone, on the agents it has */
		rc = rb_coord_resolve(
			c, &co, rb_control_field(req, "lock", lock, sizeof(lock)) ? lock : NULL);
	} else {
		rc = resume ? rb_coord_resume(c, &co, m) : rb_coord_run(c, &co);
	}
	free(known);
	s->running = false;
	s->c = NULL;
	s->nlive = 0; /* the next run's drives are its own */
	s->samples += s->run_samples;
	s->run_samples = 0;
	s->metrics_dirty = true;
	if (!rb_stop_flag)
		abort_run = 0;
	return rc;
}

/* The run's file into its folder's index of drives (rackbench history, drives). */
static void index_run(const char *results)
{
	char dir[4096], err[600];
	struct rb_index *ix;

	if (!results[0] || access(results, R_OK))
		return;
	snprintf(dir, sizeof(dir), "%s", results);
	ix = rb_index_open(dirname(dir), err, sizeof(err));
	if (!ix || rb_index_add(ix, results, err, sizeof(err)))
		rb_warn("%s (rackbench history builds it again from the files)", err);
	rb_index_close(ix);
}

/*
 * A run, resume or resolve (plan --resolve) request, run now. A queued run (q) was answered when it was queued:
 * its log exists, and everything said of it goes there.
 */
static void run_now(struct service *s, char *req, const struct queued *q)
{
	char path[4096], log[4200], out[4200];
	bool resume = !strncmp(req, "resume\n", 7);
	struct rb_journal_meta m = { .campaign = NULL };
	struct rb_campaign *c;
	int rc, fd, saved[2], owed;

	if (q) {
		put(s->id, sizeof(s->id), q->id);
		snprintf(log, sizeof(log), "%s", q->log);
		fd = open_log(log, true);
		if (fd < 0) {
			rb_err("run %s: cannot open its log '%s': %s", s->id, log, strerror(errno));
			record_done(s, req, s->id, q->campaign, "", RB_EXIT_FAILED);
			return;
		}
		redirect(fd, open_out(log), saved);
	}
	/* only what this request's loading says: requests during the run get their replies */
	s->answered = q != NULL;
	c = submitted(s, req, resume, &m, path, sizeof(path));
	s->answered = false;
	if (!c) {
		if (q) {
			restore(saved);
			record_done(s, req, s->id, q->campaign, "", RB_EXIT_USAGE);
		}
		rb_journal_meta_free(&m);
		return;
	}
	campaign_of_service(s, c, req);
	/* a shard of a fleet's run: `status` and `abort` find it by the fleet's id too */
	if (!rb_control_field(req, "fleet", s->fleet, sizeof(s->fleet)))
		s->fleet[0] = '\0';
	if (!q) {
		new_id(s, s->id, sizeof(s->id));
		snprintf(log, sizeof(log), "%s/run-%s.log", s->log_dir, s->id);
		fd = open_log(log, false);
		if (fd < 0) {
			svc_reply(s, "error\ncannot create the run's log '%s': %s\n", log,
				  strerror(errno));
			rb_campaign_free(c);
			rb_journal_meta_free(&m);
			return;
		}
		out_path(out, sizeof(out), log);
		svc_reply(s, "ok\nid=%s\nlog=%s\nout=%s\n", s->id, log, out);
	}
	rb_info("run %s: campaign '%s'%s; its output goes to %s", s->id, c->name,
		resume ? " (resumed)" : "", log);
	/* the run's output (log lines, progress, summary) into its log */
	if (!q)
		redirect(fd, open_out(log), saved);
	rc = coord_of_service(s, c, req, resume, path, &m);
	owed = svc_db_export_run(s, c, s->state.results);
	svc_verdicts_note(s, c->name, s->id, s->state.results);
	restore(saved);
	record_done(s, req, s->id, c->name, s->state.results, rc);
	svc_fleet_done(s, &s->done[(s->ndone - 1) % 16]);
	index_run(s->state.results);
	rb_info("run %s ended: exit %d, results %s", s->id, rc,
		s->state.results[0] ? s->state.results : "(none)");
	if (!owed)
		svc_db_catch_up(s);
	rb_campaign_free(c);
	rb_journal_meta_free(&m);
}

/*
 * A run request that waits its turn: its campaign checked now (an error is the
 * client's at once), an id and a log of its own, answered with its place in the queue.
 */
static void enqueue(struct service *s, char *req)
{
	char path[4096], ahead[64], id[48], out[4200];
	struct rb_journal_meta m = { .campaign = NULL };
	struct rb_campaign *c;
	struct queued *q;
	int fd;

	if (s->nqueue == QUEUE_MAX) {
		svc_reply(s, "error\nthe queue is full (%d runs wait): try again later\n",
			  QUEUE_MAX);
		free(req);
		return;
	}
	c = submitted(s, req, !strncmp(req, "resume\n", 7), &m, path, sizeof(path));
	rb_journal_meta_free(&m);
	if (!c) {
		free(req);
		return;
	}
	q = &s->queue[s->nqueue];
	snprintf(q->campaign, sizeof(q->campaign), "%s", c->name);
	rb_campaign_free(c);
	new_id(s, id, sizeof(id));
	put(q->id, sizeof(q->id), id);
	snprintf(q->log, sizeof(q->log), "%s/run-%s.log", s->log_dir, id);
	fd = open_log(q->log, false);
	if (fd < 0) {
		svc_reply(s, "error\ncannot create the run's log '%s': %s\n", q->log,
			  strerror(errno));
		free(req);
		return;
	}
	snprintf(ahead, sizeof(ahead), "%s", s->nqueue ? s->queue[s->nqueue - 1].id : s->id);
	dprintf(fd, "rackbench: run %s (campaign '%s') queued behind run %s, %u ahead of it\n",
		q->id, q->campaign, ahead, s->nqueue + (s->running ? 1 : 0));
	close(fd);
	q->req = req;
	s->nqueue++;
	rb_info("run %s: campaign '%s' queued (%u waiting)", q->id, q->campaign, s->nqueue);
	out_path(out, sizeof(out), q->log);
	svc_reply(s, "ok\nid=%s\nlog=%s\nout=%s\nqueued=%u\n", q->id, q->log, out, s->nqueue);
}

/* Takes queued run id out: 0, or -ENOENT. Its log and status say so. */
static int dequeue(struct service *s, const char *id)
{
	for (unsigned i = 0; i < s->nqueue; i++) {
		struct queued *q = &s->queue[i];
		int fd;

		if (strcmp(q->id, id))
			continue;
		fd = open_log(q->log, true);
		if (fd >= 0) {
			dprintf(fd,
				"rackbench: run %s taken out of the queue (abort); it did not run\n",
				q->id);
			close(fd);
		}
		record_done(s, q->req, q->id, q->campaign, "", RB_EXIT_FAILED);
		free(q->req);
		memmove(q, q + 1, (s->nqueue - i - 1) * sizeof(*q));
		s->nqueue--;
		return 0;
	}
	return -ENOENT;
}

/* The next queued run, when nothing runs: run now. */
static void run_queued(struct service *s)
{
	struct queued q = s->queue[0];

	memmove(&s->queue[0], &s->queue[1], (s->nqueue - 1) * sizeof(s->queue[0]));
	s->nqueue--;
	run_now(s, q.req, &q);
	free(q.req);
}

/*
 * One request on sock (the control socket or the admin endpoint), if there is one; the
 * reply goes back on it. Idle, a run request is handed back in *pending (answered and run
 * by the caller); during a run it is refused.
 */
static void control_request(struct service *s, void *sock, bool idle_now, char **pending)
{
	char *req = NULL, id[RB_RUN_ID_MAX], why[256], who[64];
	size_t len;
	int r = rb_tx_text_recv_from(sock, 0, &req, &len, who, sizeof(who));
	int64_t t1 = rb_clock_wall(&s->clock);

	if (r == -EAGAIN || r == -EINTR)
		return;
	s->reply_to = sock;
	if (r) {
		svc_reply(s, "error\nbad request (one frame of text, at most 8 MiB)\n");
		return;
	}
	s->metrics_dirty = true; /* the queue, a run's state */
	if (rb_control_fields_fit(req, why, sizeof(why))) {
		svc_reply(s, "error\n%s\n", why);
	} else if (sock == s->admin && svc_admin_refuses(s, who, req, why, sizeof(why))) {
		svc_reply(s, "error\n%s\n", why);
	} else if (!strncmp(req, "time\n", 5) || !strcmp(req, "time")) {
		svc_fleet_time(s, t1);
	} else if (!strncmp(req, "agents\n", 7) || !strcmp(req, "agents")) {
		char dr[8];

		svc_reply_agents(s, rb_control_field(req, "drives", dr, sizeof(dr)) &&
					    !strcmp(dr, "1"));
	} else if (svc_fleet_unknown(s, req, id, sizeof(id))) {
		svc_reply(s, "error\nno run of fleet '%s' here (the service keeps its last 16)\n",
			  id);
	} else if (!strncmp(req, "status", 6) && (req[6] == '\n' || !req[6])) {
		char dr[16];
		/* drives=K: the first K drives' lines only (a follower's screenful) */
		const char *k = rb_control_field(req, "drives", dr, sizeof(dr));

		svc_reply_status(s, svc_request_id(s, req, id, sizeof(id)),
				 k ? strtoul(k, NULL, 10) : SIZE_MAX);
	} else if (!strncmp(req, "abort", 5) && (req[5] == '\n' || !req[5])) {
		const char *which = svc_request_id(s, req, id, sizeof(id));

		if (s->running && (!which || !strcmp(which, s->id))) {
			abort_run = 1;
			rb_warn("run %s: abort requested over the %s", s->id,
				sock == s->admin ? "admin endpoint" : "control socket");
			svc_reply(s, "ok\nid=%s\n", s->id);
		} else if (which && !dequeue(s, which)) {
			rb_warn("run %s: taken out of the queue over the %s", which,
				sock == s->admin ? "admin endpoint" : "control socket");
			svc_reply(s, "ok\nid=%s\ndequeued=1\n", which);
		} else if (which) {
			svc_reply(s, "error\nno run '%s' is going on or waiting\n", which);
		} else {
			svc_reply(s, "error\nno run is going on\n");
		}
	} else if (!strncmp(req, "run\n", 4) || !strncmp(req, "resume\n", 7) ||
		   !strncmp(req, "resolve\n", 8)) {
		char q[8];
		bool queue = rb_control_field(req, "queue", q, sizeof(q)) && !strcmp(q, "1");

		if (idle_now && !s->nqueue) {
			*pending = req;
			return;
		}
		if (queue) {
			enqueue(s, req); /* it holds the request now */
			return;
		}
		svc_reply(s,
			  "error\nbusy: run %s (campaign '%s') is going on; one run at a time (run "
			  "--queue waits its turn)\n",
			  s->id, s->c ? s->c->name : "?");
	} else {
		svc_reply(
			s,
			"error\nunknown request '%.*s' (agents, status, abort, run, resume, resolve, time)\n",
			(int)strcspn(req, "\n"), req);
	}
	free(req);
}

/* The control socket's path and its private folder, no service on it: 0 or the exit code. */
static int serve_claim(const struct rb_serve_args *a, char *cpath, size_t clen, char *dir,
		       size_t dlen)
{
	char tmp[4096], err[600];

	rb_control_path(a->ctl, cpath, clen);
	snprintf(tmp, sizeof(tmp), "%s", cpath);
	snprintf(dir, dlen, "%s", dirname(tmp));
	if (mkdir(dir, 0700) && errno != EEXIST) {
		rb_err("cannot create '%s': %s", dir, strerror(errno));
		return RB_EXIT_FAILED;
	}
	/* made beforehand by someone else (or open to them): its socket and logs would be
	 * theirs to replace or redirect */
	bool strict = !(a->ctl && *a->ctl) &&
		      !(getenv("RACKBENCH_CONTROL") && *getenv("RACKBENCH_CONTROL"));

	if (rb_service_private_dir(dir, strict, err, sizeof(err))) {
		rb_err("refusing the service folder '%s': %s", dir, err);
		return RB_EXIT_FAILED;
	}
	if (rb_service_present(cpath)) {
		rb_err("a rackbench service already listens on %s", cpath);
		return RB_EXIT_FAILED;
	}
	unlink(cpath); /* a dead service's socket file */
	return 0;
}

/* Until SIGTERM or SIGINT: agents' messages, control requests, their runs. The exit code. */
static int serve_loop(struct service *s)
{
	int rc = RB_EXIT_OK;

	while (!rb_stop_flag) {
		void *socks[3] = { s->router, s->control, s->admin };
		unsigned char ready[3] = { 0 };
		int r;

		/* without its ZAP handler libzmq would accept any key: stop at once */
		if (s->zap && !rb_zap_alive(s->zap)) {
			rb_err("the ZAP authentication handler died: stopping, since libzmq would "
			       "now accept connections with any key");
			rc = RB_EXIT_FAILED;
			break;
		}
		r = rb_tx_poll_many(socks, s->admin ? 3 : 2, 200, ready);
		if (r < 0)
			continue;
		if (ready[0])
			idle_message(s);
		for (int i = 1; i < 3; i++) {
			char *pending = NULL;

			if (!ready[i])
				continue;
			control_request(s, socks[i], true, &pending);
			if (pending) {
				run_now(s, pending, NULL);
				free(pending);
			}
		}
		if (s->zap && !rb_zap_alive(s->zap))
			continue;
		if (s->nqueue && !rb_stop_flag)
			run_queued(s);
		/* no run: the fleet's verdicts when due; the page again soon after a change,
		 * else each second (agents' state) */
		svc_fleet_read(s);
		if (s->metrics &&
		    rb_wall_ns() - s->metrics_at >= (s->metrics_dirty ? 250 : 1000) * 1000000LL)
			metrics_feed(s, NULL);
	}
	/* each queued run's log says it never ran, for whoever submitted it */
	for (unsigned i = 0; i < s->nqueue; i++) {
		int fd = open_log(s->queue[i].log, true);

		if (fd >= 0) {
			dprintf(fd, "rackbench: error: run %s did not run: the service stopped\n",
				s->queue[i].id);
			close(fd);
		}
		free(s->queue[i].req);
	}
	if (s->nqueue)
		rb_warn("%u queued run(s) did not run: the service stopped", s->nqueue);
	rb_info("service stopping");
	return rc;
}

/*
 * A folder the service writes into for every run, checked before it serves: a missing or
 * unwritable one would fail each run later. create: it may be missing while its parent
 * is there (the run makes it). 0, or RB_EXIT_USAGE said.
 */
static int folder_ok(const char *flag, const char *dir, bool create)
{
	struct stat st;
	char parent[4096], *slash;

	if (!dir)
		return 0;
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			rb_err("%s '%s': not a folder", flag, dir);
			return RB_EXIT_USAGE;
		}
		if (access(dir, W_OK | X_OK)) {
			rb_err("%s '%s': cannot write into it: %s", flag, dir, strerror(errno));
			return RB_EXIT_USAGE;
		}
		return 0;
	}
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash > parent)
		*slash = '\0';
	else
		snprintf(parent, sizeof(parent), "%s", slash ? "/" : ".");
	if (!create || access(parent, W_OK | X_OK)) {
		rb_err("%s '%s': no such folder%s", flag, dir,
		       create ? " (nor one to make it in)" : " (make it first)");
		return RB_EXIT_USAGE;
	}
	return 0;
}

/* The admin endpoint's flags: both or neither, with the service's keys and results folder. */
static int admin_args_ok(const struct rb_serve_args *a)
{
	char err[600];

	if (!a->admin_listen && !a->admin_keys)
		return 0;
	if (!a->admin_listen || !a->admin_keys) {
		rb_err("--admin-listen and --admin-keys go together: the endpoint and its allow-list");
		return RB_EXIT_USAGE;
	}
	if (a->insecure) {
		rb_err("--admin-listen needs the service's keys (--key, --agent-keys), not "
		       "--insecure: admins are always authenticated");
		return RB_EXIT_USAGE;
	}
	if (!a->results_dir) {
		rb_err("--admin-listen needs --results DIR: runs submitted from other hosts go to "
		       "the service's results folder");
		return RB_EXIT_USAGE;
	}
	if (rb_endpoint_check(a->admin_listen, err, sizeof(err))) {
		rb_err("bad --admin-listen '%s': %s", a->admin_listen, err);
		return RB_EXIT_USAGE;
	}
	return 0;
}

int rb_serve(const struct rb_serve_args *args)
{
	struct rb_serve_args a = *args;
	struct service s = { .results_dir = NULL, .log_fd = -1 };
	char cpath[4096], dir[4096], bound[256], err[1200];
	struct rb_keypair server;
	int rc;

	if (!a.listen)
		a.listen = "tcp://0.0.0.0:7470";
	if (a.metrics && rb_metrics_addr_check(a.metrics, err, sizeof(err))) {
		rb_err("bad --metrics '%s': %s", a.metrics, err);
		return RB_EXIT_USAGE;
	}
	if (!a.insecure && (!a.key || !a.agent_keys)) {
		rb_err("serve needs --key (its key pair) and --agent-keys (the allow-list), or "
		       "--insecure");
		return RB_EXIT_USAGE;
	}
	if ((rc = admin_args_ok(&a)))
		return rc;
	/* the URL read as libpq will (a password in it is the service's to keep) */
	if (a.results_db && rb_resdb_url_check(a.results_db, err, sizeof(err)) == -EINVAL) {
		rb_err("bad --results-db: %s", err);
		return RB_EXIT_USAGE;
	}
	if ((rc = folder_ok("--log-dir", a.log_dir, false)) ||
	    (rc = folder_ok("--results", a.results_dir, true)))
		return rc;
	rc = serve_claim(&a, cpath, sizeof(cpath), dir, sizeof(dir));
	if (rc)
		return rc;
	s.results_dir = a.results_dir;
	s.results_db = a.results_db;
	s.log_dir = a.log_dir ? a.log_dir : dir;
	/* the service's own log: what admins ask goes there, not into a run's */
	s.log_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	svc_fleet_clock(&s);
	s.listen = a.listen;
	s.key = a.insecure ? NULL : a.key;
	s.agent_keys = a.insecure ? NULL : a.agent_keys;
	if (!a.insecure) {
		if (rb_keys_read(a.key, true, &server, err, sizeof(err))) {
			rb_err("%s", err);
			return RB_EXIT_USAGE;
		}
		/* the handler first: bound before the socket, or libzmq accepts any key */
		s.zap = rb_zap_start_admin(a.agent_keys, a.admin_keys, s.log_fd, err, sizeof(err));
		if (!s.zap) {
			rb_err("%s", err);
			return RB_EXIT_USAGE;
		}
	} else {
		rb_warn("serving without keys (--insecure): agents are not authenticated and "
			"traffic is not encrypted");
	}
	rc = RB_EXIT_FAILED;
	s.router = rb_tx_router_bind_keyed(a.listen, a.insecure ? NULL : &server, bound,
					   sizeof(bound));
	if (!s.router) {
		rb_err("cannot listen on '%s': %s", a.listen, strerror(errno));
		goto out;
	}
	s.control = rb_tx_control_bind(cpath);
	if (!s.control) {
		rb_err("cannot create the control socket '%s': %s", cpath, strerror(errno));
		goto out;
	}
	if (a.admin_listen && svc_admin_bind(&s, a.admin_listen, &server))
		goto out;
	if (a.metrics) {
		s.metrics = rb_metrics_start(a.metrics, err, sizeof(err));
		if (!s.metrics) {
			rb_err("%s", err);
			goto out;
		}
		metrics_feed(&s, NULL);
		rb_info("metrics for Prometheus at http://%s/metrics",
			rb_metrics_address(s.metrics));
	}
	rb_stop_signals(&abort_run, false, rb_zap_reload);
	rb_info("serving agents on %s; control socket %s", bound, cpath);
	svc_db_catch_up(&s);
	rc = serve_loop(&s);
out:
	if (s.control) {
		rb_tx_close(s.control);
		unlink(cpath);
	}
	if (s.router)
		rb_tx_close(s.router);
	rb_tx_close(s.admin);
	rb_zap_stop(s.zap);
	if (s.log_fd >= 0)
		close(s.log_fd);
	rb_metrics_free(s.metrics);
	for (size_t i = 0; i < s.nagents; i++)
		rb_msg_free(s.agents[i].hello);
	free(s.agents);
	free(s.live);
	svc_db_release(&s);
	svc_verdicts_release(&s);
	rb_tx_context_term();
	return rc;
}
