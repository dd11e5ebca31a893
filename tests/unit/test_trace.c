// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "trace.h"

struct want {
	uint64_t t_ns, offset, len;
	uint32_t dir;
	uint64_t line;
};

/* Reads text as format (with device) and checks every record against want[0..n). */
static void expect(const char *text, int format, const char *device, const struct want *want,
		   size_t n)
{
	struct rb_trace *t = NULL;
	struct rb_trace_rec r;
	char err[512] = "";
	size_t k = 0;
	int e;

	e = rb_trace_open_mem("t.trace", text, strlen(text), format, device, &t, err, sizeof(err));
	if (e)
		fail_msg("open: %s", err);
	while ((e = rb_trace_next(t, &r, err, sizeof(err))) == 1) {
		assert_true(k < n);
		assert_int_equal(r.t_ns, want[k].t_ns);
		assert_int_equal(r.offset, want[k].offset);
		assert_int_equal(r.len, want[k].len);
		assert_int_equal(r.dir, want[k].dir);
		assert_int_equal(r.line, want[k].line);
		k++;
	}
	if (e)
		fail_msg("next: %s", err);
	assert_int_equal(k, n);
	rb_trace_free(t);
}

/* Reads text until an error, which must be "t.trace:LINE: ..." holding msg. */
static void expect_error(const char *text, int format, const char *device, unsigned line,
			 const char *msg)
{
	struct rb_trace *t = NULL;
	struct rb_trace_rec r;
	char err[512] = "", head[64];
	int e;

	e = rb_trace_open_mem("t.trace", text, strlen(text), format, device, &t, err, sizeof(err));
	while (!e && (e = rb_trace_next(t, &r, err, sizeof(err))) == 1)
		e = 0;
	rb_trace_free(t);
	assert_int_equal(e, -EINVAL);
	snprintf(head, sizeof(head), "t.trace:%u: ", line);
	if (strncmp(err, head, strlen(head)) || !strstr(err, msg))
		fail_msg("want '%s...%s', got '%s'", head, msg, err);
}

static void test_trace_iolog_v2(void **state)
{
	static const char text[] = "fio version 2 iolog\n"
				   "/dev/sdb add\n"
				   "/dev/sdb open\n"
				   "/dev/sdb read 4096 8192\n"
				   "/dev/sdb wait 250 0\n"
				   "/dev/sdb write 0 4096\n"
				   "/dev/sdb sync 0 0\n"
				   "/dev/sdb read 4096 0\n"
				   "/dev/sdc read 512 512\n"
				   "/dev/sdb trim 1048576 65536\n"
				   "/dev/sdb close\n";
	static const struct want all[] = {
		{ 0, 4096, 8192, RB_TRACE_READ, 4 },
		{ 250000, 0, 4096, RB_TRACE_WRITE, 6 },
		{ 250000, 512, 512, RB_TRACE_READ, 9 },
		{ 250000, 1048576, 65536, RB_TRACE_TRIM, 10 },
	};
	static const struct want sdc[] = { { 0, 512, 512, RB_TRACE_READ, 9 } };

	(void)state;
	expect(text, RB_TRACE_IOLOG, NULL, all, 4);
	expect(text, RB_TRACE_AUTO, "", all, 4);
	/* the filter keeps one file; times start at its first record */
	expect(text, RB_TRACE_IOLOG, "/dev/sdc", sdc, 1);
}

static void test_trace_iolog_v3(void **state)
{
	/* as fio 3.33 writes it: microseconds since the job's start */
	static const char text[] = "fio version 3 iolog\n"
				   "10 a.img add\n"
				   "97 a.img open\n"
				   "102 a.img read 61440 4096\n"
				   "128 a.img write 774144 4096\n"
				   "5128 a.img trim 0 1048576\n"
				   "5130 a.img close";
	static const struct want w[] = {
		{ 0, 61440, 4096, RB_TRACE_READ, 4 },
		{ 26000, 774144, 4096, RB_TRACE_WRITE, 5 },
		{ 5026000, 0, 1048576, RB_TRACE_TRIM, 6 },
	};

	(void)state;
	expect(text, RB_TRACE_AUTO, NULL, w, 3);
	expect(text, RB_TRACE_IOLOG, "a.img", w, 3);
}

