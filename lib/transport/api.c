/*
 * api.c: the requests other modules make through a client (transport.h):
 * resolve the client first, then run them through its backend (backend.h:
 * the request engine or the local workspace); JSON calls on top.
 */
#include <string.h>

#include "transport/client_priv.h"

void air__http_resp_clear(air__http_resp *resp)
{
	if (!resp)
		return;
	air__free(resp->body);
	air__free(resp->request_id);
	air__free(resp->org_id);
	air__free(resp->challenge);
	*resp = (air__http_resp)AIR__HTTP_RESP_INIT;
}

int air__http_do(air_client *c, const air__ctx *ctx, const air__http_req *req,
                 air__http_resp *resp, air_error **err)
{
	air__http_resp scratch = AIR__HTTP_RESP_INIT;
	int rc;

	if (!c || !req)
		return air__failf(err, AIR_EINVAL, 0, "no client or request");
	if ((rc = air__client_ensure_resolved(c, ctx, err)) != AIR_OK)
		return rc;
	rc = air__backend_run(c->backend, ctx, req, 1, resp ? resp : &scratch, err);
	air__http_resp_clear(&scratch);
	return rc;
}

struct air__http_pending {
	air__http_async *async;     /* NULL: answered at once (a backend without start, or not started) */
	int rc;
	air_error *err;
};

air__http_pending *air__http_begin(air_client *c, const air__ctx *ctx, const air__http_req *req,
                                   air__http_resp *resp)
{
	air__http_pending *p = air__calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (!c || !req || !resp)
		p->rc = air__failf(&p->err, AIR_EINVAL, 0, "no client, request or reply");
	else if ((p->rc = air__client_ensure_resolved(c, ctx, &p->err)) != AIR_OK)
		;
	else if ((p->rc = air__backend_start(c->backend, ctx, req, resp, &p->async)) != AIR_OK)
		p->rc = air__oom(&p->err);
	else if (!p->async)
		p->rc = air__backend_run(c->backend, ctx, req, 1, resp, &p->err);
	return p;
}

void air__http_pump(air__http_pending *p)
{
	if (p && p->async)
		air__http_async_pump(p->async);
}

int air__http_end(air__http_pending *p, air_error **err)
{
	int rc;

	if (!p)
		return air__oom(err);
	if (p->async)
		rc = air__http_finish(p->async, err);
	else if ((rc = p->rc) != AIR_OK && p->err)
		air__fail(err, p->err);
	air__free(p);
	return rc;
}

void air__http_drop(air__http_pending *p)
{
	if (!p)
		return;
	air__http_cancel(p->async);
	air_error_free(p->err);
	air__free(p);
}

int air__http_do_many(air_client *c, const air__ctx *ctx, const air__http_req *reqs, size_t n,
                      air__http_resp *resps, air_error **err)
{
	int rc;

	if (!c || (n > 0 && (!reqs || !resps)))
		return air__failf(err, AIR_EINVAL, 0, "no client, requests or replies");
	if (n == 0)
		return AIR_OK;
	if ((rc = air__client_ensure_resolved(c, ctx, err)) != AIR_OK)
		return rc;
	return air__backend_run(c->backend, ctx, reqs, n, resps, err);
}

int air__http_do_feed(air_client *c, const air__ctx *ctx, const air__http_feed *feed,
                      air_error **err)
{
	int rc;

	if (!c || !feed)
		return air__failf(err, AIR_EINVAL, 0, "no client or feed");
	if ((rc = air__client_ensure_resolved(c, ctx, err)) != AIR_OK)
		return rc;
	return air__backend_feed(c->backend, ctx, feed, err);
}

void air__api_json_req(air__http_req *req, const char *method, const char *path,
                       const char *query, const char *body_text)
{
	static const char *const accept[] = {"Accept: application/json", NULL};

	*req = (air__http_req){.method = method, .path = path, .query = query, .headers = accept};
	if (body_text) {
		req->body = body_text;
		req->body_len = strlen(body_text);
		req->content_type = "application/json";
	}
}

