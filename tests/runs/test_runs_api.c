/* test_runs_api.c: get, list, cancel and pools against the fake workspace
 * (docs/runs-and-logs.md: reading, listing, cancelling, pools). */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "test.h"

AIR_TEST_HOOKS(fixture_setup, fixture_teardown)

#define LAUNCH "/Workspace/Users/tester@databricks.com/.air/cli_launch/smoke-test/smoke-test_0123456789abcdef"

static void expect_paths(const char *const *want, size_t n)
{
	json_t *reqs = fakews_requests(fw);

	if (json_array_size(reqs) != n)
		FAIL("expected %zu requests, got %zu", n, json_array_size(reqs));
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(reqs, i), "path")), want[i]);
	json_decref(reqs);
}

/* ---- get ---------------------------------------------------------------------- */

AIR_TEST(get__happy_path_s34)
{
	air_run *run = NULL;
	air_error *err = NULL;
	size_t len = 0;
	static const char *const calls[] = {
		"/api/2.2/jobs/runs/get", "/api/2.0/preview/scim/v2/Me", "/api/2.2/jobs/runs/get-output",
		"/api/2.0/mlflow/runs/get", "/api/2.0/workspace/export"};

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123", "{\"environments\":[{\"environment_key\":"
	                                               "\"default\",\"spec\":{\"environment_version\":\"6\"}}]}");
	fixture_post("/__fakews/runs/123/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"exp1\",\"mlflow_run_id\":\"run1\"}}");
	fixture_post("/__fakews/mlflow", "{\"runs\":{\"run1\":{\"experiment_id\":\"exp1\","
	                                             "\"run_name\":\"my-run\"}}}");
	fixture_post("/__fakews/file?path=" LAUNCH "/training_config.yaml", "%s",
	             "experiment_name: smoke-test\n");
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_get_run(client, 123,
	                             GET(AIR_GET_WORKSPACE_ID, AIR_GET_MLFLOW, AIR_GET_SWEEP,
	                                 AIR_GET_MLFLOW_NAME, AIR_GET_CONFIG),
	                             &run, &err),
	          err);
	expect_paths(calls, 5);
	ASSERT_EQ_STR(air_run_state_name(run), "SUCCESS");
	ASSERT_EQ_INT(air_run_start_time_ms(run), 1700000000000LL);
	ASSERT_EQ_STR(air_run_experiment_name(run), "smoke-test");
	ASSERT_EQ_STR(air_run_accelerators(run), "1x H100");
	ASSERT_EQ_STR(air_run_environment_version(run), "6");
	ASSERT_EQ_STR(air_run_mlflow_run_name(run), "my-run");
	ASSERT_EQ_STR(air_run_mlflow_run_id(run), "run1");
	ASSERT_TRUE(ends_with(air_run_dashboard_url(run), "/jobs/runs/123?o=900800700600500"));
	ASSERT_TRUE(ends_with(air_run_mlflow_run_url(run), "/ml/experiments/exp1/runs/run1"));
	ASSERT_EQ_STR(air_run_config_yaml(run, &len), "experiment_name: smoke-test\n");
	ASSERT_EQ_INT(len, 28);
	{
		json_t *reqs = fixture_requests("GET", "/api/2.2/jobs/runs/get-output");
		ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "run_id"), "124");
		json_decref(reqs);
		reqs = fixture_requests("GET", "/api/2.0/workspace/export");
		ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "path"),
		              LAUNCH "/training_config.yaml");
		ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "direct_download"), "true");
		json_decref(reqs);
	}
	air_run_free(run);
}

AIR_TEST(get__without_flags_reads_only_the_run)
{
	air_run *run = NULL;
	air_error *err = NULL;
	static const char *const calls[] = {"/api/2.2/jobs/runs/get"};

	fixture_std_run(123, "FAILED");
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_get_run(client, 123, NULL, &run, &err), err);
	expect_paths(calls, 1);
	ASSERT_EQ_STR(air_run_state_name(run), "FAILED");
	ASSERT_NULL(air_run_mlflow_run_id(run));
	ASSERT_NULL(air_run_config_yaml(run, NULL));
	ASSERT_NOT_NULL(air_run_dashboard_url(run));
	air_run_free(run);
}

AIR_TEST(get__mlflow_unresolved)
{
	air_run *run = NULL;
	air_error *err = NULL;

	fixture_std_run(123, "SUCCESS");
	fixture_post("/__fakews/runs/123/output", "{}");
	ASSERT_OK(air_client_get_run(client, 123, GET(AIR_GET_MLFLOW, AIR_GET_MLFLOW_NAME), &run, &err),
	          err);
	ASSERT_NULL(air_run_mlflow_run_url(run));
	ASSERT_NULL(air_run_mlflow_run_name(run));
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/mlflow/runs/get"), 0);
	air_run_free(run);
}

