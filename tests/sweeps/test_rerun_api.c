/* test_rerun_api.c: air_client_rerun() against the fake workspace — the same
 * launch directory and snapshot without overrides (nothing uploaded), a new
 * launch directory with them, the derived key (the same rerun twice is one
 * run), deleted launch files (the config: an error; another: written again
 * from the config) or snapshot, and runs that cannot be rerun. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "submit_test.h"
#include "test.h"

AIR_TEST_HOOKS(flow_setup, NULL)

#define SUBMIT "/api/2.2/jobs/runs/submit"
#define WORKLOAD "experiment_name: exp\ncommand: python train.py\n" \
                 "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n" \
                 "parameters: {lr: 0.01}\n"

/* A run submitted from a workload with a plain-tar code snapshot. */
static air_submission *submitted(air_client *c)
{
	const char *dir = air_test_tmpdir();
	char code[4200], yaml[8400];
	air_config *cfg;
	air_submission *sub = NULL;
	air_error *err = NULL;

	snprintf(code, sizeof(code), "%s/code/train.py", dir);
	air_test_write_file(code, "print(1)\n", 9);
	snprintf(yaml, sizeof(yaml), WORKLOAD "code_source: {root_path: code}\n");
	cfg = load_yaml(dir, "w.yaml", yaml);
	ASSERT_OK(air_client_submit(c, cfg, NULL, &sub, &err), err);
	air_config_free(cfg);
	return sub;
}

static int rerun(air_client *c, int64_t id, const char *override, const char *key,
                 air_submission **out, air_error **err)
{
	air_rerun_options *o = NULL;
	int rc;

	ASSERT_EQ_INT(air_rerun_options_new(&o), AIR_OK);
	if (override)
		ASSERT_EQ_INT(air_rerun_options_add_override(o, override), AIR_OK);
	if (key)
		ASSERT_EQ_INT(air_rerun_options_set_str(o, AIR_RERUN_IDEMPOTENCY_KEY, key), AIR_OK);
	rc = air_client_rerun(c, id, o, out, err);
	air_rerun_options_free(o);
	return rc;
}

static const char *submitted_str(const char *key)
{
	static char buf[1024];
	json_t *b = last_body("POST", SUBMIT), *task;

	if (!strcmp(key, "command_path") || !strcmp(key, "code_source_path")) {
		task = json_object_get(json_array_get(json_object_get(b, "tasks"), 0), "ai_runtime_task");
		if (!strcmp(key, "command_path"))
			task = json_array_get(json_object_get(task, "deployments"), 0);
		snprintf(buf, sizeof(buf), "%s", json_string_value(json_object_get(task, key)));
	} else {
		snprintf(buf, sizeof(buf), "%s", json_string_value(json_object_get(b, key)));
	}
	json_decref(b);
	return buf;
}

AIR_TEST(rerun__the_same_workload_again_uploading_nothing)
{
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted(c), *again = NULL, *twice = NULL;
	air_error *err = NULL;
	char key[128];

	fakews_clear_requests(flow_fw);
	ASSERT_OK(rerun(c, air_submission_run_id(first), NULL, NULL, &again, &err), err);
	ASSERT_NE_INT(air_submission_run_id(again), air_submission_run_id(first));
	ASSERT_EQ_STR(air_submission_launch_dir(again), air_submission_launch_dir(first));
	ASSERT_EQ_STR(air_submission_code_source_path(again), air_submission_code_source_path(first));
	ASSERT_EQ_INT(count_prefix("POST", "/api/2.0/workspace-files/import-file/"), 0);
	ASSERT_EQ_INT(count_prefix("PUT", "/api/2.0/fs/files"), 0);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/workspace/mkdirs"), 0);
	snprintf(key, sizeof(key), "rerun-%lld-", (long long)air_submission_run_id(first));
	ASSERT_TRUE(has_prefix(submitted_str("idempotency_token"), key));
	ASSERT_TRUE(has_suffix(submitted_str("command_path"), "/command.sh"));
	ASSERT_EQ_STR(submitted_str("code_source_path"), air_submission_code_source_path(first));
	ASSERT_EQ_STR(submitted_str("run_name"), "exp");
	/* the same rerun again: the same run */
	ASSERT_OK(rerun(c, air_submission_run_id(first), NULL, NULL, &twice, &err), err);
	ASSERT_EQ_INT(air_submission_run_id(twice), air_submission_run_id(again));
	/* a key of one's own: a new run */
	air_submission_free(twice);
	ASSERT_OK(rerun(c, air_submission_run_id(first), NULL, "fresh-1", &twice, &err), err);
	ASSERT_NE_INT(air_submission_run_id(twice), air_submission_run_id(again));
	ASSERT_EQ_STR(submitted_str("idempotency_token"), "fresh-1");
	air_submission_free(first);
	air_submission_free(again);
	air_submission_free(twice);
	air_client_free(c);
}

