/* test_fakews_driver.c: the C driver of the fake workspace (tests/support/fakews.c). */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakews.h"
#include "test.h"

struct body {
	char *data;
	size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *ud)
{
	struct body *b = ud;
	char *d = realloc(b->data, b->len + size * n + 1);

	if (!d)
		return 0;
	memcpy(d + b->len, p, size * n);
	b->data = d;
	b->len += size * n;
	b->data[b->len] = '\0';
	return size * n;
}

/* One API request as a client would make it. Returns the HTTP status, or
 * -(CURLcode) on a transport failure. */
static long api(CURL *c, const char *method, const char *url, const char *token, const char *body,
                size_t body_len, struct body *out)
{
	struct curl_slist *h = NULL;
	char auth[256];
	long status = 0;

	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (token) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		h = curl_slist_append(h, auth);
	}
	h = curl_slist_append(h, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	if (strcmp(method, "GET") != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)body_len);
	}
	CURLcode rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	else
		status = -(long)rc;
	curl_slist_free_all(h);
	return status;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *SUBMIT =
	"{\"run_name\":\"smoke-test\",\"idempotency_token\":\"%s\",\"tasks\":[{\"task_key\":\"smoke-test\","
	"\"environment_key\":\"default\",\"max_retries\":3,\"ai_runtime_task\":{\"experiment\":\"smoke-test\","
	"\"deployments\":[{\"command_path\":\"/Workspace/Users/tester@databricks.com/c.sh\","
	"\"compute\":{\"accelerator_type\":\"GPU_1xH100\",\"accelerator_count\":1}}]}}],"
	"\"environments\":[{\"environment_key\":\"default\",\"spec\":{\"environment_version\":\"6\"}}]}";

static fakews *fw;
static CURL *curl;

static void setup(void)
{
	fw = NULL;
	curl = curl_easy_init();
}

static void teardown(void)
{
	fakews_stop(fw);
	fw = NULL;
	curl_easy_cleanup(curl);
	curl = NULL;
}

AIR_TEST_HOOKS(setup, teardown)

AIR_TEST(fakews_driver__start_and_stop_reap_the_server)
{
	long long t0 = now_ms();
	fw = fakews_start();
	long long took = now_ms() - t0;

	air_test_note("fakews_start took %lld ms", took);
	ASSERT_TRUE(strncmp(fakews_url(fw), "http://127.0.0.1:", 17) == 0);
	ASSERT_TRUE(fakews_port(fw) > 0);
	ASSERT_EQ_INT(atoi(fakews_url(fw) + 17), fakews_port(fw));
	json_t *h = fakews_call(fw, "GET", "/__fakews/health", NULL);
	pid_t pid = (pid_t)json_integer_value(json_object_get(h, "pid"));
	json_decref(h);
	ASSERT_TRUE(pid > 0);
	ASSERT_EQ_INT(kill(pid, 0), 0);
	fakews_stop(fw);
	fw = NULL;
	/* reaped: not even a zombie is left */
	ASSERT_EQ_INT(kill(pid, 0), -1);
	ASSERT_EQ_INT(errno, ESRCH);
	fakews_stop(NULL);
}

AIR_TEST(fakews_driver__several_servers_at_once)
{
	fakews *more[3];

	for (int i = 0; i < 3; i++)
		more[i] = fakews_start();
	ASSERT_NE_INT(fakews_port(more[0]), fakews_port(more[1]));
	ASSERT_NE_INT(fakews_port(more[1]), fakews_port(more[2]));
	fakews_configf(more[0], "{\"user\":\"a@x.com\"}");
	json_t *c1 = fakews_call(more[1], "GET", "/__fakews/config", NULL);
	ASSERT_EQ_STR(json_string_value(json_object_get(c1, "user")), "tester@databricks.com");
	json_decref(c1);
	for (int i = 0; i < 3; i++)
		fakews_stop(more[i]);
}

AIR_TEST(fakews_driver__call_config_and_reset)
{
	fw = fakews_start();
	json_t *c = fakews_callf(fw, "POST", "/__fakews/config", "{\"latency_ms\":%d,\"user\":\"%s\"}", 3,
	                         "x@y.com");
	ASSERT_EQ_INT(json_integer_value(json_object_get(c, "latency_ms")), 3);
	ASSERT_EQ_STR(json_string_value(json_object_get(c, "user")), "x@y.com");
	json_decref(c);
	fakews_reset(fw);
	c = fakews_call(fw, "GET", "/__fakews/config", NULL);
	ASSERT_EQ_INT(json_integer_value(json_object_get(c, "latency_ms")), 0);
	ASSERT_EQ_STR(json_string_value(json_object_get(c, "user")), "tester@databricks.com");
	json_decref(c);
}

