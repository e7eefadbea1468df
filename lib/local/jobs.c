/*
 * jobs.c: local runs as the Jobs API shows them — runs/get (one task run per
 * attempt), runs/get-output (the MLflow ids and the status message),
 * runs/list, runs/cancel and the ai-training workflows index.
 */
#include "local/endpoints.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- ids -------------------------------------------------------------------------- */

char *air__lmlflow_experiment_id(const char *experiment)
{
	char hex[2 * AIR__SHA256_LEN + 1];

	air__sha256_hex(experiment, strlen(experiment), hex);
	return air__sprintf("local-%.16s", hex);
}

int air__lmlflow_new_run_id(int64_t run_id, char out[33])
{
	unsigned char rnd[8];
	int rc = air__random_bytes(rnd, sizeof(rnd));

	if (rc != AIR_OK)
		return rc;
	snprintf(out, 17, "%016llx", (unsigned long long)run_id);
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(out + 16 + 2 * i, 3, "%02x", rnd[i]);
	return AIR_OK;
}

int64_t air__lmlflow_run_of(const char *mlflow_run_id)
{
	char head[17];
	char *end;
	unsigned long long v;

	if (!mlflow_run_id || strlen(mlflow_run_id) != 32)
		return 0;
	memcpy(head, mlflow_run_id, 16);
	head[16] = '\0';
	v = strtoull(head, &end, 16);
	return *end == '\0' && v > 0 && v <= INT64_MAX ? (int64_t)v : 0;
}

/* ---- run objects ------------------------------------------------------------------ */

/* The mark show_cancel() leaves in a status read from disk (never written). */
#define CANCELLING " cancelling"

/* @cancelling: a run not over whose cancellation was requested (show_cancel()). */
static json_t *state_object(const char *life_cycle, const char *result, const char *message,
                            bool cancelling)
{
	json_t *s = json_object();

	if (s && (!air__json_set_str(s, "life_cycle_state", life_cycle) ||
	          (result && !air__json_set_str(s, "result_state", result)) ||
	          !air__json_set_str(s, "state_message", message ? message : "") ||
	          json_object_set_new(s, "user_cancelled_or_timedout",
	                              json_boolean(cancelling ||
	                                           (result && (!strcmp(result, "CANCELED") ||
	                                                       !strcmp(result, "TIMEDOUT"))))))) {
		json_decref(s);
		return NULL;
	}
	return s;
}

/* Termination details of a result (unconfirmed how the platform fills
 * them for AI Runtime runs; these are the Jobs API's codes and types). */
static void termination_of(const char *life_cycle, const char *result, const char **code,
                           const char **type)
{
	static const struct {
		const char *result, *code, *type;
	} map[] = {
		{"SUCCESS", "SUCCESS", "SUCCESS"},
		{"FAILED", "RUN_EXECUTION_ERROR", "CLIENT_ERROR"},
		{"TIMEDOUT", "CANCELED", "CLIENT_ERROR"},   /* the platform ended it */
		{"CANCELED", "USER_CANCELED", "CLIENT_ERROR"},
	};

	*code = *type = "INTERNAL_ERROR";
	if (life_cycle && !strcmp(life_cycle, AIR__L_INTERNAL_ERROR))
		return;
	for (size_t i = 0; result && i < AIR__ARRAY_SIZE(map); i++)
		if (!strcmp(result, map[i].result)) {
			*code = map[i].code;
			*type = map[i].type;
		}
}

/* The Jobs API's "status" of a run or task: its state, and once it has
 * ended, the termination details, whose message is the state message
 * ("node 1 exited with status 1": which node failed). */
static json_t *status_object(const char *life_cycle, const char *result, const char *message)
{
	const char *state = life_cycle && !strcmp(life_cycle, AIR__L_INTERNAL_ERROR)
	                            ? AIR__L_TERMINATED : life_cycle;
	const char *code, *type;

	if (!result)
		return json_pack("{s:s}", "state", state ? state : AIR__L_PENDING);
	termination_of(life_cycle, result, &code, &type);
	return json_pack("{s:s, s:{s:s, s:s, s:s}}", "state", AIR__L_TERMINATED,
	                 "termination_details", "code", code, "type", type, "message",
	                 message ? message : "");
}

/* One task run: attempt @a of the run (@att its status entry, or NULL before
 * the first attempt starts). */
