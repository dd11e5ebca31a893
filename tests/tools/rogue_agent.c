// SPDX-License-Identifier: MIT
/*
 * rogue_agent: an allowed (here: insecure) agent that speaks the protocol but lies, for
 * the fault matrix (tests/integration/test_fault_replays.py). It offers one file drive
 * and, on each Assign, sends under its real epoch what a real agent would (a sample
 * batch per interval, a result, PointDone), and in between:
 *   - the first batch again under 20 made-up epochs (A1g-6: stored once, and its real
 *     epoch must not be pushed out of the coordinator's window);
 *   - samples for a point and an attempt it was never given (A1g-1: not stored);
 *   - a TimeReply with absurd instants (A1g-7: refused, no overflow).
 *
 *   rogue_agent ENDPOINT NAME DRIVE
 * Exits 0 once the coordinator says Stop after a point.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "transport.h"
#include "units.h"
#include "wire.h"

static uint64_t epoch = 0x5eed0001, seq;

static void send_as(void *sock, struct rb_msg *m, uint64_t ep, uint64_t sq)
{
	m->epoch = ep;
	m->seq = sq;
	rb_tx_send(sock, NULL, m, false);
}

static void batch(void *sock, const char *drive, uint32_t point, uint32_t attempt,
		  uint32_t interval, uint64_t ep, uint64_t sq)
{
	static const uint32_t idx[2] = { 2000, 2001 };
	static const uint64_t cnt[2] = { 10, 5 };
	struct rb_msg_sample s = { .point = point,
				   .attempt = attempt,
				   .drive = drive,
				   .interval = interval,
				   .direction = 0,
				   .t_ns = rb_wall_ns(),
				   .ios = 15,
				   .bytes = 15 * 4096,
				   .lat_sum_ns = 15 * 90000,
				   .hist = { idx, cnt, 2 } };
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_SAMPLES);
	m.samples.v = &s;
	m.samples.n = 1;
	send_as(sock, &m, ep, sq);
}

static void run_point(void *sock, const struct rb_msg_assign *a)
{
	const char *drive = a->ndrives ? a->drives[0] : "";
	uint64_t interval_ns = 200000000ULL, runtime_ns = 1000000000ULL;
	struct rb_msg m;
	uint32_t n;

	for (size_t i = 0; i < a->nsettings; i++) {
		if (!strcmp(a->settings[i].key, "interval"))
			rb_parse_duration(a->settings[i].value, &interval_ns);
		else if (!strcmp(a->settings[i].key, "runtime"))
			rb_parse_duration(a->settings[i].value, &runtime_ns);
	}
	n = (uint32_t)(runtime_ns / interval_ns);
	for (uint32_t i = 0; i < n; i++) {
		batch(sock, drive, a->point, a->attempt, i, epoch, ++seq);
		if (i == 0) {
			/* the same batch again, each time as a new agent process */
			for (uint64_t f = 1; f <= 20; f++)
				batch(sock, drive, a->point, a->attempt, 0, epoch + 1000 * f, 1);
			/* a point and an attempt never given */
			batch(sock, drive, 999999, 0, 1, epoch, ++seq);
			batch(sock, drive, a->point, 77, 1, epoch, ++seq);
		}
	}
	rb_msg_init(&m, RB_MSG_RESULT);
	m.result = (struct rb_msg_result){ .point = a->point,
					   .attempt = a->attempt,
					   .drive = drive,
					   .core.elapsed_ns = runtime_ns,
					   .status = RB_STATUS_OK,
					   .message = "",
					   .uring_features = "rogue" };
	send_as(sock, &m, epoch, ++seq);
	rb_msg_init(&m, RB_MSG_POINT_DONE);
	m.point_done.point = a->point;
	m.point_done.attempt = a->attempt;
	send_as(sock, &m, epoch, ++seq);
}

static void hello(void *sock, const char *name, const char *drive)
{
	struct rb_identity ti = { .size_bytes = 64ULL << 20, .logical_block_size = 4096,
				  .writable = true };
	struct rb_msg m;

	rb_wire_strcpy(ti.path, sizeof(ti.path), drive);
	rb_wire_strcpy(ti.kind, sizeof(ti.kind), "file");
	rb_wire_strcpy(ti.model, sizeof(ti.model), "ROGUE");
	rb_wire_strcpy(ti.serial, sizeof(ti.serial), name);
	rb_wire_strcpy(ti.firmware, sizeof(ti.firmware), "1");
	rb_msg_init(&m, RB_MSG_HELLO);
	m.hello = (struct rb_msg_hello){ .name = name,
					 .hostname = name,
					 .kernel = "Linux rogue",
					 .rb_version = RB_VERSION,
					 .epoch = epoch,
					 .targets = &ti,
					 .ntargets = 1 };
	rb_tx_send(sock, NULL, &m, true);
}

int main(int argc, char **argv)
{
	void *sock;
	bool welcomed = false, ran = false;
	int64_t next_hello = 0, deadline;

	if (argc != 4) {
		fprintf(stderr, "usage: rogue_agent ENDPOINT NAME DRIVE\n");
		return 2;
	}
	sock = rb_tx_dealer_connect(argv[1], argv[2]);
	if (!sock)
		return 1;
	deadline = rb_mono_ns() + 120000000000LL;
	while (rb_mono_ns() < deadline) {
		struct rb_msg *env = NULL, m;
		char err[256];

		if (!welcomed && rb_mono_ns() >= next_hello) {
			hello(sock, argv[2], argv[3]);
			next_hello = rb_mono_ns() + 500000000LL;
		}
		if (rb_tx_recv(sock, 100, NULL, &env, err, sizeof(err)))
			continue;
		switch (env->kind) {
		case RB_MSG_WELCOME:
			welcomed = true;
			break;
		case RB_MSG_PREFLIGHT:
			rb_msg_init(&m, RB_MSG_PREFLIGHT_REPLY);
			send_as(sock, &m, epoch, ++seq);
			break;
		case RB_MSG_TIME_PROBE:
			rb_msg_init(&m, RB_MSG_TIME_REPLY);
			m.time.t0 = env->time.t0;
			m.time.t1 = INT64_MAX; /* absurd: refused, not wrapped */
			m.time.t2 = INT64_MIN;
			rb_tx_send(sock, NULL, &m, true);
			break;
		case RB_MSG_ASSIGN:
			run_point(sock, &env->assign);
			ran = true;
			break;
		case RB_MSG_STOP:
			if (ran) {
				rb_msg_free(env);
				rb_tx_close(sock);
				rb_tx_context_term();
				return 0;
			}
			break;
		default:
			break;
		}
		rb_msg_free(env);
	}
	rb_tx_close(sock);
	rb_tx_context_term();
	return 1;
}
