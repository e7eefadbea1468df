/*
 * code.c: the submission's own local checks and the code's provenance —
 * the idempotency key's length, the code paths (the snapshot plan), the
 * snapshot's size and file count (packaged into a temporary file, then
 * dropped), and the commit the code is at.
 */
#include "checks/checks.h"

#include <string.h>

/* The code's snapshot, planned once (packaged when resources are checked). */
static int inspect(air__checker *k)
{
	bool package = !k->opts || !k->opts->no_resources;

	if (k->code_known)
		return AIR_OK;
	k->code_known = true;
	return air__code_inspect(&k->w, k->c, air__check_opt(k, AIR_CHECKS_BASE_DIR), package,
	                         &k->ctx, &k->code, k->err);
}

int air__check_idempotency_key(air__checker *k)
{
	const char *option = air__check_opt(k, AIR_CHECKS_IDEMPOTENCY_KEY), *key = NULL;
	air_error *e = NULL;
	int rc;

	if (air__idempotency_key(option, &k->w, &key, &e) != AIR_OK) {
		rc = air__check_add(k, "idempotency_key", AIR_CHECK_FAIL, air_error_field(e), "%s",
		                    air_error_message(e));
		air_error_free(e);
		return rc;
	}
	if (!key)
		return AIR_OK;
	return air__check_add(k, "idempotency_key", AIR_CHECK_PASS,
	                      option ? "idempotency_key" : "idempotency_token",
	                      "the idempotency key is %zu bytes long (at most %d)", strlen(key),
	                      AIR__IDEMPOTENCY_MAX);
}

int air__check_code(air__checker *k)
{
	const air__code_report *r = &k->code;
	char size[32], packed[32];
	int rc;

	if (!k->w.has_code_source || (rc = inspect(k)) != AIR_OK)
		return k->w.has_code_source ? rc : AIR_OK;
	if (r->plan_error) {
		rc = air__check_add(k, "code_paths", AIR_CHECK_FAIL, air_error_field(r->plan_error),
		                    "%s", air_error_message(r->plan_error));
		return rc == AIR_OK ? air__check_add(k, "snapshot", AIR_CHECK_SKIPPED, "code_source",
		                                     "no snapshot: its code paths are not there")
		                    : rc;
	}
	if (k->w.n_include_paths)
		rc = air__check_add(k, "code_paths", AIR_CHECK_PASS, "code_source.include_paths",
		                    "%s and its %zu include path%s exist", r->root,
		                    k->w.n_include_paths, k->w.n_include_paths == 1 ? "" : "s");
	else
		rc = air__check_add(k, "code_paths", AIR_CHECK_PASS, "code_source.root_path",
		                    "%s exists", r->root);
	if (rc != AIR_OK)
		return rc;
	if (r->package_error)
		return air__check_add(k, "snapshot", AIR_CHECK_FAIL, "code_source", "%s",
		                      air_error_message(r->package_error));
	return air__check_add_sized(k, "snapshot", AIR_CHECK_PASS, "code_source", r->bytes, r->files,
	                            "%lld file%s, %s (%s compressed)%s", (long long)r->files,
	                            r->files == 1 ? "" : "s", air__check_size(r->bytes, size),
	                            air__check_size(r->archive_bytes, packed),
	                            r->git_mode ? " at the commit" : "");
}

/* "a, b, c (and 3 more)" of the changes listed. */
static char *changes_text(const air__code_report *r)
{
	air__buf b = AIR__BUF_INIT;
	size_t shown = 0;

	for (size_t i = 0; i < AIR__CODE_CHANGES_SHOWN && r->changes[i]; i++, shown++)
		air__buf_printf(&b, "%s%s", i ? ", " : "", r->changes[i]);
	if (r->n_changes > shown || r->changes_truncated)
		air__buf_printf(&b, r->changes_truncated ? " and more" : " and %zu more",
		                r->n_changes - shown);
	if (air__buf_oom(&b)) {
		air__buf_dispose(&b);
		return NULL;
	}
	return air__buf_detach(&b);
}

int air__check_code_commit(air__checker *k)
{
	const air__code_report *r = &k->code;
	const air__workload *w = &k->w;
	char *list;
	int rc;

	if (!w->has_code_source || (rc = inspect(k)) != AIR_OK)
		return w->has_code_source ? rc : AIR_OK;
	if (r->plan_error)
		return air__check_add(k, "code_commit", AIR_CHECK_SKIPPED, "code_source",
		                      "the code cannot be looked at: %s",
		                      air_error_message(r->plan_error));
	if (r->git_mode && w->git_commit)
		return air__check_add(k, "code_commit", AIR_CHECK_PASS, "code_source.git.commit",
		                      "pinned to commit %s", r->commit);
	if (r->git_mode)
		return air__check_add(k, "code_commit", AIR_CHECK_WARN, "code_source.git.branch",
		                      "the snapshot is the head of branch %s when submitted (%.12s "
		                      "now); set git.commit to pin the code", w->git_branch, r->commit);
	if (!r->in_git)
		return air__check_add(k, "code_commit", AIR_CHECK_WARN, "code_source",
		                      "%s is not in a git repository: the code is at no known commit",
		                      r->root);
	if (!r->commit)
		return air__check_add(k, "code_commit", AIR_CHECK_WARN, "code_source",
		                      "the git repository of %s has no commit yet", r->root);
	if (!r->n_changes && !r->changes_truncated)
		return air__check_add(k, "code_commit", AIR_CHECK_PASS, "code_source",
		                      "%s is at commit %.12s with nothing uncommitted", r->root,
		                      r->commit);
	if (!(list = changes_text(r)))
		return air__oom(k->err);
	rc = air__check_add(k, "code_commit", AIR_CHECK_WARN, "code_source",
	                    "%s has uncommitted changes (%s): the snapshot holds them, not commit "
	                    "%.12s alone", r->root, list, r->commit);
	air__free(list);
	return rc;
}
