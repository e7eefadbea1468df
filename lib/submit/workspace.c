/*
 * workspace.c: the workspace and Files API calls of a submission —
 * directories, raw file imports and volume uploads
 *. Errors name the path and keep the server's code and message.
 */
#include "submit/submit.h"

#include <string.h>

#include "transport/transport.h"
#include "core/core.h"

#define IMPORT_PREFIX "/api/2.0/workspace-files/import-file/"

char *air__import_file_url(const char *abs_path)
{
	static const char hex[] = "0123456789ABCDEF";
	air__buf b = AIR__BUF_INIT;

	/* The whole path as one segment: '/' -> %2F, '@' kept (as the reference does). */
	air__buf_puts(&b, IMPORT_PREFIX);
	for (const unsigned char *p = (const unsigned char *)abs_path + (abs_path[0] == '/'); *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~@", *p)) {
			air__buf_putc(&b, (char)*p);
		} else {
			air__buf_putc(&b, '%');
			air__buf_putc(&b, hex[*p >> 4]);
			air__buf_putc(&b, hex[*p & 15]);
		}
	}
	return air__buf_detach(&b);
}

char *air__files_api_url(const char *kind, const char *abs_path)
{
	air__buf b = AIR__BUF_INIT;

	air__buf_printf(&b, "/api/2.0/fs/%s", kind);
	air__buf_put_urlencoded(&b, abs_path, true);
	return air__buf_detach(&b);
}

static bool is_not_found(const air_error *e)
{
	const char *code = air_error_server_code(e);

	return air_error_http_status(e) == 404 || (code && !strcmp(code, "RESOURCE_DOES_NOT_EXIST"));
}

/* @e prefixed with "permission denied @denied @path" (AIR_EPERMISSION) on a
 * 403, otherwise with "@doing @path". */
static air_error *path_error(air_error *e, const char *denied, const char *doing,
                             const char *path)
{
	if (air_error_http_status(e) == 403)
		return air__error_set_code(air__error_prefix(e, "permission denied %s %s", denied, path),
		                           AIR_EPERMISSION);
	return air__error_prefix(e, "%s %s", doing, path);
}

/* An upload's error: already-exists replies get their own wording, the
 * others path_error()'s. */
static air_error *upload_error(air_error *e, const char *denied, const char *doing,
                               const char *path)
{
	int32_t status = air_error_http_status(e);

	if (status == 409 || (status == 400 && strstr(air_error_message(e), "already exists.")))
		return air__error_set_code(air__error_prefix(e, "file already exists: %s", path),
		                           AIR_ECONFLICT);
	return path_error(e, denied, doing, path);
}

air_error *air__ws_mkdirs_error(air_error *e, const char *path)
{
	return path_error(e, "creating directory", "creating directory", path);
}

air_error *air__ws_import_error(air_error *e, const char *path)
{
	return upload_error(e, "writing", "uploading", path);
}

int air__ws_mkdirs(air_client *c, const air__ctx *ctx, const char *path, air_error **err)
{
	json_t *body = json_pack("{s:s}", "path", path);
	air_error *e = NULL;
	int rc;

	if (!body)
		return air__oom(err);
	rc = air__api_json(c, ctx, "POST", "/api/2.0/workspace/mkdirs", NULL, body, NULL, NULL, &e);
	json_decref(body);
	if (rc == AIR_OK)
		return AIR_OK;
	return air__fail(err, air__ws_mkdirs_error(e, path));
}

int air__ws_get_status(air_client *c, const air__ctx *ctx, const char *path, bool export_info,
                       char **object_type, air_error **err)
{
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL;
	air_error *e = NULL;
	int rc;

	*object_type = NULL;
	air__buf_query(&q, "path", path);
	if (export_info)
		air__buf_query(&q, "return_export_info", "true");
	if (air__buf_oom(&q))
		return air__oom(err);
	rc = air__api_json(c, ctx, "GET", "/api/2.0/workspace/get-status", air__buf_cstr(&q), NULL,
	                   &reply, NULL, &e);
	air__buf_dispose(&q);
	if (rc != AIR_OK && is_not_found(e)) {
		air_error_free(e);
		return AIR_ENOTFOUND;
	}
	if (rc != AIR_OK)
		return air__fail(err, air__error_prefix(e, "looking up %s", path));
	*object_type = air__strdup(air__json_str(reply, "object_type") ? air__json_str(reply, "object_type")
	                                                                 : "");
	json_decref(reply);
	return *object_type ? AIR_OK : air__oom(err);
}

