/* sha256.c: SHA-256 digests in hex, over nettle. */
#include "core/core.h"

void air__sha256_hex_digest(struct sha256_ctx *s, char out[2 * AIR__SHA256_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t d[AIR__SHA256_LEN];

	sha256_digest(s, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[2 * AIR__SHA256_LEN] = '\0';
}

void air__sha256_hex(const void *data, size_t len, char out[2 * AIR__SHA256_LEN + 1])
{
	struct sha256_ctx s;

	sha256_init(&s);
	sha256_update(&s, len, data);
	air__sha256_hex_digest(&s, out);
}
