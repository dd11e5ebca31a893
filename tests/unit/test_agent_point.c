// SPDX-License-Identifier: MIT
/*
 * A point's life on the agent (point.c), driven by the scripted coordinator of
 * agent_harness.h: an Assign runs the real engine for a few hundred milliseconds on
 * small regular files in the agent's state folder, and what the coordinator hears is
 * checked: the samples, the drive's result, PointDone last, every message numbered;
 * a point that cannot run is answered with a result per drive saying why.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent_harness.h"
#include "execphase.h"
#include "log.h"

/* The agent's targets: two files it makes in its state folder, a user's, a missing one. */
enum { OWN0, OWN1, USER, MISSING, NTARGETS };

struct point_test {
	struct harness *h;
	char paths[NTARGETS][128];
	char *targets[NTARGETS];
	char loop[128]; /* a loop device a test made: detached at its end */
};

static int setup(void **st)
{
	struct point_test *p = calloc(1, sizeof(*p));
	static const char *const names[NTARGETS] = { "state/own0.dat", "state/own1.dat", "user.bin",
						     "missing.bin" };
	char buf[65536];
	int fd;

	if (!p || !(p->h = harness_new()))
		return -1;
	snprintf(p->h->state, sizeof(p->h->state), "%s/state", p->h->dir);
	if (mkdir(p->h->state, 0700))
		return -1;
	for (int i = 0; i < NTARGETS; i++) {
		snprintf(p->paths[i], sizeof(p->paths[i]), "%s/%s", p->h->dir, names[i]);
		p->targets[i] = p->paths[i];
	}
	/* a user's file of 1 MiB of data: readable, never writable without --allow */
	memset(buf, 0x5a, sizeof(buf));
	fd = open(p->paths[USER], O_WRONLY | O_CREAT | O_EXCL, 0600);
	for (int i = 0; fd >= 0 && i < 16; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
	if (fd < 0 || close(fd))
		return -1;
	p->h->cfg.targets = p->targets;
	p->h->cfg.ntargets = NTARGETS;
	*st = p;
	return 0;
}

static int teardown(void **st)
{
	struct point_test *p = *st;
	char cmd[200];

	harness_free(p->h);
	if (p->loop[0]) {
		snprintf(cmd, sizeof(cmd), "losetup -d '%s'", p->loop);
		if (system(cmd))
			fprintf(stderr, "cannot detach %s\n", p->loop);
	}
	free(p);
	return 0;
}

/* The agent started and welcomed into run r1. */
static struct harness *start(void **st)
{
	struct point_test *p = *st;

	assert_int_equal(harness_start(p->h), 0);
	harness_welcome(p->h, "r1");
	return p->h;
}

/* ---- the coordinator's side: an Assign sent, what comes back heard ---- */

struct assign {
	struct rb_msg m; /* an Assign */
	struct rb_kv st[16];
};

static void assign_init(struct assign *a, uint32_t point, const char *const *drives, size_t n)
{
	memset(a, 0, sizeof(*a));
	rb_msg_init(&a->m, RB_MSG_ASSIGN);
	a->m.assign.point = point;
	a->m.assign.drives = drives;
	a->m.assign.ndrives = n;
	a->m.assign.settings = a->st;
}

static void assign_set(struct assign *a, const char *key, const char *value)
{
	size_t i = a->m.assign.nsettings++;

	assert_true(i < 16);
	a->st[i] = (struct rb_kv){ .key = key, .value = value };
}

/* A short write (two 100 ms intervals of 4k writes over 1 MiB), buffered. */
static void assign_short_write(struct assign *a, uint32_t point, const char *const *drives,
			       size_t n)
{
	assign_init(a, point, drives, n);
	a->m.assign.destructive = true;
	assign_set(a, "rw", "write");
	assign_set(a, "bs", "4k");
	assign_set(a, "size", "1m");
	assign_set(a, "runtime", "200ms");
	assign_set(a, "interval", "100ms");
	assign_set(a, "direct", "false");
}

static void send_assign(struct harness *t, const struct assign *a)
{
	harness_send(t, &a->m);
}

static void send_stop(struct harness *t, const char *reason)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_STOP);
	m.stop.reason = reason;
	harness_send(t, &m);
}

#define MAXHEARD 512

/* What the coordinator heard, in order: data messages (acknowledged) and errors. */
struct heard {
	struct rb_msg *m[MAXHEARD];
	size_t n;
	unsigned beats; /* heartbeats, not kept */
};

static void heard_free(struct heard *h)
{
	for (size_t i = 0; i < h->n; i++)
		rb_msg_free(h->m[i]);
	h->n = 0;
}

/* Keeps e unless it is a Hello or a Heartbeat; a data message is acknowledged. */
static void hear(struct harness *t, struct heard *h, struct rb_msg *e, bool ack)
{
	if (e->kind == RB_MSG_HEARTBEAT)
		h->beats++;
	if (e->kind == RB_MSG_HELLO || e->kind == RB_MSG_HEARTBEAT) {
		rb_msg_free(e);
		return;
	}
	if (ack && e->seq)
		harness_ack(t, e->epoch, e->seq);
	assert_true(h->n < MAXHEARD);
	h->m[h->n++] = e;
}

