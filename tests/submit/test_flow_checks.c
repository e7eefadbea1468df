/* test_flow_checks.c: the workspace checks before anything is uploaded —
 * pre-flight rejection, fail-open and hard failure (SCENARIOS S13-S15), the
 * idempotency key limit (S24), usage policies (S16, S17), the experiment
 * directory (S18) and the legacy image (S27); the client-wide interrupt ends
 * the waits between image and MLflow-link polls. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "submit_test.h"
#include "test.h"

AIR_TEST_HOOKS(flow_setup, NULL)

#define VALID "experiment_name: smoke-test\ncommand: python train.py\n" \
              "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"

/* Submit @yaml with client @c (freed); returns the status, *err receives the error. */
static int submit_on(air_client *c, const char *yaml, const char *key, air_submission **sub,
                     air_error **err)
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", yaml);
	air_submit_options *o = NULL;
	int rc;

	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	if (key)
		ASSERT_EQ_INT(air_submit_options_set_str(o, AIR_SUBMIT_IDEMPOTENCY_KEY, key), AIR_OK);
	rc = air_client_submit(c, cfg, o, sub, err);
	air_submit_options_free(o);
	air_client_free(c);
	air_config_free(cfg);
	return rc;
}

static int submit_yaml(const char *yaml, const char *key, air_submission **sub, air_error **err)
{
	return submit_on(fakews_client(flow_fw), yaml, key, sub, err);
}

/* A client of flow_fw that reads the environment (AIR_OPT_USE_ENVIRONMENT 1),
 * from which the DATABRICKS_* variables this process inherited are removed. */
static air_client *environment_client(void)
{
	extern char **environ;
	air_client_options *o = fakews_client_options(flow_fw);

	for (size_t i = 0; environ[i];) {
		char name[256];
		size_t n = strcspn(environ[i], "=");

		if (strncmp(environ[i], "DATABRICKS_", 11) == 0 && n < sizeof(name)) {
			memcpy(name, environ[i], n);
			name[n] = '\0';
			unsetenv(name);
		} else {
			i++;
		}
	}
	ASSERT_EQ_INT(air_client_options_set_int(o, AIR_OPT_USE_ENVIRONMENT, 1), AIR_OK);
	return fakews_client_from(o);
}

static void submit_fails(const char *yaml, int code, air_error **err)
{
	air_submission *sub = NULL;

	ASSERT_EQ_INT(submit_yaml(yaml, NULL, &sub, err), code);
	ASSERT_NULL(sub);
	ASSERT_NOT_NULL(*err);
}

static void submit_succeeds(const char *yaml)
{
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_OK(submit_yaml(yaml, NULL, &sub, &err), err);
	ASSERT_EQ_INT(air_submission_run_id(sub), 555);
	air_submission_free(sub);
}

static void assert_nothing_uploaded(void)
{
	ASSERT_EQ_INT(count_prefix("POST", "/api/2.0/workspace-files/import-file/"), 0);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/workspace/mkdirs"), 0);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 0);
}

AIR_TEST(flow__preflight_rejection_uploads_nothing)
{
	air_error *err = NULL;

	fakews_configf(flow_fw, "{\"preflight\":{\"errors\":["
	               "{\"path\":\"experiment\",\"message\":\"only letters, digits, - and _\",\"code\":\"DISALLOWED_CHARACTERS\"},"
	               "{\"path\":\"deployments[0].compute.accelerator_count\",\"message\":\"must be a multiple of 8\","
	               "\"code\":\"COUNT_NOT_MULTIPLE\"}]}}");
	submit_fails(VALID, AIR_EREJECTED, &err);
	ASSERT_CONTAINS(air_error_message(err), "\nexperiment: only letters, digits, - and _");
	ASSERT_CONTAINS(air_error_message(err), "\ndeployments[0].compute.accelerator_count: must be a multiple of 8");
	ASSERT_EQ_STR(request_log(), "GET /api/2.0/preview/scim/v2/Me\n"
	                             "POST /api/2.0/ai-training/config:validate\n");
	air_error_free(err);
}

