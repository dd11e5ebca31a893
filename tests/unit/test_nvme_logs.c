// SPDX-License-Identifier: MIT
/*
 * NVMe log pages decoded by byte offsets: each fixture is built here from the
 * specifications' layouts (offsets written independently of the parser), every field at
 * its offset with a value no other field has, and every decoded field is checked.
 *
 * RB_WRITE_SEEDS=DIR test_nvme_logs writes the fixtures into DIR as the seed corpus of
 * tests/fuzz/fuzz_nvme_logs.c.
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
#include <cmocka.h>

#include "nvme_logs.h"

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

/* the low n bytes of v, little-endian */
static void put_n(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* a 128-bit counter: lo + hi x 2^64 */
static void put128(uint8_t *p, uint64_t lo, uint64_t hi)
{
	put64(p, lo);
	put64(p + 8, hi);
}

/* The GUIDs as the OCP specification writes them, most significant byte first. */
static const char smart_guid_text[] = "AFD514C97C6F4F9CA4F2BFEA2810AFC5";
static const char latency_guid_text[] = "85D45E58D4E643709C6C84D08CC07A92";

/* a GUID's text into the page's bytes: the number stored little-endian */
static void put_guid(uint8_t *p, const char *text)
{
	for (int i = 0; i < 16; i++) {
		unsigned byte;

		sscanf(text + 2 * (15 - i), "%2x", &byte);
		p[i] = (uint8_t)byte;
	}
}

/* FDP statistics: HBMW 0, MBMW 16, MBE 32, reserved to 64. */
static size_t make_stats(uint8_t *p, uint64_t hbmw, uint64_t mbmw, uint64_t mbe)
{
	memset(p, 0, 64);
	put128(p + 0, hbmw, 0);
	put128(p + 16, mbmw, 0);
	put128(p + 32, mbe, 0);
	return 64;
}

/* One configuration descriptor at d with nruh handles and vs vendor bytes. */
static size_t make_config_desc(uint8_t *d, unsigned k, uint16_t nruh, size_t vs)
{
	size_t size = 64 + 4 * (size_t)nruh + vs;

	memset(d, 0, size);
	put16(d + 0, (uint16_t)size);
	d[2] = (uint8_t)(0x80 | (k ? 0x00 : 0x10) | (0x3 + k)); /* valid, VWC on the first */
	d[3] = (uint8_t)(vs / 8);
	put32(d + 4, 0x10 + k);		     /* NRG */
	put16(d + 8, nruh);		     /* NRUH */
	put16(d + 10, (uint16_t)(0x20 + k)); /* MAXPIDS */
	put32(d + 12, 0x300 + k);	     /* NNSS */
	put64(d + 16, 0x4000000000ull + k);  /* RUNS */
	put32(d + 24, 0x5000 + k);	     /* ERUTL */
	for (unsigned i = 0; i < nruh; i++)
		d[64 + 4 * i] = (uint8_t)(1 + (i + k) % 2);
	memset(d + 64 + 4 * nruh, 0xee, vs);
	return size;
}

/* FDP configurations: two descriptors, the first with vendor bytes after its handles. */
static size_t make_configs(uint8_t *p)
{
	size_t off = 16;

	memset(p, 0, 16);
	put16(p + 0, 1); /* NCFG, zero-based: two */
	p[2] = 0x01;	 /* version */
	off += make_config_desc(p + off, 0, 3, 16);
	off += make_config_desc(p + off, 1, 2, 0);
	put32(p + 4, (uint32_t)off);
	return off;
}

/* Reclaim unit handle usage: four handles. */
static size_t make_ruhu(uint8_t *p)
{
	static const uint8_t ruha[4] = { 1, 2, 0, 1 };

	memset(p, 0, 8 + 8 * 4);
	put16(p + 0, 4);
	for (int i = 0; i < 4; i++) {
		p[8 + 8 * i] = ruha[i];
		memset(p + 8 + 8 * i + 1, 0xcc, 7); /* reserved: must not leak into ruha */
	}
	return 8 + 8 * 4;
}

/* FDP events: an invalid-placement event, then a media reallocation with an LBA. */
static size_t make_events(uint8_t *p)
{
	uint8_t *e;

	memset(p, 0, 64 * 3);
	put32(p + 0, 2);
	e = p + 64;
	e[0] = 0x03;
	e[1] = 0x07;
	put16(e + 2, 0x0102);
	put_n(e + 4, 0x0000a1a2a3a4a5a6ull, 6); /* timestamp, milliseconds */
	e[10] = 0x03;				/* synchronized, origin 1 */
	put32(e + 12, 0x11223344);		/* NSID */
	put16(e + 32, 0x0506);			/* RGID */
	e[34] = 0x07;				/* RUHID */
	memset(e + 40, 0xdd, 24);		/* vendor specific */
	e = p + 128;
	e[0] = 0x80;
	e[1] = 0x04;
	put16(e + 2, 0x0809);
	put_n(e + 4, 0x0000b1b2b3b4b5b6ull, 6);
	put32(e + 12, 0x55667788);
	e[16] = 0x01; /* LBA valid */
	put16(e + 18, 0x0a0b);
	put64(e + 20, 0x0c0d0e0f10111213ull);
	put16(e + 32, 0x1415);
	e[34] = 0x16;
	return 64 * 3;
}

/* OCP C0h, every field its own value. */
static size_t make_ocp_smart(uint8_t *p)
{
	memset(p, 0, 512);
	put128(p + 0, 0x0101010101010101ull, 2);
	put128(p + 16, 0x0303030303030303ull, 0);
	put_n(p + 32, 0x040404040404ull, 6);
	put16(p + 38, 0x0505);
	put_n(p + 40, 0x060606060606ull, 6);
	put16(p + 46, 0x0707);
	put64(p + 48, 0x0808080808080808ull);
	put64(p + 56, 0x0909090909090909ull);
	put64(p + 64, 0x0a0a0a0a0a0a0a0aull);
	put32(p + 72, 0x0b0b0b0b);
	put32(p + 76, 0x0c0c0c0c);
	p[80] = 0x0d;
	put_n(p + 81, 0x0e0e0e0e0e0e0eull, 7);
	put32(p + 88, 0x0f0f0f0f);
	put32(p + 92, 0x10101010);
	p[96] = 0x11;
	p[97] = 0x02;
	p[98] = 0x12;		/* DSSD errata */
	put16(p + 99, 0x1313);	/* point */
	put16(p + 101, 0x1414); /* minor */
	p[103] = 0x02;		/* major */
	put64(p + 104, 0x1515151515151515ull);
	put32(p + 112, 0x16161616);
	p[120] = 0x17;
	put16(p + 128, 0x1818);
	p[130] = 'b';
	p[131] = 'c';
	put64(p + 136, 0x1919191919191919ull);
	put64(p + 144, 0x1a1a1a1a1a1a1a1aull);
	put64(p + 152, 0x1b1b1b1b1b1b1b1bull);
	put128(p + 160, 0x1c1c1c1cull, 0);
	put128(p + 176, 0x1d1d1d1d1dull, 0);
	put64(p + 192, 0x1e1e1e1e1e1e1e1eull);
	put64(p + 200, 0x1f1f1f1f1f1f1f1full);
	memcpy(p + 208, "FW1.2.3 ", 8);
	put16(p + 494, 0x0003);
	put_guid(p + 496, smart_guid_text);
	return 512;
}

/* OCP C3h: bucket k's counters hold k in their top byte, and R, W, T, Z below it. */
static size_t make_ocp_latency(uint8_t *p)
{
	memset(p, 0, 512);
	p[0] = 0x07;
	put16(p + 2, 0x0102);
	put16(p + 4, 0x0304);
	for (int i = 0; i < 4; i++)
		p[6 + i] = (uint8_t)(0x10 * (i + 1) - 1); /* 0Fh, 1Fh, 2Fh, 3Fh */
	put16(p + 10, 0x0fff);
	p[12] = 0x0a;
	for (uint32_t k = 0; k < 4; k++) {
		/* 16 bytes a bucket: reserved 0, deallocate 4, write 8, read 12 */
		put32(p + 32 + 16 * k + 0, 0xee);
		put32(p + 32 + 16 * k + 4, k << 24 | 'T');
		put32(p + 32 + 16 * k + 8, k << 24 | 'W');
		put32(p + 32 + 16 * k + 12, k << 24 | 'R');
		put32(p + 240 + 16 * k + 4, (k + 4) << 24 | 't');
		put32(p + 240 + 16 * k + 8, (k + 4) << 24 | 'w');
		put32(p + 240 + 16 * k + 12, (k + 4) << 24 | 'r');
	}
	put16(p + 448, 0x2021);
	put16(p + 450, 0x2223);
	put64(p + 452, 0x2425262728292a2bull);
	put16(p + 460, 0x2c2d);
	put16(p + 462, 0x2e2f);
	p[464] = 0x30;
	put16(p + 494, 0x0004);
	put_guid(p + 496, latency_guid_text);
	return 512;
}

/* Telemetry host-initiated header. */
static size_t make_telemetry(uint8_t *p)
{
	memset(p, 0, 512);
	p[0] = 0x07;
	p[5] = 0x00;
	p[6] = 0x1b;
	p[7] = 0x36;
	put16(p + 8, 7);      /* data area 1: blocks 1..7 */
	put16(p + 10, 7);     /* data area 2: empty */
	put16(p + 12, 300);   /* data area 3 */
	put32(p + 16, 70000); /* data area 4 */
	p[381] = 0x41;
	p[382] = 1;
	p[383] = 0x42;
	for (int i = 0; i < 128; i++)
		p[384 + i] = (uint8_t)(0x80 + i);
	return 512;
}

static void test_fdp_waf_from_two_stats_pages(void **state)
{
	uint8_t page[64];
	struct rb_fdp_stats a, b;

	(void)state;
	make_stats(page, 1000000000, 2500000000u, 900000000);
	assert_int_equal(rb_fdp_stats_parse(page, sizeof(page), &a), 0);
	assert_true(a.hbmw == 1e9 && a.mbmw == 2.5e9 && a.mbe == 9e8);
	make_stats(page, 3000000000u, 7300000000ull, 5000000000ull);
	assert_int_equal(rb_fdp_stats_parse(page, sizeof(page), &b), 0);
	assert_true(rb_fdp_waf(&a, &b) == 2.4);
	/* the high half of a 128-bit counter counts 2^64 */
	put128(page + 16, 5, 1);
	assert_int_equal(rb_fdp_stats_parse(page, sizeof(page), &b), 0);
	assert_true(b.mbmw == 18446744073709551616.0 + 5);
}

static void test_fdp_waf_nan_without_host_writes_or_going_back(void **state)
{
	struct rb_fdp_stats a = { 1e9, 2e9, 1e9 }, b = a;

	(void)state;
	assert_true(isnan(rb_fdp_waf(&a, &b))); /* the host wrote nothing */
	b.hbmw = 2e9;
	b.mbmw = 1e9;
	assert_true(isnan(rb_fdp_waf(&a, &b))); /* media bytes went back */
	b.mbmw = 3e9;
	b.mbe = 5e8;
	assert_true(isnan(rb_fdp_waf(&a, &b))); /* erased bytes went back */
	b.mbe = 1e9;
	assert_true(rb_fdp_waf(&a, &b) == 1.0);
	assert_true(isnan(rb_fdp_waf(&b, &a))); /* host bytes went back */
}

static void test_fdp_stats_short_page_refused(void **state)
{
	uint8_t page[64];
	struct rb_fdp_stats s;

	(void)state;
	make_stats(page, 1, 2, 3);
	assert_int_equal(rb_fdp_stats_parse(page, 63, &s), -EINVAL);
}

static void test_fdp_configs_every_field(void **state)
{
	uint8_t page[512];
	struct rb_fdp_configs *c = malloc(sizeof(*c));
	size_t len = make_configs(page);

	(void)state;
	assert_int_equal(rb_fdp_configs_parse(page, len, c), 0);
	assert_int_equal(c->total, 2);
	assert_int_equal(c->n, 2);
	assert_int_equal(c->version, 1);
	assert_int_equal(c->size_bytes, len);
	for (unsigned k = 0; k < 2; k++) {
		const struct rb_fdp_config *d = &c->config[k];

		assert_int_equal(d->size_bytes, k ? 64 + 8 : 64 + 12 + 16);
		assert_int_equal(d->rgif, 3 + k);
		assert_int_equal(d->vwc, k == 0);
		assert_true(d->valid);
		assert_int_equal(d->vss, k ? 0 : 2);
		assert_int_equal(d->nrg, 0x10 + k);
		assert_int_equal(d->nruh, k ? 2 : 3);
		assert_int_equal(d->maxpids, 0x20 + k);
		assert_int_equal(d->nnss, 0x300 + k);
		assert_int_equal(d->runs, 0x4000000000ull + k);
		assert_int_equal(d->erutl, 0x5000 + k);
		for (unsigned i = 0; i < d->nruh; i++)
			assert_int_equal(d->ruht[i], 1 + (i + k) % 2);
		assert_int_equal(d->ruht[d->nruh], 0);
	}
	free(c);
}

static void test_fdp_configs_bad_sizes_refused(void **state)
{
	uint8_t page[512];
	struct rb_fdp_configs *c = malloc(sizeof(*c));
	size_t len = make_configs(page);

	(void)state;
	assert_int_equal(rb_fdp_configs_parse(page, 15, c), -EINVAL);
	/* the second descriptor runs past the buffer */
	assert_int_equal(rb_fdp_configs_parse(page, len - 1, c), -EINVAL);
	/* a third descriptor is declared that the buffer does not hold */
	put16(page, 2);
	assert_int_equal(rb_fdp_configs_parse(page, len, c), -EINVAL);
	put16(page, 1);
	/* a descriptor size smaller than its fixed part, zero, or its handle list */
	put16(page + 16, 60);
	assert_int_equal(rb_fdp_configs_parse(page, len, c), -EINVAL);
	put16(page + 16, 0);
	assert_int_equal(rb_fdp_configs_parse(page, len, c), -EINVAL);
	put16(page + 16, 64 + 8);
	assert_int_equal(rb_fdp_configs_parse(page, len, c), -EINVAL);
	/* handles declared past the buffer, with a size to match */
	make_configs(page);
	put16(page + 16 + 8, 100);
	put16(page + 16, 64 + 4 * 100);
	assert_int_equal(rb_fdp_configs_parse(page, len, c), -EINVAL);
	free(c);
}

static void test_fdp_configs_decoded_up_to_the_maxima(void **state)
{
	size_t len = 16 + 40 * 64 + 64 + 4 * 300;
	uint8_t *page = calloc(1, len);
	struct rb_fdp_configs *c = malloc(sizeof(*c));
	size_t off = 16;

	(void)state;
	put16(page, 40); /* 41 configurations */
	make_config_desc(page + off, 0, 300, 0);
	off += 64 + 4 * 300;
	for (unsigned k = 1; k < 41 && off + 64 <= len; k++)
		off += make_config_desc(page + off, 1, 0, 0);
	assert_int_equal(rb_fdp_configs_parse(page, len, c), 0);
	assert_int_equal(c->total, 41);
	assert_int_equal(c->n, RB_FDP_MAX_CONFIGS);
	assert_int_equal(c->config[0].nruh, 300);
	assert_int_equal(c->config[0].ruht[RB_FDP_MAX_RUH - 1], 1 + (RB_FDP_MAX_RUH - 1) % 2);
	free(c);
	free(page);
}

static void test_fdp_ruhu_every_field(void **state)
{
	uint8_t page[64];
	struct rb_fdp_ruhu u;
	size_t len = make_ruhu(page);

	(void)state;
	assert_int_equal(rb_fdp_ruhu_parse(page, len, &u), 0);
	assert_int_equal(u.total, 4);
	assert_int_equal(u.n, 4);
	assert_int_equal(u.ruha[0], 1);
	assert_int_equal(u.ruha[1], 2);
	assert_int_equal(u.ruha[2], 0);
	assert_int_equal(u.ruha[3], 1);
	assert_int_equal(rb_fdp_ruhu_parse(page, len - 1, &u), -EINVAL);
	assert_int_equal(rb_fdp_ruhu_parse(page, 7, &u), -EINVAL);
}

static void test_fdp_events_every_field(void **state)
{
	uint8_t page[192];
	struct rb_fdp_events *ev = malloc(sizeof(*ev));
	size_t len = make_events(page);
	const struct rb_fdp_event *e;

	(void)state;
	assert_int_equal(rb_fdp_events_parse(page, len, ev), 0);
	assert_int_equal(ev->total, 2);
	assert_int_equal(ev->n, 2);
	e = &ev->event[0];
	assert_int_equal(e->type, 0x03);
	assert_int_equal(e->flags, 0x07);
	assert_int_equal(e->pid, 0x0102);
	assert_int_equal(e->timestamp_ms, 0xa1a2a3a4a5a6ull);
	assert_int_equal(e->timestamp_attr, 0x03);
	assert_int_equal(e->nsid, 0x11223344);
	assert_int_equal(e->rgid, 0x0506);
	assert_int_equal(e->ruhid, 0x07);
	assert_false(e->lba_valid);
	assert_int_equal(e->nlbam, 0);
	e = &ev->event[1];
	assert_int_equal(e->type, 0x80);
	assert_int_equal(e->flags, 0x04);
	assert_int_equal(e->pid, 0x0809);
	assert_int_equal(e->timestamp_ms, 0xb1b2b3b4b5b6ull);
	assert_int_equal(e->nsid, 0x55667788);
	assert_true(e->lba_valid);
	assert_int_equal(e->nlbam, 0x0a0b);
	assert_int_equal(e->lba, 0x0c0d0e0f10111213ull);
	assert_int_equal(e->rgid, 0x1415);
	assert_int_equal(e->ruhid, 0x16);
	assert_int_equal(rb_fdp_events_parse(page, len - 1, ev), -EINVAL);
	assert_int_equal(rb_fdp_events_parse(page, 63, ev), -EINVAL);
	free(ev);
}

static void test_ocp_smart_every_field(void **state)
{
	uint8_t page[512];
	struct rb_ocp_smart s;

	(void)state;
	make_ocp_smart(page);
	assert_int_equal(rb_ocp_smart_parse(page, sizeof(page), &s), 0);
	assert_true(s.media_bytes_written == (double)0x0101010101010101ull + 2 * 18446744073709551616.0);
	assert_true(s.media_bytes_read == (double)0x0303030303030303ull);
	assert_int_equal(s.bad_user_blocks, 0x040404040404ull);
	assert_int_equal(s.bad_user_blocks_norm, 0x0505);
	assert_int_equal(s.bad_system_blocks, 0x060606060606ull);
	assert_int_equal(s.bad_system_blocks_norm, 0x0707);
	assert_int_equal(s.xor_recoveries, 0x0808080808080808ull);
	assert_int_equal(s.uncorrectable_reads, 0x0909090909090909ull);
	assert_int_equal(s.soft_ecc_errors, 0x0a0a0a0a0a0a0a0aull);
	assert_int_equal(s.e2e_detected, 0x0b0b0b0b);
	assert_int_equal(s.e2e_corrected, 0x0c0c0c0c);
	assert_int_equal(s.system_data_used_pct, 0x0d);
	assert_int_equal(s.refreshes, 0x0e0e0e0e0e0e0eull);
	assert_int_equal(s.user_erase_max, 0x0f0f0f0f);
	assert_int_equal(s.user_erase_min, 0x10101010);
	assert_int_equal(s.throttle_events, 0x11);
	assert_int_equal(s.throttle_status, 0x02);
	assert_int_equal(s.dssd_errata, 0x12);
	assert_int_equal(s.dssd_point, 0x1313);
	assert_int_equal(s.dssd_minor, 0x1414);
	assert_int_equal(s.dssd_major, 0x02);
	assert_int_equal(s.pcie_correctable_errors, 0x1515151515151515ull);
	assert_int_equal(s.incomplete_shutdowns, 0x16161616);
	assert_int_equal(s.free_blocks_pct, 0x17);
	assert_int_equal(s.capacitor_health_pct, 0x1818);
	assert_int_equal(s.nvme_base_errata, 'b');
	assert_int_equal(s.nvme_cmdset_errata, 'c');
	assert_int_equal(s.unaligned_ios, 0x1919191919191919ull);
	assert_int_equal(s.security_version, 0x1a1a1a1a1a1a1a1aull);
	assert_int_equal(s.nuse_blocks, 0x1b1b1b1b1b1b1b1bull);
	assert_true(s.plp_starts == (double)0x1c1c1c1cull);
	assert_true(s.endurance_estimate == (double)0x1d1d1d1d1dull);
	assert_int_equal(s.link_retrains, 0x1e1e1e1e1e1e1e1eull);
	assert_int_equal(s.power_state_changes, 0x1f1f1f1f1f1f1f1full);
	assert_memory_equal(s.lowest_fw_rev, "FW1.2.3 ", 8);
	assert_int_equal(s.log_version, 3);
}

static void test_ocp_pages_refused_on_guid_or_length(void **state)
{
	uint8_t page[512];
	struct rb_ocp_smart s;
	struct rb_ocp_latency l;

	(void)state;
	make_ocp_smart(page);
	assert_int_equal(rb_ocp_smart_parse(page, 511, &s), -EINVAL);
	/* the right GUID in the wrong byte order */
	put_guid(page + 496, "C5AF1028EABFF2A49C4F6F7CC914D5AF");
	assert_int_equal(rb_ocp_smart_parse(page, sizeof(page), &s), -EBADMSG);
	/* the latency page's GUID on a SMART page, and the other way round */
	put_guid(page + 496, latency_guid_text);
	assert_int_equal(rb_ocp_smart_parse(page, sizeof(page), &s), -EBADMSG);
	make_ocp_latency(page);
	assert_int_equal(rb_ocp_latency_parse(page, 511, &l), -EINVAL);
	put_guid(page + 496, smart_guid_text);
	assert_int_equal(rb_ocp_latency_parse(page, sizeof(page), &l), -EBADMSG);
	/* one bit off */
	put_guid(page + 496, latency_guid_text);
	page[500] ^= 0x40;
	assert_int_equal(rb_ocp_latency_parse(page, sizeof(page), &l), -EBADMSG);
}

static void test_ocp_latency_every_field(void **state)
{
	uint8_t page[512];
	struct rb_ocp_latency l;

	(void)state;
	make_ocp_latency(page);
	assert_int_equal(rb_ocp_latency_parse(page, sizeof(page), &l), 0);
	assert_int_equal(l.feature_status, 0x07);
	assert_int_equal(l.bucket_timer_min, 5 * 0x0102);
	assert_int_equal(l.bucket_timer_threshold_min, 5 * 0x0304);
	for (int i = 0; i < 4; i++)
		assert_int_equal(l.threshold_ms[i], 5 * 0x10 * (i + 1)); /* 80, 160, 240, 320 */
	assert_int_equal(l.latency_config, 0x0fff);
	assert_int_equal(l.min_window_ms, 1000);
	for (uint32_t k = 0; k < 4; k++) {
		assert_int_equal(l.active[k].read, k << 24 | 'R');
		assert_int_equal(l.active[k].write, k << 24 | 'W');
		assert_int_equal(l.active[k].trim, k << 24 | 'T');
		assert_int_equal(l.statics[k].read, (k + 4) << 24 | 'r');
		assert_int_equal(l.statics[k].write, (k + 4) << 24 | 'w');
		assert_int_equal(l.statics[k].trim, (k + 4) << 24 | 't');
	}
	assert_int_equal(l.debug_trigger_enable, 0x2021);
	assert_int_equal(l.debug_latency_ms, 0x2223);
	assert_int_equal(l.debug_stamp, 0x2425262728292a2bull);
	assert_int_equal(l.debug_pointer, 0x2c2d);
	assert_int_equal(l.debug_trigger_source, 0x2e2f);
	assert_int_equal(l.debug_stamp_units, 0x30);
	assert_int_equal(l.log_version, 4);
}

static void test_telemetry_header_and_capture_size(void **state)
{
	uint8_t page[512];
	struct rb_telemetry_header h;

	(void)state;
	make_telemetry(page);
	assert_int_equal(rb_telemetry_header_parse(page, sizeof(page), &h), 0);
	assert_int_equal(h.lid, 0x07);
	assert_int_equal(h.oui[0], 0x00);
	assert_int_equal(h.oui[1], 0x1b);
	assert_int_equal(h.oui[2], 0x36);
	assert_int_equal(h.last_block[0], 7);
	assert_int_equal(h.last_block[1], 7);
	assert_int_equal(h.last_block[2], 300);
	assert_int_equal(h.last_block[3], 70000);
	assert_int_equal(h.host_generation, 0x41);
	assert_true(h.ctrl_available);
	assert_int_equal(h.ctrl_generation, 0x42);
	for (int i = 0; i < 128; i++)
		assert_int_equal(h.reason[i], 0x80 + i);
	assert_int_equal(rb_telemetry_bytes(&h, 0), 0);
	assert_int_equal(rb_telemetry_bytes(&h, 1), 8 * 512);
	assert_int_equal(rb_telemetry_bytes(&h, 2), 8 * 512);
	assert_int_equal(rb_telemetry_bytes(&h, 3), 301 * 512);
	assert_int_equal(rb_telemetry_bytes(&h, 4), 70001 * 512);
	assert_int_equal(rb_telemetry_bytes(&h, 5), 0);
	/* an empty area after a larger one reads no less */
	h.last_block[2] = 0;
	assert_int_equal(rb_telemetry_bytes(&h, 3), 8 * 512);
}

static void test_telemetry_header_refused(void **state)
{
	uint8_t page[512];
	struct rb_telemetry_header h;

	(void)state;
	make_telemetry(page);
	assert_int_equal(rb_telemetry_header_parse(page, 511, &h), -EINVAL);
	page[0] = 0x08;
	assert_int_equal(rb_telemetry_header_parse(page, sizeof(page), &h), 0);
	page[0] = 0x02;
	assert_int_equal(rb_telemetry_header_parse(page, sizeof(page), &h), -EBADMSG);
}

/* The fixtures as files: the seed corpus of the fuzz target. */
static int write_seeds(const char *dir)
{
	static uint8_t page[4096];
	static const struct {
		const char *name;
		size_t (*make)(uint8_t *p);
	} seeds[] = {
		{ "fdp-configs", make_configs }, { "fdp-ruhu", make_ruhu },
		{ "fdp-events", make_events },	 { "ocp-c0", make_ocp_smart },
		{ "ocp-c3", make_ocp_latency },	 { "telemetry", make_telemetry },
	};
	char path[4096];

	for (size_t i = 0; i <= sizeof(seeds) / sizeof(seeds[0]); i++) {
		size_t len;
		FILE *f;

		if (i < sizeof(seeds) / sizeof(seeds[0])) {
			len = seeds[i].make(page);
			snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name);
		} else {
			/* two statistics pages: the fuzz target's before and after */
			len = make_stats(page, 1000000000, 2500000000u, 1) +
			      make_stats(page + 64, 3000000000u, 7300000000ull, 2);
			snprintf(path, sizeof(path), "%s/fdp-stats", dir);
		}
		f = fopen(path, "wb");
		if (!f || fwrite(page, 1, len, f) != len || fclose(f)) {
			fprintf(stderr, "cannot write '%s'\n", path);
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fdp_waf_from_two_stats_pages),
		cmocka_unit_test(test_fdp_waf_nan_without_host_writes_or_going_back),
		cmocka_unit_test(test_fdp_stats_short_page_refused),
		cmocka_unit_test(test_fdp_configs_every_field),
		cmocka_unit_test(test_fdp_configs_bad_sizes_refused),
		cmocka_unit_test(test_fdp_configs_decoded_up_to_the_maxima),
		cmocka_unit_test(test_fdp_ruhu_every_field),
		cmocka_unit_test(test_fdp_events_every_field),
		cmocka_unit_test(test_ocp_smart_every_field),
		cmocka_unit_test(test_ocp_pages_refused_on_guid_or_length),
		cmocka_unit_test(test_ocp_latency_every_field),
		cmocka_unit_test(test_telemetry_header_and_capture_size),
		cmocka_unit_test(test_telemetry_header_refused),
	};

	if (getenv("RB_WRITE_SEEDS"))
		return write_seeds(getenv("RB_WRITE_SEEDS"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
