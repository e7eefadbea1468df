/* test_logs_api.c: log streaming, the MLflow fallback and downloads against
 * the fake workspace (docs/runs-and-logs.md#reading-logs). */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "test.h"

AIR_TEST_HOOKS(fixture_setup, fixture_teardown)

/* ---- a recording consumer ---------------------------------------------------------- */

typedef struct seen {
	char lines[256][64];
	int32_t nodes[256];
	int32_t sources[256];
	int n;
	char events[4096];     /* "A:<pattern> " before alerted lines, "S:<cur>/<prev> " */
	int stop_after;        /* record callback returns 1 at this count (0: never) */
	int stop_on_status;
} seen;

static int on_record(const air_log_record *rec, void *ud)
{
	seen *s = ud;
	size_t len;
	const char *line = air_log_record_line(rec, &len);

	if (air_log_record_alert(rec) > 0)
		snprintf(s->events + strlen(s->events), sizeof(s->events) - strlen(s->events), "A%d ",
		         air_log_record_alert(rec));
	if (s->n < 256) {
		snprintf(s->lines[s->n], sizeof(s->lines[0]), "%.*s", (int)len, line);
		s->nodes[s->n] = air_log_record_node(rec);
		s->sources[s->n] = air_log_record_source(rec);
	}
	s->n++;
	snprintf(s->events + strlen(s->events), sizeof(s->events) - strlen(s->events), "L ");
	return s->stop_after && s->n >= s->stop_after;
}

static int on_status(const char *cur, const char *prev, void *ud)
{
	seen *s = ud;
	snprintf(s->events + strlen(s->events), sizeof(s->events) - strlen(s->events), "S:%s/%s ",
	         cur, prev ? prev : "-");
	return s->stop_on_status;
}

static air_logs_options *opts(int64_t poll_ms)
{
	air_logs_options *o = NULL;
	ASSERT_EQ_INT(air_logs_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, poll_ms), AIR_OK);
	return o;
}

/* Stream with the recording callbacks set on @o (NULL: default options). */
static int stream(int64_t id, air_logs_options *o, seen *s, air_logs_summary **sum,
                  air_error **err)
{
	air_logs_options *own = NULL;
	int rc;

	if (!o)
		ASSERT_EQ_INT(air_logs_options_new(&own), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_record_cb(o ? o : own, on_record, s), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_status_cb(o ? o : own, on_status, s), AIR_OK);
	rc = air_client_stream_logs(client, id, o ? o : own, sum, err);
	air_logs_options_free(own);
	return rc;
}

static void expect_lines(const seen *s, const char *const *want, int n)
{
	if (s->n != n)
		FAIL("expected %d lines, got %d (first: \"%s\")", n, s->n, s->n ? s->lines[0] : "");
	for (int i = 0; i < n; i++)
		ASSERT_EQ_STR(s->lines[i], want[i]);
}

static const char *std_records =
	"{\"records\":[{\"time_unix_nano\":1700000003000000000,\"body\":\"CUDA out of memory\"},"
	"{\"time_unix_nano\":\"1700000002000000000\",\"body\":\"step 2\"},"
	"{\"time_unix_nano\":1700000001000000000,\"body\":\"step 1\"}]}";

/* ---- tail ---------------------------------------------------------------------------- */

AIR_TEST(logs__completed_run_tail_s45)
{
	static const char *const want[] = {"step 1", "step 2", "CUDA out of memory"};
	seen s = {0};
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	json_t *reqs;

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/logs", "%s", std_records);
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, NULL, &s, &sum, &err), err);
	expect_lines(&s, want, 3);
	/* The alert comes just before the record of its line; status first. */
	ASSERT_EQ_STR(s.events, "S:SUCCESS/- L L A1 L ");
	ASSERT_EQ_INT(s.sources[0], AIR_LOG_SOURCE_ENDPOINT);
	ASSERT_EQ_INT(air_logs_summary_records(sum), 3);
	ASSERT_EQ_STR(air_logs_summary_state_name(sum), "SUCCESS");
	ASSERT_TRUE(air_logs_summary_terminal(sum));
	ASSERT_TRUE(air_logs_summary_succeeded(sum));
	ASSERT_TRUE(!air_logs_summary_terminal(sum) || air_logs_summary_succeeded(sum));
	ASSERT_EQ_INT(air_logs_summary_source(sum), AIR_LOG_SOURCE_ENDPOINT);
	ASSERT_NULL(air_logs_summary_no_logs_message(sum));
	air_logs_summary_free(sum);
	reqs = fixture_requests("GET", "/api/2.0/ai-training/workflows/by-run-id/123/logs");
	ASSERT_EQ_INT(json_array_size(reqs), 1);
	ASSERT_EQ_STR(fixture_query_string(json_array_get(reqs, 0)),
	              "ascending=false&from=1700000000&to=1700000012&page_size=10000&filter.node_index=0");
	json_decref(reqs);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/preview/scim/v2/Me"), 1);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 1);
}

/* ---- the text callback --------------------------------------------------------------- */

typedef struct text_seen {
	char text[1024];
	size_t len;
	int calls, stop_at;
} text_seen;

static int on_text(const char *text, size_t len, void *ud)
{
	text_seen *t = ud;

	ASSERT_TRUE(t->len + len < sizeof(t->text));
	memcpy(t->text + t->len, text, len);
	t->len += len;
	return ++t->calls == t->stop_at;
}

/* The same lines as the record callback, each followed by a newline. */
AIR_TEST(logs__the_text_callback_gets_the_lines_in_order)
{
	text_seen t = {"", 0, 0, 0};
	seen s = {0};
	air_logs_options *o = opts(10);
	air_logs_summary *sum = NULL;
	air_error *err = NULL;

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/logs", "%s", std_records);
	ASSERT_OK(air_logs_options_set_text_cb(o, on_text, &t), NULL);
	ASSERT_OK(air_logs_options_set_status_cb(o, on_status, &s), NULL);
	ASSERT_OK(air_client_stream_logs(client, 123, o, &sum, &err), err);
	ASSERT_EQ_STR(t.text, "step 1\nstep 2\nCUDA out of memory\n");
	ASSERT_EQ_STR(s.events, "S:SUCCESS/- ");
	ASSERT_EQ_INT(air_logs_summary_records(sum), 3);
	air_logs_summary_free(sum);
	air_logs_options_free(o);
}

/* Both callbacks: refused before anything is asked; a text callback that
 * returns non-zero stops the stream. */
AIR_TEST(logs__the_text_callback_is_alone_and_can_stop)
{
	text_seen t = {"", 0, 0, 1};
	seen s = {0};
	air_logs_options *o = opts(10);
	air_error *err = NULL;

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/logs", "%s", std_records);
	fakews_clear_requests(fw);
	ASSERT_OK(air_logs_options_set_text_cb(o, on_text, &t), NULL);
	ASSERT_OK(air_logs_options_set_record_cb(o, on_record, &s), NULL);
	ASSERT_EQ_INT(air_client_stream_logs(client, 123, o, NULL, &err), AIR_EINVAL);
	ASSERT_NOT_NULL(strstr(air_error_message(err), "not both"));
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 0);
	ASSERT_EQ_INT(s.n, 0);
	ASSERT_OK(air_logs_options_set_record_cb(o, NULL, NULL), NULL);
	ASSERT_EQ_INT(air_client_stream_logs(client, 123, o, NULL, &err), AIR_EABORTED);
	ASSERT_EQ_INT(t.calls, 1);
	air_error_free(err);
	air_logs_options_free(o);
}

/* air_log_iter_buffered(): the records the next calls hand out without a
 * request, then 0 before the call that has to ask (or ends). */
