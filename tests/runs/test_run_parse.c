/* test_run_parse.c: runs/get object → air_run derivation
 * (docs/runs-and-logs.md#reading-a-run). */
#include <stdlib.h>

#include "runs/runs.h"
#include "test.h"

static air_run *parse(const char *text)
{
	json_error_t je;
	json_t *obj = json_loads(text, 0, &je);
	air_run *run = NULL;
	air_error *err = NULL;

	if (!obj)
		FAIL("bad test JSON: %s", je.text);
	ASSERT_OK(air__run_from_json(obj, &run, &err), err);
	return run;
}

static air_run *with_state(const char *lcs, const char *rs)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"run_id\":1,\"state\":{%s%s%s%s%s%s%s}}",
	         lcs ? "\"life_cycle_state\":\"" : "", lcs ? lcs : "", lcs ? "\"" : "",
	         lcs && rs ? "," : "", rs ? "\"result_state\":\"" : "", rs ? rs : "", rs ? "\"" : "");
	return parse(buf);
}

AIR_TEST(run__display_state_every_combination)
{
	static const char *const cycles[] = {NULL, "QUEUED", "PENDING", "RUNNING", "TERMINATING",
	                                     "TERMINATED", "SKIPPED", "INTERNAL_ERROR", "BLOCKED",
	                                     "WAITING_FOR_RETRY"};
	static const char *const results[] = {NULL, "SUCCESS", "FAILED", "TIMEDOUT", "CANCELED",
	                                      "MAXIMUM_CONCURRENT_RUNS_REACHED", "EXCLUDED",
	                                      "SUCCESS_WITH_FAILURES", "UPSTREAM_FAILED",
	                                      "UPSTREAM_CANCELED", "DISABLED"};

	for (size_t i = 0; i < sizeof(cycles) / sizeof(cycles[0]); i++) {
		for (size_t j = 0; j < sizeof(results) / sizeof(results[0]); j++) {
			const char *lcs = cycles[i], *rs = results[j];
			air_run *r = with_state(lcs, rs);
			const char *want = rs ? rs : lcs ? lcs : "UNKNOWN";
			bool terminal = (lcs && (!strcmp(lcs, "TERMINATED") || !strcmp(lcs, "SKIPPED") ||
			                         !strcmp(lcs, "INTERNAL_ERROR"))) ||
			                (rs && (!strcmp(rs, "SUCCESS") || !strcmp(rs, "FAILED") ||
			                        !strcmp(rs, "CANCELED")));

			ASSERT_EQ_STR(air_run_state_name(r), want);
			ASSERT_EQ_INT(air_run_is_terminal(r), terminal);
			ASSERT_EQ_INT(air_run_succeeded(r), rs && !strcmp(rs, "SUCCESS"));
			if (lcs)
				ASSERT_EQ_STR(air_run_life_cycle_state(r), lcs);
			else
				ASSERT_NULL(air_run_life_cycle_state(r));
			if (rs)
				ASSERT_EQ_STR(air_run_result_state(r), rs);
			else
				ASSERT_NULL(air_run_result_state(r));
			air_run_free(r);
		}
	}
}

AIR_TEST(run__no_state_is_unknown_and_empty_strings_count_as_absent)
{
	air_run *r = parse("{\"run_id\":\"7\"}");

	ASSERT_EQ_STR(air_run_state_name(r), "UNKNOWN");
	ASSERT_FALSE(air_run_is_terminal(r));
	ASSERT_EQ_INT(air_run_id(r), 7);
	air_run_free(r);
	r = parse("{\"run_id\":7,\"state\":{\"life_cycle_state\":\"RUNNING\",\"result_state\":\"\"}}");
	ASSERT_EQ_STR(air_run_state_name(r), "RUNNING");
	ASSERT_NULL(air_run_result_state(r));
	air_run_free(r);
}

AIR_TEST(run__rejects_non_objects_and_missing_ids)
{
	air_run *run = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air__run_from_json(json_array(), &run, &err), AIR_EPROTO);
	ASSERT_NULL(run);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air__run_from_json(json_loads("{\"run_id\":0}", 0, NULL), &run, &err),
	              AIR_EPROTO);
	ASSERT_CONTAINS(air_error_message(err), "run_id");
	air_error_free(err);
	ASSERT_EQ_INT(air__run_from_json(json_loads("{\"run_id\":1.5}", 0, NULL), &run, NULL),
	              AIR_EPROTO);
}

