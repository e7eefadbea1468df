/* test_sweep_api.c: air_client_submit_sweep() against the fake workspace —
 * variants, keys and run names, exactly once when submitted again, one
 * changed point, a bad point, a repeated point, a pre-flight rejection, shared uploads, per-variant failures, lost
 * replies and 503s, progress, interrupts, the sweep filter of listings, and
 * stopping a sweep (its mark, a going sweep, cancel_sweep). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "submit_test.h"
#include "test.h"

AIR_TEST_HOOKS(flow_setup, NULL)

#define WORKLOAD "experiment_name: lr-sweep\ncommand: python train.py\n" \
                 "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n" \
                 "parameters: {lr: 0.01, batch_size: 16}\n"
#define SUBMIT "/api/2.2/jobs/runs/submit"

static air_sweep_points *grid(const char *lrs, const char *bss)
{
	air_sweep_points *p = NULL;
	const char *lr[16] = {0}, *bs[16] = {0};
	char a[128], b[128], *save;
	size_t nl = 0, nb = 0;
	air_error *err = NULL;

	snprintf(a, sizeof(a), "%s", lrs);
	snprintf(b, sizeof(b), "%s", bss);
	for (char *t = strtok_r(a, ",", &save); t; t = strtok_r(NULL, ",", &save))
		lr[nl++] = t;
	for (char *t = strtok_r(b, ",", &save); t; t = strtok_r(NULL, ",", &save))
		bs[nb++] = t;
	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.lr", lr, nl, &err), err);
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.batch_size", bs, nb, &err), err);
	return p;
}

static air_sweep_options *keyed(const char *base)
{
	air_sweep_options *o = NULL;

	ASSERT_EQ_INT(air_sweep_options_new(&o), AIR_OK);
	if (base)
		ASSERT_EQ_INT(air_sweep_options_set_str(o, AIR_SWEEP_BASE_KEY, base), AIR_OK);
	return o;
}

static int sweep(const char *yaml, air_sweep_points *p, air_sweep_options *o, air_sweep **out,
                 air_error **err)
{
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", yaml);
	air_client *c = fakews_client(flow_fw);
	int rc = air_client_submit_sweep(c, cfg, p, o, out, err);

	air_client_free(c);
	air_config_free(cfg);
	return rc;
}

static int runs_created(void)
{
	json_t *r = fakews_call(flow_fw, "GET", "/__fakews/runs", NULL);
	int n = (int)json_array_size(json_object_get(r, "runs"));

	json_decref(r);
	return n;
}

AIR_TEST(sweep__a_grid_submits_one_run_per_point)
{
	air_sweep_points *p = grid("1e-3,3e-4", "32,64");
	air_sweep_options *o = keyed("lr-grid");
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_count(p), 4);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_count(s), 4);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 0);
	ASSERT_EQ_STR(air_sweep_base_key(s), "lr-grid");
	ASSERT_EQ_INT(runs_created(), 4);
	ASSERT_EQ_STR(air_sweep_variant_point(s, 0),
	              "{\"parameters.batch_size\":32,\"parameters.lr\":0.001}");
	ASSERT_EQ_STR(air_sweep_variant_run_name(s, 0), "lr-sweep lr=0.001 batch_size=32");
	ASSERT_EQ_STR(air_sweep_variant_run_name(s, 3), "lr-sweep lr=0.0003 batch_size=64");
	for (size_t i = 0; i < 4; i++) {
		const char *key = air_sweep_variant_idempotency_key(s, i);
		ASSERT_EQ_INT(air_sweep_variant_status(s, i), AIR_VARIANT_SUBMITTED);
		ASSERT_TRUE(air_sweep_variant_run_id(s, i) > 0);
		ASSERT_TRUE(has_prefix(key, "lr-grid-") && strlen(key) == strlen("lr-grid-") + 16);
		ASSERT_TRUE(air_sweep_variant_error(s, i) == NULL);
		ASSERT_TRUE(strstr(air_sweep_variant_launch_dir(s, i), "/.air/cli_launch/lr-sweep/sweep-"));
	}
	/* runs/submit carried the run name and the key */
	{
		json_t *b = last_body("POST", SUBMIT);
		ASSERT_TRUE(has_prefix(json_string_value(json_object_get(b, "run_name")), "lr-sweep lr="));
		ASSERT_TRUE(has_prefix(json_string_value(json_object_get(b, "idempotency_token")),
		                       "lr-grid-"));
		json_decref(b);
	}
	/* identity and pre-flight once; per variant one mkdirs, its files, runs/submit */
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/preview/scim/v2/Me"), 1);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/ai-training/config:validate"), 1);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/workspace/mkdirs"), 4);
	ASSERT_EQ_INT(count_prefix("POST", "/api/2.0/workspace-files/import-file/"), 12);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", SUBMIT), 4);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__each_variant_gets_its_own_config_files)
{
	air_sweep_points *p = grid("1e-3", "32,64");
	air_sweep *s = NULL;
	air_error *err = NULL;
	char path[1024], *text;

	ASSERT_OK(sweep(WORKLOAD, p, NULL, &s, &err), err);
	snprintf(path, sizeof(path), "%s/hyperparameters.yaml", air_sweep_variant_launch_dir(s, 1));
	text = fakews_file(flow_fw, path, NULL);
	ASSERT_TRUE(text && strstr(text, "batch_size: 64") && strstr(text, "lr: 1e-3"));
	free(text);
	/* training_config.yaml is the variant's effective config: a rerun starts from it */
	snprintf(path, sizeof(path), "%s/training_config.yaml", air_sweep_variant_launch_dir(s, 1));
	text = fakews_file(flow_fw, path, NULL);
	ASSERT_TRUE(text && strstr(text, "batch_size: 64"));
	free(text);
	air_sweep_free(s);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__submitting_again_starts_nothing_new)
{
	air_sweep_points *p = grid("1e-3,3e-4", "32,64");
	air_sweep_options *o = keyed("again");
	air_sweep *s1 = NULL, *s2 = NULL;
	air_error *err = NULL;

	ASSERT_OK(sweep(WORKLOAD, p, o, &s1, &err), err);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s2, &err), err);
	ASSERT_EQ_INT(runs_created(), 4);
	for (size_t i = 0; i < 4; i++) {
		ASSERT_EQ_INT(air_sweep_variant_run_id(s1, i), air_sweep_variant_run_id(s2, i));
		ASSERT_EQ_STR(air_sweep_variant_idempotency_key(s1, i),
		              air_sweep_variant_idempotency_key(s2, i));
	}
	air_sweep_free(s1);
	air_sweep_free(s2);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__one_changed_point_changes_one_key)
{
	/* 1e-3 and 0.001 are the same point; 3e-4 -> 5e-4 is a new one */
	air_sweep_points *p1 = grid("1e-3,3e-4", "32"), *p2 = grid("0.001,5e-4", "32");
	air_sweep_options *o = keyed("one-change");
	air_sweep *s1 = NULL, *s2 = NULL;
	air_error *err = NULL;

	ASSERT_OK(sweep(WORKLOAD, p1, o, &s1, &err), err);
	ASSERT_OK(sweep(WORKLOAD, p2, o, &s2, &err), err);
	ASSERT_EQ_STR(air_sweep_variant_idempotency_key(s1, 0),
	              air_sweep_variant_idempotency_key(s2, 0));
	ASSERT_EQ_INT(air_sweep_variant_run_id(s1, 0), air_sweep_variant_run_id(s2, 0));
	ASSERT_TRUE(strcmp(air_sweep_variant_idempotency_key(s1, 1),
	                   air_sweep_variant_idempotency_key(s2, 1)) != 0);
	ASSERT_NE_INT(air_sweep_variant_run_id(s1, 1), air_sweep_variant_run_id(s2, 1));
	ASSERT_EQ_INT(runs_created(), 3);
	air_sweep_free(s1);
	air_sweep_free(s2);
	air_sweep_options_free(o);
	air_sweep_points_free(p1);
	air_sweep_points_free(p2);
}

