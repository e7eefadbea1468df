/*
 * http_error.c: error replies -> air_error (the classification of
 * docs/errors.md) and the transient classes the engine retries.
 */
#include <ctype.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "transport/http_priv.h"

#define MAX_MESSAGE 2000 /* bytes of a server message kept in an error */
#define MAX_CODE 256     /* bytes of a server error code kept (real ones are short) */

const char *air__http_reason(int32_t status)
{
	static const struct {
		int32_t status;
		const char *text;
	} reasons[] = {
		{400, "Bad Request"}, {401, "Unauthorized"}, {403, "Forbidden"}, {404, "Not Found"},
		{405, "Method Not Allowed"}, {408, "Request Timeout"}, {409, "Conflict"},
		{410, "Gone"}, {413, "Request Entity Too Large"}, {415, "Unsupported Media Type"},
		{429, "Too Many Requests"}, {500, "Internal Server Error"}, {501, "Not Implemented"},
		{502, "Bad Gateway"}, {503, "Service Unavailable"}, {504, "Gateway Timeout"},
	};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(reasons); i++)
		if (reasons[i].status == status)
			return reasons[i].text;
	return NULL;
}

/* Parsed error body: code (NULL when the body has none) and message. */
typedef struct reply_info {
	char *code;
	char *message;
	bool code_synthesized; /* UNKNOWN of the fallback rule, not sent by the server */
} reply_info;

/* Copy without surrounding whitespace. Long texts are cut later (clip()),
 * after secrets have been removed. */
static char *dup_trimmed(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return air__strndup(s, n);
}

/* Keep at most @max bytes of *@s, cut at a UTF-8 character boundary and
 * marked with "...". */
static void clip(char **s, size_t max)
{
	size_t n = *s ? strlen(*s) : 0;
	char *out;

	if (n <= max)
		return;
	n = air__utf8_cut(*s, n, max);
	if ((out = air__malloc(n + 4)) != NULL) {
		memcpy(out, *s, n);
		memcpy(out + n, "...", 4);
	}
	air__free(*s);
	*s = out;
}

/* Remove every secret from *@s (before it is cut); with @one_line, escape
 * its line breaks too: the server's text stays on one line wherever it is
 * shown. */
static void scrub(air__secrets *secrets, char **s, bool one_line)
{
	air__buf b = AIR__BUF_INIT, line = AIR__BUF_INIT;

	if (!*s || (!secrets && !one_line))
		return;
	air__buf_puts(&b, *s);
	if (secrets)
		air__secrets_scrub(secrets, &b);
	if (one_line && !air__buf_oom(&b)) {
		air__buf_put_one_line(&line, air__buf_cstr(&b));
		air__buf_dispose(&b);
		b = line;
	}
	air__free(*s);
	*s = air__buf_oom(&b) ? air__strdup("[withheld]") : air__buf_detach(&b);
	air__buf_dispose(&b);
}

static bool parse_json_body(const char *body, size_t len, reply_info *ri)
{
	json_t *root = json_loadb(body, len, 0, NULL);
	const char *msg = NULL, *detail, *error;
	json_t *code;

	if (!json_is_object(root)) {
		json_decref(root);
		return false;
	}
	code = json_object_get(root, "error_code");
	msg = json_string_value(json_object_get(root, "message"));
	error = json_string_value(json_object_get(root, "error"));
	detail = json_string_value(json_object_get(root, "detail"));
	if (json_is_string(code) && *json_string_value(code)) {
		ri->code = air__strdup(json_string_value(code));
	} else if (json_is_integer(code)) {
		ri->code = air__sprintf("%lld", (long long)json_integer_value(code));
	} else if (detail) {
		/* SCIM: {"detail", "status", "scimType"} */
		const char *st = json_string_value(json_object_get(root, "status"));
		ri->code = air__sprintf("SCIM_%s", st ? st : "");
		msg = strcmp(detail, "null") == 0 ? "SCIM API Internal Error" : detail;
	} else if (error) {
		/* Legacy {"error": "..."}; OAuth endpoints add error_description. */
		const char *desc = json_string_value(json_object_get(root, "error_description"));
		if (desc) {
			if (*error) /* an empty "error" is no code */
				ri->code = air__strdup(error);
			msg = desc;
		} else {
			msg = error;
		}
	} else if (!msg) {
		json_decref(root);
		return false;
	}
	ri->message = msg ? dup_trimmed(msg, strlen(msg)) : air__strdup("");
	json_decref(root);
	return true;
}

