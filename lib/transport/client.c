/*
 * client.c: air_client_options and the air_client handle (client.h):
 * options, one-time resolution (which assembles the request engine's
 * environment), getters, and what other modules may ask of a client
 * (transport.h).
 */
#include <stdlib.h>
#include <string.h>

#include "transport/auth.h"

#if defined(__linux__)
#  define AIR__OS "linux"
#elif defined(__APPLE__)
#  define AIR__OS "darwin"
#elif defined(_WIN32)
#  define AIR__OS "windows"
#else
#  define AIR__OS "unknown"
#endif


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

/* ---- options ------------------------------------------------------------------- */

int air_client_options_new(air_client_options **out)
{
	if (!out)
		return AIR_EINVAL;
	*out = air__calloc(1, sizeof(**out));
	return *out ? AIR_OK : AIR_ENOMEM;
}

static void options_clear(air_client_options *o)
{
	for (int i = 0; i <= AIR__OPT_STR_MAX; i++) {
		if (is_secret_opt(i))
			air__free_secret(o->opt_str[i]);
		else
			air__free(o->opt_str[i]);
	}
	free_env(o->env);
	memset(o, 0, sizeof(*o));
}

void air_client_options_free(air_client_options *opts)
{
	if (!opts)
		return;
	options_clear(opts);
	air__free(opts);
}

static char **env_copy(const char *const *envp)
{
	char **copy;
	size_t n = 0;

	while (envp[n])
		n++;
	if (!(copy = air__calloc(n + 1, sizeof(*copy))))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!(copy[i] = air__strdup(envp[i]))) {
			free_env(copy);
			return NULL;
		}
	}
	return copy;
}

/* A deep copy: the client keeps its own. */
static int options_copy(air_client_options *dst, const air_client_options *src)
{
	*dst = *src;
	memset(dst->opt_str, 0, sizeof(dst->opt_str));
	dst->env = NULL;
	for (int i = 0; i <= AIR__OPT_STR_MAX; i++)
		if (src->opt_str[i] && !(dst->opt_str[i] = air__strdup(src->opt_str[i])))
			return AIR_ENOMEM;
	if (src->env && !(dst->env = env_copy((const char *const *)src->env)))
		return AIR_ENOMEM;
	return AIR_OK;
}

/* Secrets known before resolution: the options' and the environment's. */
static int add_known_secrets(air_client *c)
{
	static const int32_t opts[] = {AIR_OPT_TOKEN, AIR_OPT_PASSWORD, AIR_OPT_CLIENT_SECRET};
	static const char *const env[] = {"DATABRICKS_TOKEN", "DATABRICKS_PASSWORD",
	                                  "DATABRICKS_CLIENT_SECRET"};
	int rc = AIR_OK;

	for (size_t i = 0; rc == AIR_OK && i < AIR__ARRAY_SIZE(opts); i++)
		rc = air__secrets_add(c->secrets, c->o.opt_str[opts[i]]);
	for (size_t i = 0; rc == AIR_OK && i < AIR__ARRAY_SIZE(env); i++)
		rc = air__secrets_add(c->secrets, air__client_env(c, env[i]));
	return rc;
}

int air_client_new(const air_client_options *opts, air_client **out, air_error **err)
{
	static const air_client_options defaults;
	air_client *c;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_new: out is NULL");
	*out = NULL;
	air__global_hold(); /* libcurl is loaded when a request needs it */
	if (!(c = air__calloc(1, sizeof(*c)))) {
		air_global_cleanup();
		return air__oom(err);
	}
	pthread_mutex_init(&c->resolve_lock, NULL);
	pthread_mutex_init(&c->cache_lock, NULL);
	atomic_init(&c->resolved, false);
	rc = options_copy(&c->o, opts ? opts : &defaults);
	if (rc == AIR_OK)
		rc = air__secrets_new(&c->secrets);
	if (rc == AIR_OK)
		rc = add_known_secrets(c);
	if (rc != AIR_OK) {
		air_client_free(c);
		return air__oom(err);
	}
	if ((rc = air__transport_new(&c->tp)) != AIR_OK) {
		air_client_free(c);
		return air__failf(err, rc, 0, "cannot set up the HTTP transport");
	}
	/* Resolution fills in the rest (set_env()); its own requests (host
	 * metadata, OAuth) already run with these. */
	c->http.tp = c->tp;
	c->http.secrets = c->secrets;
	c->http.client_intr = c->o.intr;
	c->http.debug = c->o.debug_cb;
	c->http.debug_ud = c->o.debug_ud;
	*out = c;
	return AIR_OK;
}

void air_client_free(air_client *c)
{
	if (!c)
		return;
	air__auth_free(c->auth);
	air__backend_free(c->backend);
	air__cfg_clear(&c->cfg);
	air_error_free(c->resolve_err);
	air__free(c->user_agent);
	air__free(c->user_name);
	air__transport_free(c->tp);
	air__secrets_free(c->secrets);
	options_clear(&c->o);
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

int air_client_options_set_str(air_client_options *c, int32_t opt, const char *value)
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
	return AIR_OK;
}