AIR_TEST(sweep__without_a_key_the_base_comes_from_user_experiment_date_and_config)
{
	air_sweep_points *p = grid("1e-3", "32");
	air_sweep *s = NULL;
	air_error *err = NULL;
	const char *base;

	ASSERT_OK(sweep(WORKLOAD, p, NULL, &s, &err), err);
	base = air_sweep_base_key(s);
	ASSERT_TRUE(has_prefix(base, "tester-lr-sweep-"));
	/* -YYYYMMDD-<8 hex> */
	ASSERT_EQ_INT(strlen(base), strlen("tester-lr-sweep-") + 8 + 1 + 8);
	air_sweep_free(s);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__two_variants_of_one_point_are_refused_before_any_request)
{
	air_sweep_points *p = NULL;
	const char *lrs[] = {"0.5", "1", "2", "0x1"};
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.lr", lrs, 4, &err), err);
	ASSERT_EQ_INT(sweep(WORKLOAD, p, NULL, &s, &err), AIR_EINVAL);
	ASSERT_TRUE(s == NULL);
	ASSERT_CONTAINS(air_error_message(err),
	                "variants 1 (parameters.lr=1) and 3 (parameters.lr=0x1) are the same point");
	ASSERT_EQ_INT(fakews_count(flow_fw, "*", "/api/*"), 0);
	air_error_free(err);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__a_preflight_rejection_names_the_variant_as_offline_checks_do)
{
	air_sweep_points *p = grid("1e-3,3e-4", "32");
	air_sweep *s = NULL;
	air_error *err = NULL;

	fakews_configf(flow_fw, "{\"preflight\":{\"errors\":[{\"path\":\"experiment\","
	               "\"message\":\"only letters\",\"code\":\"DISALLOWED_CHARACTERS\"}]}}");
	ASSERT_EQ_INT(sweep(WORKLOAD, p, NULL, &s, &err), AIR_EREJECTED);
	ASSERT_TRUE(s == NULL);
	ASSERT_CONTAINS(air_error_message(err), "variant 0 (parameters.lr=1e-3 parameters.batch_size=32)");
	ASSERT_CONTAINS(air_error_message(err), "experiment: only letters");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", SUBMIT), 0);
	air_error_free(err);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__a_bad_point_fails_the_sweep_before_any_request)
{
	air_sweep_points *p = NULL;
	const char *counts[] = {"1", "3"};
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, "compute.num_accelerators", counts, 2, &err), err);
	ASSERT_EQ_INT(sweep("experiment_name: e\ncommand: x\n"
	                    "compute: {accelerator_type: GPU_8xH100, num_accelerators: 8}\n",
	                    p, NULL, &s, &err), AIR_ECONFIG);
	ASSERT_TRUE(s == NULL);
	ASSERT_TRUE(strstr(air_error_message(err), "variant 0 (compute.num_accelerators=1)"));
	ASSERT_EQ_STR(air_error_field(err), "compute.num_accelerators");
	ASSERT_EQ_INT(fakews_count(flow_fw, "*", "/api/*"), 0);
	air_error_free(err);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__shared_fields_cannot_vary)
{
	air_sweep_points *p = NULL;
	const char *names[] = {"a", "b"};
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, "experiment_name", names, 2, &err), err);
	ASSERT_EQ_INT(sweep(WORKLOAD, p, NULL, &s, &err), AIR_ECONFIG);
	ASSERT_EQ_STR(air_error_field(err), "experiment_name");
	ASSERT_TRUE(strstr(air_error_message(err), "share"));
	air_error_free(err);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__a_variant_can_fail_on_its_own)
{
	air_sweep_points *p = grid("1e-3,3e-4", "32");
	air_sweep *s = NULL;
	air_error *err = NULL;

	/* the second runs/submit is refused for good */
	fakews_faultf(flow_fw, "{\"method\":\"POST\",\"path\":\"%s\",\"status\":400,\"after\":1,"
	              "\"body\":{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"no\"}}",
	              SUBMIT);
	ASSERT_OK(sweep(WORKLOAD, p, NULL, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 1);
	ASSERT_EQ_INT(air_sweep_variant_status(s, 0) + air_sweep_variant_status(s, 1),
	              AIR_VARIANT_SUBMITTED + AIR_VARIANT_FAILED);
	for (size_t i = 0; i < 2; i++)
		if (air_sweep_variant_status(s, i) == AIR_VARIANT_FAILED) {
			ASSERT_EQ_INT(air_sweep_variant_run_id(s, i), 0);
			ASSERT_EQ_INT(air_error_code(air_sweep_variant_error(s, i)), AIR_EAPI);
			ASSERT_TRUE(strstr(air_error_message(air_sweep_variant_error(s, i)), "submitting the run"));
		}
	air_sweep_free(s);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__lost_replies_and_503s_still_give_one_run_per_variant)
{
	air_sweep_points *p = grid("1,2,3,4,5", "1,2,3,4");
	air_sweep_options *o = keyed("faults");
	air_sweep *s = NULL;
	air_error *err = NULL;

	fakews_faultf(flow_fw, "{\"method\":\"POST\",\"path\":\"%s\",\"action\":\"reset_after\","
	              "\"times\":-1,\"probability\":0.2,\"seed\":7}", SUBMIT);
	fakews_faultf(flow_fw, "{\"method\":\"POST\",\"path\":\"%s\",\"status\":503,\"times\":-1,"
	              "\"probability\":0.2,\"seed\":8,\"body\":{\"error_code\":"
	              "\"TEMPORARILY_UNAVAILABLE\",\"message\":\"busy\"}}", SUBMIT);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 0);
	ASSERT_EQ_INT(runs_created(), 20);
	ASSERT_TRUE(fakews_count(flow_fw, "POST", SUBMIT) > 20);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

static int count_progress(const air_sweep *s, size_t i, void *ud)
{
	int *calls = ud;

	calls[air_sweep_variant_status(s, i) / 100]++;
	return 0;
}

AIR_TEST(sweep__progress_reports_each_variant)
{
	air_sweep_points *p = grid("1,2,3", "1");
	air_sweep_options *o = keyed(NULL);
	air_sweep *s = NULL;
	air_error *err = NULL;
	int calls[5] = {0};

	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, count_progress, calls), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(calls[AIR_VARIANT_UPLOADING / 100], 3);
	ASSERT_EQ_INT(calls[AIR_VARIANT_SUBMITTED / 100], 3);
	ASSERT_EQ_INT(calls[AIR_VARIANT_FAILED / 100], 0);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

static int stop_after_first(const air_sweep *s, size_t i, void *ud)
{
	(void)ud;
	return air_sweep_variant_status(s, i) == AIR_VARIANT_SUBMITTED;
}

AIR_TEST(sweep__the_callback_stops_the_sweep)
{
	air_sweep_points *p = grid("1,2,3,4,5,6,7,8,9", "1,2");
	air_sweep_options *o = keyed("stopped");
	air_sweep *s = NULL;
	air_error *err = NULL;
	size_t submitted = 0;

	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, stop_after_first, NULL), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, 2), AIR_OK);
	ASSERT_EQ_INT(sweep(WORKLOAD, p, o, &s, &err), AIR_EABORTED);
	ASSERT_TRUE(s != NULL);
	for (size_t i = 0; i < air_sweep_count(s); i++)
		submitted += air_sweep_variant_status(s, i) == AIR_VARIANT_SUBMITTED;
	ASSERT_TRUE(submitted >= 1 && submitted < 18);
	ASSERT_EQ_INT(submitted + air_sweep_failed_count(s), 18);
	/* A submission still in flight when the callback stopped the sweep (at
	 * most max-parallel - 1 of them) may have created its run on the
	 * server without its reply being read: not reported as submitted. */
	ASSERT_TRUE(runs_created() >= (int)submitted && runs_created() <= (int)submitted + 1);
	air_error_free(err);
	err = NULL;
	air_sweep_free(s);
	s = NULL;
	/* The same sweep again finds those runs by their keys: no duplicate. */
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, NULL, NULL), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(runs_created(), 18);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__at_most_max_parallel_connections)
{
	air_sweep_points *p = grid("1,2,3,4,5,6,7,8", "1,2,3,4");
	air_sweep_options *o = keyed(NULL);
	air_sweep *s = NULL;
	air_error *err = NULL;
	json_t *conns;

	fakews_configf(flow_fw, "{\"latency_ms\":5}");
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, 3), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	conns = fakews_call(flow_fw, "GET", "/__fakews/connections", NULL);
	air_test_note("connections: open %lld, at most %lld at once",
	              (long long)json_integer_value(json_object_get(conns, "open")),
	              (long long)json_integer_value(json_object_get(conns, "max_open")));
	ASSERT_TRUE(json_integer_value(json_object_get(conns, "max_open")) <= 3);
	json_decref(conns);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__the_sweep_filter_lists_its_runs)
{
	air_sweep_points *p = grid("1,2,3", "1");
	air_sweep_options *o = keyed("listed");
	air_sweep *s = NULL;
	air_error *err = NULL;
	air_list_options *lo = NULL;
	air_run_iter *it = NULL;
	const air_run *run;
	air_client *c;
	int n = 0;

	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	{
		air_submission *sub = NULL;
		air_config *cfg = load_yaml(air_test_tmpdir(), "o.yaml", WORKLOAD);
		c = fakews_client(flow_fw);
		ASSERT_OK(air_client_submit(c, cfg, NULL, &sub, &err), err); /* not of the sweep */
		air_submission_free(sub);
		air_config_free(cfg);
	}
	ASSERT_EQ_INT(air_list_options_new(&lo), AIR_OK);
	ASSERT_EQ_INT(air_list_options_set_int(lo, AIR_LIST_ALL_STATUS, 1), AIR_OK);
	ASSERT_OK(air_list_options_add_filter(lo, "sweep=listed", &err), err);
	ASSERT_OK(air_client_list_runs(c, lo, &it, &err), err);
	while (air_run_iter_next(it, &run, &err) == AIR_OK) {
		n++;
		ASSERT_TRUE(has_prefix(air_run_name(run), "lr-sweep lr="));
	}
	ASSERT_EQ_INT(n, 3);
	air_run_iter_free(it);
	air_list_options_free(lo);
	air_client_free(c);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

/* Stop marks of the sweep of base key @base (of [A-Za-z0-9._-]: its tag is
 * "sweep-<base>-<8 hex>") in the workspace's files. */
static int mark_files(const char *base)
{
	json_t *files = fakews_call(flow_fw, "GET", "/__fakews/files", NULL), *f;
	char want[256];
	size_t i;
	int n = 0;

	snprintf(want, sizeof(want), "/.air/sweeps/sweep-%s-", base);
	json_array_foreach(json_object_get(files, "files"), i, f) {
		const char *path = json_string_value(json_object_get(f, "path"));
		n += path && strstr(path, want) && has_suffix(path, "/stopped");
	}
	json_decref(files);
	return n;
}

/* Requests to the workspace export of a stop mark so far. */
static int mark_looks(void)
{
	json_t *r = fakews_call(flow_fw, "GET",
	                        "/__fakews/requests?path=/api/2.0/workspace/export&bodies=false", NULL);
	json_t *q;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(r, "requests"), i, q) {
		json_t *paths = json_object_get(json_object_get(q, "query"), "path");
		const char *path = json_string_value(json_array_get(paths, 0));
		n += path && has_suffix(path, "/stopped");
	}
	json_decref(r);
	return n;
}

