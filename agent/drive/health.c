// SPDX-License-Identifier: MIT
#include "health.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "pcie.h"
#include "power.h"

int rb_health_read(const char *path, const struct rb_nvme_ops *ops, struct rb_health_snap *h)
{
	struct stat st;
	char sys[128];
	unsigned long long v[11];
	struct rb_pcie_link link;
	FILE *f;
	const char *base = strrchr(path, '/');

	memset(h, 0, sizeof(*h));
	h->power_state = h->apst = -1; /* not answered */
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENODEV;
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u/stat", major(st.st_rdev),
		 minor(st.st_rdev));
	f = fopen(sys, "re");
	if (f) {
		if (fscanf(f, "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6]) == 7) {
			h->kernel = true;
			h->kernel_read_ios = v[0];
			h->kernel_read_bytes = v[2] * 512;
			h->kernel_write_ios = v[4];
			h->kernel_write_bytes = v[6] * 512;
		}
		fclose(f);
	}
	if (rb_pcie_read("", major(st.st_rdev), minor(st.st_rdev), &link) == 0) {
		double ms;
		unsigned mw;

		rb_pcie_most(&link, &ms, &mw);
		h->pcie = true;
		h->pcie_speed = link.speed;
		h->pcie_max_speed = ms;
		h->pcie_width = link.width;
		h->pcie_max_width = mw;
		h->aer_correctable = link.aer_correctable;
		h->aer_nonfatal = link.aer_nonfatal;
		h->aer_fatal = link.aer_fatal;
		snprintf(h->slot, sizeof(h->slot), "%s", link.slot);
	}
	base = base ? base + 1 : path;
	/* an NVMe namespace, or any device the recorded pages stand for */
	if (ops && (!strncmp(base, "nvme", 4) || ops == &rb_nvme_pages)) {
		struct rb_nvme_id id;
		struct rb_nvme_smart s;
		uint16_t status;

		if (rb_nvme_read(ops, path, &id, &s, &status) == 0) {
			h->nvme = true;
			h->critical_warning = s.critical_warning;
			h->temperature_c = (int)s.composite_temp_k - 273;
			h->available_spare_pct = s.avail_spare_pct;
			h->percentage_used = s.percent_used;
			h->data_units_read = s.data_units_read;
			h->data_units_written = s.data_units_written;
			h->host_reads = s.host_reads;
			h->host_writes = s.host_writes;
			h->power_on_hours = s.power_on_hours;
			h->unsafe_shutdowns = s.unsafe_shutdowns;
			h->media_errors = s.media_errors;
			h->error_log_entries = s.error_log_entries;
			h->warn_temp_minutes = s.warn_temp_minutes;
			h->crit_temp_minutes = s.crit_temp_minutes;
			h->throttle_transitions =
				(double)s.thm_temp1_transitions + s.thm_temp2_transitions;
			h->throttle_seconds = (double)s.thm_temp1_seconds + s.thm_temp2_seconds;
			rb_power_now(ops, path, &h->power_state, &h->apst);
		}
	}
	return 0;
}
