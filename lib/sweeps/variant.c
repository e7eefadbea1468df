/*
 * variant.c: each variant's config — a copy of the base config with the
 * variant's point applied (air_config_set(), the override language) and
 * validated — and the offline validation of a whole sweep. What the
 * variants of a sweep share (checked and uploaded once) must not vary.
 */
#include "sweeps/sweeps.h"

#include <stdlib.h>
#include <string.h>

#include "config/config.h"

typedef const char *(*str_getter)(const air_config *cfg);

/* What the variants share, by the field an error names. */
static const struct shared_field {
	const char *field;
	str_getter get;
} shared[] = {
	{"experiment_name", air_config_experiment_name},
	{"idempotency_token", air_config_idempotency_token},
	{"code_source", air_config_root_path},
	{"code_source", air_config_remote_volume},
	{"code_source", air_config_git_commit},
	{"code_source", air_config_git_branch},
	{"usage_policy_name", air_config_usage_policy_name},
	{"usage_policy_id", air_config_usage_policy_id},
	{"mlflow_experiment_directory", air_config_mlflow_experiment_directory},
	{"environment.docker_image", air_config_docker_image_url},
	{"environment.docker_image", air_config_docker_image_tag_policy},
	{"environment.docker_image", air_config_docker_image_credentials_scope},
	{"environment.docker_image", air_config_docker_image_credentials_key},
};

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The field of @v that differs from @base among the shared ones, or NULL. */
static const char *changed_shared(const air_config *base, const air_config *v)
{
	size_t n = air_config_include_path_count(base);

	for (size_t i = 0; i < AIR__ARRAY_SIZE(shared); i++)
		if (!same(shared[i].get(base), shared[i].get(v)))
			return shared[i].field;
	if (air_config_code_source_form(base) != air_config_code_source_form(v) ||
	    n != air_config_include_path_count(v))
		return "code_source";
	for (size_t i = 0; i < n; i++)
		if (!same(air_config_include_path(base, i), air_config_include_path(v, i)))
			return "code_source";
	return NULL;
}

/* @e prefixed with the variant it belongs to. */
static air_error *about(air_error *e, size_t i, const air__assign *a, size_t n)
{
	char *text = air__point_text(a, n);

	air__error_prefix(e, "variant %zu (%s)", i, text ? text : "?");
	air__free(text);
	return e;
}

int air__variant_config(const air_config *base, const air_sweep_points *points, size_t i,
                        air_config **out, air_error **err)
{
	air__assign *a = air__calloc(air__points_width(points) + 1, sizeof(*a));
	air_config *cfg = NULL;
	air_error *e = NULL;
	const char *field;
	size_t n;
	int rc;

	*out = NULL;
	if (!a)
		return air__oom(err);
	n = air__points_get(points, i, a);
	rc = air__config_copy(base, &cfg, &e);
	for (size_t k = 0; k < n && rc == AIR_OK; k++)
		rc = air_config_set(cfg, a[k].path, a[k].value, &e);
	if (rc == AIR_OK)
		rc = air_config_validate(cfg, &e);
	if (rc == AIR_OK && (field = changed_shared(base, cfg)) != NULL)
		rc = air__fail(&e, air__error_set_field(air__error_new(AIR_ECONFIG,
		               AIR_KIND_INVALID_CONFIG, "%s: the variants of a sweep share it (it is "
		               "checked and uploaded once); it cannot vary between them", field), field));
	if (rc != AIR_OK) {
		air_config_free(cfg);
		rc = air__fail(err, rc == AIR_ENOMEM ? e : about(e, i, a, n));
	} else {
		*out = cfg;
	}
	air__free(a);
	return rc;
}

/* qsort() of variant pointers: by canonical point, then in variant order. */
static int by_point(const void *x, const void *y)
{
	const air__variant *a = *(const air__variant *const *)x, *b = *(const air__variant *const *)y;
	int c = strcmp(a->point, b->point);

	return c ? c : (a > b) - (a < b); /* the same point: in variant order */
}

char *air__variant_text(const air_sweep_points *points, size_t i)
{
	air__assign *a = air__calloc(air__points_width(points) + 1, sizeof(*a));
	char *text = a ? air__point_text(a, air__points_get(points, i, a)) : NULL;

	air__free(a);
	return text;
}

/* Two variants of one point would share one key, so one run: refused,
 * naming both (a grid "1,0x1" or a points file that repeats a line). */
static int refuse_duplicates(const air_sweep_points *points, const air_sweep *s,
                             air_error **err)
{
	const air__variant **sorted = air__calloc(s->n + 1, sizeof(*sorted));
	size_t first = 0, second = 0;
	char *one, *two;
	int rc = AIR_OK;

	if (!sorted)
		return air__oom(err);
	for (size_t i = 0; i < s->n; i++)
		sorted[i] = &s->v[i];
	qsort(sorted, s->n, sizeof(*sorted), by_point);
	for (size_t i = 1; i < s->n && !second; i++)
		if (!strcmp(sorted[i - 1]->point, sorted[i]->point)) {
			first = (size_t)(sorted[i - 1] - s->v);
			second = (size_t)(sorted[i] - s->v);
		}
	air__free(sorted);
	if (!second)
		return AIR_OK;
	one = air__variant_text(points, first);
	two = air__variant_text(points, second);
	rc = one && two ? air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
	                             "variants %zu (%s) and %zu (%s) are the same point: a sweep "
	                             "runs each point once (remove one of them)", first, one,
	                             second, two)
	                : air__oom(err);
	air__free(one);
	air__free(two);
	return rc;
}

