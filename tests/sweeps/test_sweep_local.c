/* test_sweep_local.c: sweeps and reruns on the local workspace (local://):
 * variants run as local runs, at most max-parallel at a time (one by
 * default), within the local node limit; a past local run rerun. The
 * variants' commands log when they start and end to one file: the order of
 * those lines, not their timing, shows how many ran at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <air/air.h>

#include "local_support.h"
#include "test.h"

AIR_TEST_HOOKS(NULL, local_end)

static const char *log_path(const char *state)
{
	static char buf[4200];

	snprintf(buf, sizeof(buf), "%s/order.log", state);
	return buf;
}

/* A workload whose node appends "start V" and "end V" to the order log. */
static air_config *logging_workload(const char *state)
{
	char yaml[8192];

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: local-sweep\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "max_retries: 0\n"
	         "env_variables: {V: none, LOG: %s}\n"
	         "parameters: {lr: 0.1}\n"
	         "command: |\n"
	         "  echo \"start $V\" >> \"$LOG\"\n"
	         "  sleep 0.3\n"
	         "  echo \"end $V\" >> \"$LOG\"\n",
	         log_path(state));
	return local_config(yaml, state);
}

static air_sweep_points *values(const char *path, const char *const *v, size_t n)
{
	air_sweep_points *p = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_points_new(&p), AIR_OK);
	ASSERT_OK(air_sweep_points_add_axis(p, path, v, n, &err), err);
	return p;
}

/* The most variants running at once according to the order log. */
static int most_at_once(const char *state, int expect_lines)
{
	char *text = air_test_read_file(log_path(state), NULL);
	int going = 0, most = 0, lines = 0;

	ASSERT_TRUE(text != NULL);
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n"), lines++) {
		going += strncmp(l, "start", 5) == 0 ? 1 : -1;
		if (going > most)
			most = going;
	}
	air_test_note("order log: %d lines, at most %d at once", lines, most);
	ASSERT_EQ_INT(lines, expect_lines);
	free(text);
	return most;
}

static void wait_all(air_client *c, const air_sweep *s)
{
	for (size_t i = 0; i < air_sweep_count(s); i++) {
		air_run *run = local_wait(c, air_sweep_variant_run_id(s, i));
		ASSERT_TRUE(air_run_succeeded(run));
		air_run_free(run);
	}
}

AIR_TEST(sweep_local__variants_run_one_at_a_time_by_default)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = logging_workload(state);
	static const char *const v[] = {"a", "b", "c"};
	air_sweep_points *p = values("env_variables.V", v, 3);
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_submit_sweep(c, cfg, p, NULL, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 0);
	ASSERT_EQ_STR(air_sweep_variant_run_name(s, 2), "local-sweep V=c");
	wait_all(c, s);
	ASSERT_EQ_INT(most_at_once(state, 6), 1);
	air_sweep_free(s);
	air_sweep_points_free(p);
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(sweep_local__at_most_max_parallel_at_a_time)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = logging_workload(state);
	static const char *const v[] = {"a", "b", "c", "d", "e"};
	air_sweep_points *p = values("env_variables.V", v, 5);
	air_sweep_options *o = NULL;
	air_sweep *s = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_sweep_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, 2), AIR_OK);
	ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &s, &err), err);
	wait_all(c, s);
	ASSERT_TRUE(most_at_once(state, 10) <= 2);
	/* submitting it again starts nothing new */
	{
		air_sweep *again = NULL;
		ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &again, &err), err);
		for (size_t i = 0; i < 5; i++)
			ASSERT_EQ_INT(air_sweep_variant_run_id(again, i), air_sweep_variant_run_id(s, i));
		air_sweep_free(again);
	}
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* Cancels the run of variant 0 once it is submitted, through a client of
 * its own (as `air cancel --sweep` would from another terminal). */
static int cancel_first(const air_sweep *s, size_t i, void *state)
{
	air_client *other;
	air_error *err = NULL;
	int rc;

	if (i != 0 || air_sweep_variant_status(s, 0) != AIR_VARIANT_SUBMITTED)
		return 0;
	other = local_client(state);
	rc = air_client_cancel_run(other, air_sweep_variant_run_id(s, 0), NULL, &err);
	air_error_free(err);
	air_client_free(other);
	return rc == AIR_OK ? 0 : 1; /* a failed cancel stops the sweep: the test fails */
}

