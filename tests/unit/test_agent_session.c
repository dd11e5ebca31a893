// SPDX-License-Identifier: MIT
/*
 * The agent's session driven in milliseconds (agent_harness.h: the real rb_agent_serve
 * on a fake clock against a scripted coordinator). Its data messages are the pre-flight
 * answers, numbered and spooled like any other: they show the resend after 2 s without
 * acknowledgement and the 16-message credit window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "agent_harness.h"
#include "clock.h"
#include "log.h"
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
		ms = 300;	/* the rest of a burst comes at once */
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
		cmocka_unit_test_setup_teardown(test_unacknowledged_sent_again_after_2s, harness_setup,
						harness_teardown),
		cmocka_unit_test_setup_teardown(test_credit_window_of_16, harness_setup,
						harness_teardown),
	};

	rb_log_init("rackbench-agent", getenv("RB_DEBUG") ? RB_LOG_DEBUG : RB_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
