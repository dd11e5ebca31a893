// SPDX-License-Identifier: MIT
#include "nvme.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libnvme.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvme_bytes.h"
#include "nvme_logs.h"

/* ASCII field, space padded: copy and trim */
static void ascii(char *dst, const uint8_t *src, size_t n)
{
	memcpy(dst, src, n);
	dst[n] = '\0';
	while (n && (dst[n - 1] == ' ' || dst[n - 1] == '\0'))
		dst[--n] = '\0';
}

void rb_nvme_parse_id_ctrl(const uint8_t *page, struct rb_nvme_id *id)
{
	id->vid = le16(page + 0);
	ascii(id->serial, page + 4, 20);
	ascii(id->model, page + 24, 40);
	ascii(id->firmware, page + 64, 8);
	id->sanicap = le32(page + 328);
	id->npss = page[263];
	id->fdp = le32(page + 96) & (1u << 19);
	id->apsta = page[265] & 1;
	for (unsigned i = 0; i <= id->npss && i < 32; i++) {
		const uint8_t *d = page + 2048 + 32 * i;
		/* IPS and APS (bits 7:6): 01b 0.0001 W, 10b 0.01 W; 00b not reported */
		static const double scale[4] = { 0, 0.0001, 0.01, 0 };

		id->psd[i] = (struct rb_nvme_psd){
			.max_w = le16(d) * (d[3] & 1 ? 0.0001 : 0.01),
			.non_operational = d[3] & 2,
			.entry_lat_us = le32(d + 4),
			.exit_lat_us = le32(d + 8),
			.idle_w = le16(d + 16) * scale[d[18] >> 6],
			.active_w = le16(d + 20) * scale[d[22] >> 6],
		};
	}
	id->nn = le32(page + 516);
	id->format_all_ns = page[524] & 1;
	id->erase_all_ns = page[524] & 2;
	id->crypto_erase = page[524] & 4;
}

void rb_nvme_parse_id_ns(const uint8_t *page, struct rb_nvme_id *id)
{
	uint8_t flbas = page[26];

	id->size_blocks = le64(page + 0);
	id->capacity_blocks = le64(page + 8);
	id->used_blocks = le64(page + 16);
	id->nlbaf = (unsigned)page[25] + 1;
	if (id->nlbaf > 64)
		id->nlbaf = 64;
	/* format index: bits 3:0, and 6:5 as its high bits beyond 16 formats */
	id->lbaf_in_use = (unsigned)(flbas & 0x0f) | (unsigned)((flbas >> 5) & 3) << 4;
	for (unsigned i = 0; i < id->nlbaf; i++) {
		uint32_t v = le32(page + 128 + 4 * i);
		unsigned lbads = (v >> 16) & 0xff;

		id->lbaf[i].meta_bytes = (uint16_t)(v & 0xffff);
		id->lbaf[i].data_bytes = lbads >= 9 && lbads < 32 ? 1u << lbads : 0;
		id->lbaf[i].rel_perf = (uint8_t)((v >> 24) & 3);
	}
	memcpy(id->nguid, page + 104, 16);
	memcpy(id->eui64, page + 120, 8);
	id->endgid = le16(page + 102);
}

void rb_nvme_parse_smart(const uint8_t *page, struct rb_nvme_smart *s)
{
	memset(s, 0, sizeof(*s));
	s->critical_warning = page[0];
	s->composite_temp_k = le16(page + 1);
	s->avail_spare_pct = page[3];
	s->spare_thresh_pct = page[4];
	s->percent_used = page[5];
	s->data_units_read = le128(page + 32);
	s->data_units_written = le128(page + 48);
	s->host_reads = le128(page + 64);
	s->host_writes = le128(page + 80);
	s->ctrl_busy_minutes = le128(page + 96);
	s->power_cycles = le128(page + 112);
	s->power_on_hours = le128(page + 128);
	s->unsafe_shutdowns = le128(page + 144);
	s->media_errors = le128(page + 160);
	s->error_log_entries = le128(page + 176);
	s->warn_temp_minutes = le32(page + 192);
	s->crit_temp_minutes = le32(page + 196);
	for (int i = 0; i < 8; i++)
		s->sensor_temp_k[i] = le16(page + 200 + 2 * i);
	s->thm_temp1_transitions = le32(page + 216);
	s->thm_temp2_transitions = le32(page + 220);
	s->thm_temp1_seconds = le32(page + 224);
	s->thm_temp2_seconds = le32(page + 228);
}

