/*
 * backend.c: the backend kinds a host can select (backend.h), in the order
 * they are asked; the request engine serves every host no other kind claims.
 */
#include "transport/backend.h"

static const air__backend_kind *const kinds[] = {
	&air__backend_local,
	&air__backend_http,
};

const air__backend_kind *air__backend_kind_of(const char *host)
{
	for (size_t i = 0; i < AIR__ARRAY_SIZE(kinds); i++)
		if (kinds[i]->serves(host))
			return kinds[i];
	return &air__backend_http;
}

int air__backend_run(air__backend *b, const air__ctx *ctx, const air__http_req *reqs, size_t n,
                     air__http_resp *resps, air_error **err)
{
	return b->ops->run(b, ctx, reqs, n, resps, err);
}

int air__backend_start(air__backend *b, const air__ctx *ctx, const air__http_req *req,
                       air__http_resp *resp, air__http_async **out)
{
	*out = NULL;
	return b->ops->start ? b->ops->start(b, ctx, req, resp, out) : AIR_OK;
}

/* Without a feed of its own a backend answers one request at a time. */
static int feed_one_by_one(air__backend *b, const air__ctx *ctx, const air__http_feed *feed,
                           air_error **err)
{
	const air__http_req *req;
	air__http_resp *resp;
	void *tag;
	int rc;

	while (feed->next(feed->ud, &req, &resp, &tag)) {
		air_error *e = NULL;

		rc = b->ops->run(b, ctx, req, 1, resp, &e);
		if (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT) {
			feed->done(feed->ud, tag, rc, air__error_clone(e));
			return air__fail(err, e);
		}
		if (feed->done(feed->ud, tag, rc, e) != 0)
			return air__failf(err, AIR_EABORTED, 0, "stopped by a callback");
	}
	return AIR_OK;
}

int air__backend_feed(air__backend *b, const air__ctx *ctx, const air__http_feed *feed,
                      air_error **err)
{
	return b->ops->feed ? b->ops->feed(b, ctx, feed, err) : feed_one_by_one(b, ctx, feed, err);
}

void air__backend_free(air__backend *b)
{
	if (b)
		b->ops->free(b);
}
