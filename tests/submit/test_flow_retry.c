/* test_flow_retry.c: idempotency (SCENARIOS S23), transient failures and the
 * lost reply (S25), a rejected submission (S26), progress, abort and
 * interrupt, and the arguments of air_client_submit(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "submit_test.h"
#include "test.h"

AIR_TEST_HOOKS(flow_setup, NULL)

#define VALID "experiment_name: smoke-test\ncommand: python train.py\n" \
              "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"

static int submit_with(const char *yaml, air_submit_options *o, air_submission **sub, air_error **err)
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", yaml);
	air_client *c = fakews_client(flow_fw);
	int rc = air_client_submit(c, cfg, o, sub, err);

	air_client_free(c);
	air_config_free(cfg);
	return rc;
}

static air_submission *submit_key(const char *yaml, const char *key)
{
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_str(o, AIR_SUBMIT_IDEMPOTENCY_KEY, key), AIR_OK);
	ASSERT_OK(submit_with(yaml, o, &sub, &err), err);
	air_submit_options_free(o);
	return sub;
}

static int runs_created(void)
{
	json_t *r = fakews_call(flow_fw, "GET", "/__fakews/runs", NULL);
	int n = (int)json_array_size(json_object_get(r, "runs"));

	json_decref(r);
	return n;
}

static const char *submit_token(void)
{
	static char buf[128];
	json_t *b = last_body("POST", "/api/2.2/jobs/runs/submit");

	snprintf(buf, sizeof(buf), "%s", json_string_value(json_object_get(b, "idempotency_token")));
	json_decref(b);
	return buf;
}

AIR_TEST(flow__idempotency_key_reuse_gives_one_run)
{
	air_submission *a = submit_key(VALID, "my-key-1"), *b;

	ASSERT_EQ_STR(submit_token(), "my-key-1");
	b = submit_key(VALID, "my-key-1");
	ASSERT_EQ_STR(submit_token(), "my-key-1");
	ASSERT_EQ_INT(air_submission_run_id(a), 555);
	ASSERT_EQ_INT(air_submission_run_id(b), 555);
	ASSERT_EQ_INT(runs_created(), 1);
	/* each invocation still has its own launch directory */
	ASSERT_TRUE(strcmp(air_submission_launch_dir(a), air_submission_launch_dir(b)) != 0);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/workspace/mkdirs"), 2);
	ASSERT_EQ_STR(air_submission_idempotency_token(b), "my-key-1");
	air_submission_free(a);
	air_submission_free(b);
}

AIR_TEST(flow__an_empty_idempotency_key_is_refused)
{
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_str(o, AIR_SUBMIT_IDEMPOTENCY_KEY, "kept"), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_str(o, AIR_SUBMIT_IDEMPOTENCY_KEY, ""), AIR_EINVAL);
	ASSERT_EQ_INT(air_submit_options_set_str(o, AIR_SUBMIT_IDEMPOTENCY_KEY, " \t"), AIR_EINVAL);
	/* the refused values left the key as it was */
	ASSERT_OK(submit_with(VALID, o, &sub, &err), err);
	ASSERT_EQ_STR(submit_token(), "kept");
	air_submission_free(sub);
	/* NULL unsets it: a fresh token */
	ASSERT_EQ_INT(air_submit_options_set_str(o, AIR_SUBMIT_IDEMPOTENCY_KEY, NULL), AIR_OK);
	ASSERT_OK(submit_with(VALID, o, &sub, &err), err);
	ASSERT_TRUE(is_uuid4(submit_token()));
	air_submission_free(sub);
	air_submit_options_free(o);
}

AIR_TEST(flow__token_precedence)
{
	air_submission *s1 = NULL, *s2 = NULL;
	air_error *err = NULL;
	char t1[128];

	ASSERT_OK(submit_with(VALID "idempotency_token: yaml-key\n", NULL, &s1, &err), err);
	ASSERT_EQ_STR(submit_token(), "yaml-key"); /* no option: the YAML's */
	air_submission_free(s1);
	s1 = submit_key(VALID "idempotency_token: yaml-key\n", "flag-key");
	ASSERT_EQ_STR(submit_token(), "flag-key");
	air_submission_free(s1);
	/* no key: a fresh UUIDv4 each time, i.e. new runs */
	ASSERT_OK(submit_with(VALID, NULL, &s1, &err), err);
	snprintf(t1, sizeof(t1), "%s", submit_token());
	ASSERT_OK(submit_with(VALID, NULL, &s2, &err), err);
	ASSERT_TRUE(is_uuid4(t1));
	ASSERT_TRUE(is_uuid4(submit_token()));
	ASSERT_TRUE(strcmp(t1, submit_token()) != 0);
	ASSERT_NE_INT(air_submission_run_id(s1), air_submission_run_id(s2));
	air_submission_free(s1);
	air_submission_free(s2);
}

