/* SPDX-License-Identifier: MIT */
/*
 * The one command-line parser (git's parse-options is the model). A command describes
 * its options and its positional arguments in a table; from it come the parse, the
 * command's --help and its errors. Every error is one line on stderr, and the command
 * exits RB_EXIT_USAGE:
 *
 *   unknown option '--rate-iop'; did you mean '--rate-iops'?
 *   '--name' needs a value
 *   '--name' given twice
 *   unexpected argument 'x' (see 'rackbench plan --help')
 *
 * "--opt=value" and "--opt value" both work; "--" ends the options. A long name is
 * written with hyphens ("state-dir"), and --state_dir is the same flag: a user may type
 * either spelling. -h and --help print the help on stdout.
 */
#ifndef RB_PARSEOPT_H
#define RB_PARSEOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rb_popt_type {
	RB_POPT_END,	  /* the end of the table */
	RB_POPT_GROUP,	  /* a heading in --help: help is its title */
	RB_POPT_FLAG,	  /* bool *: set; takes no value */
	RB_POPT_STRING,	  /* const char **: the value (pointing into argv) */
	RB_POPT_INT,	  /* int64_t * */
	RB_POPT_UINT,	  /* uint64_t * */
	RB_POPT_SIZE,	  /* uint64_t *: a size such as 4k or 2g (binary units) */
	RB_POPT_DURATION, /* uint64_t *: a duration such as 500ms or 2s, in ns */
	RB_POPT_LIST,	  /* struct rb_popt_list *: every value, in order; repeatable */
	RB_POPT_CALLBACK, /* cb(o, name, value, ctx): value NULL with RB_POPT_NOARG */
	RB_POPT_WORKLOAD, /* every key of the workload option table (common/workload/options.c) as
			   * --KEY VALUE, each to cb with the key's name (underscores) */
};

#define RB_POPT_NOARG 0x1u  /* a callback that takes no value */
#define RB_POPT_REPEAT 0x2u /* may be given more than once (a callback that collects) */
#define RB_POPT_HIDDEN 0x4u /* parsed, not shown in --help */

struct rb_popt {
	enum rb_popt_type type;
	const char *long_name; /* hyphens: "state-dir" (--state_dir is the same); NULL none */
	char short_name;       /* 'o' for -o; 0 none */
	const char *argname;   /* the value's name in --help ("FILE"); NULL for flags */
	const char *help;
	void *value; /* where the value is stored, by type */
	/*
	 * RB_POPT_CALLBACK and RB_POPT_WORKLOAD: name is the option's name (the long one
	 * in its table's form, a workload key with underscores), value its text. Returns 0,
	 * or -1 after saying what was wrong in one line.
	 */
	int (*cb)(const struct rb_popt *o, const char *name, const char *value, void *ctx);
	unsigned flags; /* RB_POPT_NOARG, RB_POPT_REPEAT, RB_POPT_HIDDEN */
};

#define RB_PARG_OPTIONAL 0x1u /* may be absent */
#define RB_PARG_MANY 0x2u     /* takes every argument left; value is a struct rb_popt_list * */

/* A positional argument: its name in the usage line and where it goes. */
struct rb_parg {
	const char *name; /* "CAMPAIGN.yaml"; NULL ends the table */
	void *value;	  /* const char **, or struct rb_popt_list * with RB_PARG_MANY */
	unsigned flags;
};

/* The values of a repeated option or of a RB_PARG_MANY argument, in order. */
struct rb_popt_list {
	const char **v; /* NULL-terminated; the strings point into argv */
	size_t n;
};

struct rb_popt_cmd {
	const char *name;    /* "rackbench plan": the usage line's start and the errors' */
	const char *summary; /* one line for the program's command list */
	const char *usage;   /* what follows the name on the usage line; NULL: from the tables */
	const char *desc;    /* the paragraph under the usage line */
	const struct rb_popt *opts; /* RB_POPT_END ends it */
	const struct rb_parg *args; /* NULL: no positional argument */
	const char *epilog;	    /* after the options ("Exit codes: ..."); NULL none */
	/*
	 * Another tool's options on the same line (fio's on `rackbench-agent run`): with
	 * "--<foreign_trigger>" anywhere, every option foreign_kind knows (-1 not, 0 with a
	 * value, 1 without; given the name with '_' between words) and the table has not as
	 * its own goes to *foreign_list in order, its value with it -- a workload key
	 * included, and an option neither knows (the other tool's reader refuses it).
	 * Without the trigger, an option only foreign_kind knows is refused: "'--NAME' is "
	 * foreign_hint. NULL foreign_kind: none.
	 */
	const char *foreign_trigger;
	int (*foreign_kind)(const char *name);
	const char *foreign_hint;
	struct rb_popt_list *foreign_list;
};

/*
 * Parses argv[1..argc-1] (argv[0] is the command's name) into the tables' places; ctx
 * goes to the callbacks. Returns 0 parsed, 1 when --help was printed on stdout, or -1
 * after one line on stderr saying what was wrong.
 */
int rb_parseopt(const struct rb_popt_cmd *cmd, int argc, char **argv, void *ctx);
/* The exit code of a parse that did not return 0: 0 for --help, else RB_EXIT_USAGE. */
int rb_parseopt_exit(int r);
/* The command's help: usage line, description, options aligned with their help. */
void rb_parseopt_help(const struct rb_popt_cmd *cmd, FILE *out);
/* "NAME ARGS [options]": the usage line after "usage: ". */
void rb_parseopt_usage(const struct rb_popt_cmd *cmd, char *buf, size_t len);
/* Calls fn with each long name of the command's table (hyphen form, "--" included). */
void rb_parseopt_names(const struct rb_popt_cmd *cmd, void (*fn)(const char *flag, void *arg),
		       void *arg);
/* A program's command: its name, its entry (argv[0] is its name), its table. */
struct rb_subcmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct rb_popt_cmd *spec;
};
/*
 * argv[1] as one of the program's commands: 1 with *ret_rc its exit code when it is one;
 * 0 when argv[1] is absent or an option (the program's own flags follow); -1 after one
 * line saying it is none of them (with a suggestion for a close name).
 */
int rb_parseopt_dispatch(const char *prog, const struct rb_subcmd *cmds, size_t n, int argc,
			 char **argv, int *ret_rc);
/*
 * A bash completion script for prog, from its tables: its commands at the first word
 * (top's flags there too, when top is not NULL), each command's flags after it; for a
 * word that is not a flag, words(cmd) (a command's positional words, space-separated,
 * or NULL: file names).
 */
void rb_parseopt_bash(FILE *out, const char *prog, const struct rb_subcmd *cmds, size_t n,
		      const struct rb_popt_cmd *top, const char *(*words)(const char *cmd));
/*
 * A program's `completion SHELL` command: spec's one positional is stored in *shell; bash
 * prints rb_parseopt_bash's script of prog's commands, another shell is refused. Returns
 * the exit code.
 */
int rb_parseopt_completion(const struct rb_popt_cmd *spec, const char **shell, int argc,
			   char **argv, const char *prog, const struct rb_subcmd *cmds, size_t n,
			   const struct rb_popt_cmd *top, const char *(*words)(const char *cmd));
/* Frees a list's array (not its strings, which are argv's). */
void rb_popt_list_release(struct rb_popt_list *l);
/* Edit distance of two strings (adjacent swaps count one), for suggestions. */
size_t rb_parseopt_distance(const char *a, const char *b);

#endif
