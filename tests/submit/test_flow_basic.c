/* test_flow_basic.c: air_client_submit() against the fake workspace — the
 * minimal submission (SCENARIOS S08) request by request, and every example
 * workload of examples/ with its payload and uploaded files built
 * independently here (S10, S11, S12). */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#include "submit_test.h"
#include "test.h"

AIR_TEST_HOOKS(flow_setup, NULL)

#define U "/Workspace/Users/tester@databricks.com"

static const char valid_yaml[] = "experiment_name: smoke-test\n"
                                 "command: python train.py\n"
                                 "compute:\n"
                                 "  accelerator_type: GPU_1xH100\n"
                                 "  num_accelerators: 1\n";

static air_submission *submit_ok(air_client *c, const air_config *cfg, const air_submit_options *o)
{
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_submit(c, cfg, o, &sub, &err), err);
	ASSERT_NOT_NULL(sub);
	return sub;
}

static char *file_text(const char *path)
{
	size_t len = 0;
	char *data = fakews_file(flow_fw, path, &len);

	if (!data)
		FAIL("no file was uploaded at %s", path);
	return data;
}

static void assert_file(const char *dir, const char *name, const char *want)
{
	char path[4200];
	char *got;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	got = file_text(path);
	ASSERT_EQ_STR(got, want);
	free(got);
}

/* The uploaded YAML file as a JSON value (parsed with libfyaml, independently). */
static json_t *yaml_file_as_json(const char *path)
{
	char *text = file_text(path), *js;
	struct fy_document *doc = fy_document_build_from_string(NULL, text, FY_NT);
	json_t *v;

	ASSERT_NOT_NULL(doc);
	js = fy_emit_document_to_string(doc, FYECF_MODE_JSON_ONELINE);
	v = json_loads(js, 0, NULL);
	ASSERT_NOT_NULL(v);
	free(js);
	fy_document_destroy(doc);
	free(text);
	return v;
}

static char *source_bytes(const char *path)
{
	char *s = air_test_read_file(path, NULL);

	ASSERT_NOT_NULL(s);
	return s;
}

AIR_TEST(flow__minimal_submit_request_by_request)
{
	const char *dir = air_test_tmpdir();
	air_config *cfg = load_yaml(dir, "valid.yaml", valid_yaml);
	air_client *c = fakews_client(flow_fw);
	air_submission *sub = submit_ok(c, cfg, NULL);
	const char *L = air_submission_launch_dir(sub), *token = air_submission_idempotency_token(sub);
	char want[8192], url[256];

	/* L = U/.air/cli_launch/smoke-test/smoke-test_<16 hex> */
	ASSERT_EQ_INT(fnmatch(U "/.air/cli_launch/smoke-test/smoke-test_[0-9a-f]*", L, 0), 0);
	ASSERT_EQ_INT(strlen(L), strlen(U "/.air/cli_launch/smoke-test/smoke-test_") + 16);
	ASSERT_EQ_INT(air_submission_run_id(sub), 555);
	snprintf(url, sizeof(url), "%s/jobs/runs/555", fakews_url(flow_fw));
	ASSERT_EQ_STR(air_submission_dashboard_url(sub), url);
	ASSERT_NULL(air_submission_code_source_path(sub));
	ASSERT_EQ_INT(air_submission_snapshot_reused(sub), 0);
	ASSERT_TRUE(is_uuid4(token));

	/* Me, pre-flight, one mkdirs, the two uploads (any order), submit */
	snprintf(want, sizeof(want),
	         "GET /api/2.0/preview/scim/v2/Me\n"
	         "POST /api/2.0/ai-training/config:validate\n"
	         "POST /api/2.0/workspace/mkdirs\n");
	ASSERT_TRUE(has_prefix(request_log(), want));
	ASSERT_EQ_INT(fakews_count(flow_fw, "*", "*"), 6);
	ASSERT_EQ_INT(count_prefix("POST", "/api/2.0/workspace-files/import-file/"), 2);
	ASSERT_TRUE(has_suffix(request_log(), "POST /api/2.2/jobs/runs/submit\n"));

	snprintf(want, sizeof(want), "{\"path\":\"%s\"}", L);
	assert_json_eq(last_body("POST", "/api/2.0/workspace/mkdirs"), want);
	snprintf(want, sizeof(want),
	         "{\"task\":{\"experiment\":\"smoke-test\",\"deployments\":[{\"command_path\":\"%s/command.sh\","
	         "\"compute\":{\"accelerator_type\":\"GPU_1xH100\",\"accelerator_count\":1}}]}}", L);
	assert_json_eq(last_body("POST", "/api/2.0/ai-training/config:validate"), want);
	snprintf(want, sizeof(want),
	         "{\"run_name\":\"smoke-test\",\"idempotency_token\":\"%s\","
	         "\"tasks\":[{\"task_key\":\"smoke-test\",\"run_if\":\"ALL_SUCCESS\",\"environment_key\":\"default\","
	         "\"max_retries\":3,\"retry_on_timeout\":true,"
	         "\"ai_runtime_task\":{\"experiment\":\"smoke-test\",\"deployments\":[{\"command_path\":\"%s/command.sh\","
	         "\"compute\":{\"accelerator_type\":\"GPU_1xH100\",\"accelerator_count\":1}}]}}],"
	         "\"environments\":[{\"environment_key\":\"default\",\"spec\":{\"environment_version\":\"6\"}}]}",
	         token, L);
	assert_json_eq(last_body("POST", "/api/2.2/jobs/runs/submit"), want);
	assert_file(L, "training_config.yaml", valid_yaml);
	assert_file(L, "command.sh", "python train.py");

	/* the user is cached on the client: the next run makes 5 requests */
	air_submission_free(sub);
	fakews_clear_requests(flow_fw);
	sub = submit_ok(c, cfg, NULL);
	ASSERT_EQ_INT(fakews_count(flow_fw, "*", "*"), 5);
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/preview/scim/v2/Me"), 0);
	air_submission_free(sub);
	air_client_free(c);
	air_config_free(cfg);
}