AIR_TEST(logs__buffered_records_come_without_a_request)
{
	static const char *const want[] = {"step 1", "step 2", "CUDA out of memory"};
	const char *path = "/api/2.0/ai-training/workflows/by-run-id/123/logs";
	air_log_iter *it = NULL;
	const air_log_record *rec;
	air_error *err = NULL;

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/logs", "%s", std_records);
	ASSERT_EQ_INT(air_log_iter_buffered(NULL), 0);
	ASSERT_OK(air_client_open_logs(client, 123, NULL, &it, &err), err);
	ASSERT_EQ_INT(air_log_iter_buffered(it), 0); /* the tail is not read yet */
	ASSERT_EQ_INT(fakews_count(fw, "GET", path), 0);
	for (int i = 0; i < 3; i++) {
		ASSERT_OK(air_log_iter_next(it, &rec, &err), err);
		ASSERT_EQ_STR(air_log_record_line(rec, NULL), want[i]);
		ASSERT_EQ_INT(air_log_iter_buffered(it), 2 - i);
		ASSERT_EQ_INT(fakews_count(fw, "GET", path), 1);
	}
	ASSERT_EQ_INT(air_log_iter_next(it, &rec, &err), AIR_EDONE);
	ASSERT_EQ_INT(air_log_iter_buffered(it), 0);
	air_log_iter_free(it);
}

AIR_TEST(logs__tail_options_lines_retry_node)
{
	static const char *const last[] = {"CUDA out of memory"};
	air_logs_options *o = opts(10);
	seen s = {0};
	json_t *reqs;

	fixture_std_run_on(123, "FAILED", 3);
	fixture_post("/__fakews/runs/123/logs", "%s", std_records);
	fixture_post("/__fakews/runs/123/logs",
	             "{\"records\":[{\"time_unix_nano\":1700000005000000000,\"body\":\"n2\","
	             "\"node_index\":2}]}");
	air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, 1);
	ASSERT_OK(stream(123, o, &s, NULL, NULL), NULL);
	expect_lines(&s, last, 1);
	air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, -1);
	air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, 0);
	air_logs_options_set_int(o, AIR_LOGS_NODE, 2);
	memset(&s, 0, sizeof(s));
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, o, &s, NULL, NULL), NULL);
	ASSERT_EQ_INT(s.n, 1);
	ASSERT_EQ_STR(s.lines[0], "n2");
	ASSERT_EQ_INT(s.nodes[0], 2);
	reqs = fixture_requests("GET", "/api/2.0/ai-training/workflows/by-run-id/123/logs");
	ASSERT_EQ_STR(fixture_query_string(json_array_get(reqs, 0)),
	              "ascending=false&from=1700000000&to=1700000012&page_size=10000&"
	              "ref.attempt_number=0&filter.node_index=2");
	json_decref(reqs);
	/* A node past the run's has no logs, and the message says why. */
	air_logs_options_set_int(o, AIR_LOGS_NODE, 3);
	{
		air_logs_summary *sum = NULL;

		memset(&s, 0, sizeof(s));
		ASSERT_OK(stream(123, o, &s, &sum, NULL), NULL);
		ASSERT_EQ_INT(s.n, 0);
		ASSERT_CONTAINS(air_logs_summary_no_logs_message(sum), "No logs found for run 123");
		ASSERT_CONTAINS(air_logs_summary_no_logs_message(sum),
		                "(node 3 is past its last: it ran on 3 nodes, 0..2)");
		air_logs_summary_free(sum);
	}
	air_logs_options_free(o);
}

AIR_TEST(logs__tail_across_pages_keeps_the_newest)
{
	air_logs_options *o = opts(10);
	seen s = {0};

	fixture_std_run(123, "SUCCESS");
	fakews_configf(fw, "{\"logs_max_page_size\":4}");
	fixture_post("/__fakews/runs/123/logs",
	             "{\"synthetic\":{\"count\":25,\"start_ns\":1700000001000000000,\"step_ns\":1000000,"
	             "\"text\":\"line {i}\"}}");
	air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, 10);
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, o, &s, NULL, NULL), NULL);
	ASSERT_EQ_INT(s.n, 10);
	ASSERT_EQ_STR(s.lines[0], "line 15");
	ASSERT_EQ_STR(s.lines[9], "line 24");
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/ai-training/workflows/by-run-id/123/logs"), 3);
	air_logs_options_free(o);
}

AIR_TEST(logs__window_minutes)
{
	air_logs_options *o = opts(10);
	seen s = {0};
	json_t *reqs;
	long long from, now = (long long)time(NULL);

	fixture_std_run(123, "SUCCESS");
	air_logs_options_set_int(o, AIR_LOGS_MINUTES, 30);
	ASSERT_OK(stream(123, o, &s, NULL, NULL), NULL);
	reqs = fixture_requests("GET", "/api/2.0/ai-training/workflows/by-run-id/123/logs");
	from = atoll(fixture_query(json_array_get(reqs, 0), "from"));
	ASSERT_TRUE(from >= now - 1800 - 5 && from <= now - 1800 + 5);
	json_decref(reqs);
	air_logs_options_free(o);
}

/* ---- follow ---------------------------------------------------------------------------- */

AIR_TEST(logs__follow_scripted_pages_s47)
{
	static const char *const want[] = {"a", "b", "c", "d", "e"};
	air_logs_options *o = opts(10);
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	seen s = {0};
	json_t *reqs;
	const char *path = "/api/2.0/ai-training/workflows/by-run-id/123/logs";

	fakews_create_runf(fw,
		"{\"run_id\":123,\"start_time\":1700000000000,\"state\":{\"life_cycle_state\":\"RUNNING\"},"
		"\"tasks\":[{\"run_id\":124,\"ai_runtime_task\":{\"experiment\":\"x\"}}],\"sequence\":["
		"{\"state\":{\"life_cycle_state\":\"RUNNING\"}},{\"state\":{\"life_cycle_state\":\"RUNNING\"}},"
		"{\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"FAILED\"},"
		"\"end_time\":1700000030000}]}");
	fakews_faultf(fw, "{\"path\":\"%s\",\"query\":{\"page_token\":\"p2\"},\"status\":200,\"body\":"
	                  "{\"log_records\":[{\"time_unix_nano\":1700000002000000000,\"body\":\"b\"},"
	                  "{\"time_unix_nano\":1700000000500000000,\"body\":\"stale\"},"
	                  "{\"time_unix_nano\":1700000003000000000,\"body\":\"c\"}]}}", path);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":200,\"body\":{\"log_records\":["
	                  "{\"time_unix_nano\":1700000001000000000,\"body\":\"a\"},"
	                  "{\"time_unix_nano\":1700000002000000000,\"body\":\"b\"}],"
	                  "\"next_page_token\":\"p2\"}}", path);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":200,\"body\":{\"log_records\":["
	                  "{\"time_unix_nano\":1700000003000000000,\"body\":\"c\"},"
	                  "{\"time_unix_nano\":\"1700000004000000000\",\"body\":\"d\"}]}}", path);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":200,\"body\":{\"log_records\":["
	                  "{\"time_unix_nano\":1700000004000000000,\"body\":\"d\"},"
	                  "{\"time_unix_nano\":1700000005000000000,\"body\":\"e\"}]}}", path);
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, o, &s, &sum, &err), err);
	expect_lines(&s, want, 5);
	ASSERT_EQ_STR(s.events, "S:RUNNING/- L L L L S:FAILED/RUNNING L ");
	ASSERT_TRUE(air_logs_summary_terminal(sum) && !air_logs_summary_succeeded(sum));
	ASSERT_EQ_STR(air_logs_summary_state_name(sum), "FAILED");
	air_logs_summary_free(sum);
	reqs = fixture_requests("GET", path);
	/* The reference's four, then the terminal poll confirmed by a fifth. */
	ASSERT_EQ_INT(json_array_size(reqs), 5);
	ASSERT_EQ_STR(fixture_query_string(json_array_get(reqs, 0)),
	              "ascending=true&from=1700000000&filter.node_index=0");
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 1), "page_token"), "p2");
	ASSERT_EQ_STR(fixture_query_string(json_array_get(reqs, 2)),
	              "ascending=true&from=1700000003&filter.node_index=0");
	ASSERT_EQ_STR(fixture_query_string(json_array_get(reqs, 3)),
	              "ascending=true&from=1700000004&to=1700000030&filter.node_index=0");
	ASSERT_EQ_STR(fixture_query_string(json_array_get(reqs, 4)),
	              "ascending=true&from=1700000005&to=1700000030&filter.node_index=0");
	json_decref(reqs);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 3);
	air_logs_options_free(o);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A run that is PENDING, RUNNING for @running_ms and then SUCCESS, with @n
 * lines appearing while it runs (small pages, many shared seconds). */
