/* base64.c: standard base64 (RFC 4648 §4, padded) for Basic credentials and
 * the "auth" entries of a Docker client configuration. */
#include "core/base.h"

static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *air__base64(const void *data, size_t len)
{
	const unsigned char *p = data;
	char *out = air__malloc((len + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		*o++ = table[(v >> 18) & 63];
		*o++ = table[(v >> 12) & 63];
		*o++ = i + 1 < len ? table[(v >> 6) & 63] : '=';
		*o++ = i + 2 < len ? table[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static int value_of(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

bool air__base64_decode(const char *s, size_t len, air__buf *out)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t pad = 0;

	while (len > 0 && s[len - 1] == '=' && pad < 2) {
		len--;
		pad++;
	}
	if ((len + pad) % 4 == 1 || (pad && (len + pad) % 4 != 0))
		return false;
	for (size_t i = 0; i < len; i++) {
		int v = value_of(s[i]);
		if (v < 0)
			return false;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			air__buf_putc(out, (char)((acc >> bits) & 0xFF));
		}
	}
	/* Leftover bits must be zero (canonical encoding). */
	return (acc & ((1u << bits) - 1)) == 0 && !air__buf_oom(out);
}
