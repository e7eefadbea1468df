/*
 * test_wait_iter_api.c: the waiter (air_client_wait_run()) and the pull-style
 * log iterator (air_client_open_logs(), air_log_iter_next()) against the
 * fake workspace.
 */
#include <string.h>

#include "fixture.h"
#include "test.h"

AIR_TEST_HOOKS(fixture_setup, fixture_teardown)

/* A run scripted through runs/get: PENDING, PENDING, RUNNING, RUNNING, then
 * TERMINATED with @result (each runs/get takes the next step). */
static int64_t scripted_run(const char *result)
{
	return fakews_create_runf(
		fw,
		"{\"state\":{\"life_cycle_state\":\"PENDING\"},\"tasks\":[{\"ai_runtime_task\":{}}],"
		"\"sequence\":[{},{},{\"state\":{\"life_cycle_state\":\"RUNNING\"},\"start_time\":"
		"1700000000000},{},{\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":"
		"\"%s\"},\"end_time\":1700000009000}]}",
		result);
}

static air_wait_options *wait_opts(void)
{
	air_wait_options *o = NULL;

	ASSERT_EQ_INT(air_wait_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_wait_options_set_int(o, AIR_WAIT_POLL_INTERVAL_MS, 5), AIR_OK);
	return o;
}

typedef struct states {
	char text[512];
	int calls, stop_at;
} states;

static int on_state(const air_run *run, void *ud)
{
	states *s = ud;

	snprintf(s->text + strlen(s->text), sizeof(s->text) - strlen(s->text), "%s ",
	         air_run_state_name(run));
	return ++s->calls == s->stop_at;
}

AIR_TEST(wait__returns_the_final_run_and_reports_each_change)
{
	air_wait_options *o = wait_opts();
	states s = {"", 0, 0};
	air_run *run = NULL;
	air_error *err = NULL;
	int64_t id = scripted_run("FAILED");

	ASSERT_EQ_INT(air_wait_options_set_state_cb(o, on_state, &s), AIR_OK);
	ASSERT_OK(air_client_wait_run(client, id, o, &run, &err), err);
	ASSERT_EQ_INT(air_run_id(run), id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_FAILED);
	ASSERT_TRUE(air_run_is_terminal(run));
	ASSERT_TRUE(air_state_is_terminal(air_run_state(run)));
	/* One call per change, not per poll. */
	ASSERT_EQ_STR(s.text, "PENDING RUNNING FAILED ");
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 5);
	air_run_free(run);
	air_wait_options_free(o);
}

AIR_TEST(wait__a_finished_run_returns_at_once_and_options_may_be_null)
{
	air_run *run = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_wait_run(client, fixture_std_run(123, "SUCCESS"), NULL, &run, &err),
	          err);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 1);
	air_run_free(run);
}

AIR_TEST(wait__transient_reads_are_retried_missing_runs_end_it)
{
	air_wait_options *o = wait_opts();
	air_run *run = NULL;
	air_error *err = NULL;
	int64_t id = scripted_run("SUCCESS");

	fakews_faultf(fw, "{\"path\":\"/api/2.2/jobs/runs/get\",\"status\":500,\"times\":2,"
	                  "\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"hiccup\"}}");
	ASSERT_OK(air_client_wait_run(client, id, o, &run, &err), err);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	air_run_free(run);
	run = NULL;
	ASSERT_EQ_INT(air_client_wait_run(client, 99999, o, &run, &err), AIR_ENOTFOUND);
	ASSERT_NULL(run);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_NOT_FOUND);
	air_error_free(err);
	air_wait_options_free(o);
}

AIR_TEST(wait__the_state_callback_may_stop_it)
{
	air_wait_options *o = wait_opts();
	states s = {"", 0, 2};
	air_run *run = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_wait_options_set_state_cb(o, on_state, &s), AIR_OK);
	ASSERT_EQ_INT(air_client_wait_run(client, scripted_run("SUCCESS"), o, &run, &err),
	              AIR_EABORTED);
	ASSERT_NULL(run);
	ASSERT_EQ_STR(s.text, "PENDING RUNNING ");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_ABORTED);
	air_error_free(err);
	air_wait_options_free(o);
}