/* Heard until the PointDone of point, within 10 s; the data acknowledged as it comes. */
static void until_done(struct harness *t, uint32_t point, struct heard *h)
{
	for (int waited = 0; waited < 10000; waited += 20) {
		struct rb_msg *e = harness_next(t, 20);

		bool done;

		if (!e)
			continue;
		done = e->kind == RB_MSG_POINT_DONE && e->point_done.point == point;
		hear(t, h, e, true);
		if (done)
			return;
	}
	fail_msg("no PointDone for point %u within 10 s", point);
}

/* Heard until the first message of kind want, within 10 s; it is the last one heard. */
static struct rb_msg *until(struct harness *t, struct heard *h, enum rb_msg_kind want)
{
	/* those are not kept */
	assert_true(want != RB_MSG_HELLO && want != RB_MSG_HEARTBEAT);
	for (int waited = 0; waited < 10000; waited += 20) {
		struct rb_msg *e = harness_next(t, 20);

		if (!e)
			continue;
		if (e->kind == want) {
			hear(t, h, e, true);
			return e;
		}
		hear(t, h, e, true);
	}
	fail_msg("no message of kind %d within 10 s", want);
	return NULL;
}

static size_t count(const struct heard *h, enum rb_msg_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n; i++)
		n += h->m[i]->kind == kind;
	return n;
}

/* The drive's result among what was heard (exactly one), or a failure. */
static const struct rb_msg_result *result_of(const struct heard *h, const char *drive)
{
	const struct rb_msg_result *r = NULL;

	for (size_t i = 0; i < h->n; i++)
		if (h->m[i]->kind == RB_MSG_RESULT && !strcmp(h->m[i]->result.drive, drive)) {
			if (r)
				fail_msg("two results for drive '%s'", drive);
			r = &h->m[i]->result;
		}
	if (!r)
		fail_msg("no result for drive '%s'", drive);
	return r;
}

static void assert_contains(const char *s, const char *want)
{
	if (!s || !strstr(s, want))
		fail_msg("'%s' does not say '%s'", s ? s : "(null)", want);
}

/*
 * A point's messages as the coordinator's journal takes them: numbered from first on
 * without a gap, in this process's epoch, about this point and attempt; PointDone last,
 * after every result; the samples before the results.
 */
static void assert_point_order(const struct harness *t, const struct heard *h, uint64_t first,
			       uint32_t point, uint32_t attempt)
{
	size_t last_sample = 0, first_result = SIZE_MAX, ndata = 0;
	uint64_t want = first;

	for (size_t i = 0; i < h->n; i++) {
		const struct rb_msg *e = h->m[i];

		if (!e->seq)
			continue;
		ndata++;
		assert_int_equal(e->epoch, t->epoch);
		assert_int_equal(e->seq, want++);
		switch (e->kind) {
		case RB_MSG_SAMPLES:
			last_sample = i;
			for (size_t k = 0; k < e->samples.n; k++) {
				assert_int_equal(e->samples.v[k].point, point);
				assert_int_equal(e->samples.v[k].attempt, attempt);
			}
			break;
		case RB_MSG_RESULT:
			if (first_result == SIZE_MAX)
				first_result = i;
			assert_int_equal(e->result.point, point);
			assert_int_equal(e->result.attempt, attempt);
			break;
		case RB_MSG_POINT_DONE:
			assert_int_equal(e->point_done.point, point);
			assert_int_equal(e->point_done.attempt, attempt);
			assert_int_equal(i, h->n - 1);
			break;
		default:
			break;
		}
	}
	assert_true(ndata > 0);
	assert_int_equal(h->m[h->n - 1]->kind, RB_MSG_POINT_DONE);
	assert_true(first_result != SIZE_MAX);
	if (count(h, RB_MSG_SAMPLES))
		assert_true(last_sample < first_result);
}

/*
 * The samples of drive in one direction: each interval once, and their IOs and bytes
 * added up; no sample of another direction or drive.
 */
static void sum_samples(const struct heard *h, const char *drive, uint32_t dir, uint64_t *ret_ios,
			uint64_t *ret_bytes, unsigned *ret_intervals)
{
	bool seen[64] = { false };

	*ret_ios = *ret_bytes = 0;
	*ret_intervals = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct rb_msg_samples *b = &h->m[i]->samples;

		if (h->m[i]->kind != RB_MSG_SAMPLES)
			continue;
		for (size_t k = 0; k < b->n; k++) {
			const struct rb_msg_sample *s = &b->v[k];

			assert_string_equal(s->drive, drive);
			assert_int_equal(s->direction, dir);
			assert_true(s->interval < 64);
			if (seen[s->interval])
				fail_msg("interval %u of '%s' sampled twice", s->interval, drive);
			seen[s->interval] = true;
			(*ret_intervals)++;
			*ret_ios += s->ios;
			*ret_bytes += s->bytes;
			/* the interval's histogram holds its IOs */
			uint64_t in_hist = 0;

			for (size_t j = 0; j < s->hist.n; j++)
				in_hist += s->hist.cnt[j];
			assert_int_equal(in_hist, s->ios);
		}
	}
}

