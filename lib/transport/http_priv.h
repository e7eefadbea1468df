/*
 * http_priv.h: the files of the request engine (http.c, xfer_pool.c,
 * http_error.c, trace.c, url.c) among themselves. Nothing here knows of
 * clients.
 */
#ifndef AIR_TRANSPORT_HTTP_PRIV_H
#define AIR_TRANSPORT_HTTP_PRIV_H

#include "core/core_curl.h"

#include "transport/http.h"

/* ---- xfer_pool.c ---- */
/* A transfer context: one multi handle (which owns a connection cache) plus
 * idle easy handles. A call checks one out, runs its transfers on it and
 * returns it, so connections and handles are reused by later calls on any
 * thread while no cache is ever used by two threads at once. */
typedef struct air__xfer_ctx {
	CURLM *multi;
	CURL *idle[8];
	size_t nidle;
	struct air__xfer_ctx *next;
} air__xfer_ctx;

/* An idle context, or a new one; NULL on allocation failure. */
air__xfer_ctx *air__transport_checkout(air__transport *t);
void air__transport_checkin(air__transport *t, air__xfer_ctx *x);
/* An easy handle attached to the transport's share (DNS, TLS sessions). */
CURL *air__xfer_ctx_easy(air__transport *t, air__xfer_ctx *x);
void air__xfer_ctx_put_easy(air__xfer_ctx *x, CURL *easy);
/* Reserve one request slot of the transport-wide token bucket (@rps per
 * second, burst of one second); returns how long to wait before sending. */
int64_t air__transport_reserve(air__transport *t, int64_t rps, int64_t now_ms);
/* Count requests and new connections (for tests and the debug trace). */
void air__transport_count(air__transport *t, int64_t requests, int64_t connects);

/* ---- trace.c ---- */
/* Request body excerpt for the debug trace with secret values replaced by
 * [REDACTED] (JSON keys, form fields, and every value of @secrets, before
 * the excerpt is cut); raw bytes are only counted. */
char *air__trace_body(air__secrets *secrets, const char *content_type, const void *body,
                      size_t len);
/* @text with the value of every Authorization header replaced. */
char *air__trace_headers(const char *text);
/* Hand @text to env->debug after removing every value of env->secrets. */
void air__trace_emit(const air__http_env *env, int32_t type, const char *text);

#endif /* AIR_TRANSPORT_HTTP_PRIV_H */