AIR_TEST(rerun__with_an_override_writes_a_new_launch_directory)
{
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted(c), *again = NULL;
	air_error *err = NULL;
	char path[1024], *text;

	ASSERT_OK(rerun(c, air_submission_run_id(first), "parameters.lr=0.5", NULL, &again, &err),
	          err);
	ASSERT_TRUE(strcmp(air_submission_launch_dir(again), air_submission_launch_dir(first)) != 0);
	ASSERT_EQ_STR(air_submission_code_source_path(again), air_submission_code_source_path(first));
	ASSERT_EQ_STR(submitted_str("run_name"), "exp lr=0.5");
	/* The past run had no overrides: its files and settings are its config's. */
	ASSERT_EQ_INT(air_submission_warning_count(again), 0);
	snprintf(path, sizeof(path), "%s/hyperparameters.yaml", air_submission_launch_dir(again));
	text = fakews_file(flow_fw, path, NULL);
	ASSERT_TRUE(text && strstr(text, "lr: 0.5"));
	free(text);
	snprintf(path, sizeof(path), "%s/training_config.yaml", air_submission_launch_dir(again));
	text = fakews_file(flow_fw, path, NULL);
	ASSERT_TRUE(text && strstr(text, "lr: 0.5"));
	free(text);
	/* a different override is a different key */
	ASSERT_TRUE(strcmp(air_submission_idempotency_token(again),
	                   "rerun-0-0000000000000000") != 0);
	air_submission_free(first);
	air_submission_free(again);
	air_client_free(c);
}

/* The member at dotted @path of @v (array indexes as numbers), or NULL. */
static json_t *json_at(json_t *v, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *part = strtok_r(buf, ".", &save); part && v; part = strtok_r(NULL, ".", &save))
		v = json_is_array(v) ? json_array_get(v, strtoul(part, NULL, 10))
		                     : json_object_get(v, part);
	return v;
}

/* The task of the last runs/submit. */
static json_t *submitted_task(void)
{
	json_t *b = last_body("POST", SUBMIT);
	json_t *task = json_incref(json_array_get(json_object_get(b, "tasks"), 0));

	json_decref(b);
	return task;
}

static void assert_launch_file(const char *dir, const char *name, const char *part)
{
	char path[1024], *text;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	text = fakews_file(flow_fw, path, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, part);
	free(text);
}

/* Remove launch file @name of @sub, as a user may have. */
static void delete_launch_file(const air_submission *sub, const char *name)
{
	char q[2048];

	snprintf(q, sizeof(q), "/__fakews/file?path=%s/%s", air_submission_launch_dir(sub), name);
	json_decref(fakews_call(flow_fw, "DELETE", q, NULL));
}

