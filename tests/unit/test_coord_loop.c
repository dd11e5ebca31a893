// SPDX-License-Identifier: MIT
/*
 * The coordinator's loop driven in milliseconds: a real rb_coord_run on a ROUTER socket
 * over inproc://, on the fake clock, against one scripted agent (a DEALER socket in this
 * thread speaking the real protocol). The script advances the clock where a real run
 * would wait: silence that makes an agent lost, the 20 ms group commit, the 1.5 s after
 * which a Hello says the agent never had what was sent. What the run stored is read
 * back from its HDF5 file.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "campaign.h"
#include "clock.h"
#include "coord.h"
#include "diag.h"
#include "exitcode.h"
#include "journal.h"
#include "log.h"
#include "results.h"
#include "sha256.h"
#include "transport.h"
#include "wire.h"

#define DRIVE "/dev/harness0"

/* One run of the coordinator in its own thread. */
struct run {
	char dir[256], endpoint[64], path[4096];
	struct rb_campaign *c;
	struct rb_clock_fake fake;
	struct rb_clock clock;
	void *router;
	volatile sig_atomic_t stop;
	pthread_t thread;
	bool running;
	int rc;
	/* the scripted agent */
	void *sock;
	uint64_t epoch, seq, acked;
	uint32_t point; /* the point its messages are of */
	bool probes;	/* it answers clock probes: from its Hello until it has a point */
	char run_id[96];
	struct rb_journal_meta resume; /* when set (a run id): resume the run in path */
	bool resolve;		       /* plan --resolve (--lock when lock is set) */
	char lock[300];
	int saved_out; /* stdout while it goes to out_path; -1 none */
	char out_path[300];
	/* what the run's live hook (rb_coord_opts.live) last said, under its lock */
	pthread_mutex_t live_lock;
	unsigned lives;
	struct rb_live_drive drive;
	struct rb_live_agent agent;
	uint64_t samples;
};

/* The service's metrics hook, on the run's thread: what it said, kept. */
static void on_live(void *arg, const struct rb_coord_live *l)
{
	struct run *r = arg;

	pthread_mutex_lock(&r->live_lock);
	r->lives++;
	if (l->ndrives)
		r->drive = l->drives[0];
	if (l->nagents)
		r->agent = l->agents[0];
	r->samples = l->samples;
	pthread_mutex_unlock(&r->live_lock);
}

static void *coordinator(void *arg)
{
	struct run *r = arg;
	struct rb_coord_opts o = { .router = r->router,
				   .stop = &r->stop,
				   .clock = &r->clock,
				   .ret_path = r->path,
				   .ret_path_len = sizeof(r->path),
				   .live = on_live,
				   .hook_arg = r };

	if (r->resolve) {
		r->rc = rb_coord_resolve(r->c, &o, r->lock[0] ? r->lock : NULL);
	} else if (r->resume.run[0]) {
		o.results_path = r->path;
		o.ret_path = NULL;
		r->rc = rb_coord_resume(r->c, &o, &r->resume);
	} else {
		r->rc = rb_coord_run(r->c, &o);
	}
	return NULL;
}

static void coordinator_start(struct run *r);

#define PHASE "  - name: p\n    workload: {rw: randread, bs: 4k, runtime: 3s, interval: 1s}\n"

/* A campaign of one agent with one drive and one 3-interval point (or the phase given),
 * running. */
static void run_start_phase(struct run *r, const char *extra, const char *phase)
{
	char text[2048];
	struct rb_diags d;

	snprintf(r->dir, sizeof(r->dir), "/tmp/rb-harness.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	if (r->resolve)
		snprintf(r->lock, sizeof(r->lock), "%s/harness.lock", r->dir);
	snprintf(text, sizeof(text),
		 "name: harness\ninsecure: true\nwait: 30s\nresults: %s\n%s"
		 "targets:\n  - agent: h1\n    drives: [" DRIVE "]\n"
		 "phases:\n%s",
		 r->dir, extra, phase);
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("<harness>", text, strlen(text), &r->c, &d), 0);
	rb_diags_release(&d);
	r->fake.now_ns = 1000000000000LL;
	r->clock = rb_clock_fake(&r->fake);
	r->epoch = 0x1234;
	coordinator_start(r);
}

/* The coordinator on a new endpoint, the agent's socket connected to it. */
static void coordinator_start(struct run *r)
{
	static unsigned n;

	snprintf(r->endpoint, sizeof(r->endpoint), "inproc://harness-%u-%d", n++, (int)getpid());
	r->router = rb_tx_router_bind(r->endpoint, NULL, 0);
	assert_non_null(r->router);
	assert_int_equal(pthread_create(&r->thread, NULL, coordinator, r), 0);
	r->running = true;
	r->sock = rb_tx_dealer_connect(r->endpoint, "h1");
	assert_non_null(r->sock);
}

static void run_start(struct run *r, const char *extra)
{
	run_start_phase(r, extra, PHASE);
}

/* Waits for the run's end; returns its exit code. */
static int run_join(struct run *r)
{
	pthread_join(r->thread, NULL);
	r->running = false;
	return r->rc;
}

static int setup(void **st)
{
	struct run *r = calloc(1, sizeof(struct run));

	if (r) {
		r->saved_out = -1;
		pthread_mutex_init(&r->live_lock, NULL);
	}
	*st = r;
	return r ? 0 : -1;
}

