/* errors.c: status codes, kinds and the air_error object. */
#include "core/core.h"

#include <string.h>

struct air_error {
	int32_t code;
	int32_t kind;
	int32_t retryable;
	int32_t line;
	int32_t column;
	int32_t http_status;
	int64_t retry_after_ms;
	char *message;
	char *field;
	char *file;
	char *server_code;
	char *request_id;
	char *suggestion;
};

/* Handed out when an error cannot be allocated; air_error_free() ignores it. */
static struct air_error oom_error = {
	AIR_ENOMEM, AIR_KIND_INTERNAL, 0, 0, 0, 0, -1,
	(char *)"out of memory", NULL, NULL, NULL, NULL, NULL,
};

static const struct status_info {
	int code;
	const char *name;
	const char *text;
	int32_t kind;
} statuses[] = {
	{AIR_OK, "AIR_OK", "success", AIR_KIND_NONE},
	{AIR_ENOMEM, "AIR_ENOMEM", "out of memory", AIR_KIND_INTERNAL},
	{AIR_EINVAL, "AIR_EINVAL", "invalid argument", AIR_KIND_INVALID_ARGUMENT},
	{AIR_ECONFIG, "AIR_ECONFIG", "invalid workload configuration", AIR_KIND_INVALID_CONFIG},
	{AIR_ENET, "AIR_ENET", "network failure", AIR_KIND_TRANSIENT},
	{AIR_ETIMEOUT, "AIR_ETIMEOUT", "timed out", AIR_KIND_TRANSIENT},
	{AIR_EAUTH, "AIR_EAUTH", "authentication failed", AIR_KIND_PERMANENT},
	{AIR_ENOTFOUND, "AIR_ENOTFOUND", "not found", AIR_KIND_NOT_FOUND},
	{AIR_ECONFLICT, "AIR_ECONFLICT", "conflict", AIR_KIND_CONFLICT},
	{AIR_ERATELIMIT, "AIR_ERATELIMIT", "rate limited", AIR_KIND_TRANSIENT},
	{AIR_ESERVER, "AIR_ESERVER", "workspace server error", AIR_KIND_TRANSIENT},
	{AIR_EPROTO, "AIR_EPROTO", "unexpected reply from the workspace", AIR_KIND_PERMANENT},
	{AIR_EABORTED, "AIR_EABORTED", "aborted by a callback", AIR_KIND_ABORTED},
	{AIR_EINTERRUPTED, "AIR_EINTERRUPTED", "interrupted", AIR_KIND_ABORTED},
	{AIR_EUNSUPPORTED, "AIR_EUNSUPPORTED", "not supported", AIR_KIND_INVALID_ARGUMENT},
	{AIR_EIO, "AIR_EIO", "local input/output failure", AIR_KIND_IO},
	{AIR_EAPI, "AIR_EAPI", "request rejected by the workspace", AIR_KIND_PERMANENT},
	{AIR_EREJECTED, "AIR_EREJECTED", "configuration rejected by the workspace",
	 AIR_KIND_INVALID_CONFIG},
	{AIR_ESNAPSHOT, "AIR_ESNAPSHOT", "code snapshot cannot be built", AIR_KIND_INVALID_CONFIG},
	{AIR_EPERMISSION, "AIR_EPERMISSION", "permission denied", AIR_KIND_PERMANENT},
	{AIR_EDISABLED, "AIR_EDISABLED", "feature not enabled in this workspace",
	 AIR_KIND_PERMANENT},
	{AIR_EINTERNAL, "AIR_EINTERNAL", "internal error", AIR_KIND_INTERNAL},
	{AIR_EDONE, "AIR_EDONE", "no more items", AIR_KIND_NONE},
};

static const char *const kind_names[] = {
	"NONE", "INVALID_CONFIG", "INVALID_ARGUMENT", "PERMANENT", "NOT_FOUND",
	"CONFLICT", "TRANSIENT", "IO", "INTERNAL", "ABORTED",
};

static const struct status_info *find_status(int code)
{
	for (size_t i = 0; i < AIR__ARRAY_SIZE(statuses); i++)
		if (statuses[i].code == code)
			return &statuses[i];
	return NULL;
}

const char *air_strerror(int status)
{
	const struct status_info *s = find_status(status);
	return s ? s->text : "unknown status code";
}

const char *air_status_name(int status)
{
	const struct status_info *s = find_status(status);
	return s ? s->name : "AIR_E?";
}

const char *air_kind_name(int32_t kind)
{
	if (kind < 0 || (size_t)kind >= AIR__ARRAY_SIZE(kind_names))
		return "UNKNOWN";
	return kind_names[kind];
}

int32_t air__default_kind(int code)
{
	const struct status_info *s = find_status(code);
	return s ? s->kind : AIR_KIND_INTERNAL;
}

bool air__default_retryable(int32_t kind) { return kind == AIR_KIND_TRANSIENT; }

air_error *air__error_vnew(int code, int32_t kind, const char *fmt, va_list ap)
{
	air_error *e = air__calloc(1, sizeof(*e));

	if (!e)
		return &oom_error;
	e->code = code;
	e->kind = kind ? kind : air__default_kind(code);
	e->retryable = air__default_retryable(e->kind);
	e->retry_after_ms = -1;
	e->message = air__vsprintf(fmt, ap);
	if (!e->message) {
		air__free(e);
		return &oom_error;
	}
	return e;
}

air_error *air__error_new(int code, int32_t kind, const char *fmt, ...)
{
	va_list ap;
	air_error *e;

	va_start(ap, fmt);
	e = air__error_vnew(code, kind, fmt, ap);
	va_end(ap);
	return e;
}