/* Bodies of every runs/submit request, in order. */
static json_t *submit_requests(void)
{
	json_t *r = fakews_call(flow_fw, "GET", "/__fakews/requests?path=/api/2.2/jobs/runs/submit", NULL);
	json_t *reqs = json_incref(json_object_get(r, "requests"));

	json_decref(r);
	return reqs;
}

static void assert_identical_submits(size_t n)
{
	json_t *reqs = submit_requests();

	ASSERT_EQ_INT(json_array_size(reqs), n);
	for (size_t i = 1; i < n; i++)
		ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(reqs, i), "body")),
		              json_string_value(json_object_get(json_array_get(reqs, 0), "body")));
	json_decref(reqs);
}

AIR_TEST(flow__transient_submit_failure_is_retried_with_the_same_body)
{
	air_submission *sub = NULL;
	air_error *err = NULL;

	fakews_faultf(flow_fw, "{\"path\":\"/api/2.2/jobs/runs/submit\",\"status\":503,"
	              "\"body\":{\"error_code\":\"TEMPORARILY_UNAVAILABLE\",\"message\":\"busy\"}}");
	ASSERT_OK(submit_with(VALID, NULL, &sub, &err), err);
	ASSERT_EQ_INT(air_submission_run_id(sub), 555);
	assert_identical_submits(2);
	ASSERT_EQ_INT(runs_created(), 1);
	air_submission_free(sub);
}

AIR_TEST(flow__lost_submit_reply_gives_exactly_one_run)
{
	air_submission *sub = NULL;
	air_error *err = NULL;
	json_t *run;

	/* the run is created, then the connection is reset instead of replying */
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.2/jobs/runs/submit\",\"action\":\"reset_after\"}");
	ASSERT_OK(submit_with(VALID, NULL, &sub, &err), err);
	ASSERT_EQ_INT(air_submission_run_id(sub), 555);
	assert_identical_submits(2);
	ASSERT_EQ_INT(runs_created(), 1);
	run = fakews_run(flow_fw, 555);
	ASSERT_EQ_INT(json_integer_value(json_object_get(run, "submits")), 2);
	json_decref(run);
	air_submission_free(sub);
}

