/* test_bundle.c: air_config_write_bundle() (docs/submit.md#as-a-bundle). The
 * databricks.yml written is parsed back with libfyaml and every mapped field
 * checked, key order and scalar styles included; the job's ai_runtime_task,
 * environment spec and generated artifacts are compared with what a real
 * submission of the same config sends to the fake workspace; then defaults,
 * quoting, stability, the refusals, --force and the code source's location. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <libfyaml.h>

#include <air/air.h>

#include "submit_test.h"
#include "test.h"

AIR_TEST_HOOKS(flow_setup, NULL)

#define FULL                                                                            \
	"experiment_name: \"123\"\n"                                                        \
	"command: |\n  cd $CODE_SOURCE_PATH\n  torchrun train.py --lr 0.1 # tuned\n"        \
	"compute:\n  accelerator_type: GPU_8xH100\n  num_accelerators: 16\n"                \
	"  pool_id: \" pool-1 \"\n  priority_class: normal\n"                               \
	"environment:\n  version: 5\n"                                                      \
	"  dependencies: [numpy, \"torch==2.3.0\", \"--extra-index-url https://x.io/s\", \"yes\"]\n" \
	"code_source:\n  root_path: ./src\n"                                                \
	"env_variables: {A: \"1\", B: \"# not a comment\"}\n"                               \
	"secrets: {HF: scope/hf_token}\n"                                                   \
	"parameters: {lr: 0.1, layers: [1, 2]}\n"                                           \
	"max_retries: 2\ntimeout_minutes: 90\nidempotency_token: not-mapped\n"              \
	"mlflow_run_name: r1\n"                                                             \
	"mlflow_experiment_directory: \"/Workspace/Users/a b/#exp: x\"\n"                   \
	"mlflow_artifact_location: /Volumes/main/ml/art\n"                                  \
	"permissions:\n  - {user_name: a@b.com, level: CAN_VIEW}\n"                         \
	"  - {group_name: \"true\", level: CAN_MANAGE_RUN}\n"                               \
	"  - {service_principal_name: sp-1, level: CAN_MANAGE}\n"                           \
	"usage_policy_id: \" 12345678-1234-1234-1234-123456789012 \"\n"

#define MINIMAL "experiment_name: tiny\ncommand: echo hi\n" \
                "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"

/* ---- reading the YAML back ---- */

/* "<dir>/<rel>" into @buf (FAIL when too long). */
static const char *join(char *buf, size_t n, const char *dir, const char *rel)
{
	if ((size_t)snprintf(buf, n, "%s/%s", dir, rel) >= n)
		FAIL("path too long: %s/%s", dir, rel);
	return buf;
}

static struct fy_document *load_bundle(const char *dir)
{
	char path[8192];
	struct fy_document *d;

	join(path, sizeof(path), dir, "databricks.yml");
	d = fy_document_build_from_file(NULL, path);
	if (!d)
		FAIL("%s does not parse", path);
	return d;
}

/* The node under @n at the path: mapping keys by text, sequence items by index. */
static struct fy_node *at(struct fy_node *n, const char *path)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *seg = strtok_r(buf, "/", &save); seg && n; seg = strtok_r(NULL, "/", &save)) {
		if (fy_node_is_sequence(n)) {
			n = fy_node_sequence_get_by_index(n, atoi(seg));
		} else if (fy_node_is_mapping(n)) {
			void *iter = NULL;
			struct fy_node_pair *p;
			struct fy_node *found = NULL;
			while ((p = fy_node_mapping_iterate(n, &iter))) {
				size_t len;
				const char *k = fy_node_get_scalar(fy_node_pair_key(p), &len);
				if (k && len == strlen(seg) && !memcmp(k, seg, len))
					found = fy_node_pair_value(p);
			}
			n = found;
		} else {
			n = NULL;
		}
	}
	return n;
}

/* Scalar text at @path ("(absent)" when missing; static buffer). */
static const char *text_at(struct fy_node *root, const char *path)
{
	static char buf[1024];
	struct fy_node *n = at(root, path);
	size_t len = 0;
	const char *t = n && fy_node_is_scalar(n) ? fy_node_get_scalar(n, &len) : NULL;

	snprintf(buf, sizeof(buf), "%.*s", t ? (int)len : 9, t ? t : "(absent)");
	return buf;
}

static bool plain_at(struct fy_node *root, const char *path)
{
	struct fy_node *n = at(root, path);
	return n && fy_node_get_style(n) == FYNS_PLAIN;
}

