/*
 * test_call_interrupts.c: every public call that can block stops when the
 * interrupt of its options is raised (AIR_EINTERRUPTED) and when the
 * deadline of its options passes (AIR_ETIMEOUT), while the fake workspace
 * holds every request for 30 s (or, for waits, while the run stays active).
 * The bound asserted is 10 s: far above the expected few milliseconds and far
 * below the 30 s the server would take, so a loaded machine cannot fail it
 * and a call that ignores its interrupt cannot pass.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "test.h"

AIR_TEST_HOOKS(fixture_setup, fixture_teardown)

#define HOLD_MS 30000        /* how long the server holds a request */
#define STOP_AFTER_MS 150    /* when the interrupt is raised */
#define DEADLINE_MS 300      /* the deadline of the deadline runs */
#define BOUND_MS 10000       /* the call must have returned by then */

static const char workload[] = "experiment_name: interrupts\n"
                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
                               "command: python train.py\n";

/* How a call is stopped: its options carry @intr and @deadline_ms. */
typedef struct stop {
	air_interrupt *intr;
	int64_t deadline_ms;
} stop;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void hold_every_request(void)
{
	fakews_faultf(fw, "{\"path\":\"/*\",\"action\":\"delay\",\"delay_ms\":%d,\"times\":-1}",
	              HOLD_MS);
}

static int64_t active_run(void)
{
	return fakews_create_runf(fw, "{\"start_time\":1700000000000,\"state\":{\"life_cycle_state\":"
	                              "\"RUNNING\"},\"tasks\":[{\"ai_runtime_task\":{}}]}");
}

