/*
 * files.c: workspace files (get-status, mkdirs, import-file, export) and the
 * Files API (volumes), stored under <state>/workspace/<absolute path>.
 * Nothing follows a symbolic link under the state directory: a read serves
 * a link, or a path through one, as missing, like anything not a regular
 * file or folder; a write through a linked folder is refused (a link at the
 * file's own name is replaced by the file).
 */
#include "local/endpoints.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define MAX_EXPORT ((size_t)1 << 30)

/* The stored file of the workspace path in the query's "path"; replies 400
 * and returns NULL when there is none or it is not clean. */
static char *query_file(air__lcall *c, char **abs, int *rc)
{
	char *path = air__lquery(c, "path");
	char *file = path ? air__lws_file(c->ws, path) : NULL;

	if (!file) {
		*rc = air__lreply_bad_request(c, "path %s%s%s is not an absolute workspace path",
		                              path ? "\"" : "", path ? path : "(missing)",
		                              path ? "\"" : "");
		air__free(path);
		return NULL;
	}
	*abs = path;
	return file;
}

/* The folders every workspace has, whether or not anything was stored in
 * them yet: the root, /Workspace, /Workspace/Shared, the users' folder and
 * the local user's home (also under its short /Users form). */
static bool always_there(const air__local *ws, const char *abs)
{
	static const char *const fixed[] = {"/", "/Workspace", "/Workspace/Shared",
	                                    "/Workspace/Users", "/Users"};
	const char *home = air__starts_with(abs, "/Workspace/Users/") ? abs + strlen("/Workspace")
	                                                                 : abs;

	for (size_t i = 0; i < AIR__ARRAY_SIZE(fixed); i++)
		if (!strcmp(abs, fixed[i]))
			return true;
	return air__starts_with(home, "/Users/") && !strcmp(home + strlen("/Users/"), ws->user);
}

int air__lfiles_get_status(air__lcall *c)
{
	char *abs = NULL, *file;
	struct stat st;
	int rc = AIR_OK, fd;

	if (!(file = query_file(c, &abs, &rc)))
		return rc;
	if ((fd = air__lws_open(c->ws, file, true, &st)) >= 0)
		close(fd);
	if (fd < 0 && always_there(c->ws, abs))
		rc = air__lreply_json(c, 200, json_pack("{s:s, s:s, s:i}", "object_type", "DIRECTORY",
		                                        "path", abs, "size", 0));
	else if (fd < 0)
		rc = air__lreply_not_found(c, "Path (%s) doesn't exist.", abs);
	else
		rc = air__lreply_json(c, 200, json_pack("{s:s, s:s, s:I}", "object_type",
		                                        S_ISDIR(st.st_mode) ? "DIRECTORY" : "FILE",
		                                        "path", abs, "size",
		                                        (json_int_t)(S_ISDIR(st.st_mode) ? 0 : st.st_size)));
	air__free(abs);
	air__free(file);
	return rc;
}

/* The folder @rel (under the state directory) opened, made with @make: the
 * descriptor, or -1 with the reply made: 404 when it is missing, 400 when a
 * file or a symbolic link is in the way of its making (@abs names it). */
static int folder(air__lcall *c, const char *abs, const char *rel, bool make, int *rc)
{
	int fd;

	fd = air__lfolder_beneath(c->ws->dir, rel, make);
	if (fd >= 0)
		return fd;
	*rc = errno == ENOTDIR
	          ? air__lreply_error(c, 400, "RESOURCE_ALREADY_EXISTS", "%s: a part of the path "
	                              "exists and is not a directory (a symbolic link is never "
	                              "followed)", abs)
	      : errno == ENOENT && !make
	          ? air__lreply_not_found(c, "The parent folder of %s does not exist.", abs)
	          : air__lreply_io_error(c, "cannot create a directory");
	return -1;
}

/* @file's path under the state directory. */
static const char *under_state(const air__lcall *c, const char *file)
{
	return file + strlen(c->ws->dir) + 1;
}

int air__lfiles_mkdirs(air__lcall *c)
{
	json_t *body;
	const char *abs;
	char *file;
	int rc = AIR_OK, fd;

	if (!(body = air__lbody_json(c, &rc)))
		return rc;
	abs = air__json_str(body, "path");
	if (!(file = air__lws_file(c->ws, abs))) {
		rc = air__lreply_bad_request(c, "path is not an absolute workspace path");
	} else if ((fd = folder(c, abs, under_state(c, file), true, &rc)) >= 0) {
		close(fd);
		rc = air__lreply_empty(c);
	}
	air__free(file);
	json_decref(body);
	return rc;
}

