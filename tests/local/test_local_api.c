/*
 * test_local_api.c: the local workspace (local://) through the public API:
 * host forms, runs of one and two nodes, the environment contract, secrets,
 * idempotency, retries, timeouts, cancellation and a killed supervisor.
 * Nothing here depends on how fast the machine is: the tests wait for
 * states and files, with a bound that only ends a hang.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <air/air.h>
#include <jansson.h>

#include "local_support.h"
#include "test.h"

AIR_TEST_HOOKS(NULL, local_end)

static char *path_in(const char *dir, const char *name)
{
	static char buf[8][4096];
	static int k;
	char *p = buf[k++ % 8];

	snprintf(p, 4096, "%s/%s", dir, name);
	return p;
}

/* ---- hosts ---------------------------------------------------------------------- */

AIR_TEST(local__host_names_the_state_directory_and_needs_no_credentials)
{
	air_client_options *o = NULL;
	air_client *c = NULL;
	air_error *err = NULL;

	ASSERT_TRUE(air_features() & AIR_FEATURE_LOCAL);
	ASSERT_OK(air_client_options_new(&o), err);
	ASSERT_OK(air_client_options_set_str(o, AIR_OPT_HOST, "local:///tmp/air-local-x/"), err);
	/* Credentials are ignored, even conflicting ones. */
	ASSERT_OK(air_client_options_set_str(o, AIR_OPT_TOKEN, "dapi-unused"), err);
	ASSERT_OK(air_client_options_set_str(o, AIR_OPT_CLIENT_ID, "id"), err);
	ASSERT_OK(air_client_options_set_str(o, AIR_OPT_CLIENT_SECRET, "secret"), err);
	ASSERT_OK(air_client_new(o, &c, &err), err);
	ASSERT_OK(air_client_resolve(c, NULL, &err), err);
	ASSERT_EQ_STR(air_client_host(c), "local:///tmp/air-local-x");
	ASSERT_EQ_STR(air_client_auth_type(c), "local");
	air_client_free(c);

	ASSERT_OK(air_client_options_set_str(o, AIR_OPT_HOST, "local://relative/dir"), err);
	ASSERT_OK(air_client_new(o, &c, &err), err);
	ASSERT_EQ_INT(air_client_resolve(c, NULL, &err), AIR_EINVAL);
	ASSERT_CONTAINS(air_error_message(err), "absolute");
	air_error_free(err);
	air_client_free(c);
	air_client_options_free(o);
}

AIR_TEST(local__identity_is_the_local_user)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_error *err = NULL;
	char *user = NULL;
	int64_t ws = -1;

	ASSERT_OK(air_client_current_user(c, NULL, &user, &err), err);
	ASSERT_TRUE(user && *user);
	ASSERT_OK(air_client_workspace_id(c, NULL, &ws, &err), err);
	ASSERT_EQ_INT(ws, 0);
	air_free(user);
}

/* A refusal reads as the local workspace's message, classified as from a
 * workspace, without a request line or an HTTP status. */
AIR_TEST(local__a_missing_run_is_not_found_in_plain_words)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_error *err = NULL;
	air_run *run = NULL;

	ASSERT_EQ_INT(air_client_get_run(c, 424242, NULL, &run, &err), AIR_ENOTFOUND);
	ASSERT_NULL(run);
	ASSERT_EQ_STR(air_error_message(err), "Run 424242 does not exist. (INVALID_PARAMETER_VALUE)");
	ASSERT_EQ_INT(air_error_http_status(err), 400);
	air_error_free(err);
}

/* ---- runs ----------------------------------------------------------------------- */

