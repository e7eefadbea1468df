/* local_support.c: see local_support.h. */
#include "local_support.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

#define POLL_MS 50

static void nap(void)
{
	struct timespec ts = {0, POLL_MS * 1000000L};

	nanosleep(&ts, NULL);
}

air_client *local_client(const char *state)
{
	air_client_options *o = NULL;
	air_client *c = NULL;
	air_error *err = NULL;
	char host[4096];

	snprintf(host, sizeof(host), "local://%s", state);
	ASSERT_OK(air_client_options_new(&o), err);
	ASSERT_OK(air_client_options_set_str(o, AIR_OPT_HOST, host), err);
	ASSERT_OK(air_client_new(o, &c, &err), err);
	air_client_options_free(o);
	return c;
}

air_config *local_config(const char *yaml, const char *dir)
{
	air_config *cfg = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_config_load_buffer(yaml, strlen(yaml), "workload.yaml", dir, &cfg, &err), err);
	return cfg;
}

int64_t local_submit(air_client *c, const air_config *cfg, const char *key)
{
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;
	int64_t id;

	ASSERT_OK(air_submit_options_new(&o), err);
	if (key)
		ASSERT_OK(air_submit_options_set_str(o, AIR_SUBMIT_IDEMPOTENCY_KEY, key), err);
	ASSERT_OK(air_client_submit(c, cfg, o, &sub, &err), err);
	id = air_submission_run_id(sub);
	air_submission_free(sub);
	air_submit_options_free(o);
	return id;
}

static air_run *wait_with(air_client *c, int64_t id, air_wait_state_cb cb, int *rc_out)
{
	air_wait_options *o = NULL;
	air_run *run = NULL;
	air_error *err = NULL;
	int rc;

	ASSERT_OK(air_wait_options_new(&o), err);
	ASSERT_OK(air_wait_options_set_int(o, AIR_WAIT_POLL_INTERVAL_MS, POLL_MS), err);
	ASSERT_OK(air_wait_options_set_deadline_ms(o, LOCAL_PATIENCE_MS), err);
	if (cb)
		ASSERT_OK(air_wait_options_set_state_cb(o, cb, NULL), err);
	rc = air_client_wait_run(c, id, o, &run, &err);
	air_wait_options_free(o);
	if (rc != AIR_OK && !(cb && rc == AIR_EABORTED))
		FAIL("waiting for run %lld: %s", (long long)id, air_error_message(err));
	air_error_free(err);
	*rc_out = rc;
	return run;
}

air_run *local_wait(air_client *c, int64_t id)
{
	int rc;

	return wait_with(c, id, NULL, &rc);
}

static int stop_when_running(const air_run *run, void *ud)
{
	(void)ud;
	return air_run_state(run) == AIR_STATE_RUNNING;
}

void local_wait_running(air_client *c, int64_t id)
{
	int rc;

	air_run_free(wait_with(c, id, stop_when_running, &rc));
}

char *local_logs(air_client *c, int64_t id, int32_t node, int32_t attempt)
{
	air_logs_options *o = NULL;
	air_log_iter *it = NULL;
	const air_log_record *rec;
	air_error *err = NULL;
	char *out = calloc(1, 1);
	size_t n = 0;
	int rc;

	ASSERT_OK(air_logs_options_new(&o), err);
	ASSERT_OK(air_logs_options_set_int(o, AIR_LOGS_NODE, node), err);
	ASSERT_OK(air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, attempt), err);
	ASSERT_OK(air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, POLL_MS), err);
	ASSERT_OK(air_logs_options_set_deadline_ms(o, LOCAL_PATIENCE_MS), err);
	ASSERT_OK(air_client_open_logs(c, id, o, &it, &err), err);
	while ((rc = air_log_iter_next(it, &rec, &err)) == AIR_OK) {
		size_t len;
		const char *line = air_log_record_line(rec, &len);

		out = realloc(out, n + len + 2);
		memcpy(out + n, line, len);
		n += len;
		out[n++] = '\n';
		out[n] = '\0';
	}
	if (rc != AIR_EDONE)
		FAIL("reading the logs of run %lld: %s", (long long)id, air_error_message(err));
	air_log_iter_free(it);
	air_logs_options_free(o);
	return out;
}

