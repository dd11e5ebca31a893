/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), for naming a file by its bytes: the results database keys an
 * exported file by it, so that exporting it again adds nothing.
 */
#ifndef RB_SHA256_H
#define RB_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct rb_sha256 {
	uint32_t h[8];
	uint64_t bytes;
	uint8_t buf[64];
	size_t nbuf;
};

void rb_sha256_init(struct rb_sha256 *s);
void rb_sha256_update(struct rb_sha256 *s, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL into hex. */
void rb_sha256_hex(struct rb_sha256 *s, char hex[65]);
/* The digest of a whole file, in hex: 0 or a negative errno. */
int rb_sha256_file(const char *path, char hex[65]);

#endif