/* A run of WORKLOAD submitted with @overrides (NULL-terminated). */
static air_submission *submitted_with(air_client *c, const char *const *overrides)
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", WORKLOAD);
	air_submission *sub = NULL;
	air_error *err = NULL;

	for (size_t i = 0; overrides[i]; i++)
		ASSERT_OK(air_config_override(cfg, overrides[i], &err), err);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_OK(air_client_submit(c, cfg, NULL, &sub, &err), err);
	air_config_free(cfg);
	return sub;
}

static int64_t submitted_count(void)
{
	json_t *task = submitted_task();
	int64_t n = json_integer_value(json_at(task, "ai_runtime_task.deployments.0.compute."
	                                             "accelerator_count"));

	json_decref(task);
	return n;
}

/* `air run --override` writes training_config.yaml as read: its overrides
 * are in the run's launch files and in what runs/get shows. A rerun keeps
 * them, with or without overrides of its own, and its own win. */
AIR_TEST(rerun__keeps_what_the_past_run_was_submitted_with)
{
	static const char *const overrides[] = {
		"compute.num_accelerators=4", "compute.pool_id=pool-a", "compute.priority_class=best_effort",
		"max_retries=1", "timeout_minutes=30", "command=python train.py --fast",
		"parameters.steps=9", "env_variables.MODE=fast", "secrets.TOKEN=team/token", NULL};
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted_with(c, overrides), *again = NULL;
	air_error *err = NULL;
	json_t *task;

	assert_launch_file(air_submission_launch_dir(first), "training_config.yaml",
	                   "num_accelerators: 1");

	/* With an override: a new launch directory, the past run's settings kept. */
	ASSERT_OK(rerun(c, air_submission_run_id(first), "parameters.lr=0.5", NULL, &again, &err),
	          err);
	ASSERT_EQ_INT(air_submission_warning_count(again), 1);
	ASSERT_CONTAINS(air_submission_warning(again, 0),
	                "does not hold; this run keeps them (compute.num_accelerators, "
	                "compute.pool_id, compute.priority_class, max_retries, timeout_minutes, "
	                "command, parameters, env_variables, secrets)");
	task = submitted_task();
	ASSERT_EQ_INT(submitted_count(), 4);
	ASSERT_EQ_STR(json_string_value(json_at(task, "ai_runtime_task.deployments.0.compute."
	                                              "provisioned_capacity_id")), "pool-a");
	ASSERT_EQ_STR(json_string_value(json_at(task, "ai_runtime_task.priority_class")),
	              "BEST_EFFORT");
	ASSERT_EQ_INT(json_integer_value(json_object_get(task, "max_retries")), 1);
	json_decref(task);
	task = last_body("POST", SUBMIT);
	ASSERT_EQ_INT(json_integer_value(json_object_get(task, "timeout_seconds")), 1800);
	json_decref(task);
	assert_launch_file(air_submission_launch_dir(again), "command.sh", "python train.py --fast");
	assert_launch_file(air_submission_launch_dir(again), "hyperparameters.yaml", "steps: 9");
	assert_launch_file(air_submission_launch_dir(again), "hyperparameters.yaml", "lr: 0.5");
	assert_launch_file(air_submission_launch_dir(again), "env_vars.json", "\"MODE\"");
	assert_launch_file(air_submission_launch_dir(again), "secret_env_vars.json",
	                   "\"secret_scope\":\"team\",\"secret_key\":\"token\"");
	assert_launch_file(air_submission_launch_dir(again), "training_config.yaml",
	                   "num_accelerators: 4");
	air_submission_free(again);

	/* Without: the same launch directory, which holds the files' part. */
	ASSERT_OK(rerun(c, air_submission_run_id(first), NULL, NULL, &again, &err), err);
	ASSERT_EQ_STR(air_submission_launch_dir(again), air_submission_launch_dir(first));
	ASSERT_EQ_INT(air_submission_warning_count(again), 1);
	ASSERT_CONTAINS(air_submission_warning(again, 0), "this run keeps them (compute."
	                "num_accelerators, compute.pool_id, compute.priority_class, max_retries, "
	                "timeout_minutes, command, parameters, env_variables, secrets)");
	ASSERT_EQ_INT(submitted_count(), 4);
	air_submission_free(again);

	/* The rerun's own override wins over the kept one. */
	ASSERT_OK(rerun(c, air_submission_run_id(first), "compute.num_accelerators=2", NULL, &again,
	                &err), err);
	ASSERT_EQ_INT(submitted_count(), 2);
	task = submitted_task();
	ASSERT_EQ_INT(json_integer_value(json_object_get(task, "max_retries")), 1);
	json_decref(task);
	assert_launch_file(air_submission_launch_dir(again), "command.sh", "python train.py --fast");
	air_submission_free(again);
	air_submission_free(first);
	air_client_free(c);
}

