/* mlflow.c: MLflow log artifacts, the fallback of docs/runs-and-logs.md#mlflow-fallback. */
#include "logs/logs.h"

#include <stdlib.h>
#include <string.h>


/* ---- listing -------------------------------------------------------------------- */

/* Paths of every entry of artifact directory @dir (all pages) as a JSON array. */
static int list_dir(air_client *c, const air__ctx *ctx, const char *mlflow_run, const char *dir,
                    json_t **out, air_error **err)
{
	json_t *paths = json_array(), *seen = json_object();
	char *token = NULL;
	int rc = paths && seen ? AIR_OK : air__oom(err);

	while (rc == AIR_OK) {
		air__buf q = AIR__BUF_INIT;
		json_t *reply = NULL, *f;
		const char *next;
		size_t i;

		air__buf_query(&q, "run_id", mlflow_run);
		air__buf_query(&q, "path", dir);
		if (token)
			air__buf_query(&q, "page_token", token);
		rc = air__buf_oom(&q) ? air__oom(err)
		                      : air__api_json(c, ctx, "GET", "/api/2.0/mlflow/artifacts/list",
		                                      air__buf_cstr(&q), NULL, &reply, NULL, err);
		air__buf_dispose(&q);
		json_array_foreach(json_object_get(reply, "files"), i, f) {
			const char *p = air__json_nonempty(f, "path");
			if (p && json_array_append_new(paths, json_string(p)) != 0)
				rc = air__oom(err);
		}
		next = air__json_nonempty(reply, "next_page_token");
		air__free(token);
		token = NULL;
		if (rc == AIR_OK && next && !json_object_get(seen, next)) {
			token = air__strdup(next);
			if (!token || json_object_set_new(seen, next, json_true()))
				rc = air__oom(err);
		}
		json_decref(reply);
		if (!token)
			break;
	}
	air__free(token);
	json_decref(seen);
	if (rc != AIR_OK) {
		json_decref(paths);
		return rc;
	}
	*out = paths;
	return AIR_OK;
}

static bool is_old_node_dir(const char *p)
{
	const char *d = p + strlen("logs/node_");

	if (!air__starts_with(p, "logs/node_") || !*d)
		return false;
	for (; *d; d++)
		if (*d < '0' || *d > '9')
			return false;
	return true;
}

bool air__mlflow_attempt_layout(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                                int32_t attempt)
{
	char want[48];
	bool old = false, found = false;
	json_t *paths, *p;
	size_t i;

	/* A failed probe means the old layout. */
	if (list_dir(c, ctx, mlflow_run, "logs", &paths, NULL) != AIR_OK)
		return false;
	snprintf(want, sizeof(want), "logs/attempt_%d", attempt);
	json_array_foreach(paths, i, p) {
		old = old || is_old_node_dir(json_string_value(p));
		found = found || !strcmp(json_string_value(p), want);
	}
	json_decref(paths);
	return !old && found;
}

char *air__mlflow_log_dir(bool attempt_layout, int32_t attempt, int32_t node)
{
	if (attempt_layout)
		return air__sprintf("logs/attempt_%d/node_%d", attempt, node);
	return air__sprintf("logs/node_%d", node);
}

int64_t air__mlflow_chunk_index(const char *path)
{
	const char *base = strrchr(path, '/'), *d, *end;
	int64_t v;
	char num[24];

	base = base ? base + 1 : path;
	if (!air__starts_with(base, "logs-"))
		return -1;
	d = base + strlen("logs-");
	for (end = d; *end >= '0' && *end <= '9'; end++)
		;
	if (end == d || (size_t)(end - d) >= sizeof(num) || strcmp(end, ".chunk.txt") != 0)
		return -1;
	memcpy(num, d, (size_t)(end - d));
	num[end - d] = '\0';
	return air__parse_int64(num, &v) ? v : -1;
}

static int by_index(const void *a, const void *b)
{
	const air__chunk *x = a, *y = b;
	return (x->index > y->index) - (x->index < y->index);
}

void air__mlflow_chunks_free(air__chunk *chunks, size_t n)
{
	for (size_t i = 0; chunks && i < n; i++)
		air__free(chunks[i].path);
	air__free(chunks);
}

