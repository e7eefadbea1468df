/*
 * oauth.c: host metadata, OAuth endpoint
 * discovery, the token endpoint with its own retry policy and the
 * M2M client-credentials grant.
 */
#include <string.h>

#include "transport/auth.h"
#include "core/core.h"

#define TOKEN_RETRY_BUDGET_MS (60 * 1000) /* token calls retry for at most a minute */
/* Longest token lifetime believed: expires_in comes from the server, and a
 * larger value must not overflow the expiry arithmetic. */
#define TOKEN_MAX_LIFETIME_S (10LL * 366 * 24 * 3600)

void air__token_clear(air__token *t)
{
	air__free_secret(t->access_token);
	air__free(t->token_type);
	air__free_secret(t->refresh_token);
	memset(t, 0, sizeof(*t));
}

void air__buf_put_form(air__buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~') {
			air__buf_putc(b, (char)c);
		} else if (c == ' ') {
			air__buf_putc(b, '+');
		} else {
			char enc[3] = {'%', hex[c >> 4], hex[c & 15]};
			air__buf_put(b, enc, 3);
		}
	}
}

/* Fill an empty attribute from the metadata (never with a value a header
 * could not carry). */
static void fill(air__cfg *cfg, air__attr a, const char *value)
{
	if (value && *value && !air__find_control(value) && !cfg->attr[a] &&
	    (cfg->attr[a] = air__strdup(value)) != NULL)
		cfg->src[a] = AIR__SRC_METADATA;
}

/* "<oidc_endpoint with {account_id}>/.well-known/oauth-authorization-server" */
static char *discovery_from_oidc(const char *oidc, const char *account_id)
{
	air__buf b = AIR__BUF_INIT;
	const char *mark = strstr(oidc, "{account_id}");
	size_t n;

	if (mark && !account_id)
		return NULL;
	if (mark) {
		air__buf_put(&b, oidc, (size_t)(mark - oidc));
		air__buf_puts(&b, account_id);
		air__buf_puts(&b, mark + strlen("{account_id}"));
	} else {
		air__buf_puts(&b, oidc);
	}
	n = b.len;
	while (n > 0 && b.ptr[n - 1] == '/')
		n--;
	b.len = n;
	if (b.ptr)
		b.ptr[n] = '\0';
	air__buf_puts(&b, "/.well-known/oauth-authorization-server");
	return air__buf_detach(&b);
}

void air__oauth_host_metadata(air_client *c, const air__ctx *ctx)
{
	air__http_req req = {.method = "GET", .path = "/.well-known/databricks-config",
	                     .flags = AIR__HTTP_NO_AUTH | AIR__HTTP_NO_RETRY |
	                              AIR__HTTP_NO_WORKSPACE};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air__cfg *cfg = &c->cfg;
	json_t *md;
	const char *oidc;

	if (air__http_run(&c->http, ctx, &req, 1, &resp, NULL) != AIR_OK) {
		air__client_debug(c, AIR_DEBUG_INFO, "no host metadata (HTTP %d); continuing",
		                  (int)resp.status);
		air__http_resp_clear(&resp);
		return;
	}
	md = json_loadb(resp.body ? resp.body : "", resp.body_len, 0, NULL);
	air__http_resp_clear(&resp);
	if (!json_is_object(md)) {
		json_decref(md);
		return;
	}
	fill(cfg, AIR__A_ACCOUNT_ID, air__json_nonempty(md, "account_id"));
	fill(cfg, AIR__A_WORKSPACE_ID, air__json_nonempty(md, "workspace_id"));
	if (!cfg->host_type && air__json_nonempty(md, "host_type"))
		cfg->host_type = air__strdup(air__json_nonempty(md, "host_type"));
	if (!cfg->attr[AIR__A_DISCOVERY_URL] && (oidc = air__json_nonempty(md, "oidc_endpoint"))) {
		char *url = discovery_from_oidc(oidc, cfg->attr[AIR__A_ACCOUNT_ID]);
		fill(cfg, AIR__A_DISCOVERY_URL, url);
		air__free(url);
	}
	air__client_debug(c, AIR_DEBUG_INFO, "host metadata: host_type %s, workspace_id %s",
	                  cfg->host_type ? cfg->host_type : "-",
	                  cfg->attr[AIR__A_WORKSPACE_ID] ? cfg->attr[AIR__A_WORKSPACE_ID] : "-");
	json_decref(md);
}

