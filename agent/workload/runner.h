/* SPDX-License-Identifier: MIT */
/*
 * Turns a workload and target paths into open descriptors ready for the engine:
 * runs the guard when the workload writes (every target first, before anything is
 * opened for writing), lays out files rackbench owns, opens with O_DIRECT, and
 * resolves offset and size against each target. Shared by `run` and the daemon.
 */
#ifndef RB_RUNNER_H
#define RB_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "guard.h"
#include "nvme.h"
#include "power.h"
#include "options.h"
#include "target.h"
#include "wire.h"

struct rb_prepared {
	size_t n;
	int *fds;
	uint64_t *spans;
	struct rb_target_info *info;
	struct rb_power_hold *power; /* power_state: each target's state before, put back */
	/* FDP statistics of each target's endurance group at the start (fdp[i]: read) */
	bool *fdp;
	uint8_t (*fdp_page)[64];
	uint64_t *zone_reset_ns; /* zns: resetting each target's zones took; 0 none */
	/* the OCP Latency Monitor (C3h) of each target at the start (ocp[i]: read, its GUID) */
	bool *ocp;
	uint8_t (*ocp_page)[512];
	/* ... and its OCP SMART extended log (C0h) (ocp_smart[i]: read, its GUID) */
	bool *ocp_smart;
	uint8_t (*ocp_smart_page)[512];
	/* ... and, with FDP, its events logs at the start: [0] the controller's, [1] the
	 * host's (fdp_ev[i] bit k: log k read) */
	uint8_t *fdp_ev;
	uint8_t (*fdp_ev_page)[2][RB_FDP_EVENTS_SIZE];
};

/*
 * What target i's OCP SMART extended log (C0h) counted since the prepare, read again now:
 * false when it has no such log. *ret_media the bytes its media wrote (NaN: the counter
 * fell), *ret the other counters' rises (wire.h).
 */
bool rb_runner_ocp_smart(const struct rb_prepared *p, size_t i, double *ret_media,
			 struct rb_ocp_counters *ret);

/*
 * The FDP events target i's drive logged since the prepare (its events logs read again
 * now: those newer than the newest each held then), up to max into out: how many.
 */
size_t rb_runner_fdp_events(const struct rb_prepared *p, size_t i, struct rb_msg_fdp_event *out,
			    size_t max);

/*
 * The commands target i's drive counted in each of its own latency buckets since the
 * prepare (OCP Latency Monitor, C3h, read again now), cmds[read, write, trim][bucket], and
 * the buckets' lower thresholds in ms: true, or false when it has no such log or its
 * counters restarted meanwhile (its bucket timer reached its threshold, a counter fell).
 */
bool rb_runner_dev_latency(const struct rb_prepared *p, size_t i, uint32_t threshold_ms[4],
			   uint64_t cmds[3][4]);

/*
 * The host and media bytes target i's endurance group wrote since the prepare (FDP
 * statistics, log 22h, read again now): true, or false when it has no FDP.
 */
bool rb_runner_fdp(const struct rb_prepared *p, size_t i, double *ret_host, double *ret_media);

/*
 * Returns 0 and the prepared targets; -EPERM when the guard refused (diags hold every
 * reason for every target; nothing was written); other negative errno with diags.
 */
int rb_runner_prepare(const struct rb_workload *wl, char *const *paths, size_t n,
		      const struct rb_guard_policy *gp, struct rb_prepared **ret,
		      struct rb_diags *diags);
struct rb_prepared *rb_prepared_free(struct rb_prepared *p);

#endif
