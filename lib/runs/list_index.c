/* list_index.c: the index strategy of the run listing. */
#include "transport/transport.h"
#include "runs/list.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HYDRATE_BATCH 16

/* ---- submit times ----------------------------------------------------------- */

/* An RFC 3339 time -> ns since the epoch, or 0. */
static int64_t parse_rfc3339(const char *s)
{
	int64_t secs;
	int32_t nanos;

	if (!air__parse_rfc3339(s, &secs, &nanos))
		return 0;
	return secs > 0 && secs < INT64_MAX / 1000000000 ? secs * 1000000000 + nanos : 0;
}

int64_t air__parse_submit_time(const json_t *v)
{
	int64_t secs, nanos;

	if (json_is_string(v))
		return parse_rfc3339(json_string_value(v));
	if (!air__json_int64(v, "seconds", &secs) || secs <= 0 ||
	    secs >= INT64_MAX / 1000000000 - 1)
		return 0;
	nanos = air__json_int64_or(v, "nanos", 0);
	return secs * 1000000000 + (nanos > 0 && nanos < 1000000000 ? nanos : 0);
}

static int newest_first(const void *a, const void *b)
{
	const air__index_entry *x = a, *y = b;

	if (x->submit_ns != y->submit_ns)
		return x->submit_ns > y->submit_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

void air__index_sort(air__index_entry *e, size_t n)
{
	if (n > 1)
		qsort(e, n, sizeof(*e), newest_first);
}

void air__list_sort_rows(air_run **rows, size_t n)
{
	/* Batches are small (<= 16): a stable insertion sort. */
	for (size_t i = 1; i < n; i++) {
		air_run *r = rows[i];
		int64_t t = air__list_row_start_ms(r);
		size_t j = i;

		while (j > 0) {
			int64_t u = air__list_row_start_ms(rows[j - 1]);
			/* Move r up while it starts later, or the other has no start. */
			if (!(t > 0 && (u <= 0 || t > u)))
				break;
			rows[j] = rows[j - 1];
			j--;
		}
		rows[j] = r;
	}
}

/* ---- reading the index ------------------------------------------------------ */

static int add_entries(air_run_iter *it, const json_t *page, json_t *seen_ids)
{
	const json_t *items = json_object_get(page, "training_workflows");
	size_t i, n = json_array_size(items);
	json_t *w;
	air__index_entry *p;

	if (!n)
		return AIR_OK;
	p = air__realloc(it->ids, (it->n_ids + n) * sizeof(*p));
	if (!p)
		return AIR_ENOMEM;
	it->ids = p;
	json_array_foreach(items, i, w) {
		int64_t id;
		char key[24];

		if (!air__json_int64(w, "job_run_id", &id) || id <= 0)
			continue;
		snprintf(key, sizeof(key), "%lld", (long long)id);
		if (json_object_get(seen_ids, key))
			continue;
		if (json_object_set_new(seen_ids, key, json_true()))
			return AIR_ENOMEM;
		p[it->n_ids].run_id = id;
		p[it->n_ids].submit_ns = air__parse_submit_time(json_object_get(w, "submit_time"));
		p[it->n_ids].order = it->n_ids;
		it->n_ids++;
	}
	return AIR_OK;
}

static int load_index(air_run_iter *it, air_error **err)
{
	json_t *seen_tokens = json_object(), *seen_ids = json_object();
	char *token = NULL;
	int rc = seen_tokens && seen_ids ? AIR_OK : AIR_ENOMEM;

	while (rc == AIR_OK) {
		air__buf q = AIR__BUF_INIT;
		json_t *page = NULL;
		const char *next;

		if (token)
			air__buf_query(&q, "page_token", token);
		rc = air__buf_oom(&q) ? AIR_ENOMEM
		                      : air__api_json(it->client, &it->ctx, "GET",
		                                      "/api/2.0/ai-training/workflows",
		                                      token ? air__buf_cstr(&q) : NULL, NULL, &page,
		                                      NULL, err);
		air__buf_dispose(&q);
		if (rc == AIR_OK)
			rc = add_entries(it, page, seen_ids);
		next = air__json_nonempty(page, "next_page_token");
		air__free(token);
		token = NULL;
		if (rc == AIR_OK && next && !json_object_get(seen_tokens, next)) {
			token = air__strdup(next);
			if (!token || json_object_set_new(seen_tokens, next, json_true()))
				rc = AIR_ENOMEM;
		}
		json_decref(page);
		if (!token)
			break;
	}
	air__free(token);
	json_decref(seen_tokens);
	json_decref(seen_ids);
	return rc;
}

/* ---- hydration ------------------------------------------------------------- */

static bool dropped_status(int32_t status) { return status == 403 || status == 404; }

/* The runs/get object of a hydrated id: from the parallel reply when it is
 * complete, else read again on its own (which also yields the proper error).
 * *obj stays NULL when the id is dropped (403/404). */
static int hydrated(air_run_iter *it, int64_t id, const air__http_resp *resp, json_t **obj,
                    air_error **err)
{
	air_error *e = NULL;
	int rc;

	*obj = NULL;
	if (dropped_status(resp->status))
		return AIR_OK;
	if (resp->status >= 200 && resp->status < 300 && resp->body) {
		*obj = json_loadb(resp->body, resp->body_len, 0, NULL);
		if (json_is_object(*obj) && !air__json_nonempty(*obj, "next_page_token"))
			return AIR_OK;
		json_decref(*obj);
		*obj = NULL;
	}
	rc = air__run_fetch_json(it->client, &it->ctx, id, obj, &e);
	if (rc != AIR_OK && dropped_status(air_error_http_status(e))) {
		air_error_free(e);
		return AIR_OK;
	}
	return rc == AIR_OK ? AIR_OK : air__list_skip_damaged(it, id, e, err);
}

static int hydrate_batch(air_run_iter *it, air_error **err)
{
	size_t n = it->n_ids - it->id_pos < HYDRATE_BATCH ? it->n_ids - it->id_pos : HYDRATE_BATCH;
	air__http_req reqs[HYDRATE_BATCH] = {{0}};
	air__http_resp resps[HYDRATE_BATCH];
	air__buf qs[HYDRATE_BATCH];
	json_t *cached[HYDRATE_BATCH];
	size_t slot[HYDRATE_BATCH], m = 0; /* the request of id k, when not cached */
	air_run *rows[HYDRATE_BATCH];
	size_t nrows = 0;
	air_error *e = NULL;
	int rc = AIR_OK;

	for (size_t k = 0; k < n; k++) {
		int64_t id = it->ids[it->id_pos + k].run_id;

		/* A finished run listed before is read from the list cache. */
		if ((cached[k] = air__list_cache_get(it->cache, id)) != NULL)
			continue;
		slot[k] = m;
		air__buf_init(&qs[m]);
		air__query_run_id(&qs[m], id);
		memset(&reqs[m], 0, sizeof(reqs[m]));
		reqs[m].method = "GET";
		reqs[m].path = "/api/2.2/jobs/runs/get";
		reqs[m].query = air__buf_cstr(&qs[m]);
		resps[m] = (air__http_resp)AIR__HTTP_RESP_INIT;
		m++;
	}
	if (m)
		air__http_do_many(it->client, &it->ctx, reqs, m, resps, &e);
	air_error_free(e);
	for (size_t k = 0; k < n; k++) {
		json_t *obj = NULL;
		air_run *row = NULL;

		if (rc == AIR_OK && cached[k])
			obj = json_incref(json_object_get(cached[k], "run"));
		else if (rc == AIR_OK)
			rc = hydrated(it, it->ids[it->id_pos + k].run_id, &resps[slot[k]], &obj, err);
		if (rc == AIR_OK && obj)
			rc = air__iter_make_row(it, obj, &row, err);
		if (row) {
			row->from_get = true;
			row->cache_hit = cached[k] != NULL;
			row->cache_mlflow = air__list_cache_apply_mlflow(cached[k], row,
			                                                 air__client_host(it->client));
		}
		if (row && air__list_task_filters_match(&it->opts, row))
			rows[nrows++] = row;
		else
			air_run_free(row);
		json_decref(cached[k]);
	}
	for (size_t k = 0; k < m; k++) {
		air__http_resp_clear(&resps[k]);
		air__buf_dispose(&qs[k]);
	}
	it->id_pos += n;
	air__list_sort_rows(rows, nrows);
	for (size_t k = 0; k < nrows; k++) {
		if (rc == AIR_OK && it->queued < it->opts.limit)
			rc = air__iter_push(it, rows[k], err);
		else
			air_run_free(rows[k]);
	}
	return rc;
}

int air__index_fill(air_run_iter *it, air_error **err)
{
	int rc;

	if (!it->index_loaded) {
		air_error *e = NULL;

		rc = load_index(it, &e);
		if (rc != AIR_OK) {
			air__client_debug(it->client, AIR_DEBUG_INFO,
			                  "run index unavailable (%s); scanning runs/list instead",
			                  e ? air_error_message(e) : air_strerror(rc));
			air_error_free(e);
			air__free(it->ids);
			it->ids = NULL;
			it->n_ids = 0;
			it->use_index = false;
			return AIR_OK;
		}
		it->index_loaded = true;
		air__index_sort(it->ids, it->n_ids);
		/* Without task filters every hydrated row counts: read only the newest. */
		if (!air__list_has_task_filter(&it->opts) && (int64_t)it->n_ids > it->opts.limit)
			it->n_ids = (size_t)it->opts.limit;
	}
	if (it->id_pos < it->n_ids && it->queued < it->opts.limit)
		rc = hydrate_batch(it, err);
	else
		rc = AIR_OK;
	if (it->id_pos >= it->n_ids || it->queued >= it->opts.limit)
		it->done = true;
	return rc;
}