/* A run of the sweep cancelled while the sweep waits for it stops the
 * sweep: the variants not yet sent are not submitted, and say why. The
 * variants would run until cancelled: only the cancel can end one. */
AIR_TEST(sweep_local__a_cancelled_run_stops_the_sweep)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: local-sweep\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "max_retries: 0\n"
	                               "env_variables: {V: none}\n"
	                               "command: exec sleep 600\n",
	                               state);
	static const char *const v[] = {"a", "b", "c"};
	air_sweep_points *p = values("env_variables.V", v, 3);
	air_sweep_options *o = NULL;
	air_sweep *s = NULL;
	air_error *err = NULL;
	air_run *run;
	const air_error *why;

	ASSERT_EQ_INT(air_sweep_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, cancel_first, (void *)state), AIR_OK);
	ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_variant_status(s, 0), AIR_VARIANT_SUBMITTED);
	run = local_wait(c, air_sweep_variant_run_id(s, 0));
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_CANCELED);
	air_run_free(run);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 2);
	for (size_t i = 1; i < 3; i++) {
		ASSERT_EQ_INT(air_sweep_variant_status(s, i), AIR_VARIANT_FAILED);
		ASSERT_EQ_INT(air_sweep_variant_run_id(s, i), 0);
		why = air_sweep_variant_error(s, i);
		ASSERT_EQ_INT(air_error_code(why), AIR_EABORTED);
		ASSERT_TRUE(strstr(air_error_message(why), "of the sweep was cancelled") != NULL);
	}
	ASSERT_EQ_INT(air_sweep_variant_run_id(s, 1), 0); /* b and c never started */
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* Stops the sweep (base key "stop-me") from another client, once, when
 * variant @index reaches @status. */
typedef struct stop_at {
	const char *state;
	size_t index;
	int32_t status;
	int stops;
} stop_at;

static int stop_the_sweep(const air_sweep *s, size_t i, void *ud)
{
	stop_at *at = ud;
	air_client *other;
	air_error *err = NULL;
	int rc;

	if (i != at->index || air_sweep_variant_status(s, i) != at->status || at->stops++)
		return 0;
	other = local_client(at->state);
	rc = air_client_stop_sweep(other, "stop-me", NULL, &err);
	air_error_free(err);
	air_client_free(other);
	return rc == AIR_OK ? 0 : 1;
}

/* A sweep of three variants of `exec sleep 600` stopped by @at; what it
 * submitted, checked: variants before @submitted ran, the others failed
 * "was stopped" without a run. */