int air__variants_check(const air_config *base, const air_sweep_points *points, air__ctx *ctx,
                        air_sweep *s, air_error **err)
{
	air__assign *a = air__calloc(air__points_width(points) + 1, sizeof(*a));
	int rc = a ? AIR_OK : air__oom(err);

	for (size_t i = 0; i < s->n && rc == AIR_OK; i++) {
		air_config *cfg = NULL;
		size_t n = air__points_get(points, i, a);

		if (i % 256 == 0 && (rc = air__ctx_check(ctx, "validating the sweep", err)) != AIR_OK)
			break;
		if ((rc = air__variant_config(base, points, i, &cfg, err)) != AIR_OK)
			break;
		if ((rc = air__canon_point(a, n, &s->v[i].point, err)) == AIR_OK &&
		    !(s->v[i].run_name = air__sweep_run_name(air_config_experiment_name(cfg), a, n)))
			rc = air__oom(err);
		air_config_free(cfg);
	}
	if (rc == AIR_OK)
		rc = refuse_duplicates(points, s, err);
	air__free(a);
	return rc;
}

int air__sweep_submit_options(const air_sweep_options *o, air_submit_options **out,
                              air_error **err)
{
	int rc = air_submit_options_new(out);

	if (rc == AIR_OK && o) {
		if (o->base_dir)
			rc = air_submit_options_set_str(*out, AIR_SUBMIT_BASE_DIR, o->base_dir);
		if (rc == AIR_OK && o->skip_preflight)
			rc = air_submit_options_set_int(*out, AIR_SUBMIT_SKIP_PREFLIGHT, 1);
		if (rc == AIR_OK && o->call.intr)
			rc = air_submit_options_set_interrupt(*out, o->call.intr);
	}
	if (rc != AIR_OK) {
		air_submit_options_free(*out);
		*out = NULL;
		return air__failf(err, rc, 0, "cannot set up the sweep's options");
	}
	return AIR_OK;
}

/* The variants of a sweep, checked; @ctx is the call's. */
static int check_all(const air_config *cfg, const air_sweep_points *points,
                     const air_sweep_options *opts, bool snapshot, air__ctx *ctx,
                     air_sweep **out, air_error **err)
{
	size_t n = points ? air_sweep_points_count(points) : 0;
	air_submit_options *sopts = NULL;
	int rc;

	*out = NULL;
	if (!cfg || !points)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "a sweep needs a config and points");
	if (n == 0 || air__points_full_count(points) == 0)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "the sweep has no points: give grid axes or explicit points");
	if (n > AIR_SWEEP_LIMIT_VARIANTS)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "the sweep has %zu variants; at most %d are allowed (sample them)",
		                  n, (int)AIR_SWEEP_LIMIT_VARIANTS);
	if (!air_config_is_valid(cfg))
		return air__failf(err, AIR_ECONFIG, AIR_KIND_INVALID_CONFIG,
		                  "the configuration has not been validated (call air_config_validate "
		                  "after the last override)");
	/* the shared snapshot's offline checks, once */
	rc = snapshot ? air__sweep_submit_options(opts, &sopts, err) : AIR_OK;
	if (rc == AIR_OK && snapshot)
		rc = air_config_check_submission(cfg, sopts, err);
	air_submit_options_free(sopts);
	if (rc == AIR_OK)
		rc = air__sweep_new(n, out, err);
	if (rc == AIR_OK && (rc = air__variants_check(cfg, points, ctx, *out, err)) != AIR_OK) {
		air_sweep_free(*out);
		*out = NULL;
	}
	return rc;
}

const char *air__sweep_offline_base(const air_config *cfg, const air_sweep_options *opts)
{
	if (opts && opts->base_key)
		return opts->base_key;
	return air_config_idempotency_token(cfg);
}

int air__sweep_check(const air_config *cfg, const air_sweep_points *points,
                     const air_sweep_options *opts, bool snapshot, air__ctx *ctx,
                     air_sweep **out, air_error **err)
{
	int rc = check_all(cfg, points, opts, snapshot, ctx, out, err);
	const char *base = rc == AIR_OK ? air__sweep_offline_base(cfg, opts) : NULL;
	char *copy;

	if (rc != AIR_OK || !base)
		return rc;
	if (!(copy = air__trim_dup(base)) || (rc = air__sweep_set_keys(*out, copy, err)) != AIR_OK) {
		if (!copy)
			rc = air__oom(err);
		air_sweep_free(*out);
		*out = NULL;
	}
	return rc;
}

int air_config_validate_sweep(const air_config *cfg, const air_sweep_points *points,
                              const air_sweep_options *opts, air_sweep **out, air_error **err)
{
	air__ctx ctx;

	if (!out)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_config_validate_sweep: out is NULL");
	air__ctx_init(&ctx, opts ? &opts->call : NULL, NULL);
	return air__sweep_check(cfg, points, opts, true, &ctx, out, err);
}