static air_call_options *call_opts(const stop *s)
{
	air_call_options *o = NULL;

	ASSERT_EQ_INT(air_call_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_call_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_call_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	return o;
}

/* ---- the calls ------------------------------------------------------------------- */

static int do_resolve(const stop *s, air_error **err)
{
	air_client_options *co = fakews_client_options(fw);
	air_call_options *o = call_opts(s);
	air_client *c;
	int rc;

	/* PAT resolution contacts nobody: OAuth M2M needs the token endpoint. */
	fakews_configf(fw, "{\"oauth\":{\"clients\":{\"cid\":\"csecret\"}}}");
	ASSERT_EQ_INT(air_client_options_set_str(co, AIR_OPT_TOKEN, NULL), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_str(co, AIR_OPT_CLIENT_ID, "cid"), AIR_OK);
	ASSERT_EQ_INT(air_client_options_set_str(co, AIR_OPT_CLIENT_SECRET, "csecret"), AIR_OK);
	c = fakews_client_from(co);
	hold_every_request();
	rc = air_client_resolve(c, o, err);
	air_call_options_free(o);
	air_client_free(c);
	return rc;
}

static int do_current_user(const stop *s, air_error **err)
{
	air_call_options *o = call_opts(s);
	char *user = NULL;
	int rc;

	hold_every_request();
	rc = air_client_current_user(client, o, &user, err);
	air_free(user);
	air_call_options_free(o);
	return rc;
}

static int do_workspace_id(const stop *s, air_error **err)
{
	air_call_options *o = call_opts(s);
	int64_t id = 0;
	int rc;

	hold_every_request();
	rc = air_client_workspace_id(client, o, &id, err);
	air_call_options_free(o);
	return rc;
}

static int do_get_run(const stop *s, air_error **err)
{
	air_get_options *o = NULL;
	air_run *run = NULL;
	int rc;

	ASSERT_EQ_INT(air_get_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_get_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_get_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	hold_every_request();
	rc = air_client_get_run(client, fixture_std_run(123, "SUCCESS"), o, &run, err);
	air_run_free(run);
	air_get_options_free(o);
	return rc;
}

static air_list_options *list_opts(const stop *s)
{
	air_list_options *o = NULL;

	ASSERT_EQ_INT(air_list_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_list_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_list_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	return o;
}

static int do_list_open(const stop *s, air_error **err)
{
	air_list_options *o = list_opts(s);
	air_run_iter *it = NULL;
	int rc;

	hold_every_request();
	rc = air_client_list_runs(client, o, &it, err);
	air_run_iter_free(it);
	air_list_options_free(o);
	return rc;
}

static int do_list_next(const stop *s, air_error **err)
{
	air_list_options *o = list_opts(s);
	air_run_iter *it = NULL;
	const air_run *run;
	air_error *e = NULL;
	int rc;

	/* Opening reads the identity; the page comes with the first next. */
	ASSERT_OK(air_client_list_runs(client, o, &it, &e), e);
	hold_every_request();
	rc = air_run_iter_next(it, &run, err);
	air_run_iter_free(it);
	air_list_options_free(o);
	return rc;
}

static int do_cancel_run(const stop *s, air_error **err)
{
	air_call_options *o = call_opts(s);
	int rc;

	hold_every_request();
	rc = air_client_cancel_run(client, active_run(), o, err);
	air_call_options_free(o);
	return rc;
}

static int do_cancel_runs(const stop *s, air_error **err)
{
	air_call_options *o = call_opts(s);
	air_cancel_report *rep = NULL;
	int64_t ids[2];
	int rc;

	ids[0] = active_run();
	ids[1] = active_run();
	hold_every_request();
	rc = air_client_cancel_runs(client, ids, 2, o, &rep, err);
	ASSERT_NULL(rep);
	air_call_options_free(o);
	return rc;
}

static int do_cancel_all(const stop *s, air_error **err)
{
	air_call_options *o = call_opts(s);
	air_cancel_report *rep = NULL;
	int rc;

	active_run();
	hold_every_request();
	rc = air_client_cancel_all(client, o, &rep, err);
	ASSERT_NULL(rep);
	air_call_options_free(o);
	return rc;
}

static int do_list_pools(const stop *s, air_error **err)
{
	air_call_options *o = call_opts(s);
	air_pool_list *pools = NULL;
	int rc;

	hold_every_request();
	rc = air_client_list_pools(client, o, &pools, err);
	air_pool_list_free(pools);
	air_call_options_free(o);
	return rc;
}

static int do_get_pool(const stop *s, air_error **err)
{
	air_call_options *o = call_opts(s);
	air_pool *pool = NULL;
	int rc;

	hold_every_request();
	rc = air_client_get_pool(client, "p1", o, &pool, err);
	air_pool_free(pool);
	air_call_options_free(o);
	return rc;
}

static int do_mlflow_links(const stop *s, air_error **err)
{
	air_call_options *o = call_opts(s);
	char *run_url = NULL, *exp_url = NULL;
	int rc;
	int64_t id = active_run();

	/* The runs/get is answered; the polls of its output are held. */
	fakews_faultf(fw, "{\"path\":\"/api/2.2/jobs/runs/get-output\",\"action\":\"delay\","
	                  "\"delay_ms\":%d,\"times\":-1}", HOLD_MS);
	rc = air_client_poll_mlflow_links(client, id, 3, 10, o, &run_url, &exp_url, err);
	air_free(run_url);
	air_free(exp_url);
	air_call_options_free(o);
	return rc;
}

/* The output has no ids yet: the polls sleep an hour apart. */
static int do_mlflow_links_sleeping(const stop *s, air_error **err)
{
	air_call_options *o = call_opts(s);
	char *run_url = NULL, *exp_url = NULL, path[64];
	int64_t id = active_run();
	int rc;

	snprintf(path, sizeof(path), "/__fakews/runs/%lld/output", (long long)id);
	fixture_post(path, "%s", "{}");
	rc = air_client_poll_mlflow_links(client, id, 1000, 3600000, o, &run_url, &exp_url, err);
	ASSERT_NULL(run_url);
	air_call_options_free(o);
	return rc;
}

static air_wait_options *wait_opts(const stop *s, int64_t poll_ms)
{
	air_wait_options *o = NULL;

	ASSERT_EQ_INT(air_wait_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_wait_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_wait_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	ASSERT_EQ_INT(air_wait_options_set_int(o, AIR_WAIT_POLL_INTERVAL_MS, poll_ms), AIR_OK);
	return o;
}

/* A run that stays active: the wait sleeps between polls. */
static int do_wait_sleeping(const stop *s, air_error **err)
{
	air_wait_options *o = wait_opts(s, 60000);
	air_run *run = NULL;
	int rc = air_client_wait_run(client, active_run(), o, &run, err);

	ASSERT_NULL(run);
	air_wait_options_free(o);
	return rc;
}

/* The run read itself is held. */
static int do_wait_reading(const stop *s, air_error **err)
{
	air_wait_options *o = wait_opts(s, 10);
	air_run *run = NULL;
	int64_t id = active_run();
	int rc;

	hold_every_request();
	rc = air_client_wait_run(client, id, o, &run, err);
	air_wait_options_free(o);
	return rc;
}

static air_logs_options *logs_opts(const stop *s, int64_t poll_ms)
{
	air_logs_options *o = NULL;

	ASSERT_EQ_INT(air_logs_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, poll_ms), AIR_OK);
	return o;
}

static int do_logs_open(const stop *s, air_error **err)
{
	air_logs_options *o = logs_opts(s, 10);
	air_log_iter *it = NULL;
	int64_t id = active_run();
	int rc;

	hold_every_request();
	rc = air_client_open_logs(client, id, o, &it, err);
	ASSERT_NULL(it);
	air_logs_options_free(o);
	return rc;
}

static int next_of_opened(const stop *s, int64_t poll_ms, bool hold, air_error **err)
{
	air_logs_options *o = logs_opts(s, poll_ms);
	air_log_iter *it = NULL;
	const air_log_record *rec;
	air_error *e = NULL;
	int rc;

	ASSERT_OK(air_client_open_logs(client, active_run(), o, &it, &e), e);
	if (hold)
		hold_every_request();
	rc = air_log_iter_next(it, &rec, err);
	ASSERT_NULL(rec);
	air_log_iter_free(it);
	air_logs_options_free(o);
	return rc;
}

/* An active run without lines: next() reads a page (held by the server). */
static int do_logs_next_reading(const stop *s, air_error **err)
{
	return next_of_opened(s, 10, true, err);
}

/* An active run without lines: next() sleeps between polls. */
static int do_logs_next_sleeping(const stop *s, air_error **err)
{
	return next_of_opened(s, 60000, false, err);
}

static int do_stream_logs(const stop *s, air_error **err)
{
	air_logs_options *o = logs_opts(s, 60000);
	air_logs_summary *sum = NULL;
	int rc = air_client_stream_logs(client, active_run(), o, &sum, err);

	ASSERT_NULL(sum);
	air_logs_options_free(o);
	return rc;
}

static int do_download_logs(const stop *s, air_error **err)
{
	air_logs_options *o = logs_opts(s, 10);
	air_download_report *rep = NULL;
	int rc;

	hold_every_request();
	rc = air_client_download_logs(client, fixture_std_run(123, "SUCCESS"), air_test_tmpdir(), o,
	                              &rep, err);
	ASSERT_NULL(rep);
	air_logs_options_free(o);
	return rc;
}

/* A failure report held at runs/get, or (@logs) at the log of the failed
 * run, which runs/get has answered. */
static int failure_report(const stop *s, bool logs, air_error **err)
{
	air_failure_options *o = NULL;
	air_failure *f = NULL;
	int64_t id = fixture_std_run(123, "FAILED");
	int rc;

	ASSERT_EQ_INT(air_failure_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_failure_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_failure_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	if (logs)
		fakews_faultf(fw, "{\"path\":\"/api/2.0/ai-training/*\",\"action\":\"delay\","
		                  "\"delay_ms\":%d,\"times\":-1}", HOLD_MS);
	else
		hold_every_request();
	rc = air_client_get_failure(client, id, o, &f, err);
	ASSERT_NULL(f);
	air_failure_options_free(o);
	return rc;
}

static int do_failure(const stop *s, air_error **err) { return failure_report(s, false, err); }

static int do_failure_log(const stop *s, air_error **err) { return failure_report(s, true, err); }

static int do_submit(const stop *s, air_error **err)
{
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_config *cfg = NULL;
	air_error *e = NULL;
	int rc;

	ASSERT_OK(air_config_load_buffer(workload, strlen(workload), "w.yaml", NULL, &cfg, &e), e);
	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	hold_every_request();
	rc = air_client_submit(client, cfg, o, &sub, err);
	ASSERT_NULL(sub);
	air_submit_options_free(o);
	air_config_free(cfg);
	return rc;
}

static int sweep_with(const stop *s, bool only_submit, air_error **err)
{
	static const char *const lr[] = {"1", "2", "3"};
	air_sweep_options *o = NULL;
	air_sweep_points *p = NULL;
	air_sweep *out = NULL;
	air_config *cfg = NULL;
	air_error *e = NULL;
	int rc;

	ASSERT_OK(air_config_load_buffer(workload, strlen(workload), "w.yaml", NULL, &cfg, &e), e);
	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, "parameters.lr", lr, 3, &e), e);
	ASSERT_EQ_INT(air_sweep_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	if (only_submit)
		fakews_faultf(fw, "{\"path\":\"/api/2.2/jobs/runs/submit\",\"action\":\"delay\","
		              "\"delay_ms\":%d,\"times\":-1}", HOLD_MS);
	else
		hold_every_request();
	rc = air_client_submit_sweep(client, cfg, p, o, &out, err);
	/* stopped while sending: the outcome says no variant got a run */
	if (only_submit) {
		ASSERT_NOT_NULL(out);
		ASSERT_EQ_INT(air_sweep_failed_count(out), 3);
	} else {
		ASSERT_NULL(out);
	}
	air_sweep_free(out);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
	air_config_free(cfg);
	return rc;
}

static int do_sweep(const stop *s, air_error **err) { return sweep_with(s, false, err); }

static int do_sweep_sending(const stop *s, air_error **err) { return sweep_with(s, true, err); }

static int do_rerun(const stop *s, air_error **err)
{
	air_rerun_options *o = NULL;
	air_submission *sub = NULL;
	int rc;

	ASSERT_EQ_INT(air_rerun_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_rerun_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_rerun_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	hold_every_request();
	rc = air_client_rerun(client, 555, o, &sub, err);
	ASSERT_NULL(sub);
	air_rerun_options_free(o);
	return rc;
}

/* A docker that never finishes: the push kills it. */
static int do_push_image(const stop *s, air_error **err)
{
	static const char slow_docker[] = "#!/bin/sh\nexec sleep 30\n";
	air_image_push_options *o = NULL;
	char docker[4200], *uc = NULL;
	int rc;

	snprintf(docker, sizeof(docker), "%s/docker", air_test_tmpdir());
	air_test_write_file(docker, slow_docker, strlen(slow_docker));
	{
		char cmd[4300];
		snprintf(cmd, sizeof(cmd), "chmod +x '%s'", docker);
		ASSERT_EQ_INT(system(cmd), 0);
	}
	ASSERT_EQ_INT(air_image_push_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_SOURCE, "img:1"), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_CATALOG, "main"), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_SCHEMA, "ml"), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_REGISTRY_HOST, "r.container.example"),
	              AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_str(o, AIR_IMAGE_DOCKER, docker), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_image_push_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	rc = air_client_push_image(client, o, &uc, NULL, err);
	ASSERT_NULL(uc);
	air_image_push_options_free(o);
	return rc;
}

/* A registration whose request is held, or (@pending) that stays PENDING, so
 * that the call sleeps between its reads. */
static int register_image(const stop *s, bool pending, air_error **err)
{
	air_register_image_options *o = NULL;
	air_image_registration *r = NULL;
	int rc;

	ASSERT_EQ_INT(air_register_image_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_int(o, AIR_REGISTER_DISCOVER, 0), AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_interrupt(o, s->intr), AIR_OK);
	ASSERT_EQ_INT(air_register_image_options_set_deadline_ms(o, s->deadline_ms), AIR_OK);
	if (pending) {
		json_decref(fakews_callf(fw, "POST", "/__fakews/images",
		                         "{\"images\":{\"reg.example/team/img:1\":{\"registered\":false,"
		                         "\"on_register\":{\"state\":\"PENDING\"}}}}"));
		ASSERT_EQ_INT(air_register_image_options_set_int(o, AIR_REGISTER_POLL_INTERVAL_MS,
		                                                 HOLD_MS),
		              AIR_OK);
	} else {
		hold_every_request();
	}
	rc = air_client_register_image(client, "reg.example/team/img:1", o, &r, err);
	ASSERT_NULL(r);
	air_register_image_options_free(o);
	return rc;
}

static int do_register_image(const stop *s, air_error **err)
{
	return register_image(s, false, err);
}

static int do_register_image_sleeping(const stop *s, air_error **err)
{
	return register_image(s, true, err);
}

static const struct {
	const char *name;
	int (*run)(const stop *s, air_error **err);
} calls[] = {
	{"air_client_resolve", do_resolve},
	{"air_client_current_user", do_current_user},
	{"air_client_workspace_id", do_workspace_id},
	{"air_client_get_run", do_get_run},
	{"air_client_list_runs", do_list_open},
	{"air_run_iter_next", do_list_next},
	{"air_client_cancel_run", do_cancel_run},
	{"air_client_cancel_runs", do_cancel_runs},
	{"air_client_cancel_all", do_cancel_all},
	{"air_client_list_pools", do_list_pools},
	{"air_client_get_pool", do_get_pool},
	{"air_client_poll_mlflow_links", do_mlflow_links},
	{"air_client_poll_mlflow_links (sleeping)", do_mlflow_links_sleeping},
	{"air_client_wait_run (sleeping)", do_wait_sleeping},
	{"air_client_wait_run (reading)", do_wait_reading},
	{"air_client_open_logs", do_logs_open},
	{"air_log_iter_next (reading)", do_logs_next_reading},
	{"air_log_iter_next (sleeping)", do_logs_next_sleeping},
	{"air_client_stream_logs", do_stream_logs},
	{"air_client_download_logs", do_download_logs},
	{"air_client_get_failure", do_failure},
	{"air_client_get_failure (log)", do_failure_log},
	{"air_client_submit", do_submit},
	{"air_client_submit_sweep", do_sweep},
	{"air_client_submit_sweep (sending)", do_sweep_sending},
	{"air_client_rerun", do_rerun},
	{"air_client_push_image", do_push_image},
	{"air_client_register_image", do_register_image},
	{"air_client_register_image (sleeping)", do_register_image_sleeping},
};

/* ---- the runs ---------------------------------------------------------------------- */

typedef struct trigger {
	air_interrupt *intr;
	int64_t fired_ms;
} trigger;

static void *trigger_later(void *p)
{
	trigger *t = p;

	usleep(STOP_AFTER_MS * 1000);
	t->fired_ms = now_ms();
	air_interrupt_trigger(t->intr);
	return NULL;
}

AIR_TEST(call_interrupts__every_blocking_call_stops_on_its_interrupt)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		stop s = {NULL, 0};
		trigger t;
		pthread_t th;
		air_error *err = NULL;
		int64_t t0, took;
		int rc;

		fakews_reset(fw);
		ASSERT_EQ_INT(air_interrupt_new(&s.intr), AIR_OK);
		t = (trigger){s.intr, 0};
		t0 = now_ms();
		ASSERT_EQ_INT(pthread_create(&th, NULL, trigger_later, &t), 0);
		rc = calls[i].run(&s, &err);
		took = now_ms() - t0;
		pthread_join(th, NULL);
		air_test_note("%s: %s after %lld ms (%lld ms after the interrupt)", calls[i].name,
		              air_status_name(rc), (long long)took, (long long)(now_ms() - t.fired_ms));
		if (rc != AIR_EINTERRUPTED)
			FAIL("%s returned %s: %s", calls[i].name, air_status_name(rc),
			     err ? air_error_message(err) : "(no error)");
		ASSERT_NOT_NULL(err);
		ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_ABORTED);
		ASSERT_TRUE(took < BOUND_MS);
		air_error_free(err);
		air_interrupt_free(s.intr);
	}
}

