/*
 * test_local_api.c: the local workspace (local://) through the public API:
 * host forms, runs of one and two nodes, the environment contract, secrets,
 * idempotency, retries, timeouts, cancellation and a killed supervisor.
 * Nothing here depends on how fast the machine is: the tests wait for
 * states and files, with a bound that only ends a hang.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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
	/* The root directory is refused however it is written. */
	{
		static const char *const roots[] = {"local:///.", "local:///tmp/..", "local:///tmp/../"};
		for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
			err = NULL;
			ASSERT_OK(air_client_options_set_str(o, AIR_OPT_HOST, roots[i]), err);
			ASSERT_OK(air_client_new(o, &c, &err), err);
			if (air_client_resolve(c, NULL, &err) != AIR_EINVAL)
				FAIL("%s is accepted as %s", roots[i], air_client_host(c));
			ASSERT_CONTAINS(air_error_message(err), "root directory");
			air_error_free(err);
			air_client_free(c);
		}
	}
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
		"         LOCAL_WORLD_SIZE MLFLOW_RUN_ID CUDA_VISIBLE_DEVICES MY_VAR AIR_TEST_INHERITED \\\n"
		"         DATABRICKS_TOKEN DATABRICKS_CLIENT_SECRET AIR_LOCAL_SECRETS_FILE; do\n"
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
	setenv("DATABRICKS_TOKEN", "dapi-submitters-own-token", 1);
	setenv("DATABRICKS_CLIENT_SECRET", "submitters-own-client-secret", 1);
	setenv("AIR_LOCAL_SECRETS_FILE", path_in(dir, "no-secrets.json"), 1);
	cfg = local_config(yaml, dir);
	id = local_submit(c, cfg, NULL);
	setenv("PATH", saved_path, 1);
	unsetenv("AIR_TEST_INHERITED");
	unsetenv("NODE_RANK");
	unsetenv("MY_SECRET");
	unsetenv("DATABRICKS_TOKEN");
	unsetenv("DATABRICKS_CLIENT_SECRET");
	unsetenv("AIR_LOCAL_SECRETS_FILE");

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
		/* Never the submitter's credentials, nor the file of every secret. */
		ASSERT_EQ_STR(local_field(logs[n], "DATABRICKS_TOKEN"), "<unset>");
		ASSERT_EQ_STR(local_field(logs[n], "DATABRICKS_CLIENT_SECRET"), "<unset>");
		ASSERT_EQ_STR(local_field(logs[n], "AIR_LOCAL_SECRETS_FILE"), "<unset>");
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

/* @cpus as the kernel lists them in /proc/<pid>/status ("0-1,3"). */
static const char *cpu_ranges(const cpu_set_t *cpus)
{
	static char out[4096];
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < CPU_SETSIZE; i++) {
		int j = i;

		if (!CPU_ISSET(i, cpus))
			continue;
		while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, cpus))
			j++;
		len += (size_t)snprintf(out + len, sizeof(out) - len, j > i ? "%s%d-%d" : "%s%d",
		                        len ? "," : "", i, j);
		i = j;
	}
	return out;
}

static air_config *cpus_config(const char *state)
{
	return local_config("experiment_name: cpus\n"
	                    "compute: {accelerator_type: GPU_1xA10, num_accelerators: 2}\n"
	                    "command: grep Cpus_allowed_list /proc/self/status\n"
	                    "max_retries: 0\n", state);
}

/* The lowest of @cpus. */
static int first_cpu(const cpu_set_t *cpus)
{
	int i = 0;

	while (i + 1 < CPU_SETSIZE && !CPU_ISSET(i, cpus))
		i++;
	return i;
}

/* The CPUs node 1 of run @id may run on, as its log shows them. */
static char *node_cpus(air_client *c, int64_t id)
{
	air_run *run = local_wait(c, id);
	char *logs = local_logs(c, id, 1, -1), *line = strstr(logs, "Cpus_allowed_list:"), *cpus;

	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	ASSERT_TRUE(line != NULL);
	line += strlen("Cpus_allowed_list:");
	cpus = strndup(line + strspn(line, " \t"), strcspn(line + strspn(line, " \t"), "\n"));
	air_run_free(run);
	free(logs);
	return cpus;
}

typedef struct cpus_call {
	air_client *c;
	air_config *cfg;
	int first;       /* the CPU the thread keeps to */
	int rc;          /* of sched_setaffinity(), then of the submission */
	int64_t id;
} cpus_call;

/* Submit from a thread kept to one CPU (no assertion off the test's thread). */
static void *submit_on_one_cpu(void *arg)
{
	cpus_call *call = arg;
	air_submission *sub = NULL;
	air_error *err = NULL;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(call->first, &one);
	if ((call->rc = sched_setaffinity(0, sizeof(one), &one)) == 0 &&
	    (call->rc = air_client_submit(call->c, call->cfg, NULL, &sub, &err)) == AIR_OK)
		call->id = air_submission_run_id(sub);
	air_submission_free(sub);
	air_error_free(err);
	return NULL;
}

/* The supervisor loads on other CPUs than the submitting thread's (it would
 * otherwise often wait for that thread), and runs its nodes on all of that
 * thread's CPUs again: those of the thread, not of the process. */
AIR_TEST(local__nodes_run_on_the_cpus_of_the_submitting_thread)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = cpus_config(state);
	cpus_call call = {c, cfg, 0, -1, 0};
	cpu_set_t mine;
	pthread_t t;
	char *seen, expected[32];

	ASSERT_EQ_INT(sched_getaffinity(0, sizeof(mine), &mine), 0);
	seen = node_cpus(c, local_submit(c, cfg, NULL));
	ASSERT_EQ_STR(seen, cpu_ranges(&mine));
	free(seen);
	call.first = first_cpu(&mine);
	ASSERT_EQ_INT(pthread_create(&t, NULL, submit_on_one_cpu, &call), 0);
	ASSERT_EQ_INT(pthread_join(t, NULL), 0);
	ASSERT_EQ_INT(call.rc, 0);
	seen = node_cpus(c, call.id);
	snprintf(expected, sizeof(expected), "%d", call.first);
	ASSERT_EQ_STR(seen, expected);
	free(seen);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* The supervisor built beside the library these tests use. */
static const char *real_supervisor(void)
{
	static char path[4096];
	Dl_info info;
	const char *slash;

	ASSERT_TRUE(dladdr((void *)(uintptr_t)&air_client_new, &info) && info.dli_fname);
	ASSERT_NOT_NULL(slash = strrchr(info.dli_fname, '/'));
	snprintf(path, sizeof(path), "%.*s/air-local-supervisor", (int)(slash - info.dli_fname),
	         info.dli_fname);
	return path;
}

/* A supervisor started on one CPU only (and, with @cpus, told that list
 * instead of the submitting thread's) still runs its nodes on every CPU of
 * the submitting thread. */
static void narrowed_supervisor(const char *cpus)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = cpus_config(state);
	char *wrapper = path_in(state, "narrowed-supervisor"), script[8192], *seen, *log;
	cpu_set_t mine;
	int first;
	int64_t id;

	ASSERT_EQ_INT(sched_getaffinity(0, sizeof(mine), &mine), 0);
	first = first_cpu(&mine);
	if (cpus)
		snprintf(script, sizeof(script),
		         "#!/bin/sh\nexec taskset -c %d %s \"$1\" \"$2\" \"$3\" \"$4\" \"$5\" '%s'\n",
		         first, real_supervisor(), cpus);
	else
		snprintf(script, sizeof(script), "#!/bin/sh\nexec taskset -c %d %s \"$@\"\n", first,
		         real_supervisor());
	air_test_write_file(wrapper, script, strlen(script));
	ASSERT_EQ_INT(chmod(wrapper, 0700), 0);
	setenv("AIR_LOCAL_SUPERVISOR", wrapper, 1);
	id = local_submit(c, cfg, NULL);
	unsetenv("AIR_LOCAL_SUPERVISOR");
	seen = node_cpus(c, id);
	ASSERT_EQ_STR(seen, cpu_ranges(&mine));
	free(seen);
	snprintf(script, sizeof(script), "%s/jobs/runs/%lld/supervisor.log", state, (long long)id);
	if (cpus) { /* said, then left out of the check of what supervisors wrote */
		log = air_test_read_file(script, NULL);
		ASSERT_CONTAINS(log, "CPUS is not a list of CPU numbers: ");
		free(log);
		ASSERT_EQ_INT(truncate(script, 0), 0);
	}
	air_config_free(cfg);
	local_check_supervisors(state);
}

