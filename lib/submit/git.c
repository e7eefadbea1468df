/* git.c: git invocations for code snapshots (git.h). */
#include "submit/git.h"

#include <string.h>

#define ARCHIVE_TIMEOUT_MS (10 * 60 * 1000)

/* No credential prompts, no index.lock taken by `git status` (submissions
 * may run while the user works in the repository), untranslated messages. */
static const char *const git_env[] = {"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0",
                                      "LC_ALL=C", NULL};

static int run(const char *dir, const char *const *args, size_t nargs, air__proc_opts *o,
               air__proc_result *r, air_error **err)
{
	const char **argv = air__calloc(nargs + 4, sizeof(*argv));
	int rc;

	if (!argv) {
		memset(r, 0, sizeof(*r));
		return air__failf(err, AIR_ENOMEM, 0, "out of memory running git");
	}
	argv[0] = "git";
	argv[1] = "-C";
	argv[2] = dir;
	memcpy(argv + 3, args, nargs * sizeof(*args));
	o->env_add = git_env;
	rc = air__proc_run(argv, o, r, err);
	air__free(argv);
	return rc;
}

static size_t count(const char *const *args)
{
	size_t n = 0;
	while (args[n])
		n++;
	return n;
}

int air__git_run(const char *dir, const char *const *args, int64_t timeout_ms, size_t stdout_limit,
                 const air__ctx *ctx, air__proc_result *r, air_error **err)
{
	air__proc_opts o = AIR__PROC_OPTS_INIT;

	o.timeout_ms = timeout_ms;
	o.stdout_limit = stdout_limit;
	o.ctx = ctx;
	return run(dir, args, count(args), &o, r, err);
}

char *air__git_output(const char *dir, const char *const *args, const air__ctx *ctx)
{
	air__proc_result r;
	char *out = NULL;

	if (air__git_run(dir, args, AIR__GIT_TIMEOUT_MS, 0, ctx, &r, NULL) == AIR_OK &&
	    air__proc_ok(&r)) {
		out = air__trim_dup(air__buf_cstr(&r.out));
		if (out && !*out) {
			air__free(out);
			out = NULL;
		}
	}
	air__proc_result_dispose(&r);
	return out;
}

bool air__git_is_work_tree(const char *dir, const air__ctx *ctx)
{
	static const char *const args[] = {"rev-parse", "--is-inside-work-tree", NULL};
	char *out = air__git_output(dir, args, ctx);
	bool yes = out && !strcmp(out, "true");

	air__free(out);
	return yes;
}

static int git_failure(air_error **err, const char *what, const air__proc_result *r)
{
	char line[512];

	if (r->timed_out)
		return air__failf(err, AIR_EIO, 0, "git %s timed out", what);
	return air__failf(err, AIR_EIO, 0, "git %s failed (exit %d): %s", what, r->exit_code,
	                  air__proc_last_line(r, line, sizeof(line)));
}

int air__git_resolve_commit(const char *dir, const char *rev, const air__ctx *ctx, char **sha,
                            air_error **err)
{
	char *spec = air__sprintf("%s^{commit}", rev);
	/* --end-of-options: a value starting with '-' is a revision, not an option. */
	const char *args[] = {"rev-parse", "--verify", "--quiet", "--end-of-options", spec, NULL};
	air__proc_result r;
	int rc;

	*sha = NULL;
	if (!spec)
		return air__oom(err);
	rc = air__git_run(dir, args, AIR__GIT_TIMEOUT_MS, 0, ctx, &r, err);
	air__free(spec);
	if (rc == AIR_OK) {
		if (r.exit_code == 1 && !r.timed_out)
			rc = air__failf(err, AIR_ENOTFOUND, 0, "%s is not a commit of this repository", rev);
		else if (!air__proc_ok(&r))
			rc = git_failure(err, "rev-parse", &r);
		else if (!(*sha = air__trim_dup(air__buf_cstr(&r.out))))
			rc = air__oom(err);
	}
	air__proc_result_dispose(&r);
	return rc;
}

