/* test_metrics_api.c: a run's MLflow metrics against the fake workspace
 * (docs/runs-and-logs.md#metrics): the latest values, histories in pages,
 * every metric of a run, following an active run, NaN and infinities,
 * runs without an MLflow run or metrics, faults, interrupts, memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "fixture.h"
#include "test.h"

AIR_TEST_HOOKS(fixture_setup, fixture_teardown)

/* An active run (RUNNING, started) with an MLflow run; its MLflow run id in @mlflow. */
static int64_t active_run(char mlflow[64])
{
	int64_t id = fakews_create_runf(
		fw, "{\"start_time\":1700000000000,\"state\":{\"life_cycle_state\":\"RUNNING\"},"
		    "\"tasks\":[{\"ai_runtime_task\":{\"experiment\":\"metrics-test\"}}]}");
	json_t *info = fakews_run(fw, id);
	const char *m = json_string_value(json_object_get(json_object_get(info, "mlflow"), "run_id"));

	ASSERT_NOT_NULL(m);
	snprintf(mlflow, 64, "%s", m);
	json_decref(info);
	return id;
}

/* A finished run (SUCCESS) with an MLflow run. */
static int64_t finished_run(char mlflow[64])
{
	int64_t id = fixture_std_run(700, "SUCCESS");
	json_t *info = fakews_run(fw, id);
	const char *m = json_string_value(json_object_get(json_object_get(info, "mlflow"), "run_id"));

	ASSERT_NOT_NULL(m);
	snprintf(mlflow, 64, "%s", m);
	json_decref(info);
	return id;
}

/* The run ends with @result now. */
static void end_run(int64_t id, const char *result)
{
	char path[64];

	snprintf(path, sizeof(path), "/__fakews/runs/%lld", (long long)id);
	fixture_post(path, "{\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":"
	                   "\"%s\"},\"end_time\":1700000100000}", result);
}

/* POST /__fakews/mlflow/<run>/metrics with a printf body. */
static void add_metrics(const char *mlflow, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_metrics(const char *mlflow, const char *fmt, ...)
{
	char path[128], *body = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&body, fmt, ap) < 0)
		body = NULL;
	va_end(ap);
	ASSERT_NOT_NULL(body);
	snprintf(path, sizeof(path), "/__fakews/mlflow/%s/metrics", mlflow);
	json_decref(fakews_call(fw, "POST", path, body));
	free(body);
}

/* "key:step=value" of each point, space-separated, or the failure code. */
typedef struct drained {
	char text[8192];
	int64_t n;
	int rc;
} drained;

static void describe(drained *d, const air_metric_point *pt)
{
	size_t used = strlen(d->text);

	if (used < sizeof(d->text) - 64)
		snprintf(d->text + used, sizeof(d->text) - used, "%s%s:%lld=%g", used ? " " : "",
		         air_metric_point_key(pt), (long long)air_metric_point_step(pt),
		         air_metric_point_value(pt));
	d->n++;
}

static air_metrics_options *opts(int64_t page, bool follow, int64_t poll_ms)
{
	air_metrics_options *o = NULL;

	ASSERT_EQ_INT(air_metrics_options_new(&o), AIR_OK);
	if (page > 0)
		ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_PAGE_SIZE, page), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_FOLLOW, follow), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_POLL_INTERVAL_MS, poll_ms), AIR_OK);
	return o;
}

/* Iterate @key (NULL: every metric) of run @id to the end. */
static drained drain(int64_t id, const char *key, const air_metrics_options *o)
{
	drained d = {{0}, 0, 0};
	air_metric_iter *it = NULL;
	const air_metric_point *pt;
	air_error *err = NULL;

	ASSERT_OK(air_client_open_metric_history(client, id, key, o, &it, &err), err);
	while ((d.rc = air_metric_iter_next(it, &pt, &err)) == AIR_OK)
		describe(&d, pt);
	if (d.rc != AIR_EDONE)
		air_test_note("iteration ended with %d: %s", d.rc, err ? air_error_message(err) : "-");
	air_error_free(err);
	air_metric_iter_free(it);
	return d;
}