AIR_TEST(local__one_node_runs_to_success_with_its_logs)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: one-node\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: |\n"
	                               "  for i in 1 2 3; do echo \"step $i\"; done\n"
	                               "  echo 'to stderr' >&2\n"
	                               "max_retries: 0\n",
	                               state);
	air_get_options *go = NULL;
	air_error *err = NULL;
	air_run *run;
	int64_t id = local_submit(c, cfg, NULL);
	char *logs;
	int st;

	/* The supervisor detached itself: nothing is left for the caller to reap. */
	ASSERT_EQ_INT(waitpid(-1, &st, WNOHANG), -1);
	ASSERT_EQ_INT(errno, ECHILD);
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	ASSERT_EQ_STR(air_run_experiment_name(run), "one-node");
	ASSERT_EQ_INT(air_run_accelerator_count(run), 1);
	air_run_free(run);
	logs = local_logs(c, id, 0, -1);
	ASSERT_CONTAINS(logs, "step 1\nstep 2\nstep 3\nto stderr\n");
	free(logs);

	/* The MLflow ids exist (a local id: no MLflow server is behind it). */
	ASSERT_OK(air_get_options_new(&go), err);
	ASSERT_OK(air_get_options_set_int(go, AIR_GET_MLFLOW, 1), err);
	ASSERT_OK(air_client_get_run(c, id, go, &run, &err), err);
	ASSERT_EQ_INT(strlen(air_run_mlflow_run_id(run)), 32);
	air_run_free(run);
	air_get_options_free(go);
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(local__environment_contract_on_two_nodes)
{
	const char *state;
	air_client *c = local_begin(&state);
	const char *dir = air_test_tmpdir();
	static const char script[] =
		"[ -f \"$CODE_SOURCE_PATH/show_env.sh\" ] && echo SCRIPT_FOUND=yes\n"
		"echo \"HYPER=$(tr '\\n' ' ' < \"$HYPERPARAMETERS_PATH\")\"\n"
		"for v in CODE_SOURCE_PATH MASTER_ADDR MASTER_PORT NUM_NODES NODE_RANK WORLD_SIZE \\\n"
		"         LOCAL_WORLD_SIZE MLFLOW_RUN_ID CUDA_VISIBLE_DEVICES MY_VAR AIR_TEST_INHERITED; do\n"
		"  printf '%s=%s\\n' \"$v\" \"$(printenv \"$v\" || echo '<unset>')\"\n"
		"done\n"
		"echo \"SECRET_SHA=$(printf %s \"$MY_SECRET\" | sha256sum | cut -d' ' -f1)\"\n"
		"echo \"SECRET_RAW=$MY_SECRET\"\n"
		"echo \"CWD=$PWD\"\n";
	static const char yaml[] =
		"experiment_name: contract\n"
		"compute: {accelerator_type: GPU_1xA10, num_accelerators: 2}\n"
		"code_source: {root_path: code}\n"
		"parameters: {lr: 0.5, epochs: 3}\n"
		"env_variables: {MY_VAR: hello world}\n"
		"secrets: {MY_SECRET: team/token}\n"
		"command: bash \"$CODE_SOURCE_PATH/show_env.sh\"\n"
		"max_retries: 0\n";
	const char *old_path = getenv("PATH");
	char *saved_path = strdup(old_path ? old_path : "/usr/bin:/bin"), *new_path, *logs[2];
	air_get_options *go = NULL;
	air_error *err = NULL;
	air_config *cfg;
	air_run *run;
	int64_t id;

	air_test_write_file(path_in(dir, "code/show_env.sh"), script, strlen(script));
	/* One GPU on this "machine", seen through a stand-in nvidia-smi. */
	air_test_write_file(path_in(dir, "bin/nvidia-smi"), "#!/bin/sh\necho 7\n", 18);
	chmod(path_in(dir, "bin/nvidia-smi"), 0755);
	new_path = malloc(strlen(saved_path) + 4200);
	sprintf(new_path, "%s:%s", path_in(dir, "bin"), saved_path);
	/* What the nodes inherit from this machine, and what they must not. */
	setenv("PATH", new_path, 1);
	setenv("AIR_TEST_INHERITED", "inherited", 1);
	setenv("NODE_RANK", "99", 1);
	setenv("MY_SECRET", "s3cret-value-42", 1);
	cfg = local_config(yaml, dir);
	id = local_submit(c, cfg, NULL);
	setenv("PATH", saved_path, 1);
	unsetenv("AIR_TEST_INHERITED");
	unsetenv("NODE_RANK");
	unsetenv("MY_SECRET");

	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	air_run_free(run);
	ASSERT_OK(air_get_options_new(&go), err);
	ASSERT_OK(air_get_options_set_int(go, AIR_GET_MLFLOW, 1), err);
	ASSERT_OK(air_client_get_run(c, id, go, &run, &err), err);
	for (int n = 0; n < 2; n++) {
		char rank[8], cwd[64];
		const char *csp;

		logs[n] = local_logs(c, id, n, -1);
		snprintf(rank, sizeof(rank), "%d", n);
		ASSERT_EQ_STR(local_field(logs[n], "SCRIPT_FOUND"), "yes");
		csp = local_field(logs[n], "CODE_SOURCE_PATH");
		ASSERT_TRUE(csp && csp[0] == '/' && strstr(csp, "/code/code"));
		ASSERT_CONTAINS(local_field(logs[n], "HYPER"), "lr: 0.5");
		ASSERT_CONTAINS(local_field(logs[n], "HYPER"), "epochs: 3");
		ASSERT_EQ_STR(local_field(logs[n], "MASTER_ADDR"), "127.0.0.1");
		ASSERT_TRUE(atoi(local_field(logs[n], "MASTER_PORT")) > 0);
		ASSERT_EQ_STR(local_field(logs[n], "NUM_NODES"), "2");
		ASSERT_EQ_STR(local_field(logs[n], "NODE_RANK"), rank);
		ASSERT_EQ_STR(local_field(logs[n], "WORLD_SIZE"), "2");
		ASSERT_EQ_STR(local_field(logs[n], "LOCAL_WORLD_SIZE"), "1");
		ASSERT_EQ_STR(local_field(logs[n], "MLFLOW_RUN_ID"), air_run_mlflow_run_id(run));
		ASSERT_EQ_STR(local_field(logs[n], "CUDA_VISIBLE_DEVICES"), n == 0 ? "7" : "");
		ASSERT_EQ_STR(local_field(logs[n], "MY_VAR"), "hello world");
		ASSERT_EQ_STR(local_field(logs[n], "AIR_TEST_INHERITED"), "inherited");
		ASSERT_EQ_STR(local_field(logs[n], "SECRET_SHA"),
		              "194b91bb657ba5ebcec402a4102c2ffd5949be0ee6048166878649f51ccb459c");
		/* The node sees its secret; the log never shows it. */
		ASSERT_EQ_STR(local_field(logs[n], "SECRET_RAW"), "[REDACTED]");
		ASSERT_NOT_CONTAINS(logs[n], "s3cret-value-42");
		snprintf(cwd, sizeof(cwd), "/work/node_%d", n);
		ASSERT_CONTAINS(local_field(logs[n], "CWD"), cwd);
		/* One GPU for two nodes: the second has none, and both logs say so. */
		ASSERT_CONTAINS(logs[n], "[air local] warning: the workload asks for 2 GPU(s)");
	}
	{
		char port0[32];
		snprintf(port0, sizeof(port0), "%s", local_field(logs[0], "MASTER_PORT"));
		ASSERT_EQ_STR(port0, local_field(logs[1], "MASTER_PORT"));
	}
	free(logs[0]);
	free(logs[1]);
	air_run_free(run);
	air_get_options_free(go);
	air_config_free(cfg);
	free(saved_path);
	free(new_path);
	local_check_supervisors(state);
}

