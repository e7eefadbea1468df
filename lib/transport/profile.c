/* profile.c: a small INI reader for ~/.databrickscfg (see profile.h). */
#include "transport/profile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>


#define AIR__INI_MAX_BYTES (4 * 1024 * 1024) /* a config file is a few KiB */

typedef struct ini_entry {
	char *key;
	char *value;
	int line;     /* where the value was set */
} ini_entry;

/*
 * Names are looked up through an open-addressing hash table (linear
 * probing, at most three quarters full): a file with a huge number of
 * sections or keys costs linear time, not quadratic. A slot keeps the
 * name's hash, so probing and growing rarely touch the items themselves.
 */
typedef struct ini_slot {
	uint32_t hash;
	uint32_t item; /* index + 1; 0 = empty (a 4 MiB file has fewer items) */
} ini_slot;

typedef struct ini_index {
	ini_slot *slot;
	size_t size; /* a power of two, or 0 before the first item */
} ini_index;

/* Name of item @i of an array of sections or entries. */
typedef const char *(*ini_name_fn)(const void *items, size_t i);

typedef struct ini_section {
	char *name;
	ini_entry *entries;
	size_t count;
	size_t cap;
	ini_index keys;
} ini_section;

struct air__ini {
	ini_section *sections;
	size_t count;
	size_t cap;
	ini_index names;
};

static const char *section_name(const void *items, size_t i)
{
	return ((const ini_section *)items)[i].name;
}

static const char *entry_key(const void *items, size_t i)
{
	return ((const ini_entry *)items)[i].key;
}

static uint32_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	/* Mix the high bits down: the table uses the low ones. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* The slot of @name: the one holding it, or the empty one where it goes.
 * The table must have room (ix->size > 0). */
static ini_slot *index_slot(const ini_index *ix, const void *items, ini_name_fn name_of,
                            const char *name, uint32_t h)
{
	size_t mask = ix->size - 1, i = h & mask;

	while (ix->slot[i].item && (ix->slot[i].hash != h ||
	                            strcmp(name_of(items, ix->slot[i].item - 1), name) != 0))
		i = (i + 1) & mask;
	return &ix->slot[i];
}

/* Index of @name among @items, or -1. */
static ptrdiff_t index_find(const ini_index *ix, const void *items, ini_name_fn name_of,
                            const char *name)
{
	const ini_slot *slot = ix->size ? index_slot(ix, items, name_of, name, hash_name(name))
	                                : NULL;

	return slot && slot->item ? (ptrdiff_t)slot->item - 1 : -1;
}

/* Make room for one more item in a table holding @count. */
static bool index_reserve(ini_index *ix, size_t count)
{
	ini_index grown = {NULL, ix->size ? ix->size : 16};

	if (count >= UINT32_MAX - 1)
		return false;
	if (ix->size && (count + 1) * 4 <= ix->size * 3)
		return true;
	while ((count + 1) * 4 > grown.size * 3)
		grown.size *= 2;
	if (!(grown.slot = air__calloc(grown.size, sizeof(*grown.slot))))
		return false;
	for (size_t i = 0; i < ix->size; i++) {
		size_t j = ix->slot[i].hash & (grown.size - 1);

		if (!ix->slot[i].item)
			continue;
		while (grown.slot[j].item)
			j = (j + 1) & (grown.size - 1);
		grown.slot[j] = ix->slot[i];
	}
	air__free(ix->slot);
	*ix = grown;
	return true;
}

static ini_section *find_section(const air__ini *ini, const char *name)
{
	ptrdiff_t i = index_find(&ini->names, ini->sections, section_name, name);

	return i < 0 ? NULL : &ini->sections[i];
}

/* The section @name, created on first use: duplicate headers merge. */
static ini_section *get_section(air__ini *ini, const char *name, size_t len)
{
	char *copy = air__strndup(name, len);
	uint32_t h;
	ini_slot *slot;
	ini_section *s;

	if (!copy || !index_reserve(&ini->names, ini->count)) {
		air__free(copy);
		return NULL;
	}
	h = hash_name(copy);
	slot = index_slot(&ini->names, ini->sections, section_name, copy, h);
	if (slot->item) {
		air__free(copy);
		return &ini->sections[slot->item - 1];
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
	slot->hash = h;
	slot->item = (uint32_t)ini->count;
	return s;
}

/* Set @key in @s (from line @line); a later duplicate replaces the earlier value. */
static bool set_entry(ini_section *s, const char *key, size_t klen, const char *value, size_t vlen,
                      int line)
{
	char *k = air__strndup(key, klen), *v = air__strndup(value, vlen);
	uint32_t h;
	ini_slot *slot;

	if (!k || !v || !index_reserve(&s->keys, s->count))
		goto oom;
	h = hash_name(k);
	slot = index_slot(&s->keys, s->entries, entry_key, k, h);
	if (slot->item) {
		air__free(k);
		air__free_secret(s->entries[slot->item - 1].value);
		s->entries[slot->item - 1].value = v;
		s->entries[slot->item - 1].line = line;
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
	s->entries[s->count].line = line;
	slot->hash = h;
	slot->item = (uint32_t)++s->count;
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
			if (!set_entry(cur, k, klen, v, vlen, line))
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
		air__free(s->keys.slot);
		air__free(s->name);
	}
	air__free(ini->sections);
	air__free(ini->names.slot);
	air__free(ini);
}

bool air__ini_has_section(const air__ini *ini, const char *section)
{
	return ini && find_section(ini, section) != NULL;
}

const char *air__ini_get(const air__ini *ini, const char *section, const char *key)
{
	const ini_section *s = ini ? find_section(ini, section) : NULL;
	ptrdiff_t i = s ? index_find(&s->keys, s->entries, entry_key, key) : -1;

	if (i < 0)
		return NULL;
	return *s->entries[i].value ? s->entries[i].value : NULL;
}

int air__ini_line(const air__ini *ini, const char *section, const char *key)
{
	const ini_section *s = ini ? find_section(ini, section) : NULL;
	ptrdiff_t i = s ? index_find(&s->keys, s->entries, entry_key, key) : -1;

	return i < 0 ? 0 : s->entries[i].line;
}
