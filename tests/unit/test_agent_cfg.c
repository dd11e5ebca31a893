// SPDX-License-Identifier: MIT
/*
 * The agent daemon's configuration (rb_agent_parse): every flag and config key, the
 * defaults, flags over the file, and each bad value refused with an exit code >= 2 and
 * a message that says what was wrong.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent.h"
#include "agent_keys.h"
#include "exitcode.h"
#include "log.h"

static char dir[64];
static char said[16384];	/* what the last parse printed on stderr (or stdout) */

/*
 * rb_agent_parse on "rackbench-agent" and args (NULL-terminated), with what it printed
 * on fd (2, or 1 for --help) kept in said.
 */
static int parse_fd(int fd, struct rb_agent_cfg *c, const char *const *args)
{
	char *argv[64], path[128];
	int argc = 0, saved, out, r;
	ssize_t n;

	argv[argc++] = (char *)"rackbench-agent";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	snprintf(path, sizeof(path), "%s/said", dir);
	out = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(out >= 0);
	fflush(fd == 1 ? stdout : stderr);
	saved = dup(fd);
	dup2(out, fd);
	r = rb_agent_parse(argc, argv, c);
	fflush(fd == 1 ? stdout : stderr);
	dup2(saved, fd);
	close(saved);
	n = pread(out, said, sizeof(said) - 1, 0);
	said[n > 0 ? n : 0] = '\0';
	close(out);
	return r;
}

static int parse(struct rb_agent_cfg *c, const char *const *args)
{
	return parse_fd(2, c, args);
}

