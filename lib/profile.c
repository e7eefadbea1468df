/* profile.c: a small INI reader for ~/.databrickscfg (see profile.h). */
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "client_priv.h"

#define AIR__INI_MAX_BYTES (4 * 1024 * 1024) /* a config file is a few KiB */

typedef struct ini_entry {
	char *key;
	char *value;
} ini_entry;

typedef struct ini_section {
	char *name;
	ini_entry *entries;
	size_t count;
	size_t cap;
} ini_section;

struct air__ini {
	ini_section *sections;
	size_t count;
	size_t cap;
};

static ini_section *find_section(const air__ini *ini, const char *name)
{
	for (size_t i = 0; i < ini->count; i++)
		if (strcmp(ini->sections[i].name, name) == 0)
			return &ini->sections[i];
	return NULL;
}

/* The section @name, created on first use: duplicate headers merge. */
static ini_section *get_section(air__ini *ini, const char *name, size_t len)
{
	ini_section *s;
	char *copy = air__strndup(name, len);

	if (!copy)
		return NULL;
	if ((s = find_section(ini, copy)) != NULL) {
		air__free(copy);
		return s;
	}
	if (ini->count == ini->cap) {
		size_t cap = ini->cap ? ini->cap * 2 : 8;
		ini_section *p = air__realloc(ini->sections, cap * sizeof(*p));
		if (!p) {
			air__free(copy);
			return NULL;
		}
		ini->sections = p;
		ini->cap = cap;
	}
	s = &ini->sections[ini->count++];
	memset(s, 0, sizeof(*s));
	s->name = copy;
	return s;
}

/* Set @key in @s; a later duplicate replaces the earlier value. */
static bool set_entry(ini_section *s, const char *key, size_t klen, const char *value, size_t vlen)
{
	char *k = air__strndup(key, klen), *v = air__strndup(value, vlen);
	ini_entry *e = NULL;

	if (!k || !v)
		goto oom;
	for (size_t i = 0; i < s->count; i++)
		if (strcmp(s->entries[i].key, k) == 0)
			e = &s->entries[i];
	if (e) {
		air__free(k);
		air__free_secret(e->value);
		e->value = v;
		return true;
	}
	if (s->count == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		ini_entry *p = air__realloc(s->entries, cap * sizeof(*p));
		if (!p)
			goto oom;
		s->entries = p;
		s->cap = cap;
	}
	s->entries[s->count].key = k;
	s->entries[s->count].value = v;
	s->count++;
	return true;
oom:
	air__free(k);
	air__free_secret(v);
	return false;
}

static bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/* Trim ASCII blanks around [*p, *p + *n). */
static void trim(const char **p, size_t *n)
{
	while (*n > 0 && is_blank_char(**p)) {
		(*p)++;
		(*n)--;
	}
	while (*n > 0 && is_blank_char((*p)[*n - 1]))
		(*n)--;
}

/* Length of a value without its inline comment: '#' or ';' preceded by
 * whitespace starts one ("token = abc#123" keeps the '#'). */
static size_t strip_inline_comment(const char *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if ((v[i] == '#' || v[i] == ';') && is_blank_char(v[i - 1]))
			return i;
	return n;
}

static int malformed(air_error **err, const char *name, int line, const char *what)
{
	air_error *e = air__error_new(AIR_EIO, 0, "malformed config file %s, line %d: %s", name, line,
	                              what);

	return air__fail(err, air__error_set_position(e, name, line, 0));
}

