/* buf.c: growable NUL-terminated byte buffer with sticky allocation failure. */
#include "core/core.h"

#include <stdio.h>
#include <string.h>

void air__buf_init(air__buf *b)
{
	b->ptr = NULL;
	b->len = 0;
	b->cap = 0;
	b->oom = false;
}

bool air__buf_grow(air__buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->oom)
		return false;
	if (extra > SIZE_MAX - b->len - 1) {
		b->oom = true;
		return false;
	}
	need = b->len + extra + 1;
	if (need <= b->cap)
		return true;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = air__realloc(b->ptr, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->ptr = p;
	b->cap = cap;
	return true;
}

void air__buf_put(air__buf *b, const void *data, size_t len)
{
	if (!air__buf_grow(b, len))
		return;
	if (len)
		memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void air__buf_puts(air__buf *b, const char *s) { air__buf_put(b, s, strlen(s)); }

void air__buf_putc(air__buf *b, char c) { air__buf_put(b, &c, 1); }

void air__buf_vprintf(air__buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!air__buf_grow(b, (size_t)n))
		return;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void air__buf_printf(air__buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	air__buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void air__buf_put_urlencoded(air__buf *b, const char *s, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		             (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
		             c == '~' || (keep_slash && c == '/');
		if (plain) {
			air__buf_putc(b, (char)c);
		} else {
			char enc[3] = {'%', hex[c >> 4], hex[c & 15]};
			air__buf_put(b, enc, 3);
		}
	}
}

void air__buf_put_one_line(air__buf *b, const char *s)
{
	for (size_t n; *s; s += n) {
		n = strcspn(s, "\r\n");
		air__buf_put(b, s, n);
		if (s[n])
			air__buf_puts(b, s[n++] == '\r' ? "\\r" : "\\n");
	}
}

void air__buf_query(air__buf *b, const char *key, const char *value)
{
	if (b->len)
		air__buf_putc(b, '&');
	air__buf_put_urlencoded(b, key, false);
	air__buf_putc(b, '=');
	air__buf_put_urlencoded(b, value, false);
}

void air__buf_query_int(air__buf *b, const char *key, int64_t value)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", (long long)value);
	air__buf_query(b, key, num);
}

void air__buf_clear(air__buf *b)
{
	b->len = 0;
	if (b->ptr)
		b->ptr[0] = '\0';
}

void air__buf_dispose(air__buf *b)
{
	air__free(b->ptr);
	air__buf_init(b);
}

char *air__buf_detach(air__buf *b)
{
	char *p;

	if (b->oom) {
		air__buf_dispose(b);
		return NULL;
	}
	p = b->ptr ? b->ptr : air__strdup("");
	air__buf_init(b);
	return p;
}

int air__buf_sink(const void *data, size_t len, void *ud)
{
	air__buf_put(ud, data, len);
	return air__buf_oom(ud) ? -1 : 0;
}

int air__buf_sink_reset(void *ud)
{
	air__buf_clear(ud);
	return 0;
}
