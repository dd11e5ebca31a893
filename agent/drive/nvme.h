/* SPDX-License-Identifier: MIT */
/*
 * NVMe identity and health. The pages (Identify Controller, Identify Namespace, the
 * SMART / Health Information log) are parsed here by their byte offsets in the NVMe
 * base specification, so a fake can serve pages laid out as the specification defines
 * them. Reading them sits behind an ops table: libnvme on real devices (the one module
 * that speaks libnvme; NVMe status codes stay in a ret_status out-parameter, never
 * mixed with errno), a fake in tests.
 */
#ifndef RB_NVME_H
#define RB_NVME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_NVME_ID_SIZE 4096
#define RB_NVME_SMART_SIZE 512

struct rb_nvme_lbaf {
	uint32_t data_bytes; /* 2^LBADS */
	uint16_t meta_bytes;
	uint8_t rel_perf; /* 0 best .. 3 degraded */
};

/* A power state descriptor (Identify Controller, PSD0..31): watts, microseconds. */
struct rb_nvme_psd {
	double max_w;			    /* MP (in 0.01 W, or 0.0001 W with MXPS) */
	double idle_w, active_w;	    /* IDLP, ACTP (0: not reported) */
	uint32_t entry_lat_us, exit_lat_us; /* ENLAT, EXLAT */
	bool non_operational;		    /* NOPS: no IO in this state */
};

struct rb_nvme_id {
	/* controller */
	uint16_t vid;
	char serial[21], model[41], firmware[9];
	uint32_t nn;	    /* namespaces the controller supports */
	bool format_all_ns; /* FNA bit 0: a Format applies to all namespaces */
	bool erase_all_ns;  /* FNA bit 1: a secure erase applies to all namespaces */
	bool crypto_erase;  /* FNA bit 2 */
	uint32_t sanicap;   /* bit 0 crypto, 1 block, 2 overwrite */
	unsigned npss;	    /* power states described: PSD0 .. PSD(npss) */
	bool fdp;	    /* CTRATT bit 19: Flexible Data Placement supported */
	bool apsta;	    /* autonomous power state transitions supported */
	struct rb_nvme_psd psd[32];
	/* namespace */
	uint32_t nsid;
	uint64_t size_blocks, capacity_blocks, used_blocks;
	unsigned nlbaf; /* LBA formats present */
	unsigned lbaf_in_use;
	struct rb_nvme_lbaf lbaf[64];
	uint8_t nguid[16], eui64[8];
	uint16_t endgid; /* the namespace's endurance group (FDP's logs are per group) */
};

struct rb_nvme_smart {
	uint8_t critical_warning; /* bit 0 spare, 1 temperature, 2 reliability, 3 read-only, 4 backup */
	uint16_t composite_temp_k;
	uint8_t avail_spare_pct, spare_thresh_pct, percent_used;
	/* 128-bit counters, kept as double beyond 2^53 (units: data units = 1000 x 512 B) */
	double data_units_read, data_units_written, host_reads, host_writes;
	double ctrl_busy_minutes, power_cycles, power_on_hours, unsafe_shutdowns;
	double media_errors, error_log_entries;
	uint32_t warn_temp_minutes, crit_temp_minutes;
	uint16_t sensor_temp_k[8]; /* 0: not reported */
	uint32_t thm_temp1_transitions, thm_temp2_transitions;
	uint32_t thm_temp1_seconds, thm_temp2_seconds;
};

/* Parse a 4096-byte Identify Controller / Identify Namespace page into id. */
void rb_nvme_parse_id_ctrl(const uint8_t *page, struct rb_nvme_id *id);
void rb_nvme_parse_id_ns(const uint8_t *page, struct rb_nvme_id *id);
/* Parse a 512-byte SMART / Health Information log page. */
void rb_nvme_parse_smart(const uint8_t *page, struct rb_nvme_smart *s);
/* Critical-warning bits in words ("available spare below threshold, ..."). */
void rb_nvme_warning_text(uint8_t critical_warning, char *buf, size_t len);