static int64_t live_run(int n, int running_ms, int pending_ms)
{
	int64_t id = fakews_create_runf(
		fw, "{\"lifecycle\":{\"pending_ms\":%d,\"running_ms\":%d,\"result\":\"SUCCESS\"},"
		    "\"tasks\":[{\"ai_runtime_task\":{\"experiment\":\"live\"}}]}",
		pending_ms, running_ms);
	long long start = now_ms() + pending_ms;

	{
		char body[256];
		snprintf(body, sizeof(body),
		         "{\"synthetic\":{\"count\":%d,\"start_ns\":%lld,\"step_ns\":%lld,"
		         "\"text\":\"live {i}\"}}",
		         n, (start + 20) * 1000000LL, (long long)(running_ms - 60) * 1000000LL / n);
		char path[64];
		snprintf(path, sizeof(path), "/__fakews/runs/%lld/logs", (long long)id);
		json_decref(fakews_call(fw, "POST", path, body));
	}
	return id;
}

AIR_TEST(logs__follow_live_run_in_order_without_duplicates)
{
	air_logs_options *o = opts(20);
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	seen s = {0};
	int64_t id;

	fakews_configf(fw, "{\"logs_page_size\":7}");
	id = live_run(120, 900, 150);
	ASSERT_OK(stream(id, o, &s, &sum, &err), err);
	ASSERT_EQ_INT(s.n, 120);
	for (int i = 0; i < 120; i++) {
		char want[32];
		snprintf(want, sizeof(want), "live %d", i);
		ASSERT_EQ_STR(s.lines[i], want);
	}
	ASSERT_TRUE(!air_logs_summary_terminal(sum) || air_logs_summary_succeeded(sum));
	ASSERT_EQ_INT(air_logs_summary_records(sum), 120);
	ASSERT_CONTAINS(s.events, "S:PENDING/- ");
	ASSERT_CONTAINS(s.events, "S:RUNNING/PENDING ");
	ASSERT_CONTAINS(s.events, "S:SUCCESS/RUNNING ");
	ASSERT_TRUE(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get") > 3);
	air_logs_summary_free(sum);
	air_logs_options_free(o);
}

/* Run @id (task @id + 1), RUNNING when opened and TERMINATED/SUCCESS from
 * the first re-read on. */
static void create_run_ending_at_reread(int64_t id)
{
	fakews_create_runf(fw, "{\"run_id\":%lld,\"start_time\":1700000000000,"
	                       "\"state\":{\"life_cycle_state\":\"RUNNING\"},\"tasks\":[{\"run_id\":%lld}],"
	                       "\"sequence\":[{},{\"state\":{\"life_cycle_state\":\"TERMINATED\","
	                       "\"result_state\":\"SUCCESS\"},\"end_time\":1700000100000}]}",
	                   (long long)id, (long long)id + 1);
}

/* The lines seen are "line 0" .. "line @n - 1". */
static void expect_numbered_lines(const seen *s, int n)
{
	ASSERT_EQ_INT(s->n, n);
	for (int i = 0; i < n; i++) {
		char want[32];
		snprintf(want, sizeof(want), "line %d", i);
		ASSERT_EQ_STR(s->lines[i], want);
	}
}

AIR_TEST(logs__a_repeated_page_in_the_last_poll_loses_nothing)
{
	air_logs_options *o = opts(10);
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	seen s = {0};
	char records[256 * 80];
	size_t used = 0;

	/* RUNNING when opened, TERMINATED from the first re-read: the second
	 * poll is the last one. Its second page request gets the first page
	 * again (a stale reply) whose next token was seen: the chain stops short
	 * there, and the rest must still come. */
	fakews_configf(fw, "{\"logs_page_size\":50}");
	create_run_ending_at_reread(77);
	used += (size_t)snprintf(records, sizeof(records), "{\"records\":[");
	for (int i = 0; i < 200; i++)
		used += (size_t)snprintf(records + used, sizeof(records) - used,
		                         "%s{\"time_unix_nano\":%lld,\"body\":\"line %d\"}", i ? "," : "",
		                         1700000001000000000LL + i * 1000000LL, i);
	snprintf(records + used, sizeof(records) - used, "]}");
	json_decref(fakews_call(fw, "POST", "/__fakews/runs/77/logs", records));
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/77/logs\","
	                  "\"status\":200,\"body\":{\"log_records\":[]}}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/77/logs\","
	                  "\"action\":\"repeat\",\"after\":1}");
	ASSERT_OK(stream(77, o, &s, &sum, &err), err);
	expect_numbered_lines(&s, 200);
	ASSERT_TRUE(air_logs_summary_terminal(sum));
	air_logs_summary_free(sum);
	air_logs_options_free(o);
}

/* A JSON array of records "line I" for I in [@lo, @hi), a millisecond apart. */
static void post_lines(int64_t id, int lo, int hi)
{
	char records[256 * 80], path[64];
	size_t used = (size_t)snprintf(records, sizeof(records), "{\"records\":[");

	for (int i = lo; i < hi; i++)
		used += (size_t)snprintf(records + used, sizeof(records) - used,
		                         "%s{\"time_unix_nano\":%lld,\"body\":\"line %d\"}",
		                         i > lo ? "," : "", 1700000001000000000LL + i * 1000000LL, i);
	snprintf(records + used, sizeof(records) - used, "]}");
	snprintf(path, sizeof(path), "/__fakews/runs/%lld/logs", (long long)id);
	json_decref(fakews_call(fw, "POST", path, records));
}

/* Follows run @id (polled every @poll_ms), whose lines 0-99 are written:
 * once they are read, with @lag_ms > 0 the log store starts lagging that
 * long, and lines 100-149 are written. Every line comes once, in order,
 * and the run ends terminal. */
static void follow_writing_more(int64_t id, int64_t poll_ms, int lag_ms)
{
	air_logs_options *o = opts(poll_ms);
	air_log_iter *it = NULL;
	const air_log_record *rec;
	air_error *err = NULL;
	int n = 0, rc;

	post_lines(id, 0, 100);
	ASSERT_OK(air_client_open_logs(client, id, o, &it, &err), err);
	while ((rc = air_log_iter_next(it, &rec, &err)) == AIR_OK) {
		size_t len;
		char want[32];
		snprintf(want, sizeof(want), "line %d", n);
		ASSERT_EQ_STR(air_log_record_line(rec, &len), want);
		if (++n == 100) {
			if (lag_ms > 0)
				fakews_configf(fw, "{\"logs_lag_ms\":%d}", lag_ms);
			post_lines(id, 100, 150);
		}
	}
	ASSERT_EQ_INT(rc, AIR_EDONE);
	ASSERT_EQ_INT(n, 150);
	ASSERT_TRUE(air_logs_summary_terminal(air_log_iter_summary(it)));
	air_log_iter_free(it);
	air_logs_options_free(o);
}

AIR_TEST(logs__a_stale_page_in_the_first_terminal_poll_loses_nothing)
{
	/* RUNNING when opened, TERMINATED from the first re-read. The first poll
	 * reads lines 0-99 in two pages; then lines 100-149 are written, and the
	 * first poll that sees the run terminal gets the second page of the
	 * earlier poll again (a stale reply: old lines, no next token). That
	 * looks like a whole chain with nothing new; the run must not end
	 * there. */
	fakews_configf(fw, "{\"logs_page_size\":50}");
	create_run_ending_at_reread(79);
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/79/logs\","
	                  "\"action\":\"repeat\",\"after\":2}");
	follow_writing_more(79, 10, 0);
	ASSERT_TRUE(fakews_count(fw, "GET", "/api/2.0/ai-training/workflows/by-run-id/79/logs") > 3);
}

/* A page reply of run @id's log: records "line I" for I in [@lo, @hi), with @next. */
static void page_rule(int64_t id, const char *query, int times, int lo, int hi, const char *next)
{
	char recs[64 * 80];
	size_t used = 0;

	recs[0] = 0;
	for (int i = lo; i < hi; i++)
		used += (size_t)snprintf(recs + used, sizeof(recs) - used,
		                         "%s{\"time_unix_nano\":%lld,\"body\":\"line %d\"}",
		                         i > lo ? "," : "", 1700000001000000000LL + i * 1000000LL, i);
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/%lld/logs\","
	                  "\"query\":{%s},\"times\":%d,\"status\":200,\"body\":{\"log_records\":"
	                  "[%s]%s%s%s}}",
	              (long long)id, query, times, recs, next ? ",\"next_page_token\":\"" : "", next ? next : "",
	              next ? "\"" : "");
}