static void assert_stopped(const air_sweep *s, size_t i, const char *base)
{
	char want[128];

	snprintf(want, sizeof(want), "not submitted: sweep %s was stopped", base);
	ASSERT_EQ_INT(air_sweep_variant_status(s, i), AIR_VARIANT_FAILED);
	ASSERT_EQ_INT(air_error_code(air_sweep_variant_error(s, i)), AIR_EABORTED);
	ASSERT_CONTAINS(air_error_message(air_sweep_variant_error(s, i)), want);
}

AIR_TEST(sweep__a_stopped_sweep_submits_nothing_also_when_submitted_again)
{
	air_sweep_points *p = grid("1,2,3", "1");
	air_sweep_options *o = keyed("halted");
	air_client *c = fakews_client(flow_fw);
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_stop_sweep(c, "  halted ", NULL, &err), err); /* trimmed, as a sweep's */
	ASSERT_EQ_INT(mark_files("halted"), 1);
	for (int again = 0; again < 2; again++) {
		ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
		ASSERT_EQ_INT(air_sweep_failed_count(s), 3);
		for (size_t i = 0; i < 3; i++)
			assert_stopped(s, i, "halted");
		air_sweep_free(s);
		s = NULL;
	}
	ASSERT_EQ_INT(runs_created(), 0);
	ASSERT_EQ_INT(mark_looks(), 2);
	air_client_free(c);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