int air_client_options_set_int(air_client_options *c, int32_t opt, int64_t value)
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
	return AIR_OK;
}

int air_client_options_set_debug_cb(air_client_options *c, air_debug_cb cb, void *userdata)
{
	if (!c)
		return AIR_EINVAL;
	c->debug_cb = cb;
	c->debug_ud = cb ? userdata : NULL;
	return AIR_OK;
}

int air_client_options_set_interrupt(air_client_options *c, air_interrupt *intr)
{
	if (!c)
		return AIR_EINVAL;
	c->intr = intr;
	return AIR_OK;
}

void air__client_ctx(const air_client *c, const air__call_opts *call, air__ctx *ctx)
{
	air__ctx_init(ctx, call, c ? c->o.intr : NULL);
}

int air__client_options_set_environment(air_client_options *o, const char *const *envp)
{
	char **copy = NULL;

	if (envp && !(copy = env_copy(envp)))
		return AIR_ENOMEM;
	free_env(o->env);
	o->env = copy;
	return AIR_OK;
}

static int build_user_agent(air_client *c)
{
	const char *suffix = air__client_opt_str(c, AIR_OPT_USER_AGENT_SUFFIX);

	air__free(c->user_agent);
	c->user_agent = air__sprintf("libair/%s os/%s auth/%s%s%s", air_version_string(), AIR__OS,
	                             c->auth->type, suffix ? " " : "",
	                             suffix ? suffix : "");
	return c->user_agent ? AIR_OK : AIR_ENOMEM;
}

static int auth_hook(void *ud, const air__ctx *ctx, char **out, air_error **err)
{
	return air__auth_header(ud, ctx, out, err);
}

/* What the request engine runs with, from the resolved configuration. The
 * workspace id may still be learnt from host metadata: set_env() runs again
 * after it. */
static void set_env(air_client *c)
{
	air__http_settings *set = &c->http.set;

	set->host = c->cfg.attr[AIR__A_HOST];
	set->workspace_id = c->cfg.attr[AIR__A_WORKSPACE_ID];
	set->user_agent = c->user_agent;
	set->ca_file = air__client_opt_str(c, AIR_OPT_CA_FILE);
	set->skip_verify = c->cfg.skip_verify;
	set->connect_timeout_ms = air__client_opt_int(c, AIR_OPT_CONNECT_TIMEOUT_MS);
	set->request_timeout_ms = air__client_opt_int(c, AIR_OPT_REQUEST_TIMEOUT_MS);
	set->inactivity_ms = c->cfg.inactivity_ms;
	set->retry_deadline_ms = c->cfg.retry_deadline_ms;
	set->backoff_ms = air__client_opt_int(c, AIR_OPT_RETRY_BACKOFF_MS);
	set->rate_limit = c->cfg.rate_limit;
	set->max_parallel = air__client_opt_int(c, AIR_OPT_MAX_PARALLEL);
	c->http.auth = c->auth ? auth_hook : NULL;
	c->http.auth_ud = c;
	c->http.client_intr = c->o.intr;
	c->http.debug = c->o.debug_cb;
	c->http.debug_ud = c->o.debug_ud;
}

static int resolve_all(air_client *c, const air__ctx *ctx, air_error **err)
{
	int rc = air__resolve_config(c, err);

	/* The resolved credentials are secrets wherever they came from. */
	if (rc == AIR_OK && (air__secrets_add(c->secrets, c->cfg.attr[AIR__A_TOKEN]) ||
	                     air__secrets_add(c->secrets, c->cfg.attr[AIR__A_PASSWORD]) ||
	                     air__secrets_add(c->secrets, c->cfg.attr[AIR__A_CLIENT_SECRET])))
		rc = air__oom(err);
	if (rc == AIR_OK)
		rc = air__auth_select(c, err);
	if (rc == AIR_OK && (rc = build_user_agent(c)) != AIR_OK)
		rc = air__oom(err);
	if (rc == AIR_OK)
		rc = c->cfg.backend->open(c, &c->backend, err);
	if (rc != AIR_OK)
		return rc;
	set_env(c);
	air__client_debug(c, AIR_DEBUG_INFO, "host %s, profile %s, auth type %s",
	                  c->cfg.attr[AIR__A_HOST], c->cfg.profile ? c->cfg.profile : "-",
	                  c->auth->type);
	/* OAuth needs the host's OIDC endpoint; PAT and basic need no request. */
	if (c->auth->method == AIR__AUTH_M2M || c->auth->method == AIR__AUTH_U2M) {
		air__oauth_host_metadata(c, ctx);
		set_env(c);
		/* An interrupted metadata request says nothing about the host. */
		if ((rc = air__ctx_check(ctx, "resolving the configuration", err)) != AIR_OK)
			return rc;
	}
	return AIR_OK;
}

/* Undo a resolution that was interrupted: nothing of it is kept, so the next
 * call resolves afresh. Runs under the resolve lock before publication. */
