/*
 * test_transport.c: the HTTP transport against the fake workspace: headers,
 * identity caches, retries and back-off, deadlines, faults, error mapping,
 * interrupts, parallel requests, progress, sinks and the debug trace.
 */
#include <time.h>

#include "transport/http_priv.h"
#include "support.h"

#define ME "/api/2.0/preview/scim/v2/Me"

static int get(air_client *c, const char *path, air__http_resp *resp, air_error **err)
{
	air__http_req req = {.method = "GET", .path = path};

	*err = NULL;
	return air__http_do(c, NULL, &req, resp, err);
}

static int64_t req_time(json_t *reqs, size_t i)
{
	return json_integer_value(json_object_get(tc_request(reqs, i), "time_ms"));
}

AIR_TEST(transport__pat_headers_and_cached_user)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	char *user = NULL, *again = NULL;
	json_t *req;
	const char *ua;

	ASSERT_OK(air_client_current_user(c, NULL, &user, &err), err);
	ASSERT_EQ_STR(user, "tester@databricks.com");
	ASSERT_OK(air_client_current_user(c, NULL, &again, &err), err);
	ASSERT_EQ_STR(again, "tester@databricks.com");
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 1);
	req = fakews_last_request(fw, "GET", ME);
	ASSERT_EQ_STR(tc_header(req, "authorization"), "Bearer dapi-test");
	ASSERT_EQ_STR(tc_header(req, "accept"), "application/json");
	ASSERT_NULL(tc_header(req, "x-databricks-workspace-id"));
	ua = tc_header(req, "user-agent");
	ASSERT_CONTAINS(ua, "libair/");
	ASSERT_CONTAINS(ua, " os/linux auth/pat");
	/* PAT needs no request of its own: no metadata, no discovery. */
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/.well-known/databricks-config"), 0);
	json_decref(req);
	air_free(user);
	air_free(again);
	air_client_free(c);
}

AIR_TEST(transport__user_base)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	char *base = NULL;

	ASSERT_OK(air__client_user_base(c, NULL, &base, &err), err);
	ASSERT_EQ_STR(base, "/Workspace/Users/tester@databricks.com");
	air__free(base);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_USER_WORKSPACE_DIR, "/Workspace/Shared/x"), AIR_OK);
	ASSERT_OK(air__client_user_base(c, NULL, &base, &err), err);
	ASSERT_EQ_STR(base, "/Workspace/Shared/x");
	air__free(base);
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 1);
	air_client_free(c);
}

AIR_TEST(transport__workspace_id_probe)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	int64_t id = 0;
	json_t *req;

	ASSERT_EQ_INT(air__client_known_workspace_id(c), 0);
	ASSERT_OK(air_client_workspace_id(c, NULL, &id, &err), err);
	ASSERT_EQ_INT(id, 900800700600500LL);
	ASSERT_OK(air_client_workspace_id(c, NULL, &id, &err), err);
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 1);
	req = fakews_last_request(fw, "GET", ME);
	ASSERT_EQ_STR(json_string_value(json_array_get(
	                      json_object_get(json_object_get(req, "query"), "excludedAttributes"), 0)),
	              "entitlements");
	json_decref(req);
	ASSERT_EQ_INT(air__client_known_workspace_id(c), 900800700600500LL);
	air_client_free(c);

	fakews_configf(fw, "{\"org_id\": null}");
	c = tc_fakews_client(fw);
	ASSERT_EQ_INT(air_client_workspace_id(c, NULL, &id, &err), AIR_EPROTO);
	ASSERT_CONTAINS(air_error_message(err), "X-Databricks-Org-Id");
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(transport__workspace_header_from_host_query)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	char host[256];
	json_t *req;

	snprintf(host, sizeof(host), "%s/some/path?o=42", fakews_url(fw));
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, host), AIR_OK);
	ASSERT_OK(get(c, ME, NULL, &err), err);
	req = fakews_last_request(fw, "GET", ME);
	ASSERT_NOT_NULL(req);
	ASSERT_EQ_STR(tc_header(req, "x-databricks-workspace-id"), "42");
	ASSERT_EQ_STR(air_client_host(c), fakews_url(fw));
	json_decref(req);
	air_client_free(c);
}

