/*
 * auth.c: credential selection (docs/auth.md), and the Authorization header
 * of every request, with the single-flight token refresh. Every credential
 * it learns goes into the client's secret set.
 */
#include <string.h>
#include <time.h>

#include "transport/auth.h"

/* Refresh OAuth tokens this long before they expire. */
#define M2M_REFRESH_MARGIN_MS (60 * 1000)
#define U2M_REFRESH_MARGIN_MS (5 * 60 * 1000)
/* A refresh that fails while the token is still valid is not tried again for
 * this many back-off units (AIR_OPT_RETRY_BACKOFF_MS; 30 s by default), and
 * never later than the token's expiry. */
#define REFRESH_BACKOFF_UNITS 30
/* A thread waiting for another thread's token request looks at its
 * interrupts this often. */
#define WAIT_SLICE_MS 50

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
	case AIR__AUTH_NONE:
		return "none";
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
	air_error_free(a->refresh_err);
	pthread_cond_destroy(&a->refreshed);
	pthread_mutex_destroy(&a->lock);
	air__free(a);
}

static air__auth *auth_new(air__auth_method m)
{
	air__auth *a = air__calloc(1, sizeof(*a));
	pthread_condattr_t attr;

	if (!a)
		return NULL;
	a->method = m;
	a->type = air__auth_method_name(m);
	pthread_mutex_init(&a->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&a->refreshed, &attr);
	pthread_condattr_destroy(&attr);
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
 * else the host. */
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
	if (rc == AIR_OK) {
		air__secrets_add(c->secrets, a->tok.access_token);
		air__secrets_add(c->secrets, a->tok.refresh_token);
	}
	if (rc == AIR_OK &&
	    (air__find_control(a->tok.access_token) || air__find_control(a->tok.token_type))) {
		char *path = air__u2m_cache_path(c);
		rc = air__failf(err, AIR_EAUTH, AIR_KIND_PERMANENT,
		                "token cache %s, entry \"%s\": the access token (or its type) contains a "
		                "control character; log in again (databricks auth login)",
		                path ? path : "~/.databricks/token-cache.json", key);
		air__free(path);
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

	air_error *e = air__error_new(
	        AIR_EAUTH, 0,
	        "no credentials configured for %s%s%s%s: no default profile is configured; choose a "
	        "profile (the profile option or DATABRICKS_CONFIG_PROFILE) or create one "
	        "(databricks configure, or databricks auth login), or set DATABRICKS_TOKEN%s",
	        cfg->attr[AIR__A_HOST], cfg->profile ? " (profile " : "",
	        cfg->profile ? cfg->profile : "", cfg->profile ? ")" : "",
	        secure_storage_chosen(cfg) ? " (cached logins in the OS keyring cannot be read: set "
	                                     "DATABRICKS_AUTH_STORAGE=plaintext and log in again)"
	                                   : "");

	return air__fail(err, air__error_set_field(e, "profile"));
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
	if (!cfg->backend->credentials) {
		/* Credentials are neither needed nor read: the backend sends none. */
		if (!(c->auth = auth_new(AIR__AUTH_NONE)))
			return air__oom(err);
		c->auth->type = cfg->backend->name;
		return AIR_OK;
	}
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
		/* The Basic value itself is a secret: base64 hides nothing. */
		if (rc == AIR_OK && a)
			rc = air__secrets_add(c->secrets, strrchr(a->header, ' ') + 1);
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

/* Fetch a new token (M2M grant or U2M refresh); only the thread that set
 * a->refreshing calls this, without holding a->lock. A single attempt of
 * each request when @once. */
static int fetch_token(air_client *c, const air__ctx *ctx, air__auth *a, const air__token *old,
                       bool once, air__token *out, air_error **err)
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
		if ((rc = air__oauth_discover(c, ctx, once, &endpoint, err)) != AIR_OK)
			return rc;
		pthread_mutex_lock(&a->lock);
		if (!a->token_endpoint)
			a->token_endpoint = air__strdup(endpoint);
		pthread_mutex_unlock(&a->lock);
	}
	if (a->method == AIR__AUTH_M2M)
		rc = air__oauth_m2m_token(c, ctx, endpoint, once, out, err);
	else
		rc = air__u2m_refresh(c, ctx, endpoint, a->cache_key, old, once, out, err);
	air__free(endpoint);
	return rc;
}

/* Wait up to WAIT_SLICE_MS for a->refreshed; a->lock is held. */
static void wait_slice(air__auth *a)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += WAIT_SLICE_MS * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&a->refreshed, &a->lock, &ts);
}

/* Outcomes of take_turn(). */
enum { TURN_USE, TURN_FETCH, TURN_FAILED };

/*
 * With a->lock held: decide what this call does. TURN_USE: *out is the
 * header of the current token (fresh; or still valid while a failed refresh
 * backs off; or valid after the request this thread waited for). TURN_FETCH:
 * this thread fetches (a->refreshing is set, *old holds the current token,
 * *proactive says whether it is still valid). TURN_FAILED: *e is the error
 * (the failed request this thread waited for, an interrupt, no memory).
 */
