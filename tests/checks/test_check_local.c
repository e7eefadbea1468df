/* test_check_local.c: air_client_check() on a local workspace (local://),
 * where the checks have local meanings — the secrets' local values (named,
 * never shown), this machine's GPUs (a warning when fewer), its node limit
 * (a failure), the checks without a local meaning skipped with the reason,
 * a code folder outside git a warning — and the local pre-flight last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check_test.h"
#include "submit_test.h"
#include "test.h"

#define BASE "experiment_name: smoke-test\ncommand: python train.py\n"
#define COMPUTE "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"
#define VALUE "local-secret-value-1234"

static const char *dir, *bin;

static void setup(void)
{
	test_bin_begin(&dir, &bin);
	unsetenv("AIR_LOCAL_SECRETS_FILE");
	unsetenv("HF_TOKEN");
}

AIR_TEST_HOOKS(setup, NULL)

/* The checks of @yaml on a local workspace in the test's directory, chosen
 * by @opts (NULL: all of them). */
static air_check_report *local_check_with(const char *yaml, const air_check_options *opts)
{
	air_client_options *o = NULL;
	air_client *c = NULL;
	air_error *err = NULL;
	air_check_report *r;
	char host[4200];

	snprintf(host, sizeof(host), "local://%s/state", dir);
	ASSERT_OK(air_client_options_new(&o), err);
	ASSERT_OK(air_client_options_set_str(o, AIR_OPT_HOST, host), err);
	ASSERT_OK(air_client_new(o, &c, &err), err);
	air_client_options_free(o);
	r = check_yaml(c, yaml, opts);
	air_client_free(c);
	return r;
}

/* Every check of @yaml on a local workspace in the test's directory. */
static air_check_report *local_check(const char *yaml)
{
	return local_check_with(yaml, NULL);
}

/* A fake nvidia-smi on PATH listing @n GPUs. */
static void gpus(int n)
{
	char script[512];

	snprintf(script, sizeof(script), "#!/bin/sh\ni=0\nwhile [ $i -lt %d ]; do echo $i; "
	         "i=$((i+1)); done\n", n);
	test_bin_program("nvidia-smi", script);
}

AIR_TEST(local__secrets_have_local_values)
{
	char file[4300], json[512];
	air_check_report *r;

	snprintf(file, sizeof(file), "%s/secrets.json", dir);
	snprintf(json, sizeof(json), "{\"ml\": {\"wandb\": \"%s\", \"short\": \"ab\"}}", VALUE);
	air_test_write_file(file, json, strlen(json));
	setenv("AIR_LOCAL_SECRETS_FILE", file, 1);
	setenv("HF_TOKEN", VALUE, 1);
	r = local_check(BASE COMPUTE "secrets: {HF_TOKEN: ml/hf, WANDB: ml/wandb, GONE: ml/gone, "
	                "SHORT: ml/short}\n");
	expect_check(r, "local_secret", "secrets.HF_TOKEN", AIR_CHECK_PASS,
	             "HF_TOKEN (ml/hf) has a local value: the environment variable HF_TOKEN");
	expect_check(r, "local_secret", "secrets.WANDB", AIR_CHECK_PASS,
	             "has a local value: the secrets file ");
	expect_check(r, "local_secret", "secrets.GONE", AIR_CHECK_FAIL,
	             "secret GONE (ml/gone) has no local value: export GONE");
	expect_check(r, "local_secret", "secrets.GONE", AIR_CHECK_FAIL,
	             "secrets.json as {\"ml\": {\"gone\": \"<value>\"}}");
	expect_check(r, "local_secret", "secrets.SHORT", AIR_CHECK_FAIL, "too short");
	/* the workspace's secret checks mean nothing here */
	ASSERT_NULL(find_check(r, "secret_scope", NULL));
	ASSERT_NULL(find_check(r, "secret_key", NULL));
	/* the local pre-flight refuses it for the same reason: reported once */
	expect_check(r, "preflight", NULL, AIR_CHECK_SKIPPED,
	             "the workspace rejects only what the checks above report");
	ASSERT_NULL(find_check(r, "preflight", "secrets.GONE"));
	ASSERT_NOT_CONTAINS(report_text(r), VALUE);
	ASSERT_NOT_CONTAINS(report_text(r), "\"ab\"");
	ASSERT_EQ_INT(air_check_report_ok(r), 0);
	air_check_report_free(r);
}

