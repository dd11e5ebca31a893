// SPDX-License-Identifier: MIT
#include "agent_harness.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

static void *agent_main(void *arg)
{
	struct harness *t = arg;

	t->rc = rb_agent_serve(&t->cfg);
	return NULL;
}

struct harness *harness_new(void)
{
	static unsigned n;
	struct harness *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	snprintf(t->dir, sizeof(t->dir), "/tmp/rb-agent-harness.XXXXXX");
	if (!mkdtemp(t->dir)) {
		free(t);
		return NULL;
	}
	snprintf(t->state, sizeof(t->state), "%s", t->dir);
	snprintf(t->endpoint, sizeof(t->endpoint), "inproc://agent-harness-%u-%d", n++,
		 (int)getpid());
	t->router = rb_tx_router_bind(t->endpoint, NULL, 0);
	t->fake.now_ns = 1000000000000LL;
	t->clock = rb_clock_fake(&t->fake);
	t->cfg = (struct rb_agent_cfg){ .coordinator = t->endpoint,
					.name = (char *)"h1",
					.state_dir = t->state,
					.insecure = true,
					.spool_max_bytes = 1ULL << 30,
					.clock = &t->clock };
	if (!t->router) {
		harness_free(t);
		return NULL;
	}
	return t;
}

int harness_start(struct harness *t)
{
	if (pthread_create(&t->thread, NULL, agent_main, t))
		return -1;
	t->running = true;
	return 0;
}

void harness_free(struct harness *t)
{
	char cmd[128];

	if (!t)
		return;
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
}

int harness_setup(void **st)
{
	struct harness *t = harness_new();

	if (!t || harness_start(t)) {
		harness_free(t);
		return -1;
	}
	*st = t;
	return 0;
}

int harness_teardown(void **st)
{
	harness_free(*st);
	return 0;
}

struct rb_msg *harness_next(struct harness *t, int ms)
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
		return e;
	}
	return NULL;
}

struct rb_msg *harness_expect(struct harness *t, enum rb_msg_kind want, int ms)
{
	for (int waited = 0; waited < ms; waited += 20) {
		struct rb_msg *e = harness_next(t, 20);

		if (e && e->kind == want)
			return e;
		rb_msg_free(e);
	}
	return NULL;
}

void harness_send(struct harness *t, const struct rb_msg *m)
{
	assert_int_equal(rb_tx_send(t->router, &t->peer, m, false), 0);
}

void harness_welcome(struct harness *t, const char *run)
{
	struct rb_msg *h = harness_expect(t, RB_MSG_HELLO, 10000);

	assert_non_null(h);
	assert_string_equal(h->hello.name, "h1");
	rb_msg_free(h);
	harness_send_welcome(t, run);
}

void harness_send_welcome(struct harness *t, const char *run)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_WELCOME);
	m.welcome.campaign = "harness";
	m.welcome.run = run;
	harness_send(t, &m);
}

void harness_ack(struct harness *t, uint64_t epoch, uint64_t seq)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_ACK);
	m.ack.epoch = epoch;
	m.ack.seq = seq;
	harness_send(t, &m);
}

void harness_preflight(struct harness *t, const char *const *drives, size_t n)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_PREFLIGHT);
	m.preflight.drives = drives;
	m.preflight.ndrives = n;
	harness_send(t, &m);
}
