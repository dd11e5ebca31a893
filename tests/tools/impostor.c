// SPDX-License-Identifier: MIT
/*
 * impostor: an allowed key that connects with another agent's name as its routing id
 * and sends nothing (A1f), for tests/integration/test_fault_impostor.py. It counts the
 * messages the coordinator routes to it for SECONDS and prints the count: a coordinator
 * that routes by the key's name, not by routing id, sends it none.
 *
 *   impostor ENDPOINT ROUTING_ID KEY_FILE COORDINATOR_PUB_FILE SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "clock.h"
#include "keys.h"

int main(int argc, char **argv)
{
	struct rb_keypair mine, coord;
	char err[600];
	void *ctx, *s;
	long got = 0;
	int64_t until;
	int t = 100;

	if (argc != 6) {
		fprintf(stderr, "usage: impostor ENDPOINT ROUTING_ID KEY COORDINATOR_PUB SECONDS\n");
		return 2;
	}
	if (rb_keys_read(argv[3], true, &mine, err, sizeof(err)) ||
	    rb_keys_read(argv[4], false, &coord, err, sizeof(err))) {
		fprintf(stderr, "impostor: %s\n", err);
		return 2;
	}
	ctx = zmq_ctx_new();
	s = zmq_socket(ctx, ZMQ_DEALER);
	zmq_setsockopt(s, ZMQ_ROUTING_ID, argv[2], strlen(argv[2]));
	zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, coord.pub, 40);
	zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, mine.pub, 40);
	zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, mine.sec, 40);
	zmq_setsockopt(s, ZMQ_RCVTIMEO, &t, sizeof(t));
	if (zmq_connect(s, argv[1]))
		return 1;
	until = rb_mono_ns() + (int64_t)atoi(argv[5]) * 1000000000LL;
	while (rb_mono_ns() < until) {
		char buf[256];

		if (zmq_recv(s, buf, sizeof(buf), 0) >= 0)
			got++;
	}
	printf("%ld\n", got);
	t = 0;
	zmq_setsockopt(s, ZMQ_LINGER, &t, sizeof(t));
	zmq_close(s);
	zmq_ctx_term(ctx);
	return 0;
}