static int store(air__lcall *c, const char *abs, const char *file, bool make_parents)
{
	const char *under = under_state(c, file), *slash = strrchr(under, '/');
	char *q, *parent;
	bool overwrite;
	struct stat st;
	int rc = AIR_OK, dir;

	/* The workspace's root: a folder, always there. */
	if (!slash)
		return air__lreply_error(c, 409, "RESOURCE_ALREADY_EXISTS", "%s already exists.", abs);
	q = air__lquery(c, "overwrite");
	overwrite = q && !strcmp(q, "true");
	air__free(q);
	if (!(parent = air__strndup(under, (size_t)(slash - under))))
		return air__oom(c->err);
	dir = folder(c, abs, parent, make_parents, &rc);
	air__free(parent);
	if (dir < 0)
		return rc;
	/* A link at the name is as good as missing, and replaced. */
	if (fstatat(dir, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode) &&
	    (S_ISDIR(st.st_mode) || !overwrite))
		rc = air__lreply_error(c, 409, "RESOURCE_ALREADY_EXISTS", "%s already exists.", abs);
	else if (air__lwrite_atomic_at(dir, slash + 1, c->req->body, c->req->body_len, 0600) != 0)
		rc = air__lreply_io_error(c, "cannot write a file");
	close(dir);
	return rc;
}

/* "/" + the decoded path after an endpoint's prefix. */
static char *decoded_abs(const char *encoded)
{
	char *dec = air__lurl_decode(encoded, strlen(encoded), false);
	char *abs = dec ? air__sprintf("%s%s", dec[0] == '/' ? "" : "/", dec) : NULL;

	air__free(dec);
	return abs;
}

int air__lfiles_import(air__lcall *c, const char *encoded_path)
{
	char *abs = decoded_abs(encoded_path);
	char *file = abs ? air__lws_file(c->ws, abs) : NULL;
	int rc;

	if (!file)
		rc = air__lreply_bad_request(c, "the import path is not an absolute workspace path");
	else if ((rc = store(c, abs, file, false)) == AIR_OK && c->reply->status == 0)
		rc = air__lreply_empty(c);
	air__free(abs);
	air__free(file);
	return rc;
}

static int send_file(air__lcall *c, const char *abs, const char *file)
{
	air__buf b = AIR__BUF_INIT;
	struct stat st;
	int rc, fd = air__lws_open(c->ws, file, false, &st);

	if (fd < 0)
		return air__lreply_not_found(c, "Path (%s) doesn't exist.", abs);
	if (air__lread_fd(fd, MAX_EXPORT, &b) != 0)
		rc = air__lreply_io_error(c, "cannot read a file");
	else
		rc = air__lreply_bytes(c, 200, b.ptr, b.len);
	close(fd);
	air__buf_dispose(&b);
	return rc;
}

int air__lfiles_export(air__lcall *c)
{
	char *abs = NULL, *file;
	int rc = AIR_OK;

	if (!(file = query_file(c, &abs, &rc)))
		return rc;
	rc = send_file(c, abs, file);
	air__free(abs);
	air__free(file);
	return rc;
}

int air__lfiles_fs(air__lcall *c, const char *kind, const char *encoded_path)
{
	char *abs = decoded_abs(encoded_path);
	char *file = abs ? air__lws_file(c->ws, abs) : NULL;
	bool dirs = !strcmp(kind, "directories");
	const char *m = c->req->method;
	struct stat st;
	int rc;

	if (!file) {
		rc = air__lreply_bad_request(c, "the Files API path is not an absolute path");
	} else if (!strcmp(m, "HEAD")) {
		int fd = air__lws_open(c->ws, file, dirs, &st);
		bool found = fd >= 0 && (dirs ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));

		if (fd >= 0)
			close(fd);
		rc = air__lreply_bytes(c, found ? 200 : 404, "", 0);
	} else if (!strcmp(m, "PUT") && !dirs) {
		if ((rc = store(c, abs, file, true)) == AIR_OK && c->reply->status == 0)
			rc = air__lreply_bytes(c, 204, "", 0);
	} else if (!strcmp(m, "GET") && !dirs) {
		rc = send_file(c, abs, file);
	} else {
		rc = air__lreply_error(c, 404, "ENDPOINT_NOT_FOUND",
		                       "%s /api/2.0/fs/%s is not available in a local workspace", m, kind);
	}
	air__free(abs);
	air__free(file);
	return rc;
}