AIR_TEST(transport__retries_503_then_succeeds)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;

	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"times\":2,"
	                  "\"body\":{\"error_code\":\"TEMPORARILY_UNAVAILABLE\",\"message\":\"busy\"}}",
	              ME);
	ASSERT_OK(get(c, ME, &resp, &err), err);
	ASSERT_EQ_INT(resp.status, 200);
	ASSERT_EQ_INT(resp.attempts, 3);
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 3);
	ASSERT_CONTAINS(resp.body, "tester@databricks.com");
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(transport__retried_classes)
{
	static const char *const rules[] = {
		"{\"path\":\"" ME "\",\"status\":429,\"body\":{\"error_code\":\"TOO_MANY_REQUESTS\"}}",
		"{\"path\":\"" ME "\",\"status\":400,\"body\":{\"error_code\":\"REQUEST_LIMIT_EXCEEDED\"}}",
		"{\"path\":\"" ME "\",\"status\":500,\"body\":{\"error_code\":\"X\",\"message\":\"ClusterNotReadyException\"}}",
		"{\"path\":\"" ME "\",\"action\":\"reset_before\"}",
		"{\"path\":\"" ME "\",\"action\":\"reset_after\"}",
	};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(rules); i++) {
		fakews *fw = tc_fakews();
		air_client *c = tc_fakews_client(fw);
		air__http_resp resp = AIR__HTTP_RESP_INIT;
		air_error *err = NULL;

		air_test_note("rule %s", rules[i]);
		fakews_faultf(fw, "%s", rules[i]);
		ASSERT_OK(get(c, ME, &resp, &err), err);
		ASSERT_EQ_INT(resp.attempts, 2);
		ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 2);
		air__http_resp_clear(&resp);
		air_client_free(c);
	}
}

AIR_TEST(transport__not_retried_classes)
{
	static const struct {
		int status;
		int code;
	} cases[] = {{500, AIR_ESERVER}, {501, AIR_ESERVER}, {504, AIR_ESERVER}, {400, AIR_EAPI},
	             {401, AIR_EAUTH}, {403, AIR_EPERMISSION}, {404, AIR_ENOTFOUND},
	             {409, AIR_ECONFLICT}};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(cases); i++) {
		fakews *fw = tc_fakews();
		air_client *c = tc_fakews_client(fw);
		air__http_resp resp = AIR__HTTP_RESP_INIT;
		air_error *err = NULL;

		fakews_faultf(fw, "{\"path\":\"%s\",\"status\":%d,\"body\":{\"error_code\":\"C%d\","
		                  "\"message\":\"m%d\"},\"headers\":{\"x-request-id\":\"rid-%d\"}}",
		              ME, cases[i].status, cases[i].status, cases[i].status, cases[i].status);
		ASSERT_EQ_INT(get(c, ME, &resp, &err), cases[i].code);
		ASSERT_EQ_INT(resp.attempts, 1);
		ASSERT_EQ_INT(resp.status, cases[i].status);
		ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 1);
		ASSERT_EQ_INT(air_error_http_status(err), cases[i].status);
		{
			char code[16], msg[16], rid[16];
			snprintf(code, sizeof(code), "C%d", cases[i].status);
			snprintf(msg, sizeof(msg), "m%d", cases[i].status);
			snprintf(rid, sizeof(rid), "rid-%d", cases[i].status);
			ASSERT_EQ_STR(air_error_server_code(err), code);
			ASSERT_CONTAINS(air_error_message(err), msg);
			ASSERT_CONTAINS(air_error_message(err), "GET " ME);
			ASSERT_EQ_STR(air_error_request_id(err), rid);
			ASSERT_EQ_STR(resp.request_id, rid);
		}
		/* The reply is still handed back. */
		ASSERT_CONTAINS(resp.body, "error_code");
		air_error_free(err);
		air__http_resp_clear(&resp);
		air_client_free(c);
	}
}

AIR_TEST(transport__request_id_prefers_x_request_id)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;

	/* fakews always adds its own X-Request-Id ("fakews-N"). */
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":404,\"headers\":"
	                  "{\"x-databricks-request-id\":\"dbx-1\"}}",
	              ME);
	ASSERT_EQ_INT(get(c, ME, NULL, &err), AIR_ENOTFOUND);
	ASSERT_TRUE(air__starts_with(air_error_request_id(err), "fakews-"));
	ASSERT_CONTAINS(air_error_message(err), "Not Found");
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(transport__retry_after_is_a_minimum)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;
	json_t *reqs;
	int64_t gap;

	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":429,\"headers\":{\"Retry-After\":\"1\"}}", ME);
	ASSERT_OK(get(c, ME, &resp, &err), err);
	reqs = fakews_requests(fw);
	ASSERT_EQ_INT(json_array_size(reqs), 2);
	gap = req_time(reqs, 1) - req_time(reqs, 0);
	air_test_note("Retry-After 1: attempts %lld ms apart", (long long)gap);
	ASSERT_TRUE(gap >= 1000);
	ASSERT_TRUE(gap < 10000);
	json_decref(reqs);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(transport__retry_after_http_date)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	json_t *reqs;
	char date[64];
	time_t t = time(NULL) + 2;
	struct tm tm;
	int64_t gap;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"headers\":{\"Retry-After\":\"%s\"}}", ME,
	              date);
	ASSERT_OK(get(c, ME, NULL, &err), err);
	reqs = fakews_requests(fw);
	ASSERT_EQ_INT(json_array_size(reqs), 2);
	gap = req_time(reqs, 1) - req_time(reqs, 0);
	air_test_note("Retry-After %s: attempts %lld ms apart", date, (long long)gap);
	ASSERT_TRUE(gap >= 900);
	json_decref(reqs);
	air_client_free(c);
}

