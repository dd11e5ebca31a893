// SPDX-License-Identifier: MIT
#include "zns.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/blkzoned.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "target.h"

static uint64_t queue_num(const char *dir, const char *file)
{
	char b[64];

	rb_sysfs_read(dir, file, b, sizeof(b));
	return strtoull(b, NULL, 10);
}

int rb_zns_geometry(int fd, struct rb_zoned *z)
{
	char dir[96], model[32];
	struct stat st;
	/* a report of one zone: the header and the zone after it */
	union {
		struct blk_zone_report h;
		char bytes[sizeof(struct blk_zone_report) + sizeof(struct blk_zone)];
	} rep;

	memset(z, 0, sizeof(*z));
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode))
		return -ENOTBLK;
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/queue", major(st.st_rdev),
		 minor(st.st_rdev));
	rb_sysfs_read(dir, "zoned", model, sizeof(model));
	if (strcmp(model, "host-managed") && strcmp(model, "host-aware"))
		return -ENOTBLK;
	z->zone_bytes = queue_num(dir, "chunk_sectors") * 512;
	z->nr_zones = queue_num(dir, "nr_zones");
	z->max_open = (unsigned)queue_num(dir, "max_open_zones");
	z->max_active = (unsigned)queue_num(dir, "max_active_zones");
	z->capacity_bytes = z->zone_bytes;
	memset(&rep, 0, sizeof(rep));
	rep.h.nr_zones = 1;
	if (ioctl(fd, BLKREPORTZONE, &rep) == 0 && rep.h.nr_zones == 1 &&
	    (rep.h.flags & BLK_ZONE_REP_CAPACITY))
		z->capacity_bytes = rep.h.zones[0].capacity * 512;
	return z->zone_bytes ? 0 : -ENOTBLK;
}

int rb_zns_prepare(const struct rb_workload *wl, const char *path, int fd, uint64_t span,
		   uint64_t *ret_reset_ns, struct rb_diags *d)
{
	unsigned open = wl->numjobs * (wl->zns == RB_ZNS_APPEND && wl->iodepth > 1 ? 2 : 1);
	struct blk_zone_range range;
	int64_t t0;
	struct rb_zoned z;

	if (rb_zns_geometry(fd, &z)) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "zns: not a zoned block device (sysfs queue/zoned)");
		return -EINVAL;
	}
	/* zone management timed, one zone an IO: nothing opened, nothing reset ahead */
	if (wl->zns == RB_ZNS_RESET || wl->zns == RB_ZNS_FINISH) {
		if (wl->bs == z.zone_bytes && !(wl->offset % z.zone_bytes) &&
		    !(span % (z.zone_bytes * wl->numjobs)))
			return 0;
		if (z.zone_bytes > RB_MAX_BS) {
			rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
				     "zns %s: its zones of %llu MiB are larger than the largest bs "
				     "(%llu MiB): zone management points take zones up to that "
				     "size for now",
				     wl->zns == RB_ZNS_RESET ? "reset" : "finish",
				     (unsigned long long)(z.zone_bytes >> 20),
				     (unsigned long long)(RB_MAX_BS >> 20));
			return -EINVAL;
		}
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "zns %s: each IO %s one zone: bs (%llu) must be the zone size "
			     "(%llu), offset (%llu) and size (%llu) whole zones, the same "
			     "number for each of the %u job(s)",
			     wl->zns == RB_ZNS_RESET ? "reset" : "finish",
			     wl->zns == RB_ZNS_RESET ? "resets" : "finishes",
			     (unsigned long long)wl->bs, (unsigned long long)z.zone_bytes,
			     (unsigned long long)wl->offset, (unsigned long long)span, wl->numjobs);
		return -EINVAL;
	}
	if (z.capacity_bytes != z.zone_bytes) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "zns: zones of %llu bytes hold %llu writable: rackbench writes "
			     "whole zones, and zones of a smaller capacity are not yet measured",
			     (unsigned long long)z.zone_bytes,
			     (unsigned long long)z.capacity_bytes);
		return -EINVAL;
	}
	if (wl->offset % z.zone_bytes || span % (z.zone_bytes * wl->numjobs) ||
	    z.zone_bytes % wl->bs) {
		rb_diags_add(
			d, RB_SEV_ERROR, NULL, 0, 0, path,
			"zns: offset (%llu) and size (%llu) must be whole zones of %llu bytes, "
			"the same number for each of the %u job(s), and bs (%llu) must divide "
			"a zone",
			(unsigned long long)wl->offset, (unsigned long long)span,
			(unsigned long long)z.zone_bytes, wl->numjobs, (unsigned long long)wl->bs);
		return -EINVAL;
	}
	/* each job writes one zone at a time; appends in flight at a zone's end hold it open
	 * while the next zone opens */
	if ((z.max_open && open > z.max_open) || (z.max_active && open > z.max_active)) {
		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path,
			     "zns: the workload keeps %u zones open (%u job(s)%s), more than the "
			     "namespace allows: max_open %u, max_active %u (0: no limit)",
			     open, wl->numjobs,
			     open > wl->numjobs ? ", two each while appends cross a zone's end"
						: "",
			     z.max_open, z.max_active);
		return -EINVAL;
	}
	range = (struct blk_zone_range){ .sector = wl->offset / 512, .nr_sectors = span / 512 };
	t0 = rb_mono_ns();
	if (ioctl(fd, BLKRESETZONE, &range)) {
		int e = errno;

		rb_diags_add(d, RB_SEV_ERROR, NULL, 0, 0, path, "zns: cannot reset the zones: %s",
			     strerror(e));
		return -e;
	}
	*ret_reset_ns = (uint64_t)(rb_mono_ns() - t0);
	rb_info("%s: reset %llu zone(s) of %llu MiB in %.1f ms", path,
		(unsigned long long)(span / z.zone_bytes), (unsigned long long)(z.zone_bytes >> 20),
		(double)*ret_reset_ns / 1e6);
	return 0;
}

