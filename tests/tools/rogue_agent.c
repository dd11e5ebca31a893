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

static void send_as(void *sock, Rb__Envelope *e, uint64_t ep, uint64_t sq)
{
	e->epoch = ep;
	e->seq = sq;
	rb_tx_send(sock, NULL, e, false);
}

static void batch(void *sock, const char *drive, uint32_t point, uint32_t attempt,
		  uint32_t interval, uint64_t ep, uint64_t sq)
{
	Rb__Envelope e;
	Rb__SampleBatch b = RB__SAMPLE_BATCH__INIT;
	Rb__Sample s = RB__SAMPLE__INIT, *sp = &s;
	uint32_t idx[2] = { 2000, 2001 };
	uint64_t cnt[2] = { 10, 5 };

	s.point = point;
	s.attempt = attempt;
	s.drive = (char *)drive;
	s.interval = interval;
	s.direction = 0;
	s.t_ns = rb_wall_ns();
	s.ios = 15;
	s.bytes = 15 * 4096;
	s.lat_sum_ns = 15 * 90000;
	s.hist_idx = idx;
	s.n_hist_idx = 2;
	s.hist_cnt = cnt;
	s.n_hist_cnt = 2;
	b.samples = &sp;
	b.n_samples = 1;
	rb_wire_init(&e);
	e.body_case = RB__ENVELOPE__BODY_SAMPLES;
	e.samples = &b;
	send_as(sock, &e, ep, sq);
}

static void run_point(void *sock, const Rb__Assign *a)
{
	const char *drive = a->n_drives ? a->drives[0] : "";
	uint64_t interval_ns = 200000000ULL, runtime_ns = 1000000000ULL;
	uint32_t n;

	for (size_t i = 0; i < a->n_settings; i++) {
		if (!strcmp(a->settings[i]->key, "interval"))
			rb_parse_duration(a->settings[i]->value, &interval_ns);
		else if (!strcmp(a->settings[i]->key, "runtime"))
			rb_parse_duration(a->settings[i]->value, &runtime_ns);
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
	Rb__Envelope e;
	Rb__DriveResult r = RB__DRIVE_RESULT__INIT;

	r.point = a->point;
	r.attempt = a->attempt;
	r.drive = (char *)drive;
	r.elapsed_ns = runtime_ns;
	r.status = (char *)"ok";
	r.message = (char *)"";
	r.uring_features = (char *)"rogue";
	rb_wire_init(&e);
	e.body_case = RB__ENVELOPE__BODY_RESULT;
	e.result = &r;
	send_as(sock, &e, epoch, ++seq);
	Rb__PointDone pd = RB__POINT_DONE__INIT;

	pd.point = a->point;
	pd.attempt = a->attempt;
	rb_wire_init(&e);
	e.body_case = RB__ENVELOPE__BODY_POINT_DONE;
	e.point_done = &pd;
	send_as(sock, &e, epoch, ++seq);
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
		Rb__Envelope *env = NULL;
		char err[256];

		if (!welcomed && rb_mono_ns() >= next_hello) {
			Rb__Envelope e;
			Rb__Hello h = RB__HELLO__INIT;
			Rb__TargetInfo ti = RB__TARGET_INFO__INIT, *tp = &ti;

			ti.path = argv[3];
			ti.kind = (char *)"file";
			ti.size_bytes = 64ULL << 20;
			ti.model = (char *)"ROGUE";
			ti.serial = argv[2];
			ti.firmware = (char *)"1";
			ti.logical_block_size = 4096;
			ti.writable = true;
			h.name = argv[2];
			h.hostname = argv[2];
			h.kernel = (char *)"Linux rogue";
			h.rb_version = (char *)RB_VERSION;
			h.epoch = epoch;
			h.targets = &tp;
			h.n_targets = 1;
			rb_wire_init(&e);
			e.body_case = RB__ENVELOPE__BODY_HELLO;
			e.hello = &h;
			rb_tx_send(sock, NULL, &e, true);
			next_hello = rb_mono_ns() + 500000000LL;
		}
		if (rb_tx_recv(sock, 100, NULL, &env, err, sizeof(err)))
			continue;
		switch (env->body_case) {
		case RB__ENVELOPE__BODY_WELCOME:
			welcomed = true;
			break;
		case RB__ENVELOPE__BODY_PREFLIGHT: {
			Rb__Envelope e;
			Rb__PreflightReply pr = RB__PREFLIGHT_REPLY__INIT;

			rb_wire_init(&e);
			e.body_case = RB__ENVELOPE__BODY_PREFLIGHT_REPLY;
			e.preflight_reply = &pr;
			send_as(sock, &e, epoch, ++seq);
			break;
		}
		case RB__ENVELOPE__BODY_TIME_PROBE: {
			Rb__Envelope e;
			Rb__TimeReply tr = RB__TIME_REPLY__INIT;

			tr.t0 = env->time_probe->t0;
			tr.t1 = INT64_MAX; /* absurd: refused, not wrapped */
			tr.t2 = INT64_MIN;
			rb_wire_init(&e);
			e.body_case = RB__ENVELOPE__BODY_TIME_REPLY;
			e.time_reply = &tr;
			rb_tx_send(sock, NULL, &e, true);
			break;
		}
		case RB__ENVELOPE__BODY_ASSIGN:
			run_point(sock, env->assign);
			ran = true;
			break;
		case RB__ENVELOPE__BODY_STOP:
			if (ran) {
				rb_wire_free(env);
				rb_tx_close(sock);
				rb_tx_context_term();
				return 0;
			}
			break;
		default:
			break;
		}
		rb_wire_free(env);
	}
	rb_tx_close(sock);
	rb_tx_context_term();
	return 1;
}
