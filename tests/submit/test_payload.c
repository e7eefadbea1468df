/* test_payload.c: the pre-flight and runs/submit bodies (docs/submit.md#payloads),
 * compared as JSON values with documents written out by hand. */
#include <stdlib.h>
#include <string.h>

#include "submit/submit.h"
#include "test.h"

#define CMD "/Workspace/Users/tester@databricks.com/.air/cli_launch/smoke-test/smoke-test_0123456789abcdef/command.sh"

/* valid.yaml of the scenarios */
static air__workload smoke(void)
{
	air__workload w;

	memset(&w, 0, sizeof(w));
	w.experiment = "smoke-test";
	w.command = "python train.py";
	w.accelerator_type = "GPU_1xH100";
	w.num_accelerators = 1;
	w.max_retries = 3;
	return w;
}

static void assert_json(json_t *got, const char *want_text)
{
	json_error_t e;
	json_t *want = json_loads(want_text, 0, &e);
	char *g;

	if (!want)
		FAIL("bad expected JSON: %s", e.text);
	ASSERT_NOT_NULL(got);
	g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
	if (!json_equal(got, want)) {
		char *w = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);
		air_test_note("got  %s", g);
		air_test_note("want %s", w);
		free(w);
		free(g);
		json_decref(want);
		json_decref(got);
		FAIL("JSON documents differ");
	}
	free(g);
	json_decref(want);
	json_decref(got);
}

static air__submit_params params(void)
{
	air__submit_params p = {CMD, "3b241101-e2bb-4255-8caf-4136c566a962", NULL, NULL, NULL};
	return p;
}

AIR_TEST(payload__preflight_minimal_has_no_run_options)
{
	air__workload w = smoke();

	assert_json(air__preflight_body(&w, CMD),
	            "{\"task\":{\"experiment\":\"smoke-test\",\"deployments\":[{\"command_path\":\"" CMD "\","
	            "\"compute\":{\"accelerator_type\":\"GPU_1xH100\",\"accelerator_count\":1}}]}}");
}

AIR_TEST(payload__preflight_env_and_secrets)
{
	air__workload w = smoke();
	air__env_var env[] = {{"A", "x"}, {"B", "2"}};
	air__secret_var sec[] = {{"HF_TOKEN", "my_scope/hf_token", "my_scope", "hf_token"}};

	w.env = env;
	w.n_env = 2;
	w.secrets = sec;
	w.n_secrets = 1;
	assert_json(air__preflight_body(&w, CMD),
	            "{\"task\":{\"experiment\":\"smoke-test\",\"deployments\":[{\"command_path\":\"" CMD "\","
	            "\"compute\":{\"accelerator_type\":\"GPU_1xH100\",\"accelerator_count\":1}}]},"
	            "\"run_options\":{\"env_variables\":{\"A\":\"x\",\"B\":\"2\"},"
	            "\"secrets\":{\"HF_TOKEN\":\"my_scope/hf_token\"}}}");
}

AIR_TEST(payload__preflight_retries_timeout_policy_token)
{
	air__workload w = smoke();

	w.has_max_retries = true;
	w.max_retries = 0;
	w.timeout_minutes = 30;
	w.usage_policy_name = " team-a";
	w.idempotency_token = "yaml-key";
	assert_json(air__preflight_body(&w, CMD),
	            "{\"task\":{\"experiment\":\"smoke-test\",\"deployments\":[{\"command_path\":\"" CMD "\","
	            "\"compute\":{\"accelerator_type\":\"GPU_1xH100\",\"accelerator_count\":1}}]},"
	            "\"run_options\":{\"max_retries\":0,\"timeout_minutes\":30,"
	            "\"idempotency_token\":\"yaml-key\",\"usage_policy_name\":\" team-a\"}}");
}

