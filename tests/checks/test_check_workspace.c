/* test_check_workspace.c: air_client_check() against the fake workspace —
 * each check of the workspace's resources passing and failing (secret scopes
 * and keys, the Unity Catalog image in a registry, the legacy image, the
 * folders, the pool and the accelerator types, the experiment permissions,
 * the pre-flight), the request failures that are check results, and that a
 * check uploads, creates and submits nothing and reads no secret value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_test.h"
#include "submit_test.h"
#include "test.h"

static const char *dir, *bin;

static void setup(void)
{
	flow_setup();
	test_bin_begin(&dir, &bin);
}

AIR_TEST_HOOKS(setup, NULL)

#define BASE "experiment_name: smoke-test\ncommand: python train.py\n"
#define COMPUTE "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"
#define SECRET_VALUE "hf_0123456789abcdef"

/* The resource checks of @yaml through a fresh client of the fake workspace. */
static air_check_report *resources(const char *yaml, air_check_options *o)
{
	air_client *c = fakews_client(flow_fw);
	air_check_options *own = o ? NULL : check_options(0, 1, 0, 0);
	air_check_report *r = check_yaml(c, yaml, o ? o : own);

	air_check_options_free(own);
	air_client_free(c);
	return r;
}

static void secrets_store(void)
{
	json_decref(fakews_callf(flow_fw, "POST", "/__fakews/secrets",
	                         "{\"scopes\":{\"ml\":{\"hf\":\"" SECRET_VALUE "\"},"
	                         "\"locked\":{\"k\":\"" SECRET_VALUE "\"}}}"));
}

AIR_TEST(check__secret_scopes_and_keys)
{
	air_check_report *r;

	secrets_store();
	fakews_configf(flow_fw, "{\"secrets\":{\"unreadable\":[\"locked\"]}}");
	r = resources(BASE COMPUTE "secrets: {HF_TOKEN: ml/hf, WANDB: ml/wandb, OTHER: nope/k, "
	              "LOCKED: locked/k}\n", NULL);
	expect_check(r, "secret_scope", "secrets.HF_TOKEN", AIR_CHECK_PASS, "scope ml exists");
	expect_check(r, "secret_scope", "secrets.OTHER", AIR_CHECK_FAIL, "nope does not exist");
	expect_check(r, "secret_key", "secrets.HF_TOKEN", AIR_CHECK_PASS, "listed in scope ml");
	expect_check(r, "secret_key", "secrets.WANDB", AIR_CHECK_FAIL, "scope ml has no key wandb");
	expect_check(r, "secret_key", "secrets.OTHER", AIR_CHECK_SKIPPED, "scope nope does not exist");
	/* 403: cannot verify, not missing */
	expect_check(r, "secret_key", "secrets.LOCKED", AIR_CHECK_WARN, "cannot verify key k");
	/* one scope check per scope, one listing per scope */
	ASSERT_EQ_INT(count_checks(r, "secret_scope"), 3);
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/secrets/scopes/list"), 1);
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/secrets/list"), 2);
	ASSERT_EQ_INT(air_check_report_ok(r), 0);
	air_check_report_free(r);
}

AIR_TEST(check__secret_values_are_never_read)
{
	air_check_report *r;
	json_t *reqs, *q;
	size_t i;

	secrets_store();
	r = resources(BASE COMPUTE "secrets: {HF_TOKEN: ml/hf}\n", NULL);
	ASSERT_NOT_CONTAINS(report_text(r), SECRET_VALUE);
	reqs = fakews_requests(flow_fw);
	json_array_foreach(reqs, i, q) {
		const char *path = json_string_value(json_object_get(q, "path"));
		ASSERT_FALSE(strstr(path, "/secrets/") && strcmp(path, "/api/2.0/secrets/list") != 0 &&
		             strcmp(path, "/api/2.0/secrets/scopes/list") != 0);
	}
	json_decref(reqs);
	air_check_report_free(r);
}

