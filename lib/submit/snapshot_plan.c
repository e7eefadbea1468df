/* snapshot_plan.c: decide how the code snapshot is built and check all of it
 * locally, then package it. */
#include "submit/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/core_fsize.h"
#include "submit/git.h"

#define GITIGNORE_MAX_BYTES (1024 * 1024)

static const char *process_env(const char *name, void *ud)
{
	(void)ud;
	return getenv(name);
}

static air_error *snap_error(air_error *e, const char *field)
{
	return air__error_set_field(e, field);
}

static int resolve_root(const air__snapshot_spec *spec, air__snapshot *s, air_error **err)
{
	const char *home = spec->home ? spec->home : getenv("HOME");
	const char *slash;
	struct stat st;

	s->root = air__snapshot_resolve_root(spec->root_path, spec->base_dir, home, process_env, NULL);
	if (!s->root)
		return air__oom(err);
	if (stat(s->root, &st) != 0)
		return air__fail(err, snap_error(air__error_new(AIR_ESNAPSHOT, 0,
		                 "code_source root_path %s (resolved to %s) does not exist: %s",
		                 spec->root_path, s->root, strerror(errno)), "code_source.root_path"));
	if (!S_ISDIR(st.st_mode))
		return air__fail(err, snap_error(air__error_new(AIR_ESNAPSHOT, 0,
		                 "code_source root_path %s (resolved to %s) is not a directory",
		                 spec->root_path, s->root), "code_source.root_path"));
	slash = strrchr(s->root, '/');
	if (!slash || !slash[1])
		return air__fail(err, snap_error(air__error_new(AIR_ESNAPSHOT, 0,
		                 "code_source root_path %s resolves to %s, which has no directory name "
		                 "to package under", spec->root_path, s->root), "code_source.root_path"));
	return (s->dirname = air__strdup(slash + 1)) ? AIR_OK : air__oom(err);
}

/* Include paths are validated with the config; checked again because a
 * path leaving the root must never be packaged. */
static int copy_include_paths(const air__snapshot_spec *spec, air__snapshot *s, air_error **err)
{
	if (spec->n_include_paths == 0)
		return AIR_OK;
	if (!(s->include = air__calloc(spec->n_include_paths, sizeof(*s->include))))
		return air__oom(err);
	for (size_t i = 0; i < spec->n_include_paths; i++) {
		char *p = air__trim_dup(spec->include_paths[i]);
		bool dotdot = false;
		if (!p)
			return air__oom(err);
		s->include[s->n_include++] = p;
		for (const char *seg = p; *seg;) {
			size_t n = strcspn(seg, "/");
			dotdot |= n == 2 && seg[0] == '.' && seg[1] == '.';
			seg += n;
			seg += *seg == '/';
		}
		if (!*p || p[0] == '/' || dotdot)
			return air__fail(err, snap_error(air__error_new(AIR_ESNAPSHOT, 0,
			                 "code_source include path \"%s\" must be a relative path inside "
			                 "root_path without \"..\"", spec->include_paths[i]),
			                 "code_source.include_paths"));
	}
	return AIR_OK;
}

static int missing_paths_error(air_error **err, const air__buf *missing, const char *where)
{
	return air__fail(err, snap_error(air__error_new(AIR_ESNAPSHOT, 0,
	                 "code_source include paths not found %s: %s", where, air__buf_cstr(missing)),
	                 "code_source.include_paths"));
}

static int plan_plain(air__snapshot *s, air_error **err)
{
	air__buf missing = AIR__BUF_INIT;
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc = AIR_OK;

	for (size_t i = 0; i < s->n_include; i++) {
		char *p = air__sprintf("%s/%s", s->root, s->include[i]);
		struct stat st;
		if (!p)
			return air__oom(err);
		if (lstat(p, &st) != 0) {
			air__buf_puts(&missing, missing.len ? ", " : "");
			air__buf_puts(&missing, s->include[i]);
		}
		air__free(p);
	}
	if (missing.len) {
		char *where = air__sprintf("in %s", s->root);
		rc = where ? missing_paths_error(err, &missing, where) : air__oom(err);
		air__free(where);
	}
	air__buf_dispose(&missing);
	if (rc != AIR_OK)
		return rc;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
	s->mode = AIR__SNAPSHOT_PLAIN;
	/* The reference's name; air__snapshot_content_name() when it is taken. */
	return (s->archive_name = air__sprintf("%s_%s.tar.gz", s->dirname, stamp)) ? AIR_OK : air__oom(err);
}