AIR_TEST(fakews_driver__requests_count_and_last_request)
{
	struct body b = {0};
	char url[256];

	fw = fakews_start();
	snprintf(url, sizeof(url), "%s/api/2.0/preview/scim/v2/Me", fakews_url(fw));
	ASSERT_EQ_INT(api(curl, "GET", url, "dapi-test", NULL, 0, &b), 200);
	ASSERT_CONTAINS(b.data, "\"userName\":\"tester@databricks.com\"");
	free(b.data);
	b = (struct body){0};
	ASSERT_EQ_INT(api(curl, "GET", url, "wrong", NULL, 0, &b), 401);
	ASSERT_CONTAINS(b.data, "UNAUTHENTICATED");
	free(b.data);
	b = (struct body){0};
	snprintf(url, sizeof(url), "%s/api/2.2/jobs/runs/get?run_id=42", fakews_url(fw));
	ASSERT_EQ_INT(api(curl, "GET", url, "dapi-test", NULL, 0, &b), 400);
	free(b.data);

	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/preview/scim/v2/Me"), 2);
	ASSERT_EQ_INT(fakews_count(fw, "POST", "/api/2.0/preview/scim/v2/Me"), 0);
	ASSERT_EQ_INT(fakews_count(fw, NULL, "/api/*"), 3);
	ASSERT_EQ_INT(fakews_count(fw, "*", "/api/2.2/*"), 1);

	json_t *last = fakews_last_request(fw, "GET", "/api/2.0/preview/scim/v2/Me");
	ASSERT_NOT_NULL(last);
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(last, "headers"), "authorization")),
	              "Bearer wrong");
	ASSERT_EQ_INT(json_integer_value(json_object_get(last, "status")), 401);
	json_decref(last);
	ASSERT_NULL(fakews_last_request(fw, "DELETE", "/api/*"));

	json_t *reqs = fakews_requests(fw);
	ASSERT_EQ_INT(json_array_size(reqs), 3);
	json_t *third = json_array_get(reqs, 2);
	ASSERT_EQ_STR(json_string_value(json_array_get(
			      json_object_get(json_object_get(third, "query"), "run_id"), 0)),
	              "42");
	json_decref(reqs);

	fakews_clear_requests(fw);
	ASSERT_EQ_INT(fakews_count(fw, NULL, "*"), 0);
}

AIR_TEST(fakews_driver__file_returns_uploaded_bytes)
{
	static const char bin[] = {'a', '\0', 'b', '\n', (char)0xff};
	struct body b = {0};
	char url[512];
	size_t len = 99;

	fw = fakews_start();
	snprintf(url, sizeof(url),
	         "%s/api/2.0/workspace-files/import-file/Workspace%%2FUsers%%2Ftester%%40databricks.com"
	         "%%2Fbin.dat?overwrite=true",
	         fakews_url(fw));
	ASSERT_EQ_INT(api(curl, "POST", url, "dapi-test", bin, sizeof(bin), &b), 200);
	free(b.data);
	char *data = fakews_file(fw, "/Workspace/Users/tester@databricks.com/bin.dat", &len);
	ASSERT_NOT_NULL(data);
	ASSERT_EQ_INT(len, sizeof(bin));
	ASSERT_TRUE(memcmp(data, bin, sizeof(bin)) == 0);
	free(data);
	len = 99;
	ASSERT_NULL(fakews_file(fw, "/Workspace/Users/tester@databricks.com/none", &len));
	ASSERT_EQ_INT(len, 0);
}

AIR_TEST(fakews_driver__runs_keep_64_bit_ids)
{
	struct body b = {0};
	char url[256];

	fw = fakews_start();
	int64_t id = fakews_create_runf(fw, "{\"run_id\":%lld,\"run_name\":\"big\"}", 334747067049496LL);
	ASSERT_EQ_INT(id, 334747067049496LL);
	snprintf(url, sizeof(url), "%s/api/2.2/jobs/runs/get?run_id=%lld", fakews_url(fw), (long long)id);
	ASSERT_EQ_INT(api(curl, "GET", url, "dapi-test", NULL, 0, &b), 200);
	ASSERT_CONTAINS(b.data, "\"run_id\":334747067049496");
	free(b.data);
	json_t *r = fakews_run(fw, id);
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(r, "run"), "run_name")), "big");
	json_decref(r);

	int64_t next = fakews_create_runf(fw, "{}");
	ASSERT_EQ_INT(next, 555);
}