AIR_TEST(check__secret_listing_failures_are_results)
{
	air_check_report *r;

	secrets_store();
	/* 500 is not retried: the checks cannot be made and say so */
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/secrets/scopes/list\",\"status\":500,"
	                       "\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"boom\"}}");
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/secrets/list\",\"status\":500,"
	                       "\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"bang\"}}");
	r = resources(BASE COMPUTE "secrets: {HF_TOKEN: ml/hf}\n", NULL);
	expect_check(r, "secret_scope", "secrets.HF_TOKEN", AIR_CHECK_SKIPPED, "boom");
	expect_check(r, "secret_key", "secrets.HF_TOKEN", AIR_CHECK_SKIPPED, "bang");
	ASSERT_EQ_INT(air_check_report_ok(r), 1);
	air_check_report_free(r);
}

/* ---- the Unity Catalog image -------------------------------------------------- */

static void registry(const char *json)
{
	json_decref(fakews_callf(flow_fw, "POST", "/__fakews/registry", "%s", json));
}

/* A Docker configuration whose credential helper "test" answers alice's
 * credentials for the fake workspace's address. */
static void docker_credentials(const char *user, const char *password)
{
	char path[4300], script[1024];

	snprintf(path, sizeof(path), "%s/config.json", dir);
	snprintf(script, sizeof(script), "{\"credHelpers\":{\"%s\":\"test\"}}",
	         fakews_url(flow_fw) + strlen("http://"));
	air_test_write_file(path, script, strlen(script));
	snprintf(script, sizeof(script), "#!/bin/sh\ncat > /dev/null\n"
	         "printf '{\"Username\":\"%s\",\"Secret\":\"%s\"}'\n", user, password);
	test_bin_program("docker-credential-test", script);
}

static air_check_report *uc_check(const char *image)
{
	air_check_options *o = check_options(0, 1, 0, 0);
	char yaml[512];
	air_check_report *r;

	ASSERT_EQ_INT(air_check_options_set_str(o, AIR_CHECKS_REGISTRY_HOST, fakews_url(flow_fw)),
	              AIR_OK);
	ASSERT_EQ_INT(air_check_options_set_str(o, AIR_CHECKS_DOCKER_CONFIG_DIR, dir), AIR_OK);
	snprintf(yaml, sizeof(yaml), BASE COMPUTE "environment: {unity_catalog_image: %s}\n", image);
	r = resources(yaml, o);
	air_check_options_free(o);
	return r;
}

AIR_TEST(check__uc_image_in_the_registry)
{
	air_check_report *r;
	json_t *req;

	docker_credentials("alice", "pa55word");
	registry("{\"users\":{\"alice\":\"pa55word\"},\"repositories\":{\"ml.img.train\":"
	         "{\"tags\":[\"v3\"]}}}");
	r = uc_check("ml.img.train:v3");
	expect_check(r, "image_readable", "environment.unity_catalog_image", AIR_CHECK_PASS,
	             "readable with the credentials of credential helper docker-credential-test");
	air_check_report_free(r);
	/* the registry got the helper's credentials, never the workspace's token */
	req = fakews_last_request(flow_fw, "HEAD", "/v2/ml.img.train/manifests/v3");
	ASSERT_NOT_NULL(req);
	ASSERT_CONTAINS(json_string_value(json_object_get(json_object_get(req, "headers"),
	                                                  "authorization")), "Basic ");
	json_decref(req);

	r = uc_check("ml.img.train:v4");
	expect_check(r, "image_readable", NULL, AIR_CHECK_FAIL, "has no image ml.img.train with tag v4");
	air_check_report_free(r);
	r = uc_check("ml.img.other:v3");
	expect_check(r, "image_readable", NULL, AIR_CHECK_FAIL, "has no image ml.img.other");
	air_check_report_free(r);
}

AIR_TEST(check__uc_image_refused_or_unknown)
{
	air_check_report *r;

	registry("{\"users\":{\"alice\":\"pa55word\",\"bob\":\"b0b\"},\"repositories\":"
	         "{\"ml.img.train\":{\"tags\":[\"v3\"],\"readers\":[\"bob\"]}}}");
	/* no credential for the registry: cannot tell, never a pass */
	r = uc_check("ml.img.train:v3");
	expect_check(r, "image_readable", NULL, AIR_CHECK_SKIPPED, "asks for credentials");
	air_check_report_free(r);
	/* alice may not read it */
	docker_credentials("alice", "pa55word");
	r = uc_check("ml.img.train:v3");
	expect_check(r, "image_readable", NULL, AIR_CHECK_FAIL, "does not let the identity");
	air_check_report_free(r);
	/* a wrong password */
	docker_credentials("bob", "wrong");
	r = uc_check("ml.img.train:v3");
	expect_check(r, "image_readable", NULL, AIR_CHECK_FAIL, "does not let the identity");
	air_check_report_free(r);
}