static const struct rb_dir_result *dir_of(const struct rb_msg_result *r, uint32_t dir)
{
	for (size_t i = 0; i < r->ndirs; i++)
		if (r->dirs[i].direction == dir)
			return &r->dirs[i];
	fail_msg("result of '%s' has no direction %u", r->drive, dir);
	return NULL;
}

/* ---- the tests ---- */

/*
 * A point that runs: Assign, the engine on a file rackbench creates in its state folder,
 * samples every interval, then the drive's result and PointDone. What the samples count
 * is what the result counts; a file has no health of its own, so none is sent.
 */
static void test_point_runs_and_reports(void **st)
{
	struct point_test *p = *st;
	struct harness *t = start(st);
	struct assign a;
	struct heard h = { 0 };
	const char *drives[] = { p->paths[OWN0] };
	const struct rb_msg_result *r;
	const struct rb_dir_result *w;
	uint64_t ios, bytes, bs_ios = 0;
	unsigned intervals;

	assign_short_write(&a, 3, drives, 1);
	a.m.assign.attempt = 1;
	/* a newer coordinator's setting is tolerated */
	assign_set(&a, "some_future_setting", "7");
	send_assign(t, &a);
	until_done(t, 3, &h);
	assert_point_order(t, &h, 1, 3, 1);
	assert_int_equal(count(&h, RB_MSG_HEALTH), 0);
	assert_int_equal(count(&h, RB_MSG_ERROR), 0);
	r = result_of(&h, p->paths[OWN0]);
	assert_int_equal(r->status, RB_STATUS_OK);
	w = dir_of(r, 1);
	assert_true(w->ios > 0);
	assert_int_equal(w->bytes, w->ios * 4096);
	assert_int_equal(w->errors, 0);
	assert_true(w->lat_min_ns <= w->lat_max_ns);
	assert_int_equal(dir_of(r, 0)->ios, 0);
	/* every IO in exactly one sample, and only writes are sampled */
	sum_samples(&h, p->paths[OWN0], 1, &ios, &bytes, &intervals);
	assert_int_equal(ios, w->ios);
	assert_int_equal(bytes, w->bytes);
	assert_int_equal(intervals, 2);
	/* its block sizes: all 4k writes */
	for (size_t i = 0; i < r->nbs_counts; i++) {
		assert_int_equal(r->bs_counts[i].bs, 4096);
		assert_int_equal(r->bs_counts[i].direction, 1);
		bs_ios += r->bs_counts[i].ios;
	}
	assert_int_equal(bs_ios, w->ios);
	/* what was measured: the file rackbench laid out to the point's size */
	assert_non_null(r->target);
	assert_string_equal(r->target->path, p->paths[OWN0]);
	assert_string_equal(r->target->kind, "file");
	assert_int_equal(r->target->size_bytes, 1 << 20);
	assert_int_equal(r->nmembers, 0);
	assert_true(r->core.end_ns >= r->core.start_ns);
	/* nothing recorded of this file before it: its history starts with this point */
	assert_int_equal(r->core.history_since_ns, 0);
	assert_int_equal(r->core.written_since_purge_bytes, 0);
	heard_free(&h);
}

/*
 * An Assign the coordinator sends again (its ack was lost) runs nothing twice: what the
 * point measured is in the spool already. The next answer is the pre-flight's.
 */
static void test_point_assigned_twice_runs_once(void **st)
{
	struct point_test *p = *st;
	struct harness *t = start(st);
	struct assign a;
	struct heard h = { 0 };
	const char *drives[] = { p->paths[OWN0] };
	struct rb_msg *e;
	uint64_t last;

	assign_short_write(&a, 0, drives, 1);
	send_assign(t, &a);
	until_done(t, 0, &h);
	last = h.m[h.n - 1]->seq;
	heard_free(&h);
	send_assign(t, &a);
	harness_preflight(t, NULL, 0);
	e = until(t, &h, RB_MSG_PREFLIGHT_REPLY);
	assert_int_equal(e->seq, last + 1);
	assert_int_equal(h.n, 1);
	/* another attempt of it does run */
	heard_free(&h);
	a.m.assign.attempt = 1;
	send_assign(t, &a);
	until_done(t, 0, &h);
	assert_point_order(t, &h, last + 2, 0, 1);
	assert_int_equal(result_of(&h, p->paths[OWN0])->status, RB_STATUS_OK);
	heard_free(&h);
}

/*
 * What a drive went through is in each of its results: what points wrote since the
 * first record, and, once purged (a purge point), the purge and what was written since.
 */