AIR_TEST(flow__retry_after_on_an_upload_is_honoured)
{
	air_submission *sub = NULL;
	air_error *err = NULL;
	json_t *r, *reqs;
	int64_t first = -1, second = -1;
	size_t i;
	json_t *q;

	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/workspace-files/import-file/*\",\"status\":429,"
	              "\"body_contains\":\"experiment_name\","
	              "\"headers\":{\"Retry-After\":\"1\"},\"body\":{\"error_code\":\"REQUEST_LIMIT_EXCEEDED\","
	              "\"message\":\"slow down\"}}");
	ASSERT_OK(submit_with(VALID, NULL, &sub, &err), err);
	r = fakews_call(flow_fw, "GET", "/__fakews/requests", NULL);
	reqs = json_object_get(r, "requests");
	json_array_foreach(reqs, i, q) {
		if (!has_suffix(json_string_value(json_object_get(q, "path")), "/training_config.yaml"))
			continue;
		if (first < 0)
			first = json_integer_value(json_object_get(q, "time_ms"));
		else
			second = json_integer_value(json_object_get(q, "time_ms"));
	}
	json_decref(r);
	ASSERT_TRUE(first >= 0 && second >= 0);
	if (second - first < 1000)
		FAIL("the upload was repeated after %lld ms, before Retry-After", (long long)(second - first));
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 1);
	air_submission_free(sub);
}

AIR_TEST(flow__server_error_on_submit_is_not_retried)
{
	air_submission *sub = NULL;
	air_error *err = NULL;

	fakews_faultf(flow_fw, "{\"path\":\"/api/2.2/jobs/runs/submit\",\"status\":500,"
	              "\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"kaput\"}}");
	ASSERT_EQ_INT(submit_with(VALID, NULL, &sub, &err), AIR_ESERVER);
	ASSERT_NULL(sub);
	ASSERT_CONTAINS(air_error_message(err), "kaput");
	ASSERT_CONTAINS(air_error_message(err), "smoke-test");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 1);
	air_error_free(err);
}

AIR_TEST(flow__rejected_submission)
{
	air_submission *sub = NULL;
	air_error *err = NULL;

	fakews_faultf(flow_fw, "{\"path\":\"/api/2.2/jobs/runs/submit\",\"status\":400,"
	              "\"body\":{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"bad accelerator\"}}");
	ASSERT_EQ_INT(submit_with(VALID, NULL, &sub, &err), AIR_EAPI);
	ASSERT_CONTAINS(air_error_message(err), "bad accelerator");
	ASSERT_EQ_STR(air_error_server_code(err), "INVALID_PARAMETER_VALUE");
	ASSERT_EQ_INT(air_error_http_status(err), 400);
	ASSERT_EQ_INT(air_error_retryable(err), 0);
	air_error_free(err);
}

AIR_TEST(flow__upload_permission_error_names_the_path)
{
	air_submission *sub = NULL;
	air_error *err = NULL;

	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/workspace-files/import-file/*\",\"status\":403,"
	              "\"body\":{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"no write access\"}}");
	ASSERT_EQ_INT(submit_with(VALID, NULL, &sub, &err), AIR_EPERMISSION);
	ASSERT_CONTAINS(air_error_message(err), "/Workspace/Users/tester@databricks.com/.air/cli_launch/");
	ASSERT_CONTAINS(air_error_message(err), "no write access");
	ASSERT_EQ_STR(air_error_server_code(err), "PERMISSION_DENIED");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 0);
	air_error_free(err);
}

typedef struct seen {
	int32_t phases[64];
	int64_t done[64], total[64];
	int n;
	int32_t stop_at;        /* return non-zero in this phase */
	air_interrupt *intr;    /* raise it in stop_at instead */
} seen;

static int record(const air_progress *ev, void *ud)
{
	seen *s = ud;

	if (s->n < 64) {
		s->phases[s->n] = air_progress_phase(ev);
		s->done[s->n] = air_progress_bytes_done(ev);
		s->total[s->n] = air_progress_bytes_total(ev);
		s->n++;
	}
	if (air_progress_phase(ev) != s->stop_at)
		return 0;
	if (s->intr) {
		air_interrupt_trigger(s->intr);
		return 0;
	}
	return 1;
}

static bool saw(const seen *s, int32_t phase)
{
	for (int i = 0; i < s->n; i++)
		if (s->phases[i] == phase)
			return true;
	return false;
}

AIR_TEST(flow__progress_phases_and_bytes)
{
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;
	seen s = {{0}, {0}, {0}, 0, 0, NULL};
	int64_t total = (int64_t)strlen(VALID) + (int64_t)strlen("python train.py"), last_done = 0;
	int32_t order[] = {AIR_PHASE_IDENTITY, AIR_PHASE_PREFLIGHT, AIR_PHASE_DIRECTORY, AIR_PHASE_ARTIFACTS,
	                   AIR_PHASE_SUBMIT, AIR_PHASE_DONE};
	int k = 0;

	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_progress_cb(o, record, &s), AIR_OK);
	ASSERT_OK(submit_with(VALID, o, &sub, &err), err);
	for (int i = 0; i < s.n; i++) {
		if (k < 6 && s.phases[i] == order[k])
			k++;
		else if (k == 0 || s.phases[i] != order[k - 1])
			FAIL("unexpected phase %d at event %d", s.phases[i], i);
		if (s.phases[i] == AIR_PHASE_ARTIFACTS) {
			ASSERT_EQ_INT(s.total[i], total);
			ASSERT_TRUE(s.done[i] >= last_done);
			last_done = s.done[i];
		} else {
			ASSERT_EQ_INT(s.done[i], 0); /* bytes only in upload phases */
		}
	}
	ASSERT_EQ_INT(k, 6);
	ASSERT_EQ_INT(last_done, total);
	air_submission_free(sub);
	air_submit_options_free(o);
}

