/*
 * auth.c: credential selection (CLI_AND_OUTPUT.md §6.4), the Authorization
 * header of every request, and redaction of the secrets a client knows.
 */
#include <string.h>

#include "auth.h"

/* Refresh OAuth tokens this long before they expire. */
#define M2M_REFRESH_MARGIN_MS (60 * 1000)
#define U2M_REFRESH_MARGIN_MS (5 * 60 * 1000)

const char *air__auth_method_name(air__auth_method m)
{
	switch (m) {
	case AIR__AUTH_PAT:
		return "pat";
	case AIR__AUTH_BASIC:
		return "basic";
	case AIR__AUTH_M2M:
		return "oauth-m2m";
	case AIR__AUTH_U2M:
		return "databricks-cli";
	}
	return "?";
}

void air__auth_free(air__auth *a)
{
	if (!a)
		return;
	air__free_secret(a->header);
	air__free(a->cache_key);
	air__free(a->token_endpoint);
	air__token_clear(&a->tok);
	pthread_mutex_destroy(&a->lock);
	pthread_mutex_destroy(&a->refresh_lock);
	air__free(a);
}

static air__auth *auth_new(air__auth_method m)
{
	air__auth *a = air__calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->method = m;
	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&a->refresh_lock, NULL);
	return a;
}

static char *basic_header(const char *user, const char *password)
{
	char *pair = air__sprintf("%s:%s", user, password), *b64, *h;

	if (!pair)
		return NULL;
	b64 = air__base64(pair, strlen(pair));
	air__free_secret(pair);
	if (!b64)
		return NULL;
	h = air__sprintf("Authorization: Basic %s", b64);
	air__free_secret(b64);
	return h;
}

/* The U2M cache key: the profile name when resolved through a profile,
 * else the host (CLI_AND_OUTPUT.md §6.9). */
static char *u2m_cache_key(const air__cfg *cfg)
{
	if (cfg->through_profile && cfg->profile)
		return air__strdup(cfg->profile);
	return air__strdup(cfg->attr[AIR__A_HOST]);
}

static bool secure_storage_chosen(const air__cfg *cfg)
{
	return cfg->auth_storage_explicit && strcmp(cfg->auth_storage, "secure") == 0;
}

static int secure_storage_error(air_error **err)
{
	return air__failf(err, AIR_EUNSUPPORTED, AIR_KIND_PERMANENT,
	                  "token storage \"secure\" (the OS keyring) is not available in libair: "
	                  "set DATABRICKS_AUTH_STORAGE=plaintext and run databricks auth login again");
}

static const char *login_hint(const air__cfg *cfg, air__buf *b)
{
	if (cfg->through_profile && cfg->profile)
		air__buf_printf(b, "databricks auth login --profile %s", cfg->profile);
	else
		air__buf_printf(b, "databricks auth login --host %s", cfg->attr[AIR__A_HOST]);
	return air__buf_cstr(b);
}

/* Look for a cached `databricks auth login` token. AIR_ENOTFOUND when none. */
static int try_u2m(air_client *c, bool pinned, air__auth **out, air_error **err)
{
	const air__cfg *cfg = &c->cfg;
	air__auth *a;
	char *key;
	int rc;

	if (secure_storage_chosen(cfg))
		return pinned ? secure_storage_error(err) : AIR_ENOTFOUND;
	if (!(key = u2m_cache_key(cfg)))
		return AIR_ENOMEM;
	if (!(a = auth_new(AIR__AUTH_U2M))) {
		air__free(key);
		return AIR_ENOMEM;
	}
	a->cache_key = key;
	rc = air__u2m_load(c, key, &a->tok, err);
	if (rc == AIR_ENOTFOUND && pinned) {
		air__buf hint = AIR__BUF_INIT;
		char *path = air__u2m_cache_path(c);
		rc = air__failf(err, AIR_EAUTH, 0,
		                "auth type databricks-cli: no cached login for \"%s\" in %s; run %s",
		                key, path ? path : "~/.databricks/token-cache.json",
		                login_hint(cfg, &hint));
		air__free(path);
		air__buf_dispose(&hint);
	}
	if (rc != AIR_OK) {
		air__auth_free(a);
		return rc;
	}
	a->have_tok = true;
	*out = a;
	return AIR_OK;
}

