// SPDX-License-Identifier: MIT
/*
 * The agent's session driven in milliseconds (agent_harness.h: the real rb_agent_serve
 * on a fake clock against a scripted coordinator). Its data messages are the pre-flight
 * answers, numbered and spooled like any other: they show the resend after 2 s without
 * acknowledgement and the 16-message credit window.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent_harness.h"
#include "clock.h"
#include "log.h"
#include "spool.h"
#include "transport.h"
#include "wire.h"

static void welcome(struct harness *t)
{
	harness_welcome(t, "r1");
}

static void preflight(struct harness *t)
{
	harness_preflight(t, NULL, 0);
}

static void ack(struct harness *t, uint64_t seq)
{
	harness_ack(t, t->epoch, seq);
}

/* The numbers of the pre-flight answers that come within ms; their count. */
static size_t replies(struct harness *t, int ms, uint64_t *seqs, size_t max)
{
	size_t n = 0;
	struct rb_msg *e;

	while ((e = harness_expect(t, RB_MSG_PREFLIGHT_REPLY, ms))) {
		assert_int_equal(e->epoch, t->epoch);
		assert_int_equal(e->preflight_reply.nrefusals, 0);
		if (n < max)
			seqs[n] = e->seq;
		n++;
		rb_msg_free(e);
		ms = 300; /* the rest of a burst comes at once */
	}
	return n;
}

/* What the coordinator never acknowledged goes again after 2 s, not before; once
 * acknowledged, never again. */
static void test_unacknowledged_sent_again_after_2s(void **st)
{
	struct harness *t = *st;
	uint64_t seq[4];

	welcome(t);
	preflight(t);
	assert_int_equal(replies(t, 5000, seq, 4), 1);
	assert_int_equal(seq[0], 1);
	rb_clock_fake_advance(&t->fake, 1900000000LL);
	assert_int_equal(replies(t, 400, seq, 4), 0);
	rb_clock_fake_advance(&t->fake, 200000000LL);
	assert_int_equal(replies(t, 5000, seq, 4), 1);
	assert_int_equal(seq[0], 1); /* the same message, the same number */
	ack(t, 1);
	/* taken: the agent's next turn sees the ack before the clock moves on */
	assert_int_equal(replies(t, 400, seq, 4), 0);
	rb_clock_fake_advance(&t->fake, 2500000000LL);
	assert_int_equal(replies(t, 400, seq, 4), 0);
}

/* At most 16 data messages unacknowledged; the rest wait in the spool and go once half
 * the window is open again. */
static void test_credit_window_of_16(void **st)
{
	struct harness *t = *st;
	uint64_t seq[32];
	size_t n;

	welcome(t);
	for (int i = 0; i < 20; i++)
		preflight(t);
	n = replies(t, 5000, seq, 32);
	assert_int_equal(n, 16);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(seq[i], i + 1);
	ack(t, 4); /* 4 credits: not yet half the window */
	assert_int_equal(replies(t, 400, seq, 32), 0);
	ack(t, 8); /* 8: the held ones go, up to 8 + 16 */
	n = replies(t, 5000, seq, 32);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(seq[i], 17 + i);
}

/*
 * A resumed coordinator whose journal was damaged acknowledges less than it did: what
 * the spool still holds of what it had acknowledged goes again, in order, under the same
 * numbers. Once it held everything the spool started over: nothing is left to send.
 */
static void test_ack_going_back_sends_again(void **st)
{
	struct harness *t = *st;
	uint64_t seq[8];

	welcome(t);
	for (int i = 0; i < 5; i++)
		preflight(t);
	assert_int_equal(replies(t, 5000, seq, 8), 5);
	ack(t, 4);
	assert_int_equal(replies(t, 400, seq, 8), 0);
	ack(t, 2);
	assert_int_equal(replies(t, 5000, seq, 8), 2);
	assert_int_equal(seq[0], 3);
	assert_int_equal(seq[1], 4);
	/* all of it held: the spool is emptied, and a later step back finds nothing */
	ack(t, 5);
	ack(t, 1);
	assert_int_equal(replies(t, 400, seq, 8), 0);
}

