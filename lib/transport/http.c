/*
 * http.c: the request engine behind lib/http.h.
 *
 * Every call, single or parallel, runs on the calling thread with a curl
 * multi handle borrowed from the client's pool (xfer_pool.c). Each request
 * is a small state machine: WAITING (for its start time: back-off,
 * Retry-After or the rate limit) -> RUNNING (in the multi handle) -> DONE, or
 * back to WAITING when the attempt failed in a retryable way and the retry
 * deadline allows another one.
 */
#include <string.h>

#include "transport/http_priv.h"

#define POLL_SLICE_MS 1000      /* interrupts wake the poll at once; this bounds a quiet wait */
#define MAX_RETRY_AFTER_MS (24LL * 3600 * 1000)

typedef enum xstate { X_WAITING, X_RUNNING, X_DONE } xstate;

typedef struct engine engine;

typedef struct xfer {
	engine *g;
	const air__http_req *req;
	air__http_resp *resp;
	CURL *easy;
	struct curl_slist *headers;
	char *url;             /* full URL */
	char *where;           /* URL or path without the query, for errors */
	xstate state;
	int32_t attempts;
	int64_t first_ms;      /* monotonic start of the first attempt */
	int64_t next_ms;       /* earliest start of the next attempt */
	bool slot_taken;       /* the next attempt's rate-limit slot is reserved */
	int rc;
	air_error *err;
	/* the current attempt */
	air__buf body;
	air__buf head;         /* response header block, for the trace */
	char *request_id;
	char *org_id;
	char *content_type;
	char *challenge;       /* WWW-Authenticate */
	bool has_retry_after;  /* the reply carried Retry-After (libcurl reads its value) */
	int64_t retry_after_ms;
	int64_t up_now;
	int64_t attempt_ms;    /* monotonic start of the current attempt */
	uint64_t received;     /* body bytes of the current attempt */
	int64_t src_off;       /* read position in a source body */
	bool sink_started;     /* bytes reached the sink: the request cannot be replayed */
	bool error_cut;        /* an error reply was cut at AIR__HTTP_ERROR_BODY_MAX */
	bool too_big;          /* the reply went past max_reply */
	bool retry_expired;    /* the retry deadline passed during the attempt */
	bool retry_timer;      /* the attempt's total timeout is what the retry deadline left */
	air_error *last_err;   /* the previous attempt's error, once a retry is scheduled */
	int abort_rc;          /* set by a callback that stopped the transfer */
	char errbuf[CURL_ERROR_SIZE];
} xfer;

struct engine {
	const air__http_env *env;
	air__ctx ctx;           /* the call's, with the client-wide interrupt */
	air__xfer_ctx *xc;
	xfer *x;
	size_t n;
	int aborted;           /* AIR_EINTERRUPTED / AIR_EABORTED for the whole call */
	size_t running;        /* transfers in the multi handle */
	int64_t max_par;       /* transfers at a time */
	const air__http_feed *feed; /* feed mode: x[] are slots, tags[] their requests' tags */
	void **tags;
	int64_t up_total;
	int64_t up_reported;
};

static void set_str(char **slot, const char *s, size_t n)
{
	air__free(*slot);
	*slot = air__strndup(s, n);
}

static bool header_is(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);
	return n > k && line[k] == ':' && strncasecmp(line, name, k) == 0;
}

/* Request id headers, most specific last: a later one only fills a gap. */
static const char *const request_id_headers[] = {"x-request-id", "x-databricks-request-id",
                                                 "x-databricks-org-request-id"};

static size_t on_header(char *data, size_t size, size_t nmemb, void *ud)
{
	xfer *x = ud;
	size_t len = size * nmemb, n = len;
	const char *v;
	size_t vlen;

	if (len >= 5 && memcmp(data, "HTTP/", 5) == 0) {
		/* A new response (after 100 Continue or a retry): start over. */
		air__buf_clear(&x->head);
		air__free(x->request_id);
		air__free(x->org_id);
		air__free(x->content_type);
		air__free(x->challenge);
		x->request_id = x->org_id = x->content_type = x->challenge = NULL;
		x->has_retry_after = false;
	}
	if (x->g->env->debug)
		air__buf_put(&x->head, data, len);
	while (n > 0 && (data[n - 1] == '\n' || data[n - 1] == '\r'))
		n--;
	v = memchr(data, ':', n);
	if (!v)
		return len;
	v++;
	vlen = n - (size_t)(v - data);
	while (vlen > 0 && (*v == ' ' || *v == '\t')) {
		v++;
		vlen--;
	}
	for (size_t i = 0; i < AIR__ARRAY_SIZE(request_id_headers); i++)
		if (header_is(data, n, request_id_headers[i]) && (i == 0 || !x->request_id))
			set_str(&x->request_id, v, vlen);
	if (header_is(data, n, "x-databricks-org-id")) {
		set_str(&x->org_id, v, vlen);
	} else if (header_is(data, n, "content-type")) {
		set_str(&x->content_type, v, vlen);
	} else if (header_is(data, n, "retry-after")) {
		x->has_retry_after = true;
	} else if (header_is(data, n, "www-authenticate") && !x->challenge) {
		set_str(&x->challenge, v, vlen);
	}
	return len;
}

static size_t max_reply(const air__http_req *r)
{
	return r->max_reply ? r->max_reply : AIR__HTTP_REPLY_MAX;
}