int air__api_json_reply(const air__http_resp *resp, const char *method, const char *path,
                        json_t **out, air_error **err)
{
	air_error *pe = NULL;
	size_t n;

	air__trim(resp->body ? resp->body : "", &n);
	if (n == 0)
		return (*out = json_object()) ? AIR_OK : air__oom(err);
	if ((*out = air__json_parse(resp->body, resp->body_len, "the reply", &pe)))
		return AIR_OK;
	return air__fail(err, air__error_prefix(pe, "%s %.*s", method, (int)strcspn(path, "?"), path));
}

int air__api_json(air_client *c, const air__ctx *ctx, const char *method, const char *path,
                  const char *query, const json_t *body, json_t **out, air__http_resp *resp,
                  air_error **err)
{
	char *text = NULL;
	air__http_req req;
	air__http_resp scratch = AIR__HTTP_RESP_INIT;
	air__http_resp *r = resp ? resp : &scratch;
	int rc;

	if (out)
		*out = NULL;
	if (body && !(text = air__json_compact(body)))
		return air__failf(err, AIR_ENOMEM, 0, "out of memory encoding %s %s",
		                  method ? method : "?", path ? path : "?");
	air__api_json_req(&req, method, path, query, text);
	rc = air__http_do(c, ctx, &req, r, err);
	air__free(text);
	if (rc == AIR_OK && out)
		rc = air__api_json_reply(r, method, path, out, err);
	air__http_resp_clear(&scratch);
	return rc;
}

void air__http_stats(const air_client *c, int64_t *requests, int64_t *connects)
{
	air__transport_stats(c->tp, requests, connects);
}

air_error *air__http_client_error(air_client *c, const char *method, const char *path,
                                  int32_t status, const char *body, size_t body_len,
                                  const char *request_id, int64_t retry_after_ms)
{
	air_error *e = air__http_reply_error(c->secrets, method, path, status, body, body_len,
	                                     request_id, retry_after_ms, NULL);

	return air__secrets_redact(c->secrets, e);
}

/* ---- a run's changes and node logs without requests ------------------------------------- */

struct air__run_watch {
	air__backend *b;
	void *impl;
};

int air__run_watch_open(air_client *c, const air__ctx *ctx, int64_t run_id, bool logs,
                        air__run_watch **out, air_error **err)
{
	air__run_watch *w;
	int rc;

	*out = NULL;
	if ((rc = air__client_ensure_resolved(c, ctx, err)) != AIR_OK)
		return rc;
	if (!c->backend->ops->watch)
		return AIR_OK;
	if (!(w = air__calloc(1, sizeof(*w))))
		return air__oom(err);
	w->b = c->backend;
	if (w->b->ops->watch(w->b, run_id, logs, &w->impl) != AIR_OK) {
		air__free(w);
		return air__oom(err);
	}
	*out = w;
	return AIR_OK;
}

int air__run_watch_pause(air__run_watch *w, const air__ctx *ctx, int64_t ms, const char *what,
                         air_error **err)
{
	if (!w)
		return air__ctx_sleep(ctx, ms, what, err);
	return w->b->ops->watch_pause(w->b, w->impl, ctx, ms, what, err);
}

void air__run_watch_free(air__run_watch *w)
{
	if (!w)
		return;
	w->b->ops->watch_free(w->b, w->impl);
	air__free(w);
}

struct air__log_reader {
	air__backend *b;
	void *impl;
};

int air__log_read(air_client *c, const air__ctx *ctx, air__log_reader **reader,
                  const air__log_query *q, air__log_span *out, air_error **err)
{
	air__log_reader *r = *reader;
	int rc;

	*out = (air__log_span){.recs = NULL};
	if ((rc = air__client_ensure_resolved(c, ctx, err)) != AIR_OK)
		return rc;
	if (!c->backend->ops->log_read)
		return AIR_EUNSUPPORTED;
	if (!r) {
		if (!(r = air__calloc(1, sizeof(*r))))
			return air__oom(err);
		r->b = c->backend;
		*reader = r;
	}
	return r->b->ops->log_read(r->b, ctx, &r->impl, q, out, err);
}

void air__log_reader_free(air__log_reader *reader)
{
	if (!reader)
		return;
	if (reader->impl)
		reader->b->ops->log_close(reader->b, reader->impl);
	air__free(reader);
}
