/* test_register_image.c: air_client_register_image() against the fake
 * workspace (docs/submit.md#legacy-environmentdocker_image): credentials from a
 * Docker configuration written here (credential helpers are scripts on PATH that record their input),
 * their storage in the caller's secret scope, the registration and its wait,
 * digests, the anonymous retry, the failures and their kinds, and that no
 * credential ever shows in a request other than secrets/put or in a trace. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <air/air.h>

#include "submit_test.h"
#include "test.h"

#define IMAGE "myreg.io/team/train:v3"
#define SCOPE "docker-credentials-tester@databricks.com"
#define PASSWORD "s3cret-Pa55word"
/* base64("alice:s3cret-Pa55word") */
#define AUTH_B64 "YWxpY2U6czNjcmV0LVBhNTV3b3Jk"

static const char *dir, *bin;

static void setup(void)
{
	flow_setup();
	test_bin_begin(&dir, &bin);
}

AIR_TEST_HOOKS(setup, NULL)

/* $dir/config.json */
static void docker_config(const char *json)
{
	char path[4300];

	snprintf(path, sizeof(path), "%s/config.json", dir);
	air_test_write_file(path, json, strlen(json));
}

/* docker-credential-<name> on PATH: records its stdin in <name>.in, then runs @body. */
static void helper(const char *name, const char *body)
{
	char prog[256], script[8400];

	snprintf(prog, sizeof(prog), "docker-credential-%s", name);
	snprintf(script, sizeof(script), "#!/bin/sh\ncat > '%s/%s.in'\n%s\n", dir, name, body);
	test_bin_program(prog, script);
}

/* What helper @name read on stdin (static buffer). */
static const char *helper_input(const char *name)
{
	static char buf[1024];
	char path[4400], *s;

	snprintf(path, sizeof(path), "%s/%s.in", dir, name);
	s = air_test_read_file(path, NULL);
	snprintf(buf, sizeof(buf), "%s", s ? s : "(not run)");
	free(s);
	return buf;
}

static air_register_image_options *options(void)
{
	air_register_image_options *o = NULL;

	ASSERT_EQ_INT(air_register_image_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_str(o, AIR_REGISTER_DOCKER_CONFIG_DIR, dir),
	              AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_int(o, AIR_REGISTER_POLL_INTERVAL_MS, 10), AIR_OK);
	return o;
}

/* Debug trace collected for the secret checks. */
static char trace[1 << 16];
static size_t trace_len;

static int collect(int32_t type, const char *text, size_t len, void *ud)
{
	(void)type;
	(void)ud;
	if (trace_len + len + 1 < sizeof(trace)) {
		memcpy(trace + trace_len, text, len);
		trace_len += len;
		trace[trace_len++] = '\n';
		trace[trace_len] = '\0';
	}
	return 0;
}

static air_client *traced_client(void)
{
	air_client_options *o = fakews_client_options(flow_fw);

	trace_len = 0;
	trace[0] = '\0';
	ASSERT_EQ_INT(air_client_options_set_debug_cb(o, collect, NULL), AIR_OK);
	return fakews_client_from(o);
}

static int reg(const char *url, const air_register_image_options *o, air_image_registration **out,
               air_error **err)
{
	air_client *c = traced_client();
	int rc = air_client_register_image(c, url, o, out, err);

	air_client_free(c);
	return rc;
}

static void images(const char *json)
{
	json_decref(fakews_callf(flow_fw, "POST", "/__fakews/images", "{\"images\":%s}", json));
}

/* The password appears in no recorded request but secrets/put, and in no trace. */
static void assert_secret_kept(void)
{
	json_t *reqs = fakews_requests(flow_fw), *r;
	size_t i;

	json_array_foreach(reqs, i, r) {
		const char *path = json_string_value(json_object_get(r, "path"));
		const char *body = json_string_value(json_object_get(r, "body"));
		if (!strcmp(path, "/api/2.0/secrets/put"))
			continue;
		ASSERT_NOT_CONTAINS(body ? body : "", PASSWORD);
		ASSERT_NOT_CONTAINS(body ? body : "", AUTH_B64);
	}
	json_decref(reqs);
	ASSERT_NOT_CONTAINS(trace, PASSWORD);
	ASSERT_NOT_CONTAINS(trace, AUTH_B64);
}