/* What the run prints on stdout goes to a file until out_end(), which returns it. */
static void out_begin(struct run *r)
{
	int fd;

	snprintf(r->out_path, sizeof(r->out_path), "%s/stdout", r->dir);
	fflush(stdout);
	fd = open(r->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	r->saved_out = dup(1);
	dup2(fd, 1);
	close(fd);
}

static char *out_end(struct run *r)
{
	char *text = NULL;
	size_t cap = 0;
	FILE *f;

	if (r->saved_out < 0)
		return NULL;
	fflush(stdout);
	dup2(r->saved_out, 1);
	close(r->saved_out);
	r->saved_out = -1;
	f = fopen(r->out_path, "r");
	if (f) {
		if (getdelim(&text, &cap, '\0', f) < 0) {
			free(text);
			text = strdup("");
		}
		fclose(f);
	}
	return text;
}

/* After a failed check too: the run is stopped and waited for before its memory goes. */
static int teardown(void **st)
{
	struct run *r = *st;
	char cmd[600];

	free(out_end(r));
	if (r->running) {
		/* its waits end on the fake clock: move it on until the run has ended */
		r->stop = 1;
		while (pthread_tryjoin_np(r->thread, NULL)) {
			rb_clock_fake_advance(&r->fake, 10000000000LL);
			usleep(50000);
		}
		r->running = false;
	}
	rb_tx_close(r->sock);
	rb_tx_close(r->router);
	rb_campaign_free(r->c);
	rb_journal_meta_free(&r->resume);
	if (r->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", r->dir);
	}
	pthread_mutex_destroy(&r->live_lock);
	free(r);
	return 0;
}

static void hello(struct run *r, uint64_t spooled)
{
	struct rb_identity ti = { .path = DRIVE,
				  .kind = "block",
				  .model = "HARNESS",
				  .serial = "H-1",
				  .firmware = "1",
				  .size_bytes = 1ULL << 30,
				  .logical_block_size = 4096 };
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_HELLO);
	m.hello = (struct rb_msg_hello){ .name = "h1",
					 .hostname = "harness",
					 .kernel = "Linux",
					 .rb_version = "0",
					 .epoch = r->epoch,
					 .run = r->run_id,
					 .spooled = spooled,
					 .targets = &ti,
					 .ntargets = 1 };
	assert_int_equal(rb_tx_send(r->sock, NULL, &m, false), 0);
	r->probes = true;
}

/* A clock probe answered as an agent does, its clock the coordinator's (offset 0). */
static void answer_probe(struct run *r, const struct rb_msg *probe)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_TIME_REPLY);
	m.time.t0 = probe->time.t0;
	m.time.t1 = m.time.t2 = rb_clock_now(&r->clock);
	assert_int_equal(rb_tx_send(r->sock, NULL, &m, false), 0);
}

/*
 * The next message of the given kind within ms of real time, or NULL; clock probes are
 * answered (while r->probes), Acks are noted
 * (r->acked) and other kinds skipped on the way.
 */
static struct rb_msg *expect(struct run *r, enum rb_msg_kind want, int ms)
{
	char err[256];

	for (int waited = 0; waited < ms; waited += 20) {
		struct rb_msg *e = NULL;

		if (rb_tx_recv(r->sock, 20, NULL, &e, err, sizeof(err)))
			continue;
		if (e->kind == RB_MSG_ACK && e->ack.epoch == r->epoch && e->ack.seq > r->acked)
			r->acked = e->ack.seq;
		if (e->kind == RB_MSG_WELCOME)
			snprintf(r->run_id, sizeof(r->run_id), "%s", e->welcome.run);
		if (e->kind == RB_MSG_TIME_PROBE && r->probes)
			answer_probe(r, e);
		if (e->kind == want)
			return e;
		rb_msg_free(e);
	}
	return NULL;
}

static void expect_free(struct run *r, enum rb_msg_kind want, int ms)
{
	struct rb_msg *e = expect(r, want, ms);

	if (!e)
		fail_msg("no message of kind %d within %d ms", (int)want, ms);
	rb_msg_free(e);
}

/*
 * Everything sent so far taken: 20 ms on the clock (the group commit) until the Ack of
 * the last message comes (a message read just after a commit waits for the next one).
 * Returns how many 20 ms steps it took.
 */
static int sync_acked(struct run *r)
{
	int steps = 0;

	while (r->acked < r->seq) {
		struct rb_msg *e;

		assert_true(++steps < 50);
		rb_clock_fake_advance(&r->fake, 20000000LL);
		e = expect(r, RB_MSG_ACK, 200);
		rb_msg_free(e);
	}
	return steps;
}

/* A data message numbered seq (0: the next). */
static void send_numbered(struct run *r, struct rb_msg *e, uint64_t seq)
{
	e->epoch = r->epoch;
	e->seq = seq ? seq : r->seq + 1;
	if (e->seq > r->seq)
		r->seq = e->seq;
	assert_int_equal(rb_tx_send(r->sock, NULL, e, false), 0);
}

static void preflight_reply(struct run *r)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_PREFLIGHT_REPLY);
	send_numbered(r, &m, 0);
}

/* One interval's sample of the drive: ios IOs of 100 us. */
/* An instant on the agent's clock */
#define T_AGENT 1700000000000000000LL

/* A sample of the drive whose interval ended at t_ns on the agent's clock (0: unknown). */
static void sample_at(struct run *r, uint32_t attempt, uint32_t interval, uint64_t ios,
		      uint64_t seq, int64_t t_ns)
{
	uint32_t idx = 2000;
	uint64_t cnt = ios;
	struct rb_msg_sample s = { .point = r->point,
				   .attempt = attempt,
				   .drive = DRIVE,
				   .interval = interval,
				   .t_ns = t_ns,
				   .ios = ios,
				   .bytes = ios * 4096,
				   .lat_sum_ns = ios * 100000,
				   .hist = { &idx, &cnt, 1 } };
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_SAMPLES);
	m.samples.v = &s;
	m.samples.n = 1;
	send_numbered(r, &m, seq);
}

static void sample(struct run *r, uint32_t attempt, uint32_t interval, uint64_t ios, uint64_t seq)
{
	sample_at(r, attempt, interval, ios, seq, 0);
}