/* AIR_SWEEP_RESUME undoes a stop: the sweep submitted again with it submits
 * its variants, and says so; a sweep that is not stopped is left as it is,
 * and a later stop holds again. */
AIR_TEST(sweep__resume_undoes_a_stop)
{
	air_sweep_points *p = grid("1,2,3", "1"), *more = grid("1,2,3,4", "1");
	air_sweep_options *o = keyed("paused");
	air_client *c = fakews_client(flow_fw);
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_RESUME, 2), AIR_EINVAL);
	ASSERT_EQ_INT(air_sweep_options_set_str(o, AIR_SWEEP_RESUME, "1"), AIR_EINVAL);
	ASSERT_OK(air_client_stop_sweep(c, "paused", NULL, &err), err);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 3);
	ASSERT_EQ_INT(air_sweep_resumed(s), 0);
	air_sweep_free(s);
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_RESUME, 1), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_resumed(s), 1);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 0);
	ASSERT_EQ_INT(runs_created(), 3);
	ASSERT_EQ_INT(mark_files("paused"), 1); /* the same mark, rewritten */
	air_sweep_free(s);
	/* Not stopped: nothing to undo, the same runs. */
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_resumed(s), 0);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 0);
	ASSERT_EQ_INT(runs_created(), 3);
	air_sweep_free(s);
	/* Stopped again: the variants with a run are reported, the new one is
	 * not submitted. */
	ASSERT_OK(air_client_stop_sweep(c, "paused", NULL, &err), err);
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_RESUME, 0), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, more, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 1);
	assert_stopped(s, 3, "paused");
	ASSERT_EQ_INT(runs_created(), 3);
	ASSERT_EQ_INT(air_sweep_resumed(s), 0);
	air_sweep_free(s);
	air_client_free(c);
	air_sweep_options_free(o);
	air_sweep_points_free(more);
	air_sweep_points_free(p);
}

