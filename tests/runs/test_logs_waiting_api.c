/* test_logs_waiting_api.c: air_logs_options_set_waiting_cb() against the
 * fake workspace (docs/runs-and-logs.md#waiting-message): when the message is asked for, what it
 * says, how it ends, and that nothing is asked for without a callback. */
#include <string.h>

#include "fixture.h"
#include "test.h"

AIR_TEST_HOOKS(fixture_setup, fixture_teardown)

#define OUTPUT "/api/2.2/jobs/runs/get-output"
#define LOGS_123 "/api/2.0/ai-training/workflows/by-run-id/123/logs"

typedef struct events {
	char text[4096]; /* "S:<cur>/<prev> ", "W:<message> ", "W:- " (NULL), "L " */
	int stop_waiting; /* the waiting callback returns 1 at this call (0: never) */
	int waiting_calls;
} events;

static void add(events *e, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(e->text);
	snprintf(e->text + n, sizeof(e->text) - n, fmt, a, b);
}

static int on_record(const air_log_record *rec, void *ud)
{
	(void)rec;
	add(ud, "L %s%s", "", "");
	return 0;
}

static int on_status(const char *cur, const char *prev, void *ud)
{
	add(ud, "S:%s/%s ", cur, prev ? prev : "-");
	return 0;
}

static int on_waiting(const char *message, void *ud)
{
	events *e = ud;

	add(e, "W:%s%s ", message ? message : "-", "");
	return ++e->waiting_calls == e->stop_waiting;
}

static air_logs_options *opts(bool waiting, events *e)
{
	air_logs_options *o = NULL;

	ASSERT_EQ_INT(air_logs_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, 5), AIR_OK);
	if (waiting)
		ASSERT_EQ_INT(air_logs_options_set_waiting_cb(o, on_waiting, e), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_record_cb(o, on_record, e), AIR_OK);
	return o;
}

/* Stream run @id with @o, the status callback too when @status. */
static int stream(int64_t id, air_logs_options *o, bool status, events *e,
                  air_logs_summary **sum, air_error **err)
{
	ASSERT_EQ_INT(air_logs_options_set_status_cb(o, status ? on_status : NULL, e), AIR_OK);
	return air_client_stream_logs(client, id, o, sum, err);
}

/* Run 123 (task run 124): PENDING on polls 0-5, RUNNING from poll 6, empty
 * log pages until poll 12 brings two lines, TERMINATED/SUCCESS on poll 13.
 * get-output answers {} on poll 0, "STATUS:Allocating nodes.." on poll 5 and
 * "INFO:Image pulled" on poll 10. */
static void scripted_run(void)
{
	char seq[1024] = "";

	for (int i = 0; i < 14; i++) {
		const char *patch =
			i == 6 ? "{\"state\":{\"life_cycle_state\":\"RUNNING\"},\"start_time\":1700000000000}"
			: i == 13 ? "{\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":"
			            "\"SUCCESS\"},\"end_time\":1700000030000}"
			          : "{}";
		snprintf(seq + strlen(seq), sizeof(seq) - strlen(seq), "%s%s", i ? "," : "", patch);
	}
	fakews_create_runf(fw,
		"{\"run_id\":123,\"state\":{\"life_cycle_state\":\"PENDING\"},\"tasks\":[{\"run_id\":124,"
		"\"ai_runtime_task\":{\"experiment\":\"x\"}}],\"sequence\":[%s]}", seq);
	fixture_post("/__fakews/runs/123/logs",
	             "{\"records\":[{\"time_unix_nano\":1700000001000000000,\"body\":\"hello\"},"
	             "{\"time_unix_nano\":1700000002000000000,\"body\":\"world\"}]}");
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":200,\"body\":{\"log_records\":[]},"
	                  "\"times\":12}", LOGS_123);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":200,\"body\":{},\"times\":1}", OUTPUT);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":200,\"times\":1,\"body\":"
	                  "{\"ai_runtime_task_output\":{\"status_message\":\"STATUS:Allocating nodes..\"}}}",
	              OUTPUT);
	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":200,\"times\":1,\"body\":"
	                  "{\"ai_runtime_task_output\":{\"status_message\":\"INFO:Image pulled\"}}}",
	              OUTPUT);
	fakews_clear_requests(fw);
}

/* The poll of each get-output request ("0 5 10 "): runs/get is read once per
 * poll, so it is the number of runs/get requests before it, minus one. */
static const char *output_polls(void)
{
	static char polls[256];
	json_t *reqs = fixture_requests("GET", "*"), *r;
	size_t i;
	int gets = 0;

	polls[0] = '\0';
	json_array_foreach(reqs, i, r) {
		const char *path = json_string_value(json_object_get(r, "path"));

		if (path && !strcmp(path, "/api/2.2/jobs/runs/get"))
			gets++;
		else if (path && !strcmp(path, OUTPUT))
			snprintf(polls + strlen(polls), sizeof(polls) - strlen(polls), "%d ", gets - 1);
	}
	json_decref(reqs);
	return polls;
}