/* A reply larger than the request accepts: stop reading it. */
static size_t reply_too_big(xfer *x)
{
	x->too_big = true;
	x->abort_rc = AIR_EPROTO;
	return 0;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud)
{
	xfer *x = ud;
	size_t len = size * nmemb;
	long status = 0;
	curl_off_t declared = -1;

	air__curl.curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 400) {
		/* An error page: its beginning says what went wrong; the rest is not read. */
		size_t room = AIR__HTTP_ERROR_BODY_MAX - x->body.len;
		air__buf_put(&x->body, data, len < room ? len : room);
		if (air__buf_oom(&x->body)) {
			x->abort_rc = AIR_ENOMEM;
			return 0;
		}
		if (len < room)
			return len;
		x->error_cut = true;
		return 0;
	}
	if (x->received == 0 &&
	    air__curl.curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &declared) == CURLE_OK &&
	    declared > 0 && (uint64_t)declared > max_reply(x->req))
		return reply_too_big(x); /* known before a byte is kept */
	if (x->received + len > max_reply(x->req))
		return reply_too_big(x);
	x->received += len;
	if (x->req->sink && status >= 200 && status < 300) {
		x->sink_started = true;
		if (x->req->sink(data, len, x->req->sink_ud) != 0) {
			x->abort_rc = AIR_EABORTED;
			return 0;
		}
		return len;
	}
	air__buf_put(&x->body, data, len);
	if (air__buf_oom(&x->body)) {
		x->abort_rc = AIR_ENOMEM;
		return 0;
	}
	return len;
}

static bool is_bulk(const air__http_req *r)
{
	return r->sink || r->body_len >= AIR__HTTP_BULK_BODY;
}

/* Whether the retry deadline, counted from the first attempt, has passed
 * for @x; a bulk transfer still moving at AIR__HTTP_BULK_MIN_RATE on
 * average over its attempt is let through. */
static bool retry_deadline_passed(const xfer *x, int64_t moved)
{
	int64_t deadline = x->g->env->set.retry_deadline_ms, now = air__mono_ms();
	int64_t took = now - x->attempt_ms;

	if (deadline <= 0 || now - x->first_ms <= deadline)
		return false;
	return !(is_bulk(x->req) && took > 0 && moved * 1000 / took >= AIR__HTTP_BULK_MIN_RATE);
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
	xfer *x = ud;

	(void)dltotal;
	(void)ultotal;
	x->up_now = (int64_t)ulnow;
	if (air__ctx_interrupted(&x->g->ctx))
		x->abort_rc = AIR_EINTERRUPTED;
	else if (x->g->ctx.deadline && air__ctx_remaining(&x->g->ctx) == 0)
		x->abort_rc = AIR_ETIMEOUT;
	else if (x->g->aborted)
		x->abort_rc = x->g->aborted;
	else if (retry_deadline_passed(x, (int64_t)dlnow + (int64_t)ulnow))
		x->retry_expired = true;
	return x->abort_rc != 0 || x->retry_expired;
}

/* Request bodies read on demand (air__http_req.source). */
static size_t on_read(char *buf, size_t size, size_t nitems, void *ud)
{
	xfer *x = ud;
	int64_t left = (int64_t)x->req->body_len - x->src_off;
	size_t want = size * nitems;
	ssize_t n;

	if (left <= 0)
		return 0;
	if ((int64_t)want > left)
		want = (size_t)left;
	n = x->req->source(x->req->source_ud, x->src_off, buf, want);
	if (n <= 0) {
		/* The body ends before its announced length, or cannot be read. */
		x->abort_rc = AIR_EIO;
		return CURL_READFUNC_ABORT;
	}
	x->src_off += n;
	return (size_t)n;
}

static int on_seek(void *ud, curl_off_t offset, int origin)
{
	xfer *x = ud;

	if (origin != SEEK_SET || offset < 0 || offset > (curl_off_t)x->req->body_len)
		return CURL_SEEKFUNC_CANTSEEK;
	x->src_off = (int64_t)offset;
	return CURL_SEEKFUNC_OK;
}

static int64_t backoff_ms(const air__http_settings *set, int32_t attempt)
{
	int64_t unit = set->backoff_ms;
	/* 50..750 ms of jitter, scaled down with small test units. */
	int64_t lo = unit < 1000 ? 50 * unit / 1000 : 50, hi = unit < 1000 ? 750 * unit / 1000 : 750;

	return (attempt < 10 ? attempt : 10) * unit + air__random_range(lo, hi);
}

static int prepare(xfer *x, air_error **err)
{
	const air__http_req *r = x->req;
	const air__http_settings *set = &x->g->env->set;
	bool absolute = (r->flags & AIR__HTTP_ABSOLUTE_URL) != 0;
	size_t plen;

	if (!r->method || !r->path || (!absolute && r->path[0] != '/') ||
	    (r->body_len && !r->body && !r->source))
		return air__failf(err, AIR_EINVAL, 0, "invalid request %s %.*s",
		                  r->method ? r->method : "(null)",
		                  r->path ? (int)strcspn(r->path, "?") : 6, r->path ? r->path : "(null)");
	if (absolute && !air__starts_with(r->path, "https://") && !air__starts_with(r->path, "http://"))
		return air__failf(err, AIR_EINVAL, 0, "invalid request URL for %s", r->method);
	if (!absolute && !set->host)
		return air__failf(err, AIR_EINTERNAL, 0, "request before the host is known");
	if (r->connect_timeout_ms < 0 || r->connect_timeout_ms > INT32_MAX ||
	    r->inactivity_timeout_ms < 0 || r->inactivity_timeout_ms > INT32_MAX)
		return air__failf(err, AIR_EINVAL, 0, "invalid timeouts for %s", r->method);
	x->url = air__sprintf("%s%s%s%s", absolute ? "" : set->host, r->path,
	                      r->query && *r->query ? "?" : "", r->query ? r->query : "");
	plen = strcspn(r->path, "?"); /* queries may carry pre-signed credentials */
	x->where = air__strndup(r->path, plen);
	if (!x->url || !x->where)
		return air__oom(err);
	/* Never plain http:// beyond loopback, whatever the URL's origin (the
	 * workspace host was checked at resolution; this covers every other). */
	return air__check_url_safe(x->url, "the request URL", err);
}