AIR_TEST(flow__preflight_fails_open)
{
	/* FEATURE_DISABLED (400), 404 ENDPOINT_NOT_FOUND, 501, 500: the run goes ahead */
	static const char *const faults[] = {
		NULL,
		"{\"path\":\"/api/2.0/ai-training/config:validate\",\"status\":404,"
		"\"body\":{\"error_code\":\"ENDPOINT_NOT_FOUND\",\"message\":\"no route\"}}",
		"{\"path\":\"/api/2.0/ai-training/config:validate\",\"status\":501,\"body\":\"Not Implemented\"}",
		"{\"path\":\"/api/2.0/ai-training/config:validate\",\"status\":500,"
		"\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"boom\"}}",
	};

	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		fakews_reset(flow_fw);
		if (faults[i])
			fakews_faultf(flow_fw, "%s", faults[i]);
		else
			fakews_configf(flow_fw, "{\"features\":{\"preflight\":false}}");
		submit_succeeds(VALID);
		ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/ai-training/config:validate"), 1);
		ASSERT_EQ_INT(count_prefix("POST", "/api/2.0/workspace-files/import-file/"), 2);
		ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 1);
	}
}

AIR_TEST(flow__preflight_hard_failure)
{
	air_error *err = NULL;

	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/ai-training/config:validate\",\"status\":400,"
	              "\"body\":{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"command_path is required\"}}");
	submit_fails(VALID, AIR_EAPI, &err);
	ASSERT_CONTAINS(air_error_message(err), "command_path is required");
	ASSERT_EQ_STR(air_error_server_code(err), "INVALID_PARAMETER_VALUE");
	ASSERT_EQ_INT(air_error_http_status(err), 400);
	assert_nothing_uploaded();
	air_error_free(err);
}

AIR_TEST(flow__overlong_idempotency_key_after_preflight_only)
{
	air_submission *sub = NULL;
	air_error *err = NULL;
	char key[66];

	memset(key, 'k', 65);
	key[65] = '\0';
	ASSERT_EQ_INT(submit_yaml(VALID, key, &sub, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "64");
	ASSERT_EQ_STR(request_log(), "GET /api/2.0/preview/scim/v2/Me\n"
	                             "POST /api/2.0/ai-training/config:validate\n");
	air_error_free(err);
	/* exactly 64 bytes is fine */
	key[64] = '\0';
	ASSERT_OK(submit_yaml(VALID, key, &sub, &err), err);
	ASSERT_EQ_STR(air_submission_idempotency_token(sub), key);
	air_submission_free(sub);
}

/* air_config_check_submission(): what the submission checks without the
 * workspace, without a request. */
static int check_yaml(const char *yaml, const char *key, air_error **err)
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", yaml);
	air_submit_options *o = NULL;
	int rc;

	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	if (key)
		ASSERT_EQ_INT(air_submit_options_set_str(o, AIR_SUBMIT_IDEMPOTENCY_KEY, key), AIR_OK);
	rc = air_config_check_submission(cfg, o, err);
	air_submit_options_free(o);
	air_config_free(cfg);
	return rc;
}