AIR_TEST(flow__callback_abort_and_interrupt_stop_before_submit)
{
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;
	seen s = {{0}, {0}, {0}, 0, AIR_PHASE_ARTIFACTS, NULL};

	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_progress_cb(o, record, &s), AIR_OK);
	ASSERT_EQ_INT(submit_with(VALID, o, &sub, &err), AIR_EABORTED);
	ASSERT_NULL(sub);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 0);
	ASSERT_EQ_INT(count_prefix("POST", "/api/2.0/workspace-files/import-file/"), 0);
	air_error_free(err);
	err = NULL;

	fakews_clear_requests(flow_fw);
	ASSERT_EQ_INT(air_interrupt_new(&s.intr), AIR_OK);
	s.stop_at = AIR_PHASE_PREFLIGHT;
	s.n = 0;
	ASSERT_EQ_INT(air_submit_options_set_interrupt(o, s.intr), AIR_OK);
	ASSERT_EQ_INT(submit_with(VALID, o, &sub, &err), AIR_EINTERRUPTED);
	ASSERT_FALSE(saw(&s, AIR_PHASE_SUBMIT));
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 0);
	air_error_free(err);
	air_interrupt_free(s.intr);
	air_submit_options_free(o);
}

AIR_TEST(flow__arguments_and_unvalidated_configs)
{
	static const char yaml[] = VALID;
	air_config *cfg = NULL;
	air_client *c = fakews_client(flow_fw);
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_config_parse_buffer(yaml, strlen(yaml), "w.yaml", NULL, &cfg, NULL), AIR_OK);
	ASSERT_EQ_INT(air_client_submit(c, cfg, NULL, &sub, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "validated");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_validate(cfg, NULL), AIR_OK);
	ASSERT_EQ_INT(air_config_override(cfg, "compute.num_accelerators=2", NULL), AIR_OK);
	ASSERT_EQ_INT(air_client_submit(c, cfg, NULL, &sub, NULL), AIR_ECONFIG); /* stale after an override */
	ASSERT_EQ_INT(air_client_submit(NULL, cfg, NULL, &sub, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_submit(c, NULL, NULL, &sub, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_submit(c, cfg, NULL, NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_STR(request_log(), "");
	/* validated again: accepted, and the override shows in the payload */
	ASSERT_EQ_INT(air_config_validate(cfg, NULL), AIR_OK);
	ASSERT_OK(air_client_submit(c, cfg, NULL, &sub, &err), err);
	{
		json_t *b = last_body("POST", "/api/2.2/jobs/runs/submit");
		json_t *dep = json_array_get(json_object_get(json_object_get(json_array_get(json_object_get(b, "tasks"), 0),
		                                                             "ai_runtime_task"), "deployments"), 0);
		ASSERT_EQ_INT(json_integer_value(json_object_get(json_object_get(dep, "compute"), "accelerator_count")), 2);
		json_decref(b);
	}
	air_submission_free(sub);
	air_client_free(c);
	air_config_free(cfg);
}

AIR_TEST(flow__option_setters)
{
	air_submit_options *o = NULL;

	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_str(o, AIR_SUBMIT_SKIP_PREFLIGHT, "1"), AIR_EINVAL);
	ASSERT_EQ_INT(air_submit_options_set_str(o, 77, "x"), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_submit_options_set_int(o, AIR_SUBMIT_IDEMPOTENCY_KEY, 1), AIR_EINVAL);
	ASSERT_EQ_INT(air_submit_options_set_int(o, AIR_SUBMIT_SKIP_PREFLIGHT, 2), AIR_EINVAL);
	ASSERT_EQ_INT(air_submit_options_set_int(o, 177, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_submit_options_set_str(NULL, AIR_SUBMIT_BASE_DIR, "x"), AIR_EINVAL);
	ASSERT_EQ_INT(air_submit_options_set_int(o, AIR_SUBMIT_SKIP_PREFLIGHT, 1), AIR_OK);
	{
		air_submission *sub = NULL;
		air_error *err = NULL;
		ASSERT_OK(submit_with(VALID, o, &sub, &err), err);
		ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/ai-training/config:validate"), 0);
		air_submission_free(sub);
	}
	air_submit_options_free(o);
	air_submit_options_free(NULL);
	air_submission_free(NULL);
	ASSERT_EQ_INT(air_submission_run_id(NULL), 0);
	ASSERT_NULL(air_submission_dashboard_url(NULL));
}
