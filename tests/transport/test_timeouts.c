/*
 * test_timeouts.c: per-request connect and inactivity timeouts
 * (air__http_req.connect_timeout_ms / inactivity_timeout_ms), as the MLflow
 * pre-signed downloads use them (docs/errors.md#network-failures), against the fake
 * workspace and a loopback listener whose accept queue is full.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/http_priv.h"
#include "logs/logs.h"
#include "support.h"

#define ARTIFACT "logs/node_0/logs-0.chunk.txt"
#define PRESIGNED "/presigned/run1/" ARTIFACT

static void add_artifact(fakews *fw)
{
	json_decref(fakews_call(fw, "POST", "/__fakews/mlflow",
	                        "{\"runs\":{\"run1\":{\"experiment_id\":\"exp1\",\"artifacts\":"
	                        "{\"" ARTIFACT "\":\"line one\\nline two\\n\"}}}}"));
}

AIR_TEST(timeouts__presigned_requests_carry_the_protocol_limits)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__signed sg;
	air__http_req req;
	air_error *err = NULL;

	add_artifact(fw);
	ASSERT_OK(air__mlflow_sign(c, NULL, "run1", ARTIFACT, &sg, &err), err);
	air__signed_request(&sg, &req);
	ASSERT_EQ_INT(req.connect_timeout_ms, 10000);
	ASSERT_EQ_INT(req.inactivity_timeout_ms, 60000);
	ASSERT_TRUE(req.flags & AIR__HTTP_NO_AUTH);
	air__signed_dispose(&sg);
	air_client_free(c);
}

AIR_TEST(timeouts__presigned_download_stalls_past_a_per_request_inactivity_timeout)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air__signed sg;
	air__http_req req;
	air_error *err = NULL;
	int64_t t0, elapsed;

	add_artifact(fw);
	/* The blob store answers after 30 s, then after 3 s. */
	fakews_faultf(fw, "{\"path\":\"" PRESIGNED "\",\"action\":\"delay\",\"delay_ms\":30000,"
	                  "\"times\":1}");
	fakews_faultf(fw, "{\"path\":\"" PRESIGNED "\",\"action\":\"delay\",\"delay_ms\":3000,"
	                  "\"times\":-1}");
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 1000), AIR_OK);
	ASSERT_OK(air__mlflow_sign(c, NULL, "run1", ARTIFACT, &sg, &err), err);
	air__signed_request(&sg, &req);

	/* 1 s without a byte: the attempt is abandoned, and the retry deadline
	 * leaves no room for another. */
	req.inactivity_timeout_ms = 1000;
	t0 = air__mono_ms();
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, &resp, &err), AIR_ETIMEOUT);
	elapsed = air__mono_ms() - t0;
	air_test_note("1 s inactivity limit: failed after %lld ms", (long long)elapsed);
	ASSERT_TRUE(elapsed >= 900 && elapsed < 10000);
	ASSERT_EQ_INT(resp.status, 0);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
	ASSERT_EQ_INT(air_error_retryable(err), 1);
	ASSERT_CONTAINS(air_error_message(err), "/presigned/run1/");
	ASSERT_NOT_CONTAINS(air_error_message(err), "sig=");
	air_error_free(err);
	err = NULL;
	air__http_resp_clear(&resp);

	/* The same request with the client's limit (60 s) waits for the reply,
	 * also on the connection and handle the failed attempt used before
	 * (within a retry deadline that leaves the reply time to come). */
	req.inactivity_timeout_ms = 0;
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_DEADLINE_MS, 30000), AIR_OK);
	t0 = air__mono_ms();
	ASSERT_OK(air__http_do(c, NULL, &req, &resp, &err), err);
	elapsed = air__mono_ms() - t0;
	air_test_note("client default: answered after %lld ms", (long long)elapsed);
	ASSERT_TRUE(elapsed >= 2900);
	ASSERT_EQ_INT(resp.status, 200);
	ASSERT_EQ_STR(resp.body, "line one\nline two\n");
	ASSERT_EQ_INT(resp.attempts, 1);
	air__http_resp_clear(&resp);
	air__signed_dispose(&sg);
	air_client_free(c);
}

