/*
 * test_auth.c: credentials end to end against the fake workspace: the
 * profile precedence matrix (SCENARIOS S30), OAuth M2M (S31), the U2M token
 * cache (S32), conflicting methods (S33), basic auth, and that no secret
 * reaches a trace or an error.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "transport/auth.h"
#include "transport/http_priv.h"
#include "core/core.h"
#include "support.h"

#define ME "/api/2.0/preview/scim/v2/Me"
#define TOKEN_PATH "/oidc/v1/token"

/* A client with env @extra plus DATABRICKS_CONFIG_FILE=<@cfg>, where every
 * "H" line value in @cfg is the fakews URL (callers pass printf'd text). */
static air_client *cfg_client(const char *cfg, const char *profile, const char *const *extra)
{
	const char *list[32];
	char var[1300];
	size_t n = 0;
	air_client *c;

	snprintf(var, sizeof(var), "DATABRICKS_CONFIG_FILE=%s",
	         tc_write(air_test_tmpdir(), "databrickscfg", cfg));
	list[n++] = var;
	for (const char *const *p = extra; p && *p; p++)
		list[n++] = *p;
	list[n] = NULL;
	c = tc_client(list);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 0), AIR_OK);
	if (profile)
		ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, profile), AIR_OK);
	return c;
}

/* Authorization header of the last SCIM Me request (static copy). */
static const char *last_me_auth(fakews *fw)
{
	static char out[512];
	json_t *r = fakews_last_request(fw, "GET", ME);
	const char *a = r ? tc_header(r, "authorization") : NULL;

	snprintf(out, sizeof(out), "%s", a ? a : "(none)");
	json_decref(r);
	return out;
}

static void call_me(air_client *c)
{
	air__http_req req = {.method = "GET", .path = ME};
	air_error *err = NULL;

	ASSERT_OK(air__http_do(c, NULL, &req, NULL, &err), err);
}

/* ---- S30 ------------------------------------------------------------------ */

AIR_TEST(auth__s30_profile_precedence_end_to_end)
{
	fakews *fw = tc_fakews();
	char cfg[1024], settings[1200], pathcfg[512], hostvar[300];
	static const struct {
		const char *env[3];
		const char *profile;
		int settings;
		const char *want;
	} cases[] = {
		{{NULL}, NULL, 0, "Bearer file-default"},
		{{"DATABRICKS_CONFIG_PROFILE=p1", NULL}, NULL, 0, "Bearer file-p1"},
		{{"DATABRICKS_TOKEN=env-tok", "DATABRICKS_CONFIG_PROFILE=p1", NULL}, NULL, 0,
		 "Bearer env-tok"},
		{{"DATABRICKS_TOKEN=env-tok", NULL}, "p1", 0, "Bearer file-p1"},
		{{"DATABRICKS_TOKEN=env-tok", NULL}, NULL, 2, "Bearer env-tok"}, /* + DATABRICKS_HOST */
		{{NULL}, NULL, 1, "Bearer file-p1"},
	};

	fakews_configf(fw, "{\"tokens\":[\"file-default\",\"file-p1\",\"env-tok\"]}");
	snprintf(cfg, sizeof(cfg), "[DEFAULT]\nhost = %s\ntoken = file-default\n[p1]\nhost = %s\ntoken = file-p1\n",
	         fakews_url(fw), fakews_url(fw));
	snprintf(settings, sizeof(settings), "%s[__settings__]\ndefault_profile = p1\n", cfg);
	snprintf(hostvar, sizeof(hostvar), "DATABRICKS_HOST=%s", fakews_url(fw));
	for (size_t i = 0; i < AIR__ARRAY_SIZE(cases); i++) {
		const char *env[4] = {cases[i].env[0], cases[i].env[1], NULL, NULL};
		air_client *c;

		if (cases[i].settings == 2)
			env[1] = hostvar;
		c = cfg_client(cases[i].settings == 1 ? settings : cfg, cases[i].profile, env);
		air_test_note("case %zu: want %s", i, cases[i].want);
		call_me(c);
		ASSERT_EQ_STR(last_me_auth(fw), cases[i].want);
		air_client_free(c);
	}

	/* --profile missing: names the file and the profile; no request. */
	{
		air_client *c = cfg_client(cfg, "missing", NULL);
		air_error *err = NULL;

		fakews_clear_requests(fw);
		ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EINVAL);
		ASSERT_CONTAINS(air_error_message(err), "missing");
		ASSERT_CONTAINS(air_error_message(err), "databrickscfg");
		ASSERT_EQ_INT(fakews_count(fw, NULL, "/*"), 0);
		air_error_free(err);
		air_client_free(c);
	}
	/* A host with a path and ?o=42: requests go to the host and carry the id. */
	{
		air_client *c;
		json_t *r;

		snprintf(pathcfg, sizeof(pathcfg), "[w]\nhost = %s/some/path?o=42\ntoken = file-p1\n",
		         fakews_url(fw));
		c = cfg_client(pathcfg, "w", NULL);
		call_me(c);
		r = fakews_last_request(fw, "GET", ME);
		ASSERT_EQ_STR(tc_header(r, "x-databricks-workspace-id"), "42");
		ASSERT_EQ_STR(json_string_value(json_object_get(r, "raw_path")), ME);
		json_decref(r);
		air_client_free(c);
	}
}

