// SPDX-License-Identifier: MIT
#include "evidence.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "nvme_bytes.h"
#include "nvme_logs.h"
#include "sha256.h"

/* One log page, len bytes read in chunks of at most 64 KiB, into file dir/name. */
static int keep_log(const struct rb_nvme_ops *ops, void *h, uint8_t lid, uint8_t lsp, uint64_t len,
		    const char *dir, const char *name, const char *kind, struct rb_evidence *e)
{
	enum { CHUNK = 64 << 10 };
	uint8_t *buf = malloc(CHUNK);
	struct rb_sha256 s;
	uint16_t st = 0;
	FILE *f;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	snprintf(e->path, sizeof(e->path), "%s/%s", dir, name);
	f = fopen(e->path, "wxe");
	if (!f) {
		r = -errno;
		free(buf);
		return r;
	}
	rb_sha256_init(&s);
	for (uint64_t off = 0; off < len && !r; off += CHUNK) {
		uint32_t n = (uint32_t)(len - off < CHUNK ? len - off : CHUNK);

		/* a telemetry capture is created by its first read alone (lsp: create) */
		r = ops->get_log(h, 0xffffffff, lid, off ? 0 : lsp, 0, off, buf, n, &st);
		if (!r && fwrite(buf, 1, n, f) != n)
			r = -EIO;
		if (!r)
			rb_sha256_update(&s, buf, n);
	}
	if (fclose(f) && !r)
		r = -EIO;
	free(buf);
	if (r) {
		remove(e->path);
		return r;
	}
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	e->bytes = len;
	rb_sha256_hex(&s, e->sha256);
	return 0;
}

/*
 * The persistent event log (0Dh: power cycles, resets, firmware commits, thermal
 * excursions, with time stamps): its header read first with its context established (lsp
 * 1) says its total length, read whole from the same context; the context released (lsp
 * 2) after. 1 when kept into e, else 0 (a drive without it, said at debug level).
 */
static int keep_event_log(const struct rb_nvme_ops *ops, void *h, const char *path, const char *dir,
			  struct rb_evidence *e)
{
	uint8_t hdr[RB_EVENT_LOG_HEADER];
	uint16_t st = 0;
	uint64_t len;
	int r;

	if (ops->get_log(h, 0xffffffff, 0x0d, 1, 0, 0, hdr, sizeof(hdr), &st) || hdr[0] != 0x0d) {
		rb_debug("%s: no persistent event log (log 0Dh)", path);
		return 0;
	}
	/* Total Log Length (bytes 15:8), the header included */
	len = le64(hdr + 8);
	if (len < sizeof(hdr)) {
		rb_debug("%s: its persistent event log says %llu bytes, less than its header", path,
			 (unsigned long long)len);
		len = 0;
	}
	if (len > RB_EVIDENCE_TELEMETRY_MAX)
		len = RB_EVIDENCE_TELEMETRY_MAX;
	r = len ? keep_log(ops, h, 0x0d, 0, len, dir, "event-log.bin", "event-log", e) : -EINVAL;
	ops->get_log(h, 0xffffffff, 0x0d, 2, 0, 0, hdr, sizeof(hdr), &st);
	return r == 0;
}

/* The captures of drive name kept under dir (NAME-TIME folders). */
static unsigned kept_for(const char *dir, const char *name)
{
	size_t len = strlen(name);
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, name, len) && de->d_name[len] == '-';
	closedir(d);
	return n;
}

int rb_evidence_capture(const struct rb_nvme_ops *ops, const char *path, const char *state_dir,
			struct rb_evidence *out, size_t max)
{
	const char *name = strrchr(path, '/');
	uint8_t hdr[512];
	struct rb_telemetry_header th;
	char dir[400], stamp[32];
	uint16_t st = 0;
	uint32_t nsid;
	struct tm tm;
	time_t now = time(NULL);
	size_t n = 0;
	void *h;
	int r;

	if (!ops->get_log)
		return -EOPNOTSUPP;
	name = name ? name + 1 : path;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(dir, sizeof(dir), "%s/evidence", state_dir);
	mkdir(state_dir, 0700);
	mkdir(dir, 0700);
	/* a burn-in's every failing point would fill the folder: a drive's first few only */
	if (kept_for(dir, name) >= RB_EVIDENCE_KEEP) {
		rb_warn("%s: %d evidence captures are kept already in %s: no more until older "
			"ones are removed",
			path, RB_EVIDENCE_KEEP, dir);
		return -EEXIST;
	}
	/* one folder per capture, unique even within a second */
	snprintf(dir, sizeof(dir), "%s/evidence/%s-%s-XXXXXX", state_dir, name, stamp);
	if (!mkdtemp(dir))
		return -errno;
	r = ops->open(path, &h, &nsid);
	if (r) {
		rmdir(dir); /* nothing kept: no empty capture counts against the drive */
		return r;
	}
	/* telemetry: a fresh host-initiated capture (lsp 1), its header says its size */
	if (n < max && ops->get_log(h, 0xffffffff, 0x07, 1, 0, 0, hdr, sizeof(hdr), &st) == 0 &&
	    rb_telemetry_header_parse(hdr, sizeof(hdr), &th) == 0) {
		size_t len = rb_telemetry_bytes(&th, 3);

		if (len > RB_EVIDENCE_TELEMETRY_MAX)
			len = RB_EVIDENCE_TELEMETRY_MAX;
		if (len && keep_log(ops, h, 0x07, 0, len, dir, "telemetry-host.bin", "telemetry",
				    &out[n]) == 0)
			n++;
	} else {
		rb_debug("%s: no host-initiated telemetry (log 07h)", path);
	}
	if (n < max &&
	    keep_log(ops, h, 0x01, 0, 64 * 64, dir, "error-log.bin", "error-log", &out[n]) == 0)
		n++;
	if (n < max &&
	    keep_log(ops, h, 0x02, 0, RB_NVME_SMART_SIZE, dir, "smart.bin", "smart", &out[n]) == 0)
		n++;
	if (n < max)
		n += keep_event_log(ops, h, path, dir, &out[n]);
	ops->close(h);
	if (n)
		rb_info("%s: kept its telemetry, error log, SMART and persistent event log (those it "
			"has) in %s for the vendor",
			path, dir);
	if (!n)
		rmdir(dir);
	return n ? (int)n : -EIO;
}
