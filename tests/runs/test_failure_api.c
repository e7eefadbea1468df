/*
 * test_failure_api.c: air_client_get_failure() against the fake workspace
 * (docs/runs-and-logs.md#why-a-run-failed): the platform's messages and
 * termination details, the node a message names or the one whose log has
 * the traceback, only that node's log read and only its tail, the MLflow
 * fallback, a log that cannot be read, runs without a failure, and bad
 * arguments. Interrupts and deadlines are in test_call_interrupts.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "test.h"

AIR_TEST_HOOKS(fixture_setup, fixture_teardown)

#define LOGS(id) "/api/2.0/ai-training/workflows/by-run-id/" #id "/logs"
#define T0 1700000001000000000LL

/* A finished run of @nodes nodes (GPU_8xH100), its result and message;
 * task run id = id + 1, max_retries 2, latest attempt @attempt. */
static void finished_run(int64_t id, int nodes, const char *result, const char *message,
                         int attempt)
{
	fakews_create_runf(
		fw,
		"{\"run_id\":%lld,\"start_time\":1700000000000,\"end_time\":1700000012000,"
		"\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"%s\","
		"\"state_message\":\"%s\"},\"tasks\":[{\"run_id\":%lld,\"attempt_number\":%d,"
		"\"max_retries\":2,\"ai_runtime_task\":{\"experiment\":\"e\",\"deployments\":[{"
		"\"compute\":{\"accelerator_type\":\"GPU_8xH100\",\"accelerator_count\":%d}}]}}]}",
		(long long)id, result, message, (long long)id + 1, attempt, nodes * 8);
}

/* Log lines of @node, attempt @attempt, one a microsecond from @t0 (ns). */
static void add_lines_at(int64_t id, int node, int attempt, int64_t t0, const char *const *lines,
                         size_t n)
{
	char path[64], *body = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);

	fprintf(f, "{\"records\":[");
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_string(lines[i]);
		char *quoted = json_dumps(s, JSON_ENCODE_ANY);
		fprintf(f, "%s{\"time_unix_nano\":%lld,\"body\":%s,\"node_index\":%d,\"attempt\":%d}",
		        i ? "," : "", (long long)(t0 + (int64_t)i * 1000), quoted, node, attempt);
		free(quoted);
		json_decref(s);
	}
	fprintf(f, "]}");
	fclose(f);
	snprintf(path, sizeof(path), "/__fakews/runs/%lld/logs", (long long)id);
	json_decref(fakews_call(fw, "POST", path, body));
	free(body);
}

/* ... from T0, within the runs made by finished_run(). */
static void add_lines(int64_t id, int node, int attempt, const char *const *lines, size_t n)
{
	add_lines_at(id, node, attempt, T0, lines, n);
}

static const char *const traceback[] = {
	"loading shards",
	"Traceback (most recent call last):",
	"  File \"/code/train.py\", line 12, in <module>",
	"    loss = model(batch)",
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB",
	"[rank1] exiting",
};

static air_failure *get_failure(int64_t id, const air_failure_options *o)
{
	air_failure *f = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_get_failure(client, id, o, &f, &err), err);
	ASSERT_NOT_NULL(f);
	return f;
}

/* The node queried by each log request, as "0 1 ..." (static). */
static const char *nodes_read(int64_t id)
{
	static char out[256];
	char path[64];
	json_t *reqs, *r;
	size_t i, at = 0;

	snprintf(path, sizeof(path), "/api/2.0/ai-training/workflows/by-run-id/%lld/logs",
	         (long long)id);
	reqs = fixture_requests("GET", path);
	out[0] = '\0';
	json_array_foreach(reqs, i, r)
		at += (size_t)snprintf(out + at, sizeof(out) - at, "%s%s", i ? " " : "",
		                       fixture_query(r, "filter.node_index"));
	json_decref(reqs);
	return out;
}

