// SPDX-License-Identifier: MIT
#include "verify.h"

#include <stddef.h>
#include <string.h>

#include "crc32c.h"

struct hdr {
	uint64_t magic;
	uint64_t offset;
	uint32_t generation;
	uint32_t seed;
	uint32_t crc; /* of the chunk with this field zero */
	uint32_t reserved;
};

static uint32_t chunk_crc(const char *chunk)
{
	static const uint32_t zero;
	uint32_t c = rb_crc32c(0, chunk, offsetof(struct hdr, crc));

	c = rb_crc32c(c, &zero, sizeof(zero));
	return rb_crc32c(c, chunk + offsetof(struct hdr, reserved),
			 RB_VERIFY_CHUNK - offsetof(struct hdr, reserved));
}

void rb_verify_stamp(char *buf, uint64_t len, uint64_t offset, uint32_t generation, uint32_t seed)
{
	for (uint64_t pos = 0; pos + RB_VERIFY_CHUNK <= len; pos += RB_VERIFY_CHUNK) {
		struct hdr h = { .magic = RB_VERIFY_MAGIC,
				 .offset = offset + pos,
				 .generation = generation,
				 .seed = seed };
		char *chunk = buf + pos;

		memcpy(chunk, &h, sizeof(h));
		h.crc = chunk_crc(chunk);
		memcpy(chunk + offsetof(struct hdr, crc), &h.crc, sizeof(h.crc));
	}
}

void rb_verify_check(const char *buf, uint64_t len, uint64_t offset, bool require_header,
		     struct rb_verify_stats *st,
		     void (*fn)(void *arg, const struct rb_verify_mismatch *m), void *arg)
{
	for (uint64_t pos = 0; pos + RB_VERIFY_CHUNK <= len; pos += RB_VERIFY_CHUNK) {
		const char *chunk = buf + pos;
		struct rb_verify_mismatch m = { .offset = offset + pos };
		struct hdr h;

		memcpy(&h, chunk, sizeof(h));
		if (h.magic != RB_VERIFY_MAGIC) {
			if (!require_header) {
				st->unwritten++;
				continue;
			}
			m.kind = RB_VERIFY_NO_HEADER;
		} else {
			m.found_offset = h.offset;
			m.found_crc = h.crc;
			m.generation = h.generation;
			m.expected_crc = chunk_crc(chunk);
			st->checked++;
			if (h.offset != offset + pos)
				m.kind = RB_VERIFY_WRONG_OFFSET;
			else if (h.crc != m.expected_crc)
				m.kind = RB_VERIFY_BAD_CRC;
			else
				continue;
		}
		st->bad++;
		if (fn)
			fn(arg, &m);
	}
}

const char *rb_verify_kind_name(enum rb_verify_kind k)
{
	switch (k) {
	case RB_VERIFY_NO_HEADER:
		return "no header (never written by a verify run, or overwritten)";
	case RB_VERIFY_WRONG_OFFSET:
		return "header of another offset (misdirected write)";
	case RB_VERIFY_BAD_CRC:
		return "checksum mismatch (corrupted data)";
	}
	return "?";
}
