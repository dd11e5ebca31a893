// SPDX-License-Identifier: MIT
/*
 * A fleet's commonest message, encoded and decoded directly: an rb.Envelope whose body
 * is a SampleBatch, written the way every encoder writes it (each field once, histograms
 * packed, nothing unknown), into struct rb_msg_samples on the message's list in one
 * block. At 1,000 agents x 24 drives decoding was 13% of the coordinator: protobuf-c
 * builds a struct and two arrays per sample, then wire.c copies them into ours; encoding
 * was 20% of the simulated agents (wire.c's structs for protobuf-c, its sizing pass,
 * then its packing).
 *
 * The encoder writes exactly protobuf-c's bytes (fields in number order, proto3's zeros
 * and empty strings and lists left out); tests/unit/test_wire.c compares the two.
 *
 * It decodes only what it can say exactly what protobuf-c would say of: anything else
 * (another body, an unknown or repeated field, an unpacked list, a varint longer than
 * its type, another protocol major, a message past the decode budget) answers "not
 * mine", and the generic decoder, which stays the authority, decodes or refuses it.
 * tests/unit/test_wire.c and fuzz_wire.c hold both to the same answer.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire_priv.h"

/* A base-128 varint of at most max bytes at *p (< end); false if there is none. */
static inline bool varint(const uint8_t **p, const uint8_t *end, unsigned max, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t x = 0;

	for (unsigned i = 0; i < max && q < end; i++, q++) {
		x |= (uint64_t)(*q & 0x7f) << (7 * i);
		if (!(*q & 0x80)) {
			/* the last byte of a 10-byte varint carries bit 63 only */
			if (i == 9 && *q > 1)
				return false;
			*p = q + 1;
			*v = x;
			return true;
		}
	}
	return false;
}

/* A length-delimited field's bytes: [*p, *p + *n). */
static bool bytes(const uint8_t **p, const uint8_t *end, const uint8_t **at, size_t *n)
{
	uint64_t l;

	if (!varint(p, end, 5, &l) || l > (uint64_t)(end - *p))
		return false;
	*at = *p;
	*n = (size_t)l;
	*p += l;
	return true;
}

/* Varints in a packed list (each ends at a byte below 0x80; the list must end with one). */
static bool packed_count(const uint8_t *p, size_t n, size_t *count)
{
	size_t c = 0, i = 0;

	/* eight bytes at a time: those with the top bit clear end a varint */
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		w = (w >> 7) & 0x0101010101010101ULL; /* each byte's top bit, as 0 or 1 */
		c += 8 - (size_t)((w * 0x0101010101010101ULL) >> 56);
	}
	for (; i < n; i++)
		c += p[i] < 0x80;
	if (n && p[n - 1] >= 0x80)
		return false;
	*count = c;
	return true;
}

/* What the samples need beside their structs: list entries and the drives' bytes. */
struct need {
	size_t samples, n32, n64, text;
};

/* Where the next sample's lists and drive go, in the message's one block. */
struct cursor {
	uint64_t *c;
	uint32_t *i;
	char *t;
};

enum {
	F_POINT = 1,
	F_ATTEMPT,
	F_DRIVE,
	F_INTERVAL,
	F_DIRECTION,
	F_T_NS,
	F_IOS,
	F_BYTES,
	F_ERRORS,
	F_LAT_SUM,
	F_HIST_IDX,
	F_HIST_CNT,
	F_LAST
};

/*
 * A packed list of varints in [p, p + len) into v32 (each below 2^32) or v64: the
 * commonest work of the coordinator, so one and two bytes (a bucket's index, most
 * counts) take a short way; packed_count() has checked that the list ends whole.
 */
static bool unpack_list(const uint8_t *p, size_t len, uint32_t *v32, uint64_t *v64)
{
	const uint8_t *end;
	size_t k = 0;

	if (!len)
		return true; /* an absent list: p is NULL */
	end = p + len;
	while (p < end) {
		uint64_t x;

		if (p[0] < 0x80) {
			x = p[0];
			p++;
		} else if (p + 1 < end && p[1] < 0x80) {
			x = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
			p += 2;
		} else if (!varint(&p, end, v32 ? 5 : 10, &x)) {
			return false;
		}
		if (v32) {
			if (x > UINT32_MAX)
				return false;
			v32[k++] = (uint32_t)x;
		} else {
			v64[k++] = x;
		}
	}
	return true;
}

