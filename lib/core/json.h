/*
 * json.h: jansson helpers for the workspace's JSON.
 *
 * The Jobs API sends 64-bit ids and nanosecond timestamps sometimes as JSON
 * numbers and sometimes as strings; read them only through these helpers,
 * never through doubles.
 */
#ifndef AIR_CORE_JSON_H
#define AIR_CORE_JSON_H

#include <jansson.h>

#include "core/base.h"

/* Integer member @key given as a JSON integer or a decimal string. */
bool air__json_int64(const json_t *obj, const char *key, int64_t *out);
/* Same, with a default when absent or unparseable. */
int64_t air__json_int64_or(const json_t *obj, const char *key, int64_t dflt);
/* Integer value of @v itself (number or decimal string). */
bool air__json_value_int64(const json_t *v, int64_t *out);
/* String member @key, or NULL when absent or not a string. Borrowed. */
const char *air__json_str(const json_t *obj, const char *key);
/* Non-empty string member, else NULL. */
const char *air__json_nonempty(const json_t *obj, const char *key);
/* Member by dotted path ("state.result_state", "tasks.0.run_id"); numeric
 * segments index arrays. Borrowed; NULL when any step is missing. */
json_t *air__json_at(const json_t *root, const char *path);
/* Compact serialisation (insertion order kept); air__free() the result. */
char *air__json_compact(const json_t *v);
/* Parse @len bytes; on failure returns NULL and an AIR_EPROTO error naming @what
 * with the reason, line and column (never the offending text). */
json_t *air__json_parse(const char *data, size_t len, const char *what, air_error **err);
/* The reason of a jansson error without the quoted input jansson appends
 * (" near '...'", which may hold part of a secret). Cuts @je->text in place. */
const char *air__json_error_reason(json_error_t *je);
/* Set @key to a new string / integer; ignore NULL values. Return false on OOM. */
bool air__json_set_str(json_t *obj, const char *key, const char *value);
bool air__json_set_int(json_t *obj, const char *key, int64_t value);

#endif /* AIR_CORE_JSON_H */