static void test_point_history_and_purge(void **st)
{
	struct point_test *p = *st;
	struct harness *t = start(st);
	struct assign a;
	struct heard h = { 0 };
	const char *drives[] = { p->paths[OWN0] };
	const struct rb_msg_result *r;
	uint64_t written;

	assign_short_write(&a, 0, drives, 1);
	send_assign(t, &a);
	until_done(t, 0, &h);
	r = result_of(&h, p->paths[OWN0]);
	assert_int_equal(r->status, RB_STATUS_OK);
	assert_int_equal(r->core.history_since_ns, 0);
	written = dir_of(r, 1)->bytes;
	assert_true(written > 0);
	heard_free(&h);

	/* the second point: what the first wrote */
	assign_short_write(&a, 1, drives, 1);
	send_assign(t, &a);
	until_done(t, 1, &h);
	r = result_of(&h, p->paths[OWN0]);
	assert_int_equal(r->status, RB_STATUS_OK);
	assert_true(r->core.history_since_ns > 0);
	assert_int_equal(r->core.written_since_purge_bytes, written);
	assert_int_equal(r->core.purge_ns, 0);
	assert_string_equal(r->purge_method, "");
	heard_free(&h);

	/* a purge point: its drives zeroed on the purge's thread, then "purged" */
	assign_init(&a, 2, drives, 1);
	a.m.assign.destructive = true;
	a.m.assign.purge = "zero";
	send_assign(t, &a);
	until_done(t, 2, &h);
	r = result_of(&h, p->paths[OWN0]);
	assert_int_equal(r->status, RB_STATUS_OK);
	assert_string_equal(r->message, "purged");
	assert_int_equal(count(&h, RB_MSG_SAMPLES), 0);
	assert_int_equal(h.m[h.n - 1]->kind, RB_MSG_POINT_DONE);
	heard_free(&h);

	/* after the purge: nothing written since it */
	assign_short_write(&a, 3, drives, 1);
	send_assign(t, &a);
	until_done(t, 3, &h);
	r = result_of(&h, p->paths[OWN0]);
	assert_int_equal(r->status, RB_STATUS_OK);
	assert_true(r->core.purge_ns > 0);
	assert_string_equal(r->purge_method, "zero");
	assert_int_equal(r->core.written_since_purge_bytes, 0);
	heard_free(&h);
}

/* A purge that cannot run: an unknown method, a drive the guard refuses. */
static void test_purge_refused(void **st)
{
	struct point_test *p = *st;
	struct harness *t = start(st);
	struct assign a;
	struct heard h = { 0 };
	const char *drives[] = { p->paths[USER] };
	const struct rb_msg_result *r;

	assign_init(&a, 0, drives, 1);
	a.m.assign.destructive = true;
	a.m.assign.purge = "shred";
	send_assign(t, &a);
	until_done(t, 0, &h);
	assert_point_order(t, &h, 1, 0, 0);
	r = result_of(&h, p->paths[USER]);
	assert_int_equal(r->status, RB_STATUS_ERROR);
	assert_contains(r->message, "cannot run this purge");
	heard_free(&h);

	/* the user's file is not on the --allow list: refused, left as it was */
	a.m.assign.point = 1;
	a.m.assign.purge = "zero";
	send_assign(t, &a);
	until_done(t, 1, &h);
	r = result_of(&h, p->paths[USER]);
	assert_int_equal(r->status, RB_STATUS_REFUSED);
	assert_contains(r->message, "--allow list");
	heard_free(&h);
}

/* Two files measured as one volume (RAID 0): one result, the volume's, with its members. */
static void test_point_on_a_volume(void **st)
{
	struct point_test *p = *st;
	struct harness *t = start(st);
	struct assign a;
	struct heard h = { 0 };
	const char *drives[] = { "vol0" };
	const char *members[] = { p->paths[OWN0], p->paths[OWN1] };
	struct rb_msg_volume v = { 0 };
	const struct rb_msg_result *r;
	uint64_t ios, bytes;
	unsigned intervals;

	v.name = "vol0";
	v.stripe = 65536;
	v.members = members;
	v.nmembers = 2;
	assign_short_write(&a, 0, drives, 1);
	a.m.assign.volumes = &v;
	a.m.assign.nvolumes = 1;
	send_assign(t, &a);
	until_done(t, 0, &h);
	assert_point_order(t, &h, 1, 0, 0);
	assert_int_equal(count(&h, RB_MSG_RESULT), 1);
	r = result_of(&h, "vol0");
	assert_int_equal(r->status, RB_STATUS_OK);
	assert_string_equal(r->target->kind, "volume");
	assert_int_equal(r->target->size_bytes, 2 << 20);
	assert_int_equal(r->nmembers, 2);
	assert_string_equal(r->members[0].path, p->paths[OWN0]);
	assert_string_equal(r->members[1].path, p->paths[OWN1]);
	assert_string_equal(r->members[1].kind, "file");
	sum_samples(&h, "vol0", 1, &ios, &bytes, &intervals);
	assert_int_equal(ios, dir_of(r, 1)->ios);
	assert_true(ios > 0);
	heard_free(&h);
}