/* The drive's result and the PointDone. */
static void finish_point_as(struct run *r, uint32_t attempt, uint64_t ios, const char *status)
{
	uint32_t idx = 2000;
	uint64_t cnt = ios;
	struct rb_dir_result dr = { .ios = ios,
				    .bytes = ios * 4096,
				    .lat_sum_ns = ios * 100000,
				    .hist = { &idx, &cnt, 1 } };
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_RESULT);
	m.result = (struct rb_msg_result){ .point = r->point,
					   .attempt = attempt,
					   .drive = DRIVE,
					   .core.elapsed_ns = 3000000000ULL,
					   .dirs = &dr,
					   .ndirs = 1,
					   .status = rb_status_of(status),
					   .message = "" };
	send_numbered(r, &m, 0);
	rb_msg_init(&m, RB_MSG_POINT_DONE);
	m.point_done.point = r->point;
	m.point_done.attempt = attempt;
	send_numbered(r, &m, 0);
}

static void finish_point(struct run *r, uint32_t attempt, uint64_t ios)
{
	finish_point_as(r, attempt, ios, "ok");
}

/* Hello, Welcome, the pre-flight answered, the point's Assign taken (its attempt). */
static uint32_t connect_and_assign(struct run *r)
{
	struct rb_msg *e;
	uint32_t attempt;

	hello(r, 0);
	expect_free(r, RB_MSG_WELCOME, 5000);
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	preflight_reply(r);
	e = expect(r, RB_MSG_ASSIGN, 5000);
	assert_non_null(e);
	r->probes = false; /* silent from here, unless it sends */
	assert_int_equal(e->assign.point, r->point);
	assert_int_equal(e->assign.ndrives, 1);
	assert_string_equal(e->assign.drives[0], DRIVE);
	attempt = e->assign.attempt;
	rb_msg_free(e);
	return attempt;
}

/* The rows of the run's file. */
static void read_rows(struct run *r, struct rb_row_result **res, size_t *nres,
		      struct rb_row_sample **smp, size_t *nsmp)
{
	char err[256];
	struct rb_results_in *in = rb_results_open(r->path, err, sizeof(err));

	if (!in)
		fail_msg("%s", err);
	assert_int_equal(rb_results_read_results(in, res, nres), 0);
	assert_int_equal(rb_results_read_samples(in, smp, nsmp), 0);
	rb_results_in_close(in);
}

/* An agent silent for more than 5 s during a point is lost; 'continue' drops it. */
static void test_silent_agent_lost_after_5s(void **st)
{
	struct run *r = *st;
	struct rb_row_result *res;
	struct rb_row_sample *smp;
	size_t nres, nsmp;

	run_start(r, "on_agent_lost: continue\n");
	connect_and_assign(r);
	sample(r, 0, 0, 1000, 0);
	assert_true(sync_acked(r) <= 4); /* within the margins below */
	/* 4.9 s of silence: still running (no Stop comes) */
	rb_clock_fake_advance(&r->fake, 4900000000LL);
	assert_null(expect(r, RB_MSG_STOP, 400));
	/* past 5 s: lost, dropped; the point ends without it and the run with it */
	rb_clock_fake_advance(&r->fake, 200000000LL);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_PARTIAL);
	read_rows(r, &res, &nres, &smp, &nsmp);
	assert_int_equal(nres, 1);
	assert_string_equal(res[0].status, "lost");
	assert_int_equal(nsmp, 1); /* what came before the silence is kept */
	assert_int_equal(smp[0].ios, 1000);
	free(res);
	free(smp);
}

/* How many times the live hook was called. */
static unsigned lives_of(struct run *r)
{
	unsigned n;

	pthread_mutex_lock(&r->live_lock);
	n = r->lives;
	pthread_mutex_unlock(&r->live_lock);
	return n;
}

