/*
 * canon.c: the canonical form of a point, and what is derived from it — the
 * variant's idempotency key and its run name (docs/submit.md#sweeps).
 *
 * A value is read as the override language reads it (a YAML document, core
 * schema) and written back canonically: integers in decimal, floats in the
 * shortest form that reads back as the same double and always with a
 * fraction or an exponent (1e-3 and 0.001 are one point, 1000.0 and 1000
 * two), strings as given, mappings with their keys sorted. Numbers are
 * converted in the C locale whatever the program's.
 */
#include "sweeps/sweeps.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* @d (or, with @text, the double it reads as) in its shortest round-trip
 * form, in the C locale whatever the program's. */
static void put_number(air__buf *b, const char *text, double d)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	char out[400];
	int prec = 1, exp10;

	if (text)
		d = strtod(text, NULL);
	/* the fewest significant digits that read back as @d */
	for (; prec < 17; prec++) {
		snprintf(out, sizeof(out), "%.*e", prec - 1, d);
		if (strtod(out, NULL) == d)
			break;
	}
	snprintf(out, sizeof(out), "%.*e", prec - 1, d);
	exp10 = atoi(strchr(out, 'e') + 1);
	/* positional notation where it stays short, an exponent otherwise */
	if (exp10 >= -5 && exp10 < 16)
		snprintf(out, sizeof(out), "%.*f", prec - 1 - exp10 > 0 ? prec - 1 - exp10 : 0, d);
	else
		snprintf(out, sizeof(out), "%.*g", prec, d);
	if (c) {
		uselocale(old);
		freelocale(c);
	}
	air__buf_puts(b, out);
	if (!strpbrk(out, ".eE"))
		air__buf_puts(b, ".0");
}

void air__sweep_put_double(air__buf *b, double d)
{
	put_number(b, NULL, d);
}

/* The double that @text reads as, e.g. "0.001", "1e-10", "2.0". */
static void put_double(air__buf *b, const char *text)
{
	put_number(b, text, 0);
}

static int cmp_pair(const void *a, const void *b)
{
	const air__ynode *x = (*(const air__ypair *const *)a)->key;
	const air__ynode *y = (*(const air__ypair *const *)b)->key;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->u.text, y->u.text, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static bool put_node(air__buf *b, const air__ynode *n)
{
	int64_t i;

	if (n->kind == AIR__Y_SEQ) {
		air__buf_putc(b, '[');
		for (size_t k = 0; k < n->len; k++) {
			if (k)
				air__buf_putc(b, ',');
			if (!put_node(b, n->u.items[k]))
				return false;
		}
		air__buf_putc(b, ']');
		return true;
	}
	if (n->kind == AIR__Y_MAP) {
		const air__ypair **sorted = air__calloc(n->len + 1, sizeof(*sorted));
		bool ok = sorted != NULL;

		for (size_t k = 0; ok && k < n->len; k++)
			sorted[k] = &n->u.pairs[k];
		if (ok)
			qsort(sorted, n->len, sizeof(*sorted), cmp_pair);
		air__buf_putc(b, '{');
		for (size_t k = 0; ok && k < n->len; k++) {
			if (k)
				air__buf_putc(b, ',');
			air__json_put_string(b, sorted[k]->key->u.text, sorted[k]->key->len);
			air__buf_putc(b, ':');
			ok = put_node(b, sorted[k]->value);
		}
		air__buf_putc(b, '}');
		air__free(sorted);
		return ok;
	}
	switch (n->type) {
	case AIR__YT_NULL:
		air__buf_puts(b, "null");
		break;
	case AIR__YT_BOOL:
		air__buf_puts(b, (n->u.text[0] | 0x20) == 't' ? "true" : "false");
		break;
	case AIR__YT_INT:
		if (air__yint_value(n, &i))
			air__buf_printf(b, "%lld", (long long)i);
		else if (n->u.text[1] != 'x' && n->u.text[1] != 'o')
			put_double(b, n->u.text); /* beyond int64 */
		else
			air__json_put_string(b, n->u.text, n->len);
		break;
	case AIR__YT_FLOAT:
		if (strpbrk(n->u.text, "iInN")) /* .inf, .nan: no JSON number */
			air__json_put_string(b, n->u.text, n->len);
		else
			put_double(b, n->u.text);
		break;
	default:
		air__json_put_string(b, n->u.text, n->len);
	}
	return true;
}

/* The canonical text of @yaml into @out; *is_string tells a bare string. */
static int canon(const char *yaml, air__buf *out, const air__ynode **str, air__arena *a,
                 air_error **err)
{
	air__ynode *root = NULL;
	int rc = air__yaml_parse(a, yaml, strlen(yaml), NULL, false, &root, err);

	if (str)
		*str = NULL;
	if (rc != AIR_OK)
		return rc;
	if (!root) {
		air__buf_puts(out, "null");
	} else {
		if (str && root->kind == AIR__Y_SCALAR && root->type == AIR__YT_STR)
			*str = root;
		if (!put_node(out, root))
			return air__oom(err);
	}
	return air__buf_oom(out) ? air__oom(err) : AIR_OK;
}

int air__canon_value(const char *yaml, air__buf *out, air_error **err)
{
	air__arena a = {0};
	int rc = canon(yaml, out, NULL, &a, err);

	air__arena_dispose(&a);
	return rc;
}

int air__canon_point(const air__assign *a, size_t n, char **out, air_error **err)
{
	size_t *order = air__calloc(n + 1, sizeof(*order));
	air__buf b = AIR__BUF_INIT;
	int rc = AIR_OK;

	*out = NULL;
	if (!order)
		return air__oom(err);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	/* insertion sort by path: points are small, and no global state */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(a[order[j - 1]].path, a[order[j]].path) > 0; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	air__buf_putc(&b, '{');
	for (size_t i = 0; i < n && rc == AIR_OK; i++) {
		if (i)
			air__buf_putc(&b, ',');
		air__json_put_string(&b, a[order[i]].path, strlen(a[order[i]].path));
		air__buf_putc(&b, ':');
		rc = air__canon_value(a[order[i]].value, &b, err);
	}
	air__buf_putc(&b, '}');
	air__free(order);
	if (rc == AIR_OK && !(*out = air__buf_detach(&b)))
		rc = air__oom(err);
	air__buf_dispose(&b);
	return rc;
}

/* The length of the longest prefix of @s of at most @max bytes that does not
 * cut a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t max)
{
	return air__utf8_cut(s, strlen(s), max);
}

/* core's air__sweep_token_in() recognises a key whose base was cut. */
_Static_assert(AIR__SWEEP_CUT_BASE_MIN == AIR__SWEEP_KEY_BASE - 3,
               "a cut base is 3 bytes shorter at most (a UTF-8 sequence)");

char *air__sweep_key(const char *base, const char *canonical_point)
{
	char hex[2 * AIR__SHA256_LEN + 1];
	air__buf b = AIR__BUF_INIT;

	air__buf_printf(&b, "air-sweep-v1\n%s\n%s", base, canonical_point);
	if (air__buf_oom(&b)) {
		air__buf_dispose(&b);
		return NULL;
	}
	air__sha256_hex(b.ptr, b.len, hex);
	air__buf_dispose(&b);
	return air__sprintf("%.*s-%.16s", (int)utf8_cut(base, AIR__SWEEP_KEY_BASE), base, hex);
}

/* The name of override @i of a point: its last path segment, unless another
 * override of the point ends in the same one. */
static const char *display_name(const air__assign *a, size_t n, size_t i)
{
	const char *last = strrchr(a[i].path, '.');

	last = last ? last + 1 : a[i].path;
	for (size_t j = 0; j < n; j++) {
		const char *other = strrchr(a[j].path, '.');
		other = other ? other + 1 : a[j].path;
		if (j != i && !strcmp(other, last))
			return a[i].path;
	}
	return last;
}

/* @s into @b with every control character as '?'. */
static void put_visible(air__buf *b, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		air__buf_putc(b, c < 0x20 || c == 0x7F ? '?' : (char)c);
	}
}

