/*
 * test_http_error.c: error replies -> air_error (docs/errors.md#workspace-replies), the
 * transient classes (docs/errors.md#retries), Retry-After parsing and trace redaction.
 */
#include "transport/auth.h"
#include "transport/http_priv.h"
#include "support.h"

typedef struct mapping {
	const char *method;
	const char *path;
	int32_t status;
	const char *body;
	int code;
	int32_t kind;
	int retryable;
	const char *server_code;  /* NULL: none */
	const char *message_part; /* must appear in the message */
	bool retried;             /* the transport retries it */
} mapping;

static const mapping table[] = {
	/* error_code wins over the status */
	{"GET", "/api/2.0/x", 400, "{\"error_code\":\"RESOURCE_DOES_NOT_EXIST\",\"message\":\"gone\"}",
	 AIR_ENOTFOUND, AIR_KIND_NOT_FOUND, 0, "RESOURCE_DOES_NOT_EXIST", "gone", false},
	{"GET", "/api/2.0/x", 404, "{\"error_code\":\"ENDPOINT_NOT_FOUND\",\"message\":\"no route\"}",
	 AIR_ENOTFOUND, AIR_KIND_NOT_FOUND, 0, "ENDPOINT_NOT_FOUND", "no route", false},
	{"GET", "/api/2.0/x", 401, "{\"error_code\":\"UNAUTHENTICATED\",\"message\":\"Invalid access token\"}",
	 AIR_EAUTH, AIR_KIND_PERMANENT, 0, "UNAUTHENTICATED", "Invalid access token", false},
	{"GET", "/api/2.0/x", 403, "{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"nope\"}",
	 AIR_EPERMISSION, AIR_KIND_PERMANENT, 0, "PERMISSION_DENIED", "nope", false},
	{"GET", "/api/2.0/x", 403, "{\"error_code\":\"FEATURE_DISABLED\",\"message\":\"off\"}",
	 AIR_EDISABLED, AIR_KIND_PERMANENT, 0, "FEATURE_DISABLED", "off", false},
	{"GET", "/api/2.0/x", 400, "{\"error_code\":\"FEATURE_DISABLED\",\"message\":\"off\"}",
	 AIR_EDISABLED, AIR_KIND_PERMANENT, 0, "FEATURE_DISABLED", "off", false},
	{"POST", "/api/2.0/x", 409, "{\"error_code\":\"SOMETHING\",\"message\":\"busy\"}",
	 AIR_ECONFLICT, AIR_KIND_CONFLICT, 0, "SOMETHING", "busy", false},
	{"POST", "/api/2.0/x", 400, "{\"error_code\":\"RESOURCE_ALREADY_EXISTS\",\"message\":\"dup\"}",
	 AIR_ECONFLICT, AIR_KIND_CONFLICT, 0, "RESOURCE_ALREADY_EXISTS", "dup", false},
	{"POST", "/api/2.0/x", 500, "{\"error_code\":\"ALREADY_EXISTS\",\"message\":\"dup\"}",
	 AIR_ECONFLICT, AIR_KIND_CONFLICT, 0, "ALREADY_EXISTS", "dup", false},
	{"POST", "/api/2.0/x", 400, "{\"error_code\":\"ABORTED\",\"message\":\"raced\"}",
	 AIR_ECONFLICT, AIR_KIND_CONFLICT, 0, "ABORTED", "raced", false},
	{"GET", "/api/2.0/x", 429, "{\"error_code\":\"TOO_MANY_REQUESTS\",\"message\":\"slow down\"}",
	 AIR_ERATELIMIT, AIR_KIND_TRANSIENT, 1, "TOO_MANY_REQUESTS", "slow down", true},
	{"GET", "/api/2.0/x", 400, "{\"error_code\":\"REQUEST_LIMIT_EXCEEDED\",\"message\":\"limit\"}",
	 AIR_ERATELIMIT, AIR_KIND_TRANSIENT, 1, "REQUEST_LIMIT_EXCEEDED", "limit", true},
	{"GET", "/api/2.0/x", 400, "{\"error_code\":\"RESOURCE_EXHAUSTED\",\"message\":\"quota\"}",
	 AIR_ERATELIMIT, AIR_KIND_TRANSIENT, 1, "RESOURCE_EXHAUSTED", "quota", true},
	{"GET", "/api/2.0/x", 500, "{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"boom\"}",
	 AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "INTERNAL_ERROR", "boom", false},
	{"GET", "/api/2.0/x", 503, "{\"error_code\":\"TEMPORARILY_UNAVAILABLE\",\"message\":\"later\"}",
	 AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "TEMPORARILY_UNAVAILABLE", "later", true},
	{"GET", "/api/2.0/x", 504, "{\"error_code\":\"DEADLINE\",\"message\":\"slow\"}",
	 AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "DEADLINE", "slow", false},
	{"GET", "/api/2.0/x", 501, "", AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "UNKNOWN",
	 "Not Implemented", false},
	{"GET", "/api/2.0/x", 400, "{\"error_code\":\"DATA_LOSS\",\"message\":\"lost\"}",
	 AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "DATA_LOSS", "lost", false},
	{"GET", "/api/2.0/x", 400, "{\"error_code\":\"UNKNOWN\",\"message\":\"huh\"}",
	 AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "UNKNOWN", "huh", false},
	{"GET", "/api/2.0/x", 404, "{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"bad\"}",
	 AIR_EAPI, AIR_KIND_PERMANENT, 0, "INVALID_PARAMETER_VALUE", "bad", false},
	{"GET", "/api/2.0/x", 400, "{\"error_code\":\"INVALID_STATE\",\"message\":\"state\"}",
	 AIR_EAPI, AIR_KIND_PERMANENT, 0, "INVALID_STATE", "state", false},
	{"GET", "/api/2.0/x", 422, "{\"error_code\":\"WHATEVER\",\"message\":\"w\"}",
	 AIR_EAPI, AIR_KIND_PERMANENT, 0, "WHATEVER", "w", false},
	/* numeric error codes */
	{"GET", "/api/2.0/x", 400, "{\"error_code\":1234,\"message\":\"num\"}", AIR_EAPI,
	 AIR_KIND_PERMANENT, 0, "1234", "num", false},
	/* the Jobs runs/get "does not exist" rule */
	{"GET", "/api/2.2/jobs/runs/get", 400,
	 "{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"Run 5 does not exist.\"}",
	 AIR_ENOTFOUND, AIR_KIND_NOT_FOUND, 0, "INVALID_PARAMETER_VALUE", "Run 5", false},
	{"GET", "/api/2.1/jobs/runs/get-output", 400,
	 "{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"Run: 7 in job: 3 doesn't exist\"}",
	 AIR_ENOTFOUND, AIR_KIND_NOT_FOUND, 0, "INVALID_PARAMETER_VALUE", "Run: 7", false},
	{"POST", "/api/2.2/jobs/runs/get", 400,
	 "{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"Run 5 does not exist.\"}",
	 AIR_EAPI, AIR_KIND_PERMANENT, 0, "INVALID_PARAMETER_VALUE", "Run 5", false},
	{"GET", "/api/2.2/jobs/runs/list", 400,
	 "{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"Run 5 does not exist.\"}",
	 AIR_EAPI, AIR_KIND_PERMANENT, 0, "INVALID_PARAMETER_VALUE", "Run 5", false},
	{"GET", "/api/2.2/jobs/runs/get", 400,
	 "{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"run_id is required\"}",
	 AIR_EAPI, AIR_KIND_PERMANENT, 0, "INVALID_PARAMETER_VALUE", "run_id", false},
	/* legacy {"error"} and OAuth {"error","error_description"} */
	{"GET", "/api/2.0/x", 400, "{\"error\":\"legacy text\"}", AIR_EAPI, AIR_KIND_PERMANENT, 0,
	 NULL, "legacy text", false},
	{"POST", "https://h/oidc/v1/token", 401,
	 "{\"error\":\"invalid_client\",\"error_description\":\"Client authentication failed\"}",
	 AIR_EAUTH, AIR_KIND_PERMANENT, 0, "invalid_client", "Client authentication failed", false},
	/* SCIM */
	{"GET", "/api/2.0/preview/scim/v2/Me", 403,
	 "{\"detail\":\"no scim\",\"status\":\"403\",\"scimType\":\"x\"}", AIR_EPERMISSION,
	 AIR_KIND_PERMANENT, 0, "SCIM_403", "no scim", false},
	{"GET", "/api/2.0/preview/scim/v2/Me", 500, "{\"detail\":\"null\",\"status\":\"500\"}",
	 AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "SCIM_500", "SCIM API Internal Error", false},
	/* plain "CODE: message" */
	{"GET", "/api/2.0/x", 400, "INVALID_PARAMETER_VALUE: bad thing\n", AIR_EAPI,
	 AIR_KIND_PERMANENT, 0, "INVALID_PARAMETER_VALUE", "bad thing", false},
	{"GET", "/api/2.0/x", 400, "RESOURCE_DOES_NOT_EXIST: not here", AIR_ENOTFOUND,
	 AIR_KIND_NOT_FOUND, 0, "RESOURCE_DOES_NOT_EXIST", "not here", false},
	/* HTML <pre> */
	{"GET", "/api/2.0/x", 404, "<html><body><pre>Page missing</pre></body></html>",
	 AIR_ENOTFOUND, AIR_KIND_NOT_FOUND, 0, "NOT_FOUND", "Page missing", false},
	{"GET", "/api/2.0/x", 503, "<HTML><PRE> upstream down </PRE></HTML>", AIR_ESERVER,
	 AIR_KIND_TRANSIENT, 1, "SERVICE_UNAVAILABLE", "upstream down", true},
	/* anything else: UNKNOWN + raw body, or the reason phrase; the status decides */
	{"GET", "/api/2.0/x", 404, "not json at all", AIR_ENOTFOUND, AIR_KIND_NOT_FOUND, 0,
	 "UNKNOWN", "not json at all", false},
	{"GET", "/api/2.0/x", 502, "", AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "UNKNOWN", "Bad Gateway",
	 false},
	{"GET", "/api/2.0/x", 401, "   ", AIR_EAUTH, AIR_KIND_PERMANENT, 0, "UNKNOWN",
	 "Unauthorized", false},
	{"GET", "/api/2.0/x", 400, "[1,2]", AIR_EAPI, AIR_KIND_PERMANENT, 0, "UNKNOWN", "[1,2]",
	 false},
	/* the transient message list retries even a 400 or 500 */
	{"POST", "/api/2.2/jobs/runs/submit", 400,
	 "{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"Workspace 1 does not have any associated worker environments\"}",
	 AIR_EAPI, AIR_KIND_PERMANENT, 0, "INVALID_PARAMETER_VALUE", "worker environments", true},
	{"POST", "/api/2.2/jobs/runs/submit", 500,
	 "{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"worker env abc-1 not found\"}",
	 AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "INTERNAL_ERROR", "worker env", true},
	{"GET", "/api/2.0/x", 504, "{\"error_code\":\"X\",\"message\":\"Timed out after 30s\"}",
	 AIR_ESERVER, AIR_KIND_TRANSIENT, 1, "X", "Timed out", true},
};

