/* get.c: air_client_get_run() and its options. */
#include "transport/transport.h"
#include "runs/runs.h"

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

/* The uploaded YAML sits next to command.sh. */
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

/* ---- options ------------------------------------------------------------------- */

int air_get_options_new(air_get_options **out)
{
	if (!out)
		return AIR_EINVAL;
	*out = air__calloc(1, sizeof(**out));
	return *out ? AIR_OK : AIR_ENOMEM;
}

void air_get_options_free(air_get_options *opts) { air__free(opts); }

int air_get_options_set_int(air_get_options *opts, int32_t opt, int64_t value)
{
	bool *flag;

	if (!opts)
		return AIR_EINVAL;
	switch (opt) {
	case AIR_GET_MLFLOW: flag = &opts->mlflow; break;
	case AIR_GET_SWEEP: flag = &opts->sweep; break;
	case AIR_GET_WORKSPACE_ID: flag = &opts->workspace_id; break;
	case AIR_GET_MLFLOW_NAME: flag = &opts->mlflow_name; break;
	case AIR_GET_CONFIG: flag = &opts->config; break;
	default: return AIR_EUNSUPPORTED;
	}
	if (value != 0 && value != 1)
		return AIR_EINVAL;
	*flag = value == 1;
	return AIR_OK;
}

int air_get_options_set_interrupt(air_get_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_get_options_set_deadline_ms(air_get_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

/* ---- the call ------------------------------------------------------------------ */

int air_client_get_run(air_client *client, int64_t run_id, const air_get_options *opts,
                       air_run **out, air_error **err)
{
	static const air_get_options defaults;
	const air_get_options *o = opts ? opts : &defaults;
	air_run *run = NULL;
	int64_t ws = 0;
	air__ctx ctx;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_run: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_run: client is NULL");
	if ((rc = air__check_run_id(run_id, err)) != AIR_OK)
		return rc;
	air__client_ctx(client, &o->call, &ctx);
	rc = air__client_ensure_resolved(client, &ctx, err);
	if (rc == AIR_OK)
		rc = air__run_fetch(client, &ctx, run_id, &run, err);
	if (rc == AIR_OK && o->workspace_id) {
		rc = air__client_workspace_id(client, &ctx, &ws, err);
		if (rc == AIR_OK && air__run_set_dashboard(run, air__client_host(client), ws, true))
			rc = air__oom(err);
	}
	if (rc == AIR_OK && (o->mlflow || o->mlflow_name)) {
		json_t *j = air__run_fetch_output(client, &ctx, run->task_run_id);
		if (air__run_set_output(run, j, air__client_host(client)) != AIR_OK)
			rc = air__oom(err);
		json_decref(j);
	}
	if (rc == AIR_OK && o->sweep && run->sweep)
		read_sweep(client, &ctx, run);
	if (rc == AIR_OK && o->mlflow_name)
		air__run_fetch_mlflow_name(client, &ctx, run);
	if (rc == AIR_OK && o->config)
		read_config(client, &ctx, run);
	/* The best-effort reads give up quietly: an interrupt or the deadline
	 * must still be the outcome of the call. */
	if (rc == AIR_OK)
		rc = air__ctx_check(&ctx, "runs/get", err);
	if (rc != AIR_OK) {
		air_run_free(run);
		return rc;
	}
	*out = run;
	return AIR_OK;
}
