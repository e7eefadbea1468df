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

int64_t air__lend_ms(void)
{
	return air__now_ms() + 1;
}

int air__lstatus_finish(json_t *status, const char *state, const char *result,
                        const char *message)
{
	json_t *attempts = json_object_get(status, "attempts");
	json_t *last = json_array_size(attempts) ? json_array_get(attempts, json_array_size(attempts) - 1)
	                                         : NULL;
	int64_t now = air__lend_ms();
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

int32_t air__lstatus_attempt_at(const json_t *status, size_t i)
{
	const json_t *e = json_array_get(json_object_get(status, "attempts"), i);
	int64_t a = air__json_int64_or(e, "attempt", (int64_t)i);

	return a >= 0 && a <= AIR__LOCAL_MAX_ATTEMPT ? (int32_t)a : 0;
}

int32_t air__lstatus_latest_attempt(const json_t *status)
{
	size_t n = json_array_size(json_object_get(status, "attempts"));

	return n > 0 ? air__lstatus_attempt_at(status, n - 1) : -1;
}

int32_t air__lstatus_pick_attempt(const json_t *status, int64_t requested)
{
	int32_t latest = air__lstatus_latest_attempt(status);

	if (requested >= 0 && requested <= AIR__LOCAL_MAX_ATTEMPT)
		return (int32_t)requested;
	return latest > 0 ? latest : 0;
}

int air__lstatus_add_attempt(json_t *status, json_t *entry, int32_t number)
{
	json_t *attempts = json_object_get(status, "attempts");

	if (!json_is_array(attempts) || !air__json_set_int(entry, "attempt", number)) {
		json_decref(entry);
		return AIR_ENOMEM;
	}
	if (json_array_append_new(attempts, entry) != 0)
		return AIR_ENOMEM;
	/* The first attempt stays (the run's beginning), then the latest ones. */
	while (json_array_size(attempts) > AIR__LOCAL_KEPT_ATTEMPTS)
		json_array_remove(attempts, 1);
	return AIR_OK;
}

int air__lstatus_write(const char *run_dir, const json_t *status, bool durable)
{
	char *path = air__lpath(run_dir, "status.json");
	int rc;

	if (!path) {
		errno = ENOMEM;
		return -1;
	}
	rc = air__lwrite_json(path, status, durable);
	air__free(path);
	return rc;
}

void air__lreserve_drop(const char *run_dir)
{
	char *path = air__lpath(run_dir, "status.reserve");

	if (path)
		unlink(path);
	air__free(path);
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
	/* Its space is of no use any more, and may be what the write below needs. */
	air__lreserve_drop(run_dir);
	if (air__lstatus_terminal(status))
		return status;
	pid = air__json_int64_or(status, "supervisor_pid", 0);
	if (pid > 0)
		msg = air__sprintf("the local supervisor of this run (pid %lld) stopped before the run "
		                   "ended; its node processes were stopped with it",
		                   (long long)pid);
	else
		msg = air__strdup("the run never started: the local supervisor did not take it over (the "
		                  "program that submitted it stopped first, or the supervisor stopped or "
		                  "could not record the run's state before: see its supervisor.log)");
	if (msg && air__lstatus_finish(status, AIR__L_INTERNAL_ERROR, "FAILED", msg) == AIR_OK) {
		air__lmlruns_create(run_dir); /* when the submission died before making it */
		air__lmlruns_finish(run_dir, "FAILED");
		air__lstatus_write(run_dir, status, true); /* best effort: the answer is the same */
	}
	air__free(msg);
	return status;
}

/* @path as a JSON object; NULL with *problem (air__free()) when it is
 * missing, unreadable, not JSON or not an object. */
static json_t *load_object(const char *path, char **problem)
{
	air__buf b = AIR__BUF_INIT;
	json_error_t je;
	json_t *v = NULL;

	if (air__lread_file(path, AIR__LOCAL_MAX_JSON, &b) != 0) {
		*problem = errno == ENOENT ? air__sprintf("%s is missing", path)
		                           : air__sprintf("%s cannot be read: %s", path, strerror(errno));
	} else if (!(v = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, &je))) {
		*problem = air__sprintf("%s is not valid JSON: %s (line %d, column %d)", path, je.text,
		                        je.line, je.column);
	} else if (!json_is_object(v)) {
		*problem = air__sprintf("%s is not a JSON object", path);
		json_decref(v);
		v = NULL;
	}
	air__buf_dispose(&b);
	return v;
}

json_t *air__lrun_load(const char *run_dir, json_t **run_json, char **damage)
{
	char *spath = air__lpath(run_dir, "status.json");
	char *lpath = air__lpath(run_dir, "supervisor.lock");
	char *rpath = run_json ? air__lpath(run_dir, "run.json") : NULL;
	char *problem = NULL;
	json_t *status = spath ? load_object(spath, &problem) : NULL;
	int fd;

	if (run_json)
		*run_json = NULL;
	if (status && !air__json_str(status, "state")) {
		problem = air__sprintf("%s has no state", spath);
		json_decref(status);
		status = NULL;
	}
	if (status && !air__lstatus_terminal(status) && lpath &&
	    air__llock(lpath, false, NULL, &fd) == 0) {
		status = record_crash(run_dir, status);
		air__lunlock(fd);
	}
	if (status && run_json && rpath && !(*run_json = load_object(rpath, &problem))) {
		json_decref(status);
		status = NULL;
	}
	/* Only a run whose folder is there is damaged; else it does not exist. */
	if (problem && (!air__lexists(run_dir) || !damage)) {
		air__free(problem);
		problem = NULL;
	}
	if (damage)
		*damage = problem;
	air__free(spath);
	air__free(lpath);
	air__free(rpath);
	return status;
}