AIR_TEST(wait__arguments)
{
	air_wait_options *o = NULL;
	air_run *run = (air_run *)1;

	ASSERT_EQ_INT(air_client_wait_run(client, 0, NULL, &run, NULL), AIR_EINVAL);
	ASSERT_NULL(run);
	ASSERT_EQ_INT(air_client_wait_run(NULL, 1, NULL, &run, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_wait_run(client, 1, NULL, NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_wait_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_wait_options_set_int(o, AIR_WAIT_POLL_INTERVAL_MS, -1), AIR_EINVAL);
	ASSERT_EQ_INT(air_wait_options_set_int(o, 12345, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_wait_options_set_deadline_ms(o, -1), AIR_EINVAL);
	ASSERT_EQ_INT(air_wait_options_set_state_cb(NULL, NULL, NULL), AIR_EINVAL);
	air_wait_options_free(o);
	air_wait_options_free(NULL);
}

/* ---- the log iterator ------------------------------------------------------------ */

static air_logs_options *logs_opts(void)
{
	air_logs_options *o = NULL;

	ASSERT_EQ_INT(air_logs_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, 5), AIR_OK);
	return o;
}

/* Every line of run @id through the iterator, "line|line|..." */
static void iterate(int64_t id, air_logs_options *o, char *out, size_t cap, air_log_iter **keep)
{
	air_log_iter *it = NULL;
	const air_log_record *rec;
	air_error *err = NULL;
	int rc;

	out[0] = '\0';
	ASSERT_OK(air_client_open_logs(client, id, o, &it, &err), err);
	while ((rc = air_log_iter_next(it, &rec, &err)) == AIR_OK) {
		size_t len;
		const char *line = air_log_record_line(rec, &len);
		ASSERT_EQ_INT(strlen(line), len);
		snprintf(out + strlen(out), cap - strlen(out), "%s%s", *out ? "|" : "", line);
	}
	ASSERT_EQ_INT(rc, AIR_EDONE);
	ASSERT_NULL(err);
	ASSERT_NULL(rec);
	/* The end is sticky. */
	ASSERT_EQ_INT(air_log_iter_next(it, &rec, &err), AIR_EDONE);
	if (keep)
		*keep = it;
	else
		air_log_iter_free(it);
}

static int collect(const air_log_record *rec, void *ud)
{
	char *out = ud;

	snprintf(out + strlen(out), 4096 - strlen(out), "%s%s", *out ? "|" : "",
	         air_log_record_line(rec, NULL));
	return 0;
}

static void three_lines(int64_t id)
{
	char path[64];

	snprintf(path, sizeof(path), "/__fakews/runs/%lld/logs", (long long)id);
	fixture_post(path, "%s", "{\"records\":["
	             "{\"time_unix_nano\":1700000001000000000,\"body\":\"one\"},"
	             "{\"time_unix_nano\":1700000002000000000,\"body\":\"two\"},"
	             "{\"time_unix_nano\":1700000003000000000,\"body\":\"CUDA out of memory\"}]}");
}

AIR_TEST(iter__follows_a_run_in_order_like_the_stream)
{
	air_logs_options *o = logs_opts();
	char pulled[4096], pushed[4096] = "";
	air_log_iter *it = NULL;
	const air_logs_summary *sum;
	int64_t id = scripted_run("SUCCESS");

	three_lines(id);
	iterate(id, o, pulled, sizeof(pulled), &it);
	ASSERT_EQ_STR(pulled, "one|two|CUDA out of memory");
	sum = air_log_iter_summary(it);
	ASSERT_EQ_INT(air_logs_summary_records(sum), 3);
	ASSERT_EQ_INT(air_logs_summary_state(sum), AIR_STATE_SUCCESS);
	ASSERT_TRUE(air_logs_summary_terminal(sum));
	ASSERT_TRUE(air_logs_summary_succeeded(sum));
	ASSERT_EQ_INT(air_logs_summary_source(sum), AIR_LOG_SOURCE_ENDPOINT);
	ASSERT_NULL(air_logs_summary_no_logs_message(sum));
	air_log_iter_free(it);

	/* The callback stream delivers the same records. */
	fakews_reset(fw);
	id = scripted_run("SUCCESS");
	three_lines(id);
	ASSERT_EQ_INT(air_logs_options_set_record_cb(o, collect, pushed), AIR_OK);
	ASSERT_OK(air_client_stream_logs(client, id, o, NULL, NULL), NULL);
	ASSERT_EQ_STR(pushed, pulled);
	air_logs_options_free(o);
}

AIR_TEST(iter__records_carry_node_source_time_and_alert)
{
	air_logs_options *o = logs_opts();
	air_log_iter *it = NULL;
	const air_log_record *rec;
	air_error *err = NULL;

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/logs", "{\"records\":["
	             "{\"time_unix_nano\":1700000001000000000,\"body\":\"fine\"},"
	             "{\"time_unix_nano\":1700000002000000000,\"body\":\"Segmentation fault\"}]}");
	ASSERT_OK(air_client_open_logs(client, 123, o, &it, &err), err);
	ASSERT_OK(air_log_iter_next(it, &rec, &err), err);
	ASSERT_EQ_STR(air_log_record_line(rec, NULL), "fine");
	ASSERT_EQ_INT(air_log_record_time_ns(rec), 1700000001000000000LL);
	ASSERT_EQ_INT(air_log_record_node(rec), 0);
	ASSERT_EQ_INT(air_log_record_source(rec), AIR_LOG_SOURCE_ENDPOINT);
	ASSERT_EQ_INT(air_log_record_alert(rec), 0);
	ASSERT_OK(air_log_iter_next(it, &rec, &err), err);
	ASSERT_TRUE(air_log_record_alert(rec) > 0);
	ASSERT_NOT_NULL(air_log_alert_pattern(air_log_record_alert(rec)));
	ASSERT_EQ_INT(air_log_match_alert("Segmentation fault", 18), air_log_record_alert(rec));
	ASSERT_EQ_INT(air_log_iter_next(it, &rec, &err), AIR_EDONE);
	air_log_iter_free(it);
	air_logs_options_free(o);
}

typedef struct statuses {
	char text[256];
} statuses;

static int on_status(const char *cur, const char *prev, void *ud)
{
	statuses *s = ud;

	snprintf(s->text + strlen(s->text), sizeof(s->text) - strlen(s->text), "%s/%s ", cur,
	         prev ? prev : "-");
	return 0;
}

AIR_TEST(iter__status_callback_runs_inside_open_and_next)
{
	air_logs_options *o = logs_opts();
	statuses s = {""};
	char lines[256];
	air_log_iter *it = NULL;

	ASSERT_EQ_INT(air_logs_options_set_status_cb(o, on_status, &s), AIR_OK);
	iterate(scripted_run("SUCCESS"), o, lines, sizeof(lines), &it);
	ASSERT_EQ_STR(s.text, "PENDING/- RUNNING/PENDING SUCCESS/RUNNING ");
	/* No line at all: the summary says why. */
	ASSERT_EQ_STR(lines, "");
	ASSERT_NOT_NULL(air_logs_summary_no_logs_message(air_log_iter_summary(it)));
	air_log_iter_free(it);
	air_logs_options_free(o);
}

AIR_TEST(iter__open_fails_early_and_arguments_are_checked)
{
	air_logs_options *o = logs_opts();
	air_log_iter *it = (air_log_iter *)1;
	const air_log_record *rec = (const air_log_record *)1;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_client_open_logs(client, 99999, o, &it, &err), AIR_ENOTFOUND);
	ASSERT_NULL(it);
	air_error_free(err);
	err = NULL;
	fixture_std_run(123, "SUCCESS");
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, 3), AIR_OK);
	ASSERT_EQ_INT(air_client_open_logs(client, 123, o, &it, &err), AIR_EINVAL);
	ASSERT_EQ_STR(air_error_field(err), "attempt");
	air_error_free(err);
	ASSERT_EQ_INT(air_client_open_logs(client, 0, NULL, &it, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_open_logs(NULL, 1, NULL, &it, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_open_logs(client, 1, NULL, NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_log_iter_next(NULL, &rec, NULL), AIR_EINVAL);
	ASSERT_NULL(rec);
	ASSERT_NULL(air_log_iter_summary(NULL));
	air_log_iter_free(NULL);
	air_logs_options_free(o);
}
