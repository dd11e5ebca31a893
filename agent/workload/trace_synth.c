// SPDX-License-Identifier: MIT
/*
 * Synthesized traces: `replay: synth:vdi-boot` and `synth:vdi-login` (optionally
 * `synth:vdi-boot:DESKTOPS`), a stream of fio iolog v3 lines made on the fly, read by the
 * trace reader like a file (trace.c), so a preset can replay a storm with no file on the
 * agent's host. The reviews replay VDI boot and login storms captured with vdbench; those
 * traces are not public, so these are synthesized from the shape such storms are
 * described with, and say so (docs/replay.md):
 *
 * - boot: desktops power on spread over the storm's first 60 s; each boot reads its OS
 *   from a golden image the linked clones share (the first 16 GiB of a 64 GiB disk: reads
 *   in sequential runs of 4-64 KiB IOs, the same blocks for every desktop), ~90% reads,
 *   and writes 4-8 KiB blocks at random into its own delta area; ~2,400 IOs over ~30 s.
 * - login: users log on spread over 120 s; each login reads its profile (4-64 KiB, from
 *   its own area) and writes settings, logs and caches, ~65% writes, mostly 4 KiB at
 *   random into its own area; ~1,200 IOs over ~20 s.
 *
 * Every desktop's IOs are a Poisson stream at its own mean rate; the generator merges
 * them in time with a heap, so the stream is in time order. It is deterministic: the
 * same name gives the same trace, IO for IO.
 */
#include "trace_synth.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1ULL << 30)
#define DISK_BYTES (64 * GIB)
#define IMAGE_BYTES (16 * GIB) /* the golden image every boot reads */

struct profile {
	const char *name;
	unsigned desktops;  /* default count */
	double spread_s;    /* desktops start over this many seconds */
	double length_s;    /* a desktop's burst */
	unsigned ios;	    /* IOs per desktop */
	double read_pct;    /* of its IOs */
	bool image_reads;   /* reads from the shared image (boot), else from its own area */
	unsigned rsizes[6]; /* KiB of reads, chosen uniformly */
	unsigned wsizes[6]; /* KiB of writes, chosen uniformly */
};

static const struct profile profiles[] = {
	{ "vdi-boot", 64, 60, 30, 2400, 90, true, { 4, 8, 16, 32, 64, 64 }, { 4, 4, 4, 8, 8, 4 } },
	{ "vdi-login",
	  64,
	  120,
	  20,
	  1200,
	  35,
	  false,
	  { 4, 8, 16, 32, 64, 4 },
	  { 4, 4, 4, 4, 8, 16 } },
};

struct desktop {
	double next_s; /* its next IO's time */
	unsigned left; /* IOs still to issue */
	uint64_t rpos; /* the next sequential read */
	unsigned run;  /* reads left in the current sequential run */
	uint64_t x;    /* its random state */
};

