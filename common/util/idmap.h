/* SPDX-License-Identifier: MIT */
/*
 * An index over items the caller keeps in an array: open addressing from a 64-bit hash
 * to the item's position. The caller hashes its key (rb_hash_*: FNV-1a 64, chainable
 * over several fields) and compares candidates itself, so one map serves names, (agent,
 * path) pairs or device numbers. Grows at half full; lookups cost one probe on average.
 */
#ifndef RB_IDMAP_H
#define RB_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define RB_HASH_INIT 14695981039346656037ULL /* FNV-1a 64 offset basis */

/* FNV-1a 64 of len bytes at p, continuing from h (RB_HASH_INIT to start). */
static inline uint64_t rb_hash_bytes(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* The same over a string and a separator after it, so ("ab","c") differs from ("a","bc"). */
static inline uint64_t rb_hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL;
}

struct rb_idmap_slot {
	uint64_t hash;
	size_t idx1; /* the item's position + 1; 0: empty */
};

struct rb_idmap {
	struct rb_idmap_slot *v;
	size_t mask, n;
};

void rb_idmap_init(struct rb_idmap *m);
void rb_idmap_release(struct rb_idmap *m);
/* Empties the map, keeping its memory. */
void rb_idmap_clear(struct rb_idmap *m);
/* Adds item idx under hash (duplicates are the caller's to avoid). Returns 0 or -ENOMEM. */
int rb_idmap_add(struct rb_idmap *m, uint64_t hash, size_t idx);
/*
 * The items under hash, one a call: *cursor starts at 0. Returns the next candidate's
 * position, or SIZE_MAX when there is none left. The caller compares the keys.
 */
size_t rb_idmap_next(const struct rb_idmap *m, uint64_t hash, size_t *cursor);

#endif
