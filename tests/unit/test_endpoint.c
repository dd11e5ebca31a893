// SPDX-License-Identifier: MIT
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "endpoint.h"

static void test_endpoint_accepts_what_libzmq_binds(void **state)
{
	static const char *const good[] = {
		"tcp://*:7470",		 "tcp://127.0.0.1:1",	"tcp://0.0.0.0:65535",
		"tcp://127.0.0.1:0",	 "tcp://[::1]:7470",	"tcp://coord-1.example.org:7470",
		"tcp://eth0:7470",	 "ipc:///run/rackbench/c", "ipc://@abstract",
	};
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (rb_endpoint_check(good[i], err, sizeof(err)))
			fail_msg("'%s' refused: %s", good[i], err);
}

static void test_endpoint_refuses_ports_and_garbage(void **state)
{
	static const struct {
		const char *ep, *why;
	} bad[] = {
		{ "tcp://*:99999", "past 65535" },
		{ "tcp://*:65536", "past 65535" },
		{ "tcp://127.0.0.1:7470/extra", "not a number" },
		{ "tcp://127.0.0.1:74x0", "not a number" },
		{ "tcp://127.0.0.1:-1", "not a number" },
		{ "tcp://127.0.0.1:", "no port" },
		{ "tcp://127.0.0.1", "no port" },
		{ "tcp://:7470", "no host" },
		{ "tcp://a b:7470", "host name" },
		{ "tcp://[::1:7470", "IPV6" },
		{ "tcp://[zz]:7470", "IPv6" },
		{ "udp://*:7470", "not tcp://" },
		{ "inproc://x", "not tcp://" },
		{ "ipc://", "no socket path" },
		{ "", "not tcp://" },
	};
	char err[256], path[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(rb_endpoint_check(bad[i].ep, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].why))
			fail_msg("'%s': '%s' does not say '%s'", bad[i].ep, err, bad[i].why);
	}
	memset(path, 'p', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	memcpy(path, "ipc://", 6);
	assert_int_equal(rb_endpoint_check(path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "107 bytes"));
	assert_int_equal(rb_endpoint_check(NULL, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoint_accepts_what_libzmq_binds),
		cmocka_unit_test(test_endpoint_refuses_ports_and_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
