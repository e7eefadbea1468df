/*
 * inspect.c: the code of a submission as air_client_check() reports it — the
 * snapshot plan a submission makes first (root, git state, include paths),
 * the commit the code is at and what is not committed, and the size and file
 * count of the archive it would upload. Nothing leaves this machine.
 */
#include "submit/submit.h"

#include <stdlib.h>
#include <string.h>

#include "submit/git.h"
#include "submit/snapshot.h"

_Static_assert(AIR__CODE_CHANGES_SHOWN == AIR__GIT_CHANGES_SHOWN,
               "the report shows what git lists");

void air__snapshot_spec_of(const air__workload *w, const air_client *c, const char *base_dir,
                           const air__ctx *ctx, air__snapshot_spec *spec)
{
	const char *home = c ? air__client_opt_str(c, AIR_OPT_HOME_DIR) : NULL;

	memset(spec, 0, sizeof(*spec));
	spec->root_path = w->root_path;
	spec->base_dir = base_dir ? base_dir : w->base_dir;
	spec->home = home ? home : getenv("HOME");
	spec->git_commit = w->git_commit;
	spec->git_branch = w->git_branch;
	spec->include_paths = w->include_paths;
	spec->n_include_paths = w->n_include_paths;
	spec->ctx = ctx;
}

/* A failure of the code itself is reported; one of the call stops it. */
static int keep(const air__ctx *ctx, int rc, air_error *e, air_error **slot, air_error **err)
{
	if (rc == AIR_OK)
		return AIR_OK;
	if (rc == AIR_ENOMEM || air__ctx_check(ctx, "checking the code", NULL) != AIR_OK) {
		air_error_free(e);
		return rc == AIR_ENOMEM ? air__oom(err) : air__ctx_check(ctx, "checking the code", err);
	}
	*slot = e;
	return AIR_OK;
}

/* HEAD and the uncommitted changes of a plain snapshot's root in git. */
static int git_state(const air__snapshot *s, const air__ctx *ctx, air__code_report *out,
                     air_error **err)
{
	air__git_changes_list changes;
	air_error *e = NULL;
	int rc = air__git_resolve_commit(s->root, "HEAD", ctx, &out->commit, &e);

	/* A repository without a commit has no HEAD: every file is a change. */
	if (rc == AIR_ENOTFOUND || rc == AIR_EIO)
		rc = AIR_OK;
	air_error_free(e);
	e = NULL;
	if (rc == AIR_OK)
		rc = air__git_changes(s->root, (const char *const *)s->include, s->n_include, ctx,
		                      &changes, &e);
	if (rc != AIR_OK) {
		/* git failing is not the code's problem: no changes are shown */
		air_error_free(e);
		return air__ctx_check(ctx, "checking the code", err);
	}
	out->n_changes = changes.count;
	out->changes_truncated = changes.truncated;
	for (size_t i = 0; i < AIR__CODE_CHANGES_SHOWN; i++) {
		out->changes[i] = changes.first[i];
		changes.first[i] = NULL;
	}
	air__git_changes_dispose(&changes);
	return AIR_OK;
}

int air__code_inspect(const air__workload *w, const air_client *c, const char *base_dir,
                      bool package, const air__ctx *ctx, air__code_report *out, air_error **err)
{
	air__snapshot_spec spec;
	air__snapshot s;
	air_error *e = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!w->has_code_source)
		return AIR_OK;
	air__snapshot_spec_of(w, c, base_dir, ctx, &spec);
	rc = air__snapshot_plan(&spec, &s, &e);
	if (s.root && !(out->root = air__strdup(s.root)))
		rc = AIR_ENOMEM;
	out->in_git = s.in_git;
	out->git_mode = s.mode == AIR__SNAPSHOT_GIT;
	if (rc != AIR_OK) {
		air__snapshot_dispose(&s);
		return keep(ctx, rc, e, &out->plan_error, err);
	}
	if (out->git_mode)
		rc = (out->commit = air__strdup(s.sha)) ? AIR_OK : air__oom(err);
	else if (s.in_git)
		rc = git_state(&s, ctx, out, err);
	if (rc == AIR_OK && package) {
		rc = air__snapshot_package(&s, ctx, &e);
		rc = keep(ctx, rc, e, &out->package_error, err);
		out->packaged = rc == AIR_OK && !out->package_error;
		out->files = s.archive.files;
		out->bytes = s.archive.content_bytes;
		out->archive_bytes = s.archive.size;
	}
	air__snapshot_dispose(&s);
	return rc;
}

void air__code_report_dispose(air__code_report *r)
{
	if (!r)
		return;
	air_error_free(r->plan_error);
	air_error_free(r->package_error);
	air__free(r->root);
	air__free(r->commit);
	for (size_t i = 0; i < AIR__CODE_CHANGES_SHOWN; i++)
		air__free(r->changes[i]);
	memset(r, 0, sizeof(*r));
}
