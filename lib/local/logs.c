/*
 * logs.c: the log endpoint of local runs and the MLflow calls libair makes
 * for logs: node logs are read from logs/attempt_<a>/node_<n>.log (records
 * found by time, pages continued by byte offset), and offered as MLflow log
 * artifacts (logs/attempt_<a>/node_<n>/logs-0.chunk.txt) whose "signed URL"
 * is a path this workspace serves itself. There is no MLflow server: the
 * run lookup answers from the run's record and its metrics from the file
 * store (metrics.c).
 */
#include "local/endpoints.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PAGE_RECORDS 10000
#define PAGE_BYTES ((size_t)4 << 20)
#define SINK_CHUNK ((size_t)64 << 10)
#define CHUNK_NAME "logs-0.chunk.txt"

/* Append one record to @arr; false on OOM. */
static bool add_record(json_t *arr, int64_t t, const char *text, size_t len, int64_t node,
                       size_t *bytes)
{
	json_t *body = json_stringn(text, len);
	json_t *r = json_pack("{s:I, s:o, s:I}", "time_unix_nano", (json_int_t)t, "body",
	                      body ? body : json_string("\xEF\xBF\xBD"), "node_index",
	                      (json_int_t)node);

	*bytes += len + 64;
	return r && json_array_append_new(arr, r) == 0;
}

/* The records of one page; *next gets the offset to continue from (or
 * SIZE_MAX when the page is the last). */
