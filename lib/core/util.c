/* util.c: clocks, randomness and small string helpers. */
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int64_t air__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t air__mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t air__mono_after(int64_t ms)
{
	int64_t now = air__mono_ms();

	if (ms <= 0)
		return now;
	return ms > INT64_MAX - now ? INT64_MAX : now + ms;
}

static int urandom_fill(unsigned char *p, size_t n)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return AIR_EIO;
	while (n > 0) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			return AIR_EIO;
		}
		p += r;
		n -= (size_t)r;
	}
	close(fd);
	return AIR_OK;
}

int air__random_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;

	while (n > 0) {
		ssize_t r = getrandom(p, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return urandom_fill(p, n);
		}
		p += r;
		n -= (size_t)r;
	}
	return AIR_OK;
}

/* A version 4 UUID from getrandom() bytes: libuuid would do the same and
 * add a library of its own to every link. */
int air__uuid4(char out[37])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[16];
	int rc = air__random_bytes(b, sizeof(b));
	char *o = out;

	if (rc != AIR_OK)
		return rc;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		*o++ = hex[b[i] >> 4];
		*o++ = hex[b[i] & 15];
	}
	*o = '\0';
	return AIR_OK;
}

int64_t air__random_range(int64_t lo, int64_t hi)
{
	uint64_t r = 0, span;

	if (hi <= lo)
		return lo;
	span = (uint64_t)(hi - lo) + 1;
	air__random_bytes(&r, sizeof(r));
	return lo + (int64_t)(r % span);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

size_t air__utf8_cut(const char *s, size_t len, size_t max)
{
	size_t n = max;

	if (len <= max)
		return len;
	/* s[n] continuing a character: cut before that character starts. */
	for (int k = 0; k < 3 && n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80; k++)
		n--;
	return n;
}

const char *air__trim(const char *s, size_t *len_out)
{
	size_t n;

	while (*s && is_space(*s))
		s++;
	n = strlen(s);
	while (n > 0 && is_space(s[n - 1]))
		n--;
	*len_out = n;
	return s;
}

int air__set_str_copy(char **slot, const char *value)
{
	char *copy = NULL;

	if (value && !(copy = air__strdup(value)))
		return AIR_ENOMEM;
	air__free(*slot);
	*slot = copy;
	return AIR_OK;
}

char *air__trim_dup(const char *s)
{
	size_t n;
	const char *t;

	if (!s)
		return NULL;
	t = air__trim(s, &n);
	return air__strndup(t, n);
}

bool air__is_blank(const char *s)
{
	size_t n;

	if (!s)
		return true;
	air__trim(s, &n);
	return n == 0;
}

const char *air__find_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7F)
			return s;
	return NULL;
}

int air__strcasecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
		if (ca != cb || !ca)
			return ca - cb;
	}
}

bool air__starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool air__ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

bool air__parse_int64(const char *s, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0, limit;

	if (!s || !*s)
		return false;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if (!*s)
		return false;
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (limit - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

int air__check_run_id(int64_t run_id, air_error **err)
{
	if (run_id > 0)
		return AIR_OK;
	return air__fail(err, air__error_set_field(
		air__error_new(AIR_EINVAL, 0, "invalid run ID %lld: must be a positive integer",
		               (long long)run_id),
		"run_id"));
}

char *air__path_clean(const char *path)
{
	size_t n = strlen(path), depth = 0;
	bool rooted = path[0] == '/';
	/* Output never grows: each kept segment comes from the input. */
	char *out = air__malloc(n + 2);
	size_t len = 0;

	if (!out)
		return NULL;
	if (rooted)
		out[len++] = '/';
	for (const char *p = path; *p;) {
		const char *seg;
		size_t sl;
		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		sl = (size_t)(p - seg);
		if (sl == 0 || (sl == 1 && seg[0] == '.'))
			continue;
		if (sl == 2 && seg[0] == '.' && seg[1] == '.') {
			if (depth > 0) {
				/* drop the last kept segment */
				while (len > (rooted ? 1u : 0u) && out[len - 1] != '/')
					len--;
				if (len > (rooted ? 1u : 0u))
					len--;
				depth--;
				continue;
			}
			if (rooted)
				continue; /* "/.." is "/" */
		} else {
			depth++;
		}
		if (len > (rooted ? 1u : 0u))
			out[len++] = '/';
		memcpy(out + len, seg, sl);
		len += sl;
	}
	if (len == 0)
		out[len++] = '.';
	out[len] = '\0';
	return out;
}
