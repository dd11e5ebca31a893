// SPDX-License-Identifier: MIT
#include "idmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void rb_idmap_init(struct rb_idmap *m)
{
	memset(m, 0, sizeof(*m));
}

void rb_idmap_release(struct rb_idmap *m)
{
	free(m->v);
	rb_idmap_init(m);
}

void rb_idmap_clear(struct rb_idmap *m)
{
	if (m->v)
		memset(m->v, 0, (m->mask + 1) * sizeof(*m->v));
	m->n = 0;
}

static void place(struct rb_idmap_slot *v, size_t mask, uint64_t hash, size_t idx1)
{
	size_t h = (size_t)hash & mask;

	while (v[h].idx1)
		h = (h + 1) & mask;
	v[h].hash = hash;
	v[h].idx1 = idx1;
}

int rb_idmap_add(struct rb_idmap *m, uint64_t hash, size_t idx)
{
	if (!m->v || (m->n + 1) * 2 > m->mask + 1) {
		size_t cap = m->v ? (m->mask + 1) * 2 : 64;
		struct rb_idmap_slot *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; m->v && i <= m->mask; i++)
			if (m->v[i].idx1)
				place(v, cap - 1, m->v[i].hash, m->v[i].idx1);
		free(m->v);
		m->v = v;
		m->mask = cap - 1;
	}
	place(m->v, m->mask, hash, idx + 1);
	m->n++;
	return 0;
}

size_t rb_idmap_next(const struct rb_idmap *m, uint64_t hash, size_t *cursor)
{
	if (!m->v)
		return SIZE_MAX;
	/* *cursor counts the probes made so far from the hash's home slot */
	for (size_t h = ((size_t)hash + *cursor) & m->mask; m->v[h].idx1; h = (h + 1) & m->mask) {
		(*cursor)++;
		if (m->v[h].hash == hash)
			return m->v[h].idx1 - 1;
		if (*cursor > m->mask)
			break;
	}
	return SIZE_MAX;
}
