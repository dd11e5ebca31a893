/* SPDX-License-Identifier: MIT */
/*
 * NVMe log pages that libnvme 1.3 does not decode, or that rackbench reads raw: the
 * Flexible Data Placement logs (configurations 20h, reclaim unit handle usage 21h,
 * statistics 22h, events 23h; NVMe 2.0 with TP4146), the OCP Datacenter NVMe SSD logs
 * (SMART / Health Information Extended C0h, Latency Monitor C3h) and the telemetry log's
 * header (07h, 08h).
 *
 * Each parser takes the page's bytes and their length, reads nothing past that length,
 * and returns 0 with *out filled, or a negative errno (and *out holds nothing to rely
 * on): -EINVAL for a page too short for what it declares, -EBADMSG for a page that is
 * not the one asked for (an OCP GUID that does not match, a telemetry header of another
 * log). Lists are decoded up to the fixed maxima below; the page's own count is kept
 * beside the number decoded.
 */
#ifndef RB_NVME_LOGS_H
#define RB_NVME_LOGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_FDP_MAX_CONFIGS 16 /* configurations decoded from one page */
#define RB_FDP_MAX_RUH 256    /* reclaim unit handles decoded per list */
#define RB_FDP_MAX_EVENTS 63  /* events of a 4 KiB events page */
#define RB_OCP_LOG_SIZE 512   /* C0h and C3h */
#define RB_TELEMETRY_HDR_SIZE 512

/* FDP statistics (22h). Counters in bytes, as doubles: exact up to 2^53. */
struct rb_fdp_stats {
	double hbmw; /* host bytes with metadata written */
	double mbmw; /* media bytes with metadata written */
	double mbe;  /* media bytes erased */
};

/* Parse an FDP statistics page (64 bytes at least). */
int rb_fdp_stats_parse(const uint8_t *p, size_t len, struct rb_fdp_stats *out);

/*
 * The write amplification between two statistics pages of one endurance group: media
 * bytes written over host bytes written. NAN when the host wrote nothing or a counter
 * went backwards.
 */
double rb_fdp_waf(const struct rb_fdp_stats *before, const struct rb_fdp_stats *after);

/* One FDP configuration descriptor. */
struct rb_fdp_config {
	uint16_t size_bytes; /* the descriptor's own size */
	/* FDP attributes: reclaim group identifier format (bits), volatile write cache, valid */
	uint8_t rgif;
	bool vwc, valid;
	uint8_t vss; /* vendor specific size, as the page gives it */
	/* counts */
	uint32_t nrg;	  /* reclaim groups */
	uint16_t nruh;	  /* reclaim unit handles */
	uint16_t maxpids; /* placement identifiers a namespace may use, zero-based */
	uint32_t nnss;	  /* namespaces supported */
	uint64_t runs;	  /* reclaim unit nominal size, bytes */
	uint32_t erutl;	  /* estimated reclaim unit time limit, seconds (0: none) */
	/* handle types, the first min(nruh, RB_FDP_MAX_RUH): 1 initially, 2 persistently isolated */
	uint8_t ruht[RB_FDP_MAX_RUH];
};

/* FDP configurations (20h). */
struct rb_fdp_configs {
	uint32_t total;	     /* configurations the page holds (its zero-based NCFG + 1) */
	uint8_t version;     /* log page version */
	uint32_t size_bytes; /* the log's size as the page gives it */
	unsigned n;	     /* decoded: min(total, RB_FDP_MAX_CONFIGS) */
	struct rb_fdp_config config[RB_FDP_MAX_CONFIGS];
};

/*
 * Parse an FDP configurations page. A descriptor shorter than its fixed part and handle
 * list, or running past len, is -EINVAL.
 */
int rb_fdp_configs_parse(const uint8_t *p, size_t len, struct rb_fdp_configs *out);

/* Reclaim unit handle usage (21h). */
struct rb_fdp_ruhu {
	uint16_t total; /* handles the page describes */
	unsigned n;	/* decoded: min(total, RB_FDP_MAX_RUH) */
	/* each handle's attributes: 0 unused, 1 host specified, 2 controller specified */
	uint8_t ruha[RB_FDP_MAX_RUH];
};

int rb_fdp_ruhu_parse(const uint8_t *p, size_t len, struct rb_fdp_ruhu *out);

/* One FDP event. */
struct rb_fdp_event {
	/* 0 RU not fully written, 1 RU time limit exceeded, 2 reset modified handles,
	 * 3 invalid placement identifier, 80h media reallocated, 81h handle modified */
	uint8_t type;
	uint8_t flags; /* bit 0 pid valid, 1 nsid valid, 2 location (rgid, ruhid) valid */
	uint16_t pid;
	uint64_t timestamp_ms;	/* NVMe timestamp: milliseconds since the epoch, 48 bits */
	uint8_t timestamp_attr; /* bit 0 synchronized, bits 3:1 origin */
	uint32_t nsid;
	uint16_t rgid; /* reclaim group */
	uint8_t ruhid; /* reclaim unit handle */
	/* media reallocated (80h) only: blocks moved, first LBA (when lba_valid) */
	uint16_t nlbam;
	bool lba_valid;
	uint64_t lba;
};

