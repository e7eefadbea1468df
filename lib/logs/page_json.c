/*
 * page_json.c: a log endpoint page parsed in one pass, without a JSON tree.
 *
 * A page carries about a thousand records; building them as jansson values
 * costs more than fetching them. This scanner reads the reply once, keeps
 * only time_unix_nano, body and next_page_token, and decodes the strings
 * into a single arena the size of the reply (a decoded string is never
 * longer than its JSON form), so a page costs two allocations. A reply the
 * page may keep (air__log_page_take()) is its own arena: its strings are
 * decoded where they are, and most are not moved at all. Other keys
 * and values are skipped after checking their syntax; nesting is limited.
 * String contents are taken as they are (bytes are not UTF-8 checked).
 */
#include "logs/logs.h"

#include <string.h>

#define MAX_DEPTH 64

typedef struct scanner {
	const char *p, *end;
	char *arena;          /* decoded strings, NUL-terminated */
	size_t used;
	const char *error;
	bool in_place;        /* strings decoded over their own JSON text (arena unused) */
} scanner;

static void ws(scanner *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
		s->p++;
}

static bool fail(scanner *s, const char *what)
{
	if (!s->error)
		s->error = what;
	return false;
}

static bool expect(scanner *s, char c)
{
	ws(s);
	if (s->p >= s->end || *s->p != c)
		return fail(s, c == ':' ? "expected ':'" : c == '{' ? "expected an object"
		                                                    : "unexpected character");
	s->p++;
	return true;
}

static int hex4(const char *p)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* One \uXXXX escape (a surrogate pair when present) at s->p (after "\u").
 * Lone surrogates become U+FFFD. */
static bool unicode_escape(scanner *s, char **o)
{
	int hi, lo;
	unsigned cp;

	if (s->end - s->p < 4 || (hi = hex4(s->p)) < 0)
		return fail(s, "bad \\u escape");
	s->p += 4;
	cp = (unsigned)hi;
	if (hi >= 0xD800 && hi <= 0xDBFF && s->end - s->p >= 6 && s->p[0] == '\\' &&
	    s->p[1] == 'u' && (lo = hex4(s->p + 2)) >= 0xDC00 && lo <= 0xDFFF) {
		cp = 0x10000 + (((unsigned)hi - 0xD800) << 10) + ((unsigned)lo - 0xDC00);
		s->p += 6;
	} else if (hi >= 0xD800 && hi <= 0xDFFF) {
		cp = 0xFFFD;
	}
	*o += put_utf8(*o, cp);
	return true;
}

/* A string at s->p (at its opening quote). With @keep, decoded into the
 * arena, or over its own text when s->in_place (a decoded string is never
 * longer, and its end is written only once it is read): *out and *len_out
 * describe it. */
static bool string(scanner *s, bool keep, const char **out, size_t *len_out)
{
	char scratch[8], *start, *o;

	ws(s);
	if (s->p >= s->end || *s->p != '"')
		return fail(s, "expected a string");
	s->p++;
	start = !keep ? scratch : s->in_place ? (char *)s->p : s->arena + s->used;
	o = start;
	for (const char *quote = NULL;;) {
		const char *q, *bs;

		/* Copy the plain run up to the next quote or escape in one go
		 * (each quote is looked for once: escapes do not rescan). */
		if (!quote || quote < s->p)
			quote = memchr(s->p, '"', (size_t)(s->end - s->p));
		q = quote ? quote : s->end;
		if ((bs = memchr(s->p, '\\', (size_t)(q - s->p))) != NULL)
			q = bs;
		if (keep) {
			if (o != s->p) /* in place, text before an escape stays where it is */
				memmove(o, s->p, (size_t)(q - s->p));
			o += q - s->p;
		}
		s->p = q;
		if (s->p >= s->end)
			return fail(s, "unterminated string");
		if (*s->p++ == '"')
			break;
		if (s->p >= s->end)
			return fail(s, "unterminated string");
		switch (*s->p++) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (!unicode_escape(s, &o))
				return false;
			break;
		default:
			return fail(s, "bad escape in a string");
		}
		if (!keep)
			o = scratch; /* skipping: escapes are decoded and dropped */
	}
	if (keep) {
		*o = '\0';
		*out = start;
		*len_out = (size_t)(o - start);
		if (!s->in_place)
			s->used += (size_t)(o - start) + 1;
	}
	return true;
}

