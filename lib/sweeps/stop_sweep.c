/*
 * stop_sweep.c: air_client_stop_sweep() and air_client_cancel_sweep()
 * (docs/submit.md, "Stopping a sweep"). The stop is a workspace file, the
 * sweep's stop mark (core/sweep_mark.c), so that it reaches a sweep going in
 * any process: the sweep reads it between its submissions (pipeline.c),
 * and a local workspace also at each runs/submit of a variant.
 */
#include "sweeps/sweeps.h"

#include <string.h>

/* The tag of base key @base_key as a sweep takes it (trimmed) into *tag. */
static int checked_tag(const char *base_key, const char *fn, char **tag, air_error **err)
{
	char *key;

	*tag = NULL;
	/* the checks of AIR_SWEEP_BASE_KEY, then its trimming as a sweep's */
	if (!base_key || air__is_blank(base_key))
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT, "%s: the base key is %s",
		                  fn, base_key ? "empty" : "NULL");
	if (strlen(base_key) > AIR__SWEEP_BASE_MAX)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "%s: the base key is longer than %d bytes", fn, AIR__SWEEP_BASE_MAX);
	key = air__trim_dup(base_key);
	*tag = key ? air__sweep_tag(key) : NULL;
	air__free(key);
	return *tag ? AIR_OK : air__oom(err);
}

int air__sweep_mark_write(air_client *c, const air__ctx *ctx, const char *path, const char *word,
                          int64_t when_ms, air_error **err)
{
	char when[32], text[80];
	air__upload up = {.path = path};

	air__format_rfc3339(when_ms / 1000, when);
	when[strlen(when) - 1] = '\0'; /* the 'Z', after the milliseconds */
	snprintf(text, sizeof(text), "%s %s.%03dZ\n", word, when, (int)(when_ms % 1000));
	up.data = text;
	up.len = strlen(text);
	return air__ws_import(c, ctx, &up, true, err);
}

/* Write the stop mark of the sweep of tag @tag into the caller's folder. */
static int write_mark(air_client *c, const air__ctx *ctx, const char *tag, air_error **err)
{
	char *base = NULL, *path = NULL;
	int rc = air__client_ensure_resolved(c, ctx, err);

	if (rc == AIR_OK)
		rc = air__client_user_base(c, ctx, &base, err);
	if (rc == AIR_OK && !(path = air__sweep_mark_path(base, tag)))
		rc = air__oom(err);
	if (rc == AIR_OK)
		rc = air__sweep_mark_write(c, ctx, path, "stopped", air__now_ms(), err);
	air__free(path);
	air__free(base);
	return rc;
}

int air_client_stop_sweep(air_client *client, const char *base_key, const air_call_options *opts,
                          air_error **err)
{
	air__ctx ctx;
	char *tag;
	int rc;

	if (!client)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_stop_sweep: client is NULL");
	if ((rc = checked_tag(base_key, "air_client_stop_sweep", &tag, err)) != AIR_OK)
		return rc;
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	rc = write_mark(client, &ctx, tag, err);
	air__free(tag);
	return rc;
}

int air_client_cancel_sweep(air_client *client, const char *base_key,
                            const air_call_options *opts, air_cancel_report **out,
                            air_error **err)
{
	air__call_opts rest;
	air__ctx ctx;
	char *tag;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_cancel_sweep: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_cancel_sweep: client is NULL");
	if ((rc = checked_tag(base_key, "air_client_cancel_sweep", &tag, err)) != AIR_OK)
		return rc;
	/* First the stop: no variant starts while the runs are being cancelled. */
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	rc = write_mark(client, &ctx, tag, err);
	rest = air__ctx_rest(&ctx); /* one deadline for the whole call */
	if (rc == AIR_OK)
		rc = air__cancel_active(client, &rest, tag, out, err);
	air__free(tag);
	return rc;
}