/* One Assign that cannot run, and what its one drive's result must say. */
static void assert_fails(struct harness *t, const struct assign *a, const char *drive,
			 const char *status, const char *why)
{
	struct heard h = { 0 };
	const struct rb_msg_result *r;

	send_assign(t, a);
	until_done(t, a->m.assign.point, &h);
	assert_point_order(t, &h, h.m[0]->seq, a->m.assign.point, a->m.assign.attempt);
	assert_int_equal(count(&h, RB_MSG_SAMPLES), 0);
	assert_int_equal(count(&h, RB_MSG_RESULT), a->m.assign.ndrives);
	r = result_of(&h, drive);
	if (strcmp(rb_status_name(r->status), status) || !strstr(r->message, why))
		fail_msg("point %u: '%s': %s, want %s: '%s'", a->m.assign.point, r->message,
			 rb_status_name(r->status), status, why);
	heard_free(&h);
}

/* Points that cannot start: each drive's result says why, then PointDone; nothing runs. */
static void test_point_that_cannot_start(void **st)
{
	struct point_test *p = *st;
	struct harness *t = start(st);
	struct assign a;
	const char *own[] = { p->paths[OWN0] };
	const char *stranger[] = { "/dev/not-offered" };
	const char *missing[] = { p->paths[MISSING] };
	const char *user[] = { p->paths[USER] };
	const char *pins[] = { "SN-PINNED" };
	const char *members[] = { p->paths[OWN0], p->paths[OWN1] };
	const char *vdrive[] = { "vol0" };
	struct rb_msg_volume v = { 0 };

	assign_short_write(&a, 0, own, 1);
	assign_set(&a, "bs", "banana");
	assert_fails(t, &a, p->paths[OWN0], "error", "'bs' must be a size such as 4k");

	assign_short_write(&a, 1, stranger, 1);
	assert_fails(t, &a, "/dev/not-offered", "error", "agent 'h1' does not offer this target");

	assign_init(&a, 2, missing, 1);
	assign_set(&a, "rw", "read");
	assign_set(&a, "runtime", "200ms");
	assert_fails(t, &a, p->paths[MISSING], "error", "target does not exist");

	/* the campaign pins a serial the file does not report: refused at the run's moment */
	assign_short_write(&a, 3, user, 1);
	a.m.assign.serials = pins;
	a.m.assign.nserials = 1;
	assert_fails(t, &a, p->paths[USER], "refused",
		     "identity does not match the campaign's pin");

	/* a volume in units that are no multiple of 512 bytes */
	v.name = "vol0";
	v.stripe = 1000;
	v.members = members;
	v.nmembers = 2;
	assign_short_write(&a, 4, vdrive, 1);
	a.m.assign.volumes = &v;
	a.m.assign.nvolumes = 1;
	assert_fails(t, &a, "vol0", "error", "not a volume this agent can measure");

	/* writes without the campaign's key */
	assign_short_write(&a, 5, own, 1);
	a.m.assign.destructive = false;
	assert_fails(t, &a, p->paths[OWN0], "refused", "writes need the run's key");
}

/* One point's messages heard and its one drive's result checked against status and why. */
static const struct rb_msg_result *run_one(struct harness *t, const struct assign *a,
					   struct heard *h, const char *drive, const char *status,
					   const char *why)
{
	const struct rb_msg_result *r;

	send_assign(t, a);
	until_done(t, a->m.assign.point, h);
	assert_point_order(t, h, h->m[0]->seq, a->m.assign.point, a->m.assign.attempt);
	r = result_of(h, drive);
	if (strcmp(rb_status_name(r->status), status) || !strstr(r->message, why))
		fail_msg("point %u: '%s': %s, want %s: '%s'", a->m.assign.point, r->message,
			 rb_status_name(r->status), status, why);
	return r;
}

/*
 * An exec point (execphase.h): the agent's own command run on the drive, judged as a
 * write; its exit code, output and what sysbench's parser read come back with the
 * drive's result, and a failing command is an error saying its exit code. A command off
 * the allow-list fails the point naming it; checkpoints and filesystems need a block
 * device's filesystem, and a file has none.
 */