static void test_trace_iolog_bad_lines(void **state)
{
	(void)state;
	expect_error("/dev/sdb read 0 4096\n", RB_TRACE_IOLOG, NULL, 1, "not a fio iolog");
	expect_error("", RB_TRACE_IOLOG, NULL, 1, "not a fio iolog");
	expect_error("fio version 2 iolog\n/dev/sdb read 0 4096\n/dev/sdb frob 0 4096\n",
		     RB_TRACE_IOLOG, NULL, 3, "unknown action 'frob'");
	expect_error("fio version 2 iolog\n/dev/sdb read 0x10 4096\n", RB_TRACE_IOLOG, NULL, 2,
		     "the offset is not a whole number: '0x10'");
	expect_error("fio version 2 iolog\n\n/dev/sdb write 0\n", RB_TRACE_IOLOG, NULL, 3,
		     "expected 'FILE ACTION [OFFSET LENGTH]'");
	expect_error("fio version 2 iolog\n/dev/sdb write 0 99999999999999999999999\n",
		     RB_TRACE_IOLOG, NULL, 2, "the length is not a whole number");
	expect_error("fio version 3 iolog\n1 f add\nx f read 0 4096\n", RB_TRACE_IOLOG, NULL, 3,
		     "the time is not a whole number");
	/* version 3 has no wait: the timestamps say it */
	expect_error("fio version 3 iolog\n1 f wait 100 0\n", RB_TRACE_IOLOG, NULL, 2,
		     "unknown action 'wait'");
	expect_error("fio version 3 iolog\n1 f read 0 4096 junk\n", RB_TRACE_IOLOG, NULL, 2,
		     "expected 'TIME FILE ACTION");
	expect_error("fio version 2 iolog\nf read 0 134217728\n", RB_TRACE_IOLOG, NULL, 2,
		     "longer than 64 MiB");
	expect_error("fio version 2 iolog\nf read 18446744073709551615 4096\n", RB_TRACE_IOLOG,
		     NULL, 2, "past any device");
}

/* blkparse's default output: events, a message, a flush, and its summary */
static const char blkparse_text[] =
	"  8,0    1        1     0.000000000  4162  Q  RS 2048 + 8 [fio]\n"
	"  8,0    1        2     0.000001250  4162  G  RS 2048 + 8 [fio]\n"
	"  8,0    1        3     0.000002000  4162  D  RS 2048 + 8 [fio]\n"
	"  8,0    1        0     0.000003000     0  m   N cfq4162S / insert_request\n"
	"  8,16   0        1     0.000500000  4162  Q  WS 16 + 16 [fio]\n"
	"  8,0    1        4     0.001000000  4162  Q FWS [fio]\n"
	"  8,0    0        5     0.002000000  4162  Q  DS 4096 + 2048 [fio]\n"
	"  8,0    1        6     0.003000000  4162  Q  WFS 8 + 8 [jbd2/sda1-8]\n"
	"  8,0    1        7     0.004000000  4162  C  RS 2048 + 8 [0]\n"
	"\n"
	"CPU0 (8,0):\n"
	" Reads Queued:           1,        4KiB  Writes Queued:           2,        8KiB\n"
	"Total (8,0):\n"
	"Throughput (R/W): 4KiB/s / 8KiB/s\n"
	"Events (8,0): 9 entries\n";

static void test_trace_blkparse(void **state)
{
	static const struct want all[] = {
		{ 0, 1048576, 4096, RB_TRACE_READ, 1 },
		{ 500000, 8192, 8192, RB_TRACE_WRITE, 5 },
		{ 2000000, 2097152, 1048576, RB_TRACE_TRIM, 7 },
		{ 3000000, 4096, 4096, RB_TRACE_WRITE, 8 },
	};
	static const struct want sdb[] = { { 0, 8192, 8192, RB_TRACE_WRITE, 5 } };
	static const struct want sda[] = {
		{ 0, 1048576, 4096, RB_TRACE_READ, 1 },
		{ 2000000, 2097152, 1048576, RB_TRACE_TRIM, 7 },
		{ 3000000, 4096, 4096, RB_TRACE_WRITE, 8 },
	};

	(void)state;
	expect(blkparse_text, RB_TRACE_BLKPARSE, NULL, all, 4);
	expect(blkparse_text, RB_TRACE_AUTO, NULL, all, 4);
	expect(blkparse_text, RB_TRACE_BLKPARSE, "8,16", sdb, 1);
	expect(blkparse_text, RB_TRACE_BLKPARSE, "8,0", sda, 3);
}

