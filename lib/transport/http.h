/*
 * http.h: the request engine (http.c) and what it needs to run: a transport
 * (connection pool, rate limiter), its settings, a credential provider and
 * the secrets to keep out of errors and traces. It knows nothing of clients,
 * profiles or resolution: the client (client.c) assembles an air__http_env
 * once its configuration is resolved, and the modules above go through
 * transport.h.
 *
 * Requests run on the calling thread with libcurl. DNS and TLS sessions are
 * shared by all threads of a transport (a locked CURLSH) and connections live
 * in a pool of transfer contexts (xfer_pool.c). Each request is retried on
 * the transient classes of the wire protocol (429, 503, RESOURCE_EXHAUSTED,
 * REQUEST_LIMIT_EXCEEDED, the transient message list, connection
 * reset/refused/timeouts) with back-off min(n,10) units + 50..750 ms jitter,
 * at least Retry-After (as libcurl reads it), all within the retry deadline
 * and the call's deadline. Bodies are replayed byte-identically. No request
 * goes to a plain http:// URL unless its host is a loopback address, and no
 * header line with a control character (CR, LF, ...) is ever sent.
 *
 * Replies are bounded: a body longer than the request's max_reply (default
 * AIR__HTTP_REPLY_MAX) is AIR_EPROTO naming the endpoint and the limit; an
 * error reply (status >= 400) is kept up to AIR__HTTP_ERROR_BODY_MAX bytes
 * and the rest is not read. Time is bounded too: every attempt ends by the
 * call's deadline and by the retry deadline (counted from the first attempt);
 * only a bulk transfer (a sink, or a request body of at least
 * AIR__HTTP_BULK_BODY bytes) that keeps moving at AIR__HTTP_BULK_MIN_RATE on
 * average may run past the retry deadline. An attempt whose throughput stays
 * below AIR__HTTP_LOW_SPEED bytes/s for the inactivity timeout is stopped
 * (libcurl's low-speed limit), so a trickling server cannot hold a call.
 *
 * A reply with status >= 400 makes the call fail: the error carries the
 * mapped code and kind, the server's error_code and message, the HTTP
 * status, the request id and Retry-After. The reply is still returned in
 * *resp so callers can inspect it.
 */
#ifndef AIR_TRANSPORT_HTTP_H
#define AIR_TRANSPORT_HTTP_H

#include "core/core.h"

/* Request flags. */
#define AIR__HTTP_NO_AUTH      (1u << 0) /* no Authorization header (pre-signed URLs, discovery) */
#define AIR__HTTP_ABSOLUTE_URL (1u << 1) /* req->path is a complete URL, not a workspace path */
#define AIR__HTTP_NO_RETRY     (1u << 2) /* a single attempt */
#define AIR__HTTP_NO_WORKSPACE (1u << 3) /* no X-Databricks-Workspace-Id (non-workspace URLs) */

/* Largest reply body held in memory unless a request says otherwise: the
 * JSON replies of the workspace API are far smaller. */
#define AIR__HTTP_REPLY_MAX ((size_t)8 << 20)
/* Error replies (status >= 400) are kept up to this size; the rest is dropped. */
#define AIR__HTTP_ERROR_BODY_MAX ((size_t)1 << 20)
/* Throughput (bytes/s) below which, for the inactivity timeout, an attempt is stalled. */
#define AIR__HTTP_LOW_SPEED 256
/* Bulk transfers (sinks, request bodies from this size on) may outlast the
 * retry deadline while they move at least AIR__HTTP_BULK_MIN_RATE bytes/s. */
#define AIR__HTTP_BULK_BODY ((size_t)1 << 20)
#define AIR__HTTP_BULK_MIN_RATE (64 * 1024)

/* Body sink for downloads: called per received chunk; non-zero aborts. */
typedef int (*air__http_sink)(const void *data, size_t len, void *ud);
/* Called before a request whose reply already reached its sink is retried:
 * return 0 when the sink has discarded what it got (the attempt is then
 * replayed like any other), non-zero to give up on the request instead. */
