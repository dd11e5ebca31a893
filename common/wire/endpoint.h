/* SPDX-License-Identifier: MIT */
/*
 * The endpoints rackbench binds and connects, checked before libzmq sees them: libzmq
 * takes a port of 99999 (it wraps) and a host followed by "/extra" without a word.
 */
#ifndef RB_ENDPOINT_H
#define RB_ENDPOINT_H

#include <stddef.h>

/*
 * Checks ep: "tcp://HOST:PORT" (HOST an address, a name, "*" or "[IPv6]"; PORT 1 to
 * 65535, or 0 to pick a free port) or "ipc://PATH" (a socket path that fits a Unix
 * socket's 107 bytes). Returns 0, or -EINVAL with why in err.
 */
int rb_endpoint_check(const char *ep, char *err, size_t errlen);

#endif
