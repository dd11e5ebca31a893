/* SPDX-License-Identifier: MIT */
/*
 * Data verification. With verify on, every 512-byte chunk a write carries starts with a
 * header (magic, the chunk's own offset, a generation, the run's seed) and a crc32c of
 * the whole chunk; reads check each chunk. A chunk that fails is reported with its
 * offset and what was expected and found: no header, another offset (a misdirected
 * write), or a bad checksum (corruption). 512 bytes, so splits of any sizes and a
 * verify pass with another block size check the same chunks.
 */
#ifndef RB_VERIFY_H
#define RB_VERIFY_H

#include <stdbool.h>
#include <stdint.h>

#define RB_VERIFY_CHUNK 512
#define RB_VERIFY_MAGIC 0x5946495245564252ULL /* "RBVERIFY" */

enum rb_verify_kind { RB_VERIFY_NO_HEADER, RB_VERIFY_WRONG_OFFSET, RB_VERIFY_BAD_CRC };

struct rb_verify_mismatch {
	uint64_t offset; /* of the chunk on the target */
	enum rb_verify_kind kind;
	uint64_t found_offset; /* as the header says */
	uint32_t expected_crc, found_crc;
	uint32_t generation;
};

struct rb_verify_stats {
	uint64_t checked, unwritten, bad;
};

/* Stamps every chunk of buf (len bytes, to be written at offset). */
void rb_verify_stamp(char *buf, uint64_t len, uint64_t offset, uint32_t generation, uint32_t seed);
/*
 * Checks buf read from offset. Chunks without a header are mismatches when
 * require_header (a verify pass), else counted as unwritten. Each mismatch is passed
 * to fn. Adds to st.
 */
void rb_verify_check(const char *buf, uint64_t len, uint64_t offset, bool require_header,
		     struct rb_verify_stats *st,
		     void (*fn)(void *arg, const struct rb_verify_mismatch *m), void *arg);
const char *rb_verify_kind_name(enum rb_verify_kind k);

#endif