AIR_TEST(failure__the_node_the_platform_names_and_its_traceback)
{
	air_failure *f;

	finished_run(300, 2, "FAILED", "Workload failed: node 1 exited with code 1", 2);
	json_decref(fakews_callf(fw, "POST", "/__fakews/runs/300", "%s",
	                         "{\"status\":{\"state\":\"TERMINATED\",\"termination_details\":{"
	                         "\"code\":\"RUN_EXECUTION_ERROR\",\"type\":\"CLIENT_ERROR\","
	                         "\"message\":\"Workload failed: node 1 exited with code 1\"}}}"));
	add_lines(300, 1, 2, traceback, 6);
	add_lines(300, 0, 2, (const char *const[]){"node 0 was fine"}, 1);
	fakews_clear_requests(fw);
	f = get_failure(300, NULL);
	ASSERT_EQ_INT(air_failure_run_id(f), 300);
	ASSERT_EQ_INT(air_failure_state(f), AIR_STATE_FAILED);
	ASSERT_EQ_STR(air_failure_state_name(f), "FAILED");
	ASSERT_EQ_STR(air_failure_message(f), "Workload failed: node 1 exited with code 1");
	ASSERT_EQ_STR(air_failure_termination_code(f), "RUN_EXECUTION_ERROR");
	ASSERT_EQ_STR(air_failure_termination_type(f), "CLIENT_ERROR");
	ASSERT_EQ_INT(air_failure_node(f), 1);
	ASSERT_EQ_INT(air_failure_node_source(f), AIR_NODE_SOURCE_REPORTED);
	ASSERT_EQ_INT(air_failure_attempt(f), 2);
	ASSERT_EQ_INT(air_failure_attempts_allowed(f), 3);
	ASSERT_EQ_STR(air_failure_summary(f),
	              "Run 300 FAILED (attempt 3 of 3, node 1): Workload failed: node 1 exited with "
	              "code 1");
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_INT(air_failure_excerpt_count(f), 4);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 0, NULL), traceback[1]);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 3, NULL), traceback[4]);
	ASSERT_NULL(air_failure_excerpt_line(f, 4, NULL));
	ASSERT_EQ_INT(air_failure_excerpt_omitted(f), 0);
	ASSERT_NULL(air_failure_excerpt_problem(f));
	ASSERT_EQ_STR(air_failure_alert_label(f), "CUDA out of memory");
	ASSERT_EQ_INT(air_failure_alert_pattern(f), 1);
	/* Node 1 only, as a tail of the latest attempt (ascending=false). */
	ASSERT_EQ_STR(nodes_read(300), "1");
	{
		json_t *req = fakews_last_request(fw, "GET", LOGS(300));
		ASSERT_EQ_STR(fixture_query(req, "ascending"), "false");
		ASSERT_EQ_STR(fixture_query(req, "page_size"), "5000");
		ASSERT_EQ_STR(fixture_query(req, "ref.attempt_number"), "2");
		json_decref(req);
	}
	air_failure_free(f);
	air_failure_free(NULL);
}

/* Without a node named: the first node whose log has a traceback; the
 * search stops there. */
