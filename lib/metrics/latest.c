/*
 * latest.c: the MLflow run of a Jobs run, and the latest value of each of
 * its metrics (air_client_get_metrics(): runs/get, runs/get-output,
 * mlflow/runs/get).
 */
#include "metrics/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MLFLOW_RUNS_GET "/api/2.0/mlflow/runs/get"

struct air_metrics {
	air_metric_point *items;   /* keys owned */
	size_t n;
	char *mlflow_run_id, *mlflow_status;
	char *state;
};

/* ---- the MLflow run ------------------------------------------------------------ */

int air__metrics_resolve(air_client *c, const air__ctx *ctx, air_run *run, air_error **err)
{
	json_t *out;
	int rc;

	if (run->mlflow_run_id)
		return AIR_OK;
	/* Best effort: ids that are not there yet (a pending run) mean that
	 * there is no MLflow run yet. */
	out = air__run_fetch_output(c, ctx, run->task_run_id);
	rc = air__run_set_output(run, out, air__client_host(c));
	json_decref(out);
	return rc == AIR_OK ? AIR_OK : air__oom(err);
}

static bool is_code(const air_error *e, const char *code)
{
	const char *have = e ? air_error_server_code(e) : NULL;
	return have && !strcmp(have, code);
}

int air__metrics_mlflow_run(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                            air__buf *body, json_t **out, air_error **err)
{
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL, *run;
	air_error *e = NULL;
	int rc;

	*out = NULL;
	air__buf_query(&q, "run_id", mlflow_run);
	rc = air__buf_oom(&q) ? air__oom(err)
	                      : air__metrics_get(c, ctx, MLFLOW_RUNS_GET, air__buf_cstr(&q), body,
	                                         &reply, &e);
	air__buf_dispose(&q);
	if (rc != AIR_OK) {
		/* An MLflow run the tracking server does not have yet has no metric. */
		if (rc == AIR_ENOTFOUND && is_code(e, "RESOURCE_DOES_NOT_EXIST")) {
			air_error_free(e);
			return AIR_OK;
		}
		return e ? air__fail(err, e) : rc;
	}
	run = json_object_get(reply, "run");
	if (!json_is_object(run)) {
		json_decref(reply);
		return air__failf(err, AIR_EPROTO, 0, "the reply of %s has no run object",
		                  MLFLOW_RUNS_GET);
	}
	*out = json_incref(run);
	json_decref(reply);
	return AIR_OK;
}

/* ---- the latest values ----------------------------------------------------------- */

static int by_key(const void *a, const void *b)
{
	return strcmp(((const air_metric_point *)a)->key, ((const air_metric_point *)b)->key);
}

/* The metrics of an MLflow run object (its data.metrics); malformed entries
 * are left out. */
static int take_metrics(air_metrics *m, const json_t *run)
{
	const json_t *list = air__json_at(run, "data.metrics"), *v;
	size_t i;

	m->items = air__calloc(json_array_size(list) + 1, sizeof(*m->items));
	if (!m->items)
		return AIR_ENOMEM;
	json_array_foreach(list, i, v) {
		air_metric_point pt;

		if (!air__metrics_point(v, &pt) || !pt.key || !*pt.key)
			continue;
		if (!(pt.key = air__strdup(pt.key)))
			return AIR_ENOMEM;
		m->items[m->n++] = pt;
	}
	qsort(m->items, m->n, sizeof(*m->items), by_key);
	return AIR_OK;
}

static int read_latest(air_client *c, const air__ctx *ctx, air_run *run, air_metrics *m,
                       air_error **err)
{
	air__buf body = AIR__BUF_INIT;
	json_t *mrun = NULL;
	int rc;

	if (!(m->state = air__strdup(run->state)))
		return air__oom(err);
	if (!run->mlflow_run_id)
		return AIR_OK;
	if (!(m->mlflow_run_id = air__strdup(run->mlflow_run_id)))
		return air__oom(err);
	rc = air__metrics_mlflow_run(c, ctx, run->mlflow_run_id, &body, &mrun, err);
	air__buf_dispose(&body);
	if (rc == AIR_OK && mrun) {
		const char *status = air__json_nonempty(json_object_get(mrun, "info"), "status");
		if ((status && !(m->mlflow_status = air__strdup(status))) ||
		    take_metrics(m, mrun) != AIR_OK)
			rc = air__oom(err);
	}
	json_decref(mrun);
	return rc;
}

int air_client_get_metrics(air_client *client, int64_t run_id, const air_metrics_options *opts,
                           air_metrics **out, air_error **err)
{
	air_metrics *m;
	air_run *run = NULL;
	air__ctx ctx;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_metrics: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_metrics: client is NULL");
	if ((rc = air__check_run_id(run_id, err)) != AIR_OK)
		return rc;
	if (!(m = air__calloc(1, sizeof(*m))))
		return air__oom(err);
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	rc = air__client_ensure_resolved(client, &ctx, err);
	if (rc == AIR_OK)
		rc = air__run_fetch(client, &ctx, run_id, &run, err);
	if (rc == AIR_OK)
		rc = air__metrics_resolve(client, &ctx, run, err);
	/* The output read gives up quietly: an interrupt or the deadline must
	 * still be the outcome of the call. */
	if (rc == AIR_OK)
		rc = air__ctx_check(&ctx, "metrics", err);
	if (rc == AIR_OK)
		rc = read_latest(client, &ctx, run, m, err);
	air_run_free(run);
	if (rc != AIR_OK) {
		air_metrics_free(m);
		return rc;
	}
	*out = m;
	return AIR_OK;
}

static const air_metric_point *item(const air_metrics *m, size_t i)
{
	return m && i < m->n ? &m->items[i] : NULL;
}

size_t air_metrics_count(const air_metrics *m) { return m ? m->n : 0; }

const char *air_metrics_key(const air_metrics *m, size_t i)
{
	const air_metric_point *pt = item(m, i);
	return pt ? pt->key : NULL;
}

double air_metrics_value(const air_metrics *m, size_t i)
{
	const air_metric_point *pt = item(m, i);
	return pt ? pt->value : NAN;
}

int64_t air_metrics_step(const air_metrics *m, size_t i)
{
	const air_metric_point *pt = item(m, i);
	return pt ? pt->step : 0;
}

int64_t air_metrics_timestamp_ms(const air_metrics *m, size_t i)
{
	const air_metric_point *pt = item(m, i);
	return pt ? pt->timestamp_ms : 0;
}

const char *air_metrics_mlflow_run_id(const air_metrics *m) { return m ? m->mlflow_run_id : NULL; }
const char *air_metrics_mlflow_status(const air_metrics *m) { return m ? m->mlflow_status : NULL; }

int32_t air_metrics_run_state(const air_metrics *m)
{
	return m && m->state ? air__state_from_name(m->state) : AIR_STATE_UNKNOWN;
}

const char *air_metrics_run_state_name(const air_metrics *m)
{
	return m && m->state ? m->state : "UNKNOWN";
}

void air_metrics_free(air_metrics *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		air__free((char *)m->items[i].key);
	air__free(m->items);
	air__free(m->mlflow_run_id);
	air__free(m->mlflow_status);
	air__free(m->state);
	air__free(m);
}