AIR_TEST(local__secrets_come_from_the_secrets_file)
{
	const char *state;
	air_client *c = local_begin(&state);
	static const char secrets[] = "{\"team\": {\"token\": \"file-secret-99\"}}";
	air_config *cfg = local_config("experiment_name: file-secret\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "secrets: {MY_SECRET: team/token}\n"
	                               "command: echo \"SECRET_SHA=$(printf %s \"$MY_SECRET\" | "
	                               "sha256sum | cut -d' ' -f1)\"\n",
	                               state);
	air_run *run;
	char *logs;
	int64_t id;

	air_test_write_file(path_in(state, "secrets.json"), secrets, strlen(secrets));
	id = local_submit(c, cfg, NULL);
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	logs = local_logs(c, id, 0, -1);
	ASSERT_EQ_STR(local_field(logs, "SECRET_SHA"),
	              "456f679b40d973c2b38b21e103ea05f3d3c07fc1db1e4f92a07377c3aa996326");
	free(logs);
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

static int64_t count_runs(air_client *c)
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	const air_run *run;
	air_error *err = NULL;
	int64_t n = 0;
	int rc;

	ASSERT_OK(air_list_options_new(&o), err);
	ASSERT_OK(air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 1), err);
	ASSERT_OK(air_list_options_set_int(o, AIR_LIST_LIMIT, 1000), err);
	ASSERT_OK(air_client_list_runs(c, o, &it, &err), err);
	while ((rc = air_run_iter_next(it, &run, &err)) == AIR_OK)
		n++;
	ASSERT_EQ_INT(rc, AIR_EDONE);
	air_run_iter_free(it);
	air_list_options_free(o);
	return n;
}