/* dir/NAME holding text; its path in a static buffer. */
static const char *config(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* A parse that must fail with a usage error whose message holds want. */
static void refused(const char *const *args, const char *want)
{
	struct rb_agent_cfg c;
	int r = parse(&c, args);

	if (r != RB_EXIT_USAGE || !strstr(said, want))
		fail_msg("%s ...: returned %d, said '%s'; want %d and '%s'", args[0], r, said,
			 RB_EXIT_USAGE, want);
	rb_agent_cfg_release(&c);
}

static void test_every_flag(void **state)
{
	struct rb_agent_cfg c;
	const char *args[] = { "--coordinator", "tcp://coord-1:7470", "--name", "host17",
			       "--label", "rack=r12", "--label", "row=3", "--target", "/dev/a",
			       "--target", "/dev/b", "--allow", "/dev/b", "--state-dir", "/srv/rb",
			       "--key", "/etc/rb/host17.key", "--coordinator-key",
			       "/etc/rb/coordinator.pub", "--spool-max", "512m", NULL };

	(void)state;
	assert_int_equal(parse(&c, args), 0);
	assert_string_equal(said, "");
	assert_string_equal(c.coordinator, "tcp://coord-1:7470");
	assert_string_equal(c.name, "host17");
	assert_int_equal(c.nlabels, 2);
	assert_string_equal(c.labels[0], "rack=r12");
	assert_string_equal(c.labels[1], "row=3");
	assert_int_equal(c.ntargets, 2);
	assert_string_equal(c.targets[0], "/dev/a");
	assert_string_equal(c.targets[1], "/dev/b");
	assert_int_equal(c.nallow, 1);
	assert_string_equal(c.allow[0], "/dev/b");
	assert_string_equal(c.state_dir, "/srv/rb");
	assert_string_equal(c.key, "/etc/rb/host17.key");
	assert_string_equal(c.coordinator_key, "/etc/rb/coordinator.pub");
	assert_false(c.insecure);
	assert_string_equal(c.spool_max, "512m");
	assert_int_equal(c.spool_max_bytes, 512ULL << 20);
	rb_agent_cfg_release(&c);
	/* released: nothing left to point at */
	assert_null(c.coordinator);
	assert_int_equal(c.ntargets, 0);
}

static void test_defaults(void **state)
{
	struct rb_agent_cfg c;
	char host[256] = "agent";
	const char *args[] = { "--coordinator", "tcp://127.0.0.1:7470", "--insecure", NULL };

	(void)state;
	gethostname(host, sizeof(host));
	setenv("RB_STATE_DIR", "/srv/state-from-env", 1);
	assert_int_equal(parse(&c, args), 0);
	unsetenv("RB_STATE_DIR");
	assert_true(c.insecure);
	assert_string_equal(c.name, host);	/* the host's name */
	assert_string_equal(c.state_dir, "/srv/state-from-env");
	assert_null(c.spool_max);
	assert_int_equal(c.spool_max_bytes, 4ULL << 30);
	assert_int_equal(c.nlabels + c.ntargets + c.nallow, 0);
	assert_null(c.key);
	rb_agent_cfg_release(&c);
}

static void test_help(void **state)
{
	struct rb_agent_cfg c;

	(void)state;
	assert_int_equal(parse_fd(1, &c, (const char *[]){ "--help", NULL }), 1);
	assert_non_null(strstr(said, "usage: rackbench-agent"));
	assert_non_null(strstr(said, "--spool-max SIZE"));
	rb_agent_cfg_release(&c);
	/* -h too, even after a bad flag would have been refused later */
	assert_int_equal(parse_fd(1, &c, (const char *[]){ "-h", "--bogus", "x", NULL }), 1);
	assert_non_null(strstr(said, "usage: rackbench-agent"));
	rb_agent_cfg_release(&c);
}

static void test_config_file_every_key(void **state)
{
	struct rb_agent_cfg c;
	const char *path = config("agent.yaml",
				  "coordinator: tcp://coord-2:7470\n"
				  "name: from-file\n"
				  "labels: {rack: r7, zone: b}\n"
				  "targets: [/dev/x, /dev/y]\n"
				  "allow:\n  - /dev/y\n"
				  "state_dir: /srv/file-state\n"
				  "key: /etc/rb/a.key\n"
				  "coordinator_key: /etc/rb/c.pub\n"
				  "insecure: false\n"
				  "spool_max: 1g\n"
				  "serials: {/dev/y: LAB-0001}\n"
				  "slots: {/dev/x: \"bay 7\"}\n");

	(void)state;
	assert_int_equal(parse(&c, (const char *[]){ "--config", path, NULL }), 0);
	assert_string_equal(c.coordinator, "tcp://coord-2:7470");
	assert_string_equal(c.name, "from-file");
	assert_int_equal(c.nlabels, 2);
	assert_string_equal(c.labels[0], "rack=r7");
	assert_string_equal(c.labels[1], "zone=b");
	assert_int_equal(c.ntargets, 2);
	assert_string_equal(c.targets[1], "/dev/y");
	assert_int_equal(c.nallow, 1);
	assert_string_equal(c.allow[0], "/dev/y");
	assert_string_equal(c.state_dir, "/srv/file-state");
	assert_string_equal(c.key, "/etc/rb/a.key");
	assert_string_equal(c.coordinator_key, "/etc/rb/c.pub");
	assert_false(c.insecure);
	assert_int_equal(c.spool_max_bytes, 1ULL << 30);
	assert_int_equal(c.serials.n, 1);
	assert_string_equal(rb_agent_cfg_serial(&c, "/dev/y"), "LAB-0001");
	assert_null(rb_agent_cfg_serial(&c, "/dev/x"));
	/* a slot as the rack's people name it, blanks and all */
	assert_int_equal(c.slots.n, 1);
	assert_string_equal(rb_agent_cfg_slot(&c, "/dev/x"), "bay 7");
	assert_null(rb_agent_cfg_slot(&c, "/dev/y"));
	rb_agent_cfg_release(&c);
}

/* The file first, then the flags: a flag's value wins, lists grow, wherever --config is. */
static void test_flags_over_the_file(void **state)
{
	struct rb_agent_cfg c;
	const char *path = config("agent.yaml",
				  "coordinator: tcp://coord-2:7470\n"
				  "name: from-file\n"
				  "targets: [/dev/x]\n"
				  "insecure: true\n"
				  "spool_max: 1g\n");

	(void)state;
	assert_int_equal(parse(&c, (const char *[]){ "--name", "from-flag", "--target", "/dev/z",
						    "--spool-max", "128m", "--config", path, NULL }),
			 0);
	assert_string_equal(c.coordinator, "tcp://coord-2:7470");
	assert_string_equal(c.name, "from-flag");
	assert_int_equal(c.ntargets, 2);
	assert_string_equal(c.targets[0], "/dev/x");
	assert_string_equal(c.targets[1], "/dev/z");
	assert_true(c.insecure);
	assert_int_equal(c.spool_max_bytes, 128ULL << 20);
	rb_agent_cfg_release(&c);
}

static void test_bad_flags(void **state)
{
	(void)state;
	refused((const char *[]){ "--coordinator", "tcp://c:1", "--insecure", "--frobnicate",
				  "x", NULL },
		"unknown option '--frobnicate'");
	refused((const char *[]){ "--coordinator", "tcp://c:1", "--insecure", "stray", NULL },
		"unexpected argument 'stray'");
	refused((const char *[]){ "--insecure", "--coordinator", NULL },
		"'--coordinator' needs a value");
	refused((const char *[]){ "--insecure", "--config", NULL }, "'--config' needs a value");
	refused((const char *[]){ "--insecure", "--name", "x", NULL }, "no coordinator");
	refused((const char *[]){ "--coordinator", "tcp://c:1", "--insecure", "--label", "rack",
				  NULL },
		"'--label' takes KEY=VALUE, not 'rack'");
	refused((const char *[]){ "--coordinator", "tcp://c:1", "--insecure", "--label", "=r1",
				  NULL },
		"'--label' takes KEY=VALUE, not '=r1'");
	/* the allow-list names only what the agent offers */
	refused((const char *[]){ "--coordinator", "tcp://c:1", "--insecure", "--target",
				  "/dev/a", "--allow", "/dev/b", NULL },
		"--allow '/dev/b' is not one of this agent's --target paths");
	/* keys, or --insecure: never silently unauthenticated */
	refused((const char *[]){ "--coordinator", "tcp://c:1", NULL }, "or --insecure");
	refused((const char *[]){ "--coordinator", "tcp://c:1", "--key", "/k", NULL },
		"--coordinator-key FILE");
}

static void test_bad_spool_max(void **state)
{
	(void)state;
	refused((const char *[]){ "--coordinator", "tcp://c:1", "--insecure", "--spool-max",
				  "lots", NULL },
		"spool_max 'lots' is not a size of at least 64k");
	refused((const char *[]){ "--coordinator", "tcp://c:1", "--insecure", "--spool-max",
				  "-4g", NULL },
		"spool_max '-4g'");
	/* a size, but too small to hold a point's data */
	refused((const char *[]){ "--coordinator", "tcp://c:1", "--insecure", "--spool-max",
				  "32k", NULL },
		"spool_max '32k'");
	refused((const char *[]){ "--config", config("a.yaml", "coordinator: tcp://c:1\n"
								"insecure: true\n"
								"spool_max: 99zb\n"),
				  NULL },
		"spool_max '99zb'");
}

static void test_bad_config_files(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "coordinator: tcp://c:1\ninsecure: true\nfrobnicate: 3\n",
		  "unknown key 'frobnicate' in agent config" },
		{ "coordinator: tcp://c:1\ninsecure: maybe\n", "'insecure' must be true or false" },
		{ "coordinator: tcp://c:1\ninsecure: true\ntargets: /dev/a\n",
		  "'targets' must be a list of paths" },
		{ "coordinator: tcp://c:1\ninsecure: true\nallow: {a: b}\n",
		  "'allow' must be a list of paths" },
		{ "coordinator: tcp://c:1\ninsecure: true\ntargets: [[/dev/a]]\n",
		  "'targets' entries must be paths" },
		{ "coordinator: tcp://c:1\ninsecure: true\nlabels: [rack]\n",
		  "'labels' must be a mapping" },
		{ "coordinator: tcp://c:1\ninsecure: true\nlabels: {rack: [r1]}\n",
		  "labels are KEY: VALUE scalars" },
		{ "coordinator: tcp://c:1\ninsecure: true\nlabels: {\"a=b\": c}\n",
		  "label key 'a=b' must be a name without '='" },
		{ "coordinator: tcp://c:1\ninsecure: true\nlabels: {\"\": c}\n",
		  "label key '' must be a name without '='" },
		{ "coordinator: [tcp://c:1]\ninsecure: true\n", "'coordinator' must be a scalar" },
		{ "coordinator: tcp://c:1\ninsecure: true\nserials: [a]\n",
		  "'serials' must be a mapping PATH: SERIAL" },
		{ "coordinator: tcp://c:1\ninsecure: true\ntargets: [/dev/a]\n"
		  "serials: {/dev/a: \"two words\"}\n",
		  "the serial of '/dev/a' must be 1 to 63 printable characters without blanks" },
		{ "coordinator: tcp://c:1\ninsecure: true\ntargets: [/dev/a]\n"
		  "serials: {/dev/a: A, /dev/a: B}\n",
		  "'/dev/a' is given a serial twice" },
		{ "coordinator: tcp://c:1\ninsecure: true\ntargets: [/dev/a]\n"
		  "serials: {/dev/b: B}\n",
		  "serials: '/dev/b' is not one of this agent's targets" },
		{ "coordinator: tcp://c:1\ninsecure: true\nslots: [a]\n",
		  "'slots' must be a mapping PATH: SLOT" },
		{ "coordinator: tcp://c:1\ninsecure: true\ntargets: [/dev/a]\n"
		  "slots: {/dev/a: \"a slot name longer than thirty-one\"}\n",
		  "the slot of '/dev/a' must be 1 to 31 printable characters" },
		{ "coordinator: tcp://c:1\ninsecure: true\ntargets: [/dev/a]\n"
		  "slots: {/dev/b: B}\n",
		  "slots: '/dev/b' is not one of this agent's targets" },
		{ "[1, 2]\n", "agent config must be a mapping" },
		{ "coordinator: tcp://c:1\n  name: x\n", "agent.yaml" },	/* not YAML */
		{ "", "empty" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused((const char *[]){ "--config", config("agent.yaml", bad[i].text), NULL },
			bad[i].want);
	/* every wrong key of a file at once, with its line */
	refused((const char *[]){ "--config",
				  config("agent.yaml", "coordinator: tcp://c:1\nbogus: 1\n"
						       "insecure: perhaps\n"),
				  NULL },
		"agent.yaml:2");
	assert_non_null(strstr(said, "agent.yaml:3"));
	refused((const char *[]){ "--config", "/nonexistent/agent.yaml", NULL },
		"cannot read '/nonexistent/agent.yaml'");
	assert_non_null(strstr(said, "No such file"));
}

/*
 * The coordinator's endpoint is one libzmq connects to as written: libzmq wraps a port
 * past 65535 to another one, and "*" or port 0 are for listening.
 */
static void test_bad_endpoint(void **state)
{
	static const struct {
		const char *ep, *want;
	} bad[] = {
		{ "tcp://coord-1:99999", "past 65535" },
		{ "tcp://coord-1:74x0", "not a number" },
		{ "tcp://coord-1", "no port" },
		{ "coord-1:7470", "is not tcp://HOST:PORT or ipc://PATH" },
		{ "tcp://*:7470", "an address to listen on, not one to connect to" },
		{ "tcp://coord-1:0", "an address to listen on, not one to connect to" },
	};
	static const char *const good[] = { "tcp://coord-1:7470", "tcp://[::1]:7470",
					    "tcp://10.0.0.1:1", "ipc:///run/rackbench/c" };
	char yaml[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		refused((const char *[]){ "--coordinator", bad[i].ep, "--insecure", NULL },
			bad[i].want);
		assert_non_null(strstr(said, bad[i].ep));
		snprintf(yaml, sizeof(yaml), "coordinator: '%s'\ninsecure: true\n", bad[i].ep);
		refused((const char *[]){ "--config", config("agent.yaml", yaml), NULL },
			bad[i].want);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct rb_agent_cfg c;

		if (parse(&c, (const char *[]){ "--coordinator", good[i], "--insecure", NULL }))
			fail_msg("'%s' refused: %s", good[i], said);
		rb_agent_cfg_release(&c);
	}
}

/*
 * The key table drives the loader and the flags: every row is either a scalar stored at its
 * offset or a key with a handler; a scalar key in a file, and its flag, land in the field
 * the row names; an unknown key's error lists every row.
 */
static void test_key_table(void **state)
{
	char yaml[256], value[64], flag[64];

	(void)state;
	assert_true(rb_nakeys >= 13 && rb_nakeys <= RB_AKEY_MAX);
	for (size_t i = 0; i < rb_nakeys; i++) {
		const struct rb_akey *k = &rb_akeys[i];

		/* one way to read each key; a list's flag has a handler for its values */
		assert_true((k->off >= 0) != (k->load != NULL));
		assert_true(!k->add || (k->flag && k->load));
		assert_true(!k->flag || k->type == RB_AK_BOOL || k->argname);
		assert_ptr_equal(rb_akey_find(k->name), k);
		assert_non_null(k->def);
		assert_true(strlen(k->help) > 10);
	}
	assert_null(rb_akey_find("frobnicate"));
	/* the unknown key's error: every key of the table, in its order */
	refused((const char *[]){ "--config",
				  config("agent.yaml", "coordinator: tcp://c:1\nfrobnicate: 3\n"),
				  NULL },
		"unknown key 'frobnicate' in agent config (known: coordinator, name, labels, ");
	for (size_t i = 0; i < rb_nakeys; i++)
		assert_non_null(strstr(said, rb_akeys[i].name));
	/* each scalar key, from a file and from its flag, at the offset its row gives */
	for (size_t i = 0; i < rb_nakeys; i++) {
		const struct rb_akey *k = &rb_akeys[i];
		struct rb_agent_cfg c;

		if (k->off < 0)
			continue;
		snprintf(value, sizeof(value), k->type == RB_AK_BOOL ? "true" : "v-%s", k->name);
		snprintf(yaml, sizeof(yaml), "%s: %s\n", k->name, value);
		assert_int_equal(rb_agent_cfg_load(config("one.yaml", yaml), &c), 0);
		if (k->type == RB_AK_BOOL)
			assert_true(*(bool *)((char *)&c + k->off));
		else
			assert_string_equal(*(char **)((char *)&c + k->off), value);
		rb_agent_cfg_release(&c);
		if (!k->flag || !strcmp(k->name, "coordinator") || !strcmp(k->name, "spool_max"))
			continue;
		snprintf(flag, sizeof(flag), "--%s", k->flag);
		assert_int_equal(parse(&c, (const char *[]){ "--coordinator", "tcp://c:1",
							    "--insecure", flag,
							    k->type == RB_AK_BOOL ? NULL : value,
							    NULL }),
				 0);
		if (k->type == RB_AK_BOOL)
			assert_true(*(bool *)((char *)&c + k->off));
		else
			assert_string_equal(*(char **)((char *)&c + k->off), value);
		rb_agent_cfg_release(&c);
	}
}

/* The daemon's --help: a flag for each key that has one, with the row's value name. */
static void test_flags_from_the_table(void **state)
{
	struct rb_agent_cfg c;
	char want[64];

	(void)state;
	assert_int_equal(parse_fd(1, &c, (const char *[]){ "--help", NULL }), 1);
	for (size_t i = 0; i < rb_nakeys; i++) {
		const struct rb_akey *k = &rb_akeys[i];
		const char *at = strstr(said, k->name), *end = strstr(said, "--coordinator ");

		/* --config's help names every key, as a word of its lists */
		while (at && (!at[strlen(k->name)] || !strchr(",)", at[strlen(k->name)])))
			at = strstr(at + 1, k->name);
		if (!at || at > end)
			fail_msg("--help's --config lacks '%s': %s", k->name, said);
		if (!k->flag)
			continue;
		snprintf(want, sizeof(want), "  --%s%s%s ", k->flag, k->argname ? " " : "",
			 k->argname ? k->argname : "");
		if (!strstr(said, want))
			fail_msg("--help lacks '%s': %s", want, said);
	}
	rb_agent_cfg_release(&c);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rb-agent-cfg.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_flag),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_config_file_every_key),
		cmocka_unit_test(test_flags_over_the_file),
		cmocka_unit_test(test_bad_flags),
		cmocka_unit_test(test_bad_spool_max),
		cmocka_unit_test(test_bad_config_files),
		cmocka_unit_test(test_bad_endpoint),
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_flags_from_the_table),
	};

	rb_log_init("rackbench-agent", RB_LOG_WARN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
