/* test_values.c: accessors of a validated config; the shipped examples. */
#include <string.h>
#include <unistd.h>

#include <air/air.h>

#include "test.h"

static air_config *load(const char *text)
{
	air_config *cfg = NULL;
	air_error *err = NULL;

	if (air_config_load_buffer(text, strlen(text), "w.yaml", "/base", &cfg, &err) != AIR_OK)
		FAIL("load: %s", air_error_message(err));
	return cfg;
}

static air_config *load_example(const char *name)
{
	char path[1024];
	air_config *cfg = NULL;
	air_error *err = NULL;

	snprintf(path, sizeof(path), "%s/examples/%s", air_test_source_root(), name);
	if (air_config_load_file(path, &cfg, &err) != AIR_OK)
		FAIL("%s: %s", name, air_error_message(err));
	return cfg;
}

AIR_TEST(values__null_config_gives_defaults)
{
	ASSERT_NULL(air_config_experiment_name(NULL));
	ASSERT_NULL(air_config_command(NULL));
	ASSERT_EQ_INT(air_config_num_accelerators(NULL), 0);
	ASSERT_EQ_INT(air_config_num_nodes(NULL), 0);
	ASSERT_EQ_INT(air_config_max_retries(NULL), 3);
	ASSERT_EQ_INT(air_config_timeout_minutes(NULL), 0);
	ASSERT_EQ_INT(air_config_env_count(NULL), 0);
	ASSERT_NULL(air_config_env_name(NULL, 0));
	ASSERT_EQ_INT(air_config_code_source_form(NULL), AIR_CODE_SOURCE_NONE);
	ASSERT_EQ_INT(air_config_permission_principal_type(NULL, 0), 0);
	ASSERT_EQ_INT(air_config_is_valid(NULL), 0);
	ASSERT_EQ_INT(air_config_has_parameters(NULL), 0);
	ASSERT_NULL(air_config_source_name(NULL));
	ASSERT_NULL(air_config_source_bytes(NULL, NULL));
}

AIR_TEST(values__only_after_successful_validation)
{
	const char *text = "experiment_name: e\ncommand: c\n"
	                   "compute: {accelerator_type: GPU_8xH100, num_accelerators: 16}\nmax_retries: 1\n";
	air_config *cfg = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_config_parse_buffer(text, strlen(text), NULL, NULL, &cfg, &err), err);
	ASSERT_NULL(air_config_experiment_name(cfg));
	ASSERT_EQ_INT(air_config_max_retries(cfg), 3);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_EQ_INT(air_config_is_valid(cfg), 1);
	ASSERT_EQ_INT(air_config_max_retries(cfg), 1);
	ASSERT_EQ_INT(air_config_num_nodes(cfg), 2);
	/* Validating again gives the same values. */
	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_EQ_STR(air_config_experiment_name(cfg), "e");
	/* A failed validation leaves nothing readable. */
	ASSERT_OK(air_config_override(cfg, "compute.num_accelerators=3", &err), err);
	ASSERT_EQ_INT(air_config_validate(cfg, &err), AIR_ECONFIG);
	ASSERT_EQ_INT(air_config_is_valid(cfg), 0);
	ASSERT_NULL(air_config_accelerator_type(cfg));
	ASSERT_EQ_INT(air_config_num_accelerators(cfg), 0);
	air_error_free(err);
	air_config_free(cfg);
}

AIR_TEST(values__strings_as_written_or_normalised)
{
	air_config *cfg = load(
		"experiment_name: e\n"
		"command: \"  spaced command  \"\n"
		"compute: {accelerator_type: GPU_1xA10, num_accelerators: 1, pool_id: ' p ', "
		"priority_class: ' critical '}\n"
		"environment: {version: ' Databricks_AI_v7 ', dependencies: [' numpy ']}\n"
		"idempotency_token: ' tok '\n"
		"mlflow_experiment_directory: ' /Workspace/x '\n"
		"usage_policy_name: ' team '\n"
		"code_source: {root_path: ' src ', remote_volume: /Volumes/a/b/c/, git: {branch: main}}\n");

	ASSERT_EQ_STR(air_config_command(cfg), "  spaced command  ");
	ASSERT_EQ_STR(air_config_pool_id(cfg), "p");
	ASSERT_EQ_STR(air_config_priority_class(cfg), "CRITICAL");
	ASSERT_EQ_STR(air_config_environment_version(cfg), "databricks_ai_v7");
	ASSERT_EQ_STR(air_config_dependency(cfg, 0), " numpy ");
	ASSERT_EQ_STR(air_config_idempotency_token(cfg), " tok ");
	ASSERT_EQ_STR(air_config_mlflow_experiment_directory(cfg), " /Workspace/x ");
	ASSERT_EQ_STR(air_config_usage_policy_name(cfg), " team ");
	ASSERT_EQ_STR(air_config_root_path(cfg), "src");
	ASSERT_EQ_STR(air_config_remote_volume(cfg), "/Volumes/a/b/c/");
	ASSERT_EQ_STR(air_config_git_branch(cfg), "main");
	ASSERT_NULL(air_config_git_commit(cfg));
	ASSERT_EQ_INT(air_config_include_path_count(cfg), 0);
	ASSERT_NULL(air_config_include_path(cfg, 0));
	ASSERT_EQ_STR(air_config_base_dir(cfg), "/base");
	air_config_free(cfg);
}

