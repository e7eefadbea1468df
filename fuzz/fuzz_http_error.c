/*
 * fuzz_http_error.c: libFuzzer target for error-reply classification
 * (air__http_reply_error, lib/transport/http_error.c), without secrets and
 * with the client's secret set, then air__secrets_redact, as the request
 * engine runs them. (Retry-After values are read by libcurl.)
 *
 * Input: byte 0 picks the method, bytes 1-2 the status (int16), byte 3 where
 * a secret is planted; the rest is "path \n Retry-After \n body" (missing
 * parts are empty). Invariants checked (abort on violation):
 *   - an error always comes back, with a negative code of the mapping table,
 *     a kind of that table, retryable exactly when the kind is TRANSIENT, the
 *     status, request id and Retry-After passed in, a non-empty server code
 *     or none;
 *   - the message reads "<METHOD> <path without its query>: " ... "HTTP
 *     <status>)", is bounded (2000 bytes of server message, 256 of code), is
 *     one line from the path on (the server's CR and LF escaped, in the code
 *     too), and is the same on a second call;
 *   - with the client's token planted anywhere in the body (raw, or with a
 *     JSON escape), neither the message nor the server code holds the token,
 *     nor, at a cut ("..."), a prefix of it;
 *   - the Retry-After passed in comes back unchanged.
 *
 *   CC=clang meson setup build-fuzz -Dfuzzers=enabled && ninja -C build-fuzz fuzz/fuzz_http_error
 *   build-fuzz/fuzz/fuzz_http_error -max_total_time=120 WORKDIR fuzz/corpus/fuzz_http_error
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/http_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TOKEN "dapi0f1e2d3c4b5a69788796a5b4c3d2e1f0"
#define TOKEN_ESCAPED "\\u0064api0f1e2d3c4b5a69788796a5b4c3d2e1f0"
#define MAX_MESSAGE 2000
#define MAX_CODE 256

#define CHECK(c)                                                                           \
	do {                                                                               \
		if (!(c)) {                                                                \
			fprintf(stderr, "fuzz_http_error: %s failed (line %d)\n", #c, __LINE__); \
			abort();                                                           \
		}                                                                          \
	} while (0)

/* The secrets a client with the PAT TOKEN knows. */
static air__secrets *secrets(void)
{
	static air__secrets *s;

	if (!s) {
		CHECK(air__secrets_new(&s) == AIR_OK);
		CHECK(air__secrets_add(s, TOKEN) == AIR_OK);
	}
	return s;
}

/* [*p, end) up to the next '\n' (consumed) as a NUL-terminated copy. */
static char *next_part(const char **p, const char *end)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	const char *stop = nl ? nl : end;
	char *out = air__strndup(*p, (size_t)(stop - *p));

	CHECK(out);
	*p = nl ? nl + 1 : end;
	return out;
}

static bool code_allowed(int code)
{
	return code == AIR_ENOTFOUND || code == AIR_EDISABLED || code == AIR_ECONFLICT ||
	       code == AIR_ERATELIMIT || code == AIR_ESERVER || code == AIR_EAPI ||
	       code == AIR_EAUTH || code == AIR_EPERMISSION;
}

static void check_error(const air_error *e, const char *method, const char *path, int32_t status,
                        const char *request_id, int64_t retry_after)
{
	const char *msg = air_error_message(e), *code = air_error_server_code(e);
	int32_t kind = air_error_kind(e);
	size_t plen = strcspn(path, "?"), mlen = strlen(method ? method : "?");
	char tail[32];

	CHECK(e);
	CHECK(air_error_code(e) < 0 && code_allowed(air_error_code(e)));
	CHECK(kind == AIR_KIND_NOT_FOUND || kind == AIR_KIND_PERMANENT ||
	      kind == AIR_KIND_CONFLICT || kind == AIR_KIND_TRANSIENT);
	CHECK(air_error_retryable(e) == (kind == AIR_KIND_TRANSIENT));
	CHECK(air_error_http_status(e) == status);
	CHECK(air_error_retry_after_ms(e) == retry_after);
	CHECK(!request_id || (air_error_request_id(e) && !strcmp(air_error_request_id(e), request_id)));
	CHECK(!code || (*code && strlen(code) <= MAX_CODE + 3));
	CHECK(msg);
	/* "<METHOD> <path without query>: " -- the query never shows. */
	CHECK(strncmp(msg, method ? method : "?", mlen) == 0 && msg[mlen] == ' ');
	CHECK(strncmp(msg + mlen + 1, path, plen) == 0);
	CHECK(msg[mlen + 1 + plen] == ':' && msg[mlen + 2 + plen] == ' ');
	CHECK(!strpbrk(msg + mlen + 1 + plen, "\r\n") && (!code || !strpbrk(code, "\r\n")));
	snprintf(tail, sizeof(tail), "HTTP %d)", (int)status);
	CHECK(air__ends_with(msg, tail));
	CHECK(strlen(msg) <= mlen + plen + (MAX_MESSAGE + 3) + (MAX_CODE + 3) + 40);
}

