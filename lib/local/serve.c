/*
 * serve.c: the local workspace object and its request router: each request
 * libair's modules make is answered here, in-process, from the state
 * directory (endpoints.h lists the handlers). Identity answers come from the
 * local user; unknown endpoints answer 404 ENDPOINT_NOT_FOUND.
 */
#include "local/endpoints.h"
#include "core/core_fsize.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCIM_ME "/api/2.0/preview/scim/v2/Me"
#define LOGS_PREFIX "/api/2.0/ai-training/workflows/by-run-id/"
#define IMPORT_PREFIX "/api/2.0/workspace-files/import-file/"
#define FS_PREFIX "/api/2.0/fs/"
#define POOLS "/api/2.0/ai-training/provisioned-capacities"
#define ARTIFACTS_PREFIX "/local/artifacts/"

/* ---- the workspace ------------------------------------------------------------------ */

static char *local_user(void)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	const char *u;

	if (getpwuid_r(geteuid(), &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_name &&
	    *res->pw_name)
		return air__strdup(res->pw_name);
	u = getenv("USER");
	return air__strdup(u && *u ? u : "local-user");
}

int air__local_new(const char *state_dir, const air__local_env *env, air__local **out,
                   air_error **err)
{
	air__local *ws = air__calloc(1, sizeof(*ws));

	*out = NULL;
	if (!ws)
		return air__oom(err);
	pthread_mutex_init(&ws->watch_lock, NULL);
	pthread_mutex_init(&ws->left_lock, NULL);
	ws->dir = air__strdup(state_dir);
	ws->user = local_user();
	if (env)
		ws->env = *env;
	if (!ws->dir || !ws->user) {
		air__local_free(ws);
		return air__oom(err);
	}
	*out = ws;
	return AIR_OK;
}

void air__local_free(air__local *ws)
{
	if (!ws)
		return;
	air__local_watch_close_idle(ws);
	air__lspawn_forget_left(ws);
	pthread_mutex_destroy(&ws->watch_lock);
	pthread_mutex_destroy(&ws->left_lock);
	air__free(ws->dir);
	air__free(ws->user);
	air__free(ws);
}

void air__local_reply_clear(air__local_reply *r)
{
	if (!r)
		return;
	air__free(r->body);
	air__free(r->org_id);
	*r = (air__local_reply)AIR__LOCAL_REPLY_INIT;
}

/* ---- replies ----------------------------------------------------------------------- */

/* The reply's body (taken): kept in the reply, or, for a successful
 * request with a sink, handed to the sink as a server's body would be. */
static int set_body(air__lcall *c, int32_t status, char *body, size_t len)
{
	air__free(c->reply->body);
	c->reply->body = NULL;
	c->reply->body_len = 0;
	c->reply->status = status;
	if (c->req->sink && status < 300) {
		int stop = len > 0 ? c->req->sink(body, len, c->req->sink_ud) : 0;
		air__free(body);
		return stop ? air__failf(c->err, AIR_EABORTED, 0, "the download was stopped") : AIR_OK;
	}
	c->reply->body = body;
	c->reply->body_len = len;
	return AIR_OK;
}

int air__lreply_json(air__lcall *c, int32_t status, json_t *v)
{
	char *text = v ? air__json_compact(v) : NULL;

	json_decref(v);
	if (!text)
		return air__oom(c->err);
	return set_body(c, status, text, strlen(text));
}

int air__lreply_empty(air__lcall *c) { return air__lreply_json(c, 200, json_object()); }

static int vreply_error(air__lcall *c, int32_t status, const char *code, const char *fmt,
                        va_list ap)
{
	char *msg = air__vsprintf(fmt, ap);
	json_t *v = msg ? json_pack("{s:s, s:s}", "error_code", code, "message", msg) : NULL;

	air__free(msg);
	if (!v)
		return air__oom(c->err);
	return air__lreply_json(c, status, v);
}

int air__lreply_error(air__lcall *c, int32_t status, const char *code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vreply_error(c, status, code, fmt, ap);
	va_end(ap);
	return rc;
}

int air__lreply_bad_request(air__lcall *c, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vreply_error(c, 400, "INVALID_PARAMETER_VALUE", fmt, ap);
	va_end(ap);
	return rc;
}

int air__lreply_not_found(air__lcall *c, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vreply_error(c, 404, "RESOURCE_DOES_NOT_EXIST", fmt, ap);
	va_end(ap);
	return rc;
}

int air__lreply_damaged(air__lcall *c, int64_t id, const char *damage)
{
	return air__lreply_error(c, 500, "DATA_LOSS", "Run %lld is damaged: %s", (long long)id,
	                         damage);
}

int air__lreply_io_error(air__lcall *c, const char *what)
{
	return air__lreply_error(c, 500, "INTERNAL_ERROR", "local workspace %s: %s", what,
	                         strerror(errno));
}

