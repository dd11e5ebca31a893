// SPDX-License-Identifier: MIT
/*
 * The service's admin endpoint (serve --admin-listen): the control socket's requests from
 * other hosts over TCP with CURVE, judged by the ZAP handler against the admin allow-list.
 * The requests are handled where the local ones are (serve.c's control_request); here is
 * what differs: the socket, the log line naming the key of every request, and the fields
 * a remote client may not send, since they name files on the service's host (the run's
 * events file, a lock file to write, a results folder): its runs go to the service's own
 * results folder, and a resume names a file in it.
 */
#include "serve_priv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "serve.h"

/* Whether path (resolved) lies in folder dir (resolved). */
static bool inside(const char *dir, const char *path)
{
	char d[PATH_MAX], p[PATH_MAX];
	size_t n;

	if (!dir || !realpath(dir, d) || !realpath(path, p))
		return false;
	n = strlen(d);
	return !strncmp(d, p, n) && (p[n] == '/' || (n == 1 && d[0] == '/'));
}

bool svc_admin_refuses(const struct service *s, const char *who, const char *req, char *why,
		       size_t len)
{
	static const char *const local[] = { "events", "lock", "results", "default_results" };
	char v[RB_CONTROL_VALUE_MAX], id[RB_RUN_ID_MAX];
	int cmd = (int)strcspn(req, "\n");

	/* in the service's own log, also during a run (whose log is stderr then) */
	rb_log_fd(s->log_fd, RB_LOG_INFO, "admin '%s': %.*s%s%s", who, cmd < 32 ? cmd : 32, req,
		  rb_control_field(req, "id", id, sizeof(id)) ? " " : "",
		  rb_control_field(req, "id", id, sizeof(id)) ? id : "");
	for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if (rb_control_field(req, local[i], v, sizeof(v))) {
			snprintf(why, len,
				 "'%s' names a file on the service's host: not over the admin "
				 "endpoint (its runs go to the service's results folder)",
				 local[i]);
			rb_log_fd(s->log_fd, RB_LOG_WARN, "admin '%s': refused: %s", who, why);
			return true;
		}
	if (!strncmp(req, "resume\n", 7) && rb_control_field(req, "path", v, sizeof(v)) &&
	    !inside(s->results_dir, v)) {
		snprintf(why, len, "resume: '%s' is not a file in the service's results folder", v);
		rb_log_fd(s->log_fd, RB_LOG_WARN, "admin '%s': refused: %s", who, why);
		return true;
	}
	return false;
}

int svc_admin_bind(struct service *s, const char *endpoint, const struct rb_keypair *server)
{
	char bound[256];

	s->admin = rb_tx_admin_bind(endpoint, server, bound, sizeof(bound));
	if (!s->admin) {
		int e = errno;

		rb_err("cannot listen for admins on '%s': %s", endpoint, strerror(e));
		return -e;
	}
	rb_info("admin endpoint on %s (CURVE, the admin allow-list)", bound);
	return 0;
}

/* The run of fleet id fid, or NULL. */
static const char *fleet_run(const struct service *s, const char *fid)
{
	char f[RB_RUN_ID_MAX];

	if (s->running && !strcmp(s->fleet, fid))
		return s->id;
	for (unsigned i = 0; i < s->nqueue; i++)
		if (rb_control_field(s->queue[i].req, "fleet", f, sizeof(f)) && !strcmp(f, fid))
			return s->queue[i].id;
	for (unsigned i = s->ndone; i-- > 0 && i + 16 >= s->ndone;)
		if (!strcmp(s->done[i % 16].fleet, fid))
			return s->done[i % 16].id;
	return NULL;
}

const char *svc_request_id(const struct service *s, const char *req, char *buf, size_t len)
{
	char fid[RB_RUN_ID_MAX];
	const char *id;

	if (rb_control_field(req, "id", buf, len))
		return buf;
	if (!rb_control_field(req, "fleet", fid, sizeof(fid)) || !(id = fleet_run(s, fid)))
		return NULL;
	snprintf(buf, len, "%s", id);
	return buf;
}

bool svc_fleet_unknown(const struct service *s, const char *req, char *buf, size_t len)
{
	char id[RB_RUN_ID_MAX];

	if (strncmp(req, "status\n", 7) && strncmp(req, "abort\n", 6))
		return false;
	return rb_control_field(req, "fleet", buf, len) &&
	       !rb_control_field(req, "id", id, sizeof(id)) && !fleet_run(s, buf);
}