AIR_TEST(local__a_supervisor_started_on_one_cpu_runs_its_nodes_on_all)
{
	narrowed_supervisor(NULL);
}

AIR_TEST(local__a_supervisor_told_no_cpu_list_runs_its_nodes_on_all)
{
	narrowed_supervisor("0,,1");
}

/* A libair that starts the supervisor the old way (five arguments, the
 * "go-ahead" protocol) is told the versions do not match, not the usage. */
AIR_TEST(local__a_supervisor_names_a_libair_that_speaks_another_way)
{
	const char *dir = air_test_tmpdir();
	char *err_path = path_in(dir, "stderr"), cmd[8192], *text;
	int st;

	snprintf(cmd, sizeof(cmd), "%s %s 1 %s go-ahead %d 2>%s", real_supervisor(), dir,
	         AIR_VERSION_STRING, (int)getpid(), err_path);
	st = system(cmd);
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ_INT(WEXITSTATUS(st), 3);
	text = air_test_read_file(err_path, NULL);
	ASSERT_CONTAINS(text, "cannot run a run of libair");
	ASSERT_CONTAINS(text, "(go-ahead)");
	free(text);
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

/* Secret values, whole or in pieces, never reach the logs: a multi-line
 * value (a PEM key from the secrets file) and a value that straddles the
 * 64 KiB split of a long line are replaced whole. */
AIR_TEST(local__secrets_are_redacted_whole_from_node_output)
{
	const char *state;
	air_client *c = local_begin(&state);
	static const char pem[] = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
	                          "q2Xr8b+0/ZtYk9Wm==\n-----END PRIVATE KEY-----\n";
	static const char *const pem_lines[] = {"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
	                                        "q2Xr8b+0/ZtYk9Wm==", "BEGIN PRIVATE"};
	static const char token[] = "tok-Zq81-Wv27-Lm45";
	json_t *file = json_pack("{s:{s:s}}", "team", "pem", pem);
	air_config *cfg = local_config("experiment_name: redacted\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "secrets: {PEM_KEY: team/pem, AIR_TEST_TOKEN: team/token}\n"
	                               "command: |\n"
	                               "  printf 'key: %s end\\n' \"$PEM_KEY\"\n"
	                               "  head -c 65530 /dev/zero | tr '\\0' x\n"
	                               "  printf '%s tail\\n' \"$AIR_TEST_TOKEN\"\n",
	                               state);
	air_run *run;
	char *logs, piece[8];
	int64_t id;

	ASSERT_EQ_INT(json_dump_file(file, path_in(state, "secrets.json"), 0), 0);
	json_decref(file);
	setenv("AIR_TEST_TOKEN", token, 1);
	id = local_submit(c, cfg, NULL);
	unsetenv("AIR_TEST_TOKEN");
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	/* (Checked with strstr: the logs are too long to print.) */
	logs = local_logs(c, id, 0, -1);
	ASSERT_TRUE(strstr(logs, "key: [REDACTED] end\n") != NULL);
	ASSERT_TRUE(strstr(logs, "xxx\n[REDACTED] tail\n") != NULL);
	for (size_t i = 0; i < sizeof(pem_lines) / sizeof(pem_lines[0]); i++)
		if (strstr(logs, pem_lines[i]))
			FAIL("a line of the PEM value is in the logs: %s", pem_lines[i]);
	for (size_t i = 0; i + 5 <= strlen(token); i++) {
		snprintf(piece, sizeof(piece), "%.5s", token + i);
		if (strstr(logs, piece))
			FAIL("a piece of the token is in the logs: %s", piece);
	}
	free(logs);
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* The skip callback of a listing: the ids and messages it was given. */
typedef struct skipped {
	int64_t ids[8];
	char msg[8][512];
	int n;
} skipped;

static int note_skipped(int64_t run_id, const air_error *problem, void *ud)
{
	skipped *s = ud;

	if (s->n < 8) {
		s->ids[s->n] = run_id;
		snprintf(s->msg[s->n], sizeof(s->msg[0]), "%s", air_error_message(problem));
		s->n++;
	}
	return 0;
}

/* The runs listed with @all_status, the damaged ones given to a skip
 * callback. */
static int64_t list_with_skips(air_client *c, bool all_status, skipped *s, int64_t *first)
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	const air_run *run;
	air_error *err = NULL;
	int64_t n = 0;
	int rc;

	ASSERT_OK(air_list_options_new(&o), err);
	ASSERT_OK(air_list_options_set_int(o, AIR_LIST_ALL_STATUS, all_status), err);
	ASSERT_OK(air_list_options_set_int(o, AIR_LIST_LIMIT, 1000), err);
	if (s)
		ASSERT_OK(air_list_options_set_skip_cb(o, note_skipped, s), err);
	ASSERT_OK(air_client_list_runs(c, o, &it, &err), err);
	while ((rc = air_run_iter_next(it, &run, &err)) == AIR_OK)
		if (n++ == 0)
			*first = air_run_id(run);
	if (rc != AIR_EDONE)
		FAIL("listing: %s", air_error_message(err));
	air_run_iter_free(it);
	air_list_options_free(o);
	return n;
}

static int64_t count_runs(air_client *c)
{
	int64_t first;

	return list_with_skips(c, true, NULL, &first);
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

/* A name with '=' cannot be a variable of a node's environment ("A=B" would
 * be A holding "B=<value>"): a secret or an env_variables entry so named is
 * refused before anything starts, and says why. */
AIR_TEST(local__a_variable_name_with_an_equals_sign_is_refused)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *secret = local_config("experiment_name: eq\n"
	                                  "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                                  "secrets: {\"A=B\": team/k}\n"
	                                  "command: echo never\n",
	                                  state);
	air_config *env = local_config("experiment_name: eq\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "env_variables: {\"X=Y\": v}\n"
	                               "command: echo never\n",
	                               state);
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_TRUE(air_client_submit(c, secret, NULL, &sub, &err) != AIR_OK);
	ASSERT_CONTAINS(air_error_message(err), "secret \"A=B\": a node's environment cannot have "
	                                        "a variable of that name");
	air_error_free(err);
	err = NULL;
	ASSERT_TRUE(air_client_submit(c, env, NULL, &sub, &err) != AIR_OK);
	ASSERT_CONTAINS(air_error_message(err), "env_variables: \"X=Y\" cannot be the name of an "
	                                        "environment variable");
	air_error_free(err);
	ASSERT_NULL(sub);
	ASSERT_EQ_INT(count_runs(c), 0);
	air_config_free(env);
	air_config_free(secret);
}

/* A value too short to be told apart in the logs is refused before anything
 * starts, by the pre-flight and by runs/submit, naming the secret, never
 * its value. */
AIR_TEST(local__a_secret_too_short_to_redact_is_refused)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: short-secret\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "secrets: {AIR_TEST_SHORT: team/short}\n"
	                               "command: echo never\n",
	                               state);
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_submit_options_new(&o), err);
	/* 2 bytes; and 4 whose CRLF makes them 3 printed with LF line endings. */
	for (int crlf = 0; crlf < 2; crlf++) {
		setenv("AIR_TEST_SHORT", crlf ? "Q\r\nz" : " Qz\n", 1);
		for (int skip = 0; skip < 2; skip++) {
			ASSERT_OK(air_submit_options_set_int(o, AIR_SUBMIT_SKIP_PREFLIGHT, skip), err);
			ASSERT_NE_INT(air_client_submit(c, cfg, o, &sub, &err), AIR_OK);
			ASSERT_CONTAINS(air_error_message(err), "AIR_TEST_SHORT (team/short)");
			ASSERT_CONTAINS(air_error_message(err), crlf ? "has 3 bytes with LF line endings"
			                                             : "has 2 bytes (not counting");
			ASSERT_NOT_CONTAINS(air_error_message(err), "Qz");
			air_error_free(err);
			err = NULL;
		}
	}
	unsetenv("AIR_TEST_SHORT");
	ASSERT_NULL(sub);
	ASSERT_EQ_INT(count_runs(c), 0);
	air_submit_options_free(o);
	air_config_free(cfg);
}

/* The YAML of a workload with @n env_variables of @len bytes each. */
static air_config *env_config(const char *state, int n, size_t len)
{
	static const char head[] = "experiment_name: big-env\n"
	                           "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                           "command: echo never\nenv_variables:\n";
	char *y = malloc(sizeof(head) + (size_t)n * (len + 32)), *p = y;
	air_config *cfg;

	ASSERT_TRUE(y != NULL);
	p += sprintf(p, "%s", head);
	for (int i = 0; i < n; i++) {
		p += sprintf(p, "  BIG_%d: ", i);
		memset(p, 'v', len);
		p += len;
		*p++ = '\n';
	}
	*p = '\0';
	cfg = local_config(y, state);
	free(y);
	return cfg;
}