AIR_TEST(failure__without_a_node_named_the_first_traceback_is_found)
{
	air_failure *f;

	finished_run(310, 4, "FAILED", "Workload failed", 0);
	add_lines(310, 0, 0, (const char *const[]){"waiting for peers", "peer lost"}, 2);
	add_lines(310, 1, 0, (const char *const[]){"NCCL WARN Net : Connection closed by peer"}, 1);
	add_lines(310, 2, 0, traceback, 6);
	add_lines(310, 3, 0, traceback, 6);
	fakews_clear_requests(fw);
	f = get_failure(310, NULL);
	ASSERT_EQ_INT(air_failure_node(f), 2);
	ASSERT_EQ_INT(air_failure_node_source(f), AIR_NODE_SOURCE_SEARCHED);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_STR(nodes_read(310), "0 1 2");
	air_failure_free(f);
	/* The nodes searched are bounded: with 2, node 1's alert line. */
	{
		air_failure_options *o = NULL;
		ASSERT_EQ_INT(air_failure_options_new(&o), AIR_OK);
		ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_SCAN_NODES, 2), AIR_OK);
		fakews_clear_requests(fw);
		f = get_failure(310, o);
		ASSERT_EQ_INT(air_failure_node(f), 1);
		ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_ALERT);
		ASSERT_EQ_STR(air_failure_alert_label(f), "NCCL network warning");
		ASSERT_EQ_STR(nodes_read(310), "0 1");
		air_failure_free(f);
		/* Asked for: that node, nothing else. */
		ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_NODE, 3), AIR_OK);
		fakews_clear_requests(fw);
		f = get_failure(310, o);
		ASSERT_EQ_INT(air_failure_node(f), 3);
		ASSERT_EQ_INT(air_failure_node_source(f), AIR_NODE_SOURCE_OPTION);
		ASSERT_EQ_STR(nodes_read(310), "3");
		air_failure_free(f);
		air_failure_options_free(o);
	}
	/* Nothing anywhere: node 0's last lines. */
	finished_run(311, 2, "TIMEDOUT", "", 0);
	add_lines(311, 0, 0, (const char *const[]){"epoch 1", "epoch 2"}, 2);
	f = get_failure(311, NULL);
	ASSERT_EQ_INT(air_failure_node(f), 0);
	ASSERT_EQ_INT(air_failure_node_source(f), AIR_NODE_SOURCE_DEFAULT);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TAIL);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 1, NULL), "epoch 2");
	ASSERT_NULL(air_failure_message(f));
	air_failure_free(f);
}

/* A run that advanced by itself (lifecycle) carries the termination details
 * fakews serves, as a workspace does. */
AIR_TEST(failure__termination_details_of_a_submitted_run)
{
	air_failure *f;
	int64_t id;

	/* Running for 1 ms from its creation: a run of no length that ends on a
	 * whole second has an empty log window (the end rounded up is the
	 * start), and lines stamped "now" may fall after its end. */
	fakews_configf(fw, "{\"lifecycle\":{\"result\":\"FAILED\",\"state_message\":\"Task "
	                   "failed with exit code 2\"}}");
	id = fakews_create_runf(fw, "{\"lifecycle\":{\"running_ms\":1},\"tasks\":[{\"ai_runtime_task\":{"
	                            "\"experiment\":\"x\",\"deployments\":[{\"compute\":{"
	                            "\"accelerator_type\":\"GPU_1xH100\",\"accelerator_count\":1}}]}}]}");
	{
		char path[64];
		json_t *info;
		int64_t t0;
		snprintf(path, sizeof(path), "/__fakews/runs/%lld", (long long)id);
		info = fakews_call(fw, "GET", path, NULL);
		t0 = json_integer_value(json_object_get(json_object_get(info, "lifecycle"), "t0"));
		json_decref(info);
		ASSERT_TRUE(t0 > 0);
		/* Within its millisecond of running; then wait until it ended. */
		add_lines_at(id, 0, 0, t0 * 1000000, (const char *const[]){
		             "s 0", "ERROR: Script failed with exit code 2 after 3s"}, 2);
		for (;;) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			if ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 > t0 + 1)
				break;
			usleep(1000);
		}
	}
	f = get_failure(id, NULL);
	ASSERT_EQ_STR(air_failure_state_message(f), "Task failed with exit code 2");
	ASSERT_EQ_STR(air_failure_termination_message(f), "Task failed with exit code 2");
	ASSERT_EQ_STR(air_failure_termination_code(f), "RUN_EXECUTION_ERROR");
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_ALERT);
	ASSERT_EQ_STR(air_failure_alert_label(f), "Script failed");
	ASSERT_EQ_INT(air_failure_attempts_allowed(f), 1);
	air_failure_free(f);
}

/* A log read as a tail: a traceback at the end of a long log is found, one
 * at its start (beyond the lines read) is not; a few pages of the newest
 * records are read, never the whole log. */
