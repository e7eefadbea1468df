/*
 * client.c: the air_client handle (client.h): options, one-time resolution,
 * getters, the identity caches, and what other modules may ask of a client
 * (client_internal.h).
 */
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "http_priv.h"
#include "json.h"

#if defined(__linux__)
#  define AIR__OS "linux"
#elif defined(__APPLE__)
#  define AIR__OS "darwin"
#elif defined(_WIN32)
#  define AIR__OS "windows"
#else
#  define AIR__OS "unknown"
#endif

#define INTERRUPT_SLICE_MS 50 /* a second interrupt is looked at this often */

static const int64_t int_defaults[AIR__OPT_INT_COUNT] = {
	[AIR_OPT_CONNECT_TIMEOUT_MS - AIR__OPT_INT_FIRST] = 30000,
	[AIR_OPT_REQUEST_TIMEOUT_MS - AIR__OPT_INT_FIRST] = 0,
	[AIR_OPT_INACTIVITY_TIMEOUT_MS - AIR__OPT_INT_FIRST] = 60000,
	[AIR_OPT_RETRY_DEADLINE_MS - AIR__OPT_INT_FIRST] = 120000,
	[AIR_OPT_RETRY_BACKOFF_MS - AIR__OPT_INT_FIRST] = 1000,
	[AIR_OPT_USE_ENVIRONMENT - AIR__OPT_INT_FIRST] = 1,
	[AIR_OPT_SKIP_TLS_VERIFY - AIR__OPT_INT_FIRST] = 0,
	[AIR_OPT_RATE_LIMIT - AIR__OPT_INT_FIRST] = 15,
	[AIR_OPT_MAX_PARALLEL - AIR__OPT_INT_FIRST] = 8,
};

void air__free_secret(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	air__free(s);
}

static bool is_secret_opt(int32_t opt)
{
	return opt == AIR_OPT_TOKEN || opt == AIR_OPT_PASSWORD || opt == AIR_OPT_CLIENT_SECRET;
}

static void free_env(char **env)
{
	for (char **p = env; p && *p; p++)
		air__free_secret(*p);
	air__free(env);
}

/* Forget the resolved state so that changed options take effect. */
static void unresolve(air_client *c)
{
	air__auth_free(c->auth);
	c->auth = NULL;
	air__cfg_clear(&c->cfg);
	air_error_free(c->resolve_err);
	c->resolve_err = NULL;
	c->resolve_rc = AIR_OK;
	air__free(c->user_agent);
	c->user_agent = NULL;
	air__free(c->user_name);
	c->user_name = NULL;
	c->ws_probed = false;
	atomic_store(&c->resolved, false);
}

int air_client_new(air_client **out, air_error **err)
{
	air_client *c;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_new: out is NULL");
	*out = NULL;
	if ((rc = air_global_init()) != AIR_OK)
		return air__failf(err, rc, 0, "cannot initialise libcurl");
	if (!(c = air__calloc(1, sizeof(*c)))) {
		air_global_cleanup();
		return air__failf(err, AIR_ENOMEM, 0, "out of memory");
	}
	pthread_mutex_init(&c->resolve_lock, NULL);
	pthread_mutex_init(&c->cache_lock, NULL);
	atomic_init(&c->resolved, false);
	if ((rc = air__transport_new(&c->tp)) != AIR_OK) {
		air_client_free(c);
		return air__failf(err, rc, 0, "cannot set up the HTTP transport");
	}
	*out = c;
	return AIR_OK;
}

void air_client_free(air_client *c)
{
	if (!c)
		return;
	unresolve(c);
	air__transport_free(c->tp);
	for (int i = 0; i <= AIR__OPT_STR_MAX; i++)
		air__free_secret(c->opt_str[i]);
	free_env(c->env);
	pthread_mutex_destroy(&c->resolve_lock);
	pthread_mutex_destroy(&c->cache_lock);
	air__free(c);
	air_global_cleanup();
}

static bool one_of(const char *v, const char *const *allowed, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v, allowed[i]) == 0)
			return true;
	return false;
}