/* env_variables a node could not be started with — one too long for an
 * environment, or all of them more than a program may be given here (the
 * stack limit made small) — are a pre-flight finding, before anything is
 * uploaded, naming the variable or the sizes; and runs/submit refuses them
 * before the run exists. */
AIR_TEST(local__an_environment_no_node_could_start_with_is_refused)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *one = env_config(state, 1, 135000), *many = env_config(state, 3, 100000);
	air_submission *sub = NULL;
	air_error *err = NULL;
	struct rlimit stack, small;

	ASSERT_EQ_INT(air_client_submit(c, one, NULL, &sub, &err), AIR_EREJECTED);
	ASSERT_CONTAINS(air_error_message(err), "env_variables.BIG_0: its value is too long for a "
	                "node's environment: BIG_0=<value> may take at most 131071 bytes");
	air_error_free(err);
	err = NULL;
	/* Room for 256 KiB: three values of 100 000 bytes do not fit. */
	ASSERT_EQ_INT(getrlimit(RLIMIT_STACK, &stack), 0);
	small = stack;
	small.rlim_cur = 1 << 20;
	ASSERT_EQ_INT(setrlimit(RLIMIT_STACK, &small), 0);
	ASSERT_EQ_INT(air_client_submit(c, many, NULL, &sub, &err), AIR_EREJECTED);
	ASSERT_EQ_INT(setrlimit(RLIMIT_STACK, &stack), 0);
	ASSERT_CONTAINS(air_error_message(err), "env_variables: the nodes' environment would take ");
	ASSERT_CONTAINS(air_error_message(err), "env_variables 300");
	ASSERT_CONTAINS(air_error_message(err), "more than the 245760 a program may be started "
	                "with here");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(count_runs(c), 0);
	/* runs/submit says so too, to a submission that skips the pre-flight. */
	{
		air_submit_options *o = NULL;

		ASSERT_OK(air_submit_options_new(&o), err);
		ASSERT_OK(air_submit_options_set_int(o, AIR_SUBMIT_SKIP_PREFLIGHT, 1), err);
		ASSERT_NE_INT(air_client_submit(c, one, o, &sub, &err), AIR_OK);
		ASSERT_CONTAINS(air_error_message(err), "env_variables.BIG_0: its value is too long");
		air_error_free(err);
		err = NULL;
		ASSERT_EQ_INT(setrlimit(RLIMIT_STACK, &small), 0);
		ASSERT_NE_INT(air_client_submit(c, many, o, &sub, &err), AIR_OK);
		ASSERT_EQ_INT(setrlimit(RLIMIT_STACK, &stack), 0);
		ASSERT_CONTAINS(air_error_message(err), "env_variables: the nodes' environment would take ");
		air_error_free(err);
		err = NULL;
		air_submit_options_free(o);
		ASSERT_EQ_INT(count_runs(c), 0);
	}
	/* With the usual stack limit they fit. */
	air_run_free(local_wait(c, local_submit(c, many, NULL)));
	air_config_free(one);
	air_config_free(many);
}

/* A value that `NAME=value` makes too long for a node's environment, or
 * secrets that take more than a run can be given, are refused before
 * anything is made; large ones within both limits (more than a socket
 * buffer holds) reach the nodes whole, and are never printed. */
AIR_TEST(local__secrets_too_long_are_refused_and_large_ones_reach_the_nodes)
{
	static const char *const names[] = {"AIR_TEST_BIG_A", "AIR_TEST_BIG_B", "AIR_TEST_BIG_C"};
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: big-secrets\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "secrets: {AIR_TEST_BIG_A: team/a, AIR_TEST_BIG_B: team/b,\n"
	                               "          AIR_TEST_BIG_C: team/c}\n"
	                               "command: |\n"
	                               "  echo \"lengths=${#AIR_TEST_BIG_A} ${#AIR_TEST_BIG_B} "
	                               "${#AIR_TEST_BIG_C}\"\n",
	                               state);
	air_config *many = local_config("experiment_name: many-secrets\n"
	                                "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                                "secrets: {AIR_TEST_MANY_0: t/0, AIR_TEST_MANY_1: t/1,\n"
	                                "  AIR_TEST_MANY_2: t/2, AIR_TEST_MANY_3: t/3,\n"
	                                "  AIR_TEST_MANY_4: t/4, AIR_TEST_MANY_5: t/5,\n"
	                                "  AIR_TEST_MANY_6: t/6, AIR_TEST_MANY_7: t/7,\n"
	                                "  AIR_TEST_MANY_8: t/8}\n"
	                                "command: echo never\n",
	                                state);
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;
	air_run *run;
	char *value = malloc(140000), *logs;
	int64_t id;

	ASSERT_TRUE(value != NULL);
	ASSERT_OK(air_submit_options_new(&o), err);
	/* One value of 135 000 bytes: no environment holds it. */
	memset(value, 'k', 135000);
	value[135000] = '\0';
	for (size_t i = 0; i < 3; i++)
		setenv(names[i], "four", 1);
	setenv(names[1], value, 1);
	for (int skip = 0; skip < 2; skip++) {
		ASSERT_OK(air_submit_options_set_int(o, AIR_SUBMIT_SKIP_PREFLIGHT, skip), err);
		ASSERT_NE_INT(air_client_submit(c, cfg, o, &sub, &err), AIR_OK);
		ASSERT_CONTAINS(air_error_message(err), "AIR_TEST_BIG_B (team/b) is too long");
		ASSERT_NOT_CONTAINS(air_error_message(err), "kkkk");
		air_error_free(err);
		err = NULL;
	}
	ASSERT_EQ_INT(count_runs(c), 0);
	/* Nine of 120 000 bytes: each fits an environment, together more than a
	 * run's 1 MiB. */
	value[120000] = '\0';
	for (size_t i = 0; i < 9; i++) {
		char name[32];

		snprintf(name, sizeof(name), "AIR_TEST_MANY_%zu", i);
		setenv(name, value, 1);
	}
	/* refused by the pre-flight, before anything is uploaded */
	ASSERT_EQ_INT(air_client_submit(c, many, NULL, &sub, &err), AIR_EREJECTED);
	ASSERT_CONTAINS(air_error_message(err), "secrets: the secrets take");
	ASSERT_CONTAINS(air_error_message(err), "and a local run can be given at most 1048576");
	ASSERT_NOT_CONTAINS(air_error_message(err), "kkkk");
	air_error_free(err);
	err = NULL;
	{
		char *user = NULL, path[4300];
		struct stat st;

		ASSERT_OK(air_client_current_user(c, NULL, &user, &err), err);
		snprintf(path, sizeof(path), "%s/workspace/Workspace/Users/%s/.air/cli_launch/"
		         "many-secrets", state, user);
		ASSERT_TRUE(stat(path, &st) != 0 && errno == ENOENT);
		air_free(user);
	}
	/* and by runs/submit without it */
	ASSERT_OK(air_submit_options_set_int(o, AIR_SUBMIT_SKIP_PREFLIGHT, 1), err);
	ASSERT_NE_INT(air_client_submit(c, many, o, &sub, &err), AIR_OK);
	ASSERT_CONTAINS(air_error_message(err), "and a local run can be given at most 1048576");
	ASSERT_NOT_CONTAINS(air_error_message(err), "kkkk");
	air_error_free(err);
	err = NULL;
	for (size_t i = 0; i < 9; i++) {
		char name[32];

		snprintf(name, sizeof(name), "AIR_TEST_MANY_%zu", i);
		unsetenv(name);
	}
	ASSERT_EQ_INT(count_runs(c), 0);
	/* Three of 100 000 bytes: more than the socket that hands them over
	 * holds at once (by default), within a run's 1 MiB. */
	value[100000] = '\0';
	for (size_t i = 0; i < 3; i++) {
		value[0] = (char)('a' + i);
		setenv(names[i], value, 1);
	}
	id = local_submit(c, cfg, NULL);
	run = local_wait(c, id);
	ASSERT_TRUE(air_run_succeeded(run));
	logs = local_logs(c, id, 0, -1);
	ASSERT_EQ_STR(local_field(logs, "lengths"), "100000 100000 100000");
	free(logs);
	air_run_free(run);
	for (size_t i = 0; i < 3; i++)
		unsetenv(names[i]);
	free(value);
	ASSERT_NULL(sub);
	air_submit_options_free(o);
	air_config_free(many);
	air_config_free(cfg);
}