static const char *stored_secret(const char *scope, const char *key)
{
	static char buf[512];
	json_t *s = fakews_call(flow_fw, "GET", "/__fakews/secrets", NULL);
	const char *v = json_string_value(json_object_get(json_object_get(json_object_get(s, "scopes"),
	                                                                  scope), key));

	snprintf(buf, sizeof(buf), "%s", v ? v : "(none)");
	json_decref(s);
	return buf;
}

AIR_TEST(register__anonymous_first_registration)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	ASSERT_OK(reg("ubuntu", o, &r, &err), err);
	ASSERT_EQ_STR(air_image_registration_url(r), "docker.io/library/ubuntu:latest");
	ASSERT_EQ_STR(air_image_registration_status(r), "AVAILABLE");
	ASSERT_EQ_INT(strlen(air_image_registration_manifest_sha256(r)), 64);
	ASSERT_EQ_INT(air_image_registration_image_updated(r), 1);
	ASSERT_EQ_INT(air_image_registration_cached(r), 0);
	ASSERT_NULL(air_image_registration_credentials_scope(r));
	ASSERT_NULL(air_image_registration_credentials_key(r));
	ASSERT_EQ_STR(request_log(), "GET /api/2.0/ai-compute-manager/images:get\n"
	                             "POST /api/2.0/ai-compute-manager/images\n"
	                             "GET /api/2.0/ai-compute-manager/images:get\n");
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

AIR_TEST(register__a_failed_re_read_after_available_keeps_the_digest)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	/* The registration's reply says AVAILABLE with its digest; the final read
	 * answers 404: the digest of the reply stands (as the official tool). */
	fakews_faultf(flow_fw, "{\"method\":\"GET\",\"path\":\"/api/2.0/ai-compute-manager/images:get\","
	                       "\"status\":404,\"times\":-1,\"body\":{\"error_code\":"
	                       "\"RESOURCE_DOES_NOT_EXIST\",\"message\":\"no\"}}");
	ASSERT_OK(reg("ubuntu", o, &r, &err), err);
	ASSERT_EQ_STR(air_image_registration_status(r), "AVAILABLE");
	ASSERT_EQ_INT(strlen(air_image_registration_manifest_sha256(r)), 64);
	ASSERT_EQ_INT(air_image_registration_image_updated(r), 1);
	ASSERT_EQ_STR(request_log(), "GET /api/2.0/ai-compute-manager/images:get\n"
	                             "POST /api/2.0/ai-compute-manager/images\n"
	                             "GET /api/2.0/ai-compute-manager/images:get\n");
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

AIR_TEST(register__inline_auths_are_stored_and_referenced)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;
	json_t *body;

	images("{\"" IMAGE "\":{\"registered\":false,\"requires_credentials\":true}}");
	docker_config("{\"auths\":{\"https://myreg.io/v2/\":{\"auth\":\"" AUTH_B64 "\"}}}");
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	ASSERT_EQ_STR(air_image_registration_credentials_scope(r), SCOPE);
	ASSERT_EQ_STR(air_image_registration_credentials_key(r), "myreg.io-alice-local");
	ASSERT_EQ_STR(request_log(), "GET /api/2.0/ai-compute-manager/images:checkImageAccess\n"
	                             "GET /api/2.0/preview/scim/v2/Me\n"
	                             "GET /api/2.0/secrets/scopes/list\n"
	                             "POST /api/2.0/secrets/scopes/create\n"
	                             "POST /api/2.0/secrets/put\n"
	                             "GET /api/2.0/ai-compute-manager/images:get\n"
	                             "POST /api/2.0/ai-compute-manager/images\n"
	                             "GET /api/2.0/ai-compute-manager/images:get\n");
	ASSERT_EQ_STR(stored_secret(SCOPE, "myreg.io-alice-local"), AUTH_B64);
	body = last_body("POST", "/api/2.0/ai-compute-manager/images");
	assert_json_eq(body, "{\"docker_image_url\":\"" IMAGE "\",\"credentials_scope\":\"" SCOPE
	                     "\",\"credentials_key\":\"myreg.io-alice-local\"}");
	assert_secret_kept();
	air_image_registration_free(r);

	/* A second registration finds the scope and does not create it again. */
	fakews_clear_requests(flow_fw);
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/secrets/scopes/create"), 0);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/secrets/put"), 1);
	ASSERT_EQ_INT(air_image_registration_image_updated(r), 0);
	ASSERT_EQ_INT(air_image_registration_cached(r), 1);
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