int air__ws_ensure_directory(air_client *c, const air__ctx *ctx, const char *dir, air_error **err)
{
	char *type = NULL;
	int rc = air__ws_get_status(c, ctx, dir, false, &type, err);

	if (rc == AIR_ENOTFOUND)
		return air__ws_mkdirs(c, ctx, dir, err);
	if (rc == AIR_OK && strcmp(type, "DIRECTORY") != 0)
		rc = air__fail(err, air__error_set_field(air__error_new(AIR_ECONFLICT, 0,
		               "mlflow_experiment_directory %s exists but is a %s, not a directory", dir,
		               *type ? type : "non-directory object"), "mlflow_experiment_directory"));
	air__free(type);
	return rc;
}

static char *parent_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	return air__strndup(path, slash && slash != path ? (size_t)(slash - path) : 1);
}

/* The body of @up on @r: its bytes, or its source. */
static void set_body(air__http_req *r, const air__upload *up)
{
	r->body = up->source ? NULL : up->data;
	r->body_len = up->len;
	r->source = up->source;
	r->source_ud = up->source_ud;
}

void air__ws_import_req(air__http_req *r, const char *url, const air__upload *up, bool overwrite)
{
	memset(r, 0, sizeof(*r));
	r->method = "POST";
	r->path = url;
	r->query = overwrite ? "overwrite=true" : NULL;
	set_body(r, up);
	r->content_type = NULL; /* raw bytes; the reference sets no content type */
}

void air__ws_export_req(air__http_req *r, const char *path, char **query)
{
	air__buf q = AIR__BUF_INIT;

	air__buf_query(&q, "path", path);
	air__buf_query(&q, "direct_download", "true");
	*query = air__buf_oom(&q) ? NULL : air__buf_detach(&q);
	air__buf_dispose(&q);
	*r = (air__http_req){.method = "GET", .path = "/api/2.0/workspace/export", .query = *query};
}

int air__ws_export(air_client *c, const air__ctx *ctx, const char *path, air__http_resp *resp,
                   air_error **err)
{
	air__http_req req;
	char *query;
	air_error *e = NULL;
	int rc;

	air__ws_export_req(&req, path, &query);
	rc = !query ? air__oom(&e) : air__http_do(c, ctx, &req, resp, &e);
	if (rc != AIR_OK && air_error_http_status(e) == 404) {
		air_error_free(e);
		e = NULL;
		rc = air__failf(&e, AIR_ENOTFOUND, AIR_KIND_NOT_FOUND, "%s does not exist", path);
	} else if (rc != AIR_OK) {
		e = air__error_prefix(e, "reading %s", path);
	}
	air__free(query);
	return rc == AIR_OK ? AIR_OK : air__fail(err, e);
}

int air__ws_import(air_client *c, const air__ctx *ctx, const air__upload *up, bool overwrite,
                   air_error **err)
{
	char *url = air__import_file_url(up->path), *parent = NULL;
	air__http_req req;
	air_error *e = NULL;
	int rc;

	if (!url)
		return air__oom(err);
	air__ws_import_req(&req, url, up, overwrite);
	rc = air__http_do(c, ctx, &req, NULL, &e);
	if (rc != AIR_OK && air_error_http_status(e) == 404) {
		/* The parent directory is missing: create it and try once more. */
		air_error_free(e);
		e = NULL;
		if (!(parent = parent_dir(up->path)))
			rc = air__oom(&e);
		else if ((rc = air__ws_mkdirs(c, ctx, parent, &e)) == AIR_OK)
			rc = air__http_do(c, ctx, &req, NULL, &e);
	}
	air__free(url);
	air__free(parent);
	return rc == AIR_OK ? AIR_OK : air__fail(err, air__ws_import_error(e, up->path));
}

static bool is_2xx(int32_t status)
{
	return status >= 200 && status < 300;
}

