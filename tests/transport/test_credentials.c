/*
 * test_credentials.c: credentials that could break out of their header and
 * servers that quote the credentials they received.
 *
 * - A credential (token, user, password, client id or secret, workspace id)
 *   with a control character is refused at resolution, naming where it came
 *   from (option, environment variable, profile file and line, host URL)
 *   and never quoting it; so are OAuth access tokens with one, from a token
 *   endpoint or the U2M token cache. Nothing is sent.
 * - A token endpoint whose error reply echoes the Authorization header and
 *   the form body it received has every form of the secret (raw, form
 *   encoded, the Basic value) removed from the error and the debug trace.
 */
#include <unistd.h>

#include "transport/auth.h"
#include "support.h"

#define ME "/api/2.0/preview/scim/v2/Me"
#define TOKEN_PATH "/oidc/v1/token"

/* Resolve @c: the error must be @code and say @needle without quoting
 * @secret (the part of the credential around its control character). */
static void refused(air_client *c, int code, const char *needle, const char *secret)
{
	air_error *err = NULL;

	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), code);
	air_test_note("%s", air_error_message(err));
	ASSERT_CONTAINS(air_error_message(err), needle);
	ASSERT_CONTAINS(air_error_message(err), "control character");
	if (secret)
		ASSERT_NOT_CONTAINS(air_error_message(err), secret);
	air_error_free(err);
}

AIR_TEST(credentials__crlf_in_a_token_from_the_environment)
{
	fakews *fw = tc_fakews();
	char host[300];
	const char *env[] = {host, "DATABRICKS_TOKEN=dapi-sekrit\r\nX-Injected: 1", NULL};
	air_client *c;

	snprintf(host, sizeof(host), "DATABRICKS_HOST=%s", fakews_url(fw));
	c = tc_client(env);
	refused(c, AIR_EAUTH, "token from environment variable DATABRICKS_TOKEN", "sekrit");
	ASSERT_EQ_INT(fakews_count(fw, "*", "/*"), 0);
	air_client_free(c);
}

AIR_TEST(credentials__control_characters_from_options)
{
	fakews *fw = tc_fakews();
	static const struct {
		int32_t opt;
		const char *value, *needle;
	} cases[] = {
		{AIR_OPT_TOKEN, "dapi-sekrit\n", "token from option AIR_OPT_TOKEN"},
		{AIR_OPT_PASSWORD, "pw-sekrit\r\nX: 1", "password from option AIR_OPT_PASSWORD"},
		{AIR_OPT_CLIENT_SECRET, "cs-sekrit\x1b[31m", "client_secret from option AIR_OPT_CLIENT_SECRET"},
		{AIR_OPT_WORKSPACE_ID, "12\r\nX: 1", "workspace id from option AIR_OPT_WORKSPACE_ID"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		air_client *c = tc_fakews_client(fw);

		if (cases[i].opt == AIR_OPT_PASSWORD) {
			ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, NULL), AIR_OK);
			ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_USERNAME, "me"), AIR_OK);
		} else if (cases[i].opt == AIR_OPT_CLIENT_SECRET) {
			ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, NULL), AIR_OK);
			ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_ID, "cid"), AIR_OK);
		}
		ASSERT_EQ_INT(tc_set_str(c, cases[i].opt, cases[i].value), AIR_OK);
		refused(c, AIR_EAUTH, cases[i].needle, "sekrit");
		air_client_free(c);
	}
	ASSERT_EQ_INT(fakews_count(fw, "*", "/*"), 0);
}

AIR_TEST(credentials__control_character_in_a_profile_names_file_and_line)
{
	fakews *fw = tc_fakews();
	char cfg[600], var[1300];
	const char *env[] = {var, NULL};
	air_client *c;

	snprintf(cfg, sizeof(cfg), "[DEFAULT]\n\n[p]\nhost = %s\nusername = me\n"
	                           "password = pw\x01sekrit\n", fakews_url(fw));
	snprintf(var, sizeof(var), "DATABRICKS_CONFIG_FILE=%s",
	         tc_write(air_test_tmpdir(), "databrickscfg", cfg));
	c = tc_client(env);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, "p"), AIR_OK);
	refused(c, AIR_EAUTH, "password from profile \"p\" in ", "sekrit");
	{
		air_error *err = NULL;
		ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EAUTH);
		ASSERT_CONTAINS(air_error_message(err), "databrickscfg, line 6");
		air_error_free(err);
	}
	ASSERT_EQ_INT(fakews_count(fw, "*", "/*"), 0);
	air_client_free(c);
}

AIR_TEST(credentials__crlf_in_the_host_query_workspace_id)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	char host[300];

	snprintf(host, sizeof(host), "%s/?o=12%%0d%%0aX-Injected:%%201", fakews_url(fw));
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, host), AIR_OK);
	refused(c, AIR_EAUTH, "workspace id from the query of the host URL", NULL);
	air_client_free(c);
}