int air_client_set_str(air_client *c, int32_t opt, const char *value)
{
	static const char *const auth_types[] = {"pat", "basic", "oauth-m2m", "databricks-cli"};
	static const char *const storages[] = {"plaintext", "secure"};
	char *copy = NULL;

	if (!c)
		return AIR_EINVAL;
	if (opt >= AIR__OPT_INT_FIRST && opt <= AIR__OPT_INT_MAX)
		return AIR_EINVAL;
	if (opt < 1 || opt > AIR__OPT_STR_MAX)
		return AIR_EUNSUPPORTED;
	if (value && opt == AIR_OPT_AUTH_TYPE && !one_of(value, auth_types, 4))
		return AIR_EINVAL;
	if (value && opt == AIR_OPT_AUTH_STORAGE && !one_of(value, storages, 2))
		return AIR_EINVAL;
	if (value && !(copy = air__strdup(value)))
		return AIR_ENOMEM;
	if (is_secret_opt(opt))
		air__free_secret(c->opt_str[opt]);
	else
		air__free(c->opt_str[opt]);
	c->opt_str[opt] = copy;
	unresolve(c);
	return AIR_OK;
}

int air_client_set_int(air_client *c, int32_t opt, int64_t value)
{
	size_t i = (size_t)(opt - AIR__OPT_INT_FIRST);

	if (!c)
		return AIR_EINVAL;
	if (opt >= 1 && opt <= AIR__OPT_STR_MAX)
		return AIR_EINVAL;
	if (opt < AIR__OPT_INT_FIRST || opt > AIR__OPT_INT_MAX)
		return AIR_EUNSUPPORTED;
	switch (opt) {
	case AIR_OPT_USE_ENVIRONMENT:
	case AIR_OPT_SKIP_TLS_VERIFY:
		if (value != 0 && value != 1)
			return AIR_EINVAL;
		break;
	case AIR_OPT_MAX_PARALLEL:
		if (value < 1 || value > 64)
			return AIR_EINVAL;
		break;
	default:
		/* Times and rates: non-negative and within what libcurl takes (long ms). */
		if (value < 0 || value > INT32_MAX)
			return AIR_EINVAL;
	}
	c->opt_int[i] = value;
	c->opt_int_set[i] = true;
	unresolve(c);
	return AIR_OK;
}

int air_client_set_debug_cb(air_client *c, air_debug_cb cb, void *userdata)
{
	if (!c)
		return AIR_EINVAL;
	c->debug_cb = cb;
	c->debug_ud = cb ? userdata : NULL;
	return AIR_OK;
}

int air_client_set_interrupt(air_client *c, air_interrupt *intr)
{
	if (!c)
		return AIR_EINVAL;
	c->intr = intr;
	return AIR_OK;
}

bool air__client_interrupted(const air_client *c, const air_interrupt *intr)
{
	return air__interrupted(intr) || (c && air__interrupted(c->intr));
}

int air__client_sleep(const air_client *c, air_interrupt *intr, int64_t ms)
{
	air_interrupt *ci = c ? c->intr : NULL;
	int64_t end;

	if (!ci || ci == intr)
		return air__sleep_ms(intr, ms);
	if (!intr)
		return air__sleep_ms(ci, ms);
	/* Two flags: wait on the call's, look at the client's between slices. */
	end = air__mono_ms() + ms;
	for (;;) {
		int64_t left = end - air__mono_ms();

		if (air__interrupted(ci))
			return AIR_EINTERRUPTED;
		if (left <= 0)
			return air__interrupted(intr) ? AIR_EINTERRUPTED : AIR_OK;
		if (air__sleep_ms(intr, left < INTERRUPT_SLICE_MS ? left : INTERRUPT_SLICE_MS) != AIR_OK)
			return AIR_EINTERRUPTED;
	}
}