AIR_TEST(check__uc_image_through_the_token_service)
{
	air_check_report *r;

	docker_credentials("bob", "b0b");
	registry("{\"token_auth\":true,\"users\":{\"bob\":\"b0b\"},\"repositories\":"
	         "{\"ml.img.train\":{\"tags\":[\"v3\"]}}}");
	r = uc_check("ml.img.train:v3");
	expect_check(r, "image_readable", NULL, AIR_CHECK_PASS, "is in registry");
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/v2/token"), 1);
	ASSERT_EQ_INT(fakews_count(flow_fw, "HEAD", "/v2/ml.img.train/manifests/v3"), 2);
	air_check_report_free(r);
	docker_credentials("bob", "wrong");
	r = uc_check("ml.img.train:v3");
	expect_check(r, "image_readable", NULL, AIR_CHECK_FAIL, "does not let the identity");
	air_check_report_free(r);
}

AIR_TEST(check__uc_image_without_a_registry_is_skipped)
{
	air_check_options *o = check_options(0, 1, 0, 0);
	air_check_report *r;

	/* no registry option, a Docker configuration without the workspace's registry */
	ASSERT_EQ_INT(air_check_options_set_str(o, AIR_CHECKS_DOCKER_CONFIG_DIR, dir), AIR_OK);
	r = resources(BASE COMPUTE "environment: {unity_catalog_image: ml.img.train:v3}\n", o);
	expect_check(r, "image_readable", NULL, AIR_CHECK_SKIPPED, "no registry to ask");
	air_check_report_free(r);
	/* the registry the Docker configuration was set up for */
	docker_credentials("bob", "b0b");
	{
		char path[4300];
		const char *cfg = "{\"credHelpers\":{\"dbc-1.container.cloud.example.com\":\"test\"}}";
		snprintf(path, sizeof(path), "%s/config.json", dir);
		air_test_write_file(path, cfg, strlen(cfg));
	}
	r = resources(BASE COMPUTE "environment: {unity_catalog_image: ml.img.train:v3}\n", o);
	expect_check(r, "image_readable", NULL, AIR_CHECK_SKIPPED,
	             "registry dbc-1.container.cloud.example.com gave no answer");
	air_check_report_free(r);
	air_check_options_free(o);
}

/* ---- the legacy image ---------------------------------------------------------- */

AIR_TEST(check__legacy_image_registration)
{
	static const char yaml[] = BASE COMPUTE "environment: {docker_image: {url: myreg.io/t/train:v3}}\n";
	air_check_report *r;

	r = resources(yaml, NULL);
	expect_check(r, "docker_image_registered", "environment.docker_image.url", AIR_CHECK_FAIL,
	             "myreg.io/t/train:v3 is not registered");
	air_check_report_free(r);
	json_decref(fakews_call(flow_fw, "POST", "/__fakews/images",
	                        "{\"images\":{\"myreg.io/t/train:v3\":{\"state\":\"AVAILABLE\"}}}"));
	r = resources(yaml, NULL);
	expect_check(r, "docker_image_registered", NULL, AIR_CHECK_PASS, "AVAILABLE");
	air_check_report_free(r);
	json_decref(fakews_call(flow_fw, "POST", "/__fakews/images",
	                        "{\"images\":{\"myreg.io/t/train:v3\":{\"state\":\"IMPORTING\"}}}"));
	r = resources(yaml, NULL);
	expect_check(r, "docker_image_registered", NULL, AIR_CHECK_WARN, "still IMPORTING");
	air_check_report_free(r);
	json_decref(fakews_call(flow_fw, "POST", "/__fakews/images",
	                        "{\"images\":{\"myreg.io/t/train:v3\":{\"state\":\"FAILED\","
	                        "\"status_message\":\"manifest unknown\"}}}"));
	r = resources(yaml, NULL);
	expect_check(r, "docker_image_registered", NULL, AIR_CHECK_FAIL, "FAILED: manifest unknown");
	air_check_report_free(r);
	/* nothing was registered by the check */
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/ai-compute-manager/images"), 0);
}

