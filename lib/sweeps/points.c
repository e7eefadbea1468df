/*
 * points.c: the points of a sweep — grid axes (their cartesian product, the
 * first axis varying slowest) or explicit points — and a seeded random
 * sample of them that is the same on every platform (splitmix64 and
 * Floyd's algorithm: no modulo bias, no dependence on the C library).
 */
#include "sweeps/sweeps.h"

#include <stdlib.h>
#include <string.h>

static void free_axis(air__axis *x)
{
	air__free(x->path);
	for (size_t i = 0; i < x->n; i++)
		air__free(x->values[i]);
	air__free(x->values);
}

static void free_xpoint(air__xpoint *pt)
{
	for (size_t i = 0; i < pt->n; i++) {
		air__free((char *)pt->a[i].path);
		air__free((char *)pt->a[i].value);
	}
	air__free(pt->a);
}

int air_sweep_points_new(air_sweep_points **out)
{
	if (!out)
		return AIR_EINVAL;
	if (!(*out = air__calloc(1, sizeof(**out))))
		return AIR_ENOMEM;
	(*out)->scratch_index = SIZE_MAX;
	return AIR_OK;
}

void air_sweep_points_free(air_sweep_points *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_axes; i++)
		free_axis(&p->axes[i]);
	air__free(p->axes);
	for (size_t i = 0; i < p->n_points; i++)
		free_xpoint(&p->points[i]);
	air__free(p->points);
	air__free(p->picked);
	air__free(p->scratch);
	air__free(p);
}

uint64_t air__points_full_count(const air_sweep_points *p)
{
	return p->n_axes ? p->grid_size : (uint64_t)p->n_points;
}

/* ---- the sample ---------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound] without modulo bias. */
static uint64_t uniform(uint64_t *state, uint64_t bound)
{
	uint64_t span = bound + 1, limit, r;

	if (span == 0)
		return splitmix64(state); /* the whole range */
	limit = UINT64_MAX - (UINT64_MAX % span + 1) % span;
	do
		r = splitmix64(state);
	while (r > limit);
	return r % span;
}

/* An open-addressing set of indexes (UINT64_MAX marks a free slot). */
typedef struct idset {
	uint64_t *slot;
	size_t mask;
} idset;

static bool idset_add(idset *s, uint64_t v)
{
	size_t i = (size_t)(v * 0x9E3779B97F4A7C15ULL) & s->mask;

	while (s->slot[i] != UINT64_MAX) {
		if (s->slot[i] == v)
			return false;
		i = (i + 1) & s->mask;
	}
	s->slot[i] = v;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Floyd's algorithm: @n distinct indexes of [0, @total), ascending. */
static int draw(air_sweep_points *p, uint64_t total, air_error **err)
{
	uint64_t n = p->sample_n, state = p->seed;
	size_t cap = 16;
	idset set;

	while (cap < 2 * n)
		cap <<= 1;
	air__free(p->picked);
	p->picked = air__malloc((size_t)n * sizeof(*p->picked));
	set.slot = air__malloc(cap * sizeof(*set.slot));
	set.mask = cap - 1;
	if (!p->picked || !set.slot) {
		air__free(set.slot);
		return air__oom(err);
	}
	memset(set.slot, 0xff, cap * sizeof(*set.slot));
	p->n_picked = 0;
	for (uint64_t j = total - n; j < total; j++) {
		uint64_t t = uniform(&state, j);
		uint64_t v = idset_add(&set, t) ? t : j;
		if (v == j)
			idset_add(&set, j);
		p->picked[p->n_picked++] = v;
	}
	air__free(set.slot);
	qsort(p->picked, p->n_picked, sizeof(*p->picked), cmp_u64);
	return AIR_OK;
}

/* Draw the sample again after the points changed. */
static int resample(air_sweep_points *p, air_error **err)
{
	uint64_t total = air__points_full_count(p);

	p->scratch_index = SIZE_MAX;
	if (!p->sampled || p->sample_n >= total) {
		air__free(p->picked);
		p->picked = NULL;
		p->n_picked = 0;
		return AIR_OK;
	}
	return draw(p, total, err);
}

int air_sweep_points_sample(air_sweep_points *p, uint64_t n, uint64_t seed, air_error **err)
{
	if (!p || n == 0 || n > AIR_SWEEP_LIMIT_VARIANTS)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_sweep_points_sample: %s", !p ? "points is NULL"
		                  : "the sample size must be 1 to 100000");
	p->sampled = true;
	p->sample_n = n;
	p->seed = seed;
	return resample(p, err);
}

