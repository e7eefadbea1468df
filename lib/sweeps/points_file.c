/*
 * points_file.c: explicit points from a file — JSON Lines (one object per
 * line) or YAML (a list of mappings, or a mapping for a single point), each
 * mapping from an override path to its value. Values become the override
 * language's YAML text: JSON text as it is (JSON is YAML), YAML nodes as
 * one-line flow YAML, typed as they were in the file.
 */
#include "sweeps/sweeps.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"

/* Points files are read whole; this is far more than any sweep needs. */
#define POINTS_FILE_MAX ((size_t)64 << 20)

static int read_all(const char *path, air__buf *b, air_error **err)
{
	struct stat st;
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = AIR_OK;

	if (fd < 0)
		return air__failf(err, AIR_EIO, 0, "cannot read %s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return air__failf(err, AIR_EIO, 0, "cannot read %s: it is a directory", path);
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = air__failf(err, AIR_EIO, 0, "cannot read %s: %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		air__buf_put(b, chunk, (size_t)n);
		if (b->len > POINTS_FILE_MAX) {
			rc = air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
			                "%s is larger than %zu MiB", path, POINTS_FILE_MAX >> 20);
			break;
		}
	}
	close(fd);
	if (rc == AIR_OK && air__buf_oom(b))
		rc = air__oom(err);
	return rc;
}

static int bad_file(air_error **err, const char *file, int32_t line, const char *fmt,
                    const char *arg)
{
	air_error *e = air__error_new(AIR_ECONFIG, AIR_KIND_INVALID_CONFIG, fmt, arg);

	air__error_prefix(e, line > 0 ? "%s:%d" : "%s", file, (int)line);
	return air__fail(err, air__error_set_position(e, file, line, 0));
}

/* One point: the assignments of @n pairs (path, value text) handed over. */
static int add_point(air_sweep_points *p, air__assign *a, size_t n, const char *file,
                     int32_t line, air_error **err)
{
	air_error *e = NULL;
	int rc = air__points_add_owned(p, a, n, &e);

	if (rc != AIR_OK && rc != AIR_ENOMEM)
		return air__fail(err, air__error_prefix(e, line > 0 ? "%s:%d" : "%s", file, (int)line));
	return rc == AIR_OK ? AIR_OK : air__fail(err, e);
}

static void free_assigns(air__assign *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		air__free((char *)a[i].path);
		air__free((char *)a[i].value);
	}
	air__free(a);
}

/* ---- JSON Lines --------------------------------------------------------- */

/* @v as JSON text, its floats in their shortest round-trip form (0.15, not
 * jansson's 0.14999999999999999): the override's text is what the run's
 * files show. */
static bool put_json(air__buf *b, const json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;
	char *text;

	if (json_is_real(v)) {
		air__sweep_put_double(b, json_real_value(v));
		return true;
	}
	if (json_is_array(v)) {
		air__buf_putc(b, '[');
		json_array_foreach(v, i, item) {
			if (i)
				air__buf_putc(b, ',');
			if (!put_json(b, item))
				return false;
		}
		air__buf_putc(b, ']');
		return true;
	}
	if (json_is_object(v)) {
		bool first = true;

		air__buf_putc(b, '{');
		json_object_foreach((json_t *)v, key, item) {
			json_t *name = json_string(key);

			text = name ? air__json_compact(name) : NULL;
			json_decref(name);
			if (!text)
				return false;
			air__buf_printf(b, "%s%s:", first ? "" : ",", text);
			air__free(text);
			first = false;
			if (!put_json(b, item))
				return false;
		}
		air__buf_putc(b, '}');
		return true;
	}
	if (!(text = air__json_compact(v))) /* a string, an integer, true, false, null */
		return false;
	air__buf_puts(b, text);
	air__free(text);
	return true;
}

/* put_json() into a new string, or NULL. */
static char *json_text(const json_t *v)
{
	air__buf b = AIR__BUF_INIT;
	char *text = put_json(&b, v) && !air__buf_oom(&b) ? air__strdup(air__buf_cstr(&b)) : NULL;

	air__buf_dispose(&b);
	return text;
}