/* The keys of the mapping at @path, comma-separated (static buffer). */
static const char *keys_at(struct fy_node *root, const char *path)
{
	static char buf[1024];
	struct fy_node *n = at(root, path);
	void *iter = NULL;
	struct fy_node_pair *p;
	size_t off = 0;

	buf[0] = '\0';
	while (n && (p = fy_node_mapping_iterate(n, &iter))) {
		size_t len;
		const char *k = fy_node_get_scalar(fy_node_pair_key(p), &len);
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%.*s", off ? "," : "", (int)len, k);
	}
	return buf;
}

/* YAML -> JSON with the core schema's plain integers and booleans. */
static json_t *to_json(struct fy_node *n)
{
	json_t *out;

	if (fy_node_is_mapping(n)) {
		void *iter = NULL;
		struct fy_node_pair *p;
		out = json_object();
		while ((p = fy_node_mapping_iterate(n, &iter))) {
			size_t len;
			const char *k = fy_node_get_scalar(fy_node_pair_key(p), &len);
			char key[256];
			snprintf(key, sizeof(key), "%.*s", (int)len, k);
			json_object_set_new(out, key, to_json(fy_node_pair_value(p)));
		}
		return out;
	}
	if (fy_node_is_sequence(n)) {
		out = json_array();
		for (int i = 0; i < fy_node_sequence_item_count(n); i++)
			json_array_append_new(out, to_json(fy_node_sequence_get_by_index(n, i)));
		return out;
	}
	{
		size_t len;
		const char *t = fy_node_get_scalar(n, &len);
		char buf[4096], *end;
		long long v;
		snprintf(buf, sizeof(buf), "%.*s", (int)len, t);
		if (fy_node_get_style(n) == FYNS_PLAIN) {
			v = strtoll(buf, &end, 10);
			if (*buf && !*end)
				return json_integer(v);
			if (!strcmp(buf, "true") || !strcmp(buf, "false"))
				return json_boolean(buf[0] == 't');
		}
		return json_string(buf);
	}
}

static char *read_rel(const char *dir, const char *rel, size_t *len)
{
	char path[8192];

	join(path, sizeof(path), dir, rel);
	return air_test_read_file(path, len);
}

/* ---- writing ---- */

static air_bundle *convert(air_config *cfg, const char *out_dir, air_bundle_options *o)
{
	air_bundle *b = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_config_write_bundle(cfg, out_dir, o, &b, &err), err);
	return b;
}

static const char *files_of(const air_bundle *b)
{
	static char buf[2048];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < air_bundle_file_count(b); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? "," : "",
		                        air_bundle_file(b, i));
	return buf;
}