/* Waits (ms at most) for the live hook to have counted n samples; whether it did. */
static bool live_samples(struct run *r, uint64_t n, int ms)
{
	uint64_t got = 0;

	for (int i = 0; i < ms / 10; i++) {
		pthread_mutex_lock(&r->live_lock);
		got = r->samples;
		pthread_mutex_unlock(&r->live_lock);
		if (got >= n)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * The service's live hook: an interval is handed on once every drive of the point sent
 * it (100 ms after the last call at the soonest), with its figures over the interval's
 * own length (a short last one is not a whole interval); the samples counted; the agent
 * connected; once the drive's result came it reads 0 (it does no IO), its series still
 * there through the grace after the point.
 */
static void test_live_hook_once_an_interval(void **st)
{
	struct run *r = *st;
	unsigned n;

	run_start(r, "");
	connect_and_assign(r);
	/* what the start left to say goes first: the run's call a second on */
	n = lives_of(r);
	rb_clock_fake_advance(&r->fake, 1000000000LL);
	for (int i = 0; i < 30 && lives_of(r) == n; i++)
		usleep(10000);
	/* the point's one drive sent interval 0: it is whole, and goes 100 ms on */
	sample_at(r, 0, 0, 1000, 0, T_AGENT);
	rb_clock_fake_advance(&r->fake, 100000000LL);
	assert_true(live_samples(r, 1, 3000));
	pthread_mutex_lock(&r->live_lock);
	assert_true(r->drive.measured);
	assert_int_equal(r->drive.interval, 0);
	assert_true(r->drive.iops == 1000);
	assert_true(r->drive.bytes_per_s == 1000 * 4096);
	assert_true(fabs(r->drive.lat_mean_s - 100e-6) < 1e-12);
	assert_string_equal(r->drive.agent, "h1");
	assert_string_equal(r->drive.path, DRIVE);
	assert_true(isnan(r->drive.temp_c));
	assert_int_equal(r->drive.failing, -1); /* no verdicts asked */
	assert_string_equal(r->agent.name, "h1");
	assert_true(r->agent.connected && !r->agent.lost);
	pthread_mutex_unlock(&r->live_lock);
	/* the next interval, at once: not before 100 ms have passed on the run's clock */
	sample_at(r, 0, 1, 2000, 0, T_AGENT + 1000000000LL);
	assert_false(live_samples(r, 2, 300));
	rb_clock_fake_advance(&r->fake, 100000000LL);
	assert_true(live_samples(r, 2, 3000));
	pthread_mutex_lock(&r->live_lock);
	assert_int_equal(r->drive.interval, 1);
	assert_true(r->drive.iops == 2000);
	pthread_mutex_unlock(&r->live_lock);
	/* the point's last interval ended 250 ms after the one before: 3000 IOs in 250 ms */
	sample_at(r, 0, 2, 3000, 0, T_AGENT + 1250000000LL);
	rb_clock_fake_advance(&r->fake, 100000000LL);
	assert_true(live_samples(r, 3, 3000));
	pthread_mutex_lock(&r->live_lock);
	assert_int_equal(r->drive.interval, 2);
	assert_true(r->drive.iops == 12000);
	assert_true(r->drive.bytes_per_s == 12000 * 4096);
	pthread_mutex_unlock(&r->live_lock);
	finish_point(r, 0, 6000);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
	pthread_mutex_lock(&r->live_lock);
	/* its result came: it reads 0, in the two intervals' grace after the point */
	assert_int_equal(r->samples, 3);
	assert_true(r->drive.measured);
	assert_int_equal(r->drive.interval, 2);
	assert_true(r->drive.iops == 0 && r->drive.bytes_per_s == 0);
	pthread_mutex_unlock(&r->live_lock);
}

/*
 * Every agent's clock offset before the first point: the run waits for an answer to a
 * clock probe, at most 1 s of its clock, so an agent that never answers holds it no longer.
 */
static void test_clock_wait_is_capped(void **st)
{
	struct run *r = *st;
	struct rb_msg *e;
	uint32_t attempt;

	run_start(r, "");
	hello(r, 0);
	r->probes = false; /* this agent never answers a clock probe */
	expect_free(r, RB_MSG_WELCOME, 5000);
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	preflight_reply(r);
	/* its clock standing still, the run waits for the offset... */
	assert_null(expect(r, RB_MSG_ASSIGN, 300));
	rb_clock_fake_advance(&r->fake, 900000000LL);
	assert_null(expect(r, RB_MSG_ASSIGN, 300));
	/* ...until 1 s has passed, then starts without it */
	rb_clock_fake_advance(&r->fake, 200000000LL);
	e = expect(r, RB_MSG_ASSIGN, 5000);
	assert_non_null(e);
	attempt = e->assign.attempt;
	rb_msg_free(e);
	finish_point(r, attempt, 10);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
}

/* Acknowledgements go out by group commit: once 20 ms have passed since the last one. */
static void test_acks_by_20ms_group_commit(void **st)
{
	struct run *r = *st;
	struct rb_row_result *res;
	struct rb_row_sample *smp;
	size_t nres, nsmp;

	run_start(r, "");
	connect_and_assign(r);
	assert_int_equal(r->acked, 0); /* the clock stood still: nothing acknowledged */
	rb_clock_fake_advance(&r->fake, 19000000LL);
	assert_null(expect(r, RB_MSG_ACK, 300));
	rb_clock_fake_advance(&r->fake, 1000000LL);
	expect_free(r, RB_MSG_ACK, 2000);
	assert_int_equal(r->acked, 1); /* the pre-flight answer: on disk */
	for (uint32_t i = 0; i < 3; i++)
		sample(r, 0, i, 100 + i, 0);
	finish_point(r, 0, 303);
	/* the Stop may come before the last Ack: the run acknowledges before it stops */
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(r->acked, r->seq);
	assert_int_equal(run_join(r), RB_EXIT_OK);
	read_rows(r, &res, &nres, &smp, &nsmp);
	assert_int_equal(nres, 1);
	assert_string_equal(res[0].status, "ok");
	assert_int_equal(nsmp, 3);
	free(res);
	free(smp);
}

/*
 * A campaign with a verdict: the drive's IO error and mismatch reach the io_errors table
 * with their offsets, the judged drive FAILs, the verdicts are in the file and the run
 * exits 5.
 */
static void test_verdict_of_the_run(void **st)
{
	struct run *r = *st;
	uint32_t idx = 2000;
	uint64_t cnt = 300;
	struct rb_dir_result dr = { .ios = 300,
				    .bytes = 300 * 4096,
				    .errors = 1,
				    .lat_sum_ns = 300 * 100000ULL,
				    .hist = { &idx, &cnt, 1 } };
	struct rb_msg_io_error ie[2] = {
		{ .offset = 8192, .length = 4096, .direction = 0, .err = 5, .count = 1 },
		{ .offset = 4096, .length = 512, .direction = 0, .err = 84, .count = 1 },
	};
	struct rb_row_verdict *v;
	struct rb_row_ioerror *rows;
	size_t nv, nrows;
	char err[256];
	struct rb_results_in *in;
	struct rb_msg m;

	run_start(r, "verdict: {critical_warning: true}\n");
	connect_and_assign(r);
	for (uint32_t i = 0; i < 3; i++)
		sample(r, 0, i, 100, 0);
	rb_msg_init(&m, RB_MSG_RESULT);
	m.result = (struct rb_msg_result){ .point = r->point,
					   .drive = DRIVE,
					   .core.elapsed_ns = 3000000000ULL,
					   .dirs = &dr,
					   .ndirs = 1,
					   .io_errors = ie,
					   .nio_errors = 2,
					   .core.verify_mismatches = 1,
					   .status = RB_STATUS_OK,
					   .message = "" };
	send_numbered(r, &m, 0);
	rb_msg_init(&m, RB_MSG_POINT_DONE);
	m.point_done.point = r->point;
	send_numbered(r, &m, 0);
	expect_free(r, RB_MSG_STOP, 5000);
	out_begin(r);
	assert_int_equal(run_join(r), RB_EXIT_BELOW_SPEC);
	free(out_end(r));
	in = rb_results_open(r->path, err, sizeof(err));
	assert_non_null(in);
	assert_int_equal(rb_results_read_verdicts(in, &v, &nv), 0);
	assert_int_equal(rb_results_read_ioerrors(in, &rows, &nrows), 0);
	rb_results_in_close(in);
	assert_int_equal(nrows, 2);
	assert_true((rows[0].err == 5 && rows[0].offset == 8192) ||
		    (rows[1].err == 5 && rows[1].offset == 8192));
	assert_int_equal(nv, 3); /* mismatch, io_errors, the drive */
	assert_string_equal(v[2].rule, "drive");
	assert_string_equal(v[2].verdict, "FAIL");
	assert_non_null(strstr(v[2].reason, "at offset 4096 (512 bytes)"));
	free(v);
	free(rows);
}

/*
 * A drive FAILed by a rule (p99 over 1 us), not by IO errors: after the verdicts the
 * coordinator orders its agent to capture its evidence before stopping it; the piece sent
 * is kept beside the results file, compressed, and the Captured answer's row is added to
 * the closed file's evidence table with where the copy is.
 */
static void test_capture_after_fail(void **st)
{
	struct run *r = *st;
	uint32_t idx = 2000;
	uint64_t cnt = 300;
	struct rb_dir_result dr = { .ios = 300, .bytes = 300 * 4096, .hist = { &idx, &cnt, 1 } };
	static const uint8_t data[] = "the drive's SMART log, as it gave it";
	const char *file = "/state/evidence/harness0-T-abc123/smart.bin";
	struct rb_msg_evidence ev = { "smart", file, NULL, sizeof(data) };
	struct rb_row_evidence *rows;
	char err[256], hex[65], gz[4200];
	struct rb_results_in *in;
	struct rb_msg m, *order;
	struct rb_sha256 sh;
	size_t n;

	rb_sha256_init(&sh);
	rb_sha256_update(&sh, data, sizeof(data));
	rb_sha256_hex(&sh, hex);
	ev.sha256 = hex;
	run_start(r, "verdict: {max_p99: 1us}\n");
	connect_and_assign(r);
	sample(r, 0, 0, 300, 0);
	rb_msg_init(&m, RB_MSG_RESULT);
	m.result = (struct rb_msg_result){ .point = r->point,
					   .drive = DRIVE,
					   .core.elapsed_ns = 1000000000ULL,
					   .dirs = &dr,
					   .ndirs = 1,
					   .status = RB_STATUS_OK,
					   .message = "" };
	send_numbered(r, &m, 0);
	rb_msg_init(&m, RB_MSG_POINT_DONE);
	m.point_done.point = r->point;
	send_numbered(r, &m, 0);
	order = expect(r, RB_MSG_CAPTURE, 5000);
	assert_non_null(order);
	assert_string_equal(order->capture.drive, DRIVE);
	assert_int_equal(order->capture.point, r->point);
	rb_msg_free(order);
	rb_msg_init(&m, RB_MSG_EVIDENCE_DATA);
	m.evidence_data = (struct rb_msg_evidence_data){ .point = r->point,
							 .drive = DRIVE,
							 .path = file,
							 .sha256 = hex,
							 .bytes = sizeof(data),
							 .data = data,
							 .len = sizeof(data) };
	send_numbered(r, &m, 0);
	rb_msg_init(&m, RB_MSG_CAPTURED);
	m.captured = (struct rb_msg_captured){
		.point = r->point, .drive = DRIVE, .error = "", .evidence = &ev, .nevidence = 1
	};
	send_numbered(r, &m, 0);
	expect_free(r, RB_MSG_STOP, 5000);
	out_begin(r);
	assert_int_equal(run_join(r), RB_EXIT_BELOW_SPEC);
	free(out_end(r));
	in = rb_results_open(r->path, err, sizeof(err));
	assert_non_null(in);
	assert_int_equal(rb_results_read_evidence(in, &rows, &n), 0);
	rb_results_in_close(in);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].kind, "smart");
	assert_string_equal(rows[0].sha256, hex);
	assert_non_null(strstr(rows[0].stored, ".evidence/h1/harness0-T-abc123/smart.bin.gz"));
	/* beside the file: its folder joined with the row's relative name */
	snprintf(gz, sizeof(gz), "%.*s%s", (int)(strrchr(r->path, '/') + 1 - r->path), r->path,
		 rows[0].stored);
	assert_int_equal(access(gz, R_OK), 0);
	free(rows);
}

