/* SPDX-License-Identifier: MIT */
/*
 * Evidence for the RMA: when a point ends with a drive's IO errors, data mismatches or a
 * new critical warning, what its vendor will ask for is read from the drive at once, before
 * anything else touches it -- the host-initiated telemetry log (07h, a fresh capture, data
 * areas 1 to 3), the error information log (01h), the SMART / health log (02h) and the
 * persistent event log (0Dh, where the drive has one) -- and
 * kept in the state folder (evidence/NAME-TIME-XXXXXX/), each file named in the point's result
 * with its size and sha256.
 */
#ifndef RB_EVIDENCE_H
#define RB_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "nvme.h"

#define RB_EVIDENCE_MAX 4
#define RB_EVENT_LOG_HEADER 512		      /* the persistent event log's header */
#define RB_EVIDENCE_TELEMETRY_MAX (64u << 20) /* the most of a telemetry log kept */
#define RB_EVIDENCE_KEEP 8 /* captures kept per drive; later failures keep none */

struct rb_evidence {
	char kind[16];	 /* telemetry, error-log, smart, event-log */
	char path[512];	 /* the file on the agent's host */
	uint64_t bytes;	 /* its size */
	char sha256[65]; /* its digest, hex */
};

/*
 * Reads the evidence of the NVMe drive at path through ops into files under
 * state_dir/evidence/, one entry per file in out (max of them). Returns how many were
 * kept (a log the drive has not is skipped, said at debug level), or negative errno when
 * none could be (not NVMe, no log pages in the backend, the folder not writable, or
 * RB_EVIDENCE_KEEP captures of the drive kept already: -EEXIST, said).
 */
int rb_evidence_capture(const struct rb_nvme_ops *ops, const char *path, const char *state_dir,
			struct rb_evidence *out, size_t max);

#endif