static void test_trace_blkparse_classic(void **state)
{
	/* the kernel's blk tracer, classic layout: no sequence column, '#' header lines */
	static const char text[] = "# tracer: blk\n"
				   "#\n"
				   "  7,0    1 23811.977883808  6819  Q  RS 120 + 8 [fio]\n"
				   "  7,0    1 23811.977903655  6819  G  RS 120 + 8 [fio]\n"
				   "  7,0    1 23811.977904296  6819  P   N [fio]\n"
				   "  7,0    1 23811.977904577  6819  U   N [fio] 1\n"
				   "  7,0    1 23811.977978366  6819  Q  WS 960 + 8 [fio]\n";
	static const struct want w[] = {
		{ 0, 61440, 4096, RB_TRACE_READ, 3 },
		{ 94558, 491520, 4096, RB_TRACE_WRITE, 7 },
	};

	(void)state;
	expect(text, RB_TRACE_AUTO, NULL, w, 2);
	expect(text, RB_TRACE_BLKPARSE, "7,0", w, 2);
}

static void test_trace_blkparse_bad_lines(void **state)
{
	(void)state;
	expect_error("  8,0 1 1 0.0 9 Q WS 12x + 8 [fio]\n", RB_TRACE_BLKPARSE, NULL, 1,
		     "the sector is not a whole number: '12x'");
	expect_error("  8,0 1 1 0.0 9 Q WS 12 + 8\n  8,0 1 2 0.1 9 Q WS 12 8 [fio]\n",
		     RB_TRACE_BLKPARSE, NULL, 2, "needs 'SECTOR + COUNT'");
	expect_error("  8,0 1 1 0.0 9 Q WS 12 + 8\n  8,0 1 2 0.1 9 Q WS\n", RB_TRACE_BLKPARSE, NULL,
		     2, "needs 'SECTOR + COUNT'");
	expect_error("  8,0 1 1 1.2.3 9 Q WS 12 + 8\n", RB_TRACE_BLKPARSE, NULL, 1,
		     "the time is not SECONDS.NANOSECONDS");
	expect_error("  8,0 x 1 0.1 9 Q WS 12 + 8\n", RB_TRACE_BLKPARSE, NULL, 1,
		     "the CPU is not a whole number");
	expect_error("\n  8,0 1 1 0.1\n", RB_TRACE_BLKPARSE, NULL, 2, "expected 'MAJ,MIN CPU");
	expect_error("  8,0 1 1 0.1 9 Q w1 12 + 8\n", RB_TRACE_BLKPARSE, NULL, 1,
		     "the RWBS field is not letters");
	/* a trace with no queue event holds nothing to replay: said by the scan */
	struct rb_trace *t = NULL;
	struct rb_trace_summary s;
	char err[256];
	static const char none[] = "CPU0 (8,0):\n Reads Queued: 0, 0KiB\n";

	assert_int_equal(rb_trace_open_mem("t.trace", none, strlen(none), RB_TRACE_BLKPARSE, NULL,
					   &t, err, sizeof(err)),
			 0);
	assert_int_equal(rb_trace_summarize(t, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "the trace holds no IO (read as blkparse)"));
	rb_trace_free(t);
	/* the filter of a blkparse trace is MAJ,MIN */
	assert_int_equal(rb_trace_open_mem("t.trace", blkparse_text, strlen(blkparse_text),
					   RB_TRACE_BLKPARSE, "sda", &t, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "MAJ,MIN"));
}