AIR_TEST(get__pages_of_tasks_are_merged)
{
	air_run *run = NULL;
	air_error *err = NULL;

	fakews_configf(fw, "{\"get_page_size\":2}");
	fakews_create_runf(fw, "{\"run_id\":900000000000000001,\"state\":{\"life_cycle_state\":"
	                       "\"RUNNING\"},\"tasks\":[{\"run_id\":11,\"attempt_number\":0},"
	                       "{\"run_id\":12,\"attempt_number\":1},{\"run_id\":13,\"attempt_number\":2},"
	                       "{\"run_id\":14,\"attempt_number\":3},{\"run_id\":15,\"attempt_number\":4,"
	                       "\"ai_runtime_task\":{\"experiment\":\"e\"}}]}");
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_get_run(client, 900000000000000001LL, NULL, &run, &err), err);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 3);
	ASSERT_EQ_INT(air_run_id(run), 900000000000000001LL);
	ASSERT_EQ_INT(air_run_latest_attempt(run), 4);
	ASSERT_EQ_INT(air_run_task_run_id(run), 15);
	ASSERT_EQ_STR(air_run_experiment_name(run), "e");
	{
		char *s = NULL;
		json_t *obj;
		ASSERT_OK(air_run_to_json(run, &s, NULL), NULL);
		obj = json_loads(s, 0, NULL);
		ASSERT_EQ_INT(json_array_size(json_object_get(obj, "tasks")), 5);
		ASSERT_NULL(json_object_get(obj, "next_page_token"));
		json_decref(obj);
		air_free(s);
	}
	air_run_free(run);
}

static void expect_get_error(int64_t id, int code, int32_t kind)
{
	air_run *run = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_client_get_run(client, id, NULL, &run, &err), code);
	ASSERT_NULL(run);
	ASSERT_NOT_NULL(err);
	ASSERT_EQ_INT(air_error_kind(err), kind);
	air_error_free(err);
}

AIR_TEST(get__not_found_both_styles_s35)
{
	/* Jobs style: 400 INVALID_PARAMETER_VALUE "Run 5 does not exist." */
	expect_get_error(5, AIR_ENOTFOUND, AIR_KIND_NOT_FOUND);
	fakews_faultf(fw, "{\"path\":\"/api/2.2/jobs/runs/get\",\"status\":404,\"body\":{\"error_code\":"
	                  "\"RESOURCE_DOES_NOT_EXIST\",\"message\":\"gone\"}}");
	expect_get_error(6, AIR_ENOTFOUND, AIR_KIND_NOT_FOUND);
	fakews_faultf(fw, "{\"path\":\"/api/2.2/jobs/runs/get\",\"status\":500,\"body\":{\"error_code\":"
	                  "\"INTERNAL_ERROR\",\"message\":\"boom\"}}");
	expect_get_error(7, AIR_ESERVER, AIR_KIND_TRANSIENT);
}