typedef int (*air__http_sink_reset)(void *ud);
/* Request body read on demand (instead of air__http_req.body): copy up to
 * @len bytes from @offset of the body into @buf; returns the count (0 only
 * at the end), or -1 on failure. A replayed request reads from 0 again. */
typedef ssize_t (*air__http_source)(void *ud, int64_t offset, void *buf, size_t len);

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
	/* Per-request limits of each attempt; 0 means the settings' value.
	 * Inactivity is enforced in whole seconds (rounded up); it also bounds
	 * the wait for the response headers. */
	int64_t connect_timeout_ms;
	int64_t inactivity_timeout_ms;
	/* Largest reply body accepted, in memory or through the sink; 0:
	 * AIR__HTTP_REPLY_MAX. */
	size_t max_reply;
	air__http_sink_reset sink_reset; /* NULL: a reply that reached the sink is never replayed */
	air__http_source source;     /* body_len bytes read from here instead of @body */
	void *source_ud;
} air__http_req;

typedef struct air__http_resp {
	int32_t status;          /* HTTP status of the last attempt; 0 when no reply */
	char *body;              /* NUL-terminated; NULL when streamed to a sink */
	size_t body_len;
	char *request_id;        /* request id header, or NULL */
	char *org_id;            /* X-Databricks-Org-Id header, or NULL */
	int64_t retry_after_ms;  /* -1 when absent */
	int32_t attempts;        /* attempts made */
	char *challenge;         /* WWW-Authenticate header (a registry's), or NULL */
} air__http_resp;

#define AIR__HTTP_RESP_INIT {0, NULL, 0, NULL, NULL, -1, 0, NULL}

void air__http_resp_clear(air__http_resp *resp);

/* ---- what the engine runs with ------------------------------------------------ */

typedef struct air__transport air__transport; /* xfer_pool.c */

/* Settings fixed when the client's configuration is resolved. */
typedef struct air__http_settings {
	const char *host;           /* "scheme://host[:port]" for workspace paths, or NULL */
	const char *workspace_id;   /* X-Databricks-Workspace-Id, or NULL */
	const char *user_agent;
	const char *ca_file;        /* or NULL */
	bool skip_verify;
	int64_t connect_timeout_ms;
	int64_t request_timeout_ms; /* 0: none */
	int64_t inactivity_ms;
	int64_t retry_deadline_ms;
	int64_t backoff_ms;         /* unit of the back-off */
	int64_t rate_limit;         /* requests per second; 0: off */
	int64_t max_parallel;       /* concurrent transfers of one call */
} air__http_settings;

/* Supplies the "Authorization: ..." line of a request (*out freed with
 * air__free_secret()); may itself run requests (OAuth token endpoints). */
typedef int (*air__http_auth_fn)(void *ud, const air__ctx *ctx, char **out, air_error **err);

typedef struct air__http_env {
	air__transport *tp;
	air__http_settings set;
	air__http_auth_fn auth;     /* NULL: requests carry no credentials */
	void *auth_ud;
	air__secrets *secrets;      /* removed from every error and trace */
	air_interrupt *client_intr; /* stops every request, also without a ctx */
	air_debug_cb debug;         /* NULL: no trace */
	void *debug_ud;
} air__http_env;

/* Run @n requests concurrently on the calling thread (at most max_parallel
 * transfers at a time, curl multi), each retried independently. @resps has
 * @n entries. Returns AIR_OK when every request succeeded, else the code of
 * the lowest-index failure with its error in *err. */
int air__http_run(const air__http_env *env, const air__ctx *ctx, const air__http_req *reqs,
                  size_t n, air__http_resp *resps, air_error **err);