/* Header lists hold the Authorization line: overwrite before releasing. */
static void free_headers(xfer *x)
{
	for (struct curl_slist *h = x->headers; h; h = h->next)
		explicit_bzero(h->data, strlen(h->data));
	air__curl.curl_slist_free_all(x->headers);
	x->headers = NULL;
}

/* A header line with a control character (CR and LF above all, which
 * would add headers of their own) is never sent. */
static bool header_is_clean(const char *line)
{
	for (const unsigned char *p = (const unsigned char *)line; *p; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7F)
			return false;
	return true;
}

static bool add_header(xfer *x, const char *line)
{
	struct curl_slist *l = air__curl.curl_slist_append(x->headers, line);

	if (l)
		x->headers = l;
	return l != NULL;
}

static void trace_request(xfer *x)
{
	const air__http_req *r = x->req;
	air__buf b = AIR__BUF_INIT;
	char *shown, *body;

	/* Pre-signed URLs carry their credentials in the query. */
	if (r->flags & AIR__HTTP_ABSOLUTE_URL && strchr(x->url, '?'))
		air__buf_printf(&b, "%s %s?[REDACTED] (attempt %d)\n", r->method, x->where,
		                (int)x->attempts + 1);
	else
		air__buf_printf(&b, "%s %s (attempt %d)\n", r->method, x->url, (int)x->attempts + 1);
	air__buf_printf(&b, "User-Agent: %s\n",
	                x->g->env->set.user_agent ? x->g->env->set.user_agent : "libair");
	for (struct curl_slist *h = x->headers; h; h = h->next)
		air__buf_printf(&b, "%s\n", h->data);
	shown = air__trace_headers(air__buf_cstr(&b));
	air__trace_emit(x->g->env, AIR_DEBUG_REQUEST, shown);
	air__free(shown);
	air__buf_dispose(&b);
	if (x->attempts == 0 &&
	    (body = air__trace_body(x->g->env->secrets, r->content_type, r->body, r->body_len))) {
		air__trace_emit(x->g->env, AIR_DEBUG_BODY_OUT, body);
		air__free(body);
	}
}

static void trace_response(xfer *x)
{
	char *shown, *body;

	if (!x->g->env->debug || x->head.len == 0)
		return;
	shown = air__trace_headers(air__buf_cstr(&x->head));
	air__trace_emit(x->g->env, AIR_DEBUG_RESPONSE, shown);
	air__free(shown);
	if ((body = air__trace_body(x->g->env->secrets, x->content_type, x->body.ptr, x->body.len))) {
		air__trace_emit(x->g->env, AIR_DEBUG_BODY_IN, body);
		air__free(body);
	}
}

static void set_method(CURL *e, const air__http_req *r)
{
	bool has_body = r->body_len > 0 || strcmp(r->method, "POST") == 0 ||
	                strcmp(r->method, "PUT") == 0 || strcmp(r->method, "PATCH") == 0;

	if (strcmp(r->method, "GET") == 0 && !r->body_len) {
		air__curl.curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
	} else if (strcmp(r->method, "HEAD") == 0) {
		air__curl.curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
	} else {
		if (r->source) {
			/* Read on demand (on_read), from the start on every attempt. */
			air__curl.curl_easy_setopt(e, CURLOPT_POST, 1L);
			air__curl.curl_easy_setopt(e, CURLOPT_POSTFIELDS, (const char *)NULL);
			air__curl.curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
		} else if (has_body) {
			/* The caller's bytes, sent as they are on every attempt. */
			air__curl.curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body_len ? (const char *)r->body : "");
			air__curl.curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
		}
		if (strcmp(r->method, "POST") != 0)
			air__curl.curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
	}
}