AIR_TEST(get__invalid_ids_make_no_request_s36)
{
	expect_get_error(0, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT);
	expect_get_error(-3, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT);
	ASSERT_EQ_INT(fakews_count(fw, "*", "/api/*"), 0);
	ASSERT_EQ_INT(air_client_get_run(client, 1, NULL, NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_get_run(NULL, 1, NULL, &(air_run *){NULL}, NULL), AIR_EINVAL);
}

AIR_TEST(get__workspace_id_unavailable_s37)
{
	air_run *run = NULL;
	air_error *err = NULL;

	fakews_configf(fw, "{\"org_id\":null}");
	fixture_std_run(123, "SUCCESS");
	ASSERT_NE_INT(air_client_get_run(client, 123, GET(AIR_GET_WORKSPACE_ID), &run, &err), AIR_OK);
	ASSERT_NULL(run);
	air_error_free(err);
	ASSERT_OK(air_client_get_run(client, 123, NULL, &run, NULL), NULL);
	ASSERT_TRUE(ends_with(air_run_dashboard_url(run), "/jobs/runs/123"));
	air_run_free(run);
}

AIR_TEST(get__sweep_iterations)
{
	air_run *run = NULL;
	air_error *err = NULL;

	fakews_create_runf(fw, "{\"run_id\":40,\"state\":{\"life_cycle_state\":\"RUNNING\"},\"tasks\":["
	                       "{\"run_id\":41,\"for_each_task\":{\"task\":{\"ai_runtime_task\":{\"experiment\":"
	                       "\"sw\"}},\"stats\":{\"task_run_stats\":{\"total_iterations\":2,"
	                       "\"active_iterations\":1,\"completed_iterations\":1,\"succeeded_iterations\":1}}}}]}");
	/* The for-each task's own runs/get lists the iterations. */
	fakews_create_runf(fw, "{\"run_id\":41,\"state\":{\"life_cycle_state\":\"RUNNING\"},\"iterations\":["
	                       "{\"task_key\":\"sw_0\",\"run_id\":42,\"state\":{\"life_cycle_state\":\"TERMINATED\","
	                       "\"result_state\":\"SUCCESS\"},\"gen_ai_compute_task\":{\"mlflow_experiment_name\":"
	                       "\"/Users/tester@databricks.com/sw\"}},{\"task_key\":\"sw_1\",\"run_id\":43,"
	                       "\"state\":{\"life_cycle_state\":\"RUNNING\"}}]}");
	ASSERT_OK(air_client_get_run(client, 40, GET(AIR_GET_SWEEP), &run, &err), err);
	ASSERT_TRUE(air_run_is_sweep(run));
	ASSERT_EQ_INT(air_run_sweep_stat(run, AIR_SWEEP_TOTAL), 2);
	ASSERT_EQ_INT(air_run_iteration_count(run), 2);
	ASSERT_EQ_STR(air_run_iteration_task_key(run, 0), "sw_0");
	ASSERT_EQ_STR(air_run_iteration_state_name(run, 0), "SUCCESS");
	ASSERT_EQ_STR(air_run_iteration_experiment(run, 0), "sw");
	ASSERT_EQ_INT(air_run_iteration_run_id(run, 1), 43);
	ASSERT_EQ_STR(air_run_iteration_state_name(run, 1), "RUNNING");
	air_run_free(run);
}

/* ---- list ----------------------------------------------------------------------- */

static const char *air_task(const char *exp, const char *type, int count)
{
	static char buf[4][512];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, 512, "{\"ai_runtime_task\":{\"experiment\":\"%s\",\"deployments\":[{\"compute\":"
	                 "{\"accelerator_type\":\"%s\",\"accelerator_count\":%d}}]}}",
	         exp, type, count);
	return b;
}

static void create_listed(int64_t id, int64_t start, const char *user, const char *state,
                          const char *task)
{
	fakews_create_runf(fw, "{\"run_id\":%lld,\"start_time\":%lld,\"creator_user_name\":\"%s\","
	                       "\"run_name\":\"r%lld\",\"state\":%s,\"tasks\":[%s]}",
	                   (long long)id, (long long)start, user, (long long)id, state, task);
}

#define RUNNING "{\"life_cycle_state\":\"RUNNING\"}"
#define DONE "{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"SUCCESS\"}"
#define ME "tester@databricks.com"

static int64_t *collect_ids(const air_list_options *o, size_t *n, int *truncated)
{
	air_run_iter *it = NULL;
	air_error *err = NULL;
	const air_run *run;
	int64_t *ids = calloc(256, sizeof(*ids));
	int rc;

	*n = 0;
	ASSERT_OK(air_client_list_runs(client, o, &it, &err), err);
	while ((rc = air_run_iter_next(it, &run, &err)) == AIR_OK && *n < 256)
		ids[(*n)++] = air_run_id(run);
	ASSERT_EQ_INT(rc, AIR_EDONE);
	ASSERT_NULL(run);
	ASSERT_NULL(err);
	if (truncated)
		*truncated = air_run_iter_truncated(it);
	/* The end is sticky. */
	ASSERT_EQ_INT(air_run_iter_next(it, &run, NULL), AIR_EDONE);
	ASSERT_NULL(run);
	air_run_iter_free(it);
	return ids;
}

AIR_TEST(list__default_scan_s38)
{
	air_run_iter *it = NULL;
	air_error *err = NULL;
	const air_run *run;
	json_t *reqs;

	create_listed(1, 1700000004000, ME, RUNNING, air_task("e1", "GPU_1xH100", 1));
	create_listed(2, 1700000003000, ME, RUNNING, "{\"notebook_task\":{}}");
	create_listed(3, 1700000002000, "other@x", RUNNING, air_task("e3", "GPU_1xH100", 1));
	create_listed(4, 1700000001000, ME, RUNNING,
	              "{\"for_each_task\":{\"task\":{\"ai_runtime_task\":{\"experiment\":\"sw\"}}}}");
	create_listed(5, 1700000000000, ME, DONE, air_task("e5", "GPU_1xH100", 1));
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_list_runs(client, NULL, &it, &err), err);
	/* Me and the workspace-id probe up front; the page only when needed. */
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/preview/scim/v2/Me"), 2);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/list"), 0);
	ASSERT_OK(air_run_iter_next(it, &run, &err), err);
	ASSERT_EQ_INT(air_run_id(run), 1);
	ASSERT_FALSE(air_run_is_sweep(run));
	ASSERT_TRUE(ends_with(air_run_dashboard_url(run), "/jobs/runs/1?o=900800700600500"));
	ASSERT_OK(air_run_iter_next(it, &run, &err), err);
	ASSERT_EQ_INT(air_run_id(run), 4);
	ASSERT_TRUE(air_run_is_sweep(run));
	ASSERT_EQ_INT(air_run_iter_next(it, &run, &err), AIR_EDONE);
	ASSERT_NULL(run);
	ASSERT_NULL(err);
	ASSERT_FALSE(air_run_iter_truncated(it));
	air_run_iter_free(it);
	reqs = fixture_requests("GET", "/api/2.2/jobs/runs/list");
	ASSERT_EQ_INT(json_array_size(reqs), 1);
	ASSERT_EQ_STR(fixture_query_string(json_array_get(reqs, 0)),
	              "run_type=SUBMIT_RUN&expand_tasks=true&limit=25&active_only=true");
	json_decref(reqs);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get-output"), 0);
}