/* Run @id, RUNNING when opened (lines 0-99 in two pages: from the start
 * second, then "t1"), TERMINATED from the first re-read (lines 0-149 in
 * three: from the next second, "t1", "t2"). In the terminal polls the page
 * "t2" first comes @repeats times as a copy of page "t1" (next token "t2"
 * again: a stale reply), then @stale times as that copy without a next token
 * (a stale whole chain), then right. */
static void three_page_chain(int64_t id, int repeats, int stale)
{
	static const char *const t1 = "\"page_token\":\"t1\"", *const t2 = "\"page_token\":\"t2\"";

	create_run_ending_at_reread(id);
	page_rule(id, "\"from\":\"1700000000\",\"page_token\":\"t1\"", -1, 50, 100, NULL);
	page_rule(id, "\"from\":\"1700000000\"", -1, 0, 50, "t1");
	page_rule(id, t2, repeats, 50, 100, "t2");
	if (stale > 0)
		page_rule(id, t2, stale, 50, 100, NULL);
	page_rule(id, t2, -1, 100, 150, NULL);
	page_rule(id, t1, -1, 50, 100, "t2");
	page_rule(id, "\"from\":\"1700000001\"", -1, 0, 50, "t1");
}

/* Following run @id delivers lines 0-149, each once, and ends terminal. */
static void expect_whole_chain(int64_t id)
{
	air_logs_options *o = opts(10);
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	seen s = {0};

	ASSERT_OK(stream(id, o, &s, &sum, &err), err);
	expect_numbered_lines(&s, 150);
	ASSERT_TRUE(air_logs_summary_terminal(sum));
	air_logs_summary_free(sum);
	air_logs_options_free(o);
}

AIR_TEST(logs__a_page_that_repeats_an_earlier_one_is_asked_again)
{
	/* The third page comes three times as a copy of the second before it
	 * comes right. Ending the chain at the copy, three polls in a row,
	 * would lose lines 100-149. */
	three_page_chain(81, 3, 0);
	expect_whole_chain(81);
}

AIR_TEST(logs__a_terminal_poll_cut_short_does_not_confirm_the_end)
{
	/* The first terminal poll is cut short: its third page repeats the
	 * second four times (one more than is asked again). The next one gets a
	 * stale whole chain (lines 0-99 again). Only the one after that reads
	 * lines 100-149: a cut poll and a stale one must not count as two whole
	 * terminal polls. */
	three_page_chain(85, 4, 1);
	expect_whole_chain(85);
}

AIR_TEST(logs__records_a_lagging_log_store_shows_late_are_still_read)
{
	/* RUNNING when opened, TERMINATED from the first re-read. The first poll
	 * reads lines 0-99; then lines 100-149 are written, and the log store
	 * shows a record only 600 ms after it was written: the first terminal
	 * poll, 400 ms later, reads nothing new, and so would a confirming poll
	 * sent at once. The one a poll interval later reads them. (A slow
	 * machine only delays the polls, which shows the lines sooner.) */
	create_run_ending_at_reread(83);
	follow_writing_more(83, 400, 600);
}

AIR_TEST(logs__zero_timestamps_always_delivered)
{
	/* Every poll: the running one, the terminal one and its confirmation. */
	static const char *const want[] = {"x", "y", "x", "y", "x", "y"};
	air_logs_options *o = opts(10);
	seen s = {0};
	const char *path = "/api/2.0/ai-training/workflows/by-run-id/7/logs";

	fakews_create_runf(fw, "{\"run_id\":7,\"start_time\":1700000000000,\"state\":{\"life_cycle_state\":"
	                       "\"RUNNING\"},\"tasks\":[{\"ai_runtime_task\":{}}],\"sequence\":["
	                       "{},{\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":"
	                       "\"SUCCESS\"},\"end_time\":1700000009000}]}");
	fakews_faultf(fw, "{\"path\":\"%s\",\"times\":-1,\"status\":200,\"body\":{\"log_records\":["
	                  "{\"body\":\"x\"},{\"time_unix_nano\":\"later\",\"body\":\"y\"}]}}", path);
	ASSERT_OK(stream(7, o, &s, NULL, NULL), NULL);
	expect_lines(&s, want, 6);
	air_logs_options_free(o);
}

AIR_TEST(logs__stop_by_callback)
{
	air_logs_options *o = opts(10);
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	seen s = {0};

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/logs", "%s", std_records);
	s.stop_after = 2;
	ASSERT_EQ_INT(stream(123, o, &s, &sum, &err), AIR_EABORTED);
	ASSERT_EQ_INT(s.n, 2);
	ASSERT_NULL(sum);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_ABORTED);
	air_error_free(err);
	err = NULL;
	memset(&s, 0, sizeof(s));
	s.stop_on_status = 1;
	ASSERT_EQ_INT(stream(123, o, &s, &sum, &err), AIR_EABORTED);
	ASSERT_EQ_INT(s.n, 0);
	air_error_free(err);
	air_logs_options_free(o);
}

typedef struct trigger {
	air_interrupt *intr;
	int delay_ms;
} trigger;

static void *trigger_later(void *arg)
{
	trigger *t = arg;
	usleep((useconds_t)t->delay_ms * 1000);
	air_interrupt_trigger(t->intr);
	return NULL;
}

static void expect_prompt_interrupt(air_logs_options *o, int64_t id)
{
	air_interrupt *intr = NULL;
	pthread_t th;
	trigger t;
	seen s = {0};
	air_error *err = NULL;
	long long t0;

	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	air_logs_options_set_interrupt(o, intr);
	t.intr = intr;
	t.delay_ms = 300;
	pthread_create(&th, NULL, trigger_later, &t);
	t0 = now_ms();
	ASSERT_EQ_INT(stream(id, o, &s, NULL, &err), AIR_EINTERRUPTED);
	/* Raised at 300 ms; a stream that ignored it would follow for ever. */
	ASSERT_TRUE(now_ms() - t0 < 10000);
	ASSERT_TRUE(now_ms() - t0 >= 250);
	pthread_join(th, NULL);
	air_error_free(err);
	air_logs_options_set_interrupt(o, NULL);
	air_interrupt_free(intr);
}

AIR_TEST(logs__interrupt_from_another_thread)
{
	air_logs_options *o = opts(60000);
	int64_t id = fakews_create_runf(fw, "{\"start_time\":1700000000000,\"state\":{"
	                                    "\"life_cycle_state\":\"RUNNING\"},\"tasks\":[{\"ai_runtime_task\":{}}]}");

	/* In the poll sleep... */
	expect_prompt_interrupt(o, id);
	/* ...and inside a slow transfer. */
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/%lld/logs\","
	                  "\"action\":\"delay\",\"delay_ms\":5000,\"times\":-1}", (long long)id);
	expect_prompt_interrupt(o, id);
	air_logs_options_free(o);
}

typedef struct client_trigger {
	air_interrupt *intr;
	int delay_ms;
	long long fired_ms;
} client_trigger;

static void *client_trigger_later(void *arg)
{
	client_trigger *t = arg;

	usleep((useconds_t)t->delay_ms * 1000);
	t->fired_ms = now_ms();
	air_interrupt_trigger(t->intr);
	return NULL;
}

