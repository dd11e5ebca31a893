// SPDX-License-Identifier: MIT
/*
 * rogue_coord: a coordinator (keyless) that welcomes every agent into a run whose id is
 * a path (A1l), for tests/integration/test_fault_run_id.py: it binds ENDPOINT, answers
 * each Hello for SECONDS with Welcome.run = RUN, and prints how many Hellos it heard (an
 * agent that refused the Welcome keeps saying hello).
 *
 *   rogue_coord ENDPOINT RUN SECONDS
 */
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "transport.h"
#include "wire.h"

int main(int argc, char **argv)
{
	void *sock;
	long hellos = 0;
	int64_t until;

	if (argc != 4) {
		fprintf(stderr, "usage: rogue_coord ENDPOINT RUN SECONDS\n");
		return 2;
	}
	sock = rb_tx_router_bind(argv[1], NULL, 0);
	if (!sock)
		return 1;
	until = rb_mono_ns() + (int64_t)atoi(argv[3]) * 1000000000LL;
	while (rb_mono_ns() < until) {
		struct rb_peer peer;
		struct rb_msg *e = NULL, w;
		char err[256];

		if (rb_tx_recv(sock, 100, &peer, &e, err, sizeof(err)))
			continue;
		if (e->kind == RB_MSG_HELLO) {
			hellos++;
			rb_msg_init(&w, RB_MSG_WELCOME);
			w.welcome.campaign = "rogue";
			w.welcome.run = argv[2];
			rb_tx_send(sock, &peer, &w, true);
		}
		rb_msg_free(e);
	}
	printf("%ld\n", hellos);
	rb_tx_close(sock);
	rb_tx_context_term();
	return 0;
}