struct rb_synth {
	const struct profile *p;
	unsigned n;
	struct desktop *d;
	unsigned *heap; /* desktops by next_s */
	unsigned nheap;
	bool header;
	char line[128];
	size_t linelen, linepos;
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Uniform in [0, 1). */
static double unit(uint64_t *x)
{
	return (double)(rnd(x) >> 11) / 9007199254740992.0;
}

static bool before(const struct rb_synth *s, unsigned a, unsigned b)
{
	return s->d[a].next_s < s->d[b].next_s || (s->d[a].next_s == s->d[b].next_s && a < b);
}

static void sift_down(struct rb_synth *s, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;

		if (l < s->nheap && before(s, s->heap[l], s->heap[m]))
			m = l;
		if (r < s->nheap && before(s, s->heap[r], s->heap[m]))
			m = r;
		if (m == i)
			return;
		unsigned t = s->heap[i];

		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

/* A desktop's own area: after the image, DISK_BYTES / n each. */
static uint64_t area_of(const struct rb_synth *s, unsigned i, uint64_t *len)
{
	*len = (DISK_BYTES - IMAGE_BYTES) / s->n / 4096 * 4096;
	return IMAGE_BYTES + (uint64_t)i * *len;
}

/* The next IO of desktop i into the line buffer; the desktop moves on. */
static void emit(struct rb_synth *s, unsigned i)
{
	struct desktop *d = &s->d[i];
	const struct profile *p = s->p;
	bool read = unit(&d->x) * 100 < p->read_pct;
	uint64_t alen, area = area_of(s, i, &alen), off, len;

	if (read) {
		len = (uint64_t)p->rsizes[rnd(&d->x) % 6] << 10;
		if (!d->run) {
			/* a new run of 4-32 sequential reads at a random place */
			uint64_t span = p->image_reads ? IMAGE_BYTES : alen;
			uint64_t base = p->image_reads ? 0 : area;

			d->run = 4 + (unsigned)(rnd(&d->x) % 29);
			d->rpos = base + rnd(&d->x) % (span / 65536) * 65536;
		}
		off = d->rpos;
		d->rpos += len;
		d->run--;
	} else {
		len = (uint64_t)p->wsizes[rnd(&d->x) % 6] << 10;
		off = area + rnd(&d->x) % ((alen - len) / 4096) * 4096;
	}
	s->linelen = (size_t)snprintf(
		s->line, sizeof(s->line), "%" PRIu64 " synth %s %" PRIu64 " %" PRIu64 "\n",
		(uint64_t)(d->next_s * 1e6), read ? "read" : "write", off, len);
	s->linepos = 0;
	d->left--;
	/* exponential gaps at the desktop's mean rate */
	d->next_s += -log(1 - unit(&d->x)) * p->length_s / p->ios;
}

int rb_synth_open(const char *spec, struct rb_synth **ret, char *err, size_t errlen)
{
	const char *name = spec + strlen(RB_SYNTH_PREFIX);
	const struct profile *p = NULL;
	unsigned n = 0;
	struct rb_synth *s;

	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		size_t l = strlen(profiles[i].name);

		if (!strncmp(name, profiles[i].name, l) && (!name[l] || name[l] == ':')) {
			p = &profiles[i];
			n = p->desktops;
			if (name[l] == ':') {
				char *end;
				unsigned long v = strtoul(name + l + 1, &end, 10);

				if (*end || end == name + l + 1 || v < 1 || v > 100000) {
					snprintf(err, errlen,
						 "%s: the desktops after '%s:' must be 1 to 100000",
						 spec, p->name);
					return -EINVAL;
				}
				n = (unsigned)v;
			}
		}
	}
	if (!p) {
		snprintf(err, errlen,
			 "%s: no such synthesized trace (synth:vdi-boot, synth:vdi-login, "
			 "optionally :DESKTOPS)",
			 spec);
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->d = calloc(n, sizeof(*s->d))) || !(s->heap = calloc(n, sizeof(*s->heap)))) {
		rb_synth_free(s);
		snprintf(err, errlen, "%s: out of memory", spec);
		return -ENOMEM;
	}
	s->p = p;
	s->n = n;
	for (unsigned i = 0; i < n; i++) {
		struct desktop *d = &s->d[i];

		d->x = 0x9E3779B97F4A7C15ULL * (i + 1) ^ (uint64_t)(p - profiles) << 56;
		rnd(&d->x);
		d->next_s = unit(&d->x) * p->spread_s;
		d->left = p->ios;
		s->heap[i] = i;
	}
	s->nheap = n;
	for (unsigned i = n / 2; i-- > 0;)
		sift_down(s, i);
	*ret = s;
	return 0;
}

size_t rb_synth_read(struct rb_synth *s, char *buf, size_t room)
{
	size_t n = 0;

	if (!s->header) {
		s->header = true;
		s->linelen = (size_t)snprintf(s->line, sizeof(s->line), "fio version 3 iolog\n");
		s->linepos = 0;
	}
	while (n < room) {
		if (s->linepos == s->linelen) {
			unsigned i;

			if (!s->nheap)
				break;
			i = s->heap[0];
			emit(s, i);
			if (!s->d[i].left)
				s->heap[0] = s->heap[--s->nheap];
			sift_down(s, 0);
		}
		size_t k = s->linelen - s->linepos < room - n ? s->linelen - s->linepos : room - n;

		memcpy(buf + n, s->line + s->linepos, k);
		s->linepos += k;
		n += k;
	}
	return n;
}

struct rb_synth *rb_synth_free(struct rb_synth *s)
{
	if (s) {
		free(s->d);
		free(s->heap);
		free(s);
	}
	return NULL;
}
