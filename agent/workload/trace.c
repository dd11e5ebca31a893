// SPDX-License-Identifier: MIT
/*
 * Block traces, streamed: the buffer and its lines, the format told from the first line,
 * each format's line read into a record, the scan of a whole trace (kept for the next
 * reader of the same file), and a record's place on a target.
 */
#include "trace.h"
#include "trace_synth.h"
#include "yamlcfg.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The buffer: the longest line a trace may have, and what one read fills. */
#define BUF_BYTES (256u << 10)
#define MAX_FIELDS 16

struct field {
	const char *p;
	size_t n;
};

struct rb_trace {
	char name[4096];
	int fd;			/* -1: reading from memory or a synthesizer */
	struct rb_synth *synth; /* a synthesized trace (trace_synth.c) */
	const char *mem;	/* rb_trace_open_mem */
	size_t memlen, mempos;
	int format;
	char device[256]; /* "": every device */
	unsigned dev_major, dev_minor;
	char *buf;
	size_t start, end; /* unread bytes: buf[start, end) */
	bool eof;
	uint64_t line;
	/* times in the format's own unit, and what one is in ns */
	bool have_t0;
	uint64_t t0, unit_ns;
	int iolog_version;   /* 2 or 3, once the header was read */
	uint64_t iolog_wait; /* version 2: microseconds waited so far */
	bool data_seen;	     /* a CSV's header may only be its first line */
	bool swap;	     /* blktrace: records of the other byte order */
};

static const char *const format_names[] = { "auto", "iolog",   "blkparse",
					    "msr",  "alibaba", "blktrace" };

const char *rb_trace_format_name(int format)
{
	return format >= 0 && format <= RB_TRACE_BLKTRACE ? format_names[format] : "?";
}

int rb_trace_format_of(const struct rb_trace *t)
{
	return t->format;
}

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return e;
}

/* A line's error: "FILE:LINE: " and what the format's reader said. */
static int line_error(const struct rb_trace *t, const char *msg, char *err, size_t errlen)
{
	return fail(err, errlen, -EINVAL, "%s:%llu: %s", t->name, (unsigned long long)t->line, msg);
}

/* More bytes at the buffer's end; false at the end of the input (or an error, in *e). */
static bool fill(struct rb_trace *t, int *e)
{
	ssize_t n;

	if (t->eof)
		return false;
	if (t->start) {
		memmove(t->buf, t->buf + t->start, t->end - t->start);
		t->end -= t->start;
		t->start = 0;
	}
	if (t->end == BUF_BYTES)
		return false;
	if (t->synth) {
		n = (ssize_t)rb_synth_read(t->synth, t->buf + t->end, BUF_BYTES - t->end);
	} else if (t->fd < 0) {
		n = (ssize_t)(t->memlen - t->mempos < BUF_BYTES - t->end ? t->memlen - t->mempos
									 : BUF_BYTES - t->end);
		memcpy(t->buf + t->end, t->mem + t->mempos, (size_t)n);
		t->mempos += (size_t)n;
	} else {
		do
			n = read(t->fd, t->buf + t->end, BUF_BYTES - t->end);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			*e = -errno;
			return false;
		}
	}
	if (n == 0) {
		t->eof = true;
		return false;
	}
	t->end += (size_t)n;
	return true;
}

/*
 * The next line (without its newline or a carriage return): 1, 0 at the end, or a
 * negative errno with err.
 */
