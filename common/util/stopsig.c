/* SPDX-License-Identifier: MIT */
/* The process's stop signal (stopsig.h). */
#include "stopsig.h"

#include <errno.h>
#include <stddef.h>

volatile sig_atomic_t rb_stop_flag;

static volatile sig_atomic_t *also_flag;
static void (*volatile hup_fn)(void);

static void on_signal(int sig)
{
	int saved_errno = errno; /* a handler leaves errno as it found it */

	if (sig == SIGHUP && hup_fn) {
		hup_fn();
	} else {
		rb_stop_flag = 1;
		if (also_flag)
			*also_flag = 1;
	}
	errno = saved_errno;
}

void rb_stop_signals(volatile sig_atomic_t *also, bool hup_stops, void (*on_hup)(void))
{
	struct sigaction sa = { .sa_handler = on_signal };

	also_flag = also;
	hup_fn = on_hup;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (on_hup || hup_stops)
		sigaction(SIGHUP, &sa, NULL);
}
