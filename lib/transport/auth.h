/*
 * auth.h: credential providers.
 *
 * auth.c       selection, PAT and basic headers, the token cache with
 *              single-flight refresh, redaction of known secrets
 * oauth.c host metadata, OAuth discovery, the token endpoint (retries),
 *              M2M client credentials
 * u2m.c   the `databricks auth login` plaintext token cache
 */
#ifndef AIR_TRANSPORT_AUTH_H
#define AIR_TRANSPORT_AUTH_H

#include "transport/client_priv.h"

typedef enum air__auth_method {
	AIR__AUTH_PAT,
	AIR__AUTH_BASIC,
	AIR__AUTH_M2M,
	AIR__AUTH_U2M,
	AIR__AUTH_NONE    /* the backend sends no credentials at all */
} air__auth_method;

/* An OAuth token. expiry_ms is epoch ms UTC; 0 means it does not expire. */
typedef struct air__token {
	char *access_token;
	char *token_type;
	char *refresh_token;
	int64_t expiry_ms;
} air__token;

struct air__auth {
	air__auth_method method;
	const char *type;        /* the auth type the client reports (static) */
	char *header;            /* PAT/basic: the complete Authorization header line */
	char *cache_key;         /* U2M: key in the token cache */
	pthread_mutex_t lock;    /* guards everything below */
	/* Single flight: one thread fetches a token (refreshing), the others
	 * wait on refreshed and then use the outcome of that request. */
	pthread_cond_t refreshed;
	bool refreshing;
	uint64_t refreshes;      /* token requests completed (not interrupted) */
	air_error *refresh_err;  /* the last one's error when it failed, else NULL */
	/* After a refresh failed while the token was still valid: monotonic ms
	 * before which no refresh is tried and the token is used as it is. */
	int64_t retry_not_before;
	char *token_endpoint;
	air__token tok;
	bool have_tok;
};

/* ---- auth.c ---- */
/* Choose the credential method of the resolved configuration into c->auth.
 * Reads the U2M token cache when that method is considered; no network. */
int air__auth_select(air_client *c, air_error **err);
void air__auth_free(air__auth *a);
const char *air__auth_method_name(air__auth_method m);
/* "Authorization: ..." for a request, fetching or refreshing an OAuth token
 * when needed (one request for all concurrent callers; see auth.c for the
 * refresh policy). *out: air__free_secret(). */
int air__auth_header(air_client *c, const air__ctx *ctx, char **out, air_error **err);

/* ---- oauth.c ---- */
void air__token_clear(air__token *t);
/* GET /.well-known/databricks-config; fills empty fields of c->cfg. Failures
 * are ignored. Only during resolution (c->cfg is still private then). */
void air__oauth_host_metadata(air_client *c, const air__ctx *ctx);
/* The token endpoint from discovery (discovery_url, else the host's OIDC
 * metadata), retried like any request within the client's retry deadline;
 * a single attempt when @once. *out: air__free(). */
int air__oauth_discover(air_client *c, const air__ctx *ctx, bool once, char **out,
                        air_error **err);
/* POST @form to @endpoint (with @extra_header, e.g. Basic credentials, or
 * NULL), retrying 429/502/503/504 and connection failures for at most a
 * minute (never beyond the client's retry deadline), honouring Retry-After;
 * a single attempt when @once. */
int air__oauth_request(air_client *c, const air__ctx *ctx, const char *endpoint,
                       const char *form, const char *extra_header, bool once, air__token *out,
                       air_error **err);
/* A token endpoint's reply (@len bytes of JSON) into *out: AIR_EPROTO (naming
 * @endpoint) without a non-empty access_token, or with a control character in
 * it or its token_type; expires_in is clamped to about ten years. */
int air__oauth_parse_token(const char *body, size_t len, const char *endpoint, air__token *out,
                           air_error **err);
/* M2M client-credentials grant (@once as for air__oauth_request). */
int air__oauth_m2m_token(air_client *c, const air__ctx *ctx, const char *endpoint, bool once,
                         air__token *out, air_error **err);
/* application/x-www-form-urlencoded value ("s3cr t" -> "s3cr+t"). */
void air__buf_put_form(air__buf *b, const char *s);

/* ---- u2m.c ---- */
/* Token cache entry @key: AIR_OK, AIR_ENOTFOUND (no file, no entry; no error
 * object) or AIR_EIO (unreadable, malformed, unsupported version). */
int air__u2m_load(const air_client *c, const char *key, air__token *out, air_error **err);
/* Store @tok under @key, and under every other key whose refresh token is
 * @spent_refresh_token (may be NULL): atomic rewrite, directory 0700, file 0600. */
int air__u2m_store(const air_client *c, const char *key, const air__token *tok,
                   const char *spent_refresh_token, air_error **err);
/* Path of the plaintext token cache, or NULL without a home directory. */
char *air__u2m_cache_path(const air_client *c);
/* Refresh-token grant for @old (@once as for air__oauth_request); keeps the
 * old refresh token when the reply has none and stores the result in the cache. */
int air__u2m_refresh(air_client *c, const air__ctx *ctx, const char *endpoint,
                     const char *cache_key, const air__token *old, bool once, air__token *out,
                     air_error **err);

#endif /* AIR_TRANSPORT_AUTH_H */