/* More nodes than this machine runs: refused before anything starts, by the
 * pre-flight and by runs/submit, naming the limit and the node count. */
AIR_TEST(local__too_many_nodes_are_refused_before_anything_starts)
{
	const char *state;
	air_client *c = local_begin(&state);
	static const char *const counts[] = {"300", "100000"};
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_submit_options_new(&o), err);
	for (size_t i = 0; i < 2; i++) {
		char yaml[512], nodes[64];
		air_config *cfg;

		snprintf(yaml, sizeof(yaml),
		         "experiment_name: too-many\n"
		         "compute: {accelerator_type: GPU_1xA10, num_accelerators: %s}\n"
		         "command: echo never\n",
		         counts[i]);
		snprintf(nodes, sizeof(nodes), "needs %s nodes", counts[i]);
		cfg = local_config(yaml, state);
		for (int skip = 0; skip < 2; skip++) {
			ASSERT_OK(air_submit_options_set_int(o, AIR_SUBMIT_SKIP_PREFLIGHT, skip), err);
			ASSERT_NE_INT(air_client_submit(c, cfg, o, &sub, &err), AIR_OK);
			ASSERT_CONTAINS(air_error_message(err), nodes);
			ASSERT_CONTAINS(air_error_message(err), "a local workspace runs at most");
			air_error_free(err);
			err = NULL;
		}
		air_config_free(cfg);
	}
	ASSERT_NULL(sub);
	ASSERT_EQ_INT(count_runs(c), 0);
	air_submit_options_free(o);
}

/* What a submission killed half-way left (a .new-<id> folder with a copy of
 * the launch directory) is removed by the next submission. */
AIR_TEST(local__a_killed_submission_leaves_nothing_behind)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: after-a-kill\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: echo fine\n",
	                               state);
	struct stat st;
	int64_t id;

	/* Run id 3 was given out, its folder never finished. */
	air_test_write_file(path_in(state, "jobs/runs/.new-3/launch/command.sh"), "echo\n", 5);
	air_test_write_file(path_in(state, "last_run_id"), "3\n", 2);
	id = local_submit(c, cfg, NULL);
	ASSERT_EQ_INT(id, 4);
	ASSERT_TRUE(stat(path_in(state, "jobs/runs/.new-3"), &st) != 0);
	air_run_free(local_wait(c, id));
	air_config_free(cfg);
	local_check_supervisors(state);
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

/* A node log this long or longer gets a count file (AIR__LOCAL_COUNTED_BYTES). */
#define COUNTED_BYTES (64 * 1024)

/* Once the supervisor of run @id has ended, every node log of its @attempts
 * attempts of @nodes nodes of COUNTED_BYTES or more has its count file (its
 * size and its records), a shorter one none; returns how many have one. */
static int check_count_files(const char *state, int64_t id, int attempts, int nodes)
{
	char run[2048];
	json_t *st;
	int counted = 0;

	snprintf(run, sizeof(run), "%s/jobs/runs/%lld", state, (long long)id);
	ASSERT_NOT_NULL(st = json_load_file(path_in(run, "status.json"), 0, NULL));
	local_wait_gone((long)json_integer_value(json_object_get(st, "supervisor_pid")));
	json_decref(st);
	for (int a = 0; a < attempts; a++)
		for (int n = 0; n < nodes; n++) {
			char log[4200], name[4300];
			size_t size = 0;
			long long bytes = -1, records = -1, lines = 0;
			int text_at = 0;
			char *text, *count;

			snprintf(log, sizeof(log), "%s/logs/attempt_%d/node_%d.log", run, a, n);
			snprintf(name, sizeof(name), "%s.count", log);
			text = air_test_read_file(log, &size);
			count = air_test_read_file(name, NULL);
			ASSERT_NOT_NULL(text);
			if (size < COUNTED_BYTES) {
				ASSERT_TRUE(count == NULL);
				free(text);
				continue;
			}
			ASSERT_NOT_NULL(count);
			/* This clock's times have nineteen digits: the writer vouches
			 * for where every record's text starts. */
			ASSERT_EQ_INT(sscanf(count, "%lld %lld %d", &bytes, &records, &text_at), 3);
			ASSERT_EQ_INT(text_at, 20); /* AIR__LOCAL_TEXT_AT */
			for (size_t i = 0; i < size; i++)
				lines += text[i] == '\n';
			ASSERT_EQ_INT(bytes, (long long)size);
			ASSERT_EQ_INT(records, lines);
			ASSERT_TRUE(records > 0);
			counted++;
			free(text);
			free(count);
		}
	return counted;
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
	         "  [ \"$NODE_RANK\" = 1 ] && seq 1 5000\n"
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
	/* Node 1's logs (5000 records and more) are long enough to be counted;
	 * node 0's, a line at most, are not. */
	ASSERT_EQ_INT(check_count_files(state, id, 2, 2), 2);
	local_check_supervisors(state);
}

/* A node that cannot be started stops the attempt at once: the nodes after
 * it are not started (they used to run, unsignalled, until the grace of the
 * stop ran out). Attempt 0 makes attempt 1's log of node 0 a folder. */
AIR_TEST(local__the_nodes_after_one_that_cannot_start_are_not_started)
{
	const char *state;
	air_client *c = local_begin(&state);
	char yaml[4096];
	air_config *cfg;
	air_run *run;
	char *second;
	int64_t id;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: unstartable\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 2}\n"
	         "command: |\n"
	         "  if [ -e %s/second ]; then touch %s/ran-$NODE_RANK; exit 0; fi\n"
	         "  if [ \"$NODE_RANK\" = 1 ]; then touch %s/up; exec sleep 60; fi\n"
	         "  while [ ! -e %s/up ]; do sleep 0.05; done\n"
	         "  mkdir -p ../../logs/attempt_1/node_0.log; touch %s/second; exit 3\n"
	         "max_retries: 1\n",
	         state, state, state, state, state);
	cfg = local_config(yaml, state);
	setenv("AIR_LOCAL_MINUTE_MS", "60", 1); /* a back-off of 1 ms */
	id = local_submit(c, cfg, NULL);
	unsetenv("AIR_LOCAL_MINUTE_MS");
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_FAILED);
	ASSERT_EQ_INT(air_run_latest_attempt(run), 1);
	ASSERT_CONTAINS(air_run_state_message(run), "node 0 could not be started");
	ASSERT_FALSE(access(path_in(state, "ran-1"), F_OK) == 0);
	second = local_logs(c, id, 1, 1);
	ASSERT_CONTAINS(second, "node 1 was not started: an earlier node failed to start");
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

/* The tasks of a run, from runs/get (air_run_to_json). */
static json_t *tasks_of(const air_run *run)
{
	char *text = NULL;
	json_t *obj, *tasks;
	air_error *err = NULL;

	ASSERT_OK(air_run_to_json(run, &text, &err), err);
	obj = json_loads(text, 0, NULL);
	air_free(text);
	tasks = json_incref(json_object_get(obj, "tasks"));
	json_decref(obj);
	ASSERT_NOT_NULL(tasks);
	return tasks;
}

/* A crash loop waits between attempts (1 s, doubling, at most a minute: in
 * local seconds, a sixtieth of AIR_LOCAL_MINUTE_MS), and an attempt costs the
 * same however many came before: the run keeps its first attempt and its
 * latest ones; the logs of every attempt stay readable. */
AIR_TEST(local__a_crash_loop_backs_off_and_keeps_its_record_small)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: crash-loop\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: echo \"attempt of $MASTER_PORT\"; exit 1\n"
	                               "max_retries: 25\n",
	                               state);
	air_run *run;
	json_t *tasks, *t, *status;
	char *logs, path[4200];
	size_t i;
	int64_t id, prev_end = 0, prev_attempt = -1;

	/* A local second of 1 ms: back-offs of 1, 2, 4 ... 32, then 60 ms. */
	setenv("AIR_LOCAL_MINUTE_MS", "60", 1);
	id = local_submit(c, cfg, NULL);
	unsetenv("AIR_LOCAL_MINUTE_MS");
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_FAILED);
	ASSERT_EQ_INT(air_run_latest_attempt(run), 25);
	tasks = tasks_of(run);
	ASSERT_TRUE(json_array_size(tasks) <= 20);
	ASSERT_EQ_INT(json_integer_value(json_object_get(json_array_get(tasks, 0), "attempt_number")), 0);
	json_array_foreach(tasks, i, t) {
		int64_t a = json_integer_value(json_object_get(t, "attempt_number"));
		int64_t start = json_integer_value(json_object_get(t, "start_time"));

		/* Consecutive attempts from the seventh on: at least the 60 ms cap
		 * apart, less 1 ms as times are cut to the millisecond. An end time
		 * is the millisecond after the end (air__lend_ms()): 1 ms more. */
		if (prev_attempt >= 6 && a == prev_attempt + 1 && start - (prev_end - 1) < 59)
			FAIL("attempt %lld started %lld ms after the previous one ended", (long long)a,
			     (long long)(start - prev_end));
		prev_attempt = a;
		prev_end = json_integer_value(json_object_get(t, "end_time"));
	}
	ASSERT_EQ_INT(prev_attempt, 25);
	json_decref(tasks);
	snprintf(path, sizeof(path), "%s/jobs/runs/%lld/status.json", state, (long long)id);
	status = json_load_file(path, 0, NULL);
	ASSERT_TRUE(json_array_size(json_object_get(status, "attempts")) <= 20);
	json_decref(status);
	/* An attempt no longer in the record still has its logs. */
	logs = local_logs(c, id, 0, 3);
	ASSERT_CONTAINS(logs, "attempt of ");
	free(logs);
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* Processes that leave their node's process group (setsid, a double fork)
 * end with the attempt: a retry finds the first attempt's gone, and the
 * run's end takes the last one's, even one holding the node's output. */