AIR_TEST(call_interrupts__every_blocking_call_honours_its_deadline)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		stop s = {NULL, DEADLINE_MS};
		air_error *err = NULL;
		int64_t t0, took;
		int rc;

		fakews_reset(fw);
		t0 = now_ms();
		rc = calls[i].run(&s, &err);
		took = now_ms() - t0;
		air_test_note("%s: %s after %lld ms", calls[i].name, air_status_name(rc),
		              (long long)took);
		if (rc != AIR_ETIMEOUT)
			FAIL("%s returned %s: %s", calls[i].name, air_status_name(rc),
			     err ? air_error_message(err) : "(no error)");
		ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
		ASSERT_TRUE(air_error_retryable(err));
		/* The deadline is a lower bound too: nothing ends it early. */
		ASSERT_TRUE(took >= DEADLINE_MS - 5);
		ASSERT_TRUE(took < BOUND_MS);
		air_error_free(err);
	}
}

AIR_TEST(call_interrupts__a_raised_interrupt_stops_a_call_before_it_starts)
{
	stop s = {NULL, 0};
	air_error *err = NULL;

	ASSERT_EQ_INT(air_interrupt_new(&s.intr), AIR_OK);
	air_interrupt_trigger(s.intr);
	ASSERT_EQ_INT(do_get_run(&s, &err), AIR_EINTERRUPTED);
	air_error_free(err);
	/* Lowered again, the same interrupt lets calls through. */
	air_interrupt_reset(s.intr);
	fakews_reset(fw);
	{
		air_get_options *o = NULL;
		air_run *run = NULL;
		ASSERT_EQ_INT(air_get_options_new(&o), AIR_OK);
		ASSERT_EQ_INT(air_get_options_set_interrupt(o, s.intr), AIR_OK);
		ASSERT_OK(air_client_get_run(client, fixture_std_run(123, "SUCCESS"), o, &run, &err), err);
		air_run_free(run);
		air_get_options_free(o);
	}
	air_interrupt_free(s.intr);
}