AIR_TEST(transport__backoff_grows_with_the_attempt)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	json_t *reqs;
	int64_t g1, g3;

	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_BACKOFF_MS, 100), AIR_OK);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"times\":3}", ME);
	ASSERT_OK(get(c, ME, NULL, &err), err);
	reqs = fakews_requests(fw);
	ASSERT_EQ_INT(json_array_size(reqs), 4);
	g1 = req_time(reqs, 1) - req_time(reqs, 0);
	g3 = req_time(reqs, 3) - req_time(reqs, 2);
	air_test_note("gaps: %lld ms after attempt 1, %lld ms after attempt 3", (long long)g1,
	              (long long)g3);
	/* Attempt n waits n units + 5..75 ms of jitter (unit 100 ms): the lower
	 * bounds are the behaviour; the upper ones, 10x the most expected, only
	 * catch a wait that never ends. */
	ASSERT_TRUE(g1 >= 100 && g1 < 1750);
	ASSERT_TRUE(g3 >= 300 && g3 < 3750);
	json_decref(reqs);
	air_client_free(c);
}

AIR_TEST(transport__deadline_is_respected)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;
	int64_t t0, elapsed;

	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 400), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_BACKOFF_MS, 50), AIR_OK);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"times\":-1,"
	                  "\"body\":{\"error_code\":\"TEMPORARILY_UNAVAILABLE\",\"message\":\"down\"}}",
	              ME);
	t0 = air__mono_ms();
	ASSERT_EQ_INT(get(c, ME, &resp, &err), AIR_ESERVER);
	elapsed = air__mono_ms() - t0;
	air_test_note("gave up after %d attempts in %lld ms", (int)resp.attempts, (long long)elapsed);
	ASSERT_TRUE(elapsed < 4000); /* ten times the deadline; without one: 2 minutes */
	ASSERT_TRUE(resp.attempts >= 2);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
	ASSERT_EQ_INT(air_error_retryable(err), 1);
	ASSERT_CONTAINS(air_error_message(err), "gave up");
	ASSERT_CONTAINS(air_error_message(err), "down");
	air_error_free(err);
	air__http_resp_clear(&resp);

	/* A Retry-After beyond the deadline ends the call at once. */
	fakews_clear_faults(fw);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":429,\"times\":-1,\"headers\":{\"Retry-After\":\"30\"}}",
	              ME);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 2000), AIR_OK);
	err = NULL;
	t0 = air__mono_ms();
	ASSERT_EQ_INT(get(c, ME, &resp, &err), AIR_ERATELIMIT);
	elapsed = air__mono_ms() - t0;
	ASSERT_TRUE(elapsed < 5000); /* nowhere near the 30 s asked for */
	ASSERT_EQ_INT(resp.attempts, 1);
	ASSERT_EQ_INT(air_error_retry_after_ms(err), 30000);
	ASSERT_EQ_INT(air_error_retryable(err), 1);
	air_error_free(err);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(transport__post_bodies_are_replayed_byte_identically)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	unsigned char body[4096];
	air__http_req req = {.method = "POST", .path = "/api/2.0/replay", .query = "overwrite=true",
	                     .body = body, .body_len = sizeof(body)};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;
	json_t *reqs;

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (unsigned char)(i * 7);
	fakews_faultf(fw, "{\"path\":\"/api/2.0/replay\",\"status\":503}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/replay\",\"action\":\"reset_after\"}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/replay\",\"status\":200,\"body\":{\"ok\":true}}");
	ASSERT_OK(air__http_do(c, NULL, &req, &resp, &err), err);
	/* libcurl itself re-sends once on a fresh connection when a reused one
	 * dies before the reply; either way the bytes are the same. */
	ASSERT_TRUE(resp.attempts == 2 || resp.attempts == 3);
	reqs = fakews_requests(fw);
	ASSERT_EQ_INT(json_array_size(reqs), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *r = tc_request(reqs, i);
		ASSERT_EQ_STR(json_string_value(json_object_get(r, "body_b64")),
		              json_string_value(json_object_get(tc_request(reqs, 0), "body_b64")));
		ASSERT_NULL(tc_header(r, "content-type")); /* raw bytes: no content type */
		ASSERT_EQ_STR(tc_header(r, "content-length"), "4096");
	}
	{
		air__buf b64 = AIR__BUF_INIT;
		/* the first request carries exactly our bytes */
		static const char tbl[] =
		        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
		for (size_t i = 0; i < sizeof(body); i += 3) {
			uint32_t v = (uint32_t)body[i] << 16 |
			             (i + 1 < sizeof(body) ? (uint32_t)body[i + 1] << 8 : 0) |
			             (i + 2 < sizeof(body) ? body[i + 2] : 0);
			air__buf_putc(&b64, tbl[(v >> 18) & 63]);
			air__buf_putc(&b64, tbl[(v >> 12) & 63]);
			air__buf_putc(&b64, i + 1 < sizeof(body) ? tbl[(v >> 6) & 63] : '=');
			air__buf_putc(&b64, i + 2 < sizeof(body) ? tbl[v & 63] : '=');
		}
		ASSERT_EQ_STR(json_string_value(json_object_get(tc_request(reqs, 0), "body_b64")),
		              air__buf_cstr(&b64));
		air__buf_dispose(&b64);
	}
	json_decref(reqs);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(transport__api_json)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	json_t *out = NULL, *body = json_pack("{s:s, s:I}", "path", "/Workspace/x", "big",
	                                      (json_int_t)1700000000000000000LL);
	json_t *req;

	ASSERT_OK(air__api_json(c, NULL, "POST", "/api/2.0/workspace/mkdirs", NULL, body, &out, NULL,
	                        &err),
	          err);
	ASSERT_TRUE(json_is_object(out));
	json_decref(out);
	req = fakews_last_request(fw, "POST", "/api/2.0/workspace/mkdirs");
	ASSERT_EQ_STR(tc_header(req, "content-type"), "application/json");
	ASSERT_EQ_STR(json_string_value(json_object_get(req, "body")),
	              "{\"path\":\"/Workspace/x\",\"big\":1700000000000000000}");
	json_decref(req);

	/* empty reply -> {} */
	fakews_faultf(fw, "{\"path\":\"/api/2.0/empty\",\"status\":200}");
	ASSERT_OK(air__api_json(c, NULL, "GET", "/api/2.0/empty", NULL, NULL, &out, NULL, &err), err);
	ASSERT_EQ_INT(json_object_size(out), 0);
	json_decref(out);
	/* malformed reply -> AIR_EPROTO naming the call */
	fakews_faultf(fw, "{\"path\":\"/api/2.0/garbage\",\"status\":200,\"body\":\"<html>\"}");
	ASSERT_EQ_INT(air__api_json(c, NULL, "GET", "/api/2.0/garbage", "a=1", NULL, &out, NULL, &err),
	              AIR_EPROTO);
	ASSERT_NULL(out);
	ASSERT_CONTAINS(air_error_message(err), "GET /api/2.0/garbage");
	air_error_free(err);
	json_decref(body);
	air_client_free(c);
}