AIR_TEST(bundle__every_field_mapped)
{
	const char *dir = air_test_tmpdir();
	air_config *cfg;
	air_bundle *b;
	struct fy_document *d;
	struct fy_node *r;
	const char *J = "resources/jobs/123", *T = "resources/jobs/123/tasks/0";
	const char *A = "resources/jobs/123/tasks/0/ai_runtime_task";
	char src[4300];

	join(src, sizeof(src), dir, "src");
	mkdir(src, 0700);
	cfg = load_yaml(dir, "train.yaml", FULL);
	b = convert(cfg, NULL, NULL);
	ASSERT_EQ_STR(air_bundle_job_key(b), "123");
	ASSERT_EQ_STR(air_bundle_dir(b), sh_out("cd '%s' && pwd -P", dir));
	ASSERT_EQ_STR(files_of(b), "databricks.yml,generated_artifacts/training_config.yaml,"
	              "generated_artifacts/command.sh,generated_artifacts/hyperparameters.yaml,"
	              "generated_artifacts/env_vars.json,generated_artifacts/secret_env_vars.json");
	ASSERT_EQ_INT(air_bundle_removed_count(b), 0);
	d = load_bundle(dir);
	r = fy_document_root(d);
	ASSERT_EQ_STR(keys_at(r, ""), "bundle,sync,targets,resources");
	ASSERT_EQ_STR(text_at(r, "bundle/name"), "123");
	ASSERT_FALSE(plain_at(r, "bundle/name")); /* a number otherwise */
	ASSERT_EQ_STR(keys_at(r, "sync"), "paths");
	ASSERT_EQ_STR(text_at(r, "sync/paths/0"), "generated_artifacts");
	ASSERT_NULL(at(r, "sync/paths/1"));
	ASSERT_EQ_STR(keys_at(r, "targets/dev"), "mode,default");
	ASSERT_EQ_STR(text_at(r, "targets/dev/mode"), "development");
	ASSERT_EQ_STR(text_at(r, "targets/dev/default"), "true");
	ASSERT_TRUE(plain_at(r, "targets/dev/default"));
	ASSERT_EQ_STR(keys_at(r, "resources/jobs"), "123");
	{
		void *iter = NULL; /* the job's key is quoted too */
		struct fy_node_pair *p = fy_node_mapping_iterate(at(r, "resources/jobs"), &iter);
		ASSERT_TRUE(fy_node_get_style(fy_node_pair_key(p)) != FYNS_PLAIN);
	}
	ASSERT_EQ_STR(keys_at(r, J), "name,tasks,environments,budget_policy_id,permissions");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/name"), "123");
	ASSERT_EQ_STR(keys_at(r, T), "task_key,environment_key,max_retries,timeout_seconds,ai_runtime_task");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/task_key"), "123");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/environment_key"), "default");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/max_retries"), "2");
	ASSERT_TRUE(plain_at(r, "resources/jobs/123/tasks/0/max_retries"));
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/timeout_seconds"), "5400");
	ASSERT_NULL(at(r, "resources/jobs/123/tasks/1"));
	ASSERT_EQ_STR(keys_at(r, A), "experiment,deployments,priority_class,code_source_path,mlflow_run,"
	              "mlflow_experiment_directory,mlflow_artifact_location");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/experiment"), "123");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/deployments/0/command_path"),
	              "./generated_artifacts/command.sh");
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/deployments/0/compute"),
	              "accelerator_type,accelerator_count,provisioned_capacity_id");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/deployments/0/compute/"
	                         "accelerator_type"), "GPU_8xH100");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/deployments/0/compute/"
	                         "accelerator_count"), "16");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/deployments/0/compute/"
	                         "provisioned_capacity_id"), "pool-1");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/priority_class"), "NORMAL");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/code_source_path"), "./src");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/mlflow_run"), "r1");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/mlflow_experiment_directory"),
	              "/Workspace/Users/a b/#exp: x");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/tasks/0/ai_runtime_task/mlflow_artifact_location"),
	              "dbfs:/Volumes/main/ml/art");
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/123/environments/0"), "environment_key,spec");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/environments/0/environment_key"), "default");
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/123/environments/0/spec"),
	              "environment_version,dependencies");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/environments/0/spec/environment_version"), "5");
	ASSERT_FALSE(plain_at(r, "resources/jobs/123/environments/0/spec/environment_version"));
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/environments/0/spec/dependencies/2"),
	              "--extra-index-url https://x.io/s");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/environments/0/spec/dependencies/3"), "yes");
	ASSERT_FALSE(plain_at(r, "resources/jobs/123/environments/0/spec/dependencies/3"));
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/budget_policy_id"),
	              "12345678-1234-1234-1234-123456789012");
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/123/permissions/0"), "level,user_name");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/permissions/0/user_name"), "a@b.com");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/permissions/0/level"), "CAN_VIEW");
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/123/permissions/1"), "level,group_name");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/123/permissions/1/group_name"), "true");
	ASSERT_FALSE(plain_at(r, "resources/jobs/123/permissions/1/group_name"));
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/123/permissions/2"), "level,service_principal_name");
	{
		/* the idempotency token is not mapped */
		char *yml = read_rel(dir, "databricks.yml", NULL);
		ASSERT_NOT_CONTAINS(yml, "not-mapped");
		ASSERT_NOT_CONTAINS(yml, "idempotency");
		free(yml);
	}
	fy_document_destroy(d);
	air_bundle_free(b);
	air_config_free(cfg);
}

/* The job runs what air run submits: same ai_runtime_task (but for the two
 * paths), same environment spec, byte-identical launch artifacts. */
