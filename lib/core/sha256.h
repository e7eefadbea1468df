/*
 * sha256.h: SHA-256 is nettle's (<nettle/sha2.h>: sha256_init(),
 * sha256_update(), sha256_digest()); here its digest in lowercase hex, as
 * the code snapshot and the local workspace's ids use it.
 */
#ifndef AIR_CORE_SHA256_H
#define AIR_CORE_SHA256_H

#include <stddef.h>

#include <nettle/sha2.h>

#define AIR__SHA256_LEN SHA256_DIGEST_SIZE

/* Finish @s (nettle starts it afresh) as 64 lowercase hex characters + NUL. */
void air__sha256_hex_digest(struct sha256_ctx *s, char out[2 * AIR__SHA256_LEN + 1]);
/* One-shot digest of @len bytes, the same way. */
void air__sha256_hex(const void *data, size_t len, char out[2 * AIR__SHA256_LEN + 1]);

#endif /* AIR_CORE_SHA256_H */