/* `git status --porcelain -- <pathspecs or .>` into @r (the caller disposes it). */
static int status(const char *dir, const char *const *pathspecs, size_t n, const air__ctx *ctx,
                  air__proc_result *r, air_error **err)
{
	const char **args = air__calloc(n + 5, sizeof(*args));
	size_t k = 0;
	int rc;

	if (!args)
		return air__oom(err);
	args[k++] = "status";
	args[k++] = "--porcelain";
	args[k++] = "--";
	for (size_t i = 0; i < n; i++)
		args[k++] = pathspecs[i];
	if (n == 0)
		args[k++] = ".";
	rc = air__git_run(dir, args, AIR__GIT_TIMEOUT_MS, 0, ctx, r, err);
	air__free(args);
	if (rc == AIR_OK && !r->overflow && !air__proc_ok(r))
		rc = git_failure(err, "status", r);
	return rc;
}

int air__git_is_dirty(const char *dir, const char *const *pathspecs, size_t n, const air__ctx *ctx,
                      bool *dirty, air_error **err)
{
	air__proc_result r;
	int rc = status(dir, pathspecs, n, ctx, &r, err);

	/* The list can be long; only emptiness matters, so overflow means dirty. */
	if (rc == AIR_OK)
		*dirty = r.overflow || !air__is_blank(air__buf_cstr(&r.out));
	air__proc_result_dispose(&r);
	return rc;
}

int air__git_changes(const char *dir, const char *const *pathspecs, size_t n, const air__ctx *ctx,
                     air__git_changes_list *out, air_error **err)
{
	air__proc_result r;
	int rc = status(dir, pathspecs, n, ctx, &r, err);

	memset(out, 0, sizeof(*out));
	out->truncated = rc == AIR_OK && r.overflow;
	for (char *line = rc == AIR_OK ? r.out.ptr : NULL; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		/* "XY path" (a rename: "XY old -> new") */
		if (strlen(line) > 3) {
			if (out->count < AIR__GIT_CHANGES_SHOWN &&
			    !(out->first[out->count] = air__strdup(line + 3)))
				rc = air__oom(err);
			out->count++;
		}
		line = nl ? nl + 1 : NULL;
	}
	air__proc_result_dispose(&r);
	if (rc != AIR_OK)
		air__git_changes_dispose(out);
	return rc;
}

void air__git_changes_dispose(air__git_changes_list *l)
{
	for (size_t i = 0; i < AIR__GIT_CHANGES_SHOWN; i++)
		air__free(l->first[i]);
	memset(l, 0, sizeof(*l));
}

int air__git_path_exists(const char *dir, const char *sha, const char *path, const air__ctx *ctx,
                         bool *exists, air_error **err)
{
	const char *args[] = {"ls-tree", sha, "--", path, NULL};
	air__proc_result r;
	int rc = air__git_run(dir, args, AIR__GIT_TIMEOUT_MS, 0, ctx, &r, err);

	if (rc == AIR_OK && r.overflow)
		*exists = true;
	else if (rc == AIR_OK && !air__proc_ok(&r))
		rc = git_failure(err, "ls-tree", &r);
	else if (rc == AIR_OK)
		*exists = !air__is_blank(air__buf_cstr(&r.out));
	air__proc_result_dispose(&r);
	return rc;
}

int air__git_archive(const char *dir, const char *sha, const char *prefix, const char *const *paths,
                     size_t n, int fd, const air__ctx *ctx, air_error **err)
{
	const char **args = air__calloc(n + 7, sizeof(*args));
	char *prefix_arg = air__sprintf("--prefix=%s/", prefix);
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;
	size_t k = 0;
	int rc;

	if (!args || !prefix_arg) {
		air__free(args);
		air__free(prefix_arg);
		return air__oom(err);
	}
	args[k++] = "archive";
	args[k++] = "--format=tar";
	args[k++] = prefix_arg;
	args[k++] = sha;
	if (n > 0)
		args[k++] = "--";
	for (size_t i = 0; i < n; i++)
		args[k++] = paths[i];
	o.timeout_ms = ARCHIVE_TIMEOUT_MS;
	o.stdout_fd = fd;
	o.ctx = ctx;
	rc = run(dir, args, k, &o, &r, err);
	if (rc == AIR_OK && !air__proc_ok(&r))
		rc = git_failure(err, "archive", &r);
	air__proc_result_dispose(&r);
	air__free(args);
	air__free(prefix_arg);
	return rc;
}