static void stopped_sweep(stop_at *at, size_t submitted)
{
	air_client *c = local_begin(&at->state);
	air_config *cfg = local_config("experiment_name: local-sweep\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "max_retries: 0\n"
	                               "env_variables: {V: none}\n"
	                               "command: exec sleep 600\n",
	                               at->state);
	static const char *const v[] = {"a", "b", "c"};
	air_sweep_points *p = values("env_variables.V", v, 3);
	air_sweep_options *o = NULL;
	air_cancel_report *rep = NULL;
	air_sweep *s = NULL;
	air_error *err = NULL;
	int64_t first;

	ASSERT_EQ_INT(air_sweep_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_str(o, AIR_SWEEP_BASE_KEY, "stop-me"), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, stop_the_sweep, at), AIR_OK);
	ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &s, &err), err);
	ASSERT_EQ_INT(at->stops, 1);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 3 - submitted);
	for (size_t i = 0; i < 3; i++) {
		const air_error *why = air_sweep_variant_error(s, i);

		if (i < submitted) {
			ASSERT_EQ_INT(air_sweep_variant_status(s, i), AIR_VARIANT_SUBMITTED);
			continue;
		}
		ASSERT_EQ_INT(air_sweep_variant_status(s, i), AIR_VARIANT_FAILED);
		ASSERT_EQ_INT(air_sweep_variant_run_id(s, i), 0);
		ASSERT_EQ_INT(air_error_code(why), AIR_EABORTED);
		ASSERT_CONTAINS(air_error_message(why), "not submitted: sweep stop-me was stopped");
	}
	/* The same sweep again submits nothing more (the stop stays), and
	 * shows the run it had. */
	first = submitted ? air_sweep_variant_run_id(s, 0) : 0;
	air_sweep_free(s);
	s = NULL;
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, NULL, NULL), AIR_OK);
	ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 3 - submitted);
	ASSERT_EQ_INT(air_sweep_variant_run_id(s, 0), first);
	/* A plain rerun of a variant's run shares its launch directory, not
	 * its key: not refused. */
	if (submitted) {
		air_submission *rerun = NULL;
		ASSERT_OK(air_client_rerun(c, first, NULL, &rerun, &err), err);
		ASSERT_NE_INT(air_submission_run_id(rerun), first);
		air_submission_free(rerun);
		submitted++; /* cancelled below with the sweep's */
	}
	/* Its runs: those started, cancelled with the sweep. */
	ASSERT_OK(air_client_cancel_sweep(c, "stop-me", NULL, &rep, &err), err);
	ASSERT_EQ_INT(air_cancel_report_count(rep), submitted);
	ASSERT_EQ_INT(air_cancel_report_failures(rep), 0);
	air_cancel_report_free(rep);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
	air_config_free(cfg);
	local_check_supervisors(at->state);
}

/* Stopped while its first run goes: the sweep, waiting for a free place,
 * looks at its mark before the next variant and submits none. */
AIR_TEST(sweep_local__a_stop_between_runs_ends_the_sweep)
{
	stop_at at = {NULL, 0, AIR_VARIANT_SUBMITTED, 0};

	stopped_sweep(&at, 1);
}

/* Stopped after the batch's look, while the variant's launch directory is
 * written: runs/submit of the local workspace refuses it under its state
 * lock, and the sweep reports it not submitted, as the rest. */
AIR_TEST(sweep_local__runs_submit_refuses_a_variant_of_a_stopped_sweep)
{
	stop_at at = {NULL, 0, AIR_VARIANT_UPLOADING, 0};

	stopped_sweep(&at, 0);
}

/* Once variant 0 is submitted: `air cancel --sweep later` from another
 * client (the stop, then variant 0's run cancelled). */
static int cancel_the_sweep(const air_sweep *s, size_t i, void *state)
{
	air_client *other;
	air_cancel_report *rep = NULL;
	air_error *err = NULL;
	int rc;

	if (i != 0 || air_sweep_variant_status(s, 0) != AIR_VARIANT_SUBMITTED)
		return 0;
	other = local_client(state);
	rc = air_client_cancel_sweep(other, "later", NULL, &rep, &err);
	air_cancel_report_free(rep);
	air_error_free(err);
	air_client_free(other);
	return rc == AIR_OK ? 0 : 1;
}

/* A local sweep stopped by `air cancel --sweep` while its first run went,
 * then resumed (AIR_SWEEP_RESUME): its run cancelled before the call only
 * frees its place, and the variants not submitted run, each once. Without
 * the option it stays stopped. */