int air__client_set_environment(air_client *c, const char *const *envp)
{
	char **copy = NULL;
	size_t n = 0;

	if (envp) {
		while (envp[n])
			n++;
		if (!(copy = air__calloc(n + 1, sizeof(*copy))))
			return AIR_ENOMEM;
		for (size_t i = 0; i < n; i++) {
			if (!(copy[i] = air__strdup(envp[i]))) {
				free_env(copy);
				return AIR_ENOMEM;
			}
		}
	}
	free_env(c->env);
	c->env = copy;
	unresolve(c);
	return AIR_OK;
}

static int build_user_agent(air_client *c)
{
	const char *suffix = air__client_opt_str(c, AIR_OPT_USER_AGENT_SUFFIX);

	air__free(c->user_agent);
	c->user_agent = air__sprintf("libair/%s os/%s auth/%s%s%s", air_version_string(), AIR__OS,
	                             air__auth_method_name(c->auth->method), suffix ? " " : "",
	                             suffix ? suffix : "");
	return c->user_agent ? AIR_OK : AIR_ENOMEM;
}

static int resolve_all(air_client *c, const air__ctx *ctx, air_error **err)
{
	int rc = air__resolve_config(c, err);

	if (rc == AIR_OK)
		rc = air__auth_select(c, err);
	if (rc == AIR_OK && (rc = build_user_agent(c)) != AIR_OK)
		rc = air__failf(err, rc, 0, "out of memory");
	if (rc != AIR_OK)
		return rc;
	air__client_debug(c, AIR_DEBUG_INFO, "host %s, profile %s, auth type %s",
	                  c->cfg.attr[AIR__A_HOST], c->cfg.profile ? c->cfg.profile : "-",
	                  air__auth_method_name(c->auth->method));
	/* OAuth needs the host's OIDC endpoint; PAT and basic need no request. */
	if (c->auth->method == AIR__AUTH_M2M || c->auth->method == AIR__AUTH_U2M) {
		air__oauth_host_metadata(c, ctx);
		/* An interrupted metadata request says nothing about the host. */
		if (air__client_interrupted(c, ctx ? ctx->intr : NULL))
			return air__failf(err, AIR_EINTERRUPTED, 0,
			                  "interrupted while resolving the configuration");
	}
	return AIR_OK;
}

/* Undo a resolution that was interrupted: nothing of it is kept, so the next
 * call resolves afresh. Runs under the resolve lock before publication. */
static void forget_resolution(air_client *c)
{
	air__auth_free(c->auth);
	c->auth = NULL;
	air__cfg_clear(&c->cfg);
	air__free(c->user_agent);
	c->user_agent = NULL;
}

int air__client_ensure_resolved(air_client *c, const air__ctx *ctx, air_error **err)
{
	int rc;

	if (!atomic_load(&c->resolved)) {
		pthread_mutex_lock(&c->resolve_lock);
		if (!atomic_load(&c->resolved)) {
			air_error *e = NULL;

			rc = resolve_all(c, ctx, &e);
			if (rc == AIR_EINTERRUPTED) {
				/* Not an outcome of the configuration: not cached. */
				forget_resolution(c);
				pthread_mutex_unlock(&c->resolve_lock);
				return air__fail(err, e);
			}
			c->resolve_rc = rc;
			c->resolve_err = e;
			atomic_store(&c->resolved, true);
		}
		pthread_mutex_unlock(&c->resolve_lock);
	}
	rc = c->resolve_rc;
	if (rc != AIR_OK && err && !*err)
		*err = c->resolve_err ? air__error_clone(c->resolve_err)
		                      : air__error_new(rc, 0, "%s", air_strerror(rc));
	return rc;
}

int air_client_resolve(air_client *c, air_error **err)
{
	char *header = NULL;
	int rc;

	if (!c)
		return air__failf(err, AIR_EINVAL, 0, "air_client_resolve: client is NULL");
	if ((rc = air__client_ensure_resolved(c, NULL, err)) != AIR_OK)
		return rc;
	/* Fetch (or refresh) an OAuth token now so that bad credentials show early. */
	rc = air__auth_header(c, NULL, &header, err);
	air__free_secret(header);
	return rc;
}