AIR_TEST(check__legacy_image_registered_by_the_submission)
{
	air_check_report *r = resources(BASE COMPUTE "environment: {docker_image: "
	                                "{url: myreg.io/t/train:v3, tag_policy: latest}}\n", NULL);

	expect_check(r, "docker_image_registered", NULL, AIR_CHECK_PASS,
	             "the submission registers it");
	air_check_report_free(r);
}

/* ---- folders ------------------------------------------------------------------- */

/* A workspace file at @path (its folders are made). */
static void put_file(const char *path)
{
	char url[1024];

	snprintf(url, sizeof(url), "/__fakews/file?path=%s", path);
	json_decref(fakews_call(flow_fw, "POST", url, "x"));
}

AIR_TEST(check__artifact_base_and_experiment_folder)
{
	air_check_report *r;

	r = resources(BASE COMPUTE "mlflow_experiment_directory: /Workspace/Shared/team/exps\n", NULL);
	expect_check(r, "artifact_base", NULL, AIR_CHECK_PASS,
	             "/Workspace/Users/tester@databricks.com/.air does not exist yet: the submission "
	             "creates it in /Workspace/Users/tester@databricks.com");
	expect_check(r, "experiment_parent", "mlflow_experiment_directory", AIR_CHECK_PASS,
	             "creates it in /Workspace/Shared");
	air_check_report_free(r);
	/* nothing was created */
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/workspace/mkdirs"), 0);

	put_file("/Workspace/Users/tester@databricks.com/.air");
	put_file("/Workspace/Shared/team");
	r = resources(BASE COMPUTE "mlflow_experiment_directory: /Workspace/Shared/team/exps\n", NULL);
	expect_check(r, "artifact_base", NULL, AIR_CHECK_FAIL, "is a FILE, not a folder");
	expect_check(r, "experiment_parent", NULL, AIR_CHECK_FAIL,
	             "/Workspace/Shared/team is a FILE, not a folder");
	air_check_report_free(r);
}

AIR_TEST(check__experiment_folder_in_the_home_and_refusals)
{
	air_check_report *r;

	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "experiment_parent", "experiment_name", AIR_CHECK_PASS,
	             "/Users/tester@databricks.com exists");
	air_check_report_free(r);
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/workspace/get-status\",\"status\":403,"
	                       "\"times\":-1,\"body\":{\"error_code\":\"PERMISSION_DENIED\","
	                       "\"message\":\"no access\"}}");
	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "artifact_base", NULL, AIR_CHECK_FAIL, "no access");
	air_check_report_free(r);
}

AIR_TEST(check__snapshot_volume)
{
	static const char yaml[] = BASE COMPUTE "code_source: {root_path: ., remote_volume: "
	                           "/Volumes/main/ml/snaps/team}\n";
	air_check_report *r;

	r = resources(yaml, NULL);
	expect_check(r, "snapshot_volume", "code_source.remote_volume", AIR_CHECK_FAIL,
	             "volume /Volumes/main/ml/snaps does not exist");
	air_check_report_free(r);
	put_file("/Volumes/main/ml/snaps/x");
	r = resources(yaml, NULL);
	expect_check(r, "snapshot_volume", NULL, AIR_CHECK_PASS, "volume /Volumes/main/ml/snaps exists");
	air_check_report_free(r);
}

/* ---- pool and accelerator types -------------------------------------------------- */

static void pools(const char *json)
{
	json_decref(fakews_callf(flow_fw, "POST", "/__fakews/pools", "{\"pools\":%s}", json));
}

#define POOLED "compute: {accelerator_type: GPU_8xH100, num_accelerators: 8, pool_id: p1}\n"