void rb_nvme_warning_text(uint8_t w, char *buf, size_t len)
{
	static const char *const bits[] = {
		"available spare below threshold",
		"temperature outside its thresholds",
		"reliability degraded by media or internal errors",
		"media placed in read-only mode",
		"volatile memory backup failed",
		"persistent memory region read-only",
	};
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < 6 && n < len; i++)
		if (w & (1u << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "", bits[i]);
}

/* One log page of the device at path, len bytes from its start: opened, read, closed. */
static int log_once(const struct rb_nvme_ops *ops, const char *path, uint32_t nsid, uint8_t lid,
		    uint8_t lsp, uint16_t lsi, uint8_t *page, uint32_t len)
{
	uint16_t st = 0;
	uint32_t ns;
	void *h;
	int r = ops->open(path, &h, &ns);

	if (r)
		return r;
	r = ops->get_log(h, nsid, lid, lsp, lsi, 0, page, len, &st);
	ops->close(h);
	return r;
}

/* An FDP log of path's endurance group (no namespace, the group in LSI). */
static int fdp_log(const struct rb_nvme_ops *ops, const char *path, uint8_t lid, uint8_t lsp,
		   uint8_t *page, uint32_t len)
{
	struct rb_nvme_id id;
	uint16_t st = 0;
	int r;

	if (!ops->get_log)
		return -EOPNOTSUPP;
	r = rb_nvme_read(ops, path, &id, NULL, &st);
	if (r)
		return r;
	if (!id.fdp)
		return -EOPNOTSUPP;
	return log_once(ops, path, 0, lid, lsp, id.endgid, page, len);
}

int rb_nvme_fdp_pids(const struct rb_nvme_ops *ops, const char *path, unsigned *ret_n)
{
	struct rb_fdp_configs *c = NULL;
	struct rb_nvme_id id;
	uint32_t v = 0, ns;
	uint16_t st = 0;
	uint8_t *page = NULL;
	void *h;
	int r;

	if (!ops->get_log || !ops->get_feature)
		return -EOPNOTSUPP;
	r = rb_nvme_read(ops, path, &id, NULL, &st);
	if (!r && !id.fdp)
		r = -EOPNOTSUPP;
	if (!r && !(r = ops->open(path, &h, &ns))) {
		/* FDP (1Dh) of the group: bit 0 enabled, bits 15:8 the configuration's index */
		r = ops->get_feature(h, 0x1d, id.endgid, &v, &st);
		ops->close(h);
	}
	if (!r && !(v & 1))
		r = -ENODATA;
	page = r ? NULL : malloc(RB_FDP_CONFIGS_SIZE);
	c = page ? malloc(sizeof(*c)) : NULL;
	if (!r && (!page || !c))
		r = -ENOMEM;
	if (!r)
		r = fdp_log(ops, path, 0x20, 0, page, RB_FDP_CONFIGS_SIZE);
	if (!r)
		r = rb_fdp_configs_parse(page, RB_FDP_CONFIGS_SIZE, c);
	if (!r && ((v >> 8) & 0xff) >= c->n)
		r = -EINVAL; /* an index the log does not describe */
	if (!r)
		*ret_n = (unsigned)c->config[(v >> 8) & 0xff].maxpids + 1;
	free(c);
	free(page);
	return r;
}

int rb_nvme_fdp_stats(const struct rb_nvme_ops *ops, const char *path, uint8_t page[64])
{
	return fdp_log(ops, path, 0x22, 0, page, 64);
}