AIR_TEST(register__credential_helper_then_store_then_auths)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	images("{\"" IMAGE "\":{\"registered\":false,\"requires_credentials\":true}}");
	helper("team", "echo 'credentials not found in native keychain' >&2; exit 1");
	helper("desktop", "printf '{\"ServerURL\":\"myreg.io\",\"Username\":\"bob\",\"Secret\":\""
	       PASSWORD "\"}'");
	docker_config("{\"credHelpers\":{\"myreg.io\":\"team\"},\"credsStore\":\"desktop\","
	              "\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}");
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	ASSERT_EQ_STR(helper_input("team"), "myreg.io");
	ASSERT_EQ_STR(helper_input("desktop"), "myreg.io");
	ASSERT_EQ_STR(air_image_registration_credentials_key(r), "myreg.io-bob-local");
	/* base64("bob:s3cret-Pa55word") */
	ASSERT_EQ_STR(stored_secret(SCOPE, "myreg.io-bob-local"), "Ym9iOnMzY3JldC1QYTU1d29yZA==");
	assert_secret_kept();
	ASSERT_NOT_CONTAINS(trace, "Ym9iOnMzY3JldC1QYTU1d29yZA==");
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

AIR_TEST(register__docker_hub_key_and_a_hanging_helper)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;
	json_t *body;

	images("{\"docker.io/alice/private:latest\":{\"registered\":false,\"requires_credentials\":true}}");
	helper("slow", "sleep 60");
	docker_config("{\"credsStore\":\"slow\",\"auths\":{\"https://index.docker.io/v1/\":"
	              "{\"auth\":\"" AUTH_B64 "\"}}}");
	ASSERT_EQ_INT(air_register_image_options_set_int(o, AIR_REGISTER_HELPER_TIMEOUT_MS, 200), AIR_OK);
	ASSERT_OK(reg("alice/private", o, &r, &err), err);
	ASSERT_EQ_STR(helper_input("slow"), "https://index.docker.io/v1/");
	ASSERT_EQ_STR(air_image_registration_credentials_key(r), "index.docker.io-alice-local");
	ASSERT_CONTAINS(trace, "did not answer");
	body = last_body("POST", "/api/2.0/ai-compute-manager/images");
	ASSERT_EQ_STR(json_string_value(json_object_get(body, "docker_image_url")),
	              "docker.io/alice/private:latest");
	json_decref(body);
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

/* A helper's output is never quoted, whatever it did: the trace and the
 * error say which helper failed and how, never what it printed. */
#define LEAKED "leaked-Cr3dential"
AIR_TEST(register__helper_output_is_never_quoted)
{
	static const struct {
		const char *body, *says;
	} helpers[] = {
		{"printf '{\"Username\":\"bob\",\"Secret\":\"" LEAKED "\"}'; exit 3",
		 "docker-credential-h0 exited with status 3"},
		{"echo 'token " LEAKED " refused' >&2; exit 1",
		 "docker-credential-h1 exited with status 1"},
		{"echo 'Secret=" LEAKED "'", "docker-credential-h2 printed no valid JSON"},
		{"echo '" LEAKED "'; echo '" LEAKED "' >&2; kill -TERM $$",
		 "docker-credential-h3 was killed by signal 15"},
	};
	air_register_image_options *o = options();

	images("{\"" IMAGE "\":{\"registered\":false,\"requires_credentials\":true}}");
	for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
		air_image_registration *r = NULL;
		air_error *err = NULL;
		char name[8], config[128];

		snprintf(name, sizeof(name), "h%zu", i);
		helper(name, helpers[i].body);
		snprintf(config, sizeof(config), "{\"credsStore\":\"%s\"}", name);
		docker_config(config);
		ASSERT_EQ_INT(reg(IMAGE, o, &r, &err), AIR_EPERMISSION);
		ASSERT_NULL(r);
		ASSERT_CONTAINS(trace, helpers[i].says);
		ASSERT_NOT_CONTAINS(trace, LEAKED);
		ASSERT_NOT_CONTAINS(air_error_message(err), LEAKED);
		air_error_free(err);
	}
	air_register_image_options_free(o);
}