static void test_trace_msr(void **state)
{
	static const char text[] = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
				   "128166372003061629,wdev,0,Read,7014609920,24576,41286\r\n"
				   "128166372016382155,wdev,1,Write,1317441536,8192,1963\r\n"
				   "128166372026382245,wdev,0,write,2436440064,4096,1000\r\n";
	static const struct want all[] = {
		{ 0, 7014609920, 24576, RB_TRACE_READ, 2 },
		{ 1332052600, 1317441536, 8192, RB_TRACE_WRITE, 3 },
		{ 2332061600, 2436440064, 4096, RB_TRACE_WRITE, 4 },
	};
	static const struct want disk0[] = {
		{ 0, 7014609920, 24576, RB_TRACE_READ, 2 },
		{ 2332061600, 2436440064, 4096, RB_TRACE_WRITE, 4 },
	};

	(void)state;
	expect(text, RB_TRACE_MSR, NULL, all, 3);
	expect(text, RB_TRACE_AUTO, NULL, all, 3);
	/* without its header: the same records, a line earlier */
	struct want bare[3];

	for (int i = 0; i < 3; i++) {
		bare[i] = all[i];
		bare[i].line--;
	}
	expect(text + strlen("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"),
	       RB_TRACE_AUTO, NULL, bare, 3);
	expect(text, RB_TRACE_MSR, "0", disk0, 2);
	expect_error("128166372003061629,wdev,0,Read,7014609920,24576\n", RB_TRACE_MSR, NULL, 1,
		     "expected 7 fields");
	expect_error("1,wdev,0,Read,0,512,1\n1,wdev,0,Erase,0,512,1\n", RB_TRACE_MSR, NULL, 2,
		     "the type is Read or Write, not 'Erase'");
	expect_error("1,wdev,0,Read,-5,512,1\n", RB_TRACE_MSR, NULL, 1,
		     "the offset is not a whole number: '-5'");
	/* a header is the first line only */
	expect_error("1,wdev,0,Read,0,512,1\nTimestamp,Hostname,DiskNumber,Type,Offset,Size,"
		     "ResponseTime\n",
		     RB_TRACE_MSR, NULL, 2, "the timestamp is not a whole number");
}

static void test_trace_alibaba(void **state)
{
	static const char text[] = "device_id,opcode,offset,length,timestamp\n"
				   "0,R,126703644672,4096,1577808000000105\n"
				   "3,W,1044480,16384,1577808000000215\n"
				   "0,W,8192,4096,1577808000100105\n";
	static const struct want all[] = {
		{ 0, 126703644672, 4096, RB_TRACE_READ, 2 },
		{ 110000, 1044480, 16384, RB_TRACE_WRITE, 3 },
		{ 100000000, 8192, 4096, RB_TRACE_WRITE, 4 },
	};
	static const struct want dev3[] = { { 0, 1044480, 16384, RB_TRACE_WRITE, 3 } };

	(void)state;
	expect(text, RB_TRACE_ALIBABA, NULL, all, 3);
	expect(text, RB_TRACE_AUTO, NULL, all, 3);
	expect(text, RB_TRACE_ALIBABA, "3", dev3, 1);
	expect_error("0,R,0,4096,1\n0,X,0,4096,2\n", RB_TRACE_ALIBABA, NULL, 2,
		     "the opcode is R or W, not 'X'");
	expect_error("0,R,0,4096\n", RB_TRACE_ALIBABA, NULL, 1, "expected 5 fields");
	expect_error("0,R,0,4096,1,\n", RB_TRACE_AUTO, NULL, 1, "cannot tell the trace's format");
	expect_error("0,R,0,4096,1\n0,R,0,4k,2\n", RB_TRACE_ALIBABA, NULL, 2,
		     "the length is not a whole number: '4k'");
}

