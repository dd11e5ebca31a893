// SPDX-License-Identifier: MIT
#include "transport.h"

#include "keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <zmq.h>

static void *ctx;

void *rb_tx_context(void)
{
	if (!ctx) {
		struct rlimit rl;

		ctx = zmq_ctx_new();
		if (!ctx)
			return NULL;
		zmq_ctx_set(ctx, ZMQ_BLOCKY, 0);
		/*
		 * A coordinator of a thousand agents holds a descriptor per connection, and a
		 * load generator a socket per simulated agent: the soft descriptor limit up to
		 * the hard one, and libzmq's socket limit (1023 by default) with it.
		 */
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur > 1024)
			zmq_ctx_set(ctx, ZMQ_MAX_SOCKETS,
				    rl.rlim_cur > 65536 ? 65536 : (int)rl.rlim_cur);
	}
	return ctx;
}

void rb_tx_context_term(void)
{
	if (ctx) {
		zmq_ctx_term(ctx);
		ctx = NULL;
	}
}

void *rb_tx_router_bind(const char *endpoint, char *ret_endpoint, size_t len)
{
	return rb_tx_router_bind_keyed(endpoint, NULL, ret_endpoint, len);
}

void *rb_tx_router_bind_keyed(const char *endpoint, const struct rb_keypair *server,
			      char *ret_endpoint, size_t len)
{
	void *s = zmq_socket(rb_tx_context(), ZMQ_ROUTER);
	int one = 1, linger = 5000, hwm = 0, rcvhwm = 64;
	int64_t maxmsg = RB_WIRE_MAX_BYTES + 4096;
	char ep[256];
	size_t eplen = sizeof(ep);
	char tcp0[256];

	if (!s)
		return NULL;
	zmq_setsockopt(s, ZMQ_ROUTER_MANDATORY, &one, sizeof(one));
	/*
	 * Keyless, agents are their names as routing ids and a reconnect takes its name
	 * over. With keys a peer's routing id is never trusted: keyed agents set none
	 * (libzmq numbers each connection) and the coordinator routes to the connection
	 * whose ZAP User-Id is the agent's; a peer claiming a routing id in use is ignored,
	 * never handed what another connection had.
	 */
	if (!server)
		zmq_setsockopt(s, ZMQ_ROUTER_HANDOVER, &one, sizeof(one));
	zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
	zmq_setsockopt(s, ZMQ_SNDHWM, &hwm, sizeof(hwm));
	/*
	 * What libzmq queues from each agent before TCP pushes back: bounded, so a fleet
	 * sending faster than the coordinator writes cannot grow its memory without end
	 * (the agents keep the rest in their spools, and send at most a window ahead of
	 * the acknowledgements anyway).
	 */
	zmq_setsockopt(s, ZMQ_RCVHWM, &rcvhwm, sizeof(rcvhwm));
	zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
	if (server) {
		zmq_setsockopt(s, ZMQ_CURVE_SERVER, &one, sizeof(one));
		zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, server->sec, 40);
		zmq_setsockopt(s, ZMQ_ZAP_DOMAIN, RB_ZAP_DOMAIN_AGENTS,
			       strlen(RB_ZAP_DOMAIN_AGENTS));
	}
	/* "tcp://host:0" is the user-facing way to ask for an ephemeral port */
	snprintf(tcp0, sizeof(tcp0), "%s", endpoint);
	size_t n = strlen(tcp0);
	if (n > 2 && strncmp(tcp0, "tcp://", 6) == 0 && strcmp(tcp0 + n - 2, ":0") == 0)
		snprintf(tcp0 + n - 1, sizeof(tcp0) - n + 1, "*");
	if (zmq_bind(s, tcp0) != 0) {
		int e = errno;

		zmq_close(s);
		errno = e;
		return NULL;
	}
	if (ret_endpoint) {
		zmq_getsockopt(s, ZMQ_LAST_ENDPOINT, ep, &eplen);
		snprintf(ret_endpoint, len, "%s", ep);
	}
	return s;
}

void *rb_tx_dealer_connect(const char *endpoint, const char *identity)
{
	return rb_tx_dealer_connect_keyed(endpoint, identity, NULL, NULL);
}