AIR_TEST(http_error__classification_table)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const mapping *m = &table[i];
		bool retry = !m->retried;
		air_error *e = air__http_reply_error(NULL, m->method, m->path, m->status, m->body,
		                                     strlen(m->body), "req-1", -1, &retry);

		air_test_note("case %zu: %s %s %d %s", i, m->method, m->path, (int)m->status, m->body);
		ASSERT_EQ_INT(air_error_code(e), m->code);
		ASSERT_EQ_INT(air_error_kind(e), m->kind);
		ASSERT_EQ_INT(air_error_retryable(e), m->retryable);
		ASSERT_EQ_INT(air_error_http_status(e), m->status);
		if (m->server_code)
			ASSERT_EQ_STR(air_error_server_code(e), m->server_code);
		else
			ASSERT_NULL(air_error_server_code(e));
		ASSERT_EQ_STR(air_error_request_id(e), "req-1");
		ASSERT_CONTAINS(air_error_message(e), m->message_part);
		ASSERT_CONTAINS(air_error_message(e), m->method);
		ASSERT_EQ_INT(retry, m->retried);
		air_error_free(e);
	}
}

AIR_TEST(http_error__message_names_method_path_code_status_not_query)
{
	static const char body[] = "{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"denied\"}";
	air_error *e = air__http_reply_error(NULL, "GET", "/api/2.0/mlflow/artifacts/credentials-for-read?run_id=1&sig=SECRETSIG", 403,
	        body, sizeof(body) - 1, NULL, 2500, NULL);

	ASSERT_CONTAINS(air_error_message(e), "GET /api/2.0/mlflow/artifacts/credentials-for-read");
	ASSERT_CONTAINS(air_error_message(e), "denied");
	ASSERT_CONTAINS(air_error_message(e), "PERMISSION_DENIED");
	ASSERT_CONTAINS(air_error_message(e), "HTTP 403");
	ASSERT_NOT_CONTAINS(air_error_message(e), "SECRETSIG");
	ASSERT_NOT_CONTAINS(air_error_message(e), "run_id=1");
	ASSERT_NULL(air_error_request_id(e));
	ASSERT_EQ_INT(air_error_retry_after_ms(e), 2500);
	air_error_free(e);
}