AIR_TEST(bundle__same_as_a_submission)
{
	const char *dir = air_test_tmpdir();
	air_config *cfg;
	air_bundle *b;
	air_submission *sub = NULL;
	air_error *err = NULL;
	air_client *c = fakews_client(flow_fw);
	struct fy_document *d;
	json_t *body, *job, *want, *got;
	char src[4300];

	join(src, sizeof(src), dir, "src");
	mkdir(src, 0700);
	cfg = load_yaml(dir, "train.yaml", FULL);
	b = convert(cfg, NULL, NULL);
	ASSERT_OK(air_client_submit(c, cfg, NULL, &sub, &err), err);
	body = last_body("POST", "/api/2.2/jobs/runs/submit");
	d = load_bundle(dir);
	job = to_json(at(fy_document_root(d), "resources/jobs/123"));

	want = json_deep_copy(json_object_get(json_array_get(json_object_get(body, "tasks"), 0),
	                                      "ai_runtime_task"));
	got = json_deep_copy(json_object_get(json_array_get(json_object_get(job, "tasks"), 0),
	                                     "ai_runtime_task"));
	json_object_set_new(json_array_get(json_object_get(want, "deployments"), 0), "command_path",
	                    json_string("./generated_artifacts/command.sh"));
	json_object_set_new(want, "code_source_path", json_string("./src"));
	ASSERT_TRUE(json_equal(want, got));
	ASSERT_TRUE(json_equal(json_object_get(json_array_get(json_object_get(body, "environments"), 0),
	                                       "spec"),
	                       json_object_get(json_array_get(json_object_get(job, "environments"), 0),
	                                       "spec")));
	ASSERT_EQ_STR(json_string_value(json_object_get(job, "budget_policy_id")),
	              json_string_value(json_object_get(body, "budget_policy_id")));
	ASSERT_EQ_INT(json_integer_value(json_object_get(json_array_get(json_object_get(job, "tasks"), 0),
	                                                 "timeout_seconds")),
	              json_integer_value(json_object_get(body, "timeout_seconds")));
	for (size_t i = 1; i < air_bundle_file_count(b); i++) {
		const char *rel = air_bundle_file(b, i), *name = strchr(rel, '/') + 1;
		char wpath[8192];
		size_t wl = 0, ll = 0;
		char *written, *uploaded;

		join(wpath, sizeof(wpath), air_submission_launch_dir(sub), name);
		written = read_rel(dir, rel, &wl);
		uploaded = fakews_file(flow_fw, wpath, &ll);
		ASSERT_NOT_NULL(uploaded);
		ASSERT_EQ_INT(wl, ll);
		ASSERT_TRUE(memcmp(written, uploaded, wl) == 0);
		free(written);
		free(uploaded);
	}
	json_decref(want);
	json_decref(got);
	json_decref(job);
	json_decref(body);
	fy_document_destroy(d);
	air_submission_free(sub);
	air_client_free(c);
	air_bundle_free(b);
	air_config_free(cfg);
}

AIR_TEST(bundle__minimal_defaults_and_runtime)
{
	const char *dir = air_test_tmpdir();
	air_config *cfg = load_yaml(dir, "w.yaml", MINIMAL);
	air_bundle_options *o = NULL;
	air_bundle *b;
	struct fy_document *d;
	struct fy_node *r;

	unsetenv("DATABRICKS_DL_RUNTIME_IMAGE");
	b = convert(cfg, NULL, NULL);
	ASSERT_EQ_STR(files_of(b), "databricks.yml,generated_artifacts/training_config.yaml,"
	                           "generated_artifacts/command.sh");
	d = load_bundle(dir);
	r = fy_document_root(d);
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/tiny"), "name,tasks,environments");
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/tiny/tasks/0"),
	              "task_key,environment_key,max_retries,ai_runtime_task");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/tiny/tasks/0/max_retries"), "3");
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/tiny/tasks/0/ai_runtime_task"), "experiment,deployments");
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/tiny/environments/0/spec"), "environment_version");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/tiny/environments/0/spec/environment_version"), "6");
	fy_document_destroy(d);
	air_bundle_free(b);

	/* the default channel: option, else DATABRICKS_DL_RUNTIME_IMAGE, as air run */
	ASSERT_EQ_INT(air_bundle_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_bundle_options_set_int(o, AIR_BUNDLE_FORCE, 1), AIR_OK);
	setenv("DATABRICKS_DL_RUNTIME_IMAGE", "CLIENT-GPU-4", 1);
	air_bundle_free(convert(cfg, NULL, o));
	d = load_bundle(dir);
	ASSERT_EQ_STR(text_at(fy_document_root(d), "resources/jobs/tiny/environments/0/spec/"
	                                           "environment_version"), "4");
	fy_document_destroy(d);
	ASSERT_EQ_INT(air_bundle_options_set_str(o, AIR_BUNDLE_DEFAULT_RUNTIME, "databricks_ai_v6"), AIR_OK);
	air_bundle_free(convert(cfg, NULL, o));
	d = load_bundle(dir);
	r = fy_document_root(d);
	ASSERT_EQ_STR(keys_at(r, "resources/jobs/tiny/environments/0/spec"), "base_environment");
	ASSERT_EQ_STR(text_at(r, "resources/jobs/tiny/environments/0/spec/base_environment"),
	              "workspace-base-environments/databricks_ai_v6");
	fy_document_destroy(d);
	ASSERT_EQ_INT(air_bundle_options_set_str(o, AIR_BUNDLE_DEFAULT_RUNTIME, NULL), AIR_OK);
	ASSERT_EQ_INT(air_bundle_options_set_int(o, AIR_BUNDLE_USE_ENVIRONMENT, 0), AIR_OK);
	air_bundle_free(convert(cfg, NULL, o));
	d = load_bundle(dir);
	ASSERT_EQ_STR(text_at(fy_document_root(d), "resources/jobs/tiny/environments/0/spec/"
	                                           "environment_version"), "6");
	fy_document_destroy(d);
	unsetenv("DATABRICKS_DL_RUNTIME_IMAGE");
	air_bundle_options_free(o);
	air_config_free(cfg);
}

