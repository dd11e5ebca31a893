/* SPDX-License-Identifier: MIT */
/* `rackbench demo`: two local agents, four file targets, a small built-in campaign. */
#ifndef RB_DEMO_H
#define RB_DEMO_H

/* Runs the demo, its results into the folder out (NULL: the current one). Returns the
 * exit code. */
int rb_demo(const char *out);

#endif
