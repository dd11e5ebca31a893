/* SPDX-License-Identifier: MIT */
/*
 * CURVE keys and the coordinator's agent allow-list.
 *
 * Design note. Every connection is CURVE-encrypted and authenticated unless a run says
 * insecure. The coordinator binds a ZAP handler (a thread with a REP socket on
 * inproc://zeromq.zap.01 in the same context) before its ROUTER socket: libzmq accepts
 * any client key when no handler answers, so the handler's death is fatal to the
 * coordinator (rb_zap_alive()). The handler accepts only keys on the allow-list file
 * (lines "NAME PUBLIC-KEY"), which it reloads when asked (SIGHUP), logs every refused
 * key, and hands the agent's name to libzmq as the connection's User-Id, so every
 * message carries the name its key belongs to and the coordinator checks it against
 * the name the agent claims. Agents pin the coordinator's public key.
 *
 * A service's admin endpoint (serve --admin-listen) is judged by the same handler against
 * a second list of the same format, its admin keys: libzmq hands the handler each
 * connection's ZAP domain, the agents' socket RB_ZAP_DOMAIN_AGENTS and the admin socket
 * RB_ZAP_DOMAIN_ADMIN, and a key counts only on its domain's list (an agent's key opens
 * no admin connection, nor an admin's key an agent's).
 *
 * Key files hold "public-key = Z85" and, for a key pair, "secret-key = Z85" (mode 0600).
 */
#ifndef RB_KEYS_H
#define RB_KEYS_H

#include <stdbool.h>
#include <stddef.h>

struct rb_keypair {
	char pub[41];
	char sec[41]; /* "" when only the public key is known */
};

/* A new key pair; 0 or negative errno (no CURVE in this libzmq: -ENOTSUP). */
int rb_keys_generate(struct rb_keypair *ret);
/* Writes DIR/NAME.key (both keys, 0600) and DIR/NAME.pub. 0 or negative errno. */
int rb_keys_write(const char *dir, const char *name, const struct rb_keypair *k);
/* Whether s is a CURVE key in Z85: 40 characters of its alphabet. */
bool rb_keys_is_z85(const char *s);
/* Reads a key file; need_secret refuses a public-only file. 0 or -EINVAL with err. */
int rb_keys_read(const char *file, bool need_secret, struct rb_keypair *ret, char *err,
		 size_t errlen);

struct rb_zap;

#define RB_ZAP_DOMAIN_AGENTS "rackbench"
#define RB_ZAP_DOMAIN_ADMIN "rackbench-admin"

/*
 * Starts the ZAP handler with the allow-list file, bound before it returns.
 * Returns NULL with err filled (a bad list names file and line).
 */
struct rb_zap *rb_zap_start(const char *allowlist, char *err, size_t errlen);
/*
 * The same with the admin endpoint's list too (admins NULL: none, no admin key passes);
 * an admin key refused is said on admin_log (a descriptor the caller keeps open while the
 * handler runs; -1: stderr).
 */
struct rb_zap *rb_zap_start_admin(const char *allowlist, const char *admins, int admin_log,
				  char *err, size_t errlen);
/* False once the handler thread has ended: the coordinator must stop. */
bool rb_zap_alive(const struct rb_zap *z);
/*
 * Asks the handler thread to reread its lists before the next request.
 * Safe from a signal handler: it sets one lock-free atomic flag.
 */
void rb_zap_reload(void);
void rb_zap_stop(struct rb_zap *z);

#endif