AIR_TEST(local__a_missing_secret_fails_before_anything_starts)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: no-secret\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "secrets: {AIR_TEST_ABSENT_SECRET: team/absent}\n"
	                               "command: echo never\n",
	                               state);
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;
	int rc;

	unsetenv("AIR_TEST_ABSENT_SECRET");
	ASSERT_OK(air_submit_options_new(&o), err);
	rc = air_client_submit(c, cfg, o, &sub, &err);
	ASSERT_NE_INT(rc, AIR_OK);
	ASSERT_CONTAINS(air_error_message(err), "AIR_TEST_ABSENT_SECRET");
	ASSERT_CONTAINS(air_error_message(err), "team/absent");
	air_error_free(err);
	err = NULL;
	/* Without the pre-flight, runs/submit itself refuses it. */
	ASSERT_OK(air_submit_options_set_int(o, AIR_SUBMIT_SKIP_PREFLIGHT, 1), err);
	rc = air_client_submit(c, cfg, o, &sub, &err);
	ASSERT_NE_INT(rc, AIR_OK);
	ASSERT_CONTAINS(air_error_message(err), "AIR_TEST_ABSENT_SECRET");
	air_error_free(err);
	ASSERT_NULL(sub);
	ASSERT_EQ_INT(count_runs(c), 0);
	air_submit_options_free(o);
	air_config_free(cfg);
}

