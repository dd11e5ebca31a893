/* SPDX-License-Identifier: MIT */
/* fio job files as a campaign on stdout (`rackbench import-fio`). */
#ifndef RB_IMPORT_FIO_H
#define RB_IMPORT_FIO_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Prints a campaign with a phase for each job of the files, in order; what does not
 * convert is said with FILE:LINE (an error with strict). agent names the agent whose
 * drives the jobs' filename= are (NULL: localhost); target stands for a job without
 * one. Returns the exit code.
 */
int rb_import_fio(const char *const *files, size_t nfiles, const char *agent, const char *target,
		  bool strict);

#endif
