// SPDX-License-Identifier: MIT
/*
 * The command-line parser (common/util/parseopt.c), table-driven: each case is an argv, the
 * exit code it gives, what the parse stored (printed as one line) or the one line of
 * error it said; then the help a table makes and the edit distance behind suggestions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "capture.h"
#include "exitcode.h"
#include "log.h"
#include "parseopt.h"

/* What the test command's table stores into. */
static struct {
	bool json, noarg;
	const char *name, *file, *extra;
	uint64_t n, size, ns;
	int64_t delta;
	struct rb_popt_list tags, files;
	char wl[512];
} v;

static int on_wl(const struct rb_popt *o, const char *name, const char *value, void *ctx)
{
	size_t at = strlen(v.wl);

	(void)o;
	(void)ctx;
	snprintf(v.wl + at, sizeof(v.wl) - at, "%s%s=%s", at ? "," : "", name, value);
	return 0;
}

static int on_level(const struct rb_popt *o, const char *name, const char *value, void *ctx)
{
	(void)o;
	if (strcmp(value, "low") && strcmp(value, "high")) {
		rb_err("'--%s' must be low or high, not '%s'", name, value);
		return -1;
	}
	*(const char **)ctx = value;
	return 0;
}

static int on_noarg(const struct rb_popt *o, const char *name, const char *value, void *ctx)
{
	(void)o;
	(void)name;
	(void)ctx;
	v.noarg = value == NULL;
	return 0;
}

static const char *level;

