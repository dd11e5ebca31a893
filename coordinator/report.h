/* SPDX-License-Identifier: MIT */
/* `rackbench report`: results as tables (terminal, Markdown, CSV), against a baseline. */
#ifndef RB_REPORT_H
#define RB_REPORT_H

/* argv[0] is "report". Returns the exit code. */
int rb_report_cmd(int argc, char **argv);

#endif