AIR_TEST(transport__head_and_query)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__buf q = AIR__BUF_INIT;
	air__http_req req = {.method = "HEAD", .path = ME};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;
	json_t *r;

	ASSERT_OK(air__http_do(c, NULL, &req, &resp, &err), err);
	ASSERT_EQ_INT(resp.status, 200);
	ASSERT_EQ_INT(resp.body_len, 0);
	air__buf_query(&q, "path", "/Workspace/a b");
	air__buf_query(&q, "filter_by.policy_name", "x&y");
	req.method = "GET";
	req.query = air__buf_cstr(&q);
	air__http_do(c, NULL, &req, &resp, &err);
	r = fakews_last_request(fw, "GET", ME);
	ASSERT_EQ_STR(json_string_value(json_array_get(json_object_get(json_object_get(r, "query"), "path"), 0)),
	              "/Workspace/a b");
	ASSERT_EQ_STR(json_string_value(json_array_get(
	                      json_object_get(json_object_get(r, "query"), "filter_by.policy_name"), 0)),
	              "x&y");
	json_decref(r);
	air__buf_dispose(&q);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(transport__plain_http_to_remote_hosts_is_refused_before_connecting)
{
	air_client *c = tc_client(NULL);
	air_error *err = NULL;
	int64_t requests = -1, connects = -1;

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, "http://10.255.255.1:9"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, "dapi-not-sent"), AIR_OK);
	ASSERT_EQ_INT(get(c, ME, NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "http://");
	ASSERT_CONTAINS(air_error_message(err), "10.255.255.1");
	ASSERT_NOT_CONTAINS(air_error_message(err), "dapi-not-sent");
	air_error_free(err);
	air__http_stats(c, &requests, &connects);
	ASSERT_EQ_INT(requests, 0);
	ASSERT_EQ_INT(connects, 0);
	err = NULL;
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(transport__connection_refused_is_retried_then_reported)
{
	air_client *c = tc_client(NULL);
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;

	/* Port 1 on loopback: nothing listens there. */
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, "http://127.0.0.1:1"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, "t"), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 150), AIR_OK);
	ASSERT_EQ_INT(get(c, ME, &resp, &err), AIR_ENET);
	ASSERT_TRUE(resp.attempts >= 2);
	ASSERT_EQ_INT(resp.status, 0);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
	ASSERT_EQ_INT(air_error_retryable(err), 1);
	ASSERT_EQ_INT(air_error_http_status(err), 0);
	air_error_free(err);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(transport__inactivity_timeout)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;
	int64_t t0 = air__mono_ms();

	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_INACTIVITY_TIMEOUT_MS, 1000), AIR_OK);
	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"delay\",\"delay_ms\":4000}", ME);
	ASSERT_OK(get(c, ME, &resp, &err), err);
	air_test_note("stalled attempt abandoned, retried: %lld ms", (long long)(air__mono_ms() - t0));
	ASSERT_EQ_INT(resp.attempts, 2);
	ASSERT_TRUE(air__mono_ms() - t0 < 3500);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