AIR_TEST(failure__a_long_log_is_read_as_a_tail)
{
	air_failure_options *o = NULL;
	air_failure *f;
	json_t *reqs, *r;
	size_t i;

	finished_run(320, 1, "FAILED", "", 0);
	/* 200 000 lines, then the traceback. */
	fixture_post("/__fakews/runs/320/logs",
	             "{\"synthetic\":{\"count\":200000,\"start_ns\":%lld,\"step_ns\":1000,"
	             "\"text\":\"step {i}\"}}", T0);
	{
		const char *tb[] = {"Traceback (most recent call last):", "  File \"t.py\", line 1",
		                    "ValueError: the end"};
		char path[64];
		json_t *body = json_pack("{s:[{s:I,s:s},{s:I,s:s},{s:I,s:s}]}", "records",
		                         "time_unix_nano", (json_int_t)(T0 + 300000000), "body", tb[0],
		                         "time_unix_nano", (json_int_t)(T0 + 300000001), "body", tb[1],
		                         "time_unix_nano", (json_int_t)(T0 + 300000002), "body", tb[2]);
		char *text = json_dumps(body, 0);
		snprintf(path, sizeof(path), "/__fakews/runs/320/logs");
		json_decref(fakews_call(fw, "POST", path, text));
		free(text);
		json_decref(body);
	}
	fakews_clear_requests(fw);
	f = get_failure(320, NULL);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 2, NULL), "ValueError: the end");
	air_failure_free(f);
	reqs = fixture_requests("GET", LOGS(320));
	ASSERT_EQ_INT(json_array_size(reqs), 1);
	json_array_foreach(reqs, i, r) {
		ASSERT_EQ_STR(fixture_query(r, "ascending"), "false");
		ASSERT_EQ_STR(fixture_query(r, "page_size"), "5000");
	}
	json_decref(reqs);

	/* The traceback first, then 200 000 lines: the last 1000 lines read
	 * hold no traceback, and say so by being a tail. */
	finished_run(321, 1, "FAILED", "", 0);
	add_lines(321, 0, 0, traceback, 6);
	fixture_post("/__fakews/runs/321/logs",
	             "{\"synthetic\":{\"count\":200000,\"start_ns\":%lld,\"step_ns\":1000,"
	             "\"text\":\"step {i}\"}}", T0 + 1000000);
	ASSERT_EQ_INT(air_failure_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_SCAN_LINES, 1000), AIR_OK);
	fakews_clear_requests(fw);
	f = get_failure(321, o);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TAIL);
	ASSERT_EQ_INT(air_failure_excerpt_count(f), 20);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 19, NULL), "step 199999");
	reqs = fixture_requests("GET", LOGS(321));
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "page_size"), "1000");
	json_decref(reqs);
	air_failure_free(f);
	air_failure_options_free(o);
}

/* Through the MLflow fallback when the log endpoint is disabled. */
AIR_TEST(failure__from_the_mlflow_log_artifacts)
{
	air_failure *f;

	finished_run(330, 1, "FAILED", "node 0 failed", 0);
	fakews_configf(fw, "{\"features\":{\"logs\":false}}");
	fixture_post("/__fakews/runs/330/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"e1\",\"mlflow_run_id\":\"r1\"}}");
	fixture_post("/__fakews/mlflow", "%s",
	             "{\"runs\":{\"r1\":{\"artifacts\":{\"logs/attempt_0/node_0/logs-0.chunk.txt\":"
	             "\"start\\nTraceback (most recent call last):\\n  File \\\"a.py\\\", line 1\\n"
	             "KeyError: 'lr'\\n\"}}}}");
	f = get_failure(330, NULL);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 2, NULL), "KeyError: 'lr'");
	air_failure_free(f);
}

/* A log that cannot be read: the report still has what the platform says,
 * no excerpt, and why. */
