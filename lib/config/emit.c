/*
 * emit.c: node tree -> YAML (block documents and one-line flow text)
 * and JSON. Output parses back to the same tree and core-schema types:
 * strings that would read as another type ("8", "true", "null") or that hold
 * YAML indicators are quoted (the rules of core's yaml_scalar.c); multi-line
 * strings become literal blocks when that is exact, double-quoted strings
 * otherwise.
 */
#include "config/config.h"

#include <string.h>

static void put_scalar(air__buf *b, const air__ynode *n)
{
	static const char *const tags[] = {
		[AIR__YT_BOOL] = "!!bool ", [AIR__YT_INT] = "!!int ", [AIR__YT_FLOAT] = "!!float ",
	};

	switch (n->type) {
	case AIR__YT_NULL:
		air__buf_puts(b, "null");
		break;
	case AIR__YT_STR:
		if (air__yaml_plain_ok(n->u.text, n->len))
			air__buf_put(b, n->u.text, n->len);
		else
			air__yaml_put_quoted(b, n->u.text, n->len);
		break;
	default:
		/* Typed by an explicit tag when the plain text reads otherwise (!!float 8). */
		if (air__yscalar_resolve(n->u.text, n->len) != n->type)
			air__buf_puts(b, tags[n->type]);
		air__buf_put(b, n->u.text, n->len);
	}
}

void air__yemit_flow(air__buf *b, const air__ynode *n)
{
	if (n->kind == AIR__Y_SCALAR) {
		put_scalar(b, n);
	} else if (n->kind == AIR__Y_SEQ) {
		air__buf_putc(b, '[');
		for (size_t i = 0; i < n->len; i++) {
			air__buf_puts(b, i ? ", " : "");
			air__yemit_flow(b, n->u.items[i]);
		}
		air__buf_putc(b, ']');
	} else {
		air__buf_putc(b, '{');
		for (size_t i = 0; i < n->len; i++) {
			air__buf_puts(b, i ? ", " : "");
			put_scalar(b, n->u.pairs[i].key);
			air__buf_puts(b, ": ");
			air__yemit_flow(b, n->u.pairs[i].value);
		}
		air__buf_putc(b, '}');
	}
}

/* ---- block style ------------------------------------------------------- */

typedef struct emitter {
	air__buf *b;
	bool sort;
} emitter;

static void indent_to(emitter *e, int indent)
{
	for (int i = 0; i < indent; i++)
		air__buf_putc(e->b, ' ');
}

static bool literal_ok(const air__ynode *n)
{
	return n->type == AIR__YT_STR && air__yaml_literal_ok(n->u.text, n->len);
}

static void put_literal(emitter *e, const air__ynode *n, int indent)
{
	const char *s = n->u.text, *end = s + n->len;
	size_t trailing = 0;

	while (trailing < n->len && end[-1 - (ptrdiff_t)trailing] == '\n')
		trailing++;
	air__buf_puts(e->b, trailing == 0 ? " |-\n" : trailing == 1 ? " |\n" : " |+\n");
	/* One output line per input line; the final line break is the chomping's. */
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (len) {
			indent_to(e, indent);
			air__buf_put(e->b, s, len);
		}
		air__buf_putc(e->b, '\n');
		s += len + (nl != NULL);
	}
}

static void block_map(emitter *e, const air__ynode *m, int indent);
static void block_seq(emitter *e, const air__ynode *s, int indent);

/* The value after "key:" or "-"; ends with a line break. */
static void block_value(emitter *e, const air__ynode *v, int indent, bool after_dash)
{
	if (v->kind != AIR__Y_SCALAR && v->len > 0) {
		if (after_dash) {
			air__buf_putc(e->b, ' ');
		} else {
			air__buf_putc(e->b, '\n');
			indent_to(e, indent + 2);
		}
		if (v->kind == AIR__Y_MAP)
			block_map(e, v, indent + 2);
		else
			block_seq(e, v, indent + 2);
	} else if (v->kind == AIR__Y_SCALAR && literal_ok(v)) {
		put_literal(e, v, indent + 2);
	} else {
		air__buf_putc(e->b, ' ');
		air__yemit_flow(e->b, v); /* scalars, [] and {} */
		air__buf_putc(e->b, '\n');
	}
}

/* The cursor is at column @indent for the first key. */
static void block_map(emitter *e, const air__ynode *m, int indent)
{
	air__ypair **order = e->sort ? air__ymap_sorted(m) : NULL;

	if (e->sort && !order) {
		e->b->oom = true;
		return;
	}
	for (size_t i = 0; i < m->len; i++) {
		const air__ypair *p = order ? order[i] : &m->u.pairs[i];
		if (i)
			indent_to(e, indent);
		put_scalar(e->b, p->key);
		air__buf_putc(e->b, ':');
		block_value(e, p->value, indent, false);
	}
	air__free(order);
}