int air__lreply_bytes(air__lcall *c, int32_t status, const void *data, size_t len)
{
	char *copy;

	if (c->req->sink && status < 300) {
		c->reply->status = status;
		if (len > 0 && c->req->sink(data, len, c->req->sink_ud) != 0)
			return air__failf(c->err, AIR_EABORTED, 0, "the download was stopped");
		return AIR_OK;
	}
	/* Copied: @data may be the caller's. */
	if (!(copy = air__malloc(len + 1)))
		return air__oom(c->err);
	memcpy(copy, data, len);
	copy[len] = '\0';
	return set_body(c, status, copy, len);
}

/* ---- decoding ---------------------------------------------------------------------- */

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

char *air__lurl_decode(const char *s, size_t n, bool plus_is_space)
{
	char *out = air__malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			*o = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			*o = s[i] == '+' && plus_is_space ? ' ' : s[i];
		}
		if (*o == '\0') {
			air__free(out);
			return NULL;
		}
		o++;
	}
	*o = '\0';
	return out;
}

char *air__lquery(const air__lcall *c, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = c->req->query; p && *p;) {
		const char *amp = strchr(p, '&'), *end = amp ? amp : p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));
		char *name = air__lurl_decode(p, (size_t)((eq ? eq : end) - p), true);
		bool match = name && strlen(name) == klen && !memcmp(name, key, klen);

		air__free(name);
		if (match)
			return eq ? air__lurl_decode(eq + 1, (size_t)(end - eq - 1), true) : air__strdup("");
		p = amp ? amp + 1 : NULL;
	}
	return NULL;
}

bool air__lquery_int(const air__lcall *c, const char *key, int64_t *out, bool *bad)
{
	char *v = air__lquery(c, key);
	bool ok = v && air__parse_int64(v, out);

	if (v && !ok && bad)
		*bad = true;
	air__free(v);
	return ok;
}

char *air__lws_file(const air__local *ws, const char *abs)
{
	air__buf b = AIR__BUF_INIT;

	if (!abs || abs[0] != '/')
		return NULL;
	air__buf_printf(&b, "%s/workspace", ws->dir);
	for (const char *p = abs; *p;) {
		const char *slash;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			air__buf_dispose(&b);
			return NULL;
		}
		air__buf_putc(&b, '/');
		air__buf_put(&b, p, n);
		p += n;
	}
	return air__buf_detach(&b);
}

int air__lws_open(const air__local *ws, const char *file, bool dir_ok, struct stat *st)
{
	return air__lopen_beneath(ws->dir, file + strlen(ws->dir) + 1, dir_ok, st);
}

json_t *air__lbody_json(air__lcall *c, int *rc)
{
	json_t *v = NULL;

	if (c->req->body && c->req->body_len > 0)
		v = json_loadb(c->req->body, c->req->body_len, 0, NULL);
	if (json_is_object(v))
		return v;
	json_decref(v);
	*rc = air__lreply_bad_request(c, "the request body is not a JSON object");
	return NULL;
}

/* ---- routing ------------------------------------------------------------------------ */

static int identity(air__lcall *c)
{
	json_t *me = json_pack("{s:s, s:s, s:b}", "userName", c->ws->user, "displayName",
	                       c->ws->user, "active", 1);

	/* A local workspace has no workspace id: 0 keeps links well-formed. */
	if (!(c->reply->org_id = air__strdup("0"))) {
		json_decref(me);
		return air__oom(c->err);
	}
	return air__lreply_json(c, 200, me);
}

static bool is(const air__lcall *c, const char *method, const char *path)
{
	return !strcmp(c->req->method, method) && !strcmp(c->req->path, path);
}

/* "/api/2.<minor>/jobs/runs/<verb>" for any minor version. */
static bool is_jobs(const air__lcall *c, const char *method, const char *verb)
{
	const char *p = c->req->path;

	if (strcmp(c->req->method, method) != 0 || !air__starts_with(p, "/api/2."))
		return false;
	p += strlen("/api/2.");
	while (*p >= '0' && *p <= '9')
		p++;
	return air__starts_with(p, "/jobs/runs/") && !strcmp(p + strlen("/jobs/runs/"), verb);
}

/* One line per endpoint the modules call (each with its handler in
 * endpoints.h); anything else is 404 ENDPOINT_NOT_FOUND. The HTTP backend
 * needs no counterpart: it sends every request to the workspace. */