static void test_trace_lines_and_chunks(void **state)
{
	char err[256];
	struct rb_trace *t = NULL;
	struct rb_trace_rec r;
	size_t n = 300000, len = 0, cap = n * 40 + 64;
	char *big = malloc(cap + 300000);
	uint64_t k = 0;

	(void)state;
	/* a trace several times the reader's buffer: every record, in order, none torn */
	len += (size_t)sprintf(big, "fio version 3 iolog\n");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(big + len, "%zu f %s %zu 4096\n", i,
				       i % 3 ? "read" : "write", i * 4096);
	assert_int_equal(
		rb_trace_open_mem("t.trace", big, len, RB_TRACE_AUTO, NULL, &t, err, sizeof(err)),
		0);
	while (rb_trace_next(t, &r, err, sizeof(err)) == 1) {
		assert_int_equal(r.offset, k * 4096);
		assert_int_equal(r.t_ns, k * 1000);
		assert_int_equal(r.line, k + 2);
		k++;
	}
	assert_int_equal(k, n);
	t = rb_trace_free(t);
	/* a line longer than the buffer is an error, not a torn record */
	len = (size_t)sprintf(big, "fio version 2 iolog\nf read 0 4096\n");
	memset(big + len, 'a', 300000);
	big[len + 300000 - 1] = '\n';
	assert_int_equal(rb_trace_open_mem("t.trace", big, len + 300000, RB_TRACE_IOLOG, NULL, &t,
					   err, sizeof(err)),
			 0);
	assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), 1);
	assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.trace:3: the line is longer than 256 KiB");
	rb_trace_free(t);
	free(big);
	/* a NUL byte is a bad line */
	static const char nul[] = "fio version 2 iolog\nf read 0 4096\nf re\0ad 0 4096\n";

	assert_int_equal(rb_trace_open_mem("t.trace", nul, sizeof(nul) - 1, RB_TRACE_IOLOG, NULL,
					   &t, err, sizeof(err)),
			 0);
	assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), 1);
	assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.trace:3: the line holds a NUL byte");
	rb_trace_free(t);
	expect_error("\n\nhello world\n", RB_TRACE_AUTO, NULL, 3, "cannot tell the trace's format");
}

static void test_trace_place(void **state)
{
	struct rb_trace_rec r = { .offset = 4096, .len = 4096 };
	uint64_t o, l, span = 1 << 20;

	(void)state;
	/* in range: where it is */
	assert_int_equal(rb_trace_place(&r, span, 512, RB_TRACE_MODULO, &o, &l), 0);
	assert_int_equal(o, 4096);
	assert_int_equal(l, 4096);
	/* alignment: the offset down, the length up to whole logical blocks */
	r = (struct rb_trace_rec){ .offset = 5000, .len = 1000 };
	assert_int_equal(rb_trace_place(&r, span, 512, RB_TRACE_REFUSE, &o, &l), 0);
	assert_int_equal(o, 4608);
	assert_int_equal(l, 1024);
	assert_int_equal(rb_trace_place(&r, span, 4096, RB_TRACE_MODULO, &o, &l), 0);
	assert_int_equal(o, 4096);
	assert_int_equal(l, 4096);
	/* past the end: modulo wraps, refuse refuses */
	r = (struct rb_trace_rec){ .offset = 3 * span + 8192 + 100, .len = 4096 };
	assert_int_equal(rb_trace_place(&r, span, 512, RB_TRACE_MODULO, &o, &l), 0);
	assert_int_equal(o, 8192);
	assert_int_equal(rb_trace_place(&r, span, 512, RB_TRACE_REFUSE, &o, &l), -ERANGE);
	/* wrapped onto the last block: pulled back so it ends at the end */
	r = (struct rb_trace_rec){ .offset = 2 * span - 512, .len = 4096 };
	assert_int_equal(rb_trace_place(&r, span, 512, RB_TRACE_MODULO, &o, &l), 0);
	assert_int_equal(o, span - 4096);
	/* ending exactly at the end fits; one byte more does not */
	r = (struct rb_trace_rec){ .offset = span - 4096, .len = 4096 };
	assert_int_equal(rb_trace_place(&r, span, 512, RB_TRACE_REFUSE, &o, &l), 0);
	r.len = 4097;
	assert_int_equal(rb_trace_place(&r, span, 512, RB_TRACE_REFUSE, &o, &l), -ERANGE);
	/* longer than the target: refused either way */
	r = (struct rb_trace_rec){ .offset = 0, .len = span + 512 };
	assert_int_equal(rb_trace_place(&r, span, 512, RB_TRACE_MODULO, &o, &l), -ERANGE);
}