/* A helper that leaves a background process holding its stdout: its answer
 * counts when it exits (the default helper timeout is 10 s, the background
 * process would hold the pipe for 10 minutes). */
AIR_TEST(register__helper_answer_counts_when_the_helper_exits)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;
	char body[4600], pidfile[4300], *pid;
	int rc;

	snprintf(pidfile, sizeof(pidfile), "%s/lingering.pid", dir);
	snprintf(body, sizeof(body), "sleep 600 & echo $! > '%s'\n"
	         "printf '{\"Username\":\"bob\",\"Secret\":\"" PASSWORD "\"}'", pidfile);
	images("{\"" IMAGE "\":{\"registered\":false,\"requires_credentials\":true}}");
	helper("lingering", body);
	docker_config("{\"credsStore\":\"lingering\"}");
	rc = reg(IMAGE, o, &r, &err);
	if ((pid = air_test_read_file(pidfile, NULL)) != NULL)
		kill((pid_t)atol(pid), SIGKILL);
	free(pid);
	ASSERT_OK(rc, err);
	ASSERT_EQ_STR(air_image_registration_credentials_key(r), "myreg.io-bob-local");
	ASSERT_NOT_CONTAINS(trace, "did not answer");
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

AIR_TEST(register__default_config_location_is_home)
{
	air_client_options *co = fakews_client_options(flow_fw);
	air_image_registration *r = NULL;
	air_error *err = NULL;
	char docker_dir[4300];
	air_client *c;

	snprintf(docker_dir, sizeof(docker_dir), "%s/.docker", dir);
	sh("mkdir -p '%s'", docker_dir);
	{
		char path[4400];
		const char *json = "{\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}";
		snprintf(path, sizeof(path), "%s/config.json", docker_dir);
		air_test_write_file(path, json, strlen(json));
	}
	ASSERT_EQ_INT(air_client_options_set_str(co, AIR_OPT_HOME_DIR, dir), AIR_OK);
	c = fakews_client_from(co);
	ASSERT_OK(air_client_register_image(c, IMAGE, NULL, &r, &err), err);
	ASSERT_EQ_STR(air_image_registration_credentials_key(r), "myreg.io-alice-local");
	air_image_registration_free(r);
	air_client_free(c);
}

AIR_TEST(register__public_image_needs_no_credentials)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	images("{\"" IMAGE "\":{\"registered\":false,\"public\":true}}");
	docker_config("{\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}");
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	ASSERT_NULL(air_image_registration_credentials_scope(r));
	ASSERT_EQ_INT(count_prefix("*", "/api/2.0/secrets/"), 0);
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

AIR_TEST(register__digest_change_and_waiting)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	images("{\"" IMAGE "\":{\"state\":\"AVAILABLE\",\"manifest_sha256\":\"old\",\"on_register\":"
	       "{\"state\":\"IMPORTING\",\"states\":[\"IMPORTING\",{\"state\":\"AVAILABLE\","
	       "\"manifest_sha256\":\"new\"}]}}}");
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	ASSERT_EQ_STR(air_image_registration_manifest_sha256(r), "new");
	ASSERT_EQ_INT(air_image_registration_image_updated(r), 1);
	ASSERT_EQ_INT(air_image_registration_cached(r), 0);
	/* prior digest, two polls, the final read */
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/ai-compute-manager/images:get"), 4);
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

AIR_TEST(register__stays_pending_until_the_timeout)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	images("{\"" IMAGE "\":{\"registered\":false,\"on_register\":{\"state\":\"PENDING\"}}}");
	ASSERT_EQ_INT(air_register_image_options_set_int(o, AIR_REGISTER_TIMEOUT_MS, 100), AIR_OK);
	ASSERT_EQ_INT(reg(IMAGE, o, &r, &err), AIR_ETIMEOUT);
	ASSERT_NULL(r);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
	ASSERT_EQ_INT(air_error_retryable(err), 1);
	ASSERT_CONTAINS(air_error_message(err), "still PENDING");
	ASSERT_CONTAINS(air_error_message(err), IMAGE);
	air_error_free(err);
	air_register_image_options_free(o);
}

