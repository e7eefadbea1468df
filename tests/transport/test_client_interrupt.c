/*
 * test_client_interrupt.c: the client-wide interrupt (air_client_options_set_interrupt()): one raised flag stops
 * every call on the client, on every thread, in transfers, back-off and
 * token-endpoint waits, together with the interrupt of a call; an
 * interrupted resolution is not kept; a thread waiting for another thread's
 * token request stops for its own interrupt.
 */
#include "transport/http_priv.h"
#include "support.h"

#define ME "/api/2.0/preview/scim/v2/Me"
#define THREADS 4

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

/* A fakews client with a (lowered) client interrupt in *intr. */
static air_client *client_with_interrupt(fakews *fw, air_interrupt **intr)
{
	air_client *c = tc_fakews_client(fw);

	ASSERT_EQ_INT(air_interrupt_new(intr), AIR_OK);
	ASSERT_EQ_INT(tc_set_interrupt(c, *intr), AIR_OK);
	return c;
}

static void expect_interrupted(int rc, air_error *err, int64_t elapsed)
{
	air_test_note("interrupted after %lld ms", (long long)elapsed);
	ASSERT_EQ_INT(rc, AIR_EINTERRUPTED);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_ABORTED);
	ASSERT_TRUE(elapsed >= 190 && elapsed < 2000); /* the faults last 3 s or more */
}

AIR_TEST(client_interrupt__stops_a_slow_reply_from_another_thread)
{
	fakews *fw = tc_fakews();
	air_interrupt *intr;
	air_client *c = client_with_interrupt(fw, &intr);
	trigger_arg arg = {intr, 200};
	air_error *err = NULL;
	char *user = NULL;
	pthread_t th;
	int64_t t0;
	int rc;

	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"delay\",\"delay_ms\":3000}", ME);
	t0 = air__mono_ms();
	pthread_create(&th, NULL, trigger_later, &arg);
	rc = air_client_current_user(c, NULL, &user, &err);
	pthread_join(th, NULL);
	expect_interrupted(rc, err, air__mono_ms() - t0);
	ASSERT_NULL(user);
	ASSERT_CONTAINS(air_error_message(err), "interrupted");
	air_error_free(err);
	air_client_free(c);
	air_interrupt_free(intr);
}

AIR_TEST(client_interrupt__stops_a_back_off_sleep)
{
	fakews *fw = tc_fakews();
	air_interrupt *intr;
	air_client *c = client_with_interrupt(fw, &intr);
	trigger_arg arg = {intr, 200};
	air_error *err = NULL;
	int64_t id = 0, t0;
	pthread_t th;
	int rc;

	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":503,\"times\":-1,"
	                  "\"headers\":{\"Retry-After\":\"5\"}}", ME);
	t0 = air__mono_ms();
	pthread_create(&th, NULL, trigger_later, &arg);
	rc = air_client_workspace_id(c, NULL, &id, &err);
	pthread_join(th, NULL);
	expect_interrupted(rc, err, air__mono_ms() - t0);
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 1);
	air_error_free(err);
	air_client_free(c);
	air_interrupt_free(intr);
}

/* Both flags present: either one stops the call, in a sleep and in a transfer. */
AIR_TEST(client_interrupt__works_alongside_the_call_interrupt)
{
	static const char *const faults[] = {
		"{\"path\":\"" ME "\",\"status\":503,\"times\":-1,\"headers\":{\"Retry-After\":\"5\"}}",
		"{\"path\":\"" ME "\",\"action\":\"delay\",\"delay_ms\":3000}",
	};

	for (size_t f = 0; f < AIR__ARRAY_SIZE(faults); f++) {
		for (int which = 0; which < 2; which++) {
			fakews *fw = tc_fakews();
			air_interrupt *intr;
			air_client *c = client_with_interrupt(fw, &intr);
			air__ctx ctx = {0};
			air__http_req req = {.method = "GET", .path = ME};
			trigger_arg arg = {NULL, 200};
			air_error *err = NULL;
			pthread_t th;
			int64_t t0;
			int rc;

			ASSERT_EQ_INT(air_interrupt_new(&ctx.intr), AIR_OK);
			arg.intr = which == 0 ? intr : ctx.intr;
			air_test_note("%s; raising the %s interrupt", faults[f],
			              which == 0 ? "client's" : "call's");
			ASSERT_OK(air_client_resolve(c, NULL, &err), err);
			fakews_faultf(fw, "%s", faults[f]);
			t0 = air__mono_ms();
			pthread_create(&th, NULL, trigger_later, &arg);
			rc = air__http_do(c, &ctx, &req, NULL, &err);
			pthread_join(th, NULL);
			expect_interrupted(rc, err, air__mono_ms() - t0);
			air_error_free(err);
			air_client_free(c);
			air_interrupt_free(ctx.intr);
			air_interrupt_free(intr);
		}
	}
}