/* The standard terminal run (fixture.h) with 64-bit ids. */
static const char *std_run =
	"{\"run_id\":334747067049496,\"run_name\":\"smoke-test\","
	"\"creator_user_name\":\"tester@databricks.com\",\"start_time\":1700000000000,"
	"\"end_time\":1700000012000,\"state\":{\"life_cycle_state\":\"TERMINATED\","
	"\"result_state\":\"SUCCESS\",\"state_message\":\"\"},"
	"\"tasks\":[{\"run_id\":\"334747067049497\",\"attempt_number\":0,\"max_retries\":3,"
	"\"ai_runtime_task\":{\"experiment\":\"/Users/tester@databricks.com/smoke-test\","
	"\"code_source_path\":\"/Workspace/x/code.tar.gz\",\"deployments\":[{\"command_path\":"
	"\"/Workspace/Users/t/.air/cli_launch/smoke-test/x/command.sh\",\"compute\":"
	"{\"accelerator_type\":\"GPU_8xH100\",\"accelerator_count\":\"16\"}}]}}],"
	"\"environments\":[{\"environment_key\":\"other\",\"spec\":{\"environment_version\":\"4\"}},"
	"{\"environment_key\":\"default\",\"spec\":{\"environment_version\":\"6\"}}]}";

AIR_TEST(run__fields_of_an_ai_runtime_run)
{
	air_run *r = parse(std_run);

	ASSERT_EQ_INT(air_run_id(r), 334747067049496LL);
	ASSERT_EQ_STR(air_run_name(r), "smoke-test");
	ASSERT_EQ_STR(air_run_creator(r), "tester@databricks.com");
	ASSERT_NULL(air_run_state_message(r));
	ASSERT_EQ_INT(air_run_task_run_id(r), 334747067049497LL);
	ASSERT_EQ_INT(air_run_attempt_number(r), 0);
	ASSERT_EQ_INT(air_run_max_retries(r), 3);
	ASSERT_EQ_STR(air_run_experiment_name(r), "smoke-test");
	ASSERT_EQ_STR(air_run_accelerator_type(r), "GPU_8xH100");
	ASSERT_EQ_INT(air_run_accelerator_count(r), 16);
	ASSERT_EQ_STR(air_run_accelerators(r), "16x H100");
	ASSERT_EQ_STR(air_run_command_path(r),
	              "/Workspace/Users/t/.air/cli_launch/smoke-test/x/command.sh");
	ASSERT_EQ_STR(air_run_code_source_path(r), "/Workspace/x/code.tar.gz");
	ASSERT_EQ_STR(air_run_environment_version(r), "6");
	ASSERT_TRUE(air_run_is_ai_runtime(r));
	ASSERT_FALSE(air_run_is_sweep(r));
	ASSERT_EQ_INT(air_run_start_time_ms(r), 1700000000000LL);
	ASSERT_EQ_INT(air_run_end_time_ms(r), 1700000012000LL);
	ASSERT_NULL(air_run_dashboard_url(r));
	ASSERT_NULL(air_run_mlflow_run_url(r));
	air_run_free(r);
}

AIR_TEST(run__reported_times_prefer_the_last_task)
{
	air_run *r = parse("{\"run_id\":1,\"start_time\":1000,\"end_time\":9000,\"tasks\":["
	                   "{\"run_id\":2,\"attempt_number\":0,\"start_time\":1500,\"end_time\":3000},"
	                   "{\"run_id\":3,\"attempt_number\":2,\"start_time\":4000,\"end_time\":0,"
	                   "\"max_retries\":-1},"
	                   "{\"run_id\":4,\"attempt_number\":1,\"start_time\":0,\"end_time\":8000}]}");

	ASSERT_EQ_INT(air_run_start_time_ms(r), 1000);  /* last task's start is 0 */
	ASSERT_EQ_INT(air_run_end_time_ms(r), 8000);
	ASSERT_EQ_INT(air_run_task_run_id(r), 4);
	ASSERT_EQ_INT(air_run_attempt_number(r), 1);
	ASSERT_EQ_INT(air_run_latest_attempt(r), 2);
	ASSERT_EQ_INT(air_run_max_retries(r), 0);
	air_run_free(r);
	r = parse("{\"run_id\":1,\"start_time\":1000,\"end_time\":0,\"tasks\":["
	          "{\"run_id\":2,\"start_time\":1200,\"max_retries\":-1}]}");
	ASSERT_EQ_INT(air_run_start_time_ms(r), 1200);
	ASSERT_EQ_INT(air_run_end_time_ms(r), 0);
	ASSERT_EQ_INT(air_run_max_retries(r), -1);
	air_run_free(r);
	r = parse("{\"run_id\":1}");
	ASSERT_EQ_INT(air_run_start_time_ms(r), 0);
	ASSERT_EQ_INT(air_run_task_run_id(r), 0);
	ASSERT_EQ_INT(air_run_attempt_number(r), 0);
	ASSERT_NULL(air_run_experiment_name(r));
	ASSERT_NULL(air_run_accelerators(r));
	ASSERT_FALSE(air_run_is_ai_runtime(r));
	air_run_free(r);
}

