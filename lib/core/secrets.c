/* secrets.c: the set of credentials a client knows, in every form it sends
 * them, so that errors and traces can be scrubbed of all of them. */
#include "core/core.h"

#include <pthread.h>
#include <string.h>

#define MIN_SECRET 4 /* shorter values would scrub ordinary words */

struct air__secrets {
	pthread_mutex_t lock;
	char **v;      /* longest first, so that a secret inside another goes last */
	size_t n, cap;
};

int air__secrets_new(air__secrets **out)
{
	air__secrets *s = air__calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return AIR_ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	return AIR_OK;
}

void air__secrets_free(air__secrets *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		explicit_bzero(s->v[i], strlen(s->v[i]));
		air__free(s->v[i]);
	}
	air__free(s->v);
	pthread_mutex_destroy(&s->lock);
	air__free(s);
}

int air__secrets_addn(air__secrets *s, const char *value, size_t len)
{
	char *copy;
	size_t at;
	int rc = AIR_OK;

	if (!s || !value || len < MIN_SECRET)
		return AIR_OK;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && !memcmp(s->v[i], value, len))
			goto out;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **p = air__realloc(s->v, cap * sizeof(*p));
		if (!p) {
			rc = AIR_ENOMEM;
			goto out;
		}
		s->v = p;
		s->cap = cap;
	}
	if (!(copy = air__strndup(value, len))) {
		rc = AIR_ENOMEM;
		goto out;
	}
	for (at = 0; at < s->n && strlen(s->v[at]) >= len; at++)
		;
	memmove(&s->v[at + 1], &s->v[at], (s->n - at) * sizeof(*s->v));
	s->v[at] = copy;
	s->n++;
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int air__secrets_add(air__secrets *s, const char *value)
{
	return value ? air__secrets_addn(s, value, strlen(value)) : AIR_OK;
}

static bool scrub_one(air__buf *b, const char *secret)
{
	size_t n = strlen(secret);
	air__buf out = AIR__BUF_INIT;
	const char *p, *hit;

	if (!b->ptr || !strstr(b->ptr, secret))
		return true;
	for (p = b->ptr; (hit = strstr(p, secret)) != NULL; p = hit + n) {
		air__buf_put(&out, p, (size_t)(hit - p));
		air__buf_puts(&out, "[REDACTED]");
	}
	air__buf_puts(&out, p);
	if (air__buf_oom(&out)) {
		air__buf_dispose(&out);
		return false;
	}
	air__free(b->ptr);
	*b = out;
	return true;
}

void air__secrets_scrub(air__secrets *s, air__buf *b)
{
	bool ok = true;

	if (!s || !b->ptr)
		return;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; ok && i < s->n; i++)
		ok = scrub_one(b, s->v[i]);
	pthread_mutex_unlock(&s->lock);
	if (!ok || air__buf_oom(b)) {
		/* Never let a secret through: drop the text instead. */
		air__buf_dispose(b);
		air__buf_puts(b, "[withheld]");
	}
}

air_error *air__secrets_redact(air__secrets *s, air_error *e)
{
	air__buf b = AIR__BUF_INIT;
	const char *msg = air_error_message(e);

	if (!s)
		return e;
	air__buf_puts(&b, msg);
	air__secrets_scrub(s, &b);
	if (air__buf_oom(&b))
		air__error_set_message(e, "[message withheld]");
	else if (strcmp(air__buf_cstr(&b), msg) != 0)
		air__error_set_message(e, "%s", air__buf_cstr(&b));
	air__buf_dispose(&b);
	return e;
}
