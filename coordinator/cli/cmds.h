/* SPDX-License-Identifier: MIT */
/*
 * The coordinator's commands (coordinator/cli/cmd_*.c): each parses its flags with its table
 * and calls the library. argv[0] is the command's name; each returns the exit code.
 */
#ifndef RB_CMDS_H
#define RB_CMDS_H

#include "parseopt.h"

int rb_run_cmd(int argc, char **argv);
int rb_resume_cmd(int argc, char **argv);
int rb_journal_cmd(int argc, char **argv);
int rb_serve_cmd(int argc, char **argv);
int rb_agents_cmd(int argc, char **argv);
int rb_status_cmd(int argc, char **argv);
int rb_abort_cmd(int argc, char **argv);
int rb_plan_cmd(int argc, char **argv);
int rb_options_cmd(int argc, char **argv);
int rb_presets_cmd(int argc, char **argv);
int rb_import_fio_cmd(int argc, char **argv);
int rb_report_cmd(int argc, char **argv);
int rb_demo_cmd(int argc, char **argv);
int rb_history_cmd(int argc, char **argv);
int rb_drives_cmd(int argc, char **argv);
int rb_export_cmd(int argc, char **argv);
int rb_fleet_cmd(int argc, char **argv);
int rb_judge_cmd(int argc, char **argv);

extern const struct rb_popt_cmd rb_coord_run_spec, rb_coord_resume_spec, rb_coord_journal_spec,
	rb_coord_serve_spec, rb_coord_agents_spec, rb_coord_status_spec, rb_coord_abort_spec,
	rb_coord_plan_spec, rb_coord_options_spec, rb_coord_presets_spec, rb_coord_import_fio_spec,
	rb_coord_report_spec, rb_coord_demo_spec, rb_coord_history_spec, rb_coord_drives_spec,
	rb_coord_export_spec, rb_coord_fleet_spec, rb_coord_judge_spec;

#endif