static json_t *page(const air__llog *l, bool asc, int64_t lo_t, int64_t hi_t, size_t start,
                    size_t limit, int64_t node, size_t *next)
{
	json_t *arr = json_array();
	size_t off = start, bytes = 0, count = 0, mark;
	int64_t t;
	const char *text;
	size_t len;
	bool ok = arr != NULL;

	*next = SIZE_MAX;
	while (ok) {
		mark = off;
		if (asc ? !air__llog_next(l, &off, &t, &text, &len)
		        : !air__llog_prev(l, &off, &t, &text, &len))
			break;
		if (asc ? (hi_t > 0 && t >= hi_t) : t < lo_t)
			break;
		if (count == limit || bytes >= PAGE_BYTES) {
			*next = mark; /* this record starts the next page */
			break;
		}
		ok = add_record(arr, t, text, len, node, &bytes);
		count++;
	}
	if (!ok) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

int air__llogs_read(air__lcall *c, const char *run_id_text)
{
	int64_t id = 0, attempt = -1, node = 0, from = 0, to = 0, size = 0;
	bool bad = false, asc;
	char *dir, *path = NULL, *q, *token, *damage = NULL;
	json_t *status, *records, *reply;
	air__llog l;
	size_t start, next, limit;
	int rc;

	if (!air__parse_int64(run_id_text, &id) || id <= 0)
		return air__lreply_bad_request(c, "run id %s is not a positive integer", run_id_text);
	air__lquery_int(c, "ref.attempt_number", &attempt, &bad);
	air__lquery_int(c, "filter.node_index", &node, &bad);
	air__lquery_int(c, "from", &from, &bad);
	air__lquery_int(c, "to", &to, &bad);
	air__lquery_int(c, "page_size", &size, &bad);
	if (bad || node < 0 || from < 0 || to < 0 || size < 0 || from > INT64_MAX / 1000000000 ||
	    to > INT64_MAX / 1000000000)
		return air__lreply_bad_request(c, "malformed log query");
	q = air__lquery(c, "ascending");
	asc = !q || strcmp(q, "false") != 0;
	air__free(q);
	if (!(dir = air__lrun_dir(c->ws->dir, id)))
		return air__oom(c->err);
	if (!(status = air__lrun_load(dir, NULL, &damage))) {
		air__free(dir);
		rc = damage ? air__lreply_damaged(c, id, damage)
		            : air__lreply_error(c, 400, "RESOURCE_DOES_NOT_EXIST",
		                                "Run %lld does not exist.", (long long)id);
		air__free(damage);
		return rc;
	}
	path = air__lnode_log(dir, air__lstatus_pick_attempt(status, attempt), node);
	json_decref(status);
	air__free(dir);
	if (!path)
		return air__oom(c->err);
	if (air__llog_open(path, &l) != 0) {
		air__free(path);
		return air__lreply_io_error(c, "cannot read a node log");
	}
	air__free(path);
	token = air__lquery(c, "page_token");
	if (token) {
		int64_t v;
		if (!air__parse_int64(token, &v) || v < 0 || (uint64_t)v > l.size ||
		    !air__llog_is_boundary(&l, (size_t)v)) {
			air__free(token);
			air__llog_close(&l);
			return air__lreply_bad_request(c, "invalid page_token");
		}
		start = (size_t)v;
	} else {
		start = asc ? (from > 0 ? air__llog_lower_bound(&l, from * 1000000000) : 0)
		            : (to > 0 ? air__llog_lower_bound(&l, to * 1000000000) : l.size);
	}
	air__free(token);
	limit = size > 0 && size < PAGE_RECORDS ? (size_t)size : PAGE_RECORDS;
	records = page(&l, asc, from * 1000000000, to * 1000000000, start, limit, node, &next);
	air__llog_close(&l);
	reply = records ? json_pack("{s:o}", "log_records", records) : NULL;
	if (reply && next != SIZE_MAX) {
		char t[24];
		snprintf(t, sizeof(t), "%zu", next);
		air__json_set_str(reply, "next_page_token", t);
	}
	rc = reply ? air__lreply_json(c, 200, reply) : air__oom(c->err);
	return rc;
}

/* ---- MLflow ------------------------------------------------------------------------- */

char *air__lmlflow_run_dir(air__lcall *c, const char *mlflow_run, json_t **rec, json_t **status)
{
	int64_t id = air__lmlflow_run_of(mlflow_run);
	char *dir = id > 0 ? air__lrun_dir(c->ws->dir, id) : NULL;

	*rec = *status = NULL;
	if (dir && (*status = air__lrun_load(dir, rec, NULL)) != NULL &&
	    !strcmp(air__json_str(*rec, "mlflow_run_id") ? air__json_str(*rec, "mlflow_run_id") : "",
	            mlflow_run))
		return dir;
	json_decref(*rec);
	json_decref(*status);
	*rec = *status = NULL;
	air__free(dir);
	return NULL;
}

static int no_mlflow_run(air__lcall *c, const char *id)
{
	return air__lreply_not_found(c, "MLflow run %s is not a run of this local workspace "
	                             "(a local workspace has no MLflow server)",
	                             id ? id : "(missing)");
}

static const char *mlflow_status(const json_t *status)
{
	const char *r = air__json_str(status, "result");

	if (!air__lstatus_terminal(status))
		return "RUNNING";
	if (r && !strcmp(r, "SUCCESS"))
		return "FINISHED";
	return r && !strcmp(r, "CANCELED") ? "KILLED" : "FAILED";
}

int air__lmlflow_run(air__lcall *c)
{
	char *id = air__lquery(c, "run_id"), *dir;
	json_t *rec, *status, *run;
	const char *name;
	int rc;

	if (!(dir = air__lmlflow_run_dir(c, id, &rec, &status))) {
		rc = no_mlflow_run(c, id);
		air__free(id);
		return rc;
	}
	name = air__lmlruns_run_name(rec);
	run = json_pack("{s:{s:{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:s}, s:{}}}", "run", "info",
	                "run_id", id, "run_uuid", id, "run_name", name ? name : "", "experiment_id",
	                air__json_str(rec, "mlflow_experiment_id"), "status", mlflow_status(status),
	                "start_time", (json_int_t)air__json_int64_or(status, "start_time", 0),
	                "end_time", (json_int_t)air__json_int64_or(status, "end_time", 0), "user_id",
	                air__json_str(rec, "user"), "data");
	if (run && air__lmlflow_latest(c->ws, rec, air__json_at(run, "run.data")) != AIR_OK) {
		json_decref(run);
		run = NULL;
	}
	rc = run ? air__lreply_json(c, 200, run) : air__oom(c->err);
	json_decref(rec);
	json_decref(status);
	air__free(dir);
	air__free(id);
	return rc;
}

/* "logs/attempt_<a>/node_<n>[/<file>]": the numbers, and the rest (or NULL). */
static bool parse_log_path(const char *p, int64_t *a, int64_t *n, const char **rest)
{
	char *end;

	if (!air__starts_with(p, "logs/attempt_"))
		return false;
	p += strlen("logs/attempt_");
	if (*p < '0' || *p > '9' || (*a = strtoll(p, &end, 10)) < 0 || *a > AIR__LOCAL_MAX_ATTEMPT ||
	    !air__starts_with(end, "/node_"))
		return false;
	p = end + strlen("/node_");
	if (*p < '0' || *p > '9' || (*n = strtoll(p, &end, 10)) < 0 || *n > 100000)
		return false;
	*rest = *end == '/' ? end + 1 : NULL;
	return *end == '\0' || *end == '/';
}

/* Artifact entries under "logs": the attempt folders. */
static void list_attempts(const char *run_dir, json_t *files)
{
	char *path = air__lpath(run_dir, "logs");
	DIR *d = path ? opendir(path) : NULL;
	struct dirent *e;
	int64_t a;

	while (d && (e = readdir(d)) != NULL) {
		char *p;
		if (!air__starts_with(e->d_name, "attempt_") ||
		    !air__parse_int64(e->d_name + strlen("attempt_"), &a) || a < 0)
			continue;
		p = air__sprintf("logs/%s", e->d_name);
		if (p)
			json_array_append_new(files, json_pack("{s:s, s:b}", "path", p, "is_dir", 1));
		air__free(p);
	}
	if (d)
		closedir(d);
	air__free(path);
}

int air__lmlflow_list(air__lcall *c)
{
	char *id = air__lquery(c, "run_id"), *path = air__lquery(c, "path"), *dir, *file;
	json_t *rec, *status, *files = json_array();
	const char *rest;
	int64_t a, n;
	struct stat st;
	int rc;

	if (!(dir = air__lmlflow_run_dir(c, id, &rec, &status))) {
		rc = no_mlflow_run(c, id);
	} else {
		if (path && !strcmp(path, "logs")) {
			list_attempts(dir, files);
		} else if (path && parse_log_path(path, &a, &n, &rest) && !rest &&
		           (file = air__lnode_log(dir, (int32_t)a, n)) != NULL) {
			if (stat(file, &st) == 0) {
				char *p = air__sprintf("%s/%s", path, CHUNK_NAME);
				if (p)
					json_array_append_new(files, json_pack("{s:s, s:b, s:I}", "path", p,
					                                       "is_dir", 0, "file_size",
					                                       (json_int_t)st.st_size));
				air__free(p);
			}
			air__free(file);
		}
		rc = air__lreply_json(c, 200, json_pack("{s:O}", "files", files));
		json_decref(rec);
		json_decref(status);
	}
	json_decref(files);
	air__free(dir);
	air__free(id);
	air__free(path);
	return rc;
}

int air__lmlflow_sign(air__lcall *c)
{
	char *id = air__lquery(c, "run_id"), *path = air__lquery(c, "path"), *dir;
	json_t *rec, *status;
	air__buf url = AIR__BUF_INIT;
	int rc;

	if (!(dir = air__lmlflow_run_dir(c, id, &rec, &status))) {
		rc = no_mlflow_run(c, id);
	} else {
		/* A path of this workspace: the download comes back here. */
		air__buf_printf(&url, "/local/artifacts/%s/", id);
		air__buf_put_urlencoded(&url, path ? path : "", true);
		rc = air__buf_oom(&url)
		         ? air__oom(c->err)
		         : air__lreply_json(c, 200, json_pack("{s:[{s:s, s:s, s:[]}]}",
		                                              "credential_infos", "signed_uri",
		                                              air__buf_cstr(&url), "type",
		                                              "LOCAL_FILE", "headers"));
		json_decref(rec);
		json_decref(status);
	}
	air__buf_dispose(&url);
	air__free(dir);
	air__free(id);
	air__free(path);
	return rc;
}

/* Send @b to the sink when it holds enough (or @last), else keep it. */
static int flush_text(air__lcall *c, air__buf *b, bool last, air__buf *all)
{
	if (!c->req->sink) {
		air__buf_put(all, b->ptr ? b->ptr : "", b->len);
		air__buf_clear(b);
		return AIR_OK;
	}
	if (b->len == 0 || (!last && b->len < SINK_CHUNK))
		return AIR_OK;
	c->reply->status = 200;
	if (c->req->sink(b->ptr, b->len, c->req->sink_ud) != 0)
		return air__failf(c->err, AIR_EABORTED, 0, "the download was stopped");
	air__buf_clear(b);
	return AIR_OK;
}

int air__lmlflow_fetch(air__lcall *c, const char *rest)
{
	const char *slash = strchr(rest, '/'), *file_part = NULL;
	char *id = slash ? air__strndup(rest, (size_t)(slash - rest)) : NULL;
	char *apath = slash ? air__lurl_decode(slash + 1, strlen(slash + 1), false) : NULL;
	char *dir = NULL, *file = NULL;
	json_t *rec = NULL, *status = NULL;
	air__buf chunk = AIR__BUF_INIT, all = AIR__BUF_INIT;
	air__llog l;
	int64_t a, n, t;
	const char *text;
	size_t len, off = 0;
	int rc = AIR_OK;

	if (!id || !apath || !(dir = air__lmlflow_run_dir(c, id, &rec, &status)) ||
	    !parse_log_path(apath, &a, &n, &file_part) || !file_part || strcmp(file_part, CHUNK_NAME) ||
	    !(file = air__lnode_log(dir, (int32_t)a, n)) || !air__lexists(file)) {
		rc = air__lreply_not_found(c, "no such artifact");
		goto out;
	}
	if (air__llog_open(file, &l) != 0) {
		rc = air__lreply_io_error(c, "cannot read a node log");
		goto out;
	}
	while (rc == AIR_OK && air__llog_next(&l, &off, &t, &text, &len)) {
		air__buf_put(&chunk, text, len);
		air__buf_putc(&chunk, '\n');
		rc = air__buf_oom(&chunk) ? air__oom(c->err) : flush_text(c, &chunk, false, &all);
	}
	air__llog_close(&l);
	if (rc == AIR_OK)
		rc = flush_text(c, &chunk, true, &all);
	if (rc == AIR_OK && !c->req->sink)
		rc = air__buf_oom(&all) ? air__oom(c->err) : air__lreply_bytes(c, 200, air__buf_cstr(&all),
		                                                              all.len);
	else if (rc == AIR_OK)
		c->reply->status = 200;
out:
	air__buf_dispose(&chunk);
	air__buf_dispose(&all);
	json_decref(rec);
	json_decref(status);
	air__free(id);
	air__free(apath);
	air__free(dir);
	air__free(file);
	return rc;
}
