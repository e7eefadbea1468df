/*
 * identity.c: who the caller is and which workspace it talks to (SCIM Me and
 * its X-Databricks-Org-Id header), looked up through the client like any
 * other API call and cached on it.
 */
#include "transport/client_priv.h"

#define SCIM_ME "/api/2.0/preview/scim/v2/Me"

int air__client_user_name(air_client *c, const air__ctx *ctx, char **out, air_error **err)
{
	json_t *me = NULL;
	const char *name;
	int rc;

	*out = NULL;
	pthread_mutex_lock(&c->cache_lock);
	if (c->user_name)
		*out = air__strdup(c->user_name);
	pthread_mutex_unlock(&c->cache_lock);
	if (*out)
		return AIR_OK;
	if ((rc = air__api_json(c, ctx, "GET", SCIM_ME, NULL, NULL, &me, NULL, err)) != AIR_OK)
		return rc;
	if (!(name = air__json_nonempty(me, "userName"))) {
		json_decref(me);
		return air__failf(err, AIR_EPROTO, 0, "GET %s: the reply has no userName", SCIM_ME);
	}
	*out = air__strdup(name);
	pthread_mutex_lock(&c->cache_lock);
	if (!c->user_name)
		c->user_name = air__strdup(name);
	pthread_mutex_unlock(&c->cache_lock);
	json_decref(me);
	return *out ? AIR_OK : air__oom(err);
}

int air__client_user_base(air_client *c, const air__ctx *ctx, char **out, air_error **err)
{
	const char *dir = air__client_opt_str(c, AIR_OPT_USER_WORKSPACE_DIR);
	char *user = NULL;
	int rc;

	*out = NULL;
	if (!dir)
		dir = air__client_env(c, "DATABRICKS_INTERNAL_USER_WORKSPACE_DIR");
	if (dir)
		return (*out = air__strdup(dir)) ? AIR_OK : air__oom(err);
	if ((rc = air__client_user_name(c, ctx, &user, err)) != AIR_OK)
		return rc;
	*out = air__sprintf("/Workspace/Users/%s", user);
	air__free(user);
	return *out ? AIR_OK : air__oom(err);
}

int air__client_workspace_id(air_client *c, const air__ctx *ctx, int64_t *out, air_error **err)
{
	air__http_req req = {.method = "GET", .path = SCIM_ME,
	                     .query = "excludedAttributes=entitlements"};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	int64_t id = 0;
	bool cached;
	int rc;

	pthread_mutex_lock(&c->cache_lock);
	cached = c->ws_probed;
	id = c->ws_probed_id;
	pthread_mutex_unlock(&c->cache_lock);
	if (cached) {
		*out = id;
		return AIR_OK;
	}
	*out = 0;
	if ((rc = air__http_do(c, ctx, &req, &resp, err)) != AIR_OK) {
		air__http_resp_clear(&resp);
		return rc;
	}
	if (!resp.org_id || !air__parse_int64(resp.org_id, &id)) {
		air__http_resp_clear(&resp);
		return air__failf(err, AIR_EPROTO, 0,
		                  "the workspace id is unavailable: GET %s has no numeric "
		                  "X-Databricks-Org-Id header",
		                  SCIM_ME);
	}
	air__http_resp_clear(&resp);
	pthread_mutex_lock(&c->cache_lock);
	c->ws_probed = true;
	c->ws_probed_id = id;
	pthread_mutex_unlock(&c->cache_lock);
	*out = id;
	return AIR_OK;
}

int64_t air__client_known_workspace_id(const air_client *c)
{
	air_client *m = (air_client *)c;
	int64_t id = 0;
	bool probed;

	pthread_mutex_lock(&m->cache_lock);
	probed = m->ws_probed;
	id = m->ws_probed_id;
	pthread_mutex_unlock(&m->cache_lock);
	if (probed)
		return id;
	if (air_client_host(c) && c->cfg.attr[AIR__A_WORKSPACE_ID] &&
	    air__parse_int64(c->cfg.attr[AIR__A_WORKSPACE_ID], &id))
		return id;
	return 0;
}

/* ---- public identity calls ------------------------------------------------ */

int air_client_current_user(air_client *c, const air_call_options *opts, char **out,
                            air_error **err)
{
	air__ctx ctx;

	if (out)
		*out = NULL;
	if (!c || !out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_current_user: %s is NULL",
		                  c ? "out" : "client");
	air__client_ctx(c, opts ? &opts->call : NULL, &ctx);
	return air__client_user_name(c, &ctx, out, err);
}

int air_client_workspace_id(air_client *c, const air_call_options *opts, int64_t *out,
                            air_error **err)
{
	air__ctx ctx;

	if (out)
		*out = 0;
	if (!c || !out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_workspace_id: %s is NULL",
		                  c ? "out" : "client");
	air__client_ctx(c, opts ? &opts->call : NULL, &ctx);
	return air__client_workspace_id(c, &ctx, out, err);
}
