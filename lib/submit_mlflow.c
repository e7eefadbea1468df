/* submit_mlflow.c: the MLflow links printed after a submission (PROTOCOL.md
 * §1.1 step 13, §2.3): runs/get once, then runs/get-output of the last task
 * until its MLflow ids appear. Best effort. */
#include "submit_internal.h"

#include "client_internal.h"
#include "json.h"

/* Task run id of the last task of a runs/get reply, or 0. */
static int64_t last_task_run_id(const json_t *run)
{
	const json_t *tasks = json_object_get(run, "tasks");
	size_t n = json_array_size(tasks);

	return n ? air__json_int64_or(json_array_get(tasks, n - 1), "run_id", 0) : 0;
}

/* The MLflow ids of a task, when both are there. */
static bool read_ids(air_client *c, int64_t task_run_id, char **exp, char **run)
{
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL;
	const json_t *out;
	bool found = false;

	air__buf_query_int(&q, "run_id", task_run_id);
	if (!air__buf_oom(&q) && air__api_json(c, NULL, "GET", "/api/2.2/jobs/runs/get-output",
	                                       air__buf_cstr(&q), NULL, &reply, NULL, NULL) == AIR_OK) {
		out = json_object_get(reply, "ai_runtime_task_output");
		if (air__json_nonempty(out, "mlflow_experiment_id") && air__json_nonempty(out, "mlflow_run_id")) {
			*exp = air__strdup(air__json_str(out, "mlflow_experiment_id"));
			*run = air__strdup(air__json_str(out, "mlflow_run_id"));
			found = *exp && *run;
		}
	}
	json_decref(reply);
	air__buf_dispose(&q);
	return found;
}

int air_client_poll_mlflow_links(air_client *client, int64_t run_id, int32_t max_polls,
                                 int64_t interval_ms, char **run_url, char **experiment_url,
                                 air_error **err)
{
	air__buf q = AIR__BUF_INIT;
	json_t *run = NULL;
	char *exp = NULL, *mrun = NULL;
	const char *host;
	int64_t task;
	int rc;

	if (run_url)
		*run_url = NULL;
	if (experiment_url)
		*experiment_url = NULL;
	if (!client || run_id <= 0 || !run_url || !experiment_url)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_poll_mlflow_links: client, a positive run id and both outputs "
		                  "are required");
	air__buf_query_int(&q, "run_id", run_id);
	rc = air__buf_oom(&q) ? air__failf(err, AIR_ENOMEM, 0, "out of memory")
	     : air__api_json(client, NULL, "GET", "/api/2.2/jobs/runs/get", air__buf_cstr(&q), NULL,
	                     &run, NULL, err);
	air__buf_dispose(&q);
	if (rc != AIR_OK)
		return rc;
	task = last_task_run_id(run);
	json_decref(run);
	for (int32_t i = 0; task > 0 && i < max_polls; i++) {
		/* Best effort: the client's interrupt ends the wait with what is known. */
		if (i > 0 && air__client_sleep(client, NULL, interval_ms) != AIR_OK)
			break;
		air__free(exp);
		air__free(mrun);
		exp = mrun = NULL;
		if (read_ids(client, task, &exp, &mrun))
			break;
	}
	host = air__client_host(client);
	if (exp && mrun && host) {
		*run_url = air__sprintf("%s/ml/experiments/%s/runs/%s", host, exp, mrun);
		*experiment_url = air__sprintf("%s/ml/experiments/%s", host, exp);
	}
	air__free(exp);
	air__free(mrun);
	if ((*run_url == NULL) != (*experiment_url == NULL)) {
		air__free(*run_url);
		air__free(*experiment_url);
		*run_url = *experiment_url = NULL;
	}
	return AIR_OK;
}
