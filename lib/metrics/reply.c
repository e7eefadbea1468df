/*
 * reply.c: MLflow replies as JSON, NaN and the infinities included, and the
 * points in them.
 *
 * MLflow's Python server writes non-finite floats as the bare tokens NaN,
 * Infinity and -Infinity (what Python's json module does), which are not
 * JSON; protobuf's JSON mapping writes them as the strings "NaN",
 * "Infinity" and "-Infinity". Which one a workspace sends is not documented
 * (unconfirmed): both are accepted. jansson rejects the bare tokens
 * (JSON_DECODE_ANY and JSON_ALLOW_NUL do not change that), so a body that
 * has them is copied once with each such token outside strings quoted, and
 * the values are read from numbers or strings alike.
 */
#include "metrics/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const bare_tokens[] = {"NaN", "Infinity", "-Infinity"};

/* The bare token at @p (outside a string), or NULL. */
static const char *bare_token_at(const char *p, const char *end)
{
	for (size_t i = 0; i < AIR__ARRAY_SIZE(bare_tokens); i++) {
		size_t n = strlen(bare_tokens[i]);
		if ((size_t)(end - p) >= n && !memcmp(p, bare_tokens[i], n))
			return bare_tokens[i];
	}
	return NULL;
}

/* Whether the body may hold a bare token at all (a cheap scan first: most
 * replies have none). */
static bool may_have_tokens(const char *body, size_t len)
{
	return memmem(body, len, "NaN", 3) || memmem(body, len, "Infinity", 8);
}

/* @body with every bare token outside strings quoted. */
static bool quote_tokens(const char *body, size_t len, air__buf *out)
{
	const char *p = body, *end = body + len;
	bool in_string = false;

	while (p < end) {
		const char *tok;

		if (in_string) {
			if (*p == '\\' && p + 1 < end) {
				air__buf_put(out, p, 2);
				p += 2;
				continue;
			}
			in_string = *p != '"';
		} else if (*p == '"') {
			in_string = true;
		} else if ((tok = bare_token_at(p, end)) != NULL) {
			air__buf_putc(out, '"');
			air__buf_puts(out, tok);
			air__buf_putc(out, '"');
			p += strlen(tok);
			continue;
		}
		air__buf_putc(out, *p++);
	}
	return !air__buf_oom(out);
}

int air__metrics_parse(const char *body, size_t len, const char *what, json_t **out,
                       air_error **err)
{
	air__buf quoted = AIR__BUF_INIT;
	size_t n;

	*out = NULL;
	/* An empty reply is an empty object, as for any JSON call. */
	air__trim(body, &n);
	if (n == 0)
		return (*out = json_object()) ? AIR_OK : air__oom(err);
	if (may_have_tokens(body, len)) {
		if (!quote_tokens(body, len, &quoted)) {
			air__buf_dispose(&quoted);
			return air__oom(err);
		}
		body = air__buf_cstr(&quoted);
		len = quoted.len;
	}
	*out = air__json_parse(body, len, what, err);
	air__buf_dispose(&quoted);
	if (!*out)
		return AIR_EPROTO;
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return air__failf(err, AIR_EPROTO, 0, "%s is not a JSON object", what);
	}
	return AIR_OK;
}

/* A value: a JSON number, or a string of one ("NaN", "Infinity", "-Infinity",
 * "0.25"); absent is 0. */
static bool read_value(const json_t *v, double *out)
{
	const char *s;
	char *end;

	if (!v) {
		*out = 0;
		return true;
	}
	if (json_is_number(v)) {
		*out = json_number_value(v);
		return true;
	}
	if (!(s = json_string_value(v)))
		return false;
	if (!strcmp(s, "NaN")) {
		*out = NAN;
		return true;
	}
	if (!strcmp(s, "Infinity") || !strcmp(s, "-Infinity")) {
		*out = s[0] == '-' ? -INFINITY : INFINITY;
		return true;
	}
	*out = strtod(s, &end);
	return *s && !*end;
}

/* An integer member given as a number or a decimal string; absent is 0. */
static bool read_int(const json_t *obj, const char *key, int64_t *out)
{
	const json_t *v = json_object_get(obj, key);

	*out = 0;
	return !v || air__json_value_int64(v, out);
}

bool air__metrics_point(const json_t *v, air_metric_point *pt)
{
	*pt = (air_metric_point){0};
	if (!json_is_object(v))
		return false;
	pt->key = air__json_str(v, "key");
	return read_value(json_object_get(v, "value"), &pt->value) &&
	       read_int(v, "timestamp", &pt->timestamp_ms) && read_int(v, "step", &pt->step);
}

int air__metrics_get(air_client *c, const air__ctx *ctx, const char *path, const char *query,
                     air__buf *body, json_t **out, air_error **err)
{
	static const char *const accept[] = {"Accept: application/json", NULL};
	air__http_req req = {.method = "GET", .path = path, .query = query, .headers = accept,
	                     .sink = air__buf_sink, .sink_ud = body,
	                     .sink_reset = air__buf_sink_reset,
	                     .max_reply = AIR__METRICS_REPLY_MAX};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	char *what;
	int rc;

	*out = NULL;
	air__buf_clear(body);
	rc = air__http_do(c, ctx, &req, &resp, err);
	air__http_resp_clear(&resp);
	if (rc == AIR_EABORTED && air__buf_oom(body))
		return air__oom(err);
	if (rc != AIR_OK)
		return rc;
	what = air__sprintf("the reply of %s", path);
	rc = air__metrics_parse(air__buf_cstr(body), body->len, what ? what : path, out, err);
	air__free(what);
	return rc;
}
