/* SPDX-License-Identifier: MIT */
/*
 * Arrays that grow by doubling: the one helper for the many lists both programs keep.
 *
 *	if (RB_GROW(j->v, j->cap, j->n, 64))
 *		return -ENOMEM;
 *	j->v[j->n++] = row;
 */
#ifndef RB_GROW_H
#define RB_GROW_H

#include <stddef.h>

/*
 * Room for element `need - 1` (that is, `need` elements) in the array at *pv of elements
 * of `size` bytes and capacity *cap: doubled from `first` until it fits. 0, or -ENOMEM
 * with the array and *cap as they were (also when the bytes would overflow).
 */
int rb_grow(void *pv, size_t *cap, size_t need, size_t size, size_t first);

/* Room for arr[n] (n + 1 elements): arr a typed pointer, cap a size_t lvalue. */
#define RB_GROW(arr, cap, n, first) rb_grow(&(arr), &(cap), (size_t)(n) + 1, sizeof(*(arr)), first)

#endif