/* PAT setup contacts nobody (docs/auth.md#credential-methods): not
 * even the host metadata, so the host type is not known and the rule "PAT
 * on a unified host needs a workspace_id" is not checked by libair
 * (docs/auth.md); the first request is the call itself, and the workspace
 * id, when configured, routes it. */
AIR_TEST(auth__pat_resolution_makes_no_request_even_on_a_unified_host)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	json_t *reqs, *r;
	air_error *err = NULL;

	fakews_configf(fw, "{\"host_metadata\":{\"host_type\":\"unified\","
	                   "\"oidc_endpoint\":\"%s/oidc\"}}", fakews_url(fw));
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	ASSERT_EQ_STR(air_client_auth_type(c), "pat");
	ASSERT_EQ_INT(fakews_count(fw, NULL, "/*"), 0);
	call_me(c);
	reqs = fakews_requests(fw);
	ASSERT_EQ_INT(json_array_size(reqs), 1);
	ASSERT_EQ_STR(json_string_value(json_object_get(tc_request(reqs, 0), "path")), ME);
	ASSERT_NULL(tc_header(tc_request(reqs, 0), "x-databricks-workspace-id"));
	json_decref(reqs);
	air_client_free(c);

	/* With a workspace id the same client routes its requests. */
	c = tc_fakews_client(fw);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_WORKSPACE_ID, "4242"), AIR_OK);
	call_me(c);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/.well-known/databricks-config"), 0);
	r = fakews_last_request(fw, "GET", ME);
	ASSERT_EQ_STR(tc_header(r, "x-databricks-workspace-id"), "4242");
	json_decref(r);
	air_client_free(c);
}

/* ---- S33, basic ----------------------------------------------------------- */

AIR_TEST(auth__s33_conflicting_methods_end_to_end)
{
	fakews *fw = tc_fakews();
	char host[300];
	const char *env[] = {host, "DATABRICKS_TOKEN=t-conflict", "DATABRICKS_CLIENT_ID=c",
	                     "DATABRICKS_CLIENT_SECRET=s", NULL, NULL};
	air_client *c;
	air_error *err = NULL;

	fakews_configf(fw, "{\"tokens\":[\"t-conflict\"]}");
	snprintf(host, sizeof(host), "DATABRICKS_HOST=%s", fakews_url(fw));
	c = tc_client(env);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "pat");
	ASSERT_CONTAINS(air_error_message(err), "oauth-m2m");
	ASSERT_EQ_INT(fakews_count(fw, NULL, "/*"), 0);
	air_error_free(err);
	air_client_free(c);

	env[4] = "DATABRICKS_AUTH_TYPE=pat";
	c = tc_client(env);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer t-conflict");
	ASSERT_EQ_STR(air_client_auth_type(c), "pat");
	air_client_free(c);
}

AIR_TEST(auth__basic)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_client(NULL);
	json_t *r;

	fakews_configf(fw, "{\"basic_auth\":{\"admin\":\"pa:ss w\"}}");
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, fakews_url(fw)), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_USERNAME, "admin"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PASSWORD, "pa:ss w"), AIR_OK);
	call_me(c);
	ASSERT_EQ_STR(air_client_auth_type(c), "basic");
	/* base64("admin:pa:ss w") */
	ASSERT_EQ_STR(last_me_auth(fw), "Basic YWRtaW46cGE6c3Mgdw==");
	r = fakews_last_request(fw, "GET", ME);
	ASSERT_CONTAINS(tc_header(r, "user-agent"), "auth/basic");
	json_decref(r);
	air_client_free(c);
}

/* ---- S31 ------------------------------------------------------------------ */

static air_client *m2m_client(fakews *fw, const char *secret)
{
	char cfg[512];

	snprintf(cfg, sizeof(cfg), "[sp]\nhost = %s\nclient_id = cid\nclient_secret = %s\n",
	         fakews_url(fw), secret);
	return cfg_client(cfg, "sp", NULL);
}