/* ---- the latest values ----------------------------------------------------------- */

AIR_TEST(metrics__latest_value_of_each_metric_sorted_by_key)
{
	char mlflow[64];
	int64_t id = finished_run(mlflow);
	air_metrics *m = NULL;
	air_error *err = NULL;

	add_metrics(mlflow, "{\"metrics\":{\"loss\":[{\"value\":2.5,\"step\":0,\"timestamp\":1700000001000},"
	                    "{\"value\":0.5,\"step\":9,\"timestamp\":1700000009000}],"
	                    "\"system/gpu_0_utilization_percentage\":[{\"value\":87,\"step\":3,"
	                    "\"timestamp\":1700000003000}],\"accuracy\":[{\"value\":0.9,\"step\":9,"
	                    "\"timestamp\":1700000009500}]}}");
	ASSERT_OK(air_client_get_metrics(client, id, NULL, &m, &err), err);
	ASSERT_EQ_INT(air_metrics_count(m), 3);
	ASSERT_EQ_STR(air_metrics_key(m, 0), "accuracy");
	ASSERT_EQ_STR(air_metrics_key(m, 1), "loss");
	ASSERT_EQ_STR(air_metrics_key(m, 2), "system/gpu_0_utilization_percentage");
	ASSERT_TRUE(air_metrics_value(m, 1) == 0.5);
	ASSERT_EQ_INT(air_metrics_step(m, 1), 9);
	ASSERT_EQ_INT(air_metrics_timestamp_ms(m, 1), 1700000009000LL);
	ASSERT_TRUE(air_metrics_value(m, 2) == 87.0);
	ASSERT_EQ_STR(air_metrics_mlflow_run_id(m), mlflow);
	ASSERT_EQ_STR(air_metrics_mlflow_status(m), "FINISHED");
	ASSERT_EQ_INT(air_metrics_run_state(m), AIR_STATE_SUCCESS);
	ASSERT_EQ_STR(air_metrics_run_state_name(m), "SUCCESS");
	/* Out of range. */
	ASSERT_NULL(air_metrics_key(m, 3));
	ASSERT_TRUE(isnan(air_metrics_value(m, 3)));
	ASSERT_EQ_INT(air_metrics_step(m, 3), 0);
	air_metrics_free(m);
	air_metrics_free(NULL);
}

AIR_TEST(metrics__nan_and_infinities_as_bare_tokens_and_as_strings)
{
	static const char *const modes[] = {"token", "string"};
	char mlflow[64];
	int64_t id = finished_run(mlflow);

	add_metrics(mlflow, "{\"metrics\":{\"a\":[{\"value\":\"NaN\",\"step\":1}],"
	                    "\"b\":[{\"value\":\"Infinity\",\"step\":1}],"
	                    "\"c\":[{\"value\":\"-Infinity\",\"step\":1}],"
	                    "\"d\":[{\"value\":\"NaN\",\"step\":0},{\"value\":1.5,\"step\":1},"
	                    "{\"value\":\"-Infinity\",\"step\":2}]}}");
	for (size_t i = 0; i < 2; i++) {
		air_metrics *m = NULL;
		air_error *err = NULL;
		drained d;

		fakews_configf(fw, "{\"mlflow_nonfinite\":\"%s\"}", modes[i]);
		ASSERT_OK(air_client_get_metrics(client, id, NULL, &m, &err), err);
		ASSERT_EQ_INT(air_metrics_count(m), 4);
		ASSERT_TRUE(isnan(air_metrics_value(m, 0)));
		ASSERT_TRUE(isinf(air_metrics_value(m, 1)) && air_metrics_value(m, 1) > 0);
		ASSERT_TRUE(isinf(air_metrics_value(m, 2)) && air_metrics_value(m, 2) < 0);
		air_metrics_free(m);
		d = drain(id, "d", NULL);
		ASSERT_EQ_INT(d.rc, AIR_EDONE);
		ASSERT_EQ_STR(d.text, "d:0=nan d:1=1.5 d:2=-inf");
	}
	/* A bare token inside a string is text: the key "NaN_count". */
	add_metrics(mlflow, "{\"metrics\":{\"NaN_count\":[{\"value\":3,\"step\":0}]}}");
	ASSERT_EQ_STR(drain(id, "NaN_count", NULL).text, "NaN_count:0=3");
}