/* No recorded request carries an X-Injected header. */
static void nothing_injected(fakews *fw)
{
	json_t *reqs = fakews_requests(fw);

	for (size_t i = 0; i < json_array_size(reqs); i++)
		ASSERT_NULL(tc_header(tc_request(reqs, i), "x-injected"));
	json_decref(reqs);
}

AIR_TEST(credentials__crlf_in_an_access_token_from_the_token_endpoint)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	char *user = NULL;

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, NULL), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_ID, "cid"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_SECRET, "right-secret"), AIR_OK);
	fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"status\":200,\"times\":-1,\"body\":"
	                  "{\"access_token\":\"at-sekrit\\r\\nX-Injected: 1\",\"token_type\":\"Bearer\","
	                  "\"expires_in\":3600}}", TOKEN_PATH);
	ASSERT_NE_INT(air_client_current_user(c, NULL, &user, &err), AIR_OK);
	air_test_note("%s", air_error_message(err));
	ASSERT_EQ_INT(air_error_code(err), AIR_EPROTO);
	ASSERT_CONTAINS(air_error_message(err), TOKEN_PATH);
	ASSERT_CONTAINS(air_error_message(err), "control character");
	ASSERT_NOT_CONTAINS(air_error_message(err), "sekrit");
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 0);
	nothing_injected(fw);
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(credentials__crlf_in_an_access_token_from_the_u2m_cache)
{
	fakews *fw = tc_fakews();
	char cfg[512], var[1300], path[1200], expiry[32], text[1024];
	const char *env[] = {var, NULL};
	air_client *c;

	snprintf(cfg, sizeof(cfg), "[me]\nhost = %s\nauth_type = databricks-cli\n", fakews_url(fw));
	snprintf(var, sizeof(var), "DATABRICKS_CONFIG_FILE=%s",
	         tc_write(air_test_tmpdir(), "databrickscfg", cfg));
	c = tc_client(env);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, "me"), AIR_OK);
	air__format_rfc3339(air__now_ms() / 1000 + 3600, expiry);
	snprintf(path, sizeof(path), "%s/.databricks/token-cache.json", tc_home());
	snprintf(text, sizeof(text),
	         "{\"version\":1,\"tokens\":{\"me\":{\"access_token\":\"at-sekrit\\r\\nX-Injected: 1\","
	         "\"token_type\":\"Bearer\",\"refresh_token\":\"rt\",\"expiry\":\"%s\"}}}", expiry);
	air_test_write_file(path, text, strlen(text));
	refused(c, AIR_EAUTH, "token-cache.json, entry \"me\"", "sekrit");
	ASSERT_EQ_INT(fakews_count(fw, "*", "/*"), 0);
	air_client_free(c);
}

AIR_TEST(credentials__crlf_in_the_user_agent_suffix_is_never_sent)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	char *user = NULL;

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_USER_AGENT_SUFFIX, "app/1\r\nX-Injected: 1"), AIR_OK);
	ASSERT_EQ_INT(air_client_current_user(c, NULL, &user, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "User-Agent");
	ASSERT_EQ_INT(fakews_count(fw, "*", "/*"), 0);
	air_error_free(err);
	air_client_free(c);
}

/* ---- servers that quote the credentials they got ------------------------------ */

/* A client for @fw with the M2M secret @secret (client id "cid"). */
static air_client *m2m(fakews *fw, const char *secret)
{
	air_client *c = tc_fakews_client(fw);

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, NULL), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_ID, "cid"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_SECRET, secret), AIR_OK);
	return c;
}

/* @text shows none of the forms the M2M secret "s3cr t/+=x!" travels in. */
static void no_m2m_secret(const char *text)
{
	ASSERT_NOT_CONTAINS(text, "s3cr t/+=x!");                 /* raw */
	ASSERT_NOT_CONTAINS(text, "s3cr+t%2F%2B%3Dx%21");         /* form-encoded */
	ASSERT_NOT_CONTAINS(text, "Y2lkOnMzY3IrdCUyRiUyQiUzRHglMjE="); /* base64("cid:" enc) */
	ASSERT_NOT_CONTAINS(text, "Y2lkOnMzY3IrdCUyRiUyQiUzRHglMj"); /* ... cut anywhere */
}

static void echoed_m2m_secret(const char *echo_body, bool debug)
{
	fakews *fw = tc_fakews();
	air_client *c = m2m(fw, "s3cr t/+=x!");
	air_error *err = NULL;
	tc_trace t;
	json_t *r;

	if (echo_body)
		fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"action\":\"echo\",\"status\":401,"
		                  "\"body\":\"%s\"}", TOKEN_PATH, echo_body);
	else
		fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"action\":\"echo\",\"status\":401}",
		              TOKEN_PATH);
	if (debug) {
		tc_trace_init(&t);
		tc_trace_attach(c, &t);
	}
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EAUTH);
	air_test_note("%s", air_error_message(err));
	/* The server did quote them: what it quoted is shown redacted. */
	r = fakews_last_request(fw, "POST", TOKEN_PATH);
	ASSERT_EQ_STR(tc_header(r, "authorization"), "Basic Y2lkOnMzY3IrdCUyRiUyQiUzRHglMjE=");
	json_decref(r);
	ASSERT_CONTAINS(air_error_message(err), "[REDACTED]");
	no_m2m_secret(air_error_message(err));
	if (air_error_server_code(err))
		no_m2m_secret(air_error_server_code(err));
	if (air_error_request_id(err))
		no_m2m_secret(air_error_request_id(err));
	if (debug) {
		ASSERT_CONTAINS(air__buf_cstr(&t.text), TOKEN_PATH);
		no_m2m_secret(air__buf_cstr(&t.text));
		tc_trace_free(&t);
	}
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(credentials__m2m_secret_echoed_in_a_json_error)
{
	echoed_m2m_secret(NULL, false);
	echoed_m2m_secret(NULL, true);
}