/* The commit @rev names; AIR_ENOTFOUND (no error object) when it is not there. */
static int resolve(air__snapshot *s, const char *rev, const air__ctx *ctx, air_error **err)
{
	air_error *e = NULL;
	int rc = air__git_resolve_commit(s->root, rev, ctx, &s->sha, &e);

	if (rc == AIR_ENOTFOUND) {
		air_error_free(e);
		return rc;
	}
	return rc == AIR_OK ? AIR_OK : air__fail(err, e);
}

static int plan_git(const air__snapshot_spec *spec, air__snapshot *s, air_error **err)
{
	const char *key_commit;
	air__buf missing = AIR__BUF_INIT;
	int rc;

	s->mode = AIR__SNAPSHOT_GIT;
	if (!s->in_git)
		return air__fail(err, snap_error(air__error_new(AIR_ESNAPSHOT, 0,
		                 "code_source.git is set but %s is not inside a git work tree", s->root),
		                 "code_source.git"));
	if (spec->git_commit) {
		rc = resolve(s, spec->git_commit, spec->ctx, err);
		if (rc == AIR_ENOTFOUND)
			return air__fail(err, snap_error(air__error_new(AIR_ESNAPSHOT, 0,
			                 "git.commit %s is not in the local repository of %s (nothing is "
			                 "fetched; fetch or create it first)", spec->git_commit, s->root),
			                 "code_source.git.commit"));
		if (rc != AIR_OK)
			return rc;
		key_commit = spec->git_commit; /* as written: abbreviations are not expanded */
	} else {
		char *ref = air__sprintf("refs/heads/%s", spec->git_branch);
		bool dirty = false;
		if (!ref)
			return air__oom(err);
		rc = resolve(s, ref, spec->ctx, err);
		air__free(ref);
		if (rc == AIR_ENOTFOUND)
			return air__fail(err, snap_error(air__error_new(AIR_ESNAPSHOT, 0,
			                 "git.branch %s does not exist locally in %s (nothing is fetched)",
			                 spec->git_branch, s->root), "code_source.git.branch"));
		if (rc == AIR_OK)
			rc = air__git_is_dirty(s->root, (const char *const *)s->include, s->n_include,
			                       spec->ctx, &dirty, err);
		if (rc != AIR_OK)
			return rc;
		if (dirty)
			return air__fail(err, snap_error(air__error_new(AIR_ESNAPSHOT, 0,
			                 "%s has uncommitted changes that a snapshot of branch %s would not "
			                 "include; commit or stash them, or pin git.commit", s->root,
			                 spec->git_branch), "code_source.git.branch"));
		key_commit = s->sha;
	}
	for (size_t i = 0; i < s->n_include; i++) {
		bool exists = false;
		rc = air__git_path_exists(s->root, s->sha, s->include[i], spec->ctx, &exists, err);
		if (rc != AIR_OK) {
			air__buf_dispose(&missing);
			return rc;
		}
		if (!exists) {
			air__buf_puts(&missing, missing.len ? ", " : "");
			air__buf_puts(&missing, s->include[i]);
		}
	}
	if (missing.len) {
		char *where = air__sprintf("at commit %s", s->sha);
		rc = where ? missing_paths_error(err, &missing, where) : air__oom(err);
		air__free(where);
		air__buf_dispose(&missing);
		return rc;
	}
	s->cache_key = air__snapshot_cache_key(key_commit, (const char *const *)s->include, s->n_include);
	if (!s->cache_key)
		return air__oom(err);
	s->archive_name = air__sprintf("%s_%.16s.tar.gz", s->dirname, s->cache_key);
	return s->archive_name ? AIR_OK : air__oom(err);
}