/* ---- the shipped examples ---- */

typedef struct example {
	char dir[4096];
	air_config *cfg;
	air_submission *sub;
	const char *L, *T; /* launch directory and token of the submission */
} example;

/* Copy examples/<name> and examples/code to a fresh directory (outside any
 * git repository), load it and submit it. */
static void run_example(example *ex, const char *name)
{
	air_client *c = fakews_client(flow_fw);

	snprintf(ex->dir, sizeof(ex->dir), "%s", air_test_tmpdir());
	sh("cp -r '%s/examples/code' '%s/examples/%s' '%s/'", air_test_source_root(),
	   air_test_source_root(), name, ex->dir);
	{
		char path[4200];
		air_error *err = NULL;
		snprintf(path, sizeof(path), "%s/%s", ex->dir, name);
		if (air_config_load_file(path, &ex->cfg, &err) != AIR_OK)
			FAIL("%s: %s", name, air_error_message(err));
	}
	ex->sub = submit_ok(c, ex->cfg, NULL);
	ex->L = air_submission_launch_dir(ex->sub);
	ex->T = air_submission_idempotency_token(ex->sub);
	air_client_free(c);
}

static void example_done(example *ex)
{
	air_submission_free(ex->sub);
	air_config_free(ex->cfg);
}

/* The names of the files uploaded under @dir, sorted, comma-separated. */
static const char *files_under(const char *dir)
{
	static char buf[4096];
	json_t *all = fakews_call(flow_fw, "GET", "/__fakews/files", NULL), *f;
	size_t i, off = 0, n = strlen(dir);

	buf[0] = '\0';
	json_array_foreach(json_object_get(all, "files"), i, f) {
		const char *p = json_string_value(json_object_get(f, "path"));
		if (!strncmp(p, dir, n) && p[n] == '/')
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", off ? "," : "", p + n + 1);
	}
	json_decref(all);
	return buf;
}

static void assert_source_uploaded(const example *ex, const char *name)
{
	char path[4200], *want;

	snprintf(path, sizeof(path), "%s/%s", ex->dir, name);
	want = source_bytes(path);
	assert_file(ex->L, "training_config.yaml", want);
	free(want);
}

/* The entries of the uploaded snapshot equal what find(1) lists for @paths
 * (directories with a trailing '/'), plus the @extra entries. */
static void assert_snapshot_is(const example *ex, const char *paths, const char *extra)
{
	const char *csp = air_submission_code_source_path(ex->sub);
	size_t len = 0;
	char *data = fakews_file(flow_fw, csp, &len), names[4096];
	tar_list l;

	ASSERT_NOT_NULL(data);
	tar_read(data, len, &l);
	snprintf(names, sizeof(names), "%s", tar_names(&l));
	sh("cd '%s' && printf '%%s' '%s' | tr ',' '\\n' | LC_ALL=C sort > got.txt", ex->dir, names);
	sh("cd '%s' && { find %s -type d | sed 's|$|/|'; find %s ! -type d; printf '%%s' '%s' | tr ',' '\\n'; } "
	   "| grep -v '^$' | LC_ALL=C sort > want.txt && { cmp -s got.txt want.txt || "
	   "{ diff got.txt want.txt >&2; exit 1; }; }", ex->dir, paths, paths, extra);
	tar_free(&l);
	free(data);
}