AIR_TEST(payload__preflight_pool_priority_mlflow_image)
{
	air__workload w = smoke();

	w.accelerator_type = "GPU_8xH100";
	w.num_accelerators = 16;
	w.pool_id = "pool-1";
	w.priority_class = "BEST_EFFORT";
	w.mlflow_run_name = "run-7";
	w.mlflow_experiment_directory = "/Workspace/Shared/exp";
	w.mlflow_artifact_location = "dbfs:/Volumes/a/b/c";
	w.uc_image = "main.ml.img:1";
	w.usage_policy_id = "12345678-90ab-cdef-1234-567890abcdef";
	assert_json(air__preflight_body(&w, CMD),
	            "{\"task\":{\"experiment\":\"smoke-test\",\"deployments\":[{\"command_path\":\"" CMD "\","
	            "\"compute\":{\"accelerator_type\":\"GPU_8xH100\",\"accelerator_count\":16,"
	            "\"provisioned_capacity_id\":\"pool-1\"}}],\"priority_class\":\"BEST_EFFORT\","
	            "\"mlflow_run\":\"run-7\",\"mlflow_experiment_directory\":\"/Workspace/Shared/exp\","
	            "\"mlflow_artifact_location\":\"dbfs:/Volumes/a/b/c\","
	            "\"unity_catalog_image_path\":\"main.ml.img:1\"},"
	            "\"run_options\":{\"usage_policy_id\":\"12345678-90ab-cdef-1234-567890abcdef\"}}");
}

static const char s08_submit[] =
	"{\"run_name\":\"smoke-test\",\"idempotency_token\":\"3b241101-e2bb-4255-8caf-4136c566a962\","
	"\"tasks\":[{\"task_key\":\"smoke-test\",\"run_if\":\"ALL_SUCCESS\",\"environment_key\":\"default\","
	"\"max_retries\":3,\"retry_on_timeout\":true,"
	"\"ai_runtime_task\":{\"experiment\":\"smoke-test\",\"deployments\":[{\"command_path\":\"" CMD "\","
	"\"compute\":{\"accelerator_type\":\"GPU_1xH100\",\"accelerator_count\":1}}]}}],"
	"\"environments\":[{\"environment_key\":\"default\",\"spec\":{\"environment_version\":\"6\"}}]}";

AIR_TEST(payload__submit_minimal)
{
	air__workload w = smoke();
	air__submit_params p = params();

	assert_json(air__submit_body(&w, &p), s08_submit);
}

AIR_TEST(payload__submit_key_order_is_documented_order)
{
	air__workload w = smoke();
	air__submit_params p = params();
	json_t *body = air__submit_body(&w, &p);
	const char *key;
	json_t *v;
	const char *want[] = {"run_name", "idempotency_token", "tasks", "environments"};
	size_t i = 0;

	json_object_foreach(body, key, v)
		ASSERT_EQ_STR(key, want[i++]);
	ASSERT_EQ_INT(i, 4);
	json_decref(body);
}

AIR_TEST(payload__submit_no_retries_and_timeout)
{
	air__workload w = smoke();
	air__submit_params p = params();
	json_t *body;

	w.max_retries = 0;
	w.timeout_minutes = 30;
	body = air__submit_body(&w, &p);
	ASSERT_EQ_INT(json_integer_value(json_object_get(body, "timeout_seconds")), 1800);
	ASSERT_EQ_INT(json_integer_value(json_object_get(json_array_get(json_object_get(body, "tasks"), 0),
	                                                 "max_retries")), 0);
	ASSERT_NULL(json_object_get(json_array_get(json_object_get(body, "tasks"), 0), "retry_on_timeout"));
	json_decref(body);
}

static json_t *spec_of(const air__workload *w, const char *default_runtime)
{
	return air__environment_spec(w, default_runtime);
}

