/*
 * run_state.c: a local run's record: its folder, task run ids, status.json
 * and how another process reads it — with the check that the run's
 * supervisor is still alive, so that a crash is reported, not hidden.
 */
#include "local/local_priv.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Task run ids live above every run id: 2^50 + run_id * 2^16 + attempt. */
#define TASK_BASE ((int64_t)1 << 50)
#define TASK_SHIFT 16

char *air__lrun_dir(const char *state_dir, int64_t run_id)
{
	return air__sprintf("%s/jobs/runs/%lld", state_dir, (long long)run_id);
}

int64_t air__ltask_id(int64_t run_id, int32_t attempt)
{
	return TASK_BASE + (run_id << TASK_SHIFT) + attempt;
}

bool air__ltask_decode(int64_t task_id, int64_t *run_id, int32_t *attempt)
{
	if (task_id < TASK_BASE)
		return false;
	*run_id = (task_id - TASK_BASE) >> TASK_SHIFT;
	*attempt = (int32_t)((task_id - TASK_BASE) & ((1 << TASK_SHIFT) - 1));
	return *run_id > 0;
}

json_t *air__lstatus_new(void)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:[]}", "state", AIR__L_PENDING, "message", "",
	                 "start_time", (json_int_t)0, "end_time", (json_int_t)0, "attempts");
}

bool air__lstatus_terminal(const json_t *status)
{
	const char *s = air__json_str(status, "state");

	return s && (!strcmp(s, AIR__L_TERMINATED) || !strcmp(s, AIR__L_INTERNAL_ERROR));
}

int air__lstatus_finish(json_t *status, const char *state, const char *result,
                        const char *message)
{
	json_t *attempts = json_object_get(status, "attempts");
	json_t *last = json_array_size(attempts) ? json_array_get(attempts, json_array_size(attempts) - 1)
	                                         : NULL;
	int64_t now = air__now_ms();
	bool ok;

	json_object_del(status, "status_message"); /* nothing is awaited any more */
	ok = air__json_set_str(status, "state", state) &&
	     air__json_set_str(status, "result", result) &&
	     air__json_set_str(status, "message", message ? message : "") &&
	     air__json_set_int(status, "end_time", now);

	if (ok && last && air__json_int64_or(last, "end_time", 0) == 0)
		ok = air__json_set_int(last, "end_time", now) &&
		     air__json_set_str(last, "state", AIR__L_TERMINATED) &&
		     air__json_set_str(last, "result", result) &&
		     air__json_set_str(last, "message", message ? message : "");
	return ok ? AIR_OK : AIR_ENOMEM;
}

int air__lstatus_write(const char *run_dir, const json_t *status)
{
	char *path = air__lpath(run_dir, "status.json");
	int rc;

	if (!path) {
		errno = ENOMEM;
		return -1;
	}
	rc = air__lwrite_json(path, status);
	air__free(path);
	return rc;
}

/* Under the supervisor's lock, which nobody else holds: the supervisor is
 * gone. Record how the run ended, unless it finished just before. */
static json_t *record_crash(const char *run_dir, json_t *status)
{
	char *path = air__lpath(run_dir, "status.json");
	json_t *fresh = path ? air__lread_json(path) : NULL;
	int64_t pid;
	char *msg;

	air__free(path);
	if (fresh) {
		json_decref(status);
		status = fresh;
	}
	if (air__lstatus_terminal(status))
		return status;
	pid = air__json_int64_or(status, "supervisor_pid", 0);
	if (pid > 0)
		msg = air__sprintf("the local supervisor of this run (pid %lld) stopped before the run "
		                   "ended; its node processes were stopped with it",
		                   (long long)pid);
	else
		msg = air__strdup("the run never started: the program that submitted it stopped before "
		                  "the local supervisor took over");
	if (msg && air__lstatus_finish(status, AIR__L_INTERNAL_ERROR, "FAILED", msg) == AIR_OK)
		air__lstatus_write(run_dir, status); /* best effort: the answer is the same */
	air__free(msg);
	return status;
}

json_t *air__lrun_load(const char *run_dir, json_t **run_json)
{
	char *spath = air__lpath(run_dir, "status.json");
	char *lpath = air__lpath(run_dir, "supervisor.lock");
	char *rpath = run_json ? air__lpath(run_dir, "run.json") : NULL;
	json_t *status = spath ? air__lread_json(spath) : NULL;
	int fd;

	if (run_json)
		*run_json = NULL;
	if (status && !air__lstatus_terminal(status) && lpath &&
	    air__llock(lpath, false, NULL, &fd) == 0) {
		status = record_crash(run_dir, status);
		air__lunlock(fd);
	}
	if (status && run_json && rpath && !(*run_json = air__lread_json(rpath))) {
		json_decref(status);
		status = NULL;
	}
	air__free(spath);
	air__free(lpath);
	air__free(rpath);
	return status;
}