AIR_TEST(check__pool)
{
	air_check_report *r;

	r = resources(BASE POOLED, NULL);
	expect_check(r, "pool", "compute.pool_id", AIR_CHECK_FAIL, "GPU pool p1 does not exist");
	air_check_report_free(r);
	pools("[{\"id\":\"p1\",\"accelerator_type\":\"GPU_1xA10\",\"accelerator_count\":4}]");
	r = resources(BASE POOLED, NULL);
	expect_check(r, "pool", NULL, AIR_CHECK_FAIL, "has GPU_1xA10, not the GPU_8xH100");
	air_check_report_free(r);
	pools("[{\"id\":\"p1\",\"accelerator_type\":\"GPU_8xH100\",\"accelerator_count\":16}]");
	r = resources(BASE POOLED, NULL);
	expect_check(r, "pool", NULL, AIR_CHECK_PASS, "GPU pool p1 offers GPU_8xH100 (16 reserved)");
	air_check_report_free(r);
	fakews_configf(flow_fw, "{\"features\":{\"pools\":false}}");
	r = resources(BASE POOLED, NULL);
	expect_check(r, "pool", NULL, AIR_CHECK_FAIL, "not enabled");
	air_check_report_free(r);
}

AIR_TEST(check__accelerator_offered)
{
	air_check_report *r;

	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "accelerator_offered", "compute.accelerator_type", AIR_CHECK_PASS,
	             "the workspace offers GPU_1xH100");
	air_check_report_free(r);
	fakews_configf(flow_fw, "{\"compute_options\":[\"GPU_1xA10\",\"GPU_8xH100\"]}");
	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "accelerator_offered", NULL, AIR_CHECK_FAIL,
	             "does not offer GPU_1xH100; it offers: GPU_1xA10 GPU_8xH100");
	air_check_report_free(r);
	/* without compute options: the pools tell, else nobody */
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/ai-compute-manager/compute-options\","
	                       "\"status\":404,\"times\":-1,\"body\":{\"error_code\":"
	                       "\"ENDPOINT_NOT_FOUND\",\"message\":\"no route\"}}");
	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "accelerator_offered", NULL, AIR_CHECK_SKIPPED, "does not say whether it offers");
	air_check_report_free(r);
	pools("[{\"id\":\"p9\",\"accelerator_type\":\"GPU_1xH100\"}]");
	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "accelerator_offered", NULL, AIR_CHECK_PASS, "offered by GPU pool p9");
	air_check_report_free(r);
}

AIR_TEST(check__accelerator_types_call)
{
	air_client *c = fakews_client(flow_fw);
	air_error *err = NULL;
	char *list = NULL;

	fakews_configf(flow_fw, "{\"compute_options\":[\"GPU_1xA10\",\"GPU_FUTURE\",\"GPU_1xA10\"]}");
	ASSERT_OK(air_client_list_accelerator_types(c, NULL, &list, &err), err);
	ASSERT_EQ_STR(list, "GPU_1xA10,GPU_FUTURE");
	air_free(list);
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/ai-compute-manager/compute-options\","
	                       "\"status\":403,\"body\":{\"error_code\":\"FEATURE_DISABLED\","
	                       "\"message\":\"off\"}}");
	ASSERT_EQ_INT(air_client_list_accelerator_types(c, NULL, &list, &err), AIR_EDISABLED);
	ASSERT_NULL(list);
	air_error_free(err);
	air_client_free(c);
}

/* ---- experiment permissions --------------------------------------------------------- */

#define GRANTS "permissions:\n  - {user_name: a@b.com, level: CAN_VIEW}\n" \
               "  - {group_name: ops, level: CAN_MANAGE}\n"
#define EXPERIMENT "/Users/tester@databricks.com/smoke-test"