static bool resolved_ok(const air_client *c)
{
	return c && atomic_load(&((air_client *)c)->resolved) && c->resolve_rc == AIR_OK;
}

const char *air_client_host(const air_client *c)
{
	return resolved_ok(c) ? c->cfg.attr[AIR__A_HOST] : NULL;
}

const char *air_client_auth_type(const air_client *c)
{
	return resolved_ok(c) ? air__auth_method_name(c->auth->method) : NULL;
}

const char *air_client_profile(const air_client *c)
{
	return resolved_ok(c) ? c->cfg.profile : NULL;
}

const char *air__client_host(const air_client *c) { return air_client_host(c); }

const char *air__client_env(const air_client *c, const char *name)
{
	const char *v = NULL;
	size_t n = strlen(name);

	if (air__client_opt_int(c, AIR_OPT_USE_ENVIRONMENT) == 0)
		return NULL;
	if (c->env) {
		for (char **p = c->env; *p && !v; p++)
			if (strncmp(*p, name, n) == 0 && (*p)[n] == '=')
				v = *p + n + 1;
	} else {
		v = getenv(name);
	}
	return v && *v ? v : NULL;
}

const char *air__client_opt_str(const air_client *c, int32_t opt)
{
	return opt >= 1 && opt <= AIR__OPT_STR_MAX ? c->opt_str[opt] : NULL;
}

int64_t air__client_opt_int(const air_client *c, int32_t opt)
{
	size_t i = (size_t)(opt - AIR__OPT_INT_FIRST);

	if (opt < AIR__OPT_INT_FIRST || opt > AIR__OPT_INT_MAX)
		return 0;
	return c->opt_int_set[i] ? c->opt_int[i] : int_defaults[i];
}

bool air__client_opt_int_is_set(const air_client *c, int32_t opt)
{
	return opt >= AIR__OPT_INT_FIRST && opt <= AIR__OPT_INT_MAX &&
	       c->opt_int_set[opt - AIR__OPT_INT_FIRST];
}

/* ---- identity ------------------------------------------------------------- */

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
	return *out ? AIR_OK : air__failf(err, AIR_ENOMEM, 0, "out of memory");
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
		return (*out = air__strdup(dir)) ? AIR_OK : air__failf(err, AIR_ENOMEM, 0, "out of memory");
	if ((rc = air__client_user_name(c, ctx, &user, err)) != AIR_OK)
		return rc;
	*out = air__sprintf("/Workspace/Users/%s", user);
	air__free(user);
	return *out ? AIR_OK : air__failf(err, AIR_ENOMEM, 0, "out of memory");
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
	if (resolved_ok(c) && c->cfg.attr[AIR__A_WORKSPACE_ID] &&
	    air__parse_int64(c->cfg.attr[AIR__A_WORKSPACE_ID], &id))
		return id;
	return 0;
}

const char *air__client_default_runtime(const air_client *c)
{
	const char *v = air__client_opt_str(c, AIR_OPT_DEFAULT_RUNTIME);

	return v ? v : air__client_env(c, "DATABRICKS_DL_RUNTIME_IMAGE");
}

void air__client_debug(const air_client *c, int32_t type, const char *fmt, ...)
{
	va_list ap;
	char *text;

	if (!c || !c->debug_cb)
		return;
	va_start(ap, fmt);
	text = air__vsprintf(fmt, ap);
	va_end(ap);
	air__trace_emit(c, type, text);
	air__free(text);
}

/* ---- public identity calls ------------------------------------------------ */

int air_client_current_user(air_client *c, char **out, air_error **err)
{
	if (!c || !out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_current_user: %s is NULL",
		                  c ? "out" : "client");
	return air__client_user_name(c, NULL, out, err);
}

int air_client_workspace_id(air_client *c, int64_t *out, air_error **err)
{
	if (!c || !out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_workspace_id: %s is NULL",
		                  c ? "out" : "client");
	return air__client_workspace_id(c, NULL, out, err);
}