typedef struct caller {
	air_client *c;
	int which;
	int rc;
	int64_t elapsed;
} caller;

static void *call_something(void *p)
{
	caller *k = p;
	air_error *err = NULL;
	int64_t t0 = air__mono_ms();

	if (k->which == 0) {
		char *user = NULL;
		k->rc = air_client_current_user(k->c, NULL, &user, &err);
		air_free(user);
	} else if (k->which == 1) {
		air_run *run = NULL;
		k->rc = air_client_get_run(k->c, 555, NULL, &run, &err);
		air_run_free(run);
	} else if (k->which == 2) {
		air_pool_list *pools = NULL;
		k->rc = air_client_list_pools(k->c, NULL, &pools, &err);
		air_pool_list_free(pools);
	} else {
		k->rc = air_client_cancel_run(k->c, 555, NULL, &err);
	}
	k->elapsed = air__mono_ms() - t0;
	air_error_free(err);
	return NULL;
}

AIR_TEST(client_interrupt__stops_every_thread)
{
	fakews *fw = tc_fakews();
	air_interrupt *intr;
	air_client *c = client_with_interrupt(fw, &intr);
	caller k[THREADS];
	pthread_t th[THREADS];
	air_error *err = NULL;

	fakews_create_runf(fw, "{\"run_name\":\"r\"}");
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	fakews_configf(fw, "{\"latency_ms\": 5000}");
	for (int i = 0; i < THREADS; i++) {
		k[i] = (caller){c, i, AIR_OK, 0};
		ASSERT_EQ_INT(pthread_create(&th[i], NULL, call_something, &k[i]), 0);
	}
	air__sleep_ms(NULL, 300);
	air_interrupt_trigger(intr);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		air_test_note("call %d: %d after %lld ms", i, k[i].rc, (long long)k[i].elapsed);
		ASSERT_EQ_INT(k[i].rc, AIR_EINTERRUPTED);
		ASSERT_TRUE(k[i].elapsed < 2000); /* the faults last 3 s or more */
	}
	air_client_free(c);
	air_interrupt_free(intr);
}

AIR_TEST(client_interrupt__raised_before_the_call_reset_and_removed)
{
	fakews *fw = tc_fakews();
	air_interrupt *intr;
	air_client *c = client_with_interrupt(fw, &intr);
	air_error *err = NULL;
	char *user = NULL;

	ASSERT_EQ_INT(air_client_options_set_interrupt(NULL, intr), AIR_EINVAL);
	air_interrupt_trigger(intr);
	ASSERT_EQ_INT(air_client_current_user(c, NULL, &user, &err), AIR_EINTERRUPTED);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(fakews_count(fw, "*", "/api/*"), 0); /* nothing was sent */

	air_interrupt_reset(intr);
	ASSERT_OK(air_client_current_user(c, NULL, &user, &err), err);
	ASSERT_EQ_STR(user, "tester@databricks.com");
	air_free(user);

	/* Removed: a raised flag no longer matters. */
	air_interrupt_trigger(intr);
	ASSERT_EQ_INT(tc_set_interrupt(c, NULL), AIR_OK);
	ASSERT_OK(air_client_workspace_id(c, NULL, &(int64_t){0}, &err), err);
	air_client_free(c);
	air_interrupt_free(intr);
}

static air_client *m2m_client(fakews *fw)
{
	air_client *c = tc_client(NULL);

	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"csecret\"}},"
	                   "\"host_metadata\":{\"workspace_id\":\"321\"}}");
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, fakews_url(fw)), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_ID, "cid"), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_CLIENT_SECRET, "csecret"), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 0), AIR_OK);
	return c;
}

/* The host metadata request of an OAuth client is part of resolution: an
 * interrupted one must not leave the client resolved without it. */
