/* list.c: the run listing iterator and its scan strategy (docs/runs-and-logs.md). */
#include "transport/transport.h"
#include "runs/list.h"

#include <string.h>

#define MLFLOW_PARALLEL 8

int64_t air__list_row_start_ms(const air_run *run)
{
	int64_t t = air__json_int64_or(air__json_at(run->json, "tasks.0"), "start_time", 0);

	return t > 0 ? t : run->run_start_ms;
}

int air__iter_push(air_run_iter *it, air_run *run, air_error **err)
{
	if (it->n_ready == it->cap) {
		size_t cap = it->cap ? it->cap * 2 : 32;
		air_run **p = air__realloc(it->ready, cap * sizeof(*p));
		if (!p) {
			air_run_free(run);
			return air__oom(err);
		}
		it->ready = p;
		it->cap = cap;
	}
	it->ready[it->n_ready++] = run;
	it->queued++;
	return AIR_OK;
}

int air__iter_make_row(air_run_iter *it, json_t *obj, air_run **out, air_error **err)
{
	int rc = air__run_from_json(obj, out, err);

	if (rc == AIR_OK &&
	    air__run_set_dashboard(*out, air__client_host(it->client), it->ws_id, it->with_ws)) {
		air_run_free(*out);
		*out = NULL;
		rc = air__oom(err);
	}
	return rc;
}

int air__list_skip_damaged(air_run_iter *it, int64_t run_id, air_error *e, air_error **err)
{
	const char *code = air_error_server_code(e);
	int stop;

	if (!code || strcmp(code, "DATA_LOSS") != 0)
		return air__fail(err, e);
	air__client_debug(it->client, AIR_DEBUG_INFO, "run %lld left out of the listing: %s",
	                  (long long)run_id, air_error_message(e));
	stop = it->opts.on_skip ? it->opts.on_skip(run_id, e, it->opts.skip_ud) : 0;
	air_error_free(e);
	return stop ? air__failf(err, AIR_EABORTED, 0, "listing runs: stopped by the skip callback")
	            : AIR_OK;
}

/* ---- scan strategy -------------------------------------------------------- */

static int fetch_page(air_run_iter *it, air_error **err)
{
	air__buf q = AIR__BUF_INIT;
	json_t *page = NULL;
	const char *next;
	int rc;

	air__buf_query(&q, "run_type", "SUBMIT_RUN");
	air__buf_query(&q, "expand_tasks", "true");
	air__buf_query_int(&q, "limit", 25);
	if (!it->opts.all_status)
		air__buf_query(&q, "active_only", "true");
	if (it->token)
		air__buf_query(&q, "page_token", it->token);
	rc = air__buf_oom(&q) ? air__oom(err)
	                      : air__api_json(it->client, &it->ctx, "GET", "/api/2.2/jobs/runs/list",
	                                      air__buf_cstr(&q), NULL, &page, NULL, err);
	air__buf_dispose(&q);
	if (rc != AIR_OK)
		return rc;
	json_decref(it->page);
	it->page = page;
	it->page_pos = 0;
	air__free(it->token);
	it->token = NULL;
	next = air__json_nonempty(page, "next_page_token");
	/* End of data: no token, has_more false, or a token seen before. */
	if (next && !json_is_false(json_object_get(page, "has_more")) &&
	    !json_object_get(it->seen_tokens, next)) {
		it->token = air__strdup(next);
		if (!it->token || json_object_set_new(it->seen_tokens, next, json_true()))
			return air__oom(err);
	}
	return AIR_OK;
}

/* Inspect one listed run; queue it when it is a matching AI Runtime run. */
static int scan_one(air_run_iter *it, const json_t *listed, air_error **err)
{
	const char *creator = air__json_str(listed, "creator_user_name");
	json_t *obj;
	air_run *row;
	int rc;

	if (it->scope_user && (!creator || strcmp(creator, it->scope_user)))
		return AIR_OK;
	if (json_is_true(json_object_get(listed, "has_more"))) {
		/* The task list was truncated: read the whole run. */
		int64_t id = air__json_int64_or(listed, "run_id", 0);
		air_error *e = NULL;

		rc = air__run_fetch_json(it->client, &it->ctx, id, &obj, &e);
		if (rc != AIR_OK)
			return air__list_skip_damaged(it, id, e, err);
	} else {
		obj = json_incref((json_t *)listed);
	}
	if (!air__run_json_is_ai_runtime(obj)) {
		json_decref(obj);
		return AIR_OK;
	}
	rc = air__iter_make_row(it, obj, &row, err);
	if (rc != AIR_OK)
		return rc;
	if (!air__list_task_filters_match(&it->opts, row)) {
		air_run_free(row);
		return AIR_OK;
	}
	return air__iter_push(it, row, err);
}