static void forget_resolution(air_client *c)
{
	air__auth_free(c->auth);
	c->auth = NULL;
	air__backend_free(c->backend);
	c->backend = NULL;
	air__cfg_clear(&c->cfg);
	air__free(c->user_agent);
	c->user_agent = NULL;
	memset(&c->http.set, 0, sizeof(c->http.set));
	c->http.auth = NULL;
}

int air__client_ensure_resolved(air_client *c, const air__ctx *ctx, air_error **err)
{
	air__ctx own;
	int rc;

	if (!ctx) {
		air__client_ctx(c, NULL, &own);
		ctx = &own;
	}
	if (!atomic_load(&c->resolved)) {
		pthread_mutex_lock(&c->resolve_lock);
		if (!atomic_load(&c->resolved)) {
			air_error *e = NULL;

			rc = resolve_all(c, ctx, &e);
			if (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT) {
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

int air_client_resolve(air_client *c, const air_call_options *opts, air_error **err)
{
	char *header = NULL;
	air__ctx ctx;
	int rc;

	if (!c)
		return air__failf(err, AIR_EINVAL, 0, "air_client_resolve: client is NULL");
	air__client_ctx(c, opts ? &opts->call : NULL, &ctx);
	if ((rc = air__client_ensure_resolved(c, &ctx, err)) != AIR_OK)
		return rc;
	/* Fetch (or refresh) an OAuth token now so that bad credentials show early. */
	rc = air__auth_header(c, &ctx, &header, err);
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
	return resolved_ok(c) ? c->auth->type : NULL;
}

const char *air_client_profile(const air_client *c)
{
	return resolved_ok(c) ? c->cfg.profile : NULL;
}

const char *air__client_host(const air_client *c) { return air_client_host(c); }
const char *air__client_profile(const air_client *c) { return air_client_profile(c); }

const char *air__client_env(const air_client *c, const char *name)
{
	const char *v = NULL;
	size_t n = strlen(name);

	if (air__client_opt_int(c, AIR_OPT_USE_ENVIRONMENT) == 0)
		return NULL;
	if (c->o.env) {
		for (char **p = c->o.env; *p && !v; p++)
			if (strncmp(*p, name, n) == 0 && (*p)[n] == '=')
				v = *p + n + 1;
	} else {
		v = getenv(name);
	}
	return v && *v ? v : NULL;
}

const char *air__client_opt_str(const air_client *c, int32_t opt)
{
	return opt >= 1 && opt <= AIR__OPT_STR_MAX ? c->o.opt_str[opt] : NULL;
}

int64_t air__client_opt_int(const air_client *c, int32_t opt)
{
	size_t i = (size_t)(opt - AIR__OPT_INT_FIRST);

	if (opt < AIR__OPT_INT_FIRST || opt > AIR__OPT_INT_MAX)
		return 0;
	return c->o.opt_int_set[i] ? c->o.opt_int[i] : int_defaults[i];
}

bool air__client_opt_int_is_set(const air_client *c, int32_t opt)
{
	return opt >= AIR__OPT_INT_FIRST && opt <= AIR__OPT_INT_MAX &&
	       c->o.opt_int_set[opt - AIR__OPT_INT_FIRST];
}

int64_t air__client_poll_ms(const air_client *c)
{
	return resolved_ok(c) ? c->cfg.backend->poll_ms : air__backend_http.poll_ms;
}

const char *air__client_checks_path(const air_client *c)
{
	return resolved_ok(c) ? c->cfg.backend->checks_path : NULL;
}

/* Whether @c will resolve to a local workspace, told without resolving
 * (which may need credentials or a request): its host option, else
 * DATABRICKS_HOST unless a profile option is given. False when only a
 * profile could tell. */
static bool configured_local(const air_client *c)
{
	const char *host = air__client_opt_str(c, AIR_OPT_HOST);

	if (host && *host)
		return air__backend_local.serves(host);
	/* A profile option wins over DATABRICKS_HOST; DATABRICKS_CONFIG_PROFILE
	 * does not (lib/transport/resolve.c: the first value set wins). */
	if (air__client_opt_str(c, AIR_OPT_PROFILE) && *air__client_opt_str(c, AIR_OPT_PROFILE))
		return false;
	host = air__client_env(c, "DATABRICKS_HOST");
	return host && air__backend_local.serves(host);
}

const char *air__client_runs_environment(const air_client *c)
{
	if (resolved_ok(c))
		return c->cfg.backend->runs_environment;
	return configured_local(c) ? air__backend_local.runs_environment : NULL;
}

bool air__client_schedules_runs(const air_client *c)
{
	return resolved_ok(c) ? c->cfg.backend->schedules_runs : air__backend_http.schedules_runs;
}

int64_t air__client_sweep_parallel(const air_client *c)
{
	return resolved_ok(c) ? c->cfg.backend->sweep_parallel : air__backend_http.sweep_parallel;
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

	if (!c || !c->o.debug_cb)
		return;
	va_start(ap, fmt);
	text = air__vsprintf(fmt, ap);
	va_end(ap);
	air__http_debug(&c->http, type, "%s", text ? text : "");
	air__free(text);
}

int air__client_add_secret(air_client *c, const char *value)
{
	return air__secrets_add(c->secrets, value);
}