/* A setting the config refuses next to the rerun's own overrides is left
 * out, and named with the reason; the rerun is not refused for it. */
AIR_TEST(rerun__a_setting_that_cannot_be_kept_is_left_out_and_named)
{
	static const char *const overrides[] = {"compute.pool_id=pool-a",
	                                        "compute.priority_class=best_effort", NULL};
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted_with(c, overrides), *again = NULL;
	air_error *err = NULL;
	json_t *task;

	ASSERT_OK(rerun(c, air_submission_run_id(first), "compute.pool_id=null", NULL, &again, &err),
	          err);
	/* The pool the rerun removes itself is not named; the priority that
	 * needs it is. */
	ASSERT_EQ_INT(air_submission_warning_count(again), 1);
	ASSERT_CONTAINS(air_submission_warning(again, 0), "leaves out, as its config cannot take "
	                "them: compute.priority_class (compute.priority_class: requires "
	                "compute.pool_id");
	task = submitted_task();
	ASSERT_NULL(json_at(task, "ai_runtime_task.priority_class"));
	ASSERT_NULL(json_at(task, "ai_runtime_task.deployments.0.compute.provisioned_capacity_id"));
	json_decref(task);
	air_submission_free(again);
	air_submission_free(first);
	air_client_free(c);
}

/* Settings that only fit together (a GPU type and a count that is a
 * multiple of its GPUs per node) are kept together. */
AIR_TEST(rerun__settings_that_fit_only_together_are_kept_together)
{
	static const char *const overrides[] = {"compute.accelerator_type=GPU_8xH100",
	                                        "compute.num_accelerators=16", NULL};
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted_with(c, overrides), *again = NULL;
	air_error *err = NULL;
	json_t *task;

	ASSERT_OK(rerun(c, air_submission_run_id(first), NULL, NULL, &again, &err), err);
	ASSERT_EQ_INT(air_submission_warning_count(again), 1);
	ASSERT_CONTAINS(air_submission_warning(again, 0), "this run keeps them (compute."
	                "accelerator_type, compute.num_accelerators)");
	task = submitted_task();
	ASSERT_EQ_STR(json_string_value(json_at(task, "ai_runtime_task.deployments.0.compute."
	                                              "accelerator_type")), "GPU_8xH100");
	ASSERT_EQ_INT(submitted_count(), 16);
	json_decref(task);
	air_submission_free(again);
	air_submission_free(first);
	air_client_free(c);
}

/* Characters JSON leaves raw that YAML cannot hold raw (DEL, C1 controls)
 * reach the rerun's command.sh unchanged. */