AIR_TEST(list__pages_only_as_needed)
{
	air_list_options *o = NULL;
	size_t n;
	int64_t *ids;

	for (int i = 1; i <= 60; i++)
		create_listed(i, 1700000000000 + i * 1000, ME, RUNNING, air_task("e", "GPU_1xA10", 1));
	air_list_options_new(&o);
	air_list_options_set_int(o, AIR_LIST_LIMIT, 30);
	fakews_clear_requests(fw);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 30);
	ASSERT_EQ_INT(ids[0], 60);
	ASSERT_EQ_INT(ids[29], 31);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/list"), 2);
	free(ids);
	air_list_options_set_int(o, AIR_LIST_LIMIT, 1);
	fakews_clear_requests(fw);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 1);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/list"), 1);
	free(ids);
	air_list_options_set_int(o, AIR_LIST_LIMIT, 100);
	fakews_clear_requests(fw);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 60);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/list"), 3);
	free(ids);
	air_list_options_free(o);
}

AIR_TEST(list__max_inspected_truncates)
{
	air_list_options *o = NULL;
	size_t n;
	int truncated;
	int64_t *ids;

	for (int i = 1; i <= 40; i++)
		create_listed(i, 1700000000000 + i * 1000, "other@x", RUNNING, air_task("e", "GPU_1xA10", 1));
	create_listed(41, 1700000000000, ME, RUNNING, air_task("e", "GPU_1xA10", 1));
	air_list_options_new(&o);
	air_list_options_set_int(o, AIR_LIST_MAX_INSPECTED, 25);
	fakews_clear_requests(fw);
	ids = collect_ids(o, &n, &truncated);
	ASSERT_EQ_INT(n, 0);
	ASSERT_TRUE(truncated);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/list"), 1);
	free(ids);
	/* Reaching the end of data is not truncation. */
	air_list_options_set_int(o, AIR_LIST_MAX_INSPECTED, 41);
	ids = collect_ids(o, &n, &truncated);
	ASSERT_EQ_INT(n, 1);
	ASSERT_EQ_INT(ids[0], 41);
	ASSERT_FALSE(truncated);
	free(ids);
	air_list_options_free(o);
}

AIR_TEST(list__truncated_task_lists_are_read_whole)
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	const air_run *run;

	fakews_configf(fw, "{\"get_page_size\":1}");
	fakews_create_runf(fw, "{\"run_id\":7,\"creator_user_name\":\"" ME "\",\"state\":" RUNNING
	                       ",\"tasks\":[{\"run_id\":8,\"attempt_number\":0,\"ai_runtime_task\":"
	                       "{\"experiment\":\"a\"}},{\"run_id\":9,\"attempt_number\":1,"
	                       "\"ai_runtime_task\":{\"experiment\":\"b\",\"deployments\":[{\"compute\":"
	                       "{\"accelerator_type\":\"GPU_8xH100\",\"accelerator_count\":16}}]}}]}");
	air_list_options_new(&o);
	ASSERT_OK(air_list_options_add_filter(o, "num_accelerators=16", NULL), NULL);
	ASSERT_OK(air_client_list_runs(client, o, &it, NULL), NULL);
	ASSERT_OK(air_run_iter_next(it, &run, NULL), NULL);
	ASSERT_NOT_NULL(run);
	ASSERT_EQ_INT(air_run_latest_attempt(run), 1);
	ASSERT_EQ_STR(air_run_experiment_name(run), "b");
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/get"), 2);
	air_run_iter_free(it);
	air_list_options_free(o);
}

