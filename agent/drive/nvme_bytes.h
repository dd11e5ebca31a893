/* SPDX-License-Identifier: MIT */
/*
 * Little-endian fields of NVMe pages, read byte by byte: the same on every host and at any
 * alignment. Shared by the page parsers of nvme.c and nvme_logs.c.
 */
#ifndef RB_NVME_BYTES_H
#define RB_NVME_BYTES_H

#include <stddef.h>
#include <stdint.h>

static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* An n-byte little-endian field, n at most 8 (the 6- and 7-byte counters). */
static inline uint64_t le_n(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* A 128-bit little-endian counter, as a double: exact up to 2^53. */
static inline double le128(const uint8_t *p)
{
	return (double)le64(p) + (double)le64(p + 8) * 18446744073709551616.0;
}

#endif
