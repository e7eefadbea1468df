/*
 * http_priv.h: pieces of the transport shared by http.c (the request engine),
 * http_api.c (the entry points of http.h),
 * http_pool.c (curl share, handle pool, rate limiter), http_error.c (reply
 * classification) and http_trace.c (redacted debug trace).
 */
#ifndef AIR_HTTP_PRIV_H
#define AIR_HTTP_PRIV_H

#include <curl/curl.h>

#include "client_priv.h"

/* ---- http_pool.c ---- */
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

int air__transport_new(air__transport **out);
void air__transport_free(air__transport *t);
/* An idle context, or a new one; NULL on allocation failure. */
air__xfer_ctx *air__transport_checkout(air__transport *t);
void air__transport_checkin(air__transport *t, air__xfer_ctx *x);
/* An easy handle attached to the client's share (DNS, TLS sessions). */
CURL *air__xfer_ctx_easy(air__transport *t, air__xfer_ctx *x);
void air__xfer_ctx_put_easy(air__xfer_ctx *x, CURL *easy);
/* Reserve one request slot of the client-wide token bucket (@rps per
 * second, burst of one second); returns how long to wait before sending. */
int64_t air__transport_reserve(air__transport *t, int64_t rps, int64_t now_ms);
/* Count requests and new connections (for tests and the debug trace). */
void air__transport_count(air__transport *t, int64_t requests, int64_t connects);
void air__transport_stats(const air__transport *t, int64_t *requests, int64_t *connects);

/* ---- http_error.c ---- */
/* air__http_error_from_reply() plus whether the reply is one of the
 * transient classes the transport retries (PROTOCOL.md §0.3). With a client
 * @c (may be NULL), every secret it knows is removed from the server's
 * message and code before they are cut to their length limits, so no part
 * of a secret survives a cut. */
air_error *air__http_reply_error(const air_client *c, const char *method, const char *path,
                                 int32_t status, const char *body, size_t body_len,
                                 const char *request_id, int64_t retry_after_ms, bool *retry);
/* True when @msg contains one of the transient messages of §0.3. */
bool air__http_transient_message(const char *msg);
/* Standard reason phrase of @status ("Not Found"), or NULL. */
const char *air__http_reason(int32_t status);

/* ---- http_trace.c ---- */
/* Request body excerpt for the debug trace with secret values replaced by
 * [REDACTED] (JSON keys, form fields, and every secret @c knows, before the
 * excerpt is cut); raw bytes are only counted. */
char *air__trace_body(const air_client *c, const char *content_type, const void *body,
                      size_t len);
/* @text with the value of every Authorization header replaced. */
char *air__trace_headers(const char *text);
/* Call the debug callback with @text after removing every secret the client
 * knows (tokens, passwords, client secrets). */
void air__trace_emit(const air_client *c, int32_t type, const char *text);

/* ---- http.c (the engine), http_api.c ---- */
/* The engine without resolving first: used by resolution and authentication
 * themselves (host metadata, OAuth discovery, token endpoint). */
int air__http_run(air_client *c, const air__ctx *ctx, const air__http_req *reqs, size_t n,
                  air__http_resp *resps, air_error **err);
/* Requests and new connections made through this client so far. */
void air__http_stats(const air_client *c, int64_t *requests, int64_t *connects);

#endif /* AIR_HTTP_PRIV_H */