/* A mark that cannot be read may say stopped: the resume fails the sweep
 * before anything of it is sent; a dry run ignores the option. */
AIR_TEST(sweep__a_resume_that_cannot_read_the_mark_sends_nothing)
{
	air_sweep_points *p = grid("1,2", "1");
	air_sweep_options *o = keyed("unreadable");
	air_config *cfg = load_yaml(air_test_tmpdir(), "w.yaml", WORKLOAD);
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_RESUME, 1), AIR_OK);
	ASSERT_OK(air_config_validate_sweep(cfg, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_resumed(s), 0);
	air_sweep_free(s);
	s = NULL;
	fakews_faultf(flow_fw, "{\"method\":\"GET\",\"path\":\"/api/2.0/workspace/export\","
	              "\"status\":403,\"times\":-1,\"body\":{\"error_code\":\"PERMISSION_DENIED\","
	              "\"message\":\"no\"}}");
	ASSERT_NE_INT(sweep(WORKLOAD, p, o, &s, &err), AIR_OK);
	ASSERT_CONTAINS(air_error_message(err), "resuming sweep unreadable");
	ASSERT_EQ_INT(runs_created(), 0);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", SUBMIT), 0);
	air_error_free(err);
	air_sweep_free(s);
	air_config_free(cfg);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

/* The stop a resume undoes is the one there as the call began: a stop
 * written since (here the first look is answered with an older one) is
 * kept, and the sweep sees it. */
AIR_TEST(sweep__a_stop_written_while_resuming_is_kept)
{
	air_sweep_points *p = grid("1,2", "1");
	air_sweep_options *o = keyed("renewed");
	air_client *c = fakews_client(flow_fw);
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_stop_sweep(c, "renewed", NULL, &err), err);
	fakews_faultf(flow_fw, "{\"method\":\"GET\",\"path\":\"/api/2.0/workspace/export\","
	              "\"status\":200,\"body\":\"stopped 2000-01-01T00:00:00Z\\n\"}");
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_RESUME, 1), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_resumed(s), 0);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 2);
	assert_stopped(s, 0, "renewed");
	ASSERT_EQ_INT(runs_created(), 0);
	air_sweep_free(s);
	air_client_free(c);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