/* "CODE: message" with CODE of [A-Z_]+. */
static bool parse_code_text(const char *body, size_t len, reply_info *ri)
{
	size_t i = 0;

	while (i < len && (isupper((unsigned char)body[i]) || body[i] == '_'))
		i++;
	if (i == 0 || i + 1 >= len || body[i] != ':' || body[i + 1] != ' ')
		return false;
	ri->code = air__strndup(body, i);
	ri->message = dup_trimmed(body + i + 2, len - i - 2);
	return true;
}

static const char *find_ci(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (strncasecmp(hay + i, needle, n) == 0)
			return hay + i;
	return NULL;
}

/* HTML with <pre>message</pre>; the code comes from the reason phrase. */
static bool parse_html(int32_t status, const char *body, size_t len, reply_info *ri)
{
	const char *open = find_ci(body, len, "<pre>"), *close;
	const char *reason = air__http_reason(status);

	if (!open)
		return false;
	open += 5;
	close = find_ci(open, len - (size_t)(open - body), "</pre>");
	if (!close)
		return false;
	ri->message = dup_trimmed(open, (size_t)(close - open));
	if (reason && (ri->code = air__strdup(reason)) != NULL)
		for (char *p = ri->code; *p; p++)
			*p = *p == ' ' ? '_' : (char)toupper((unsigned char)*p);
	return true;
}

static void parse_reply(int32_t status, const char *body, size_t len, reply_info *ri)
{
	size_t n;
	const char *t;

	memset(ri, 0, sizeof(*ri));
	if (!body)
		len = 0;
	if (len > 0 && parse_json_body(body, len, ri))
		return;
	t = len > 0 ? body : "";
	n = len;
	while (n > 0 && isspace((unsigned char)*t)) {
		t++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)t[n - 1]))
		n--;
	if (n > 0 && (parse_code_text(t, n, ri) || parse_html(status, t, n, ri)))
		return;
	ri->code = air__strdup("UNKNOWN");
	ri->code_synthesized = true;
	if (n > 0) {
		ri->message = dup_trimmed(t, n);
	} else {
		const char *reason = air__http_reason(status);
		ri->message = reason ? air__strdup(reason) : air__sprintf("HTTP %d", (int)status);
	}
}

static bool code_is(const reply_info *ri, const char *code)
{
	return ri->code && !ri->code_synthesized && strcmp(ri->code, code) == 0;
}

/* "Run .* does not exist" / "Run: .* in job: .* doesn't exist" */
static bool jobs_run_missing_message(const char *m)
{
	const char *p;

	if ((p = strstr(m, "Run ")) != NULL && strstr(p + 4, " does not exist"))
		return true;
	if ((p = strstr(m, "Run: ")) != NULL && (p = strstr(p + 5, " in job: ")) != NULL &&
	    strstr(p + 9, " doesn't exist"))
		return true;
	return false;
}

static bool jobs_run_missing(const char *method, const char *path, int32_t status,
                             const reply_info *ri)
{
	const char *p = path ? strstr(path, "/jobs/runs/get") : NULL;

	return status == 400 && method && strcmp(method, "GET") == 0 && p &&
	       air__starts_with(path, "/api/2.") && code_is(ri, "INVALID_PARAMETER_VALUE") &&
	       ri->message && jobs_run_missing_message(ri->message);
}

/* Code and kind of a reply: a listed error_code wins over the status. */
static void classify(const char *method, const char *path, int32_t status, const reply_info *ri,
                     int *code, int32_t *kind)
{
	static const struct {
		const char *server_code;
		int code;
		int32_t kind;
	} by_code[] = {
		{"RESOURCE_DOES_NOT_EXIST", AIR_ENOTFOUND, AIR_KIND_NOT_FOUND},
		{"FEATURE_DISABLED", AIR_EDISABLED, AIR_KIND_PERMANENT},
		{"ABORTED", AIR_ECONFLICT, AIR_KIND_CONFLICT},
		{"ALREADY_EXISTS", AIR_ECONFLICT, AIR_KIND_CONFLICT},
		{"RESOURCE_ALREADY_EXISTS", AIR_ECONFLICT, AIR_KIND_CONFLICT},
		{"RESOURCE_EXHAUSTED", AIR_ERATELIMIT, AIR_KIND_TRANSIENT},
		{"REQUEST_LIMIT_EXCEEDED", AIR_ERATELIMIT, AIR_KIND_TRANSIENT},
		{"UNKNOWN", AIR_ESERVER, AIR_KIND_TRANSIENT},
		{"DATA_LOSS", AIR_ESERVER, AIR_KIND_TRANSIENT},
		{"INVALID_PARAMETER_VALUE", AIR_EAPI, AIR_KIND_PERMANENT},
		{"INVALID_STATE", AIR_EAPI, AIR_KIND_PERMANENT},
	};

	if (jobs_run_missing(method, path, status, ri)) {
		*code = AIR_ENOTFOUND;
		*kind = AIR_KIND_NOT_FOUND;
		return;
	}
	for (size_t i = 0; i < AIR__ARRAY_SIZE(by_code); i++) {
		if (code_is(ri, by_code[i].server_code)) {
			*code = by_code[i].code;
			*kind = by_code[i].kind;
			return;
		}
	}
	*kind = AIR_KIND_PERMANENT;
	if (status == 404) {
		*code = AIR_ENOTFOUND;
		*kind = AIR_KIND_NOT_FOUND;
	} else if (status == 401) {
		*code = AIR_EAUTH;
	} else if (status == 403) {
		*code = AIR_EPERMISSION;
	} else if (status == 409) {
		*code = AIR_ECONFLICT;
		*kind = AIR_KIND_CONFLICT;
	} else if (status == 429) {
		*code = AIR_ERATELIMIT;
		*kind = AIR_KIND_TRANSIENT;
	} else if (status >= 500) {
		*code = AIR_ESERVER;
		*kind = AIR_KIND_TRANSIENT;
	} else {
		*code = AIR_EAPI;
	}
}

