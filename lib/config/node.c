/* node.c: the arena and the YAML node tree of a workload document. */
#include "config/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct air__arena_chunk {
	air__arena_chunk *next;
	size_t used, cap;
	_Alignas(8) char data[];
};

#define ARENA_MIN_CHUNK 4096
#define ARENA_MAX_CHUNK 65536

void *air__arena_alloc(air__arena *a, size_t n)
{
	air__arena_chunk *c = a->head;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->cap - c->used < n) {
		/* Chunks double up to a ceiling; a big request gets its own. */
		size_t cap = c ? c->cap * 2 : ARENA_MIN_CHUNK;
		if (cap > ARENA_MAX_CHUNK)
			cap = ARENA_MAX_CHUNK;
		if (cap < n)
			cap = n;
		c = air__malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

char *air__arena_strndup(air__arena *a, const char *s, size_t n)
{
	char *p = air__arena_alloc(a, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void air__arena_dispose(air__arena *a)
{
	air__arena_chunk *c = a->head;

	while (c) {
		air__arena_chunk *next = c->next;
		air__free(c);
		c = next;
	}
	a->head = NULL;
}

air__ynode *air__ynode_new(air__arena *a, air__ykind kind, int32_t line, int32_t column)
{
	air__ynode *n = air__arena_alloc(a, sizeof(*n));

	if (n) {
		memset(n, 0, sizeof(*n));
		n->kind = (uint8_t)kind;
		n->line = line;
		n->column = column;
	}
	return n;
}

air__ynode *air__yscalar_new(air__arena *a, air__ytype type, const char *text, size_t len,
                             int32_t line, int32_t column)
{
	air__ynode *n = air__ynode_new(a, AIR__Y_SCALAR, line, column);

	if (!n || !(n->u.text = air__arena_strndup(a, text, len)))
		return NULL;
	n->type = (uint8_t)type;
	n->len = len;
	return n;
}

bool air__ynode_is_null(const air__ynode *n)
{
	return !n || (n->kind == AIR__Y_SCALAR && n->type == AIR__YT_NULL);
}

air__ypair *air__ymap_pair(const air__ynode *map, const char *key, size_t key_len)
{
	if (!map || map->kind != AIR__Y_MAP)
		return NULL;
	for (size_t i = 0; i < map->len; i++) {
		const air__ynode *k = map->u.pairs[i].key;
		if (k->len == key_len && memcmp(k->u.text, key, key_len) == 0)
			return &map->u.pairs[i];
	}
	return NULL;
}

air__ynode *air__ymap_get(const air__ynode *map, const char *key)
{
	air__ypair *p = air__ymap_pair(map, key, strlen(key));

	return p && !air__ynode_is_null(p->value) ? p->value : NULL;
}

air__ynode *air__ynode_copy(air__arena *a, const air__ynode *n, size_t *budget)
{
	air__ynode *c;

	if (*budget == 0)
		return NULL;
	(*budget)--;
	if (n->kind == AIR__Y_SCALAR)
		return air__yscalar_new(a, (air__ytype)n->type, n->u.text, n->len, n->line, n->column);
	if (!(c = air__ynode_new(a, (air__ykind)n->kind, n->line, n->column)))
		return NULL;
	c->len = n->len;
	if (n->kind == AIR__Y_SEQ) {
		if (n->len && !(c->u.items = air__arena_alloc(a, n->len * sizeof(*c->u.items))))
			return NULL;
		for (size_t i = 0; i < n->len; i++)
			if (!(c->u.items[i] = air__ynode_copy(a, n->u.items[i], budget)))
				return NULL;
	} else {
		if (n->len && !(c->u.pairs = air__arena_alloc(a, n->len * sizeof(*c->u.pairs))))
			return NULL;
		for (size_t i = 0; i < n->len; i++) {
			c->u.pairs[i].key = air__ynode_copy(a, n->u.pairs[i].key, budget);
			c->u.pairs[i].value = c->u.pairs[i].key
			                          ? air__ynode_copy(a, n->u.pairs[i].value, budget)
			                          : NULL;
			if (!c->u.pairs[i].value)
				return NULL;
		}
	}
	return c;
}

static bool parse_digits(const char *s, unsigned base, uint64_t limit, uint64_t *out)
{
	uint64_t v = 0;

	for (; *s; s++) {
		unsigned d = (*s >= '0' && *s <= '9') ? (unsigned)(*s - '0')
		             : (*s >= 'a' && *s <= 'f') ? (unsigned)(*s - 'a' + 10)
		                                        : (unsigned)(*s - 'A' + 10);
		if (v > (limit - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

bool air__yint_value(const air__ynode *n, int64_t *out)
{
	const char *s = n->u.text;
	bool neg = false;
	uint64_t v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
		if (!parse_digits(s + 2, s[1] == 'x' ? 16 : 8, INT64_MAX, &v))
			return false;
		*out = (int64_t)v;
		return true;
	}
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!parse_digits(s, 10, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &v))
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

void air__ynode_describe(const air__ynode *n, char *out, size_t cap)
{
	static const char *const what[] = {
		[AIR__YT_STR] = "the string", [AIR__YT_NULL] = "null", [AIR__YT_BOOL] = "the boolean",
		[AIR__YT_INT] = "the integer", [AIR__YT_FLOAT] = "the float",
	};
	char q[96];

	if (n->kind == AIR__Y_SEQ) {
		snprintf(out, cap, "a list");
	} else if (n->kind == AIR__Y_MAP) {
		snprintf(out, cap, "a mapping");
	} else if (n->type == AIR__YT_NULL) {
		snprintf(out, cap, "null");
	} else if (n->type == AIR__YT_STR) {
		snprintf(out, cap, "%s %s", what[n->type], air__cfg_quote(q, sizeof(q), n->u.text, n->len));
	} else {
		/* Non-strings are plain words; quote only when shortening is needed. */
		if (n->len < 48)
			snprintf(out, cap, "%s %s", what[n->type], n->u.text);
		else
			snprintf(out, cap, "%s %s", what[n->type],
			         air__cfg_quote(q, sizeof(q), n->u.text, n->len));
	}
}

static int cmp_pairs(const void *pa, const void *pb)
{
	const air__ynode *a = (*(const air__ypair *const *)pa)->key;
	const air__ynode *b = (*(const air__ypair *const *)pb)->key;
	int r = memcmp(a->u.text, b->u.text, a->len < b->len ? a->len : b->len);

	return r ? r : (a->len > b->len) - (a->len < b->len);
}

air__ypair **air__ymap_sorted(const air__ynode *map)
{
	air__ypair **v = air__malloc((map->len ? map->len : 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < map->len; i++)
		v[i] = &map->u.pairs[i];
	qsort(v, map->len, sizeof(*v), cmp_pairs);
	return v;
}

static int cmp_key_index(const void *pa, const void *pb, void *ctx)
{
	const air__ypair *p = ctx;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const air__ynode *a = p[ia].key, *c = p[ib].key;
	int r = memcmp(a->u.text, c->u.text, a->len < c->len ? a->len : c->len);

	if (r)
		return r;
	if (a->len != c->len)
		return a->len < c->len ? -1 : 1;
	return ia < ib ? -1 : 1;
}

/* Small mappings are checked pairwise, big ones through an index sorted by
 * (key, position), so that a 1 MiB mapping cannot make this quadratic. */
bool air__ymap_first_duplicate(const air__ynode *m, const air__ynode **dup)
{
	const air__ypair *p = m->u.pairs;
	size_t best = SIZE_MAX, *idx;

	*dup = NULL;
	if (m->len <= 32) {
		for (size_t j = 1; j < m->len && !*dup; j++)
			for (size_t i = 0; i < j && !*dup; i++)
				if (p[i].key->len == p[j].key->len &&
				    !memcmp(p[i].key->u.text, p[j].key->u.text, p[j].key->len))
					*dup = p[j].key;
		return true;
	}
	if (!(idx = air__malloc(m->len * sizeof(*idx))))
		return false;
	for (size_t i = 0; i < m->len; i++)
		idx[i] = i;
	qsort_r(idx, m->len, sizeof(*idx), cmp_key_index, (void *)p);
	for (size_t i = 1; i < m->len; i++) {
		const air__ynode *a = p[idx[i - 1]].key, *c = p[idx[i]].key;
		/* Within a run of equal keys the positions ascend: i repeats i - 1. */
		if (a->len == c->len && !memcmp(a->u.text, c->u.text, a->len) && idx[i] < best)
			best = idx[i];
	}
	if (best != SIZE_MAX)
		*dup = p[best].key;
	air__free(idx);
	return true;
}