/* A number token; *is_int and *v tell whether it is an exact int64 >= 0. */
static bool number(scanner *s, bool *is_int, int64_t *v)
{
	const char *q = s->p;
	bool neg = false, frac = false;
	uint64_t acc = 0;

	*is_int = false;
	if (q < s->end && *q == '-') {
		neg = true;
		q++;
	}
	if (q >= s->end || *q < '0' || *q > '9')
		return fail(s, "bad number");
	while (q < s->end && *q >= '0' && *q <= '9') {
		if (acc > (uint64_t)INT64_MAX / 10)
			frac = true; /* too large: not an exact int64 */
		acc = acc * 10 + (uint64_t)(*q++ - '0');
	}
	if (q < s->end && *q == '.') {
		frac = true;
		if (++q >= s->end || *q < '0' || *q > '9')
			return fail(s, "bad number");
		while (q < s->end && *q >= '0' && *q <= '9')
			q++;
	}
	if (q < s->end && (*q == 'e' || *q == 'E')) {
		frac = true;
		if (++q < s->end && (*q == '+' || *q == '-'))
			q++;
		if (q >= s->end || *q < '0' || *q > '9')
			return fail(s, "bad number");
		while (q < s->end && *q >= '0' && *q <= '9')
			q++;
	}
	s->p = q;
	if (!frac && !neg && acc <= (uint64_t)INT64_MAX) {
		*is_int = true;
		*v = (int64_t)acc;
	}
	return true;
}

static bool literal(scanner *s, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return fail(s, "unexpected character");
	s->p += n;
	return true;
}

static bool skip_value(scanner *s, int depth);

/* The members of an object or elements of an array, after its opener. */
static bool skip_container(scanner *s, char close, int depth)
{
	ws(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		return true;
	}
	for (;;) {
		if (close == '}' && (!string(s, false, NULL, NULL) || !expect(s, ':')))
			return false;
		if (!skip_value(s, depth + 1))
			return false;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		return expect(s, close);
	}
}

static bool skip_value(scanner *s, int depth)
{
	bool is_int;
	int64_t v;

	if (depth > MAX_DEPTH)
		return fail(s, "nested too deeply");
	ws(s);
	if (s->p >= s->end)
		return fail(s, "unexpected end");
	switch (*s->p) {
	case '"':
		return string(s, false, NULL, NULL);
	case '{':
	case '[':
		return skip_container(s, *s->p++ == '{' ? '}' : ']', depth);
	case 't':
		return literal(s, "true");
	case 'f':
		return literal(s, "false");
	case 'n':
		return literal(s, "null");
	default:
		return number(s, &is_int, &v);
	}
}

/* Which member a key names. */
enum member { OTHER, TIME, BODY, RECORDS, TOKEN };

/* A member key and its colon; the key itself is not kept. */
static bool member_key(scanner *s, enum member *m)
{
	static const struct {
		const char *name;
		enum member m;
	} known[] = {{"time_unix_nano", TIME}, {"body", BODY}, {"log_records", RECORDS},
	             {"next_page_token", TOKEN}};
	const char *k;
	size_t n, mark = s->used;

	if (!string(s, true, &k, &n))
		return false;
	*m = OTHER;
	for (size_t i = 0; i < AIR__ARRAY_SIZE(known); i++)
		if (n == strlen(known[i].name) && memcmp(k, known[i].name, n) == 0)
			*m = known[i].m;
	s->used = mark;
	return expect(s, ':');
}

/* time_unix_nano: an exact non-negative integer, as a number or a string; else 0. */
static bool record_time(scanner *s, int64_t *t)
{
	bool is_int = false;

	ws(s);
	*t = 0;
	if (s->p < s->end && *s->p == '"') {
		const char *str;
		size_t n, mark = s->used;

		if (!string(s, true, &str, &n))
			return false;
		if (strlen(str) != n || !air__parse_int64(str, t) || *t < 0)
			*t = 0;
		s->used = mark;
		return true;
	}
	if (s->p < s->end && (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))) {
		if (!number(s, &is_int, t))
			return false;
		if (!is_int)
			*t = 0;
		return true;
	}
	return skip_value(s, 2);
}

/* The members of an object whose '{' was consumed: @value reads each value. */
static bool members(scanner *s, bool (*value)(scanner *s, enum member m, void *ud), void *ud)
{
	enum member m;

	ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return true;
	}
	for (;;) {
		if (!member_key(s, &m) || !value(s, m, ud))
			return false;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		return expect(s, '}');
	}
}