AIR_TEST(failure__a_log_that_cannot_be_read_leaves_the_message)
{
	air_failure *f;

	finished_run(340, 1, "FAILED", "node 0 exited with status 3", 0);
	fakews_faultf(fw, "{\"path\":\"" LOGS(340) "\",\"times\":-1,\"status\":404,\"body\":"
	                  "{\"error_code\":\"ENDPOINT_NOT_FOUND\",\"message\":\"no\"}}");
	fixture_post("/__fakews/runs/340/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"e1\",\"mlflow_run_id\":\"r1\"}}");
	fixture_post("/__fakews/mlflow", "%s", "{\"runs\":{\"r1\":{}}}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/mlflow/artifacts/list\",\"times\":-1,\"status\":403,"
	                  "\"body\":{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"no read\"}}");
	f = get_failure(340, NULL);
	ASSERT_EQ_STR(air_failure_message(f), "node 0 exited with status 3");
	ASSERT_EQ_INT(air_failure_node(f), 0);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_NONE);
	ASSERT_EQ_INT(air_failure_excerpt_count(f), 0);
	ASSERT_CONTAINS(air_failure_excerpt_problem(f), "the log of node 0 could not be read");
	ASSERT_CONTAINS(air_failure_excerpt_problem(f), "no read");
	ASSERT_NULL(air_failure_alert_label(f));
	air_failure_free(f);
	/* No log anywhere: the "no logs" message says so. */
	fakews_clear_faults(fw);
	finished_run(341, 1, "FAILED", "boom", 0);
	fixture_post("/__fakews/runs/341/output", "%s", "{}");
	f = get_failure(341, NULL);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_NONE);
	ASSERT_CONTAINS(air_failure_excerpt_problem(f), "No logs found for run 341");
	air_failure_free(f);
	/* A run that never started has no log to read. */
	fakews_create_runf(fw, "{\"run_id\":342,\"state\":{\"life_cycle_state\":\"TERMINATED\","
	                       "\"result_state\":\"CANCELED\",\"state_message\":\"Run cancelled.\"},"
	                       "\"tasks\":[{\"ai_runtime_task\":{}}]}");
	fakews_clear_requests(fw);
	f = get_failure(342, NULL);
	ASSERT_EQ_INT(air_failure_state(f), AIR_STATE_CANCELED);
	ASSERT_EQ_INT(air_failure_node(f), -1);
	ASSERT_EQ_INT(air_failure_node_source(f), AIR_NODE_SOURCE_NONE);
	ASSERT_CONTAINS(air_failure_excerpt_problem(f), "never started");
	ASSERT_EQ_INT(fakews_count(fw, "GET", LOGS(342)), 0);
	air_failure_free(f);
}

/* The summary is the report's first line, as air prints it: the place
 * (attempt of attempts, node), then the message without a last "(attempt N)"
 * that names the same attempt (a local run's message ends so). */
AIR_TEST(failure__the_summary_names_the_attempt_once)
{
	static const struct {
		const char *message, *summary;
	} cases[] = {
		{"node 0 exited with status 1 (attempt 3)",
		 "Run 360 FAILED (attempt 3 of 3, node 0): node 0 exited with status 1"},
		{"node 0 exited with status 1 (attempt 2)",
		 "Run 362 FAILED (attempt 3 of 3, node 0): node 0 exited with status 1 (attempt 2)"},
		{" (attempt 3)", "Run 364 FAILED (attempt 3 of 3, node 0):  (attempt 3)"},
		{"", "Run 366 FAILED (attempt 3 of 3, node 0)"},
	};
	air_failure *f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t id = 360 + 2 * (int64_t)i;
		char path[64];

		finished_run(id, 1, "FAILED", cases[i].message, 2);
		snprintf(path, sizeof(path), "/__fakews/runs/%lld/output", (long long)id);
		fixture_post(path, "%s", "{}");
		f = get_failure(id, NULL);
		ASSERT_EQ_STR(air_failure_summary(f), cases[i].summary);
		air_failure_free(f);
	}
	/* Unlimited retries: no "of"; a run that never started: no node. */
	fakews_create_runf(fw, "{\"run_id\":369,\"state\":{\"life_cycle_state\":\"TERMINATED\","
	                       "\"result_state\":\"CANCELED\",\"state_message\":\"Run cancelled.\"},"
	                       "\"tasks\":[{\"max_retries\":-1,\"ai_runtime_task\":{}}]}");
	f = get_failure(369, NULL);
	ASSERT_EQ_STR(air_failure_summary(f), "Run 369 CANCELED (attempt 1): Run cancelled.");
	air_failure_free(f);
	ASSERT_NULL(air_failure_summary(NULL));
}

