/*
 * test_hostile.c: a hostile or broken server cannot hold a call or its
 * memory: reply bodies are capped per request (AIR_EPROTO naming the
 * endpoint and the limit), error pages are read only up to their cap, a
 * trickling body ends at the retry deadline, the call's deadline or the
 * low-speed limit, and no header with a control character is sent.
 *
 * Durations are asserted only where they are the behaviour under test, with
 * bounds ten times the expected value; the trickles run far longer than the
 * bounds, so a call that is not stopped fails the test either way.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "transport/http_priv.h"
#include "support.h"

#define ME "/api/2.0/preview/scim/v2/Me"

/* Under valgrind the resident size says nothing about the program. */
static bool under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD");
	return p && strstr(p, "vgpreload");
}

/* Reset the peak resident size (VmHWM) of this process; false when the
 * kernel does not allow it. */
static bool reset_peak_rss(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, "5", 1) == 1;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* Peak resident size in KiB since the last reset (VmHWM), or -1. */
static long peak_rss_kib(void)
{
	char *s = air_test_read_file("/proc/self/status", NULL), *p;
	long kib = -1;

	if (s && (p = strstr(s, "VmHWM:")) != NULL)
		kib = strtol(p + 6, NULL, 10);
	free(s);
	return kib;
}

static int get(air_client *c, air__http_req *req, air__http_resp *resp, air_error **err)
{
	*err = NULL;
	return air__http_do(c, NULL, req, resp, err);
}

AIR_TEST(hostile__endless_json_reply_is_cut_at_the_cap)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	char *user = NULL;
	long before, after;
	bool measure = !under_valgrind() && reset_peak_rss();

	/* 64 MiB at most, so that a client without a cap ends too (and fails). */
	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"endless\",\"limit_bytes\":%d}", ME, 64 << 20);
	before = peak_rss_kib();
	ASSERT_EQ_INT(air_client_current_user(c, NULL, &user, &err), AIR_EPROTO);
	after = peak_rss_kib();
	air_test_note("%s", air_error_message(err));
	ASSERT_CONTAINS(air_error_message(err), "GET " ME);
	ASSERT_CONTAINS(air_error_message(err), "larger than 8 MiB");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_PERMANENT);
	ASSERT_EQ_INT(air_error_retryable(err), 0);
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 1); /* not retried */
	if (measure) {
		air_test_note("peak resident size grew by %ld KiB", after - before);
		ASSERT_TRUE(after - before < 40 * 1024); /* the cap is 8 MiB; the body 64 MiB */
	}
	air_error_free(err);
	air_client_free(c);
}

AIR_TEST(hostile__a_request_may_set_its_own_cap)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req req = {.method = "GET", .path = ME, .max_reply = 100};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;

	/* SCIM Me is about 270 bytes with a Content-Length: refused at once. */
	ASSERT_EQ_INT(get(c, &req, &resp, &err), AIR_EPROTO);
	ASSERT_CONTAINS(air_error_message(err), "larger than 100 bytes");
	ASSERT_EQ_INT(resp.body_len, 0);
	air_error_free(err);
	air__http_resp_clear(&resp);
	/* A chunked body without a length is cut when it gets there. */
	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"trickle\",\"chunk_bytes\":30,"
	                  "\"interval_ms\":0}", ME);
	ASSERT_EQ_INT(get(c, &req, &resp, &err), AIR_EPROTO);
	air_error_free(err);
	air__http_resp_clear(&resp);
	req.max_reply = 1000;
	ASSERT_OK(get(c, &req, &resp, &err), err);
	ASSERT_CONTAINS(resp.body, "tester@databricks.com");
	air__http_resp_clear(&resp);
	air_client_free(c);
}

static int count_bytes(const void *data, size_t len, void *ud)
{
	(void)data;
	*(size_t *)ud += len;
	return 0;
}