AIR_TEST(local__an_idempotency_key_gives_back_the_same_run)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: idem\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: echo once\n",
	                               state);
	int64_t a = local_submit(c, cfg, "same-key-1"), b = local_submit(c, cfg, "same-key-1");
	int64_t other = local_submit(c, cfg, "another-key");

	ASSERT_EQ_INT(a, b);
	ASSERT_NE_INT(a, other);
	air_run_free(local_wait(c, a));
	air_run_free(local_wait(c, other));
	ASSERT_EQ_INT(count_runs(c), 2);
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(local__a_failed_node_restarts_the_attempt)
{
	const char *state;
	air_client *c = local_begin(&state);
	char yaml[2048];
	air_config *cfg;
	air_run *run;
	char *first, *second;
	int64_t id;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: retried\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 2}\n"
	         "command: |\n"
	         "  if [ \"$NODE_RANK\" = 1 ] && [ ! -e %s/failed-once ]; then\n"
	         "    touch %s/failed-once; echo failing; exit 3\n"
	         "  fi\n"
	         "  echo \"fine on node $NODE_RANK\"\n"
	         "max_retries: 1\n",
	         state, state);
	cfg = local_config(yaml, state);
	id = local_submit(c, cfg, NULL);
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	ASSERT_EQ_INT(air_run_latest_attempt(run), 1);
	ASSERT_EQ_INT(air_run_max_retries(run), 1);
	first = local_logs(c, id, 1, 0);
	second = local_logs(c, id, 1, 1);
	ASSERT_CONTAINS(first, "failing\n");
	ASSERT_NOT_CONTAINS(first, "fine on node 1");
	ASSERT_CONTAINS(second, "fine on node 1\n");
	free(first);
	free(second);
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(local__retries_used_up_leave_the_run_failed)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: always-fails\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: exit 5\n"
	                               "max_retries: 2\n",
	                               state);
	int64_t id = local_submit(c, cfg, NULL);
	air_run *run = local_wait(c, id);

	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_FAILED);
	ASSERT_EQ_INT(air_run_latest_attempt(run), 2);
	ASSERT_CONTAINS(air_run_state_message(run), "node 0 exited with status 5");
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(local__a_node_killed_by_a_signal_fails_the_attempt)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: crashed\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 2}\n"
	                               "command: |\n"
	                               "  if [ \"$NODE_RANK\" = 1 ]; then kill -KILL $$; fi\n"
	                               "  sleep 300\n"
	                               "max_retries: 0\n",
	                               state);
	int64_t id = local_submit(c, cfg, NULL);
	air_run *run = local_wait(c, id);

	/* Node 1 dies; node 0 is stopped with the attempt. */
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_FAILED);
	ASSERT_CONTAINS(air_run_state_message(run), "node 1 exited with status 137");
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(local__an_attempt_past_its_timeout_is_timedout)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: too-slow\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: sleep 300\n"
	                               "timeout_minutes: 1\n"
	                               "max_retries: 0\n",
	                               state);
	air_run *run;
	int64_t id;

	/* A local "minute" of 300 ms: the mechanism, not the machine, is tested. */
	setenv("AIR_LOCAL_MINUTE_MS", "300", 1);
	id = local_submit(c, cfg, NULL);
	unsetenv("AIR_LOCAL_MINUTE_MS");
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_TIMEDOUT);
	ASSERT_CONTAINS(air_run_state_message(run), "timeout_minutes");
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(local__cancel_stops_the_nodes)
{
	const char *state;
	air_client *c = local_begin(&state);
	char yaml[1024];
	air_config *cfg;
	air_error *err = NULL;
	air_run *run;
	int64_t id;
	long pid;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: canceled\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "command: |\n"
	         "  sleep 300 &\n"
	         "  echo $! > %s/child.pid\n"
	         "  wait\n",
	         state);
	cfg = local_config(yaml, state);
	id = local_submit(c, cfg, NULL);
	pid = local_read_pid(path_in(state, "child.pid"));
	ASSERT_OK(air_client_cancel_run(c, id, NULL, &err), err);
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_CANCELED);
	/* Even a background process of the node is gone. */
	local_wait_gone(pid);
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(local__a_killed_supervisor_is_reported_and_takes_its_nodes)
{
	const char *state;
	air_client *c = local_begin(&state);
	char yaml[1024], dir[4096];
	air_config *cfg;
	air_run *run;
	json_t *status;
	int64_t id;
	long pid, sup;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: orphaned\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 2}\n"
	         "command: |\n"
	         "  sleep 300 &\n"
	         "  echo $! > %s/child-$NODE_RANK.pid\n"
	         "  wait\n",
	         state);
	cfg = local_config(yaml, state);
	id = local_submit(c, cfg, NULL);
	pid = local_read_pid(path_in(state, "child-1.pid"));
	local_wait_running(c, id);
	snprintf(dir, sizeof(dir), "%s/jobs/runs/%lld/status.json", state, (long long)id);
	status = json_load_file(dir, 0, NULL);
	sup = (long)json_integer_value(json_object_get(status, "supervisor_pid"));
	json_decref(status);
	ASSERT_TRUE(sup > 0);
	ASSERT_EQ_INT(kill((pid_t)sup, SIGKILL), 0);
	local_wait_gone(sup);
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_FAILED);
	ASSERT_EQ_STR(air_run_life_cycle_state(run), "INTERNAL_ERROR");
	ASSERT_CONTAINS(air_run_state_message(run), "supervisor");
	local_wait_gone(pid);
	air_run_free(run);
	air_config_free(cfg);
}

AIR_TEST(local__a_missing_supervisor_program_fails_the_submission)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: nowhere\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: echo never\n",
	                               state);
	air_submission *sub = NULL;
	air_error *err = NULL;

	setenv("AIR_LOCAL_SUPERVISOR", "/nonexistent/air-local-supervisor", 1);
	ASSERT_NE_INT(air_client_submit(c, cfg, NULL, &sub, &err), AIR_OK);
	unsetenv("AIR_LOCAL_SUPERVISOR");
	/* An installation problem: retrying cannot help, the message says what
	 * to fix. */
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_PERMANENT);
	ASSERT_EQ_INT(air_error_retryable(err), 0);
	ASSERT_CONTAINS(air_error_message(err), "AIR_LOCAL_SUPERVISOR=/nonexistent/air-local-supervisor");
	ASSERT_CONTAINS(air_error_message(err), "not an executable file");
	air_error_free(err);
	ASSERT_EQ_INT(count_runs(c), 0);
	air_config_free(cfg);
}