const char *local_field(const char *text, const char *key)
{
	static char value[4096];
	size_t klen = strlen(key);

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);

		if ((size_t)(end - p) > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			snprintf(value, sizeof(value), "%.*s", (int)(end - p - (long)klen - 1), p + klen + 1);
			return value;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

void local_wait_file(const char *path)
{
	for (int i = 0; i < LOCAL_PATIENCE_MS / POLL_MS; i++) {
		if (access(path, F_OK) == 0)
			return;
		nap();
	}
	FAIL("%s never appeared", path);
}

/* A zombie has ended: whether its new parent reaps it is not ours to test. */
static bool is_zombie(long pid)
{
	char path[64], *text, *close_paren;
	bool zombie;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(text = air_test_read_file(path, NULL)))
		return false;
	close_paren = strrchr(text, ')');
	zombie = close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
	free(text);
	return zombie;
}

void local_wait_gone(long pid)
{
	for (int i = 0; i < LOCAL_PATIENCE_MS / POLL_MS; i++) {
		if ((kill((pid_t)pid, 0) != 0 && errno == ESRCH) || is_zombie(pid))
			return;
		nap();
	}
	FAIL("process %ld is still running", pid);
}

long local_read_pid(const char *path)
{
	char *text;
	long pid;

	local_wait_file(path);
	for (int i = 0; i < LOCAL_PATIENCE_MS / POLL_MS; i++) {
		/* Written with a newline at the end: complete once it has one. */
		if ((text = air_test_read_file(path, NULL)) && strchr(text, '\n')) {
			pid = strtol(text, NULL, 10);
			free(text);
			ASSERT_TRUE(pid > 0);
			return pid;
		}
		free(text);
		nap();
	}
	FAIL("%s holds no pid", path);
}

void local_check_supervisors(const char *state)
{
	char dir[4096];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/jobs/runs", state);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d)) != NULL) {
		char path[8192];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/supervisor.log", dir, e->d_name);
		if (stat(path, &st) == 0 && st.st_size > 0) {
			char *text = air_test_read_file(path, NULL);
			air_test_note("%s: %s", path, text ? text : "");
			free(text);
			closedir(d);
			FAIL("the supervisor of run %s wrote to its log", e->d_name);
		}
	}
	closedir(d);
}

static air_client *current;

air_client *local_begin(const char **state)
{
	*state = air_test_tmpdir();
	current = local_client(*state);
	return current;
}

/* Wait for run @id to end, without failing the test. */
static void settle(air_client *c, int64_t id)
{
	air_wait_options *o = NULL;
	air_run *run = NULL;

	if (air_wait_options_new(&o) != AIR_OK)
		return;
	air_wait_options_set_int(o, AIR_WAIT_POLL_INTERVAL_MS, POLL_MS);
	air_wait_options_set_deadline_ms(o, LOCAL_PATIENCE_MS);
	air_client_wait_run(c, id, o, &run, NULL);
	air_run_free(run);
	air_wait_options_free(o);
}

void local_end(void)
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	const air_run *run;
	int64_t active[64];
	size_t n = 0;

	if (!current)
		return;
	if (air_list_options_new(&o) == AIR_OK &&
	    air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 1) == AIR_OK &&
	    air_list_options_set_int(o, AIR_LIST_LIMIT, 1000) == AIR_OK &&
	    air_client_list_runs(current, o, &it, NULL) == AIR_OK) {
		while (air_run_iter_next(it, &run, NULL) == AIR_OK)
			if (!air_run_is_terminal(run) && n < 64)
				active[n++] = air_run_id(run);
	}
	air_run_iter_free(it);
	air_list_options_free(o);
	for (size_t i = 0; i < n; i++) {
		air_client_cancel_run(current, active[i], NULL, NULL);
		settle(current, active[i]);
	}
	air_client_free(current);
	current = NULL;
}
