/* SPDX-License-Identifier: MIT */
/* `keygen DIR [NAME]`, one command of both programs. */
#ifndef RB_CMD_KEYGEN_H
#define RB_CMD_KEYGEN_H

#include "parseopt.h"

/* The command's table, named "PROG keygen" (prog: "rackbench" or "rackbench-agent"). */
void rb_keygen_spec(struct rb_popt_cmd *ret, const char *prog);
/* `PROG keygen DIR [NAME]`; NAME defaults to default_name. Returns the exit code. */
int rb_keygen_cmd(int argc, char **argv, const char *prog, const char *default_name);

#endif