/* A secrets file that is not a regular file (a FIFO nobody writes to, a
 * folder) is reported, never waited on. */
AIR_TEST(local__a_secrets_file_that_is_not_a_file)
{
	char fifo[4300];
	air_check_report *r;

	snprintf(fifo, sizeof(fifo), "%s/secrets.fifo", dir);
	ASSERT_EQ_INT(mkfifo(fifo, 0600), 0);
	setenv("AIR_LOCAL_SECRETS_FILE", fifo, 1);
	r = local_check(BASE COMPUTE "secrets: {WANDB: ml/wandb}\n");
	expect_check(r, "local_secret", "secrets.WANDB", AIR_CHECK_FAIL,
	             "cannot read the secrets file");
	expect_check(r, "local_secret", "secrets.WANDB", AIR_CHECK_FAIL, "not a regular file");
	air_check_report_free(r);
	setenv("AIR_LOCAL_SECRETS_FILE", dir, 1);
	r = local_check(BASE COMPUTE "secrets: {WANDB: ml/wandb}\n");
	expect_check(r, "local_secret", "secrets.WANDB", AIR_CHECK_FAIL, "Is a directory");
	air_check_report_free(r);
}

AIR_TEST(local__gpus_of_this_machine)
{
	air_check_report *r;

	gpus(2);
	r = local_check(BASE COMPUTE "environment: {version: '6', dependencies: [a==1]}\n");
	expect_check(r, "local_gpus", "compute.num_accelerators", AIR_CHECK_PASS,
	             "this machine has 2 GPUs for the 1 the workload asks for");
	air_check_report_free(r);
	r = local_check(BASE "compute: {accelerator_type: GPU_8xH100, num_accelerators: 8}\n");
	expect_check(r, "local_gpus", NULL, AIR_CHECK_WARN, "asks for 8 GPUs (GPU_8xH100) and this "
	             "machine has 2");
	/* a warning, not a failure */
	ASSERT_EQ_INT(air_check_status(find_check(r, "preflight", NULL)), AIR_CHECK_PASS);
	air_check_report_free(r);
	gpus(0);
	r = local_check(BASE COMPUTE);
	expect_check(r, "local_gpus", NULL, AIR_CHECK_WARN, "a CPU-only smoke test");
	air_check_report_free(r);
}

AIR_TEST(local__node_limit)
{
	air_check_report *r;

	r = local_check(BASE "compute: {accelerator_type: GPU_1xA10, num_accelerators: 2}\n");
	expect_check(r, "local_node_limit", "compute.num_accelerators", AIR_CHECK_PASS,
	             "2 nodes; a local workspace runs up to");
	air_check_report_free(r);
	r = local_check(BASE "compute: {accelerator_type: GPU_1xA10, num_accelerators: 300}\n");
	expect_check(r, "local_node_limit", NULL, AIR_CHECK_FAIL, "the workload needs 300 nodes");
	ASSERT_EQ_INT(air_check_report_ok(r), 0);
	air_check_report_free(r);
}

AIR_TEST(local__checks_without_a_local_meaning_are_skipped)
{
	air_check_report *r = local_check(BASE "compute: {accelerator_type: GPU_8xH100, "
	                                  "num_accelerators: 8, pool_id: p1}\n"
	                                  "environment: {unity_catalog_image: ml.img.t:v3}\n"
	                                  "permissions: [{user_name: a@b.com, level: CAN_VIEW}]\n");

	expect_check(r, "pool", "compute.pool_id", AIR_CHECK_SKIPPED, "no GPU pools");
	expect_check(r, "image_readable", "environment.unity_catalog_image", AIR_CHECK_SKIPPED,
	             "not in a container image");
	expect_check(r, "experiment_permissions", "permissions", AIR_CHECK_SKIPPED,
	             "no MLflow experiments");
	expect_check(r, "accelerator_offered", NULL, AIR_CHECK_SKIPPED, "every accelerator type");
	expect_check(r, "artifact_base", NULL, AIR_CHECK_PASS, "the submission creates it in");
	expect_check(r, "experiment_parent", NULL, AIR_CHECK_PASS, " exists");
	air_check_report_free(r);
	r = local_check(BASE COMPUTE "environment: {docker_image: {url: reg.io/t:v3}}\n"
	                "code_source: {root_path: ., remote_volume: /Volumes/c/s/v}\n");
	expect_check(r, "docker_image_registered", NULL, AIR_CHECK_SKIPPED, "not in a container image");
	expect_check(r, "snapshot_volume", NULL, AIR_CHECK_SKIPPED, "creates volumes as they are "
	             "written");
	air_check_report_free(r);
}