AIR_TEST(check_submission__the_offline_checks_of_a_submission)
{
	char key[66], yaml[512], token[90] = "";
	air_error *err = NULL;

	memset(key, 'k', 65);
	key[65] = '\0';
	ASSERT_EQ_INT(check_yaml(VALID, key, &err), AIR_EINVAL);
	ASSERT_EQ_STR(air_error_message(err),
	              "the idempotency key is 65 bytes long; at most 64 bytes are allowed");
	ASSERT_EQ_STR(air_error_field(err), "idempotency_key");
	air_error_free(err);
	err = NULL;
	key[64] = '\0';
	ASSERT_OK(check_yaml(VALID, key, &err), err);
	ASSERT_OK(check_yaml(VALID, NULL, &err), err);
	/* the YAML token is sent verbatim: its blanks count */
	for (int i = 0; i < 30; i++)
		strcat(token, "\xC3\xA9"); /* é */
	snprintf(yaml, sizeof(yaml), VALID "idempotency_token: \"%s      \"\n", token);
	ASSERT_EQ_INT(check_yaml(yaml, NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "66 bytes long");
	ASSERT_EQ_STR(air_error_field(err), "idempotency_token");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(check_yaml(VALID "code_source: {root_path: ./not-there}\n", NULL, &err),
	              AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "not-there");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_check_submission(NULL, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	ASSERT_EQ_STR(request_log(), "");
}

AIR_TEST(flow__usage_policy_by_name_with_paging)
{
	json_t *reqs, *q;
	air_error *err = NULL;
	air_submission *sub = NULL;

	/* page 2 repeats page 1's token: paging stops there */
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/serverless-policies\",\"status\":200,\"body\":"
	              "{\"policies\":[{\"policy_id\":\"id-x\",\"policy_name\":\"team-alpha\"}],\"next_page_token\":\"t1\"}}");
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/serverless-policies\",\"status\":200,\"body\":"
	              "{\"policies\":[{\"policy_id\":\"12345678-90ab-cdef-1234-567890abcdef\",\"policy_name\":\"Team-A\"},"
	              "{\"policy_id\":\"id-x\",\"policy_name\":\"team-alpha\"}],\"next_page_token\":\"t1\"}}");
	ASSERT_OK(submit_yaml(VALID "usage_policy_name: team-a\n", NULL, &sub, &err), err);
	air_submission_free(sub);
	assert_json_eq(last_body_member("POST", "/api/2.0/ai-training/config:validate", "run_options"), "{\"usage_policy_name\":\"team-a\"}");
	reqs = fakews_callf(flow_fw, "GET", "/__fakews/requests?path=/api/2.0/serverless-policies", "%s", "");
	ASSERT_EQ_INT(json_array_size(json_object_get(reqs, "requests")), 2);
	q = json_object_get(json_array_get(json_object_get(reqs, "requests"), 0), "query");
	assert_json_eq(json_incref(q), "{\"page_size\":[\"1000\"],\"filter_by.policy_name\":[\"team-a\"]}");
	q = json_object_get(json_array_get(json_object_get(reqs, "requests"), 1), "query");
	assert_json_eq(json_incref(q), "{\"page_size\":[\"1000\"],\"filter_by.policy_name\":[\"team-a\"],"
	                               "\"page_token\":[\"t1\"]}");
	json_decref(reqs);
	{
		json_t *body = last_body("POST", "/api/2.2/jobs/runs/submit");
		ASSERT_EQ_STR(json_string_value(json_object_get(body, "budget_policy_id")),
		              "12345678-90ab-cdef-1234-567890abcdef");
		json_decref(body);
	}
	/* ... and it comes before the uploads */
	ASSERT_TRUE(strstr(request_log(), "serverless-policies") < strstr(request_log(), "mkdirs"));
}

AIR_TEST(flow__usage_policy_by_id_needs_no_lookup)
{
	json_t *body;

	submit_succeeds(VALID "usage_policy_id: 12345678-90ab-cdef-1234-567890abcdef\n");
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/serverless-policies"), 0);
	body = last_body("POST", "/api/2.2/jobs/runs/submit");
	ASSERT_EQ_STR(json_string_value(json_object_get(body, "budget_policy_id")),
	              "12345678-90ab-cdef-1234-567890abcdef");
	json_decref(body);
}

