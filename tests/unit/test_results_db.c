// SPDX-License-Identifier: MIT
/* The results database's words for a URL: the password never in them; the exports owed
 * while a database is away (no server needed; tests/integration/test_results_db.py and
 * test_results_db_serve.py run one). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "results_db.h"

static void test_resdb_mask_url_hides_every_password_spelling(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "postgresql://ops:hunter2@db1:5432/fleet", "postgresql://ops:***@db1:5432/fleet" },
		{ "postgres://ops:p%40ss@db1/fleet?sslmode=require",
		  "postgres://ops:***@db1/fleet?sslmode=require" },
		{ "postgresql://ops@db1/fleet?password=hunter2&sslmode=require",
		  "postgresql://ops@db1/fleet?password=***&sslmode=require" },
		{ "postgresql://db1/fleet", "postgresql://db1/fleet" },
		{ "postgresql:///fleet?host=/run/postgresql", "postgresql:///fleet?host=/run/postgresql" },
		{ "host=db1 dbname=fleet password=hunter2 user=ops",
		  "host=db1 dbname=fleet password=*** user=ops" },
		{ "host=db1 password = 'a b\\'c' user=ops", "host=db1 password=*** user=ops" },
		{ "password=hunter2", "password=***" },
	};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rb_resdb_mask_url(cases[i].in, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
	rb_resdb_mask_url("postgresql://ops:hunter2@db1/fleet", buf, 12);
	assert_null(strstr(buf, "hunter"));
}

static void test_resdb_where_names_the_database_not_the_password(void **state)
{
	char buf[256];

	(void)state;
	rb_resdb_where("postgresql://ops:hunter2@db1:5433/fleet", buf, sizeof(buf));
	assert_string_equal(buf, "database 'fleet' on host 'db1' port 5433, user 'ops'");
	rb_resdb_where("dbname=fleet password=hunter2", buf, sizeof(buf));
	assert_string_equal(buf, "database 'fleet' on the default host");
	/* a URL libpq does not read: itself, masked */
	rb_resdb_where("postgresql://ops:hunter2@%zz/fleet", buf, sizeof(buf));
	assert_string_equal(buf, "'postgresql://ops:***@%zz/fleet'");
}

static void test_resdb_url_check_refuses_a_password_unsaid(void **state)
{
	static const char *const with[] = {
		"postgresql://ops:hunter2@db1/fleet",
		"postgresql://ops@db1/fleet?password=hunter2",
		"host=db1 dbname=fleet password=hunter2",
	};
	char err[600];

	(void)state;
	assert_int_equal(rb_resdb_url_check("postgresql://ops@db1/fleet?sslmode=require", err,
					    sizeof(err)),
			 0);
	assert_int_equal(rb_resdb_url_check("host=db1 dbname=fleet", err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(with) / sizeof(with[0]); i++) {
		assert_int_equal(rb_resdb_url_check(with[i], err, sizeof(err)), -EPERM);
		assert_non_null(strstr(err, "holds a password"));
		assert_null(strstr(err, "hunter2"));
	}
	assert_int_equal(rb_resdb_url_check("postgresql://ops:hunter2@%zz/fleet", err, sizeof(err)),
			 -EINVAL);
	assert_null(strstr(err, "hunter2"));
}

/* What the exports said, one line each. */
static char said[4096];

static void say(void *arg, bool warn, const char *msg)
{
	(void)arg;
	snprintf(said + strlen(said), sizeof(said) - strlen(said), "%s%s\n", warn ? "W " : "I ",
		 msg);
}

static char *owed_list(const char *dir)
{
	static char buf[1024];
	char path[600];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, RB_RESDB_OWED);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A database away: the run's export is owed, listed once, and still owed after a try. */
static void test_resdb_owed_export_is_listed_and_kept(void **state)
{
	char dir[] = "/tmp/rb-owed-XXXXXX", path[600];
	const char *away = "postgresql://ops:hunter2@/fleet?host=/nonexistent-rb-socket-dir";
	struct rb_resdb_sink k = { .url = away, .tag = "-", .service_url = NULL, .say = say };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/run1.h5", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	said[0] = '\0';
	assert_int_equal(rb_resdb_export_run(&k, path), 1);
	assert_non_null(strstr(said, "the export of '"));
	assert_non_null(strstr(said, "run1.h5' is owed"));
	assert_null(strstr(said, "hunter2"));
	assert_string_equal(owed_list(dir), "run1.h5\t-\n");
	/* owed again: listed once */
	assert_int_equal(rb_resdb_export_run(&k, path), 1);
	assert_string_equal(owed_list(dir), "run1.h5\t-\n");
	/* not a service: the service's entries are left, untried, said */
	said[0] = '\0';
	assert_int_equal(rb_resdb_catch_up(&k, dir), 1);
	assert_non_null(strstr(said, "1 export(s) of '"));
	assert_non_null(strstr(said, "are left to it"));
	assert_null(strstr(said, "cannot connect"));
	/* the service's database still away: still owed, said */
	k.service_url = away;
	assert_int_equal(rb_resdb_catch_up(&k, dir), 1);
	assert_non_null(strstr(said, "1 export(s) of '"));
	assert_non_null(strstr(said, "still owed"));
	assert_null(strstr(said, "hunter2"));
	assert_string_equal(owed_list(dir), "run1.h5\t-\n");
	/* a folder without a list owes nothing */
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, RB_RESDB_OWED);
	unlink(path);
	assert_int_equal(rb_resdb_catch_up(&k, dir), 0);
	assert_null(owed_list(dir));
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resdb_mask_url_hides_every_password_spelling),
		cmocka_unit_test(test_resdb_where_names_the_database_not_the_password),
		cmocka_unit_test(test_resdb_url_check_refuses_a_password_unsaid),
		cmocka_unit_test(test_resdb_owed_export_is_listed_and_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