static bool record_member(scanner *s, enum member m, void *ud)
{
	air__log_rec *r = ud;

	ws(s);
	if (m == TIME)
		return record_time(s, &r->time_ns);
	if (m == BODY && s->p < s->end && *s->p == '"')
		return string(s, true, &r->body, &r->len);
	if (m == BODY) {
		r->body = "";
		r->len = 0;
	}
	return skip_value(s, 2);
}

static bool record(scanner *s, air__log_rec *r)
{
	r->body = "";
	r->len = 0;
	r->time_ns = 0;
	s->p++; /* '{' */
	return members(s, record_member, r);
}

static bool grow_records(air__log_page *p)
{
	size_t cap = p->cap ? p->cap * 2 : 1024;
	air__log_rec *r = air__realloc(p->recs, cap * sizeof(*r));

	if (!r)
		return false;
	p->recs = r;
	p->cap = cap;
	return true;
}

/* log_records: objects become records; other elements are skipped. */
static bool records(scanner *s, air__log_page *p, bool *oom)
{
	p->n = 0; /* a repeated key: the last one wins */
	ws(s);
	if (s->p >= s->end || *s->p != '[')
		return skip_value(s, 1);
	s->p++;
	ws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return true;
	}
	for (;;) {
		ws(s);
		if (s->p < s->end && *s->p == '{') {
			if (p->n == p->cap && !grow_records(p)) {
				*oom = true;
				return fail(s, "out of memory");
			}
			if (!record(s, &p->recs[p->n]))
				return false;
			p->n++;
		} else if (!skip_value(s, 2)) {
			return false;
		}
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		return expect(s, ']');
	}
}

typedef struct page_ctx {
	air__log_page *p;
	bool oom;
} page_ctx;

static bool page_member(scanner *s, enum member m, void *ud)
{
	page_ctx *c = ud;
	const char *tok;
	size_t n;

	ws(s);
	if (m == RECORDS)
		return records(s, c->p, &c->oom);
	if (m == TOKEN && s->p < s->end && *s->p == '"') {
		if (!string(s, true, &tok, &n))
			return false;
		c->p->next_token = n && strlen(tok) == n ? tok : NULL;
		return true;
	}
	if (m == TOKEN)
		c->p->next_token = NULL; /* the last one wins, whatever it is */
	return skip_value(s, 1);
}

static bool page(scanner *s, air__log_page *p, bool *oom)
{
	page_ctx c = {p, false};
	bool ok = expect(s, '{') && members(s, page_member, &c);

	*oom = c.oom;
	if (!ok)
		return false;
	ws(s);
	return s->p == s->end || fail(s, "trailing characters after the page");
}

/* Scan the reply @s was set up for into @p. */
static int parse(air__log_page *p, scanner *s, air_error **err)
{
	const char *data = s->p;
	bool oom = false;

	p->n = 0;
	p->next_token = NULL;
	if (!page(s, p, &oom)) {
		int code = oom ? AIR_ENOMEM : AIR_EPROTO;
		size_t at = (size_t)(s->p - data);

		p->n = 0;
		p->next_token = NULL;
		return air__failf(err, code, 0, "malformed log page: %s at offset %zu", s->error, at);
	}
	return AIR_OK;
}

int air__log_page_parse(air__log_page *p, const char *data, size_t len, air_error **err)
{
	scanner s = {data, data + len, NULL, 0, NULL, false};

	/* Decoded strings never outgrow their JSON text. */
	if (p->arena_cap < len + 1) {
		air__free(p->arena);
		p->arena_cap = 0;
		if (!(p->arena = air__malloc(len + 1)))
			return air__oom(err);
		p->arena_cap = len + 1;
	}
	s.arena = p->arena;
	return parse(p, &s, err);
}

int air__log_page_take(air__log_page *p, air__buf *body, air_error **err)
{
	char *old = p->arena;
	size_t old_cap = p->arena_cap, len = body->len;
	const char *text = body->ptr ? body->ptr : ""; /* an empty reply never grew its buffer */

	p->arena = body->ptr;
	p->arena_cap = body->cap;
	body->ptr = old;
	body->cap = old_cap;
	body->len = 0;
	if (body->ptr)
		body->ptr[0] = '\0';
	return parse(p, &(scanner){text, text + len, NULL, 0, NULL, true}, err);
}

void air__log_page_dispose(air__log_page *p)
{
	air__free(p->recs);
	air__free(p->arena);
	memset(p, 0, sizeof(*p));
}