AIR_TEST(local__processes_that_leave_their_node_end_with_the_attempt)
{
	const char *state;
	air_client *c = local_begin(&state);
	char yaml[2048];
	air_config *cfg;
	air_run *run;
	char *logs;
	int64_t id;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: strays\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "command: |\n"
	         "  if [ ! -e %s/first.pid ]; then\n"
	         "    setsid sleep 300 > /dev/null 2>&1 < /dev/null &\n"
	         "    echo $! > %s/first.tmp && mv %s/first.tmp %s/first.pid\n"
	         "    exit 1\n"
	         "  fi\n"
	         "  if kill -0 $(cat %s/first.pid) 2> /dev/null; then echo first-alive; else echo first-gone; fi\n"
	         "  ( setsid sleep 300 & echo $! > %s/last.tmp ) && mv %s/last.tmp %s/last.pid\n"
	         "max_retries: 1\n",
	         state, state, state, state, state, state, state, state);
	cfg = local_config(yaml, state);
	setenv("AIR_LOCAL_MINUTE_MS", "600", 1);
	id = local_submit(c, cfg, NULL);
	unsetenv("AIR_LOCAL_MINUTE_MS");
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	logs = local_logs(c, id, 0, 1);
	ASSERT_CONTAINS(logs, "first-gone\n");
	free(logs);
	local_wait_gone(local_read_pid(path_in(state, "first.pid")));
	local_wait_gone(local_read_pid(path_in(state, "last.pid")));
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* Output that cannot be written (here the file size limit; a full disk is the
 * same) is reported, naming the log and the reason, the run keeps the
 * outcome of its command, and the log holds only whole records. */
AIR_TEST(local__output_that_cannot_be_written_is_reported)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: no-room\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: |\n"
	                               "  for i in $(seq 1 5000); do echo \"line $i of the output\"; done\n"
	                               "  echo done\n",
	                               state);
	struct rlimit lim, small;
	char path[4200], *text;
	size_t len;
	air_run *run;
	int64_t id;

	/* The supervisor inherits the limit: its node log stops at 64 KiB. */
	ASSERT_EQ_INT(getrlimit(RLIMIT_FSIZE, &lim), 0);
	small = lim;
	small.rlim_cur = 64 * 1024;
	ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
	id = local_submit(c, cfg, NULL);
	ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	snprintf(path, sizeof(path), "%s/jobs/runs/%lld/logs/attempt_0/node_0.log", state,
	         (long long)id);
	ASSERT_CONTAINS(air_run_state_message(run), path);
	ASSERT_CONTAINS(air_run_state_message(run), strerror(EFBIG));
	text = air_test_read_file(path, &len);
	ASSERT_TRUE(len > 0 && text[len - 1] == '\n');
	for (const char *p = text; p < text + len;) {
		const char *nl = memchr(p, '\n', (size_t)(text + len - p)), *sp = memchr(p, ' ', (size_t)(nl - p));
		if (!sp || (strncmp(sp + 1, "line ", 5) && strncmp(sp + 1, "[air local]", 11) &&
		            strncmp(sp + 1, "done\n", 5)))
			FAIL("a torn record: %.*s", (int)(nl - p), p);
		p = nl + 1;
	}
	free(text);
	air_run_free(run);
	air_config_free(cfg);
}

/* A node that writes as fast as it can (`yes`) still lets the supervisor
 * see a cancel: the run ends CANCELED, not when the node is killed by
 * hand. Its log stops at the file size limit, so the disk is spared. */
AIR_TEST(local__a_node_that_writes_without_pause_is_still_cancelled)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: chatty\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: exec yes\n"
	                               "max_retries: 0\n",
	                               state);
	struct rlimit lim, small;
	air_error *err = NULL;
	air_run *run;
	int64_t id;

	ASSERT_EQ_INT(getrlimit(RLIMIT_FSIZE, &lim), 0);
	small = lim;
	small.rlim_cur = 1024 * 1024;
	ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
	id = local_submit(c, cfg, NULL);
	ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &lim), 0);
	local_wait_running(c, id);
	ASSERT_OK(air_client_cancel_run(c, id, NULL, &err), err);
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_CANCELED);
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

static int random_fill(char *buf, size_t n)
{
	FILE *f = fopen("/dev/urandom", "rb");
	size_t got = f ? fread(buf, 1, n, f) : 0;

	if (f)
		fclose(f);
	return got == n ? 0 : -1;
}

/* In a child with SIGXFSZ at its default action (the end of the process)
 * and a file size limit of @limit bytes: submit @cfg. Exits 0 when the
 * submission failed with an error that says EFBIG, 1 when it succeeded, 2
 * otherwise; killed by SIGXFSZ when a write raised it. */
static int submit_past_the_limit(air_client *c, const air_config *cfg, rlim_t limit)
{
	pid_t child = fork();
	int st;

	ASSERT_TRUE(child >= 0);
	if (child == 0) {
		struct rlimit small;
		air_submission *sub = NULL;
		air_error *err = NULL;
		int rc;

		signal(SIGXFSZ, SIG_DFL);
		getrlimit(RLIMIT_FSIZE, &small);
		small.rlim_cur = limit;
		setrlimit(RLIMIT_FSIZE, &small);
		rc = air_client_submit(c, cfg, NULL, &sub, &err);
		if (rc == AIR_OK)
			_exit(1);
		fprintf(stderr, "# %s\n", air_error_message(err));
		_exit(strstr(air_error_message(err), strerror(EFBIG)) ? 0 : 2);
	}
	ASSERT_EQ_INT(waitpid(child, &st, 0), child);
	if (WIFSIGNALED(st))
		FAIL("the submitting process was killed by signal %d", WTERMSIG(st));
	return WEXITSTATUS(st);
}

/* The folder @path's FS_TOPDIR_FL mark: 1 or 0, -1 when it cannot be read. */
static int spread_mark(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), flags = 0, r;

	if (fd < 0)
		return -1;
	r = ioctl(fd, FS_IOC_GETFLAGS, &flags);
	close(fd);
	return r != 0 ? -1 : (flags & FS_TOPDIR_FL) != 0;
}

/* On a file system that takes the mark (ext4), the folders in which each
 * run's, each experiment's and the workspace's folders are made have it:
 * those are spread over the disk, away from what the state directory's
 * neighbours free (lib/local/spread.c). The state directory has not. */
AIR_TEST(local__the_folders_runs_are_made_in_spread_them)
{
	const char *state;
	air_client *c = local_begin(&state);
	char *probe = path_in(state, "probe");
	air_config *cfg = local_config("experiment_name: spread\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: echo spread\n",
	                               state);
	static const char *const marked[] = {"jobs/runs", "mlruns", "workspace",
	                                     "workspace/Workspace/Users"};
	int fd, flags = 0;
	air_run *run;

	ASSERT_EQ_INT(mkdir(probe, 0700), 0);
	fd = open(probe, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_TRUE(fd >= 0);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0 ||
	    (flags |= FS_TOPDIR_FL, ioctl(fd, FS_IOC_SETFLAGS, &flags)) != 0) {
		close(fd);
		air_test_skip("the temporary directory's file system takes no FS_TOPDIR_FL");
	}
	close(fd);
	ASSERT_EQ_INT(rmdir(probe), 0);
	ASSERT_EQ_INT(spread_mark(state), 0);
	run = local_wait(c, local_submit(c, cfg, NULL));
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	for (size_t i = 0; i < sizeof(marked) / sizeof(marked[0]); i++) {
		char *p = path_in(state, marked[i]);

		if (spread_mark(p) != 1)
			FAIL("%s is not marked", marked[i]);
	}
	ASSERT_EQ_INT(spread_mark(state), 0); /* a folder the user may have chosen */
	air_run_free(run);
	air_config_free(cfg);
}

