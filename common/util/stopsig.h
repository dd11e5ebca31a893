/* SPDX-License-Identifier: MIT */
/*
 * The process's stop signal: one handler for both programs. SIGINT and SIGTERM set
 * rb_stop_flag, which a run, a service or an agent's loop polls; SIGHUP reloads (a
 * caller's async-signal-safe function), stops, or keeps its default.
 */
#ifndef RB_STOPSIG_H
#define RB_STOPSIG_H

#include <signal.h>
#include <stdbool.h>

/* Set to 1 by a stop signal; the caller clears it when it starts over. */
extern volatile sig_atomic_t rb_stop_flag;

/*
 * Installs the handler: SIGINT and SIGTERM set rb_stop_flag and *also (when given: a
 * flag of the caller's that a signal raises too); SIGHUP calls on_hup when given, else
 * stops when hup_stops, else is left alone. Without SA_RESTART, so a blocking call
 * returns EINTR; the handler leaves errno as it found it. Called again, it replaces
 * what the last call said.
 */
void rb_stop_signals(volatile sig_atomic_t *also, bool hup_stops, void (*on_hup)(void));

#endif