int air__oauth_discover(air_client *c, const air__ctx *ctx, bool once, char **out,
                        air_error **err)
{
	const char *configured = c->cfg.attr[AIR__A_DISCOVERY_URL];
	char *url = configured ? air__strdup(configured)
	                       : air__sprintf("%s/oidc/.well-known/oauth-authorization-server",
	                                      c->cfg.attr[AIR__A_HOST]);
	air__http_req req = {.method = "GET", .path = url,
	                     .flags = AIR__HTTP_NO_AUTH | AIR__HTTP_ABSOLUTE_URL |
	                              AIR__HTTP_NO_WORKSPACE | (once ? AIR__HTTP_NO_RETRY : 0)};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *e = NULL;
	json_t *doc = NULL;
	const char *endpoint;
	int rc;

	*out = NULL;
	if (!url)
		return air__oom(err);
	/* Its answer names where the client secret goes: never over plain http. */
	if ((rc = air__check_url_safe(url, "the OAuth discovery URL", err)) != AIR_OK) {
		air__free(url);
		return rc;
	}
	rc = air__http_run(&c->http, ctx, &req, 1, &resp, &e);
	if (rc != AIR_OK && resp.status == 404) {
		air_error_free(e);
		e = air__error_new(AIR_EAUTH, 0, "OAuth is not supported by this host: %s returned 404",
		                   url);
	} else if (rc != AIR_OK) {
		air__error_prefix(e, "OAuth discovery failed");
	} else if (!(doc = air__json_parse(resp.body, resp.body_len, url, &e))) {
		rc = AIR_EPROTO;
	} else if (!(endpoint = air__json_nonempty(doc, "token_endpoint"))) {
		rc = AIR_EPROTO;
		e = air__error_new(rc, 0, "OAuth discovery document %s has no token_endpoint", url);
	} else if ((rc = air__check_url_safe(endpoint, "the OAuth token endpoint", &e)) == AIR_OK &&
	           !(*out = air__strdup(endpoint))) {
		rc = AIR_ENOMEM;
		e = air__error_new(rc, 0, "out of memory");
	}
	if (rc == AIR_OK)
		air__client_debug(c, AIR_DEBUG_INFO, "OAuth token endpoint %s", *out);
	json_decref(doc);
	air__http_resp_clear(&resp);
	air__free(url);
	if (rc == AIR_OK)
		return AIR_OK;
	if (air_error_code(e) == AIR_OK || !e)
		e = air__error_new(rc, 0, "OAuth discovery failed");
	return air__fail(err, e);
}

int air__oauth_parse_token(const char *body, size_t len, const char *endpoint, air__token *out,
                           air_error **err)
{
	json_t *doc = air__json_parse(body, len, "the token endpoint reply", NULL);
	const char *at = air__json_nonempty(doc, "access_token");
	int64_t expires_in;
	int rc = AIR_OK;

	memset(out, 0, sizeof(*out));
	if (!at) {
		json_decref(doc);
		return air__failf(err, AIR_EPROTO, 0, "%s: the reply has no access_token", endpoint);
	}
	/* The token and its type go into every later Authorization header. */
	if (air__find_control(at) || air__find_control(air__json_nonempty(doc, "token_type"))) {
		json_decref(doc);
		return air__failf(err, AIR_EPROTO, 0,
		                  "%s: the token endpoint returned an access token (or token type) with a "
		                  "control character; it is not used", endpoint);
	}
	out->access_token = air__strdup(at);
	out->token_type = air__strdup(air__json_nonempty(doc, "token_type") ?
	                              air__json_nonempty(doc, "token_type") : "Bearer");
	if (air__json_nonempty(doc, "refresh_token"))
		out->refresh_token = air__strdup(air__json_nonempty(doc, "refresh_token"));
	if (air__json_int64(doc, "expires_in", &expires_in) && expires_in > 0)
		out->expiry_ms = air__now_ms() + (expires_in < TOKEN_MAX_LIFETIME_S
		                                  ? expires_in : TOKEN_MAX_LIFETIME_S) * 1000;
	if (!out->access_token || !out->token_type ||
	    (air__json_nonempty(doc, "refresh_token") && !out->refresh_token)) {
		air__token_clear(out);
		rc = air__oom(err);
	}
	json_decref(doc);
	return rc;
}

static bool token_call_retryable(int rc, int32_t status)
{
	if (status == 429 || status == 502 || status == 503 || status == 504)
		return true;
	return status == 0 && (rc == AIR_ENET || rc == AIR_ETIMEOUT);
}

