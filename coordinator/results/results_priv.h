/* SPDX-License-Identifier: MIT */
/*
 * What the results writer (results.c) and reader (results_read.c) share, defined in
 * results_layout.c: every table's columns with their offsets, kinds and units, the
 * HDF5 types made from them, and HDF5's once-per-process setup. Private to those three
 * files; results.h is the module's API.
 */
#ifndef RB_RESULTS_PRIV_H
#define RB_RESULTS_PRIV_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>

#include "results.h"

enum ftype { FT_U8, FT_U32, FT_U64, FT_I64, FT_F64, FT_STR };

struct field {
	const char *name;
	size_t off;
	enum ftype t;
	size_t len;
	const char *unit;
};

enum {
	T_AGENTS,
	T_DRIVES,
	T_POINTS,
	T_RESULTS,
	T_SAMPLES,
	T_HIST, /* hist_bins (schema 8 on) */
	T_BS,
	T_HEALTH,
	T_STEADY,
	T_MEMBERS,
	T_IOERRORS,
	T_VERDICTS,
	T_CKPT,		/* checkpoints (schema 10 on) */
	T_CKPT_WRITERS, /* checkpoint_writers (schema 10 on) */
	T_EXEC,		/* exec (schema 10 on) */
	T_EVIDENCE,	/* evidence (schema 11 on) */
	T_ZONES,	/* zones (schema 12 on) */
	T_DEVLAT,	/* device_latency (schema 13 on) */
	T_FDP_EVENTS,	/* fdp_events (schema 14 on) */
	NWRITTEN,
	T_HIST_V7 = NWRITTEN, /* histograms: files of schema 7 and older, read only */
	NTABLES
};

/* A table of the file: its dataset's name, its columns, its row struct's size. */
struct table_def {
	const char *name;
	const struct field *f;
	size_t nf;
	size_t rowsize;
	const char *desc;
};

/* The tables, in T_* order. */
extern const struct table_def rb_results_tables[NTABLES];

/* HDF5 set up once per process (and per thread): errors not printed, no exit handler. */
void rb_results_hdf5_init(void);
/* A variable-length UTF-8 string type (attributes, the campaign text); the caller closes it. */
hid_t rb_results_vlstr_type(void);
/* A column's HDF5 type: in the file (little-endian) or in memory (native). */
hid_t rb_results_field_type(const struct field *f, bool file);

#endif