AIR_TEST(metrics__a_run_without_an_mlflow_run_or_metrics_has_none)
{
	/* Not started: runs/get-output has no MLflow ids yet. */
	int64_t pending = fakews_create_runf(
		fw, "{\"state\":{\"life_cycle_state\":\"PENDING\"},\"tasks\":[{\"ai_runtime_task\":"
		    "{\"experiment\":\"x\"}}]}");
	char mlflow[64];
	int64_t done = finished_run(mlflow);
	air_metrics *m = NULL;
	air_error *err = NULL;
	drained d;

	ASSERT_OK(air_client_get_metrics(client, pending, NULL, &m, &err), err);
	ASSERT_EQ_INT(air_metrics_count(m), 0);
	ASSERT_NULL(air_metrics_mlflow_run_id(m));
	ASSERT_EQ_STR(air_metrics_run_state_name(m), "PENDING");
	air_metrics_free(m);
	d = drain(pending, NULL, NULL);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	ASSERT_EQ_INT(d.n, 0);
	d = drain(pending, "loss", NULL);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	ASSERT_EQ_INT(d.n, 0);
	ASSERT_EQ_INT(fakews_count(fw, "GET", "/api/2.0/mlflow/metrics/get-history"), 0);

	/* An MLflow run without metrics. */
	ASSERT_OK(air_client_get_metrics(client, done, NULL, &m, &err), err);
	ASSERT_EQ_INT(air_metrics_count(m), 0);
	ASSERT_EQ_STR(air_metrics_mlflow_run_id(m), mlflow);
	air_metrics_free(m);
	d = drain(done, NULL, NULL);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	ASSERT_EQ_INT(d.n, 0);
	d = drain(done, "loss", NULL);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	ASSERT_EQ_INT(d.n, 0);
}

AIR_TEST(metrics__a_missing_run_is_not_found_and_bad_arguments_are_refused)
{
	air_metrics *m = NULL;
	air_metric_iter *it = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_client_get_metrics(client, 424242, NULL, &m, &err), AIR_ENOTFOUND);
	ASSERT_NULL(m);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_client_open_metric_history(client, 424242, "loss", NULL, &it, &err),
	              AIR_ENOTFOUND);
	ASSERT_NULL(it);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_client_get_metrics(client, 0, NULL, &m, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_client_open_metric_history(client, 1, "", NULL, &it, &err), AIR_EINVAL);
	ASSERT_EQ_STR(air_error_field(err), "key");
	air_error_free(err);
	ASSERT_EQ_INT(air_client_open_metric_history(NULL, 1, "x", NULL, &it, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_metric_iter_next(NULL, NULL, NULL), AIR_EINVAL);
	air_metric_iter_free(NULL);
}

AIR_TEST(metrics__options_refuse_bad_values)
{
	air_metrics_options *o = NULL;

	ASSERT_EQ_INT(air_metrics_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_PAGE_SIZE, 0), AIR_EINVAL);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_PAGE_SIZE, 25001), AIR_EINVAL);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_PAGE_SIZE, 25000), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_FOLLOW, 2), AIR_EINVAL);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_POLL_INTERVAL_MS, -1), AIR_EINVAL);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, 99, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_metrics_options_set_deadline_ms(o, -1), AIR_EINVAL);
	ASSERT_EQ_INT(air_metrics_options_set_int(NULL, AIR_METRICS_FOLLOW, 1), AIR_EINVAL);
	air_metrics_options_free(o);
	air_metrics_options_free(NULL);
	ASSERT_EQ_INT(air_metrics_options_new(NULL), AIR_EINVAL);
}