/* A resume is the last step before the variants: a sweep refused by its
 * checks leaves its stop as it was; and it needs a base key given (a
 * derived one changes with the date: a new sweep, nothing undone). */
AIR_TEST(sweep__a_resume_refused_leaves_the_stop)
{
	air_sweep_points *p = grid("1,2", "1");
	air_sweep_options *o = keyed("checked"), *unkeyed = keyed(NULL);
	air_client *c = fakews_client(flow_fw);
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_options_set_int(unkeyed, AIR_SWEEP_RESUME, 1), AIR_OK);
	ASSERT_EQ_INT(sweep(WORKLOAD, p, unkeyed, &s, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "resuming a sweep needs its base key");
	{
		json_t *reqs = fakews_requests(flow_fw);
		ASSERT_EQ_INT((int)json_array_size(reqs), 0);
		json_decref(reqs);
	}
	air_error_free(err);
	err = NULL;
	ASSERT_OK(air_client_stop_sweep(c, "checked", NULL, &err), err);
	fakews_configf(flow_fw, "{\"preflight\":{\"errors\":[{\"path\":\"experiment\","
	               "\"message\":\"only letters\",\"code\":\"DISALLOWED_CHARACTERS\"}]}}");
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_RESUME, 1), AIR_OK);
	ASSERT_EQ_INT(sweep(WORKLOAD, p, o, &s, &err), AIR_EREJECTED);
	air_error_free(err);
	err = NULL;
	fakews_configf(flow_fw, "{\"preflight\":{\"errors\":[]}}");
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_RESUME, 0), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 2); /* still stopped */
	ASSERT_EQ_INT(runs_created(), 0);
	air_sweep_free(s);
	air_client_free(c);
	air_sweep_options_free(unkeyed);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

/* A fault rule: the first look at the stop mark finds none, whatever the
 * order in which the server takes it and the stop. */
#define FIRST_LOOK_MISSES                                                                  \
	"{\"method\":\"GET\",\"path\":\"/api/2.0/workspace/export\",\"status\":404,"       \
	"\"body\":{\"error_code\":\"RESOURCE_DOES_NOT_EXIST\",\"message\":\"no\"}}"

/* When to stop the sweep from another client: at the first progress event
 * with @status (0: any), once. */
typedef struct stopper {
	int32_t status;
	int stops;
} stopper;

static int stop_from_elsewhere(const air_sweep *s, size_t i, void *ud)
{
	stopper *at = ud;
	air_client *other;
	air_error *err = NULL;
	int rc;

	if ((at->status && air_sweep_variant_status(s, i) != at->status) || at->stops++)
		return 0;
	other = fakews_client(flow_fw);
	rc = air_client_stop_sweep(other, air_sweep_base_key(s), NULL, &err);
	air_error_free(err);
	air_client_free(other);
	return rc == AIR_OK ? 0 : 1;
}

/* A sweep that is going sees its stop at its next look (at most a second
 * later): with every request 50 ms, the 29 variants left would take more
 * than 4 s, so it stops long before their end. */