/* ---- adding ------------------------------------------------------------- */

static int invalid(air_error **err, const char *fmt, const char *arg)
{
	return air__fail(err, air__error_new(AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT, fmt, arg));
}

/* The trimmed path of an override, NULL when it is blank. */
static char *clean_path(const char *path, size_t len)
{
	size_t n;
	const char *s;
	char *tmp = air__strndup(path, len), *out;

	if (!tmp)
		return NULL;
	s = air__trim(tmp, &n);
	out = n ? air__strndup(s, n) : air__strdup("");
	air__free(tmp);
	return out;
}

/* Whether paths @a and @b set the same field, or one a field within the
 * other's (the later override would replace the earlier one's value). */
static bool overlap(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;

	return !strncmp(a, b, n) && (la == lb || (la < lb ? b[n] : a[n]) == '.');
}

/* The axis whose path overlaps @path, or NULL. */
static const char *axis_overlapping(const air_sweep_points *p, const char *path)
{
	for (size_t i = 0; i < p->n_axes; i++)
		if (overlap(p->axes[i].path, path))
			return p->axes[i].path;
	return NULL;
}

int air_sweep_points_add_axis(air_sweep_points *p, const char *path, const char *const *values,
                              size_t n, air_error **err)
{
	air__axis x = {0};
	air__axis *grown;
	const char *other;
	int rc;

	if (!p || !path || !values || n == 0)
		return invalid(err, "air_sweep_points_add_axis: %s",
		               n == 0 && p && path && values ? "an axis needs at least one value"
		                                              : "NULL argument");
	if (p->n_points)
		return invalid(err, "%s: a sweep has grid axes or explicit points, not both", path);
	if (!(x.path = clean_path(path, strlen(path))) || !(x.values = air__calloc(n, sizeof(char *))))
		goto oom;
	if (!*x.path) {
		rc = invalid(err, "%s", "an axis needs a field path");
		goto out;
	}
	if ((other = axis_overlapping(p, x.path)) != NULL) {
		rc = strcmp(other, x.path)
		         ? air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                      "%s: overlaps the axis %s (one would replace the other's value)",
		                      x.path, other)
		         : invalid(err, "%s: the path is already an axis of the grid", x.path);
		goto out;
	}
	for (x.n = 0; x.n < n; x.n++) {
		size_t len = 0;

		if (!values[x.n]) {
			rc = invalid(err, "%s: a NULL value", x.path);
			goto out;
		}
		/* "lr=1,,2" or "lr=": a typo far more often than a null. */
		if (air__trim(values[x.n], &len), len == 0) {
			rc = air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
			                "%s: value %zu of the axis is empty (write null for a null value)",
			                x.path, x.n + 1);
			goto out;
		}
		if (!(x.values[x.n] = air__strdup(values[x.n])))
			goto oom;
	}
	if (!(grown = air__realloc(p->axes, (p->n_axes + 1) * sizeof(*p->axes))))
		goto oom;
	p->axes = grown;
	p->axes[p->n_axes++] = x;
	p->grid_size = p->n_axes == 1 ? n
	               : (p->grid_size > UINT64_MAX / n ? UINT64_MAX : p->grid_size * n);
	air__free(p->scratch);
	p->scratch = NULL;
	return resample(p, err);
oom:
	rc = air__oom(err);
out:
	free_axis(&x);
	return rc;
}

int air__points_add_owned(air_sweep_points *p, air__assign *a, size_t n, air_error **err)
{
	air__xpoint pt = {a, n};
	int rc;

	if (p->n_axes) {
		rc = invalid(err, "%s", "a sweep has grid axes or explicit points, not both");
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (overlap(a[i].path, a[j].path)) {
				rc = strcmp(a[i].path, a[j].path)
				         ? air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
				                      "%s: overlaps %s in the same point (one would replace "
				                      "the other's value)", a[i].path, a[j].path)
				         : invalid(err, "%s: the path is set twice in one point", a[i].path);
				goto fail;
			}
	if (p->n_points >= AIR_SWEEP_LIMIT_VARIANTS * (size_t)10) {
		rc = invalid(err, "%s", "too many points");
		goto fail;
	}
	if (p->n_points == p->cap_points) {
		size_t cap = p->cap_points ? 2 * p->cap_points : 16;
		air__xpoint *grown = air__realloc(p->points, cap * sizeof(*grown));
		if (!grown) {
			rc = air__oom(err);
			goto fail;
		}
		p->points = grown;
		p->cap_points = cap;
	}
	p->points[p->n_points++] = pt;
	return resample(p, err);
fail:
	free_xpoint(&pt);
	return rc;
}