void *rb_tx_dealer_connect_keyed(const char *endpoint, const char *identity,
				 const struct rb_keypair *client, const char *server_pub)
{
	void *s = zmq_socket(rb_tx_context(), ZMQ_DEALER);
	int linger = 1000, ivl = 100, ivl_max = RB_RECONNECT_MAX_MS, one = 1, sndtimeo = 10000;
	int64_t maxmsg = RB_WIRE_MAX_BYTES + 4096;

	if (!s)
		return NULL;
	zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
	zmq_setsockopt(s, ZMQ_RECONNECT_IVL, &ivl, sizeof(ivl));
	zmq_setsockopt(s, ZMQ_RECONNECT_IVL_MAX, &ivl_max, sizeof(ivl_max));
	zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
	/* queue nothing onto a connection that is not up; blocking sends time out */
	zmq_setsockopt(s, ZMQ_IMMEDIATE, &one, sizeof(one));
	zmq_setsockopt(s, ZMQ_SNDTIMEO, &sndtimeo, sizeof(sndtimeo));
	/* keyed: no routing id of our own, the coordinator knows us by our key */
	if (identity && !client)
		zmq_setsockopt(s, ZMQ_ROUTING_ID, identity, strlen(identity));
	if (client) {
		zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server_pub, 40);
		zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, client->pub, 40);
		zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, client->sec, 40);
	}
	if (zmq_connect(s, endpoint) != 0) {
		int e = errno;

		zmq_close(s);
		errno = e;
		return NULL;
	}
	return s;
}

void rb_tx_close(void *sock)
{
	if (sock)
		zmq_close(sock);
}

int rb_tx_send_raw(void *sock, const struct rb_peer *peer, const uint8_t *buf, size_t len,
		   bool dontwait)
{
	int fl = dontwait ? ZMQ_DONTWAIT : 0;

	if (peer && zmq_send(sock, peer->rid, peer->rid_len, ZMQ_SNDMORE | fl) < 0)
		return -errno;
	if (zmq_send(sock, buf, len, fl) < 0)
		return -errno;
	return 0;
}

int rb_tx_send(void *sock, const struct rb_peer *peer, const struct rb_msg *m, bool dontwait)
{
	uint8_t *buf;
	size_t len;
	int r = rb_msg_pack(m, &buf, &len);

	if (r)
		return r;
	r = rb_tx_send_raw(sock, peer, buf, len, dontwait);
	free(buf);
	return r;
}

int rb_tx_recv(void *sock, int timeout_ms, struct rb_peer *ret_peer, struct rb_msg **ret, char *err,
	       size_t errlen)
{
	return rb_tx_recv_keep(sock, timeout_ms, ret_peer, ret, NULL, NULL, err, errlen);
}

int rb_tx_recv_keep(void *sock, int timeout_ms, struct rb_peer *ret_peer, struct rb_msg **ret,
		    uint8_t **ret_raw, size_t *ret_rawlen, char *err, size_t errlen)
{
	zmq_pollitem_t it = { .socket = sock, .events = ZMQ_POLLIN };
	zmq_msg_t part;
	int more = 0, r, nparts = 0;
	size_t ms = sizeof(more);
	struct rb_peer peer = { .rid_len = 0 };

	r = zmq_poll(&it, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -EAGAIN;
	r = -EBADMSG;
	snprintf(err, errlen, "empty message");
	do {
		zmq_msg_init(&part);
		if (zmq_msg_recv(&part, sock, 0) < 0) {
			int e = errno;

			zmq_msg_close(&part);
			return -e;
		}
		zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &ms);
		nparts++;
		if (more && nparts == 1) {
			/* routing id frame (ROUTER side) */
			peer.rid_len =
				zmq_msg_size(&part) < RB_RID_MAX ? zmq_msg_size(&part) : RB_RID_MAX;
			memcpy(peer.rid, zmq_msg_data(&part), peer.rid_len);
		} else if (!more && r == -EBADMSG && nparts <= 2) {
			const char *uid = zmq_msg_gets(&part, "User-Id");

			snprintf(peer.user_id, sizeof(peer.user_id), "%s", uid ? uid : "");
			r = rb_msg_unpack(zmq_msg_data(&part), zmq_msg_size(&part), ret, err,
					  errlen);
			/* the bytes as received, for a journal: no second encoding */
			if (r == 0 && ret_raw) {
				*ret_rawlen = zmq_msg_size(&part);
				*ret_raw = malloc(*ret_rawlen ? *ret_rawlen : 1);
				if (*ret_raw)
					memcpy(*ret_raw, zmq_msg_data(&part), *ret_rawlen);
			}
		} else if (!more) {
			snprintf(err, errlen, "message has %d frames", nparts);
			if (r == 0) {
				rb_msg_free(*ret);
				r = -EBADMSG;
				if (ret_raw) {
					free(*ret_raw);
					*ret_raw = NULL;
				}
			}
		}
		zmq_msg_close(&part);
	} while (more);
	if (ret_peer)
		*ret_peer = peer;
	return r;
}