AIR_TEST(auth__s31_m2m)
{
	fakews *fw = tc_fakews();
	air_client *c;
	json_t *r;
	air_error *err = NULL;

	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"s3cr t\"}}}");
	c = m2m_client(fw, "s3cr t");
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	ASSERT_EQ_STR(air_client_auth_type(c), "oauth-m2m");
	for (int i = 0; i < 4; i++)
		call_me(c);
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 1);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/oidc/.well-known/oauth-authorization-server"), 1);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/.well-known/databricks-config"), 1);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer at-1");
	r = fakews_last_request(fw, "POST", TOKEN_PATH);
	ASSERT_EQ_STR(json_string_value(json_object_get(r, "body")),
	              "grant_type=client_credentials&scope=all-apis");
	/* base64("cid:s3cr+t") */
	ASSERT_EQ_STR(tc_header(r, "authorization"), "Basic Y2lkOnMzY3IrdA==");
	ASSERT_EQ_STR(tc_header(r, "content-type"), "application/x-www-form-urlencoded");
	json_decref(r);
	r = fakews_last_request(fw, "GET", ME);
	ASSERT_CONTAINS(tc_header(r, "user-agent"), "auth/oauth-m2m");
	json_decref(r);
	air_client_free(c);
}

AIR_TEST(auth__m2m_token_endpoint_retries_with_retry_after)
{
	fakews *fw = tc_fakews();
	air_client *c;
	json_t *reqs;
	int64_t t_first = 0, t_second = 0;
	int seen = 0;
	air_error *err = NULL;

	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"s3cr t\"}}}");
	fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"status\":503,"
	                  "\"headers\":{\"Retry-After\":\"1\"}}",
	              TOKEN_PATH);
	c = m2m_client(fw, "s3cr t");
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer at-1");
	reqs = fakews_requests(fw);
	for (size_t i = 0; i < json_array_size(reqs); i++) {
		json_t *q = tc_request(reqs, i);
		if (strcmp(json_string_value(json_object_get(q, "path")), TOKEN_PATH) != 0)
			continue;
		if (seen++ == 0)
			t_first = json_integer_value(json_object_get(q, "time_ms"));
		else
			t_second = json_integer_value(json_object_get(q, "time_ms"));
	}
	ASSERT_EQ_INT(seen, 2);
	air_test_note("token retry after %lld ms", (long long)(t_second - t_first));
	ASSERT_TRUE(t_second - t_first >= 1000);
	json_decref(reqs);
	air_client_free(c);
}

AIR_TEST(auth__m2m_bad_secret_and_secrets_stay_out_of_traces)
{
	fakews *fw = tc_fakews();
	air_client *c;
	tc_trace t;
	air_error *err = NULL;

	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"right-secret\"}}}");
	c = m2m_client(fw, "wrong-secret-value");
	tc_trace_init(&t);
	tc_trace_attach(c, &t);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "invalid_client");
	ASSERT_NOT_CONTAINS(air_error_message(err), "wrong-secret-value");
	ASSERT_EQ_INT(air_error_http_status(err), 401);
	air_error_free(err);
	/* One attempt only: a 401 from the token endpoint is not retried. */
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 1);
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "wrong-secret-value");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "Y2lkOndyb25nLXNlY3JldC12YWx1ZQ"); /* its base64 */
	ASSERT_CONTAINS(air__buf_cstr(&t.text), "oidc/v1/token");
	tc_trace_free(&t);
	air_client_free(c);

	/* A good secret: the issued token never shows in the trace. */
	c = m2m_client(fw, "right-secret");
	tc_trace_init(&t);
	tc_trace_attach(c, &t);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer at-1");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "at-1");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "right-secret");
	ASSERT_CONTAINS(air__buf_cstr(&t.text), "\"access_token\":\"[REDACTED]\"");
	tc_trace_free(&t);
	air_client_free(c);
}

AIR_TEST(auth__m2m_refreshes_before_expiry)
{
	fakews *fw = tc_fakews();
	air_client *c;

	/* 30 s tokens are inside the refresh margin: every use fetches a new one. */
	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"s\"},\"expires_in\":30}}");
	c = m2m_client(fw, "s");
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer at-1");
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer at-2");
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 2);
	/* Discovery happens once. */
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/oidc/.well-known/oauth-authorization-server"), 1);
	air_client_free(c);
}

AIR_TEST(auth__m2m_huge_expires_in_is_clamped)
{
	fakews *fw = tc_fakews();
	air_client *c;
	int64_t expiry;

	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"s\"},"
	                   "\"expires_in\":9223372036854775807}}");
	c = m2m_client(fw, "s");
	call_me(c);
	call_me(c);
	/* One token, believed for ten years at most (no overflow). */
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 1);
	expiry = c->auth->tok.expiry_ms;
	ASSERT_TRUE(expiry > air__now_ms() + 9LL * 365 * 24 * 3600 * 1000);
	ASSERT_TRUE(expiry <= air__now_ms() + 11LL * 365 * 24 * 3600 * 1000);
	air_client_free(c);
}