/* Welcomed into another run: the old run's spool goes (all acknowledged), numbers restart. */
static void test_next_run_numbers_from_1(void **st)
{
	struct harness *t = *st;
	struct rb_msg *got;
	char path[256];
	uint64_t seq[4];

	welcome(t);
	preflight(t);
	preflight(t);
	assert_int_equal(replies(t, 5000, seq, 4), 2);
	ack(t, 2);
	snprintf(path, sizeof(path), "%s/spool/r1-%llu.spool", t->dir,
		 (unsigned long long)t->epoch);
	assert_int_equal(access(path, F_OK), 0);
	harness_send_welcome(t, "r2");
	preflight(t);
	assert_int_equal(replies(t, 5000, seq, 4), 1);
	assert_int_equal(seq[0], 1);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/spool/r2-%llu.spool", t->dir,
		 (unsigned long long)t->epoch);
	assert_int_equal(access(path, F_OK), 0);
	/* its Hello says which run it spools for, and how far */
	rb_clock_fake_advance(&t->fake, 3000000000LL);
	got = harness_expect(t, RB_MSG_HELLO, 5000);
	assert_non_null(got);
	assert_string_equal(got->hello.run, "r2");
	assert_int_equal(got->hello.spooled, 1);
	rb_msg_free(got);
}

/*
 * A run id that is not a plain name never names a file: the welcome is refused and data
 * goes unspooled (unnumbered) until a coordinator welcomes the agent into a proper run.
 */
static void test_welcome_with_a_path_refused(void **st)
{
	struct harness *t = *st;
	struct rb_msg *h = harness_expect(t, RB_MSG_HELLO, 10000), *got;
	static const char *const bad[] = { "../../etc/x", "a/b", ".hidden", "-rf", "a\nb" };
	char path[256];
	uint64_t seq[2];

	assert_non_null(h);
	rb_msg_free(h);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		harness_send_welcome(t, bad[i]);
		preflight(t);
		got = harness_expect(t, RB_MSG_PREFLIGHT_REPLY, 5000);
		assert_non_null(got);
		assert_int_equal(got->seq, 0);
		rb_msg_free(got);
	}
	/* nothing was made in the state folder for them */
	snprintf(path, sizeof(path), "%s/spool", t->dir);
	assert_int_equal(access(path, F_OK), -1);
	harness_send_welcome(t, "r1");
	preflight(t);
	assert_int_equal(replies(t, 5000, seq, 2), 1);
	assert_int_equal(seq[0], 1);
}

/* The harness, not started: the test lays out the state folder first. */
static int setup_unstarted(void **st)
{
	*st = harness_new();
	return *st ? 0 : -1;
}

/* A spool an earlier process of this agent left for run r1: n pre-flight answers. */
static void old_spool(struct harness *t, uint64_t epoch, unsigned n, bool damage_first)
{
	struct rb_spool sp = { .fd = -1 };

	assert_int_equal(rb_spool_open(&sp, t->dir, "r1", epoch), 0);
	for (unsigned i = 1; i <= n; i++) {
		struct rb_msg m;
		uint8_t *buf;
		size_t len;

		rb_msg_init(&m, RB_MSG_PREFLIGHT_REPLY);
		m.epoch = epoch;
		m.seq = i;
		assert_int_equal(rb_msg_pack(&m, &buf, &len), 0);
		assert_int_equal(rb_spool_append(&sp, i, buf, len), 0);
		free(buf);
	}
	rb_spool_close(&sp);
	if (damage_first) {
		/* a flipped bit in the first record's body: its checksum fails */
		int fd = open(sp.path, O_RDWR);
		uint8_t b;

		assert_true(fd >= 0);
		assert_int_equal(pread(fd, &b, 1, 16), 1);
		b ^= 0x40;
		assert_int_equal(pwrite(fd, &b, 1, 16), 1);
		close(fd);
	}
}

/*
 * What an earlier process of this agent spooled for the same run (it was killed) goes
 * again once the coordinator welcomes the new one; each spool goes once acknowledged,
 * a damaged one kept aside with what is whole of it sent.
 */