AIR_TEST(register__failed_import_is_permanent)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	images("{\"" IMAGE "\":{\"registered\":false,\"on_register\":{\"state\":\"IMPORTING\","
	       "\"states\":[{\"state\":\"FAILED\",\"status_message\":\"manifest unknown\\nError: "
	       "forged\"}]}}}");
	ASSERT_EQ_INT(reg(IMAGE, o, &r, &err), AIR_EAPI);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_PERMANENT);
	ASSERT_EQ_INT(air_error_retryable(err), 0);
	/* the server's text stays on one line */
	ASSERT_CONTAINS(air_error_message(err), "manifest unknown\\nError: forged");
	air_error_free(err);
	air_register_image_options_free(o);
}

AIR_TEST(register__rejected_local_credentials_get_one_anonymous_retry)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;
	json_t *body;

	images("{\"" IMAGE "\":{\"registered\":false,\"rejects_credentials\":true}}");
	docker_config("{\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}");
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/ai-compute-manager/images"), 2);
	body = last_body("POST", "/api/2.0/ai-compute-manager/images");
	assert_json_eq(body, "{\"docker_image_url\":\"" IMAGE "\"}");
	ASSERT_NULL(air_image_registration_credentials_scope(r));
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

AIR_TEST(register__storage_failure_reported_only_when_the_registry_refuses)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	fakews_configf(flow_fw, "{\"secrets\":{\"can_create_scope\":false}}");
	docker_config("{\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}");
	/* anonymous access works: the storage failure is not an error */
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	ASSERT_NULL(air_image_registration_credentials_scope(r));
	air_image_registration_free(r);
	r = NULL;
	/* a private registry: the storage failure explains the refusal */
	images("{\"" IMAGE "\":{\"requires_credentials\":true}}");
	ASSERT_EQ_INT(reg(IMAGE, o, &r, &err), AIR_EPERMISSION);
	ASSERT_NULL(r);
	ASSERT_CONTAINS(air_error_message(err), "may not create secret scope " SCOPE);
	ASSERT_CONTAINS(air_error_message(err), "refused anonymous access");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_PERMANENT);
	ASSERT_NOT_CONTAINS(air_error_message(err), PASSWORD);
	air_error_free(err);
	err = NULL;
	/* no write permission on an existing scope */
	fakews_configf(flow_fw, "{\"secrets\":{\"can_create_scope\":true,\"can_put\":false}}");
	ASSERT_EQ_INT(reg(IMAGE, o, &r, &err), AIR_EPERMISSION);
	ASSERT_CONTAINS(air_error_message(err), "may not write secret " SCOPE "/myreg.io-alice-local");
	air_error_free(err);
	air_register_image_options_free(o);
}

AIR_TEST(register__scope_quota)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	fakews_configf(flow_fw, "{\"secrets\":{\"max_scopes\":0}}");
	images("{\"" IMAGE "\":{\"registered\":false,\"requires_credentials\":true}}");
	docker_config("{\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}");
	ASSERT_EQ_INT(reg(IMAGE, o, &r, &err), AIR_EAPI);
	ASSERT_CONTAINS(air_error_message(err), "limit of secret scopes");
	ASSERT_CONTAINS(air_error_message(err), "RESOURCE_LIMIT_EXCEEDED");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_PERMANENT);
	air_error_free(err);
	air_register_image_options_free(o);
}