static int next_line(struct rb_trace *t, const char **ret, size_t *ret_n, char *err, size_t errlen)
{
	size_t scanned = 0; /* bytes after start known to hold no newline */
	int e = 0;

	for (;;) {
		size_t avail = t->end - t->start;
		char *nl = memchr(t->buf + t->start + scanned, '\n', avail - scanned);

		if (nl || (t->eof && avail)) {
			size_t n = nl ? (size_t)(nl - (t->buf + t->start)) : avail;

			*ret = t->buf + t->start;
			t->start += n + (nl != NULL);
			if (n && (*ret)[n - 1] == '\r')
				n--;
			*ret_n = n;
			t->line++;
			return 1;
		}
		if (t->eof)
			return 0;
		scanned = avail;
		if (avail == BUF_BYTES) {
			t->line++;
			return line_error(t, "the line is longer than 256 KiB", err, errlen);
		}
		/* fill moves the unread bytes to the start: scanned still counts from there */
		if (!fill(t, &e) && e)
			return fail(err, errlen, -EIO, "%s: cannot read: %s", t->name,
				    strerror(-e));
	}
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Splits a line at sep (0: runs of spaces and tabs), trimming each field's spaces. */
static unsigned split(const char *p, size_t n, char sep, struct field *f)
{
	unsigned k = 0;
	size_t i = 0;

	if (!sep) {
		while (k < MAX_FIELDS) {
			while (i < n && is_space(p[i]))
				i++;
			if (i == n)
				break;
			f[k].p = p + i;
			while (i < n && !is_space(p[i]))
				i++;
			f[k].n = (size_t)(p + i - f[k].p);
			k++;
		}
		return i < n ? MAX_FIELDS + 1 : k;
	}
	for (;;) {
		size_t a = i, b;

		while (i < n && p[i] != sep)
			i++;
		b = i;
		while (a < b && is_space(p[a]))
			a++;
		while (b > a && is_space(p[b - 1]))
			b--;
		if (k == MAX_FIELDS)
			return MAX_FIELDS + 1;
		f[k].p = p + a;
		f[k].n = b - a;
		k++;
		if (i == n)
			return k;
		i++;
	}
}

static bool field_is(const struct field *f, const char *s)
{
	return f->n == strlen(s) && !strncasecmp(f->p, s, f->n);
}

/* A whole number of the field: 0, or -EINVAL (not one, or past 2^64). */
static int field_u64(const struct field *f, uint64_t *ret)
{
	uint64_t v = 0;

	if (!f->n || f->n > 20)
		return -EINVAL;
	for (size_t i = 0; i < f->n; i++) {
		unsigned d = (unsigned)(f->p[i] - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

/* "SECONDS.FRACTION" in ns (blkparse's time). */
static int field_seconds(const struct field *f, uint64_t *ret)
{
	const char *dot = memchr(f->p, '.', f->n);
	struct field s = { f->p, dot ? (size_t)(dot - f->p) : f->n };
	uint64_t secs, frac = 0;
	size_t fn = dot ? f->n - s.n - 1 : 0;

	if (field_u64(&s, &secs) || secs > UINT64_MAX / 1000000000ULL - 1)
		return -EINVAL;
	for (size_t i = 0; i < 9; i++) {
		unsigned d = i < fn ? (unsigned)(dot[1 + i] - '0') : 0;

		if (d > 9)
			return -EINVAL;
		frac = frac * 10 + d;
	}
	for (size_t i = 9; i < fn; i++)
		if ((unsigned)(dot[1 + i] - '0') > 9)
			return -EINVAL;
	if (dot && !fn)
		return -EINVAL;
	*ret = secs * 1000000000ULL + frac;
	return 0;
}

/* What a format's line reader says of a line. */
enum { SKIP = 0, RECORD = 1 };

struct parsed {
	uint64_t t; /* in the format's unit */
	uint64_t offset, len;
	uint32_t dir;
	char msg[160]; /* the error, without FILE:LINE */
};

static int bad(struct parsed *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct parsed *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof(p->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A number field of a record, said by name when it is not one. */
static int number(struct parsed *p, const struct field *f, const char *what, uint64_t *ret)
{
	if (field_u64(f, ret))
		return bad(p, "%s is not a whole number: '%.*s'", what,
			   (int)(f->n < 32 ? f->n : 32), f->p);
	return 0;
}

/* fio's iolog: "fio version N iolog", then "[TIME] FILE ACTION [OFFSET LENGTH]". */
static int parse_iolog(struct rb_trace *t, const char *s, size_t n, struct parsed *p)
{
	struct field f[MAX_FIELDS + 1];
	unsigned k = split(s, n, 0, f), at;
	uint64_t ts = 0;

	if (!k)
		return SKIP;
	if (!t->iolog_version) {
		if (k == 4 && field_is(&f[0], "fio") && field_is(&f[1], "version") &&
		    field_is(&f[3], "iolog") && f[2].n == 1 &&
		    (f[2].p[0] == '2' || f[2].p[0] == '3')) {
			t->iolog_version = f[2].p[0] - '0';
			return SKIP;
		}
		return bad(p, "not a fio iolog: the first line must be 'fio version 2 iolog' or "
			      "'fio version 3 iolog'");
	}
	at = t->iolog_version == 3;
	if (k != at + 2 && k != at + 4)
		return bad(p, "expected '%sFILE ACTION [OFFSET LENGTH]'", at ? "TIME " : "");
	if (at && number(p, &f[0], "the time", &ts))
		return -EINVAL;
	const struct field *file = &f[at], *act = &f[at + 1];

	if (field_is(act, "add") || field_is(act, "open") || field_is(act, "close"))
		return SKIP;
	if (k != at + 4)
		return bad(p, "'%.*s' needs an offset and a length",
			   (int)(act->n < 16 ? act->n : 16), act->p);
	if (number(p, &f[at + 2], "the offset", &p->offset) ||
	    number(p, &f[at + 3], "the length", &p->len))
		return -EINVAL;
	if (field_is(act, "wait") && !at) {
		/* version 2: a pause of OFFSET microseconds */
		if (p->offset > UINT64_MAX - t->iolog_wait)
			return bad(p, "the waits add up past any time");
		t->iolog_wait += p->offset;
		return SKIP;
	}
	if (field_is(act, "sync") || field_is(act, "datasync") || field_is(act, "sync_file_range"))
		return SKIP;
	if (field_is(act, "read"))
		p->dir = RB_TRACE_READ;
	else if (field_is(act, "write"))
		p->dir = RB_TRACE_WRITE;
	else if (field_is(act, "trim"))
		p->dir = RB_TRACE_TRIM;
	else
		return bad(p,
			   "unknown action '%.*s' (read, write, trim, sync, datasync, %sadd, "
			   "open, close)",
			   (int)(act->n < 32 ? act->n : 32), act->p, at ? "" : "wait, ");
	if (t->device[0] && !(file->n == strlen(t->device) && !memcmp(file->p, t->device, file->n)))
		return SKIP;
	p->t = at ? ts : t->iolog_wait;
	return RECORD;
}

/* "MAJ,MIN" of a field: 0 or -EINVAL. */
static int field_dev(const struct field *f, unsigned *ret_major, unsigned *ret_minor)
{
	const char *c = memchr(f->p, ',', f->n);
	struct field a, b;
	uint64_t x, y;

	if (!c)
		return -EINVAL;
	a = (struct field){ f->p, (size_t)(c - f->p) };
	b = (struct field){ c + 1, f->n - a.n - 1 };
	if (field_u64(&a, &x) || field_u64(&b, &y) || x > 4095 || y > 1048575)
		return -EINVAL;
	*ret_major = (unsigned)x;
	*ret_minor = (unsigned)y;
	return 0;
}

/*
 * blkparse's default output: "MAJ,MIN CPU SEQ SECONDS.NS PID ACTION RWBS SECTOR + COUNT
 * [COMM]" (the kernel's classic blk tracer has no SEQ). Queue events (Q) are the IOs
 * asked for; every other line (other events, the summary at the end) is skipped.
 */
static int parse_blkparse(struct rb_trace *t, const char *s, size_t n, struct parsed *p)
{
	struct field f[MAX_FIELDS + 1];
	unsigned k = split(s, n, 0, f), maj, min, i;
	uint64_t v, sector, count;
	bool r = false, w = false, d = false;

	if (!k || f[0].p[0] == '#' || field_dev(&f[0], &maj, &min))
		return SKIP;
	if (k > MAX_FIELDS)
		k = MAX_FIELDS; /* a message's words: the fields read are all in the first few */
	if (k < 6)
		return bad(p, "expected 'MAJ,MIN CPU SEQUENCE TIME PID ACTION RWBS ...'");
	if (number(p, &f[1], "the CPU", &v))
		return -EINVAL;
	/* the time is the first field with a dot: the third, or the fourth after a sequence */
	i = memchr(f[2].p, '.', f[2].n) ? 2 : 3;
	if (i == 3 && number(p, &f[2], "the sequence", &v))
		return -EINVAL;
	if (k < i + 4)
		return bad(p, "expected 'MAJ,MIN CPU SEQUENCE TIME PID ACTION RWBS ...'");
	if (field_seconds(&f[i], &p->t))
		return bad(p, "the time is not SECONDS.NANOSECONDS: '%.*s'",
			   (int)(f[i].n < 32 ? f[i].n : 32), f[i].p);
	if (number(p, &f[i + 1], "the pid", &v))
		return -EINVAL;
	if (!field_is(&f[i + 2], "Q"))
		return SKIP;
	const struct field *rwbs = &f[i + 3];

	for (size_t c = 0; c < rwbs->n; c++) {
		char x = rwbs->p[c];

		if (!((x >= 'A' && x <= 'Z')))
			return bad(p, "the RWBS field is not letters: '%.*s'",
				   (int)(rwbs->n < 16 ? rwbs->n : 16), rwbs->p);
		r |= x == 'R';
		w |= x == 'W';
		d |= x == 'D';
	}
	if (!r && !w && !d)
		return SKIP; /* no data */
	if (k < i + 7 || !field_is(&f[i + 5], "+")) {
		if (memchr(rwbs->p, 'F', rwbs->n))
			return SKIP; /* a flush: "Q FWS [comm]" */
		return bad(p, "a queue event needs 'SECTOR + COUNT'");
	}
	if (number(p, &f[i + 4], "the sector", &sector) ||
	    number(p, &f[i + 6], "the sector count", &count))
		return -EINVAL;
	if (sector > UINT64_MAX / 512 || count > UINT64_MAX / 512)
		return bad(p, "the sector is past any device");
	if (!count)
		return SKIP;
	if (t->device[0] && (maj != t->dev_major || min != t->dev_minor))
		return SKIP;
	p->dir = d ? RB_TRACE_TRIM : w ? RB_TRACE_WRITE : RB_TRACE_READ;
	p->offset = sector * 512;
	p->len = count * 512;
	return RECORD;
}

/* Whether a CSV's first line is its header: its first field is name. */
static bool csv_header(struct rb_trace *t, const struct field *f, const char *name)
{
	return !t->data_seen && field_is(f, name);
}

/* MSR Cambridge: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime. */
static int parse_msr(struct rb_trace *t, const char *s, size_t n, struct parsed *p)
{
	struct field f[MAX_FIELDS + 1];
	unsigned k;
	uint64_t disk;

	if (!n)
		return SKIP;
	k = split(s, n, ',', f);
	if (csv_header(t, &f[0], "Timestamp"))
		return SKIP;
	t->data_seen = true;
	if (k != 7)
		return bad(p,
			   "expected 7 fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,"
			   "ResponseTime), not %u",
			   k > MAX_FIELDS ? k - 1 : k);
	if (number(p, &f[0], "the timestamp", &p->t) || number(p, &f[2], "DiskNumber", &disk) ||
	    number(p, &f[4], "the offset", &p->offset) || number(p, &f[5], "the size", &p->len))
		return -EINVAL;
	if (field_is(&f[3], "Read"))
		p->dir = RB_TRACE_READ;
	else if (field_is(&f[3], "Write"))
		p->dir = RB_TRACE_WRITE;
	else
		return bad(p, "the type is Read or Write, not '%.*s'",
			   (int)(f[3].n < 16 ? f[3].n : 16), f[3].p);
	if (!p->len)
		return SKIP;
	if (t->device[0] && !(f[2].n == strlen(t->device) && !memcmp(f[2].p, t->device, f[2].n)))
		return SKIP;
	return RECORD;
}

/* Alibaba's block traces: device_id,opcode,offset,length,timestamp (microseconds). */
static int parse_alibaba(struct rb_trace *t, const char *s, size_t n, struct parsed *p)
{
	struct field f[MAX_FIELDS + 1];
	unsigned k;
	uint64_t dev;

	if (!n)
		return SKIP;
	k = split(s, n, ',', f);
	if (csv_header(t, &f[0], "device_id"))
		return SKIP;
	t->data_seen = true;
	if (k != 5)
		return bad(p,
			   "expected 5 fields (device_id,opcode,offset,length,timestamp), not %u",
			   k > MAX_FIELDS ? k - 1 : k);
	if (number(p, &f[0], "device_id", &dev) || number(p, &f[2], "the offset", &p->offset) ||
	    number(p, &f[3], "the length", &p->len) || number(p, &f[4], "the timestamp", &p->t))
		return -EINVAL;
	if (field_is(&f[1], "R"))
		p->dir = RB_TRACE_READ;
	else if (field_is(&f[1], "W"))
		p->dir = RB_TRACE_WRITE;
	else
		return bad(p, "the opcode is R or W, not '%.*s'", (int)(f[1].n < 16 ? f[1].n : 16),
			   f[1].p);
	if (!p->len)
		return SKIP;
	if (t->device[0] && !(f[0].n == strlen(t->device) && !memcmp(f[0].p, t->device, f[0].n)))
		return SKIP;
	return RECORD;
}

static unsigned count_char(const char *s, size_t n, char c)
{
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += s[i] == c;
	return k;
}

/* The format a line says the trace is in; AUTO when it says none. */
static int tell(const char *s, size_t n)
{
	struct field f[MAX_FIELDS + 1];
	unsigned k = split(s, n, 0, f), maj, min;

	if (k >= 2 && field_is(&f[0], "fio") && field_is(&f[1], "version"))
		return RB_TRACE_IOLOG;
	if (k >= 6 && !field_dev(&f[0], &maj, &min))
		return RB_TRACE_BLKPARSE;
	if (count_char(s, n, ',') == 6)
		return RB_TRACE_MSR;
	if (count_char(s, n, ',') == 4)
		return RB_TRACE_ALIBABA;
	return RB_TRACE_AUTO;
}

/* AUTO: the format of the first line that is neither blank nor a '#' comment. */
/*
 * blktrace's binary records (include/uapi/linux/blktrace_api.h): struct blk_io_trace, 48
 * bytes in the traced machine's byte order, then pdu_len bytes of payload.
 */
#define BLK_MAGIC 0x65617400u
#define BLK_VERSION 7u
#define BLK_REC 48u
#define BLK_TA_QUEUE 1u
#define BLK_TC_WRITE (1u << 1)
#define BLK_TC_PC (1u << 9)
#define BLK_TC_NOTIFY (1u << 10)
#define BLK_TC_DISCARD (1u << 13)

static uint32_t u32_at(const char *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t u64_at(const char *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

/* Whether 4 bytes are blktrace's magic: in our byte order (*swap false) or the other. */
static bool blk_magic(const char *p, bool *swap)
{
	for (int s = 0; s < 2; s++)
		if ((u32_at(p, s) & 0xffffff00u) == BLK_MAGIC) {
			*swap = s;
			return true;
		}
	return false;
}

#define BLK_SKIP 2

/* The next binary record into p: 1, 0 at the end, BLK_SKIP, or negative errno (p->msg). */
static int blk_next(struct rb_trace *t, struct parsed *p, int *e)
{
	const char *r;
	uint32_t magic, action, bytes, dev, cat;
	uint16_t pdu;

	while (t->end - t->start < BLK_REC && fill(t, e))
		;
	if (*e)
		return *e;
	if (t->end == t->start)
		return 0;
	t->line++;
	if (t->end - t->start < BLK_REC)
		return bad(p, "a record cut short: %zu of its 48 bytes", t->end - t->start);
	r = t->buf + t->start;
	if (!blk_magic(r, &t->swap))
		return bad(p, "not a blktrace record: its magic is %08x, not %08x",
			   u32_at(r, false), BLK_MAGIC | BLK_VERSION);
	magic = u32_at(r, t->swap);
	if ((magic & 0xff) != BLK_VERSION)
		return bad(p, "blktrace records of version %u: only version %u is read",
			   magic & 0xff, BLK_VERSION);
	memcpy(&pdu, r + 46, sizeof(pdu));
	if (t->swap)
		pdu = __builtin_bswap16(pdu);
	while (t->end - t->start < BLK_REC + pdu && fill(t, e))
		;
	if (*e)
		return *e;
	if (t->end - t->start < BLK_REC + pdu)
		return bad(p, "a record's %u bytes of payload are cut short", pdu);
	r = t->buf + t->start;
	t->start += BLK_REC + pdu;
	action = u32_at(r + 28, t->swap);
	bytes = u32_at(r + 24, t->swap);
	dev = u32_at(r + 36, t->swap);
	cat = action >> 16;
	/* queue events of data IO; notes, pass-through commands and flushes are not IOs */
	if ((action & 0xffff) != BLK_TA_QUEUE || (cat & (BLK_TC_NOTIFY | BLK_TC_PC)) || !bytes)
		return BLK_SKIP;
	if (t->device[0] && ((dev >> 20) != t->dev_major || (dev & 0xfffff) != t->dev_minor))
		return BLK_SKIP;
	if (u64_at(r + 16, t->swap) > UINT64_MAX / 512)
		return bad(p, "sector %llu is past any device",
			   (unsigned long long)u64_at(r + 16, t->swap));
	p->t = u64_at(r + 8, t->swap);
	p->offset = u64_at(r + 16, t->swap) * 512;
	p->len = bytes;
	p->dir = cat & BLK_TC_DISCARD ? RB_TRACE_TRIM
		 : cat & BLK_TC_WRITE ? RB_TRACE_WRITE
				      : RB_TRACE_READ;
	return 1;
}

static int detect(struct rb_trace *t, char *err, size_t errlen)
{
	size_t at = 0;
	uint64_t line = 1;
	int e = 0;

	while (fill(t, &e))
		;
	if (e)
		return fail(err, errlen, -EIO, "%s: cannot read: %s", t->name, strerror(-e));
	if (t->end >= 4 && blk_magic(t->buf, &t->swap)) {
		t->format = RB_TRACE_BLKTRACE;
		return 0;
	}
	while (at < t->end) {
		const char *s = t->buf + at, *nl = memchr(s, '\n', t->end - at);
		size_t n = nl ? (size_t)(nl - s) : t->end - at, i = 0;

		while (i < n && (is_space(s[i]) || s[i] == '\r'))
			i++;
		if (i < n && s[i] != '#') {
			t->format = tell(s, n);
			if (t->format != RB_TRACE_AUTO)
				return 0;
			break;
		}
		at += n + 1;
		line++;
	}
	return fail(err, errlen, -EINVAL,
		    "%s:%llu: cannot tell the trace's format (give replay_format: iolog, blkparse, "
		    "msr, alibaba or blktrace)",
		    t->name, (unsigned long long)line);
}

static const struct {
	int (*parse)(struct rb_trace *t, const char *s, size_t n, struct parsed *p);
	uint64_t unit_ns;
} formats[] = {
	[RB_TRACE_IOLOG] = { parse_iolog, 1000 }, [RB_TRACE_BLKPARSE] = { parse_blkparse, 1 },
	[RB_TRACE_MSR] = { parse_msr, 100 },	  [RB_TRACE_ALIBABA] = { parse_alibaba, 1000 },
	[RB_TRACE_BLKTRACE] = { NULL, 1 }, /* binary: blk_next */
};

int rb_trace_next(struct rb_trace *t, struct rb_trace_rec *ret, char *err, size_t errlen)
{
	for (;;) {
		struct parsed p = { 0 };
		const char *s = NULL;
		size_t n = 0;
		int r;

		if (t->format == RB_TRACE_BLKTRACE) {
			int e = 0;

			r = blk_next(t, &p, &e);
			if (e)
				return fail(err, errlen, -EIO, "%s: cannot read: %s", t->name,
					    strerror(-e));
			if (r < 0)
				return fail(err, errlen, -EINVAL, "%s: record %llu: %s", t->name,
					    (unsigned long long)t->line, p.msg);
			if (!r)
				return 0;
			if (r == BLK_SKIP)
				continue;
			goto parsed;
		}
		r = next_line(t, &s, &n, err, errlen);
		if (r <= 0) {
			if (!r && t->format == RB_TRACE_IOLOG && !t->iolog_version)
				return fail(err, errlen, -EINVAL,
					    "%s:1: not a fio iolog: the first line must be 'fio "
					    "version 2 iolog' or 'fio version 3 iolog'",
					    t->name);
			return r;
		}
		if (memchr(s, '\0', n))
			return line_error(t, "the line holds a NUL byte", err, errlen);
		r = formats[t->format].parse(t, s, n, &p);
		if (r < 0)
			return line_error(t, p.msg, err, errlen);
		if (r == SKIP || !p.len)
			continue; /* nothing to do: a zero-length IO moves no data */
	parsed:
		if (p.len > RB_TRACE_MAX_IO)
			return fail(err, errlen, -EINVAL,
				    "%s:%llu: an IO of %llu bytes is longer than 64 MiB, the most "
				    "one IO may be",
				    t->name, (unsigned long long)t->line,
				    (unsigned long long)p.len);
		if (p.offset > UINT64_MAX - p.len)
			return line_error(t, "the IO ends past any device", err, errlen);
		if (!t->have_t0) {
			t->have_t0 = true;
			t->t0 = p.t;
		}
		/* a record before the first is due at once */
		uint64_t rel = p.t > t->t0 ? p.t - t->t0 : 0;

		ret->t_ns = rel > UINT64_MAX / t->unit_ns ? UINT64_MAX : rel * t->unit_ns;
		ret->offset = p.offset;
		ret->len = p.len;
		ret->dir = p.dir;
		ret->line = t->line;
		return 1;
	}
}

static int open_common(struct rb_trace *t, int format, const char *device, char *err, size_t errlen)
{
	if (format < RB_TRACE_AUTO || format > RB_TRACE_BLKTRACE)
		return fail(err, errlen, -EINVAL, "%s: unknown trace format %d", t->name, format);
	t->buf = malloc(BUF_BYTES);
	if (!t->buf)
		return fail(err, errlen, -ENOMEM, "%s: out of memory", t->name);
	if (device && strlen(device) >= sizeof(t->device))
		return fail(err, errlen, -EINVAL, "replay_device is longer than %zu characters",
			    sizeof(t->device) - 1);
	snprintf(t->device, sizeof(t->device), "%s", device ? device : "");
	t->format = format;
	if (format == RB_TRACE_AUTO) {
		int e = detect(t, err, errlen);

		if (e)
			return e;
	}
	if (t->device[0] && (t->format == RB_TRACE_BLKPARSE || t->format == RB_TRACE_BLKTRACE)) {
		struct field f = { t->device, strlen(t->device) };

		if (field_dev(&f, &t->dev_major, &t->dev_minor))
			return fail(err, errlen, -EINVAL,
				    "replay_device of a blkparse trace is MAJ,MIN (such as 8,0), "
				    "not '%s'",
				    t->device);
	}
	t->unit_ns = formats[t->format].unit_ns;
	return 0;
}

int rb_trace_open(const char *path, int format, const char *device, struct rb_trace **ret,
		  char *err, size_t errlen)
{
	struct rb_trace *t = calloc(1, sizeof(*t));
	int e;

	if (!t)
		return fail(err, errlen, -ENOMEM, "%s: out of memory", path);
	snprintf(t->name, sizeof(t->name), "%s", path);
	if (!strncmp(path, RB_SYNTH_PREFIX, strlen(RB_SYNTH_PREFIX))) {
		/* made on the fly, read as the fio iolog it is */
		t->fd = -1;
		if (format != RB_TRACE_AUTO && format != RB_TRACE_IOLOG)
			e = fail(err, errlen, -EINVAL,
				 "%s: a synthesized trace is a fio iolog, not replay_format %s",
				 path, rb_trace_format_name(format));
		else
			e = rb_synth_open(path, &t->synth, err, errlen);
		if (!e)
			e = open_common(t, RB_TRACE_IOLOG, device, err, errlen);
		if (e) {
			rb_trace_free(t);
			return e;
		}
		*ret = t;
		return 0;
	}
	t->fd = rb_open_input(path);
	if (t->fd < 0) {
		e = fail(err, errlen, t->fd, "cannot open trace '%s': %s", path,
			 rb_input_error(t->fd));
		rb_trace_free(t);
		return e;
	}
	e = open_common(t, format, device, err, errlen);
	if (e) {
		rb_trace_free(t);
		return e;
	}
	*ret = t;
	return 0;
}

int rb_trace_open_mem(const char *name, const void *data, size_t len, int format,
		      const char *device, struct rb_trace **ret, char *err, size_t errlen)
{
	struct rb_trace *t = calloc(1, sizeof(*t));
	int e;

	if (!t)
		return fail(err, errlen, -ENOMEM, "%s: out of memory", name);
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->fd = -1;
	t->mem = data;
	t->memlen = len;
	e = open_common(t, format, device, err, errlen);
	if (e) {
		rb_trace_free(t);
		return e;
	}
	*ret = t;
	return 0;
}

struct rb_trace *rb_trace_free(struct rb_trace *t)
{
	if (!t)
		return NULL;
	if (t->fd >= 0)
		close(t->fd);
	rb_synth_free(t->synth);
	free(t->buf);
	free(t);
	return NULL;
}

int rb_trace_summarize(struct rb_trace *t, struct rb_trace_summary *ret, char *err, size_t errlen)
{
	struct rb_trace_rec r;
	int e;

	memset(ret, 0, sizeof(*ret));
	ret->format = t->format;
	while ((e = rb_trace_next(t, &r, err, errlen)) == 1) {
		ret->records++;
		ret->ios[r.dir]++;
		if (r.dir != RB_TRACE_READ && !ret->first_write_line)
			ret->first_write_line = r.line;
		if (r.len > ret->max_len)
			ret->max_len = r.len;
		if (r.offset + r.len > ret->max_end)
			ret->max_end = r.offset + r.len;
		if (r.t_ns > ret->duration_ns)
			ret->duration_ns = r.t_ns;
	}
	if (e < 0)
		return e;
	if (!ret->records)
		return fail(err, errlen, -EINVAL, "%s: the trace holds no IO (read as %s%s%s)",
			    t->name, rb_trace_format_name(t->format),
			    t->device[0] ? ", device " : "", t->device);
	return 0;
}

/* The last scans, by the file's identity and the settings they were read with. */
#define SCANS 4
static struct scan {
	bool used;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec ctime, mtime;
	int format;
	char device[256];
	struct rb_trace_summary sum;
} scans[SCANS];
static unsigned scan_next;
static pthread_mutex_t scan_mu = PTHREAD_MUTEX_INITIALIZER;

static bool same_file(const struct scan *s, const struct stat *st, int format, const char *dev)
{
	return s->used && s->dev == st->st_dev && s->ino == st->st_ino && s->size == st->st_size &&
	       s->ctime.tv_sec == st->st_ctim.tv_sec && s->ctime.tv_nsec == st->st_ctim.tv_nsec &&
	       s->mtime.tv_sec == st->st_mtim.tv_sec && s->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       s->format == format && !strcmp(s->device, dev);
}

int rb_trace_scan(const char *path, int format, const char *device, struct rb_trace_summary *ret,
		  char *err, size_t errlen)
{
	const char *dev = device ? device : "";
	struct rb_trace *t;
	struct stat st;
	bool cacheable;
	int e;

	cacheable = stat(path, &st) == 0 && S_ISREG(st.st_mode) && strlen(dev) < 256;
	pthread_mutex_lock(&scan_mu);
	for (unsigned i = 0; cacheable && i < SCANS; i++) {
		if (same_file(&scans[i], &st, format, dev)) {
			*ret = scans[i].sum;
			pthread_mutex_unlock(&scan_mu);
			return 0;
		}
	}
	pthread_mutex_unlock(&scan_mu);
	e = rb_trace_open(path, format, device, &t, err, errlen);
	if (e)
		return e;
	e = rb_trace_summarize(t, ret, err, errlen);
	rb_trace_free(t);
	if (e || !cacheable)
		return e;
	pthread_mutex_lock(&scan_mu);
	struct scan *s = &scans[scan_next++ % SCANS];

	*s = (struct scan){ .used = true,
			    .dev = st.st_dev,
			    .ino = st.st_ino,
			    .size = st.st_size,
			    .ctime = st.st_ctim,
			    .mtime = st.st_mtim,
			    .format = format,
			    .sum = *ret };
	snprintf(s->device, sizeof(s->device), "%s", dev);
	pthread_mutex_unlock(&scan_mu);
	return 0;
}

int rb_trace_place(const struct rb_trace_rec *r, uint64_t span, uint32_t lbs, int remap,
		   uint64_t *ret_offset, uint64_t *ret_len)
{
	uint64_t b = lbs ? lbs : 1, off = r->offset - r->offset % b;
	uint64_t len = (r->len + b - 1) / b * b;

	if (len > span)
		return -ERANGE;
	if (off > span - len) {
		if (remap != RB_TRACE_MODULO)
			return -ERANGE;
		off = r->offset % span;
		off -= off % b;
		if (off > span - len)
			off = (span - len) - (span - len) % b;
	}
	*ret_offset = off;
	*ret_len = len;
	return 0;
}

int rb_trace_check_fits(const char *path, int format, const char *device, uint64_t span,
			uint32_t lbs, int remap, char *err, size_t errlen)
{
	struct rb_trace_summary sum;
	struct rb_trace_rec r;
	struct rb_trace *t = NULL;
	uint64_t o, l;
	int e = rb_trace_scan(path, format, device, &sum, err, errlen);

	if (e)
		return e;
	/* the scan says whether any record may miss; only then is the trace read again */
	if (sum.max_len + (lbs ? lbs : 1) <= span &&
	    (remap == RB_TRACE_MODULO || sum.max_end + (lbs ? lbs : 1) <= span))
		return 0;
	e = rb_trace_open(path, format, device, &t, err, errlen);
	while (!e && (e = rb_trace_next(t, &r, err, errlen)) == 1) {
		e = 0;
		if (rb_trace_place(&r, span, lbs, remap, &o, &l) == 0)
			continue;
		e = fail(err, errlen, -ERANGE,
			 "%s:%llu: the IO at byte %llu (%llu bytes) %s the target's %llu bytes%s",
			 path, (unsigned long long)r.line, (unsigned long long)r.offset,
			 (unsigned long long)r.len, r.len > span ? "is longer than" : "ends past",
			 (unsigned long long)span,
			 r.len > span ? "" : " (replay_remap: refuse; modulo wraps it)");
		break;
	}
	rb_trace_free(t);
	return e;
}