static void set_options(xfer *x, CURL *e)
{
	const air__http_settings *set = &x->g->env->set;
	const air__http_req *r = x->req;
	int64_t connect_ms = r->connect_timeout_ms > 0 ? r->connect_timeout_ms : set->connect_timeout_ms;
	int64_t total_ms = set->request_timeout_ms, left = air__ctx_remaining(&x->g->ctx);
	int64_t idle_ms = r->inactivity_timeout_ms > 0 ? r->inactivity_timeout_ms : set->inactivity_ms;
	int64_t idle_s = (idle_ms + 999) / 1000;
	int64_t retry_left = set->retry_deadline_ms - (air__mono_ms() - x->first_ms);
	const char *ca = set->ca_file;

	/* No attempt outlives the call's deadline, nor (unless it is a bulk
	 * transfer that keeps moving) the retry deadline; progress checks both. */
	x->retry_timer = set->retry_deadline_ms > 0 && !is_bulk(r) && retry_left < left;
	if (x->retry_timer)
		left = retry_left;
	if (left < INT64_MAX && (total_ms == 0 || left < total_ms))
		total_ms = left > 0 ? left : 1;
	if (total_ms > INT32_MAX)
		total_ms = INT32_MAX;

	air__curl.curl_easy_setopt(e, CURLOPT_URL, x->url);
	air__curl.curl_easy_setopt(e, CURLOPT_PRIVATE, (void *)x);
	air__curl.curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500
	air__curl.curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	air__curl.curl_easy_setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	air__curl.curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	air__curl.curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	air__curl.curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
	air__curl.curl_easy_setopt(e, CURLOPT_USERAGENT, set->user_agent ? set->user_agent : "libair");
	air__curl.curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	air__curl.curl_easy_setopt(e, CURLOPT_HEADERDATA, (void *)x);
	air__curl.curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	air__curl.curl_easy_setopt(e, CURLOPT_WRITEDATA, (void *)x);
	air__curl.curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
	air__curl.curl_easy_setopt(e, CURLOPT_XFERINFODATA, (void *)x);
	if (r->source) {
		air__curl.curl_easy_setopt(e, CURLOPT_READFUNCTION, on_read);
		air__curl.curl_easy_setopt(e, CURLOPT_READDATA, (void *)x);
		air__curl.curl_easy_setopt(e, CURLOPT_SEEKFUNCTION, on_seek);
		air__curl.curl_easy_setopt(e, CURLOPT_SEEKDATA, (void *)x);
	}
	air__curl.curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	air__curl.curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)connect_ms);
	air__curl.curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)total_ms);
	/* Handles are reused: every attempt sets the limit, 0 turning it off.
	 * A trickle below the limit counts as inactivity. */
	air__curl.curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, idle_s > 0 ? (long)AIR__HTTP_LOW_SPEED : 0L);
	air__curl.curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)idle_s);
	if (!(r->flags & AIR__HTTP_ABSOLUTE_URL))
		air__curl.curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
	if (ca)
		air__curl.curl_easy_setopt(e, CURLOPT_CAINFO, ca);
	if (set->skip_verify) {
		air__curl.curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		air__curl.curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	set_method(e, r);
}

static void finish(xfer *x, int rc, air_error *e)
{
	air__http_resp *resp = x->resp;

	x->state = X_DONE;
	x->rc = rc;
	x->err = e;
	air_error_free(x->last_err);
	x->last_err = NULL;
	resp->attempts = x->attempts;
	resp->retry_after_ms = x->retry_after_ms;
	air__free(resp->body);
	air__free(resp->request_id);
	air__free(resp->org_id);
	air__free(resp->challenge);
	resp->body = NULL;
	resp->body_len = 0;
	if (!(x->req->sink && x->sink_started)) {
		resp->body_len = x->body.len;
		resp->body = air__buf_detach(&x->body);
	}
	resp->request_id = x->request_id;
	resp->org_id = x->org_id;
	resp->challenge = x->challenge;
	x->request_id = x->org_id = x->challenge = NULL;
}

/* Start the next attempt of @x. Failures before sending end the request. */
static void start_attempt(engine *g, xfer *x)
{
	const air__http_req *r = x->req;
	const air__http_env *env = g->env;
	air_error *e = NULL;
	char *auth = NULL, *line;
	const char *ws = env->set.workspace_id;
	bool ok = true;
	int rc;

	if (x->attempts == 0)
		x->first_ms = air__mono_ms();
	air__buf_clear(&x->body);
	air__buf_clear(&x->head);
	x->errbuf[0] = '\0';
	x->up_now = 0;
	x->attempt_ms = air__mono_ms();
	x->received = 0;
	x->src_off = 0;
	x->error_cut = x->too_big = x->retry_expired = false;
	x->abort_rc = 0;
	x->retry_after_ms = -1;
	x->has_retry_after = false;
	free_headers(x);

	if (!(r->flags & AIR__HTTP_NO_AUTH) && env->auth) {
		if ((rc = env->auth(env->auth_ud, &g->ctx, &auth, &e)) != AIR_OK) {
			finish(x, rc, air__error_prefix(e, "%s %s", r->method, x->where));
			return;
		}
		ok = add_header(x, auth);
		air__free_secret(auth);
	}
	if (ok && ws && !(r->flags & (AIR__HTTP_NO_WORKSPACE | AIR__HTTP_ABSOLUTE_URL))) {
		line = air__sprintf("X-Databricks-Workspace-Id: %s", ws);
		ok = line && add_header(x, line);
		air__free(line);
	}
	if (ok && r->content_type) {
		line = air__sprintf("Content-Type: %s", r->content_type);
		ok = line && add_header(x, line);
		air__free(line);
	} else if (ok && r->body_len) {
		ok = add_header(x, "Content-Type:"); /* no curl default for raw bytes */
	}
	ok = ok && add_header(x, "Expect:"); /* no 100-continue round trip */
	for (const char *const *h = r->headers; ok && h && *h; h++)
		ok = add_header(x, *h);
	if (ok && env->set.user_agent && !header_is_clean(env->set.user_agent)) {
		finish(x, AIR_EINVAL, air__error_new(AIR_EINVAL, 0,
		       "%s %s: refusing to send the User-Agent header: it contains a control character",
		       r->method, x->where));
		return;
	}
	for (struct curl_slist *h = x->headers; ok && h; h = h->next) {
		if (header_is_clean(h->data))
			continue;
		/* Only the header's name is shown: its value may be a credential. */
		finish(x, AIR_EINVAL, air__error_new(AIR_EINVAL, 0,
		       "%s %s: refusing to send the %.*s header: it contains a control character",
		       r->method, x->where, (int)strcspn(h->data, ":\r\n"), h->data));
		return;
	}
	if (ok && !x->easy)
		ok = (x->easy = air__xfer_ctx_easy(env->tp, g->xc)) != NULL;
	if (!ok) {
		finish(x, AIR_ENOMEM, air__error_new(AIR_ENOMEM, 0, "out of memory"));
		return;
	}
	set_options(x, x->easy);
	if (env->debug)
		trace_request(x);
	if (air__curl.curl_multi_add_handle(g->xc->multi, x->easy) != CURLM_OK) {
		finish(x, AIR_EINTERNAL, air__error_new(AIR_EINTERNAL, 0, "cannot start %s %s",
		                                        r->method, x->where));
		return;
	}
	x->attempts++;
	x->state = X_RUNNING;
}