/* A write past the file size limit (`ulimit -f`) fails the submission with
 * an error; it does not kill the program that called libair (SIGXFSZ),
 * whether it is the workspace's files or the code snapshot's archive. */
AIR_TEST(local__a_file_size_limit_fails_the_submission_not_the_process)
{
	const char *state;
	air_client *c = local_begin(&state);
	char yaml[2048], *code = path_in(state, "code");
	air_config *plain = local_config("experiment_name: limited\n"
	                                 "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                                 "command: echo never\n",
	                                 state), *with_code;
	char big[8192];

	ASSERT_EQ_INT(submit_past_the_limit(c, plain, 16), 0);
	ASSERT_EQ_INT(mkdir(code, 0700), 0);
	/* incompressible: the archive outgrows the limit */
	ASSERT_EQ_INT(random_fill(big, sizeof(big)), 0);
	air_test_write_file(path_in(state, "code/data.bin"), big, sizeof(big));
	snprintf(yaml, sizeof(yaml),
	         "experiment_name: limited-code\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "code_source: {root_path: %s}\n"
	         "command: echo never\n",
	         code);
	with_code = local_config(yaml, state);
	ASSERT_EQ_INT(submit_past_the_limit(c, with_code, 1024), 0);
	ASSERT_EQ_INT(count_runs(c), 0);
	air_config_free(with_code);
	air_config_free(plain);
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
	char yaml[2048];
	air_config *cfg;
	air_error *err = NULL;
	air_run *run;
	int64_t id;
	long pid, stray;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: canceled\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "command: |\n"
	         "  setsid sleep 300 &\n"
	         "  echo $! > %s/stray.tmp && mv %s/stray.tmp %s/stray.pid\n"
	         "  sleep 300 &\n"
	         "  echo $! > %s/child.pid\n"
	         "  wait\n",
	         state, state, state, state);
	cfg = local_config(yaml, state);
	id = local_submit(c, cfg, NULL);
	pid = local_read_pid(path_in(state, "child.pid"));
	stray = local_read_pid(path_in(state, "stray.pid"));
	ASSERT_OK(air_client_cancel_run(c, id, NULL, &err), err);
	/* TERMINATING from the request on, as on the platform: not RUNNING
	 * until the supervisor looks. */
	ASSERT_OK(air_client_get_run(c, id, NULL, &run, &err), err);
	ASSERT_TRUE(air_run_state(run) == AIR_STATE_TERMINATING ||
	            air_run_state(run) == AIR_STATE_CANCELED);
	air_run_free(run);
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_CANCELED);
	/* Even a background process of the node is gone, and one that left
	 * the node's process group (setsid). */
	local_wait_gone(pid);
	local_wait_gone(stray);
	air_run_free(run);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* ---- a reader sees a run's end when it happens ------------------------------------ */

/* The run waits for @go to exist; the first state a reader sees creates it,
 * so the run ends after that reader's first look. */
static air_config *waiting_for(const char *state, const char *go, const char *then)
{
	char yaml[2048];

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: woken\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "command: |\n"
	         "  while [ ! -e %s ]; do sleep 0.05; done\n"
	         "  %s\n"
	         "max_retries: 0\n",
	         go, then);
	return local_config(yaml, state);
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f)
		fclose(f);
}

static int go_on_first_state(const air_run *run, void *ud)
{
	(void)run;
	touch(ud);
	return 0;
}

/* With a ten-minute poll interval, only the run's own change can end the
 * wait before its deadline (a minute: far above how long the run takes). */
AIR_TEST(local__a_wait_wakes_when_the_run_ends)
{
	const char *state;
	air_client *c = local_begin(&state);
	const char *go = path_in(state, "go");
	air_config *cfg = waiting_for(state, go, "echo done");
	air_wait_options *w = NULL;
	air_error *err = NULL;
	air_run *run = NULL;
	int64_t id = local_submit(c, cfg, NULL);

	ASSERT_OK(air_wait_options_new(&w), NULL);
	ASSERT_OK(air_wait_options_set_int(w, AIR_WAIT_POLL_INTERVAL_MS, 600000), NULL);
	ASSERT_OK(air_wait_options_set_deadline_ms(w, LOCAL_PATIENCE_MS / 2), NULL);
	ASSERT_OK(air_wait_options_set_state_cb(w, go_on_first_state, (void *)go), NULL);
	ASSERT_OK(air_client_wait_run(c, id, w, &run, &err), err);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_SUCCESS);
	air_run_free(run);
	air_wait_options_free(w);
	air_config_free(cfg);
	local_check_supervisors(state);
}

static int go_on_first_status(const char *current, const char *previous, void *ud)
{
	(void)current;
	if (!previous)
		touch(ud);
	return 0;
}

static int count_line(const air_log_record *rec, void *ud)
{
	if (!strcmp(air_log_record_line(rec, NULL), "the last line"))
		++*(int *)ud;
	return 0;
}

/* The same for a followed log stream: the line written after the stream's
 * first look, and the run's end, arrive without waiting for a poll. */
AIR_TEST(local__a_followed_stream_wakes_for_output_and_the_end)
{
	const char *state;
	air_client *c = local_begin(&state);
	const char *go = path_in(state, "go");
	air_config *cfg = waiting_for(state, go, "echo 'the last line'");
	air_logs_options *o = NULL;
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	int64_t id = local_submit(c, cfg, NULL);
	int lines = 0;

	ASSERT_OK(air_logs_options_new(&o), NULL);
	ASSERT_OK(air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, 600000), NULL);
	ASSERT_OK(air_logs_options_set_deadline_ms(o, LOCAL_PATIENCE_MS / 2), NULL);
	ASSERT_OK(air_logs_options_set_status_cb(o, go_on_first_status, (void *)go), NULL);
	ASSERT_OK(air_logs_options_set_record_cb(o, count_line, &lines), NULL);
	ASSERT_OK(air_client_stream_logs(c, id, o, &sum, &err), err);
	ASSERT_EQ_INT(lines, 1);
	ASSERT_TRUE(air_logs_summary_succeeded(sum));
	air_logs_summary_free(sum);
	air_logs_options_free(o);
	air_config_free(cfg);
	local_check_supervisors(state);
}

/* What a follower of a retried run saw, in order: "R:<line>" per record
 * (the supervisor's own lines left out), "A:<attempt>" per attempt call. */
typedef struct follower {
	const char *state;
	char order[256];
} follower;

static void note(follower *f, const char *what)
{
	size_t n = strlen(f->order);

	snprintf(f->order + n, sizeof(f->order) - n, "%s%s", n ? " " : "", what);
}

static int on_retried_line(const air_log_record *rec, void *ud)
{
	follower *f = ud;
	const char *line = air_log_record_line(rec, NULL);
	char what[64];

	if (!strncmp(line, "[air local]", 11))
		return 0;
	snprintf(what, sizeof(what), "R:%.40s", line);
	note(f, what);
	if (!strcmp(line, "first"))
		touch(path_in(f->state, "seen")); /* attempt 0 may end now */
	return 0;
}

static int on_attempt(int32_t attempt, void *ud)
{
	follower *f = ud;
	char what[32];

	snprintf(what, sizeof(what), "A:%d", (int)attempt);
	note(f, what);
	touch(path_in(f->state, "go")); /* attempt 1 may print now */
	return 0;
}

/* Following a run that retries: the attempt callback comes when the next
 * attempt starts, before its lines. Each attempt waits for the follower
 * (attempt 0 until its line was seen, attempt 1 until the call), so the
 * order does not depend on timing. */