int air__mlflow_list_chunks(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                            const char *dir, air__chunk **out, size_t *n, air_error **err)
{
	json_t *paths, *p;
	air__chunk *chunks;
	size_t i, count = 0;
	int rc = list_dir(c, ctx, mlflow_run, dir, &paths, err);

	*out = NULL;
	*n = 0;
	if (rc != AIR_OK)
		return rc;
	chunks = air__calloc(json_array_size(paths) + 1, sizeof(*chunks));
	if (!chunks) {
		json_decref(paths);
		return air__oom(err);
	}
	json_array_foreach(paths, i, p) {
		int64_t idx = air__mlflow_chunk_index(json_string_value(p));
		if (idx < 0)
			continue;
		chunks[count].index = idx;
		if (!(chunks[count++].path = air__strdup(json_string_value(p))))
			rc = air__oom(err);
	}
	json_decref(paths);
	if (rc == AIR_OK && count == 0) {
		/* Nothing listed: the first chunk may still exist. */
		chunks[0].index = 0;
		if (!(chunks[count++].path = air__sprintf("%s/logs-0.chunk.txt", dir)))
			rc = air__oom(err);
	}
	if (rc != AIR_OK) {
		air__mlflow_chunks_free(chunks, count);
		return rc;
	}
	qsort(chunks, count, sizeof(*chunks), by_index);
	*out = chunks;
	*n = count;
	return AIR_OK;
}

/* ---- signed downloads ----------------------------------------------------------- */

void air__signed_dispose(air__signed *sg)
{
	for (size_t i = 0; sg->headers && sg->headers[i]; i++)
		air__free(sg->headers[i]);
	air__free(sg->headers);
	air__free(sg->url);
	memset(sg, 0, sizeof(*sg));
}

static bool header_safe(const char *s) { return !strpbrk(s, "\r\n"); }

int air__mlflow_sign(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                     const char *path, air__signed *out, air_error **err)
{
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL, *h;
	const json_t *info, *hdrs;
	const char *url;
	size_t i, n = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	air__buf_query(&q, "run_id", mlflow_run);
	air__buf_query(&q, "path", path);
	rc = air__buf_oom(&q) ? air__oom(err)
	                      : air__api_json(c, ctx, "GET",
	                                      "/api/2.0/mlflow/artifacts/credentials-for-read",
	                                      air__buf_cstr(&q), NULL, &reply, NULL, err);
	air__buf_dispose(&q);
	if (rc != AIR_OK)
		return rc;
	info = air__json_at(reply, "credential_infos.0");
	url = air__json_nonempty(info, "signed_uri");
	if (!url) {
		json_decref(reply);
		return air__failf(err, AIR_EPROTO, 0, "the workspace returned no signed URL for %s", path);
	}
	hdrs = json_object_get(info, "headers");
	out->url = air__strdup(url);
	out->absolute = strstr(url, "://") != NULL;
	out->headers = air__calloc(json_array_size(hdrs) + 1, sizeof(char *));
	if (!out->url || !out->headers)
		rc = air__oom(err);
	json_array_foreach(hdrs, i, h) {
		const char *name = air__json_nonempty(h, "name"), *value = air__json_str(h, "value");
		if (rc != AIR_OK || !name || !header_safe(name) || !header_safe(value ? value : ""))
			continue;
		if (!(out->headers[n++] = air__sprintf("%s: %s", name, value ? value : "")))
			rc = air__oom(err);
	}
	json_decref(reply);
	if (rc != AIR_OK)
		air__signed_dispose(out);
	return rc;
}

void air__signed_request(const air__signed *sg, air__http_req *req)
{
	memset(req, 0, sizeof(*req));
	req->method = "GET";
	req->path = sg->url;
	req->headers = (const char *const *)sg->headers;
	/* Pre-signed storage URLs must never see the workspace credentials. */
	req->flags = AIR__HTTP_NO_AUTH | AIR__HTTP_NO_WORKSPACE |
	             (sg->absolute ? AIR__HTTP_ABSOLUTE_URL : 0);
	/* docs/errors.md#network-failures: connect within 10 s, no answer or progress for 60 s. */
	req->connect_timeout_ms = 10000;
	req->inactivity_timeout_ms = 60000;
}

int air__mlflow_download(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                         const char *path, air__http_resp *resp, air_error **err)
{
	air__signed sg;
	air__http_req req;
	int rc = air__mlflow_sign(c, ctx, mlflow_run, path, &sg, err);

	if (rc != AIR_OK)
		return rc;
	air__signed_request(&sg, &req);
	req.max_reply = AIR__LOGS_CHUNK_MAX;
	rc = air__http_do(c, ctx, &req, resp, err);
	air__signed_dispose(&sg);
	return rc;
}

/* ---- the fallback ------------------------------------------------------------------ */

/* One downloaded chunk split into lines (LF; a trailing CR dropped). */
typedef struct chunk_lines {
	char *body;
	size_t size;
	size_t *off, *len;
	size_t n;
} chunk_lines;

static int split_lines(chunk_lines *cl)
{
	size_t cap = 0;
	const char *p = cl->body, *end = p + cl->size;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (cl->n == cap) {
			size_t *o, *l;
			cap = cap ? cap * 2 : 64;
			o = air__realloc(cl->off, cap * sizeof(*o));
			if (o)
				cl->off = o;
			l = air__realloc(cl->len, cap * sizeof(*l));
			if (l)
				cl->len = l;
			if (!o || !l)
				return AIR_ENOMEM;
		}
		cl->off[cl->n] = (size_t)(p - cl->body);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		cl->len[cl->n++] = n > AIR__LOGS_MAX_LINE ? AIR__LOGS_MAX_LINE : n;
		p = nl ? nl + 1 : end;
	}
	return AIR_OK;
}