AIR_TEST(run__legacy_gen_ai_compute_task)
{
	air_run *r = parse("{\"run_id\":1,\"tasks\":[{\"run_id\":2,\"gen_ai_compute_task\":{"
	                   "\"mlflow_experiment_name\":\"/Users/a@b.c/legacy-exp\","
	                   "\"training_script_path\":\"/x/train.py\","
	                   "\"compute\":{\"gpu_type\":\"h100_80gb\",\"num_gpus\":8}}}]}");

	ASSERT_TRUE(air_run_is_ai_runtime(r));
	ASSERT_EQ_STR(air_run_experiment_name(r), "legacy-exp");
	ASSERT_EQ_STR(air_run_accelerator_type(r), "h100_80gb");
	ASSERT_EQ_INT(air_run_accelerator_count(r), 8);
	ASSERT_EQ_STR(air_run_accelerators(r), "8x H100");
	ASSERT_NULL(air_run_command_path(r));
	air_run_free(r);
	/* Without a training script the legacy task is not an AI Runtime run. */
	r = parse("{\"run_id\":1,\"tasks\":[{\"gen_ai_compute_task\":{\"compute\":{}}}]}");
	ASSERT_FALSE(air_run_is_ai_runtime(r));
	air_run_free(r);
	r = parse("{\"run_id\":1,\"tasks\":[{\"notebook_task\":{}}]}");
	ASSERT_FALSE(air_run_is_ai_runtime(r));
	air_run_free(r);
}

AIR_TEST(run__experiment_prefix_stripping)
{
	ASSERT_EQ_STR(air__strip_user_prefix("/Users/tester@databricks.com/qwen-train"),
	              "qwen-train");
	ASSERT_EQ_STR(air__strip_user_prefix("/Users/x/a/b"), "a/b");
	ASSERT_EQ_STR(air__strip_user_prefix("plain"), "plain");
	ASSERT_EQ_STR(air__strip_user_prefix("/Users//x"), "/Users//x");
	ASSERT_EQ_STR(air__strip_user_prefix("/Users/nobody"), "/Users/nobody");
	ASSERT_EQ_STR(air__strip_user_prefix("/Workspace/Users/a/b"), "/Workspace/Users/a/b");
	ASSERT_NULL(air__strip_user_prefix(NULL));
}

AIR_TEST(run__accelerator_labels)
{
	ASSERT_EQ_STR(air__accelerator_display("GPU_1xA10"), "A10");
	ASSERT_EQ_STR(air__accelerator_display("a10"), "A10");
	ASSERT_EQ_STR(air__accelerator_display("GPU_1xH100"), "H100");
	ASSERT_EQ_STR(air__accelerator_display("GPU_8xH100"), "H100");
	ASSERT_EQ_STR(air__accelerator_display("h100_80gb"), "H100");
	ASSERT_EQ_STR(air__accelerator_display("TPU_v9"), "TPU_v9");
	ASSERT_EQ_INT(air_accelerator_gpus_per_node("GPU_8xH100"), 8);
	ASSERT_EQ_INT(air_accelerator_gpus_per_node("GPU_1xA10"), 1);
	ASSERT_EQ_INT(air_accelerator_gpus_per_node("GPU_1xH100"), 1);
	ASSERT_EQ_INT(air_accelerator_gpus_per_node("h100_80gb"), 0);
	ASSERT_EQ_STR(air_accelerator_display_name("h100_80gb"), "H100");
	{
		air_run *r = parse("{\"run_id\":1,\"tasks\":[{\"ai_runtime_task\":{\"deployments\":"
		                   "[{\"compute\":{\"accelerator_type\":\"TPU_v9\","
		                   "\"accelerator_count\":2}}]}}]}");
		ASSERT_EQ_STR(air_run_accelerators(r), "2x TPU_v9");
		air_run_free(r);
		r = parse("{\"run_id\":1,\"tasks\":[{\"ai_runtime_task\":{\"deployments\":"
		          "[{\"compute\":{\"accelerator_type\":\"GPU_1xA10\",\"accelerator_count\":0}}]}}]}");
		ASSERT_NULL(air_run_accelerators(r));
		air_run_free(r);
	}
}

