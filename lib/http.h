/*
 * http.h: the transport every workspace call goes through (http.c).
 *
 * Requests run on the calling thread with libcurl. DNS and TLS sessions are
 * shared by all threads of a client (a locked CURLSH) and connections live in
 * a pool of transfer contexts (http_pool.c), so a client shared by threads
 * reuses connections. Each request is retried on the transient classes of
 * PROTOCOL.md §0.3 (429, 503, RESOURCE_EXHAUSTED, REQUEST_LIMIT_EXCEEDED, the
 * transient message list, connection reset/refused/timeouts) with back-off
 * min(n,10) units + 50..750 ms jitter, at least Retry-After, all within the
 * client's retry deadline. Bodies are replayed byte-identically. No request
 * goes to a plain http:// URL unless its host is a loopback address.
 *
 * A reply with status >= 400 makes the call fail: the error carries the
 * mapped code and kind (PROTOCOL.md §0.2, CLI_AND_OUTPUT.md §3.2), the
 * server's error_code and message, the HTTP status, the request id and
 * Retry-After. The reply is still returned in *resp so callers can inspect it.
 */
#ifndef AIR_HTTP_H
#define AIR_HTTP_H

#include <jansson.h>

#include "internal.h"

/* Request flags. */
#define AIR__HTTP_NO_AUTH      (1u << 0) /* no Authorization header (pre-signed URLs, discovery) */
#define AIR__HTTP_ABSOLUTE_URL (1u << 1) /* req->path is a complete URL, not a workspace path */
#define AIR__HTTP_NO_RETRY     (1u << 2) /* a single attempt */
#define AIR__HTTP_NO_WORKSPACE (1u << 3) /* no X-Databricks-Workspace-Id (non-workspace URLs) */

/* Per-call context handed down from the public call; the pointer may be NULL.
 * The client's own interrupt (air_client_set_interrupt) applies as well: the
 * transport stops when either is raised. */
typedef struct air__ctx {
	air_interrupt *intr;  /* raised -> AIR_EINTERRUPTED, also mid-transfer */
	/* Upload progress of the call (sum over parallel requests); non-zero
	 * return aborts with AIR_EABORTED. May be NULL. */
	int (*on_progress)(void *ud, int64_t done, int64_t total);
	void *progress_ud;
} air__ctx;

/* Body sink for downloads: called per received chunk; non-zero aborts. */
typedef int (*air__http_sink)(const void *data, size_t len, void *ud);

typedef struct air__http_req {
	const char *method;          /* "GET", "POST", "PUT", "HEAD", "PATCH", "DELETE" */
	const char *path;            /* "/api/2.0/...", percent-encoded where needed */
	const char *query;           /* encoded "k=v&k2=v2" (air__buf_query) or NULL */
	const void *body;            /* request body bytes or NULL */
	size_t body_len;
	const char *content_type;    /* NULL: no Content-Type header */
	const char *const *headers;  /* extra "Name: value" lines, NULL-terminated, or NULL */
	uint32_t flags;              /* AIR__HTTP_* */
	air__http_sink sink;         /* NULL: collect the body in memory */
	void *sink_ud;
	/* Per-request limits of each attempt; 0 means the client's value
	 * (AIR_OPT_CONNECT_TIMEOUT_MS, the inactivity timeout). Inactivity is
	 * enforced in whole seconds (rounded up); it also bounds the wait for the
	 * response headers. */
	int64_t connect_timeout_ms;
	int64_t inactivity_timeout_ms;
} air__http_req;

typedef struct air__http_resp {
	int32_t status;          /* HTTP status of the last attempt; 0 when no reply */
	char *body;              /* NUL-terminated; NULL when streamed to a sink */
	size_t body_len;
	char *request_id;        /* request id header, or NULL */
	char *org_id;            /* X-Databricks-Org-Id header, or NULL */
	int64_t retry_after_ms;  /* -1 when absent */
	int32_t attempts;        /* attempts made */
} air__http_resp;

#define AIR__HTTP_RESP_INIT {0, NULL, 0, NULL, NULL, -1, 0}

void air__http_resp_clear(air__http_resp *resp);

/* One request. @resp may be NULL when the reply is not needed. */
int air__http_do(air_client *c, const air__ctx *ctx, const air__http_req *req,
                 air__http_resp *resp, air_error **err);

/*
 * @n requests concurrently on the calling thread (at most AIR_OPT_MAX_PARALLEL
 * transfers at a time, curl multi), each retried independently. @resps has
 * @n entries (required). Returns AIR_OK when every request succeeded, else
 * the code of the lowest-index failure with its error in *err.
 */
int air__http_do_many(air_client *c, const air__ctx *ctx, const air__http_req *reqs, size_t n,
                      air__http_resp *resps, air_error **err);

/*
 * JSON API call: @body (borrowed, may be NULL) is sent compact with
 * Content-Type application/json; the reply is parsed into *out (an empty
 * body gives an empty object). @out and @resp may be NULL.
 */
int air__api_json(air_client *c, const air__ctx *ctx, const char *method, const char *path,
                  const char *query, const json_t *body, json_t **out, air__http_resp *resp,
                  air_error **err);

/*
 * Map an error reply onto an air_error (PROTOCOL.md §0.2): parse the body
 * (JSON error_code/message, legacy {"error"}, SCIM detail/status, plain
 * "CODE: message", HTML <pre>), classify by error_code first, then status.
 * @method and @path select the Jobs "Run ... does not exist" rule.
 * Exposed for unit tests and for modules that build replies themselves.
 */
air_error *air__http_error_from_reply(const char *method, const char *path, int32_t status,
                                      const char *body, size_t body_len,
                                      const char *request_id, int64_t retry_after_ms);

/*
 * The same for a reply of @c's transport that a module turns into an error
 * itself (e.g. one of several parallel requests): every secret @c knows is
 * removed, exactly as in the errors the transport returns.
 */
air_error *air__http_client_error(const air_client *c, const char *method, const char *path,
                                  int32_t status, const char *body, size_t body_len,
                                  const char *request_id, int64_t retry_after_ms);

/* Parse a Retry-After value (delta-seconds or HTTP-date) relative to @now_ms; -1 if invalid. */
int64_t air__http_parse_retry_after(const char *value, int64_t now_ms);

#endif /* AIR_HTTP_H */