static bool curl_retryable(CURLcode res)
{
	switch (res) {
	case CURLE_COULDNT_CONNECT:    /* connection refused */
	case CURLE_OPERATION_TIMEDOUT: /* connect, inactivity or total timeout */
	case CURLE_GOT_NOTHING:        /* empty reply */
	case CURLE_SEND_ERROR:         /* connection reset */
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:       /* closed in the middle of the body */
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

static air_error *network_error(xfer *x, CURLcode res)
{
	int code = res == CURLE_OPERATION_TIMEDOUT ? AIR_ETIMEOUT : AIR_ENET;

	return air__error_new(code, 0, "%s %s: %s", x->req->method, x->where,
	                      x->errbuf[0] ? x->errbuf : air__curl.curl_easy_strerror(res));
}

static air_error *abort_error(xfer *x, int rc)
{
	if (rc == AIR_EPROTO && x->too_big)
		return air__error_new(rc, 0, "%s %s: the reply is larger than %zu %s, the most this "
		                      "endpoint accepts", x->req->method, x->where,
		                      max_reply(x->req) >= ((size_t)1 << 20) ? max_reply(x->req) >> 20
		                                                             : max_reply(x->req),
		                      max_reply(x->req) >= ((size_t)1 << 20) ? "MiB" : "bytes");
	if (rc == AIR_EIO)
		return air__error_new(rc, 0, "%s %s: cannot read the request body", x->req->method,
		                      x->where);
	if (rc == AIR_EINTERRUPTED)
		return air__error_new(rc, 0, "%s %s: interrupted", x->req->method, x->where);
	if (rc == AIR_ETIMEOUT)
		return air__ctx_deadline_error(&x->g->ctx, x->where);
	if (rc == AIR_ENOMEM)
		return air__error_new(rc, 0, "%s %s: out of memory", x->req->method, x->where);
	return air__error_new(rc, 0, "%s %s: stopped by a callback", x->req->method, x->where);
}

/* An attempt of @x completed with @res: done, or scheduled for a retry. */
/* Retry-After of the reply as libcurl read it (delta-seconds or HTTP-date). */
static void read_retry_after(xfer *x)
{
	curl_off_t secs = 0;

	x->retry_after_ms = -1;
	if (!x->has_retry_after)
		return;
	if (air__curl.curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &secs) != CURLE_OK || secs < 0)
		return;
	x->retry_after_ms = secs > MAX_RETRY_AFTER_MS / 1000 ? MAX_RETRY_AFTER_MS : (int64_t)secs * 1000;
}

/* The retry deadline passed while an attempt was still running: the error
 * of the attempt before, when there was one (the retry could not finish in
 * time), else a timeout. */
static void finish_retry_expired(xfer *x, int64_t deadline)
{
	air_error *e = x->last_err;

	x->last_err = NULL;
	if (e) {
		air__error_set_kind(e, AIR_KIND_TRANSIENT);
		air__error_set_message(e, "%s (gave up after %d attempts within the %lld ms retry "
		                       "deadline; the last one got no complete reply in time)",
		                       air_error_message(e), (int)x->attempts, (long long)deadline);
		finish(x, air_error_code(e), e);
		return;
	}
	e = air__error_new(AIR_ETIMEOUT, AIR_KIND_TRANSIENT,
	                   "%s %s: no complete reply within the retry deadline of %lld ms",
	                   x->req->method, x->where, (long long)deadline);
	finish(x, AIR_ETIMEOUT, air__secrets_redact(x->g->env->secrets, e));
}

static void complete_attempt(engine *g, xfer *x, CURLcode res)
{
	const air__http_env *env = g->env;
	long status = 0, connects = 0;
	bool retry = false;
	air_error *e = NULL;
	int64_t now, wait, deadline = env->set.retry_deadline_ms;

	air__curl.curl_multi_remove_handle(g->xc->multi, x->easy);
	air__curl.curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	air__curl.curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &connects);
	air__transport_count(env->tp, 1, connects);
	if (x->error_cut && res == CURLE_WRITE_ERROR)
		res = CURLE_OK; /* the error reply's beginning is all it takes */
	x->resp->status = res == CURLE_OK ? (int32_t)status : 0;
	read_retry_after(x);
	if (env->debug)
		trace_response(x);
	if (!x->abort_rc && res == CURLE_OPERATION_TIMEDOUT && g->ctx.deadline &&
	    air__ctx_remaining(&g->ctx) == 0)
		x->abort_rc = AIR_ETIMEOUT; /* the call's deadline, not a network timeout */
	if (x->abort_rc) {
		finish(x, x->abort_rc, abort_error(x, x->abort_rc));
		return;
	}
	/* The attempt's timer was the retry deadline (libcurl may fire it a
	 * millisecond or two before our clock reaches it). */
	if (!x->retry_expired && res == CURLE_OPERATION_TIMEDOUT && deadline > 0 &&
	    air__mono_ms() - x->first_ms + (x->retry_timer ? 2 : 0) >= deadline)
		x->retry_expired = true;
	if (x->retry_expired) {
		finish_retry_expired(x, deadline);
		return;
	}
	if (res != CURLE_OK) {
		e = network_error(x, res);
		retry = curl_retryable(res) &&
		        (!x->sink_started ||
		         (x->req->sink_reset && x->req->sink_reset(x->req->sink_ud) == 0));
	} else if (status >= 400) {
		e = air__http_reply_error(env->secrets, x->req->method, x->where, (int32_t)status,
		                          x->body.ptr, x->body.len, x->request_id, x->retry_after_ms,
		                          &retry);
	} else {
		finish(x, AIR_OK, NULL);
		return;
	}
	e = air__secrets_redact(env->secrets, e);
	if (!retry || (x->req->flags & AIR__HTTP_NO_RETRY)) {
		finish(x, air_error_code(e), e);
		return;
	}
	now = air__mono_ms();
	wait = backoff_ms(&env->set, x->attempts);
	if (x->retry_after_ms > wait)
		wait = x->retry_after_ms;
	if (now - x->first_ms + wait > deadline) {
		/* Never sleep past the deadline: report what is still a transient failure. */
		air__error_set_kind(e, AIR_KIND_TRANSIENT);
		air__error_set_message(e, "%s (gave up after %d attempts within the %lld ms retry deadline)",
		                       air_error_message(e), (int)x->attempts, (long long)deadline);
		finish(x, air_error_code(e), e);
		return;
	}
	if (wait >= air__ctx_remaining(&g->ctx)) {
		/* The call's deadline comes before the next attempt could. */
		air__error_set_code(e, AIR_ETIMEOUT);
		air__error_set_kind(e, AIR_KIND_TRANSIENT);
		air__error_set_message(e, "%s (the call's deadline of %lld ms leaves no time to retry)",
		                       air_error_message(e), (long long)g->ctx.deadline_ms);
		finish(x, AIR_ETIMEOUT, e);
		return;
	}
	air__http_debug(env, AIR_DEBUG_INFO, "%s; retrying in %lld ms", air_error_message(e),
	                (long long)wait);
	air_error_free(x->last_err);
	x->last_err = e; /* what to report if the retry runs into the deadline */
	x->state = X_WAITING;
	x->next_ms = now + wait;
}

