/*
 * check.c: air_client_check() — the checks in their order, and the entries
 * of the report.
 *
 * Order: reproducibility and resource sanity first (no request), then the
 * resources: the submission's local checks (idempotency key, code paths,
 * snapshot), the backend's own checks (a local workspace's), secrets,
 * images, folders, pool and accelerator types, experiment permissions, and
 * the workspace's pre-flight last, as a submission makes it. Each check
 * reports what its requests found; only an interrupt, the deadline, the
 * callback or a lack of memory ends the call early.
 */
#include "checks/checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A request that times out this close to the call's deadline ran into it:
 * the transfer's timer may fire a few milliseconds before the call's clock
 * says the deadline has passed. */
#define DEADLINE_SLACK_MS 50

const char *air__check_opt(const air__checker *k, int32_t opt)
{
	return k->opts && opt > 0 && opt < AIR__CHECK_STR_OPTS ? k->opts->str[opt] : NULL;
}

static int vadd(air__checker *k, const char *name, int32_t status, const char *field,
                int64_t bytes, int64_t files, const char *fmt, va_list ap)
{
	air_check_report *r = k->report;
	air_check *c;

	if (r->count == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		air_check *items = air__realloc(r->items, cap * sizeof(*items));
		if (!items)
			return air__oom(k->err);
		r->items = items;
		r->cap = cap;
	}
	c = &r->items[r->count];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->status = status;
	c->bytes = bytes;
	c->files = files;
	c->message = air__vsprintf(fmt, ap);
	if (!c->message || (field && !(c->field = air__strdup(field)))) {
		air__free(c->message);
		return air__oom(k->err);
	}
	r->count++;
	if (k->opts && k->opts->cb && k->opts->cb(c, k->opts->cb_ud) != 0)
		return air__failf(k->err, AIR_EABORTED, AIR_KIND_ABORTED,
		                  "the check was stopped by its callback");
	return AIR_OK;
}

int air__check_add(air__checker *k, const char *name, int32_t status, const char *field,
                   const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vadd(k, name, status, field, -1, -1, fmt, ap);
	va_end(ap);
	return rc;
}

int air__check_add_sized(air__checker *k, const char *name, int32_t status, const char *field,
                         int64_t bytes, int64_t files, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vadd(k, name, status, field, bytes, files, fmt, ap);
	va_end(ap);
	return rc;
}

bool air__check_stopped(const air__checker *k, const air_error *e)
{
	int code = air_error_code(e);

	return code == AIR_ENOMEM || code == AIR_EINTERRUPTED || code == AIR_EABORTED ||
	       air__ctx_check(&k->ctx, NULL, NULL) != AIR_OK ||
	       (code == AIR_ETIMEOUT && k->ctx.deadline &&
	        air__ctx_remaining(&k->ctx) <= DEADLINE_SLACK_MS);
}

int air__check_request_failed(air__checker *k, const char *name, const char *field, air_error *e,
                              const char *what)
{
	int code = air_error_code(e);
	int rc;

	if (code == AIR_ENOMEM) {
		air_error_free(e);
		return air__oom(k->err);
	}
	if (air__check_stopped(k, e)) {
		if (air__ctx_check(&k->ctx, "the check", NULL) != AIR_OK) {
			air_error_free(e);
			return air__ctx_check(&k->ctx, "the check", k->err);
		}
		return air__fail(k->err, e);
	}
	/* A submission would stop at the same refusal; anything else leaves
	 * the question open. */
	rc = air__check_add(k, name, code == AIR_EAUTH ? AIR_CHECK_FAIL : AIR_CHECK_SKIPPED, field,
	                    "%s: %s", what, air_error_message(e));
	if (!k->unreachable && (code == AIR_ENET || code == AIR_ETIMEOUT || code == AIR_ERATELIMIT ||
	                        (code == AIR_ESERVER && air_error_http_status(e) == 503)) &&
	    !(k->unreachable = air__strdup(air_error_message(e))) && rc == AIR_OK)
		rc = air__oom(k->err);
	air_error_free(e);
	return rc;
}

bool air__check_not_here(air__checker *k, const char *name, const char *field, int *rc)
{
	const char *why = air__json_str(k->skips, name);
	json_t *v;
	size_t i;

	*rc = AIR_OK;
	json_array_foreach(k->replaced, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), name))
			return true;
	if (why)
		*rc = air__check_add(k, name, AIR_CHECK_SKIPPED, field, "%s", why);
	else if (k->unreachable)
		*rc = air__check_add(k, name, AIR_CHECK_SKIPPED, field, "not checked: the workspace "
		                     "did not answer an earlier request (%s)", k->unreachable);
	return why || k->unreachable;
}