AIR_TEST(rerun__keeps_a_command_with_characters_yaml_escapes)
{
	static const char *const overrides[] = {
		"command=\"echo a\\x7fb \\x9b \\N\"", NULL};
	const char *want = "echo a\x7f" "b \xc2\x9b \xc2\x85";
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted_with(c, overrides), *again = NULL;
	air_error *err = NULL;
	char path[1024], *text;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/command.sh", air_submission_launch_dir(first));
	text = fakews_file(flow_fw, path, &len);
	ASSERT_EQ_STR(text, want);
	free(text);
	ASSERT_OK(rerun(c, air_submission_run_id(first), "parameters.lr=0.5", NULL, &again, &err),
	          err);
	ASSERT_CONTAINS(air_submission_warning(again, 0), "this run keeps them (command)");
	snprintf(path, sizeof(path), "%s/command.sh", air_submission_launch_dir(again));
	text = fakews_file(flow_fw, path, &len);
	ASSERT_EQ_STR(text, want);
	free(text);
	air_submission_free(again);
	air_submission_free(first);
	air_client_free(c);
}

/* Without overrides but with a launch file deleted, the new launch
 * directory is written from the config with what the run had. */
AIR_TEST(rerun__a_deleted_launch_file_keeps_the_others_overrides)
{
	static const char *const overrides[] = {"command=python other.py", NULL};
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted_with(c, overrides), *again = NULL;
	air_error *err = NULL;

	delete_launch_file(first, "hyperparameters.yaml");
	ASSERT_OK(rerun(c, air_submission_run_id(first), NULL, NULL, &again, &err), err);
	ASSERT_TRUE(strcmp(air_submission_launch_dir(again), air_submission_launch_dir(first)) != 0);
	assert_launch_file(air_submission_launch_dir(again), "command.sh", "python other.py");
	assert_launch_file(air_submission_launch_dir(again), "hyperparameters.yaml", "lr: 0.01");
	ASSERT_CONTAINS(air_submission_warning(again, 0), "this run keeps them (command)");
	ASSERT_CONTAINS(air_submission_warning(again, 1), "the launch file hyperparameters.yaml of "
	                "run 555 was deleted: this run's launch files are written again");
	air_submission_free(again);
	air_submission_free(first);
	air_client_free(c);
}

/* A launch file written otherwise but with the same values is no override;
 * one that cannot be read (not one that is gone) stops the rerun. */
AIR_TEST(rerun__launch_files_are_compared_by_value_and_must_be_readable)
{
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted(c), *again = NULL;
	air_error *err = NULL;
	char q[2048];
	json_t *r;

	snprintf(q, sizeof(q), "/__fakews/file?path=%s/hyperparameters.yaml",
	         air_submission_launch_dir(first));
	json_decref(fakews_call(flow_fw, "POST", q, "{\"lr\": 1.0e-2}\n"));
	ASSERT_OK(rerun(c, air_submission_run_id(first), "parameters.steps=3", NULL, &again, &err),
	          err);
	ASSERT_EQ_INT(air_submission_warning_count(again), 0);
	air_submission_free(again);

	snprintf(q, sizeof(q), "%s/command.sh", air_submission_launch_dir(first));
	fakews_faultf(flow_fw, "{\"method\":\"GET\",\"path\":\"/api/2.0/workspace/export\","
	              "\"query\":{\"path\":\"%s\"},\"status\":403,\"times\":-1,"
	              "\"body\":{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"no\"}}", q);
	fakews_clear_requests(flow_fw);
	ASSERT_NE_INT(rerun(c, air_submission_run_id(first), "parameters.steps=4", NULL, &again, &err),
	              AIR_OK);
	ASSERT_CONTAINS(air_error_message(err), "command.sh");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", SUBMIT), 0);
	air_error_free(err);
	r = fakews_call(flow_fw, "DELETE", "/__fakews/faults", NULL);
	json_decref(r);
	air_submission_free(first);
	air_client_free(c);
}

AIR_TEST(rerun__a_deleted_snapshot_is_a_clear_error)
{
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted(c), *again = NULL;
	air_error *err = NULL;
	char q[2048];

	snprintf(q, sizeof(q), "/__fakews/file?path=%s", air_submission_code_source_path(first));
	json_decref(fakews_call(flow_fw, "DELETE", q, NULL));
	fakews_clear_requests(flow_fw);
	ASSERT_EQ_INT(rerun(c, air_submission_run_id(first), NULL, NULL, &again, &err),
	              AIR_ENOTFOUND);
	ASSERT_TRUE(strstr(air_error_message(err), "code snapshot"));
	ASSERT_TRUE(strstr(air_error_message(err), "deleted"));
	ASSERT_TRUE(strstr(air_error_message(err), air_submission_code_source_path(first)));
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", SUBMIT), 0);
	air_error_free(err);
	air_submission_free(first);
	air_client_free(c);
}