AIR_TEST(flow__usage_policy_not_found)
{
	air_error *err = NULL;
	json_t *r = fakews_call(flow_fw, "POST", "/__fakews/policies",
	                        "{\"policies\":[{\"policy_id\":\"1\",\"policy_name\":\"team-b\"},"
	                        "{\"policy_id\":\"2\",\"policy_name\":\"team-c\"}]}");

	json_decref(r);
	/* the server's filter is partial: "team" finds both, neither is exact */
	submit_fails(VALID "usage_policy_name: team\n", AIR_ENOTFOUND, &err);
	ASSERT_CONTAINS(air_error_message(err), "\"team\"");
	ASSERT_CONTAINS(air_error_message(err), "team-b, team-c");
	ASSERT_TRUE(has_suffix(request_log(), "GET /api/2.0/serverless-policies\n"));
	assert_nothing_uploaded();
	air_error_free(err);
}

AIR_TEST(flow__experiment_directory_created_when_missing)
{
	json_t *body;

	submit_succeeds(VALID "mlflow_experiment_directory: /Workspace/Shared/exp\n");
	ASSERT_TRUE(has_prefix(request_log(), "GET /api/2.0/preview/scim/v2/Me\n"
	                                      "POST /api/2.0/ai-training/config:validate\n"
	                                      "GET /api/2.0/workspace/get-status\n"
	                                      "POST /api/2.0/workspace/mkdirs\n"
	                                      "POST /api/2.0/workspace/mkdirs\n"));
	body = fakews_callf(flow_fw, "GET", "/__fakews/requests?path=/api/2.0/workspace/mkdirs", "%s", "");
	ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(json_object_get(body, "requests"), 0),
	                                                "body")), "{\"path\":\"/Workspace/Shared/exp\"}");
	json_decref(body);
	body = last_body("POST", "/api/2.2/jobs/runs/submit");
	ASSERT_EQ_STR(json_string_value(json_object_get(
	                  json_object_get(json_array_get(json_object_get(body, "tasks"), 0), "ai_runtime_task"),
	                  "mlflow_experiment_directory")), "/Workspace/Shared/exp");
	json_decref(body);
}

AIR_TEST(flow__experiment_directory_existing_or_a_file)
{
	air_error *err = NULL;
	json_t *r;

	r = fakews_call(flow_fw, "POST", "/__fakews/file?path=/Workspace/Shared/dir/x", "x");
	json_decref(r);
	submit_succeeds(VALID "mlflow_experiment_directory: /Workspace/Shared/dir\n");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/workspace/mkdirs"), 1); /* the launch dir only */

	fakews_reset(flow_fw);
	r = fakews_call(flow_fw, "POST", "/__fakews/file?path=/Workspace/Shared/exp", "not a directory");
	json_decref(r);
	submit_fails(VALID "mlflow_experiment_directory: /Workspace/Shared/exp\n", AIR_ECONFLICT, &err);
	ASSERT_CONTAINS(air_error_message(err), "/Workspace/Shared/exp");
	ASSERT_CONTAINS(air_error_message(err), "FILE");
	assert_nothing_uploaded();
	air_error_free(err);
}

#define IMAGE VALID "environment: {docker_image: {url: myreg.io/team/train:v3}}\n"

AIR_TEST(flow__legacy_image_not_registered)
{
	air_error *err = NULL;
	json_t *req;

	submit_fails(IMAGE, AIR_ENOTFOUND, &err);
	ASSERT_CONTAINS(air_error_message(err), "not registered");
	ASSERT_CONTAINS(air_error_message(err), "register-image");
	req = fakews_last_request(flow_fw, "GET", "/api/2.0/ai-compute-manager/images:get");
	assert_json_eq(json_incref(json_object_get(req, "query")),
	               "{\"docker_image_url\":[\"myreg.io/team/train:v3\"]}");
	json_decref(req);
	assert_nothing_uploaded();
	air_error_free(err);
}

