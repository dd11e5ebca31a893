/* SPDX-License-Identifier: MIT */
/* `rackbench report`: results as tables (terminal, Markdown, CSV), against a baseline. */
#ifndef RB_REPORT_H
#define RB_REPORT_H

/* argv[0] is "report". Returns the exit code. */
int rb_report_cmd(int argc, char **argv);
/* Writes the HTML page of one results file, printing nothing else. Returns an exit code. */
int rb_report_html(const char *results, const char *html);

#endif