AIR_TEST(sweep_local__a_resumed_sweep_runs_its_variants)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = logging_workload(state);
	static const char *const v[] = {"a", "b", "c"};
	air_sweep_points *p = values("env_variables.V", v, 3);
	air_sweep_options *o = NULL;
	air_sweep *s = NULL;
	air_error *err = NULL;
	int64_t first;

	ASSERT_EQ_INT(air_sweep_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_str(o, AIR_SWEEP_BASE_KEY, "later"), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, cancel_the_sweep, (void *)state), AIR_OK);
	ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 2);
	first = air_sweep_variant_run_id(s, 0);
	ASSERT_TRUE(first > 0);
	air_sweep_free(s);
	s = NULL;
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, NULL, NULL), AIR_OK);
	ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 2); /* the stop stays */
	air_sweep_free(s);
	s = NULL;
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_RESUME, 1), AIR_OK);
	ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &s, &err), err);
	ASSERT_EQ_INT(air_sweep_resumed(s), 1);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 0);
	ASSERT_EQ_INT(air_sweep_variant_run_id(s, 0), first);
	for (size_t i = 1; i < 3; i++) {
		air_run *run = local_wait(c, air_sweep_variant_run_id(s, i));
		ASSERT_TRUE(air_run_succeeded(run));
		air_run_free(run);
	}
	/* Again, with and without the option: nothing to undo, and the run
	 * cancelled by the earlier stop stops it no more; nothing new starts. */
	for (int resume = 1; resume >= 0; resume--) {
		air_sweep_free(s);
		s = NULL;
		ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_RESUME, resume), AIR_OK);
		ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &s, &err), err);
		ASSERT_EQ_INT(air_sweep_resumed(s), 0);
		ASSERT_EQ_INT(air_sweep_failed_count(s), 0);
		for (size_t i = 0; i < 3; i++)
			ASSERT_NE_INT(air_sweep_variant_run_id(s, i), 0);
	}
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* Once both are submitted and variant 0's node has set its TERM trap (it
 * writes "trapped"): cancels variant 0's run, then lets variant 1's end (it
 * waits for the file "go"), both files in the state directory. */
static int cancel_first_then_end_second(const air_sweep *s, size_t i, void *state)
{
	air_client *other;
	air_error *err = NULL;
	char go[4200], trapped[4200];
	int rc;

	if (i != 1 || air_sweep_variant_status(s, 1) != AIR_VARIANT_SUBMITTED)
		return 0;
	snprintf(trapped, sizeof(trapped), "%s/trapped", (const char *)state);
	local_read_pid(trapped); /* waits for the file */
	other = local_client(state);
	rc = air_client_cancel_run(other, air_sweep_variant_run_id(s, 0), NULL, &err);
	air_error_free(err);
	air_client_free(other);
	snprintf(go, sizeof(go), "%s/go", (const char *)state);
	air_test_write_file(go, "", 0);
	return rc == AIR_OK ? 0 : 1;
}

/* A place freed while another run of the sweep is being cancelled is not
 * taken: variant 1 ends while variant 0, cancelled first, takes seconds to
 * stop (its TERM trap); the sweep waits for it, sees the cancellation and
 * starts nothing more. A run is TERMINATING as soon as its cancellation is
 * requested. */
AIR_TEST(sweep_local__a_place_freed_while_a_run_is_cancelled_is_not_taken)
{
	const char *state;
	air_client *c = local_begin(&state);
	char yaml[8192];
	air_config *cfg;
	static const char *const v[] = {"a", "b", "c", "d"};
	air_sweep_points *p = values("env_variables.V", v, 4);
	air_sweep_options *o = NULL;
	air_sweep *s = NULL;
	air_error *err = NULL;
	air_run *run;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: local-sweep\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "max_retries: 0\n"
	         "env_variables: {V: none, GO: '%s/go', TRAPPED: '%s/trapped'}\n"
	         "command: |\n"
	         "  case $V in\n"
	         "  a) trap 'sleep 4; exit 0' TERM; echo $$ > \"$TRAPPED.tmp\"\n"
	         "     mv \"$TRAPPED.tmp\" \"$TRAPPED\"; sleep 600 & wait;;\n"
	         "  b) while [ ! -e \"$GO\" ]; do sleep 0.05; done;;\n"
	         "  esac\n", state, state);
	cfg = local_config(yaml, state);
	ASSERT_EQ_INT(air_sweep_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, 2), AIR_OK);
	ASSERT_EQ_INT(air_sweep_options_set_progress_cb(o, cancel_first_then_end_second,
	                                                (void *)state), AIR_OK);
	ASSERT_OK(air_client_submit_sweep(c, cfg, p, o, &s, &err), err);
	run = local_wait(c, air_sweep_variant_run_id(s, 0));
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_CANCELED);
	air_run_free(run);
	run = local_wait(c, air_sweep_variant_run_id(s, 1));
	ASSERT_TRUE(air_run_succeeded(run));
	air_run_free(run);
	ASSERT_EQ_INT(air_sweep_failed_count(s), 2);
	for (size_t i = 2; i < 4; i++) {
		ASSERT_EQ_INT(air_sweep_variant_run_id(s, i), 0);
		ASSERT_TRUE(strstr(air_error_message(air_sweep_variant_error(s, i)),
		                   "of the sweep was cancelled") != NULL);
	}
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(sweep_local__a_variant_beyond_the_node_limit_fails_before_anything_starts)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = logging_workload(state);
	static const char *const counts[] = {"1", "100000"};
	air_sweep_points *p = values("compute.num_accelerators", counts, 2);
	air_sweep *s = NULL;
	air_error *err = NULL;
	air_list_options *lo = NULL;
	air_run_iter *it = NULL;
	const air_run *run;

	ASSERT_NE_INT(air_client_submit_sweep(c, cfg, p, NULL, &s, &err), AIR_OK);
	ASSERT_NULL(s);
	ASSERT_CONTAINS(air_error_message(err), "variant 1");
	ASSERT_CONTAINS(air_error_message(err), "a local workspace runs at most");
	air_error_free(err);
	ASSERT_EQ_INT(air_list_options_new(&lo), AIR_OK);
	ASSERT_EQ_INT(air_list_options_set_int(lo, AIR_LIST_ALL_STATUS, 1), AIR_OK);
	ASSERT_OK(air_client_list_runs(c, lo, &it, &err), err);
	ASSERT_EQ_INT(air_run_iter_next(it, &run, &err), AIR_EDONE);
	air_run_iter_free(it);
	air_list_options_free(lo);
	air_sweep_points_free(p);
	air_config_free(cfg);
}