static void block_seq(emitter *e, const air__ynode *s, int indent)
{
	for (size_t i = 0; i < s->len; i++) {
		if (i)
			indent_to(e, indent);
		air__buf_putc(e->b, '-');
		block_value(e, s->u.items[i], indent, true);
	}
}

void air__yemit_block(air__buf *b, const air__ynode *n, bool sort_keys)
{
	emitter e = {b, sort_keys};

	if (n->kind == AIR__Y_MAP && n->len > 0) {
		block_map(&e, n, 0);
	} else if (n->kind == AIR__Y_SEQ && n->len > 0) {
		block_seq(&e, n, 0);
	} else {
		air__yemit_flow(b, n);
		air__buf_putc(b, '\n');
	}
}

/* ---- JSON --------------------------------------------------------------- */

void air__json_put_string(air__buf *b, const char *s, size_t len)
{
	air__buf_putc(b, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			air__buf_putc(b, '\\');
			air__buf_putc(b, (char)c);
		} else if (c == '\n') {
			air__buf_puts(b, "\\n");
		} else if (c == '\t') {
			air__buf_puts(b, "\\t");
		} else if (c == '\r') {
			air__buf_puts(b, "\\r");
		} else if (c < 0x20 || c == 0x7F) {
			air__buf_printf(b, "\\u%04x", c);
		} else {
			air__buf_putc(b, (char)c);
		}
	}
	air__buf_putc(b, '"');
}

/* A core-schema decimal number as JSON, rewritten textually (no strtod, so
 * no locale and no rounding): "+1.5" -> 1.5, ".5" -> 0.5, "1." -> 1.0,
 * "007" -> 7; @is_float forces a fraction ("!!float 8" -> 8.0). */
static void put_number(air__buf *b, const char *s, bool is_float)
{
	bool marker = false; /* a '.' or an exponent makes it a float in JSON */

	if (*s == '-')
		air__buf_putc(b, *s++);
	else if (*s == '+')
		s++;
	while (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		s++;
	if (*s == '.')
		air__buf_putc(b, '0');
	for (; *s; s++) {
		air__buf_putc(b, *s);
		if (*s == '.' && !(s[1] >= '0' && s[1] <= '9'))
			air__buf_putc(b, '0');
		marker |= *s == '.' || *s == 'e' || *s == 'E';
	}
	if (is_float && !marker)
		air__buf_puts(b, ".0");
}

static void json_scalar(air__buf *b, const air__ynode *n)
{
	int64_t i;

	switch (n->type) {
	case AIR__YT_NULL:
		air__buf_puts(b, "null");
		return;
	case AIR__YT_BOOL:
		air__buf_puts(b, (n->u.text[0] | 0x20) == 't' ? "true" : "false");
		return;
	case AIR__YT_INT:
		if (air__yint_value(n, &i)) {
			air__buf_printf(b, "%lld", (long long)i);
			return;
		}
		if (n->u.text[1] != 'x' && n->u.text[1] != 'o') {
			/* Beyond int64: a float, which every JSON reader takes. */
			put_number(b, n->u.text, true);
			return;
		}
		break; /* a huge hex/octal number stays text */
	case AIR__YT_FLOAT:
		/* JSON has no infinities or NaN: those stay strings (".inf"). */
		if (!strpbrk(n->u.text, "iInN")) {
			put_number(b, n->u.text, true);
			return;
		}
		break;
	default:
		break;
	}
	air__json_put_string(b, n->u.text, n->len);
}

void air__yemit_json(air__buf *b, const air__ynode *n)
{
	if (n->kind == AIR__Y_SCALAR) {
		json_scalar(b, n);
	} else if (n->kind == AIR__Y_SEQ) {
		air__buf_putc(b, '[');
		for (size_t i = 0; i < n->len; i++) {
			air__buf_puts(b, i ? "," : "");
			air__yemit_json(b, n->u.items[i]);
		}
		air__buf_putc(b, ']');
	} else {
		air__buf_putc(b, '{');
		for (size_t i = 0; i < n->len; i++) {
			const air__ynode *k = n->u.pairs[i].key;
			air__buf_puts(b, i ? "," : "");
			air__json_put_string(b, k->u.text, k->len);
			air__buf_putc(b, ':');
			air__yemit_json(b, n->u.pairs[i].value);
		}
		air__buf_putc(b, '}');
	}
}