static int json_line(air_sweep_points *p, const char *text, size_t len, const char *file,
                     int32_t line, air_error **err)
{
	json_error_t je;
	json_t *obj = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *v;
	const char *key;
	air__assign *a = NULL;
	size_t n = 0;

	if (memchr(text, '\0', len)) { /* jansson stops at it, taking the rest for the end */
		json_decref(obj);
		return bad_file(err, file, line, "%s", "a NUL byte: a points file is text");
	}
	if (!obj)
		return bad_file(err, file, line, "not JSON: %s", je.text);
	if (!json_is_object(obj)) {
		json_decref(obj);
		return bad_file(err, file, line, "%s", "a point must be a JSON object of "
		                "\"PATH\": value pairs");
	}
	if (!(a = air__calloc(json_object_size(obj) + 1, sizeof(*a)))) {
		json_decref(obj);
		return air__oom(err);
	}
	json_object_foreach(obj, key, v) {
		a[n].path = air__strdup(key);
		a[n].value = json_text(v);
		if (!a[n].path || !a[n].value) {
			free_assigns(a, n + 1);
			json_decref(obj);
			return air__oom(err);
		}
		n++;
	}
	json_decref(obj);
	return add_point(p, a, n, file, line, err);
}

static int load_jsonl(air_sweep_points *p, const char *data, size_t len, const char *file,
                      air_error **err)
{
	int32_t line = 0;
	int rc = AIR_OK;

	for (size_t at = 0; at < len && rc == AIR_OK;) {
		const char *nl = memchr(data + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - data) : len, n;
		const char *s = data + at;

		line++;
		for (n = end - at; n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'); n--)
			;
		while (n > 0 && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		if (n > 0)
			rc = json_line(p, s, n, file, line, err);
		at = end + 1;
	}
	return rc;
}

/* ---- YAML --------------------------------------------------------------- */

static int yaml_point(air_sweep_points *p, const air__ynode *map, const char *file,
                      air_error **err)
{
	air__assign *a;

	if (map->kind != AIR__Y_MAP)
		return bad_file(err, file, map->line, "%s", "a point must be a mapping of PATH: value");
	if (!(a = air__calloc(map->len + 1, sizeof(*a))))
		return air__oom(err);
	for (size_t i = 0; i < map->len; i++) {
		air__buf v = AIR__BUF_INIT;
		const air__ynode *k = map->u.pairs[i].key;

		air__yemit_flow(&v, map->u.pairs[i].value);
		a[i].path = air__strndup(k->u.text, k->len);
		a[i].value = air__buf_detach(&v);
		if (!a[i].path || !a[i].value) {
			free_assigns(a, i + 1);
			return air__oom(err);
		}
	}
	return add_point(p, a, map->len, file, map->line, err);
}

static int load_yaml(air_sweep_points *p, const char *data, size_t len, const char *file,
                     air_error **err)
{
	air__arena arena = {0};
	air__ynode *root = NULL;
	int rc = air__yaml_parse(&arena, data, len, file, true, &root, err);

	if (rc == AIR_OK && (!root || air__ynode_is_null(root)))
		rc = bad_file(err, file, 0, "%s", "no points");
	else if (rc == AIR_OK && root->kind == AIR__Y_MAP)
		rc = yaml_point(p, root, file, err);
	else if (rc == AIR_OK && root->kind == AIR__Y_SEQ)
		for (size_t i = 0; i < root->len && rc == AIR_OK; i++)
			rc = yaml_point(p, root->u.items[i], file, err);
	else if (rc == AIR_OK)
		rc = bad_file(err, file, root->line, "%s",
		              "expected a list of points, each a mapping of PATH: value");
	air__arena_dispose(&arena);
	return rc;
}

int air_sweep_points_load_file(air_sweep_points *p, const char *path, air_error **err)
{
	air__buf b = AIR__BUF_INIT;
	size_t skip = 0;
	int rc;

	if (!p || !path)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_sweep_points_load_file: %s is NULL", p ? "path" : "points");
	if ((rc = read_all(path, &b, err)) != AIR_OK) {
		air__buf_dispose(&b);
		return rc;
	}
	while (skip < b.len && strchr(" \t\r\n", b.ptr[skip]))
		skip++;
	if (skip < b.len && b.ptr[skip] == '{')
		rc = load_jsonl(p, air__buf_cstr(&b), b.len, path, err);
	else
		rc = load_yaml(p, air__buf_cstr(&b), b.len, path, err);
	air__buf_dispose(&b);
	return rc;
}
