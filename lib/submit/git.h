/*
 * git.h: the git commands behind code snapshots and their provenance
 * sidecars, always run as `git -C <dir> ...` from an argument vector with a
 * timeout, no prompts and no optional locks. Nothing is ever fetched.
 */
#ifndef AIR_GIT_H
#define AIR_GIT_H

#include "core/core.h"

#define AIR__GIT_TIMEOUT_MS (30 * 1000)

/*
 * Run `git -C @dir @args...` (NULL-terminated). AIR_OK once git ran,
 * whatever its exit status (inspect @r); AIR_EIO when git cannot be started;
 * AIR_EINTERRUPTED. @stdout_limit 0 = the runner's default.
 */
int air__git_run(const char *dir, const char *const *args, int64_t timeout_ms, size_t stdout_limit,
                 const air__ctx *ctx, air__proc_result *r, air_error **err);

/* Trimmed stdout of a successful run (a copy; air__free()), or NULL when git
 * failed, printed nothing, or cannot be started. */
char *air__git_output(const char *dir, const char *const *args, const air__ctx *ctx);

/* True when @dir is inside a git work tree (false when git is unavailable). */
bool air__git_is_work_tree(const char *dir, const air__ctx *ctx);

/* Full SHA of the commit @rev names, resolved locally. AIR_ENOTFOUND when the
 * repository does not have it; AIR_EIO when git fails. *sha: air__free(). */
int air__git_resolve_commit(const char *dir, const char *rev, const air__ctx *ctx, char **sha,
                            air_error **err);

/* `git status --porcelain -- <pathspecs or .>` is non-empty. */
int air__git_is_dirty(const char *dir, const char *const *pathspecs, size_t n, const air__ctx *ctx,
                      bool *dirty, air_error **err);

/* The changes `git status --porcelain -- <pathspecs or .>` lists: how many,
 * and the first AIR__GIT_CHANGES_SHOWN paths. */
#define AIR__GIT_CHANGES_SHOWN 5
typedef struct air__git_changes_list {
	size_t count;                        /* changed paths listed */
	bool truncated;                      /* the list was longer than git's output limit */
	char *first[AIR__GIT_CHANGES_SHOWN]; /* the first paths, as git names them */
} air__git_changes_list;
int air__git_changes(const char *dir, const char *const *pathspecs, size_t n, const air__ctx *ctx,
                     air__git_changes_list *out, air_error **err);
void air__git_changes_dispose(air__git_changes_list *l);

/* `git ls-tree <sha> -- <path>` lists something. */
int air__git_path_exists(const char *dir, const char *sha, const char *path, const air__ctx *ctx,
                         bool *exists, air_error **err);

/* `git archive --format=tar --prefix=<prefix>/ <sha> [-- paths]` written to
 * @fd (the subtree of @dir at @sha). */
int air__git_archive(const char *dir, const char *sha, const char *prefix, const char *const *paths,
                     size_t n, int fd, const air__ctx *ctx, air_error **err);

#endif /* AIR_GIT_H */
