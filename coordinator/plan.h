/* SPDX-License-Identifier: MIT */
/* `rackbench plan` and `rackbench options`. */
#ifndef RB_PLAN_H
#define RB_PLAN_H

/* argv[0] is the command name. Each returns the exit code. */
int rb_plan_cmd(int argc, char **argv);
int rb_options_cmd(int argc, char **argv);
int rb_presets_cmd(int argc, char **argv);

#endif