/* ---- the local control socket: text requests and replies (REQ/REP over ipc) ---- */

#define CONTROL_MAX (8u << 20)

void *rb_tx_control_bind(const char *path)
{
	void *s = zmq_socket(rb_tx_context(), ZMQ_REP);
	int64_t maxmsg = CONTROL_MAX;
	int linger = 1000;
	char ep[4200];
	mode_t old;
	int r;

	if (!s)
		return NULL;
	zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
	zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
	snprintf(ep, sizeof(ep), "ipc://%s", path);
	/* only this user (root, for a system service) may start campaigns */
	old = umask(077);
	r = zmq_bind(s, ep);
	umask(old);
	if (r) {
		int e = errno;

		zmq_close(s);
		errno = e;
		return NULL;
	}
	return s;
}

void *rb_tx_control_connect(const char *path, int timeout_ms)
{
	void *s = zmq_socket(rb_tx_context(), ZMQ_REQ);
	int linger = 0;
	char ep[4200];

	if (!s)
		return NULL;
	zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
	zmq_setsockopt(s, ZMQ_RCVTIMEO, &timeout_ms, sizeof(timeout_ms));
	zmq_setsockopt(s, ZMQ_SNDTIMEO, &timeout_ms, sizeof(timeout_ms));
	snprintf(ep, sizeof(ep), "ipc://%s", path);
	if (zmq_connect(s, ep)) {
		int e = errno;

		zmq_close(s);
		errno = e;
		return NULL;
	}
	return s;
}

/* ---- the service's admin endpoint: the same text over TCP with CURVE (REQ/REP) ---- */

void *rb_tx_admin_bind(const char *endpoint, const struct rb_keypair *server, char *ret_endpoint,
		       size_t len)
{
	void *s = zmq_socket(rb_tx_context(), ZMQ_REP);
	int64_t maxmsg = CONTROL_MAX;
	int linger = 1000, one = 1;
	char ep[256], tcp0[256];
	size_t eplen = sizeof(ep), n;

	if (!s)
		return NULL;
	zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
	zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
	zmq_setsockopt(s, ZMQ_CURVE_SERVER, &one, sizeof(one));
	zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, server->sec, 40);
	zmq_setsockopt(s, ZMQ_ZAP_DOMAIN, RB_ZAP_DOMAIN_ADMIN, strlen(RB_ZAP_DOMAIN_ADMIN));
	snprintf(tcp0, sizeof(tcp0), "%s", endpoint);
	n = strlen(tcp0);
	if (n > 2 && strncmp(tcp0, "tcp://", 6) == 0 && strcmp(tcp0 + n - 2, ":0") == 0)
		snprintf(tcp0 + n - 1, sizeof(tcp0) - n + 1, "*");
	if (zmq_bind(s, tcp0) != 0) {
		int e = errno;

		zmq_close(s);
		errno = e;
		return NULL;
	}
	if (ret_endpoint) {
		zmq_getsockopt(s, ZMQ_LAST_ENDPOINT, ep, &eplen);
		snprintf(ret_endpoint, len, "%s", ep);
	}
	return s;
}