/* A run that succeeded or is still going has no failure: AIR_OK, NULL,
 * after runs/get alone. */
AIR_TEST(failure__runs_that_did_not_fail_have_none)
{
	air_failure *f = (air_failure *)1;
	air_error *err = NULL;

	fixture_std_run(350, "SUCCESS");
	fakews_create_runf(fw, "{\"run_id\":351,\"start_time\":1700000000000,\"state\":{"
	                       "\"life_cycle_state\":\"RUNNING\"},\"tasks\":[{\"ai_runtime_task\":{}}]}");
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_get_failure(client, 350, NULL, &f, &err), err);
	ASSERT_NULL(f);
	f = (air_failure *)1;
	ASSERT_OK(air_client_get_failure(client, 351, NULL, &f, &err), err);
	ASSERT_NULL(f);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 2);
	{
		json_t *all = fakews_requests(fw);
		ASSERT_EQ_INT(json_array_size(all), 2);
		json_decref(all);
	}
	ASSERT_EQ_INT(air_client_get_failure(client, 999, NULL, &f, &err), AIR_ENOTFOUND);
	air_error_free(err);
}

AIR_TEST(failure__bad_arguments)
{
	air_failure_options *o = NULL;
	air_failure *f = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_client_get_failure(client, 0, NULL, &f, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_client_get_failure(NULL, 1, NULL, &f, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_get_failure(client, 1, NULL, NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_failure_options_new(NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_failure_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_EXCERPT_LINES, 1), AIR_EINVAL);
	ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_EXCERPT_LINES, 1001), AIR_EINVAL);
	ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_SCAN_LINES, 0), AIR_EINVAL);
	ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_SCAN_NODES, 257), AIR_EINVAL);
	ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_NODE, -2), AIR_EINVAL);
	ASSERT_EQ_INT(air_failure_options_set_int(o, 7, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_failure_options_set_int(NULL, AIR_FAILURE_NODE, 1), AIR_EINVAL);
	ASSERT_EQ_INT(air_failure_options_set_deadline_ms(o, -1), AIR_EINVAL);
	/* An attempt the run does not have names the valid ones. */
	finished_run(360, 1, "FAILED", "", 1);
	ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_ATTEMPT, 2), AIR_OK);
	ASSERT_EQ_INT(air_client_get_failure(client, 360, o, &f, &err), AIR_EINVAL);
	ASSERT_NULL(f);
	ASSERT_EQ_STR(air_error_field(err), "attempt");
	ASSERT_CONTAINS(air_error_message(err), "0..1");
	air_error_free(err);
	err = NULL;
	/* An earlier attempt may be asked for. */
	add_lines(360, 0, 0, (const char *const[]){"first try"}, 1);
	ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_ATTEMPT, 0), AIR_OK);
	f = get_failure(360, o);
	ASSERT_EQ_INT(air_failure_attempt(f), 0);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 0, NULL), "first try");
	air_failure_free(f);
	air_failure_options_free(o);
	/* NULL reports read as empty. */
	ASSERT_EQ_INT(air_failure_excerpt_count(NULL), 0);
	ASSERT_NULL(air_failure_excerpt_line(NULL, 0, NULL));
	ASSERT_EQ_STR(air_failure_state_name(NULL), "UNKNOWN");
	ASSERT_EQ_INT(air_failure_node(NULL), -1);
	ASSERT_NULL(air_log_alert_label(0));
	ASSERT_NULL(air_log_alert_label(22));
	ASSERT_EQ_STR(air_log_alert_label(21), "Command not found");
}