AIR_TEST(waiting_api__messages_on_polls_0_5_10_then_ended_before_the_first_line)
{
	events e = {0};
	air_logs_options *o = opts(true, &e);
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	json_t *reqs;

	scripted_run();
	ASSERT_OK(stream(123, o, true, &e, &sum, &err),
	          err);
	ASSERT_EQ_STR(e.text, "S:PENDING/- W:Waiting for accelerator capacity... "
	                      "W:Allocating nodes... S:RUNNING/PENDING "
	                      "W:Waiting for the run to start on node 0... W:- L L "
	                      "S:SUCCESS/RUNNING ");
	ASSERT_EQ_INT(air_logs_summary_records(sum), 2);
	ASSERT_TRUE(air_logs_summary_succeeded(sum));
	ASSERT_EQ_INT(air_logs_summary_state(sum), AIR_STATE_SUCCESS);
	/* One get-output per message, for the latest task run, and no extra runs/get. */
	reqs = fixture_requests("GET", OUTPUT);
	ASSERT_EQ_INT(json_array_size(reqs), 3);
	for (size_t i = 0; i < 3; i++)
		ASSERT_EQ_STR(fixture_query(json_array_get(reqs, i), "run_id"), "124");
	json_decref(reqs);
	ASSERT_EQ_STR(output_polls(), "0 5 10 ");
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 14);
	air_logs_summary_free(sum);
	air_logs_options_free(o);
}

AIR_TEST(waiting_api__no_callback_no_requests)
{
	events e = {0};
	air_logs_options *o = opts(false, &e);
	air_error *err = NULL;

	scripted_run();
	ASSERT_OK(stream(123, o, false, &e, NULL, &err), err);
	ASSERT_EQ_STR(e.text, "L L ");
	ASSERT_EQ_INT(fakews_count(fw, "GET", OUTPUT), 0);
	/* Clearing the callback works the same. */
	ASSERT_EQ_INT(air_logs_options_set_waiting_cb(o, on_waiting, &e), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_waiting_cb(o, NULL, &e), AIR_OK);
	fakews_reset(fw);
	scripted_run();
	e.text[0] = '\0';
	ASSERT_OK(stream(123, o, false, &e, NULL, &err), err);
	ASSERT_EQ_STR(e.text, "L L ");
	ASSERT_EQ_INT(fakews_count(fw, "GET", OUTPUT), 0);
	air_logs_options_free(o);
}

AIR_TEST(waiting_api__ended_when_the_run_finishes_without_lines)
{
	events e = {0};
	air_logs_options *o = opts(true, &e);
	air_logs_summary *sum = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_NODE, 2), AIR_OK);
	fakews_create_runf(fw,
		"{\"run_id\":40,\"start_time\":1700000000000,\"state\":{\"life_cycle_state\":\"RUNNING\"},"
		"\"tasks\":[{\"run_id\":41,\"ai_runtime_task\":{}}],\"output\":{},\"sequence\":[{},"
		"{\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"FAILED\"},"
		"\"end_time\":1700000001000}]}");
	ASSERT_OK(stream(40, o, false, &e, &sum, &err), err);
	ASSERT_EQ_STR(e.text, "W:Waiting for the run to start on node 2... W:- ");
	ASSERT_NOT_NULL(air_logs_summary_no_logs_message(sum));
	air_logs_summary_free(sum);
	air_logs_options_free(o);
}

AIR_TEST(waiting_api__callback_stops_the_stream_and_still_gets_the_end)
{
	events e = {0};
	air_logs_options *o = opts(true, &e);
	air_error *err = NULL;

	e.stop_waiting = 2;
	scripted_run();
	ASSERT_EQ_INT(stream(123, o, false, &e, NULL, &err),
	              AIR_EABORTED);
	ASSERT_CONTAINS(air_error_message(err), "waiting callback");
	ASSERT_EQ_STR(e.text, "W:Waiting for accelerator capacity... W:Allocating nodes... W:- ");
	air_error_free(err);
	air_logs_options_free(o);
}

AIR_TEST(waiting_api__unreadable_status_message_is_not_an_error)
{
	events e = {0};
	air_logs_options *o = opts(true, &e);
	air_error *err = NULL;

	fakews_faultf(fw, "{\"path\":\"%s\",\"status\":403,\"times\":-1,\"body\":"
	                  "{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"no\"}}", OUTPUT);
	fakews_create_runf(fw,
		"{\"run_id\":50,\"state\":{\"life_cycle_state\":\"PENDING\"},"
		"\"tasks\":[{\"run_id\":51,\"ai_runtime_task\":{}}],\"sequence\":[{},"
		"{\"state\":{\"life_cycle_state\":\"RUNNING\"},\"start_time\":1700000000000},"
		"{\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"SUCCESS\"},"
		"\"end_time\":1700000030000}]}");
	fixture_post("/__fakews/runs/50/logs",
	             "{\"records\":[{\"time_unix_nano\":1700000001000000000,\"body\":\"up\"}]}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows/by-run-id/50/logs\","
	                  "\"status\":200,\"body\":{\"log_records\":[]},\"times\":1}");
	ASSERT_OK(stream(50, o, false, &e, NULL, &err), err);
	ASSERT_EQ_STR(e.text, "W:Waiting for accelerator capacity... W:- L ");
	air_logs_options_free(o);
}

AIR_TEST(waiting_api__finished_runs_never_wait)
{
	events e = {0};
	air_logs_options *o = opts(true, &e);
	air_error *err = NULL;

	fixture_std_run(60, "SUCCESS");
	fixture_post("/__fakews/runs/60/logs",
	             "{\"records\":[{\"time_unix_nano\":1700000001000000000,\"body\":\"done\"}]}");
	fakews_clear_requests(fw);
	ASSERT_OK(stream(60, o, false, &e, NULL, &err), err);
	ASSERT_EQ_STR(e.text, "L ");
	ASSERT_EQ_INT(fakews_count(fw, "GET", OUTPUT), 0);
	air_logs_options_free(o);
}

AIR_TEST(waiting_api__options_must_exist)
{
	ASSERT_EQ_INT(air_logs_options_set_waiting_cb(NULL, on_waiting, NULL), AIR_EINVAL);
}