AIR_TEST(logs__client_interrupt_stops_the_poll_sleep)
{
	air_logs_options *o = opts(3000);
	air_interrupt *ci = NULL;
	client_trigger t = {0};
	pthread_t th;
	seen s = {0};
	air_error *err = NULL;
	long long done;
	int64_t id = fakews_create_runf(fw, "{\"start_time\":1700000000000,\"state\":{"
	                                    "\"life_cycle_state\":\"RUNNING\"},\"tasks\":[{\"ai_runtime_task\":{}}]}");

	/* Only the client-wide interrupt: the call itself has none. */
	ASSERT_EQ_INT(air_interrupt_new(&ci), AIR_OK);
	{
		air_client_options *co = fakews_client_options(fw);
		ASSERT_EQ_INT(air_client_options_set_interrupt(co, ci), AIR_OK);
		air_client_free(client);
		client = fakews_client_from(co);
	}
	t.intr = ci;
	t.delay_ms = 500; /* well inside the first 3 s poll sleep */
	ASSERT_EQ_INT(pthread_create(&th, NULL, client_trigger_later, &t), 0);
	ASSERT_EQ_INT(stream(id, o, &s, NULL, &err), AIR_EINTERRUPTED);
	done = now_ms();
	pthread_join(th, NULL);
	air_test_note("stopped %lld ms after the client interrupt", done - t.fired_ms);
	ASSERT_TRUE(done - t.fired_ms < 1000); /* "within a second" */
	air_error_free(err);
	air_client_free(client);
	client = NULL;
	air_interrupt_free(ci);
	air_logs_options_free(o);
}

/* ---- MLflow fallback ----------------------------------------------------------------------- */

static void mlflow_chunks(const char *dir)
{
	fixture_post("/__fakews/runs/123/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"exp1\",\"mlflow_run_id\":\"run1\"}}");
	fixture_post("/__fakews/mlflow",
	             "{\"runs\":{\"run1\":{\"experiment_id\":\"exp1\",\"artifacts\":{"
	             "\"%s/logs-1.chunk.txt\":\"line 3\\nline 4\\n\","
	             "\"%s/logs-0.chunk.txt\":\"line 1\\r\\nline 2\\n\","
	             "\"%s/other.txt\":\"nope\\n\"}}}}",
	             dir, dir, dir);
}

static void expect_presigned_order(const char *first, const char *second)
{
	json_t *reqs = fixture_requests("GET", "/presigned/*");
	json_t *r0 = json_array_get(reqs, 0), *r1 = json_array_get(reqs, 1);

	ASSERT_TRUE(ends_with(json_string_value(json_object_get(r0, "path")), first));
	if (second)
		ASSERT_TRUE(ends_with(json_string_value(json_object_get(r1, "path")), second));
	ASSERT_EQ_INT(json_array_size(reqs), second ? 2 : 1);
	for (size_t i = 0; i < json_array_size(reqs); i++) {
		json_t *h = json_object_get(json_array_get(reqs, i), "headers");
		ASSERT_NULL(json_object_get(h, "authorization"));
		ASSERT_EQ_STR(json_string_value(json_object_get(h, "x-ms-blob-type")), "BlockBlob");
	}
	json_decref(reqs);
}

AIR_TEST(logs__feature_disabled_falls_back_to_mlflow_s48)
{
	static const char *const want[] = {"line 1", "line 2", "line 3", "line 4"};
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	seen s = {0};

	fixture_std_run(123, "SUCCESS");
	fakews_configf(fw, "{\"features\":{\"logs\":false}}");
	mlflow_chunks("logs/attempt_0/node_0");
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, NULL, &s, &sum, &err), err);
	expect_lines(&s, want, 4);
	ASSERT_EQ_INT(s.sources[0], AIR_LOG_SOURCE_MLFLOW);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/ai-training/workflows/by-run-id/123/logs"), 1);
	expect_presigned_order("logs-1.chunk.txt", "logs-0.chunk.txt");
	ASSERT_TRUE(!air_logs_summary_terminal(sum) || air_logs_summary_succeeded(sum));
	ASSERT_EQ_INT(air_logs_summary_source(sum), AIR_LOG_SOURCE_MLFLOW);
	/* STATUS only before the fallback. */
	ASSERT_EQ_STR(s.events, "S:SUCCESS/- L L L L ");
	air_logs_summary_free(sum);
}

AIR_TEST(logs__mlflow_tail_and_layouts)
{
	static const char *const last3[] = {"line 2", "line 3", "line 4"};
	air_logs_options *o = opts(10);
	seen s = {0};
	json_t *reqs;

	fixture_std_run(123, "SUCCESS");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/123/logs\",\"times\":-1,"
	                  "\"status\":404,\"body\":{\"error_code\":\"ENDPOINT_NOT_FOUND\",\"message\":\"no\"}}");
	/* Old layout: logs/node_0 listed under logs. */
	mlflow_chunks("logs/node_0");
	air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, 3);
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, o, &s, NULL, NULL), NULL);
	expect_lines(&s, last3, 3);
	expect_presigned_order("logs/node_0/logs-1.chunk.txt", "logs/node_0/logs-0.chunk.txt");
	/* --tail 2: the newest chunk is enough. */
	air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, 2);
	memset(&s, 0, sizeof(s));
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, o, &s, NULL, NULL), NULL);
	ASSERT_EQ_INT(s.n, 2);
	ASSERT_EQ_STR(s.lines[0], "line 3");
	expect_presigned_order("logs/node_0/logs-1.chunk.txt", NULL);
	reqs = fixture_requests("GET", "/api/2.0/mlflow/artifacts/list");
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "path"), "logs");
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 1), "path"), "logs/node_0");
	json_decref(reqs);
	air_logs_options_free(o);
}

AIR_TEST(logs__mlflow_empty_listing_tries_chunk_zero)
{
	air_logs_options *o = opts(10);
	air_logs_summary *sum = NULL;
	seen s = {0};
	json_t *reqs;

	fixture_std_run(123, "FAILED");
	fakews_configf(fw, "{\"features\":{\"logs\":false}}");
	fixture_post("/__fakews/runs/123/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"exp1\",\"mlflow_run_id\":\"run1\"}}");
	fixture_post("/__fakews/mlflow",
	             "{\"runs\":{\"run1\":{\"artifacts\":{\"logs/attempt_1/x\":\"\"}}}}");
	air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, 0);
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, o, &s, &sum, NULL), NULL);
	ASSERT_EQ_INT(s.n, 0);
	reqs = fixture_requests("GET", "/api/2.0/mlflow/artifacts/credentials-for-read");
	ASSERT_EQ_INT(json_array_size(reqs), 1);
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "path"), "logs/node_0/logs-0.chunk.txt");
	json_decref(reqs);
	ASSERT_CONTAINS(air_logs_summary_no_logs_message(sum), "FAILED");
	ASSERT_TRUE(air_logs_summary_terminal(sum) && !air_logs_summary_succeeded(sum));
	air_logs_summary_free(sum);
	air_logs_options_free(o);
}

AIR_TEST(logs__persistent_failures_then_mlflow_s49)
{
	static const char *const want[] = {"line 1", "line 2", "line 3", "line 4"};
	air_logs_options *o = opts(10);
	seen s = {0};

	fixture_std_run(123, "SUCCESS");
	mlflow_chunks("logs/attempt_0/node_0");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/123/logs\",\"times\":-1,"
	                  "\"status\":500,\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"x\"}}");
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, o, &s, NULL, NULL), NULL);
	expect_lines(&s, want, 4);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/ai-training/workflows/by-run-id/123/logs"), 5);
	air_logs_options_set_int(o, AIR_LOGS_MAX_PAGE_FAILURES, 2);
	fakews_clear_requests(fw);
	memset(&s, 0, sizeof(s));
	ASSERT_OK(stream(123, o, &s, NULL, NULL), NULL);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/ai-training/workflows/by-run-id/123/logs"), 2);
	air_logs_options_free(o);
}

AIR_TEST(logs__transient_failure_then_success)
{
	static const char *const want[] = {"step 1", "step 2", "CUDA out of memory"};
	air_logs_options *o = opts(10);
	seen s = {0};

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/logs", "%s", std_records);
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/123/logs\",\"times\":3,"
	                  "\"status\":401,\"body\":{\"error_code\":\"UNAUTHENTICATED\",\"message\":\"x\"}}");
	ASSERT_OK(stream(123, o, &s, NULL, NULL), NULL);
	expect_lines(&s, want, 3);
	ASSERT_EQ_INT(s.sources[0], AIR_LOG_SOURCE_ENDPOINT);
	air_logs_options_free(o);
}