AIR_TEST(http_error__long_bodies_are_truncated)
{
	static char body[10000];
	air_error *e;

	memset(body, 'a', sizeof(body) - 1);
	e = air__http_reply_error(NULL, "GET", "/x", 500, body, sizeof(body) - 1, NULL, -1, NULL);
	ASSERT_TRUE(strlen(air_error_message(e)) < 2200);
	ASSERT_CONTAINS(air_error_message(e), "...");
	air_error_free(e);
	e = air__http_reply_error(NULL, "GET", "/x", 500, NULL, 0, NULL, -1, NULL);
	ASSERT_CONTAINS(air_error_message(e), "Internal Server Error");
	air_error_free(e);
}

AIR_TEST(http_error__transient_messages)
{
	ASSERT_TRUE(air__http_transient_message("com.x.UnknownWorkerEnvironmentException: y"));
	ASSERT_TRUE(air__http_transient_message("There is no worker environment with id 3"));
	ASSERT_TRUE(air__http_transient_message("Unknown worker environment w"));
	ASSERT_TRUE(air__http_transient_message("ClusterNotReadyException"));
	ASSERT_TRUE(air__http_transient_message("rpc deadline exceeded"));
	ASSERT_TRUE(air__http_transient_message("worker env 12 was not found"));
	ASSERT_FALSE(air__http_transient_message("worker environment found"));
	ASSERT_FALSE(air__http_transient_message("Deadline Exceeded")); /* case matters */
	ASSERT_FALSE(air__http_transient_message("bad accelerator"));
	ASSERT_FALSE(air__http_transient_message(NULL));
}