int air__oauth_request(air_client *c, const air__ctx *ctx, const char *endpoint,
                       const char *form, const char *extra_header, bool once, air__token *out,
                       air_error **err)
{
	const char *headers[3] = {"Accept: application/json", extra_header, NULL};
	air__http_req req = {.method = "POST", .path = endpoint, .body = form,
	                     .body_len = strlen(form),
	                     .content_type = "application/x-www-form-urlencoded",
	                     .headers = headers,
	                     .flags = AIR__HTTP_NO_AUTH | AIR__HTTP_ABSOLUTE_URL |
	                              AIR__HTTP_NO_RETRY | AIR__HTTP_NO_WORKSPACE};
	int64_t start = air__mono_ms(), unit = air__client_opt_int(c, AIR_OPT_RETRY_BACKOFF_MS);
	int64_t budget = c->cfg.retry_deadline_ms < TOKEN_RETRY_BUDGET_MS ? c->cfg.retry_deadline_ms
	                                                                  : TOKEN_RETRY_BUDGET_MS;
	int rc;

	if ((rc = air__check_url_safe(endpoint, "the OAuth token endpoint", err)) != AIR_OK)
		return rc;
	for (int attempt = 1;; attempt++) {
		air__http_resp resp = AIR__HTTP_RESP_INIT;
		air_error *e = NULL;
		int64_t wait, lo = unit < 1000 ? 50 * unit / 1000 : 50,
		              hi = unit < 1000 ? 750 * unit / 1000 : 750;

		rc = air__http_run(&c->http, ctx, &req, 1, &resp, &e);
		if (rc == AIR_OK) {
			rc = air__oauth_parse_token(resp.body, resp.body_len, endpoint, out, err);
			air__http_resp_clear(&resp);
			return rc;
		}
		wait = (attempt < 10 ? attempt : 10) * unit + air__random_range(lo, hi);
		if (resp.retry_after_ms > wait)
			wait = resp.retry_after_ms;
		if (once || !token_call_retryable(rc, resp.status) ||
		    air__mono_ms() - start + wait > budget) {
			if (resp.status >= 400 && resp.status < 500 && resp.status != 429) {
				air__error_set_code(e, AIR_EAUTH);
				air__error_set_kind(e, AIR_KIND_PERMANENT);
			}
			air__http_resp_clear(&resp);
			return air__fail(err, air__secrets_redact(c->secrets,
			                                          air__error_prefix(e, "token request failed")));
		}
		air__client_debug(c, AIR_DEBUG_INFO, "token endpoint: %s; retrying in %lld ms",
		                  air_error_message(e), (long long)wait);
		air_error_free(e);
		air__http_resp_clear(&resp);
		if ((rc = air__ctx_sleep(ctx, wait, "token request", err)) != AIR_OK)
			return rc;
	}
}

int air__oauth_m2m_token(air_client *c, const air__ctx *ctx, const char *endpoint, bool once,
                         air__token *out, air_error **err)
{
	air__buf pair = AIR__BUF_INIT;
	char *b64, *header;
	int rc;

	/* Basic base64(urlencode(id) ":" urlencode(secret)), as OAuth 2.0 §2.3.1 asks. */
	air__buf_put_form(&pair, c->cfg.attr[AIR__A_CLIENT_ID]);
	air__buf_putc(&pair, ':');
	air__buf_put_form(&pair, c->cfg.attr[AIR__A_CLIENT_SECRET]);
	{
		/* ... and so is its form encoding ("a+b" for "a b"). */
		air__buf enc = AIR__BUF_INIT;
		air__buf_put_form(&enc, c->cfg.attr[AIR__A_CLIENT_SECRET]);
		if (!air__buf_oom(&enc))
			air__secrets_add(c->secrets, enc.ptr);
		air__free_secret(air__buf_detach(&enc));
	}
	b64 = air__buf_oom(&pair) ? NULL : air__base64(pair.ptr, pair.len);
	air__free_secret(pair.ptr);
	/* The secret travels base64-encoded: that form is a secret too. */
	if (b64 && air__secrets_add(c->secrets, b64) != AIR_OK) {
		air__free_secret(b64);
		b64 = NULL;
	}
	header = b64 ? air__sprintf("Authorization: Basic %s", b64) : NULL;
	air__free_secret(b64);
	if (!header)
		return air__oom(err);
	rc = air__oauth_request(c, ctx, endpoint, "grant_type=client_credentials&scope=all-apis",
	                        header, once, out, err);
	air__free_secret(header);
	return rc;
}
