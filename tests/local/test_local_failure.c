/*
 * test_local_failure.c: why a local run failed (air_client_get_failure(),
 * docs/local.md): a Python error, a failure without a traceback, an alert
 * line, the failing node of two, the last of three attempts, a timeout, a
 * cancellation, a long log read as a tail, and runs that did not fail. The
 * runs are real processes; the tests wait for states, never for time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <air/air.h>

#include "local_support.h"
#include "test.h"

AIR_TEST_HOOKS(NULL, local_end)

/* Run @command (one node unless @nodes) to its end; returns the run id. */
static int64_t run_to_end(air_client *c, const char *state, int nodes, const char *command,
                          const char *extra)
{
	char yaml[4096];
	air_config *cfg;
	air_run *run;
	int64_t id;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: failing\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: %d}\n"
	         "command: |\n%s%s",
	         nodes, command, extra ? extra : "max_retries: 0\n");
	cfg = local_config(yaml, state);
	id = local_submit(c, cfg, NULL);
	run = local_wait(c, id);
	air_run_free(run);
	air_config_free(cfg);
	return id;
}

static air_failure *failure_of(air_client *c, int64_t id, const air_failure_options *o)
{
	air_failure *f = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_client_get_failure(c, id, o, &f, &err), err);
	ASSERT_NOT_NULL(f);
	return f;
}

/* The state directory of the running test (local_begin()). */
static const char *state;

/* Start the test, run @command to its end, and read its failure. */
static air_failure *failure_after(int nodes, const char *command, const char *extra)
{
	air_client *c = local_begin(&state);

	return failure_of(c, run_to_end(c, state, nodes, command, extra), NULL);
}

/* Release @f; the supervisors logged nothing. */
static void finish(air_failure *f)
{
	air_failure_free(f);
	local_check_supervisors(state);
}

static const char *last_line(const air_failure *f)
{
	size_t n = air_failure_excerpt_count(f);
	return n ? air_failure_excerpt_line(f, n - 1, NULL) : NULL;
}

AIR_TEST(local_failure__a_python_error_gives_its_traceback)
{
	air_failure *f = failure_after(1,
	                               "  echo \"loading data\"\n"
	                               "  \"${PYTHON:-python3}\" -c 'print(\"step 1\", flush=True); 1 / 0'\n",
	                               NULL);

	ASSERT_EQ_INT(air_failure_state(f), AIR_STATE_FAILED);
	ASSERT_EQ_STR(air_failure_message(f), "node 0 exited with status 1");
	ASSERT_EQ_STR(air_failure_state_message(f), "node 0 exited with status 1");
	ASSERT_EQ_STR(air_failure_termination_code(f), "RUN_EXECUTION_ERROR");
	ASSERT_EQ_STR(air_failure_termination_type(f), "CLIENT_ERROR");
	ASSERT_EQ_STR(air_failure_termination_message(f), "node 0 exited with status 1");
	ASSERT_EQ_INT(air_failure_node(f), 0);
	ASSERT_EQ_INT(air_failure_node_source(f), AIR_NODE_SOURCE_REPORTED);
	ASSERT_EQ_INT(air_failure_attempt(f), 0);
	ASSERT_EQ_INT(air_failure_attempts_allowed(f), 1);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 0, NULL), "Traceback (most recent call last):");
	ASSERT_EQ_STR(last_line(f), "ZeroDivisionError: division by zero");
	ASSERT_NULL(air_failure_excerpt_problem(f));
	ASSERT_NULL(air_failure_alert_label(f));
	finish(f);
}

AIR_TEST(local_failure__without_a_traceback_the_last_lines)
{
	air_failure *f = failure_after(1,
	                               "  for i in $(seq 1 30); do echo \"line $i\"; done\n"
	                               "  exit 3\n",
	                               NULL);

	ASSERT_EQ_STR(air_failure_message(f), "node 0 exited with status 3");
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TAIL);
	ASSERT_EQ_INT(air_failure_excerpt_count(f), 20);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 0, NULL), "line 11");
	ASSERT_EQ_STR(last_line(f), "line 30");
	finish(f);
}

AIR_TEST(local_failure__an_alert_line_labels_the_excerpt)
{
	air_failure *f = failure_after(1,
	                               "  for i in 1 2 3 4 5; do echo \"step $i\"; done\n"
	                               "  echo \"RuntimeError: CUDA out of memory. Tried to allocate 9 GiB\"\n"
	                               "  echo \"cleaning up\"\n"
	                               "  exit 1\n",
	                               NULL);

	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_ALERT);
	ASSERT_EQ_STR(air_failure_alert_label(f), "CUDA out of memory");
	ASSERT_EQ_INT(air_failure_alert_pattern(f), 1);
	ASSERT_EQ_INT(air_failure_excerpt_count(f), 5);
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 0, NULL), "step 3");
	ASSERT_EQ_STR(air_failure_excerpt_line(f, 3, NULL),
	              "RuntimeError: CUDA out of memory. Tried to allocate 9 GiB");
	ASSERT_EQ_STR(last_line(f), "cleaning up");
	finish(f);
}

/* Node 1 fails; node 0 is stopped with the attempt. The report is about
 * node 1, which the local workspace names. */
AIR_TEST(local_failure__the_node_that_failed_of_two)
{
	air_failure *f = failure_after(2,
	                               "  if [ \"$NODE_RANK\" = 1 ]; then\n"
	                               "    \"${PYTHON:-python3}\" -c 'raise ValueError(\"bad shard 7\")' "
	                               "|| exit\n"
	                               "  fi\n"
	                               "  echo \"node $NODE_RANK waits\"; exec sleep 300\n",
	                               NULL);

	ASSERT_EQ_STR(air_failure_message(f), "node 1 exited with status 1");
	ASSERT_EQ_INT(air_failure_node(f), 1);
	ASSERT_EQ_INT(air_failure_node_source(f), AIR_NODE_SOURCE_REPORTED);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TRACEBACK);
	ASSERT_EQ_STR(last_line(f), "ValueError: bad shard 7");
	finish(f);
}