/* A point reaching past the end of the 1 GiB drive offered: refused before any
 * pre-flight or IO, naming the point, the drive and its size, and the other points. */
static void test_size_past_the_drive_refused(void **st)
{
	struct run *r = *st;
	char path[600], *err;
	int fd, saved, rc;
	FILE *f;
	size_t cap = 0;

	run_start_phase(r, "",
			"  - name: p\n    workload: {rw: randread, bs: 4k, size: 2g}\n"
			"    matrix: {iodepth: [1, 2, 4]}\n");
	snprintf(path, sizeof(path), "%s/stderr", r->dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 2);
	close(fd);
	hello(r, 0);
	expect_free(r, RB_MSG_WELCOME, 5000);
	rc = run_join(r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(rc, RB_EXIT_USAGE);
	assert_null(expect(r, RB_MSG_PREFLIGHT, 100));
	f = fopen(path, "r");
	assert_non_null(f);
	err = NULL;
	assert_true(getdelim(&err, &cap, '\0', f) > 0);
	fclose(f);
	assert_non_null(strstr(err, "point 'p iodepth=1' reaches 2.00 GiB into drive '" DRIVE
				    "' of agent 'h1', which holds 1.00 GiB (1073741824 bytes); so "
				    "do 2 more point(s)"));
	free(err);
}

/* on_refusal: skip with every drive refused: nothing to run, the campaign stops (3). */
static void test_skip_with_every_drive_refused(void **st)
{
	struct run *r = *st;
	struct rb_refusal ref = { .subject = DRIVE, .message = "it is mounted at /mnt" };
	struct rb_msg m;

	run_start(r, "on_refusal: skip\ndestructive: true\n");
	hello(r, 0);
	expect_free(r, RB_MSG_WELCOME, 5000);
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	rb_msg_init(&m, RB_MSG_PREFLIGHT_REPLY);
	m.preflight_reply.refusals = &ref;
	m.preflight_reply.nrefusals = 1;
	send_numbered(r, &m, 0);
	assert_int_equal(run_join(r), RB_EXIT_REFUSED);
}

/* A duplicate and a message past a gap are dropped; the gap's message, then the rest,
 * are taken in order. */
static void test_wrong_sequence_dropped(void **st)
{
	struct run *r = *st;
	struct rb_row_result *res;
	struct rb_row_sample *smp;
	size_t nres, nsmp;
	uint64_t base;
	int seen[16] = { 0 };

	run_start(r, "");
	connect_and_assign(r);
	base = r->seq;
	sample(r, 0, 0, 100, base + 1);
	sample(r, 0, 7, 700, base + 1); /* the same number again: a duplicate */
	sample(r, 0, 9, 900, base + 3); /* past a gap: dropped, the agent sends it again */
	sample(r, 0, 1, 101, base + 2);
	sample(r, 0, 2, 102, base + 3);
	finish_point(r, 0, 303);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
	read_rows(r, &res, &nres, &smp, &nsmp);
	assert_int_equal(nsmp, 3);
	for (size_t i = 0; i < nsmp; i++) {
		assert_true(smp[i].interval < 16);
		seen[smp[i].interval]++;
		assert_int_equal(smp[i].ios, 100 + smp[i].interval);
	}
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 1);
	assert_int_equal(nres, 1);
	free(res);
	free(smp);
}