/* A varint field's value in its place in the struct. */
static void put(struct rb_msg_sample *o, unsigned f, uint64_t v)
{
	switch (f) {
	case F_POINT:
		o->point = (uint32_t)v;
		break;
	case F_ATTEMPT:
		o->attempt = (uint32_t)v;
		break;
	case F_INTERVAL:
		o->interval = (uint32_t)v;
		break;
	case F_DIRECTION:
		o->direction = (uint32_t)v;
		break;
	case F_T_NS:
		o->t_ns = (int64_t)v;
		break;
	case F_IOS:
		o->ios = v;
		break;
	case F_BYTES:
		o->bytes = v;
		break;
	case F_ERRORS:
		o->errors = v;
		break;
	case F_LAST:
		o->last = v != 0; /* protobuf-c's bool: any value but 0 */
		break;
	default:
		o->lat_sum_ns = v;
		break;
	}
}

/*
 * One Sample in [p, end): counted into *need (out NULL), or decoded into *out with its
 * lists and drive at *cur. False where it is not in the one shape we decode.
 */
static bool sample(const uint8_t *p, const uint8_t *end, struct need *need,
		   struct rb_msg_sample *out, struct cursor *cur)
{
	unsigned seen = 0;
	const uint8_t *list[2] = { NULL, NULL };
	size_t count[2] = { 0, 0 }, len[2] = { 0, 0 };

	if (out)
		*out = (struct rb_msg_sample){ .drive = "" };
	while (p < end) {
		uint64_t key, v = 0;
		const uint8_t *at;
		size_t n;
		unsigned f;

		if (!varint(&p, end, 2, &key) || (key >> 3) == 0 || (key >> 3) > F_LAST)
			return false;
		f = (unsigned)(key >> 3);
		if (seen & (1u << f))
			return false; /* a field twice: protobuf-c's merge rules, not ours */
		seen |= 1u << f;
		if (f == F_DRIVE || f == F_HIST_IDX || f == F_HIST_CNT) {
			if ((key & 7) != 2 || !bytes(&p, end, &at, &n))
				return false;
			if (f == F_DRIVE) {
				need->text += n + 1;
				if (out) {
					memcpy(cur->t, at, n);
					cur->t[n] = '\0';
					out->drive = cur->t;
					cur->t += n + 1;
				}
			} else {
				int k = f == F_HIST_CNT;

				if (!packed_count(at, n, &count[k]))
					return false;
				list[k] = at;
				len[k] = n;
			}
			continue;
		}
		/* uint32 fields (the varints numbered up to direction; drive went above) and
		 * the bool: protobuf-c keeps the low 32 bits of a longer varint; we take none */
		bool narrow = f <= F_DIRECTION || f == F_LAST;

		if ((key & 7) != 0 || !varint(&p, end, narrow ? 5 : 10, &v) ||
		    (narrow && v > UINT32_MAX))
			return false;
		if (out)
			put(out, f, v);
	}
	need->samples++;
	need->n32 += count[0];
	need->n64 += count[1];
	if (out) {
		if (!unpack_list(list[0], len[0], cur->i, NULL) ||
		    !unpack_list(list[1], len[1], NULL, cur->c))
			return false;
		/* what wire.c keeps of a histogram: its two lists as long as the shorter */
		out->hist = sparse_in(cur->i, count[0], cur->c, count[1]);
		cur->i += count[0];
		cur->c += count[1];
	}
	return true;
}

/* The SampleBatch's samples in [p, end): counted (v NULL), or decoded into v. */
static bool batch(const uint8_t *p, const uint8_t *end, struct need *need, struct rb_msg_sample *v,
		  struct cursor *cur)
{
	while (p < end) {
		uint64_t key;
		const uint8_t *at;
		size_t n;

		if (!varint(&p, end, 2, &key) || key != ((1 << 3) | 2) || !bytes(&p, end, &at, &n))
			return false;
		if (!sample(at, at + n, need, v ? &v[need->samples] : NULL, cur))
			return false;
	}
	return true;
}

