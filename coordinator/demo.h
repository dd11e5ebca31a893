/* SPDX-License-Identifier: MIT */
/* `rackbench demo`: two local agents, four file targets, a small built-in campaign. */
#ifndef RB_DEMO_H
#define RB_DEMO_H

/* argv[0] is "demo". Returns the exit code. */
int rb_demo_cmd(int argc, char **argv);

#endif