AIR_TEST(client_interrupt__interrupted_resolution_is_not_kept)
{
	fakews *fw = tc_fakews();
	air_client *c = m2m_client(fw);
	air_interrupt *intr;
	air_error *err = NULL;
	char *user = NULL;
	json_t *r;

	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	ASSERT_EQ_INT(tc_set_interrupt(c, intr), AIR_OK);
	air_interrupt_trigger(intr);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EINTERRUPTED);
	ASSERT_CONTAINS(air_error_message(err), "interrupted");
	air_error_free(err);
	err = NULL;
	ASSERT_NULL(air_client_host(c));

	air_interrupt_reset(intr);
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	ASSERT_EQ_STR(air_client_auth_type(c), "oauth-m2m");
	ASSERT_EQ_INT(air__client_known_workspace_id(c), 321);
	ASSERT_OK(air_client_current_user(c, NULL, &user, &err), err);
	air_free(user);
	r = fakews_last_request(fw, "GET", ME);
	ASSERT_EQ_STR(tc_header(r, "x-databricks-workspace-id"), "321");
	json_decref(r);
	air_client_free(c);
	air_interrupt_free(intr);
}

AIR_TEST(client_interrupt__stops_a_token_endpoint_back_off)
{
	fakews *fw = tc_fakews();
	air_client *c = m2m_client(fw);
	air_interrupt *intr;
	trigger_arg arg = {NULL, 200};
	air_error *err = NULL;
	pthread_t th;
	int64_t t0;
	int rc;

	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	arg.intr = intr;
	ASSERT_EQ_INT(tc_set_interrupt(c, intr), AIR_OK);
	fakews_faultf(fw, "{\"path\":\"/oidc/v1/token\",\"status\":503,\"times\":-1,"
	                  "\"headers\":{\"Retry-After\":\"5\"}}");
	t0 = air__mono_ms();
	pthread_create(&th, NULL, trigger_later, &arg);
	rc = air_client_resolve(c, NULL, &err);
	pthread_join(th, NULL);
	expect_interrupted(rc, err, air__mono_ms() - t0);
	ASSERT_EQ_INT(fakews_count(fw, "POST", "/oidc/v1/token"), 1);
	air_error_free(err);
	air_client_free(c);
	air_interrupt_free(intr);
}

typedef struct fetcher {
	air_client *c;
	int rc;
} fetcher;

static void *fetch_token_slowly(void *p)
{
	fetcher *f = p;
	air__http_req req = {.method = "GET", .path = ME};
	air_error *err = NULL;

	f->rc = air__http_do(f->c, NULL, &req, NULL, &err);
	air_error_free(err);
	return NULL;
}

/* A thread waiting for another thread's token request stops for its own
 * interrupt; the request itself goes on and serves the other thread. */
AIR_TEST(client_interrupt__stops_a_wait_for_another_threads_token_request)
{
	fakews *fw = tc_fakews();
	air_client *c = m2m_client(fw);
	air_interrupt *intr;
	trigger_arg arg = {NULL, 200};
	air__http_req req = {.method = "GET", .path = ME};
	air__ctx ctx = {0};
	air_error *err = NULL;
	fetcher f = {c, AIR_OK};
	pthread_t th, tt;
	int64_t t0;
	int rc;

	ASSERT_OK(air__client_ensure_resolved(c, NULL, &err), err);
	fakews_faultf(fw, "{\"path\":\"/oidc/v1/token\",\"action\":\"delay\",\"delay_ms\":1500}");
	ASSERT_EQ_INT(pthread_create(&th, NULL, fetch_token_slowly, &f), 0);
	while (fakews_count(fw, "POST", "/oidc/v1/token") == 0) /* the request has started */
		air__sleep_ms(NULL, 10);
	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	arg.intr = intr;
	ctx.intr = intr;
	t0 = air__mono_ms();
	pthread_create(&tt, NULL, trigger_later, &arg);
	rc = air__http_do(c, &ctx, &req, NULL, &err);
	pthread_join(tt, NULL);
	expect_interrupted(rc, err, air__mono_ms() - t0);
	ASSERT_CONTAINS(air_error_message(err), "waiting for a token request");
	air_error_free(err);
	pthread_join(th, NULL);
	ASSERT_EQ_INT(f.rc, AIR_OK);
	ASSERT_EQ_INT(fakews_count(fw, "POST", "/oidc/v1/token"), 1);
	air_client_free(c);
	air_interrupt_free(intr);
}