AIR_TEST(logs__no_logs_s50)
{
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	seen s = {0};

	fakews_create_runf(fw, "{\"run_id\":9,\"start_time\":1700000000000,\"end_time\":1700000001000,"
	                       "\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"FAILED\","
	                       "\"state_message\":\"boom\"},\"tasks\":[{\"ai_runtime_task\":{}}],"
	                       "\"output\":{}}");
	ASSERT_OK(stream(9, NULL, &s, &sum, &err), err);
	ASSERT_EQ_INT(s.n, 0);
	ASSERT_CONTAINS(air_logs_summary_no_logs_message(sum), "9");
	ASSERT_TRUE(ends_with(air_logs_summary_no_logs_message(sum), "FAILED: boom"));
	ASSERT_TRUE(air_logs_summary_terminal(sum) && !air_logs_summary_succeeded(sum));
	ASSERT_EQ_INT(air_logs_summary_source(sum), AIR_LOG_SOURCE_MLFLOW);
	air_logs_summary_free(sum);
	fixture_post("/__fakews/runs/9", "{\"state\":{\"life_cycle_state\":\"TERMINATED\","
	                                             "\"result_state\":\"SUCCESS\"}}");
	ASSERT_OK(stream(9, NULL, &s, &sum, &err), err);
	ASSERT_TRUE(!air_logs_summary_terminal(sum) || air_logs_summary_succeeded(sum));
	ASSERT_TRUE(ends_with(air_logs_summary_no_logs_message(sum), "SUCCESS"));
	air_logs_summary_free(sum);
}

AIR_TEST(logs__active_run_without_logs_falls_back_after_termination)
{
	air_logs_options *o = opts(20);
	air_logs_summary *sum = NULL;
	seen s = {0};
	int64_t id = fakews_create_runf(fw, "{\"lifecycle\":{\"running_ms\":300},\"output\":{},"
	                                    "\"tasks\":[{\"ai_runtime_task\":{}}]}");

	ASSERT_OK(stream(id, o, &s, &sum, NULL), NULL);
	ASSERT_EQ_INT(s.n, 0);
	ASSERT_TRUE(air_logs_summary_terminal(sum));
	ASSERT_NOT_NULL(air_logs_summary_no_logs_message(sum));
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get-output"), 1);
	air_logs_summary_free(sum);
	air_logs_options_free(o);
}

AIR_TEST(logs__tail_zero_fetches_nothing)
{
	air_logs_options *o = opts(10);
	air_logs_summary *sum = NULL;
	seen s = {0};

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/logs", "%s", std_records);
	mlflow_chunks("logs/attempt_0/node_0");
	air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, 0);
	fakews_clear_requests(fw);
	ASSERT_OK(stream(123, o, &s, &sum, NULL), NULL);
	ASSERT_EQ_INT(s.n, 0);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/ai-training/workflows/by-run-id/123/logs"), 0);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/presigned/*"), 0);
	ASSERT_NULL(air_logs_summary_no_logs_message(sum));
	air_logs_summary_free(sum);
	/* Unresolved ids: the no-logs message. */
	fixture_post("/__fakews/runs/123/output", "{}");
	ASSERT_OK(stream(123, o, &s, &sum, NULL), NULL);
	ASSERT_NOT_NULL(air_logs_summary_no_logs_message(sum));
	air_logs_summary_free(sum);
	air_logs_options_free(o);
}

AIR_TEST(logs__attempts_s51)
{
	air_logs_options *o = opts(10);
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	seen s = {0};
	json_t *reqs;

	fakews_create_runf(fw, "{\"run_id\":77,\"start_time\":1700000000000,\"state\":{\"life_cycle_state\":"
	                       "\"RUNNING\"},\"tasks\":[{\"run_id\":78,\"attempt_number\":0,\"ai_runtime_task\":{}},"
	                       "{\"run_id\":79,\"attempt_number\":1,\"ai_runtime_task\":{}}]}");
	fixture_post("/__fakews/runs/77/logs",
	             "{\"records\":[{\"time_unix_nano\":1700000001000000000,\"body\":\"first try\","
	             "\"attempt\":0},{\"time_unix_nano\":1700000002000000000,\"body\":\"second\","
	             "\"attempt\":1}]}");
	air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, 2);
	ASSERT_EQ_INT(stream(77, o, &s, &sum, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "0..1");
	ASSERT_EQ_STR(air_error_field(err), "attempt");
	air_error_free(err);
	air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, 0);
	fakews_clear_requests(fw);
	ASSERT_OK(stream(77, o, &s, &sum, NULL), NULL);
	ASSERT_EQ_INT(s.n, 1);
	ASSERT_EQ_STR(s.lines[0], "first try");
	ASSERT_TRUE(!air_logs_summary_terminal(sum) || air_logs_summary_succeeded(sum)); /* one-shot view of an active run */
	air_logs_summary_free(sum);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 1);
	reqs = fixture_requests("GET", "/api/2.0/ai-training/workflows/by-run-id/77/logs");
	ASSERT_EQ_INT(json_array_size(reqs), 1);
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "ref.attempt_number"), "0");
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "ascending"), "false");
	json_decref(reqs);
	air_logs_options_free(o);
}

AIR_TEST(logs__not_found)
{
	air_error *err = NULL;
	seen s = {0};

	ASSERT_EQ_INT(stream(5, NULL, &s, NULL, &err), AIR_ENOTFOUND);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_NOT_FOUND);
	air_error_free(err);
	err = NULL;
	fixture_std_run(123, "SUCCESS");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/123/logs\",\"status\":400,"
	                  "\"body\":{\"error_code\":\"RESOURCE_DOES_NOT_EXIST\",\"message\":\"gone\"}}");
	ASSERT_EQ_INT(stream(123, NULL, &s, NULL, &err), AIR_ENOTFOUND);
	ASSERT_CONTAINS(air_error_message(err), "gone");
	air_error_free(err);
	ASSERT_EQ_INT(air_client_stream_logs(client, 0, NULL, NULL, NULL), AIR_EINVAL);
}

/* ---- downloads -------------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	return air_test_read_file(path, len);
}

AIR_TEST(download__two_nodes_one_failing_s52)
{
	air_download_report *rep = NULL;
	air_error *err = NULL;
	const char *dir = air_test_tmpdir();
	char out[512], path[600];
	size_t len = 0;
	char *data;
	struct stat st;

	fakews_create_runf(fw, "{\"run_id\":123,\"start_time\":1700000000000,\"end_time\":1700000001000,"
	                       "\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"SUCCESS\"},"
	                       "\"tasks\":[{\"run_id\":124,\"ai_runtime_task\":{\"deployments\":[{\"compute\":"
	                       "{\"accelerator_type\":\"GPU_1xA10\",\"accelerator_count\":2}}]}}]}");
	fixture_post("/__fakews/runs/123/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"exp1\",\"mlflow_run_id\":\"run1\"}}");
	fixture_post("/__fakews/mlflow",
	             "{\"runs\":{\"run1\":{\"artifacts\":{"
	             "\"logs/node_0/logs-0.chunk.txt\":\"a\\r\\nb\\r\\n\","
	             "\"logs/node_0/logs-1.chunk.txt\":\"c\\n\","
	             "\"logs/node_1/logs-0.chunk.txt\":\"z\\n\"}}}}");
	fakews_faultf(fw, "{\"path\":\"/presigned/run1/logs/node_1/logs-0.chunk.txt\",\"times\":-1,"
	                  "\"status\":500}");
	snprintf(out, sizeof(out), "%s/out/nested", dir);
	ASSERT_OK(air_client_download_logs(client, 123, out, NULL, &rep, &err), err);
	ASSERT_EQ_INT(air_download_report_count(rep), 2);
	ASSERT_TRUE(air_download_report_state(rep) < AIR_STATE_TERMINATED || air_download_report_state(rep) == AIR_STATE_SUCCESS);
	ASSERT_NULL(air_download_report_no_logs_message(rep));
	snprintf(path, sizeof(path), "%s/logs/node_0.log", out);
	ASSERT_EQ_STR(air_download_report_path(rep, 0), path);
	ASSERT_EQ_INT(air_download_report_bytes(rep, 0), 8);
	ASSERT_TRUE(air_download_report_complete(rep, 0));
	ASSERT_NULL(air_download_report_error(rep, 0));
	data = slurp(path, &len);
	ASSERT_EQ_INT(len, 8);
	ASSERT_EQ_INT(memcmp(data, "a\r\nb\r\nc\n", 8), 0);
	free(data);
	ASSERT_EQ_INT(air_download_report_node(rep, 1), 1);
	ASSERT_NULL(air_download_report_path(rep, 1));
	ASSERT_FALSE(air_download_report_complete(rep, 1));
	ASSERT_CONTAINS(air_download_report_error(rep, 1), "500");
	snprintf(path, sizeof(path), "%s/logs/node_1.log", out);
	ASSERT_NE_INT(stat(path, &st), 0);
	air_download_report_free(rep);
	{
		/* The pre-signed downloads carry no workspace credentials. */
		json_t *reqs = fixture_requests("GET", "/presigned/*");
		ASSERT_TRUE(json_array_size(reqs) >= 3);
		for (size_t i = 0; i < json_array_size(reqs); i++)
			ASSERT_NULL(json_object_get(json_object_get(json_array_get(reqs, i), "headers"),
			                            "authorization"));
		json_decref(reqs);
	}
}