AIR_TEST(sweep__a_stop_from_elsewhere_ends_a_going_sweep)
{
	air_sweep_points *p = grid("1,2,3,4,5,6,7,8,9,10", "1,2,3");
	air_sweep_options *o = keyed("going");
	air_sweep *s = NULL, *again = NULL;
	air_error *err = NULL;
	size_t submitted = 0;
	stopper at = {AIR_VARIANT_SUBMITTED, 0};

	fakews_configf(flow_fw, "{\"latency_ms\":50}");
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, 1), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, stop_from_elsewhere, &at), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	for (size_t i = 0; i < air_sweep_count(s); i++) {
		if (air_sweep_variant_status(s, i) == AIR_VARIANT_SUBMITTED)
			submitted++;
		else
			assert_stopped(s, i, "going");
	}
	air_test_note("submitted %zu of 30 before the stop was seen", submitted);
	ASSERT_TRUE(submitted >= 1 && submitted < 30);
	ASSERT_EQ_INT(runs_created(), (int)submitted);
	ASSERT_TRUE(mark_looks() >= 2);
	/* Submitted again: nothing new, and the variants that have a run show it. */
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, NULL, NULL), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &again, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(again), 30 - submitted);
	for (size_t i = 0; i < air_sweep_count(s); i++)
		ASSERT_EQ_INT(air_sweep_variant_run_id(again, i), air_sweep_variant_run_id(s, i));
	ASSERT_EQ_INT(runs_created(), (int)submitted);
	air_sweep_free(again);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

/* A sweep stopped before it starts submits nothing, also when its first
 * look at the mark is slow: no runs/submit goes before its answer. */
AIR_TEST(sweep__no_variant_is_submitted_before_the_first_look_answers)
{
	air_sweep_points *p = grid("1,2,3,4", "1");
	air_sweep_options *o = keyed("slow-look");
	air_client *c = fakews_client(flow_fw);
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_stop_sweep(c, "slow-look", NULL, &err), err);
	json_decref(fakews_callf(flow_fw, "POST", "/__fakews/faults", "{\"method\":\"GET\",\"path\":"
	             "\"/api/2.0/workspace/export\",\"action\":\"delay\",\"delay_ms\":1500}"));
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, 4), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 4);
	ASSERT_EQ_INT(runs_created(), 0);
	air_sweep_free(s);
	air_client_free(c);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

/* A look that fails is one attempt, and the sweep goes on: with one place,
 * a mark that cannot be read never holds it. */
AIR_TEST(sweep__a_look_that_fails_lets_the_sweep_go_on)
{
	air_sweep_points *p = grid("1,2,3", "1");
	air_sweep_options *o = keyed("unreadable");
	air_sweep *s = NULL;
	air_error *err = NULL;

	struct timespec t0, t1;
	long took_s;

	json_decref(fakews_callf(flow_fw, "POST", "/__fakews/faults", "{\"method\":\"GET\",\"path\":"
	             "\"/api/2.0/workspace/export\",\"status\":503,\"times\":-1}"));
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, 1), AIR_OK);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took_s = (long)(t1.tv_sec - t0.tv_sec) + 1;
	ASSERT_EQ_INT(air_sweep_failed_count(s), 0);
	ASSERT_EQ_INT(runs_created(), 3);
	air_test_note("%d looks in %ld s at most", mark_looks(), took_s);
	/* One attempt each, a second apart: at most one a second after the first
	 * (however slow this machine is); retried, they would be dozens. */
	ASSERT_TRUE(mark_looks() >= 1 && mark_looks() <= 1 + took_s);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

/* The stop seen while runs/submit requests are in flight: the first look
 * misses it (a 404), the first two runs/submit replies take seconds (the
 * server has made their runs), and the others go on meanwhile until a
 * later look sees the stop. Each run the server creates is reported with
 * its variant. */
AIR_TEST(sweep__a_run_created_as_the_stop_is_seen_is_reported)
{
	air_sweep_points *p = grid("1,2,3,4,5,6,7,8,9,10", "1,2");
	air_sweep_options *o = keyed("in-flight");
	air_sweep *s = NULL;
	air_error *err = NULL;
	int submitted = 0;
	stopper at = {0, 0};

	fakews_configf(flow_fw, "{\"latency_ms\":100}");
	json_decref(fakews_callf(flow_fw, "POST", "/__fakews/faults", "{\"method\":\"POST\","
	             "\"path\":\"%s\",\"action\":\"trickle\",\"interval_ms\":300,"
	             "\"times\":2}", SUBMIT));
	json_decref(fakews_call(flow_fw, "POST", "/__fakews/faults", FIRST_LOOK_MISSES));
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, 4), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, stop_from_elsewhere, &at), AIR_OK);
	ASSERT_OK(sweep(WORKLOAD, p, o, &s, &err), err);
	for (size_t i = 0; i < air_sweep_count(s); i++)
		submitted += air_sweep_variant_status(s, i) == AIR_VARIANT_SUBMITTED;
	air_test_note("%d of 20 reported submitted, %d runs created", submitted, runs_created());
	ASSERT_EQ_INT(runs_created(), submitted);
	ASSERT_TRUE(submitted < 20);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