typedef struct trigger_arg {
	air_interrupt *intr;
	int delay_ms;
} trigger_arg;

static void *trigger_later(void *p)
{
	trigger_arg *a = p;

	air__sleep_ms(NULL, a->delay_ms);
	air_interrupt_trigger(a->intr);
	return NULL;
}

static void expect_interrupt(const char *fault)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__ctx ctx = {0};
	air__http_req req = {.method = "GET", .path = ME};
	air_error *err = NULL;
	trigger_arg arg = {NULL, 200};
	pthread_t th;
	int64_t t0, elapsed;

	ASSERT_EQ_INT(air_interrupt_new(&ctx.intr), AIR_OK);
	arg.intr = ctx.intr;
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	fakews_faultf(fw, "%s", fault);
	t0 = air__mono_ms();
	pthread_create(&th, NULL, trigger_later, &arg);
	ASSERT_EQ_INT(air__http_do(c, &ctx, &req, NULL, &err), AIR_EINTERRUPTED);
	elapsed = air__mono_ms() - t0;
	pthread_join(th, NULL);
	air_test_note("interrupted after %lld ms", (long long)elapsed);
	ASSERT_TRUE(elapsed >= 190 && elapsed < 2000); /* the fault lasts 3 s or more */
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_ABORTED);
	air_error_free(err);
	air_interrupt_free(ctx.intr);
	air_client_free(c);
}

AIR_TEST(transport__interrupt_during_a_slow_reply)
{
	expect_interrupt("{\"path\":\"" ME "\",\"action\":\"delay\",\"delay_ms\":3000}");
}

AIR_TEST(transport__interrupt_during_back_off)
{
	expect_interrupt("{\"path\":\"" ME "\",\"status\":503,\"times\":-1,"
	                 "\"headers\":{\"Retry-After\":\"5\"}}");
}

AIR_TEST(transport__do_many_runs_concurrently)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req reqs[5];
	air__http_resp resps[5];
	air_error *err = NULL;
	int64_t t0, elapsed, requests = 0, connects = 0;

	fakews_configf(fw, "{\"latency_ms\": 200}");
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	for (int i = 0; i < 5; i++) {
		reqs[i] = (air__http_req){.method = "GET", .path = ME};
		resps[i] = (air__http_resp)AIR__HTTP_RESP_INIT;
	}
	t0 = air__mono_ms();
	ASSERT_OK(air__http_do_many(c, NULL, reqs, 5, resps, &err), err);
	elapsed = air__mono_ms() - t0;
	air_test_note("5 requests of 200 ms each in parallel: %lld ms", (long long)elapsed);
	/* In flight together, they needed a connection each (one after the
	 * other they would have shared one). */
	air__http_stats(c, &requests, &connects);
	ASSERT_EQ_INT(requests, 5);
	ASSERT_EQ_INT(connects, 5);
	for (int i = 0; i < 5; i++) {
		ASSERT_EQ_INT(resps[i].status, 200);
		ASSERT_CONTAINS(resps[i].body, "userName");
		air__http_resp_clear(&resps[i]);
	}

	/* At most AIR_OPT_MAX_PARALLEL at a time. */
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_MAX_PARALLEL, 1), AIR_OK);
	t0 = air__mono_ms();
	ASSERT_OK(air__http_do_many(c, NULL, reqs, 3, resps, &err), err);
	elapsed = air__mono_ms() - t0;
	air_test_note("3 requests, one at a time: %lld ms", (long long)elapsed);
	ASSERT_TRUE(elapsed >= 600);
	/* One at a time, they reused the connections already open. */
	air__http_stats(c, &requests, &connects);
	ASSERT_EQ_INT(requests, 8);
	ASSERT_EQ_INT(connects, 5);
	for (int i = 0; i < 3; i++)
		air__http_resp_clear(&resps[i]);
	air_client_free(c);
}