/* An interrupted log iterator goes on where it stopped, once lowered. */
AIR_TEST(call_interrupts__an_interrupted_log_iterator_resumes)
{
	air_logs_options *o = NULL;
	air_interrupt *intr = NULL;
	air_log_iter *it = NULL;
	const air_log_record *rec;
	air_error *err = NULL;
	int64_t id = fakews_create_runf(
		fw, "{\"start_time\":1700000000000,\"state\":{\"life_cycle_state\":\"RUNNING\"},"
		    "\"tasks\":[{\"ai_runtime_task\":{}}],\"sequence\":[{},{},{},{\"state\":{"
		    "\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"SUCCESS\"},\"end_time\":"
		    "1700000009000}]}");
	char path[64];
	int lines = 0;

	snprintf(path, sizeof(path), "/__fakews/runs/%lld/logs", (long long)id);
	fixture_post(path, "%s", "{\"records\":[{\"time_unix_nano\":1700000001000000000,"
	                         "\"body\":\"a\"},{\"time_unix_nano\":1700000002000000000,"
	                         "\"body\":\"b\"}]}");
	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_interrupt(o, intr), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, 5), AIR_OK);
	ASSERT_OK(air_client_open_logs(client, id, o, &it, &err), err);
	ASSERT_OK(air_log_iter_next(it, &rec, &err), err);
	ASSERT_EQ_STR(air_log_record_line(rec, NULL), "a");
	ASSERT_OK(air_log_iter_next(it, &rec, &err), err);
	ASSERT_EQ_STR(air_log_record_line(rec, NULL), "b");
	/* The next step (a poll) is interrupted before it starts... */
	air_interrupt_trigger(intr);
	ASSERT_EQ_INT(air_log_iter_next(it, &rec, &err), AIR_EINTERRUPTED);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_log_iter_next(it, &rec, &err), AIR_EINTERRUPTED);
	air_error_free(err);
	err = NULL;
	/* ... and, lowered, the iteration ends normally, nothing repeated. */
	air_interrupt_reset(intr);
	while (air_log_iter_next(it, &rec, &err) == AIR_OK)
		lines++;
	ASSERT_NULL(err);
	ASSERT_EQ_INT(lines, 0);
	ASSERT_EQ_INT(air_logs_summary_records(air_log_iter_summary(it)), 2);
	ASSERT_EQ_INT(air_logs_summary_state(air_log_iter_summary(it)), AIR_STATE_SUCCESS);
	air_log_iter_free(it);
	air_logs_options_free(o);
	air_interrupt_free(intr);
}

AIR_TEST(call_interrupts__the_wakeup_descriptor_raises_the_interrupt)
{
	air_interrupt *intr = NULL;
	int fd;

	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	fd = air_interrupt_wakeup_fd(intr);
	ASSERT_TRUE(fd >= 0);
	ASSERT_FALSE(air_interrupt_is_triggered(intr));
	ASSERT_EQ_INT(write(fd, "x", 1), 1);
	ASSERT_TRUE(air_interrupt_is_triggered(intr));
	air_interrupt_reset(intr);
	ASSERT_FALSE(air_interrupt_is_triggered(intr));
	ASSERT_EQ_INT(air_interrupt_wakeup_fd(NULL), -1);
	air_interrupt_free(intr);
	air_interrupt_free(NULL);
}