AIR_TEST(sweep_local__a_past_run_rerun_with_and_without_overrides)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: rerun-me\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "parameters: {lr: 0.1}\n"
	                               "command: cat \"$HYPERPARAMETERS_PATH\"\n",
	                               state);
	int64_t first = local_submit(c, cfg, NULL);
	air_rerun_options *o = NULL;
	air_submission *again = NULL;
	air_error *err = NULL;
	air_run *run;
	char *logs;

	air_run_free(local_wait(c, first));
	ASSERT_OK(air_client_rerun(c, first, NULL, &again, &err), err);
	run = local_wait(c, air_submission_run_id(again));
	ASSERT_TRUE(air_run_succeeded(run));
	ASSERT_EQ_STR(air_run_name(run), "rerun-me");
	air_run_free(run);
	logs = local_logs(c, air_submission_run_id(again), 0, -1);
	ASSERT_CONTAINS(logs, "lr: 0.1");
	free(logs);
	air_submission_free(again);

	ASSERT_EQ_INT(air_rerun_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_rerun_options_add_override(o, "parameters.lr=0.7"), AIR_OK);
	ASSERT_OK(air_client_rerun(c, first, o, &again, &err), err);
	run = local_wait(c, air_submission_run_id(again));
	ASSERT_TRUE(air_run_succeeded(run));
	ASSERT_EQ_STR(air_run_name(run), "rerun-me lr=0.7");
	air_run_free(run);
	/* Its MLflow run is named after it too: a workload that names none
	 * gets the Jobs run name, which tells the variants apart. */
	{
		air_get_options *g = NULL;

		ASSERT_EQ_INT(air_get_options_new(&g), AIR_OK);
		char path[4096], *text;

		ASSERT_EQ_INT(air_get_options_set_int(g, AIR_GET_MLFLOW_NAME, 1), AIR_OK);
		ASSERT_OK(air_client_get_run(c, air_submission_run_id(again), g, &run, &err), err);
		ASSERT_EQ_STR(air_run_mlflow_run_name(run), "rerun-me lr=0.7");
		/* And in the file store, as MLflow reads it: meta.yaml and the tag. */
		snprintf(path, sizeof(path), "%s/mlruns/%s/%s/meta.yaml", state,
		         air_run_mlflow_experiment_id(run), air_run_mlflow_run_id(run));
		ASSERT_NOT_NULL(text = air_test_read_file(path, NULL));
		ASSERT_CONTAINS(text, "\nrun_name: rerun-me lr=0.7\n");
		free(text);
		snprintf(path, sizeof(path), "%s/mlruns/%s/%s/tags/mlflow.runName", state,
		         air_run_mlflow_experiment_id(run), air_run_mlflow_run_id(run));
		ASSERT_NOT_NULL(text = air_test_read_file(path, NULL));
		ASSERT_EQ_STR(text, "rerun-me lr=0.7");
		free(text);
		air_run_free(run);
		air_get_options_free(g);
	}
	logs = local_logs(c, air_submission_run_id(again), 0, -1);
	ASSERT_CONTAINS(logs, "lr: 0.7");
	free(logs);
	/* its launch files are its config's: no warning */
	ASSERT_EQ_INT(air_submission_warning_count(again), 0);
	air_submission_free(again);
	air_rerun_options_free(o);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* A run submitted with an override its training_config.yaml does not hold
 * (`air run --override`: the file as read) and rerun, with other overrides
 * or none, runs with the first ones too: its launch files and what runs/get
 * shows of it are kept, and the submission says so. */