/* Names YAML readers could take for something else are quoted; the same
 * input gives the same bytes. */
AIR_TEST(bundle__quoting_and_stability)
{
	static const char *const names[] = {"true", "yes", "No", "on", "OFF", "y", "null", "0x1F",
	                                    "1e3", "12", "-x", "_ok", "plain-name"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char dir[4096], other[4096], yaml[512], key[128];
		air_config *cfg;
		air_bundle *b;
		struct fy_document *d;
		struct fy_node *r;
		char *one, *two;
		bool plain = !strcmp(names[i], "_ok") || !strcmp(names[i], "plain-name");

		snprintf(dir, sizeof(dir), "%s", air_test_tmpdir());
		snprintf(other, sizeof(other), "%s", air_test_tmpdir());

		snprintf(yaml, sizeof(yaml), "experiment_name: \"%s\"\ncommand: x\n"
		         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n", names[i]);
		cfg = load_yaml(dir, "w.yaml", yaml);
		air_bundle_free(convert(cfg, NULL, NULL));
		b = convert(cfg, other, NULL);
		ASSERT_EQ_STR(air_bundle_job_key(b), names[i]);
		d = load_bundle(dir);
		r = fy_document_root(d);
		snprintf(key, sizeof(key), "resources/jobs/%s/name", names[i]);
		ASSERT_EQ_STR(text_at(r, key), names[i]);
		ASSERT_EQ_INT(plain_at(r, key), plain);
		ASSERT_EQ_INT(plain_at(r, "bundle/name"), plain);
		one = read_rel(dir, "databricks.yml", NULL);
		two = read_rel(other, "databricks.yml", NULL);
		ASSERT_EQ_STR(one, two);
		free(one);
		free(two);
		fy_document_destroy(d);
		air_bundle_free(b);
		air_config_free(cfg);
	}
}

static void assert_refused(const char *yaml, const char *field)
{
	const char *dir = air_test_tmpdir();
	air_config *cfg;
	air_bundle *b = NULL;
	air_error *err = NULL;
	char src[4300], path[8192];
	struct stat st;

	join(src, sizeof(src), dir, "src");
	mkdir(src, 0700);
	cfg = load_yaml(dir, "w.yaml", yaml);
	ASSERT_EQ_INT(air_config_write_bundle(cfg, NULL, NULL, &b, &err), AIR_EUNSUPPORTED);
	ASSERT_NULL(b);
	ASSERT_EQ_STR(air_error_field(err), field);
	ASSERT_CONTAINS(air_error_message(err), field);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_INVALID_CONFIG);
	join(path, sizeof(path), dir, "databricks.yml");
	ASSERT_NE_INT(stat(path, &st), 0);
	join(path, sizeof(path), dir, "generated_artifacts");
	ASSERT_NE_INT(stat(path, &st), 0);
	air_error_free(err);
	air_config_free(cfg);
}

AIR_TEST(bundle__refusals)
{
	assert_refused(MINIMAL "usage_policy_name: team\n", "usage_policy_name");
	assert_refused(MINIMAL "environment: {docker_image: {url: a/b}}\n", "environment.docker_image");
	assert_refused(MINIMAL "code_source: {root_path: src, remote_volume: /Volumes/a/b/c}\n",
	               "code_source.remote_volume");
	assert_refused(MINIMAL "code_source: {type: snapshot, snapshot: {root_path: src, "
	               "remote_volume: /Volumes/a/b/c}}\n", "code_source.snapshot.remote_volume");
	assert_refused(MINIMAL "code_source: {root_path: src, git: {commit: abc}}\n", "code_source.git");
	assert_refused(MINIMAL "code_source: {root_path: src, git: {branch: main}}\n", "code_source.git");
	assert_refused(MINIMAL "code_source: {root_path: src, include_paths: [a]}\n",
	               "code_source.include_paths");
}

