/* SPDX-License-Identifier: MIT */
/*
 * Drive health snapshots: the NVMe SMART / Health log where the drive is NVMe, and the
 * kernel's IO counters (/sys/dev/block/M:m/stat) for every block device. Taken before
 * and after every point and every health_interval during it, so each number comes with
 * the drive's state (temperature, wear, errors) beside it.
 */
#ifndef RB_HEALTH_H
#define RB_HEALTH_H

#include <stdbool.h>
#include <stdint.h>

#include "nvme.h"

struct rb_health {
	bool nvme; /* the SMART fields are set */
	uint8_t critical_warning;
	int temperature_c;
	uint8_t available_spare_pct, percentage_used;
	double data_units_read, data_units_written, host_reads, host_writes;
	double power_on_hours, unsafe_shutdowns, media_errors, error_log_entries;
	/* time above the warning and the critical composite temperature (minutes), and
	 * thermal management: throttling transitions and seconds, both levels added up */
	double warn_temp_minutes, crit_temp_minutes, throttle_transitions, throttle_seconds;
	/* the PCIe link (pcie: set): speed (GT/s) and width now and the most both ends can
	 * do, the function's AER totals (negative: the kernel keeps none), its slot */
	bool pcie;
	double pcie_speed, pcie_max_speed, pcie_width, pcie_max_width;
	double aer_correctable, aer_nonfatal, aer_fatal;
	char slot[32];
	bool kernel; /* the kernel counters are set */
	uint64_t kernel_read_ios, kernel_write_ios, kernel_read_bytes, kernel_write_bytes;
};

/*
 * Reads a snapshot of the device at path. Returns 0, or -ENODEV for targets with no
 * device of their own (files).
 */
int rb_health_read(const char *path, const struct rb_nvme_ops *ops, struct rb_health *ret);

#endif