AIR_TEST(transport__do_many_retries_independently_and_reports_the_first_failure)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req reqs[4];
	air__http_resp resps[4];
	air_error *err = NULL;
	const char *paths[4] = {ME, "/api/2.0/missing-b", "/api/2.0/flaky", "/api/2.0/missing-d"};

	fakews_faultf(fw, "{\"path\":\"/api/2.0/flaky\",\"status\":503}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/flaky\",\"status\":200,\"body\":{\"ok\":1}}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/missing-d\",\"status\":409}");
	for (int i = 0; i < 4; i++) {
		reqs[i] = (air__http_req){.method = "GET", .path = paths[i]};
		resps[i] = (air__http_resp)AIR__HTTP_RESP_INIT;
	}
	ASSERT_EQ_INT(air__http_do_many(c, NULL, reqs, 4, resps, &err), AIR_ENOTFOUND);
	ASSERT_CONTAINS(air_error_message(err), "missing-b");
	ASSERT_EQ_INT(resps[0].status, 200);
	ASSERT_EQ_INT(resps[1].status, 404);
	ASSERT_EQ_INT(resps[2].status, 200);
	ASSERT_EQ_INT(resps[2].attempts, 2);
	ASSERT_EQ_INT(resps[3].status, 409);
	for (int i = 0; i < 4; i++)
		air__http_resp_clear(&resps[i]);
	air_error_free(err);
	ASSERT_EQ_INT(air__http_do_many(c, NULL, reqs, 0, NULL, NULL), AIR_OK);
	air_client_free(c);
}

typedef struct progress_log {
	int64_t last_done;
	int64_t total;
	int calls;
	bool monotonic;
	int64_t abort_after;
} progress_log;

static int on_progress(void *ud, int64_t done, int64_t total)
{
	progress_log *p = ud;

	p->monotonic = p->monotonic && done >= p->last_done;
	p->last_done = done;
	p->total = total;
	p->calls++;
	return p->abort_after > 0 && done >= p->abort_after;
}

AIR_TEST(transport__upload_progress_sums_parallel_requests)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	static char blob[3][200000];
	air__http_req reqs[3];
	air__http_resp resps[3];
	progress_log log = {0, 0, 0, true, 0};
	air__ctx ctx = {.on_progress = on_progress, .progress_ud = &log};
	air_error *err = NULL;

	fakews_faultf(fw, "{\"path\":\"/api/2.0/upload*\",\"status\":200,\"times\":-1,\"body\":{}}");
	for (int i = 0; i < 3; i++) {
		memset(blob[i], 'a' + i, sizeof(blob[i]));
		reqs[i] = (air__http_req){.method = "POST",
		                          .path = i == 0   ? "/api/2.0/upload/a"
		                                  : i == 1 ? "/api/2.0/upload/b"
		                                           : "/api/2.0/upload/c",
		                          .body = blob[i], .body_len = sizeof(blob[i]),
		                          .content_type = "application/octet-stream"};
		resps[i] = (air__http_resp)AIR__HTTP_RESP_INIT;
	}
	ASSERT_OK(air__http_do_many(c, &ctx, reqs, 3, resps, &err), err);
	ASSERT_TRUE(log.calls >= 1);
	ASSERT_TRUE(log.monotonic);
	ASSERT_EQ_INT(log.total, 3 * 200000);
	ASSERT_EQ_INT(log.last_done, 3 * 200000);
	for (int i = 0; i < 3; i++)
		air__http_resp_clear(&resps[i]);

	/* A non-zero return stops the call. */
	log = (progress_log){0, 0, 0, true, 1};
	fakews_configf(fw, "{\"latency_ms\": 300}");
	ASSERT_EQ_INT(air__http_do_many(c, &ctx, reqs, 3, resps, &err), AIR_EABORTED);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_ABORTED);
	air_error_free(err);
	for (int i = 0; i < 3; i++)
		air__http_resp_clear(&resps[i]);
	air_client_free(c);
}

static int collect(const void *data, size_t len, void *ud)
{
	air__buf *b = ud;

	air__buf_put(b, data, len);
	return b->len > 1000000;
}

AIR_TEST(transport__sink_streams_the_body)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__buf got = AIR__BUF_INIT;
	air__http_req req = {.method = "GET", .path = ME, .sink = collect, .sink_ud = &got};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;

	ASSERT_OK(air__http_do(c, NULL, &req, &resp, &err), err);
	ASSERT_NULL(resp.body);
	ASSERT_CONTAINS(air__buf_cstr(&got), "tester@databricks.com");
	/* Error replies are collected for the error, not streamed. */
	air__buf_clear(&got);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":404,\"body\":{\"error_code\":\"NOPE\"}}", ME);
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, &resp, &err), AIR_ENOTFOUND);
	ASSERT_EQ_INT(got.len, 0);
	ASSERT_CONTAINS(resp.body, "NOPE");
	air_error_free(err);
	air__buf_dispose(&got);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

static int refuse(const void *data, size_t len, void *ud)
{
	(void)data;
	(void)len;
	(void)ud;
	return 1;
}