AIR_TEST(fakews_driver__reset_after_fault_creates_the_run)
{
	struct body b = {0};
	char url[256], body[2048];

	fw = fakews_start();
	int id = fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"action\":\"reset_after\"}",
	                       "/api/2.2/jobs/runs/submit");
	ASSERT_TRUE(id > 0);
	snprintf(url, sizeof(url), "%s/api/2.2/jobs/runs/submit", fakews_url(fw));
	snprintf(body, sizeof(body), SUBMIT, "tok-1");
	long st = api(curl, "POST", url, "dapi-test", body, strlen(body), &b);
	ASSERT_EQ_INT(st, -(long)CURLE_RECV_ERROR);
	free(b.data);
	b = (struct body){0};
	/* the run exists; the retry with the same token gets the same run */
	ASSERT_EQ_INT(api(curl, "POST", url, "dapi-test", body, strlen(body), &b), 200);
	ASSERT_CONTAINS(b.data, "\"run_id\":555");
	free(b.data);
	json_t *run = fakews_run(fw, 555);
	ASSERT_EQ_INT(json_integer_value(json_object_get(run, "submits")), 2);
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(run, "submitted"), "idempotency_token")),
	              "tok-1");
	json_decref(run);
	ASSERT_EQ_INT(fakews_count(fw, "POST", "/api/2.2/jobs/runs/submit"), 2);

	fakews_clear_faults(fw);
	fakews_faultf(fw, "{\"path\":\"/api/2.2/jobs/runs/submit\",\"status\":503,"
	                  "\"body\":{\"error_code\":\"TEMPORARILY_UNAVAILABLE\",\"message\":\"busy\"},"
	                  "\"headers\":{\"Retry-After\":\"2\"}}");
	b = (struct body){0};
	snprintf(body, sizeof(body), SUBMIT, "tok-2");
	ASSERT_EQ_INT(api(curl, "POST", url, "dapi-test", body, strlen(body), &b), 503);
	ASSERT_CONTAINS(b.data, "TEMPORARILY_UNAVAILABLE");
	free(b.data);
	b = (struct body){0};
	ASSERT_EQ_INT(api(curl, "POST", url, "dapi-test", body, strlen(body), &b), 200);
	ASSERT_CONTAINS(b.data, "\"run_id\":557");
	free(b.data);
}

struct worker {
	const char *base;
	int n;
	int failures;
};

static void *hammer(void *arg)
{
	struct worker *w = arg;
	CURL *c = curl_easy_init();
	char url[256];

	snprintf(url, sizeof(url), "%s/api/2.0/preview/scim/v2/Me", w->base);
	for (int i = 0; i < w->n; i++) {
		struct body b = {0};
		if (api(c, "GET", url, "dapi-test", NULL, 0, &b) != 200)
			w->failures++;
		free(b.data);
	}
	curl_easy_cleanup(c);
	return NULL;
}

AIR_TEST(fakews_driver__latency_does_not_serialise_clients)
{
	/* Each request is held 3 s: served one at a time, 16 of them would take
	 * 48 s; served concurrently about 3 s. The bound is 10 times that. */
	enum { THREADS = 16, PER = 1 };
	pthread_t th[THREADS];
	struct worker w[THREADS];

	fw = fakews_start();
	fakews_faultf(fw, "{\"path\":\"/api/2.0/preview/scim/v2/Me\",\"action\":\"delay\","
	                  "\"delay_ms\":3000,\"times\":-1}");
	long long t0 = now_ms();
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){fakews_url(fw), PER, 0};
		ASSERT_EQ_INT(pthread_create(&th[i], NULL, hammer, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	long long took = now_ms() - t0;
	air_test_note("%d requests held 3 s each, from %d threads: %lld ms", THREADS * PER, THREADS,
	              took);
	for (int i = 0; i < THREADS; i++)
		ASSERT_EQ_INT(w[i].failures, 0);
	ASSERT_TRUE(took < 30000);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/preview/scim/v2/Me"), THREADS * PER);
}

AIR_TEST(fakews_driver__client_talks_to_the_server)
{
	air_client *probe = NULL;
	int rc = air_client_new(NULL, &probe, NULL);

	if (rc == AIR_EUNSUPPORTED)
		air_test_skip("air_client is not implemented in this build yet");
	air_client_free(probe);

	fw = fakews_start();
	air_client *c = fakews_client(fw);
	char *user = NULL;
	air_error *err = NULL;
	rc = air_client_current_user(c, NULL, &user, &err);
	if (rc != AIR_OK) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", err ? air_error_message(err) : "");
		air_error_free(err);
		air_client_free(c);
		FAIL("air_client_current_user: %d %s", rc, msg);
	}
	ASSERT_EQ_STR(user, "tester@databricks.com");
	air_free(user);
	air_client_free(c);
	json_t *last = fakews_last_request(fw, "GET", "/api/2.0/preview/scim/v2/Me");
	ASSERT_NOT_NULL(last);
	ASSERT_EQ_STR(json_string_value(json_object_get(json_object_get(last, "headers"), "authorization")),
	              "Bearer dapi-test");
	json_decref(last);
}