int rb_zns_finish(int fd, const struct rb_msg_zone *z, size_t n, uint64_t from, uint64_t to,
		  uint64_t *ret_ns, uint32_t *ret_zones)
{
	int64_t t0 = rb_mono_ns();
	int r = 0;

	*ret_ns = 0;
	*ret_zones = 0;
	for (size_t i = 0; i < n && !r; i++) {
		struct blk_zone_range range = { .sector = z[i].start_bytes / 512,
						.nr_sectors = z[i].len_bytes / 512 };

		/* open (implicitly or explicitly) or closed: written in part, not full */
		if (z[i].start_bytes < from || z[i].start_bytes >= to ||
		    (z[i].cond != BLK_ZONE_COND_IMP_OPEN && z[i].cond != BLK_ZONE_COND_EXP_OPEN &&
		     z[i].cond != BLK_ZONE_COND_CLOSED))
			continue;
		if (ioctl(fd, BLKFINISHZONE, &range))
			r = -errno;
		else
			(*ret_zones)++;
	}
	*ret_ns = (uint64_t)(rb_mono_ns() - t0);
	return r;
}

int rb_zns_report(const char *path, struct rb_msg_zone **ret, size_t *n)
{
	enum { CHUNK = 1024 };
	struct blk_zone_report *rep = NULL;
	struct rb_msg_zone *v = NULL;
	struct rb_zoned z;
	size_t got = 0;
	uint64_t sector = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;

	*ret = NULL;
	*n = 0;
	if (fd < 0)
		return -errno;
	r = rb_zns_geometry(fd, &z);
	if (!r && !(rep = malloc(sizeof(*rep) + CHUNK * sizeof(struct blk_zone))))
		r = -ENOMEM;
	while (!r && got < z.nr_zones && got < RB_ZNS_REPORT_MAX) {
		struct rb_msg_zone *nv;

		memset(rep, 0, sizeof(*rep));
		rep->sector = sector;
		rep->nr_zones = CHUNK;
		if (ioctl(fd, BLKREPORTZONE, rep)) {
			r = -errno;
			break;
		}
		if (!rep->nr_zones)
			break;
		nv = realloc(v, (got + rep->nr_zones) * sizeof(*v));
		if (!nv) {
			r = -ENOMEM;
			break;
		}
		v = nv;
		for (unsigned i = 0; i < rep->nr_zones && got < RB_ZNS_REPORT_MAX; i++) {
			const struct blk_zone *x = &rep->zones[i];

			v[got++] = (struct rb_msg_zone){
				.start_bytes = x->start * 512,
				.len_bytes = x->len * 512,
				.capacity_bytes = (rep->flags & BLK_ZONE_REP_CAPACITY ? x->capacity
										      : x->len) *
						  512,
				.wp_bytes = x->wp * 512,
				.cond = x->cond,
				.type = x->type,
			};
			sector = x->start + x->len;
		}
	}
	free(rep);
	close(fd);
	if (r) {
		free(v);
		return r;
	}
	*ret = v;
	*n = got;
	return 0;
}