struct rb_nvme_ops {
	/* Opens a namespace block device; ret_nsid gets its namespace id. */
	int (*open)(const char *path, void **ret_h, uint32_t *ret_nsid);
	void (*close)(void *h);
	/*
	 * Each reads a raw page. Returns 0; negative errno when the command could not be
	 * sent; or -EIO with the NVMe status in ret_status when the device refused it.
	 */
	int (*identify_ctrl)(void *h, uint8_t *page, uint16_t *ret_status);
	int (*identify_ns)(void *h, uint32_t nsid, uint8_t *page, uint16_t *ret_status);
	int (*smart_log)(void *h, uint32_t nsid, uint8_t *page, uint16_t *ret_status);
	/* Purges (NULL where a backend cannot). ses: 0 none, 1 user data, 2 crypto. */
	int (*format)(void *h, uint32_t nsid, unsigned lbaf, unsigned ses, uint16_t *ret_status);
	/* sanact: 2 block erase, 4 crypto erase */
	int (*sanitize)(void *h, unsigned sanact, uint16_t *ret_status);
	/* sprog: progress out of 65536; sstat bits 2:0: 0 never, 1 done, 2 running, 3 failed */
	int (*sanitize_status)(void *h, uint16_t *ret_sprog, uint16_t *ret_sstat,
			       uint16_t *ret_status);
	int (*deallocate)(void *h, uint32_t nsid, uint64_t blocks, uint16_t *ret_status);
	/*
	 * The admin seam's general commands (NULL where a backend has none): a log page by id
	 * (lsp and lsi its specific field and identifier: an endurance group's for FDP's
	 * logs) from byte offset, len bytes; a feature's current value
	 * (Get Features with cdw11: FDP's 1Dh names the endurance group; CQE dword 0); a
	 * feature set (Set Features with cdw11), not saved
	 * across a reset.
	 */
	int (*get_log)(void *h, uint32_t nsid, uint8_t lid, uint8_t lsp, uint16_t lsi,
		       uint64_t offset, void *buf, uint32_t len, uint16_t *ret_status);
	int (*get_feature)(void *h, uint8_t fid, uint32_t cdw11, uint32_t *ret_value,
			   uint16_t *ret_status);
	int (*set_feature)(void *h, uint8_t fid, uint32_t value, uint16_t *ret_status);
};

extern const struct rb_nvme_ops rb_nvme_libnvme;
/* The backend runs read drives through (FDP statistics, power states): libnvme, unless a
 * command chose the recorded pages (--nvme-pages). */
const struct rb_nvme_ops *rb_nvme_runs(void);
void rb_nvme_use(const struct rb_nvme_ops *ops);
/*
 * Recorded pages: for a device /dev/NAME, DIR/NAME.id-ctrl, DIR/NAME.id-ns and
 * DIR/NAME.smart (raw bytes, as `nvme id-ctrl -b` writes them); a log page DIR/NAME.log-LID
 * (hex; a read with a log specific field DIR/NAME.log-LID-LSP: log-23-1 the host's FDP
 * events), or, where they exist,
 * DIR/NAME.log-LID.1, .2, ... one per read in turn (a drive's
 * counters moving); a feature DIR/NAME.feature-FID as text. For drives seen
 * elsewhere, and for tests. Set the folder first.
 */
extern const struct rb_nvme_ops rb_nvme_pages;
void rb_nvme_pages_dir(const char *dir);

/*
 * The FDP statistics of path's endurance group (log 22h: host and media bytes written),
 * through ops, into the 64 bytes of page. 0; -EOPNOTSUPP when the drive has no FDP or the
 * backend no log pages; other negative errno.
 */
int rb_nvme_fdp_stats(const struct rb_nvme_ops *ops, const char *path, uint8_t page[64]);
/*
 * How many placement ids a namespace of path's endurance group may use: the FDP
 * configuration in use (Get Features 1Dh with the group: enabled, its index) in the
 * configurations log (20h), its MAXPIDS + 1. 0 with *ret_n; -EOPNOTSUPP no FDP (or no
 * such commands), -ENODATA FDP not enabled on the group, other negative errno.
 */
#define RB_FDP_CONFIGS_SIZE 4096
int rb_nvme_fdp_pids(const struct rb_nvme_ops *ops, const char *path, unsigned *ret_n);
/* The FDP events log (23h) of the group, the host's or the controller's: 0 or as above. */
#define RB_FDP_EVENTS_SIZE 4096
int rb_nvme_fdp_events(const struct rb_nvme_ops *ops, const char *path, bool host,
		       uint8_t page[RB_FDP_EVENTS_SIZE]);
/* The OCP Latency Monitor log (C3h, 512 bytes) of the drive at path, raw: 0, or the read's
 * error (a drive without it refuses the log id). */
int rb_nvme_ocp_latency(const struct rb_nvme_ops *ops, const char *path, uint8_t page[512]);
/* ... and its OCP SMART / Health Information Extended log (C0h). */
int rb_nvme_ocp_smart(const struct rb_nvme_ops *ops, const char *path, uint8_t page[512]);

/* Identity and health of a namespace through ops. 0 or negative errno. */
int rb_nvme_read(const struct rb_nvme_ops *ops, const char *path, struct rb_nvme_id *ret_id,
		 struct rb_nvme_smart *ret_smart, uint16_t *ret_status);

#endif
