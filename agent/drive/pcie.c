// SPDX-License-Identifier: MIT
#include "pcie.h"

#include "healthsnap.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

/* "16.0 GT/s PCIe" (or "8 GT/s"): GT/s; 0 when unknown */
static double speed_of(const char *dir, const char *file)
{
	char b[64];

	rb_sysfs_read(dir, file, b, sizeof(b));
	return strtod(b, NULL);
}

static unsigned width_of(const char *dir, const char *file)
{
	char b[32];

	rb_sysfs_read(dir, file, b, sizeof(b));
	return (unsigned)strtoul(b, NULL, 10);
}

/* An AER file's TOTAL_ERR_* line; -1 when the file is not there. */
static double aer_total(const char *dir, const char *file)
{
	char path[PATH_MAX + 64], line[128];
	double v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TOTAL_ERR_", 10))
			v = strtod(strchr(line, ' ') ? strchr(line, ' ') : line, NULL);
	fclose(f);
	return v;
}

/* The last path component shaped like 0000:00:04.0: the PCI function; NULL none. */
static const char *last_function(const char *path)
{
	const char *p = path, *last = NULL;

	while ((p = strchr(p, '/'))) {
		unsigned a, b, c, d;

		p++;
		if (strlen(p) >= 12 && p[4] == ':' && p[7] == ':' && p[10] == '.' &&
		    sscanf(p, "%4x:%2x:%2x.%1x", &a, &b, &c, &d) == 4)
			last = p;
	}
	return last;
}

/* The slot whose address is the function's device (0000:01:00, no function). */
static void slot_of(const char *root, const char *address, char *slot, size_t len)
{
	char dir[PATH_MAX], a[64];
	struct dirent *de;
	DIR *d;

	slot[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/sys/bus/pci/slots", root);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char sub[PATH_MAX + 256];

		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		rb_sysfs_read(sub, "address", a, sizeof(a));
		if (a[0] && !strncmp(a, address, strlen(a)) && strlen(a) >= 10) {
			snprintf(slot, len, "%s", de->d_name);
			break;
		}
	}
	closedir(d);
}

int rb_pcie_read(const char *root, unsigned major, unsigned minor, struct rb_pcie_link *ret)
{
	char sys[PATH_MAX], real[PATH_MAX], fn[PATH_MAX], port[PATH_MAX];
	const char *last;
	char *up;

	memset(ret, 0, sizeof(*ret));
	ret->aer_correctable = ret->aer_nonfatal = ret->aer_fatal = -1;
	snprintf(sys, sizeof(sys), "%s/sys/dev/block/%u:%u", root, major, minor);
	if (!realpath(sys, real) || !(last = last_function(real)))
		return -ENOENT;
	snprintf(ret->address, sizeof(ret->address), "%.12s", last);
	snprintf(fn, sizeof(fn), "%.*s", (int)(last - real) + 12, real);
	ret->speed = speed_of(fn, "current_link_speed");
	ret->max_speed = speed_of(fn, "max_link_speed");
	ret->width = width_of(fn, "current_link_width");
	ret->max_width = width_of(fn, "max_link_width");
	if (!ret->max_speed && !ret->max_width)
		return -ENOENT; /* conventional PCI: no link */
	ret->aer_correctable = aer_total(fn, "aer_dev_correctable");
	ret->aer_nonfatal = aer_total(fn, "aer_dev_nonfatal");
	ret->aer_fatal = aer_total(fn, "aer_dev_fatal");
	/* the folder above the function is its upstream port, when that is a function */
	snprintf(port, sizeof(port), "%s", fn);
	up = strrchr(port, '/');
	if (up) {
		*up = '\0';
		if (last_function(port) && last_function(port) + 12 == port + strlen(port)) {
			ret->port_max_speed = speed_of(port, "max_link_speed");
			ret->port_max_width = width_of(port, "max_link_width");
		}
	}
	slot_of(root, ret->address, ret->slot, sizeof(ret->slot));
	return 0;
}

void rb_pcie_most(const struct rb_pcie_link *l, double *ret_speed, unsigned *ret_width)
{
	*ret_speed = l->port_max_speed > 0 && l->port_max_speed < l->max_speed ? l->port_max_speed
									       : l->max_speed;
	*ret_width = l->port_max_width && l->port_max_width < l->max_width ? l->port_max_width
									   : l->max_width;
}

bool rb_pcie_downtrained(const struct rb_pcie_link *l, char *why, size_t len)
{
	double ms;
	unsigned mw;

	rb_pcie_most(l, &ms, &mw);
	return rb_link_short(l->speed, ms, l->width, mw, why, len);
}