AIR_TEST(local__a_follower_is_told_where_each_attempt_begins)
{
	const char *state;
	air_client *c = local_begin(&state);
	char yaml[2048];
	follower f = {0};
	air_config *cfg;
	air_logs_options *o = NULL;
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	int64_t id;

	f.state = state;
	snprintf(yaml, sizeof(yaml),
	         "experiment_name: followed-retries\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "env_variables: {D: %s}\n"
	         "command: |\n"
	         "  wait_for() { for i in $(seq 2400); do [ -e \"$D/$1\" ] && return; sleep 0.05; done; exit 9; }\n"
	         "  if [ ! -e \"$D/tried\" ]; then\n"
	         "    touch \"$D/tried\"; echo first; wait_for seen; exit 3\n"
	         "  fi\n"
	         "  wait_for go; echo second\n"
	         "max_retries: 1\n",
	         state);
	cfg = local_config(yaml, state);
	id = local_submit(c, cfg, NULL);
	ASSERT_OK(air_logs_options_new(&o), NULL);
	ASSERT_OK(air_logs_options_set_deadline_ms(o, LOCAL_PATIENCE_MS / 2), NULL);
	ASSERT_OK(air_logs_options_set_record_cb(o, on_retried_line, &f), NULL);
	ASSERT_OK(air_logs_options_set_attempt_cb(o, on_attempt, &f), NULL);
	ASSERT_OK(air_client_stream_logs(c, id, o, &sum, &err), err);
	ASSERT_EQ_STR(f.order, "R:first A:1 R:second");
	ASSERT_TRUE(air_logs_summary_succeeded(sum));
	air_logs_summary_free(sum);
	sum = NULL;
	/* One attempt read on its own has no such call, nor a finished run's
	 * latest one. */
	f.order[0] = '\0';
	ASSERT_OK(air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, 0), NULL);
	ASSERT_OK(air_client_stream_logs(c, id, o, &sum, &err), err);
	ASSERT_EQ_STR(f.order, "R:first");
	air_logs_summary_free(sum);
	sum = NULL;
	f.order[0] = '\0';
	ASSERT_OK(air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, -1), NULL);
	ASSERT_OK(air_client_stream_logs(c, id, o, &sum, &err), err);
	ASSERT_EQ_STR(f.order, "R:second");
	air_logs_summary_free(sum);
	/* NULL options are refused; a NULL callback removes it. */
	ASSERT_EQ_INT(air_logs_options_set_attempt_cb(NULL, on_attempt, &f), AIR_EINVAL);
	ASSERT_OK(air_logs_options_set_attempt_cb(o, NULL, &f), NULL);
	air_logs_options_free(o);
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

/* A run whose status.json is damaged is reported as damaged (its id, the
 * file, what is wrong) by runs/get and by listings, which list every other
 * run. */
AIR_TEST(local__a_damaged_run_is_reported_and_the_others_still_list)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: damaged\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: echo fine\n",
	                               state);
	int64_t one = local_submit(c, cfg, NULL), two = local_submit(c, cfg, NULL), first = 0;
	char path[4200], *text;
	air_error *err = NULL;
	air_run *run = NULL;
	skipped s;

	air_run_free(local_wait(c, one));
	air_run_free(local_wait(c, two));
	snprintf(path, sizeof(path), "%s/jobs/runs/%lld/status.json", state, (long long)one);
	text = air_test_read_file(path, NULL);
	air_test_write_file(path, text, strlen(text) / 2); /* truncated */
	free(text);

	ASSERT_NE_INT(air_client_get_run(c, one, NULL, &run, &err), AIR_OK);
	ASSERT_NULL(run);
	ASSERT_NE_INT(air_error_code(err), AIR_ENOTFOUND);
	ASSERT_CONTAINS(air_error_message(err), "is damaged");
	ASSERT_CONTAINS(air_error_message(err), path);
	ASSERT_CONTAINS(air_error_message(err), "not valid JSON");
	air_error_free(err);
	for (int all = 1; all >= 0; all--) {
		memset(&s, 0, sizeof(s));
		/* Both strategies: the index (all statuses) and runs/list (active). */
		ASSERT_EQ_INT(list_with_skips(c, all, &s, &first), all ? 1 : 0);
		if (all)
			ASSERT_EQ_INT(first, two);
		ASSERT_EQ_INT(s.n, 1);
		ASSERT_EQ_INT(s.ids[0], one);
		ASSERT_CONTAINS(s.msg[0], path);
	}
	/* Without a callback the damaged run is left out quietly. */
	ASSERT_EQ_INT(list_with_skips(c, true, NULL, &first), 1);
	air_config_free(cfg);
	local_check_supervisors(state);
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

/* A run with a code snapshot needs the extractor beside the supervisor:
 * without it the submission is refused before the run exists. */
AIR_TEST(local__a_snapshot_without_the_extractor_program_fails_the_submission)
{
	const char *state;
	air_client *c = local_begin(&state);
	char *lonely = path_in(state, "lonely"), *program = path_in(state, "lonely/air-local-supervisor");
	char yaml[4096], *text;
	size_t len;
	air_config *cfg;
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(mkdir(lonely, 0700), 0);
	ASSERT_NOT_NULL(text = air_test_read_file(real_supervisor(), &len));
	air_test_write_file(program, text, len);
	free(text);
	ASSERT_EQ_INT(chmod(program, 0700), 0);
	ASSERT_EQ_INT(mkdir(path_in(state, "code"), 0700), 0);
	air_test_write_file(path_in(state, "code/train.py"), "print(1)\n", 9);
	snprintf(yaml, sizeof(yaml),
	         "experiment_name: no-extractor\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "code_source: {root_path: %s}\n"
	         "command: echo never\n",
	         path_in(state, "code"));
	cfg = local_config(yaml, state);
	setenv("AIR_LOCAL_SUPERVISOR", program, 1);
	ASSERT_NE_INT(air_client_submit(c, cfg, NULL, &sub, &err), AIR_OK);
	unsetenv("AIR_LOCAL_SUPERVISOR");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_PERMANENT);
	ASSERT_CONTAINS(air_error_message(err), "air-local-extract is not beside its supervisor");
	air_error_free(err);
	ASSERT_EQ_INT(count_runs(c), 0);
	air_config_free(cfg);
}

/* A supervisor program that fails before it detaches: the run is made, and
 * ends FAILED with the reason, its MLflow run too. */
AIR_TEST(local__a_supervisor_that_fails_at_its_start_ends_the_run)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: broken-start\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: echo never\n",
	                               state);
	char *program = path_in(state, "failing-supervisor"), rundir[2048], meta[4096];
	air_run *run;
	json_t *rec;
	char *text;
	int64_t id;

	air_test_write_file(program, "#!/bin/sh\nexit 3\n", 17);
	ASSERT_EQ_INT(chmod(program, 0700), 0);
	setenv("AIR_LOCAL_SUPERVISOR", program, 1);
	id = local_submit(c, cfg, NULL);
	unsetenv("AIR_LOCAL_SUPERVISOR");
	run = local_wait(c, id);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_FAILED);
	ASSERT_CONTAINS(air_run_state_message(run), "the supervisor exited with status 3 at start");
	air_run_free(run);
	snprintf(rundir, sizeof(rundir), "%s/jobs/runs/%lld", state, (long long)id);
	ASSERT_NOT_NULL(rec = json_load_file(path_in(rundir, "run.json"), 0, NULL));
	snprintf(meta, sizeof(meta), "%.1024s/mlruns/%.64s/%.64s/meta.yaml", state,
	         json_string_value(json_object_get(rec, "mlflow_experiment_id")),
	         json_string_value(json_object_get(rec, "mlflow_run_id")));
	text = air_test_read_file(meta, NULL);
	ASSERT_CONTAINS(text, "\nstatus: 4\n"); /* FAILED */
	free(text);
	json_decref(rec);
	air_config_free(cfg);
}

/* The pid a stand-in supervisor wrote to @path, killed. */
/* A stand-in supervisor program in @state that writes its pid to @pidfile
 * and hangs: it never reads its secrets nor exits. Its path. */
static char *hung_supervisor(const char *state, const char *pidfile)
{
	char *program = path_in(state, "hung-supervisor"), script[4400];

	snprintf(script, sizeof(script), "#!/bin/sh\necho $$ > %s\nexec sleep 600\n", pidfile);
	air_test_write_file(program, script, strlen(script));
	ASSERT_EQ_INT(chmod(program, 0700), 0);
	return program;
}

/* Kill the hung supervisor whose pid is in @path; its pid. */
static int kill_hung(const char *path)
{
	char *text = air_test_read_file(path, NULL);
	int pid = text ? atoi(text) : 0;

	ASSERT_TRUE(pid > 1);
	ASSERT_EQ_INT(kill(pid, SIGKILL), 0);
	free(text);
	unlink(path);
	return pid;
}

/* The state letter of process @pid in /proc ('Z': ended, not reaped), or 0
 * when there is no such process. */
static char proc_state(int pid)
{
	char path[64], text[512], *paren;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
	fclose(f);
	paren = strrchr(text, ')');
	return paren && paren[1] == ' ' ? paren[2] : 0;
}

/* Whether this kernel has pidfds (valgrind answers ENOSYS). */
static bool have_pidfd(void)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
#else
	return false;