/* ---- histories -------------------------------------------------------------------- */

AIR_TEST(metrics__a_history_comes_in_pages_each_point_once)
{
	char mlflow[64];
	int64_t id = finished_run(mlflow);
	air_metrics_options *o = opts(1000, false, 10);
	json_t *reqs;
	drained d;

	add_metrics(mlflow, "{\"synthetic\":{\"key\":\"loss\",\"count\":2500,\"scale\":2500}}");
	d = drain(id, "loss", o);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	ASSERT_EQ_INT(d.n, 2500);
	ASSERT_TRUE(!strncmp(d.text, "loss:0=2500 loss:1=1250 loss:2=833.333", 36));
	reqs = fixture_requests("GET", "/api/2.0/mlflow/metrics/get-history");
	ASSERT_EQ_INT(json_array_size(reqs), 3);
	for (size_t i = 0; i < 3; i++) {
		const json_t *r = json_array_get(reqs, i);
		ASSERT_EQ_STR(fixture_query(r, "max_results"), "1000");
		ASSERT_EQ_STR(fixture_query(r, "run_id"), mlflow);
		ASSERT_EQ_STR(fixture_query(r, "metric_key"), "loss");
		ASSERT_TRUE((i == 0) == (fixture_query(r, "page_token") == NULL));
	}
	json_decref(reqs);
	air_metrics_options_free(o);
}

AIR_TEST(metrics__every_metric_of_a_run_key_by_key_system_metrics_included)
{
	char mlflow[64];
	int64_t id = finished_run(mlflow);
	air_metrics_options *o = opts(2, false, 10);
	json_t *reqs;
	drained d;

	add_metrics(mlflow, "{\"metrics\":{\"loss\":[{\"value\":3,\"step\":0},{\"value\":2,\"step\":1},"
	                    "{\"value\":1,\"step\":2}],\"system/gpu_0_utilization_percentage\":"
	                    "[{\"value\":50,\"step\":0},{\"value\":75,\"step\":1}],"
	                    "\"acc\":[{\"value\":0.5,\"step\":0}]}}");
	d = drain(id, NULL, o);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	ASSERT_EQ_STR(d.text, "acc:0=0.5 loss:0=3 loss:1=2 loss:2=1 "
	                      "system/gpu_0_utilization_percentage:0=50 "
	                      "system/gpu_0_utilization_percentage:1=75");
	/* A key with '/' is sent encoded and read back whole. */
	reqs = fixture_requests("GET", "/api/2.0/mlflow/metrics/get-history");
	ASSERT_EQ_STR(fixture_query(json_array_get(reqs, json_array_size(reqs) - 1), "metric_key"),
	              "system/gpu_0_utilization_percentage");
	json_decref(reqs);
	d = drain(id, "system/gpu_0_utilization_percentage", o);
	ASSERT_EQ_STR(d.text, "system/gpu_0_utilization_percentage:0=50 "
	                      "system/gpu_0_utilization_percentage:1=75");
	air_metrics_options_free(o);
}

/* An active run whose loss has three points (steps 0..2, values 1..3). */
static int64_t seeded_run(char mlflow[64])
{
	int64_t id = active_run(mlflow);

	add_metrics(mlflow, "{\"metrics\":{\"loss\":[{\"value\":1,\"step\":0},{\"value\":2,"
	                    "\"step\":1},{\"value\":3,\"step\":2}]}}");
	return id;
}

/* Following: the poll callback adds points (and at the end finishes the run). */
typedef struct feeder {
	const char *mlflow;
	int64_t run_id;
	int polls;
	int bump_generation_at;   /* the poll at which page tokens stop being accepted (0: never) */
	char states[256];
} feeder;