/* Run 123 on one node with chunks "first\n" and "second\n" (and a 10 MiB
 * third one when @big, larger than any JSON reply may be). */
static void one_node_run(bool big)
{
	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"exp1\",\"mlflow_run_id\":\"run1\"}}");
	fixture_post("/__fakews/mlflow",
	             "{\"runs\":{\"run1\":{\"artifacts\":{"
	             "\"logs/node_0/logs-0.chunk.txt\":\"first\\n\","
	             "\"logs/node_0/logs-1.chunk.txt\":\"second\\n\"}}}}");
	if (big) {
		size_t n = 10u << 20;
		char *body = malloc(n + 200);
		int k = snprintf(body, 200, "{\"runs\":{\"run1\":{\"artifacts\":{"
		                            "\"logs/node_0/logs-2.chunk.txt\":\"");
		memset(body + k, 'x', n);
		strcpy(body + k + n, "\"}}}}");
		json_decref(fakews_call(fw, "POST", "/__fakews/mlflow", body));
		free(body);
	}
}

/* Entries of @dir other than @but (NULL: every entry). */
static int entries_but(const char *dir, const char *but)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	ASSERT_NOT_NULL(d);
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		     (!but || strcmp(de->d_name, but));
	closedir(d);
	return n;
}

/* Entries of @dir other than "node_0.log" (temporary files left behind). */
static int stray_files(const char *dir)
{
	return entries_but(dir, "node_0.log");
}

AIR_TEST(download__a_failed_chunk_leaves_the_earlier_file_as_it_was)
{
	air_download_report *rep = NULL;
	air_error *err = NULL;
	char out[512], path[600], logs[600];
	size_t len = 0;
	char *data;

	one_node_run(false);
	snprintf(out, sizeof(out), "%s/keep", air_test_tmpdir());
	snprintf(path, sizeof(path), "%s/logs/node_0.log", out);
	snprintf(logs, sizeof(logs), "%s/logs", out);
	ASSERT_OK(air_client_download_logs(client, 123, out, NULL, &rep, &err), err);
	ASSERT_TRUE(air_download_report_complete(rep, 0));
	air_download_report_free(rep);

	/* Again, with the second chunk failing: node 0 failed, its file stays. */
	fakews_faultf(fw, "{\"path\":\"/presigned/run1/logs/node_0/logs-1.chunk.txt\",\"times\":-1,"
	                  "\"status\":500}");
	ASSERT_EQ_INT(air_client_download_logs(client, 123, out, NULL, &rep, &err), AIR_ESERVER);
	ASSERT_CONTAINS(air_error_message(err), "logs-1.chunk.txt");
	ASSERT_CONTAINS(air_error_message(err), "left as it was");
	air_error_free(err);
	err = NULL;
	data = slurp(path, &len);
	ASSERT_NOT_NULL(data);
	ASSERT_EQ_INT(len, 13);
	ASSERT_EQ_INT(memcmp(data, "first\nsecond\n", 13), 0);
	free(data);
	ASSERT_EQ_INT(stray_files(logs), 0);

	/* Every chunk failing: the same. */
	fakews_clear_faults(fw);
	fakews_faultf(fw, "{\"path\":\"/presigned/*\",\"times\":-1,\"status\":403}");
	ASSERT_EQ_INT(air_client_download_logs(client, 123, out, NULL, &rep, &err), AIR_ESERVER);
	air_error_free(err);
	data = slurp(path, &len);
	ASSERT_EQ_INT(len, 13);
	free(data);
	ASSERT_EQ_INT(stray_files(logs), 0);
}