/*
 * Requests fed while earlier ones run, on the calling thread (a pipeline of
 * many small submissions over one multi handle): whenever fewer than
 * @max_parallel (0: the settings' max_parallel) requests are in flight,
 * @next is asked for another one and returns false when none is ready now;
 * @done receives each request's outcome as soon as it ends (its error handed
 * over, NULL on success) and may make more requests ready; a non-zero return
 * stops the call with AIR_EABORTED. Each request is retried like those of
 * air__http_run(); @req and @resp must live until @done has seen them.
 */
typedef struct air__http_feed {
	bool (*next)(void *ud, const air__http_req **req, air__http_resp **resp, void **tag);
	int (*done)(void *ud, void *tag, int rc, air_error *err);
	void *ud;
	int64_t max_parallel;
} air__http_feed;

/* Run @feed until nothing runs and @next has nothing: AIR_OK, or
 * AIR_EINTERRUPTED / AIR_ETIMEOUT (@ctx) / AIR_EABORTED (@done) for the
 * whole call, the requests still in flight then reported to @done with that
 * code first. */
int air__http_run_feed(const air__http_env *env, const air__ctx *ctx, const air__http_feed *feed,
                       air_error **err);

/* One request run in steps on the calling thread (air__http_begin() of
 * transport.h): started (the request is sent), pumped without waiting, then
 * finished (waits like air__http_run() and frees @a) or cancelled. */
typedef struct air__http_async air__http_async;
int air__http_start(const air__http_env *env, const air__ctx *ctx, const air__http_req *req,
                    air__http_resp *resp, air__http_async **out);
void air__http_async_pump(air__http_async *a);
int air__http_finish(air__http_async *a, air_error **err);
void air__http_cancel(air__http_async *a);

/* A debug message through env->debug, scrubbed of every secret. */
void air__http_debug(const air__http_env *env, int32_t type, const char *fmt, ...)
	AIR__PRINTF(3, 4);

/* ---- transports (xfer_pool.c) ---------------------------------------------------- */
int air__transport_new(air__transport **out);
void air__transport_free(air__transport *t);
/* Requests and new connections made through @t so far. */
void air__transport_stats(const air__transport *t, int64_t *requests, int64_t *connects);

/* ---- replies (http_error.c) ------------------------------------------------------ */
/*
 * Map an error reply onto an air_error: parse the body (JSON
 * error_code/message, legacy {"error"}, SCIM detail/status, plain
 * "CODE: message", HTML <pre>), classify by error_code first, then status;
 * @method and @path select the Jobs "Run ... does not exist" rule. Every
 * value of @secrets (may be NULL) is removed from the server's message and
 * code before they are cut to their length limits. *@retry (may be NULL)
 * tells whether the reply is one of the transient classes.
 */
air_error *air__http_reply_error(air__secrets *secrets, const char *method, const char *path,
                                 int32_t status, const char *body, size_t body_len,
                                 const char *request_id, int64_t retry_after_ms, bool *retry);
/* The same for a reply of a backend whose requests are not HTTP (the local
 * workspace): classified alike, but the message is the reply's own
 * ("Run 7 does not exist. (INVALID_PARAMETER_VALUE)"), without the request
 * line and HTTP status that mean nothing there. */
air_error *air__http_reply_error_bare(air__secrets *secrets, const char *method,
                                      const char *path, int32_t status, const char *body,
                                      size_t body_len);
/* True when @msg contains one of the transient messages of the protocol. */
bool air__http_transient_message(const char *msg);
/* Standard reason phrase of @status ("Not Found"), or NULL. */
const char *air__http_reason(int32_t status);

/* ---- URLs (url.c, over libcurl's URL API) ----------------------------------------- */
/* True for URLs whose host is a loopback address (127.0.0.0/8, ::1, localhost). */
bool air__url_is_loopback(const char *url);
/* AIR_EINVAL unless @url is https://, or http:// to a loopback host. */
int air__check_url_safe(const char *url, const char *what, air_error **err);

#endif /* AIR_TRANSPORT_HTTP_H */
