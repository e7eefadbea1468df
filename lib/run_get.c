/* run_get.c: air_client_get_run(), PROTOCOL §2.1. */
#include "client_internal.h"
#include "run_internal.h"

#include <string.h>

/* The for-each task's own run id (its runs/get lists the iterations). */
static int64_t foreach_task_run_id(const air_run *run)
{
	const json_t *tasks = json_object_get(run->json, "tasks");
	size_t i;
	json_t *t;

	json_array_foreach(tasks, i, t) {
		if (json_is_object(json_object_get(t, "for_each_task")))
			return air__json_int64_or(t, "run_id", 0);
	}
	return 0;
}

static void read_sweep(air_client *c, const air__ctx *ctx, air_run *run)
{
	int64_t id = foreach_task_run_id(run);
	json_t *obj;

	if (id > 0 && air__run_fetch_json(c, ctx, id, &obj, NULL) == AIR_OK)
		air__run_set_iterations(run, obj);
}

/* PROTOCOL §2.1 step 8: the uploaded YAML sits next to command.sh. */
static void read_config(air_client *c, const air__ctx *ctx, air_run *run)
{
	const char *slash = run->command_path ? strrchr(run->command_path, '/') : NULL;
	air__http_req req = {0};
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air__buf path = AIR__BUF_INIT, q = AIR__BUF_INIT;

	if (!slash)
		return;
	air__buf_put(&path, run->command_path, (size_t)(slash - run->command_path));
	air__buf_puts(&path, "/training_config.yaml");
	air__buf_query(&q, "path", air__buf_cstr(&path));
	air__buf_query(&q, "direct_download", "true");
	req.method = "GET";
	req.path = "/api/2.0/workspace/export";
	req.query = air__buf_cstr(&q);
	if (!air__buf_oom(&path) && !air__buf_oom(&q) &&
	    air__http_do(c, ctx, &req, &resp, NULL) == AIR_OK && resp.body) {
		run->config_yaml = resp.body;
		run->config_len = resp.body_len;
		resp.body = NULL;
	}
	air__http_resp_clear(&resp);
	air__buf_dispose(&path);
	air__buf_dispose(&q);
}

static int oom(air_error **err) { return air__failf(err, AIR_ENOMEM, 0, "out of memory"); }

int air_client_get_run(air_client *client, int64_t run_id, uint32_t flags, air_run **out,
                       air_error **err)
{
	air_run *run = NULL;
	int64_t ws = 0;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_run: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_run: client is NULL");
	if (run_id <= 0)
		return air__fail(err, air__error_set_field(
			air__error_new(AIR_EINVAL, 0, "invalid run ID %lld: must be a positive integer",
			               (long long)run_id),
			"run_id"));
	rc = air__client_ensure_resolved(client, NULL, err);
	if (rc == AIR_OK)
		rc = air__run_fetch(client, NULL, run_id, &run, err);
	if (rc == AIR_OK && (flags & AIR_GET_WORKSPACE_ID)) {
		rc = air__client_workspace_id(client, NULL, &ws, err);
		if (rc == AIR_OK && air__run_set_dashboard(run, air__client_host(client), ws, true))
			rc = oom(err);
	}
	if (rc == AIR_OK && (flags & (AIR_GET_MLFLOW | AIR_GET_MLFLOW_NAME))) {
		json_t *o = air__run_fetch_output(client, NULL, run->task_run_id);
		if (air__run_set_output(run, o, air__client_host(client)) != AIR_OK)
			rc = oom(err);
		json_decref(o);
	}
	if (rc == AIR_OK && (flags & AIR_GET_SWEEP) && run->sweep)
		read_sweep(client, NULL, run);
	if (rc == AIR_OK && (flags & AIR_GET_MLFLOW_NAME))
		air__run_fetch_mlflow_name(client, NULL, run);
	if (rc == AIR_OK && (flags & AIR_GET_CONFIG))
		read_config(client, NULL, run);
	if (rc != AIR_OK) {
		air_run_free(run);
		return rc;
	}
	*out = run;
	return AIR_OK;
}
