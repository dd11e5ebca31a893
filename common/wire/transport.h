/* SPDX-License-Identifier: MIT */
/*
 * ZeroMQ transport: the one module that translates libzmq's conventions. Agents
 * connect a DEALER, the coordinator binds a ROUTER; a message is one envelope frame
 * (plus the routing id frame on the ROUTER side). Sockets never cross threads.
 */
#ifndef RB_TRANSPORT_H
#define RB_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#define RB_RID_MAX 256

/*
 * How soon a coordinator that (re)starts hears every idle agent, which a group of "all"
 * agents waits out: an agent's connection is tried again at most RB_RECONNECT_MAX_MS
 * apart (libzmq adds up to 100 ms at random), and an idle agent says Hello at most
 * RB_HELLO_GAP_MAX_NS apart (its back-off, jitter included; its liveness while idle, so
 * a fleet of 2,000 idle agents sends about 2,000 Hellos a second). Hellos sent while the
 * connection is down are dropped, so the two add up.
 */
#define RB_RECONNECT_MAX_MS 1000
#define RB_HELLO_GAP_MAX_NS 1500000000LL

struct rb_peer {
	uint8_t rid[RB_RID_MAX];
	size_t rid_len;
	char user_id[64]; /* the name the ZAP handler gave the connection's key; "" insecure */
};

struct rb_keypair;

/* Shared context of a process. */
void *rb_tx_context(void);
void rb_tx_context_term(void);
/*
 * Binds a ROUTER on endpoint (tcp://127.0.0.1:0 picks a port); ret_endpoint gets
 * the endpoint actually bound. Returns a socket or NULL with errno set.
 */
void *rb_tx_router_bind(const char *endpoint, char *ret_endpoint, size_t len);
/*
 * The same with CURVE (server): clients must present a key the ZAP handler accepts,
 * so start the handler (rb_zap_start()) first. server NULL: keyless.
 */
void *rb_tx_router_bind_keyed(const char *endpoint, const struct rb_keypair *server,
			      char *ret_endpoint, size_t len);
/* Connects a DEALER; libzmq reconnects by itself with a jittered, capped back-off. */
void *rb_tx_dealer_connect(const char *endpoint, const char *identity);
/*
 * With CURVE: this side's key pair, and the server's pinned public key (Z85). The
 * identity is then not used as routing id: the server knows the connection by its key.
 */
void *rb_tx_dealer_connect_keyed(const char *endpoint, const char *identity,
				 const struct rb_keypair *client, const char *server_pub);
void rb_tx_close(void *sock);
/* Sends e (to peer on a ROUTER; peer NULL on a DEALER). 0 or negative errno. */
int rb_tx_send(void *sock, const struct rb_peer *peer, const struct rb_msg *m, bool dontwait);
/* Sends an envelope already packed (a spooled one). 0 or negative errno. */
int rb_tx_send_raw(void *sock, const struct rb_peer *peer, const uint8_t *buf, size_t len,
		   bool dontwait);
/* An Error message (any version reads it): code (an errno) and text. */
int rb_tx_send_error(void *sock, const struct rb_peer *peer, int code, const char *msg);
/*
 * Waits up to timeout_ms (-1: forever) for one message. Returns 0 with a decoded
 * envelope, -EAGAIN on timeout, -EINTR when interrupted by a signal, or a decode
 * error (the frame is consumed; err says why).
 */
int rb_tx_recv(void *sock, int timeout_ms, struct rb_peer *ret_peer, struct rb_msg **ret, char *err,
	       size_t errlen);
/* The same, and with a message (ret 0) a copy of its bytes as received (to free). */
int rb_tx_recv_keep(void *sock, int timeout_ms, struct rb_peer *ret_peer, struct rb_msg **ret,
		    uint8_t **ret_raw, size_t *ret_rawlen, char *err, size_t errlen);

/*
 * The local control socket of `rackbench serve` (a REP socket on ipc://path, created
 * owner-only) and its clients (REQ; a reply not within timeout_ms is an error). A
 * request and a reply are one frame of text, at most 8 MiB.
 */
void *rb_tx_control_bind(const char *path);
void *rb_tx_control_connect(const char *path, int timeout_ms);
int rb_tx_text_send(void *sock, const char *buf, size_t len);
/* 0 and a NUL-terminated copy to free, -EAGAIN on timeout, -EBADMSG, or -errno. */
int rb_tx_text_recv(void *sock, int timeout_ms, char **ret, size_t *ret_len);
/* The same, and the name the ZAP handler gave the sender's key in ret_user ("" none). */
int rb_tx_text_recv_from(void *sock, int timeout_ms, char **ret, size_t *ret_len, char *ret_user,
			 size_t ulen);
/*
 * The service's admin endpoint: the control socket's requests and replies over TCP, a
 * REP socket with CURVE (server) whose clients' keys the ZAP handler judges against its
 * admin list (domain RB_ZAP_DOMAIN_ADMIN in keys.h: start the handler first).
 * tcp://HOST:0 picks a port; ret_endpoint gets the one bound. NULL with errno set.
 */
void *rb_tx_admin_bind(const char *endpoint, const struct rb_keypair *server, char *ret_endpoint,
		       size_t len);
/*
 * Its client: a REQ socket with this side's key pair and the service's pinned public key;
 * a send or a reply not within timeout_ms is -EAGAIN (a service down, or refusing the key:
 * libzmq tries again and again, and says nothing else).
 */
void *rb_tx_admin_connect(const char *endpoint, const struct rb_keypair *client,
			  const char *server_pub, int timeout_ms);
/* Waits until a (bit 0) or b (bit 1; b may be NULL) has a message; 0 on timeout. */
int rb_tx_poll2(void *a, void *b, int timeout_ms);
/* Waits until any of n sockets has a message; ready[i] says which. Count, 0, -errno. */
int rb_tx_poll_many(void *const *socks, size_t n, int timeout_ms, unsigned char *ready);

#endif
