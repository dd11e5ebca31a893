/* SPDX-License-Identifier: MIT */
/*
 * A drive's result for one point as its agent measured it, declared once: the agent fills
 * it (agent/session/point_result.c), the wire carries it (DriveResult's fields named in
 * each line), the coordinator stores it as a `results` row, all as this one struct,
 * embedded where each needs it (as `struct rb_health_snap` and `struct rb_identity` are).
 * What the coordinator adds to the row (directions' figures from histograms, health deltas,
 * the rate, steady state, the start's skew, the status as a string) stays the row's own.
 *
 * The lists give the numbers in the results file's column order, each list where its
 * columns sit in the row:
 *   X(type, name, wire, unit)
 *   name  the struct member and the results column
 *   wire  the DriveResult field of proto/rackbench.proto that carries it
 *   unit  the column's unit in the results file
 * Adding a number measured on the agent (five files): its line at the end of
 * RB_RESULT_TAIL, its field in the proto's DriveResult, where the agent measures it
 * (agent/session/point_result.c), its column in schemas/results-layout.md, a test. The
 * codec, the row's layout and tests/unit/test_wire.c's round trip follow from the list.
 */
#ifndef RB_RESULTCORE_H
#define RB_RESULTCORE_H

#include <stdint.h>

/* clang-format off */
#define RB_RESULT_TIMES(X)                                                                     \
	X(int64_t, start_ns, start_ns, "ns since UTC epoch")                                    \
	X(int64_t, end_ns, end_ns, "ns since UTC epoch")                                        \
	X(uint64_t, elapsed_ns, elapsed_ns, "ns")
#define RB_RESULT_WORK(X)                                                                      \
	X(double, cpu_usr_pct, cpu_usr_pct, "%")                                                \
	X(double, cpu_sys_pct, cpu_sys_pct, "%")                                                \
	X(uint64_t, verify_checked, verify_checked, "1")                                        \
	X(uint64_t, verify_mismatches, verify_mismatches, "1")
#define RB_RESULT_HISTORY(X)                                                                   \
	X(int64_t, history_since_ns, history_since_ns, "ns since UTC epoch")                    \
	X(int64_t, purge_ns, purge_ns, "ns since UTC epoch")
#define RB_RESULT_SINCE_PURGE(X)                                                               \
	X(uint64_t, written_since_purge_bytes, written_since_purge, "B")                        \
	X(uint64_t, fill_passes_since_purge, fill_passes_since_purge, "1")
#define RB_RESULT_TAIL(X)                                                                      \
	X(uint64_t, replay_ios, replay_ios, "1")                                                \
	X(uint8_t, replay_complete, replay_complete, "bool")                                    \
	X(uint8_t, replay_timed, replay_timed, "bool")                                          \
	X(uint64_t, replay_lag_p50_ns, replay_lag_p50_ns, "ns")                                 \
	X(uint64_t, replay_lag_p99_ns, replay_lag_p99_ns, "ns")                                 \
	X(uint64_t, replay_lag_max_ns, replay_lag_max_ns, "ns")                                 \
	X(uint64_t, zone_reset_ns, zone_reset_ns, "ns")                                         \
	X(uint64_t, zone_finish_ns, zone_finish_ns, "ns")                                       \
	X(uint32_t, zones_finished, zones_finished, "1")
/* clang-format on */

#define RB_RESULT_FIELDS(X)                                                                        \
	RB_RESULT_TIMES(X)                                                                         \
	RB_RESULT_WORK(X) RB_RESULT_HISTORY(X) RB_RESULT_SINCE_PURGE(X) RB_RESULT_TAIL(X)

#define RB_RESULT_DECL(type, name, wire, unit) type name;

/*
 * start_ns, end_ns: the point's on the agent's UTC clock; history_since_ns: since when the
 * agent knows the drive (agent/drive/history.h); purge_ns: its last purge (0 none);
 * replay_*: rw replay's IOs issued, whether the trace ended and was paced, the issue lag.
 */
struct rb_result_core {
	RB_RESULT_FIELDS(RB_RESULT_DECL)
};

#endif