static void report_progress(engine *g)
{
	int64_t done = 0;

	if (!g->ctx.on_progress || g->up_total == 0)
		return;
	for (size_t i = 0; i < g->n; i++) {
		xfer *x = &g->x[i];
		if (x->state == X_DONE)
			done += x->rc == AIR_OK ? (int64_t)x->req->body_len : 0;
		else if (x->state == X_RUNNING)
			done += x->up_now;
	}
	if (done <= g->up_reported)
		return; /* a retried upload starts over: never report going backwards */
	g->up_reported = done;
	if (g->ctx.on_progress(g->ctx.progress_ud, done, g->up_total) != 0)
		g->aborted = AIR_EABORTED;
}

/* Start what may start; returns the delay until the next waiting request
 * becomes due (INT64_MAX when none waits). */
static int64_t start_due(engine *g, size_t *running)
{
	int64_t rps = g->env->set.rate_limit, max_par = g->max_par;
	int64_t next = INT64_MAX, now = air__mono_ms();

	for (size_t i = 0; i < g->n; i++) {
		xfer *x = &g->x[i];

		if (x->state != X_WAITING)
			continue;
		if (x->next_ms <= now && (int64_t)*running < max_par && !x->slot_taken) {
			int64_t wait = air__transport_reserve(g->env->tp, rps, now);
			x->slot_taken = true;
			if (wait > 0)
				x->next_ms = now + wait;
		}
		if (x->next_ms <= now && (int64_t)*running < max_par) {
			x->slot_taken = false;
			start_attempt(g, x);
			if (x->state == X_RUNNING)
				(*running)++;
			now = air__mono_ms();
		} else if (x->next_ms > now && x->next_ms - now < next) {
			next = x->next_ms - now; /* due ones blocked by max_parallel wait for a slot */
		}
	}
	return next;
}

static void abort_all(engine *g)
{
	for (size_t i = 0; i < g->n; i++) {
		xfer *x = &g->x[i];
		if (x->state == X_RUNNING)
			air__curl.curl_multi_remove_handle(g->xc->multi, x->easy);
		if (x->state != X_DONE)
			finish(x, g->aborted, abort_error(x, g->aborted));
	}
}

/* One turn of the engine: stop everything on an interrupt or the deadline,
 * start what is due and move the running transfers without waiting. False
 * once nothing is pending; *next is the delay until a waiting request is due. */