int rb_nvme_fdp_events(const struct rb_nvme_ops *ops, const char *path, bool host,
		       uint8_t page[RB_FDP_EVENTS_SIZE])
{
	/* LSP bit 0 set: the host's events (a reclaim unit not fully written or past its
	 * time, a bad placement id), as libnvme's nvme_get_log_fdp_events() sends it; clear:
	 * the controller's (media reallocated, handles modified) */
	return fdp_log(ops, path, 0x23, host, page, RB_FDP_EVENTS_SIZE);
}

/* An OCP log (C0h, C3h) of the controller, 512 bytes raw: every namespace; its GUID says
 * whether it is the OCP one. */
static int ocp_log(const struct rb_nvme_ops *ops, const char *path, uint8_t lid, uint8_t page[512])
{
	if (!ops->get_log)
		return -EOPNOTSUPP;
	return log_once(ops, path, 0xffffffff, lid, 0, 0, page, 512);
}

int rb_nvme_ocp_latency(const struct rb_nvme_ops *ops, const char *path, uint8_t page[512])
{
	return ocp_log(ops, path, 0xc3, page);
}

int rb_nvme_ocp_smart(const struct rb_nvme_ops *ops, const char *path, uint8_t page[512])
{
	return ocp_log(ops, path, 0xc0, page);
}

int rb_nvme_read(const struct rb_nvme_ops *ops, const char *path, struct rb_nvme_id *ret_id,
		 struct rb_nvme_smart *ret_smart, uint16_t *ret_status)
{
	uint8_t *page = calloc(1, RB_NVME_ID_SIZE);
	void *h = NULL;
	uint32_t nsid = 0;
	int r;

	if (!page)
		return -ENOMEM;
	*ret_status = 0;
	r = ops->open(path, &h, &nsid);
	if (r)
		goto out;
	memset(ret_id, 0, sizeof(*ret_id));
	ret_id->nsid = nsid;
	r = ops->identify_ctrl(h, page, ret_status);
	if (r)
		goto out_close;
	rb_nvme_parse_id_ctrl(page, ret_id);
	memset(page, 0, RB_NVME_ID_SIZE);
	r = ops->identify_ns(h, nsid, page, ret_status);
	if (r)
		goto out_close;
	rb_nvme_parse_id_ns(page, ret_id);
	if (ret_smart) {
		memset(page, 0, RB_NVME_SMART_SIZE);
		/* the controller-wide log: namespace 0xffffffff */
		r = ops->smart_log(h, 0xffffffff, page, ret_status);
		if (r == 0)
			rb_nvme_parse_smart(page, ret_smart);
	}
out_close:
	ops->close(h);
out:
	free(page);
	return r;
}

/* ---- libnvme ---- */

static int ln_open(const char *path, void **ret_h, uint32_t *ret_nsid)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (nvme_get_nsid(fd, ret_nsid) < 0) {
		int e = errno ? errno : ENOTTY;

		close(fd);
		return -e;
	}
	*ret_h = (void *)(intptr_t)(fd + 1);
	return 0;
}

static void ln_close(void *h)
{
	close((int)(intptr_t)h - 1);
}

/* libnvme: <0 with errno, >0 an NVMe status */
static int ln_result(int r, uint16_t *ret_status)
{
	if (r < 0)
		return errno ? -errno : -EIO;
	if (r > 0) {
		*ret_status = (uint16_t)r;
		return -EIO;
	}
	return 0;
}

static int ln_identify_ctrl(void *h, uint8_t *page, uint16_t *ret_status)
{
	return ln_result(nvme_identify_ctrl((int)(intptr_t)h - 1, (struct nvme_id_ctrl *)page),
			 ret_status);
}

static int ln_identify_ns(void *h, uint32_t nsid, uint8_t *page, uint16_t *ret_status)
{
	return ln_result(nvme_identify_ns((int)(intptr_t)h - 1, nsid, (struct nvme_id_ns *)page),
			 ret_status);
}

static int ln_smart_log(void *h, uint32_t nsid, uint8_t *page, uint16_t *ret_status)
{
	return ln_result(
		nvme_get_log_smart((int)(intptr_t)h - 1, nsid, true, (struct nvme_smart_log *)page),
		ret_status);
}