static int no_credentials(const air_client *c, air_error **err)
{
	const air__cfg *cfg = &c->cfg;

	return air__failf(err, AIR_EAUTH, 0,
	                  "no credentials configured for %s%s%s%s: no default profile is "
	                  "configured; pass --profile or create one (databricks configure, or "
	                  "databricks auth login), or set DATABRICKS_TOKEN%s",
	                  cfg->attr[AIR__A_HOST], cfg->profile ? " (profile " : "",
	                  cfg->profile ? cfg->profile : "", cfg->profile ? ")" : "",
	                  secure_storage_chosen(cfg)
	                          ? " (cached logins in the OS keyring cannot be read: set "
	                            "DATABRICKS_AUTH_STORAGE=plaintext and log in again)"
	                          : "");
}

static int missing_input(const char *type, const char *what, air_error **err)
{
	return air__failf(err, AIR_EAUTH, 0, "auth type %s needs %s", type, what);
}

int air__auth_select(air_client *c, air_error **err)
{
	const air__cfg *cfg = &c->cfg;
	const char *type = cfg->attr[AIR__A_AUTH_TYPE];
	const char *token = cfg->attr[AIR__A_TOKEN], *user = cfg->attr[AIR__A_USERNAME],
	           *pass = cfg->attr[AIR__A_PASSWORD], *cid = cfg->attr[AIR__A_CLIENT_ID],
	           *secret = cfg->attr[AIR__A_CLIENT_SECRET];
	air__auth *a = NULL;
	int rc = AIR_OK;

	air__auth_free(c->auth);
	c->auth = NULL;
	if (type && strcmp(type, "pat") == 0 && !token)
		return missing_input(type, "a token (DATABRICKS_TOKEN)", err);
	if (type && strcmp(type, "basic") == 0 && !(user && pass))
		return missing_input(type, "a username and a password", err);
	if (type && strcmp(type, "oauth-m2m") == 0 && !(cid && secret))
		return missing_input(type, "client_id and client_secret", err);

	if ((!type || strcmp(type, "pat") == 0) && token) {
		if ((a = auth_new(AIR__AUTH_PAT)) != NULL &&
		    !(a->header = air__sprintf("Authorization: Bearer %s", token)))
			rc = AIR_ENOMEM;
	} else if ((!type || strcmp(type, "basic") == 0) && user && pass) {
		if ((a = auth_new(AIR__AUTH_BASIC)) != NULL && !(a->header = basic_header(user, pass)))
			rc = AIR_ENOMEM;
	} else if ((!type || strcmp(type, "oauth-m2m") == 0) && cid && secret) {
		a = auth_new(AIR__AUTH_M2M);
	} else if (!type || strcmp(type, "databricks-cli") == 0) {
		rc = try_u2m(c, type != NULL, &a, err);
		if (rc == AIR_ENOTFOUND)
			return no_credentials(c, err);
		if (rc != AIR_OK)
			return rc;
	}
	if (rc == AIR_OK && !a)
		rc = AIR_ENOMEM;
	if (rc != AIR_OK) {
		air__auth_free(a);
		return air__failf(err, rc, 0, "out of memory setting up credentials");
	}
	c->auth = a;
	air__client_debug(c, AIR_DEBUG_INFO, "auth type %s%s%s", air__auth_method_name(a->method),
	                  a->cache_key ? ", token cache key " : "", a->cache_key ? a->cache_key : "");
	return AIR_OK;
}