static const char *sweep_run =
	"{\"run_id\":10,\"state\":{\"life_cycle_state\":\"RUNNING\"},\"tasks\":[{\"run_id\":11,"
	"\"for_each_task\":{\"task\":{\"ai_runtime_task\":{\"experiment\":\"sweep-exp\","
	"\"deployments\":[{\"compute\":{\"accelerator_type\":\"GPU_1xA10\",\"accelerator_count\":1}}]}},"
	"\"stats\":{\"task_run_stats\":{\"total_iterations\":4,\"completed_iterations\":\"3\","
	"\"succeeded_iterations\":2,\"failed_iterations\":1,\"active_iterations\":1}}}}]}";

AIR_TEST(run__sweep_stats_and_iterations)
{
	air_run *r = parse(sweep_run);

	ASSERT_TRUE(air_run_is_sweep(r));
	ASSERT_TRUE(air_run_is_ai_runtime(r));
	ASSERT_EQ_STR(air_run_experiment_name(r), "sweep-exp");
	ASSERT_EQ_STR(air_run_accelerators(r), "1x A10");
	ASSERT_EQ_INT(air_run_sweep_stat(r, AIR_SWEEP_TOTAL), 4);
	ASSERT_EQ_INT(air_run_sweep_stat(r, AIR_SWEEP_COMPLETED), 3);
	ASSERT_EQ_INT(air_run_sweep_stat(r, AIR_SWEEP_SUCCEEDED), 2);
	ASSERT_EQ_INT(air_run_sweep_stat(r, AIR_SWEEP_FAILED), 1);
	ASSERT_EQ_INT(air_run_sweep_stat(r, AIR_SWEEP_ACTIVE), 1);
	ASSERT_EQ_INT(air_run_sweep_stat(r, 5), 0);
	ASSERT_EQ_INT(air_run_sweep_stat(r, -1), 0);
	ASSERT_EQ_INT(air_run_iteration_count(r), 0);
	air__run_set_iterations(r, json_loads(
		"{\"run_id\":11,\"iterations\":[{\"task_key\":\"it-0\",\"run_id\":\"900000000000000001\","
		"\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"SUCCESS\"},"
		"\"gen_ai_compute_task\":{\"mlflow_experiment_name\":\"/Users/u@x/sweep-exp\"}},"
		"{\"task_key\":\"it-1\",\"run_id\":12,\"state\":{\"life_cycle_state\":\"RUNNING\"},"
		"\"ai_runtime_task\":{\"experiment\":\"e2\"}},{}]}",
		0, NULL));
	ASSERT_EQ_INT(air_run_iteration_count(r), 3);
	ASSERT_EQ_STR(air_run_iteration_task_key(r, 0), "it-0");
	ASSERT_EQ_INT(air_run_iteration_run_id(r, 0), 900000000000000001LL);
	ASSERT_EQ_STR(air_run_iteration_state_name(r, 0), "SUCCESS");
	ASSERT_EQ_STR(air_run_iteration_experiment(r, 0), "sweep-exp");
	ASSERT_EQ_STR(air_run_iteration_state_name(r, 1), "RUNNING");
	ASSERT_EQ_STR(air_run_iteration_experiment(r, 1), "e2");
	ASSERT_EQ_STR(air_run_iteration_state_name(r, 2), "UNKNOWN");
	ASSERT_NULL(air_run_iteration_task_key(r, 2));
	ASSERT_NULL(air_run_iteration_experiment(r, 2));
	ASSERT_NULL(air_run_iteration_task_key(r, 3));
	ASSERT_EQ_INT(air_run_iteration_run_id(r, 3), 0);
	air_run_free(r);
}

