// SPDX-License-Identifier: MIT
/*
 * The agent's session driven in milliseconds: the real rb_agent_serve in a thread, on
 * the fake clock (rb_agent_cfg.clock), against a scripted coordinator (a ROUTER socket
 * in this thread over inproc://). Its data messages are the pre-flight answers, numbered
 * and spooled like any other: they show the resend after 2 s without acknowledgement and
 * the 16-message credit window.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent.h"
#include "clock.h"
#include "log.h"
#include "transport.h"
#include "wire.h"

struct session_test {
	char dir[64], endpoint[64];
	struct rb_clock_fake fake;
	struct rb_clock clock;
	struct rb_agent_cfg cfg;
	void *router;
	struct rb_peer peer;	/* the agent, once it said Hello */
	uint64_t epoch;		/* its process */
	pthread_t thread;
	bool running;
	int rc;
};

static void *agent_main(void *arg)
{
	struct session_test *t = arg;

	t->rc = rb_agent_serve(&t->cfg);
	return NULL;
}

static int setup(void **st)
{
	static unsigned n;
	struct session_test *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/rb-agent-harness.XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	snprintf(t->endpoint, sizeof(t->endpoint), "inproc://agent-harness-%u-%d", n++,
		 (int)getpid());
	t->router = rb_tx_router_bind(t->endpoint, NULL, 0);
	if (!t->router)
		return -1;
	t->fake.now_ns = 1000000000000LL;
	t->clock = rb_clock_fake(&t->fake);
	t->cfg = (struct rb_agent_cfg){ .coordinator = t->endpoint,
					.name = (char *)"h1",
					.state_dir = t->dir,
					.insecure = true,
					.spool_max_bytes = 1ULL << 30,
					.clock = &t->clock };
	if (pthread_create(&t->thread, NULL, agent_main, t))
		return -1;
	t->running = true;
	*st = t;
	return 0;
}

/* The agent stopped as systemd stops it (SIGTERM, on its own thread), its files gone. */
static int teardown(void **st)
{
	struct session_test *t = *st;
	char cmd[128];

	if (t->running) {
		pthread_kill(t->thread, SIGTERM);
		/* it ends the socket library's context: our socket must be gone first */
		rb_tx_close(t->router);
		t->router = NULL;
		pthread_join(t->thread, NULL);
	}
	rb_tx_close(t->router);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", t->dir);
	free(t);
	return 0;
}

/* The next message of kind want within ms of real time, or NULL; others are skipped. */
static struct rb_msg *expect(struct session_test *t, enum rb_msg_kind want, int ms)
{
	char err[256];

	for (int waited = 0; waited < ms; waited += 20) {
		struct rb_msg *e = NULL;
		struct rb_peer peer;

		if (rb_tx_recv(t->router, 20, &peer, &e, err, sizeof(err)))
			continue;
		if (e->kind == RB_MSG_HELLO) {
			t->peer = peer;
			t->epoch = e->hello.epoch;
		}
		if (e->kind == want)
			return e;
		rb_msg_free(e);
	}
	return NULL;
}

static void send_to_agent(struct session_test *t, struct rb_msg *e)
{
	assert_int_equal(rb_tx_send(t->router, &t->peer, e, false), 0);
}

/* Hello heard, Welcome into run r1 (its spool opens). */
static void welcome(struct session_test *t)
{
	struct rb_msg m, *h = expect(t, RB_MSG_HELLO, 10000);

	assert_non_null(h);
	assert_string_equal(h->hello.name, "h1");
	rb_msg_free(h);
	rb_msg_init(&m, RB_MSG_WELCOME);
	m.welcome.campaign = "harness";
	m.welcome.run = "r1";
	send_to_agent(t, &m);
}

static void preflight(struct session_test *t)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_PREFLIGHT);
	send_to_agent(t, &m);
}

static void ack(struct session_test *t, uint64_t seq)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_ACK);
	m.ack.epoch = t->epoch;
	m.ack.seq = seq;
	send_to_agent(t, &m);
}

/* The numbers of the pre-flight answers that come within ms; their count. */
static size_t replies(struct session_test *t, int ms, uint64_t *seqs, size_t max)
{
	size_t n = 0;
	struct rb_msg *e;

	while ((e = expect(t, RB_MSG_PREFLIGHT_REPLY, ms))) {
		assert_int_equal(e->epoch, t->epoch);
		assert_int_equal(e->preflight_reply.nrefusals, 0);
		if (n < max)
			seqs[n] = e->seq;
		n++;
		rb_msg_free(e);
		ms = 300;	/* the rest of a burst comes at once */
	}
	return n;
}

/* What the coordinator never acknowledged goes again after 2 s, not before; once
 * acknowledged, never again. */
static void test_unacknowledged_sent_again_after_2s(void **st)
{
	struct session_test *t = *st;
	uint64_t seq[4];

	welcome(t);
	preflight(t);
	assert_int_equal(replies(t, 5000, seq, 4), 1);
	assert_int_equal(seq[0], 1);
	rb_clock_fake_advance(&t->fake, 1900000000LL);
	assert_int_equal(replies(t, 400, seq, 4), 0);
	rb_clock_fake_advance(&t->fake, 200000000LL);
	assert_int_equal(replies(t, 5000, seq, 4), 1);
	assert_int_equal(seq[0], 1);	/* the same message, the same number */
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
	struct session_test *t = *st;
	uint64_t seq[32];
	size_t n;

	welcome(t);
	for (int i = 0; i < 20; i++)
		preflight(t);
	n = replies(t, 5000, seq, 32);
	assert_int_equal(n, 16);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(seq[i], i + 1);
	ack(t, 4);	/* 4 credits: not yet half the window */
	assert_int_equal(replies(t, 400, seq, 32), 0);
	ack(t, 8);	/* 8: the held ones go, up to 8 + 16 */
	n = replies(t, 5000, seq, 32);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(seq[i], 17 + i);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unacknowledged_sent_again_after_2s, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_credit_window_of_16, setup, teardown),
	};

	rb_log_init("rackbench-agent", getenv("RB_DEBUG") ? RB_LOG_DEBUG : RB_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
