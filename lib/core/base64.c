/* base64.c: standard base64 (RFC 4648 §4, padded) for Basic credentials and
 * the "auth" entries of a Docker client configuration, over nettle. */
#include "core/base.h"

#include <string.h>

#include <nettle/base64.h>

char *air__base64(const void *data, size_t len)
{
	char *out = air__malloc(BASE64_ENCODE_RAW_LENGTH(len) + 1);

	if (!out)
		return NULL;
	base64_encode_raw(out, len, data);
	out[BASE64_ENCODE_RAW_LENGTH(len)] = '\0';
	return out;
}

bool air__base64_decode(const char *s, size_t len, air__buf *out)
{
	static const char pad[] = "==";
	struct base64_decode_ctx ctx;
	size_t n = len, missing, got;
	uint8_t *dst;
	bool ok;

	/* nettle wants the padding and skips whitespace; here it is the other way. */
	while (n > 0 && s[n - 1] == '=' && len - n < 2)
		n--;
	missing = (4 - n % 4) % 4;
	if (n % 4 == 1 || (n < len && n + missing != len))
		return false;
	for (size_t i = 0; i < n; i++)
		if (strchr(" \t\r\n\f\v", s[i])) /* a NUL too */
			return false;
	if (!(dst = air__malloc(BASE64_DECODE_LENGTH(n + missing))))
		return false;
	base64_decode_init(&ctx);
	ok = base64_decode_update(&ctx, &got, dst, n, s);
	if (ok && missing) {
		size_t more = 0;
		ok = base64_decode_update(&ctx, &more, dst + got, missing, pad);
		got += more;
	}
	ok = ok && base64_decode_final(&ctx);
	if (ok)
		air__buf_put(out, (const char *)dst, got);
	air__free(dst);
	return ok && !air__buf_oom(out);
}
