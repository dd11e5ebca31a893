// SPDX-License-Identifier: MIT
/*
 * The service's exports into the fleet's database (serve --results-db, a campaign's
 * results_db): each run's results file when the run ends, said in the run's log and the
 * service's; a database away then leaves the export owed in the list of the file's folder
 * (results_db.h), caught up at a later run's end and at the service's start, each file
 * named as it is caught up. The run itself never waits on the database: its file is the
 * record.
 */
#include "serve_priv.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "log.h"
#include "results_db.h"

/* A line of the exports: in the service's log, and in the run's while it is stderr. */
static void say(void *arg, bool warn, const char *msg)
{
	struct service *s = arg;
	enum rb_log_level lvl = warn ? RB_LOG_WARN : RB_LOG_INFO;

	if (s->db_in_run_log || s->log_fd < 0)
		rb_log(lvl, "%s", msg);
	if (s->log_fd >= 0)
		rb_log_fd(s->log_fd, lvl, "%s", msg);
}

/* Whether dir is the service's results folder (--results), whose list its start reads. */
static bool own_folder(const struct service *s, const char *dir)
{
	char a[PATH_MAX], b[PATH_MAX];

	return s->results_dir && realpath(s->results_dir, a) && realpath(dir, b) && !strcmp(a, b);
}

/* A folder whose list still owes exports, kept to be caught up at the next run's end. */
static void remember(struct service *s, const char *dir)
{
	char **n;

	if (own_folder(s, dir))
		return; /* the service's own: caught up every time */
	for (size_t i = 0; i < s->nowed_dirs; i++)
		if (!strcmp(s->owed_dirs[i], dir))
			return;
	n = realloc(s->owed_dirs, (s->nowed_dirs + 1) * sizeof(*n));
	if (!n)
		return;
	s->owed_dirs = n;
	if ((n[s->nowed_dirs] = strdup(dir)))
		s->nowed_dirs++;
}

int svc_db_export_run(struct service *s, const struct rb_campaign *c, const char *results)
{
	const char *url = c->results_db ? c->results_db : s->results_db;
	struct rb_resdb_sink k = { .url = url,
				   /* the service's own URL is never written down */
				   .tag = c->results_db ? c->results_db : "-",
				   .service_url = s->results_db,
				   .say = say,
				   .arg = s };
	char dir[4096], tmp[4096];
	int r;

	if (!url || !results[0])
		return 0;
	snprintf(tmp, sizeof(tmp), "%s", results);
	snprintf(dir, sizeof(dir), "%s", dirname(tmp));
	k.at_start = own_folder(s, dir);
	s->db_in_run_log = true;
	r = rb_resdb_export_run(&k, results);
	s->db_in_run_log = false;
	if (r == 1)
		remember(s, dir);
	return r == 1;
}

void svc_db_catch_up(struct service *s)
{
	struct rb_resdb_sink k = { .service_url = s->results_db, .say = say, .arg = s };

	/* the service's folder, whose list a restart finds again */
	if (s->results_dir)
		rb_resdb_catch_up(&k, s->results_dir);
	/* the other folders a run's export was owed in since the service started */
	for (size_t i = 0; i < s->nowed_dirs;) {
		/* forgotten only when nothing is owed there any more (errors keep it) */
		if (rb_resdb_catch_up(&k, s->owed_dirs[i]) != 0) {
			i++;
			continue;
		}
		free(s->owed_dirs[i]);
		s->owed_dirs[i] = s->owed_dirs[--s->nowed_dirs];
	}
}

void svc_db_release(struct service *s)
{
	for (size_t i = 0; i < s->nowed_dirs; i++)
		free(s->owed_dirs[i]);
	free(s->owed_dirs);
	s->owed_dirs = NULL;
	s->nowed_dirs = 0;
}