AIR_TEST(check__experiment_permissions)
{
	air_check_report *r;

	/* no experiment yet: the submission creates it */
	r = resources(BASE COMPUTE GRANTS, NULL);
	expect_check(r, "experiment_permissions", "permissions[0]", AIR_CHECK_PASS,
	             "experiment " EXPERIMENT " does not exist yet");
	air_check_report_free(r);
	json_decref(fakews_call(flow_fw, "POST", "/__fakews/experiments",
	                        "{\"experiments\":{\"" EXPERIMENT "\":{}}}"));
	r = resources(BASE COMPUTE GRANTS, NULL);
	expect_check(r, "experiment_permissions", "permissions[0]", AIR_CHECK_PASS,
	             "CAN_READ (CAN_VIEW) may be granted to a@b.com");
	expect_check(r, "experiment_permissions", "permissions[1]", AIR_CHECK_PASS,
	             "CAN_MANAGE (CAN_MANAGE) may be granted to ops");
	air_check_report_free(r);
	fakews_configf(flow_fw, "{\"experiments\":{\"grantable\":[\"CAN_READ\"]}}");
	r = resources(BASE COMPUTE GRANTS, NULL);
	expect_check(r, "experiment_permissions", "permissions[1]", AIR_CHECK_FAIL,
	             "may not be granted to ops on experiment " EXPERIMENT
	             " by this identity (it may grant: CAN_READ)");
	air_check_report_free(r);
	fakews_configf(flow_fw, "{\"experiments\":{\"manage\":false}}");
	r = resources(BASE COMPUTE GRANTS, NULL);
	expect_check(r, "experiment_permissions", "permissions", AIR_CHECK_FAIL,
	             "may not be managed by this identity");
	air_check_report_free(r);
	/* nothing was granted or created by the check */
	ASSERT_EQ_INT(fakews_count(flow_fw, "PATCH", "/api/2.0/permissions/experiments/*"), 0);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/mlflow/experiments/create"), 0);
}

AIR_TEST(check__experiment_level_without_counterpart)
{
	air_check_report *r = resources(BASE COMPUTE "mlflow_experiment_directory: /Workspace/Shared/x\n"
	                                "permissions:\n  - {user_name: a@b.com, level: CAN_DANCE}\n",
	                                NULL);

	expect_check(r, "experiment_permissions", "permissions[0]", AIR_CHECK_WARN,
	             "CAN_DANCE has no MLflow experiment counterpart");
	/* the experiment of a directory: no user look-up needed for its name */
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/mlflow/experiments/get-by-name"), 1);
	air_check_report_free(r);
}

/* ---- the pre-flight ----------------------------------------------------------------- */

AIR_TEST(check__preflight)
{
	air_check_report *r;
	json_t *body;

	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "preflight", NULL, AIR_CHECK_PASS, "the workspace accepts the configuration");
	air_check_report_free(r);
	/* the body a submission sends, with a launch directory that is never made */
	body = last_body("POST", "/api/2.0/ai-training/config:validate");
	ASSERT_TRUE(has_prefix(json_string_value(json_object_get(json_array_get(json_object_get(
	            json_object_get(body, "task"), "deployments"), 0), "command_path")),
	            "/Workspace/Users/tester@databricks.com/.air/cli_launch/smoke-test/smoke-test_"));
	json_decref(body);
	fakews_configf(flow_fw, "{\"preflight\":{\"errors\":[{\"path\":\"compute\",\"message\":"
	                        "\"no capacity\\nnow\",\"code\":\"X\"},{\"path\":\"experiment\","
	                        "\"message\":\"bad name\",\"code\":\"Y\"}]}}");
	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "preflight", "compute", AIR_CHECK_FAIL, "no capacity\\nnow");
	expect_check(r, "preflight", "experiment", AIR_CHECK_FAIL, "bad name");
	air_check_report_free(r);
}

AIR_TEST(check__preflight_failures)
{
	air_check_report *r;

	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/ai-training/config:validate\",\"status\":500,"
	                       "\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"boom\"}}");
	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "preflight", NULL, AIR_CHECK_SKIPPED, "runs/submit validates the run instead");
	air_check_report_free(r);
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/ai-training/config:validate\",\"status\":403,"
	                       "\"body\":{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"nope\"}}");
	r = resources(BASE COMPUTE, NULL);
	expect_check(r, "preflight", NULL, AIR_CHECK_FAIL, "nope");
	air_check_report_free(r);
}

/* ---- the call ------------------------------------------------------------------------- */

