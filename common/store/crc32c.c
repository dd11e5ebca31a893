// SPDX-License-Identifier: MIT
#include "crc32c.h"

#include <string.h>

static uint32_t table[8][256];
static int hw;

/* built once before main, so threads only ever read it */
__attribute__((constructor)) static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
#if defined(__x86_64__)
	hw = __builtin_cpu_supports("sse4.2");
#endif
}

static uint32_t crc_sw(uint32_t crc, const unsigned char *p, size_t len)
{
	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		v ^= crc;
		crc = table[7][v & 0xff] ^ table[6][(v >> 8) & 0xff] ^ table[5][(v >> 16) & 0xff] ^
		      table[4][(v >> 24) & 0xff] ^ table[3][(v >> 32) & 0xff] ^
		      table[2][(v >> 40) & 0xff] ^ table[1][(v >> 48) & 0xff] ^ table[0][v >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const unsigned char *p,
							 size_t len)
{
	uint64_t c = crc;

	while (len >= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
		p += 8;
		len -= 8;
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

uint32_t rb_crc32c(uint32_t crc, const void *buf, size_t len)
{
	crc = ~crc;
#if defined(__x86_64__)
	if (hw)
		return ~crc_hw(crc, buf, len);
#endif
	return ~crc_sw(crc, buf, len);
}
