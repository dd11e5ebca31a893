// SPDX-License-Identifier: MIT
/*
 * What the service and its clients share (serve.h): where the control socket is, whether
 * its folder is private, whether a service listens there, and the fields of its
 * requests and replies.
 */
#include "serve.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

const char *rb_control_path(const char *given, char *buf, size_t len)
{
	const char *env = getenv("RACKBENCH_CONTROL");

	if (given && *given)
		snprintf(buf, len, "%s", given);
	else if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (getuid() == 0)
		snprintf(buf, len, "/run/rackbench/control");
	else
		snprintf(buf, len, "/tmp/rackbench-%u/control", (unsigned)getuid());
	return buf;
}

/*
 * Whether dir may hold a service's socket and logs: a real folder (not a symbolic link)
 * of this user that no one else may write to; strict (the default folder): no one else
 * may even enter it (0700). 0, or -EPERM with why filled.
 */
int rb_service_private_dir(const char *dir, bool strict, char *why, size_t len)
{
	struct stat st;

	if (lstat(dir, &st)) {
		snprintf(why, len, "%s", strerror(errno));
		return -errno;
	}
	if (S_ISLNK(st.st_mode))
		snprintf(why, len, "it is a symbolic link");
	else if (!S_ISDIR(st.st_mode))
		snprintf(why, len, "it is not a folder");
	else if (st.st_uid != geteuid())
		snprintf(why, len, "it belongs to uid %u, not to this user (uid %u)",
			 (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_mode & (strict ? 077 : 022))
		snprintf(why, len, "others may %s it (mode %04o; 0700 wanted)",
			 st.st_mode & 022 ? "write to" : "enter", (unsigned)(st.st_mode & 07777));
	else
		return 0;
	return -EPERM;
}

bool rb_service_present(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[4096], why[256];
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return false;
	/* a socket in a folder someone else controls may be theirs: never used */
	snprintf(tmp, sizeof(tmp), "%s", path);
	if (access(path, F_OK) == 0 &&
	    rb_service_private_dir(dirname(tmp), false, why, sizeof(why))) {
		snprintf(tmp, sizeof(tmp), "%s", path);
		rb_warn("not using the service socket '%s': its folder '%s' is not private (%s)",
			path, dirname(tmp), why);
		return false;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return r == 0;
}

const char *rb_control_field(const char *req, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = strchr(req, '\n'); p && p[1] && p[1] != '\n';
	     p = strchr(p + 1, '\n')) {
		if (!strncmp(p + 1, key, kl) && p[1 + kl] == '=') {
			const char *v = p + 2 + kl, *e = strchr(v, '\n');
			size_t n = e ? (size_t)(e - v) : strlen(v);

			if (n >= len)
				return NULL;
			memcpy(buf, v, n);
			buf[n] = '\0';
			return buf;
		}
	}
	return NULL;
}

int rb_control_fields_fit(const char *req, char *err, size_t len)
{
	for (const char *p = strchr(req, '\n'); p && p[1] && p[1] != '\n';
	     p = strchr(p + 1, '\n')) {
		const char *k = p + 1, *e = strchr(k, '\n'),
			   *eq = memchr(k, '=', e ? (size_t)(e - k) : strlen(k));
		size_t n, max;

		if (!eq)
			continue;
		n = e ? (size_t)(e - eq - 1) : strlen(eq + 1);
		max = eq - k == 2 && !strncmp(k, "id", 2) ? RB_RUN_ID_MAX : RB_CONTROL_VALUE_MAX;
		if (n < max)
			continue;
		if (max == RB_RUN_ID_MAX)
			snprintf(
				err, len,
				"no run '%.40s...' is going on or waiting (a run id has at most %d "
				"characters; this one has %zu)",
				eq + 1, RB_RUN_ID_MAX - 1, n);
		else
			snprintf(err, len,
				 "the request's '%.*s' is %zu characters long: at most %d",
				 (int)(eq - k) < 32 ? (int)(eq - k) : 32, k, n,
				 RB_CONTROL_VALUE_MAX - 1);
		return -E2BIG;
	}
	return 0;
}

bool rb_service_use(const char *ctl, bool no_service, char *buf, size_t len)
{
	rb_control_path(ctl, buf, len);
	return !no_service && rb_service_present(buf);
}

char *rb_path_absolute(const char *path)
{
	char cwd[4096], *r = NULL;

	if (!path)
		return NULL;
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	if (asprintf(&r, "%s/%s", cwd, path) < 0)
		return NULL;
	return r;
}
