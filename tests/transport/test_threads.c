/*
 * test_threads.c: one client shared by many threads: every request
 * succeeds, connections are reused, resolution and OAuth token fetches
 * happen once (single flight). Also run under ThreadSanitizer
 * (docs/threading.md).
 */
#include "transport/http_priv.h"
#include "support.h"

#define ME "/api/2.0/preview/scim/v2/Me"
#define THREADS 8
#define PER_THREAD 40

typedef struct worker {
	air_client *c;
	pthread_barrier_t *start;
	int ok;
	int first_rc;
	char message[256];
} worker;

static void *run_requests(void *p)
{
	worker *w = p;

	pthread_barrier_wait(w->start);
	for (int i = 0; i < PER_THREAD; i++) {
		air__http_req req = {.method = "GET", .path = ME};
		air__http_resp resp = AIR__HTTP_RESP_INIT;
		air_error *err = NULL;
		int rc = air__http_do(w->c, NULL, &req, &resp, &err);

		if (rc == AIR_OK && resp.status == 200 && resp.body && strstr(resp.body, "userName")) {
			w->ok++;
		} else if (w->first_rc == AIR_OK) {
			w->first_rc = rc;
			snprintf(w->message, sizeof(w->message), "%s", air_error_message(err));
		}
		air_error_free(err);
		air__http_resp_clear(&resp);
	}
	return NULL;
}

static void run_threads(air_client *c, void *(*fn)(void *), worker *w)
{
	pthread_t th[THREADS];
	pthread_barrier_t start;

	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++) {
		w[i] = (worker){c, &start, 0, AIR_OK, ""};
		ASSERT_EQ_INT(pthread_create(&th[i], NULL, fn, &w[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
}

AIR_TEST(threads__one_client_many_threads)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	worker w[THREADS];
	int64_t requests, connects, t0 = air__mono_ms();

	run_threads(c, run_requests, w);
	for (int i = 0; i < THREADS; i++) {
		if (w[i].first_rc != AIR_OK)
			FAIL("thread %d: %s (%d)", i, w[i].message, w[i].first_rc);
		ASSERT_EQ_INT(w[i].ok, PER_THREAD);
	}
	air__http_stats(c, &requests, &connects);
	air_test_note("%d threads x %d requests: %lld ms, %lld requests, %lld connections", THREADS,
	              PER_THREAD, (long long)(air__mono_ms() - t0), (long long)requests,
	              (long long)connects);
	ASSERT_EQ_INT(requests, THREADS * PER_THREAD);
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), THREADS * PER_THREAD);
	/* One connection per concurrently active call at most, reused afterwards. */
	ASSERT_TRUE(connects >= 1 && connects <= THREADS);

	/* A second round reuses the pooled connections: no new ones. */
	run_threads(c, run_requests, w);
	{
		int64_t r2, c2;
		air__http_stats(c, &r2, &c2);
		air_test_note("second round: %lld new connections", (long long)(c2 - connects));
		ASSERT_EQ_INT(r2, 2 * THREADS * PER_THREAD);
		ASSERT_TRUE(c2 - connects <= THREADS / 2);
	}
	air_client_free(c);
}

static void *resolve_and_call(void *p)
{
	worker *w = p;
	air__http_req req = {.method = "GET", .path = ME};
	air_error *err = NULL;
	int rc;

	pthread_barrier_wait(w->start);
	rc = air_client_resolve(w->c, NULL, &err);
	if (rc == AIR_OK)
		rc = air__http_do(w->c, NULL, &req, NULL, &err);
	if (rc == AIR_OK) {
		w->ok++;
	} else {
		w->first_rc = rc;
		snprintf(w->message, sizeof(w->message), "%s", air_error_message(err));
	}
	air_error_free(err);
	return NULL;
}

AIR_TEST(threads__oauth_token_is_fetched_once)
{
	fakews *fw = tc_fakews();
	char cfg[512], var[1300];
	const char *env[] = {var, NULL};
	air_client *c;
	worker w[THREADS];

	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"sec\"}}}");
	/* A slow token endpoint lets every thread arrive while the first fetches. */
	fakews_faultf(fw, "{\"path\":\"/oidc/v1/token\",\"action\":\"delay\",\"delay_ms\":300}");
	snprintf(cfg, sizeof(cfg), "[sp]\nhost = %s\nclient_id = cid\nclient_secret = sec\n",
	         fakews_url(fw));
	snprintf(var, sizeof(var), "DATABRICKS_CONFIG_FILE=%s", tc_write(air_test_tmpdir(), "cfg", cfg));
	c = tc_client(env);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_PROFILE, "sp"), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 0), AIR_OK);
	run_threads(c, resolve_and_call, w);
	for (int i = 0; i < THREADS; i++) {
		if (w[i].first_rc != AIR_OK)
			FAIL("thread %d: %s (%d)", i, w[i].message, w[i].first_rc);
	}
	ASSERT_EQ_INT(fakews_count(fw, "POST", "/oidc/v1/token"), 1);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/.well-known/databricks-config"), 1);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/oidc/.well-known/oauth-authorization-server"), 1);
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), THREADS);
	air_client_free(c);
}

static void *resolve_only(void *p)
{
	worker *w = p;
	air_error *err = NULL;

	pthread_barrier_wait(w->start);
	w->first_rc = air_client_resolve(w->c, NULL, &err);
	if (w->first_rc != AIR_OK)
		snprintf(w->message, sizeof(w->message), "%s", air_error_message(err));
	air_error_free(err);
	return NULL;
}

AIR_TEST(threads__failed_resolution_is_reported_to_every_thread)
{
	air_client *c = tc_client(NULL);
	worker w[THREADS];

	run_threads(c, resolve_only, w);
	for (int i = 0; i < THREADS; i++) {
		ASSERT_EQ_INT(w[i].first_rc, AIR_EAUTH);
		ASSERT_CONTAINS(w[i].message, "no default profile");
	}
	air_client_free(c);
}

AIR_TEST(threads__shared_rate_limit)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	worker w[THREADS];
	int64_t t0;
	air_error *err = NULL;

	/* 8 threads x 40 requests at 200 rps: at least (320 - 200) / 200 s. */
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 200), AIR_OK);
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	t0 = air__mono_ms();
	run_threads(c, run_requests, w);
	air_test_note("320 requests at 200 rps from 8 threads: %lld ms", (long long)(air__mono_ms() - t0));
	ASSERT_TRUE(air__mono_ms() - t0 >= 550);
	for (int i = 0; i < THREADS; i++)
		ASSERT_EQ_INT(w[i].ok, PER_THREAD);
	air_client_free(c);
}
