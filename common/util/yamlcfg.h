/* SPDX-License-Identifier: MIT */
/*
 * YAML documents with positions, for loaders that report FILE:LINE:COLUMN. Wraps
 * libyaml's document API (anchors and aliases resolved by libyaml). Lines and
 * columns returned here are 1-based.
 */
#ifndef RB_YAMLCFG_H
#define RB_YAMLCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

#include "diag.h"

struct rb_yaml {
	yaml_document_t doc;
	bool loaded;
	char *file;
};

/* How deep lists and mappings may nest: a campaign needs about 6 levels. */
#define RB_YAML_MAX_DEPTH 64

/*
 * Parses text: one document, nested at most RB_YAML_MAX_DEPTH levels. A syntax error,
 * an empty document, a second document or deeper nesting is a diagnostic at its
 * position and -EINVAL. On failure y holds nothing (rb_yaml_release is a no-op).
 */
int rb_yaml_load(struct rb_yaml *y, const char *file, const char *text, size_t len,
		 struct rb_diags *d);
void rb_yaml_release(struct rb_yaml *y);
yaml_node_t *rb_yaml_root(struct rb_yaml *y);
yaml_node_t *rb_yaml_get(struct rb_yaml *y, int id);
static inline unsigned rb_yaml_line(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}
static inline unsigned rb_yaml_col(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.column + 1;
}
/*
 * A walk over a mapping's pairs (rb_yaml_pairs) or a list's items (rb_yaml_items): empty
 * when the node is NULL or of another kind. break and continue work as in any loop:
 *
 *	for (struct rb_yaml_it p = rb_yaml_pairs(y, map); rb_yaml_next(&p);)
 *		use(rb_yaml_scalar(p.key), p.value);
 */
struct rb_yaml_it {
	struct rb_yaml *y;
	const yaml_node_pair_t *pair, *pairs_end;
	const yaml_node_item_t *item, *items_end;
	yaml_node_t *key;   /* the pair's key; NULL for an item */
	yaml_node_t *value; /* the pair's value, or the item */
};
struct rb_yaml_it rb_yaml_pairs(struct rb_yaml *y, const yaml_node_t *map);
struct rb_yaml_it rb_yaml_items(struct rb_yaml *y, const yaml_node_t *list);
bool rb_yaml_next(struct rb_yaml_it *it);
/* A mapping's pairs or a list's items; 0 for a scalar or NULL. */
size_t rb_yaml_count(const yaml_node_t *n);
/* The scalar's text, or NULL when n is not a scalar. */
const char *rb_yaml_scalar(const yaml_node_t *n);
/* "a mapping", "a list", "a scalar". */
const char *rb_yaml_kind(const yaml_node_t *n);
/* Adds an error at n's position. */
void rb_yaml_error(struct rb_yaml *y, struct rb_diags *d, const yaml_node_t *n, const char *subject,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/*
 * A file of outside input (a campaign, a configuration, a job file, a trace, a key file,
 * a journal) opened for reading: without blocking on the open (a FIFO would hang its
 * reader for ever), then held to a regular file. The descriptor (blocking again), or
 * -errno: -ENOTSUP for anything but a regular file.
 */
int rb_open_input(const char *path);
/* What a negative errno of rb_open_input (or rb_read_file) means, in words. */
const char *rb_input_error(int e);
/* Reads a whole file (at most max bytes) into a NUL-terminated buffer (rb_open_input). */
int rb_read_file(const char *path, size_t max, char **ret, size_t *ret_len);

#endif