/* A stopped sweep that waits for its requests in flight still ends at its
 * deadline, and says so. Stopped before it starts: its first look (500 ms,
 * as every request) answers while the folders of the variants it opened at
 * once are being made, each 6 s, past the 3 s deadline. */
AIR_TEST(sweep__a_stopped_sweep_keeps_its_deadline)
{
	air_sweep_points *p = grid("1,2,3,4", "1");
	air_sweep_options *o = keyed("deadline");
	air_client *c = fakews_client(flow_fw);
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_stop_sweep(c, "deadline", NULL, &err), err);
	fakews_configf(flow_fw, "{\"latency_ms\":500}");
	json_decref(fakews_call(flow_fw, "POST", "/__fakews/faults", "{\"method\":\"POST\","
	            "\"path\":\"/api/2.0/workspace/mkdirs\",\"action\":\"delay\","
	            "\"delay_ms\":6000,\"times\":-1}"));
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, 4), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_deadline_ms(o, 3000), AIR_OK);
	ASSERT_EQ_INT(sweep(WORKLOAD, p, o, &s, &err), AIR_ETIMEOUT);
	ASSERT_TRUE(s != NULL);
	ASSERT_CONTAINS(air_error_message(err), "deadline");
	ASSERT_EQ_INT(air_sweep_failed_count(s), 4);
	ASSERT_EQ_INT(runs_created(), 0);
	air_error_free(err);
	air_sweep_free(s);
	air_client_free(c);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__cancel_sweep_stops_it_and_cancels_its_active_runs_only)
{
	air_sweep_points *p = grid("1,2,3", "1");
	air_sweep_options *mine = keyed("mine"), *other = keyed("other");
	air_client *c = fakews_client(flow_fw);
	air_cancel_report *rep = NULL;
	air_sweep *s = NULL, *t = NULL;
	air_error *err = NULL;

	fakews_configf(flow_fw, "{\"lifecycle\":{\"pending_ms\":600000}}");
	ASSERT_OK(sweep(WORKLOAD, p, mine, &s, &err), err);
	ASSERT_OK(sweep(WORKLOAD, p, other, &t, &err), err);
	ASSERT_OK(air_client_cancel_sweep(c, "mine", NULL, &rep, &err), err);
	ASSERT_EQ_INT(air_cancel_report_count(rep), 3);
	ASSERT_EQ_INT(air_cancel_report_failures(rep), 0);
	for (size_t i = 0; i < 3; i++) {
		int64_t id = air_cancel_report_run_id(rep, i);
		bool of_mine = false;
		for (size_t k = 0; k < 3; k++)
			of_mine = of_mine || id == air_sweep_variant_run_id(s, k);
		ASSERT_TRUE(of_mine);
	}
	ASSERT_EQ_INT(mark_files("mine"), 1);
	ASSERT_EQ_INT(mark_files("other"), 0);
	air_cancel_report_free(rep);
	air_client_free(c);
	air_sweep_free(s);
	air_sweep_free(t);
	air_sweep_options_free(mine);
	air_sweep_options_free(other);
	air_sweep_points_free(p);
}

AIR_TEST(sweep__stop_and_cancel_refuse_bad_arguments)
{
	air_client *c = fakews_client(flow_fw);
	air_cancel_report *rep = NULL;
	air_error *err = NULL;
	char long_key[300];

	memset(long_key, 'k', sizeof(long_key) - 1);
	long_key[sizeof(long_key) - 1] = '\0';
	ASSERT_EQ_INT(air_client_stop_sweep(NULL, "k", NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_stop_sweep(c, NULL, NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_stop_sweep(c, " \t", NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "the base key is empty");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_client_stop_sweep(c, long_key, NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "longer than 256 bytes");
	air_error_free(err);
	err = NULL;
	long_key[0] = ' '; /* 256 bytes once trimmed: refused, as AIR_SWEEP_BASE_KEY does */
	long_key[257] = '\0';
	ASSERT_EQ_INT(air_client_stop_sweep(c, long_key, NULL, &err), AIR_EINVAL);
	air_error_free(err);
	ASSERT_EQ_INT(air_client_cancel_sweep(c, "k", NULL, NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_cancel_sweep(c, "", NULL, &rep, NULL), AIR_EINVAL);
	ASSERT_NULL(rep);
	ASSERT_EQ_INT(runs_created(), 0);
	air_client_free(c);
}