AIR_TEST(trace__json_bodies_are_redacted)
{
	const char *body = "{\"access_token\":\"AT-SECRET\",\"token_type\":\"Bearer\","
	                   "\"nested\":{\"refresh_token\":\"RT-SECRET\",\"list\":[{\"token\":\"T-SECRET\"}]},"
	                   "\"string_value\":\"U:P\",\"client_secret\":\"CS\",\"expires_in\":3600,"
	                   "\"errors\":[{\"code\":\"KEEP\"}]}";
	char *out = air__trace_body(NULL, "application/json", body, strlen(body));

	ASSERT_NOT_NULL(out);
	ASSERT_NOT_CONTAINS(out, "AT-SECRET");
	ASSERT_NOT_CONTAINS(out, "RT-SECRET");
	ASSERT_NOT_CONTAINS(out, "T-SECRET");
	ASSERT_NOT_CONTAINS(out, "U:P");
	ASSERT_NOT_CONTAINS(out, "\"CS\"");
	ASSERT_CONTAINS(out, "\"token_type\":\"Bearer\"");
	ASSERT_CONTAINS(out, "3600");
	ASSERT_CONTAINS(out, "KEEP");
	ASSERT_CONTAINS(out, "[REDACTED]");
	air__free(out);
}

AIR_TEST(trace__form_bodies_are_redacted)
{
	const char *form = "grant_type=refresh_token&refresh_token=RT-SECRET&client_id=databricks-cli"
	                   "&client_secret=CS-SECRET&access_token=AT";
	char *out = air__trace_body(NULL, "application/x-www-form-urlencoded", form, strlen(form));

	ASSERT_EQ_STR(out, "grant_type=refresh_token&refresh_token=[REDACTED]&client_id=databricks-cli"
	                   "&client_secret=[REDACTED]&access_token=[REDACTED]");
	air__free(out);
}

AIR_TEST(trace__raw_bodies_are_only_counted)
{
	char *out = air__trace_body(NULL, NULL, "secret file contents", 20);

	ASSERT_EQ_STR(out, "[20 bytes]");
	air__free(out);
	out = air__trace_body(NULL, "text/plain", "{not json", 9);
	ASSERT_EQ_STR(out, "[9 bytes of text/plain]");
	air__free(out);
	ASSERT_NULL(air__trace_body(NULL, "application/json", "", 0));
}

