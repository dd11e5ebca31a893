// SPDX-License-Identifier: MIT
#include "endpoint.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* sizeof(((struct sockaddr_un *)0)->sun_path) - 1 */
#define IPC_PATH_MAX 107

static int bad(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int check_tcp(const char *hp, char *err, size_t errlen)
{
	const char *colon = strrchr(hp, ':'), *p;
	unsigned long port = 0;

	if (!colon)
		return bad(err, errlen, "'%s' has no port: write tcp://HOST:PORT", hp);
	if (hp[0] == '[') {
		const char *close = strchr(hp, ']');

		if (!close || close + 1 != colon || close == hp + 1)
			return bad(err, errlen, "'%s' is not [IPV6-ADDRESS]:PORT", hp);
		for (p = hp + 1; p < close; p++)
			if (!isxdigit((unsigned char)*p) && *p != ':' && *p != '.')
				return bad(err, errlen,
					   "'%s' has a character an IPv6 address "
					   "does not",
					   hp);
	} else {
		if (colon == hp)
			return bad(err, errlen,
				   "'%s' has no host: write tcp://HOST:PORT, or "
				   "tcp://*:PORT for every address",
				   hp);
		if (!(colon == hp + 1 && hp[0] == '*'))
			for (p = hp; p < colon; p++)
				if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' &&
				    *p != '_')
					return bad(
						err, errlen,
						"'%s' has a character a host name or address does "
						"not",
						hp);
	}
	p = colon + 1;
	if (!*p)
		return bad(err, errlen, "'%s' has no port after the ':'", hp);
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return bad(
				err, errlen,
				"the port of '%s' is not a number from 1 to 65535 (0: any free one)",
				hp);
		port = port * 10 + (unsigned long)(*p - '0');
		if (port > 65535)
			return bad(err, errlen, "the port of '%s' is past 65535", hp);
	}
	return 0;
}

int rb_endpoint_check(const char *ep, char *err, size_t errlen)
{
	if (!ep)
		return bad(err, errlen, "no endpoint");
	if (!strncmp(ep, "tcp://", 6))
		return check_tcp(ep + 6, err, errlen);
	if (!strncmp(ep, "ipc://", 6)) {
		size_t n = strlen(ep + 6);

		if (!n)
			return bad(err, errlen, "'%s' has no socket path", ep);
		if (n > IPC_PATH_MAX)
			return bad(err, errlen,
				   "the socket path is %zu bytes, longer than a Unix "
				   "socket takes (%d bytes)",
				   n, IPC_PATH_MAX);
		return 0;
	}
	return bad(err, errlen, "'%s' is not tcp://HOST:PORT or ipc://PATH", ep);
}