AIR_TEST(sweep_local__a_rerun_keeps_the_runs_own_overrides)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: overridden\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "parameters: {lr: 0.1, steps: 20}\n"
	                               "command: cat \"$HYPERPARAMETERS_PATH\"\n",
	                               state);
	air_rerun_options *o = NULL;
	air_submission *again = NULL;
	air_error *err = NULL;
	air_run *run;
	char *logs;
	int64_t first;

	ASSERT_OK(air_config_override(cfg, "parameters.steps=40", &err), err);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	first = local_submit(c, cfg, NULL);
	air_run_free(local_wait(c, first));
	ASSERT_EQ_INT(air_rerun_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_rerun_options_add_override(o, "parameters.lr=0.7"), AIR_OK);
	ASSERT_OK(air_client_rerun(c, first, o, &again, &err), err);
	ASSERT_EQ_INT(air_submission_warning_count(again), 1);
	ASSERT_CONTAINS(air_submission_warning(again, 0), "does not hold; this run keeps them "
	                                                  "(parameters)");
	air_run_free(local_wait(c, air_submission_run_id(again)));
	logs = local_logs(c, air_submission_run_id(again), 0, -1);
	ASSERT_CONTAINS(logs, "lr: 0.7");
	ASSERT_CONTAINS(logs, "steps: 40");
	free(logs);
	air_submission_free(again);

	/* Settings no launch file holds are kept from what runs/get says the
	 * run had, also by a rerun without overrides. */
	ASSERT_OK(air_config_override(cfg, "compute.num_accelerators=2", &err), err);
	ASSERT_OK(air_config_override(cfg, "max_retries=1", &err), err);
	ASSERT_OK(air_config_override(cfg, "timeout_minutes=30", &err), err);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	first = local_submit(c, cfg, NULL);
	air_run_free(local_wait(c, first));
	ASSERT_OK(air_client_rerun(c, first, o, &again, &err), err);
	ASSERT_EQ_INT(air_submission_warning_count(again), 1);
	ASSERT_CONTAINS(air_submission_warning(again, 0),
	                "(compute.num_accelerators, max_retries, timeout_minutes, parameters)");
	run = local_wait(c, air_submission_run_id(again));
	ASSERT_EQ_INT(air_run_accelerator_count(run), 2);
	air_run_free(run);
	air_submission_free(again);
	ASSERT_OK(air_client_rerun(c, first, NULL, &again, &err), err);
	ASSERT_CONTAINS(air_submission_warning(again, 0),
	                "(compute.num_accelerators, max_retries, timeout_minutes, parameters)");
	run = local_wait(c, air_submission_run_id(again));
	ASSERT_EQ_INT(air_run_accelerator_count(run), 2);
	ASSERT_EQ_INT(air_run_max_retries(run), 1);
	air_run_free(run);
	logs = local_logs(c, air_submission_run_id(again), 0, -1);
	ASSERT_CONTAINS(logs, "steps: 40");
	free(logs);
	air_submission_free(again);
	air_rerun_options_free(o);
	air_config_free(cfg);
	local_check_supervisors(state);
}