int air__fail(air_error **err, air_error *e)
{
	int code = e->code;

	if (err && !*err)
		*err = e;
	else
		air_error_free(e);
	return code;
}

int air__failf(air_error **err, int code, int32_t kind, const char *fmt, ...)
{
	va_list ap;
	air_error *e;

	if (!err) /* nobody wants the text: skip formatting */
		return code;
	va_start(ap, fmt);
	e = air__error_vnew(code, kind, fmt, ap);
	va_end(ap);
	return air__fail(err, e);
}

static void replace_str(char **slot, const char *value)
{
	char *copy = value ? air__strdup(value) : NULL;

	if (value && !copy)
		return; /* keep the old value rather than lose it */
	air__free(*slot);
	*slot = copy;
}

air_error *air__error_set_field(air_error *e, const char *field)
{
	if (e != &oom_error)
		replace_str(&e->field, field);
	return e;
}

air_error *air__error_set_position(air_error *e, const char *file, int32_t line, int32_t column)
{
	if (e == &oom_error)
		return e;
	replace_str(&e->file, file);
	e->line = line;
	e->column = column;
	return e;
}

air_error *air__error_set_http(air_error *e, int32_t status, const char *server_code,
                               const char *request_id, int64_t retry_after_ms)
{
	if (e == &oom_error)
		return e;
	e->http_status = status;
	replace_str(&e->server_code, server_code);
	replace_str(&e->request_id, request_id);
	e->retry_after_ms = retry_after_ms;
	return e;
}

air_error *air__error_set_suggestion(air_error *e, const char *suggestion)
{
	if (e != &oom_error)
		replace_str(&e->suggestion, suggestion);
	return e;
}

int air__oom(air_error **err) { return air__fail(err, &oom_error); }

air_error *air__error_set_retryable(air_error *e, bool retryable)
{
	if (e != &oom_error)
		e->retryable = retryable;
	return e;
}

air_error *air__error_set_kind(air_error *e, int32_t kind)
{
	if (e != &oom_error) {
		e->kind = kind;
		e->retryable = air__default_retryable(kind);
	}
	return e;
}

air_error *air__error_set_code(air_error *e, int code)
{
	if (e != &oom_error)
		e->code = code;
	return e;
}

static air_error *set_message_v(air_error *e, const char *prefix_fmt, va_list ap, bool keep_old)
{
	char *head, *msg;

	if (e == &oom_error)
		return e;
	head = air__vsprintf(prefix_fmt, ap);
	if (!head)
		return e;
	if (keep_old) {
		msg = air__sprintf("%s: %s", head, e->message);
		air__free(head);
		if (!msg)
			return e;
	} else {
		msg = head;
	}
	air__free(e->message);
	e->message = msg;
	return e;
}

air_error *air__error_prefix(air_error *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	e = set_message_v(e, fmt, ap, true);
	va_end(ap);
	return e;
}

air_error *air__error_set_message(air_error *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	e = set_message_v(e, fmt, ap, false);
	va_end(ap);
	return e;
}

air_error *air__error_redact(air_error *e, const char *secret)
{
	size_t slen;
	air__buf b = AIR__BUF_INIT;
	const char *p, *hit;

	if (e == &oom_error || !secret || (slen = strlen(secret)) < 4 || !strstr(e->message, secret))
		return e;
	for (p = e->message; (hit = strstr(p, secret)) != NULL; p = hit + slen) {
		air__buf_put(&b, p, (size_t)(hit - p));
		air__buf_puts(&b, "[REDACTED]");
	}
	air__buf_puts(&b, p);
	if (air__buf_oom(&b)) {
		/* Never leave the secret in place: drop the message instead. */
		air__buf_dispose(&b);
		replace_str(&e->message, "[message withheld]");
		return e;
	}
	air__free(e->message);
	e->message = air__buf_detach(&b);
	return e;
}

air_error *air__error_clone(const air_error *src)
{
	air_error *e;

	if (src == &oom_error)
		return &oom_error;
	e = air__error_new(src->code, src->kind, "%s", src->message);
	if (e == &oom_error)
		return e;
	e->retryable = src->retryable;
	air__error_set_position(e, src->file, src->line, src->column);
	air__error_set_field(e, src->field);
	air__error_set_suggestion(e, src->suggestion);
	air__error_set_http(e, src->http_status, src->server_code, src->request_id,
	                    src->retry_after_ms);
	return e;
}

int32_t air_error_code(const air_error *err) { return err ? err->code : AIR_OK; }
int32_t air_error_kind(const air_error *err) { return err ? err->kind : AIR_KIND_NONE; }
const char *air_error_message(const air_error *err) { return err ? err->message : ""; }
const char *air_error_field(const air_error *err) { return err ? err->field : NULL; }
const char *air_error_file(const air_error *err) { return err ? err->file : NULL; }
int32_t air_error_line(const air_error *err) { return err ? err->line : 0; }
int32_t air_error_column(const air_error *err) { return err ? err->column : 0; }
int32_t air_error_retryable(const air_error *err) { return err ? err->retryable : 0; }
int32_t air_error_http_status(const air_error *err) { return err ? err->http_status : 0; }
const char *air_error_server_code(const air_error *err) { return err ? err->server_code : NULL; }
const char *air_error_request_id(const air_error *err) { return err ? err->request_id : NULL; }
int64_t air_error_retry_after_ms(const air_error *err) { return err ? err->retry_after_ms : -1; }
const char *air_error_suggestion(const air_error *err) { return err ? err->suggestion : NULL; }

void air_error_free(air_error *err)
{
	if (!err || err == &oom_error)
		return;
	air__free(err->message);
	air__free(err->field);
	air__free(err->file);
	air__free(err->server_code);
	air__free(err->request_id);
	air__free(err->suggestion);
	air__free(err);
}