static void test_earlier_process_spool_sent_again(void **st)
{
	struct harness *t = *st;
	char whole[256], damaged[256], kept[300];
	unsigned from77 = 0, from78 = 0;
	struct rb_msg *e;

	old_spool(t, 77, 3, false);
	old_spool(t, 78, 2, true);
	snprintf(whole, sizeof(whole), "%s/spool/r1-77.spool", t->dir);
	snprintf(damaged, sizeof(damaged), "%s/spool/r1-78.spool", t->dir);
	snprintf(kept, sizeof(kept), "%s.damaged", damaged);
	assert_int_equal(harness_start(t), 0);
	welcome(t);
	while ((e = harness_expect(t, RB_MSG_PREFLIGHT_REPLY, 3000))) {
		if (e->epoch == 77)
			assert_int_equal(e->seq, ++from77);
		else if (e->epoch == 78)
			assert_int_equal(e->seq, 2); /* the whole one after the damage */
		from78 += e->epoch == 78;
		rb_msg_free(e);
		if (from77 == 3 && from78 == 1)
			break;
	}
	assert_int_equal(from77, 3);
	assert_int_equal(from78, 1);
	/* not all of it held yet: kept */
	harness_ack(t, 77, 2);
	harness_ack(t, 78, 2);
	preflight(t); /* its answer comes after both acks are taken */
	e = harness_expect(t, RB_MSG_PREFLIGHT_REPLY, 5000);
	assert_non_null(e);
	assert_int_equal(e->epoch, t->epoch);
	rb_msg_free(e);
	assert_int_equal(access(whole, F_OK), 0);
	assert_int_equal(access(damaged, F_OK), -1);
	assert_int_equal(access(kept, F_OK), 0);
	harness_ack(t, 77, 3);
	preflight(t);
	e = harness_expect(t, RB_MSG_PREFLIGHT_REPLY, 5000);
	assert_non_null(e);
	rb_msg_free(e);
	assert_int_equal(access(whole, F_OK), -1);
}

/* A coordinator of another major version is told so, naming this agent. */
static void test_other_protocol_answered_with_an_error(void **st)
{
	struct harness *t = *st;
	struct rb_msg m, *got;
	uint64_t seq[2];

	welcome(t);
	rb_msg_init(&m, RB_MSG_PREFLIGHT);
	m.major = RB_PROTO_MAJOR + 1;
	harness_send(t, &m);
	got = harness_expect(t, RB_MSG_ERROR, 5000);
	assert_non_null(got);
	assert_int_equal(got->error.code, EPROTONOSUPPORT);
	assert_non_null(strstr(got->error.message, "agent 'h1'"));
	rb_msg_free(got);
	/* what it does not take (an Error, a message for coordinators) changes nothing */
	rb_msg_init(&m, RB_MSG_ERROR);
	m.error.code = 1;
	m.error.message = "a coordinator's complaint";
	harness_send(t, &m);
	rb_msg_init(&m, RB_MSG_POINT_DONE);
	harness_send(t, &m);
	preflight(t);
	assert_int_equal(replies(t, 5000, seq, 2), 1);
	assert_int_equal(seq[0], 1);
}

/*
 * A service with no run welcomes an agent into no run (""): the agent takes it without
 * complaint, opens no spool, and goes on saying Hello (its liveness to the service) until
 * a run welcomes it.
 */
static void test_welcome_into_no_run(void **st)
{
	struct harness *t = *st;
	struct rb_msg *h = harness_expect(t, RB_MSG_HELLO, 10000);
	char path[256], said[4096] = "";
	int saved = dup(2), fd;
	FILE *log = tmpfile();
	uint64_t seq[2];

	assert_non_null(h);
	rb_msg_free(h);
	assert_non_null(log);
	fflush(stderr);
	dup2(fileno(log), 2);
	for (int i = 0; i < 3; i++) {
		harness_send_welcome(t, "");
		rb_clock_fake_advance(&t->fake, 2500000000LL);
		h = harness_expect(t, RB_MSG_HELLO, 5000);
		assert_non_null(h);
		assert_string_equal(h->hello.run, "");
		rb_msg_free(h);
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fd = fileno(log);
	assert_true(pread(fd, said, sizeof(said) - 1, 0) > 0);
	fclose(log);
	assert_null(strstr(said, "refused the coordinator's welcome"));
	assert_non_null(strstr(said, "registered with the coordinator's service (no run yet)"));
	/* said once, not at every Welcome */
	assert_null(strstr(strstr(said, "no run yet") + 1, "no run yet"));
	snprintf(path, sizeof(path), "%s/spool", t->dir);
	assert_int_equal(access(path, F_OK), -1);
	/* a run's Welcome then opens its spool and numbers from 1 */
	harness_send_welcome(t, "r1");
	preflight(t);
	assert_int_equal(replies(t, 5000, seq, 2), 1);
	assert_int_equal(seq[0], 1);
}

/* The agent's spool file of run r1, or "" (its name carries the process's epoch). */
static void spool_path(struct harness *t, char *buf, size_t len)
{
	char pat[256];
	glob_t g;

	snprintf(pat, sizeof(pat), "%s/spool/r1-*.spool", t->dir);
	buf[0] = '\0';
	if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc == 1)
		snprintf(buf, len, "%s", g.gl_pathv[0]);
	globfree(&g);
}

