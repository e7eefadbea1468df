/* json.c: jansson helpers (64-bit integers as numbers or strings, paths). */
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

bool air__json_value_int64(const json_t *v, int64_t *out)
{
	if (json_is_integer(v)) {
		*out = (int64_t)json_integer_value(v);
		return true;
	}
	/* A string with an embedded NUL ("123\u0000x") is not a number. */
	if (json_is_string(v))
		return strlen(json_string_value(v)) == json_string_length(v) &&
		       air__parse_int64(json_string_value(v), out);
	return false;
}

bool air__json_int64(const json_t *obj, const char *key, int64_t *out)
{
	return json_is_object(obj) && air__json_value_int64(json_object_get(obj, key), out);
}

int64_t air__json_int64_or(const json_t *obj, const char *key, int64_t dflt)
{
	int64_t v;
	return air__json_int64(obj, key, &v) ? v : dflt;
}

const char *air__json_str(const json_t *obj, const char *key)
{
	json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *air__json_nonempty(const json_t *obj, const char *key)
{
	const char *s = air__json_str(obj, key);
	return s && *s ? s : NULL;
}

json_t *air__json_at(const json_t *root, const char *path)
{
	json_t *cur = (json_t *)root;
	const char *p = path;

	while (cur && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		char seg[128];

		if (n >= sizeof(seg))
			return NULL;
		memcpy(seg, p, n);
		seg[n] = '\0';
		if (json_is_array(cur)) {
			char *end;
			unsigned long idx = strtoul(seg, &end, 10);
			cur = (*seg && !*end) ? json_array_get(cur, idx) : NULL;
		} else if (json_is_object(cur)) {
			cur = json_object_get(cur, seg);
		} else {
			return NULL;
		}
		p += n;
		if (*p == '.')
			p++;
	}
	return cur;
}

char *air__json_compact(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	char *copy;

	if (!s)
		return NULL;
	/* jansson allocates with its own allocator: hand out an air__ string. */
	copy = air__strdup(s);
	free(s);
	return copy;
}

json_t *air__json_parse(const char *data, size_t len, const char *what, air_error **err)
{
	json_error_t je;
	json_t *v = json_loadb(data, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);

	if (!v)
		air__failf(err, AIR_EPROTO, 0, "malformed JSON in %s: %s (line %d, column %d)", what,
		           air__json_error_reason(&je), je.line, je.column);
	return v;
}

const char *air__json_error_reason(json_error_t *je)
{
	/* jansson quotes the offending token ("... near 'dapi...'"): a short
	 * secret could be in it, so keep only the reason. */
	char *near = strstr(je->text, " near ");

	if (near)
		*near = '\0';
	return je->text;
}

bool air__json_set_str(json_t *obj, const char *key, const char *value)
{
	json_t *s;

	if (!value)
		return true;
	s = json_string(value);
	return s && json_object_set_new(obj, key, s) == 0;
}

bool air__json_set_int(json_t *obj, const char *key, int64_t value)
{
	json_t *i = json_integer((json_int_t)value);
	return i && json_object_set_new(obj, key, i) == 0;
}