static void test_point_exec_and_filesystems(void **st)
{
	struct point_test *p = *st;
	static char sh[] = "/bin/sh", c[] = "-c", name[] = "summary", code_key[] = "code",
		    zero[] = "0",
		    script[] = "printf 'transactions: 12 (6.00 per sec.)\\n'; echo said >&2; "
			       "exit {code}";
	static char *argv[] = { sh, c, script, NULL };
	static char *keys[] = { code_key, NULL }, *defs[] = { zero, NULL };
	static struct rb_agent_cmd cmd = { .name = name,
					   .argv = argv,
					   .argc = 3,
					   .keys = keys,
					   .defs = defs,
					   .nparams = 1,
					   .timeout_ns = 10000000000ULL,
					   .parser = "sysbench" };
	struct harness *t;
	struct assign a;
	struct heard h = { 0 };
	const char *own[] = { p->paths[OWN0] }, *user[] = { p->paths[USER] };
	const char *members[] = { p->paths[OWN0], p->paths[OWN1] }, *vdrive[] = { "vol0" };
	struct rb_msg_volume v;
	struct rb_kv code = { "code", "3" };
	struct rb_msg_exec ex = { "summary", NULL, 0 };
	const struct rb_msg_result *r;
	struct rb_msg_fs fs = { "ext4", "", "" };

	p->h->cfg.exec.cmds = &cmd;
	p->h->cfg.exec.ncmds = 1;
	t = start(st);
	/* the file first: an exec on a drive rackbench has no filesystem on is a write */
	assign_short_write(&a, 0, own, 1);
	send_assign(t, &a);
	until_done(t, 0, &h);
	heard_free(&h);

	assign_short_write(&a, 1, own, 1);
	a.m.assign.exec = &ex;
	r = run_one(t, &a, &h, p->paths[OWN0], "ok", "");
	assert_non_null(r->exec);
	assert_int_equal(r->exec->exit_code, 0);
	assert_string_equal(r->exec->command, "summary");
	assert_contains(r->exec->stdout_tail, "transactions: 12");
	assert_contains(r->exec->stderr_tail, "said");
	assert_int_equal(r->exec->nmetrics, 2);
	assert_string_equal(r->exec->metrics[1].key, "tps");
	assert_string_equal(r->exec->metrics[1].value, "6");
	heard_free(&h);

	ex.params = &code;
	ex.nparams = 1;
	assign_short_write(&a, 2, own, 1);
	a.m.assign.exec = &ex;
	r = run_one(t, &a, &h, p->paths[OWN0], "error", "command 'summary' exited 3");
	assert_int_equal(r->exec->exit_code, 3);
	heard_free(&h);

	/* at the point's instant, 200 ms on */
	ex = (struct rb_msg_exec){ "summary", NULL, 0 };
	assign_short_write(&a, 7, own, 1);
	a.m.assign.exec = &ex;
	a.m.assign.start_at_ns = rb_mono_ns() + 200000000;
	r = run_one(t, &a, &h, p->paths[OWN0], "ok", "");
	assert_true(r->start_mono_ns >= a.m.assign.start_at_ns);
	heard_free(&h);
	/* a user's file the agent's --allow does not name: judged as a write, refused */
	assign_short_write(&a, 8, user, 1);
	a.m.assign.exec = &ex;
	assert_fails(t, &a, p->paths[USER], "refused", "");
	/* a striped volume: no command runs on one */
	v = (struct rb_msg_volume){
		.name = "vol0", .stripe = 4096, .members = members, .nmembers = 2
	};
	assign_short_write(&a, 9, vdrive, 1);
	a.m.assign.volumes = &v;
	a.m.assign.nvolumes = 1;
	a.m.assign.exec = &ex;
	assert_fails(t, &a, "vol0", "error", "not striped volumes");

	ex = (struct rb_msg_exec){ "rm-everything", NULL, 0 };
	assign_short_write(&a, 3, own, 1);
	a.m.assign.exec = &ex;
	assert_fails(t, &a, p->paths[OWN0], "error", "not on agent 'h1''s allow-list");
	ex = (struct rb_msg_exec){ "summary", &(struct rb_kv){ "shell", "sh" }, 1 };
	assign_short_write(&a, 4, own, 1);
	a.m.assign.exec = &ex;
	assert_fails(t, &a, p->paths[OWN0], "error", "declares no parameter 'shell'");

	assign_short_write(&a, 5, own, 1);
	assign_set(&a, "rw", "checkpoint");
	assign_set(&a, "checkpoint_size", "1m");
	assign_set(&a, "bs", "64k");
	assert_fails(t, &a, p->paths[OWN0], "error", "rw checkpoint writes files on the drive's");
	assign_short_write(&a, 6, own, 1);
	a.m.assign.filesystems = &fs;
	a.m.assign.nfilesystems = 1;
	assert_fails(t, &a, p->paths[OWN0], "error", "a filesystem is made on a block device");
}

/* The first line a shell command prints (a loop device's name), or "" when it fails. */
static void first_line(const char *cmd, char *buf, size_t len)
{
	FILE *f = popen(cmd, "r");

	buf[0] = '\0';
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (!f || pclose(f))
		buf[0] = '\0';
}

/*
 * Checkpoints on a filesystem the agent makes (as root, on a loop device): ext4 made and
 * mounted for the point, two checkpoints by two writers and their restores; the drive's
 * result carries a row each, every writer's time in it, and names the device, not the
 * file; nothing stays mounted.
 */
