/*
 * fuzz_profile.c: libFuzzer target for the ~/.databrickscfg reader
 * (air__ini_parse, lib/profile.c), checked against a model of its rules
 * (profile.h, docs/auth.md#where-values-come-from) written here independently:
 *   - a BOM is skipped; lines end at '\n'; blanks (space, \t, \r, \f, \v) are
 *     trimmed; empty lines and lines starting with '#' or ';' are skipped;
 *   - a NUL byte, "[" without "]", "[ ]", a line without '=' or ':' and an
 *     empty key fail with AIR_EIO naming the file and the 1-based line, and
 *     the error's position says the same;
 *   - "[name]" (text after ']' ignored) opens or reopens a section; keys
 *     before any header go to DEFAULT; a value loses an inline comment ('#'
 *     or ';' after a blank) and its blanks; a later duplicate wins; an empty
 *     value reads as unset (NULL).
 * Every (section, key) the model saw must read back as the model says, every
 * section must exist, and a key the model never saw must be absent.
 *
 *   CC=clang meson setup build-fuzz -Dfuzzers=enabled && ninja -C build-fuzz fuzz/fuzz_profile
 *   build-fuzz/fuzz/fuzz_profile -max_total_time=120 WORKDIR fuzz/corpus/fuzz_profile
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                         \
	do {                                                                             \
		if (!(c)) {                                                              \
			fprintf(stderr, "fuzz_profile: %s failed (line %d)\n", #c, __LINE__); \
			abort();                                                         \
		}                                                                        \
	} while (0)

typedef struct entry {
	char *section;
	char *key;
	char *value; /* the last value set */
} entry;

typedef struct model {
	entry *e;
	size_t n, cap;
	char **sections;
	size_t nsec, seccap;
	int error_line; /* 0: parses */
} model;

static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

static void trim(const char **p, size_t *n)
{
	while (*n && blank(**p)) {
		(*p)++;
		(*n)--;
	}
	while (*n && blank((*p)[*n - 1]))
		(*n)--;
}

static void *grow(void *p, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	p = air__realloc(p, *cap * elem);
	CHECK(p);
	return p;
}

static void add_section(model *m, const char *name)
{
	for (size_t i = 0; i < m->nsec; i++)
		if (!strcmp(m->sections[i], name))
			return;
	m->sections = grow(m->sections, &m->seccap, m->nsec, sizeof(char *));
	CHECK((m->sections[m->nsec++] = air__strdup(name)));
}

static void set(model *m, const char *section, const char *key, size_t klen, const char *v,
                size_t vlen)
{
	char *k = air__strndup(key, klen), *val = air__strndup(v, vlen);

	CHECK(k && val);
	add_section(m, section);
	for (size_t i = 0; i < m->n; i++) {
		if (!strcmp(m->e[i].section, section) && !strcmp(m->e[i].key, k)) {
			air__free(m->e[i].value);
			m->e[i].value = val;
			air__free(k);
			return;
		}
	}
	m->e = grow(m->e, &m->cap, m->n, sizeof(entry));
	m->e[m->n].section = air__strdup(section);
	CHECK(m->e[m->n].section);
	m->e[m->n].key = k;
	m->e[m->n].value = val;
	m->n++;
}

static void build_model(model *m, const char *d, size_t len)
{
	size_t pos = len >= 3 && !memcmp(d, "\xEF\xBB\xBF", 3) ? 3 : 0;
	char *section = NULL;
	int line = 0;

	while (pos < len && !m->error_line) {
		const char *p = d + pos, *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos, i;

		pos += n + (nl ? 1 : 0);
		line++;
		trim(&p, &n);
		if (n == 0 || p[0] == '#' || p[0] == ';')
			continue;
		if (memchr(p, '\0', n)) {
			m->error_line = line;
		} else if (p[0] == '[') {
			const char *close = memchr(p, ']', n), *name = p + 1;
			size_t nlen = close ? (size_t)(close - name) : 0;

			trim(&name, &nlen);
			if (!close || nlen == 0) {
				m->error_line = line;
			} else {
				air__free(section);
				CHECK((section = air__strndup(name, nlen)));
				add_section(m, section);
			}
		} else {
			const char *key = p, *v;
			size_t klen = 0, vlen;

			while (klen < n && p[klen] != '=' && p[klen] != ':')
				klen++;
			if (klen == n) {
				m->error_line = line;
				continue;
			}
			v = p + klen + 1;
			vlen = n - klen - 1;
			for (i = 1; i < vlen; i++)
				if ((v[i] == '#' || v[i] == ';') && blank(v[i - 1]))
					break;
			vlen = i < vlen ? i : vlen;
			trim(&key, &klen);
			trim(&v, &vlen);
			if (klen == 0)
				m->error_line = line;
			else
				set(m, section ? section : "DEFAULT", key, klen, v, vlen);
		}
	}
	air__free(section);
}

static void free_model(model *m)
{
	for (size_t i = 0; i < m->n; i++) {
		air__free(m->e[i].section);
		air__free(m->e[i].key);
		air__free(m->e[i].value);
	}
	for (size_t i = 0; i < m->nsec; i++)
		air__free(m->sections[i]);
	air__free(m->e);
	air__free(m->sections);
}

static bool model_has(const model *m, const char *section, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->e[i].section, section) && !strcmp(m->e[i].key, key))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *d = (const char *)data;
	model m;
	air__ini *ini = NULL;
	air_error *err = NULL;
	int rc;

	memset(&m, 0, sizeof(m));
	build_model(&m, d, size);
	rc = air__ini_parse("fuzz.cfg", d, size, &ini, &err);
	if (m.error_line) {
		char where[32];

		CHECK(rc == AIR_EIO && !ini && err);
		snprintf(where, sizeof(where), "line %d:", m.error_line);
		CHECK(strstr(air_error_message(err), "fuzz.cfg"));
		CHECK(strstr(air_error_message(err), where));
		CHECK(air_error_line(err) == m.error_line);
		CHECK(air_error_file(err) && !strcmp(air_error_file(err), "fuzz.cfg"));
		CHECK(air_error_kind(err) == AIR_KIND_IO);
	} else {
		CHECK(rc == AIR_OK && ini && !err);
		for (size_t i = 0; i < m.nsec; i++) {
			CHECK(air__ini_has_section(ini, m.sections[i]));
			if (!model_has(&m, m.sections[i], "__absent__"))
				CHECK(!air__ini_get(ini, m.sections[i], "__absent__"));
		}
		for (size_t i = 0; i < m.n; i++) {
			const char *got = air__ini_get(ini, m.e[i].section, m.e[i].key);

			if (m.e[i].value[0] == '\0')
				CHECK(!got);
			else
				CHECK(got && !strcmp(got, m.e[i].value));
		}
		if (!m.nsec)
			CHECK(!air__ini_has_section(ini, "DEFAULT"));
	}
	air_error_free(err);
	air__ini_free(ini);
	free_model(&m);
	return 0;
}
