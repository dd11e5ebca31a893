// SPDX-License-Identifier: MIT
/*
 * NVMe parsing through the ops table with a fake that serves pages laid out as the
 * NVMe base specification defines them (byte offsets written here, independently of
 * the parser): Identify Controller, Identify Namespace, SMART / Health log.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "nvme.h"
#include "pcie.h"
#include "power.h"
#include "evidence.h"
#include "sha256.h"
#include "nvme_logs.h"

static uint8_t ctrl[4096], ns[4096], smart[512];
static uint16_t fail_status;

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void padded(uint8_t *p, const char *s, size_t n)
{
	memset(p, ' ', n);
	memcpy(p, s, strlen(s));
}

static int f_open(const char *path, void **h, uint32_t *nsid)
{
	if (strcmp(path, "/dev/nvme0n2"))
		return -ENOENT;
	*h = ctrl;
	*nsid = 2;
	return 0;
}

static void f_close(void *h)
{
	(void)h;
}

static int f_ctrl(void *h, uint8_t *page, uint16_t *st)
{
	(void)h;
	if (fail_status) {
		*st = fail_status;
		return -EIO;
	}
	memcpy(page, ctrl, sizeof(ctrl));
	return 0;
}

static int f_ns(void *h, uint32_t nsid, uint8_t *page, uint16_t *st)
{
	(void)h;
	(void)st;
	assert_int_equal(nsid, 2);
	memcpy(page, ns, sizeof(ns));
	return 0;
}

static int f_smart(void *h, uint32_t nsid, uint8_t *page, uint16_t *st)
{
	(void)h;
	(void)st;
	assert_int_equal(nsid, 0xffffffff);
	memcpy(page, smart, sizeof(smart));
	return 0;
}

static const struct rb_nvme_ops fake = {
	.open = f_open, .close = f_close, .identify_ctrl = f_ctrl, .identify_ns = f_ns,
	.smart_log = f_smart,
};

static int build_pages(void **state)
{
	(void)state;
	memset(ctrl, 0, sizeof(ctrl));
	memset(ns, 0, sizeof(ns));
	memset(smart, 0, sizeof(smart));
	/* Identify Controller: VID 0, SN 4..23, MN 24..63, FR 64..71, SANICAP 328, NN 516, FNA 524 */
	put16(ctrl + 0, 0x1b36);
	padded(ctrl + 4, "RB-SERIAL-0001", 20);
	padded(ctrl + 24, "QEMU NVMe Ctrl", 40);
	padded(ctrl + 64, "8.0.0", 8);
	put32(ctrl + 328, 0x3);
	put32(ctrl + 516, 256);
	ctrl[524] = 0x1 | 0x4;
	/* Identify Namespace: NSZE 0, NCAP 8, NUSE 16, NLBAF 25 (0's based), FLBAS 26,
	 * NGUID 104, EUI64 120, LBAF n at 128 + 4n (MS 15:0, LBADS 23:16, RP 25:24) */
	put64(ns + 0, 2097152);
	put64(ns + 8, 2097152);
	put64(ns + 16, 1000);
	ns[25] = 1;
	ns[26] = 1;
	put32(ns + 128, 9u << 16 | 2u << 24);
	put32(ns + 132, 12u << 16 | 8u);
	for (int i = 0; i < 8; i++)
		ns[120 + i] = (uint8_t)(0xa0 + i);
	/* SMART: warning 0, temp 1..2 (K), spare 3, threshold 4, used 5, 128-bit counters */
	smart[0] = 0x2 | 0x8;
	put16(smart + 1, 310);
	smart[3] = 97;
	smart[4] = 10;
	smart[5] = 3;
	put64(smart + 32, 123456);
	put64(smart + 48, 654321);
	put64(smart + 56, 1); /* high half of data units written: 2^64 + 654321 */
	put64(smart + 128, 4242);
	put64(smart + 144, 7);
	put64(smart + 160, 2);
	put64(smart + 176, 5);
	put32(smart + 192, 11);
	put16(smart + 200, 305);
	put16(smart + 202, 320);
	put32(smart + 216, 3);
	put32(smart + 228, 60);
	fail_status = 0;
	return 0;
}