void *rb_tx_admin_connect(const char *endpoint, const struct rb_keypair *client,
			  const char *server_pub, int timeout_ms)
{
	void *s = zmq_socket(rb_tx_context(), ZMQ_REQ);
	int linger = 0, ivl = 500, ivl_max = 2000;
	int64_t maxmsg = CONTROL_MAX;

	if (!s)
		return NULL;
	zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof(linger));
	zmq_setsockopt(s, ZMQ_RCVTIMEO, &timeout_ms, sizeof(timeout_ms));
	zmq_setsockopt(s, ZMQ_SNDTIMEO, &timeout_ms, sizeof(timeout_ms));
	zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &maxmsg, sizeof(maxmsg));
	/* a refused key is tried again: not often, each try is a line in the service's log */
	zmq_setsockopt(s, ZMQ_RECONNECT_IVL, &ivl, sizeof(ivl));
	zmq_setsockopt(s, ZMQ_RECONNECT_IVL_MAX, &ivl_max, sizeof(ivl_max));
	zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server_pub, 40);
	zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, client->pub, 40);
	zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, client->sec, 40);
	if (zmq_connect(s, endpoint)) {
		int e = errno;

		zmq_close(s);
		errno = e;
		return NULL;
	}
	return s;
}

int rb_tx_text_send(void *sock, const char *buf, size_t len)
{
	return zmq_send(sock, buf, len, 0) < 0 ? -errno : 0;
}

int rb_tx_text_recv(void *sock, int timeout_ms, char **ret, size_t *ret_len)
{
	return rb_tx_text_recv_from(sock, timeout_ms, ret, ret_len, NULL, 0);
}

int rb_tx_text_recv_from(void *sock, int timeout_ms, char **ret, size_t *ret_len, char *ret_user,
			 size_t ulen)
{
	zmq_pollitem_t it = { .socket = sock, .events = ZMQ_POLLIN };
	zmq_msg_t m;
	int r, more = 0;
	size_t ms = sizeof(more);

	*ret = NULL;
	if (ret_user && ulen)
		ret_user[0] = '\0';
	r = zmq_poll(&it, 1, timeout_ms);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -EAGAIN;
	zmq_msg_init(&m);
	if (zmq_msg_recv(&m, sock, 0) < 0) {
		r = -errno;
		zmq_msg_close(&m);
		return r;
	}
	zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &ms);
	if (ret_user && ulen) {
		const char *uid = zmq_msg_gets(&m, "User-Id");

		snprintf(ret_user, ulen, "%s", uid ? uid : "");
	}
	*ret_len = zmq_msg_size(&m);
	*ret = malloc(*ret_len + 1);
	if (*ret) {
		memcpy(*ret, zmq_msg_data(&m), *ret_len);
		(*ret)[*ret_len] = '\0';
	}
	zmq_msg_close(&m);
	/* one frame per request: more is drained and the request refused */
	while (more) {
		zmq_msg_init(&m);
		zmq_msg_recv(&m, sock, 0);
		zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &ms);
		zmq_msg_close(&m);
		free(*ret);
		*ret = NULL;
	}
	return *ret ? 0 : -EBADMSG;
}

int rb_tx_poll2(void *a, void *b, int timeout_ms)
{
	zmq_pollitem_t it[2] = { { .socket = a, .events = ZMQ_POLLIN },
				 { .socket = b, .events = ZMQ_POLLIN } };
	int r = zmq_poll(it, b ? 2 : 1, timeout_ms);

	if (r < 0)
		return -errno;
	return ((it[0].revents & ZMQ_POLLIN) ? 1 : 0) |
	       ((b && (it[1].revents & ZMQ_POLLIN)) ? 2 : 0);
}

int rb_tx_send_error(void *sock, const struct rb_peer *peer, int code, const char *msg)
{
	struct rb_msg m;

	rb_msg_init(&m, RB_MSG_ERROR);
	m.error.code = code;
	m.error.message = msg;
	return rb_tx_send(sock, peer, &m, true);
}

int rb_tx_poll_many(void *const *socks, size_t n, int timeout_ms, unsigned char *ready)
{
	zmq_pollitem_t *it = calloc(n + 1, sizeof(*it));
	int r;

	if (!it)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		it[i] = (zmq_pollitem_t){ .socket = socks[i], .events = ZMQ_POLLIN };
	r = zmq_poll(it, (int)n, timeout_ms);
	if (r < 0)
		r = -errno;
	for (size_t i = 0; i < n; i++)
		ready[i] = (it[i].revents & ZMQ_POLLIN) != 0;
	free(it);
	return r;
}