AIR_TEST(list__filters_s40)
{
	air_list_options *o = NULL;
	size_t n;
	int64_t *ids;

	create_listed(1, 1700000005000, ME, RUNNING,
	              air_task("/Users/tester@databricks.com/qwen-train", "GPU_8xH100", 8));
	create_listed(2, 1700000004000, ME, RUNNING, air_task("llama", "GPU_8xH100", 16));
	create_listed(3, 1700000003000, ME, RUNNING, air_task("qwen-eval", "GPU_1xA10", 1));
	create_listed(4, 1700000002000, "other@x", RUNNING, air_task("qwen-x", "GPU_8xH100", 8));
	air_list_options_new(&o);
	ASSERT_OK(air_list_options_add_filter(o, "experiment=QWEN*", NULL), NULL);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 2);
	ASSERT_EQ_INT(ids[0], 1);
	ASSERT_EQ_INT(ids[1], 3);
	free(ids);
	ASSERT_OK(air_list_options_add_filter(o, "accelerator_type=h100", NULL), NULL);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 1);
	ASSERT_EQ_INT(ids[0], 1);
	free(ids);
	air_list_options_free(o);
	air_list_options_new(&o);
	ASSERT_OK(air_list_options_add_filter(o, "num_accelerators=8", NULL), NULL);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 1);
	free(ids);
	/* A user filter replaces the self scope: no userName lookup (fresh
	 * client: nothing cached). */
	ASSERT_OK(air_list_options_add_filter(o, "user=other@x", NULL), NULL);
	air_client_free(client);
	client = fakews_client(fw);
	fakews_clear_requests(fw);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 1);
	ASSERT_EQ_INT(ids[0], 4);
	free(ids);
	{
		json_t *me = fixture_requests("GET", "/api/2.0/preview/scim/v2/Me");
		ASSERT_EQ_INT(json_array_size(me), 1); /* the workspace-id probe only */
		ASSERT_EQ_STR(fixture_query(json_array_get(me, 0), "excludedAttributes"), "entitlements");
		json_decref(me);
	}
	air_list_options_set_int(o, AIR_LIST_ALL_USERS, 1);
	air_list_options_free(o);
	air_list_options_new(&o);
	air_list_options_set_int(o, AIR_LIST_ALL_USERS, 1);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 4);
	free(ids);
	air_list_options_free(o);
}

AIR_TEST(list__index_strategy_s39)
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	const air_run *run;
	json_t *reqs;

	fixture_std_run(12, "SUCCESS");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows\",\"query\":{\"page_token\":\"t\"},"
	                  "\"times\":-1,\"status\":200,\"body\":{\"training_workflows\":[{\"job_run_id\":11,"
	                  "\"submit_time\":\"2024-06-05T17:32:39Z\"}],\"next_page_token\":\"t\"}}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows\",\"times\":-1,\"status\":200,"
	                  "\"body\":{\"training_workflows\":[{\"job_run_id\":\"11\",\"submit_time\":"
	                  "\"2024-06-05T17:32:39Z\"},{\"job_run_id\":12,\"submit_time\":{\"seconds\":"
	                  "1717700000}},{\"job_run_id\":0},{\"job_run_id\":\"x\"}],\"next_page_token\":\"t\"}}");
	fakews_faultf(fw, "{\"path\":\"/api/2.2/jobs/runs/get\",\"query\":{\"run_id\":\"11\"},\"times\":-1,"
	                  "\"status\":403,\"body\":{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"no\"}}");
	air_list_options_new(&o);
	air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 1);
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_list_runs(client, o, &it, NULL), NULL);
	ASSERT_OK(air_run_iter_next(it, &run, NULL), NULL);
	ASSERT_EQ_INT(air_run_id(run), 12);
	ASSERT_EQ_INT(air_run_iter_next(it, &run, NULL), AIR_EDONE);
	ASSERT_NULL(run);
	air_run_iter_free(it);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/ai-training/workflows"), 2);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/list"), 0);
	reqs = fixture_requests("GET", "/api/2.0/ai-training/workflows");
	ASSERT_NULL(fixture_query(json_array_get(reqs, 0), "active_only"));
	json_decref(reqs);
	/* 12 (newer) was hydrated before 11. */
	reqs = fixture_requests("GET", "/api/2.2/jobs/runs/get");
	ASSERT_EQ_INT(json_array_size(reqs), 2); /* 11 answered 403: dropped, not retried */
	json_decref(reqs);
	air_list_options_free(o);
}