int air__ws_import_many(air_client *c, const air__ctx *ctx, const air__upload *ups, size_t n,
                        const bool *optional, air_error **err)
{
	air__http_req *reqs = air__calloc(n ? n : 1, sizeof(*reqs));
	air__http_resp *resps = air__calloc(n ? n : 1, sizeof(*resps));
	char **urls = air__calloc(n ? n : 1, sizeof(*urls));
	air_error *batch = NULL, *fatal = NULL;
	int rc = AIR_OK;
	size_t first_failure = n;

	if (!reqs || !resps || !urls) {
		rc = air__oom(&fatal);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(urls[i] = air__import_file_url(ups[i].path))) {
			rc = air__oom(&fatal);
			goto out;
		}
		air__ws_import_req(&reqs[i], urls[i], &ups[i], true);
		resps[i] = (air__http_resp)AIR__HTTP_RESP_INIT;
	}
	rc = air__http_do_many(c, ctx, reqs, n, resps, &batch);
	if (rc == AIR_OK || rc == AIR_EINTERRUPTED || rc == AIR_EABORTED || rc == AIR_ENOMEM) {
		fatal = batch;
		batch = NULL;
		goto out;
	}
	rc = AIR_OK;
	for (size_t i = 0; i < n && !fatal; i++) {
		air_error *e = NULL;

		if (is_2xx(resps[i].status))
			continue;
		if (first_failure == n)
			first_failure = i;
		if (resps[i].status == 404) {
			/* missing parent: mkdirs and one more try, one file at a time (rare) */
			if (air__ws_import(c, ctx, &ups[i], true, &e) == AIR_OK)
				continue;
		} else if (!(optional && optional[i])) {
			if (i == first_failure) {
				e = batch;
				batch = NULL;
			} else {
				e = resps[i].status
				    ? air__http_client_error(c, "POST", urls[i], resps[i].status, resps[i].body,
				                             resps[i].body_len, resps[i].request_id,
				                             resps[i].retry_after_ms)
				    : air__error_new(AIR_ENET, 0, "no reply");
			}
			e = air__ws_import_error(e, ups[i].path);
		}
		if (e && optional && optional[i])
			air_error_free(e);
		else if (e)
			fatal = e;
	}
	rc = fatal ? air_error_code(fatal) : AIR_OK;
out:
	for (size_t i = 0; resps && i < n; i++)
		air__http_resp_clear(&resps[i]);
	for (size_t i = 0; urls && i < n; i++)
		air__free(urls[i]);
	air__free(urls);
	air__free(reqs);
	air__free(resps);
	air_error_free(batch);
	if (rc != AIR_OK)
		return fatal ? air__fail(err, fatal) : rc;
	return AIR_OK;
}

/* One Files API request: @method on /api/2.0/fs/@kind<@path>, with the body
 * of @up (raw bytes) when given, replacing an existing file when @overwrite. */
static int files_api(air_client *c, const air__ctx *ctx, const char *method, const char *kind,
                     const char *path, const air__upload *up, bool overwrite, air_error **err)
{
	char *url = air__files_api_url(kind, path);
	air__http_req req = {.method = method, .path = url,
	                     .query = overwrite ? "overwrite=true" : NULL};
	int rc;

	if (!url)
		return air__oom(err);
	if (up) {
		set_body(&req, up);
		req.content_type = "application/octet-stream";
	}
	rc = air__http_do(c, ctx, &req, NULL, err);
	air__free(url);
	return rc;
}

int air__volume_put(air_client *c, const air__ctx *ctx, const air__upload *up, bool overwrite,
                    air_error **err)
{
	air_error *e = NULL;

	if (files_api(c, ctx, "PUT", "files", up->path, up, overwrite, &e) == AIR_OK)
		return AIR_OK;
	return air__fail(err, upload_error(e, "writing volume file", "uploading volume file", up->path));
}

/* HEAD on the Files API: AIR_OK (exists), AIR_ENOTFOUND, or an error. */
static int files_head(air_client *c, const air__ctx *ctx, const char *kind, const char *path,
                      air_error **err)
{
	air_error *e = NULL;
	int rc = files_api(c, ctx, "HEAD", kind, path, NULL, false, &e);

	if (rc != AIR_OK && is_not_found(e)) {
		air_error_free(e);
		return AIR_ENOTFOUND;
	}
	if (rc != AIR_OK)
		return air__fail(err, air__error_prefix(e, "looking up volume path %s", path));
	return AIR_OK;
}

int air__volume_directory_exists(air_client *c, const air__ctx *ctx, const char *path,
                                 air_error **err)
{
	return files_head(c, ctx, "directories", path, err);
}

int air__volume_file_exists(air_client *c, const air__ctx *ctx, const char *path, bool *exists,
                            air_error **err)
{
	int rc = files_head(c, ctx, "directories", path, err);

	*exists = false;
	if (rc == AIR_OK)
		return air__failf(err, AIR_ECONFLICT, 0,
		                  "volume path %s is a directory; the code snapshot cannot be stored there",
		                  path);
	if (rc != AIR_ENOTFOUND)
		return rc;
	rc = files_head(c, ctx, "files", path, err);
	*exists = rc == AIR_OK;
	return rc == AIR_ENOTFOUND ? AIR_OK : rc;
}