static int count_rec(void *arg, uint64_t seq, const uint8_t *buf, size_t len)
{
	(void)buf;
	(void)len;
	*(uint64_t *)arg = seq;
	return 0;
}

/*
 * The spool's folder full (here: the file size limit at the spool's size): what it cannot
 * hold is kept in memory and sent as any other, numbered without a gap; acknowledged, it is
 * let go, and once the spool takes writes again the next message is in it.
 */
static void test_spool_full_kept_in_memory(void **st)
{
	struct harness *t = *st;
	struct rlimit old, lim;
	struct stat sb;
	char path[512];
	uint64_t seq[8], last = 0;

	welcome(t);
	preflight(t);
	assert_int_equal(replies(t, 5000, seq, 8), 1);
	assert_int_equal(seq[0], 1);
	spool_path(t, path, sizeof(path));
	assert_true(path[0]);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = (rlim_t)sb.st_size;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int i = 0; i < 3; i++)
		preflight(t);
	assert_int_equal(replies(t, 5000, seq, 8), 3);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	/* sent from memory, in order, none lost; the spool did not grow */
	assert_int_equal(seq[0], 2);
	assert_int_equal(seq[1], 3);
	assert_int_equal(seq[2], 4);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(rb_spool_walk(path, 0, count_rec, &last), 1);
	/* held by the coordinator: memory let go; the spool takes the next one again */
	harness_ack(t, t->epoch, 4);
	preflight(t);
	assert_int_equal(replies(t, 5000, seq, 8), 1);
	assert_int_equal(seq[0], 5);
	/* (a spool the coordinator holds all of may start over: 5 is its last record) */
	last = 0;
	assert_true(rb_spool_walk(path, 0, count_rec, &last) >= 1);
	assert_int_equal(last, 5);
}

/* The agent's info lines said (set before its thread starts, reset after it ends: its
 * level is read by that thread). */
static int setup_info(void **st)
{
	rb_log_init("rackbench-agent", RB_LOG_INFO);
	return harness_setup(st);
}

static int teardown_info(void **st)
{
	int r = harness_teardown(st);

	rb_log_init("rackbench-agent", getenv("RB_DEBUG") ? RB_LOG_DEBUG : RB_LOG_WARN);
	return r;
}

/* After a Stop the agent says Hello again, a second later on its clock, not before. */
static void test_hello_again_a_second_after_stop(void **st)
{
	struct harness *t = *st;
	struct rb_msg m, *got;
	uint64_t seq[2];

	welcome(t);
	rb_msg_init(&m, RB_MSG_STOP);
	m.stop.reason = "the campaign ended";
	harness_send(t, &m);
	preflight(t); /* answered after the Stop was taken */
	assert_int_equal(replies(t, 5000, seq, 2), 1);
	rb_clock_fake_advance(&t->fake, 600000000LL);
	assert_null(harness_expect(t, RB_MSG_HELLO, 400));
	rb_clock_fake_advance(&t->fake, 500000000LL);
	got = harness_expect(t, RB_MSG_HELLO, 5000);
	assert_non_null(got);
	assert_string_equal(got->hello.run, "r1");
	rb_msg_free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unacknowledged_sent_again_after_2s,
						harness_setup, harness_teardown),
		cmocka_unit_test_setup_teardown(test_credit_window_of_16, harness_setup,
						harness_teardown),
		cmocka_unit_test_setup_teardown(test_ack_going_back_sends_again, harness_setup,
						harness_teardown),
		cmocka_unit_test_setup_teardown(test_next_run_numbers_from_1, harness_setup,
						harness_teardown),
		cmocka_unit_test_setup_teardown(test_welcome_with_a_path_refused, harness_setup,
						harness_teardown),
		cmocka_unit_test_setup_teardown(test_earlier_process_spool_sent_again,
						setup_unstarted, harness_teardown),
		cmocka_unit_test_setup_teardown(test_other_protocol_answered_with_an_error,
						harness_setup, harness_teardown),
		cmocka_unit_test_setup_teardown(test_welcome_into_no_run, setup_info,
						teardown_info),
		cmocka_unit_test_setup_teardown(test_spool_full_kept_in_memory, harness_setup,
						harness_teardown),
		cmocka_unit_test_setup_teardown(test_hello_again_a_second_after_stop, harness_setup,
						harness_teardown),
	};

	rb_log_init("rackbench-agent", getenv("RB_DEBUG") ? RB_LOG_DEBUG : RB_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