AIR_TEST(flow__example_single_gpu)
{
	example ex;
	char want[8192];

	run_example(&ex, "single-gpu.yaml");
	snprintf(want, sizeof(want),
	         "{\"run_name\":\"single-gpu-quickstart\",\"idempotency_token\":\"%s\",\"timeout_seconds\":1800,"
	         "\"tasks\":[{\"task_key\":\"single-gpu-quickstart\",\"run_if\":\"ALL_SUCCESS\","
	         "\"environment_key\":\"default\",\"max_retries\":0,"
	         "\"ai_runtime_task\":{\"experiment\":\"single-gpu-quickstart\",\"deployments\":[{"
	         "\"command_path\":\"%s/command.sh\",\"compute\":{\"accelerator_type\":\"GPU_1xA10\","
	         "\"accelerator_count\":1}}]}}],"
	         "\"environments\":[{\"environment_key\":\"default\",\"spec\":{\"environment_version\":\"6\","
	         "\"dependencies\":[\"torch==2.3.0\",\"numpy\"]}}]}", ex.T, ex.L);
	assert_json_eq(last_body("POST", "/api/2.2/jobs/runs/submit"), want);
	snprintf(want, sizeof(want),
	         "{\"task\":{\"experiment\":\"single-gpu-quickstart\",\"deployments\":[{"
	         "\"command_path\":\"%s/command.sh\",\"compute\":{\"accelerator_type\":\"GPU_1xA10\","
	         "\"accelerator_count\":1}}]},\"run_options\":{\"max_retries\":0,\"timeout_minutes\":30}}", ex.L);
	assert_json_eq(last_body("POST", "/api/2.0/ai-training/config:validate"), want);
	ASSERT_EQ_STR(files_under(ex.L), "command.sh,training_config.yaml");
	assert_source_uploaded(&ex, "single-gpu.yaml");
	assert_file(ex.L, "command.sh",
	            "python -c \"import torch; print('CUDA available:', torch.cuda.is_available())\"\n");
	example_done(&ex);
}

AIR_TEST(flow__example_multi_node_h100)
{
	example ex;
	char want[8192], path[4200];
	const char *csp;

	run_example(&ex, "multi-node-h100.yaml");
	csp = air_submission_code_source_path(ex.sub);
	/* plain tar (no git block): named by the UTC time */
	ASSERT_TRUE(has_prefix(csp, U "/.air/repo_snapshots/.internal/code_20"));
	ASSERT_TRUE(has_suffix(csp, ".tar.gz"));
	ASSERT_EQ_INT(strlen(csp), strlen(U "/.air/repo_snapshots/.internal/code_YYYYMMDD_HHMMSS.tar.gz"));
	/* mlflow_run_name names the launch directory */
	ASSERT_TRUE(has_prefix(ex.L, U "/.air/cli_launch/llm-pretrain-h100/pretrain-1b-h100_"));
	snprintf(want, sizeof(want),
	         "{\"run_name\":\"llm-pretrain-h100\",\"idempotency_token\":\"%s\",\"timeout_seconds\":43200,"
	         "\"tasks\":[{\"task_key\":\"llm-pretrain-h100\",\"run_if\":\"ALL_SUCCESS\","
	         "\"environment_key\":\"default\",\"max_retries\":2,\"retry_on_timeout\":true,"
	         "\"ai_runtime_task\":{\"experiment\":\"llm-pretrain-h100\",\"deployments\":[{"
	         "\"command_path\":\"%s/command.sh\",\"compute\":{\"accelerator_type\":\"GPU_8xH100\","
	         "\"accelerator_count\":128}}],\"code_source_path\":\"%s\",\"mlflow_run\":\"pretrain-1b-h100\"}}],"
	         "\"environments\":[{\"environment_key\":\"default\",\"spec\":{"
	         "\"base_environment\":\"workspace-base-environments/databricks_ai_v6\"}}]}", ex.T, ex.L, csp);
	assert_json_eq(last_body("POST", "/api/2.2/jobs/runs/submit"), want);
	snprintf(want, sizeof(want),
	         "{\"task\":{\"experiment\":\"llm-pretrain-h100\",\"deployments\":[{"
	         "\"command_path\":\"%s/command.sh\",\"compute\":{\"accelerator_type\":\"GPU_8xH100\","
	         "\"accelerator_count\":128}}],\"mlflow_run\":\"pretrain-1b-h100\"},"
	         "\"run_options\":{\"max_retries\":2,\"timeout_minutes\":720}}", ex.L);
	assert_json_eq(last_body("POST", "/api/2.0/ai-training/config:validate"), want);
	ASSERT_EQ_STR(files_under(ex.L), "command.sh,hyperparameters.yaml,training_config.yaml");
	assert_source_uploaded(&ex, "multi-node-h100.yaml");
	assert_file(ex.L, "command.sh",
	            "torchrun \\\n  --nnodes=$NUM_NODES \\\n  --node_rank=$NODE_RANK \\\n"
	            "  --nproc_per_node=8 \\\n  --master_addr=$MASTER_ADDR \\\n  --master_port=$MASTER_PORT \\\n"
	            "  $CODE_SOURCE_PATH/trainer/train.py --config $HYPERPARAMETERS_PATH\n");
	snprintf(path, sizeof(path), "%s/hyperparameters.yaml", ex.L);
	assert_json_eq(yaml_file_as_json(path),
	               "{\"model\":\"llama-style-1b\",\"seq_len\":4096,\"global_batch_size\":1024,"
	               "\"optimizer\":{\"name\":\"adamw\",\"lr\":0.0003,\"weight_decay\":0.1}}");
	assert_snapshot_is(&ex, "code", "");
	/* no cache check for a plain snapshot, and no git sidecars outside git */
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/workspace/get-status"), 0);
	example_done(&ex);
}