static int feed(const char *state, void *ud)
{
	feeder *f = ud;

	f->polls++;
	snprintf(f->states + strlen(f->states), sizeof(f->states) - strlen(f->states), "%s ", state);
	if (f->bump_generation_at && f->polls == f->bump_generation_at)
		add_metrics(f->mlflow, "{\"token_generation\":%d}", f->polls);
	if (f->polls <= 3) {
		/* Four new points of loss, a new metric on the second poll. */
		add_metrics(f->mlflow, "{\"metrics\":{\"loss\":[{\"value\":%d,\"step\":%d},"
		                       "{\"value\":%d,\"step\":%d},{\"value\":%d,\"step\":%d},"
		                       "{\"value\":%d,\"step\":%d}]%s}}",
		            f->polls * 10 + 1, f->polls * 4, f->polls * 10 + 2, f->polls * 4 + 1,
		            f->polls * 10 + 3, f->polls * 4 + 2, f->polls * 10 + 4, f->polls * 4 + 3,
		            f->polls == 2 ? ",\"lr\":[{\"value\":0.1,\"step\":0}]" : "");
	} else if (f->polls == 4) {
		/* The last points are logged just before the run ends. */
		add_metrics(f->mlflow, "{\"metrics\":{\"loss\":[{\"value\":99,\"step\":16}]}}");
		end_run(f->run_id, "SUCCESS");
	}
	return 0;
}

static drained follow(int64_t id, const char *key, feeder *f)
{
	air_metrics_options *o = opts(3, true, 1);
	drained d;

	ASSERT_EQ_INT(air_metrics_options_set_poll_cb(o, feed, f), AIR_OK);
	d = drain(id, key, o);
	air_metrics_options_free(o);
	return d;
}

static const char followed_loss[] =
	"loss:0=1 loss:1=2 loss:2=3 loss:4=11 loss:5=12 loss:6=13 loss:7=14 loss:8=21 loss:9=22 "
	"loss:10=23 loss:11=24 loss:12=31 loss:13=32 loss:14=33 loss:15=34 loss:16=99";

AIR_TEST(metrics__following_an_active_run_delivers_each_new_point_once_until_it_ends)
{
	char mlflow[64];
	int64_t id = seeded_run(mlflow);
	feeder f = {mlflow, id, 0, 0, ""};
	json_t *reqs;
	drained d;

	d = follow(id, "loss", &f);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	ASSERT_EQ_STR(d.text, followed_loss);
	ASSERT_EQ_INT(f.polls, 4);
	ASSERT_EQ_STR(f.states, "RUNNING RUNNING RUNNING RUNNING ");
	/* Each poll read again from the page the delivered points ended in:
	 * the first page only until it was full (polls 0 and 1). */
	reqs = fixture_requests("GET", "/api/2.0/mlflow/metrics/get-history");
	ASSERT_TRUE(json_array_size(reqs) >= 8);
	for (size_t i = 0; i < json_array_size(reqs); i++)
		ASSERT_TRUE((i < 2) == (fixture_query(json_array_get(reqs, i), "page_token") == NULL));
	json_decref(reqs);
}

AIR_TEST(metrics__following_every_metric_picks_up_keys_logged_later)
{
	char mlflow[64];
	int64_t id = seeded_run(mlflow);
	feeder f = {mlflow, id, 0, 0, ""};
	drained d;

	d = follow(id, NULL, &f);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	/* lr arrives with the second poll's points, then only loss grows. */
	ASSERT_EQ_STR(d.text, "loss:0=1 loss:1=2 loss:2=3 loss:4=11 loss:5=12 loss:6=13 loss:7=14 "
	                      "loss:8=21 loss:9=22 loss:10=23 loss:11=24 lr:0=0.1 loss:12=31 "
	                      "loss:13=32 loss:14=33 loss:15=34 loss:16=99");
}

