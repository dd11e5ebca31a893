// SPDX-License-Identifier: MIT
/*
 * The offsets below follow the NVMe base specification 2.0 with TP4146 (FDP) and the
 * OCP Datacenter NVMe SSD specification 2.0, checked against libnvme's and nvme-cli's
 * structures where the specification's tables were unclear (named at each page).
 */
#include "nvme_logs.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "nvme_bytes.h"

/*
 * The GUIDs as they lie in the page: the specification writes them as one 128-bit
 * number, most significant byte first, and the page stores it little-endian.
 */
/* AFD514C97C6F4F9CA4F2BFEA2810AFC5h */
static const uint8_t ocp_smart_guid[16] = { 0xc5, 0xaf, 0x10, 0x28, 0xea, 0xbf, 0xf2, 0xa4,
					    0x9c, 0x4f, 0x6f, 0x7c, 0xc9, 0x14, 0xd5, 0xaf };
/* 85D45E58D4E643709C6C84D08CC07A92h */
static const uint8_t ocp_latency_guid[16] = { 0x92, 0x7a, 0xc0, 0x8c, 0xd0, 0x84, 0x6c, 0x9c,
					      0x70, 0x43, 0xe6, 0xd4, 0x58, 0x5e, 0xd4, 0x85 };

int rb_fdp_stats_parse(const uint8_t *p, size_t len, struct rb_fdp_stats *out)
{
	if (len < 64)
		return -EINVAL;
	out->hbmw = le128(p + 0);
	out->mbmw = le128(p + 16);
	out->mbe = le128(p + 32);
	return 0;
}

double rb_fdp_waf(const struct rb_fdp_stats *before, const struct rb_fdp_stats *after)
{
	double host = after->hbmw - before->hbmw, media = after->mbmw - before->mbmw;

	/* negated tests, so that a NAN among the counters gives NAN too */
	if (!(host > 0) || !(media >= 0) || !(after->mbe >= before->mbe))
		return NAN;
	return media / host;
}

/*
 * FDP configurations: a 16-byte header (NCFG zero-based at 0, version at 2, size at 4),
 * then descriptors, each sized by its own first field: a 64-byte fixed part, then NRUH
 * 4-byte reclaim unit handle descriptors, then vendor specific bytes.
 */
static int fdp_config(const uint8_t *d, size_t room, struct rb_fdp_config *c)
{
	unsigned handles;

	if (room < 64)
		return -EINVAL;
	c->size_bytes = le16(d + 0);
	c->rgif = d[2] & 0x0f;
	c->vwc = d[2] & 0x10;
	c->valid = d[2] & 0x80;
	c->vss = d[3];
	c->nrg = le32(d + 4);
	c->nruh = le16(d + 8);
	c->maxpids = le16(d + 10);
	c->nnss = le32(d + 12);
	c->runs = le64(d + 16);
	c->erutl = le32(d + 24);
	if (c->size_bytes < 64 + 4 * (size_t)c->nruh || c->size_bytes > room)
		return -EINVAL;
	handles = c->nruh < RB_FDP_MAX_RUH ? c->nruh : RB_FDP_MAX_RUH;
	memset(c->ruht, 0, sizeof(c->ruht));
	for (unsigned i = 0; i < handles; i++)
		c->ruht[i] = d[64 + 4 * i];
	return 0;
}

int rb_fdp_configs_parse(const uint8_t *p, size_t len, struct rb_fdp_configs *out)
{
	size_t off = 16;

	if (len < 16)
		return -EINVAL;
	out->total = (uint32_t)le16(p + 0) + 1;
	out->version = p[2];
	out->size_bytes = le32(p + 4);
	out->n = out->total < RB_FDP_MAX_CONFIGS ? out->total : RB_FDP_MAX_CONFIGS;
	for (unsigned i = 0; i < out->n; i++) {
		int r = fdp_config(p + off, len - off, &out->config[i]);

		if (r)
			return r;
		off += out->config[i].size_bytes;
	}
	return 0;
}