/* Every attempt fails; the report is about the third and last, and its log. */
AIR_TEST(local_failure__the_last_of_three_attempts)
{
	air_client *c = local_begin(&state);
	char command[1024];
	air_failure *f;
	int64_t id;

	snprintf(command, sizeof(command),
	         "  n=$(cat %s/tries 2>/dev/null || echo 0); echo $((n + 1)) > %s/tries\n"
	         "  \"${PYTHON:-python3}\" -c \"raise RuntimeError('attempt $n failed')\"\n",
	         state, state);
	/* Back-offs of a few milliseconds: the retries, not the machine, are tested. */
	setenv("AIR_LOCAL_MINUTE_MS", "60", 1);
	id = run_to_end(c, state, 1, command, "max_retries: 2\n");
	unsetenv("AIR_LOCAL_MINUTE_MS");
	f = failure_of(c, id, NULL);
	ASSERT_EQ_STR(air_failure_message(f), "node 0 exited with status 1 (attempt 3)");
	ASSERT_EQ_INT(air_failure_attempt(f), 2);
	ASSERT_EQ_INT(air_failure_attempts_allowed(f), 3);
	ASSERT_EQ_INT(air_failure_node(f), 0);
	ASSERT_EQ_STR(last_line(f), "RuntimeError: attempt 2 failed");
	finish(f);
}

AIR_TEST(local_failure__a_timed_out_run)
{
	air_client *c = local_begin(&state);
	air_failure *f;
	int64_t id;

	setenv("AIR_LOCAL_MINUTE_MS", "300", 1);
	id = run_to_end(c, state, 1, "  echo \"started\"\n  exec sleep 300\n",
	                "timeout_minutes: 1\nmax_retries: 0\n");
	unsetenv("AIR_LOCAL_MINUTE_MS");
	f = failure_of(c, id, NULL);
	ASSERT_EQ_INT(air_failure_state(f), AIR_STATE_TIMEDOUT);
	ASSERT_CONTAINS(air_failure_message(f), "timeout_minutes");
	ASSERT_EQ_STR(air_failure_termination_code(f), "CANCELED");
	/* No node named, one node: node 0 and its last lines. */
	ASSERT_EQ_INT(air_failure_node(f), 0);
	ASSERT_EQ_INT(air_failure_node_source(f), AIR_NODE_SOURCE_DEFAULT);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TAIL);
	ASSERT_EQ_STR(last_line(f), "started");
	finish(f);
}

/* While the run goes on there is no failure; once cancelled, there is. */
AIR_TEST(local_failure__a_cancelled_run)
{
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: cancelled\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: |\n  echo started\n  exec sleep 300\n",
	                               state);
	int64_t id = local_submit(c, cfg, NULL);
	air_failure *f = (air_failure *)1;
	air_error *err = NULL;

	local_wait_running(c, id);
	ASSERT_OK(air_client_get_failure(c, id, NULL, &f, &err), err);
	ASSERT_NULL(f);
	ASSERT_OK(air_client_cancel_run(c, id, NULL, &err), err);
	air_run_free(local_wait(c, id));
	f = failure_of(c, id, NULL);
	ASSERT_EQ_INT(air_failure_state(f), AIR_STATE_CANCELED);
	ASSERT_EQ_STR(air_failure_message(f), "the run was canceled");
	ASSERT_EQ_STR(air_failure_termination_code(f), "USER_CANCELED");
	ASSERT_EQ_INT(air_failure_node(f), 0);
	ASSERT_NOT_NULL(air_failure_excerpt_line(f, 0, NULL));
	air_failure_free(f);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* A node with a long log: a traceback at its end is found, one at its start
 * is not (only the tail is read), and a run that succeeded has no failure. */
AIR_TEST(local_failure__a_long_log_is_read_as_a_tail)
{
	air_client *c = local_begin(&state);
	air_failure_options *o = NULL;
	air_failure *f = (air_failure *)1;
	air_error *err = NULL;
	int64_t ok, late, early;

	late = run_to_end(c, state, 1,
	                  "  seq 1 200000\n"
	                  "  \"${PYTHON:-python3}\" -c 'import json; json.loads(\"{\")'\n",
	                  NULL);
	f = failure_of(c, late, NULL);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TRACEBACK);
	ASSERT_CONTAINS(last_line(f), "json.decoder.JSONDecodeError: Expecting property name");
	air_failure_free(f);

	early = run_to_end(c, state, 1,
	                   "  \"${PYTHON:-python3}\" -c 'import json; json.loads(\"{\")' || true\n"
	                   "  seq 1 200000\n  exit 1\n",
	                   NULL);
	ASSERT_EQ_INT(air_failure_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_failure_options_set_int(o, AIR_FAILURE_SCAN_LINES, 1000), AIR_OK);
	f = failure_of(c, early, o);
	ASSERT_EQ_INT(air_failure_excerpt_kind(f), AIR_EXCERPT_TAIL);
	ASSERT_EQ_STR(last_line(f), "200000");
	air_failure_free(f);
	air_failure_options_free(o);

	ok = run_to_end(c, state, 1, "  echo fine\n", NULL);
	ASSERT_OK(air_client_get_failure(c, ok, NULL, &f, &err), err);
	ASSERT_NULL(f);
	local_check_supervisors(state);
}
