/* lines.c: a bounded list of lines (a ring of copies), the memory of the
 * log scanner and of an excerpt. */
#include "failure/failure.h"

#include <string.h>

void air__lines_init(air__lines *l, size_t cap)
{
	memset(l, 0, sizeof(*l));
	l->cap = cap;
}

static bool reserve(air__lines *l)
{
	if (l->text)
		return true;
	l->text = air__calloc(l->cap, sizeof(*l->text));
	l->len = air__calloc(l->cap, sizeof(*l->len));
	if (l->text && l->len)
		return true;
	air__free(l->text);
	air__free(l->len);
	l->text = NULL;
	l->len = NULL;
	return false;
}

int air__lines_push(air__lines *l, const char *s, size_t len)
{
	size_t slot;
	char *copy;

	if (l->cap == 0) {
		l->dropped++;
		return AIR_OK;
	}
	len = air__utf8_cut(s, len, AIR__FAILURE_LINE_MAX); /* whole characters */
	if (!reserve(l) || !(copy = air__strndup(s, len)))
		return AIR_ENOMEM;
	if (l->n == l->cap) {
		/* Full: the oldest line makes room. */
		slot = l->head;
		air__free(l->text[slot]);
		l->head = (l->head + 1) % l->cap;
		l->dropped++;
	} else {
		slot = (l->head + l->n++) % l->cap;
	}
	l->text[slot] = copy;
	l->len[slot] = len;
	return AIR_OK;
}

const char *air__lines_at(const air__lines *l, size_t i, size_t *len)
{
	size_t slot;

	if (i >= l->n) {
		if (len)
			*len = 0;
		return NULL;
	}
	slot = (l->head + i) % l->cap;
	if (len)
		*len = l->len[slot];
	return l->text[slot];
}

int air__lines_append(air__lines *to, const air__lines *from)
{
	for (size_t i = 0; i < from->n; i++) {
		size_t len;
		const char *s = air__lines_at(from, i, &len);

		if (air__lines_push(to, s, len) != AIR_OK)
			return AIR_ENOMEM;
	}
	return AIR_OK;
}

void air__lines_clear(air__lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		air__free(l->text[(l->head + i) % l->cap]);
	l->head = l->n = 0;
	l->dropped = 0;
}

void air__lines_dispose(air__lines *l)
{
	air__lines_clear(l);
	air__free(l->text);
	air__free(l->len);
	air__lines_init(l, l->cap);
}
