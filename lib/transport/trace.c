/*
 * trace.c: the debug trace. Everything handed to the debug callback is
 * redacted twice: structurally (Authorization headers, secret JSON keys,
 * OAuth form fields) and then literally (every secret of the transport).
 */
#include <ctype.h>
#include <string.h>

#include <jansson.h>

#include "transport/http_priv.h"

#define MAX_BODY_EXCERPT 4096

/* JSON members whose string values are secrets (tokens, secrets/put values,
 * pre-signed URLs). */
static const char *const json_secret_keys[] = {
	"access_token", "refresh_token", "id_token", "token", "token_value", "client_secret",
	"password", "secret", "string_value", "bytes_value", "signed_uri",
};
/* OAuth form fields that carry credentials. */
static const char *const form_secret_keys[] = {
	"access_token", "refresh_token", "client_secret", "password", "code", "code_verifier",
	"assertion", "client_assertion",
};

static bool in_list(const char *const *list, size_t count, const char *key, size_t n)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(list[i]) == n && strncasecmp(list[i], key, n) == 0)
			return true;
	return false;
}

static void redact_json(json_t *v)
{
	const char *key;
	json_t *member;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, member) {
			if (json_is_string(member) &&
			    in_list(json_secret_keys, AIR__ARRAY_SIZE(json_secret_keys), key, strlen(key)))
				json_string_set(member, "[REDACTED]");
			else
				redact_json(member);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, member)
			redact_json(member);
	}
}

/* Remove the known secrets from every string of @v before it is dumped: in
 * the JSON text a secret with a quote or a backslash is escaped, and the
 * literal scrub of the text would miss it. */
static void scrub_json(air__secrets *secrets, json_t *v)
{
	const char *key;
	json_t *member;
	size_t i;

	if (json_is_string(v)) {
		air__buf b = AIR__BUF_INIT;

		air__buf_put(&b, json_string_value(v), json_string_length(v));
		air__secrets_scrub(secrets, &b);
		if (b.len != json_string_length(v) ||
		    memcmp(b.ptr ? b.ptr : "", json_string_value(v), b.len) != 0)
			json_string_setn(v, b.ptr ? b.ptr : "", b.len);
		air__free_secret(air__buf_detach(&b));
	} else if (json_is_object(v)) {
		json_object_foreach(v, key, member)
			scrub_json(secrets, member);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, member)
			scrub_json(secrets, member);
	}
}

static char *json_excerpt(air__secrets *secrets, const char *body, size_t len)
{
	json_t *doc = json_loadb(body, len, JSON_DECODE_ANY, NULL);
	air__buf b = AIR__BUF_INIT;
	char *text, *out;
	size_t n;

	if (!doc || !(json_is_object(doc) || json_is_array(doc))) {
		json_decref(doc);
		return NULL;
	}
	redact_json(doc);
	scrub_json(secrets, doc);
	text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	if (!text)
		return NULL;
	air__buf_puts(&b, text);
	explicit_bzero(text, strlen(text));
	free(text); /* jansson's allocator */
	/* Known secrets go before the cut, which could otherwise split one. */
	air__secrets_scrub(secrets, &b);
	if (air__buf_oom(&b)) {
		air__buf_dispose(&b);
		return NULL;
	}
	n = b.len;
	if (n > MAX_BODY_EXCERPT) {
		n = air__utf8_cut(b.ptr, n, MAX_BODY_EXCERPT);
		out = air__sprintf("%.*s... (%zu bytes)", (int)n, b.ptr, len);
	} else {
		out = air__strdup(b.ptr);
	}
	air__free_secret(air__buf_detach(&b));
	return out;
}

static char *form_excerpt(const char *body, size_t len)
{
	air__buf b = AIR__BUF_INIT;
	size_t pos = 0;

	while (pos < len) {
		const char *item = body + pos, *amp = memchr(item, '&', len - pos);
		size_t n = amp ? (size_t)(amp - item) : len - pos;
		const char *eq = memchr(item, '=', n);

		if (b.len)
			air__buf_putc(&b, '&');
		if (eq && in_list(form_secret_keys, AIR__ARRAY_SIZE(form_secret_keys), item,
		                  (size_t)(eq - item))) {
			air__buf_put(&b, item, (size_t)(eq - item) + 1);
			air__buf_puts(&b, "[REDACTED]");
		} else {
			air__buf_put(&b, item, n);
		}
		pos += n + 1;
		if (b.len > MAX_BODY_EXCERPT) {
			air__buf_puts(&b, "...");
			break;
		}
	}
	return air__buf_detach(&b);
}

char *air__trace_body(air__secrets *secrets, const char *content_type, const void *body,
                      size_t len)
{
	const char *p = body;
	size_t i = 0;
	char *out;

	if (!body || len == 0)
		return NULL;
	if (content_type && air__starts_with(content_type, "application/x-www-form-urlencoded"))
		return form_excerpt(p, len);
	while (i < len && isspace((unsigned char)p[i]))
		i++;
	if (i < len && (p[i] == '{' || p[i] == '[') && (out = json_excerpt(secrets, p, len)) != NULL)
		return out;
	/* Raw bytes (uploads, downloads, non-JSON errors) are only counted. */
	return air__sprintf("[%zu bytes%s%s]", len, content_type ? " of " : "",
	                    content_type ? content_type : "");
}

char *air__trace_headers(const char *text)
{
	static const char *const sensitive[] = {"authorization:", "proxy-authorization:", "cookie:",
	                                        "set-cookie:"};
	air__buf b = AIR__BUF_INIT;
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\r\n");
		bool hide = false;

		for (size_t i = 0; i < AIR__ARRAY_SIZE(sensitive); i++)
			hide = hide || strncasecmp(p, sensitive[i], strlen(sensitive[i])) == 0;
		/* Blank lines and "Name:" removal directives say nothing. */
		if (n > 0 && p[n - 1] != ':') {
			if (b.len)
				air__buf_putc(&b, '\n');
			if (hide) {
				air__buf_put(&b, p, strcspn(p, ":") + 1);
				air__buf_puts(&b, " [REDACTED]");
			} else {
				air__buf_put(&b, p, n);
			}
		}
		p += n;
		p += strspn(p, "\r\n");
	}
	return air__buf_detach(&b);
}

void air__trace_emit(const air__http_env *env, int32_t type, const char *text)
{
	air__buf b = AIR__BUF_INIT;

	if (!env->debug || !text)
		return;
	air__buf_puts(&b, text);
	air__secrets_scrub(env->secrets, &b);
	if (!air__buf_oom(&b))
		env->debug(type, b.ptr, b.len, env->debug_ud);
	air__buf_dispose(&b);
}

void air__http_debug(const air__http_env *env, int32_t type, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (!env || !env->debug)
		return;
	va_start(ap, fmt);
	text = air__vsprintf(fmt, ap);
	va_end(ap);
	air__trace_emit(env, type, text);
	air__free(text);
}