static bool token_fresh(const air__token *t, int64_t margin_ms, int64_t now_ms)
{
	return t->access_token && (t->expiry_ms == 0 || t->expiry_ms - margin_ms > now_ms);
}

static char *bearer(const air__token *t)
{
	const char *type = t->token_type && *t->token_type ? t->token_type : "Bearer";

	/* The wire always says "Bearer"; servers may answer "bearer". */
	if (air__strcasecmp(type, "bearer") == 0)
		type = "Bearer";
	return air__sprintf("Authorization: %s %s", type, t->access_token);
}

static int copy_token(air__token *dst, const air__token *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->access_token = air__strdup(src->access_token);
	dst->token_type = air__strdup(src->token_type);
	dst->refresh_token = air__strdup(src->refresh_token);
	dst->expiry_ms = src->expiry_ms;
	if ((src->access_token && !dst->access_token) || (src->token_type && !dst->token_type) ||
	    (src->refresh_token && !dst->refresh_token)) {
		air__token_clear(dst);
		return AIR_ENOMEM;
	}
	return AIR_OK;
}

/* Fetch a new token (M2M grant or U2M refresh). Runs under refresh_lock only. */
static int fetch_token(air_client *c, const air__ctx *ctx, air__auth *a, const air__token *old,
                       air__token *out, air_error **err)
{
	char *endpoint = NULL;
	int rc = AIR_OK;

	pthread_mutex_lock(&a->lock);
	if (a->token_endpoint && !(endpoint = air__strdup(a->token_endpoint)))
		rc = AIR_ENOMEM;
	pthread_mutex_unlock(&a->lock);
	if (rc != AIR_OK)
		return air__failf(err, rc, 0, "out of memory");
	if (!endpoint) {
		if ((rc = air__oauth_discover(c, ctx, &endpoint, err)) != AIR_OK)
			return rc;
		pthread_mutex_lock(&a->lock);
		if (!a->token_endpoint)
			a->token_endpoint = air__strdup(endpoint);
		pthread_mutex_unlock(&a->lock);
	}
	if (a->method == AIR__AUTH_M2M)
		rc = air__oauth_m2m_token(c, ctx, endpoint, out, err);
	else
		rc = air__u2m_refresh(c, ctx, endpoint, a->cache_key, old, out, err);
	air__free(endpoint);
	return rc;
}

int air__auth_header(air_client *c, const air__ctx *ctx, char **out, air_error **err)
{
	air__auth *a = c->auth;
	int64_t margin = a && a->method == AIR__AUTH_U2M ? U2M_REFRESH_MARGIN_MS : M2M_REFRESH_MARGIN_MS;
	air__token old = {0}, fresh = {0};
	air_error *e = NULL;
	int rc;

	*out = NULL;
	if (!a)
		return air__failf(err, AIR_EINTERNAL, 0, "credentials used before resolution");
	if (a->header)
		return (*out = air__strdup(a->header)) ? AIR_OK : AIR_ENOMEM;

	pthread_mutex_lock(&a->lock);
	if (a->have_tok && token_fresh(&a->tok, margin, air__now_ms()))
		*out = bearer(&a->tok);
	pthread_mutex_unlock(&a->lock);
	if (*out)
		return AIR_OK;

	/* Single flight: the first thread fetches, the others wait here and
	 * then find the fresh token. */
	pthread_mutex_lock(&a->refresh_lock);
	pthread_mutex_lock(&a->lock);
	if (a->have_tok && token_fresh(&a->tok, margin, air__now_ms()))
		*out = bearer(&a->tok);
	rc = *out || !a->have_tok ? AIR_OK : copy_token(&old, &a->tok);
	pthread_mutex_unlock(&a->lock);
	if (*out || rc != AIR_OK) {
		pthread_mutex_unlock(&a->refresh_lock);
		return *out ? AIR_OK : air__failf(err, rc, 0, "out of memory");
	}

	rc = fetch_token(c, ctx, a, &old, &fresh, &e);
	pthread_mutex_lock(&a->lock);
	if (rc == AIR_OK) {
		air__token_clear(&a->tok);
		a->tok = fresh;
		a->have_tok = true;
		*out = bearer(&a->tok);
	} else if (rc != AIR_EINTERRUPTED && token_fresh(&old, 0, air__now_ms())) {
		/* A failed refresh is not fatal while the old token still works. */
		*out = bearer(&old);
	}
	pthread_mutex_unlock(&a->lock);
	pthread_mutex_unlock(&a->refresh_lock);
	air__token_clear(&old);
	if (*out) {
		if (rc != AIR_OK)
			air__client_debug(c, AIR_DEBUG_INFO,
			                  "token refresh failed (%s); using the current token",
			                  air_error_message(e));
		air_error_free(e);
		return AIR_OK;
	}
	if (rc == AIR_OK)
		return air__failf(err, AIR_ENOMEM, 0, "out of memory");
	return air__fail(err, air__auth_redact(c, e));
}