AIR_TEST(check__nothing_is_uploaded_created_or_submitted)
{
	char yaml[8192];
	air_check_report *r;
	json_t *reqs, *q;
	size_t i;

	secrets_store();
	sh("mkdir -p '%s/src' && echo 'print(1)' > '%s/src/train.py'", dir, dir);
	snprintf(yaml, sizeof(yaml), BASE COMPUTE GRANTS "secrets: {HF_TOKEN: ml/hf}\n"
	         "mlflow_experiment_directory: /Workspace/Shared/exps\n"
	         "code_source: {root_path: %s/src}\n", dir);
	r = resources(yaml, NULL);
	ASSERT_EQ_INT(air_check_report_ok(r), 1);
	reqs = fakews_requests(flow_fw);
	json_array_foreach(reqs, i, q) {
		const char *m = json_string_value(json_object_get(q, "method"));
		const char *p = json_string_value(json_object_get(q, "path"));
		/* reads only, and the pre-flight */
		ASSERT_TRUE(!strcmp(m, "GET") || !strcmp(m, "HEAD") ||
		            !strcmp(p, "/api/2.0/ai-training/config:validate"));
	}
	json_decref(reqs);
	air_check_report_free(r);
}

AIR_TEST(check__offline_groups_make_no_request)
{
	air_check_options *o = check_options(0, 0, 1, 1);
	air_check_report *r = resources(BASE COMPUTE "secrets: {HF_TOKEN: ml/hf}\n", o);

	ASSERT_NULL(find_check(r, "secret_scope", NULL));
	ASSERT_NOT_NULL(find_check(r, "environment_pinned", NULL));
	ASSERT_EQ_STR(request_log(), "");
	air_check_report_free(r);
	air_check_options_free(o);
}

AIR_TEST(check__an_identity_the_workspace_refuses_fails_the_report)
{
	air_client_options *co = fakews_client_options(flow_fw);
	air_client *c;
	air_check_options *o = check_options(0, 1, 0, 0);
	air_check_report *r;

	ASSERT_EQ_INT(air_client_options_set_str(co, AIR_OPT_TOKEN, "dapi-wrong"), AIR_OK);
	c = fakews_client_from(co);
	r = check_yaml(c, BASE COMPUTE, o);
	expect_check(r, "artifact_base", NULL, AIR_CHECK_FAIL, "the current user cannot be looked up");
	expect_check(r, "preflight", NULL, AIR_CHECK_FAIL, "the current user cannot be looked up");
	ASSERT_EQ_INT(air_check_report_ok(r), 0);
	/* one look-up for all the checks that need it */
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/preview/scim/v2/Me"), 1);
	air_check_report_free(r);
	air_check_options_free(o);
	air_client_free(c);
}

static int count_cb(const air_check *c, void *ud)
{
	int *n = ud;

	(*n)++;
	return air_check_status(c) == AIR_CHECK_FAIL ? 1 : 0;
}

AIR_TEST(check__callback_sees_each_check_and_may_stop)
{
	air_check_options *o = check_options(0, 1, 1, 1);
	air_client *c = fakews_client(flow_fw);
	air_check_report *r = NULL;
	air_config *cfg = load_yaml(dir, "w.yaml", BASE COMPUTE "secrets: {A: nope/k}\n");
	air_error *err = NULL;
	int n = 0;

	ASSERT_EQ_INT(air_check_options_set_check_cb(o, count_cb, &n), AIR_OK);
	ASSERT_EQ_INT(air_client_check(c, cfg, o, &r, &err), AIR_EABORTED);
	ASSERT_NULL(r);
	ASSERT_EQ_INT(air_error_code(err), AIR_EABORTED);
	ASSERT_TRUE(n >= 2);
	air_error_free(err);
	air_config_free(cfg);
	air_client_free(c);
	air_check_options_free(o);
}

AIR_TEST(check__deadline_and_interrupt_stop_the_call)
{
	air_check_options *o = check_options(0, 1, 0, 0);
	air_client *c = fakews_client(flow_fw);
	air_check_report *r = NULL;
	air_config *cfg = load_yaml(dir, "w.yaml", BASE COMPUTE "secrets: {A: ml/k}\n");
	air_interrupt *intr = NULL;
	air_error *err = NULL;

	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/secrets/scopes/list\",\"action\":\"delay\","
	                       "\"delay_ms\":30000}");
	ASSERT_EQ_INT(air_check_options_set_deadline_ms(o, 300), AIR_OK);
	ASSERT_EQ_INT(air_client_check(c, cfg, o, &r, &err), AIR_ETIMEOUT);
	ASSERT_NULL(r);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	air_interrupt_trigger(intr);
	ASSERT_EQ_INT(air_check_options_set_deadline_ms(o, 0), AIR_OK);
	ASSERT_EQ_INT(air_check_options_set_interrupt(o, intr), AIR_OK);
	ASSERT_EQ_INT(air_client_check(c, cfg, o, &r, &err), AIR_EINTERRUPTED);
	ASSERT_NULL(r);
	air_error_free(err);
	air_interrupt_free(intr);
	air_config_free(cfg);
	air_client_free(c);
	air_check_options_free(o);
}