AIR_TEST(timeouts__per_request_inactivity_overrides_a_shorter_client_value)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req req = {.method = "GET", .path = "/api/2.0/preview/scim/v2/Me",
	                     .flags = AIR__HTTP_NO_RETRY, .inactivity_timeout_ms = 5000};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *err = NULL;

	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_INACTIVITY_TIMEOUT_MS, 1000), AIR_OK);
	fakews_faultf(fw, "{\"path\":\"/api/2.0/preview/scim/v2/Me\",\"action\":\"delay\","
	                  "\"delay_ms\":2500,\"times\":-1}");
	ASSERT_OK(air__http_do(c, NULL, &req, &resp, &err), err);
	ASSERT_EQ_INT(resp.status, 200);
	air__http_resp_clear(&resp);
	req.inactivity_timeout_ms = 0; /* the client's 1 s */
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, &resp, &err), AIR_ETIMEOUT);
	air_error_free(err);
	air__http_resp_clear(&resp);
	air_client_free(c);
}

/* A loopback listener that accepts no more connections: its backlog holds
 * one, which @filler takes, so later SYNs go unanswered and connect() stalls.
 * Returns the port, or 0 when this kernel answers anyway. */
static int stalled_listener(int *lfd, int *filler)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	struct pollfd p;
	int probe;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_TRUE(*lfd >= 0);
	ASSERT_EQ_INT(bind(*lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	ASSERT_EQ_INT(listen(*lfd, 0), 0);
	ASSERT_EQ_INT(getsockname(*lfd, (struct sockaddr *)&a, &alen), 0);
	*filler = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT_EQ_INT(connect(*filler, (struct sockaddr *)&a, sizeof(a)), 0);
	/* Does a second connection stall? */
	probe = socket(AF_INET, SOCK_STREAM, 0);
	fcntl(probe, F_SETFL, O_NONBLOCK);
	if (connect(probe, (struct sockaddr *)&a, sizeof(a)) == 0 || errno != EINPROGRESS) {
		close(probe);
		return 0;
	}
	p = (struct pollfd){.fd = probe, .events = POLLOUT};
	if (poll(&p, 1, 300) != 0) {
		close(probe);
		return 0;
	}
	close(probe);
	return ntohs(a.sin_port);
}

AIR_TEST(timeouts__per_request_connect_timeout)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air_error *err = NULL;
	char url[128];
	air__http_req req = {.method = "GET", .path = url,
	                     .flags = AIR__HTTP_ABSOLUTE_URL | AIR__HTTP_NO_AUTH | AIR__HTTP_NO_RETRY,
	                     .connect_timeout_ms = 300};
	int lfd = -1, filler = -1, port;
	int64_t t0, elapsed;

	port = stalled_listener(&lfd, &filler);
	if (port == 0) {
		close(filler);
		close(lfd);
		air_client_free(c);
		air_test_skip("connections to a full loopback listener do not stall here");
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/blob?sig=x", port);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_CONNECT_TIMEOUT_MS, 20000), AIR_OK);
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	t0 = air__mono_ms();
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_ETIMEOUT);
	elapsed = air__mono_ms() - t0;
	air_test_note("300 ms connect limit (client: 20 s): failed after %lld ms", (long long)elapsed);
	ASSERT_TRUE(elapsed >= 250 && elapsed < 3000);
	air_error_free(err);
	err = NULL;

	/* 0: the client's value applies. */
	req.connect_timeout_ms = 0;
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_CONNECT_TIMEOUT_MS, 1000), AIR_OK);
	t0 = air__mono_ms();
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_ETIMEOUT);
	elapsed = air__mono_ms() - t0;
	air_test_note("client connect limit 1 s: failed after %lld ms", (long long)elapsed);
	ASSERT_TRUE(elapsed >= 900 && elapsed < 10000);
	air_error_free(err);
	close(filler);
	close(lfd);
	air_client_free(c);
}

AIR_TEST(timeouts__invalid_values_are_refused)
{
	fakews *fw = tc_fakews();
	air_client *c = tc_fakews_client(fw);
	air__http_req req = {.method = "GET", .path = "/api/2.0/preview/scim/v2/Me",
	                     .connect_timeout_ms = -1};
	air_error *err = NULL;

	ASSERT_EQ_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	req.connect_timeout_ms = 0;
	req.inactivity_timeout_ms = (int64_t)INT32_MAX + 1;
	ASSERT_EQ_INT(air__http_do(c, NULL, &req, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/preview/scim/v2/Me"), 0);
	air_client_free(c);
}
