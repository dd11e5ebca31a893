// SPDX-License-Identifier: MIT
#include "power.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

#define FID_POWER_MGMT 0x02
#define FID_APST 0x0c

/* Get or set feature fid on path's namespace: 0, negative errno, -EIO with the status. */
static int on_drive(const struct rb_nvme_ops *ops, const char *path, uint8_t fid, bool set,
		    uint32_t *value, uint16_t *st)
{
	uint32_t nsid;
	void *h;
	int r;

	if (set ? !ops->set_feature : !ops->get_feature)
		return -EOPNOTSUPP;
	r = ops->open(path, &h, &nsid);
	if (r)
		return r;
	r = set ? ops->set_feature(h, fid, *value, st) : ops->get_feature(h, fid, 0, value, st);
	ops->close(h);
	return r;
}

static void record_path(const char *state_dir, const char *path, char *out, size_t len)
{
	const char *name = strrchr(path, '/');

	snprintf(out, len, "%s/power/%s", state_dir, name ? name + 1 : path);
}

int rb_power_apply(const struct rb_nvme_ops *ops, const char *path, unsigned ps,
		   const char *state_dir, struct rb_power_hold *h, struct rb_diags *d)
{
	struct rb_nvme_id id;
	uint16_t st = 0;
	uint32_t v;
	char dir[4200];
	FILE *f;
	int r;

	memset(h, 0, sizeof(*h));
	r = rb_nvme_read(ops, path, &id, NULL, &st);
	if (r) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "power_state: not an NVMe drive whose identity can be read (%s)",
			     strerror(-r));
		return -EINVAL;
	}
	if (ps > id.npss) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "power_state %u: the drive describes power states 0 to %u only "
			     "(Identify Controller NPSS)",
			     ps, id.npss);
		return -EINVAL;
	}
	r = on_drive(ops, path, FID_POWER_MGMT, false, &h->prior, &st);
	if (r) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "power_state: cannot read the drive's power state (Get Features 02h): "
			     "%s (NVMe status 0x%x)",
			     strerror(-r), st);
		return r;
	}
	/* the state before, kept where a killed run's successor finds it */
	snprintf(dir, sizeof(dir), "%s/power", state_dir);
	mkdir(state_dir, 0700);
	mkdir(dir, 0700);
	record_path(state_dir, path, h->record, sizeof(h->record));
	f = fopen(h->record, "we");
	if (!f || fprintf(f, "%s %u\n", path, h->prior) < 0 || fflush(f) || fsync(fileno(f))) {
		r = -errno;
		if (f)
			fclose(f);
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "power_state: cannot record the state before in %s: %s", h->record,
			     strerror(-r));
		return r ? r : -EIO;
	}
	fclose(f);
	snprintf(h->path, sizeof(h->path), "%s", path);
	h->held = true;
	v = (h->prior & ~0x1fu) | ps;
	r = on_drive(ops, path, FID_POWER_MGMT, true, &v, &st);
	if (r) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "power_state %u: the drive refused Set Features 02h (Power "
			     "Management): %s (NVMe status 0x%x); its state is as it was",
			     ps, strerror(-r), st);
		unlink(h->record);
		h->held = false;
		return r;
	}
	if (id.psd[ps].non_operational)
		rb_warn("%s: power state %u is non-operational: the drive leaves it for IO", path,
			ps);
	rb_info("%s: power state %u (%.2f W at most; was %u)", path, ps, id.psd[ps].max_w,
		h->prior & 0x1f);
	return 0;
}

int rb_power_restore(const struct rb_nvme_ops *ops, struct rb_power_hold *h)
{
	uint16_t st = 0;
	uint32_t v;
	int r;

	if (!h->held)
		return 0;
	v = h->prior;
	r = on_drive(ops, h->path, FID_POWER_MGMT, true, &v, &st);
	if (r)
		rb_err("%s: cannot put back power state %u: %s (its record stays in %s)", h->path,
		       h->prior & 0x1f, strerror(-r), h->record);
	else
		unlink(h->record);
	h->held = false;
	return r;
}

int rb_power_restore_pending(const struct rb_nvme_ops *ops, const char *state_dir)
{
	char dir[4200];
	struct dirent *de;
	int n = 0;
	DIR *dh;

	snprintf(dir, sizeof(dir), "%s/power", state_dir);
	dh = opendir(dir);
	if (!dh)
		return 0;
	while ((de = readdir(dh))) {
		struct rb_power_hold h = { .held = true };
		char line[256];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(h.record, sizeof(h.record), "%s/%s", dir, de->d_name);
		f = fopen(h.record, "re");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%95s %u", h.path, &h.prior) == 2 &&
		    !strncmp(h.path, "/dev/", 5)) {
			rb_warn("%s: a run was stopped in power state it set: putting back state %u",
				h.path, h.prior & 0x1f);
			n += rb_power_restore(ops, &h) == 0;
		}
		fclose(f);
	}
	closedir(dh);
	return n;
}

void rb_power_now(const struct rb_nvme_ops *ops, const char *path, double *ps, double *apst)
{
	uint32_t v = 0, nsid;
	uint16_t st = 0;
	void *h;

	*ps = *apst = -1;
	if (!ops->get_feature || ops->open(path, &h, &nsid))
		return;
	/* one open for both: a health snapshot reads them every interval */
	if (ops->get_feature(h, FID_POWER_MGMT, 0, &v, &st) == 0)
		*ps = (double)(v & 0x1f);
	v = 0;
	if (ops->get_feature(h, FID_APST, 0, &v, &st) == 0)
		*apst = (double)(v & 1);
	ops->close(h);
}
