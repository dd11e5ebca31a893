/* SPDX-License-Identifier: MIT */
/* `rackbench import-fio`: fio job files as a campaign on stdout. */
#ifndef RB_IMPORT_FIO_H
#define RB_IMPORT_FIO_H

/* argv[0] is "import-fio". Returns the exit code. */
int rb_import_fio_cmd(int argc, char **argv);

#endif