AIR_TEST(auth__oauth_discovery_404)
{
	fakews *fw = tc_fakews();
	air_client *c;
	air_error *err = NULL;

	fakews_faultf(fw, "{\"path\":\"/oidc/.well-known/oauth-authorization-server\",\"status\":404}");
	c = m2m_client(fw, "s");
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "OAuth is not supported");
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(auth__host_metadata_workspace_id_and_discovery_url)
{
	fakews *fw = tc_fakews();
	air_client *c;
	json_t *r;

	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"s\"}},\"host_metadata\":"
	                   "{\"workspace_id\":\"123\",\"host_type\":\"workspace\","
	                   "\"oidc_endpoint\":\"%s/oidc\"}}",
	               fakews_url(fw));
	c = m2m_client(fw, "s");
	call_me(c);
	r = fakews_last_request(fw, "GET", ME);
	ASSERT_EQ_STR(tc_header(r, "x-databricks-workspace-id"), "123");
	json_decref(r);
	ASSERT_EQ_INT(air__client_known_workspace_id(c), 123);
	ASSERT_EQ_INT(c->cfg.src[AIR__A_WORKSPACE_ID], AIR__SRC_METADATA);
	ASSERT_EQ_STR(c->cfg.host_type, "workspace");
	/* The metadata and discovery calls carry no credentials. */
	r = fakews_last_request(fw, "GET", "/.well-known/databricks-config");
	ASSERT_NULL(tc_header(r, "authorization"));
	json_decref(r);
	r = fakews_last_request(fw, "GET", "/oidc/.well-known/oauth-authorization-server");
	ASSERT_NULL(tc_header(r, "authorization"));
	json_decref(r);
	air_client_free(c);
}

/* ---- S32 ------------------------------------------------------------------ */

static const char *cache_path(void)
{
	static char p[1200];

	snprintf(p, sizeof(p), "%s/.databricks/token-cache.json", tc_home());
	return p;
}

/* The token-cache document with one entry @key expiring @secs from now. */
static void write_cache(const char *home, int version, const char *key, const char *access,
                        const char *refresh, int64_t secs)
{
	char path[1200], text[2048], expiry[32];

	air__format_rfc3339(air__now_ms() / 1000 + secs, expiry);
	snprintf(path, sizeof(path), "%s/.databricks/token-cache.json", home);
	snprintf(text, sizeof(text),
	         "{\"version\":%d,\"tokens\":{\"%s\":{\"access_token\":\"%s\",\"token_type\":\"Bearer\","
	         "\"refresh_token\":\"%s\",\"expiry\":\"%s\"},\"other\":{\"access_token\":\"x\","
	         "\"extra\":1}}}",
	         version, key, access, refresh, expiry);
	air_test_write_file(path, text, strlen(text));
	chmod(path, 0644);
}

static air_client *u2m_client(fakews *fw, const char *storage_env)
{
	char cfg[512];
	const char *env[] = {storage_env, NULL};
	air_client *c;

	snprintf(cfg, sizeof(cfg), "[me]\nhost = %s\nauth_type = databricks-cli\n", fakews_url(fw));
	c = cfg_client(cfg, "me", storage_env ? env : NULL);
	return c;
}

static json_t *read_cache_json(void)
{
	json_error_t je;
	json_t *doc = json_load_file(cache_path(), 0, &je);

	ASSERT_NOT_NULL(doc);
	return doc;
}