static int ln_format(void *h, uint32_t nsid, unsigned lbaf, unsigned ses, uint16_t *st)
{
	uint32_t result = 0;
	struct nvme_format_nvm_args a = {
		.result = &result,
		.args_size = sizeof(a),
		.fd = (int)(intptr_t)h - 1,
		.timeout = 0, /* a Format may take minutes: no driver timeout */
		.nsid = nsid,
		.ses = (enum nvme_cmd_format_ses)ses,
		.lbaf = (uint8_t)(lbaf & 0xf),
		.lbafu = (uint8_t)(lbaf >> 4),
	};

	return ln_result(nvme_format_nvm(&a), st);
}

static int ln_sanitize(void *h, unsigned sanact, uint16_t *st)
{
	uint32_t result = 0;
	struct nvme_sanitize_nvm_args a = {
		.result = &result,
		.args_size = sizeof(a),
		.fd = (int)(intptr_t)h - 1,
		.sanact = (enum nvme_sanitize_sanact)sanact,
	};

	return ln_result(nvme_sanitize_nvm(&a), st);
}

static int ln_sanitize_status(void *h, uint16_t *sprog, uint16_t *sstat, uint16_t *st)
{
	struct nvme_sanitize_log_page log;
	int r = ln_result(nvme_get_log_sanitize((int)(intptr_t)h - 1, true, &log), st);

	if (!r) {
		*sprog = le16((const uint8_t *)&log.sprog);
		*sstat = le16((const uint8_t *)&log.sstat);
	}
	return r;
}

static int ln_deallocate(void *h, uint32_t nsid, uint64_t blocks, uint16_t *st)
{
	struct nvme_dsm_range ranges[256];
	uint64_t lba = 0;

	/* Dataset Management, deallocate: up to 256 ranges of up to 2^32-1 blocks */
	while (lba < blocks) {
		uint16_t n = 0;

		while (n < 256 && lba < blocks) {
			uint64_t len = blocks - lba > 0xffffffffULL ? 0xffffffffULL : blocks - lba;

			ranges[n].cattr = 0;
			ranges[n].nlb = htole32((uint32_t)len);
			ranges[n].slba = htole64(lba);
			lba += len;
			n++;
		}
		uint32_t result = 0;
		struct nvme_dsm_args a = {
			.result = &result,
			.dsm = ranges,
			.args_size = sizeof(a),
			.fd = (int)(intptr_t)h - 1,
			.nsid = nsid,
			.attrs = NVME_DSMGMT_AD,
			.nr_ranges = n,
		};
		int r = ln_result(nvme_dsm(&a), st);

		if (r)
			return r;
	}
	return 0;
}

static int ln_get_log(void *h, uint32_t nsid, uint8_t lid, uint8_t lsp, uint16_t lsi,
		      uint64_t offset, void *buf, uint32_t len, uint16_t *st)
{
	uint32_t result = 0;
	struct nvme_get_log_args a = {
		.lpo = offset,
		.result = &result,
		.log = buf,
		.args_size = sizeof(a),
		.fd = (int)(intptr_t)h - 1,
		.lid = (enum nvme_cmd_get_log_lid)lid,
		.len = len,
		.nsid = nsid,
		.csi = NVME_CSI_NVM,
		.lsi = lsi,
		.lsp = lsp,
	};

	return ln_result(nvme_get_log(&a), st);
}

static int ln_get_feature(void *h, uint8_t fid, uint32_t cdw11, uint32_t *value, uint16_t *st)
{
	struct nvme_get_features_args a = {
		.result = value,
		.args_size = sizeof(a),
		.fd = (int)(intptr_t)h - 1,
		.sel = NVME_GET_FEATURES_SEL_CURRENT,
		.fid = fid,
		.cdw11 = cdw11,
	};

	return ln_result(nvme_get_features(&a), st);
}