AIR_TEST(register__explicit_credentials)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;
	json_t *body;

	json_decref(fakews_call(flow_fw, "POST", "/__fakews/secrets",
	                        "{\"scopes\":{\"team\":{\"reg\":\"dTpw\"}}}"));
	images("{\"" IMAGE "\":{\"registered\":false,\"requires_credentials\":true}}");
	docker_config("{\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}");
	ASSERT_EQ_INT(air_register_image_options_set_str(o, AIR_REGISTER_CREDENTIALS_SCOPE, "team"),
	              AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_str(o, AIR_REGISTER_CREDENTIALS_KEY, "reg"), AIR_OK);
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	body = last_body("POST", "/api/2.0/ai-compute-manager/images");
	assert_json_eq(body, "{\"docker_image_url\":\"" IMAGE "\",\"credentials_scope\":\"team\","
	                     "\"credentials_key\":\"reg\"}");
	ASSERT_EQ_INT(count_prefix("*", "/api/2.0/secrets/"), 0);
	air_image_registration_free(r);
	r = NULL;
	/* rejected: the error names the secret, and there is no anonymous retry */
	images("{\"" IMAGE "\":{\"rejects_credentials\":true}}");
	fakews_clear_requests(flow_fw);
	ASSERT_EQ_INT(reg(IMAGE, o, &r, &err), AIR_EAUTH);
	ASSERT_CONTAINS(air_error_message(err), "rejected the credentials in secret team/reg");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/ai-compute-manager/images"), 1);
	air_error_free(err);
	air_register_image_options_free(o);
}

AIR_TEST(register__discovery_off_registers_anonymously)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;

	docker_config("{\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}");
	ASSERT_EQ_INT(air_register_image_options_set_int(o, AIR_REGISTER_DISCOVER, 0), AIR_OK);
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	ASSERT_EQ_INT(count_prefix("*", "/api/2.0/secrets/"), 0);
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/ai-compute-manager/images:checkImageAccess"), 0);
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

AIR_TEST(register__argument_checks)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;
	air_client *c = fakews_client(flow_fw);

	ASSERT_EQ_INT(air_register_image_options_set_str(o, AIR_REGISTER_TAG_POLICY, "auto"), AIR_EINVAL);
	ASSERT_EQ_INT(air_register_image_options_set_str(o, AIR_REGISTER_TAG_POLICY, "nightly"),
	              AIR_EINVAL);
	ASSERT_EQ_INT(air_register_image_options_set_str(o, AIR_REGISTER_TAG_POLICY, " Latest "), AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_str(o, AIR_REGISTER_TAG_POLICY, ""), AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_int(o, AIR_REGISTER_TIMEOUT_MS, 0), AIR_EINVAL);
	ASSERT_EQ_INT(air_register_image_options_set_int(o, AIR_REGISTER_TAG_POLICY, 1), AIR_EINVAL);
	ASSERT_EQ_INT(air_register_image_options_set_str(o, AIR_REGISTER_TIMEOUT_MS, "1"), AIR_EINVAL);
	ASSERT_EQ_INT(air_register_image_options_set_int(o, 999, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_client_register_image(c, "  ", o, &r, &err), AIR_EINVAL);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_INVALID_ARGUMENT);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_register_image_options_set_str(o, AIR_REGISTER_CREDENTIALS_SCOPE, "s"), AIR_OK);
	ASSERT_EQ_INT(air_client_register_image(c, IMAGE, o, &r, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "go together");
	air_error_free(err);
	ASSERT_EQ_INT(fakews_count(flow_fw, NULL, "*"), 0);
	ASSERT_EQ_INT(air_client_register_image(NULL, IMAGE, NULL, &r, NULL), AIR_EINVAL);
	air_register_image_options_free(o);
	air_client_free(c);
}

AIR_TEST(register__server_errors_are_transient)
{
	air_client_options *co = fakews_client_options(flow_fw);
	air_image_registration *r = NULL;
	air_error *err = NULL;
	air_client *c;

	ASSERT_EQ_INT(air_client_options_set_int(co, AIR_OPT_RETRY_DEADLINE_MS, 200), AIR_OK);
	c = fakews_client_from(co);
	fakews_faultf(flow_fw, "{\"method\":\"POST\",\"path\":\"/api/2.0/ai-compute-manager/images\","
	                       "\"status\":503,\"times\":-1,\"body\":{\"error_code\":"
	                       "\"TEMPORARILY_UNAVAILABLE\",\"message\":\"busy\"}}");
	ASSERT_NE_INT(air_client_register_image(c, IMAGE, NULL, &r, &err), AIR_OK);
	ASSERT_EQ_INT(air_error_http_status(err), 503);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
	ASSERT_EQ_INT(air_error_retryable(err), 1);
	air_error_free(err);
	air_client_free(c);
}

typedef struct late {
	air_interrupt *intr;
	long long fired_ms;
} late;

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *fire_later(void *arg)
{
	late *l = arg;

	usleep(200 * 1000);
	l->fired_ms = mono_ms();
	air_interrupt_trigger(l->intr);
	return NULL;
}

