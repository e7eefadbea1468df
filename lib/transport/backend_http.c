/*
 * backend_http.c: the request engine (http.c) as a client's backend, for
 * every workspace URL: requests go to the host over HTTPS with the client's
 * credentials, retries and connection pool (the air__http_env client.c
 * assembles). Its host is normalised by resolution (resolve.c).
 */
#include "transport/client_priv.h"

typedef struct http_backend {
	air__backend base;
	const air__http_env *env; /* the client's, complete once it is resolved */
} http_backend;

static int http_run(air__backend *b, const air__ctx *ctx, const air__http_req *reqs, size_t n,
                    air__http_resp *resps, air_error **err)
{
	return air__http_run(((http_backend *)b)->env, ctx, reqs, n, resps, err);
}

static int http_start(air__backend *b, const air__ctx *ctx, const air__http_req *req,
                      air__http_resp *resp, air__http_async **out)
{
	return air__http_start(((http_backend *)b)->env, ctx, req, resp, out);
}

static void http_free(air__backend *b) { air__free(b); }

static const air__backend_ops http_ops = {.run = http_run, .start = http_start, .free = http_free};

static int http_open(air_client *c, air__backend **out, air_error **err)
{
	http_backend *h = air__calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return air__oom(err);
	h->base.ops = &http_ops;
	h->env = &c->http;
	*out = &h->base;
	return AIR_OK;
}

static bool serves_any(const char *host)
{
	(void)host;
	return true;
}

const air__backend_kind air__backend_http = {
	.name = "http",
	.serves = serves_any,
	.finish_host = air__resolve_workspace_host,
	.credentials = true,
	.poll_ms = 3000,
	.open = http_open,
};