AIR_TEST(auth__s32_u2m_refresh)
{
	fakews *fw = tc_fakews();
	air_client *c;
	json_t *r, *doc;
	struct stat st;
	int64_t expiry_ms = 0;

	fakews_configf(fw, "{\"oauth\":{\"refresh_tokens\":{\"rt-one-1\":{\"access_token\":\"new-access-1\","
	                   "\"refresh_token\":\"rt-two-2\"}}}}");
	c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
	write_cache(tc_home(), 1, "me", "old-access-1", "rt-one-1", 120);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer new-access-1");
	ASSERT_EQ_STR(air_client_auth_type(c), "databricks-cli");
	r = fakews_last_request(fw, "POST", TOKEN_PATH);
	ASSERT_EQ_STR(json_string_value(json_object_get(r, "body")),
	              "grant_type=refresh_token&refresh_token=rt-one-1&client_id=databricks-cli");
	ASSERT_NULL(tc_header(r, "authorization")); /* no client secret, credentials in the body */
	json_decref(r);
	/* The cache was rewritten: mode 0600, version 1, new tokens under "me". */
	ASSERT_EQ_INT(stat(cache_path(), &st), 0);
	ASSERT_EQ_INT(st.st_mode & 0777, 0600);
	doc = read_cache_json();
	ASSERT_EQ_INT(json_integer_value(json_object_get(doc, "version")), 1);
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(json_object_get(doc, "tokens"), "me"), "access_token")),
	              "new-access-1");
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(json_object_get(doc, "tokens"), "me"), "refresh_token")),
	              "rt-two-2");
	ASSERT_TRUE(air__parse_rfc3339(json_string_value(json_object_get(
	                                       json_object_get(json_object_get(doc, "tokens"), "me"), "expiry")),
	                               &expiry_ms, NULL));
	expiry_ms *= 1000;
	ASSERT_TRUE(expiry_ms > air__now_ms() + 3000 * 1000);
	/* Other entries and unknown keys survive. */
	ASSERT_EQ_INT(json_integer_value(json_object_get(json_object_get(json_object_get(doc, "tokens"), "other"), "extra")),
	              1);
	json_decref(doc);
	/* Later calls use the refreshed token without another refresh. */
	call_me(c);
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 1);
	air_client_free(c);
}

AIR_TEST(auth__u2m_refresh_updates_the_host_mirror)
{
	fakews *fw = tc_fakews();
	air_client *c;
	json_t *doc, *tokens;
	char path[1200], text[2048], expiry[32];

	fakews_configf(fw, "{\"oauth\":{\"refresh_tokens\":{\"shared-rt\":{\"access_token\":\"mirror-new\","
	                   "\"refresh_token\":\"rotated-rt\"}}}}");
	c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
	/* The CLI keeps the login under the profile and mirrors it under the host. */
	air__format_rfc3339(air__now_ms() / 1000 + 60, expiry);
	snprintf(path, sizeof(path), "%s/.databricks/token-cache.json", tc_home());
	snprintf(text, sizeof(text),
	         "{\"version\":1,\"tokens\":{\"me\":{\"access_token\":\"a\",\"refresh_token\":\"shared-rt\","
	         "\"expiry\":\"%s\"},\"%s\":{\"access_token\":\"a\",\"refresh_token\":\"shared-rt\","
	         "\"expiry\":\"%s\"},\"unrelated\":{\"access_token\":\"u\",\"refresh_token\":\"other-rt\"}}}",
	         expiry, fakews_url(fw), expiry);
	air_test_write_file(path, text, strlen(text));
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer mirror-new");
	doc = read_cache_json();
	tokens = json_object_get(doc, "tokens");
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(tokens, "me"), "refresh_token")),
	              "rotated-rt");
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(tokens, fakews_url(fw)), "refresh_token")),
	              "rotated-rt");
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(tokens, fakews_url(fw)), "access_token")),
	              "mirror-new");
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(tokens, "unrelated"), "refresh_token")),
	              "other-rt");
	json_decref(doc);
	air_client_free(c);
}

AIR_TEST(auth__s32_u2m_fresh_token_is_used_as_is)
{
	fakews *fw = tc_fakews();
	air_client *c;

	fakews_configf(fw, "{\"tokens\":[\"old-access-2\"]}");
	c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
	write_cache(tc_home(), 1, "me", "old-access-2", "rt-x", 3600);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer old-access-2");
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 0);
	air_client_free(c);
}

AIR_TEST(auth__s32_u2m_cache_version_2_is_an_error)
{
	fakews *fw = tc_fakews();
	air_client *c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
	air_error *err = NULL;

	write_cache(tc_home(), 2, "me", "a", "r", 3600);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EIO);
	ASSERT_NE_INT(air_error_code(err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "version 2");
	ASSERT_CONTAINS(air_error_message(err), "token-cache.json");
	ASSERT_EQ_INT(fakews_count(fw, NULL, "/*"), 0);
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(auth__u2m_malformed_cache_error_never_quotes_a_token)
{
	static const char *const docs[] = {
		/* cut off in the middle of a token */
		"{\"version\":1,\"tokens\":{\"me\":{\"access_token\":\"tk9Z",
		/* two strings in a row */
		"{\"version\":1,\"tokens\":{\"me\":{\"access_token\" \"tk9Z\"}}}",
		/* a bare string */
		"\"tk9Z\"",
	};
	fakews *fw = tc_fakews();

	for (size_t i = 0; i < AIR__ARRAY_SIZE(docs); i++) {
		air_client *c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
		air_error *err = NULL;

		air_test_write_file(cache_path(), docs[i], strlen(docs[i]));
		ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EIO);
		air_test_note("%s", air_error_message(err));
		ASSERT_CONTAINS(air_error_message(err), "is not a JSON object: ");
		ASSERT_CONTAINS(air_error_message(err), "(line 1, column ");
		ASSERT_NOT_CONTAINS(air_error_message(err), "tk9Z");
		ASSERT_NOT_CONTAINS(air_error_message(err), " near ");
		air_error_free(err);
		air_client_free(c);
	}
}