/* A sample key is stored once: intervals out of order (gaps filled later) and the same
 * intervals again under new numbers (a spool sent again) give one row per interval. */
static void test_sample_keys_stored_once(void **st)
{
	static const uint32_t order[] = { 0, 5, 3, 1, 2, 4, 9, 8, 7, 6 };
	struct run *r = *st;
	struct rb_row_result *res;
	struct rb_row_sample *smp;
	size_t nres, nsmp;
	int seen[16] = { 0 };

	run_start(r, "");
	connect_and_assign(r);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
			sample(r, 0, order[i], 100 + order[i] + 1000u * (unsigned)pass, 0);
	finish_point(r, 0, 1045);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
	read_rows(r, &res, &nres, &smp, &nsmp);
	assert_int_equal(nsmp, 10);
	for (size_t i = 0; i < nsmp; i++) {
		assert_true(smp[i].interval < 16);
		seen[smp[i].interval]++;
		/* the first one taken, not the second */
		assert_int_equal(smp[i].ios, 100 + smp[i].interval);
	}
	for (int i = 0; i < 10; i++)
		assert_int_equal(seen[i], 1);
	free(res);
	free(smp);
}

/* The same process saying Hello again, idle, 1.5 s after its Assign never had it. */
static void test_hello_again_gets_the_point_again(void **st)
{
	struct run *r = *st;
	struct rb_msg *e;

	run_start(r, "");
	connect_and_assign(r);
	/* at once: what was sent may still be on its way; nothing again */
	hello(r, r->seq);
	assert_null(expect(r, RB_MSG_ASSIGN, 300));
	rb_clock_fake_advance(&r->fake, 2000000000LL);
	hello(r, r->seq);
	e = expect(r, RB_MSG_ASSIGN, 5000);
	assert_non_null(e);
	assert_int_equal(e->assign.point, 0);
	assert_int_equal(e->assign.attempt, 0);
	rb_msg_free(e);
	for (uint32_t i = 0; i < 3; i++)
		sample(r, 0, i, 100, 0);
	finish_point(r, 0, 300);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
}

/* A reconnecting agent that still owes its pre-flight is asked again. */
static void test_hello_again_owes_preflight(void **st)
{
	struct run *r = *st;

	run_start(r, "");
	hello(r, 0);
	expect_free(r, RB_MSG_WELCOME, 5000);
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	rb_clock_fake_advance(&r->fake, 2000000000LL);
	hello(r, 0);
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	/* answered now, the run goes on */
	preflight_reply(r);
	expect_free(r, RB_MSG_ASSIGN, 5000);
	for (uint32_t i = 0; i < 3; i++)
		sample(r, 0, i, 100, 0);
	finish_point(r, 0, 300);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
}

/* A new process of the agent during the point: the point runs again as attempt 1, and
 * the first attempt's samples stay in the file as attempt 0's. */
static void test_restarted_agent_runs_next_attempt(void **st)
{
	struct run *r = *st;
	struct rb_row_result *res;
	struct rb_row_sample *smp;
	size_t nres, nsmp, a1 = 0;
	struct rb_msg *e;

	run_start(r, "");
	connect_and_assign(r);
	sample(r, 0, 0, 100, 0);
	r->epoch = 0x5678; /* restarted: a new process, numbering anew */
	r->seq = 0;
	hello(r, 0);
	e = expect(r, RB_MSG_ASSIGN, 5000);
	assert_non_null(e);
	assert_int_equal(e->assign.attempt, 1);
	rb_msg_free(e);
	for (uint32_t i = 0; i < 3; i++)
		sample(r, 1, i, 200, 0);
	finish_point(r, 1, 600);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
	read_rows(r, &res, &nres, &smp, &nsmp);
	assert_int_equal(nres, 1);
	assert_int_equal(res[0].attempt, 1);
	assert_int_equal(nsmp, 4);
	for (size_t i = 0; i < nsmp; i++)
		a1 += smp[i].attempt == 1;
	assert_int_equal(a1, 3);
	free(res);
	free(smp);
}

/* Everything sent taken, then 6 s of silence: lost, and (on_agent_lost: abort) the run
 * aborts. */