AIR_TEST(list__index_falls_back_to_scan)
{
	air_list_options *o = NULL;
	size_t n;
	int64_t *ids;
	json_t *reqs;

	create_listed(1, 1700000001000, ME, DONE, air_task("e", "GPU_1xA10", 1));
	create_listed(2, 1700000002000, ME, RUNNING, air_task("e", "GPU_1xA10", 1));
	fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/workflows\",\"times\":-1,\"status\":404,"
	                  "\"body\":{\"error_code\":\"ENDPOINT_NOT_FOUND\",\"message\":\"no\"}}");
	air_list_options_new(&o);
	air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 1);
	fakews_clear_requests(fw);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 2);
	ASSERT_EQ_INT(ids[0], 2);
	ASSERT_EQ_INT(ids[1], 1);
	reqs = fixture_requests("GET", "/api/2.2/jobs/runs/list");
	ASSERT_EQ_INT(json_array_size(reqs), 1);
	ASSERT_NULL(fixture_query(json_array_get(reqs, 0), "active_only"));
	json_decref(reqs);
	free(ids);
	/* --all-users --all-status: the scan directly, no userName lookup. */
	air_list_options_set_int(o, AIR_LIST_ALL_USERS, 1);
	air_client_free(client);
	client = fakews_client(fw);
	fakews_clear_requests(fw);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/ai-training/workflows"), 0);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/preview/scim/v2/Me"), 1);
	free(ids);
	air_list_options_free(o);
}

AIR_TEST(list__index_with_real_server_and_task_filter)
{
	air_list_options *o = NULL;
	size_t n;
	int64_t *ids;

	create_listed(1, 1700000001000, ME, DONE, air_task("a", "GPU_1xA10", 1));
	create_listed(2, 1700000002000, ME, DONE, air_task("b", "GPU_8xH100", 8));
	create_listed(3, 1700000003000, ME, RUNNING, air_task("c", "GPU_1xA10", 1));
	create_listed(4, 1700000004000, "other@x", DONE, air_task("d", "GPU_1xA10", 1));
	air_list_options_new(&o);
	air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 1);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 3);
	ASSERT_EQ_INT(ids[0], 3);
	ASSERT_EQ_INT(ids[2], 1);
	free(ids);
	air_list_options_set_int(o, AIR_LIST_LIMIT, 1);
	ASSERT_OK(air_list_options_add_filter(o, "accelerator_type=A10", NULL), NULL);
	ids = collect_ids(o, &n, NULL);
	ASSERT_EQ_INT(n, 1);
	ASSERT_EQ_INT(ids[0], 3);
	free(ids);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.2/jobs/runs/list"), 0);
	air_list_options_free(o);
}

AIR_TEST(list__hydration_error_fails)
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	air_error *err = NULL;
	const air_run *run;

	create_listed(1, 1700000001000, ME, DONE, air_task("a", "GPU_1xA10", 1));
	fakews_faultf(fw, "{\"path\":\"/api/2.2/jobs/runs/get\",\"times\":-1,\"status\":500,"
	                  "\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"boom\"}}");
	air_list_options_new(&o);
	air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 1);
	ASSERT_OK(air_client_list_runs(client, o, &it, NULL), NULL);
	ASSERT_EQ_INT(air_run_iter_next(it, &run, &err), AIR_ESERVER);
	ASSERT_NULL(run);
	ASSERT_CONTAINS(air_error_message(err), "boom");
	air_error_free(err);
	air_run_iter_free(it);
	air_list_options_free(o);
}

AIR_TEST(list__mlflow_names_and_setup_errors)
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	air_error *err = NULL;
	const air_run *run;

	create_listed(1, 1700000001000, ME, RUNNING, air_task("e", "GPU_1xA10", 1));
	air_list_options_new(&o);
	air_list_options_set_int(o, AIR_LIST_MLFLOW, 1);
	air_list_options_set_int(o, AIR_LIST_WORKSPACE_ID, 0);
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_list_runs(client, o, &it, NULL), NULL);
	ASSERT_OK(air_run_iter_next(it, &run, NULL), NULL);
	ASSERT_NOT_NULL(air_run_mlflow_run_id(run));
	ASSERT_EQ_STR(air_run_mlflow_run_name(run), "e");
	ASSERT_TRUE(ends_with(air_run_dashboard_url(run), "/jobs/runs/1"));
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/preview/scim/v2/Me"), 1);
	air_run_iter_free(it);
	air_list_options_free(o);
	/* The userName lookup failing fails the listing up front. */
	fakews_faultf(fw, "{\"path\":\"/api/2.0/preview/scim/v2/Me\",\"times\":-1,\"status\":401,"
	                  "\"body\":{\"error_code\":\"UNAUTHENTICATED\",\"message\":\"bad token\"}}");
	air_client_free(client);
	client = fakews_client(fw);
	ASSERT_NE_INT(air_client_list_runs(client, NULL, &it, &err), AIR_OK);
	ASSERT_NULL(it);
	ASSERT_EQ_INT(air_error_http_status(err), 401);
	air_error_free(err);
}

/* ---- cancel ------------------------------------------------------------------------- */