#endif
}

typedef struct trip {
	const char *pidfile;
	air_interrupt *intr;
} trip;

/* Raise the interrupt once the stand-in supervisor runs (its pid written). */
static void *interrupt_once_started(void *arg)
{
	const trip *t = arg;
	struct stat st;

	while (stat(t->pidfile, &st) != 0 || st.st_size == 0)
		usleep(10000);
	air_interrupt_trigger(t->intr);
	return NULL;
}

/* Submit @cfg with an interrupt raised once the supervisor has started. */
static int submit_interrupted(air_client *c, const air_config *cfg, const char *pidfile,
                              air_submission **sub, air_error **err)
{
	air_submit_options *o = NULL;
	trip t = {pidfile, NULL};
	pthread_t th;
	int rc;

	ASSERT_EQ_INT(air_interrupt_new(&t.intr), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_interrupt(o, t.intr), AIR_OK);
	ASSERT_EQ_INT(pthread_create(&th, NULL, interrupt_once_started, &t), 0);
	rc = air_client_submit(c, cfg, o, sub, err);
	pthread_join(th, NULL);
	air_submit_options_free(o);
	air_interrupt_free(t.intr);
	return rc;
}

/* A supervisor program that hangs (here, never reads its secrets nor
 * exits) holds the submission no longer than the call lets it: without
 * secrets the run is left to it, and with more secrets than the socket
 * holds the run ends FAILED with the reason. The program left, once it
 * ends, is reaped by the client's next submission. */
AIR_TEST(local__a_hung_supervisor_holds_the_submission_only_until_it_is_interrupted)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *plain = local_config("experiment_name: hung\n"
	                                 "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                                 "command: echo never\n",
	                                 state);
	air_config *secret = local_config("experiment_name: hung-secret\n"
	                                  "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                                  "secrets: {AIR_TEST_HUNG_0: team/h0, AIR_TEST_HUNG_1: team/h1,\n"
	                                  "          AIR_TEST_HUNG_2: team/h2}\n"
	                                  "command: echo never\n",
	                                  state);
	char *pidfile = path_in(state, "hung.pid"), *program = hung_supervisor(state, pidfile);
	char name[32], *value = malloc(120001);
	air_submission *sub = NULL;
	air_error *err = NULL;
	air_run *run;
	int rc, left;

	setenv("AIR_LOCAL_SUPERVISOR", program, 1);
	/* nothing to hand over: the wait for it to detach ends at the interrupt */
	rc = submit_interrupted(c, plain, pidfile, &sub, &err);
	if (rc != AIR_OK && rc != AIR_EINTERRUPTED)
		unsetenv("AIR_LOCAL_SUPERVISOR");
	ASSERT_TRUE(rc == AIR_OK || rc == AIR_EINTERRUPTED);
	air_error_free(err);
	err = NULL;
	air_submission_free(sub);
	sub = NULL;
	ASSERT_EQ_INT(count_runs(c), 1);
	left = kill_hung(pidfile);
	/* Ended, and left unreaped by the interrupted submission: the next
	 * submission of the client reaps it. */
	while (proc_state(left) != 'Z' && proc_state(left) != 0)
		usleep(10000);
	ASSERT_EQ_INT(proc_state(left), 'Z');
	/* 360 000 bytes of secrets: more than the socket holds while no one reads */
	memset(value, 's', 120000);
	value[120000] = '\0';
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "AIR_TEST_HUNG_%d", i);
		setenv(name, value, 1);
	}
	rc = submit_interrupted(c, secret, pidfile, &sub, &err);
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "AIR_TEST_HUNG_%d", i);
		unsetenv(name);
	}
	unsetenv("AIR_LOCAL_SUPERVISOR");
	ASSERT_TRUE(rc == AIR_OK || rc == AIR_EINTERRUPTED);
	if (have_pidfd()) /* else (valgrind) it stays, unwatched, until this process ends */
		ASSERT_EQ_INT(proc_state(left), 0);
	ASSERT_EQ_INT(count_runs(c), 2);
	run = local_wait(c, 2);
	ASSERT_EQ_INT(air_run_state(run), AIR_STATE_FAILED);
	ASSERT_CONTAINS(air_run_state_message(run),
	                "cannot hand the secrets to the supervisor: the submission was interrupted");
	ASSERT_NOT_CONTAINS(air_run_state_message(run), "sss");
	air_run_free(run);
	kill_hung(pidfile);
	air_error_free(err);
	air_submission_free(sub);
	free(value);
	air_config_free(plain);
	air_config_free(secret);
}

/* A run that cannot be made after its supervisor was started (here the
 * file size limit refuses run.json) gives the supervisor up; one that hangs
 * holds the submission only until the call's interrupt, and the state
 * directory is left as it was: no run, no half-made folder, the lock free. */
AIR_TEST(local__a_hung_supervisor_of_a_run_not_made_is_left_at_the_interrupt)
{
	const char *state;
	air_client *c = local_begin(&state);
	air_config *cfg = local_config("experiment_name: not-made\n"
	                               "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                               "command: echo never\n",
	                               state);
	char *pidfile = path_in(state, "hung.pid"), *program = hung_supervisor(state, pidfile);
	char *runs = path_in(state, "jobs/runs");
	struct rlimit saved, small;
	air_submission *sub = NULL;
	air_error *err = NULL;
	struct dirent *e;
	DIR *d;
	int rc;

	ASSERT_EQ_INT(getrlimit(RLIMIT_FSIZE, &saved), 0);
	small = saved;
	small.rlim_cur = 700; /* the launch files fit; the run's record does not */
	signal(SIGXFSZ, SIG_IGN);
	setenv("AIR_LOCAL_SUPERVISOR", program, 1);
	ASSERT_EQ_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
	rc = submit_interrupted(c, cfg, pidfile, &sub, &err);
	setrlimit(RLIMIT_FSIZE, &saved);
	signal(SIGXFSZ, SIG_DFL);
	unsetenv("AIR_LOCAL_SUPERVISOR");
	ASSERT_TRUE(rc != AIR_OK);
	ASSERT_NULL(sub);
	air_error_free(err);
	err = NULL;
	kill_hung(pidfile);
	ASSERT_EQ_INT(count_runs(c), 0);
	ASSERT_NOT_NULL(d = opendir(runs));
	while ((e = readdir(d)) != NULL)
		ASSERT_TRUE(strncmp(e->d_name, ".new-", 5) != 0);
	closedir(d);
	/* the state directory's lock was let go: the next run goes through */
	ASSERT_TRUE(local_submit(c, cfg, NULL) > 0);
	air_config_free(cfg);
}

/* The MLflow links of a run just submitted come as soon as its first attempt
 * starts, not at the next poll: here the polls are ten minutes apart and the
 * call has two minutes, while the supervisor takes a second to look for GPUs
 * (a stand-in nvidia-smi) before it starts the attempt. */
AIR_TEST(local__mlflow_links_come_when_the_run_starts)
{
	const char *state;
	air_client *c = local_begin(&state);
	const char *old_path = getenv("PATH");
	char *saved_path = strdup(old_path ? old_path : "/usr/bin:/bin"), *new_path;
	air_config *cfg;
	air_call_options *o = NULL;
	air_error *err = NULL;
	char *run_url = NULL, *exp_url = NULL;
	int64_t id;

	air_test_write_file(path_in(state, "bin/nvidia-smi"), "#!/bin/sh\nsleep 1\necho 0\n", 25);
	chmod(path_in(state, "bin/nvidia-smi"), 0755);
	new_path = malloc(strlen(saved_path) + 4200);
	sprintf(new_path, "%s:%s", path_in(state, "bin"), saved_path);
	cfg = local_config("experiment_name: links\n"
	                   "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	                   "command: echo started\n",
	                   state);
	setenv("PATH", new_path, 1);
	id = local_submit(c, cfg, NULL);
	setenv("PATH", saved_path, 1);
	ASSERT_OK(air_call_options_new(&o), NULL);
	ASSERT_OK(air_call_options_set_deadline_ms(o, 120000), NULL);
	ASSERT_OK(air_client_poll_mlflow_links(c, id, 2, 600000, o, &run_url, &exp_url, &err), err);
	ASSERT_NOT_NULL(run_url);
	ASSERT_CONTAINS(run_url, "/ml/experiments/");
	ASSERT_NOT_NULL(exp_url);
	air_free(run_url);
	air_free(exp_url);
	air_call_options_free(o);
	air_run_free(local_wait(c, id));
	air_config_free(cfg);
	free(new_path);
	free(saved_path);
	local_check_supervisors(state);
}