/* Reclaim unit handle usage: NRUH at 0, then 8-byte descriptors from offset 8. */
int rb_fdp_ruhu_parse(const uint8_t *p, size_t len, struct rb_fdp_ruhu *out)
{
	if (len < 8)
		return -EINVAL;
	out->total = le16(p + 0);
	out->n = out->total < RB_FDP_MAX_RUH ? out->total : RB_FDP_MAX_RUH;
	if ((len - 8) / 8 < out->n)
		return -EINVAL;
	memset(out->ruha, 0, sizeof(out->ruha));
	for (unsigned i = 0; i < out->n; i++)
		out->ruha[i] = p[8 + 8 * i];
	return 0;
}

/*
 * FDP events: NEVENTS at 0, then 64-byte events from offset 64. An event's layout is
 * libnvme's struct nvme_fdp_event: type 0, flags 1, PIID 2, timestamp 4 (6 bytes of
 * milliseconds, then its attributes at 10), NSID 12, type specific 16 (for a media
 * reallocation: flags 16, NLBAM 18, LBA 20), RGID 32, RUHID 34.
 */
static void fdp_event(const uint8_t *e, struct rb_fdp_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = e[0];
	ev->flags = e[1];
	ev->pid = le16(e + 2);
	ev->timestamp_ms = le_n(e + 4, 6);
	ev->timestamp_attr = e[10];
	ev->nsid = le32(e + 12);
	ev->rgid = le16(e + 32);
	ev->ruhid = e[34];
	if (ev->type == 0x80) {
		ev->lba_valid = e[16] & 1;
		ev->nlbam = le16(e + 18);
		ev->lba = le64(e + 20);
	}
}

int rb_fdp_events_parse(const uint8_t *p, size_t len, struct rb_fdp_events *out)
{
	if (len < 64)
		return -EINVAL;
	out->total = le32(p + 0);
	out->n = out->total < RB_FDP_MAX_EVENTS ? out->total : RB_FDP_MAX_EVENTS;
	if ((len - 64) / 64 < out->n)
		return -EINVAL;
	for (unsigned i = 0; i < out->n; i++)
		fdp_event(p + 64 + 64 * i, &out->event[i]);
	return 0;
}

/*
 * OCP C0h: the offsets of the specification's table, as nvme-cli's struct
 * ocp_smart_extended_log has them too. Version and GUID close the page at 494 and 496.
 */
int rb_ocp_smart_parse(const uint8_t *p, size_t len, struct rb_ocp_smart *out)
{
	if (len < RB_OCP_LOG_SIZE)
		return -EINVAL;
	if (memcmp(p + 496, ocp_smart_guid, 16))
		return -EBADMSG;
	memset(out, 0, sizeof(*out));
	out->media_bytes_written = le128(p + 0);
	out->media_bytes_read = le128(p + 16);
	out->bad_user_blocks = le_n(p + 32, 6);
	out->bad_user_blocks_norm = le16(p + 38);
	out->bad_system_blocks = le_n(p + 40, 6);
	out->bad_system_blocks_norm = le16(p + 46);
	out->xor_recoveries = le64(p + 48);
	out->uncorrectable_reads = le64(p + 56);
	out->soft_ecc_errors = le64(p + 64);
	out->e2e_detected = le32(p + 72);
	out->e2e_corrected = le32(p + 76);
	out->system_data_used_pct = p[80];
	out->refreshes = le_n(p + 81, 7);
	out->user_erase_max = le32(p + 88);
	out->user_erase_min = le32(p + 92);
	out->throttle_events = p[96];
	out->throttle_status = p[97];
	/* DSSD specification version: errata 98, point 99, minor 101, major 103 */
	out->dssd_errata = p[98];
	out->dssd_point = le16(p + 99);
	out->dssd_minor = le16(p + 101);
	out->dssd_major = p[103];
	out->pcie_correctable_errors = le64(p + 104);
	out->incomplete_shutdowns = le32(p + 112);
	out->free_blocks_pct = p[120];
	out->capacitor_health_pct = le16(p + 128);
	out->nvme_base_errata = p[130];
	out->nvme_cmdset_errata = p[131];
	out->unaligned_ios = le64(p + 136);
	out->security_version = le64(p + 144);
	out->nuse_blocks = le64(p + 152);
	out->plp_starts = le128(p + 160);
	out->endurance_estimate = le128(p + 176);
	out->link_retrains = le64(p + 192);
	out->power_state_changes = le64(p + 200);
	memcpy(out->lowest_fw_rev, p + 208, 8);
	out->log_version = le16(p + 494);
	return 0;
}