AIR_TEST(auth__s32_u2m_invalid_refresh_token)
{
	fakews *fw = tc_fakews();
	air_client *c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
	air_error *err = NULL;

	write_cache(tc_home(), 1, "me", "expired-access", "unknown-refresh-token", -60);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "databricks auth login --profile me");
	ASSERT_NOT_CONTAINS(air_error_message(err), "unknown-refresh-token");
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(auth__u2m_refresh_failure_keeps_a_still_valid_token)
{
	fakews *fw = tc_fakews();
	air_client *c;

	fakews_configf(fw, "{\"tokens\":[\"still-valid-1\"]}");
	c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
	/* Within the 5-minute window, but the refresh token is rejected. */
	write_cache(tc_home(), 1, "me", "still-valid-1", "rejected-refresh", 120);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer still-valid-1");
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 1);
	air_client_free(c);
}

/* ---- a failed refresh of a still valid token ------------------------------- */

#define CALLERS 6
#define CALLS_EACH 5

typedef struct caller {
	air_client *c;
	pthread_barrier_t *start;
	int ok;
	int first_rc;
	char message[256];
} caller;

static void *call_repeatedly(void *p)
{
	caller *w = p;

	pthread_barrier_wait(w->start);
	for (int i = 0; i < CALLS_EACH; i++) {
		air__http_req req = {.method = "GET", .path = ME};
		air_error *err = NULL;
		int rc = air__http_do(w->c, NULL, &req, NULL, &err);

		if (rc == AIR_OK) {
			w->ok++;
		} else if (w->first_rc == AIR_OK) {
			w->first_rc = rc;
			snprintf(w->message, sizeof(w->message), "%s", air_error_message(err));
		}
		air_error_free(err);
	}
	return NULL;
}

/* CALLERS threads making CALLS_EACH calls each on @c, all at once; every
 * call must succeed. Returns the elapsed ms. */
static int64_t callers_all_succeed(air_client *c)
{
	pthread_t th[CALLERS];
	caller w[CALLERS];
	pthread_barrier_t start;
	int64_t t0 = air__mono_ms();

	pthread_barrier_init(&start, NULL, CALLERS);
	for (int i = 0; i < CALLERS; i++) {
		w[i] = (caller){c, &start, 0, AIR_OK, ""};
		ASSERT_EQ_INT(pthread_create(&th[i], NULL, call_repeatedly, &w[i]), 0);
	}
	for (int i = 0; i < CALLERS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < CALLERS; i++) {
		if (w[i].first_rc != AIR_OK)
			FAIL("thread %d: %s (%d)", i, w[i].message, w[i].first_rc);
		ASSERT_EQ_INT(w[i].ok, CALLS_EACH);
	}
	return air__mono_ms() - t0;
}

/* Every recorded SCIM Me request carried @auth. */
static void every_me_request_used(fakews *fw, const char *auth)
{
	json_t *reqs = fakews_requests(fw);
	int n = 0;

	for (size_t i = 0; i < json_array_size(reqs); i++) {
		json_t *q = tc_request(reqs, i);
		if (strcmp(json_string_value(json_object_get(q, "path")), ME) != 0)
			continue;
		ASSERT_EQ_STR(tc_header(q, "authorization"), auth);
		n++;
	}
	ASSERT_EQ_INT(n, CALLERS * CALLS_EACH);
	json_decref(reqs);
}

AIR_TEST(auth__m2m_failed_refresh_of_a_valid_token_backs_off_across_threads)
{
	fakews *fw = tc_fakews();
	air_client *c;
	int64_t elapsed;

	/* 30 s tokens are inside the one-minute refresh margin from the start. */
	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"s\"},\"expires_in\":30}}");
	c = m2m_client(fw, "s");
	/* A 100 ms back-off unit: 3 s without refresh attempts after a failure. */
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_BACKOFF_MS, 100), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 2000), AIR_OK);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer at-1");
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"times\":-1,\"body\":"
	                  "{\"error\":\"temporarily_unavailable\"}}", TOKEN_PATH);
	fakews_clear_requests(fw);

	elapsed = callers_all_succeed(c);
	air_test_note("%d threads x %d calls: %lld ms, %d token requests", CALLERS, CALLS_EACH,
	              (long long)elapsed, fakews_count(fw, "POST", TOKEN_PATH));
	/* One attempt, no retries; the threads that waited for it took its outcome. */
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 1);
	every_me_request_used(fw, "Bearer at-1");
	air_client_free(c);
}