static json_t *task_object(const json_t *rec, const json_t *status, int64_t run_id, int32_t a,
                           const json_t *att)
{
	const json_t *task = air__json_at(rec, "payload.tasks.0");
	const char *life = att ? air__json_str(att, "state") : air__json_str(status, "state");
	const char *result = att ? air__json_str(att, "result")
	                         : (air__lstatus_terminal(status) ? air__json_str(status, "result")
	                                                          : NULL);
	const char *msg = att ? air__json_str(att, "message") : air__json_str(status, "message");

	return json_pack("{s:I, s:s*, s:i, s:I, s:I, s:I, s:o, s:o, s:O*, s:s, s:s, s:b}",
	                 "run_id", (json_int_t)air__ltask_id(run_id, a), "task_key",
	                 air__json_str(task, "task_key"), "attempt_number", (int)a, "max_retries",
	                 (json_int_t)air__json_int64_or(rec, "max_retries", 0), "start_time",
	                 (json_int_t)(att ? air__json_int64_or(att, "start_time", 0) : 0), "end_time",
	                 (json_int_t)(att ? air__json_int64_or(att, "end_time", 0)
	                                  : air__json_int64_or(status, "end_time", 0)),
	                 "state", state_object(life ? life : AIR__L_PENDING, result, msg,
	                                       !result && json_is_true(json_object_get(
	                                                      status, CANCELLING))),
	                 "status", status_object(life ? life : AIR__L_PENDING, result, msg),
	                 "ai_runtime_task", json_object_get(task, "ai_runtime_task"),
	                 "environment_key", "default", "run_if", "ALL_SUCCESS", "retry_on_timeout",
	                 json_is_true(json_object_get(rec, "retry_on_timeout")));
}

static json_t *run_object(const air__local *ws, const json_t *rec, const json_t *status,
                          int64_t run_id)
{
	const json_t *attempts = json_object_get(status, "attempts");
	const char *result = air__lstatus_terminal(status) ? air__json_str(status, "result") : NULL;
	json_t *tasks = json_array(), *run;
	size_t n = json_array_size(attempts);
	char *url = air__sprintf("local://%s/jobs/runs/%lld", ws->dir, (long long)run_id);
	bool ok = tasks && url;

	for (size_t i = 0; ok && i < (n ? n : 1); i++)
		ok = json_array_append_new(tasks, task_object(rec, status, run_id,
		                                              air__lstatus_attempt_at(status, i),
		                                              n ? json_array_get(attempts, i) : NULL)) == 0;
	run = ok ? json_pack("{s:I, s:s*, s:s*, s:s, s:I, s:I, s:o, s:o, s:O, s:O*, s:s, s:I}",
	                     "run_id", (json_int_t)run_id, "run_name",
	                     air__json_str(air__json_at(rec, "payload"), "run_name"),
	                     "creator_user_name", air__json_str(rec, "user"), "run_type", "SUBMIT_RUN",
	                     "start_time", (json_int_t)air__json_int64_or(status, "start_time", 0),
	                     "end_time", (json_int_t)air__json_int64_or(status, "end_time", 0),
	                     "state", state_object(air__json_str(status, "state"), result,
	                                           air__json_str(status, "message"),
	                                           json_is_true(json_object_get(status, CANCELLING))),
	                     "status", status_object(air__json_str(status, "state"), result,
	                                             air__json_str(status, "message")),
	                     "tasks", tasks, "environments", air__json_at(rec, "payload.environments"),
	                     "run_page_url", url, "timeout_seconds",
	                     (json_int_t)air__json_int64_or(rec, "timeout_seconds", 0))
	         : NULL;
	json_decref(tasks); /* the run holds its own reference */
	air__free(url);
	return run;
}

/* A run whose cancellation was requested is TERMINATING from then on, with
 * user_cancelled_or_timedout, as on the platform — not once its supervisor
 * notices (within its POLL_MS): a sweep waiting for a free place sees it
 * at once (submit_sweep.c). Marked in @status (read from disk) under
 * CANCELLING for run_object(). */
static void show_cancel(const char *dir, json_t *status)
{
	json_t *last = json_array_get(json_object_get(status, "attempts"),
	                              json_array_size(json_object_get(status, "attempts")) - 1);
	char *flag;

	if (air__lstatus_terminal(status) || !(flag = air__lpath(dir, "cancel")))
		return;
	if (air__lexists(flag)) {
		air__json_set_str(status, "state", AIR__L_TERMINATING);
		json_object_set_new(status, CANCELLING, json_true());
		if (last && !json_is_string(json_object_get(last, "result")))
			air__json_set_str(last, "state", AIR__L_TERMINATING);
	}
	air__free(flag);
}

json_t *air__ljobs_run_object(const air__local *ws, int64_t run_id, char **damage)
{
	char *dir = air__lrun_dir(ws->dir, run_id);
	json_t *rec = NULL, *status = dir ? air__lrun_load(dir, &rec, damage) : NULL, *run = NULL;

	if (status) {
		show_cancel(dir, status);
		run = run_object(ws, rec, status, run_id);
	}
	json_decref(rec);
	json_decref(status);
	air__free(dir);
	return run;
}

