// SPDX-License-Identifier: MIT
/*
 * plan --resolve: the campaign's drives as the agents see them and what the guard says;
 * --lock: the identities a destructive campaign will write, in a lock file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "coord_priv.h"
#include "campaign.h"
#include "exitcode.h"
#include "log.h"
#include "units.h"

/* Whether device path of drive i's agent comes up before (drive i, member m). */
static bool listed_before(const struct rb_campaign *c, size_t i, size_t m, const char *path)
{
	for (size_t j = 0; j <= i; j++) {
		const struct rb_drive_ref *d = &c->drives[j];
		size_t n = d->nmembers ? d->nmembers : 1;

		if (strcmp(d->agent, c->drives[i].agent))
			continue;
		for (size_t k = 0; k < (j == i ? m : n); k++)
			if (!strcmp(d->nmembers ? d->members[k].path : d->path, path))
				return true;
	}
	return false;
}

int rsv_print(struct coord *k, const char *lock, int rc)
{
	const struct rb_campaign *c = k->c;
	char sz[32], method[24];
	FILE *f = NULL;
	size_t unpinnable = 0;

	printf("%-12s %-36s %-6s %-24s %-20s %-10s %9s  %s\n", "agent", "path", "kind", "model",
	       "serial", "firmware", "size", "guard");
	for (size_t i = 0; i < c->ndrives; i++) {
		const struct rb_drive_ref *d = &c->drives[i];
		struct ragent *a = reg_agent(k, d->agent);
		const char *verdict = k->refusal.refused[i]   ? "REFUSED (reasons above)"
				      : rb_campaign_writes(c) ? "writes allowed"
							      : "reads only";

		if (d->nmembers) {
			struct rb_row_drive v;
			char u[32], label[64];

			memset(&v, 0, sizeof(v));
			ing_volume_row(k, i, &v);
			snprintf(label, sizeof(label), "%zu x %s", d->nmembers,
				 rb_fmt_size(d->stripe, u, sizeof(u)));
			printf("%-12s %-36s %-6s %-24s %-20s %-10s %9s  %s\n", d->agent, d->path,
			       "volume", label, "-", "-",
			       rb_fmt_size_human(v.id.size_bytes, sz, sizeof(sz)), verdict);
		}
		for (size_t m = 0; m < (d->nmembers ? d->nmembers : 1); m++) {
			const char *path = d->nmembers ? d->members[m].path : d->path;
			const struct rb_identity *t = reg_target(a, path);
			char shown[300];

			snprintf(shown, sizeof(shown), "%s%s", d->nmembers ? "  + " : "", path);
			printf("%-12s %-36s %-6s %-24s %-20s %-10s %9s  %s\n", d->agent, shown,
			       t ? t->kind : "?", t && t->model[0] ? t->model : "-",
			       t && t->serial[0] ? t->serial : "-",
			       t && t->firmware[0] ? t->firmware : "-",
			       t ? rb_fmt_size_human(t->size_bytes, sz, sizeof(sz)) : "?",
			       d->nmembers ? "(member)" : verdict);
		}
	}
	if (!lock)
		return rc;
	if (rc) {
		rb_err("no lock written: the guard refused a drive, or an agent did not answer");
		return rc;
	}
	if (!rb_campaign_writes(c))
		rb_warn("campaign '%s' does not write: a lock pins drives all the same", c->name);
	f = fopen(lock, "wxe");
	if (!f) {
		rb_err("cannot create lock file '%s': %s (it exists, or the folder is not "
		       "writable)",
		       lock, strerror(errno));
		return RB_EXIT_USAGE;
	}
	fprintf(f,
		"# rackbench lock: the drives campaign '%s' writes, by identity.\n"
		"# Written by 'rackbench plan --lock'; a campaign with 'lock: THIS-FILE' runs only\n"
		"# if each drive still reports the serial below.\n"
		"campaign: %s\nmethodology: %s\ndrives:\n",
		c->name, c->name, rb_campaign_methodology(c, method, sizeof(method)));
	/* a volume's members are locked one by one: they are what gets written */
	size_t locked = 0;
	bool vols = false;

	for (size_t i = 0; i < c->ndrives; i++)
		vols |= c->drives[i].nmembers > 0;

	for (size_t i = 0; i < c->ndrives; i++) {
		const struct rb_drive_ref *d = &c->drives[i];

		for (size_t m = 0; m < (d->nmembers ? d->nmembers : 1); m++) {
			const char *path = d->nmembers ? d->members[m].path : d->path;
			const struct rb_identity *t = reg_target(reg_agent(k, d->agent), path);

			if (vols && listed_before(c, i, m, path))
				continue; /* in several volumes: locked once */

			fprintf(f,
				"  - {agent: \"%s\", path: \"%s\", serial: \"%s\", model: \"%s\", "
				"firmware: \"%s\", size: %llu}\n",
				d->agent, path, t ? t->serial : "", t ? t->model : "",
				t ? t->firmware : "", (unsigned long long)(t ? t->size_bytes : 0));
			if (!t || !t->serial[0])
				unpinnable++;
			locked++;
		}
	}
	if (fclose(f)) {
		rb_err("cannot write lock file '%s'", lock);
		return RB_EXIT_FAILED;
	}
	printf("lock: %s (%zu drive(s)", lock, locked);
	if (unpinnable)
		printf("; %zu without a serial (files, loop devices) are recorded, not pinned",
		       unpinnable);
	printf(")\n");
	return 0;
}
