// SPDX-License-Identifier: MIT
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "grow.h"
#include "idmap.h"

static char names[5000][16];

static size_t find(const struct rb_idmap *m, const char *name)
{
	size_t cur = 0, i;
	uint64_t h = rb_hash_str(RB_HASH_INIT, name);

	while ((i = rb_idmap_next(m, h, &cur)) != SIZE_MAX)
		if (!strcmp(names[i], name))
			return i;
	return SIZE_MAX;
}

static void test_idmap_finds_every_item_through_growth(void **s)
{
	struct rb_idmap m;

	(void)s;
	rb_idmap_init(&m);
	for (size_t i = 0; i < 5000; i++) {
		snprintf(names[i], sizeof(names[i]), "agent-%zu", i);
		assert_int_equal(rb_idmap_add(&m, rb_hash_str(RB_HASH_INIT, names[i]), i), 0);
	}
	assert_int_equal(m.n, 5000);
	assert_true(m.mask + 1 >= 10000);	/* at most half full */
	for (size_t i = 0; i < 5000; i++)
		assert_int_equal(find(&m, names[i]), i);
	assert_int_equal(find(&m, "agent-5000"), SIZE_MAX);
	rb_idmap_clear(&m);
	assert_int_equal(find(&m, "agent-7"), SIZE_MAX);
	rb_idmap_release(&m);
	assert_int_equal(find(&m, "agent-7"), SIZE_MAX);
}

/* Every candidate under one hash comes back, so equal hashes of different keys work. */
static void test_idmap_returns_every_candidate_of_a_colliding_hash(void **s)
{
	struct rb_idmap m;
	size_t cur = 0, seen = 0, i;

	(void)s;
	rb_idmap_init(&m);
	for (size_t k = 0; k < 40; k++)
		assert_int_equal(rb_idmap_add(&m, 42, k), 0);
	assert_int_equal(rb_idmap_add(&m, 43, 99), 0);
	while ((i = rb_idmap_next(&m, 42, &cur)) != SIZE_MAX) {
		assert_true(i < 40);
		seen |= (size_t)1 << i;
		(void)seen;
	}
	cur = 0;
	for (size_t n = 0; n < 40; n++)
		assert_int_not_equal(rb_idmap_next(&m, 42, &cur), SIZE_MAX);
	assert_int_equal(rb_idmap_next(&m, 42, &cur), SIZE_MAX);
	cur = 0;
	assert_int_equal(rb_idmap_next(&m, 43, &cur), 99);
	rb_idmap_release(&m);
}

static void test_hash_str_separates_fields(void **s)
{
	(void)s;
	assert_int_not_equal(rb_hash_str(rb_hash_str(RB_HASH_INIT, "ab"), "c"),
			     rb_hash_str(rb_hash_str(RB_HASH_INIT, "a"), "bc"));
	/* FNV-1a 64 of "a" is its published value */
	assert_true(rb_hash_bytes(RB_HASH_INIT, "a", 1) == 0xaf63dc4c8601ec8cULL);
}

/* The grow helper: doubles from its first capacity, keeps what it held, refuses overflow. */
static void test_grow_doubles_and_keeps(void **s)
{
	uint64_t *v = NULL;
	size_t cap = 0, n = 0;

	(void)s;
	for (; n < 1000; n++) {
		assert_int_equal(RB_GROW(v, cap, n, 8), 0);
		v[n] = n * 7;
		assert_true(cap > n);
		assert_true(cap == 8 || (cap & (cap - 1)) == 0); /* 8, 16, 32, ...: doubled */
	}
	assert_int_equal(cap, 1024);
	for (size_t i = 0; i < n; i++)
		assert_true(v[i] == i * 7);
	/* room already there: nothing moves */
	uint64_t *was = v;

	assert_int_equal(rb_grow(&v, &cap, 1024, sizeof(*v), 8), 0);
	assert_ptr_equal(v, was);
	/* bytes past SIZE_MAX: refused, the array and its capacity as they were */
	assert_int_equal(rb_grow(&v, &cap, SIZE_MAX / 4, sizeof(*v), 8), -ENOMEM);
	assert_ptr_equal(v, was);
	assert_int_equal(cap, 1024);
	assert_int_equal(rb_grow(&v, &cap, SIZE_MAX, 1, 8), -ENOMEM);
	assert_int_equal(cap, 1024);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idmap_finds_every_item_through_growth),
		cmocka_unit_test(test_idmap_returns_every_candidate_of_a_colliding_hash),
		cmocka_unit_test(test_hash_str_separates_fields),
		cmocka_unit_test(test_grow_doubles_and_keeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