/*
 * A bucket's 16 bytes hold four 32-bit counters, the highest first in the
 * specification's table: read at 12, write at 8, deallocate at 4, reserved at 0 (as
 * nvme-cli's ocp plugin reads them too).
 */
static void lat_bucket(const uint8_t *b, struct rb_ocp_lat_counters *c)
{
	c->read = le32(b + 12);
	c->write = le32(b + 8);
	c->trim = le32(b + 4);
}

/*
 * OCP C3h: offsets as in nvme-cli's struct ssd_latency_monitor_log, which agrees with
 * the specification's table where the table is legible (counters at 32 and 240).
 */
int rb_ocp_latency_parse(const uint8_t *p, size_t len, struct rb_ocp_latency *out)
{
	if (len < RB_OCP_LOG_SIZE)
		return -EINVAL;
	if (memcmp(p + 496, ocp_latency_guid, 16))
		return -EBADMSG;
	memset(out, 0, sizeof(*out));
	out->feature_status = p[0];
	/* the timer and its threshold count 5 minutes a unit */
	out->bucket_timer_min = 5u * le16(p + 2);
	out->bucket_timer_threshold_min = 5u * le16(p + 4);
	/* a threshold counts 5 ms a unit from 5 ms: 00h is 5 ms */
	for (int i = 0; i < 4; i++)
		out->threshold_ms[i] = 5u * (p[6 + i] + 1u);
	out->latency_config = le16(p + 10);
	out->min_window_ms = 100u * p[12];
	for (int i = 0; i < 4; i++) {
		lat_bucket(p + 32 + 16 * i, &out->active[i]);
		lat_bucket(p + 240 + 16 * i, &out->statics[i]);
	}
	out->debug_trigger_enable = le16(p + 448);
	out->debug_latency_ms = le16(p + 450);
	out->debug_stamp = le64(p + 452);
	out->debug_pointer = le16(p + 460);
	out->debug_trigger_source = le16(p + 462);
	out->debug_stamp_units = p[464];
	out->log_version = le16(p + 494);
	return 0;
}

/* Telemetry header: libnvme's struct nvme_telemetry_log, the first 512 bytes. */
int rb_telemetry_header_parse(const uint8_t *p, size_t len, struct rb_telemetry_header *out)
{
	if (len < RB_TELEMETRY_HDR_SIZE)
		return -EINVAL;
	if (p[0] != 0x07 && p[0] != 0x08)
		return -EBADMSG;
	out->lid = p[0];
	memcpy(out->oui, p + 5, 3);
	out->last_block[0] = le16(p + 8);
	out->last_block[1] = le16(p + 10);
	out->last_block[2] = le16(p + 12);
	out->last_block[3] = le32(p + 16);
	out->host_generation = p[381];
	out->ctrl_available = p[382];
	out->ctrl_generation = p[383];
	memcpy(out->reason, p + 384, 128);
	return 0;
}

size_t rb_telemetry_bytes(const struct rb_telemetry_header *h, unsigned area)
{
	uint64_t last = 0;

	if (area < 1 || area > 4)
		return 0;
	for (unsigned i = 0; i < area; i++)
		if (h->last_block[i] > last)
			last = h->last_block[i];
	return (size_t)((last + 1) * 512);
}