static void abort_as_lost(struct run *r)
{
	sync_acked(r);
	rb_clock_fake_advance(&r->fake, 6000000000LL);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_FAILED);
}

/* rackbench resume: the campaign and the run's identity from the journal, a coordinator
 * resuming the run in r->path, the agent's socket connected to it anew. */
static void resume_from_journal(struct run *r)
{
	char jp[4200], err[512];
	struct rb_diags d;

	snprintf(jp, sizeof(jp), "%s.journal", r->path);
	assert_true(rb_journal_walk(jp, 0, &r->resume, NULL, NULL, NULL, err, sizeof(err)) >= 0);
	rb_campaign_free(r->c);
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load(r->resume.file, r->resume.campaign,
					  strlen(r->resume.campaign), &r->c, &d),
			 0);
	rb_diags_release(&d);
	rb_tx_close(r->sock);
	rb_tx_close(r->router);
	coordinator_start(r);
}

/* A rolling steady state stops the point once every drive's last window is steady. */
static void test_rolling_steady_state_stops_the_point(void **st)
{
	struct run *r = *st;
	struct rb_row_result *res;
	struct rb_row_sample *smp;
	struct rb_row_steady *ss;
	size_t nres, nsmp, nss;
	char err[256];
	struct rb_results_in *in;
	struct rb_msg *e;

	run_start_phase(r, "",
			"  - name: roll\n    workload: {rw: randread, bs: 4k, runtime: 60s, "
			"interval: 1s}\n    steady_state: {rolling: true, window: 3}\n");
	connect_and_assign(r);
	/* three intervals complete only when the fourth begins: no verdict yet */
	for (uint32_t i = 0; i < 3; i++)
		sample(r, 0, i, 1000 + i, 0);
	assert_null(expect(r, RB_MSG_STOP, 400));
	sample(r, 0, 3, 1000, 0);
	e = expect(r, RB_MSG_STOP, 5000);
	assert_non_null(e);
	assert_string_equal(e->stop.reason, "steady state reached");
	rb_msg_free(e);
	finish_point_as(r, 0, 4003, "stopped");
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
	read_rows(r, &res, &nres, &smp, &nsmp);
	assert_int_equal(nres, 1);
	assert_string_equal(res[0].status, "ok"); /* stopped by its verdict: its end */
	assert_int_equal(res[0].steady, 1);
	in = rb_results_open(r->path, err, sizeof(err));
	assert_non_null(in);
	assert_int_equal(rb_results_read_steady(in, &ss, &nss), 0);
	rb_results_in_close(in);
	assert_int_equal(nss, 1);
	assert_int_equal(ss[0].rolling, 1);
	assert_int_equal(ss[0].steady, 1);
	assert_int_equal(ss[0].steady_round, 3);
	assert_int_equal(ss[0].window, 3);
	free(ss);
	free(res);
	free(smp);
}

/*
 * A run aborted in its second point (the agent lost, on_agent_lost: abort) resumes from
 * its journal: the first point restored whole, the second run again as attempt 1, its
 * first attempt's samples kept; the aborted file set aside as .crashed.
 */
static void test_resume_replays_whole_points(void **st)
{
	struct run *r = *st;
	struct rb_row_result *res;
	struct rb_row_sample *smp;
	size_t nres, nsmp, by_attempt[2][2] = { { 0 } };
	char crashed[4200];

	run_start_phase(r, "on_agent_lost: abort\n",
			"  - name: p\n    workload: {rw: randread, bs: 4k, runtime: 3s, "
			"interval: 1s}\n    matrix: {iodepth: [1, 2]}\n");
	connect_and_assign(r);
	for (uint32_t i = 0; i < 3; i++)
		sample(r, 0, i, 100, 0);
	finish_point(r, 0, 300);
	r->point = 1;
	expect_free(r, RB_MSG_ASSIGN, 5000);
	sample(r, 0, 0, 500, 0);
	abort_as_lost(r);

	resume_from_journal(r);
	/* the same agent process, idle, all it sent acknowledged */
	hello(r, r->seq);
	expect_free(r, RB_MSG_WELCOME, 5000);
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	preflight_reply(r);
	struct rb_msg *e = expect(r, RB_MSG_ASSIGN, 5000);

	assert_non_null(e);
	assert_int_equal(e->assign.point, 1);
	assert_int_equal(e->assign.attempt, 1);
	rb_msg_free(e);
	for (uint32_t i = 0; i < 3; i++)
		sample(r, 1, i, 200, 0);
	finish_point(r, 1, 600);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
	snprintf(crashed, sizeof(crashed), "%s.crashed", r->path);
	assert_int_equal(access(crashed, F_OK), 0);
	read_rows(r, &res, &nres, &smp, &nsmp);
	assert_int_equal(nres, 2);
	for (size_t i = 0; i < nres; i++) {
		assert_string_equal(res[i].status, "ok");
		assert_int_equal(res[i].attempt, res[i].point); /* point 0 as 0, point 1 as 1 */
	}
	for (size_t i = 0; i < nsmp; i++) {
		assert_true(smp[i].point < 2 && smp[i].attempt < 2);
		by_attempt[smp[i].point][smp[i].attempt]++;
	}
	assert_int_equal(by_attempt[0][0], 3); /* restored from the journal */
	assert_int_equal(by_attempt[1][0], 1); /* the aborted attempt's, kept */
	assert_int_equal(by_attempt[1][1], 3);
	free(res);
	free(smp);
}

/*
 * Resumed, an agent sends again what the crashed coordinator never journaled -- here
 * its point's PointDone -- before it answers the pre-flight: the run still waits for the
 * answer (a PointDone finishes only a running agent's point, never its safety check).
 */