AIR_TEST(bundle__existing_files_and_force)
{
	const char *dir = air_test_tmpdir();
	air_config *cfg = load_yaml(dir, "w.yaml", MINIMAL "env_variables: {A: x}\n");
	air_config *fewer = load_yaml(dir, "v.yaml", MINIMAL);
	air_bundle_options *o = NULL;
	air_bundle *b = NULL;
	air_error *err = NULL;
	char path[8192];
	char *before;

	air_bundle_free(convert(cfg, NULL, NULL));
	before = read_rel(dir, "databricks.yml", NULL);
	ASSERT_EQ_INT(air_config_write_bundle(cfg, NULL, NULL, &b, &err), AIR_ECONFLICT);
	ASSERT_CONTAINS(air_error_message(err), "databricks.yml already exists");
	air_error_free(err);
	err = NULL;
	/* any generated artifact blocks too */
	join(path, sizeof(path), dir, "databricks.yml");
	unlink(path);
	ASSERT_EQ_INT(air_config_write_bundle(fewer, NULL, NULL, &b, &err), AIR_ECONFLICT);
	ASSERT_CONTAINS(air_error_message(err), "generated_artifacts/training_config.yaml already exists");
	air_error_free(err);
	ASSERT_NULL(b);
	join(path, sizeof(path), dir, "databricks.yml");
	ASSERT_NULL(air_test_read_file(path, NULL)); /* nothing was written */
	/* --force: overwritten, and the sidecar the workload no longer has removed */
	ASSERT_EQ_INT(air_bundle_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_bundle_options_set_int(o, AIR_BUNDLE_FORCE, 1), AIR_OK);
	b = convert(fewer, NULL, o);
	ASSERT_EQ_INT(air_bundle_removed_count(b), 1);
	ASSERT_EQ_STR(air_bundle_removed(b, 0), "generated_artifacts/env_vars.json");
	ASSERT_NULL(air_bundle_removed(b, 1));
	ASSERT_NULL(air_bundle_file(b, 99));
	join(path, sizeof(path), dir, "generated_artifacts/env_vars.json");
	ASSERT_NULL(air_test_read_file(path, NULL));
	{
		char *after = read_rel(dir, "databricks.yml", NULL);
		ASSERT_EQ_STR(after, before);
		free(after);
	}
	ASSERT_EQ_STR(sh_out("cd '%s/generated_artifacts' && ls -a | tr '\\n' ' '", dir),
	              ". .. command.sh training_config.yaml");
	ASSERT_EQ_STR(sh_out("stat -c %%a '%s/generated_artifacts/command.sh'", dir), "755");
	free(before);
	air_bundle_free(b);
	air_bundle_options_free(o);
	air_config_free(cfg);
	air_config_free(fewer);
}