AIR_TEST(cancel__one_s41)
{
	json_t *reqs;
	air_error *err = NULL;

	create_listed(123, 1700000001000, ME, RUNNING, air_task("e", "GPU_1xA10", 1));
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_cancel_run(client, 123, NULL, &err), err);
	reqs = fixture_requests("POST", "/api/2.2/jobs/runs/cancel");
	ASSERT_EQ_INT(json_array_size(reqs), 1);
	ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(reqs, 0), "body")),
	              "{\"run_id\":123}");
	json_decref(reqs);
	ASSERT_EQ_INT(air_client_cancel_run(client, 0, NULL, NULL), AIR_EINVAL);
}

AIR_TEST(cancel__several_with_failures_s42)
{
	int64_t ids[] = {6, 5, 334747067049496LL, -1};
	air_cancel_report *rep = NULL;
	air_error *err = NULL;
	json_t *reqs;

	create_listed(6, 1700000001000, ME, RUNNING, air_task("e", "GPU_1xA10", 1));
	create_listed(334747067049496LL, 1700000001000, ME, RUNNING, air_task("e", "GPU_1xA10", 1));
	fakews_faultf(fw, "{\"path\":\"/api/2.2/jobs/runs/cancel\",\"body_contains\":\"334747067049496\","
	                  "\"status\":500,\"times\":-1,\"body\":{\"error_code\":\"INTERNAL_ERROR\","
	                  "\"message\":\"down\"}}");
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_cancel_runs(client, ids, 4, NULL, &rep, &err), err);
	ASSERT_EQ_INT(air_cancel_report_count(rep), 4);
	ASSERT_EQ_INT(air_cancel_report_failures(rep), 3);
	ASSERT_EQ_INT(air_cancel_report_run_id(rep, 0), 6);
	ASSERT_EQ_INT(air_cancel_report_status(rep, 0), AIR_OK);
	ASSERT_NULL(air_cancel_report_message(rep, 0));
	ASSERT_EQ_INT(air_cancel_report_status(rep, 1), AIR_ENOTFOUND);
	ASSERT_CONTAINS(air_cancel_report_message(rep, 1), "5");
	ASSERT_EQ_INT(air_cancel_report_run_id(rep, 2), 334747067049496LL);
	ASSERT_EQ_INT(air_cancel_report_status(rep, 2), AIR_ESERVER);
	ASSERT_EQ_INT(air_cancel_report_status(rep, 3), AIR_EINVAL);
	ASSERT_EQ_INT(air_cancel_report_status(rep, 4), AIR_EINVAL); /* out of range */
	air_cancel_report_free(rep);
	reqs = fixture_requests("POST", "/api/2.2/jobs/runs/cancel");
	ASSERT_EQ_INT(json_array_size(reqs), 3); /* none for -1 */
	ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(reqs, 2), "body")),
	              "{\"run_id\":334747067049496}");
	json_decref(reqs);
	air_cancel_report_free(NULL);
}

AIR_TEST(cancel__all_s43)
{
	air_cancel_report *rep = NULL;
	air_error *err = NULL;
	json_t *reqs;

	create_listed(334747067049496LL, 1700000002000, ME, RUNNING, air_task("e", "GPU_1xA10", 1));
	create_listed(566001814929041LL, 1700000001000, ME, RUNNING, air_task("e", "GPU_1xA10", 1));
	create_listed(3, 1700000001000, "other@x", RUNNING, air_task("e", "GPU_1xA10", 1));
	create_listed(4, 1700000001000, ME, DONE, air_task("e", "GPU_1xA10", 1));
	create_listed(5, 1700000001000, ME, RUNNING, "{\"notebook_task\":{}}");
	fakews_clear_requests(fw);
	ASSERT_OK(air_client_cancel_all(client, NULL, &rep, &err), err);
	ASSERT_EQ_INT(air_cancel_report_count(rep), 2);
	ASSERT_EQ_INT(air_cancel_report_failures(rep), 0);
	air_cancel_report_free(rep);
	reqs = fixture_requests("POST", "/api/2.2/jobs/runs/cancel");
	ASSERT_EQ_INT(json_array_size(reqs), 2);
	ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(reqs, 0), "body")),
	              "{\"run_id\":334747067049496}");
	ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(reqs, 1), "body")),
	              "{\"run_id\":566001814929041}");
	json_decref(reqs);
	/* Me (userName) and runs/list only: no workspace-id probe. */
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/preview/scim/v2/Me"), 1);
	reqs = fixture_requests("GET", "/api/2.2/jobs/runs/list");
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "active_only"), "true");
	json_decref(reqs);
	/* Nothing active any more. */
	ASSERT_OK(air_client_cancel_all(client, NULL, &rep, &err), err);
	ASSERT_EQ_INT(air_cancel_report_count(rep), 0);
	air_cancel_report_free(rep);
}

AIR_TEST(cancel__finished_run_is_accepted_s44)
{
	fixture_std_run(123, "SUCCESS");
	ASSERT_OK(air_client_cancel_run(client, 123, NULL, NULL), NULL);
}