AIR_TEST(auth__m2m_refresh_resumes_after_the_back_off)
{
	fakews *fw = tc_fakews();
	air_client *c;
	int64_t t0;

	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"s\"},\"expires_in\":30}}");
	c = m2m_client(fw, "s"); /* 10 ms back-off unit: 300 ms of back-off */
	call_me(c);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"times\":-1}", TOKEN_PATH);
	t0 = air__mono_ms();
	call_me(c); /* one failed attempt: the old token */
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer at-1");
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 2);
	call_me(c); /* backing off: no attempt */
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer at-1");
	if (air__mono_ms() - t0 < 250)
		ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 2);
	/* The endpoint recovers; after the back-off the token is refreshed. */
	fakews_clear_faults(fw);
	usleep(400 * 1000);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer at-2");
	air_client_free(c);
}

AIR_TEST(auth__u2m_failed_refresh_of_a_valid_token_backs_off_across_threads)
{
	fakews *fw = tc_fakews();
	air_client *c;
	json_t *doc;
	int64_t elapsed, t_failed;

	fakews_configf(fw, "{\"tokens\":[\"valid-u2m-1\"],\"oauth\":{\"refresh_tokens\":"
	                   "{\"rt-u2m-1\":{\"access_token\":\"new-u2m-2\",\"refresh_token\":\"rt-u2m-2\"}}}}");
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"times\":-1}", TOKEN_PATH);
	c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
	/* A 50 ms back-off unit: 1.5 s without refresh attempts after a failure. */
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_BACKOFF_MS, 50), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 2000), AIR_OK);
	/* Inside the five-minute refresh margin, still valid for two minutes. */
	write_cache(tc_home(), 1, "me", "valid-u2m-1", "rt-u2m-1", 120);

	t_failed = air__mono_ms(); /* the failed attempt starts after this */
	elapsed = callers_all_succeed(c);
	air_test_note("%d threads x %d calls: %lld ms, %d token requests", CALLERS, CALLS_EACH,
	              (long long)elapsed, fakews_count(fw, "POST", TOKEN_PATH));
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 1);
	every_me_request_used(fw, "Bearer valid-u2m-1");
	/* The cache is left alone by the failure. */
	doc = read_cache_json();
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(json_object_get(doc, "tokens"), "me"), "access_token")),
	              "valid-u2m-1");
	json_decref(doc);

	/* The endpoint recovers; once the back-off (1.5 s from the failure, which
	 * came some time after t_failed) is over the refresh happens. Calls wait
	 * for it rather than for a time: the bound only ends a hang. */
	fakews_clear_faults(fw);
	do {
		usleep(100 * 1000);
		call_me(c);
	} while (strcmp(last_me_auth(fw), "Bearer new-u2m-2") != 0 &&
	         air__mono_ms() - t_failed < 60 * 1000);
	ASSERT_TRUE(air__mono_ms() - t_failed >= 1500); /* not before the back-off ended */
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer new-u2m-2");
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 2);
	doc = read_cache_json();
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(json_object_get(doc, "tokens"), "me"), "refresh_token")),
	              "rt-u2m-2");
	json_decref(doc);
	air_client_free(c);
}

static void *call_once(void *p)
{
	caller *w = p;
	air__http_req req = {.method = "GET", .path = ME};
	air_error *err = NULL;

	pthread_barrier_wait(w->start);
	w->first_rc = air__http_do(w->c, NULL, &req, NULL, &err);
	snprintf(w->message, sizeof(w->message), "%s", air_error_message(err));
	air_error_free(err);
	return NULL;
}

AIR_TEST(auth__threads_waiting_for_a_failed_token_request_share_its_error)
{
	fakews *fw = tc_fakews();
	air_client *c;
	pthread_t th[CALLERS];
	caller w[CALLERS];
	pthread_barrier_t start;
	air_error *err = NULL;

	/* No token yet, and a slow endpoint that rejects the client: every
	 * thread arrives while the first one asks, and takes its answer. */
	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"right\"}}}");
	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"delay\",\"delay_ms\":300}", TOKEN_PATH);
	c = m2m_client(fw, "wrong-secret");
	ASSERT_OK(tc_resolve(c, &err), err);
	pthread_barrier_init(&start, NULL, CALLERS);
	for (int i = 0; i < CALLERS; i++) {
		w[i] = (caller){c, &start, 0, AIR_OK, ""};
		ASSERT_EQ_INT(pthread_create(&th[i], NULL, call_once, &w[i]), 0);
	}
	for (int i = 0; i < CALLERS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < CALLERS; i++) {
		ASSERT_EQ_INT(w[i].first_rc, AIR_EAUTH);
		ASSERT_CONTAINS(w[i].message, "invalid_client");
		ASSERT_NOT_CONTAINS(w[i].message, "wrong-secret");
	}
	ASSERT_EQ_INT(fakews_count(fw, "POST", TOKEN_PATH), 1);
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 0);
	air_client_free(c);
}