bool air__http_transient_message(const char *msg)
{
	static const char *const transient[] = {
		"UnknownWorkerEnvironmentException",
		"does not have any associated worker environments",
		"There is no worker environment with id",
		"Unknown worker environment",
		"ClusterNotReadyException",
		"Timed out after ",
		"deadline exceeded",
	};
	const char *p;

	if (!msg)
		return false;
	for (size_t i = 0; i < AIR__ARRAY_SIZE(transient); i++)
		if (strstr(msg, transient[i]))
			return true;
	/* worker env .* not found */
	return (p = strstr(msg, "worker env ")) != NULL && strstr(p + 11, " not found") != NULL;
}

/* A workspace's reply names its request and status; a @bare one's message
 * stands alone (a backend whose requests are not HTTP). */
static air_error *reply_error(air__secrets *secrets, const char *method, const char *path,
                              int32_t status, const char *body, size_t body_len,
                              const char *request_id, int64_t retry_after_ms, bool *retry,
                              bool bare)
{
	reply_info ri;
	int code;
	int32_t kind;
	const char *msg;
	air_error *e;
	size_t plen = path ? strcspn(path, "?") : 0; /* query values never reach errors */
	char *rid = request_id ? air__strdup(request_id) : NULL; /* a header may quote one too */

	parse_reply(status, body, body_len, &ri);
	classify(method, path, status, &ri, &code, &kind);
	if (retry)
		*retry = status == 429 || status == 503 || code_is(&ri, "RESOURCE_EXHAUSTED") ||
		         code_is(&ri, "REQUEST_LIMIT_EXCEEDED") ||
		         air__http_transient_message(ri.message);
	scrub(secrets, &ri.message, true);
	scrub(secrets, &ri.code, true);
	scrub(secrets, &rid, false);
	clip(&ri.message, MAX_MESSAGE);
	clip(&ri.code, MAX_CODE);
	msg = ri.message ? ri.message : "";
	if (bare && ri.code && !ri.code_synthesized)
		e = air__error_new(code, kind, "%s (%s)", msg, ri.code);
	else if (bare)
		e = air__error_new(code, kind, "%s", msg);
	else if (ri.code && !ri.code_synthesized)
		e = air__error_new(code, kind, "%s %.*s: %s (%s, HTTP %d)", method ? method : "?",
		                   (int)plen, path ? path : "", msg, ri.code, (int)status);
	else
		e = air__error_new(code, kind, "%s %.*s: %s (HTTP %d)", method ? method : "?",
		                   (int)plen, path ? path : "", msg, (int)status);
	air__error_set_http(e, status, ri.code, rid, retry_after_ms);
	air__free(rid);
	air__free(ri.code);
	air__free(ri.message);
	return e;
}

air_error *air__http_reply_error(air__secrets *secrets, const char *method, const char *path,
                                 int32_t status, const char *body, size_t body_len,
                                 const char *request_id, int64_t retry_after_ms, bool *retry)
{
	return reply_error(secrets, method, path, status, body, body_len, request_id,
	                   retry_after_ms, retry, false);
}

air_error *air__http_reply_error_bare(air__secrets *secrets, const char *method,
                                      const char *path, int32_t status, const char *body,
                                      size_t body_len)
{
	return reply_error(secrets, method, path, status, body, body_len, NULL, -1, NULL, true);
}