void air__check_call_options(const air__checker *k, air_call_options *out)
{
	int64_t left = air__ctx_remaining(&k->ctx);

	out->call.intr = k->ctx.intr;
	/* A deadline already passed stops the call before its first request. */
	out->call.deadline_ms = left == INT64_MAX ? 0 : left > 0 ? left : 1;
}

/* One look-up (@lookup) of the identity into *value, once: its failure is
 * kept in *error and reported for each check that needed it. */
static bool identity(air__checker *k, int (*lookup)(air_client *, const air__ctx *, char **,
                                                   air_error **),
                     char **value, air_error **error, const char *name, const char *field,
                     int *rc)
{
	*rc = AIR_OK;
	if (!*value && !*error && lookup(k->c, &k->ctx, value, error) != AIR_OK && !*error)
		*error = air__error_new(AIR_ENOMEM, 0, "out of memory");
	if (*value)
		return true;
	*rc = air__check_request_failed(k, name, field, air__error_clone(*error),
	                                "the current user cannot be looked up");
	return false;
}

bool air__check_user_base(air__checker *k, const char *name, const char *field, int *rc)
{
	return identity(k, air__client_user_base, &k->user_base, &k->base_error, name, field, rc);
}

bool air__check_user_name(air__checker *k, const char *name, const char *field, int *rc)
{
	/* The base failed for want of the name: the same answer, without asking again. */
	if (!k->user_name && !k->name_error && k->base_error)
		k->name_error = air__error_clone(k->base_error);
	return identity(k, air__client_user_name, &k->user_name, &k->name_error, name, field, rc);
}

const char *air__check_size(int64_t bytes, char out[32])
{
	if (bytes < 1024)
		snprintf(out, 32, "%lld byte%s", (long long)bytes, bytes == 1 ? "" : "s");
	else if (bytes < 1024 * 1024)
		snprintf(out, 32, "%.1f KiB", (double)bytes / 1024);
	else if (bytes < (int64_t)1024 * 1024 * 1024)
		snprintf(out, 32, "%.1f MiB", (double)bytes / (1024 * 1024));
	else
		snprintf(out, 32, "%.2f GiB", (double)bytes / (1024 * 1024 * 1024));
	return out;
}

/* The checks of the workspace's resources, in their order. */
static int resources(air__checker *k)
{
	int (*const steps[])(air__checker *) = {
		air__check_idempotency_key, air__check_code,    air__check_backend,
		air__check_secrets,         air__check_images,  air__check_folders,
		air__check_compute,         air__check_experiment, air__check_preflight,
	};
	int rc = AIR_OK;

	for (size_t i = 0; rc == AIR_OK && i < AIR__ARRAY_SIZE(steps); i++)
		rc = steps[i](k);
	return rc;
}

static int offline(air__checker *k)
{
	const air_check_options *o = k->opts;
	int rc = AIR_OK;

	if (!o || !o->no_reproducibility) {
		if (rc == AIR_OK)
			rc = air__check_environment(k);
		if (rc == AIR_OK)
			rc = air__check_dependencies(k);
		if (rc == AIR_OK)
			rc = air__check_image_exclusive(k);
		if (rc == AIR_OK)
			rc = air__check_code_commit(k);
	}
	if (!o || !o->no_sanity) {
		if (rc == AIR_OK)
			rc = air__check_num_accelerators(k);
		if (rc == AIR_OK)
			rc = air__check_rendezvous(k);
	}
	return rc;
}

static void checker_dispose(air__checker *k)
{
	air__workload_dispose(&k->w);
	air__code_report_dispose(&k->code);
	air__free(k->user_name);
	air__free(k->user_base);
	air_error_free(k->base_error);
	air_error_free(k->name_error);
	air__free(k->unreachable);
	json_decref(k->preflight_body);
	json_decref(k->replaced);
	json_decref(k->skips);
}

int air_client_check(air_client *client, const air_config *cfg, const air_check_options *opts,
                     air_check_report **out, air_error **err)
{
	air__checker k;
	bool remote = !opts || !opts->no_resources;
	int rc;

	if (out)
		*out = NULL;
	if (!client || !cfg || !out)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_check: client, cfg and out are required");
	memset(&k, 0, sizeof(k));
	k.c = client;
	k.cfg = cfg;
	k.opts = opts;
	k.err = err;
	air__client_ctx(client, opts ? &opts->call : NULL, &k.ctx);
	if (!(k.report = air__calloc(1, sizeof(*k.report))))
		return air__oom(err);
	k.report->strict = opts && opts->strict;
	rc = air__workload_load(cfg, &k.w, err);
	if (rc == AIR_OK && remote)
		rc = air__client_ensure_resolved(client, &k.ctx, err);
	if (rc == AIR_OK)
		rc = offline(&k);
	if (rc == AIR_OK && remote)
		rc = resources(&k);
	checker_dispose(&k);
	if (rc != AIR_OK) {
		air_check_report_free(k.report);
		return rc;
	}
	*out = k.report;
	return AIR_OK;
}