static void chunk_lines_dispose(chunk_lines *cl)
{
	air__free(cl->body);
	air__free(cl->off);
	air__free(cl->len);
}

/* Walk the chunks from the highest index down until @target lines are known. */
static int collect(air__stream *s, const air__chunk *chunks, size_t nchunks, int64_t target,
                   chunk_lines *got, size_t *ngot, int64_t *total, air_error **err)
{
	*ngot = 0;
	*total = 0;
	for (size_t i = nchunks; i > 0 && *total < target; i--) {
		air__http_resp resp = AIR__HTTP_RESP_INIT;
		air_error *e = NULL;
		chunk_lines *cl = &got[*ngot];
		int rc = air__mlflow_download(s->c, &s->ctx, s->run->mlflow_run_id, chunks[i - 1].path,
		                              &resp, &e);

		if (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT || rc == AIR_ENOMEM) {
			air__http_resp_clear(&resp);
			return e ? air__fail(err, e) : air__failf(err, rc, 0, "%s", air_strerror(rc));
		}
		if (rc != AIR_OK) {
			/* Keep what was collected: older chunks cannot be placed after a gap. */
			air__client_debug(s->c, AIR_DEBUG_INFO, "MLflow log chunk %s: %s", chunks[i - 1].path,
			                  e ? air_error_message(e) : air_strerror(rc));
			air_error_free(e);
			air__http_resp_clear(&resp);
			break;
		}
		memset(cl, 0, sizeof(*cl));
		cl->body = resp.body;
		cl->size = resp.body ? resp.body_len : 0;
		resp.body = NULL;
		air__http_resp_clear(&resp);
		(*ngot)++;
		if (split_lines(cl) != AIR_OK)
			return air__oom(err);
		*total += (int64_t)cl->n;
	}
	return AIR_OK;
}

static int deliver(air__stream *s, chunk_lines *got, size_t ngot, int64_t total, int64_t target,
                   air_error **err)
{
	int64_t skip = total > target ? total - target : 0;
	int rc = AIR_OK;

	/* got[] runs from the newest chunk to the oldest. */
	for (size_t k = ngot; rc == AIR_OK && k > 0; k--) {
		chunk_lines *cl = &got[k - 1];
		for (size_t i = 0; rc == AIR_OK && i < cl->n; i++) {
			if (skip > 0) {
				skip--;
				continue;
			}
			rc = air__stream_emit(s, cl->body + cl->off[i], cl->len[i], 0, err);
		}
	}
	return rc;
}

int air__mlflow_fallback(air__stream *s, air_error **err)
{
	int64_t target = air__logs_tail_target(&s->o), total = 0;
	int32_t attempt = s->o.attempt < 0 ? 0 : s->o.attempt; /* "latest" reads attempt 0 */
	air__chunk *chunks = NULL;
	chunk_lines *got = NULL;
	size_t nchunks = 0, ngot = 0;
	air_run *fresh = NULL;
	json_t *output;
	char *dir;
	int rc;

	s->source = AIR_LOG_SOURCE_MLFLOW;
	rc = air__run_fetch(s->c, &s->ctx, s->run_id, &fresh, err);
	if (rc != AIR_OK)
		return rc;
	air_run_free(s->run);
	s->run = fresh;
	output = air__run_fetch_output(s->c, &s->ctx, s->run->task_run_id);
	rc = air__run_set_output(s->run, output, air__client_host(s->c));
	json_decref(output);
	if (rc != AIR_OK)
		return air__oom(err);
	if (!s->run->mlflow_run_id)
		return air__stream_set_no_logs(s, err);
	dir = air__mlflow_log_dir(
		air__mlflow_attempt_layout(s->c, &s->ctx, s->run->mlflow_run_id, attempt), attempt,
		s->node);
	if (!dir)
		return air__oom(err);
	rc = air__mlflow_list_chunks(s->c, &s->ctx, s->run->mlflow_run_id, dir, &chunks, &nchunks,
	                             err);
	air__free(dir);
	if (rc == AIR_OK && target > 0) {
		got = air__calloc(nchunks, sizeof(*got));
		rc = got ? collect(s, chunks, nchunks, target, got, &ngot, &total, err) : air__oom(err);
		if (rc == AIR_OK)
			rc = total > 0 ? deliver(s, got, ngot, total, target, err)
			               : air__stream_set_no_logs(s, err);
	}
	for (size_t i = 0; i < ngot; i++)
		chunk_lines_dispose(&got[i]);
	air__free(got);
	air__mlflow_chunks_free(chunks, nchunks);
	return rc;
}