AIR_TEST(transport__sink_abort)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req req = {.method = "GET", .path = ME, .sink = refuse};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;

	ASSERT_EQ_INT(air__http_do(c, NULL, &req, &resp, &err), AIR_EABORTED);
	ASSERT_EQ_INT(resp.attempts, 1);
	air_error_free(err);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(transport__rate_limit)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	int64_t t0, elapsed;

	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 10), AIR_OK);
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	t0 = air__mono_ms();
	/* A burst of 10, then one every 100 ms. */
	for (int i = 0; i < 14; i++)
		ASSERT_OK(get(c, ME, NULL, &err), err);
	elapsed = air__mono_ms() - t0;
	air_test_note("14 requests at 10 rps: %lld ms", (long long)elapsed);
	ASSERT_TRUE(elapsed >= 350);
	ASSERT_TRUE(elapsed < 4000);
	air_client_free(c);
}

AIR_TEST(transport__connections_are_reused)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	int64_t requests, connects;

	for (int i = 0; i < 20; i++)
		ASSERT_OK(get(c, ME, NULL, &err), err);
	air__http_stats(c, &requests, &connects);
	air_test_note("%lld requests, %lld connections", (long long)requests, (long long)connects);
	ASSERT_EQ_INT(requests, 20);
	ASSERT_EQ_INT(connects, 1);
	air_client_free(c);
}

AIR_TEST(transport__invalid_requests)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req req = {.method = "GET", .path = "no-slash"};
	air_error *err = NULL;

	ASSERT_EQ_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	req.path = NULL;
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air__http_do(c, NULL, NULL, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	req = (air__http_req){.method = "GET", .path = "ftp://x/y", .flags = AIR__HTTP_ABSOLUTE_URL};
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(transport__absolute_urls_get_no_credentials)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	char url[256];
	air__http_req req = {.method = "GET", .path = url,
	                     .flags = AIR__HTTP_ABSOLUTE_URL | AIR__HTTP_NO_AUTH};
	air_error *err = NULL;
	json_t *r;

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_WORKSPACE_ID, "5"), AIR_OK);
	snprintf(url, sizeof(url), "%s/api/2.0/signed?sig=abc", fakews_url(fw));
	fakews_faultf(fw, "{\"path\":\"/api/2.0/signed\",\"status\":200,\"body\":\"data\"}");
	ASSERT_OK(air__http_do(c, NULL, &req, NULL, &err), err);
	r = fakews_last_request(fw, "GET", "/api/2.0/signed");
	ASSERT_NULL(tc_header(r, "authorization"));
	ASSERT_NULL(tc_header(r, "x-databricks-workspace-id"));
	json_decref(r);
	air_client_free(c);
}

AIR_TEST(transport__debug_trace_never_shows_credentials)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	tc_trace t;
	air_error *err = NULL;
	static const char body[] = "{\"scope\":\"s\",\"key\":\"k\",\"string_value\":\"dXNlcjpodW50ZXIy\"}";
	air__http_req req = {.method = "POST", .path = "/api/2.0/secrets/put", .body = body,
	                     .body_len = sizeof(body) - 1, .content_type = "application/json"};

	fakews_faultf(fw, "{\"path\":\"/api/2.0/secrets/put\",\"status\":200,\"body\":{}}");
	tc_trace_init(&t);
	tc_trace_attach(c, &t);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"body\":{\"message\":\"echo dapi-test\"}}", ME);
	ASSERT_OK(get(c, ME, NULL, &err), err);
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_OK);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":400,\"body\":{\"message\":\"bad dapi-test\"}}", ME);
	ASSERT_EQ_INT(get(c, ME, NULL, &err), AIR_EAPI);
	ASSERT_NOT_CONTAINS(air_error_message(err), "dapi-test");
	ASSERT_CONTAINS(air_error_message(err), "[REDACTED]");
	air_error_free(err);
	ASSERT_TRUE(t.count[AIR_DEBUG_REQUEST] >= 4);
	ASSERT_TRUE(t.count[AIR_DEBUG_RESPONSE] >= 4);
	ASSERT_TRUE(t.count[AIR_DEBUG_BODY_OUT] >= 1);
	ASSERT_TRUE(t.count[AIR_DEBUG_BODY_IN] >= 1);
	ASSERT_TRUE(t.count[AIR_DEBUG_INFO] >= 1);
	ASSERT_CONTAINS(air__buf_cstr(&t.text), "Authorization: [REDACTED]");
	ASSERT_CONTAINS(air__buf_cstr(&t.text), "GET http://127.0.0.1");
	ASSERT_CONTAINS(air__buf_cstr(&t.text), "HTTP/1.");
	ASSERT_CONTAINS(air__buf_cstr(&t.text), "retrying");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "dapi-test");
	ASSERT_NOT_CONTAINS(air__buf_cstr(&t.text), "dXNlcjpodW50ZXIy");
	tc_trace_free(&t);
	air_client_free(c);
}

/* ---- requests fed while others run (air__http_do_feed) ---------------------- */