static void test_resume_waits_for_preflight_answer(void **st)
{
	struct run *r = *st;
	struct rb_row_result *res;
	struct rb_row_sample *smp;
	size_t nres, nsmp;

	run_start(r, "on_agent_lost: abort\n");
	connect_and_assign(r);
	for (uint32_t i = 0; i < 3; i++)
		sample(r, 0, i, 100, 0);
	abort_as_lost(r);
	/* meanwhile the agent finished the point: its result and PointDone are in its spool */
	resume_from_journal(r);
	hello(r, r->seq + 2);
	expect_free(r, RB_MSG_WELCOME, 5000);
	finish_point(r, 0, 300); /* sent again: numbers seq + 1, seq + 2 */
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	assert_null(expect(r, RB_MSG_STOP, 600)); /* it waits */
	preflight_reply(r);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
	read_rows(r, &res, &nres, &smp, &nsmp);
	assert_int_equal(nres, 1);
	assert_string_equal(res[0].status, "ok");
	assert_int_equal(nsmp, 3);
	free(res);
	free(smp);
}

/* The drive's row in plan --resolve's table: as the agent's Hello described it. */
static void resolved_row(const char *out, const char *verdict)
{
	char agent[64], path[300], kind[16], model[64], serial[64], fw[32], size[32], unit[8];
	const char *row = strstr(out, "\nh1 ");

	assert_non_null(row);
	assert_int_equal(sscanf(row, " %63s %299s %15s %63s %63s %31s %31s %7s", agent, path, kind,
				model, serial, fw, size, unit),
			 8);
	assert_string_equal(path, DRIVE);
	assert_string_equal(kind, "block");
	assert_string_equal(model, "HARNESS");
	assert_string_equal(serial, "H-1");
	assert_string_equal(fw, "1");
	assert_string_equal(size, "1.00");
	assert_string_equal(unit, "GiB");
	assert_non_null(strstr(row, verdict));
}

/*
 * plan --resolve --lock: the agent's answer to the pre-flight, then the table and the
 * lock file; a campaign with 'lock:' that file is pinned to the drive's serial.
 */
static void test_resolve_writes_the_lock(void **st)
{
	struct run *r = *st;
	struct rb_campaign *c = NULL;
	struct rb_diags d;
	char text[1024], *out, *lock;

	r->resolve = true;
	run_start_phase(r, "", PHASE);
	out_begin(r);
	hello(r, 0);
	expect_free(r, RB_MSG_WELCOME, 5000);
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	preflight_reply(r);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_OK);
	out = out_end(r);
	assert_non_null(out);
	resolved_row(out, "reads only");
	assert_non_null(strstr(out, "lock: "));
	assert_non_null(strstr(out, "(1 drive(s))"));
	free(out);
	lock = NULL;
	{
		FILE *f = fopen(r->lock, "r");
		size_t cap = 0;

		assert_non_null(f);
		assert_true(getdelim(&lock, &cap, '\0', f) > 0);
		fclose(f);
	}
	assert_non_null(strstr(lock, "campaign: harness\n"));
	assert_non_null(strstr(lock, "  - {agent: \"h1\", path: \"" DRIVE "\", serial: \"H-1\", "
				     "model: \"HARNESS\", firmware: \"1\", size: 1073741824}\n"));
	free(lock);
	snprintf(text, sizeof(text),
		 "lock: %s\ntargets:\n  - agent: h1\n    drives: [" DRIVE "]\n"
		 "phases:\n" PHASE,
		 r->lock);
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("<locked>", text, strlen(text), &c, &d), 0);
	rb_diags_release(&d);
	assert_string_equal(c->drives[0].serial, "H-1");
	rb_campaign_free(c);
	/* a lock is never written over */
	rb_campaign_free(r->c);
	r->c = NULL;
	rb_tx_close(r->sock);
	rb_tx_close(r->router);
	snprintf(text, sizeof(text),
		 "name: harness\ninsecure: true\nresults: %s\n"
		 "targets:\n  - agent: h1\n    drives: [" DRIVE "]\nphases:\n" PHASE,
		 r->dir);
	rb_diags_init(&d);
	assert_int_equal(rb_campaign_load("<harness>", text, strlen(text), &r->c, &d), 0);
	rb_diags_release(&d);
	coordinator_start(r);
	out_begin(r);
	r->epoch = 0x9999; /* another agent process: numbering anew */
	r->seq = r->acked = 0;
	hello(r, 0);
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	preflight_reply(r);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_USAGE);
	free(out_end(r));
}

/* An agent that never answers the pre-flight: the table still, and no lock. */
static void test_resolve_without_an_answer(void **st)
{
	struct run *r = *st;
	char *out;

	r->resolve = true;
	run_start_phase(r, "", PHASE);
	out_begin(r);
	hello(r, 0);
	expect_free(r, RB_MSG_WELCOME, 5000);
	expect_free(r, RB_MSG_PREFLIGHT, 5000);
	/* the pre-flight's 30 s pass on the clock */
	rb_clock_fake_advance(&r->fake, 31000000000LL);
	expect_free(r, RB_MSG_STOP, 5000);
	assert_int_equal(run_join(r), RB_EXIT_FAILED);
	out = out_end(r);
	assert_non_null(out);
	resolved_row(out, "reads only");
	assert_null(strstr(out, "lock: "));
	free(out);
	assert_int_equal(access(r->lock, F_OK), -1);
}

int main(void)
{
	rb_log_init("rackbench", getenv("RB_DEBUG") ? RB_LOG_DEBUG : RB_LOG_WARN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_silent_agent_lost_after_5s, setup, teardown),
		cmocka_unit_test_setup_teardown(test_acks_by_20ms_group_commit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_wait_is_capped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_past_the_drive_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_of_the_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_capture_after_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skip_with_every_drive_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_live_hook_once_an_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_keys_stored_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_sequence_dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hello_again_gets_the_point_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_hello_again_owes_preflight, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restarted_agent_runs_next_attempt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rolling_steady_state_stops_the_point, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resume_replays_whole_points, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_waits_for_preflight_answer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_resolve_writes_the_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_without_an_answer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