AIR_TEST(flow__example_code_source_with_env_secrets_parameters)
{
	example ex;
	char want[8192], path[4200];
	const char *csp;

	run_example(&ex, "code-source.yaml");
	csp = air_submission_code_source_path(ex.sub);
	snprintf(want, sizeof(want),
	         "{\"run_name\":\"finetune-with-code\",\"idempotency_token\":\"%s\","
	         "\"tasks\":[{\"task_key\":\"finetune-with-code\",\"run_if\":\"ALL_SUCCESS\","
	         "\"environment_key\":\"default\",\"max_retries\":3,\"retry_on_timeout\":true,"
	         "\"ai_runtime_task\":{\"experiment\":\"finetune-with-code\",\"deployments\":[{"
	         "\"command_path\":\"%s/command.sh\",\"compute\":{\"accelerator_type\":\"GPU_1xH100\","
	         "\"accelerator_count\":2}}],\"code_source_path\":\"%s\"}}],"
	         "\"environments\":[{\"environment_key\":\"default\",\"spec\":{\"environment_version\":\"6\","
	         "\"dependencies\":[\"-r requirements.txt\",\"transformers==4.44.0\"]}}],"
	         "\"access_control_list\":[{\"group_name\":\"ml-team\",\"permission_level\":\"CAN_MANAGE_RUN\"},"
	         "{\"user_name\":\"someone@example.com\",\"permission_level\":\"CAN_VIEW\"}]}", ex.T, ex.L, csp);
	assert_json_eq(last_body("POST", "/api/2.2/jobs/runs/submit"), want);
	snprintf(want, sizeof(want),
	         "{\"task\":{\"experiment\":\"finetune-with-code\",\"deployments\":[{"
	         "\"command_path\":\"%s/command.sh\",\"compute\":{\"accelerator_type\":\"GPU_1xH100\","
	         "\"accelerator_count\":2}}]},\"run_options\":{"
	         "\"env_variables\":{\"LOG_LEVEL\":\"info\",\"TOKENIZERS_PARALLELISM\":\"false\"},"
	         "\"secrets\":{\"HF_TOKEN\":\"ml-team/huggingface-token\"}}}", ex.L);
	assert_json_eq(last_body("POST", "/api/2.0/ai-training/config:validate"), want);
	ASSERT_EQ_STR(files_under(ex.L), "command.sh,env_vars.json,hyperparameters.yaml,"
	                                 "secret_env_vars.json,training_config.yaml");
	assert_source_uploaded(&ex, "code-source.yaml");
	assert_file(ex.L, "command.sh",
	            "cd $CODE_SOURCE_PATH\npip install -r requirements.txt\n"
	            "python -m trainer.finetune --config configs/finetune.yaml --params $HYPERPARAMETERS_PATH\n");
	assert_file(ex.L, "env_vars.json", "[{\"name\":\"LOG_LEVEL\",\"value\":\"info\"},"
	                                   "{\"name\":\"TOKENIZERS_PARALLELISM\",\"value\":\"false\"}]");
	assert_file(ex.L, "secret_env_vars.json", "[{\"name\":\"HF_TOKEN\",\"secret_scope\":\"ml-team\","
	                                          "\"secret_key\":\"huggingface-token\"}]");
	snprintf(path, sizeof(path), "%s/hyperparameters.yaml", ex.L);
	assert_json_eq(yaml_file_as_json(path), "{\"learning_rate\":2.0e-5,\"epochs\":3,"
	                                        "\"lora\":{\"r\":16,\"alpha\":32,\"dropout\":0.05}}");
	/* only the include paths (and their parents) */
	assert_snapshot_is(&ex, "code/trainer code/configs/finetune.yaml code/requirements.txt",
	                   "code/,code/configs/");
	example_done(&ex);
}