static bool turn(engine *g, int64_t *next)
{
	bool pending = false;
	int still = 0;
	CURLMsg *msg;

	if (air__ctx_interrupted(&g->ctx))
		g->aborted = AIR_EINTERRUPTED;
	else if (g->ctx.deadline && air__ctx_remaining(&g->ctx) == 0)
		g->aborted = AIR_ETIMEOUT;
	if (g->aborted) {
		abort_all(g);
		return false;
	}
	*next = start_due(g, &g->running);
	for (size_t i = 0; i < g->n; i++)
		pending = pending || g->x[i].state != X_DONE;
	if (!pending || g->running == 0)
		return pending;
	air__curl.curl_multi_perform(g->xc->multi, &still);
	while ((msg = air__curl.curl_multi_info_read(g->xc->multi, &still)) != NULL) {
		char *priv = NULL;
		if (msg->msg != CURLMSG_DONE)
			continue;
		air__curl.curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
		complete_attempt(g, (xfer *)(void *)priv, msg->data.result);
		g->running--;
	}
	report_progress(g);
	return true;
}

/* Wait until a transfer moves, a waiting request is due (@next ms), an
 * interrupt is raised or the deadline comes, whichever is first. */
static void wait_turn(engine *g, int64_t next)
{
	air_interrupt *intrs[2] = {g->ctx.intr, g->ctx.client_intr};
	struct curl_waitfd wfd[2];
	int fds[2];
	size_t nfd = air__ctx_fds(&g->ctx, fds);
	int64_t left = air__ctx_remaining(&g->ctx), slice = POLL_SLICE_MS;

	if (next < slice)
		slice = next;
	if (left < slice)
		slice = left;
	if (g->running == 0) {
		/* Everything waits (back-off, Retry-After, rate limit). */
		air__wait_interrupts(intrs, 2, slice);
		return;
	}
	/* The interrupts' pipes wake air__curl.curl_multi_poll() the moment one is raised. */
	for (size_t i = 0; i < nfd; i++)
		wfd[i] = (struct curl_waitfd){fds[i], CURL_WAIT_POLLIN, 0};
	if (slice > 0)
		air__curl.curl_multi_poll(g->xc->multi, nfd ? wfd : NULL, (unsigned)nfd, (int)slice, NULL);
}

static void drive(engine *g)
{
	int64_t next;

	while (turn(g, &next)) {
		bool done = true;

		for (size_t i = 0; i < g->n; i++)
			done = done && g->x[i].state == X_DONE;
		if (done)
			return;
		wait_turn(g, next);
	}
}

/* Check and prepare @n requests into @g (zeroed), and borrow a transfer context. */
static int engine_open(engine *g, const air__http_env *env, const air__ctx *ctx,
                       const air__http_req *reqs, size_t n, air__http_resp *resps,
                       air_error **err)
{
	int rc = AIR_OK;

	g->env = env;
	g->n = n;
	g->max_par = env->set.max_parallel;
	if (ctx)
		g->ctx = *ctx;
	if (!g->ctx.client_intr)
		g->ctx.client_intr = env->client_intr;
	if (!reqs || !resps)
		return air__failf(err, AIR_EINVAL, 0, "no requests or replies");
	if ((rc = air__curl_load(err)) != AIR_OK)
		return rc;
	if (!(g->x = air__calloc(n, sizeof(*g->x))))
		return air__oom(err);
	for (size_t i = 0; i < n && rc == AIR_OK; i++) {
		xfer *x = &g->x[i];
		x->g = g;
		x->req = &reqs[i];
		x->resp = &resps[i];
		x->retry_after_ms = -1;
		air__http_resp_clear(x->resp);
		g->up_total += (int64_t)reqs[i].body_len;
		rc = prepare(x, err);
	}
	if (rc == AIR_OK)
		rc = air__ctx_check(&g->ctx, NULL, err);
	if (rc == AIR_OK && !(g->xc = air__transport_checkout(g->env->tp)))
		rc = air__oom(err);
	return rc;
}

/* What one request of @g holds, but its error. */
static void xfer_release(engine *g, xfer *x)
{
	if (x->easy)
		air__xfer_ctx_put_easy(g->xc, x->easy);
	free_headers(x);
	air__buf_dispose(&x->body);
	air__buf_dispose(&x->head);
	air__free(x->request_id);
	air__free(x->org_id);
	air__free(x->content_type);
	air__free(x->challenge);
	air__free(x->url);
	air__free(x->where);
}

/* Release what @g holds; @rc is AIR_OK when the requests ran: then the
 * lowest-index failure, if any, is returned. */
static int engine_close(engine *g, int rc, air_error **err)
{
	size_t bad = g->n;

	for (size_t i = 0; g->x && i < g->n; i++) {
		xfer *x = &g->x[i];
		if (rc == AIR_OK && x->rc != AIR_OK && bad == g->n)
			bad = i;
		else
			air_error_free(x->err);
		xfer_release(g, x);
	}
	if (rc == AIR_OK && bad < g->n)
		rc = air__fail(err, g->x[bad].err);
	if (g->xc)
		air__transport_checkin(g->env->tp, g->xc);
	air__free(g->x);
	return rc;
}

int air__http_run(const air__http_env *env, const air__ctx *ctx, const air__http_req *reqs,
                  size_t n, air__http_resp *resps, air_error **err)
{
	engine g = {0};
	int rc;

	if (n == 0)
		return AIR_OK;
	if ((rc = engine_open(&g, env, ctx, reqs, n, resps, err)) == AIR_OK) {
		drive(&g);
		report_progress(&g);
	}
	return engine_close(&g, rc, err);
}

struct air__http_async {
	engine g;
	int rc;                 /* a failure before the request could start */
	air_error *err;
};