AIR_TEST(payload__environment_channels)
{
	air__workload w = smoke();
	const char *deps[] = {"numpy", "torch==2.3.0"};

	w.environment_version = "5";
	w.dependencies = deps;
	w.n_dependencies = 2;
	assert_json(spec_of(&w, NULL),
	            "{\"environment_version\":\"5\",\"dependencies\":[\"numpy\",\"torch==2.3.0\"]}");
	w.n_dependencies = 0; /* dependencies: [] -> no key */
	assert_json(spec_of(&w, NULL), "{\"environment_version\":\"5\"}");
	w.environment_version = NULL;
	assert_json(spec_of(&w, "CLIENT-GPU-7"), "{\"environment_version\":\"7\"}");
	assert_json(spec_of(&w, ""), "{\"environment_version\":\"6\"}");
	assert_json(spec_of(&w, "databricks_ai_v7"),
	            "{\"base_environment\":\"workspace-base-environments/databricks_ai_v7\"}");
	w.environment_version = "databricks_ai_v6";
	assert_json(spec_of(&w, "CLIENT-GPU-7"),
	            "{\"base_environment\":\"workspace-base-environments/databricks_ai_v6\"}");
	w.environment_version = "DataBricks_AI_V8";
	assert_json(spec_of(&w, NULL),
	            "{\"base_environment\":\"workspace-base-environments/databricks_ai_v8\"}");
	w.environment_version = "databricks_ai_vx";
	assert_json(spec_of(&w, NULL), "{\"environment_version\":\"databricks_ai_vx\"}");
}

AIR_TEST(payload__submit_everything)
{
	air__workload w = smoke();
	air__grant grants[] = {{AIR_PRINCIPAL_USER, "a@b.com", "CAN_VIEW"},
	                       {AIR_PRINCIPAL_GROUP, "ml-team", "CAN_MANAGE_RUN"},
	                       {AIR_PRINCIPAL_SERVICE_PRINCIPAL, "sp-1", "CAN_MANAGE"}};
	air__submit_params p = params();

	w.accelerator_type = "GPU_8xH100";
	w.num_accelerators = 16;
	w.pool_id = "pool-1";
	w.priority_class = "CRITICAL";
	w.uc_image = "main.ml.img:1";
	w.mlflow_run_name = "run-7";
	w.mlflow_experiment_directory = "/Workspace/Shared/exp";
	w.mlflow_artifact_location = "dbfs:/x";
	w.timeout_minutes = 2;
	w.grants = grants;
	w.n_grants = 3;
	p.budget_policy_id = "pol-9";
	p.code_source_path = "/Workspace/Users/u/.air/repo_snapshots/.internal/repo_0011223344556677.tar.gz";
	assert_json(air__submit_body(&w, &p),
	            "{\"run_name\":\"smoke-test\",\"idempotency_token\":\"3b241101-e2bb-4255-8caf-4136c566a962\","
	            "\"budget_policy_id\":\"pol-9\",\"timeout_seconds\":120,"
	            "\"tasks\":[{\"task_key\":\"smoke-test\",\"run_if\":\"ALL_SUCCESS\",\"environment_key\":\"default\","
	            "\"max_retries\":3,\"retry_on_timeout\":true,"
	            "\"ai_runtime_task\":{\"experiment\":\"smoke-test\",\"deployments\":[{\"command_path\":\"" CMD "\","
	            "\"compute\":{\"accelerator_type\":\"GPU_8xH100\",\"accelerator_count\":16,"
	            "\"provisioned_capacity_id\":\"pool-1\"}}],\"priority_class\":\"CRITICAL\","
	            "\"unity_catalog_image_path\":\"main.ml.img:1\","
	            "\"code_source_path\":\"/Workspace/Users/u/.air/repo_snapshots/.internal/repo_0011223344556677.tar.gz\","
	            "\"mlflow_run\":\"run-7\",\"mlflow_experiment_directory\":\"/Workspace/Shared/exp\","
	            "\"mlflow_artifact_location\":\"dbfs:/x\"}}],"
	            "\"environments\":[{\"environment_key\":\"default\",\"spec\":{\"environment_version\":\"6\"}}],"
	            "\"access_control_list\":[{\"user_name\":\"a@b.com\",\"permission_level\":\"CAN_VIEW\"},"
	            "{\"group_name\":\"ml-team\",\"permission_level\":\"CAN_MANAGE_RUN\"},"
	            "{\"service_principal_name\":\"sp-1\",\"permission_level\":\"CAN_MANAGE\"}]}");
}