static int scan_fill(air_run_iter *it, air_error **err)
{
	int rc;

	while (!it->done) {
		const json_t *runs = json_object_get(it->page, "runs");
		bool in_page = it->page && it->page_pos < json_array_size(runs);

		if ((in_page || !it->page || it->token) && it->inspected >= it->opts.max_inspected) {
			it->truncated = it->done = true; /* more runs exist but were not inspected */
			break;
		}
		if (in_page) {
			it->inspected++;
			rc = scan_one(it, json_array_get(runs, it->page_pos++), err);
			if (rc != AIR_OK)
				return rc;
			if (it->queued >= it->opts.limit)
				it->done = true;
			continue;
		}
		if (it->n_ready > it->pos)
			break; /* hand these out before reading another page */
		if (it->page && !it->token) {
			it->done = true;
			break;
		}
		rc = fetch_page(it, err);
		if (rc != AIR_OK)
			return rc;
	}
	return AIR_OK;
}

/* ---- MLflow ids of the queued rows (text listings) ------------------------ */

/* One round of up to MLFLOW_PARALLEL GETs, one per row of @rows that has a value. */
static void parallel_get(air_run_iter *it, air_run **rows, size_t n, const char *path,
                         bool output_round)
{
	air__http_req reqs[MLFLOW_PARALLEL] = {{0}};
	air__http_resp resps[MLFLOW_PARALLEL];
	air__buf qs[MLFLOW_PARALLEL];
	air_run *who[MLFLOW_PARALLEL];
	air_error *e = NULL;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		air_run *r = rows[i];
		if (r->cache_mlflow || (output_round ? r->first_task_run_id <= 0 : !r->mlflow_run_id))
			continue;
		air__buf_init(&qs[m]);
		if (output_round)
			air__query_run_id(&qs[m], r->first_task_run_id);
		else
			air__buf_query(&qs[m], "run_id", r->mlflow_run_id);
		memset(&reqs[m], 0, sizeof(reqs[m]));
		reqs[m].method = "GET";
		reqs[m].path = path;
		reqs[m].query = air__buf_cstr(&qs[m]);
		resps[m] = (air__http_resp)AIR__HTTP_RESP_INIT;
		who[m++] = r;
	}
	if (m)
		air__http_do_many(it->client, &it->ctx, reqs, m, resps, &e);
	air_error_free(e);
	for (size_t k = 0; k < m; k++) {
		json_t *obj = NULL;

		if (resps[k].status >= 200 && resps[k].status < 300 && resps[k].body)
			obj = json_loadb(resps[k].body, resps[k].body_len, 0, NULL);
		if (obj && output_round)
			air__run_set_output(who[k], obj, air__client_host(it->client));
		else if (obj && !who[k]->mlflow_run_name)
			who[k]->mlflow_run_name = air__strdup(
				air__json_nonempty(air__json_at(obj, "run.info"), "run_name"));
		json_decref(obj);
		air__http_resp_clear(&resps[k]);
		air__buf_dispose(&qs[k]);
	}
}

static void resolve_mlflow(air_run_iter *it)
{
	/* Finished runs listed before with their MLflow ids need no request. */
	for (size_t i = it->pos; it->cache && i < it->n_ready; i++) {
		air_run *r = it->ready[i];
		json_t *entry = r->terminal && !r->cache_mlflow ? air__list_cache_get(it->cache, r->id)
		                                                : NULL;
		r->cache_mlflow = r->cache_mlflow ||
		                  air__list_cache_apply_mlflow(entry, r, air__client_host(it->client));
		json_decref(entry);
	}
	for (size_t i = it->pos; i < it->n_ready; i += MLFLOW_PARALLEL) {
		size_t n = it->n_ready - i < MLFLOW_PARALLEL ? it->n_ready - i : MLFLOW_PARALLEL;

		parallel_get(it, it->ready + i, n, "/api/2.2/jobs/runs/get-output", true);
		parallel_get(it, it->ready + i, n, "/api/2.0/mlflow/runs/get", false);
	}
}

/* Keep the finished runs of the batch just queued that the cache lacks. */
static void remember(air_run_iter *it)
{
	for (size_t i = it->pos; it->cache && i < it->n_ready; i++) {
		const air_run *r = it->ready[i];
		bool fresh = r->from_get && !r->cache_hit;

		if (r->terminal && (fresh || (r->cache_hit && it->opts.mlflow && !r->cache_mlflow)))
			air__list_cache_put(it->cache, r, it->opts.mlflow || r->cache_mlflow);
	}
}

/* ---- public API ----------------------------------------------------------- */

