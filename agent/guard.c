// SPDX-License-Identifier: MIT
#include "guard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "target.h"

bool rb_guard_allowed(const struct rb_guard_policy *p, const char *path)
{
	char rp[PATH_MAX], ra[PATH_MAX];
	bool have_rp = realpath(path, rp) != NULL;

	for (size_t i = 0; i < p->nallow; i++) {
		if (strcmp(p->allow[i], path) == 0)
			return true;
		if (have_rp && realpath(p->allow[i], ra) && strcmp(ra, rp) == 0)
			return true;
	}
	return false;
}

/* Is a device with this major and (disk) minor range mounted? Names the mount point. */
static bool dev_mounted(const char *proc_root, dev_t dev, bool whole_disk, char *where,
			size_t len)
{
	char path[PATH_MAX], line[8192];
	FILE *f;
	bool found = false;

	snprintf(path, sizeof(path), "%s/proc/self/mountinfo", proc_root ? proc_root : "");
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned id, parent, ma, mi;
		char root[4096], mnt[4096];

		if (sscanf(line, "%u %u %u:%u %4095s %4095s", &id, &parent, &ma, &mi, root,
			   mnt) != 6)
			continue;
		if (ma != major(dev))
			continue;
		/* partitions of a disk follow it: same major, minors after it (sd, loop
		 * with max_part, nvme use a range); exact match is always checked */
		if (mi == minor(dev) || (whole_disk && mi > minor(dev) && mi < minor(dev) + 16)) {
			snprintf(where, len, "%s", mnt);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static bool dev_swap(const char *proc_root, const char *real, char *what, size_t len)
{
	char path[PATH_MAX], line[4096];
	FILE *f;
	bool found = false;
	size_t n = strlen(real);

	snprintf(path, sizeof(path), "%s/proc/swaps", proc_root ? proc_root : "");
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, real, n) == 0 && (line[n] == ' ' || line[n] == '\t' ||
						    (line[n] >= '0' && line[n] <= '9'))) {
			snprintf(what, len, "%.*s", (int)strcspn(line, " \t"), line);
			found = true;
		}
	}
	fclose(f);
	return found;
}

int rb_guard_check_write(const struct rb_guard_policy *p, const char *path,
			 struct rb_diags *diags)
{
	struct rb_target_info ti;
	size_t before = rb_diags_errors(diags);
	bool allowed = rb_guard_allowed(p, path);
	char where[4096];
	int r;

	r = rb_target_probe(path, &ti);
	if (r) {
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path, "cannot inspect target: %s",
			     strerror(-r));
		return -EPERM;
	}
	if (!p->destructive)
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "writes need the run's key: %s is not given",
			     p->destructive_key ? p->destructive_key : "destructive: true");
	switch (ti.kind) {
	case RB_TARGET_BLOCK:
		if (!allowed)
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "writes need the agent's key: '%s' is not on the agent's "
				     "--allow list", path);
		if (dev_mounted(p->proc_root, ti.rdev, true, where, sizeof(where)))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "device is mounted at %s", where);
		if (dev_swap(p->proc_root, ti.real, where, sizeof(where)))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "device is in use as swap (%s)", where);
		break;
	case RB_TARGET_FILE:
	case RB_TARGET_MISSING:
		if (!allowed && !rb_path_under(path, p->state_dir))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "writes need the agent's key: the file was not created by "
				     "rackbench (it is not under the state folder '%s') and is "
				     "not on the agent's --allow list",
				     p->state_dir ? p->state_dir : "(none)");
		if (ti.kind == RB_TARGET_MISSING && !rb_path_under(path, p->state_dir))
			rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
				     "target does not exist (rackbench creates files only "
				     "under its state folder)");
		break;
	default:
		rb_diags_add(diags, RB_SEV_ERROR, NULL, 0, 0, path,
			     "target is neither a block device nor a regular file");
		break;
	}
	return rb_diags_errors(diags) > before ? -EPERM : 0;
}