AIR_TEST(auth__u2m_keeps_the_old_refresh_token)
{
	fakews *fw = tc_fakews();
	air_client *c;
	json_t *doc;

	fakews_configf(fw, "{\"oauth\":{\"refresh_tokens\":{\"keep-me-rt\":{\"access_token\":\"nrt-access\","
	                   "\"refresh_token\":null}}}}");
	c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
	write_cache(tc_home(), 1, "me", "old", "keep-me-rt", 10);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer nrt-access");
	doc = read_cache_json();
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(json_object_get(doc, "tokens"), "me"), "refresh_token")),
	              "keep-me-rt");
	json_decref(doc);
	air_client_free(c);
}

AIR_TEST(auth__u2m_storage_modes)
{
	fakews *fw = tc_fakews();
	air_client *c;
	air_error *err = NULL;

	fakews_configf(fw, "{\"tokens\":[\"plain-access\"]}");
	/* Not chosen explicitly: the plaintext file is the fallback. */
	c = u2m_client(fw, NULL);
	write_cache(tc_home(), 1, "me", "plain-access", "r", 3600);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer plain-access");
	air_client_free(c);
	/* "secure" chosen explicitly cannot be served. */
	c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=secure");
	write_cache(tc_home(), 1, "me", "plain-access", "r", 3600);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EUNSUPPORTED);
	ASSERT_CONTAINS(air_error_message(err), "DATABRICKS_AUTH_STORAGE=plaintext");
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(auth__u2m_host_key_and_automatic_selection)
{
	fakews *fw = tc_fakews();
	char host[300];
	const char *env[] = {host, "DATABRICKS_AUTH_STORAGE=plaintext", NULL};
	air_client *c;
	air_error *err = NULL;

	fakews_configf(fw, "{\"tokens\":[\"host-key-access\"]}");
	snprintf(host, sizeof(host), "DATABRICKS_HOST=%s/", fakews_url(fw));
	c = tc_client(env);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 0), AIR_OK);
	/* No credentials at all yet. */
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "no credentials");
	air_error_free(err);
	/* A cached login under the host key is found without auth_type. */
	write_cache(tc_home(), 1, fakews_url(fw), "host-key-access", "r", 3600);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_USER_AGENT_SUFFIX, "again/1"), AIR_OK);
	call_me(c);
	ASSERT_EQ_STR(air_client_auth_type(c), "databricks-cli");
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer host-key-access");
	air_client_free(c);
}

AIR_TEST(auth__u2m_secrets_stay_out_of_traces)
{
	fakews *fw = tc_fakews();
	air_client *c;
	tc_trace t;

	fakews_configf(fw, "{\"oauth\":{\"refresh_tokens\":{\"refresh-secret-1\":{\"access_token\":\"access-secret-2\","
	                   "\"refresh_token\":\"refresh-secret-3\"}}}}");
	c = u2m_client(fw, "DATABRICKS_AUTH_STORAGE=plaintext");
	write_cache(tc_home(), 1, "me", "access-secret-0", "refresh-secret-1", 30);
	tc_trace_init(&t);
	tc_trace_attach(c, &t);
	call_me(c);
	ASSERT_EQ_STR(last_me_auth(fw), "Bearer access-secret-2");
	ASSERT_TRUE(t.count[AIR_DEBUG_BODY_OUT] >= 1);
	ASSERT_CONTAINS(air__buf_cstr(&t.text), "refresh_token=[REDACTED]");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "access-secret-0");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "refresh-secret-1");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "access-secret-2");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "refresh-secret-3");
	tc_trace_free(&t);
	air_client_free(c);
}

AIR_TEST(auth__base64_and_form_encoding)
{
	char *b;
	air__buf f = AIR__BUF_INIT;

	b = air__base64("", 0);
	ASSERT_EQ_STR(b, "");
	air__free(b);
	b = air__base64("f", 1);
	ASSERT_EQ_STR(b, "Zg==");
	air__free(b);
	b = air__base64("fo", 2);
	ASSERT_EQ_STR(b, "Zm8=");
	air__free(b);
	b = air__base64("foobar", 6);
	ASSERT_EQ_STR(b, "Zm9vYmFy");
	air__free(b);
	air__buf_put_form(&f, "s3cr t&x=/~é");
	ASSERT_EQ_STR(air__buf_cstr(&f), "s3cr+t%26x%3D%2F~%C3%A9");
	air__buf_dispose(&f);
}
