/* SPDX-License-Identifier: MIT */
/* CRC-32C (Castagnoli), with the SSE4.2 instruction where the CPU has it. */
#ifndef RB_CRC32C_H
#define RB_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues crc over buf; start with 0. crc32c("123456789") = 0xe3069283. */
uint32_t rb_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
