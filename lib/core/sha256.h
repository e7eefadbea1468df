/*
 * sha256.h: SHA-256 (FIPS 180-4), used for the code snapshot cache key.
 * Incremental: init, update any number of times, final.
 */
#ifndef AIR_CORE_SHA256_H
#define AIR_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define AIR__SHA256_LEN 32

typedef struct air__sha256 {
	uint32_t h[8];
	uint64_t total;        /* bytes hashed so far */
	unsigned char block[64];
	size_t used;           /* bytes waiting in block */
} air__sha256;

void air__sha256_init(air__sha256 *s);
void air__sha256_update(air__sha256 *s, const void *data, size_t len);
void air__sha256_final(air__sha256 *s, unsigned char out[AIR__SHA256_LEN]);
/* One-shot digest of @len bytes as 64 lowercase hex characters + NUL. */
void air__sha256_hex(const void *data, size_t len, char out[2 * AIR__SHA256_LEN + 1]);

#endif /* AIR_CORE_SHA256_H */
