/* client.c: placeholder implementation of client.h; every call reports AIR_EUNSUPPORTED. */
#include "client_internal.h"

int air_client_new(air_client **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

void air_client_free(air_client *client)
{
}

int air_client_set_str(air_client *client, int32_t opt, const char *value)
{
	return AIR_EUNSUPPORTED;
}

int air_client_set_int(air_client *client, int32_t opt, int64_t value)
{
	return AIR_EUNSUPPORTED;
}

int air_client_set_debug_cb(air_client *client, air_debug_cb cb, void *userdata)
{
	return AIR_EUNSUPPORTED;
}

int air_client_resolve(air_client *client, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

const char *air_client_host(const air_client *client)
{
	return NULL;
}

const char *air_client_auth_type(const air_client *client)
{
	return NULL;
}

const char *air_client_profile(const air_client *client)
{
	return NULL;
}

int air_client_current_user(air_client *client, char **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_client_workspace_id(air_client *client, int64_t *out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

void air__http_resp_clear(air__http_resp *resp)
{
}

int air__http_do(air_client *c, const air__ctx *ctx, const air__http_req *req, air__http_resp *resp, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air__http_do_many(air_client *c, const air__ctx *ctx, const air__http_req *reqs, size_t n, air__http_resp *resps, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air__api_json(air_client *c, const air__ctx *ctx, const char *method, const char *path, const char *query, const json_t *body, json_t **out, air__http_resp *resp, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

air_error *air__http_error_from_reply(const char *method, const char *path, int32_t status, const char *body, size_t body_len, const char *request_id, int64_t retry_after_ms)
{
	return NULL;
}

int64_t air__http_parse_retry_after(const char *value, int64_t now_ms)
{
	return 0;
}

int air__client_ensure_resolved(air_client *c, const air__ctx *ctx, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

const char *air__client_host(const air_client *c)
{
	return NULL;
}

const char *air__client_env(const air_client *c, const char *name)
{
	return NULL;
}

const char *air__client_opt_str(const air_client *c, int32_t opt)
{
	return NULL;
}

int64_t air__client_opt_int(const air_client *c, int32_t opt)
{
	return 0;
}

int air__client_user_name(air_client *c, const air__ctx *ctx, char **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air__client_user_base(air_client *c, const air__ctx *ctx, char **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air__client_workspace_id(air_client *c, const air__ctx *ctx, int64_t *out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int64_t air__client_known_workspace_id(const air_client *c)
{
	return 0;
}

const char *air__client_default_runtime(const air_client *c)
{
	return NULL;
}

void air__client_debug(const air_client *c, int32_t type, const char *fmt, ...)
{
}