AIR_TEST(register__interrupt_ends_the_wait)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;
	late l = {NULL, 0};
	pthread_t th;
	long long done;

	images("{\"" IMAGE "\":{\"registered\":false,\"on_register\":{\"state\":\"PENDING\"}}}");
	ASSERT_EQ_INT(air_interrupt_new(&l.intr), AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_int(o, AIR_REGISTER_POLL_INTERVAL_MS, 60000), AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_interrupt(o, l.intr), AIR_OK);
	ASSERT_EQ_INT(pthread_create(&th, NULL, fire_later, &l), 0);
	ASSERT_EQ_INT(reg(IMAGE, o, &r, &err), AIR_EINTERRUPTED);
	done = mono_ms();
	pthread_join(th, NULL);
	air_test_note("stopped %lld ms after the interrupt", done - l.fired_ms);
	ASSERT_TRUE(done - l.fired_ms < 10000); /* a 60 s poll interval was cut short */
	ASSERT_NULL(r);
	air_error_free(err);
	air_interrupt_free(l.intr);
	air_register_image_options_free(o);
}

/* ---- the legacy docker_image of a submission ---- */

#define WORKLOAD "experiment_name: legacy\ncommand: python train.py\n" \
                 "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"

static int64_t submit_with_home(const char *yaml, air_error **err)
{
	air_client_options *co = fakews_client_options(flow_fw);
	air_config *cfg = load_yaml(dir, "w.yaml", yaml);
	air_submission *sub = NULL;
	air_client *c;
	int64_t id = 0;

	ASSERT_EQ_INT(air_client_options_set_str(co, AIR_OPT_HOME_DIR, dir), AIR_OK);
	c = fakews_client_from(co);
	if (air_client_submit(c, cfg, NULL, &sub, err) == AIR_OK)
		id = air_submission_run_id(sub);
	air_submission_free(sub);
	air_config_free(cfg);
	air_client_free(c);
	return id;
}

/* What `air register-image` then `air run` do: the run is submitted. */
AIR_TEST(register__then_submit_gets_a_run)
{
	air_register_image_options *o = options();
	air_image_registration *r = NULL;
	air_error *err = NULL;
	int64_t id;

	images("{\"" IMAGE "\":{\"registered\":false,\"requires_credentials\":true}}");
	docker_config("{\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}");
	id = submit_with_home(WORKLOAD "environment: {docker_image: {url: " IMAGE "}}\n", &err);
	ASSERT_EQ_INT(id, 0);
	ASSERT_CONTAINS(air_error_message(err), "air register-image " IMAGE);
	air_error_free(err);
	err = NULL;
	ASSERT_OK(reg(IMAGE, o, &r, &err), err);
	id = submit_with_home(WORKLOAD "environment: {docker_image: {url: " IMAGE "}}\n", &err);
	ASSERT_TRUE(id > 0);
	ASSERT_NULL(err);
	air_image_registration_free(r);
	air_register_image_options_free(o);
}

/* tag_policy latest re-registers with the local Docker credentials. */
AIR_TEST(register__latest_tag_policy_uses_local_credentials)
{
	air_error *err = NULL;
	json_t *body;
	int64_t id;

	images("{\"" IMAGE "\":{\"registered\":false,\"requires_credentials\":true}}");
	sh("mkdir -p '%s/.docker'", dir);
	{
		char path[4400];
		const char *json = "{\"auths\":{\"myreg.io\":{\"auth\":\"" AUTH_B64 "\"}}}";
		snprintf(path, sizeof(path), "%s/.docker/config.json", dir);
		air_test_write_file(path, json, strlen(json));
	}
	id = submit_with_home(WORKLOAD "environment: {docker_image: {url: " IMAGE
	                      ", tag_policy: latest}}\n", &err);
	ASSERT_TRUE(id > 0);
	ASSERT_NULL(err);
	body = last_body("POST", "/api/2.0/ai-compute-manager/images");
	assert_json_eq(body, "{\"docker_image_url\":\"" IMAGE "\",\"credentials_scope\":\"" SCOPE
	                     "\",\"credentials_key\":\"myreg.io-alice-local\"}");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 1);
}
