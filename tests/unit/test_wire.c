// SPDX-License-Identifier: MIT
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "wire.h"

static void test_wire_round_trip_hello(void **state)
{
	Rb__Envelope e, *back = NULL;
	Rb__Hello h = RB__HELLO__INIT;
	uint8_t *buf;
	size_t len;
	char err[256];

	(void)state;
	rb_wire_init(&e);
	h.name = (char *)"a1";
	h.epoch = 42;
	e.body_case = RB__ENVELOPE__BODY_HELLO;
	e.hello = &h;
	assert_int_equal(rb_wire_pack(&e, &buf, &len), 0);
	assert_int_equal(rb_wire_unpack(buf, len, &back, err, sizeof(err)), 0);
	assert_int_equal(back->body_case, RB__ENVELOPE__BODY_HELLO);
	assert_string_equal(back->hello->name, "a1");
	assert_int_equal(back->hello->epoch, 42);
	assert_string_equal(rb_wire_body_name(back), "hello");
	rb_wire_free(back);
	free(buf);
}

static void test_wire_refuses_other_major(void **state)
{
	Rb__Envelope e, *back = NULL;
	Rb__Stop s = RB__STOP__INIT;
	uint8_t *buf;
	size_t len;
	char err[256];

	(void)state;
	rb_wire_init(&e);
	e.version_major = RB_PROTO_MAJOR + 1;
	e.version_minor = 7;
	e.body_case = RB__ENVELOPE__BODY_STOP;
	e.stop = &s;
	assert_int_equal(rb_wire_pack(&e, &buf, &len), 0);
	assert_int_equal(rb_wire_unpack(buf, len, &back, err, sizeof(err)), -EPROTONOSUPPORT);
	char mine[32];

	snprintf(mine, sizeof(mine), "%d.%d", RB_PROTO_MAJOR, RB_PROTO_MINOR);
	assert_non_null(strstr(err, "2.7"));
	assert_non_null(strstr(err, mine));
	free(buf);
}

static void test_wire_tolerates_unknown_field(void **state)
{
	Rb__Envelope e, *back = NULL;
	Rb__Stop s = RB__STOP__INIT;
	uint8_t *buf, *more;
	size_t len;
	char err[256];

	(void)state;
	rb_wire_init(&e);
	e.version_minor = 9;
	e.body_case = RB__ENVELOPE__BODY_STOP;
	s.reason = (char *)"done";
	e.stop = &s;
	assert_int_equal(rb_wire_pack(&e, &buf, &len), 0);
	/* a newer minor adds field 99 (varint 5): an older reader ignores it */
	more = malloc(len + 3);
	memcpy(more, buf, len);
	more[len] = ((99 << 3) & 0x7f) | 0x80;
	more[len + 1] = 99 >> 4;
	more[len + 2] = 5;
	assert_int_equal(rb_wire_unpack(more, len + 3, &back, err, sizeof(err)), 0);
	assert_string_equal(back->stop->reason, "done");
	rb_wire_free(back);
	free(more);
	free(buf);
}

static void test_wire_rejects_garbage_and_oversize(void **state)
{
	static const uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02 };
	Rb__Envelope *back = NULL;
	char err[256];

	(void)state;
	assert_int_equal(rb_wire_unpack(junk, sizeof(junk), &back, err, sizeof(err)), -EBADMSG);
	assert_int_equal(rb_wire_unpack(junk, RB_WIRE_MAX_BYTES + 1, &back, err, sizeof(err)),
			 -EMSGSIZE);
	/* an envelope with no body */
	assert_int_equal(rb_wire_unpack((const uint8_t *)"\x08\x01", 2, &back, err, sizeof(err)),
			 -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_round_trip_hello),
		cmocka_unit_test(test_wire_refuses_other_major),
		cmocka_unit_test(test_wire_tolerates_unknown_field),
		cmocka_unit_test(test_wire_rejects_garbage_and_oversize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