/*
 * At least what the generic decoder would take of the budget for the same message
 * (protobuf-c's structs, arrays and strings, then wire.c's array), so that whatever
 * this decoder accepts the generic one would accept too.
 */
static size_t generic_need(const struct need *n)
{
	return 4096 + sizeof(Rb__Envelope) + sizeof(Rb__SampleBatch) +
	       n->samples * (sizeof(Rb__Sample) + sizeof(Rb__Sample *) +
			     2 * sizeof(struct rb_msg_sample) + 64) +
	       n->n32 * sizeof(uint32_t) + n->n64 * sizeof(uint64_t) + n->text;
}

int rb_wire_samples_in(struct pool *pl, const uint8_t *buf, size_t len, struct rb_msg *m)
{
	const uint8_t *p = buf, *end = buf + len, *body = NULL;
	size_t nbody = 0, size;
	unsigned seen = 0;
	uint64_t hdr[5] = { 0 };
	struct need need = { 0 }, done = { 0 };
	struct rb_msg_sample *v;
	struct cursor cur;

	while (p < end) {
		uint64_t key;
		unsigned f;

		if (!varint(&p, end, 2, &key))
			return 1;
		f = (unsigned)(key >> 3);
		if (f >= 1 && f <= 4 && (key & 7) == 0 && !(seen & (1u << f))) {
			if (!varint(&p, end, f <= 2 ? 5 : 10, &hdr[f]) ||
			    (f <= 2 && hdr[f] > UINT32_MAX))
				return 1;
		} else if (f == 15 && (key & 7) == 2 && !(seen & (1u << f))) {
			if (!bytes(&p, end, &body, &nbody))
				return 1;
		} else {
			return 1;
		}
		seen |= 1u << f;
	}
	if (!body || hdr[1] != RB_PROTO_MAJOR || !batch(body, body + nbody, &need, NULL, NULL))
		return 1;
	if (pl->budget && generic_need(&need) > *pl->budget)
		return 1;
	/* one block: the samples, the count lists, the index lists, the drives' text */
	size = need.samples * sizeof(*v) + need.n64 * sizeof(uint64_t) +
	       need.n32 * sizeof(uint32_t) + need.text;
	v = pool_alloc(pl, size, 1);
	if (!v)
		return pl->over ? 1 : -ENOMEM;
	cur.c = (uint64_t *)(void *)(v + need.samples);
	cur.i = (uint32_t *)(void *)(cur.c + need.n64);
	cur.t = (char *)(cur.i + need.n32);
	if (!batch(body, body + nbody, &done, v, &cur))
		return 1; /* a list entry too long or too large for its type: protobuf-c's */
	m->kind = RB_MSG_SAMPLES;
	m->major = (uint32_t)hdr[1];
	m->minor = (uint32_t)hdr[2];
	m->epoch = hdr[3];
	m->seq = hdr[4];
	m->samples = (struct rb_msg_samples){ v, need.samples };
	return 0;
}

/* ---- sending: the same shape, written the way protobuf-c writes it ---- */