static const struct rb_popt opts[] = {
	{ RB_POPT_FLAG, "json", 'j', NULL, "one JSON document", &v.json, NULL, 0 },
	{ RB_POPT_STRING, "state-dir", 0, "DIR", "rackbench's own files", &v.name, NULL, 0 },
	{ RB_POPT_UINT, "assume-mbps", 'm', "N", "a drive's MB/s", &v.n, NULL, 0 },
	{ RB_POPT_SIZE, "spool-max", 0, "SIZE", "the spool's cap", &v.size, NULL, 0 },
	{ RB_POPT_DURATION, "wait", 0, "DURATION", "how long to wait", &v.ns, NULL, 0 },
	{ RB_POPT_INT, "delta", 0, "N", "a signed number", &v.delta, NULL, 0 },
	{ RB_POPT_LIST, "tag", 0, "T", "a tag (repeatable)", &v.tags, NULL, 0 },
	{ RB_POPT_CALLBACK, "level", 0, "L", "low or high", NULL, on_level, 0 },
	{ RB_POPT_CALLBACK, "touch", 0, NULL, "a callback without a value", NULL, on_noarg,
	  RB_POPT_NOARG },
	{ RB_POPT_STRING, "secret", 0, "X", "not shown", &v.extra, NULL, RB_POPT_HIDDEN },
	{ RB_POPT_GROUP, NULL, 0, NULL, "Workload options:", NULL, NULL, 0 },
	{ RB_POPT_WORKLOAD, NULL, 0, NULL, NULL, NULL, on_wl, 0 },
	{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

static const struct rb_parg args[] = {
	{ "FILE", &v.file, 0 },
	{ "MORE", &v.files, RB_PARG_MANY | RB_PARG_OPTIONAL },
	{ NULL, NULL, 0 },
};

static const struct rb_popt_cmd cmd = {
	.name = "rackbench test",
	.desc = "A command of the unit test.",
	.opts = opts,
	.args = args,
	.epilog = "Exit codes: 0 ok.",
};

/* The command: parses, then prints what was stored as one line. */
static int test_cmd(int argc, char **argv)
{
	int r;

	rb_popt_list_release(&v.tags);
	rb_popt_list_release(&v.files);
	memset(&v, 0, sizeof(v));
	level = NULL;
	r = rb_parseopt(&cmd, argc, argv, &level);
	if (r)
		return rb_parseopt_exit(r);
	printf("json=%d name=%s file=%s n=%llu size=%llu ns=%llu delta=%lld level=%s noarg=%d "
	       "extra=%s tags=",
	       v.json, v.name ? v.name : "-", v.file, (unsigned long long)v.n,
	       (unsigned long long)v.size, (unsigned long long)v.ns, (long long)v.delta,
	       level ? level : "-", v.noarg, v.extra ? v.extra : "-");
	for (size_t i = 0; i < v.tags.n; i++)
		printf("%s%s", i ? "," : "", v.tags.v[i]);
	printf(" files=");
	for (size_t i = 0; i < v.files.n; i++)
		printf("%s%s", i ? "," : "", v.files.v[i]);
	printf(" wl=%s\n", v.wl);
	return 0;
}

#define BASE "json=0 name=- file=f n=0 size=0 ns=0 delta=0 level=- noarg=0 extra=- tags= files= wl="

struct pcase {
	const char *args[8];
	int rc;
	const char *out; /* a part of stdout (rc 0) */
	const char *err; /* the one line said, without "rackbench: error: " (rc 2) */
};

static const struct pcase cases[] = {
	{ { "f" }, 0, BASE, NULL },
	/* --a=b and --a b, both spellings of a multi-word flag */
	{ { "f", "--state-dir", "/s" }, 0, "name=/s ", NULL },
	{ { "f", "--state-dir=/s" }, 0, "name=/s ", NULL },
	{ { "f", "--state_dir", "/s" }, 0, "name=/s ", NULL },
	{ { "f", "--state_dir=/s=x" }, 0, "name=/s=x ", NULL },
	{ { "--state-dir", "-x", "f" }, 0, "name=-x ", NULL }, /* a value may start with - */
	/* each type */
	{ { "f", "--json" }, 0, "json=1 ", NULL },
	{ { "f", "-j", "--json" }, 0, "json=1 ", NULL }, /* a flag twice is harmless */
	{ { "f", "-m", "7" }, 0, "n=7 ", NULL },
	{ { "f", "-m7" }, 0, "n=7 ", NULL },
	{ { "f", "--spool-max", "4k" }, 0, "size=4096 ", NULL },
	{ { "f", "--wait", "2s" }, 0, "ns=2000000000 ", NULL },
	{ { "f", "--delta", "-3" }, 0, "delta=-3 ", NULL },
	{ { "f", "--tag", "a", "--tag=b" }, 0, "tags=a,b ", NULL },
	{ { "f", "--level", "high" }, 0, "level=high ", NULL },
	{ { "f", "--touch" }, 0, "noarg=1 ", NULL },
	{ { "f", "--secret", "s" }, 0, "extra=s ", NULL },
	/* positionals, and -- ending the options */
	{ { "f", "g", "h" }, 0, "files=g,h ", NULL },
	{ { "--json", "--", "--state-dir", "-j" }, 0, "json=1 name=- file=--state-dir", NULL },
	{ { "--", "f", "--json" }, 0, "json=0 name=- file=f ", NULL },
	{ { "-", "--json" }, 0, "file=- ", NULL },
	/* the workload table's keys, either spelling, in order */
	{ { "f", "--rate-iops", "20000", "--size_pct=25", "--io-size", "1m" },
	  0,
	  "wl=rate_iops=20000,size_pct=25,io_size=1m",
	  NULL },
	{ { "f", "--rate_iops=5", "--bs", "8k" }, 0, "wl=rate_iops=5,bs=8k", NULL },
	/* errors: one line each, naming the flag */
	{ { "f", "--rate-iop", "1" },
	  2,
	  NULL,
	  "unknown option '--rate-iop'; did you mean '--rate-iops'?" },
	{ { "f", "--state-dri", "x" },
	  2,
	  NULL,
	  "unknown option '--state-dri'; did you mean '--state-dir'?" },
	{ { "f", "--jsno" }, 2, NULL, "unknown option '--jsno'; did you mean '--json'?" },
	{ { "f", "--hlep" }, 2, NULL, "unknown option '--hlep'; did you mean '--help'?" },
	{ { "f", "--frobnicate" },
	  2,
	  NULL,
	  "unknown option '--frobnicate' (see 'rackbench test --help')" },
	{ { "f", "--secert", "x" },
	  2,
	  NULL,
	  "unknown option '--secert' (see 'rackbench test --help')" },
	{ { "f", "-q" }, 2, NULL, "unknown option '-q' (see 'rackbench test --help')" },
	{ { "f", "-jx" }, 2, NULL, "unknown option '-jx' (see 'rackbench test --help')" },
	{ { "f", "--state-dir" }, 2, NULL, "'--state-dir' needs a value" },
	{ { "f", "--rate_iops" }, 2, NULL, "'--rate-iops' needs a value" },
	{ { "f", "-m" }, 2, NULL, "'--assume-mbps' needs a value" },
	{ { "f", "--state-dir", "a", "--state_dir=b" }, 2, NULL, "'--state-dir' given twice" },
	{ { "f", "-m", "1", "--assume-mbps", "2" }, 2, NULL, "'--assume-mbps' given twice" },
	{ { "f", "--bs", "4k", "--bs", "8k" }, 2, NULL, "'--bs' given twice" },
	{ { "f", "--json=yes" }, 2, NULL, "'--json' takes no value" },
	{ { "f", "--touch=1" }, 2, NULL, "'--touch' takes no value" },
	{ { "f", "--assume-mbps", "fast" },
	  2,
	  NULL,
	  "'--assume-mbps' must be a whole number, not 'fast'" },
	{ { "f", "--spool-max", "lots" },
	  2,
	  NULL,
	  "'--spool-max' must be a size such as 4k, 1m or 2g (binary units), not 'lots'" },
	{ { "f", "--wait", "soon" },
	  2,
	  NULL,
	  "'--wait' must be a duration such as 500ms, 30s or 5m, not 'soon'" },
	{ { "f", "--delta", "1x" }, 2, NULL, "'--delta' must be a whole number, not '1x'" },
	{ { "f", "--level", "mid" }, 2, NULL, "'--level' must be low or high, not 'mid'" },
	{ { "--json" }, 2, NULL, "missing FILE (usage: rackbench test FILE [MORE...] [options])" },
	/* help wins where it comes first, and prints on stdout */
	{ { "--help", "--frobnicate" }, 0, "usage: rackbench test FILE [MORE...] [options]", NULL },
	{ { "f", "-h" }, 0, "usage: rackbench test", NULL },
	{ { "--frobnicate", "--help" },
	  2,
	  NULL,
	  "unknown option '--frobnicate' (see 'rackbench test --help')" },
};

static void test_cases(void **state)
{
	(void)state;
	rb_log_init("rackbench", RB_LOG_INFO);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pcase *c = &cases[i];
		const char *argv[10] = { "test" };
		char want[512];
		struct out o;
		size_t n = 1;

		for (size_t k = 0; k < 8 && c->args[k]; k++)
			argv[n++] = c->args[k];
		cap_runv(&o, test_cmd, argv);
		if (o.rc != c->rc)
			fail_msg("case %zu (%s ...): exit %d, want %d; said '%s'", i, c->args[0],
				 o.rc, c->rc, o.err);
		if (c->out && !strstr(o.out, c->out))
			fail_msg("case %zu (%s ...): printed '%s', want '%s'", i, c->args[0], o.out,
				 c->out);
		if (c->rc == 2) {
			snprintf(want, sizeof(want), "rackbench: error: %s\n", c->err);
			if (strcmp(o.err, want))
				fail_msg("case %zu (%s ...): said '%s', want '%s'", i, c->args[0],
					 o.err, want);
			if (count_of(o.err, "\n") != 1)
				fail_msg("case %zu: %zu lines said", i, count_of(o.err, "\n"));
			assert_string_equal(o.out, "");
		} else if (c->rc == 0 && !c->err) {
			assert_string_equal(o.err, "");
		}
		out_free(&o);
	}
	rb_popt_list_release(&v.tags);
	rb_popt_list_release(&v.files);
}

/* Another tool's options on the line (fio's on `run`): the table's foreign_* fields. */
static struct rb_popt_list other;

static int other_kind(const char *name)
{
	return !strcmp(name, "time_based")		      ? 1
	       : !strcmp(name, "name") || !strcmp(name, "bs") ? 0
							      : -1;
}

static const struct rb_popt_cmd foreign_cmd = {
	.name = "rackbench test",
	.opts = opts,
	.args = args,
	.foreign_trigger = "name",
	.foreign_kind = other_kind,
	.foreign_hint = "the other tool's option",
	.foreign_list = &other,
};

static void test_foreign(void **state)
{
	static const char *const w[] = { "t",
					 "f",
					 "--name=x",
					 "--bs",
					 "8k",
					 "--time_based",
					 "--state-dir",
					 "/s",
					 "--passes",
					 "2",
					 "--zonemode=zbd",
					 "--rate_iops",
					 "9",
					 "--bs",
					 "8k",
					 "--time_based" };
	char *with[13], *without[4], *refused[3];
	char joined[256] = "";

	(void)state;
	for (size_t i = 0; i < 13; i++)
		with[i] = (char *)w[i];
	without[0] = refused[0] = (char *)w[0];
	without[1] = refused[1] = (char *)w[1];
	without[2] = (char *)w[13], without[3] = (char *)w[14], refused[2] = (char *)w[15];
	rb_log_init("rackbench", RB_LOG_INFO);
	memset(&v, 0, sizeof(v));
	/* the trigger given: the other tool's options and unknown ones go to its list, in
	 * order, values with them; the command's own and workload keys it has not stay */
	assert_int_equal(rb_parseopt(&foreign_cmd, 13, with, &level), 0);
	for (size_t i = 0; i < other.n; i++)
		snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s",
			 i ? " " : "", other.v[i]);
	assert_string_equal(joined, "--name=x --bs 8k --time_based --zonemode=zbd");
	assert_string_equal(v.name, "/s");
	assert_string_equal(v.wl, "passes=2,rate_iops=9");
	rb_popt_list_release(&other);
	/* without it, a workload key is the command's own; an option only the other tool
	 * has is refused with the hint */
	memset(&v, 0, sizeof(v));
	assert_int_equal(rb_parseopt(&foreign_cmd, 4, without, &level), 0);
	assert_string_equal(v.wl, "bs=8k");
	assert_int_equal(other.n, 0);
	assert_int_equal(rb_parseopt(&foreign_cmd, 3, refused, &level), -1);
	rb_popt_list_release(&v.files);
}