int air__snapshot_plan(const air__snapshot_spec *spec, air__snapshot *s, air_error **err)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->archive = (air__archive)AIR__ARCHIVE_INIT;
	rc = resolve_root(spec, s, err);
	if (rc == AIR_OK)
		rc = copy_include_paths(spec, s, err);
	if (rc != AIR_OK)
		return rc;
	s->in_git = air__git_is_work_tree(s->root, spec->ctx);
	if ((rc = air__ctx_check(spec->ctx, "planning the code snapshot", err)) != AIR_OK)
		return rc;
	if (spec->git_commit || spec->git_branch)
		return plan_git(spec, s, err);
	return plan_plain(s, err);
}

static int read_gitignore(const air__snapshot *s, air__ignore *ig, air_error **err)
{
	char *path = air__sprintf("%s/.gitignore", s->root);
	air__buf text = AIR__BUF_INIT;
	char chunk[8192];
	int fd, rc = AIR_OK;
	ssize_t n;

	memset(ig, 0, sizeof(*ig));
	if (!path)
		return air__oom(err);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			rc = air__failf(err, AIR_ESNAPSHOT, 0, "cannot read %s: %s", path, strerror(errno));
		air__free(path);
		return rc;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && text.len <= GITIGNORE_MAX_BYTES)
		air__buf_put(&text, chunk, (size_t)n);
	if (n < 0)
		rc = air__failf(err, AIR_ESNAPSHOT, 0, "cannot read %s: %s", path, strerror(errno));
	else if (air__buf_oom(&text) ||
	         air__ignore_parse(air__buf_cstr(&text), text.len, s->dirname, ig) != AIR_OK)
		rc = air__oom(err);
	close(fd);
	air__free(path);
	air__buf_dispose(&text);
	return rc;
}

static int package_git(air__snapshot *s, const air__ctx *ctx, air_error **err)
{
	struct stat st;
	int fd, rc;

	if ((fd = air__snapshot_tmpfile(err)) < 0)
		return AIR_EIO;
	rc = air__git_archive(s->root, s->sha, s->dirname, (const char *const *)s->include,
	                      s->n_include, fd, ctx, err);
	if (rc == AIR_OK && fstat(fd, &st) == 0 && (uint64_t)st.st_size > AIR__SNAPSHOT_MAX_BYTES)
		rc = air__failf(err, AIR_ESNAPSHOT, 0,
		                "the git archive of %s is larger than %zu MiB; narrow it with include_paths",
		                s->root, AIR__SNAPSHOT_MAX_BYTES >> 20);
	if (rc == AIR_OK && lseek(fd, 0, SEEK_SET) != 0)
		rc = air__failf(err, AIR_EIO, 0, "cannot read back the git archive: %s", strerror(errno));
	if (rc == AIR_OK) {
		air__fsize_guard_t fsize; /* git ran without it: past the limit it fails */

		air__fsize_guard(&fsize);
		rc = air__snapshot_tar_repack(fd, s->dirname, &s->archive, err);
		air__fsize_unguard(&fsize);
	}
	close(fd);
	return rc;
}

int air__snapshot_package(air__snapshot *s, const air__ctx *ctx, air_error **err)
{
	air__ignore ig;
	air__fsize_guard_t fsize;
	int rc;

	if (s->packaged)
		return AIR_OK;
	if (s->mode == AIR__SNAPSHOT_GIT) {
		rc = package_git(s, ctx, err);
	} else {
		rc = read_gitignore(s, &ig, err);
		/* the archive's temporary file: EFBIG, not SIGXFSZ (this thread only) */
		air__fsize_guard(&fsize);
		if (rc == AIR_OK)
			rc = air__snapshot_tar_plain(s->root, s->dirname, &ig, s->include, s->n_include, ctx,
			                             &s->archive, err);
		air__fsize_unguard(&fsize);
		air__ignore_dispose(&ig);
	}
	s->packaged = rc == AIR_OK;
	return rc;
}

void air__snapshot_dispose(air__snapshot *s)
{
	if (!s)
		return;
	air__free(s->root);
	air__free(s->dirname);
	air__free(s->sha);
	air__free(s->cache_key);
	for (size_t i = 0; i < s->n_include; i++)
		air__free(s->include[i]);
	air__free(s->include);
	air__free(s->archive_name);
	air__archive_dispose(&s->archive);
	memset(s, 0, sizeof(*s));
}