static int ln_set_feature(void *h, uint8_t fid, uint32_t value, uint16_t *st)
{
	uint32_t result = 0;
	struct nvme_set_features_args a = {
		.result = &result,
		.args_size = sizeof(a),
		.fd = (int)(intptr_t)h - 1,
		.cdw11 = value,
		.fid = fid,
	};

	return ln_result(nvme_set_features(&a), st);
}

const struct rb_nvme_ops rb_nvme_libnvme = {
	.open = ln_open,
	.close = ln_close,
	.identify_ctrl = ln_identify_ctrl,
	.identify_ns = ln_identify_ns,
	.smart_log = ln_smart_log,
	.format = ln_format,
	.sanitize = ln_sanitize,
	.sanitize_status = ln_sanitize_status,
	.deallocate = ln_deallocate,
	.get_log = ln_get_log,
	.get_feature = ln_get_feature,
	.set_feature = ln_set_feature,
};

static const struct rb_nvme_ops *runs_ops = &rb_nvme_libnvme;

const struct rb_nvme_ops *rb_nvme_runs(void)
{
	return runs_ops;
}

void rb_nvme_use(const struct rb_nvme_ops *ops)
{
	runs_ops = ops;
}

/* ---- recorded pages ---- */

static char pages_dir[4096];

void rb_nvme_pages_dir(const char *dir)
{
	snprintf(pages_dir, sizeof(pages_dir), "%s", dir);
}

struct pages_h {
	char name[256];
};

static int pg_open(const char *path, void **ret_h, uint32_t *ret_nsid)
{
	const char *name = strrchr(path, '/');
	struct pages_h *h = calloc(1, sizeof(*h));
	const char *n;

	if (!h)
		return -ENOMEM;
	snprintf(h->name, sizeof(h->name), "%s", name ? name + 1 : path);
	/* nvme0n2 -> namespace 2 */
	n = strrchr(h->name, 'n');
	*ret_nsid = n && n != h->name ? (uint32_t)strtoul(n + 1, NULL, 10) : 1;
	*ret_h = h;
	return 0;
}

static void pg_close(void *h)
{
	free(h);
}

static int pg_read(void *h, const char *what, uint8_t *page, size_t len)
{
	char path[4600];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s.%s", pages_dir, ((struct pages_h *)h)->name, what);
	f = fopen(path, "rbe");
	if (!f)
		return -errno;
	n = fread(page, 1, len, f);
	fclose(f);
	return n == len ? 0 : -EIO;
}

static int pg_ctrl(void *h, uint8_t *page, uint16_t *st)
{
	(void)st;
	return pg_read(h, "id-ctrl", page, RB_NVME_ID_SIZE);
}

static int pg_ns(void *h, uint32_t nsid, uint8_t *page, uint16_t *st)
{
	(void)nsid;
	(void)st;
	return pg_read(h, "id-ns", page, RB_NVME_ID_SIZE);
}

/*
 * How many of a recorded page's turns were read: NAME.WHAT.1, .2, ... are the reads of one
 * page in turn while they exist (a drive's counters moving during a run), then NAME.WHAT;
 * key tells the pages of one device apart. NULL past 16 pages (the plain file then).
 */
static unsigned *pg_turns(const char *name, unsigned key)
{
	static struct {
		char name[256];
		unsigned key, reads;
	} seq[16];
	unsigned k = 0;

	for (; k < 16 && seq[k].name[0]; k++)
		if (!strcmp(seq[k].name, name) && seq[k].key == key)
			return &seq[k].reads;
	if (k == 16)
		return NULL;
	snprintf(seq[k].name, sizeof(seq[k].name), "%s", name);
	seq[k].key = key;
	return &seq[k].reads;
}

/* DIR/NAME.WHAT.N, its next turn, opened (and counted); else DIR/NAME.WHAT. */
static FILE *pg_open_turn(void *h, const char *what, unsigned key)
{
	const char *name = ((struct pages_h *)h)->name;
	unsigned *turns = pg_turns(name, key);
	char path[4600];
	FILE *f = NULL;

	if (turns) {
		snprintf(path, sizeof(path), "%s/%s.%s.%u", pages_dir, name, what, *turns + 1);
		f = fopen(path, "rbe");
		if (f)
			(*turns)++;
	}
	if (!f) {
		snprintf(path, sizeof(path), "%s/%s.%s", pages_dir, name, what);
		f = fopen(path, "rbe");
	}
	return f;
}