static void test_point_checkpoints_on_a_filesystem(void **st)
{
	struct point_test *p = *st;
	char img[600], cmd[700], dev[128], *allow[1];
	const char *drives[1];
	struct rb_msg_fs fs = { "ext4", "", "" };
	struct heard h = { 0 };
	struct harness *t;
	struct assign a;
	const struct rb_msg_result *r;

	if (geteuid() != 0 || system("command -v mkfs.ext4 losetup >/dev/null"))
		skip();
	snprintf(img, sizeof(img), "%s/loop.img", p->h->dir);
	snprintf(cmd, sizeof(cmd), "truncate -s 64m '%s' && losetup --find --show '%s'", img, img);
	first_line(cmd, dev, sizeof(dev));
	if (!*dev)
		skip();
	snprintf(p->loop, sizeof(p->loop), "%s", dev);
	drives[0] = allow[0] = dev;
	p->targets[MISSING] = dev; /* offered in the missing file's place */
	p->h->cfg.allow = allow;
	p->h->cfg.nallow = 1;
	t = start(st);
	assign_init(&a, 0, drives, 1);
	a.m.assign.destructive = true;
	a.m.assign.filesystems = &fs;
	a.m.assign.nfilesystems = 1;
	assign_set(&a, "rw", "checkpoint");
	assign_set(&a, "checkpoint_size", "2m");
	assign_set(&a, "checkpoints", "2");
	assign_set(&a, "numjobs", "2");
	assign_set(&a, "bs", "256k");
	assign_set(&a, "interval", "100ms");
	r = run_one(t, &a, &h, dev, "ok", "");
	assert_int_equal(r->ncheckpoints, 4);
	for (size_t i = 0; i < r->ncheckpoints; i++) {
		const struct rb_msg_checkpoint *c = &r->checkpoints[i];
		uint64_t slow = 0;

		assert_int_equal(c->nwriters, 2);
		for (size_t w = 0; w < 2; w++)
			slow = c->writer_ns[w] > slow ? c->writer_ns[w] : slow;
		assert_int_equal(c->duration_ns, slow);
		assert_int_equal(c->bytes, c->writer_bytes[0] + c->writer_bytes[1]);
		assert_int_equal(c->direction, i < 2 ? 1 : 0);
	}
	assert_string_equal(r->target->kind, "block");
	heard_free(&h);
	snprintf(cmd, sizeof(cmd), "grep -q \" %s/fs/\" /proc/self/mountinfo", p->h->state);
	assert_int_not_equal(system(cmd), 0);
}

/*
 * A write the guard refuses on one drive refuses the point: nothing is written on any
 * drive, the refused drive's result says why and the other's names the refused drive.
 */
static void test_point_refused_by_the_guard(void **st)
{
	struct point_test *p = *st;
	struct harness *t = start(st);
	struct assign a;
	struct heard h = { 0 };
	const char *drives[] = { p->paths[OWN0], p->paths[USER] };
	const struct rb_msg_result *r;
	struct stat sb;

	assign_short_write(&a, 0, drives, 2);
	send_assign(t, &a);
	until_done(t, 0, &h);
	assert_point_order(t, &h, 1, 0, 0);
	assert_int_equal(count(&h, RB_MSG_SAMPLES), 0);
	r = result_of(&h, p->paths[USER]);
	assert_int_equal(r->status, RB_STATUS_REFUSED);
	assert_contains(r->message, "is not on the agent's --allow list");
	r = result_of(&h, p->paths[OWN0]);
	assert_int_equal(r->status, RB_STATUS_REFUSED);
	assert_contains(r->message, "not run");
	assert_contains(r->message, p->paths[USER]);
	/* the guard judged every drive before any was opened for writing */
	assert_int_equal(stat(p->paths[USER], &sb), 0);
	assert_int_equal(sb.st_size, 1 << 20);
	heard_free(&h);
}

/*
 * The coordinator stops a running point: its result says so, after what it measured.
 * While it runs the agent beats, takes no second point, and answers the clock probe.
 */
static void test_point_stopped_by_the_coordinator(void **st)
{
	struct point_test *p = *st;
	struct harness *t = start(st);
	struct assign a, other;
	struct heard h = { 0 };
	const char *drives[] = { p->paths[OWN0] };
	struct rb_msg probe, *got;
	const struct rb_msg_result *r;
	uint64_t ios, bytes;
	unsigned intervals;

	assign_short_write(&a, 0, drives, 1);
	assign_set(&a, "runtime", "60s");
	assign_set(&a, "health_interval", "1s");
	send_assign(t, &a);
	until(t, &h, RB_MSG_SAMPLES);
	/* busy: a second point is refused, the first goes on */
	assign_short_write(&other, 1, drives, 1);
	send_assign(t, &other);
	got = until(t, &h, RB_MSG_ERROR);
	assert_int_equal(got->error.code, EBUSY);
	assert_contains(got->error.message, "a point is already running");
	/* a heartbeat at once, then each second of the session's clock while it runs */
	assert_int_equal(h.beats, 1);
	rb_clock_fake_advance(&t->fake, 1500000000LL);
	for (int waited = 0; h.beats < 2 && waited < 10000; waited += 20) {
		struct rb_msg *b = harness_next(t, 20);

		if (b)
			hear(t, &h, b, true);
	}
	assert_int_equal(h.beats, 2);
	/* the clock probe answered at once, in the session's clock */
	rb_msg_init(&probe, RB_MSG_TIME_PROBE);
	probe.time.t0 = 42;
	harness_send(t, &probe);
	got = until(t, &h, RB_MSG_TIME_REPLY);
	assert_int_equal(got->time.t0, 42);
	assert_int_equal(got->time.t1, t->fake.now_ns);
	assert_int_equal(got->time.t2, t->fake.now_ns);
	send_stop(t, "the campaign was aborted");
	until_done(t, 0, &h);
	r = result_of(&h, p->paths[OWN0]);
	assert_int_equal(r->status, RB_STATUS_STOPPED);
	assert_contains(r->message, "stopped by the coordinator");
	sum_samples(&h, p->paths[OWN0], 1, &ios, &bytes, &intervals);
	assert_int_equal(ios, dir_of(r, 1)->ios);
	assert_int_equal(count(&h, RB_MSG_RESULT), 1);
	heard_free(&h);
}