AIR_TEST(rerun__deleted_launch_files_are_a_clear_error)
{
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted(c), *again = NULL;
	air_error *err = NULL;

	delete_launch_file(first, "training_config.yaml");
	ASSERT_EQ_INT(rerun(c, air_submission_run_id(first), NULL, NULL, &again, &err),
	              AIR_ENOTFOUND);
	ASSERT_TRUE(strstr(air_error_message(err), "launch files"));
	ASSERT_TRUE(strstr(air_error_message(err), "training_config.yaml"));
	air_error_free(err);
	air_submission_free(first);
	air_client_free(c);
}

AIR_TEST(rerun__a_deleted_launch_file_is_written_again_from_the_config)
{
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted(c), *again = NULL;
	air_error *err = NULL;
	char path[1024], *text;

	delete_launch_file(first, "hyperparameters.yaml");
	ASSERT_OK(rerun(c, air_submission_run_id(first), NULL, NULL, &again, &err), err);
	/* not the past run's directory, which lacks the file: a new one, whole */
	ASSERT_TRUE(strcmp(air_submission_launch_dir(again), air_submission_launch_dir(first)) != 0);
	snprintf(path, sizeof(path), "%s/hyperparameters.yaml", air_submission_launch_dir(again));
	text = fakews_file(flow_fw, path, NULL);
	ASSERT_TRUE(text && strstr(text, "lr: 0.01"));
	free(text);
	snprintf(path, sizeof(path), "%s/command.sh", air_submission_launch_dir(again));
	text = fakews_file(flow_fw, path, NULL);
	ASSERT_TRUE(text && strstr(text, "python train.py"));
	free(text);
	ASSERT_TRUE(has_prefix(submitted_str("command_path"), air_submission_launch_dir(again)));
	ASSERT_EQ_STR(submitted_str("code_source_path"), air_submission_code_source_path(first));
	air_submission_free(first);
	air_submission_free(again);
	air_client_free(c);
}

AIR_TEST(rerun__a_bad_override_names_the_field)
{
	air_client *c = fakews_client(flow_fw);
	air_submission *first = submitted(c), *again = NULL;
	air_error *err = NULL;

	fakews_clear_requests(flow_fw);
	ASSERT_EQ_INT(rerun(c, air_submission_run_id(first), "compute.num_accelerators=0", NULL,
	                    &again, &err), AIR_ECONFIG);
	ASSERT_EQ_STR(air_error_field(err), "compute.num_accelerators");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", SUBMIT), 0);
	air_error_free(err);
	air_submission_free(first);
	air_client_free(c);
}

AIR_TEST(rerun__runs_that_cannot_be_rerun)
{
	air_client *c = fakews_client(flow_fw);
	air_submission *again = NULL;
	air_error *err = NULL;
	int64_t other = fakews_create_runf(flow_fw, "{\"run_name\":\"notebook\",\"tasks\":"
	                                   "[{\"task_key\":\"t\",\"notebook_task\":{}}]}");

	ASSERT_EQ_INT(rerun(c, 424242, NULL, NULL, &again, &err), AIR_ENOTFOUND);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(rerun(c, other, NULL, NULL, &again, &err), AIR_ENOTFOUND);
	ASSERT_TRUE(strstr(air_error_message(err), "not an AI Runtime run"));
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_client_rerun(c, 0, NULL, &again, &err), AIR_EINVAL);
	air_error_free(err);
	air_client_free(c);
}