typedef struct feed_state {
	air__http_req req[40];
	air__http_resp resp[40];
	int handed, total, ok, failed, in_flight, most_in_flight;
	int follow_ups;        /* a request added by done() for each of the first ones */
	int stop_after;        /* done() asks to stop after this many (0: never) */
	int64_t first_timeout_ms; /* the first request's inactivity limit (0: the settings') */
	int codes[40];
} feed_state;

static bool feed_next(void *ud, const air__http_req **req, air__http_resp **resp, void **tag)
{
	feed_state *f = ud;

	if (f->handed >= f->total)
		return false;
	f->req[f->handed] = (air__http_req){.method = "GET", .path = ME};
	if (f->handed == 0 && f->first_timeout_ms) { /* one attempt, with its own limit */
		f->req[0].inactivity_timeout_ms = f->first_timeout_ms;
		f->req[0].flags = AIR__HTTP_NO_RETRY;
		f->req[0].query = "first=1"; /* for the fault that delays it alone */
	}
	f->resp[f->handed] = (air__http_resp)AIR__HTTP_RESP_INIT;
	*req = &f->req[f->handed];
	*resp = &f->resp[f->handed];
	*tag = (void *)(intptr_t)f->handed;
	f->handed++;
	if (++f->in_flight > f->most_in_flight)
		f->most_in_flight = f->in_flight;
	return true;
}

static int feed_done(void *ud, void *tag, int rc, air_error *err)
{
	feed_state *f = ud;
	int i = (int)(intptr_t)tag;

	f->in_flight--;
	f->codes[i] = rc;
	rc == AIR_OK ? f->ok++ : f->failed++;
	air_error_free(err);
	air__http_resp_clear(&f->resp[i]);
	if (f->follow_ups > 0 && f->total < 40) {
		f->follow_ups--;
		f->total++; /* one more becomes ready now */
	}
	return f->stop_after && f->ok + f->failed >= f->stop_after;
}

AIR_TEST(transport__a_feed_keeps_max_parallel_in_flight_and_retries_each)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_feed feed;
	feed_state f;
	air_error *err = NULL;
	json_t *conns;

	memset(&f, 0, sizeof(f));
	f.total = 20;
	f.follow_ups = 10;
	feed = (air__http_feed){feed_next, feed_done, &f, 3};
	fakews_configf(fw, "{\"latency_ms\":5}");
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"times\":3,\"after\":4,"
	                  "\"body\":{\"error_code\":\"TEMPORARILY_UNAVAILABLE\",\"message\":\"busy\"}}", ME);
	ASSERT_OK(air__http_do_feed(c, NULL, &feed, &err), err);
	ASSERT_EQ_INT(f.handed, 30);
	ASSERT_EQ_INT(f.ok, 30);
	ASSERT_EQ_INT(f.most_in_flight, 3);
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 33); /* 3 retried */
	conns = fakews_call(fw, "GET", "/__fakews/connections", NULL);
	ASSERT_TRUE(json_integer_value(json_object_get(conns, "max_open")) <= 3);
	json_decref(conns);
	air_client_free(c);
}

/* A request whose own time limit runs out fails alone (AIR_ETIMEOUT); the
 * call has no deadline, so the feed goes on with the others. */
AIR_TEST(transport__a_request_timing_out_on_its_own_leaves_the_feed_going)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_feed feed;
	feed_state f;
	air_error *err = NULL;

	memset(&f, 0, sizeof(f));
	f.total = 6;
	f.first_timeout_ms = 1000;
	feed = (air__http_feed){feed_next, feed_done, &f, 2};
	fakews_faultf(fw, "{\"path\":\"%s\",\"query\":{\"first\":\"1\"},\"action\":\"delay\","
	                  "\"delay_ms\":3000}", ME);
	ASSERT_OK(air__http_do_feed(c, NULL, &feed, &err), err);
	ASSERT_EQ_INT(f.handed, 6);
	ASSERT_EQ_INT(f.codes[0], AIR_ETIMEOUT);
	ASSERT_EQ_INT(f.ok, 5);
	air_client_free(c);
}

AIR_TEST(transport__a_feed_stops_when_done_asks_and_reports_the_rest)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_feed feed;
	feed_state f;
	air_error *err = NULL;

	memset(&f, 0, sizeof(f));
	f.total = 30;
	f.stop_after = 5;
	feed = (air__http_feed){feed_next, feed_done, &f, 4};
	fakews_configf(fw, "{\"latency_ms\":5}");
	ASSERT_EQ_INT(air__http_do_feed(c, NULL, &feed, &err), AIR_EABORTED);
	air_error_free(err);
	/* everything handed out was reported, nothing after the stop was handed */
	ASSERT_EQ_INT(f.ok + f.failed, f.handed);
	ASSERT_EQ_INT(f.in_flight, 0);
	ASSERT_TRUE(f.handed < 30);
	for (int i = 0; i < f.handed; i++)
		ASSERT_TRUE(f.codes[i] == AIR_OK || f.codes[i] == AIR_EABORTED);
	air_client_free(c);
}