int air__ini_parse(const char *name, const char *data, size_t len, air__ini **out,
                   air_error **err)
{
	air__ini *ini = air__calloc(1, sizeof(*ini));
	ini_section *cur = NULL;
	size_t pos = 0;
	int line = 0;

	*out = NULL;
	if (!ini)
		return air__failf(err, AIR_ENOMEM, 0, "out of memory reading %s", name);
	if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
		pos = 3; /* UTF-8 byte order mark */
	while (pos < len) {
		const char *p = data + pos, *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;
		const char *delim;

		pos += n + (nl ? 1 : 0);
		line++;
		trim(&p, &n);
		if (n == 0 || *p == '#' || *p == ';')
			continue;
		if (memchr(p, '\0', n)) {
			air__ini_free(ini);
			return malformed(err, name, line, "NUL byte");
		}
		if (*p == '[') {
			const char *close = memchr(p, ']', n);
			const char *sec;
			size_t slen;

			if (!close) {
				air__ini_free(ini);
				return malformed(err, name, line, "section header without ']'");
			}
			sec = p + 1;
			slen = (size_t)(close - sec);
			trim(&sec, &slen);
			if (slen == 0) {
				air__ini_free(ini);
				return malformed(err, name, line, "empty section name");
			}
			if (!(cur = get_section(ini, sec, slen)))
				goto oom;
			continue;
		}
		delim = NULL;
		for (size_t i = 0; i < n && !delim; i++)
			if (p[i] == '=' || p[i] == ':')
				delim = p + i;
		if (!delim) {
			air__ini_free(ini);
			return malformed(err, name, line, "expected \"key = value\" or \"[section]\"");
		}
		{
			const char *k = p, *v = delim + 1;
			size_t klen = (size_t)(delim - p), vlen = n - klen - 1;

			trim(&k, &klen);
			vlen = strip_inline_comment(v, vlen);
			trim(&v, &vlen);
			if (klen == 0) {
				air__ini_free(ini);
				return malformed(err, name, line, "empty key");
			}
			if (!cur && !(cur = get_section(ini, "DEFAULT", 7)))
				goto oom;
			if (!set_entry(cur, k, klen, v, vlen))
				goto oom;
		}
	}
	*out = ini;
	return AIR_OK;
oom:
	air__ini_free(ini);
	return air__failf(err, AIR_ENOMEM, 0, "out of memory reading %s", name);
}

int air__ini_load(const char *path, air__ini **out, air_error **err)
{
	FILE *f;
	struct stat st;
	air__buf b = AIR__BUF_INIT;
	char chunk[4096];
	size_t n;
	int rc;

	*out = NULL;
	f = fopen(path, "rb");
	if (!f) {
		if (errno == ENOENT || errno == ENOTDIR)
			return AIR_OK;
		return air__failf(err, AIR_EIO, 0, "cannot read config file %s: %s", path,
		                  strerror(errno));
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return air__failf(err, AIR_EIO, 0, "cannot read config file %s: is a directory",
		                  path);
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.len < AIR__INI_MAX_BYTES)
		air__buf_put(&b, chunk, n);
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		explicit_bzero(chunk, sizeof(chunk));
		air__free_secret(b.ptr);
		return air__failf(err, AIR_EIO, 0, "cannot read config file %s: %s", path,
		                  strerror(e));
	}
	fclose(f);
	explicit_bzero(chunk, sizeof(chunk));
	if (air__buf_oom(&b)) {
		air__free_secret(b.ptr);
		return air__failf(err, AIR_ENOMEM, 0, "out of memory reading %s", path);
	}
	if (b.len >= AIR__INI_MAX_BYTES) {
		air__free_secret(b.ptr);
		return air__failf(err, AIR_EIO, 0, "config file %s is too large", path);
	}
	rc = air__ini_parse(path, air__buf_cstr(&b), b.len, out, err);
	air__free_secret(b.ptr);
	return rc;
}

void air__ini_free(air__ini *ini)
{
	if (!ini)
		return;
	for (size_t i = 0; i < ini->count; i++) {
		ini_section *s = &ini->sections[i];
		for (size_t j = 0; j < s->count; j++) {
			air__free(s->entries[j].key);
			air__free_secret(s->entries[j].value);
		}
		air__free(s->entries);
		air__free(s->name);
	}
	air__free(ini->sections);
	air__free(ini);
}

bool air__ini_has_section(const air__ini *ini, const char *section)
{
	return ini && find_section(ini, section) != NULL;
}

const char *air__ini_get(const air__ini *ini, const char *section, const char *key)
{
	const ini_section *s = ini ? find_section(ini, section) : NULL;

	if (!s)
		return NULL;
	for (size_t i = 0; i < s->count; i++)
		if (strcmp(s->entries[i].key, key) == 0)
			return *s->entries[i].value ? s->entries[i].value : NULL;
	return NULL;
}