AIR_TEST(values__secrets_split_at_the_slash)
{
	air_config *cfg = load("experiment_name: e\ncommand: c\n"
	                       "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                       "secrets: {B: s2/k2, A: scope/key}\nenv_variables: {Z: 1, Y: ''}\n");

	ASSERT_EQ_INT(air_config_secret_count(cfg), 2);
	ASSERT_EQ_STR(air_config_secret_name(cfg, 0), "A");
	ASSERT_EQ_STR(air_config_secret_ref(cfg, 0), "scope/key");
	ASSERT_EQ_STR(air_config_secret_scope(cfg, 0), "scope");
	ASSERT_EQ_STR(air_config_secret_key(cfg, 0), "key");
	ASSERT_EQ_STR(air_config_secret_scope(cfg, 1), "s2");
	ASSERT_NULL(air_config_secret_name(cfg, 2));
	ASSERT_NULL(air_config_secret_scope(cfg, 2));
	ASSERT_EQ_STR(air_config_env_name(cfg, 0), "Y");
	ASSERT_EQ_STR(air_config_env_value(cfg, 0), "");
	ASSERT_EQ_STR(air_config_env_value(cfg, 1), "1");
	ASSERT_NULL(air_config_env_value(cfg, 2));
	air_config_free(cfg);
}

AIR_TEST(values__accelerator_table)
{
	ASSERT_EQ_INT(air_accelerator_gpus_per_node("GPU_1xA10"), 1);
	ASSERT_EQ_INT(air_accelerator_gpus_per_node("GPU_1xH100"), 1);
	ASSERT_EQ_INT(air_accelerator_gpus_per_node("GPU_8xH100"), 8);
	ASSERT_EQ_INT(air_accelerator_gpus_per_node("gpu_8xh100"), 0);
	ASSERT_EQ_INT(air_accelerator_gpus_per_node("GPU_8xB300"), 0);
	ASSERT_EQ_INT(air_accelerator_gpus_per_node(NULL), 0);
	ASSERT_EQ_STR(air_accelerator_display_name("GPU_1xA10"), "A10");
	ASSERT_EQ_STR(air_accelerator_display_name("GPU_8xH100"), "H100");
	ASSERT_EQ_STR(air_accelerator_display_name("TPU"), "TPU");
	ASSERT_NULL(air_accelerator_display_name(NULL));
}

AIR_TEST(values__example_single_gpu)
{
	air_config *cfg = load_example("single-gpu.yaml");

	ASSERT_EQ_INT(air_accelerator_gpus_per_node(air_config_accelerator_type(cfg)), 1);
	ASSERT_EQ_INT(air_config_num_nodes(cfg), 1);
	ASSERT_EQ_INT(air_config_code_source_form(cfg), AIR_CODE_SOURCE_NONE);
	air_config_free(cfg);
}

AIR_TEST(values__example_multi_node)
{
	air_config *cfg = load_example("multi-node-h100.yaml");

	ASSERT_EQ_STR(air_config_accelerator_type(cfg), "GPU_8xH100");
	ASSERT_EQ_INT(air_config_num_accelerators(cfg), 128);
	ASSERT_EQ_INT(air_config_num_nodes(cfg), 16);
	ASSERT_CONTAINS(air_config_command(cfg), "$NUM_NODES");
	ASSERT_CONTAINS(air_config_command(cfg), "$NODE_RANK");
	ASSERT_CONTAINS(air_config_command(cfg), "$MASTER_ADDR");
	air_config_free(cfg);
}

AIR_TEST(values__example_code_source)
{
	air_config *cfg = load_example("code-source.yaml");
	char path[2048];

	ASSERT_EQ_INT(air_config_code_source_form(cfg), AIR_CODE_SOURCE_FLAT);
	ASSERT_TRUE(air_config_include_path_count(cfg) >= 1);
	/* The code directory and every include path ship with the example. */
	for (size_t i = 0; i < air_config_include_path_count(cfg); i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", air_config_base_dir(cfg),
		         air_config_root_path(cfg), air_config_include_path(cfg, i));
		if (access(path, R_OK) != 0)
			FAIL("%s is missing", path);
	}
	ASSERT_TRUE(air_config_env_count(cfg) >= 1);
	ASSERT_TRUE(air_config_secret_count(cfg) >= 1);
	ASSERT_EQ_INT(air_config_has_parameters(cfg), 1);
	air_config_free(cfg);
}

AIR_TEST(values__is_set_tells_written_values_from_defaults)
{
	air_config *cfg = load("experiment_name: e\ncommand: x\n"
	                       "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1, pool_id: ~}\n"
	                       "env_variables: {RANK: 0}\n");
	air_error *err = NULL;

	ASSERT_EQ_INT(air_config_max_retries(cfg), 3);
	ASSERT_EQ_INT(air_config_is_set(cfg, "max_retries"), 0);
	ASSERT_EQ_INT(air_config_is_set(cfg, "compute.accelerator_type"), 1);
	ASSERT_EQ_INT(air_config_is_set(cfg, "compute.pool_id"), 0); /* null = absent */
	ASSERT_EQ_INT(air_config_is_set(cfg, "env_variables.RANK"), 1);
	ASSERT_EQ_INT(air_config_is_set(cfg, "compute.accelerator_type.x"), 0);
	ASSERT_EQ_INT(air_config_is_set(cfg, "compute."), 0);
	ASSERT_EQ_INT(air_config_is_set(cfg, ""), 0);
	ASSERT_EQ_INT(air_config_is_set(cfg, NULL), 0);
	ASSERT_EQ_INT(air_config_is_set(NULL, "max_retries"), 0);
	/* Overrides count, before and after validation. */
	ASSERT_OK(air_config_override(cfg, "max_retries=0", &err), err);
	ASSERT_EQ_INT(air_config_is_set(cfg, "max_retries"), 1);
	ASSERT_OK(air_config_override(cfg, "max_retries=null", &err), err);
	ASSERT_EQ_INT(air_config_is_set(cfg, "max_retries"), 0);
	air_config_free(cfg);
}
