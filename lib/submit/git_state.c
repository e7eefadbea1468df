/*
 * git_state.c: git provenance sidecars of a snapshot —
 * git_state.json and, for a dirty tree, git_diff.patch — uploaded to the
 * launch directory. Best effort: nothing here can fail a submission.
 */
#include "submit/snapshot.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "submit/git.h"

#define DIFF_MAX_BYTES (1024 * 1024)
#define DIFF_TIMEOUT_MS 5000

char *air__git_url_without_credentials(const char *url)
{
	const char *scheme = strstr(url, "://"), *host, *at, *slash;

	if (!scheme)
		return air__strdup(url); /* scp-like "git@host:path": a user name, no secret */
	host = scheme + 3;
	slash = strchr(host, '/');
	at = memchr(host, '@', slash ? (size_t)(slash - host) : strlen(host));
	if (!at)
		return air__strdup(url);
	/* The last '@' before the path ends the user information. */
	for (const char *p = at; p < (slash ? slash : host + strlen(host)); p++)
		if (*p == '@')
			at = p;
	return air__sprintf("%.*s%s", (int)(host - url), url, at + 1);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

char *air__git_state_json(const air__git_state *st)
{
	char stamp[40], date[24];
	time_t secs = (time_t)(st->generated_at_us / 1000000);
	struct tm tm;
	json_t *doc;
	char *out = NULL;
	size_t n;

	gmtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(stamp, sizeof(stamp), "%s.%06lldZ", date,
	         (long long)(st->generated_at_us % 1000000));
	doc = json_pack("{s:i, s:s, s:o, s:o, s:o, s:o, s:b, s:s, s:o, s:s}",
	                "schema_version", 1, "packaging_mode", st->packaging_mode,
	                "base_commit", str_or_null(st->base_commit),
	                "tip_commit", str_or_null(st->tip_commit),
	                "branch", str_or_null(st->branch),
	                "repo_url", str_or_null(st->repo_url),
	                "dirty", st->dirty, "diff_status", st->diff_status,
	                "diff_path", str_or_null(st->diff_path),
	                "generated_at_utc", stamp);
	if (!doc)
		return NULL;
	n = json_dumpb(doc, NULL, 0, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (n && (out = air__malloc(n + 1))) {
		json_dumpb(doc, out, n, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		out[n] = '\0';
	}
	json_decref(doc);
	return out;
}

/* The merge-base of HEAD with the first default remote branch known locally. */
static char *base_commit(const char *root, const air__ctx *ctx)
{
	static const char *const refs[] = {"origin/HEAD", "origin/main", "origin/master"};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(refs); i++) {
		char *spec = air__sprintf("%s^{commit}", refs[i]), *sha;
		const char *verify[] = {"rev-parse", "--verify", "--quiet", spec, NULL};
		if (!spec)
			return NULL;
		sha = air__git_output(root, verify, ctx);
		air__free(spec);
		if (sha) {
			const char *mb[] = {"merge-base", "HEAD", sha, NULL};
			char *base = air__git_output(root, mb, ctx);
			air__free(sha);
			return base;
		}
	}
	return NULL;
}

/* `git diff HEAD -- .` within the size and time limits; sets the status. */
static void capture_diff(const char *root, const air__ctx *ctx, air__git_sidecars *out,
                         const char **status)
{
	static const char *const args[] = {"diff", "HEAD", "--", ".", NULL};
	air__proc_result r;

	*status = "clean";
	if (air__git_run(root, args, DIFF_TIMEOUT_MS, DIFF_MAX_BYTES, ctx, &r, NULL) != AIR_OK) {
		air__proc_result_dispose(&r);
		return;
	}
	if (r.timed_out)
		*status = "timeout";
	else if (r.overflow)
		*status = "size_exceeded";
	else if (r.exit_code == 0 && r.out.len > 0) {
		*status = "captured";
		out->diff_len = r.out.len;
		out->diff = air__buf_detach(&r.out);
	}
	air__proc_result_dispose(&r);
}

bool air__git_sidecars_build(const air__snapshot *s, const char *launch_dir, const air__ctx *ctx,
                             air__git_sidecars *out)
{
	static const char *const head[] = {"rev-parse", "HEAD", NULL};
	static const char *const branch[] = {"symbolic-ref", "--short", "-q", "HEAD", NULL};
	static const char *const origin[] = {"remote", "get-url", "origin", NULL};
	air__git_state st;
	char *tip = NULL, *br, *url, *clean_url = NULL, *base, *diff_path = NULL;
	struct timespec now;
	bool dirty = false;

	memset(out, 0, sizeof(*out));
	if (!s->in_git)
		return false;
	memset(&st, 0, sizeof(st));
	st.packaging_mode = s->mode == AIR__SNAPSHOT_GIT ? "git_archive" : "plain_tar";
	st.tip_commit = s->mode == AIR__SNAPSHOT_GIT ? s->sha : (tip = air__git_output(s->root, head, ctx));
	st.branch = br = air__git_output(s->root, branch, ctx);
	if ((url = air__git_output(s->root, origin, ctx)))
		clean_url = air__git_url_without_credentials(url);
	st.repo_url = clean_url;
	st.base_commit = base = base_commit(s->root, ctx);
	st.diff_status = "clean";
	if (air__git_is_dirty(s->root, NULL, 0, ctx, &dirty, NULL) == AIR_OK && dirty) {
		capture_diff(s->root, ctx, out, &st.diff_status);
		if (out->diff)
			st.diff_path = diff_path = air__sprintf("%s/git_diff.patch", launch_dir);
	}
	st.dirty = dirty;
	clock_gettime(CLOCK_REALTIME, &now);
	st.generated_at_us = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
	out->state_json = air__git_state_json(&st);
	air__free(tip);
	air__free(br);
	air__free(url);
	air__free(clean_url);
	air__free(base);
	air__free(diff_path);
	if (!out->state_json || (out->diff && !st.diff_path)) {
		air__git_sidecars_dispose(out);
		return false;
	}
	return true;
}

void air__git_sidecars_dispose(air__git_sidecars *sc)
{
	air__free(sc->state_json);
	air__free(sc->diff);
	memset(sc, 0, sizeof(*sc));
}