/* A page read whole from its turn's file (pg_open_turn), len bytes from offset. */
static int pg_read_turn(void *h, const char *what, unsigned key, uint64_t offset, void *buf,
			size_t len)
{
	FILE *f = pg_open_turn(h, what, key);
	size_t n;

	if (!f)
		return -errno;
	n = fseek(f, (long)offset, SEEK_SET) ? 0 : fread(buf, 1, len, f);
	fclose(f);
	return n == len ? 0 : -EIO;
}

/* The SMART log: DIR/NAME.smart.1, .2, ... in turn, then DIR/NAME.smart. */
static int pg_smart(void *h, uint32_t nsid, uint8_t *page, uint16_t *st)
{
	(void)nsid;
	(void)st;
	return pg_read_turn(h, "smart", 0x100, 0, page, RB_NVME_SMART_SIZE);
}

/* Whether a log's specific field is an action (create, establish a context), not which
 * content it returns: telemetry (07h, 08h) and the persistent event log (0Dh). */
static bool lsp_is_action(uint8_t lid)
{
	return lid == 0x07 || lid == 0x08 || lid == 0x0d;
}

/*
 * A log page: DIR/NAME.log-LID (two hex digits) .1, .2, ... in turn, from offset. A read
 * with a log specific field takes DIR/NAME.log-LID-LSP (and its turns): log-23-1 the
 * host's FDP events, beside log-23 the controller's; where the field is an action, the
 * page without it when there is no such file (log-07 for the telemetry a read creates).
 */
static int pg_get_log(void *h, uint32_t nsid, uint8_t lid, uint8_t lsp, uint16_t lsi,
		      uint64_t offset, void *buf, uint32_t len, uint16_t *st)
{
	char what[24];
	int r = -ENOENT;

	(void)nsid;
	(void)lsi;
	(void)st;
	if (lsp) {
		snprintf(what, sizeof(what), "log-%02x-%u", lid, lsp);
		r = pg_read_turn(h, what, lid | (unsigned)lsp << 8, offset, buf, len);
	}
	if (!lsp || (r == -ENOENT && lsp_is_action(lid))) {
		snprintf(what, sizeof(what), "log-%02x", lid);
		r = pg_read_turn(h, what, lid, offset, buf, len);
	}
	return r;
}

/* A feature: DIR/NAME.feature-FID holds its value as text; a set writes it (what a test
 * reads back, across processes, as a drive keeps it). An absent one reads 0. A recorded
 * drive has one value a feature, whatever cdw11 selects. */
static int pg_get_feature(void *h, uint8_t fid, uint32_t cdw11, uint32_t *value, uint16_t *st)
{
	char path[4600];
	unsigned v = 0;
	FILE *f;

	(void)cdw11;
	(void)st;
	snprintf(path, sizeof(path), "%s/%s.feature-%02x", pages_dir, ((struct pages_h *)h)->name,
		 fid);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = 0;
		fclose(f);
	}
	*value = v;
	return 0;
}

static int pg_set_feature(void *h, uint8_t fid, uint32_t value, uint16_t *st)
{
	char path[4600];
	FILE *f;

	(void)st;
	snprintf(path, sizeof(path), "%s/%s.feature-%02x", pages_dir, ((struct pages_h *)h)->name,
		 fid);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "%u\n", value);
	return fclose(f) ? -EIO : 0;
}

const struct rb_nvme_ops rb_nvme_pages = {
	.open = pg_open,
	.close = pg_close,
	.identify_ctrl = pg_ctrl,
	.identify_ns = pg_ns,
	.smart_log = pg_smart,
	.get_log = pg_get_log,
	.get_feature = pg_get_feature,
	.set_feature = pg_set_feature,
};