static int route(air__lcall *c)
{
	const char *path = c->req->path, *m = c->req->method;

	if (is(c, "GET", SCIM_ME))
		return identity(c);
	if (is(c, "POST", "/api/2.0/ai-training/config:validate"))
		return air__lsubmit_preflight(c);
	if (is_jobs(c, "POST", "submit"))
		return air__lsubmit_run(c);
	if (is_jobs(c, "GET", "get"))
		return air__ljobs_get(c);
	if (is_jobs(c, "GET", "get-output"))
		return air__ljobs_get_output(c);
	if (is_jobs(c, "GET", "list"))
		return air__ljobs_list(c);
	if (is_jobs(c, "POST", "cancel"))
		return air__ljobs_cancel(c);
	if (is(c, "GET", "/api/2.0/ai-training/workflows"))
		return air__ljobs_workflows(c);
	if (!strcmp(m, "GET") && air__starts_with(path, LOGS_PREFIX) &&
	    air__ends_with(path, "/logs")) {
		const char *id = path + strlen(LOGS_PREFIX);
		char *text = air__strndup(id, strlen(id) - strlen("/logs"));
		int rc = text ? air__llogs_read(c, text) : air__oom(c->err);
		air__free(text);
		return rc;
	}
	if (is(c, "GET", "/api/2.0/workspace/get-status"))
		return air__lfiles_get_status(c);
	if (is(c, "POST", "/api/2.0/workspace/mkdirs"))
		return air__lfiles_mkdirs(c);
	if (is(c, "GET", "/api/2.0/workspace/export"))
		return air__lfiles_export(c);
	if (!strcmp(m, "POST") && air__starts_with(path, IMPORT_PREFIX))
		return air__lfiles_import(c, path + strlen(IMPORT_PREFIX));
	if (air__starts_with(path, FS_PREFIX "files/"))
		return air__lfiles_fs(c, "files", path + strlen(FS_PREFIX "files"));
	if (air__starts_with(path, FS_PREFIX "directories/"))
		return air__lfiles_fs(c, "directories", path + strlen(FS_PREFIX "directories"));
	if (is(c, "GET", "/api/2.0/mlflow/runs/get"))
		return air__lmlflow_run(c);
	if (is(c, "GET", "/api/2.0/mlflow/metrics/get-history"))
		return air__lmlflow_history(c);
	if (is(c, "GET", "/api/2.0/mlflow/artifacts/list"))
		return air__lmlflow_list(c);
	if (is(c, "GET", "/api/2.0/mlflow/artifacts/credentials-for-read"))
		return air__lmlflow_sign(c);
	if (!strcmp(m, "GET") && air__starts_with(path, ARTIFACTS_PREFIX))
		return air__lmlflow_fetch(c, path + strlen(ARTIFACTS_PREFIX));
	if (is(c, "GET", "/api/2.0/serverless-policies"))
		return air__lmisc_policies(c);
	if (is(c, "GET", POOLS))
		return air__lmisc_pools(c, NULL);
	if (!strcmp(m, "GET") && air__starts_with(path, POOLS "/"))
		return air__lmisc_pools(c, path + strlen(POOLS "/"));
	if (is(c, "GET", "/api/2.0/ai-compute-manager/compute-options"))
		return air__lmisc_compute_options(c);
	if (is(c, "GET", "/api/2.0/ai-compute-manager/images:get") ||
	    is(c, "GET", "/api/2.0/ai-compute-manager/images:checkImageAccess"))
		return air__lmisc_image(c, false);
	if (is(c, "POST", "/api/2.0/ai-compute-manager/images"))
		return air__lmisc_image(c, true);
	if (is(c, "POST", AIR__LOCAL_CHECKS_PATH))
		return air__lchecks(c);
	if (air__starts_with(path, "/api/2.0/mlflow/"))
		return air__lreply_error(c, 404, "ENDPOINT_NOT_FOUND",
		                         "%s %s: a local workspace has no MLflow server", m, path);
	return air__lreply_error(c, 404, "ENDPOINT_NOT_FOUND",
	                         "%s %s is not available in a local workspace", m, path);
}

int air__local_serve(air__local *ws, const air__ctx *ctx, const air__local_req *req,
                     air__local_reply *reply, air_error **err)
{
	air__lcall c = {ws, ctx, req, reply, err};
	air__fsize_guard_t fsize;
	struct stat st;
	int rc;

	air__local_reply_clear(reply);
	if (!ws || !req || !req->method || !req->path)
		return air__failf(err, AIR_EINVAL, 0, "no workspace or request");
	if ((rc = air__ctx_check(ctx, req->path, err)) != AIR_OK)
		return rc;
	/* A state directory this user may not read (another user's) is said so,
	 * never taken for an empty one; a missing one is a new workspace. */
	if (stat(ws->dir, &st) == 0 && !S_ISDIR(st.st_mode))
		rc = air__lreply_error(&c, 500, "INTERNAL_ERROR", "local workspace %s: %s (the state "
		                       "directory is a file)", ws->dir, strerror(ENOTDIR));
	else if (faccessat(AT_FDCWD, ws->dir, R_OK | X_OK, AT_EACCESS) != 0 && errno != ENOENT)
		rc = errno == EACCES || errno == EPERM
		         ? air__lreply_error(&c, 403, "PERMISSION_DENIED", "local workspace %s: %s "
		                             "(its state directory is not yours to read)", ws->dir,
		                             strerror(errno))
		         : air__lreply_io_error(&c, ws->dir);
	else {
		/* A file past the file size limit is an error, not the end of
		 * the caller's process. */
		air__fsize_guard(&fsize);
		rc = route(&c);
		air__fsize_unguard(&fsize);
	}
	if (rc != AIR_OK)
		air__local_reply_clear(reply);
	return rc;
}
