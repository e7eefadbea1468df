/* sweep.c: the public objects of a sweep — its options and its outcome. */
#include "sweeps/sweeps.h"

#include <string.h>

/* ---- options ------------------------------------------------------------ */

int air_sweep_options_new(air_sweep_options **out)
{
	if (!out)
		return AIR_EINVAL;
	return (*out = air__calloc(1, sizeof(**out))) ? AIR_OK : AIR_ENOMEM;
}

void air_sweep_options_free(air_sweep_options *o)
{
	if (!o)
		return;
	air__free(o->base_key);
	air__free(o->base_dir);
	air__free(o);
}

static int set_copy(char **slot, const char *value)
{
	char *copy = NULL;

	if (value && !(copy = air__strdup(value)))
		return AIR_ENOMEM;
	air__free(*slot);
	*slot = copy;
	return AIR_OK;
}

int air_sweep_options_set_str(air_sweep_options *o, int32_t opt, const char *value)
{
	if (!o)
		return AIR_EINVAL;
	switch (opt) {
	case AIR_SWEEP_BASE_KEY:
		/* an unset variable must not silently give a fresh sweep */
		if (value && (air__is_blank(value) || strlen(value) > AIR__SWEEP_BASE_MAX))
			return AIR_EINVAL;
		return set_copy(&o->base_key, value);
	case AIR_SWEEP_BASE_DIR:
		return set_copy(&o->base_dir, value);
	case AIR_SWEEP_MAX_PARALLEL:
	case AIR_SWEEP_SKIP_PREFLIGHT:
	case AIR_SWEEP_RESUME:
		return AIR_EINVAL;
	default:
		return AIR_EUNSUPPORTED;
	}
}

int air_sweep_options_set_int(air_sweep_options *o, int32_t opt, int64_t value)
{
	if (!o)
		return AIR_EINVAL;
	switch (opt) {
	case AIR_SWEEP_MAX_PARALLEL:
		if (value < 0 || value > AIR_SWEEP_LIMIT_PARALLEL)
			return AIR_EINVAL;
		o->max_parallel = value;
		return AIR_OK;
	case AIR_SWEEP_SKIP_PREFLIGHT:
		if (value != 0 && value != 1)
			return AIR_EINVAL;
		o->skip_preflight = value;
		return AIR_OK;
	case AIR_SWEEP_RESUME:
		if (value != 0 && value != 1)
			return AIR_EINVAL;
		o->resume = value;
		return AIR_OK;
	case AIR_SWEEP_BASE_KEY:
	case AIR_SWEEP_BASE_DIR:
		return AIR_EINVAL;
	default:
		return AIR_EUNSUPPORTED;
	}
}

int air_sweep_options_set_progress_cb(air_sweep_options *o, air_sweep_progress_cb cb,
                                      void *userdata)
{
	if (!o)
		return AIR_EINVAL;
	o->progress = cb;
	o->progress_ud = userdata;
	return AIR_OK;
}

int air_sweep_options_set_interrupt(air_sweep_options *o, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(o ? &o->call : NULL, intr);
}

int air_sweep_options_set_deadline_ms(air_sweep_options *o, int64_t ms)
{
	return air__call_opts_set_deadline(o ? &o->call : NULL, ms);
}

/* ---- the outcome -------------------------------------------------------- */

int air__sweep_new(size_t n, air_sweep **out, air_error **err)
{
	air_sweep *s = air__calloc(1, sizeof(*s));

	*out = NULL;
	if (!s || !(s->v = air__calloc(n ? n : 1, sizeof(*s->v)))) {
		air__free(s);
		return air__oom(err);
	}
	s->n = n;
	for (size_t i = 0; i < n; i++)
		s->v[i].status = AIR_VARIANT_VALID;
	*out = s;
	return AIR_OK;
}

void air__sweep_fail(air_sweep *s, size_t i, air_error *e)
{
	air__variant *v = &s->v[i];

	if (v->status != AIR_VARIANT_FAILED)
		s->failed++;
	v->status = AIR_VARIANT_FAILED;
	air_error_free(v->err);
	v->err = e;
}

int air__sweep_set_keys(air_sweep *s, char *base, air_error **err)
{
	air__free(s->base_key);
	s->base_key = base;
	for (size_t i = 0; i < s->n; i++) {
		air__free(s->v[i].key);
		if (!(s->v[i].key = air__sweep_key(base, s->v[i].point)))
			return air__oom(err);
	}
	return AIR_OK;
}

void air_sweep_free(air_sweep *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		air__variant *v = &s->v[i];
		air__free(v->point);
		air__free(v->run_name);
		air__free(v->key);
		air__free(v->dashboard_url);
		air__free(v->launch_dir);
		air_error_free(v->err);
	}
	air__free(s->v);
	air__free(s->base_key);
	air__free(s);
}

size_t air_sweep_count(const air_sweep *s)
{
	return s ? s->n : 0;
}

size_t air_sweep_failed_count(const air_sweep *s)
{
	return s ? s->failed : 0;
}

const char *air_sweep_base_key(const air_sweep *s)
{
	return s ? s->base_key : NULL;
}

int32_t air_sweep_resumed(const air_sweep *s) { return s && s->resumed; }

static const air__variant *at(const air_sweep *s, size_t i)
{
	return s && i < s->n ? &s->v[i] : NULL;
}

int32_t air_sweep_variant_status(const air_sweep *s, size_t i)
{
	return at(s, i) ? at(s, i)->status : 0;
}

const char *air_sweep_variant_point(const air_sweep *s, size_t i)
{
	return at(s, i) ? at(s, i)->point : NULL;
}

const char *air_sweep_variant_run_name(const air_sweep *s, size_t i)
{
	return at(s, i) ? at(s, i)->run_name : NULL;
}

const char *air_sweep_variant_idempotency_key(const air_sweep *s, size_t i)
{
	return at(s, i) ? at(s, i)->key : NULL;
}

int64_t air_sweep_variant_run_id(const air_sweep *s, size_t i)
{
	return at(s, i) ? at(s, i)->run_id : 0;
}

const char *air_sweep_variant_dashboard_url(const air_sweep *s, size_t i)
{
	return at(s, i) ? at(s, i)->dashboard_url : NULL;
}

const char *air_sweep_variant_launch_dir(const air_sweep *s, size_t i)
{
	return at(s, i) ? at(s, i)->launch_dir : NULL;
}

const air_error *air_sweep_variant_error(const air_sweep *s, size_t i)
{
	return at(s, i) ? at(s, i)->err : NULL;
}
