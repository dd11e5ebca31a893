// SPDX-License-Identifier: MIT
/*
 * control_ask: one request to `rackbench serve`'s control socket, as the commands send
 * it, and its reply on stdout -- for tests that ask what no command asks (a status
 * limited to a follower's screenful of drives).
 *
 *   control_ask SOCKET REQUEST      (REQUEST's "\n" are newlines)
 *
 * With five arguments, the service's admin endpoint instead, with a client's key pair and
 * the service's public key file (a refused key: no reply within 3 s, exit 3):
 *
 *   control_ask ENDPOINT REQUEST CLIENT.key SERVICE.pub
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "transport.h"

int main(int argc, char **argv)
{
	char *req, *rep = NULL;
	size_t n = 0, replen = 0;
	void *sock;
	int r;

	struct rb_keypair me, svc;
	char err[600];

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: control_ask SOCKET REQUEST [CLIENT.key SERVICE.pub]\n");
		return 2;
	}
	if (argc == 5 && (rb_keys_read(argv[3], true, &me, err, sizeof(err)) ||
			  rb_keys_read(argv[4], false, &svc, err, sizeof(err)))) {
		fprintf(stderr, "control_ask: %s\n", err);
		return 2;
	}
	req = calloc(1, strlen(argv[2]) + 1);
	if (!req)
		return 1;
	for (const char *p = argv[2]; *p; p++) {
		if (p[0] == '\\' && p[1] == 'n') {
			req[n++] = '\n';
			p++;
		} else {
			req[n++] = *p;
		}
	}
	sock = argc == 5 ? rb_tx_admin_connect(argv[1], &me, svc.pub, 3000)
			 : rb_tx_control_connect(argv[1], 5000);
	if (!sock) {
		fprintf(stderr, "control_ask: cannot connect to %s\n", argv[1]);
		free(req);
		return 1;
	}
	r = rb_tx_text_send(sock, req, n);
	if (!r)
		r = rb_tx_text_recv(sock, argc == 5 ? 3000 : 5000, &rep, &replen);
	rb_tx_close(sock);
	free(req);
	if (r && argc == 5) {
		fprintf(stderr, "control_ask: no reply from %s: %s\n", argv[1],
			r == -EAGAIN ? "timed out (down, or the key refused)" : strerror(-r));
		return 3;
	}
	if (r) {
		fprintf(stderr, "control_ask: no reply from %s\n", argv[1]);
		return 1;
	}
	fwrite(rep, 1, replen, stdout);
	free(rep);
	return 0;
}
