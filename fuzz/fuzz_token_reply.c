/*
 * fuzz_token_reply.c: libFuzzer target for the reply of an OAuth token
 * endpoint (lib/transport/oauth.c, air__oauth_parse_token()).
 *
 * Invariants (abort on violation): a reply is accepted (AIR_OK) only with a
 * non-empty access token and token type, neither holding a control
 * character (they go into every Authorization header), and an expiry that
 * is 0 or at most about ten years away; anything else is AIR_EPROTO with an
 * error and an empty token; nothing leaks.
 *
 *   CC=clang meson setup build-fuzz -Dfuzzers=enabled && ninja -C build-fuzz fuzz/fuzz_token_reply
 *   build-fuzz/fuzz/fuzz_token_reply -max_total_time=60 WORKDIR fuzz/corpus/fuzz_token_reply
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                         \
	do {                                                                             \
		if (!(c)) {                                                              \
			fprintf(stderr, "fuzz_token_reply: %s failed (line %d)\n", #c, __LINE__); \
			abort();                                                         \
		}                                                                        \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	air__token tok;
	air_error *err = NULL;
	int64_t now = air__now_ms();
	int rc = air__oauth_parse_token((const char *)data, size, "https://h/oidc/v1/token", &tok,
	                                &err);

	if (rc == AIR_OK) {
		CHECK(!err);
		CHECK(tok.access_token && *tok.access_token && !air__find_control(tok.access_token));
		CHECK(tok.token_type && *tok.token_type && !air__find_control(tok.token_type));
		CHECK(tok.expiry_ms == 0 ||
		      (tok.expiry_ms > now && tok.expiry_ms <= now + 11LL * 366 * 24 * 3600 * 1000));
		air__token_clear(&tok);
	} else {
		CHECK(rc == AIR_EPROTO || rc == AIR_ENOMEM);
		CHECK(err && air_error_code(err) == rc);
		CHECK(!tok.access_token && !tok.token_type && !tok.refresh_token);
		air_error_free(err);
	}
	return 0;
}