/* ---- pools ----------------------------------------------------------------------------- */

AIR_TEST(pools__list_pages_and_string_counts)
{
	air_pool_list *l = NULL;
	air_error *err = NULL;
	json_t *reqs;

	fixture_post("/__fakews/pools",
	             "{\"page_size\":2,\"pools\":[{\"id\":\"p1\",\"accelerator_type\":\"GPU_8xH100\","
	             "\"accelerator_count\":16,\"used\":8,\"idle\":8},{\"id\":\"p2\"},{\"name\":"
	             "\"provisioned-capacities/p3\",\"spec\":{\"accelerator_type\":\"GPU_1xA10\","
	             "\"accelerator_count\":\"4\"},\"status\":{}}]}");
	ASSERT_OK(air_client_list_pools(client, NULL, &l, &err), err);
	ASSERT_EQ_INT(air_pool_list_count(l), 3);
	ASSERT_EQ_STR(air_pool_id(air_pool_list_get(l, 0)), "p1");
	ASSERT_EQ_STR(air_pool_accelerator_type(air_pool_list_get(l, 0)), "GPU_8xH100");
	ASSERT_EQ_INT(air_pool_reserved_accelerators(air_pool_list_get(l, 0)), 16);
	ASSERT_EQ_INT(air_pool_used_accelerators(air_pool_list_get(l, 0)), 8);
	ASSERT_EQ_STR(air_pool_id(air_pool_list_get(l, 2)), "p3");
	ASSERT_EQ_INT(air_pool_reserved_accelerators(air_pool_list_get(l, 2)), 4);
	ASSERT_EQ_INT(air_pool_used_accelerators(air_pool_list_get(l, 2)), -1);
	ASSERT_EQ_INT(air_pool_idle_accelerators(air_pool_list_get(l, 2)), -1);
	ASSERT_NULL(air_pool_list_get(l, 3));
	air_pool_list_free(l);
	reqs = fixture_requests("GET", "/api/2.0/ai-training/provisioned-capacities");
	ASSERT_EQ_INT(json_array_size(reqs), 2);
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, 0), "page_size"), "100");
	ASSERT_NOT_NULL(fixture_query(json_array_get(reqs, 1), "page_token"));
	json_decref(reqs);
}

AIR_TEST(pools__get_forms_and_errors)
{
	air_pool *p = NULL;
	air_error *err = NULL;

	fixture_post("/__fakews/pools",
	             "{\"pools\":[{\"id\":\"p1\",\"accelerator_type\":\"GPU_8xH100\","
	             "\"accelerator_count\":16,\"used\":\"3\",\"idle\":13}]}");
	ASSERT_OK(air_client_get_pool(client, "p1", NULL, &p, &err), err);
	ASSERT_EQ_STR(air_pool_id(p), "p1");
	ASSERT_EQ_INT(air_pool_used_accelerators(p), 3);
	ASSERT_EQ_INT(air_pool_idle_accelerators(p), 13);
	air_pool_free(p);
	ASSERT_OK(air_client_get_pool(client, " provisioned-capacities/p1 ", NULL, &p, &err), err);
	ASSERT_EQ_STR(air_pool_id(p), "p1");
	air_pool_free(p);
	ASSERT_EQ_INT(air_client_get_pool(client, "  ", NULL, &p, &err), AIR_EINVAL);
	ASSERT_EQ_STR(air_error_field(err), "pool_id");
	air_error_free(err);
	err = NULL;
	/* The prefix alone names no pool: refused without a request. */
	{
		int before = fakews_count(fw, "GET", "/api/2.0/ai-training/provisioned-capacities*");
		ASSERT_EQ_INT(air_client_get_pool(client, " provisioned-capacities/ ", NULL, &p, &err),
		              AIR_EINVAL);
		ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/ai-training/provisioned-capacities*"),
		              before);
		air_error_free(err);
		err = NULL;
	}
	ASSERT_EQ_INT(air_client_get_pool(client, "nope", NULL, &p, &err), AIR_ENOTFOUND);
	air_error_free(err);
	err = NULL;
	fakews_configf(fw, "{\"features\":{\"pools\":false}}");
	ASSERT_EQ_INT(air_client_get_pool(client, "p1", NULL, &p, &err), AIR_EDISABLED);
	ASSERT_EQ_INT(air_error_retryable(err), 0);
	ASSERT_CONTAINS(air_error_message(err), "not enabled");
	air_error_free(err);
	err = NULL;
	{
		air_pool_list *l = NULL;
		ASSERT_EQ_INT(air_client_list_pools(client, NULL, &l, &err), AIR_EDISABLED);
		ASSERT_NULL(l);
		air_error_free(err);
	}
	air_pool_free(NULL);
	air_pool_list_free(NULL);
}