/*
 * At the spool's cap (spool_max) with the coordinator acknowledging nothing, the point
 * is stopped and says so; nothing it measured is dropped.
 */
static void test_point_stopped_at_the_spool_cap(void **st)
{
	struct point_test *p = *st;
	struct harness *t;
	struct assign a;
	struct heard h = { 0 };
	const char *drives[] = { p->paths[OWN0] };
	static char names[400][48];
	const char *many[400];
	const struct rb_msg_result *r;
	uint64_t ios, bytes;
	unsigned intervals;

	p->h->cfg.spool_max_bytes = 65536;
	t = start(st);
	for (int i = 0; i < 400; i++) {
		snprintf(names[i], sizeof(names[i]), "/dev/disk/by-id/not-offered-%03d", i);
		many[i] = names[i];
	}
	assign_short_write(&a, 0, drives, 1);
	assign_set(&a, "runtime", "60s");
	assign_set(&a, "interval", "1s");
	send_assign(t, &a);
	/* each answer refuses 400 drives: three of them hold more than the cap */
	for (int i = 0; i < 3; i++)
		harness_preflight(t, many, 400);
	for (int i = 0; i < 3; i++) {
		struct rb_msg *e = harness_expect(t, RB_MSG_PREFLIGHT_REPLY, 10000);

		assert_non_null(e);
		assert_int_equal(e->preflight_reply.nrefusals, 400);
		hear(t, &h, e, false);
	}
	/* the spool is looked at each second of the session's clock */
	rb_clock_fake_advance(&t->fake, 1100000000LL);
	until_done(t, 0, &h);
	r = result_of(&h, p->paths[OWN0]);
	assert_int_equal(r->status, RB_STATUS_ERROR);
	assert_contains(r->message, "the spool reached its cap");
	sum_samples(&h, p->paths[OWN0], 1, &ios, &bytes, &intervals);
	assert_int_equal(ios, dir_of(r, 1)->ios);
	heard_free(&h);
}

/*
 * The agent shut down (SIGTERM) in the middle of a point: IO stops, and what it measured
 * goes out, every interval of it, with a result that says the point was cut short: not
 * "ok", which would pass for a full run (a resumed campaign runs a stopped one again).
 */
static void test_point_cut_short_by_shutdown(void **st)
{
	struct point_test *p = *st;
	struct harness *t = start(st);
	struct assign a;
	struct heard h = { 0 };
	const char *drives[] = { p->paths[OWN0] };
	const struct rb_msg_result *r;
	uint64_t ios, bytes;
	unsigned intervals;

	assign_short_write(&a, 0, drives, 1);
	assign_set(&a, "runtime", "60s");
	send_assign(t, &a);
	until(t, &h, RB_MSG_SAMPLES);
	pthread_kill(t->thread, SIGTERM);
	until_done(t, 0, &h);
	assert_point_order(t, &h, 1, 0, 0);
	r = result_of(&h, p->paths[OWN0]);
	assert_int_equal(r->status, RB_STATUS_STOPPED);
	assert_contains(r->message, "the agent was shut down");
	sum_samples(&h, p->paths[OWN0], 1, &ios, &bytes, &intervals);
	assert_int_equal(ios, dir_of(r, 1)->ios);
	heard_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_point_runs_and_reports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_point_assigned_twice_runs_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_point_history_and_purge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_purge_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_point_on_a_volume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_point_that_cannot_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_point_exec_and_filesystems, setup, teardown),
		cmocka_unit_test_setup_teardown(test_point_checkpoints_on_a_filesystem, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_point_refused_by_the_guard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_point_stopped_by_the_coordinator, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_point_stopped_at_the_spool_cap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_point_cut_short_by_shutdown, setup, teardown),
	};

	rb_log_init("rackbench-agent", getenv("RB_DEBUG") ? RB_LOG_DEBUG : RB_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