AIR_TEST(flow__legacy_image_importing_then_available)
{
	json_t *r = fakews_call(flow_fw, "POST", "/__fakews/images",
	                        "{\"images\":{\"myreg.io/team/train:v3\":{\"state\":\"IMPORTING\","
	                        "\"states\":[\"IMPORTING\",\"IMPORTING\",{\"state\":\"AVAILABLE\","
	                        "\"manifest_sha256\":\"abc\"}]}}}");
	json_t *body, *air;

	air_submission *sub = NULL;
	air_error *err = NULL;

	json_decref(r);
	setenv("AIR_IMAGE_POLL_MS", "20", 1); /* read through the client's environment */
	ASSERT_OK(submit_on(environment_client(), IMAGE, NULL, &sub, &err), err);
	air_submission_free(sub);
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/ai-compute-manager/images:get"), 3);
	body = last_body("POST", "/api/2.2/jobs/runs/submit");
	air = json_object_get(json_array_get(json_object_get(body, "tasks"), 0), "ai_runtime_task");
	ASSERT_NULL(json_object_get(air, "docker_image_url")); /* checked, not attached */
	{
		char *text = json_dumps(body, 0);
		ASSERT_NOT_CONTAINS(text, "myreg.io");
		free(text);
	}
	json_decref(body);
}

AIR_TEST(flow__legacy_image_failed)
{
	air_error *err = NULL;
	json_t *r = fakews_call(flow_fw, "POST", "/__fakews/images",
	                        "{\"images\":{\"myreg.io/team/train:v3\":{\"state\":\"FAILED\","
	                        "\"status_message\":\"pull denied\"}}}");

	json_decref(r);
	submit_fails(IMAGE, AIR_EAPI, &err);
	ASSERT_CONTAINS(air_error_message(err), "pull denied");
	assert_nothing_uploaded();
	air_error_free(err);
}

AIR_TEST(flow__legacy_image_latest_is_registered_again)
{
	json_t *body = fakews_call(flow_fw, "POST", "/__fakews/secrets",
	                           "{\"scopes\":{\"s\":{\"k\":\"dTpw\"}}}");

	json_decref(body);
	submit_succeeds(VALID "environment: {docker_image: {url: team/train, tag_policy: latest, "
	                "credentials_scope: s, credentials_key: k}}\n");
	body = last_body("POST", "/api/2.0/ai-compute-manager/images");
	assert_json_eq(body, "{\"docker_image_url\":\"docker.io/team/train:latest\","
	                     "\"credentials_scope\":\"s\",\"credentials_key\":\"k\"}");
	/* the digest before and after the registration */
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/ai-compute-manager/images:get"), 2);
}

/* ---- the client-wide interrupt ends the waits between polls ---- */

typedef struct late_trigger {
	air_interrupt *intr;
	int delay_ms;
	long long fired_ms;
} late_trigger;

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *trigger_later(void *arg)
{
	late_trigger *t = arg;

	usleep((useconds_t)t->delay_ms * 1000);
	t->fired_ms = mono_ms();
	air_interrupt_trigger(t->intr);
	return NULL;
}

/* Raises @arg's interrupt 300 ms after the first poll of the image's state. */
static void *trigger_after_first_poll(void *arg)
{
	late_trigger *t = arg;

	while (fakews_count(flow_fw, "GET", "/api/2.0/ai-compute-manager/images:get") == 0)
		usleep(10 * 1000);
	usleep(300 * 1000); /* fifteen polls of the 20 ms the environment asks for */
	t->fired_ms = mono_ms();
	air_interrupt_trigger(t->intr);
	return NULL;
}

/* A client of flow_fw whose client-wide interrupt @fire raises, on a thread
 * of its own (@th), from now; @t->delay_ms is kept for @fire. */
static air_client *client_interrupted_by(late_trigger *t, pthread_t *th, void *(*fire)(void *))
{
	air_client_options *o = fakews_client_options(flow_fw);
	air_client *c;

	t->fired_ms = 0;
	ASSERT_EQ_INT(air_interrupt_new(&t->intr), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_interrupt(o, t->intr), AIR_OK);
	c = fakews_client_from(o);
	ASSERT_EQ_INT(pthread_create(th, NULL, fire, t), 0);
	return c;
}