AIR_TEST(check__arguments_and_options)
{
	air_check_options *o = NULL;
	air_check_report *r = NULL;
	air_client *c = fakews_client(flow_fw);
	air_config *cfg = load_yaml(dir, "w.yaml", BASE COMPUTE);
	air_error *err = NULL;

	ASSERT_EQ_INT(air_check_options_new(NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_check_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_check_options_set_str(o, AIR_CHECKS_STRICT, "1"), AIR_EINVAL);
	ASSERT_EQ_INT(air_check_options_set_int(o, AIR_CHECKS_BASE_DIR, 1), AIR_EINVAL);
	ASSERT_EQ_INT(air_check_options_set_int(o, AIR_CHECKS_STRICT, 2), AIR_EINVAL);
	ASSERT_EQ_INT(air_check_options_set_int(o, 999, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_check_options_set_str(o, 98, "x"), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_check_options_set_str(o, AIR_CHECKS_IDEMPOTENCY_KEY, " "), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_check(NULL, cfg, o, &r, &err), AIR_EINVAL);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_client_check(c, cfg, o, NULL, NULL), AIR_EINVAL);
	/* overridden after its validation */
	ASSERT_EQ_INT(air_config_override(cfg, "max_retries=1", NULL), AIR_OK);
	ASSERT_EQ_INT(air_client_check(c, cfg, o, &r, &err), AIR_ECONFIG);
	ASSERT_NULL(r);
	air_error_free(err);
	ASSERT_EQ_STR(air_check_status_name(AIR_CHECK_SKIPPED), "skipped");
	ASSERT_NULL(air_check_status_name(0));
	ASSERT_EQ_INT(air_check_report_ok(NULL), 0);
	ASSERT_EQ_INT(air_check_report_count(NULL), 0);
	ASSERT_NULL(air_check_report_get(NULL, 0));
	air_check_report_free(NULL);
	air_check_options_free(NULL);
	air_check_options_free(o);
	air_config_free(cfg);
	air_client_free(c);
}

AIR_TEST(check__an_unreachable_workspace_is_asked_once)
{
	air_client_options *co = fakews_client_options(flow_fw);
	air_client *c;
	air_check_options *o = check_options(0, 1, 0, 0);
	air_check_report *r;
	json_t *reqs;

	/* a persistent 503 spends the retry deadline once, not once per check */
	fakews_faultf(flow_fw, "{\"path\":\"/api/*\",\"status\":503,\"times\":-1,"
	                       "\"body\":{\"error_code\":\"TEMPORARILY_UNAVAILABLE\","
	                       "\"message\":\"down\"}}");
	ASSERT_EQ_INT(air_client_options_set_int(co, AIR_OPT_RETRY_DEADLINE_MS, 200), AIR_OK);
	c = fakews_client_from(co);
	r = check_yaml(c, BASE COMPUTE "secrets: {A: ml/k}\n"
	               "permissions: [{user_name: a@b.com, level: CAN_VIEW}]\n", o);
	expect_check(r, "secret_scope", "secrets.A", AIR_CHECK_SKIPPED, "down");
	expect_check(r, "preflight", NULL, AIR_CHECK_SKIPPED, "not checked: the workspace did not "
	             "answer an earlier request");
	expect_check(r, "experiment_permissions", NULL, AIR_CHECK_SKIPPED, "not checked");
	expect_check(r, "secret_key", "secrets.A", AIR_CHECK_SKIPPED, "not checked");
	/* nothing more was asked after the first request that failed */
	reqs = fakews_requests(flow_fw);
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/secrets/scopes/list"),
	              (int)json_array_size(reqs));
	json_decref(reqs);
	air_check_report_free(r);
	air_check_options_free(o);
	air_client_free(c);
}