AIR_TEST(trace__authorization_headers_are_redacted)
{
	char *out = air__trace_headers("GET http://h/x\nAuthorization: Bearer dapi-SECRET\n"
	                               "authorization: Basic Zm9vOmJhcg==\r\nExpect:\r\n"
	                               "Accept: application/json\r\nCookie: s=1\r\n\r\n");

	ASSERT_EQ_STR(out, "GET http://h/x\nAuthorization: [REDACTED]\nauthorization: [REDACTED]\n"
	                   "Accept: application/json\nCookie: [REDACTED]");
	air__free(out);
}

static int count_cb(int32_t type, const char *text, size_t len, void *ud)
{
	air__buf *b = ud;

	(void)type;
	air__buf_put(b, text, len);
	return 0;
}

AIR_TEST(trace__known_secrets_are_scrubbed_literally)
{
	const char *env[] = {"DATABRICKS_HOST=https://h.example", "DATABRICKS_TOKEN=dapi-LITERAL",
	                     NULL};
	air_client *c = tc_client(env);
	air__buf seen = AIR__BUF_INIT;
	air_error *err = NULL, *e;

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_SECRET, "opt-secret-value"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_AUTH_TYPE, "pat"), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_debug_cb(&c->o, count_cb, &seen), AIR_OK);
	ASSERT_OK(tc_resolve(c, &err), err);
	air__client_debug(c, AIR_DEBUG_INFO, "x dapi-LITERAL y opt-secret-value z");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&seen), "dapi-LITERAL");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&seen), "opt-secret-value");
	ASSERT_CONTAINS(air__buf_cstr(&seen), "x [REDACTED] y [REDACTED] z");
	e = air__secrets_redact(c->secrets, air__error_new(AIR_EAPI, 0, "echo dapi-LITERAL"));
	ASSERT_EQ_STR(air_error_message(e), "echo [REDACTED]");
	air_error_free(e);
	air__buf_dispose(&seen);
	air_client_free(c);
}

#define BOUNDARY_TOKEN "dapi-boundary-secret-0123456789abcdef"

/* A PAT client that knows BOUNDARY_TOKEN. */
static air_client *token_client(void)
{
	const char *env[] = {"DATABRICKS_HOST=https://h.example", NULL};
	air_client *c = tc_client(env);
	air_error *err = NULL;

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, BOUNDARY_TOKEN), AIR_OK);
	ASSERT_OK(tc_resolve(c, &err), err);
	return c;
}

/* A server echoing a secret right where long messages are cut: no piece of
 * it may survive (the cut used to happen before the redaction). */
AIR_TEST(http_error__secrets_are_removed_before_messages_are_cut)
{
	air_client *c = token_client();
	air__buf body = AIR__BUF_INIT;
	air_error *e;

	for (size_t at = 1980; at <= 2000; at += 5) {
		air__buf_clear(&body);
		for (size_t i = 0; i < at; i++)
			air__buf_putc(&body, 'x');
		air__buf_puts(&body, BOUNDARY_TOKEN " and more text after it");
		for (int json = 0; json < 2; json++) {
			char *text = json ? air__sprintf("{\"error_code\":\"X\",\"message\":\"%s\"}",
			                                 air__buf_cstr(&body))
			                  : air__strdup(air__buf_cstr(&body));
			e = air__http_reply_error(c->secrets, "GET", "/x", 400, text, strlen(text), NULL, -1, NULL);
			air_test_note("secret at %zu (%s): ...%s", at, json ? "JSON" : "text",
			              air_error_message(e) + 1990);
			ASSERT_NOT_CONTAINS(air_error_message(e), "dapi-b");
			ASSERT_CONTAINS(air_error_message(e), "...");
			air_error_free(e);
			air__free(text);
		}
	}
	air__buf_dispose(&body);
	air_client_free(c);
}

AIR_TEST(http_error__server_codes_are_scrubbed_and_bounded)
{
	air_client *c = token_client();
	air__buf body = AIR__BUF_INIT;
	air_error *e;
	const char *code;

	air__buf_puts(&body, "{\"error_code\":\"" BOUNDARY_TOKEN "\",\"message\":\"m\"}");
	e = air__http_reply_error(c->secrets, "GET", "/x", 400, body.ptr, body.len, NULL, -1, NULL);
	ASSERT_NOT_CONTAINS(air_error_server_code(e), "dapi-b");
	ASSERT_NOT_CONTAINS(air_error_message(e), "dapi-b");
	air_error_free(e);

	air__buf_clear(&body);
	air__buf_puts(&body, "{\"error_code\":\"");
	for (int i = 0; i < 5000; i++)
		air__buf_putc(&body, 'C');
	air__buf_puts(&body, "\",\"message\":\"m\"}");
	e = air__http_reply_error(NULL, "GET", "/x", 400, body.ptr, body.len, NULL, -1, NULL);
	code = air_error_server_code(e);
	ASSERT_EQ_INT(strlen(code), 256 + 3);
	ASSERT_TRUE(air__ends_with(code, "CCC..."));
	ASSERT_TRUE(strlen(air_error_message(e)) < 400);
	ASSERT_EQ_INT(air_error_code(e), AIR_EAPI);
	air_error_free(e);
	air__buf_dispose(&body);
	air_client_free(c);
}

