// SPDX-License-Identifier: MIT
/*
 * What the codec's files share (wire_priv.h): a message's list of blocks, and a drive's
 * identity both ways. Calls nothing of theirs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_priv.h"
#include "grow.h"

void *pool_alloc(struct pool *p, size_t n, size_t size)
{
	void *x;

	if (p->failed)
		return NULL;
	if (p->budget) {
		/* what a message's arrays take counts with what protobuf-c took for it */
		size_t need = (n + 1) * size;

		if (need > *p->budget) {
			p->failed = p->over = true;
			return NULL;
		}
		*p->budget -= need;
	}
	if (RB_GROW(p->v, p->cap, p->n, 16)) {
		p->failed = true;
		return NULL;
	}
	x = calloc(n + 1, size);
	if (!x) {
		p->failed = true;
		return NULL;
	}
	p->v[p->n++] = x;
	return x;
}

Rb__TargetInfo *ident_out(struct pool *p, const struct rb_identity *x)
{
	Rb__TargetInfo *t = pool_alloc(p, 1, sizeof(*t));

	if (!t)
		return NULL;
	rb__target_info__init(t);
	t->path = (char *)x->path;
	t->kind = (char *)x->kind;
	t->size_bytes = x->size_bytes;
	t->model = (char *)x->model;
	t->serial = (char *)x->serial;
	t->firmware = (char *)x->firmware;
	t->logical_block_size = x->logical_block_size;
	t->writable = x->writable;
	return t;
}

Rb__TargetInfo **idents_out(struct pool *p, const struct rb_identity *v, size_t n)
{
	Rb__TargetInfo **o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++)
		o[i] = ident_out(p, &v[i]);
	return o;
}

void rb_wire_strcpy(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s ? s : "");
}

static void ident_in(struct rb_identity *x, const Rb__TargetInfo *t)
{
	memset(x, 0, sizeof(*x));
	rb_wire_strcpy(x->path, sizeof(x->path), t->path);
	rb_wire_strcpy(x->kind, sizeof(x->kind), t->kind);
	rb_wire_strcpy(x->model, sizeof(x->model), t->model);
	rb_wire_strcpy(x->serial, sizeof(x->serial), t->serial);
	rb_wire_strcpy(x->firmware, sizeof(x->firmware), t->firmware);
	x->size_bytes = t->size_bytes;
	x->logical_block_size = t->logical_block_size;
	x->writable = t->writable;
}

struct rb_identity *idents_in(struct pool *p, Rb__TargetInfo *const *v, size_t n)
{
	struct rb_identity *o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++)
		ident_in(&o[i], v[i]);
	return o;
}

Rb__Setting **settings_out(struct pool *p, const struct rb_kv *v, size_t n)
{
	Rb__Setting **o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++) {
		if (!(o[i] = pool_alloc(p, 1, sizeof(**o))))
			return NULL;
		rb__setting__init(o[i]);
		o[i]->key = str_out(v[i].key);
		o[i]->value = str_out(v[i].value);
	}
	return o;
}

struct rb_kv *settings_in(struct pool *p, Rb__Setting **v, size_t n)
{
	struct rb_kv *o = pool_alloc(p, n, sizeof(*o));

	for (size_t i = 0; o && i < n; i++)
		o[i] = (struct rb_kv){ v[i]->key, v[i]->value };
	return o;
}