int air__http_start(const air__http_env *env, const air__ctx *ctx, const air__http_req *req,
                    air__http_resp *resp, air__http_async **out)
{
	air__http_async *a = air__calloc(1, sizeof(*a));
	int64_t next;

	*out = a;
	if (!a)
		return AIR_ENOMEM;
	if ((a->rc = engine_open(&a->g, env, ctx, req, 1, resp, &a->err)) == AIR_OK)
		turn(&a->g, &next); /* sends the request */
	return AIR_OK;
}

void air__http_async_pump(air__http_async *a)
{
	int64_t next;

	if (a && a->rc == AIR_OK && a->g.x[0].state != X_DONE)
		turn(&a->g, &next);
}

int air__http_finish(air__http_async *a, air_error **err)
{
	int rc;

	if (!a)
		return air__oom(err);
	if (a->rc == AIR_OK) {
		drive(&a->g);
		report_progress(&a->g);
	} else if (a->err) {
		air__fail(err, a->err);
	}
	rc = engine_close(&a->g, a->rc, err);
	air__free(a);
	return rc;
}

void air__http_cancel(air__http_async *a)
{
	if (!a)
		return;
	if (a->rc == AIR_OK) {
		a->g.aborted = AIR_EABORTED;
		abort_all(&a->g);
	}
	air_error_free(a->err);
	a->err = NULL;
	engine_close(&a->g, AIR_EABORTED, NULL);
	air__free(a);
}

/* ---- feed mode (air__http_run_feed): x[] are slots refilled as requests end ---- */

/* Ask the feed for a request for every free slot; true when a slot is in use. */
static bool feed_refill(engine *g)
{
	bool used = false;

	for (size_t i = 0; i < g->n; i++) {
		xfer *x = &g->x[i];
		const air__http_req *req;
		air__http_resp *resp;
		air_error *e = NULL;

		if (!x->req && !g->aborted && g->feed->next(g->feed->ud, &req, &resp, &g->tags[i])) {
			memset(x, 0, sizeof(*x));
			x->g = g;
			x->req = req;
			x->resp = resp;
			x->retry_after_ms = -1;
			air__http_resp_clear(resp);
			if (prepare(x, &e) != AIR_OK)
				finish(x, air_error_code(e), e);
		}
		used = used || x->req;
	}
	return used;
}

/* Hand every ended request to the feed and free its slot; true when one ended. */
static bool feed_deliver(engine *g)
{
	bool any = false;

	for (size_t i = 0; i < g->n; i++) {
		xfer *x = &g->x[i];
		air_error *e = x->err;
		int rc = x->rc;

		if (!x->req || x->state != X_DONE)
			continue;
		any = true;
		x->err = NULL;
		xfer_release(g, x);
		memset(x, 0, sizeof(*x));
		x->g = g;
		x->state = X_DONE;
		if (g->feed->done(g->feed->ud, g->tags[i], rc, e) != 0 && !g->aborted)
			g->aborted = AIR_EABORTED;
		/* A request ended by the call's deadline or interrupt ends the
		 * call, even when it saw that a moment before the engine did; one
		 * whose own time limit ran out (AIR_ETIMEOUT too) is its failure. */
		if (rc == AIR_EINTERRUPTED && !g->aborted)
			g->aborted = rc;
		if (rc == AIR_ETIMEOUT && !g->aborted && g->ctx.deadline &&
		    air__ctx_remaining(&g->ctx) == 0)
			g->aborted = rc;
	}
	return any;
}

static void feed_drive(engine *g)
{
	int64_t next;

	while (feed_refill(g)) {
		turn(g, &next);
		if (!feed_deliver(g) && !g->aborted)
			wait_turn(g, next);
		/* else refill at once */
	}
}

int air__http_run_feed(const air__http_env *env, const air__ctx *ctx, const air__http_feed *feed,
                       air_error **err)
{
	engine g = {0};
	int64_t cap = feed->max_parallel > 0 ? feed->max_parallel : env->set.max_parallel;
	int rc;

	if ((rc = air__curl_load(err)) != AIR_OK)
		return rc;
	g.env = env;
	if (ctx)
		g.ctx = *ctx;
	if (!g.ctx.client_intr)
		g.ctx.client_intr = env->client_intr;
	g.feed = feed;
	g.max_par = cap > 0 ? cap : 1;
	g.n = (size_t)g.max_par;
	g.x = air__calloc(g.n, sizeof(*g.x));
	g.tags = air__calloc(g.n, sizeof(*g.tags));
	if (!g.x || !g.tags) {
		rc = air__oom(err);
		goto out;
	}
	for (size_t i = 0; i < g.n; i++) {
		g.x[i].g = &g;
		g.x[i].state = X_DONE;
	}
	if ((rc = air__ctx_check(&g.ctx, NULL, err)) != AIR_OK)
		goto out;
	if (!(g.xc = air__transport_checkout(env->tp))) {
		rc = air__oom(err);
		goto out;
	}
	feed_drive(&g);
	rc = g.aborted;
	if (rc == AIR_EABORTED)
		air__failf(err, rc, 0, "stopped by a callback");
	else if (rc == AIR_ETIMEOUT)
		air__fail(err, air__ctx_deadline_error(&g.ctx, NULL));
	else if (rc != AIR_OK && air__ctx_check(&g.ctx, NULL, err) == AIR_OK)
		air__failf(err, rc, 0, "interrupted");
out:
	if (g.xc)
		air__transport_checkin(env->tp, g.xc);
	air__free(g.x);
	air__free(g.tags);
	return rc;
}