AIR_TEST(http_error__cuts_fall_between_utf8_characters)
{
	air__buf body = AIR__BUF_INIT;
	air_error *e;
	const char *m, *dots;

	for (int i = 0; i < 1999; i++)
		air__buf_putc(&body, 'a');
	for (int i = 0; i < 10; i++)
		air__buf_puts(&body, "\xC3\xA9"); /* é */
	e = air__http_reply_error(NULL, "GET", "/x", 500, body.ptr, body.len, NULL, -1, NULL);
	m = air_error_message(e);
	dots = strstr(m, "...");
	ASSERT_NOT_NULL(dots);
	ASSERT_EQ_INT(dots[-1], 'a'); /* not half an é */
	air_error_free(e);
	air__buf_dispose(&body);
}

AIR_TEST(trace__secrets_are_removed_before_json_excerpts_are_cut)
{
	air_client *c = token_client();
	air__buf body = AIR__BUF_INIT;

	for (size_t at = 4080; at <= 4096; at += 4) {
		char *out;

		air__buf_clear(&body);
		air__buf_puts(&body, "{\"note\":\"");
		while (body.len < at)
			air__buf_putc(&body, 'x');
		air__buf_puts(&body, BOUNDARY_TOKEN "\",\"more\":\"yyyyyyyyyyyyyyyyyyyyyyyyyyyy\"}");
		out = air__trace_body(c->secrets, "application/json", body.ptr, body.len);
		ASSERT_NOT_NULL(out);
		ASSERT_CONTAINS(out, "... (");
		ASSERT_NOT_CONTAINS(out, "dapi-b");
		air__free(out);
	}
	air__buf_dispose(&body);
	air_client_free(c);
}

/* {"error": "", "error_description": ...}: no code rather than an empty one
 * (found by fuzz_http_error). */
AIR_TEST(http_error__empty_legacy_error_is_no_code)
{
	static const char body[] = "{\"error\":\"\",\"error_description\":\"client unknown\"}";
	air_error *e = air__http_reply_error(NULL, "POST", "/oidc/v1/token", 401, body,
	                                          sizeof(body) - 1, NULL, -1, NULL);

	ASSERT_NULL(air_error_server_code(e));
	ASSERT_EQ_STR(air_error_message(e), "POST /oidc/v1/token: client unknown (HTTP 401)");
	ASSERT_EQ_INT(air_error_code(e), AIR_EAUTH);
	air_error_free(e);
}

/* A server's text stays on one line: its line breaks are escaped in the
 * message and the code, whatever the body's form, from a workspace or the
 * local workspace, so it cannot print lines of its own. */
AIR_TEST(http_error__server_text_stays_on_one_line)
{
	static const char *const bodies[] = {
		"{\"error_code\":\"BAD\\nCODE\",\"message\":\"one\\r\\nError: forged\\nthree\"}",
		"{\"error\":\"one\\r\\nError: forged\\nthree\"}",
		"BAD: one\r\nError: forged\nthree",
		"<html><pre>one\r\nError: forged\nthree</pre></html>",
		"one\r\nError: forged\nthree",
	};

	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		for (int local = 0; local < 2; local++) {
			air_error *e = local ? air__http_reply_error_bare(NULL, "GET", "/x", 400, bodies[i],
			                                                  strlen(bodies[i]))
			                     : air__http_reply_error(NULL, "GET", "/x", 400, bodies[i],
			                                             strlen(bodies[i]), NULL, -1, NULL);
			const char *m = air_error_message(e), *code = air_error_server_code(e);

			ASSERT_CONTAINS(m, "one\\r\\nError: forged\\nthree");
			ASSERT_NULL(strchr(m, '\n'));
			ASSERT_NULL(strchr(m, '\r'));
			if (i == 0)
				ASSERT_EQ_STR(code, "BAD\\nCODE");
			air_error_free(e);
		}
	}
}
