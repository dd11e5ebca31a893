/* SPDX-License-Identifier: MIT */
/*
 * A drive's health snapshot, declared once: the agent reads it (agent/drive/health.c),
 * the wire carries it (a Health message's fields of the same names), the coordinator
 * writes it as a `health` row, all as this one struct, embedded where each needs it (as
 * `struct rb_identity` is).
 *
 * RB_HEALTH_FIELDS lists its numbers in the struct's (and the row's) order:
 *   X(col, type, name, known, agg, unit)
 *   col   COL: a column of the results file; WIRE: carried, not stored
 *   known when the value means something (else the row says NaN): ALWAYS, SMART (the
 *         drive answered SMART), THERMAL (SMART, from an agent of protocol 1.4 on),
 *         PCIE (a PCIe link was read), AER (PCIe, and the kernel keeps AER totals),
 *         POWER (the drive answered that Get Features, from an agent of protocol 1.8 on;
 *         the agent sends -1 for one it did not)
 *   agg   how a volume's snapshot adds its members': SUM, MAX, MIN, OR, AND, NONE (0)
 *   unit  the column's unit in the results file
 * Adding a number measured on the agent: its line here, its field in the proto's Health,
 * its reading in agent/drive/health.c, its column in schemas/results-layout.md, a test.
 */
#ifndef RB_HEALTHSNAP_H
#define RB_HEALTHSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* clang-format off */
#define RB_HEALTH_FIELDS(X)                                                                   \
	X(COL, uint8_t, nvme, ALWAYS, AND, "bool")                                             \
	X(COL, uint8_t, critical_warning, ALWAYS, OR, "NVMe bits")                             \
	X(WIRE, uint8_t, kernel, ALWAYS, AND, "bool")                                          \
	X(COL, double, temperature_c, SMART, MAX, "degC")                                      \
	X(COL, double, available_spare_pct, SMART, MIN, "%")                                   \
	X(COL, double, percentage_used, SMART, MAX, "%")                                       \
	X(COL, double, data_units_read, SMART, SUM, "512000 B")                                \
	X(COL, double, data_units_written, SMART, SUM, "512000 B")                             \
	X(COL, double, host_reads, SMART, SUM, "1")                                            \
	X(COL, double, host_writes, SMART, SUM, "1")                                           \
	X(COL, double, power_on_hours, SMART, MAX, "h")                                        \
	X(COL, double, unsafe_shutdowns, SMART, SUM, "1")                                      \
	X(COL, double, media_errors, SMART, SUM, "1")                                          \
	X(COL, double, error_log_entries, SMART, SUM, "1")                                     \
	X(COL, uint64_t, kernel_read_ios, ALWAYS, SUM, "1")                                    \
	X(COL, uint64_t, kernel_write_ios, ALWAYS, SUM, "1")                                   \
	X(COL, uint64_t, kernel_read_bytes, ALWAYS, SUM, "B")                                  \
	X(COL, uint64_t, kernel_write_bytes, ALWAYS, SUM, "B")                                 \
	X(COL, double, warn_temp_minutes, THERMAL, SUM, "min")                                 \
	X(COL, double, crit_temp_minutes, THERMAL, SUM, "min")                                 \
	X(COL, double, throttle_transitions, THERMAL, SUM, "1")                                \
	X(COL, double, throttle_seconds, THERMAL, SUM, "s")                                    \
	X(COL, uint8_t, pcie, ALWAYS, NONE, "bool")                                            \
	X(COL, double, pcie_speed, PCIE, NONE, "GT/s")                                         \
	X(COL, double, pcie_max_speed, PCIE, NONE, "GT/s")                                     \
	X(COL, double, pcie_width, PCIE, NONE, "lanes")                                        \
	X(COL, double, pcie_max_width, PCIE, NONE, "lanes")                                    \
	X(COL, double, aer_correctable, AER, NONE, "1")                                        \
	X(COL, double, aer_nonfatal, AER, NONE, "1")                                           \
	X(COL, double, aer_fatal, AER, NONE, "1")                                              \
	X(COL, double, power_state, POWER, NONE, "NVMe PS")                                    \
	X(COL, double, apst, POWER, NONE, "bool")
/* clang-format on */

#define RB_HEALTH_DECL(col, type, name, known, agg, unit) type name;

/*
 * The snapshot. nvme: the SMART numbers are set (temperature in degrees C, spare and wear
 * in percent, NVMe's data units of 512,000 bytes); kernel: the kernel's IO counters
 * (/sys/dev/block/M:m/stat) are; pcie: the link is (GT/s and lanes now and the most both
 * ends can do; AER totals, negative where the kernel keeps none); power_state and apst: the
 * drive's power state and whether APST is on (negative: not answered); slot: the link's
 * slot name ("" none known).
 */
struct rb_health_snap {
	RB_HEALTH_FIELDS(RB_HEALTH_DECL)
	char slot[32];
};

/*
 * Whether a PCIe link runs below what both its ends can do (speeds in GT/s, widths in
 * lanes; 0 or NaN: unknown, never short), and what it lacks in words when why is given:
 * "x2 of x4 at 8 GT/s of 16 GT/s", "8 GT/s of 16 GT/s", "x2 of x4". The agent's log and
 * the coordinator's verdict say it the same way.
 */
bool rb_link_short(double speed, double max_speed, double width, double max_width, char *why,
		   size_t len);

#endif