char *air__sweep_run_name(const char *experiment, const air__assign *a, size_t n)
{
	air__buf b = AIR__BUF_INIT;
	size_t keep;
	char *out;

	air__buf_puts(&b, experiment);
	for (size_t i = 0; i < n; i++) {
		air__arena arena = {0};
		air__buf v = AIR__BUF_INIT;
		const air__ynode *str = NULL;
		const char *name = display_name(a, n, i);

		air__buf_putc(&b, ' ');
		put_visible(&b, name, strlen(name));
		air__buf_putc(&b, '=');
		if (canon(a[i].value, &v, &str, &arena, NULL) != AIR_OK)
			put_visible(&b, a[i].value, strlen(a[i].value));
		else if (str)
			put_visible(&b, str->u.text, str->len);
		else
			put_visible(&b, air__buf_cstr(&v), v.len);
		air__buf_dispose(&v);
		air__arena_dispose(&arena);
	}
	if (air__buf_oom(&b)) {
		air__buf_dispose(&b);
		return NULL;
	}
	keep = utf8_cut(air__buf_cstr(&b), AIR__SWEEP_RUN_NAME_MAX);
	out = keep < b.len ? air__sprintf("%.*s...", (int)utf8_cut(b.ptr, AIR__SWEEP_RUN_NAME_MAX - 3),
	                                  b.ptr)
	                   : air__buf_detach(&b);
	air__buf_dispose(&b);
	return out;
}

int air__sweep_derived_base(const air_config *cfg, const char *user, int64_t now_ms, char **out,
                            air_error **err)
{
	char hex[2 * AIR__SHA256_LEN + 1], day[32];
	char *json = NULL;
	int rc = air_config_to_json(cfg, &json, err);

	*out = NULL;
	if (rc != AIR_OK)
		return rc;
	air__sha256_hex(json, strlen(json), hex);
	air_free(json);
	air__format_rfc3339(now_ms / 1000, day); /* "YYYY-MM-DDTHH:MM:SSZ" */
	*out = air__sprintf("%.*s-%s-%.4s%.2s%.2s-%.8s", (int)strcspn(user, "@"), user,
	                    air_config_experiment_name(cfg), day, day + 5, day + 8, hex);
	return *out ? AIR_OK : air__oom(err);
}

/* A copy of @text for a message, cut as air__point_text() says. */
static char *point_brief(const char *text)
{
	size_t len = strlen(text), keep;

	if (len <= AIR__SWEEP_POINT_TEXT_MAX)
		return air__strdup(text);
	keep = utf8_cut(text, AIR__SWEEP_POINT_TEXT_MAX);
	return air__sprintf("%.*s\u2026 (%zu bytes)", (int)keep, text, len);
}

char *air__point_text(const air__assign *a, size_t n)
{
	air__buf b = AIR__BUF_INIT;
	char *full, *out;

	for (size_t i = 0; i < n; i++)
		air__buf_printf(&b, "%s%s=%s", i ? " " : "", a[i].path, a[i].value);
	if (n == 0)
		air__buf_puts(&b, "the base config");
	full = air__buf_detach(&b);
	out = full ? point_brief(full) : NULL;
	air__free(full);
	return out;
}