static int take_turn(air_client *c, const air__ctx *ctx, air__auth *a, int64_t margin,
                     char **out, air__token *old, bool *proactive, air_error **e)
{
	bool waited = false;
	uint64_t seen = 0;

	for (;;) {
		int64_t now = air__now_ms();
		bool valid = a->have_tok && token_fresh(&a->tok, 0, now);
		bool done_waiting = waited && a->refreshes != seen;

		if ((a->have_tok && token_fresh(&a->tok, margin, now)) ||
		    (valid && (done_waiting || air__mono_ms() < a->retry_not_before))) {
			if ((*out = bearer(&a->tok)) != NULL)
				return TURN_USE;
			*e = air__error_new(AIR_ENOMEM, 0, "out of memory");
			return TURN_FAILED;
		}
		if (done_waiting) {
			/* The request this thread waited for failed and left no usable
			 * token: its error is this call's outcome too, not a new request. */
			*e = a->refresh_err ? air__error_clone(a->refresh_err)
			                    : air__error_new(AIR_EAUTH, 0, "token request failed");
			return TURN_FAILED;
		}
		if (!a->refreshing) {
			if (a->have_tok && copy_token(old, &a->tok) != AIR_OK) {
				*e = air__error_new(AIR_ENOMEM, 0, "out of memory");
				return TURN_FAILED;
			}
			a->refreshing = true;
			*proactive = valid;
			return TURN_FETCH;
		}
		if (!waited) {
			waited = true;
			seen = a->refreshes;
		}
		if (air__ctx_check(ctx, "waiting for a token request", NULL) != AIR_OK ||
		    air__interrupted(c->o.intr)) {
			*e = air__interrupted(c->o.intr) || air__ctx_interrupted(ctx)
			             ? air__error_new(AIR_EINTERRUPTED, 0,
			                              "interrupted while waiting for a token request")
			             : air__ctx_deadline_error(ctx, "waiting for a token request");
			return TURN_FAILED;
		}
		wait_slice(a);
	}
}

/*
 * The token policy: a fresh token is used as it is. A token within its
 * refresh margin but still valid gets one refresh attempt (no retries);
 * when that fails, the token is used until it expires and no refresh is
 * tried for REFRESH_BACKOFF_UNITS back-off units. Without a valid token the
 * request is retried as usual. One thread makes the request; threads that
 * waited for it take its outcome, success or failure, and make none.
 */
int air__auth_header(air_client *c, const air__ctx *ctx, char **out, air_error **err)
{
	air__auth *a = c->auth;
	int64_t margin = a && a->method == AIR__AUTH_U2M ? U2M_REFRESH_MARGIN_MS : M2M_REFRESH_MARGIN_MS;
	int64_t backoff = REFRESH_BACKOFF_UNITS * air__client_opt_int(c, AIR_OPT_RETRY_BACKOFF_MS);
	air__token old = {0}, fresh = {0};
	air_error *e = NULL;
	bool proactive = false;
	int64_t pause = 0;
	int rc, turn;

	*out = NULL;
	if (!a)
		return air__failf(err, AIR_EINTERNAL, 0, "credentials used before resolution");
	if (a->header)
		return (*out = air__strdup(a->header)) ? AIR_OK : AIR_ENOMEM;
	if (a->method == AIR__AUTH_NONE)
		return AIR_OK; /* no Authorization header */

	pthread_mutex_lock(&a->lock);
	turn = take_turn(c, ctx, a, margin, out, &old, &proactive, &e);
	pthread_mutex_unlock(&a->lock);
	if (turn == TURN_USE)
		return AIR_OK;
	if (turn == TURN_FAILED)
		return air__fail(err, e);

	rc = fetch_token(c, ctx, a, &old, proactive, &fresh, &e);
	if (rc != AIR_OK && !e)
		e = air__error_new(rc, 0, "token request failed");
	if (rc == AIR_OK) {
		air__secrets_add(c->secrets, fresh.access_token);
		air__secrets_add(c->secrets, fresh.refresh_token);
	} else {
		e = air__secrets_redact(c->secrets, e);
	}
	pthread_mutex_lock(&a->lock);
	a->refreshing = false;
	if (rc != AIR_EINTERRUPTED && rc != AIR_ETIMEOUT) {
		/* An interrupted request says nothing: a waiting thread tries itself. */
		a->refreshes++;
		air_error_free(a->refresh_err);
		a->refresh_err = rc == AIR_OK ? NULL : air__error_clone(e);
	}
	if (rc == AIR_OK) {
		air__token_clear(&a->tok);
		a->tok = fresh;
		a->have_tok = true;
		a->retry_not_before = 0;
		*out = bearer(&a->tok);
	} else if (rc != AIR_EINTERRUPTED && rc != AIR_ETIMEOUT && token_fresh(&old, 0, air__now_ms())) {
		/* A failed refresh is not fatal while the old token still works:
		 * use it, and leave the token endpoint alone for a while. */
		int64_t left = old.expiry_ms ? old.expiry_ms - air__now_ms() : backoff;
		pause = backoff < left ? backoff : left;
		a->retry_not_before = air__mono_ms() + pause;
		*out = bearer(&old);
	}
	pthread_cond_broadcast(&a->refreshed);
	pthread_mutex_unlock(&a->lock);
	air__token_clear(&old);
	if (*out) {
		if (rc != AIR_OK)
			air__client_debug(c, AIR_DEBUG_INFO,
			                  "token refresh failed (%s); using the current token, next "
			                  "refresh in %lld ms at the earliest",
			                  air_error_message(e), (long long)pause);
		air_error_free(e);
		return AIR_OK;
	}
	if (rc == AIR_OK)
		return air__oom(err);
	return air__fail(err, e);
}