/* Submits IMAGE with a client interrupted by @fire: the submission stops
 * with AIR_EINTERRUPTED and nothing uploaded. Returns when it stopped. */
static long long submit_interrupted(late_trigger *t, void *(*fire)(void *))
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", IMAGE);
	air_submission *sub = NULL;
	air_error *err = NULL;
	pthread_t th;
	air_client *c = client_interrupted_by(t, &th, fire);
	long long done;

	ASSERT_EQ_INT(air_client_submit(c, cfg, NULL, &sub, &err), AIR_EINTERRUPTED);
	done = mono_ms();
	pthread_join(th, NULL);
	ASSERT_NULL(sub);
	assert_nothing_uploaded();
	air_error_free(err);
	air_client_free(c);
	air_interrupt_free(t->intr);
	air_config_free(cfg);
	return done;
}

AIR_TEST(flow__legacy_image_wait_stops_on_the_client_interrupt)
{
	json_t *r = fakews_call(flow_fw, "POST", "/__fakews/images",
	                        "{\"images\":{\"myreg.io/team/train:v3\":{\"state\":\"IMPORTING\"}}}");
	late_trigger t = {.delay_ms = 500}; /* the image is polled every 5 s */
	long long done;

	json_decref(r);
	done = submit_interrupted(&t, trigger_later);
	air_test_note("stopped %lld ms after the client interrupt", done - t.fired_ms);
	ASSERT_TRUE(done - t.fired_ms < 1000); /* "within a second" */
}

AIR_TEST(flow__legacy_image_poll_interval_is_not_read_without_the_environment)
{
	json_t *r = fakews_call(flow_fw, "POST", "/__fakews/images",
	                        "{\"images\":{\"myreg.io/team/train:v3\":{\"state\":\"IMPORTING\","
	                        "\"states\":[\"IMPORTING\",\"IMPORTING\",\"AVAILABLE\"]}}}");
	late_trigger t = {0};

	json_decref(r);
	/* Ignored by the client of flow_fw (AIR_OPT_USE_ENVIRONMENT 0): the image
	 * is polled every 5 s, and the interrupt comes before the third poll. */
	setenv("AIR_IMAGE_POLL_MS", "20", 1);
	submit_interrupted(&t, trigger_after_first_poll);
	ASSERT_TRUE(fakews_count(flow_fw, "GET", "/api/2.0/ai-compute-manager/images:get") < 3);
}

AIR_TEST(flow__mlflow_links_wait_stops_on_the_client_interrupt)
{
	/* A run that has not started: its task output has no MLflow ids yet. */
	int64_t id = fakews_create_runf(flow_fw, "{\"state\":{\"life_cycle_state\":\"PENDING\"},"
	                                         "\"tasks\":[{\"task_key\":\"t\",\"ai_runtime_task\":{}}]}");
	char *run_url = NULL, *exp_url = NULL;
	air_error *err = NULL;
	late_trigger t = {.delay_ms = 500};
	pthread_t th;
	air_client *c = client_interrupted_by(&t, &th, trigger_later);
	long long done;

	/* The links are unknown; the interrupt ends the call like any other. */
	ASSERT_EQ_INT(air_client_poll_mlflow_links(c, id, 10, 3000, NULL, &run_url, &exp_url, &err),
	              AIR_EINTERRUPTED);
	air_error_free(err);
	done = mono_ms();
	pthread_join(th, NULL);
	air_test_note("stopped %lld ms after the client interrupt", done - t.fired_ms);
	ASSERT_TRUE(done - t.fired_ms < 1000); /* "within a second" */
	ASSERT_NULL(run_url);
	ASSERT_NULL(exp_url);
	air_client_free(c);
	air_interrupt_free(t.intr);
}