static inline size_t varint_size(uint64_t v)
{
	return (size_t)(64 - __builtin_clzll(v | 1) + 6) / 7;
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A varint field (numbers below 16: a key of one byte); none where it is 0 (proto3). */
static inline size_t field_size(uint64_t v)
{
	return v ? 1 + varint_size(v) : 0;
}

static inline uint8_t *put_field(uint8_t *p, unsigned f, uint64_t v)
{
	if (v) {
		*p++ = (uint8_t)(f << 3);
		p = put_varint(p, v);
	}
	return p;
}

/* A length-delimited field's key and length; its bytes follow. */
static inline uint8_t *put_len(uint8_t *p, unsigned f, size_t n)
{
	*p++ = (uint8_t)(f << 3 | 2);
	return put_varint(p, n);
}

/* One sample's sizes: its drive's bytes, its two packed lists', and all of it. */
struct sizes {
	size_t drive, idx, cnt, all;
};

static void sample_size(const struct rb_msg_sample *s, struct sizes *z)
{
	const struct rb_sparse *h = &s->hist;

	z->drive = s->drive ? strlen(s->drive) : 0;
	z->idx = z->cnt = 0;
	for (size_t k = 0; k < h->n; k++) {
		z->idx += varint_size(h->idx[k]);
		z->cnt += varint_size(h->cnt[k]);
	}
	z->all = field_size(s->point) + field_size(s->attempt) +
		 (z->drive ? 1 + varint_size(z->drive) + z->drive : 0) + field_size(s->interval) +
		 field_size(s->direction) + field_size((uint64_t)s->t_ns) + field_size(s->ios) +
		 field_size(s->bytes) + field_size(s->errors) + field_size(s->lat_sum_ns) +
		 field_size(s->last);
	if (h->n)
		z->all += 2 + varint_size(z->idx) + z->idx + varint_size(z->cnt) + z->cnt;
}

static uint8_t *put_sample(uint8_t *p, const struct rb_msg_sample *s, const struct sizes *z)
{
	const struct rb_sparse *h = &s->hist;

	p = put_len(p, 1, z->all); /* SampleBatch.samples */
	p = put_field(p, F_POINT, s->point);
	p = put_field(p, F_ATTEMPT, s->attempt);
	if (z->drive) {
		p = put_len(p, F_DRIVE, z->drive);
		memcpy(p, s->drive, z->drive);
		p += z->drive;
	}
	p = put_field(p, F_INTERVAL, s->interval);
	p = put_field(p, F_DIRECTION, s->direction);
	p = put_field(p, F_T_NS, (uint64_t)s->t_ns);
	p = put_field(p, F_IOS, s->ios);
	p = put_field(p, F_BYTES, s->bytes);
	p = put_field(p, F_ERRORS, s->errors);
	p = put_field(p, F_LAT_SUM, s->lat_sum_ns);
	if (h->n) {
		p = put_len(p, F_HIST_IDX, z->idx);
		for (size_t k = 0; k < h->n; k++)
			p = put_varint(p, h->idx[k]);
		p = put_len(p, F_HIST_CNT, z->cnt);
		for (size_t k = 0; k < h->n; k++)
			p = put_varint(p, h->cnt[k]);
	}
	return put_field(p, F_LAST, s->last);
}

int rb_wire_samples_out(const struct rb_msg *m, uint8_t **ret_buf, size_t *ret_len)
{
	const struct rb_msg_samples *b = &m->samples;
	struct sizes few[64], *z = few;
	size_t body = 0, n;
	uint8_t *buf = NULL, *p;
	int r = 0;

	if (b->n > 64 && !(z = malloc(b->n * sizeof(*z))))
		return -ENOMEM;
	for (size_t i = 0; i < b->n; i++) {
		sample_size(&b->v[i], &z[i]);
		body += 1 + varint_size(z[i].all) + z[i].all;
		if (body > RB_WIRE_MAX_BYTES) {
			r = -EMSGSIZE;
			goto out;
		}
	}
	n = field_size(m->major) + field_size(m->minor) + field_size(m->epoch) +
	    field_size(m->seq) + 1 + varint_size(body) + body;
	if (n > RB_WIRE_MAX_BYTES) {
		r = -EMSGSIZE;
		goto out;
	}
	if (!(buf = malloc(n))) {
		r = -ENOMEM;
		goto out;
	}
	p = put_field(buf, 1, m->major);
	p = put_field(p, 2, m->minor);
	p = put_field(p, 3, m->epoch);
	p = put_field(p, 4, m->seq);
	p = put_len(p, 15, body); /* Envelope.samples */
	for (size_t i = 0; i < b->n; i++)
		p = put_sample(p, &b->v[i], &z[i]);
	assert(p == buf + n); /* what was sized is what was written */
	*ret_buf = buf;
	*ret_len = n;
out:
	if (z != few)
		free(z);
	return r;
}