/* ---- redaction ------------------------------------------------------------ */

static void scrub_one(air__buf *b, const char *secret)
{
	size_t n = secret ? strlen(secret) : 0;
	air__buf out = AIR__BUF_INIT;
	const char *p, *hit;

	if (n < 4 || !b->ptr || !strstr(b->ptr, secret))
		return;
	for (p = b->ptr; (hit = strstr(p, secret)) != NULL; p = hit + n) {
		air__buf_put(&out, p, (size_t)(hit - p));
		air__buf_puts(&out, "[REDACTED]");
	}
	air__buf_puts(&out, p);
	if (air__buf_oom(&out)) {
		/* Never let the secret through: drop the text instead. */
		air__buf_dispose(&out);
		air__buf_clear(b);
		air__buf_puts(b, "[withheld]");
		return;
	}
	air__free(b->ptr);
	*b = out;
}

void air__auth_scrub(const air_client *c, air__buf *b)
{
	static const int32_t secret_opts[] = {AIR_OPT_TOKEN, AIR_OPT_PASSWORD, AIR_OPT_CLIENT_SECRET};
	static const char *const secret_env[] = {"DATABRICKS_TOKEN", "DATABRICKS_PASSWORD",
	                                         "DATABRICKS_CLIENT_SECRET"};
	air__auth *a;

	for (size_t i = 0; i < AIR__ARRAY_SIZE(secret_opts); i++)
		scrub_one(b, air__client_opt_str(c, secret_opts[i]));
	for (size_t i = 0; i < AIR__ARRAY_SIZE(secret_env); i++)
		scrub_one(b, air__client_env(c, secret_env[i]));
	/* The resolved configuration is only stable once resolution finished. */
	if (!atomic_load(&((air_client *)c)->resolved))
		return;
	scrub_one(b, c->cfg.attr[AIR__A_TOKEN]);
	scrub_one(b, c->cfg.attr[AIR__A_PASSWORD]);
	scrub_one(b, c->cfg.attr[AIR__A_CLIENT_SECRET]);
	if (!(a = c->auth))
		return;
	if (a->header)
		scrub_one(b, strchr(a->header, ' ') ? strrchr(a->header, ' ') + 1 : NULL);
	pthread_mutex_lock(&a->lock);
	scrub_one(b, a->tok.access_token);
	scrub_one(b, a->tok.refresh_token);
	pthread_mutex_unlock(&a->lock);
}

air_error *air__auth_redact(const air_client *c, air_error *e)
{
	air__buf b = AIR__BUF_INIT;
	const char *msg = air_error_message(e);

	air__buf_puts(&b, msg);
	air__auth_scrub(c, &b);
	if (air__buf_oom(&b))
		air__error_set_message(e, "[message withheld]");
	else if (strcmp(air__buf_cstr(&b), msg) != 0)
		air__error_set_message(e, "%s", air__buf_cstr(&b));
	air__buf_dispose(&b);
	return e;
}
