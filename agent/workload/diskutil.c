// SPDX-License-Identifier: MIT
#include "diskutil.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "clock.h"

/* The 11 counters of a stat file: reads (ios, merges, sectors, ms), writes (the same),
 * in flight, io_ticks (ms busy), time_in_queue (ms). */
static int read_counters(const char *path, uint64_t v[11])
{
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return -1;
	n = fscanf(f,
		   "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10]);
	fclose(f);
	return n == 11 ? 0 : -1;
}

/* The folder in sysfs of the disk under path (a partition's whole disk); false: none. */
static bool disk_dir(const char *root, const char *path, char *dir, size_t len)
{
	char sys[PATH_MAX], real[PATH_MAX];
	struct stat st;
	dev_t dev;

	if (stat(path, &st) < 0)
		return false;
	dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	snprintf(sys, sizeof(sys), "%s/sys/dev/block/%u:%u", root, major(dev), minor(dev));
	if (!realpath(sys, real))
		return false; /* no block device (tmpfs, NFS), or no sysfs */
	snprintf(sys, sizeof(sys), "%s/partition", real);
	if (access(sys, F_OK) == 0) {
		char *slash = strrchr(real, '/');

		if (!slash)
			return false;
		*slash = '\0';
	}
	snprintf(dir, len, "%s", real);
	return true;
}

void rb_diskutil_start(struct rb_diskutil *u, const char *root, char *const *paths, size_t n)
{
	u->n = 0;
	u->start_ns = rb_mono_ns();
	for (size_t i = 0; i < n && u->n < RB_DISKUTIL_MAX; i++) {
		char dir[PATH_MAX], file[sizeof(u->stat[0])];
		const char *name;
		bool seen = false;

		if (!disk_dir(root, paths[i], dir, sizeof(dir)))
			continue;
		if ((size_t)snprintf(file, sizeof(file), "%s/stat", dir) >= sizeof(file))
			continue;
		for (unsigned k = 0; k < u->n && !seen; k++)
			seen = !strcmp(u->stat[k], file);
		if (seen || read_counters(file, u->first[u->n]))
			continue;
		name = strrchr(dir, '/');
		memset(&u->disk[u->n], 0, sizeof(u->disk[0]));
		snprintf(u->disk[u->n].name, sizeof(u->disk[0].name), "%s", name ? name + 1 : dir);
		snprintf(u->stat[u->n], sizeof(u->stat[0]), "%s", file);
		u->n++;
	}
}

/* b - a for a counter the kernel may keep in 32 bits (it then wraps around once), as fio. */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a || a >= (1ULL << 32) ? b - a : (1ULL << 32) + b - a;
}

unsigned rb_diskutil_read(const struct rb_diskutil *u, struct rb_fio_disk *ret)
{
	uint64_t msec = (uint64_t)(rb_mono_ns() - u->start_ns) / 1000000;
	unsigned n = 0;

	for (unsigned k = 0; k < u->n; k++) {
		struct rb_fio_disk *d = &ret[n];
		const uint64_t *a = u->first[k];
		uint64_t b[11];

		if (read_counters(u->stat[k], b))
			continue;
		*d = u->disk[k];
		for (int w = 0; w < 2; w++) {
			d->ios[w] = delta(a[w * 4], b[w * 4]);
			d->merges[w] = delta(a[w * 4 + 1], b[w * 4 + 1]);
			d->sectors[w] = delta(a[w * 4 + 2], b[w * 4 + 2]);
			d->ticks_ms[w] = delta(a[w * 4 + 3], b[w * 4 + 3]);
		}
		d->io_ticks_ms = delta(a[9], b[9]);
		d->in_queue_ms = delta(a[10], b[10]);
		d->msec = msec;
		n++;
	}
	return n;
}