/* A local run takes this machine's environment: pinning the workload's
 * environment section would change nothing, so one skipped check says so
 * instead of warnings, whatever the section holds. */
AIR_TEST(local__the_environment_section_is_not_checked)
{
	air_check_options *o;
	air_check_report *r = local_check(BASE COMPUTE "environment: {dependencies: [torch, "
	                                  "numpy==1.26.4]}\n");

	expect_check(r, "environment_pinned", "environment", AIR_CHECK_SKIPPED,
	             "this machine's environment: environment.version, dependencies and images "
	             "are not used");
	ASSERT_EQ_INT((int)count_checks(r, "environment_pinned"), 1);
	ASSERT_EQ_INT((int)count_checks(r, "dependencies_pinned"), 0);
	air_check_report_free(r);
	r = local_check(BASE COMPUTE "environment: {unity_catalog_image: ml.img.t:latest}\n");
	expect_check(r, "environment_pinned", "environment", AIR_CHECK_SKIPPED,
	             "this machine's environment");
	air_check_report_free(r);
	/* The same without the workspace's resources (air run --check --dry-run):
	 * the client is not resolved, its host option tells. */
	o = check_options(0, 0, 1, 1);
	r = local_check_with(BASE COMPUTE "environment: {dependencies: [torch]}\n", o);
	air_check_options_free(o);
	expect_check(r, "environment_pinned", "environment", AIR_CHECK_SKIPPED,
	             "this machine's environment");
	ASSERT_EQ_INT((int)count_checks(r, "dependencies_pinned"), 0);
	ASSERT_NULL(find_check(r, "local_secret", NULL)); /* no resources: nothing asked */
	air_check_report_free(r);
	/* DATABRICKS_HOST wins over the profile DATABRICKS_CONFIG_PROFILE names,
	 * as when the client resolves. */
	{
		char cfgfile[4300], host[4300];
		air_client *c = NULL;
		air_error *err = NULL;

		snprintf(cfgfile, sizeof(cfgfile), "%s/databrickscfg", dir);
		air_test_write_file(cfgfile, "[p]\nhost = https://adb-1.azuredatabricks.net\n", 45);
		snprintf(host, sizeof(host), "local://%s/state", dir);
		setenv("DATABRICKS_CONFIG_FILE", cfgfile, 1);
		setenv("DATABRICKS_CONFIG_PROFILE", "p", 1);
		setenv("DATABRICKS_HOST", host, 1);
		ASSERT_OK(air_client_new(NULL, &c, &err), err);
		o = check_options(0, 0, 1, 1);
		r = check_yaml(c, BASE COMPUTE, o);
		air_check_options_free(o);
		air_client_free(c);
		unsetenv("DATABRICKS_CONFIG_FILE");
		unsetenv("DATABRICKS_CONFIG_PROFILE");
		unsetenv("DATABRICKS_HOST");
		expect_check(r, "environment_pinned", "environment", AIR_CHECK_SKIPPED,
		             "this machine's environment");
	}
	ASSERT_EQ_INT((int)count_checks(r, "environment_pinned"), 1);
	ASSERT_EQ_INT((int)count_checks(r, "image_exclusive"), 0);
	air_check_report_free(r);
}

AIR_TEST(local__code_outside_git_is_a_warning)
{
	char yaml[8192];
	air_check_report *r;

	sh("mkdir -p '%s/code' && echo 'print(1)' > '%s/code/t.py'", dir, dir);
	snprintf(yaml, sizeof(yaml), BASE COMPUTE "code_source: {root_path: '%s/code'}\n", dir);
	r = local_check(yaml);
	expect_check(r, "code_commit", "code_source", AIR_CHECK_WARN, "is not in a git repository");
	expect_check(r, "snapshot", "code_source", AIR_CHECK_PASS, "1 file, 9 bytes");
	ASSERT_EQ_INT(air_check_report_ok(r), 1);
	air_check_report_free(r);
}