/* One blktrace record (struct blk_io_trace) at buf, in our order or swapped; its size. */
static size_t blk_rec(unsigned char *buf, bool swap, uint32_t version, uint64_t t, uint64_t sector,
		      uint32_t bytes, uint32_t action, uint32_t dev, uint16_t pdu)
{
	uint32_t u32[8] = { 0x65617400u | version, 1, 0, 0, 0, 0, 0, 0 };
	uint64_t u64[2] = { t, sector };

	if (swap) {
		u32[0] = __builtin_bswap32(u32[0]);
		u64[0] = __builtin_bswap64(t);
		u64[1] = __builtin_bswap64(sector);
		bytes = __builtin_bswap32(bytes);
		action = __builtin_bswap32(action);
		dev = __builtin_bswap32(dev);
		pdu = __builtin_bswap16(pdu);
	}
	memset(buf, 0, 48);
	memcpy(buf, u32, 8);
	memcpy(buf + 8, u64, 16);
	memcpy(buf + 24, &bytes, 4);
	memcpy(buf + 28, &action, 4);
	memcpy(buf + 36, &dev, 4);
	memcpy(buf + 46, &pdu, 2);
	memset(buf + 48, 0x5a, swap ? __builtin_bswap16(pdu) : pdu);
	return 48 + (swap ? __builtin_bswap16(pdu) : pdu);
}

#define QUEUE(cat) (1u | (cat) << 16)
#define DEV(maj, min) ((uint32_t)(maj) << 20 | (min))

/* blktrace's binary records, either byte order: queue events of data only, payloads
 * skipped, the device filter, and what is not a record said with its number. */