int air_sweep_points_add_point(air_sweep_points *p, const char *const *assignments, size_t n,
                               air_error **err)
{
	air__assign *a;
	int rc = AIR_OK;

	if (!p || (n && !assignments))
		return invalid(err, "air_sweep_points_add_point: %s", "NULL argument");
	if (!(a = air__calloc(n ? n : 1, sizeof(*a))))
		return air__oom(err);
	for (size_t i = 0; i < n && rc == AIR_OK; i++) {
		const char *eq = assignments[i] ? strchr(assignments[i], '=') : NULL;

		if (!eq)
			rc = invalid(err, "invalid override \"%s\": expected PATH=VALUE",
			             assignments[i] ? assignments[i] : "(null)");
		else if (!(a[i].path = clean_path(assignments[i], (size_t)(eq - assignments[i]))) ||
		         !(a[i].value = air__strdup(eq + 1)))
			rc = air__oom(err);
		else if (!*a[i].path)
			rc = invalid(err, "invalid override \"%s\": the path is empty", assignments[i]);
	}
	if (rc != AIR_OK) {
		air__xpoint pt = {a, n};
		free_xpoint(&pt);
		return rc;
	}
	return air__points_add_owned(p, a, n, err);
}

/* ---- reading ------------------------------------------------------------ */

size_t air_sweep_points_count(const air_sweep_points *p)
{
	uint64_t n;

	if (!p)
		return 0;
	if (p->picked)
		return p->n_picked;
	n = air__points_full_count(p);
	return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

size_t air__points_width(const air_sweep_points *p)
{
	size_t w = p->n_axes;

	for (size_t i = 0; i < p->n_points; i++)
		if (p->points[i].n > w)
			w = p->points[i].n;
	return w;
}

size_t air__points_get(const air_sweep_points *p, size_t i, air__assign *out)
{
	uint64_t k = p->picked ? p->picked[i] : (uint64_t)i;

	if (!p->n_axes) {
		const air__xpoint *pt = &p->points[k];
		memcpy(out, pt->a, pt->n * sizeof(*out));
		return pt->n;
	}
	/* mixed radix, the first axis the most significant digit */
	for (size_t a = p->n_axes; a-- > 0;) {
		out[a].path = p->axes[a].path;
		out[a].value = p->axes[a].values[k % p->axes[a].n];
		k /= p->axes[a].n;
	}
	return p->n_axes;
}

/* Point @i of the getters: explicit points are read in place, a grid point
 * is decoded into the scratch array once. */
static const air__assign *point_at(const air_sweep_points *p, size_t i, size_t *n)
{
	air_sweep_points *m = (air_sweep_points *)p;

	*n = 0;
	if (!p || i >= air_sweep_points_count(p))
		return NULL;
	if (!p->n_axes) {
		const air__xpoint *pt = &p->points[p->picked ? p->picked[i] : i];
		*n = pt->n;
		return pt->a;
	}
	if (!m->scratch && !(m->scratch = air__calloc(p->n_axes, sizeof(*m->scratch))))
		return NULL;
	if (m->scratch_index != i)
		air__points_get(p, i, m->scratch);
	m->scratch_index = i;
	*n = p->n_axes;
	return m->scratch;
}

size_t air_sweep_points_size(const air_sweep_points *p, size_t i)
{
	size_t n;

	return point_at(p, i, &n) ? n : 0;
}

const char *air_sweep_points_path(const air_sweep_points *p, size_t i, size_t j)
{
	size_t n;
	const air__assign *a = point_at(p, i, &n);

	return a && j < n ? a[j].path : NULL;
}

const char *air_sweep_points_value(const air_sweep_points *p, size_t i, size_t j)
{
	size_t n;
	const air__assign *a = point_at(p, i, &n);

	return a && j < n ? a[j].value : NULL;
}