AIR_TEST(flow__example_nested_code_source)
{
	example ex;
	char want[8192];

	run_example(&ex, "nested-code-source.yaml");
	snprintf(want, sizeof(want),
	         "{\"run_name\":\"nested-form-example\",\"idempotency_token\":\"%s\","
	         "\"tasks\":[{\"task_key\":\"nested-form-example\",\"run_if\":\"ALL_SUCCESS\","
	         "\"environment_key\":\"default\",\"max_retries\":3,\"retry_on_timeout\":true,"
	         "\"ai_runtime_task\":{\"experiment\":\"nested-form-example\",\"deployments\":[{"
	         "\"command_path\":\"%s/command.sh\",\"compute\":{\"accelerator_type\":\"GPU_1xA10\","
	         "\"accelerator_count\":1}}],\"code_source_path\":\"%s\"}}],"
	         "\"environments\":[{\"environment_key\":\"default\",\"spec\":{\"environment_version\":\"6\"}}]}",
	         ex.T, ex.L, air_submission_code_source_path(ex.sub));
	assert_json_eq(last_body("POST", "/api/2.2/jobs/runs/submit"), want);
	ASSERT_EQ_STR(files_under(ex.L), "command.sh,training_config.yaml");
	assert_file(ex.L, "command.sh", "python $CODE_SOURCE_PATH/trainer/train.py --steps 10");
	assert_snapshot_is(&ex, "code/trainer", "code/");
	example_done(&ex);
}

AIR_TEST(flow__retries_timeout_and_runtime_channel)
{
	const char *dir = air_test_tmpdir();
	air_config *cfg = load_yaml(dir, "w.yaml",
	                            "experiment_name: smoke-test\ncommand: python train.py\n"
	                            "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"
	                            "max_retries: 0\ntimeout_minutes: 30\n");
	air_client_options *o = fakews_client_options(flow_fw);
	air_client *c;
	air_submission *sub;
	json_t *body, *task;

	/* S11: DATABRICKS_DL_RUNTIME_IMAGE (here the client option) CLIENT-GPU-7 -> "7" */
	ASSERT_EQ_INT(air_client_options_set_str(o, AIR_OPT_DEFAULT_RUNTIME, "CLIENT-GPU-7"), AIR_OK);
	c = fakews_client_from(o);
	sub = submit_ok(c, cfg, NULL);
	assert_json_eq(last_body_member("POST", "/api/2.0/ai-training/config:validate", "run_options"),
	               "{\"max_retries\":0,\"timeout_minutes\":30}");
	body = last_body("POST", "/api/2.2/jobs/runs/submit");
	task = json_array_get(json_object_get(body, "tasks"), 0);
	ASSERT_EQ_INT(json_integer_value(json_object_get(task, "max_retries")), 0);
	ASSERT_NULL(json_object_get(task, "retry_on_timeout"));
	ASSERT_EQ_INT(json_integer_value(json_object_get(body, "timeout_seconds")), 1800);
	assert_json_eq(json_incref(json_object_get(json_array_get(json_object_get(body, "environments"), 0),
	                                           "spec")),
	               "{\"environment_version\":\"7\"}");
	json_decref(body);
	air_submission_free(sub);
	air_client_free(c);
	air_config_free(cfg);
}
