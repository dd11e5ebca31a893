/* SPDX-License-Identifier: MIT */
/*
 * The agent's session driven in milliseconds: the real rb_agent_serve in a thread, on
 * the fake clock (rb_agent_cfg.clock), against a scripted coordinator (a ROUTER socket
 * in the test's thread over inproc://). Shared by the session's and a point's tests.
 */
#ifndef RB_AGENT_HARNESS_H
#define RB_AGENT_HARNESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent.h"
#include "clock.h"
#include "transport.h"
#include "wire.h"

struct harness {
	char dir[64], endpoint[64];
	char state[96];		/* the agent's state folder: dir, or dir/state */
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

/*
 * A temp folder, the coordinator's socket and an insecure agent named "h1" whose state
 * folder is the temp folder; not started, so a test can change cfg first. NULL: failed.
 */
struct harness *harness_new(void);
/* The agent's thread started. 0 or -1. */
int harness_start(struct harness *t);
/* The agent stopped as systemd stops it (SIGTERM, on its own thread), its files gone. */
void harness_free(struct harness *t);
/* cmocka setup and teardown: harness_new and harness_start; harness_free. */
int harness_setup(void **st);
int harness_teardown(void **st);

/* The next message within ms of real time, or NULL; Hello remembers the agent. */
struct rb_msg *harness_next(struct harness *t, int ms);
/* The next message of kind want within ms of real time, or NULL; others are skipped. */
struct rb_msg *harness_expect(struct harness *t, enum rb_msg_kind want, int ms);
void harness_send(struct harness *t, const struct rb_msg *m);
/* Hello heard, Welcome into run (its spool opens). */
void harness_welcome(struct harness *t, const char *run);
/* Welcome into run, the agent's Hello heard before. */
void harness_send_welcome(struct harness *t, const char *run);
/* The coordinator holds epoch's messages up to seq. */
void harness_ack(struct harness *t, uint64_t epoch, uint64_t seq);
/* A pre-flight of drives (n of them; none: an empty one). */
void harness_preflight(struct harness *t, const char *const *drives, size_t n);

#endif
