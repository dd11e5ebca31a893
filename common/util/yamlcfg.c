// SPDX-License-Identifier: MIT
#include "yamlcfg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void syntax_error(const yaml_parser_t *p, const char *file, struct rb_diags *d)
{
	const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->context_mark;

	rb_diags_add(d, RB_SEV_ERROR, file, (unsigned)m->line + 1, (unsigned)m->column + 1, NULL,
		     "invalid YAML: %s%s%s", p->problem ? p->problem : "syntax error",
		     p->context ? " " : "", p->context ? p->context : "");
}

/*
 * A first pass over libyaml's events, before it builds the document: libyaml's scanner
 * looks at every open flow level for every token, so its time grows with the square of
 * the nesting depth (40 k levels: 6 s; a 4 MiB file of '[': hours). Counting the depth
 * as the events come stops such a file after RB_YAML_MAX_DEPTH + 1 of them, and the
 * pass also finds a second document, which the loader would otherwise drop unread.
 */
static int check_events(const char *file, const char *text, size_t len, struct rb_diags *d)
{
	yaml_parser_t p;
	yaml_event_t ev;
	unsigned depth = 0, docs = 0;
	int r = 0;

	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	for (bool done = false; !done && !r;) {
		if (!yaml_parser_parse(&p, &ev)) {
			syntax_error(&p, file, d);
			r = -EINVAL;
			break;
		}
		switch (ev.type) {
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				rb_diags_add(
					d, RB_SEV_ERROR, file, (unsigned)ev.start_mark.line + 1,
					(unsigned)ev.start_mark.column + 1, NULL,
					"a second YAML document starts here: the file must hold "
					"one document (remove the '---' and what follows, or "
					"merge the two)");
				r = -EINVAL;
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > RB_YAML_MAX_DEPTH) {
				rb_diags_add(d, RB_SEV_ERROR, file,
					     (unsigned)ev.start_mark.line + 1,
					     (unsigned)ev.start_mark.column + 1, NULL,
					     "nesting limit: lists and mappings nest more than %d "
					     "levels deep here",
					     RB_YAML_MAX_DEPTH);
				r = -E2BIG;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return r;
}

int rb_yaml_load(struct rb_yaml *y, const char *file, const char *text, size_t len,
		 struct rb_diags *d)
{
	yaml_parser_t p;
	int r = 0;

	memset(y, 0, sizeof(*y));
	y->file = strdup(file ? file : "<input>");
	if (!y->file)
		return -ENOMEM;
	r = check_events(y->file, text, len, d);
	if (r) {
		rb_yaml_release(y); /* a failed load leaves nothing to release */
		return r == -E2BIG ? -EINVAL : r;
	}
	if (!yaml_parser_initialize(&p)) {
		rb_yaml_release(y);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &y->doc)) {
		syntax_error(&p, y->file, d);
		r = -EINVAL;
		goto out;
	}
	y->loaded = true;
	if (!yaml_document_get_root_node(&y->doc)) {
		rb_diags_add(d, RB_SEV_ERROR, y->file, 1, 1, NULL, "file is empty");
		r = -EINVAL;
	}
out:
	yaml_parser_delete(&p);
	if (r)
		rb_yaml_release(y);
	return r;
}

void rb_yaml_release(struct rb_yaml *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	free(y->file);
	memset(y, 0, sizeof(*y));
}

yaml_node_t *rb_yaml_root(struct rb_yaml *y)
{
	return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *rb_yaml_get(struct rb_yaml *y, int id)
{
	return yaml_document_get_node(&y->doc, id);
}

const char *rb_yaml_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

const char *rb_yaml_kind(const yaml_node_t *n)
{
	switch (n ? n->type : YAML_NO_NODE) {
	case YAML_MAPPING_NODE:
		return "a mapping";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_SCALAR_NODE:
		return "a scalar";
	default:
		return "nothing";
	}
}

void rb_yaml_error(struct rb_yaml *y, struct rb_diags *d, const yaml_node_t *n, const char *subject,
		   const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	rb_diags_add(d, RB_SEV_ERROR, y->file, n ? rb_yaml_line(n) : 1, n ? rb_yaml_col(n) : 1,
		     subject, "%s", buf);
}

int rb_open_input(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), e;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		e = -errno;
	else if (!S_ISREG(st.st_mode))
		e = -ENOTSUP;
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		e = -errno;
	else
		return fd;
	close(fd);
	return e;
}

const char *rb_input_error(int e)
{
	return e == -ENOTSUP ? "not a regular file (a FIFO, device, socket or folder is not read)"
			     : strerror(-e);
}

int rb_read_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
	int fd = rb_open_input(path);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	char *buf;
	size_t n;

	if (fd < 0)
		return fd;
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		fclose(f);
		free(buf);
		return -e;
	}
	fclose(f);
	if (n > max) {
		free(buf);
		return -EFBIG;
	}
	buf[n] = '\0';
	*ret = buf;
	*ret_len = n;
	return 0;
}

struct rb_yaml_it rb_yaml_pairs(struct rb_yaml *y, const yaml_node_t *map)
{
	struct rb_yaml_it it = { .y = y };

	if (map && map->type == YAML_MAPPING_NODE) {
		it.pair = map->data.mapping.pairs.start;
		it.pairs_end = map->data.mapping.pairs.top;
	}
	return it;
}

struct rb_yaml_it rb_yaml_items(struct rb_yaml *y, const yaml_node_t *list)
{
	struct rb_yaml_it it = { .y = y };

	if (list && list->type == YAML_SEQUENCE_NODE) {
		it.item = list->data.sequence.items.start;
		it.items_end = list->data.sequence.items.top;
	}
	return it;
}

bool rb_yaml_next(struct rb_yaml_it *it)
{
	if (it->pair && it->pair < it->pairs_end) {
		it->key = rb_yaml_get(it->y, it->pair->key);
		it->value = rb_yaml_get(it->y, it->pair->value);
		it->pair++;
		return true;
	}
	if (it->item && it->item < it->items_end) {
		it->key = NULL;
		it->value = rb_yaml_get(it->y, *it->item);
		it->item++;
		return true;
	}
	return false;
}

size_t rb_yaml_count(const yaml_node_t *n)
{
	if (n && n->type == YAML_MAPPING_NODE)
		return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	if (n && n->type == YAML_SEQUENCE_NODE)
		return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	return 0;
}
