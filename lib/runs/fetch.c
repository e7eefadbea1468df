/* fetch.c: Jobs runs/get (paged), runs/get-output and MLflow runs/get. */
#include "transport/transport.h"
#include "runs/runs.h"

#include <string.h>

#define RUNS_GET "/api/2.2/jobs/runs/get"

void air__query_run_id(air__buf *q, int64_t run_id)
{
	air__buf_query_int(q, "run_id", run_id);
}

static void append_array(json_t *merged, const json_t *page, const char *key)
{
	json_t *dst = json_object_get(merged, key);
	const json_t *src = json_object_get(page, key);

	if (!json_is_array(src))
		return;
	if (!json_is_array(dst)) {
		dst = json_array();
		if (!dst || json_object_set_new(merged, key, dst) != 0)
			return;
	}
	json_array_extend(dst, (json_t *)src);
}

void air__run_merge_page(json_t *merged, const json_t *page)
{
	/* docs/runs-and-logs.md#reading-a-run: a first page with iterations pages
	 * iterations, else tasks. */
	append_array(merged, page, json_is_array(json_object_get(merged, "iterations"))
	                                   ? "iterations"
	                                   : "tasks");
}

int air__run_fetch_json(air_client *c, const air__ctx *ctx, int64_t run_id, json_t **out,
                        air_error **err)
{
	json_t *merged = NULL, *seen = json_object();
	air__buf q = AIR__BUF_INIT;
	char *token = NULL;
	int rc = seen ? AIR_OK : AIR_ENOMEM;

	*out = NULL;
	while (rc == AIR_OK) {
		json_t *page = NULL;
		const char *next;

		air__buf_clear(&q);
		air__query_run_id(&q, run_id);
		if (token)
			air__buf_query(&q, "page_token", token);
		if (air__buf_oom(&q)) {
			rc = AIR_ENOMEM;
			break;
		}
		rc = air__api_json(c, ctx, "GET", RUNS_GET, air__buf_cstr(&q), NULL, &page, NULL, err);
		if (rc != AIR_OK)
			break;
		if (!json_is_object(page)) {
			json_decref(page);
			rc = air__failf(err, AIR_EPROTO, 0, "runs/get reply for run %lld is not an object",
			                (long long)run_id);
			break;
		}
		if (!merged)
			merged = json_incref(page);
		else
			air__run_merge_page(merged, page);
		next = air__json_nonempty(page, "next_page_token");
		air__free(token);
		token = NULL;
		/* A repeated token would loop forever: treat it as the end. */
		if (next && !json_object_get(seen, next)) {
			token = air__strdup(next);
			if (!token || json_object_set_new(seen, next, json_true()) != 0)
				rc = AIR_ENOMEM;
		}
		json_decref(page);
		if (!token)
			break;
	}
	if (rc == AIR_ENOMEM)
		air__oom(err);
	air__free(token);
	air__buf_dispose(&q);
	json_decref(seen);
	if (rc != AIR_OK) {
		json_decref(merged);
		return rc;
	}
	json_object_del(merged, "next_page_token");
	*out = merged;
	return AIR_OK;
}

int air__run_fetch(air_client *c, const air__ctx *ctx, int64_t run_id, air_run **out,
                   air_error **err)
{
	json_t *obj;
	int rc = air__run_fetch_json(c, ctx, run_id, &obj, err);

	*out = NULL;
	if (rc == AIR_OK)
		rc = air__run_from_json(obj, out, err);
	if (rc == AIR_OK &&
	    air__run_set_dashboard(*out, air__client_host(c), air__client_known_workspace_id(c),
	                           false) != AIR_OK) {
		air_run_free(*out);
		*out = NULL;
		rc = air__oom(err);
	}
	return rc;
}

json_t *air__run_fetch_output(air_client *c, const air__ctx *ctx, int64_t task_run_id)
{
	air__buf q = AIR__BUF_INIT;
	json_t *out = NULL;

	if (task_run_id <= 0)
		return NULL;
	air__query_run_id(&q, task_run_id);
	if (!air__buf_oom(&q) &&
	    air__api_json(c, ctx, "GET", "/api/2.2/jobs/runs/get-output", air__buf_cstr(&q), NULL,
	                  &out, NULL, NULL) != AIR_OK) {
		json_decref(out);
		out = NULL;
	}
	air__buf_dispose(&q);
	return out;
}

void air__run_fetch_mlflow_name(air_client *c, const air__ctx *ctx, air_run *run)
{
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL;

	if (!run->mlflow_run_id || run->mlflow_run_name)
		return;
	air__buf_query(&q, "run_id", run->mlflow_run_id);
	if (!air__buf_oom(&q) &&
	    air__api_json(c, ctx, "GET", "/api/2.0/mlflow/runs/get", air__buf_cstr(&q), NULL, &reply,
	                  NULL, NULL) == AIR_OK)
		run->mlflow_run_name =
			air__strdup(air__json_nonempty(air__json_at(reply, "run.info"), "run_name"));
	json_decref(reply);
	air__buf_dispose(&q);
}
