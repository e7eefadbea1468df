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

void air__backend_free(air__backend *b)
{
	if (b)
		b->ops->free(b);
}