AIR_TEST(download__never_through_a_symbolic_link)
{
	air_download_report *rep = NULL;
	air_error *err = NULL;
	char out[512], logs[600], away[600], inside[600];

	one_node_run(false);
	snprintf(out, sizeof(out), "%s/shared", air_test_tmpdir());
	snprintf(logs, sizeof(logs), "%s/logs", out);
	snprintf(away, sizeof(away), "%s/elsewhere", air_test_tmpdir());
	snprintf(inside, sizeof(inside), "%s/real", out);
	ASSERT_EQ_INT(mkdir(out, 0700), 0);
	ASSERT_EQ_INT(mkdir(away, 0700), 0);
	ASSERT_EQ_INT(mkdir(inside, 0700), 0);
	/* <dir>/logs made first by someone else, leading out: refused, nothing written there */
	ASSERT_EQ_INT(symlink(away, logs), 0);
	ASSERT_EQ_INT(air_client_download_logs(client, 123, out, NULL, &rep, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "is a symbolic link");
	ASSERT_CONTAINS(air_error_message(err), logs);
	ASSERT_TRUE(rep == NULL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(entries_but(away, NULL), 0);
	/* leading nowhere, or inside the folder: refused the same */
	ASSERT_EQ_INT(unlink(logs), 0);
	ASSERT_EQ_INT(symlink("missing", logs), 0);
	ASSERT_EQ_INT(air_client_download_logs(client, 123, out, NULL, &rep, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(unlink(logs), 0);
	ASSERT_EQ_INT(symlink(inside, logs), 0);
	ASSERT_EQ_INT(air_client_download_logs(client, 123, out, NULL, &rep, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(entries_but(inside, NULL), 0);
	/* a folder of its own: written */
	ASSERT_EQ_INT(unlink(logs), 0);
	ASSERT_OK(air_client_download_logs(client, 123, out, NULL, &rep, &err), err);
	ASSERT_TRUE(air_download_report_complete(rep, 0));
	air_download_report_free(rep);
}

AIR_TEST(download__a_failed_node_is_incomplete_and_keeps_its_file)
{
	air_download_report *rep = NULL;
	air_error *err = NULL;
	char out[512], path[600];
	size_t len = 0;
	char *data;

	/* Node 1 had a good file from before; now its chunk fails. */
	fakews_create_runf(fw, "{\"run_id\":123,\"start_time\":1700000000000,\"end_time\":1700000001000,"
	                       "\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"SUCCESS\"},"
	                       "\"tasks\":[{\"run_id\":124,\"ai_runtime_task\":{\"deployments\":[{\"compute\":"
	                       "{\"accelerator_type\":\"GPU_1xA10\",\"accelerator_count\":2}}]}}]}");
	fixture_post("/__fakews/runs/123/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"exp1\",\"mlflow_run_id\":\"run1\"}}");
	fixture_post("/__fakews/mlflow",
	             "{\"runs\":{\"run1\":{\"artifacts\":{"
	             "\"logs/node_0/logs-0.chunk.txt\":\"a\\n\","
	             "\"logs/node_1/logs-0.chunk.txt\":\"b\\n\","
	             "\"logs/node_1/logs-1.chunk.txt\":\"c\\n\","
	             "\"logs/node_1/logs-2.chunk.txt\":\"d\\n\"}}}}");
	snprintf(out, sizeof(out), "%s/two", air_test_tmpdir());
	snprintf(path, sizeof(path), "%s/logs/node_1.log", out);
	air_test_write_file(path, "earlier\n", 8);
	fakews_faultf(fw, "{\"path\":\"/presigned/run1/logs/node_1/logs-1.chunk.txt\",\"times\":-1,"
	                  "\"status\":500}");
	ASSERT_OK(air_client_download_logs(client, 123, out, NULL, &rep, &err), err);
	ASSERT_TRUE(air_download_report_complete(rep, 0));
	ASSERT_FALSE(air_download_report_complete(rep, 1));
	ASSERT_NULL(air_download_report_path(rep, 1));
	ASSERT_CONTAINS(air_download_report_error(rep, 1), "HTTP 500");
	ASSERT_CONTAINS(air_download_report_error(rep, 1), "left as it was");
	air_download_report_free(rep);
	data = slurp(path, &len);
	ASSERT_EQ_INT(len, 8);
	ASSERT_EQ_INT(memcmp(data, "earlier\n", 8), 0);
	free(data);
	/* The chunk after the failed one was not fetched: the node had failed. */
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/presigned/run1/logs/node_1/logs-2.chunk.txt"), 0);
}

AIR_TEST(download__chunks_stream_to_the_file_and_restart_when_cut)
{
	air_download_report *rep = NULL;
	air_error *err = NULL;
	char out[512], path[600];
	size_t len = 0;
	char *data;

	one_node_run(true);
	/* The big chunk is cut short once: fetched again from its start. */
	fakews_faultf(fw, "{\"path\":\"/presigned/run1/logs/node_0/logs-2.chunk.txt\","
	                  "\"action\":\"truncate\"}");
	snprintf(out, sizeof(out), "%s/big", air_test_tmpdir());
	snprintf(path, sizeof(path), "%s/logs/node_0.log", out);
	ASSERT_OK(air_client_download_logs(client, 123, out, NULL, &rep, &err), err);
	ASSERT_TRUE(air_download_report_complete(rep, 0));
	ASSERT_EQ_INT(air_download_report_bytes(rep, 0), 13 + (10 << 20));
	air_download_report_free(rep);
	data = slurp(path, &len);
	ASSERT_EQ_INT(len, 13 + (10 << 20));
	ASSERT_EQ_INT(memcmp(data, "first\nsecond\nxxx", 16), 0);
	ASSERT_EQ_INT(data[len - 1], 'x');
	free(data);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/presigned/run1/logs/node_0/logs-2.chunk.txt"), 2);
}

AIR_TEST(download__node_range_and_no_logs)
{
	air_download_report *rep = NULL;
	air_logs_options *o = opts(10);
	air_error *err = NULL;
	char out[512];

	snprintf(out, sizeof(out), "%s/dl", air_test_tmpdir());
	fakews_create_runf(fw, "{\"run_id\":123,\"state\":{\"life_cycle_state\":\"RUNNING\"},"
	                       "\"tasks\":[{\"run_id\":124,\"ai_runtime_task\":{\"deployments\":[{\"compute\":"
	                       "{\"accelerator_type\":\"GPU_1xA10\",\"accelerator_count\":2}}]}}],\"output\":{}}");
	air_logs_options_set_int(o, AIR_LOGS_NODE, 5);
	ASSERT_EQ_INT(air_client_download_logs(client, 123, out, o, &rep, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "0..1");
	ASSERT_NULL(rep);
	air_error_free(err);
	err = NULL;
	air_logs_options_set_int(o, AIR_LOGS_NODE, 1);
	ASSERT_OK(air_client_download_logs(client, 123, out, o, &rep, &err), err);
	ASSERT_EQ_INT(air_download_report_count(rep), 1);
	ASSERT_EQ_INT(air_download_report_node(rep, 0), 1);
	ASSERT_CONTAINS(air_download_report_no_logs_message(rep), "no logs yet");
	ASSERT_TRUE(air_download_report_state(rep) < AIR_STATE_TERMINATED || air_download_report_state(rep) == AIR_STATE_SUCCESS);
	air_download_report_free(rep);
	ASSERT_EQ_INT(air_client_download_logs(client, 123, "  ", o, &rep, NULL), AIR_EINVAL);
	/* The attempt is checked before the node count (a run without compute). */
	fakews_create_runf(fw, "{\"run_id\":200,\"state\":{\"life_cycle_state\":\"RUNNING\"},"
	                       "\"tasks\":[{\"run_id\":201,\"ai_runtime_task\":{}}]}");
	air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, 3);
	ASSERT_EQ_INT(air_client_download_logs(client, 200, out, o, &rep, &err), AIR_EINVAL);
	ASSERT_EQ_STR(air_error_field(err), "attempt");
	air_error_free(err);
	err = NULL;
	air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, -1);
	ASSERT_EQ_INT(air_client_download_logs(client, 200, out, o, &rep, &err), AIR_EPROTO);
	ASSERT_CONTAINS(air_error_message(err), "no compute");
	air_error_free(err);
	air_logs_options_free(o);
}

AIR_TEST(download__all_nodes_failing_is_an_error)
{
	air_download_report *rep = NULL;
	air_error *err = NULL;
	char out[512];

	snprintf(out, sizeof(out), "%s/dl", air_test_tmpdir());
	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"exp1\",\"mlflow_run_id\":\"run1\"}}");
	fixture_post("/__fakews/mlflow",
	             "{\"runs\":{\"run1\":{\"artifacts\":{\"logs/node_0/logs-0.chunk.txt\":\"x\\n\"}}}}");
	fakews_faultf(fw, "{\"path\":\"/presigned/*\",\"times\":-1,\"status\":500}");
	ASSERT_EQ_INT(air_client_download_logs(client, 123, out, NULL, &rep, &err), AIR_ESERVER);
	ASSERT_NULL(rep);
	ASSERT_CONTAINS(air_error_message(err), "node 0");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
	air_error_free(err);
}

AIR_TEST(download__many_nodes_attempt_layout)
{
	air_download_report *rep = NULL;
	air_logs_options *o = opts(10);
	air_error *err = NULL;
	char out[512], body[8192];
	size_t used = 0;

	snprintf(out, sizeof(out), "%s/many", air_test_tmpdir());
	fakews_create_runf(fw, "{\"run_id\":123,\"state\":{\"life_cycle_state\":\"TERMINATED\","
	                       "\"result_state\":\"FAILED\"},\"tasks\":[{\"run_id\":124,\"attempt_number\":0},"
	                       "{\"run_id\":125,\"attempt_number\":1,\"ai_runtime_task\":{\"deployments\":"
	                       "[{\"compute\":{\"accelerator_type\":\"GPU_8xH100\",\"accelerator_count\":80}}]}}]}");
	fixture_post("/__fakews/runs/123/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"exp1\",\"mlflow_run_id\":\"run1\"}}");
	used += (size_t)snprintf(body, sizeof(body), "{\"runs\":{\"run1\":{\"artifacts\":{");
	for (int n = 0; n < 10; n++)
		for (int c = 0; c < 3; c++)
			used += (size_t)snprintf(body + used, sizeof(body) - used,
			                         "%s\"logs/attempt_1/node_%d/logs-%d.chunk.txt\":\"n%d c%d\\n\"",
			                         n || c ? "," : "", n, c, n, c);
	snprintf(body + used, sizeof(body) - used, "}}}}");
	json_decref(fakews_call(fw, "POST", "/__fakews/mlflow", body));
	air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, 1);
	ASSERT_OK(air_client_download_logs(client, 123, out, o, &rep, &err), err);
	ASSERT_EQ_INT(air_download_report_count(rep), 10);
	ASSERT_EQ_INT(air_download_report_state(rep), AIR_STATE_FAILED);
	ASSERT_EQ_STR(air_download_report_state_name(rep), "FAILED");
	for (size_t i = 0; i < 10; i++) {
		size_t len;
		char want[64], *data = slurp(air_download_report_path(rep, i), &len);
		snprintf(want, sizeof(want), "n%zu c0\nn%zu c1\nn%zu c2\n", i, i, i);
		ASSERT_NOT_NULL(data);
		ASSERT_EQ_INT(len, strlen(want));
		ASSERT_EQ_INT(memcmp(data, want, len), 0);
		ASSERT_TRUE(air_download_report_complete(rep, i));
		free(data);
	}
	air_download_report_free(rep);
	air_logs_options_free(o);
}
