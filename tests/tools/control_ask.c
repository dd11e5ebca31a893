// SPDX-License-Identifier: MIT
/*
 * control_ask: one request to `rackbench serve`'s control socket, as the commands send
 * it, and its reply on stdout -- for tests that ask what no command asks (a status
 * limited to a follower's screenful of drives).
 *
 *   control_ask SOCKET REQUEST      (REQUEST's "\n" are newlines)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

int main(int argc, char **argv)
{
	char *req, *rep = NULL;
	size_t n = 0, replen = 0;
	void *sock;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: control_ask SOCKET REQUEST\n");
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
	sock = rb_tx_control_connect(argv[1], 5000);
	if (!sock) {
		fprintf(stderr, "control_ask: cannot connect to %s\n", argv[1]);
		free(req);
		return 1;
	}
	r = rb_tx_text_send(sock, req, n);
	if (!r)
		r = rb_tx_text_recv(sock, 5000, &rep, &replen);
	rb_tx_close(sock);
	free(req);
	if (r) {
		fprintf(stderr, "control_ask: no reply from %s\n", argv[1]);
		return 1;
	}
	fwrite(rep, 1, replen, stdout);
	free(rep);
	return 0;
}