/* The Jobs wording for an unknown run (libair classifies it as not found);
 * a damaged one says what is wrong (@damage, or NULL). */
static int no_such_run(air__lcall *c, int64_t id, const char *damage)
{
	if (damage)
		return air__lreply_damaged(c, id, damage);
	return air__lreply_bad_request(c, "Run %lld does not exist.", (long long)id);
}

static bool query_run_id(air__lcall *c, int64_t *id, int *rc)
{
	bool bad = false;

	if (!air__lquery_int(c, "run_id", id, &bad) || *id <= 0) {
		*rc = air__lreply_bad_request(c, "run_id is required and must be a positive integer");
		return false;
	}
	return true;
}

int air__ljobs_get(air__lcall *c)
{
	int64_t id;
	json_t *run;
	char *damage = NULL;
	int rc = AIR_OK;

	if (!query_run_id(c, &id, &rc))
		return rc;
	if (!(run = air__ljobs_run_object(c->ws, id, &damage))) {
		rc = no_such_run(c, id, damage);
		air__free(damage);
		return rc;
	}
	return air__lreply_json(c, 200, run);
}

int air__ljobs_get_output(air__lcall *c)
{
	int64_t task_id, run_id;
	int32_t attempt, latest;
	char *dir, *damage = NULL;
	json_t *rec = NULL, *status = NULL, *out, *meta;
	int rc = AIR_OK;

	if (!query_run_id(c, &task_id, &rc))
		return rc;
	if (!air__ltask_decode(task_id, &run_id, &attempt) ||
	    !(dir = air__lrun_dir(c->ws->dir, run_id)))
		return no_such_run(c, task_id, NULL);
	status = air__lrun_load(dir, &rec, &damage);
	air__free(dir);
	latest = status ? air__lstatus_latest_attempt(status) : -1;
	/* Every attempt up to the latest (attempt 0 before the first starts). */
	if (!status || attempt > (latest > 0 ? latest : 0)) {
		json_decref(rec);
		json_decref(status);
		rc = no_such_run(c, damage ? run_id : task_id, damage);
		air__free(damage);
		return rc;
	}
	out = json_object();
	meta = json_pack("{s:I, s:I}", "run_id", (json_int_t)task_id, "parent_run_id",
	                 (json_int_t)run_id);
	if (out && meta)
		json_object_set_new(out, "metadata", meta);
	else
		json_decref(meta);
	{
		json_t *o = json_object();
		const char *msg = air__json_nonempty(status, "status_message");

		/* The MLflow ids exist once the run has started, as on a workspace. */
		if (o && json_array_size(json_object_get(status, "attempts")) > 0) {
			air__json_set_str(o, "mlflow_experiment_id",
			                  air__json_str(rec, "mlflow_experiment_id"));
			air__json_set_str(o, "mlflow_run_id", air__json_str(rec, "mlflow_run_id"));
		}
		if (o && msg)
			air__json_set_str(o, "status_message", msg);
		if (out && o)
			json_object_set_new(out, "ai_runtime_task_output", o);
		else
			json_decref(o);
	}
	json_decref(rec);
	json_decref(status);
	return out ? air__lreply_json(c, 200, out) : air__oom(c->err);
}

/* ---- listing ------------------------------------------------------------------------ */

static int cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Ids of every run folder, newest first (none when jobs/runs does not
 * exist); NULL with errno when they cannot be read, ENOMEM included. */
static int64_t *run_ids(const air__local *ws, size_t *n)
{
	char *path = air__lpath(ws->dir, "jobs/runs");
	DIR *d = path ? opendir(path) : NULL;
	struct dirent *e;
	int64_t *ids = NULL, v;
	size_t cap = 0;

	*n = 0;
	air__free(path);
	if (!d && errno != ENOENT)
		return NULL; /* not readable: never taken for no runs */
	if (!d)
		return air__calloc(1, sizeof(*ids));
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || !air__parse_int64(e->d_name, &v))
			continue;
		if (*n == cap) {
			int64_t *more = air__realloc(ids, (cap = cap ? 2 * cap : 64) * sizeof(*ids));
			if (!more) {
				closedir(d);
				air__free(ids);
				errno = ENOMEM;
				return NULL;
			}
			ids = more;
		}
		ids[(*n)++] = v;
	}
	closedir(d);
	if (!ids)
		return air__calloc(1, sizeof(*ids));
	qsort(ids, *n, sizeof(*ids), cmp_desc);
	return ids;
}