AIR_TEST(credentials__m2m_secret_echoed_in_a_text_error)
{
	/* Not JSON: the raw body becomes the message. */
	echoed_m2m_secret("invalid_client: you sent {authorization} and {body}", false);
	echoed_m2m_secret("<html><pre>you sent {authorization} and {body}</pre></html>", true);
}

AIR_TEST(credentials__u2m_refresh_token_echoed_in_an_error)
{
	fakews *fw = tc_fakews();
	char cfg[512], var[1300], path[1200], expiry[32], text[1024];
	const char *env[] = {var, NULL};
	air_client *c;
	air_error *err = NULL;
	tc_trace t;

	snprintf(cfg, sizeof(cfg), "[me]\nhost = %s\nauth_type = databricks-cli\n", fakews_url(fw));
	snprintf(var, sizeof(var), "DATABRICKS_CONFIG_FILE=%s",
	         tc_write(air_test_tmpdir(), "databrickscfg", cfg));
	c = tc_client(env);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, "me"), AIR_OK);
	tc_trace_init(&t);
	tc_trace_attach(c, &t);
	/* An expired token: the refresh token (with characters the form
	 * encodes) is sent, and echoed back. */
	air__format_rfc3339(air__now_ms() / 1000 - 60, expiry);
	snprintf(path, sizeof(path), "%s/.databricks/token-cache.json", tc_home());
	snprintf(text, sizeof(text),
	         "{\"version\":1,\"tokens\":{\"me\":{\"access_token\":\"old-access\","
	         "\"token_type\":\"Bearer\",\"refresh_token\":\"rt/sek+rit=\",\"expiry\":\"%s\"}}}",
	         expiry);
	air_test_write_file(path, text, strlen(text));
	fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"action\":\"echo\",\"status\":400,"
	                  "\"body\":\"invalid_grant: {body}\"}", TOKEN_PATH);
	ASSERT_NE_INT(air_client_current_user(c, NULL, &(char *){NULL}, &err), AIR_OK);
	air_test_note("%s", air_error_message(err));
	ASSERT_CONTAINS(air_error_message(err), "[REDACTED]");
	ASSERT_NOT_CONTAINS(air_error_message(err), "sek+rit");
	ASSERT_NOT_CONTAINS(air_error_message(err), "rt%2Fsek%2Brit%3D");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "sek+rit");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "rt%2Fsek%2Brit%3D");
	tc_trace_free(&t);
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(credentials__a_secret_with_json_escapes_stays_out_of_the_trace)
{
	fakews *fw = tc_fakews();
	air_client *c = m2m(fw, "q\"uo\\te-sekrit");
	air_error *err = NULL;
	tc_trace t;

	/* A server that decoded the secret and quotes it in a JSON error: in the
	 * reply's text it is escaped (q\"uo\\te), in the parsed message not. */
	fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"status\":401,\"body\":"
	                  "{\"error\":\"invalid_client\",\"error_description\":"
	                  "\"bad secret q\\\"uo\\\\te-sekrit\"}}", TOKEN_PATH);
	tc_trace_init(&t);
	tc_trace_attach(c, &t);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EAUTH);
	air_test_note("%s", air_error_message(err));
	ASSERT_CONTAINS(air_error_message(err), "bad secret [REDACTED]");
	ASSERT_CONTAINS(air__buf_cstr(&t.text), "bad secret [REDACTED]");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "sekrit");
	tc_trace_free(&t);
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(credentials__a_secret_quoted_in_a_reply_header_stays_out_of_the_error)
{
	fakews *fw = tc_fakews();
	air_client *c = m2m(fw, "s3cr t/+=x!");
	air_error *err = NULL;

	fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"status\":401,\"body\":"
	                  "{\"error\":\"invalid_client\"},\"headers\":{\"X-Request-Id\":"
	                  "\"req-Y2lkOnMzY3IrdCUyRiUyQiUzRHglMjE=\"}}", TOKEN_PATH);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EAUTH);
	ASSERT_NOT_NULL(air_error_request_id(err));
	air_test_note("request id %s", air_error_request_id(err));
	ASSERT_EQ_STR(air_error_request_id(err), "req-[REDACTED]");
	air_error_free(err);
	air_client_free(c);
}