static void test_nvme_identity_from_spec_pages(void **state)
{
	struct rb_nvme_id id;
	struct rb_nvme_smart s;
	uint16_t st = 0;

	(void)state;
	assert_int_equal(rb_nvme_read(&fake, "/dev/nvme0n2", &id, &s, &st), 0);
	assert_int_equal(id.vid, 0x1b36);
	assert_string_equal(id.serial, "RB-SERIAL-0001");
	assert_string_equal(id.model, "QEMU NVMe Ctrl");
	assert_string_equal(id.firmware, "8.0.0");
	assert_int_equal(id.nn, 256);
	assert_true(id.format_all_ns);
	assert_false(id.erase_all_ns);
	assert_true(id.crypto_erase);
	assert_int_equal(id.sanicap & 3, 3);
	assert_int_equal(id.nsid, 2);
	assert_int_equal(id.size_blocks, 2097152);
	assert_int_equal(id.used_blocks, 1000);
	assert_int_equal(id.nlbaf, 2);
	assert_int_equal(id.lbaf_in_use, 1);
	assert_int_equal(id.lbaf[0].data_bytes, 512);
	assert_int_equal(id.lbaf[0].rel_perf, 2);
	assert_int_equal(id.lbaf[1].data_bytes, 4096);
	assert_int_equal(id.lbaf[1].meta_bytes, 8);
	assert_int_equal(id.eui64[0], 0xa0);
	assert_int_equal(id.eui64[7], 0xa7);
}

static void test_nvme_smart_from_spec_page(void **state)
{
	struct rb_nvme_id id;
	struct rb_nvme_smart s;
	uint16_t st = 0;
	char text[256];

	(void)state;
	assert_int_equal(rb_nvme_read(&fake, "/dev/nvme0n2", &id, &s, &st), 0);
	assert_int_equal(s.critical_warning, 0xa);
	assert_int_equal(s.composite_temp_k, 310);
	assert_int_equal(s.avail_spare_pct, 97);
	assert_int_equal(s.spare_thresh_pct, 10);
	assert_int_equal(s.percent_used, 3);
	assert_true(s.data_units_read == 123456.0);
	assert_true(s.data_units_written == 18446744073709551616.0 + 654321.0);
	assert_true(s.power_on_hours == 4242.0);
	assert_true(s.unsafe_shutdowns == 7.0 && s.media_errors == 2.0 && s.error_log_entries == 5.0);
	assert_int_equal(s.warn_temp_minutes, 11);
	assert_int_equal(s.sensor_temp_k[0], 305);
	assert_int_equal(s.sensor_temp_k[1], 320);
	assert_int_equal(s.sensor_temp_k[2], 0);
	assert_int_equal(s.thm_temp1_transitions, 3);
	assert_int_equal(s.thm_temp2_seconds, 60);
	rb_nvme_warning_text(s.critical_warning, text, sizeof(text));
	assert_string_equal(text, "temperature outside its thresholds, media placed in read-only mode");
}

static void test_nvme_status_kept_apart_from_errno(void **state)
{
	struct rb_nvme_id id;
	uint16_t st = 0;

	(void)state;
	fail_status = 0x4002; /* DNR | Invalid Field in Command */
	assert_int_equal(rb_nvme_read(&fake, "/dev/nvme0n2", &id, NULL, &st), -EIO);
	assert_int_equal(st, 0x4002);
	fail_status = 0;
	assert_int_equal(rb_nvme_read(&fake, "/dev/nvme9n9", &id, NULL, &st), -ENOENT);
	assert_int_equal(st, 0);
}

/* A file of the recorded tree, its folders made. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (text) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(text, f);
		fclose(f);
	} else {
		mkdir(path, 0755);
	}
}

/*
 * The link of an NVMe drive behind a root port, in a recorded sysfs tree: trained to x2
 * at 8 GT/s where both ends do x4 at 16 (the port's maxima bound the drive's), its AER
 * totals, its slot by the slot's address; a conventional PCI device has no link.
 */