int air__ljobs_list(air__lcall *c)
{
	char *active = air__lquery(c, "active_only");
	bool active_only = active && !strcmp(active, "true"), bad = false;
	int64_t limit = 25, after = INT64_MAX, *ids;
	json_t *runs = json_array(), *reply;
	size_t n, i;

	air__free(active);
	if (air__lquery_int(c, "limit", &limit, &bad) && (limit < 1 || limit > 25))
		limit = 25;
	if (!air__lquery_int(c, "page_token", &after, &bad))
		after = INT64_MAX;
	if (!runs)
		return air__oom(c->err);
	if (!(ids = run_ids(c->ws, &n))) {
		json_decref(runs);
		return errno == ENOMEM ? air__oom(c->err) : air__lreply_io_error(c, "cannot read its runs (jobs/runs)");
	}
	for (i = 0; i < n && (int64_t)json_array_size(runs) < limit; i++) {
		json_t *run;
		char *damage = NULL;

		if (ids[i] >= after)
			continue;
		if (!(run = air__ljobs_run_object(c->ws, ids[i], &damage))) {
			/* A damaged run is listed by its id alone, its tasks "not all
			 * here" (has_more): a client reads it with runs/get, whose
			 * reply says what is wrong. */
			if (damage)
				json_array_append_new(runs, json_pack("{s:I, s:s, s:b}", "run_id",
				                                      (json_int_t)ids[i], "creator_user_name",
				                                      c->ws->user, "has_more", 1));
			air__free(damage);
			continue;
		}
		if (active_only && air__json_nonempty(json_object_get(run, "state"), "result_state")) {
			json_decref(run);
			continue;
		}
		json_array_append_new(runs, run);
	}
	reply = json_pack("{s:o, s:b}", "runs", runs, "has_more", i < n);
	if (reply && i < n) {
		char token[24];
		snprintf(token, sizeof(token), "%lld", (long long)ids[i - 1]);
		air__json_set_str(reply, "next_page_token", token);
	}
	air__free(ids);
	return air__lreply_json(c, 200, reply);
}

int air__ljobs_workflows(air__lcall *c)
{
	json_t *list = json_array();
	int64_t *ids;
	size_t n;

	if (!list)
		return air__oom(c->err);
	if (!(ids = run_ids(c->ws, &n))) {
		json_decref(list);
		return errno == ENOMEM ? air__oom(c->err) : air__lreply_io_error(c, "cannot read its runs (jobs/runs)");
	}
	for (size_t i = 0; i < n; i++) {
		char *dir = air__lrun_dir(c->ws->dir, ids[i]), *path = dir ? air__lpath(dir, "run.json")
		                                                             : NULL;
		json_t *rec = path ? air__lread_json(path) : NULL;
		char when[32];
		struct stat st;
		int64_t ms = air__json_int64_or(rec, "submit_time", 0);

		/* A damaged run is in the index too (when its folder was made):
		 * reading it tells what is wrong. */
		if (!rec && dir && stat(dir, &st) == 0)
			ms = (int64_t)st.st_mtime * 1000;
		if (rec || ms > 0) {
			air__format_rfc3339(ms / 1000, when);
			json_array_append_new(list, json_pack("{s:I, s:s}", "job_run_id",
			                                      (json_int_t)ids[i], "submit_time", when));
		}
		json_decref(rec);
		air__free(path);
		air__free(dir);
	}
	air__free(ids);
	return air__lreply_json(c, 200, json_pack("{s:o}", "training_workflows", list));
}

/* ---- cancellation ------------------------------------------------------------------- */

int air__ljobs_cancel(air__lcall *c)
{
	json_t *body, *status;
	int64_t id = 0;
	char *dir = NULL, *flag = NULL, *damage = NULL, when[32];
	int rc = AIR_OK;

	if (!(body = air__lbody_json(c, &rc)))
		return rc;
	if (!air__json_int64(body, "run_id", &id) || id <= 0) {
		json_decref(body);
		return air__lreply_bad_request(c, "run_id is required");
	}
	json_decref(body);
	if (!(dir = air__lrun_dir(c->ws->dir, id)) || !(flag = air__lpath(dir, "cancel"))) {
		air__free(dir);
		return air__oom(c->err);
	}
	if (!(status = air__lrun_load(dir, NULL, &damage))) {
		rc = no_such_run(c, id, damage);
	} else if (air__lstatus_terminal(status)) {
		rc = air__lreply_empty(c); /* already over: nothing to do */
	} else {
		/* The supervisor looks for this file and stops the run's nodes. */
		air__format_rfc3339(air__now_ms() / 1000, when);
		if (air__lwrite_atomic(flag, when, strlen(when), 0600, false) != 0)
			rc = air__lreply_io_error(c, "cannot request the cancellation");
		else
			rc = air__lreply_empty(c);
	}
	json_decref(status);
	air__free(dir);
	air__free(flag);
	air__free(damage);
	return rc;
}
