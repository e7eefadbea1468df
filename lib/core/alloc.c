/* alloc.c: the single allocation path of libair. */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *air__malloc(size_t n) { return malloc(n ? n : 1); }

void *air__calloc(size_t count, size_t n) { return calloc(count ? count : 1, n ? n : 1); }

void *air__realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }

void air__free(void *p) { free(p); }

char *air__strndup(const char *s, size_t n)
{
	char *d;

	if (!s)
		return NULL;
	d = air__malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *air__strdup(const char *s) { return s ? air__strndup(s, strlen(s)) : NULL; }

char *air__vsprintf(const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	char *out;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return NULL;
	out = air__malloc((size_t)n + 1);
	if (!out)
		return NULL;
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	return out;
}

char *air__sprintf(const char *fmt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, fmt);
	out = air__vsprintf(fmt, ap);
	va_end(ap);
	return out;
}

void air_free(void *ptr) { air__free(ptr); }

void air__free_secret(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	air__free(s);
}