static void test_pcie_link_from_sysfs(void **st)
{
	char root[] = "/tmp/rb-pcie-XXXXXX", link[600], why[96];
	const char *fn = "sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0";
	char rel[300];
	struct rb_pcie_link l;

	(void)st;
	assert_non_null(mkdtemp(root));
	snprintf(rel, sizeof(rel), "%s/nvme/nvme0/nvme0n1", fn);
	put(root, rel, NULL);
	snprintf(rel, sizeof(rel), "%s/current_link_speed", fn);
	put(root, rel, "8.0 GT/s PCIe\n");
	snprintf(rel, sizeof(rel), "%s/max_link_speed", fn);
	put(root, rel, "32.0 GT/s PCIe\n");
	snprintf(rel, sizeof(rel), "%s/current_link_width", fn);
	put(root, rel, "2\n");
	snprintf(rel, sizeof(rel), "%s/max_link_width", fn);
	put(root, rel, "4\n");
	snprintf(rel, sizeof(rel), "%s/aer_dev_correctable", fn);
	put(root, rel, "RxErr 3\nBadTLP 4\nTOTAL_ERR_COR 7\n");
	snprintf(rel, sizeof(rel), "%s/aer_dev_fatal", fn);
	put(root, rel, "Undefined 0\nTOTAL_ERR_FATAL 0\n");
	put(root, "sys/devices/pci0000:00/0000:00:1c.0/max_link_speed", "16.0 GT/s PCIe\n");
	put(root, "sys/devices/pci0000:00/0000:00:1c.0/max_link_width", "8\n");
	put(root, "sys/bus/pci/slots/12/address", "0000:02:00\n");
	put(root, "sys/bus/pci/slots/7/address", "0000:01:00\n");
	put(root, "sys/dev/block", NULL);
	snprintf(link, sizeof(link), "%s/%s/nvme/nvme0/nvme0n1", root, fn);
	snprintf(rel, sizeof(rel), "%s/sys/dev/block/259:0", root);
	assert_int_equal(symlink(link, rel), 0);

	assert_int_equal(rb_pcie_read(root, 259, 0, &l), 0);
	assert_string_equal(l.address, "0000:01:00.0");
	assert_string_equal(l.slot, "7");
	assert_true(l.speed == 8 && l.max_speed == 32 && l.width == 2 && l.max_width == 4);
	assert_true(l.port_max_speed == 16 && l.port_max_width == 8);
	assert_true(l.aer_correctable == 7 && l.aer_fatal == 0 && l.aer_nonfatal == -1);
	assert_true(rb_pcie_downtrained(&l, why, sizeof(why)));
	assert_string_equal(why, "x2 of x4 at 8 GT/s of 16 GT/s");
	/* at what both ends can do: a Gen5 drive in a Gen4 port at 16 GT/s is not short */
	l.speed = 16;
	l.width = 4;
	assert_false(rb_pcie_downtrained(&l, why, sizeof(why)));
	assert_string_equal(why, "");
	/* a device with no link files (conventional PCI, a virtual device) */
	assert_int_equal(rb_pcie_read(root, 7, 0, &l), -ENOENT);
	snprintf(rel, sizeof(rel), "rm -rf '%s'", root);
	assert_int_equal(system(rel), 0);
}

