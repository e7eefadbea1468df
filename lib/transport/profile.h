/*
 * profile.h: the ~/.databrickscfg INI reader (profile.c), following
 * docs/auth.md#where-values-come-from: [section] headers, key = value (or key: value)
 * lines, '#'/';' full-line comments, inline comments only after whitespace,
 * keys before the first header in DEFAULT, later duplicates win, empty
 * values count as unset.
 */
#ifndef AIR_TRANSPORT_PROFILE_H
#define AIR_TRANSPORT_PROFILE_H

#include "core/core.h"

typedef struct air__ini air__ini;

/* Parse @len bytes; @name is the file name used in errors (AIR_EIO with the
 * 1-based line of the first malformed line). */
int air__ini_parse(const char *name, const char *data, size_t len, air__ini **out,
                   air_error **err);
/* Read and parse @path. A missing file is AIR_OK with *out = NULL; an
 * unreadable one is AIR_EIO naming the path. */
int air__ini_load(const char *path, air__ini **out, air_error **err);
/* Release @ini, overwriting its values (they may be secrets). NULL is a no-op. */
void air__ini_free(air__ini *ini);
bool air__ini_has_section(const air__ini *ini, const char *section);
/* Value of @key in @section; NULL when absent or empty. Borrowed. */
const char *air__ini_get(const air__ini *ini, const char *section, const char *key);
/* 1-based line of the value air__ini_get() returns (the last duplicate), or 0. */
int air__ini_line(const air__ini *ini, const char *section, const char *key);

#endif /* AIR_TRANSPORT_PROFILE_H */
