/*
 * metrics.h: the internals of the metrics module (docs/runs-and-logs.md#metrics):
 * a run's MLflow metrics, the latest values (latest.c) and the histories
 * (history.c), over the MLflow REST replies read by reply.c. It is the only
 * header of lib/metrics/; no other module includes it. Never installed.
 */
#ifndef AIR_METRICS_METRICS_H
#define AIR_METRICS_METRICS_H

#include "runs/runs.h"

/* get-history's largest max_results (MLflow's limit) and libair's default. */
#define AIR__METRICS_PAGE_MAX 25000
#define AIR__METRICS_PAGE_DEFAULT 10000
/* Largest reply accepted: a page of AIR__METRICS_PAGE_MAX points with long
 * keys is a few MiB. */
#define AIR__METRICS_REPLY_MAX ((size_t)64 << 20)
/* Consecutive failed polls a followed history waits through (a poll
 * interval each) before it fails. */
#define AIR__METRICS_MAX_POLL_FAILURES 5

struct air_metrics_options {
	air__call_opts call;
	bool follow;
	int64_t poll_ms;         /* -1 = the client's */
	int64_t page_size;
	air_metrics_poll_cb on_poll;
	void *poll_ud;
};

/* One point; @key is borrowed from the reply or the iterator it came from. */
struct air_metric_point {
	const char *key;
	int64_t step, timestamp_ms;
	double value;
};

void air__metrics_options_defaults(air_metrics_options *o);

/* ---- replies (reply.c) ------------------------------------------------------ */

/*
 * A reply body as JSON. MLflow may send NaN and the infinities as the bare
 * tokens NaN, Infinity and -Infinity, which JSON (and jansson) rejects:
 * outside strings they are read as the strings "NaN", "Infinity",
 * "-Infinity". An empty body is an empty object. AIR_EPROTO naming @what
 * when it is not a JSON object.
 */
int air__metrics_parse(const char *body, size_t len, const char *what, json_t **out,
                       air_error **err);
/* A point of a reply ({"key","value","timestamp","step"}); the value is a
 * number or a string ("NaN", "Infinity", "-Infinity", "1e-3"); absent
 * members are 0 (proto3 JSON leaves out zero values). False when @v is not
 * an object or a member has the wrong type. */
bool air__metrics_point(const json_t *v, air_metric_point *pt);
/*
 * GET @path?@query through the client, the body parsed as above into *out.
 * @body is a reused buffer for the reply. Transport failures as
 * air__http_do() reports them.
 */
int air__metrics_get(air_client *c, const air__ctx *ctx, const char *path, const char *query,
                     air__buf *body, json_t **out, air_error **err);

/* ---- the MLflow run of a Jobs run (latest.c) ----------------------------------- */

/* When @run has no MLflow ids yet: those of its last task (runs/get-output;
 * best effort: ids not there yet mean no MLflow run yet, and an interrupt
 * is left for the caller's air__ctx_check()). AIR_OK or AIR_ENOMEM. */
int air__metrics_resolve(air_client *c, const air__ctx *ctx, air_run *run, air_error **err);
/*
 * mlflow/runs/get of @mlflow_run into *out (the "run" object, or NULL when
 * MLflow does not know the run yet: RESOURCE_DOES_NOT_EXIST).
 */
int air__metrics_mlflow_run(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                            air__buf *body, json_t **out, air_error **err);

#endif /* AIR_METRICS_METRICS_H */