/* DIR/NAME.WHAT holds the bytes given (a recorded page). */
static void record(const char *dir, const char *what, const void *bytes, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/nvme9n1.%s", dir, what);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

static unsigned feature_02(const char *dir)
{
	char path[512];
	unsigned v = 99;
	FILE *f;

	snprintf(path, sizeof(path), "%s/nvme9n1.feature-02", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%u", &v), 1);
	fclose(f);
	return v;
}

/*
 * power_state through the recorded pages backend: the power state table parsed from
 * Identify Controller; a point's state set, the drive's state before recorded in the
 * state folder and put back after; after a kill (no put back), the next run puts it back;
 * a state past NPSS refused naming the states described.
 */
static void test_power_state(void **st)
{
	char dir[] = "/tmp/rb-power-XXXXXX", state[600], rec[700], cmd[700];
	struct rb_power_hold h;
	struct rb_diags d;
	struct rb_nvme_id id;
	uint16_t status;
	struct stat sb;

	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(rec, sizeof(rec), "%s/power/nvme9n1", state);
	/* NPSS 2: PS0 25 W, PS1 12.5 W (MXPS: 0.0001 W units), PS2 non-operational, 5 mW */
	ctrl[263] = 2;
	put16(ctrl + 2048, 2500);
	put32(ctrl + 2048 + 4, 5);
	put32(ctrl + 2048 + 8, 7);
	put16(ctrl + 2048 + 20, 1800);
	ctrl[2048 + 22] = 2 << 6;
	put16(ctrl + 2080, 12500);
	ctrl[2080 + 3] = 1;
	put16(ctrl + 2112, 50);
	ctrl[2112 + 3] = 2;
	put32(ctrl + 2112 + 4, 5000);
	put32(ctrl + 2112 + 8, 10000);
	put16(ctrl + 2112 + 16, 5);
	ctrl[2112 + 18] = 1 << 6;
	record(dir, "id-ctrl", ctrl, sizeof(ctrl));
	record(dir, "id-ns", ns, sizeof(ns));
	record(dir, "feature-02", "1\n", 2);
	rb_nvme_pages_dir(dir);
	assert_int_equal(rb_nvme_read(&rb_nvme_pages, "/dev/nvme9n1", &id, NULL, &status), 0);
	assert_int_equal(id.npss, 2);
	assert_true(id.psd[0].max_w == 25 && id.psd[0].entry_lat_us == 5 &&
		    id.psd[0].exit_lat_us == 7 && fabs(id.psd[0].active_w - 18) < 1e-9);
	assert_true(fabs(id.psd[1].max_w - 1.25) < 1e-9 && !id.psd[1].non_operational);
	assert_true(id.psd[2].non_operational && fabs(id.psd[2].idle_w - 0.0005) < 1e-12 &&
		    id.psd[2].exit_lat_us == 10000);

	rb_diags_init(&d);
	assert_int_equal(rb_power_apply(&rb_nvme_pages, "/dev/nvme9n1", 2, state, &h, &d), 0);
	assert_int_equal(feature_02(dir), 2);
	assert_int_equal(stat(rec, &sb), 0);
	assert_int_equal(rb_power_restore(&rb_nvme_pages, &h), 0);
	assert_int_equal(feature_02(dir), 1);
	assert_int_equal(stat(rec, &sb), -1);

	/* killed in PS2 (no put back): the next run finds the record and puts PS1 back */
	assert_int_equal(rb_power_apply(&rb_nvme_pages, "/dev/nvme9n1", 2, state, &h, &d), 0);
	assert_int_equal(feature_02(dir), 2);
	assert_int_equal(stat(rec, &sb), 0);
	assert_int_equal(rb_power_restore_pending(&rb_nvme_pages, state), 1);
	assert_int_equal(feature_02(dir), 1);
	assert_int_equal(stat(rec, &sb), -1);
	assert_int_equal(rb_power_restore_pending(&rb_nvme_pages, state), 0);

	assert_int_equal(rb_power_apply(&rb_nvme_pages, "/dev/nvme9n1", 3, state, &h, &d),
			 -EINVAL);
	assert_true(rb_diags_errors(&d) == 1);
	rb_diags_release(&d);

	/* the health snapshot's power: the state now, APST on (0Ch bit 0; other bits not
	 * it), and -1 for each where the backend answers no Get Features */
	double ps, apst;
	struct rb_nvme_ops mute = rb_nvme_pages;

	record(dir, "feature-0c", "3\n", 2);
	rb_power_now(&rb_nvme_pages, "/dev/nvme9n1", &ps, &apst);
	assert_true(ps == 1 && apst == 1);
	record(dir, "feature-02", "34\n", 3); /* 0x22: PS 2 in bits 4:0, workload hint above */
	record(dir, "feature-0c", "2\n", 2);
	rb_power_now(&rb_nvme_pages, "/dev/nvme9n1", &ps, &apst);
	assert_true(ps == 2 && apst == 0);
	mute.get_feature = NULL;
	rb_power_now(&mute, "/dev/nvme9n1", &ps, &apst);
	assert_true(ps == -1 && apst == -1);
	memset(ctrl + 263, 0, 4096 - 263);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * FDP statistics through the admin seam (recorded pages): a drive without FDP (CTRATT bit
 * 19 clear) is said to have none; with it, the log of the namespace's endurance group read
 * before and after a point gives the write amplification its bytes encode; the placement
 * ids its namespaces may use come from the configuration FDP's feature names.
 */
static void test_fdp_stats_through_the_seam(void **st)
{
	char dir[] = "/tmp/rb-fdp-XXXXXX", cmd[700];
	uint8_t page[64] = { 0 }, log[64] = { 0 };
	struct rb_fdp_stats before, after;

	(void)st;
	assert_non_null(mkdtemp(dir));
	record(dir, "id-ctrl", ctrl, sizeof(ctrl));
	record(dir, "id-ns", ns, sizeof(ns));
	rb_nvme_pages_dir(dir);
	assert_int_equal(rb_nvme_fdp_stats(&rb_nvme_pages, "/dev/nvme9n1", page), -EOPNOTSUPP);
	put32(ctrl + 96, 1u << 19);
	put16(ns + 102, 1);
	record(dir, "id-ctrl", ctrl, sizeof(ctrl));
	record(dir, "id-ns", ns, sizeof(ns));
	/* host 1 GB and media 2.5 GB written, then 3 GB and 7.3 GB: WAF (7.3 - 2.5) / 2 */
	put64(log + 0, 1000000000);
	put64(log + 16, 2500000000);
	record(dir, "log-22", log, sizeof(log));
	assert_int_equal(rb_nvme_fdp_stats(&rb_nvme_pages, "/dev/nvme9n1", page), 0);
	assert_int_equal(rb_fdp_stats_parse(page, sizeof(page), &before), 0);
	put64(log + 0, 3000000000);
	put64(log + 16, 7300000000);
	record(dir, "log-22", log, sizeof(log));
	assert_int_equal(rb_nvme_fdp_stats(&rb_nvme_pages, "/dev/nvme9n1", page), 0);
	assert_int_equal(rb_fdp_stats_parse(page, sizeof(page), &after), 0);
	assert_true(fabs(rb_fdp_waf(&before, &after) - 2.4) < 1e-12);
	/* a backend without log pages (the test's own fake) has no FDP to read */
	assert_int_equal(rb_nvme_fdp_stats(&fake, "/dev/nvme0n2", page), -EOPNOTSUPP);

	/* the placement ids a namespace may use: the configuration in use's MAXPIDS + 1 */
	static uint8_t cfg[RB_FDP_CONFIGS_SIZE];
	unsigned pids = 0;
	FILE *f;
	char path[700];

	put16(cfg + 0, 1);			 /* two configurations */
	for (int c = 0; c < 2; c++) {
		uint8_t *d = cfg + 16 + 72 * c; /* 64 bytes and 2 handles of 4 */

		put16(d + 0, 72);
		d[2] = 0x80; /* valid */
		put16(d + 8, 2);
		put16(d + 10, c ? 3 : 0); /* MAXPIDS: 1, then 4 ids */
	}
	put32(cfg + 4, 16 + 2 * 72);
	record(dir, "log-20", cfg, sizeof(cfg));
	/* not enabled (no feature recorded reads 0) */
	assert_int_equal(rb_nvme_fdp_pids(&rb_nvme_pages, "/dev/nvme9n1", &pids), -ENODATA);
	snprintf(path, sizeof(path), "%s/nvme9n1.feature-1d", dir);
	assert_non_null(f = fopen(path, "we"));
	fprintf(f, "%u\n", 1u | 1u << 8); /* enabled, configuration 1 */
	fclose(f);
	assert_int_equal(rb_nvme_fdp_pids(&rb_nvme_pages, "/dev/nvme9n1", &pids), 0);
	assert_int_equal(pids, 4);
	assert_non_null(f = fopen(path, "we"));
	fprintf(f, "%u\n", 1u | 2u << 8); /* a configuration the log does not describe */
	fclose(f);
	assert_int_equal(rb_nvme_fdp_pids(&rb_nvme_pages, "/dev/nvme9n1", &pids), -EINVAL);
	assert_int_equal(rb_nvme_fdp_pids(&fake, "/dev/nvme0n2", &pids), -EOPNOTSUPP);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * Evidence through the recorded pages: telemetry sized by its header (areas 1 to 3 end at
 * block 3: 2 KiB), the error log and SMART, each file's digest; a drive's ninth capture is
 * refused (eight kept), and a backend without log pages keeps nothing. The persistent
 * event log, where the drive has one, sized by its header.
 */
static void test_evidence_capture(void **st)
{
	char dir[] = "/tmp/rb-ev-XXXXXX", state[600], cmd[700];
	uint8_t tel[2048] = { 0x07 }, elog[4096], sm[512], pel[2048] = { 0 };
	struct rb_evidence ev[RB_EVIDENCE_MAX];
	char hex[65];

	(void)st;
	assert_non_null(mkdtemp(dir));
	snprintf(state, sizeof(state), "%s/state", dir);
	put16(tel + 8, 1);
	put16(tel + 10, 3);
	put16(tel + 12, 3);
	memset(elog, 0x5a, sizeof(elog));
	memset(sm, 0xa5, sizeof(sm));
	record(dir, "id-ctrl", ctrl, sizeof(ctrl));
	record(dir, "id-ns", ns, sizeof(ns));
	record(dir, "log-07", tel, sizeof(tel));
	record(dir, "log-01", elog, sizeof(elog));
	record(dir, "log-02", sm, sizeof(sm));
	rb_nvme_pages_dir(dir);
	assert_int_equal(rb_evidence_capture(&rb_nvme_pages, "/dev/nvme9n1", state, ev, 3), 3);
	assert_string_equal(ev[0].kind, "telemetry");
	assert_int_equal(ev[0].bytes, 2048);
	assert_int_equal(rb_sha256_file(ev[0].path, hex), 0);
	assert_string_equal(hex, ev[0].sha256);
	assert_true(!strcmp(ev[1].kind, "error-log") && ev[1].bytes == 4096);
	assert_true(!strcmp(ev[2].kind, "smart") && ev[2].bytes == 512);
	for (int i = 1; i < RB_EVIDENCE_KEEP; i++)
		assert_int_equal(rb_evidence_capture(&rb_nvme_pages, "/dev/nvme9n1", state, ev, 3),
				 3);
	assert_int_equal(rb_evidence_capture(&rb_nvme_pages, "/dev/nvme9n1", state, ev, 3),
			 -EEXIST);
	assert_int_equal(rb_evidence_capture(&fake, "/dev/nvme0n2", state, ev, 3), -EOPNOTSUPP);
	/* the persistent event log as long as its header's Total Log Length says, read after
	 * the three; one whose length is shorter than its header is not kept */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/evidence'", state);
	assert_int_equal(system(cmd), 0);
	pel[0] = 0x0d;
	put64(pel + 8, 1536);
	memset(pel + 512, 0x3c, sizeof(pel) - 512);
	record(dir, "log-0d", pel, sizeof(pel));
	assert_int_equal(rb_evidence_capture(&rb_nvme_pages, "/dev/nvme9n1", state, ev,
					     RB_EVIDENCE_MAX),
			 4);
	assert_true(!strcmp(ev[3].kind, "event-log") && ev[3].bytes == 1536);
	assert_int_equal(rb_sha256_file(ev[3].path, hex), 0);
	assert_string_equal(hex, ev[3].sha256);
	put64(pel + 8, 100);
	record(dir, "log-0d", pel, sizeof(pel));
	assert_int_equal(rb_evidence_capture(&rb_nvme_pages, "/dev/nvme9n1", state, ev,
					     RB_EVIDENCE_MAX),
			 3);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcie_link_from_sysfs),
		cmocka_unit_test_setup(test_power_state, build_pages),
		cmocka_unit_test_setup(test_fdp_stats_through_the_seam, build_pages),
		cmocka_unit_test_setup(test_evidence_capture, build_pages),
		cmocka_unit_test_setup(test_nvme_identity_from_spec_pages, build_pages),
		cmocka_unit_test_setup(test_nvme_smart_from_spec_page, build_pages),
		cmocka_unit_test_setup(test_nvme_status_kept_apart_from_errno, build_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