/* FDP events (23h). */
struct rb_fdp_events {
	uint32_t total; /* events the page holds */
	unsigned n;	/* decoded: min(total, RB_FDP_MAX_EVENTS) */
	struct rb_fdp_event event[RB_FDP_MAX_EVENTS];
};

int rb_fdp_events_parse(const uint8_t *p, size_t len, struct rb_fdp_events *out);

/* OCP SMART / Health Information Extended (C0h), OCP Datacenter NVMe SSD 2.0. */
struct rb_ocp_smart {
	/* bytes (128-bit counters as doubles) */
	double media_bytes_written, media_bytes_read;
	/* retired NAND blocks: raw counts, and spare left in percent (normalized) */
	uint64_t bad_user_blocks, bad_system_blocks;
	uint16_t bad_user_blocks_norm, bad_system_blocks_norm;
	/* counts */
	uint64_t xor_recoveries, uncorrectable_reads, soft_ecc_errors;
	uint32_t e2e_detected, e2e_corrected;
	uint64_t refreshes;
	uint32_t user_erase_max, user_erase_min; /* erase counts across user blocks */
	uint8_t throttle_events;
	uint64_t pcie_correctable_errors, link_retrains, power_state_changes;
	uint32_t incomplete_shutdowns;
	uint64_t unaligned_ios;
	double plp_starts;
	/* percent */
	uint8_t system_data_used_pct, free_blocks_pct;
	uint16_t capacitor_health_pct; /* FFFFh: no power loss protection */
	/* states and versions */
	uint8_t throttle_status; /* 0 none, 1..3 throttle level */
	uint8_t dssd_major, dssd_errata;
	uint16_t dssd_minor, dssd_point;
	uint8_t nvme_base_errata, nvme_cmdset_errata; /* ASCII letters, 0: none */
	uint64_t security_version;
	uint8_t lowest_fw_rev[8]; /* raw, as the drive writes it */
	uint16_t log_version;
	/* blocks: total namespace utilization */
	uint64_t nuse_blocks;
	/* lifetime writes the drive expects at a write amplification of 1, as reported */
	double endurance_estimate;
};

/* Parse a C0h page (512 bytes); -EBADMSG when its GUID is not the OCP one. */
int rb_ocp_smart_parse(const uint8_t *p, size_t len, struct rb_ocp_smart *out);

/* The counters of one latency bucket, in commands. */
struct rb_ocp_lat_counters {
	uint32_t read, write, trim;
};

/*
 * OCP Latency Monitor (C3h). A command lands in bucket 0 when its latency is at least
 * threshold A and under B, 1 from B to C, 2 from C to D, 3 at D and above; faster
 * commands are not counted. The active buckets count now; the static ones are the
 * active ones as they stood when the bucket timer last reached its threshold.
 */
struct rb_ocp_latency {
	uint8_t feature_status; /* bit 0 enabled, 1 active latency mode 1, 2 measured latency */
	/* minutes */
	uint32_t bucket_timer_min, bucket_timer_threshold_min;
	/* milliseconds: thresholds A..D, and the least gap between two stamps of a counter */
	uint32_t threshold_ms[4];
	uint32_t min_window_ms;
	uint16_t latency_config; /* which counters stamp (bit 0) or measure */
	struct rb_ocp_lat_counters active[4], statics[4];
	/* debug log: trigger enable bits, measured latency (ms), stamp, pointer, source */
	uint16_t debug_trigger_enable, debug_latency_ms, debug_pointer, debug_trigger_source;
	uint64_t debug_stamp;
	uint8_t debug_stamp_units;
	uint16_t log_version;
};

/* Parse a C3h page (512 bytes); -EBADMSG when its GUID is not the OCP one. */
int rb_ocp_latency_parse(const uint8_t *p, size_t len, struct rb_ocp_latency *out);

/* The header of a telemetry log (host-initiated 07h, controller-initiated 08h). */
struct rb_telemetry_header {
	uint8_t lid;	/* 07h or 08h */
	uint8_t oui[3]; /* IEEE OUI of who can read the data, as the page orders it */
	/* last 512-byte block of data areas 1 to 4 (area 4 only with extended telemetry) */
	uint32_t last_block[4];
	uint8_t host_generation; /* host-initiated data generation number */
	bool ctrl_available;	 /* controller-initiated data available */
	uint8_t ctrl_generation; /* controller-initiated data generation number */
	uint8_t reason[128];	 /* reason identifier, vendor specific */
};

/* Parse a telemetry log's first 512 bytes; -EBADMSG when its LID is not 07h or 08h. */
int rb_telemetry_header_parse(const uint8_t *p, size_t len, struct rb_telemetry_header *out);

/*
 * Bytes to read for a capture through data area `area` (1 to 4), the header included:
 * (its last block + 1) x 512, the largest last block of the areas up to it counted, as
 * an area can be empty. 0 for another area.
 */
size_t rb_telemetry_bytes(const struct rb_telemetry_header *h, unsigned area);

#endif