AIR_TEST(metrics__a_refused_page_token_reads_again_from_the_first_page)
{
	char mlflow[64];
	int64_t id = seeded_run(mlflow);
	feeder f = {mlflow, id, 0, 2, ""};
	json_t *reqs;
	drained d;
	int refused = 0;
	size_t i;
	json_t *r;

	d = follow(id, "loss", &f);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	ASSERT_EQ_STR(d.text, followed_loss);
	reqs = fixture_requests("GET", "/api/2.0/mlflow/metrics/get-history");
	json_array_foreach(reqs, i, r)
		refused += json_integer_value(json_object_get(r, "status")) == 400;
	ASSERT_EQ_INT(refused, 1);
	json_decref(reqs);
}

AIR_TEST(metrics__a_page_error_ends_a_pass_and_stays)
{
	char mlflow[64];
	int64_t id = finished_run(mlflow);
	air_metrics_options *o = opts(10, false, 10);
	air_metric_iter *it = NULL;
	const air_metric_point *pt;
	air_error *err = NULL;
	int n = 0, rc;

	add_metrics(mlflow, "{\"synthetic\":{\"key\":\"loss\",\"count\":25}}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/mlflow/metrics/get-history\",\"status\":500,"
	                  "\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"page broke\"},"
	                  "\"after\":1,\"times\":-1}");
	ASSERT_OK(air_client_open_metric_history(client, id, "loss", o, &it, &err), err);
	while ((rc = air_metric_iter_next(it, &pt, &err)) == AIR_OK)
		n++;
	ASSERT_EQ_INT(n, 10);
	ASSERT_EQ_INT(rc, AIR_ESERVER);
	ASSERT_CONTAINS(air_error_message(err), "page broke");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_metric_iter_next(it, &pt, &err), AIR_ESERVER);
	ASSERT_NULL(pt);
	air_error_free(err);
	air_metric_iter_free(it);
	air_metrics_options_free(o);
}

AIR_TEST(metrics__503s_are_retried_and_a_followed_run_waits_through_server_errors)
{
	char mlflow[64];
	int64_t id = seeded_run(mlflow);
	feeder f = {mlflow, id, 0, 0, ""};
	drained d;

	/* A 503 is retried by the transport; a 500 (retryable) makes the
	 * followed history wait a poll interval and read the page again. */
	fakews_faultf(fw, "{\"path\":\"/api/2.0/mlflow/metrics/get-history\",\"status\":503,"
	                  "\"times\":2}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/mlflow/metrics/get-history\",\"status\":500,"
	                  "\"body\":{\"error_code\":\"INTERNAL_ERROR\",\"message\":\"x\"},\"after\":3,"
	                  "\"times\":2}");
	d = follow(id, "loss", &f);
	ASSERT_EQ_INT(d.rc, AIR_EDONE);
	ASSERT_EQ_STR(d.text, followed_loss);
}

static int interrupt_on_poll(const char *state, void *ud)
{
	(void)state;
	air_interrupt_trigger(ud);
	return 0;
}

AIR_TEST(metrics__an_interrupted_history_goes_on_where_it_stopped)
{
	char mlflow[64];
	int64_t id = seeded_run(mlflow);
	air_interrupt *intr = NULL;
	air_metrics_options *o = opts(2, true, 1);
	air_metric_iter *it = NULL;
	const air_metric_point *pt;
	air_error *err = NULL;
	drained d = {{0}, 0, 0};
	int rc, interrupts = 0;

	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_interrupt(o, intr), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_poll_cb(o, interrupt_on_poll, intr), AIR_OK);
	ASSERT_OK(air_client_open_metric_history(client, id, "loss", o, &it, &err), err);
	for (;;) {
		rc = air_metric_iter_next(it, &pt, &err);
		if (rc == AIR_OK) {
			describe(&d, pt);
			continue;
		}
		if (rc != AIR_EINTERRUPTED)
			break;
		air_error_free(err);
		err = NULL;
		/* Between two polls: more points, and on the second stop the end. */
		if (++interrupts == 1)
			add_metrics(mlflow, "{\"metrics\":{\"loss\":[{\"value\":4,\"step\":3}]}}");
		else
			end_run(id, "FAILED");
		air_interrupt_reset(intr);
	}
	ASSERT_EQ_INT(rc, AIR_EDONE);
	ASSERT_EQ_INT(interrupts, 2);
	ASSERT_EQ_STR(d.text, "loss:0=1 loss:1=2 loss:2=3 loss:3=4");
	ASSERT_EQ_INT(air_metric_iter_run_state(it), AIR_STATE_FAILED);
	ASSERT_EQ_STR(air_metric_iter_run_state_name(it), "FAILED");
	ASSERT_EQ_STR(air_metric_iter_mlflow_run_id(it), mlflow);
	air_metric_iter_free(it);
	air_metrics_options_free(o);
	air_interrupt_free(intr);
}

