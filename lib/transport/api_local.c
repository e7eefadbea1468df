/*
 * api_local.c: requests of a client whose host is local:// — answered by
 * the local workspace (lib/local/) in-process instead of the HTTP engine.
 * Replies become responses and errors exactly as a server's would
 * (air__http_reply_error), so every module above works unchanged. Nothing
 * is retried (a local reply is final) and nothing touches the network.
 */
#include <string.h>

#include "transport/client_priv.h"

/* A request's path relative to the workspace: absolute URLs must point
 * into the local workspace itself. NULL when they do not. */
static const char *local_path(const air_client *c, const air__http_req *req)
{
	const char *host = c->cfg.attr[AIR__A_HOST];
	size_t n = strlen(host);

	if (!(req->flags & AIR__HTTP_ABSOLUTE_URL))
		return req->path;
	if (strncmp(req->path, host, n) == 0 && req->path[n] == '/')
		return req->path + n;
	return NULL;
}

/* A body read on demand (air__http_req.source, a snapshot's file) whole
 * into @b: the local workspace takes bytes. */
static int read_source(const air__http_req *req, air__buf *b, air_error **err)
{
	char chunk[65536];

	while (b->len < req->body_len) {
		size_t want = req->body_len - b->len < sizeof(chunk) ? req->body_len - b->len
		                                                      : sizeof(chunk);
		ssize_t n = req->source(req->source_ud, (int64_t)b->len, chunk, want);

		if (n <= 0)
			return air__failf(err, AIR_EIO, 0, "%s %s: cannot read the request body",
			                  req->method, req->path);
		air__buf_put(b, chunk, (size_t)n);
		if (air__buf_oom(b))
			return air__oom(err);
	}
	return AIR_OK;
}

static int serve_one(air_client *c, const air__ctx *ctx, const air__http_req *req,
                     air__http_resp *resp, air_error **err)
{
	const char *path = local_path(c, req), *q;
	air__local_reply reply = AIR__LOCAL_REPLY_INIT;
	air__local_req lreq;
	air__buf body = AIR__BUF_INIT;
	char *p = NULL;
	air_error *e = NULL;
	int rc;

	air__http_resp_clear(resp);
	if (!path)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "a local workspace cannot fetch %s", req->path);
	if (req->source && (rc = read_source(req, &body, err)) != AIR_OK) {
		air__buf_dispose(&body);
		return rc;
	}
	/* A path with its own query (a "signed URL") keeps it. */
	if ((q = strchr(path, '?')) != NULL && !(p = air__strndup(path, (size_t)(q - path)))) {
		air__buf_dispose(&body);
		return air__oom(err);
	}
	lreq = (air__local_req){req->method, p ? p : path, q ? q + 1 : req->query,
	                        req->source ? body.ptr : req->body, req->body_len, req->sink,
	                        req->sink_ud};
	air__http_debug(&c->http, AIR_DEBUG_REQUEST, "local %s %s%s%s", lreq.method, lreq.path,
	                lreq.query ? "?" : "", lreq.query ? lreq.query : "");
	rc = air__local_serve(c->local, ctx, &lreq, &reply, &e);
	air__buf_dispose(&body);
	if (rc != AIR_OK) {
		air__free(p);
		return air__fail(err, air__secrets_redact(c->secrets, e));
	}
	air__http_debug(&c->http, AIR_DEBUG_RESPONSE, "local %d (%zu bytes)", (int)reply.status,
	                reply.body_len);
	resp->status = reply.status;
	resp->body = reply.body;
	resp->body_len = reply.body_len;
	resp->org_id = reply.org_id;
	resp->attempts = 1;
	reply.body = reply.org_id = NULL;
	if (resp->status >= 400) {
		e = air__local_reply_error(c->secrets, lreq.method, lreq.path, resp->status,
		                           resp->body, resp->body_len);
		rc = air__fail(err, air__secrets_redact(c->secrets, e));
	}
	air__free(p);
	return rc;
}

int air__api_local(air_client *c, const air__ctx *ctx, const air__http_req *reqs, size_t n,
                   air__http_resp *resps, air_error **err)
{
	int64_t total = 0, done = 0;
	air_error *first = NULL;
	int first_rc = AIR_OK;

	for (size_t i = 0; i < n; i++)
		total += (int64_t)reqs[i].body_len;
	for (size_t i = 0; i < n; i++) {
		air_error *e = NULL;
		int rc = serve_one(c, ctx, &reqs[i], &resps[i], &e);

		done += (int64_t)reqs[i].body_len;
		if (rc == AIR_OK && reqs[i].body_len > 0 && ctx && ctx->on_progress &&
		    ctx->on_progress(ctx->progress_ud, done, total) != 0)
			rc = air__failf(&e, AIR_EABORTED, 0, "stopped by the progress callback");
		if (rc != AIR_OK && first_rc == AIR_OK) {
			first_rc = rc;
			first = e;
		} else {
			air_error_free(e);
		}
		if (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT || rc == AIR_EABORTED)
			break; /* the call is over */
	}
	return first_rc == AIR_OK ? AIR_OK : air__fail(err, first);
}