AIR_TEST(hostile__a_sink_gets_no_more_than_the_cap)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	size_t got = 0;
	air__http_req req = {.method = "GET", .path = ME, .max_reply = 1 << 20,
	                     .sink = count_bytes, .sink_ud = &got};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;

	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"endless\",\"limit_bytes\":%d}", ME, 64 << 20);
	ASSERT_EQ_INT(get(c, &req, &resp, &err), AIR_EPROTO);
	ASSERT_CONTAINS(air_error_message(err), "larger than 1 MiB");
	ASSERT_TRUE(got <= (size_t)1 << 20);
	air_error_free(err);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(hostile__an_endless_error_page_is_read_up_to_its_cap)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req req = {.method = "GET", .path = ME};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;
	long before, after;
	bool measure = !under_valgrind() && reset_peak_rss();

	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"endless\",\"status\":500,"
	                  "\"body\":\"INTERNAL_ERROR: \",\"limit_bytes\":%d}", ME, 64 << 20);
	before = peak_rss_kib();
	ASSERT_EQ_INT(get(c, &req, &resp, &err), AIR_ESERVER);
	after = peak_rss_kib();
	ASSERT_EQ_INT(air_error_http_status(err), 500);
	ASSERT_EQ_STR(air_error_server_code(err), "INTERNAL_ERROR");
	ASSERT_EQ_INT(resp.status, 500);
	ASSERT_TRUE(resp.body_len <= AIR__HTTP_ERROR_BODY_MAX);
	if (measure) {
		air_test_note("peak resident size grew by %ld KiB", after - before);
		ASSERT_TRUE(after - before < 40 * 1024);
	}
	air_error_free(err);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(hostile__a_trickled_reply_ends_at_the_retry_deadline)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req req = {.method = "GET", .path = ME};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;
	int64_t t0, elapsed;

	/* 16 bytes/s, above the low-speed limit's reach for a whole minute of
	 * inactivity timeout: about 270 bytes take 17 s. */
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 1500), AIR_OK);
	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"trickle\",\"chunk_bytes\":4,"
	                  "\"interval_ms\":250,\"times\":-1}", ME);
	t0 = air__mono_ms();
	ASSERT_EQ_INT(get(c, &req, &resp, &err), AIR_ETIMEOUT);
	elapsed = air__mono_ms() - t0;
	air_test_note("%s after %lld ms", air_error_message(err), (long long)elapsed);
	ASSERT_TRUE(elapsed < 15000);
	ASSERT_CONTAINS(air_error_message(err), "retry deadline of 1500 ms");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
	air_error_free(err);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(hostile__a_trickled_reply_ends_at_the_call_deadline)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_call_options *o = NULL;
	air_error *err = NULL;
	char *user = NULL;
	int64_t t0, elapsed;

	ASSERT_EQ_INT(air_call_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_call_options_set_deadline_ms(o, 1000), AIR_OK);
	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"trickle\",\"chunk_bytes\":4,"
	                  "\"interval_ms\":250,\"times\":-1}", ME);
	t0 = air__mono_ms();
	ASSERT_EQ_INT(air_client_current_user(c, o, &user, &err), AIR_ETIMEOUT);
	elapsed = air__mono_ms() - t0;
	air_test_note("%s after %lld ms", air_error_message(err), (long long)elapsed);
	ASSERT_TRUE(elapsed < 10000);
	air_error_free(err);
	air_call_options_free(o);
	air_client_free(c);
}

AIR_TEST(hostile__a_trickle_below_the_low_speed_limit_is_inactivity)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req req = {.method = "GET", .path = ME};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;

	/* 10 bytes/s for about 27 s, once; a 1 s inactivity timeout gives up on
	 * that attempt and the retry gets the whole reply. */
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_INACTIVITY_TIMEOUT_MS, 1000), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 120000), AIR_OK);
	fakews_faultf(fw, "{\"path\":\"%s\",\"action\":\"trickle\",\"chunk_bytes\":1,"
	                  "\"interval_ms\":100}", ME);
	ASSERT_OK(get(c, &req, &resp, &err), err);
	ASSERT_EQ_INT(resp.attempts, 2);
	ASSERT_CONTAINS(resp.body, "tester@databricks.com");
	air__http_resp_clear(&resp);
	air_client_free(c);
}

AIR_TEST(hostile__no_header_with_a_control_character_is_sent)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	static const char *const headers[] = {"X-Trace: a\r\nX-Injected: 1", NULL};
	air__http_req req = {.method = "GET", .path = ME, .headers = headers};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;

	ASSERT_EQ_INT(get(c, &req, &resp, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "X-Trace header");
	ASSERT_NOT_CONTAINS(air_error_message(err), "Injected");
	ASSERT_EQ_INT(fakews_count(fw, "GET", ME), 0);
	air_error_free(err);
	air__http_resp_clear(&resp);
	air_client_free(c);
}