static int stop_on_poll(const char *state, void *ud)
{
	(void)state;
	(void)ud;
	return 1;
}

AIR_TEST(metrics__the_poll_callback_stops_a_followed_history)
{
	char mlflow[64];
	int64_t id = active_run(mlflow);
	air_metrics_options *o = opts(0, true, 1);
	drained d;

	ASSERT_EQ_INT(air_metrics_options_set_poll_cb(o, stop_on_poll, NULL), AIR_OK);
	d = drain(id, "loss", o);
	ASSERT_EQ_INT(d.rc, AIR_EABORTED);
	air_metrics_options_free(o);
}

/* The peak resident size, reset first when the kernel allows it (VmHWM). */
static long peak_kib(bool reset)
{
	char line[128];
	long kib = -1;
	FILE *f;

	if (reset && (f = fopen("/proc/self/clear_refs", "w")) != NULL) {
		fputs("5", f);
		fclose(f);
	}
	if ((f = fopen("/proc/self/status", "r")) != NULL) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
				break;
		fclose(f);
	}
	return kib;
}

/* Sanitizers and valgrind keep freed memory around: sizes mean nothing there. */
static bool sizes_mean_something(void)
{
	const char *preload = getenv("LD_PRELOAD");

#if defined(__SANITIZE_ADDRESS__)
	return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return false;
#endif
#endif
	return !(preload && strstr(preload, "vgpreload"));
}

AIR_TEST(metrics__memory_stays_bounded_by_one_page_whatever_the_history)
{
	bool measure = sizes_mean_something();
	int64_t n = measure ? 250000 : 20000, page = 5000;
	char mlflow[64];
	int64_t id = finished_run(mlflow);
	air_metrics_options *o = opts(page, false, 10);
	air_metric_iter *it = NULL;
	const air_metric_point *pt;
	air_error *err = NULL;
	int64_t seen = 0, last_step = -1;
	long first = 0, end;
	int rc;

	fakews_configf(fw, "{\"record_requests\":false}");
	add_metrics(mlflow, "{\"synthetic\":{\"key\":\"loss\",\"count\":%lld}}", (long long)n);
	ASSERT_OK(air_client_open_metric_history(client, id, "loss", o, &it, &err), err);
	peak_kib(true);
	while ((rc = air_metric_iter_next(it, &pt, &err)) == AIR_OK) {
		ASSERT_EQ_INT(air_metric_point_step(pt), last_step + 1);
		last_step = air_metric_point_step(pt);
		/* After two pages: what one page costs is in the peak. */
		if (++seen == 2 * page)
			first = peak_kib(false);
	}
	end = peak_kib(false);
	ASSERT_EQ_INT(rc, AIR_EDONE);
	ASSERT_EQ_INT(seen, n);
	air_test_note("%lld points in pages of %lld: peak %ld KiB after two pages, %ld KiB at the end",
	              (long long)n, (long long)page, first, end);
	/* Holding the points alone would take 250000 * 32 bytes (7.6 MiB). */
	if (measure && first > 0)
		ASSERT_TRUE(end - first < 4 * 1024);
	air_metric_iter_free(it);
	air_metrics_options_free(o);
}