static void test_help(void **state)
{
	struct out o;

	(void)state;
	cap_run(&o, test_cmd, "test", "--help");
	assert_int_equal(o.rc, RB_EXIT_OK);
	/* the usage line, the description, aligned options, the group, the epilog */
	assert_non_null(strstr(o.out, "usage: rackbench test FILE [MORE...] [options]\n\n"
				      "A command of the unit test.\n\n"));
	assert_non_null(strstr(o.out, "\n  -j, --json                one JSON document\n"));
	assert_non_null(strstr(o.out, "\n  --state-dir DIR           rackbench's own files\n"));
	assert_non_null(
		strstr(o.out, "\n  -h, --help                this text\n\nWorkload options:\n"));
	assert_non_null(strstr(o.out, "\n  --rate-iops IOPS          IOPS limit"));
	assert_non_null(strstr(o.out, "(default 0; at least 0)"));
	assert_null(strstr(o.out, "--rate_iops"));
	assert_null(strstr(o.out, "--secret"));
	assert_non_null(strstr(o.out, "\nExit codes: 0 ok.\n"));
	/* no line over 100 columns */
	for (const char *l = o.out; *l;) {
		size_t len = strcspn(l, "\n");

		if (len > 100)
			fail_msg("a help line of %zu columns: %.*s", len, (int)len, l);
		l += len + (l[len] == '\n');
	}
	assert_string_equal(o.err, "");
	out_free(&o);
	rb_popt_list_release(&v.tags);
	rb_popt_list_release(&v.files);
}

