/* mlflow_links.c: the MLflow links of a run just submitted: runs/get once,
 * then runs/get-output of the last task until its MLflow ids appear (a
 * local run's changes are read as they come, besides the polls). Best
 * effort (a failed read means "not known yet"), built on the same look-ups
 * as air_client_get_run(); its interrupt and deadline end it as they end
 * any call. */
#include "runs/runs.h"

int air_client_poll_mlflow_links(air_client *client, int64_t run_id, int32_t max_polls,
                                 int64_t interval_ms, const air_call_options *opts,
                                 char **run_url, char **experiment_url, air_error **err)
{
	air_run *run = NULL;
	air__run_watch *watch = NULL;
	air__ctx ctx;
	int64_t t0;
	int rc;

	if (run_url)
		*run_url = NULL;
	if (experiment_url)
		*experiment_url = NULL;
	if (!client || run_id <= 0 || !run_url || !experiment_url || interval_ms < 0)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_poll_mlflow_links: client, a positive run id, a "
		                  "non-negative interval and both outputs are required");
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	if ((rc = air__client_ensure_resolved(client, &ctx, err)) != AIR_OK ||
	    (rc = air__run_fetch(client, &ctx, run_id, &run, err)) != AIR_OK)
		return rc;
	/* Poll i is due interval_ms * i after the first. A local run is
	 * watched (before its first read, so that no change is missed): a
	 * change before a poll is due is read at once, and the poll stays due. */
	if (run->task_run_id > 0 && !run->mlflow_run_url && max_polls > 0 &&
	    (rc = air__run_watch_open(client, &ctx, run_id, false, &watch, err)) != AIR_OK) {
		air_run_free(run);
		return rc;
	}
	t0 = air__mono_ms();
	for (int32_t i = 0; run->task_run_id > 0 && !run->mlflow_run_url && i < max_polls;) {
		int64_t due = t0 + (int64_t)i * interval_ms, left = due - air__mono_ms();
		json_t *out;

		/* A failed read is "not known yet"; an interrupt or the deadline
		 * ends the call like any other. */
		rc = left > 0 ? air__run_watch_pause(watch, &ctx, left, "MLflow links", err) : AIR_OK;
		if (rc == AIR_OK)
			rc = air__ctx_check(&ctx, "MLflow links", err);
		if (rc != AIR_OK) {
			air__run_watch_free(watch);
			air_run_free(run);
			return rc;
		}
		if (air__mono_ms() >= due)
			i++;
		out = air__run_fetch_output(client, &ctx, run->task_run_id);
		rc = air__run_set_output(run, out, air__client_host(client));
		json_decref(out);
		if (rc != AIR_OK) {
			air__run_watch_free(watch);
			air_run_free(run);
			return air__oom(err);
		}
	}
	air__run_watch_free(watch);
	if ((rc = air__ctx_check(&ctx, "MLflow links", err)) != AIR_OK) {
		air_run_free(run);
		return rc;
	}
	if (run->mlflow_run_url && run->mlflow_exp_url) {
		*run_url = air__strdup(run->mlflow_run_url);
		*experiment_url = air__strdup(run->mlflow_exp_url);
		if (!*run_url || !*experiment_url) {
			air__free(*run_url);
			air__free(*experiment_url);
			*run_url = *experiment_url = NULL;
		}
	}
	air_run_free(run);
	return AIR_OK;
}