AIR_TEST(bundle__code_source_must_be_inside)
{
	char dir[4096], elsewhere[4096];
	air_config *cfg;
	air_bundle *b = NULL;
	air_error *err = NULL;
	char out[8192], path[8192];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", air_test_tmpdir());
	snprintf(elsewhere, sizeof(elsewhere), "%s", air_test_tmpdir());
	sh("mkdir -p '%s/proj/code' && ln -s '%s/proj' '%s/link'", dir, dir, dir);
	cfg = load_yaml(dir, "w.yaml", MINIMAL "code_source: {root_path: proj/code}\n");
	/* outside: refused, and the missing output directory is not created */
	join(out, sizeof(out), elsewhere, "new/dir");
	ASSERT_EQ_INT(air_config_write_bundle(cfg, out, NULL, &b, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "outside the bundle directory");
	ASSERT_CONTAINS(air_error_message(err), "bundle deploy uploads only files under the bundle root");
	ASSERT_EQ_STR(air_error_field(err), "code_source.root_path");
	join(path, sizeof(path), elsewhere, "new");
	ASSERT_NE_INT(stat(path, &st), 0);
	air_error_free(err);
	err = NULL;
	/* inside, through a symlink, into a directory created on the way */
	join(out, sizeof(out), dir, "link/bundle/..");
	b = convert(cfg, out, NULL);
	ASSERT_EQ_STR(air_bundle_dir(b), sh_out("cd '%s/proj' && pwd -P", dir));
	{
		struct fy_document *d = load_bundle(air_bundle_dir(b));
		ASSERT_EQ_STR(text_at(fy_document_root(d),
		                      "resources/jobs/tiny/tasks/0/ai_runtime_task/code_source_path"), "./code");
		fy_document_destroy(d);
	}
	air_bundle_free(b);
	/* the code directory itself */
	join(out, sizeof(out), dir, "proj/code");
	b = convert(cfg, out, NULL);
	{
		struct fy_document *d = load_bundle(out);
		ASSERT_EQ_STR(text_at(fy_document_root(d),
		                      "resources/jobs/tiny/tasks/0/ai_runtime_task/code_source_path"), ".");
		fy_document_destroy(d);
	}
	air_bundle_free(b);
	/* a root that does not exist */
	air_config_free(cfg);
	cfg = load_yaml(dir, "w.yaml", MINIMAL "code_source: {root_path: nope}\n");
	ASSERT_EQ_INT(air_config_write_bundle(cfg, dir, NULL, &b, &err), AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "nope");
	air_error_free(err);
	air_config_free(cfg);
}

AIR_TEST(bundle__arguments)
{
	air_bundle_options *o = NULL;
	air_config *cfg = NULL;
	air_bundle *b = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_bundle_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_bundle_options_set_int(o, AIR_BUNDLE_FORCE, 2), AIR_EINVAL);
	ASSERT_EQ_INT(air_bundle_options_set_int(o, AIR_BUNDLE_BASE_DIR, 1), AIR_EINVAL);
	ASSERT_EQ_INT(air_bundle_options_set_str(o, AIR_BUNDLE_FORCE, "1"), AIR_EINVAL);
	ASSERT_EQ_INT(air_bundle_options_set_str(o, 77, "x"), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_bundle_options_set_int(o, 177, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_config_parse_buffer(MINIMAL, strlen(MINIMAL), "m.yaml", NULL, &cfg, NULL),
	              AIR_OK);
	ASSERT_EQ_INT(air_config_write_bundle(cfg, air_test_tmpdir(), o, &b, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "validated");
	air_error_free(err);
	ASSERT_EQ_INT(air_config_write_bundle(NULL, "x", o, &b, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_config_write_bundle(cfg, "x", o, NULL, NULL), AIR_EINVAL);
	ASSERT_NULL(air_bundle_dir(NULL));
	ASSERT_EQ_INT(air_bundle_file_count(NULL), 0);
	air_bundle_free(NULL);
	air_config_free(cfg);
	air_bundle_options_free(o);
}

/* ---- links and failures: nothing written or deleted outside, no mixed bundle ---- */

/* A digest of @dir's tree: names, types, modes, link targets and contents. */
static char *tree_digest(const char *dir)
{
	return strdup(sh_out("cd '%s' && (find . -printf '%%p %%y %%m %%l\\n' | LC_ALL=C sort; "
	                     "find . -type f | LC_ALL=C sort | xargs -r sha256sum) | sha256sum", dir));
}

static air_bundle_options *forced(void)
{
	air_bundle_options *o = NULL;

	ASSERT_EQ_INT(air_bundle_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_bundle_options_set_int(o, AIR_BUNDLE_FORCE, 1), AIR_OK);
	return o;
}

/* A forced conversion refused because of @link (@why): nothing changed
 * anywhere. */
static void assert_link_refused(air_config *cfg, const char *dir, const char *outside,
                                const char *link, const char *why)
{
	air_bundle_options *o = forced();
	char *before = tree_digest(dir), *outside_before = tree_digest(outside), *after;
	air_bundle *b = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_config_write_bundle(cfg, dir, o, &b, &err), AIR_EINVAL);
	ASSERT_NULL(b);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_INVALID_ARGUMENT);
	ASSERT_CONTAINS(air_error_message(err), link);
	ASSERT_CONTAINS(air_error_message(err), "is a symbolic link to");
	ASSERT_CONTAINS(air_error_message(err), why);
	air_error_free(err);
	after = tree_digest(outside);
	ASSERT_EQ_STR(after, outside_before);
	free(after);
	after = tree_digest(dir);
	ASSERT_EQ_STR(after, before);
	free(after);
	free(before);
	free(outside_before);
	air_bundle_options_free(o);
}

AIR_TEST(bundle__links_leaving_the_bundle_are_refused)
{
	char dir[4096], outside[4096];
	air_config *cfg;
	air_bundle *b;
	air_bundle_options *o = forced();

	snprintf(dir, sizeof(dir), "%s/bundle", air_test_tmpdir());
	snprintf(outside, sizeof(outside), "%s/outside", air_test_tmpdir());
	sh("mkdir -p '%s/sub/gen' '%s' && echo precious > '%s/env_vars.json' && "
	   "echo keep > '%s/command.sh' && echo mine > '%s/databricks.yml'",
	   dir, outside, outside, outside, outside);
	cfg = load_yaml(dir, "w.yaml", MINIMAL);
	/* generated_artifacts itself, through a second link, and databricks.yml */
	sh("ln -s '%s' '%s/generated_artifacts'", outside, dir);
	assert_link_refused(cfg, dir, outside, "generated_artifacts", "outside the bundle");
	sh("rm '%s/generated_artifacts' && ln -s '%s' '%s/hop' && "
	   "ln -s hop/. '%s/generated_artifacts'", dir, outside, dir, dir);
	assert_link_refused(cfg, dir, outside, "generated_artifacts", "outside the bundle");
	sh("rm '%s/generated_artifacts' '%s/hop' && ln -s '%s/databricks.yml' '%s/databricks.yml'",
	   dir, dir, outside, dir);
	assert_link_refused(cfg, dir, outside, "databricks.yml", "outside the bundle");
	sh("rm '%s/databricks.yml' && ln -s '%s/nowhere' '%s/databricks.yml'", dir, outside, dir);
	assert_link_refused(cfg, dir, outside, "databricks.yml", "which does not exist");
	/* a link that stays inside is written through */
	sh("rm '%s/databricks.yml' && ln -s sub/gen '%s/generated_artifacts'", dir, dir);
	b = convert(cfg, dir, o);
	ASSERT_EQ_STR(files_of(b), "databricks.yml,generated_artifacts/training_config.yaml,"
	                           "generated_artifacts/command.sh");
	ASSERT_EQ_STR(sh_out("readlink '%s/generated_artifacts'; ls '%s/sub/gen' | tr '\\n' ' '", dir,
	                     dir), "sub/gen\ncommand.sh training_config.yaml");
	air_bundle_free(b);
	/* an artifact that is a link leaving the bundle is removed, not followed */
	sh("ln -s '%s/env_vars.json' '%s/sub/gen/env_vars.json'", outside, dir);
	b = convert(cfg, dir, o);
	ASSERT_EQ_INT(air_bundle_removed_count(b), 1);
	ASSERT_EQ_STR(sh_out("cat '%s/env_vars.json'; ls -a '%s/sub/gen' | tr '\\n' ' '", outside, dir),
	              "precious\n. .. command.sh training_config.yaml");
	air_bundle_free(b);
	air_bundle_options_free(o);
	air_config_free(cfg);
}

/* A write that fails partway (the file size limit: a real EFBIG) leaves the
 * old bundle byte for byte, the user's files in it included, and no
 * temporary file; the next conversion replaces it whole and keeps them. */
AIR_TEST(bundle__a_failed_write_leaves_the_old_bundle)
{
	char dir[4096], yaml[1 << 17];
	air_config *old_cfg, *new_cfg;
	air_bundle_options *o = forced();
	air_bundle *b = NULL;
	air_error *err = NULL;
	struct rlimit saved, small;
	char *before, *after;
	int rc;

	snprintf(dir, sizeof(dir), "%s/bundle", air_test_tmpdir());
	sh("mkdir -p '%s'", dir);
	old_cfg = load_yaml(dir, "old.yaml", MINIMAL "env_variables: {A: x}\n");
	/* the new workload: another databricks.yml, and a training_config.yaml
	 * larger than the limit */
	snprintf(yaml, sizeof(yaml), "%s", MINIMAL "max_retries: 1\nparameters: {lr: 0.1}\n#");
	memset(yaml + strlen(yaml), 'x', 100000);
	yaml[sizeof(yaml) - 1] = '\0';
	yaml[strlen(MINIMAL "max_retries: 1\nparameters: {lr: 0.1}\n#") + 100000] = '\n';
	yaml[strlen(MINIMAL "max_retries: 1\nparameters: {lr: 0.1}\n#") + 100001] = '\0';
	new_cfg = load_yaml(dir, "new.yaml", yaml);
	air_bundle_free(convert(old_cfg, dir, o));
	sh("mkdir -p '%s/generated_artifacts/notes' && echo mine > '%s/generated_artifacts/README' && "
	   "echo deep > '%s/generated_artifacts/notes/n.txt'", dir, dir, dir);
	before = tree_digest(dir);

	ASSERT_EQ_INT(getrlimit(RLIMIT_FSIZE, &saved), 0);
	small = saved;
	small.rlim_cur = 64 * 1024;
	signal(SIGXFSZ, SIG_IGN);
	ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
	rc = air_config_write_bundle(new_cfg, dir, o, &b, &err);
	ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, SIG_DFL);
	ASSERT_EQ_INT(rc, AIR_EIO);
	ASSERT_NULL(b);
	ASSERT_CONTAINS(air_error_message(err), "training_config.yaml");
	air_error_free(err);
	after = tree_digest(dir);
	ASSERT_EQ_STR(after, before);
	free(after);

	/* without the limit: the new bundle, the user's files kept */
	b = convert(new_cfg, dir, o);
	ASSERT_EQ_INT(air_bundle_removed_count(b), 1);
	ASSERT_EQ_STR(air_bundle_removed(b, 0), "generated_artifacts/env_vars.json");
	ASSERT_EQ_STR(sh_out("cd '%s' && ls -A | tr '\\n' ' ' && ls -A generated_artifacts | "
	                     "tr '\\n' ' ' && cat generated_artifacts/README generated_artifacts/notes/n.txt",
	                     dir),
	              "databricks.yml generated_artifacts new.yaml old.yaml README command.sh "
	              "hyperparameters.yaml notes training_config.yaml mine\ndeep");
	air_bundle_free(b);
	free(before);
	air_bundle_options_free(o);
	air_config_free(old_cfg);
	air_config_free(new_cfg);
}
