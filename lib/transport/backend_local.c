/*
 * backend_local.c: the local workspace (lib/local/, docs/local.md) as a
 * client's backend, for a local:// host: its state directory is found when
 * the host is resolved, and every request is answered in-process by
 * air__local_serve() instead of the HTTP engine. Replies become responses
 * and errors as a server's would (classified like air__http_reply_error),
 * so every module above works unchanged. The workspace sends no
 * credentials, nothing is retried (a local reply is final) and nothing
 * touches the network. The only file of the transport that knows lib/local/.
 */
#include <string.h>

#include "local/local.h"
#include "transport/client_priv.h"

/* A local workspace polls a run's state from files: a short pause costs nothing. */
#define LOCAL_POLL_MS 1000

typedef struct local_backend {
	air__backend base;
	air_client *c;      /* its environment, secrets and debug callback */
	char *host;         /* "local://<state directory>" */
	air__local *ws;
} local_backend;

/* A request's path relative to the workspace: absolute URLs must point
 * into the local workspace itself. NULL when they do not. */
static const char *local_path(const local_backend *lb, const air__http_req *req)
{
	const char *host = lb->host;
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

static int serve_one(local_backend *lb, const air__ctx *ctx, const air__http_req *req,
                     air__http_resp *resp, air_error **err)
{
	air_client *c = lb->c;
	const char *path = local_path(lb, req), *q;
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
	air__client_debug(c, AIR_DEBUG_REQUEST, "local %s %s%s%s", lreq.method, lreq.path,
	                  lreq.query ? "?" : "", lreq.query ? lreq.query : "");
	rc = air__local_serve(lb->ws, ctx, &lreq, &reply, &e);
	air__buf_dispose(&body);
	if (rc != AIR_OK) {
		air__free(p);
		return air__fail(err, air__secrets_redact(c->secrets, e));
	}
	air__client_debug(c, AIR_DEBUG_RESPONSE, "local %d (%zu bytes)", (int)reply.status,
	                  reply.body_len);
	resp->status = reply.status;
	resp->body = reply.body;
	resp->body_len = reply.body_len;
	resp->org_id = reply.org_id;
	resp->attempts = 1;
	reply.body = reply.org_id = NULL;
	if (resp->status >= 400) {
		e = air__http_reply_error_bare(c->secrets, lreq.method, lreq.path, resp->status,
		                               resp->body, resp->body_len);
		rc = air__fail(err, air__secrets_redact(c->secrets, e));
	}
	air__free(p);
	return rc;
}

static int local_run(air__backend *b, const air__ctx *ctx, const air__http_req *reqs, size_t n,
                     air__http_resp *resps, air_error **err)
{
	local_backend *lb = (local_backend *)b;
	int64_t total = 0, done = 0;
	air_error *first = NULL;
	int first_rc = AIR_OK;

	for (size_t i = 0; i < n; i++)
		total += (int64_t)reqs[i].body_len;
	for (size_t i = 0; i < n; i++) {
		air_error *e = NULL;
		int rc = serve_one(lb, ctx, &reqs[i], &resps[i], &e);

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

static void local_free(air__backend *b)
{
	local_backend *lb = (local_backend *)b;

	air__local_free(lb->ws);
	air__free(lb->host);
	air__free(lb);
}

/* Node logs read straight from their files: no page of JSON built and parsed. */
static int local_log_read(air__backend *b, const air__ctx *ctx, void **reader,
                          const air__log_query *q, air__log_span *out, air_error **err)
{
	local_backend *lb = (local_backend *)b;
	air__local_log *r = *reader;
	int rc = air__local_log_read(lb->ws, ctx, &r, q, out, err);

	*reader = r;
	return rc;
}

static void local_log_close(air__backend *b, void *reader)
{
	(void)b;
	air__local_log_free(reader);
}

/* Pauses that end when the run's files change. */
static int local_watch(air__backend *b, int64_t run_id, bool logs, void **out)
{
	air__local_watch *w = NULL;
	int rc = air__local_watch_run(((local_backend *)b)->ws, run_id, logs, &w);

	*out = w;
	return rc;
}

static int local_watch_pause(air__backend *b, void *watch, const air__ctx *ctx, int64_t ms,
                             const char *what, air_error **err)
{
	(void)b;
	return air__local_watch_wait(watch, ctx, ms, what, err);
}

static void local_watch_free(air__backend *b, void *watch)
{
	(void)b;
	air__local_watch_free(watch);
}

static const air__backend_ops local_ops = {
	.run = local_run,
	.free = local_free,
	.log_read = local_log_read,
	.log_close = local_log_close,
	.watch = local_watch,
	.watch_pause = local_watch_pause,
	.watch_free = local_watch_free,
};

static const char *local_getenv(void *ud, const char *name)
{
	return air__client_env(ud, name);
}

/* The workspace of the resolved host "local://<state directory>". */
static int local_open(air_client *c, air__backend **out, air_error **err)
{
	const char *host = c->cfg.attr[AIR__A_HOST];
	air__local_env env = {local_getenv, c, c->secrets};
	local_backend *lb = air__calloc(1, sizeof(*lb));
	char *dir = NULL;
	int rc;

	*out = NULL;
	if (!lb || !(lb->host = air__strdup(host))) {
		air__free(lb);
		return air__oom(err);
	}
	lb->base.ops = &local_ops;
	lb->c = c;
	rc = air__local_state_dir(host, NULL, NULL, &dir, err);
	if (rc == AIR_OK)
		rc = air__local_new(dir, &env, &lb->ws, err);
	air__free(dir);
	if (rc != AIR_OK) {
		local_free(&lb->base);
		return rc;
	}
	*out = &lb->base;
	return AIR_OK;
}

/* "local://" or "local:///dir" becomes "local://<absolute state directory>". */
static int local_finish_host(air_client *c, air_error **err)
{
	char **host = &c->cfg.attr[AIR__A_HOST];
	char *dir = NULL, *canonical;
	int rc = air__local_state_dir(*host, air__client_env(c, "XDG_STATE_HOME"), c->cfg.home,
	                              &dir, err);

	if (rc != AIR_OK)
		return rc;
	canonical = air__sprintf("local://%s", dir);
	air__free(dir);
	if (!canonical)
		return AIR_ENOMEM;
	air__free(*host);
	*host = canonical;
	return AIR_OK;
}

const air__backend_kind air__backend_local = {
	.name = "local",
	.serves = air__local_is_host,
	.finish_host = local_finish_host,
	.credentials = false,
	.poll_ms = LOCAL_POLL_MS,
	.checks_path = AIR__LOCAL_CHECKS_PATH,
	/* A run starts at once and shares this machine (its GPUs too): a sweep
	 * runs its variants one at a time unless told otherwise. */
	.schedules_runs = false,
	.runs_environment = "a local workspace runs the command in this machine's environment: "
	                    "environment.version, dependencies and images are not used",
	.sweep_parallel = 1,
	.open = local_open,
};