static void test_trace_blktrace(void **state)
{
	unsigned char buf[1024];
	struct rb_trace *t = NULL;
	struct rb_trace_rec r;
	char err[512];

	(void)state;
	for (int swap = 0; swap < 2; swap++) {
		size_t n = 0;

		n += blk_rec(buf + n, swap, 7, 1000, 8, 4096, QUEUE(1u << 0), DEV(8, 0), 0);
		/* a note (timestamp: its 'what' is 1 too), with a payload of 12 bytes */
		n += blk_rec(buf + n, swap, 7, 1500, 0, 0, 1u | (1u << 10) << 16, DEV(8, 0), 12);
		/* the same IO completing: not a queue event */
		n += blk_rec(buf + n, swap, 7, 1600, 8, 4096, 8u | (1u << 7) << 16, DEV(8, 0), 0);
		/* a flush without data */
		n += blk_rec(buf + n, swap, 7, 1700, 0, 0, QUEUE(1u << 2 | 1u << 1), DEV(8, 0), 0);
		n += blk_rec(buf + n, swap, 7, 2000, 16, 8192, QUEUE(1u << 1 | 1u << 3), DEV(8, 0),
			     0);
		n += blk_rec(buf + n, swap, 7, 3000, 2048, 65536, QUEUE(1u << 13 | 1u << 1),
			     DEV(8, 0), 0);
		/* another device's IO */
		n += blk_rec(buf + n, swap, 7, 3500, 64, 4096, QUEUE(1u << 1), DEV(8, 16), 0);
		{
			const struct want all[] = {
				{ 0, 4096, 4096, RB_TRACE_READ, 1 },
				{ 1000, 8192, 8192, RB_TRACE_WRITE, 5 },
				{ 2000, 1048576, 65536, RB_TRACE_TRIM, 6 },
				{ 2500, 32768, 4096, RB_TRACE_WRITE, 7 },
			};
			size_t k = 0;

			assert_int_equal(rb_trace_open_mem("t.bin", buf, n, RB_TRACE_AUTO, NULL, &t,
							   err, sizeof(err)),
					 0);
			assert_int_equal(rb_trace_format_of(t), RB_TRACE_BLKTRACE);
			while (rb_trace_next(t, &r, err, sizeof(err)) == 1) {
				assert_true(k < 4);
				assert_int_equal(r.t_ns, all[k].t_ns);
				assert_int_equal(r.offset, all[k].offset);
				assert_int_equal(r.len, all[k].len);
				assert_int_equal(r.dir, all[k].dir);
				assert_int_equal(r.line, all[k].line);
				k++;
			}
			assert_int_equal(k, 4);
			rb_trace_free(t);
			/* one device of the two */
			assert_int_equal(rb_trace_open_mem("t.bin", buf, n, RB_TRACE_BLKTRACE,
							   "8,16", &t, err, sizeof(err)),
					 0);
			assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), 1);
			assert_int_equal(r.offset, 32768);
			assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), 0);
			rb_trace_free(t);
		}
		/* cut short in its payload, then in its header */
		assert_int_equal(rb_trace_open_mem("t.bin", buf, 48 + 48 + 5, RB_TRACE_AUTO, NULL,
						   &t, err, sizeof(err)),
				 0);
		assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), 1);
		assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err,
				       "t.bin: record 2: a record's 12 bytes of payload are cut "
				       "short"));
		rb_trace_free(t);
		assert_int_equal(rb_trace_open_mem("t.bin", buf, 30, RB_TRACE_BLKTRACE, NULL, &t,
						   err, sizeof(err)),
				 0);
		assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "record 1: a record cut short: 30 of its 48 bytes"));
		rb_trace_free(t);
	}
	/* another version, and what is no record at all */
	blk_rec(buf, false, 8, 0, 0, 512, QUEUE(1), 0, 0);
	assert_int_equal(
		rb_trace_open_mem("t.bin", buf, 48, RB_TRACE_AUTO, NULL, &t, err, sizeof(err)), 0);
	assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "blktrace records of version 8: only version 7 is read"));
	rb_trace_free(t);
	memset(buf, 'x', 48);
	assert_int_equal(
		rb_trace_open_mem("t.bin", buf, 48, RB_TRACE_BLKTRACE, NULL, &t, err, sizeof(err)),
		0);
	assert_int_equal(rb_trace_next(t, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a blktrace record"));
	rb_trace_free(t);
}

/* What a synthesized storm holds: its IOs, mix, sizes and order, the same every time. */
struct storm {
	uint64_t ios[3], bytes, last_t, sum_t, sum_off, image_reads;
	uint64_t sizes; /* bit k: an IO of 2^k KiB was seen */
	bool ordered;
};

static void read_storm(const char *spec, int format, struct storm *s)
{
	struct rb_trace *t = NULL;
	struct rb_trace_rec r;
	char err[512] = "";
	int e;

	memset(s, 0, sizeof(*s));
	s->ordered = true;
	e = rb_trace_open(spec, format, NULL, &t, err, sizeof(err));
	if (e)
		fail_msg("open %s: %s", spec, err);
	while ((e = rb_trace_next(t, &r, err, sizeof(err))) == 1) {
		assert_true(r.dir <= RB_TRACE_TRIM);
		s->ios[r.dir]++;
		s->bytes += r.len;
		s->ordered &= r.t_ns >= s->last_t;
		s->last_t = r.t_ns;
		s->sum_t += r.t_ns / 1000;
		s->sum_off += r.offset >> 12;
		s->image_reads += r.dir == RB_TRACE_READ && r.offset < (16ULL << 30);
		assert_int_equal(r.len % 4096, 0);
		s->sizes |= 1ULL << (__builtin_ctzll(r.len) - 10);
		assert_true(r.offset + r.len <= 64ULL << 30);
	}
	if (e)
		fail_msg("%s", err);
	rb_trace_free(t);
}

static void test_trace_synth(void **state)
{
	struct storm a, b;
	struct rb_trace *t = NULL;
	char err[512];

	(void)state;
	read_storm("synth:vdi-boot:10", RB_TRACE_AUTO, &a);
	/* 10 desktops x 2,400 IOs, about 90% reads, every read from the shared image */
	assert_int_equal(a.ios[0] + a.ios[1] + a.ios[2], 24000);
	assert_int_equal(a.ios[2], 0);
	assert_true(a.ios[0] > 20880 && a.ios[0] < 22320); /* 87% to 93% */
	assert_int_equal(a.image_reads, a.ios[0]);
	assert_true(a.ordered);
	/* started over 60 s, each ~30 s long: the storm ends between 30 and ~100 s */
	assert_true(a.last_t > 30000000000ULL && a.last_t < 100000000000ULL);
	/* reads of 4-64 KiB and writes of 4-8 KiB: sizes 4, 8, 16, 32, 64 KiB */
	assert_int_equal(a.sizes, (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6));
	/* the same name, the same trace */
	read_storm("synth:vdi-boot:10", RB_TRACE_IOLOG, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	/* a login storm writes most, and reads its own areas, not the image */
	read_storm("synth:vdi-login:10", RB_TRACE_AUTO, &b);
	assert_int_equal(b.ios[0] + b.ios[1], 12000);
	assert_true(b.ios[1] > 7200 && b.ios[1] < 8400); /* 60% to 70% */
	assert_int_equal(b.image_reads, 0);
	assert_true(b.ordered);
	/* what is not a storm, said */
	assert_int_equal(
		rb_trace_open("synth:vdi-reboot", RB_TRACE_AUTO, NULL, &t, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "no such synthesized trace"));
	assert_int_equal(
		rb_trace_open("synth:vdi-boot:0", RB_TRACE_AUTO, NULL, &t, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "must be 1 to 100000"));
	assert_int_equal(rb_trace_open("synth:vdi-boot", RB_TRACE_MSR, NULL, &t, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "is a fio iolog, not replay_format msr"));
}

static void test_trace_scan_and_fits(void **state)
{
	char path[] = "/tmp/rb-test-trace-XXXXXX", err[512];
	static const char text[] = "fio version 2 iolog\n"
				   "f read 0 4096\n"
				   "f read 1044480 4096\n"
				   "f write 2097152 8192\n"
				   "f read 4096 65536\n";
	struct rb_trace_summary s, again;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(rb_trace_scan(path, RB_TRACE_AUTO, NULL, &s, err, sizeof(err)), 0);
	assert_int_equal(s.format, RB_TRACE_IOLOG);
	assert_int_equal(s.records, 4);
	assert_int_equal(s.ios[RB_TRACE_READ], 3);
	assert_int_equal(s.ios[RB_TRACE_WRITE], 1);
	assert_int_equal(s.first_write_line, 4);
	assert_int_equal(s.max_len, 65536);
	assert_int_equal(s.max_end, 2097152 + 8192);
	/* the same file again: the same answer */
	assert_int_equal(rb_trace_scan(path, RB_TRACE_AUTO, "", &again, err, sizeof(err)), 0);
	assert_memory_equal(&s, &again, sizeof(s));
	/* a 1 MiB target: modulo places everything; refuse names the first IO past the end */
	assert_int_equal(rb_trace_check_fits(path, RB_TRACE_AUTO, NULL, 1 << 20, 512,
					     RB_TRACE_MODULO, err, sizeof(err)),
			 0);
	assert_int_equal(rb_trace_check_fits(path, RB_TRACE_AUTO, NULL, 1 << 20, 512,
					     RB_TRACE_REFUSE, err, sizeof(err)),
			 -ERANGE);
	if (!strstr(err, ":4: the IO at byte 2097152 (8192 bytes) ends past the target's "
			 "1048576 bytes"))
		fail_msg("%s", err);
	assert_int_equal(rb_trace_check_fits(path, RB_TRACE_AUTO, NULL, 4 << 20, 512,
					     RB_TRACE_REFUSE, err, sizeof(err)),
			 0);
	/* an IO longer than the target does not fit either way */
	assert_int_equal(rb_trace_check_fits(path, RB_TRACE_AUTO, NULL, 32768, 512, RB_TRACE_MODULO,
					     err, sizeof(err)),
			 -ERANGE);
	assert_non_null(strstr(err, ":5: the IO at byte 4096 (65536 bytes) is longer than"));
	/* a read-only trace has no first write */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, 34), 34);
	close(fd);
	assert_int_equal(rb_trace_scan(path, RB_TRACE_IOLOG, NULL, &s, err, sizeof(err)), 0);
	assert_int_equal(s.records, 1);
	assert_int_equal(s.first_write_line, 0);
	unlink(path);
	assert_int_equal(rb_trace_scan(path, RB_TRACE_IOLOG, NULL, &s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot open trace"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_iolog_v2),
		cmocka_unit_test(test_trace_iolog_v3),
		cmocka_unit_test(test_trace_iolog_bad_lines),
		cmocka_unit_test(test_trace_blkparse),
		cmocka_unit_test(test_trace_blkparse_classic),
		cmocka_unit_test(test_trace_blkparse_bad_lines),
		cmocka_unit_test(test_trace_msr),
		cmocka_unit_test(test_trace_alibaba),
		cmocka_unit_test(test_trace_lines_and_chunks),
		cmocka_unit_test(test_trace_place),
		cmocka_unit_test(test_trace_scan_and_fits),
		cmocka_unit_test(test_trace_synth),
		cmocka_unit_test(test_trace_blktrace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