/* A command of three options or fewer lists them on its usage line. */
static void test_short_usage(void **state)
{
	static bool j;
	static const char *out;
	static const char *name;
	static const struct rb_popt few[] = {
		{ RB_POPT_FLAG, "json", 0, NULL, "JSON", &j, NULL, 0 },
		{ RB_POPT_STRING, "out", 0, "DIR", "where", &out, NULL, 0 },
		{ RB_POPT_END, NULL, 0, NULL, NULL, NULL, NULL, 0 },
	};
	static const struct rb_parg one[] = { { "NAME", &name, RB_PARG_OPTIONAL },
					      { NULL, NULL, 0 } };
	const struct rb_popt_cmd c = { .name = "rackbench x", .opts = few, .args = one };
	char buf[256];

	(void)state;
	rb_parseopt_usage(&c, buf, sizeof(buf));
	assert_string_equal(buf, "rackbench x [NAME] [--json] [--out DIR]");
}

static void test_distance(void **state)
{
	static const struct {
		const char *a, *b;
		size_t d;
	} d[] = {
		{ "", "", 0 },
		{ "rate-iops", "rate-iops", 0 },
		{ "rate-iop", "rate-iops", 1 },
		{ "rtae-iops", "rate-iops", 1 },
		{ "jsno", "json", 1 },
		{ "kitten", "sitting", 3 },
		{ "", "abc", 3 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (rb_parseopt_distance(d[i].a, d[i].b) != d[i].d)
			fail_msg("distance('%s', '%s') = %zu, want %zu", d[i].a, d[i].b,
				 rb_parseopt_distance(d[i].a, d[i].b), d[i].d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),	 cmocka_unit_test(test_foreign),
		cmocka_unit_test(test_help),	 cmocka_unit_test(test_short_usage),
		cmocka_unit_test(test_distance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