AIR_TEST(run__output_and_urls)
{
	air_run *r = parse(std_run);
	json_t *o = json_loads("{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"exp1\","
	                       "\"mlflow_run_id\":\"run1\",\"status_message\":\"STATUS:ok\"}}",
	                       0, NULL);

	ASSERT_EQ_INT(air__run_set_dashboard(r, "http://h:1", 0, false), AIR_OK);
	ASSERT_EQ_STR(air_run_dashboard_url(r), "http://h:1/jobs/runs/334747067049496");
	ASSERT_EQ_INT(air__run_set_dashboard(r, "http://h:1", 0, true), AIR_OK);
	ASSERT_EQ_STR(air_run_dashboard_url(r), "http://h:1/jobs/runs/334747067049496?o=0");
	ASSERT_EQ_INT(air__run_set_dashboard(r, "http://h:1", 900800700600500LL, false), AIR_OK);
	ASSERT_EQ_STR(air_run_dashboard_url(r),
	              "http://h:1/jobs/runs/334747067049496?o=900800700600500");
	ASSERT_EQ_INT(air__run_set_output(r, o, "http://h:1"), AIR_OK);
	ASSERT_EQ_STR(air_run_mlflow_experiment_id(r), "exp1");
	ASSERT_EQ_STR(air_run_mlflow_run_id(r), "run1");
	ASSERT_EQ_STR(air_run_status_message(r), "STATUS:ok");
	ASSERT_EQ_STR(air_run_mlflow_run_url(r), "http://h:1/ml/experiments/exp1/runs/run1");
	ASSERT_EQ_STR(air_run_mlflow_experiment_url(r), "http://h:1/ml/experiments/exp1");
	json_decref(o);
	air_run_free(r);
}

AIR_TEST(run__output_needs_both_ids)
{
	static const char *const partial[] = {
		"{}", "null", "{\"ai_runtime_task_output\":{\"mlflow_run_id\":\"run1\"}}",
		"{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"e\",\"mlflow_run_id\":\"\"}}",
		"{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":1,\"mlflow_run_id\":\"r\"}}",
	};

	for (size_t i = 0; i < sizeof(partial) / sizeof(partial[0]); i++) {
		air_run *r = parse(std_run);
		json_t *o = json_loads(partial[i], JSON_DECODE_ANY, NULL);
		ASSERT_EQ_INT(air__run_set_output(r, o, "h"), AIR_OK);
		ASSERT_NULL(air_run_mlflow_run_id(r));
		ASSERT_NULL(air_run_mlflow_run_url(r));
		json_decref(o);
		air_run_free(r);
	}
}

AIR_TEST(run__page_merge_appends_tasks_or_iterations)
{
	json_t *m = json_loads("{\"run_id\":1,\"tasks\":[{\"run_id\":2}]}", 0, NULL);
	json_t *p = json_loads("{\"run_id\":1,\"tasks\":[{\"run_id\":3},{\"run_id\":4}],"
	                       "\"iterations\":[{\"run_id\":9}]}",
	                       0, NULL);

	air__run_merge_page(m, p);
	ASSERT_EQ_INT(json_array_size(json_object_get(m, "tasks")), 3);
	ASSERT_NULL(json_object_get(m, "iterations"));
	json_decref(m);
	m = json_loads("{\"run_id\":1,\"iterations\":[{\"run_id\":5}],\"tasks\":[{\"run_id\":2}]}", 0,
	               NULL);
	air__run_merge_page(m, p);
	ASSERT_EQ_INT(json_array_size(json_object_get(m, "iterations")), 2);
	ASSERT_EQ_INT(json_array_size(json_object_get(m, "tasks")), 1);
	json_decref(m);
	m = json_loads("{\"run_id\":1}", 0, NULL);
	air__run_merge_page(m, p);
	ASSERT_EQ_INT(json_array_size(json_object_get(m, "tasks")), 2);
	json_decref(m);
	json_decref(p);
}

AIR_TEST(run__to_json_round_trips_exact_ids)
{
	air_run *r = parse(std_run);
	char *s = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_run_to_json(r, &s, &err), err);
	ASSERT_CONTAINS(s, "\"run_id\":334747067049496");
	ASSERT_CONTAINS(s, "\"environment_version\":\"6\"");
	air_free(s);
	ASSERT_EQ_INT(air_run_to_json(NULL, &s, &err), AIR_EINVAL);
	ASSERT_NULL(s);
	air_error_free(err);
	ASSERT_EQ_INT(air_run_to_json(r, NULL, NULL), AIR_EINVAL);
	air_run_free(r);
}

AIR_TEST(run__getters_accept_null)
{
	air_run_free(NULL);
	ASSERT_EQ_INT(air_run_id(NULL), 0);
	ASSERT_NULL(air_run_name(NULL));
	ASSERT_EQ_STR(air_run_state_name(NULL), "UNKNOWN");
	ASSERT_EQ_INT(air_run_is_terminal(NULL), 0);
	ASSERT_EQ_INT(air_run_iteration_count(NULL), 0);
	ASSERT_NULL(air_run_config_yaml(NULL, NULL));
	{
		size_t n = 99;
		ASSERT_NULL(air_run_config_yaml(NULL, &n));
		ASSERT_EQ_INT(n, 0);
	}
}