/* The token must not appear, nor a prefix of it (8+ bytes) cut by "...". */
static void check_no_token(const char *text)
{
	char probe[sizeof(TOKEN) + 3];

	if (!text)
		return;
	CHECK(!strstr(text, TOKEN));
	for (size_t k = 8; k < sizeof(TOKEN) - 1; k++) {
		memcpy(probe, TOKEN, k);
		memcpy(probe + k, "...", 4);
		CHECK(!strstr(text, probe));
	}
}

/* The Retry-After of the input: whole seconds, else absent (-1). */
static int64_t retry_after_of(const char *value)
{
	int64_t v;

	return air__parse_int64(value, &v) && v >= 0 && v <= 24 * 3600 ? v * 1000 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const methods[] = {"GET", "POST", "PUT", "HEAD", "PATCH", "DELETE", NULL,
	                                      "get"};
	const char *p = (const char *)data + (size >= 4 ? 4 : size), *end = (const char *)data + size;
	const char *method;
	char *path, *retry, *planted, *again_msg;
	const char *body;
	size_t body_len, at;
	int32_t status;
	int64_t retry_after;
	air_error *e, *again;
	bool plain;

	if (size < 4)
		return 0;
	method = methods[data[0] % AIR__ARRAY_SIZE(methods)];
	status = (int16_t)((uint16_t)data[1] << 8 | data[2]);
	path = next_part(&p, end);
	retry = next_part(&p, end);
	body = p;
	body_len = (size_t)(end - p);

	retry_after = retry_after_of(retry);

	/* Without a client: the classification and its message. */
	e = air__http_reply_error(NULL, method, path, status, body, body_len, "rid-1", retry_after,
	                          NULL);
	check_error(e, method, path, status, "rid-1", retry_after);
	again = air__http_reply_error(NULL, method, path, status, body, body_len, "rid-1",
	                              retry_after, NULL);
	CHECK(!strcmp(air_error_message(e), air_error_message(again)));
	again_msg = air__strdup(air_error_message(e));
	air_error_free(again);
	air_error_free(e);
	CHECK(again_msg);

	/* The transport's path: the client's token echoed somewhere in the body. */
	at = body_len ? (size_t)data[3] * body_len / 255 : 0;
	planted = air__malloc(body_len + sizeof(TOKEN_ESCAPED));
	CHECK(planted);
	memcpy(planted, body, at);
	memcpy(planted + at, (data[3] & 1) ? TOKEN_ESCAPED : TOKEN,
	       (data[3] & 1) ? sizeof(TOKEN_ESCAPED) - 1 : sizeof(TOKEN) - 1);
	memcpy(planted + at + ((data[3] & 1) ? sizeof(TOKEN_ESCAPED) - 1 : sizeof(TOKEN) - 1),
	       body + at, body_len - at);
	e = air__http_reply_error(secrets(), method, path, status, planted,
	                          body_len + ((data[3] & 1) ? sizeof(TOKEN_ESCAPED) - 1
	                                                    : sizeof(TOKEN) - 1),
	                          NULL, retry_after, NULL);
	e = air__secrets_redact(secrets(), e);
	if (!strstr(path, TOKEN)) /* else the path itself is redacted */
		check_error(e, method, path, status, NULL, retry_after);
	CHECK(!strstr(air_error_message(e), TOKEN));
	CHECK(!air_error_server_code(e) || !strstr(air_error_server_code(e), TOKEN));
	/* Fuzzer bytes may spell pieces of the token themselves (raw or through
	 * JSON escapes): the prefix check applies when they cannot. */
	plain = !memchr(data, '\\', size) && !memmem(data, size, TOKEN, 8);
	if (plain) {
		check_no_token(air_error_message(e));
		check_no_token(air_error_server_code(e));
	}
	air_error_free(e);
	air__free(planted);
	air__free(again_msg);
	air__free(path);
	air__free(retry);
	return 0;
}