int air_client_list_runs(air_client *client, const air_list_options *opts, air_run_iter **out,
                         air_error **err)
{
	air_list_options defaults;
	air_run_iter *it;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_list_runs: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_list_runs: client is NULL");
	air__list_options_defaults(&defaults);
	it = air__calloc(1, sizeof(*it));
	if (!it)
		return air__oom(err);
	if (!air__list_options_copy(&it->opts, opts ? opts : &defaults) ||
	    !(it->seen_tokens = json_object())) {
		air_run_iter_free(it);
		return air__oom(err);
	}
	it->client = client;
	air__client_ctx(client, &it->opts.call, &it->ctx);
	rc = air__client_ensure_resolved(client, &it->ctx, err);
	if (rc == AIR_OK && it->opts.user) {
		it->scope_user = air__strdup(it->opts.user);
		if (!it->scope_user)
			rc = air__oom(err);
	} else if (rc == AIR_OK && !it->opts.all_users) {
		rc = air__client_user_name(client, &it->ctx, &it->scope_user, err);
	}
	if (rc == AIR_OK && it->opts.workspace_probe) {
		/* Links still work without it: "?o=0", as the reference prints. */
		if (air__client_workspace_id(client, &it->ctx, &it->ws_id, NULL) != AIR_OK)
			it->ws_id = 0;
		it->with_ws = true;
		rc = air__ctx_check(&it->ctx, "listing runs", err);
	} else if (rc == AIR_OK) {
		it->ws_id = air__client_known_workspace_id(client);
	}
	if (rc != AIR_OK) {
		air_run_iter_free(it);
		return rc;
	}
	/* The index only knows the caller's own runs. A user= filter counts as
	 * foreign: the listing does not look the caller up when one is given
	 *, so it cannot know the name is the caller's. */
	it->use_index = it->opts.all_status && !it->opts.all_users && !it->opts.user;
	if (it->opts.cache)
		it->cache = air__list_cache_open(client);
	*out = it;
	return AIR_OK;
}

int air_run_iter_next(air_run_iter *iter, const air_run **run, air_error **err)
{
	int rc = AIR_OK;

	if (run)
		*run = NULL;
	if (!iter || !run)
		return air__failf(err, AIR_EINVAL, 0, "air_run_iter_next: %s is NULL",
		                  iter ? "run" : "iter");
	air_run_free(iter->current);
	iter->current = NULL;
	while (iter->pos == iter->n_ready && !iter->done) {
		iter->n_ready = iter->pos = 0;
		rc = iter->use_index ? air__index_fill(iter, err) : scan_fill(iter, err);
		/* Best-effort look-ups give up quietly: an interrupt must still end it. */
		if (rc == AIR_OK && iter->opts.mlflow)
			resolve_mlflow(iter);
		if (rc == AIR_OK)
			remember(iter);
		if (rc == AIR_OK)
			rc = air__ctx_check(&iter->ctx, "listing runs", err);
		if (rc != AIR_OK) {
			iter->done = true;
			return rc;
		}
	}
	if (iter->pos == iter->n_ready)
		return AIR_EDONE;
	iter->current = iter->ready[iter->pos++];
	*run = iter->current;
	return AIR_OK;
}

int32_t air_run_iter_truncated(const air_run_iter *iter) { return iter && iter->truncated; }

void air_run_iter_free(air_run_iter *iter)
{
	if (!iter)
		return;
	for (size_t i = iter->pos; i < iter->n_ready; i++)
		air_run_free(iter->ready[i]);
	air__free(iter->ready);
	air_run_free(iter->current);
	air__list_options_dispose(&iter->opts);
	air__free(iter->scope_user);
	json_decref(iter->page);
	air__free(iter->token);
	json_decref(iter->seen_tokens);
	air__free(iter->ids);
	air__list_cache_close(iter->cache);
	air__free(iter);
}

int air__list_each(air_client *client, const air__call_opts *call, const char *sweep_tag,
                   bool all_status, int (*each)(const air_run *run, void *ud), void *ud,
                   air_error **err)
{
	air_list_options opts;
	air_run_iter *it = NULL;
	const air_run *run;
	int rc;

	air__list_options_defaults(&opts);
	opts.limit = 2000;
	opts.all_status = all_status;
	opts.workspace_probe = false;
	if (call)
		opts.call = *call;
	if (sweep_tag && !(opts.sweep_tag = air__strdup(sweep_tag)))
		return air__oom(err);
	rc = air_client_list_runs(client, &opts, &it, err);
	air__free(opts.sweep_tag);
	while (rc == AIR_OK && (rc = air_run_iter_next(it, &run, err)) == AIR_OK)
		if ((rc = each(run, ud)) != AIR_OK)
			rc = rc == AIR_ENOMEM ? air__oom(err) : air__failf(err, rc, 0, "listing stopped");
	air_run_iter_free(it);
	return rc == AIR_EDONE ? AIR_OK : rc;
}
