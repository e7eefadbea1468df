/*
 * stop_sweep.c: air_client_stop_sweep() and air_client_cancel_sweep()
 * (docs/submit.md, "Stopping a sweep"). The stop is a workspace file, the
 * sweep's stop mark (core/sweep_mark.c), so that it reaches a sweep going in
 * any process: the sweep reads it between its submissions (pipeline.c),
 * and a local workspace also at each runs/submit of a variant.
 */
#include "sweeps/sweeps.h"

#include <string.h>

/* The base key as a sweep takes it (trimmed) into *key. */
static int checked_key(const char *base_key, const char *fn, char **key, air_error **err)
{
	*key = NULL;
	/* the checks of AIR_SWEEP_BASE_KEY, then its trimming as a sweep's */
	if (!base_key || air__is_blank(base_key))
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT, "%s: the base key is %s",
		                  fn, base_key ? "empty" : "NULL");
	if (strlen(base_key) > AIR__SWEEP_BASE_MAX)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "%s: the base key is longer than %d bytes", fn, AIR__SWEEP_BASE_MAX);
	return (*key = air__trim_dup(base_key)) ? AIR_OK : air__oom(err);
}

/* Write the stop mark of the sweep @key into the caller's folder. */
static int write_mark(air_client *c, const air__ctx *ctx, const char *key, air_error **err)
{
	char *tag = air__sweep_tag(key), *base = NULL, *path = NULL, when[32], text[64];
	air__upload up = {.path = NULL};
	int rc = tag ? air__client_ensure_resolved(c, ctx, err) : air__oom(err);

	if (rc == AIR_OK)
		rc = air__client_user_base(c, ctx, &base, err);
	if (rc == AIR_OK && !(path = air__sweep_mark_path(base, tag)))
		rc = air__oom(err);
	if (rc == AIR_OK) {
		air__format_rfc3339(air__now_ms() / 1000, when);
		snprintf(text, sizeof(text), "stopped %s\n", when);
		up.path = path;
		up.data = text;
		up.len = strlen(text);
		rc = air__ws_import(c, ctx, &up, true, err);
	}
	air__free(path);
	air__free(base);
	air__free(tag);
	return rc;
}

int air_client_stop_sweep(air_client *client, const char *base_key, const air_call_options *opts,
                          air_error **err)
{
	air__ctx ctx;
	char *key;
	int rc;

	if (!client)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_stop_sweep: client is NULL");
	if ((rc = checked_key(base_key, "air_client_stop_sweep", &key, err)) != AIR_OK)
		return rc;
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	rc = write_mark(client, &ctx, key, err);
	air__free(key);
	return rc;
}

int air_client_cancel_sweep(air_client *client, const char *base_key,
                            const air_call_options *opts, air_cancel_report **out,
                            air_error **err)
{
	air__call_opts rest;
	char *key, *tag;
	air__ctx ctx;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_cancel_sweep: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_cancel_sweep: client is NULL");
	if ((rc = checked_key(base_key, "air_client_cancel_sweep", &key, err)) != AIR_OK)
		return rc;
	/* First the stop: no variant starts while the runs are being cancelled. */
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	rc = write_mark(client, &ctx, key, err);
	tag = rc == AIR_OK ? air__sweep_tag(key) : NULL;
	rest = air__ctx_rest(&ctx); /* one deadline for the whole call */
	if (rc == AIR_OK)
		rc = tag ? air__cancel_active(client, &rest, tag, out, err) : air__oom(err);
	air__free(tag);
	air__free(key);
	return rc;
}
