/*
 * yaml.c: YAML bytes -> node tree, with libfyaml's event parser.
 *
 * libfyaml checks the syntax; this file adds what a document builder would
 * do plus the limits a workload file needs: duplicate keys, scalar keys
 * only, core-schema typing and tags, a nesting cap and an alias-expansion
 * budget. The bytes are checked first (text.c). Only the first
 * document of a stream is read. Nothing is printed: diagnostics are
 * collected.
 */
#include "config/config.h"

#include <libfyaml.h>
#include <stdatomic.h>
#include <string.h>

#define CORE_TAG "tag:yaml.org,2002:"

typedef struct anchor {
	const char *name;
	size_t len;
	const air__ynode *node;
} anchor;

typedef struct builder {
	air__arena *arena;
	const char *data;
	size_t len;
	const char *name;
	bool positions;
	air_error **err;
	int rc;
	/* Open containers: each records where its children start on `stack`. */
	struct frame {
		air__ynode *node;
		size_t base;
		const char *anchor;
		size_t anchor_len;
	} frames[AIR__CFG_MAX_DEPTH + 1];
	size_t depth;
	air__ynode **stack;
	size_t nstack, capstack;
	anchor *anchors;      /* open-addressing hash table */
	size_t nanchors, capanchors;
	size_t alias_budget;
	int32_t line, column; /* last known position (implicit nulls have none) */
	struct fy_token_iter *iter;
	air__buf text;        /* the scalar being read */
} builder;

static int fail_at(builder *b, int32_t line, int32_t column, const char *fmt, ...)
	AIR__PRINTF(4, 5);

static int fail_at(builder *b, int32_t line, int32_t column, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (b->rc)
		return b->rc;
	va_start(ap, fmt);
	msg = b->err ? air__vsprintf(fmt, ap) : NULL;
	va_end(ap);
	if (!b->positions)
		line = column = 0;
	b->rc = air__cfg_fail_at(b->err, b->name, line, column, NULL, "%s", msg ? msg : "");
	air__free(msg);
	return b->rc;
}

static int oom(builder *b)
{
	if (!b->rc)
		b->rc = air__failf(b->err, AIR_ENOMEM, 0, "out of memory parsing YAML");
	return b->rc;
}

/* ---- anchors ----------------------------------------------------------- */

static size_t hash(const char *s, size_t len)
{
	size_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static anchor *anchor_slot(anchor *table, size_t cap, const char *name, size_t len)
{
	size_t i = hash(name, len) & (cap - 1);

	while (table[i].name && !(table[i].len == len && !memcmp(table[i].name, name, len)))
		i = (i + 1) & (cap - 1);
	return &table[i];
}

static int anchor_define(builder *b, const char *name, size_t len, const air__ynode *node)
{
	anchor *slot;

	if (2 * (b->nanchors + 1) > b->capanchors) {
		size_t cap = b->capanchors ? b->capanchors * 2 : 16;
		anchor *t = air__calloc(cap, sizeof(*t));
		if (!t)
			return oom(b);
		for (size_t i = 0; i < b->capanchors; i++)
			if (b->anchors[i].name)
				*anchor_slot(t, cap, b->anchors[i].name, b->anchors[i].len) = b->anchors[i];
		air__free(b->anchors);
		b->anchors = t;
		b->capanchors = cap;
	}
	slot = anchor_slot(b->anchors, b->capanchors, name, len);
	if (!slot->name)
		b->nanchors++;
	slot->name = name; /* a redefinition replaces the earlier node */
	slot->len = len;
	slot->node = node;
	return 0;
}

static const air__ynode *anchor_find(builder *b, const char *name, size_t len)
{
	anchor *slot;

	if (!b->capanchors)
		return NULL;
	slot = anchor_slot(b->anchors, b->capanchors, name, len);
	return slot->name ? slot->node : NULL;
}

/* ---- tree building ------------------------------------------------------ */

static int push(builder *b, air__ynode *n)
{
	if (b->nstack == b->capstack) {
		size_t cap = b->capstack ? b->capstack * 2 : 64;
		air__ynode **s = air__realloc(b->stack, cap * sizeof(*s));
		if (!s)
			return oom(b);
		b->stack = s;
		b->capstack = cap;
	}
	b->stack[b->nstack++] = n;
	return 0;
}

/* True when the next node pushed becomes a key of the innermost mapping. */
static bool at_key(const builder *b)
{
	const struct frame *f = &b->frames[b->depth];

	return b->depth > 0 && f->node->kind == AIR__Y_MAP && (b->nstack - f->base) % 2 == 0;
}

/* Point at the `|` or `>` header of a block scalar whose content starts at
 * byte @pos: the last non-blank line before it holds the indicator, the
 * first '|' or '>' there that stands alone (then chomping/indent or space). */
static void block_header(builder *b, size_t pos)
{
	const char *s = b->data;
	size_t i = pos < b->len ? pos : b->len, start, j;
	int32_t lines = 0;

	while (i > 0 && strchr(" \t\r\n", s[i - 1]))
		lines += s[--i] == '\n';
	for (start = i; start > 0 && s[start - 1] != '\n'; start--)
		;
	for (j = start; j < i; j++) {
		bool alone_before = j == start || s[j - 1] == ' ' || s[j - 1] == '\t';
		bool alone_after = j + 1 == i || strchr(" \t-+0123456789", s[j + 1]);
		if ((s[j] == '|' || s[j] == '>') && alone_before && alone_after) {
			int32_t col = 1;
			for (size_t k = start; k < j; k++)
				col += ((unsigned char)s[k] & 0xC0) != 0x80;
			b->line -= lines;
			b->column = col;
			return;
		}
	}
}

static void set_pos(builder *b, struct fy_event *ev)
{
	const struct fy_mark *m = fy_event_start_mark(ev);
	enum fy_scalar_style style;

	if (!m)
		return;
	b->line = m->line + 1;
	b->column = m->column + 1;
	/* libfyaml marks quoted scalars and aliases after their first character. */
	if (ev->type == FYET_ALIAS && b->column > 1) {
		b->column--;
	} else if (ev->type == FYET_SCALAR) {
		style = fy_token_scalar_style(ev->scalar.value);
		if ((style == FYSS_SINGLE_QUOTED || style == FYSS_DOUBLE_QUOTED) && b->column > 1)
			b->column--;
		else if (style == FYSS_LITERAL || style == FYSS_FOLDED)
			block_header(b, m->input_pos);
	}
}

/* Errors about a tag point at the tag. */
static void tag_pos(builder *b, struct fy_event *ev)
{
	struct fy_token *t = fy_event_get_tag_token(ev);
	const struct fy_mark *m = t ? fy_token_start_mark(t) : NULL;

	if (m) {
		b->line = m->line + 1;
		b->column = m->column + 1;
	}
}

/* "tag:yaml.org,2002:int" -> "int"; other tags are kept whole. */
static const char *tag_of(builder *b, struct fy_event *ev, size_t *len)
{
	struct fy_token *t = fy_event_get_tag_token(ev);
	const char *text;

	if (!t || !(text = fy_token_get_text(t, len)))
		return NULL;
	if (*len >= strlen(CORE_TAG) && !memcmp(text, CORE_TAG, strlen(CORE_TAG))) {
		*len -= strlen(CORE_TAG);
		return text + strlen(CORE_TAG);
	}
	return text;
}

static bool tag_is(const char *tag, size_t len, const char *word)
{
	return tag && strlen(word) == len && !memcmp(tag, word, len);
}

static int scalar_type(builder *b, struct fy_event *ev, const char *text, size_t len,
                       air__ytype *out)
{
	size_t tlen = 0;
	const char *tag = tag_of(b, ev, &tlen);
	air__ytype plain = air__yscalar_resolve(text, len);

	if (!tag) {
		*out = fy_token_scalar_style(ev->scalar.value) == FYSS_PLAIN ? plain : AIR__YT_STR;
		return 0;
	}
	if (tag_is(tag, tlen, "str") || tag_is(tag, tlen, "!")) {
		*out = AIR__YT_STR;
		return 0;
	}
	if ((tag_is(tag, tlen, "int") && plain == AIR__YT_INT) ||
	    (tag_is(tag, tlen, "bool") && plain == AIR__YT_BOOL) ||
	    (tag_is(tag, tlen, "null") && plain == AIR__YT_NULL)) {
		*out = plain;
		return 0;
	}
	if (tag_is(tag, tlen, "float") && (plain == AIR__YT_FLOAT || plain == AIR__YT_INT)) {
		*out = AIR__YT_FLOAT;
		return 0;
	}
	tag_pos(b, ev);
	if (tag_is(tag, tlen, "int") || tag_is(tag, tlen, "bool") || tag_is(tag, tlen, "null") ||
	    tag_is(tag, tlen, "float")) {
		char q[96];
		return fail_at(b, b->line, b->column, "%s is not a valid !!%.*s value",
		               air__cfg_quote(q, sizeof(q), text, len), (int)tlen, tag);
	}
	return fail_at(b, b->line, b->column, "unsupported YAML tag \"%.*s\"",
	               (int)(tlen > 64 ? 64 : tlen), tag);
}

/* A scalar's text. A plain scalar on one line is exactly its source span;
 * anything else goes through libfyaml's chunk iterator: fy_token_get_text()
 * of 0.7.12 can over-report the length of a malformed folded scalar and hand
 * back uninitialised bytes, the iterator does not. */
static int scalar_text(builder *b, struct fy_event *ev, const char **text, size_t *len)
{
	struct fy_token *tok = ev->scalar.value;
	const struct fy_mark *from = fy_event_start_mark(ev), *to = fy_event_end_mark(ev);
	const struct fy_iter_chunk *c = NULL;
	int e = 0;

	enum fy_scalar_style style = fy_token_scalar_style(tok);
	bool one_line = from && to && from->line == to->line && from->input_pos <= to->input_pos &&
	                to->input_pos <= b->len;

	if (style == FYSS_PLAIN && one_line) {
		*text = b->data + from->input_pos;
		*len = to->input_pos - from->input_pos;
		return 0;
	}
	/* A quoted scalar on one line without escapes is its span between the
	 * quotes. */
	if ((style == FYSS_DOUBLE_QUOTED || style == FYSS_SINGLE_QUOTED) && one_line &&
	    to->input_pos > from->input_pos) {
		char q = style == FYSS_DOUBLE_QUOTED ? '"' : '\'';
		size_t start = from->input_pos, end = to->input_pos, n;
		const char *in;

		/* The start mark may be on the opening quote or just after it. */
		if (b->data[start] != q && start > 0 && b->data[start - 1] == q)
			start--;
		in = b->data + start;
		n = end - start;
		if (n >= 2 && in[0] == q && in[n - 1] == q && !memchr(in + 1, q, n - 2) &&
		    (style == FYSS_SINGLE_QUOTED || !memchr(in + 1, '\\', n - 2))) {
			*text = in + 1;
			*len = n - 2;
			return 0;
		}
	}
	air__buf_clear(&b->text);
	fy_token_iter_start(tok, b->iter);
	while ((c = fy_token_iter_chunk_next(b->iter, c, &e)) != NULL)
		air__buf_put(&b->text, c->str, c->len);
	fy_token_iter_finish(b->iter);
	if (air__buf_oom(&b->text))
		return oom(b);
	if (e)
		return fail_at(b, b->line, b->column, "YAML syntax error: malformed scalar");
	*text = air__buf_cstr(&b->text);
	*len = b->text.len;
	return 0;
}

static int add_scalar(builder *b, struct fy_event *ev)
{
	size_t len = 0;
	const char *text = NULL;
	air__ytype type = AIR__YT_STR;
	air__ynode *n;

	if (scalar_text(b, ev, &text, &len))
		return b->rc;
	if (memchr(text, '\0', len))
		return fail_at(b, b->line, b->column, "NUL characters are not allowed in values");
	if (scalar_type(b, ev, text, len, &type))
		return b->rc;
	/* A null key ("~:", ": x") has no name a schema or JSON could use. */
	if (type == AIR__YT_NULL && at_key(b))
		return fail_at(b, b->line, b->column, "null mapping key");
	n = air__yscalar_new(b->arena, type, text, len, b->positions ? b->line : 0,
	                     b->positions ? b->column : 0);
	if (!n || push(b, n))
		return oom(b);
	if (ev->scalar.anchor) {
		size_t alen;
		const char *a = fy_token_get_text(ev->scalar.anchor, &alen);
		char *name = a ? air__arena_strndup(b->arena, a, alen) : NULL;
		if (!name || anchor_define(b, name, alen, n))
			return oom(b);
	}
	return 0;
}

static int add_alias(builder *b, struct fy_event *ev)
{
	size_t len = 0;
	const char *name = fy_token_get_text(ev->alias.anchor, &len);
	const air__ynode *target = name ? anchor_find(b, name, len) : NULL;
	air__ynode *copy;

	if (!target)
		return fail_at(b, b->line, b->column, "unknown alias *%.*s", (int)(len > 64 ? 64 : len),
		               name ? name : "");
	if (at_key(b) && target->kind != AIR__Y_SCALAR)
		return fail_at(b, b->line, b->column, "mapping keys must be scalars");
	if (at_key(b) && air__ynode_is_null(target))
		return fail_at(b, b->line, b->column, "null mapping key");
	copy = air__ynode_copy(b->arena, target, &b->alias_budget);
	if (!copy && b->alias_budget == 0)
		return fail_at(b, b->line, b->column,
		               "aliases expand to more than %d nodes (alias bomb?)",
		               AIR__CFG_MAX_ALIAS_NODES);
	if (!copy || push(b, copy))
		return oom(b);
	return 0;
}

static int open_container(builder *b, struct fy_event *ev, air__ykind kind)
{
	size_t tlen = 0;
	const char *tag = tag_of(b, ev, &tlen);
	struct fy_token *anchor_tok = fy_event_get_anchor_token(ev);
	struct frame *f;
	air__ynode *n;

	if (at_key(b))
		return fail_at(b, b->line, b->column, "mapping keys must be scalars");
	if (tag && !tag_is(tag, tlen, "!") && !tag_is(tag, tlen, kind == AIR__Y_MAP ? "map" : "seq")) {
		tag_pos(b, ev);
		return fail_at(b, b->line, b->column, "unsupported YAML tag \"%.*s\"",
		               (int)(tlen > 64 ? 64 : tlen), tag);
	}
	if (b->depth == AIR__CFG_MAX_DEPTH)
		return fail_at(b, b->line, b->column, "nesting is deeper than %d levels",
		               AIR__CFG_MAX_DEPTH);
	n = air__ynode_new(b->arena, kind, b->positions ? b->line : 0,
	                   b->positions ? b->column : 0);
	if (!n)
		return oom(b);
	f = &b->frames[++b->depth];
	f->node = n;
	f->base = b->nstack;
	f->anchor = NULL;
	if (anchor_tok) {
		const char *a = fy_token_get_text(anchor_tok, &f->anchor_len);
		if (!a || !(f->anchor = air__arena_strndup(b->arena, a, f->anchor_len)))
			return oom(b);
	}
	return 0;
}

static int close_container(builder *b)
{
	struct frame *f = &b->frames[b->depth];
	air__ynode *n = f->node;
	size_t count = b->nstack - f->base;

	if (n->kind == AIR__Y_SEQ) {
		n->len = count;
		if (count && !(n->u.items = air__arena_alloc(b->arena, count * sizeof(*n->u.items))))
			return oom(b);
		if (count)
			memcpy(n->u.items, b->stack + f->base, count * sizeof(*n->u.items));
	} else {
		const air__ynode *dup;
		n->len = count / 2;
		if (n->len && !(n->u.pairs = air__arena_alloc(b->arena, n->len * sizeof(*n->u.pairs))))
			return oom(b);
		for (size_t i = 0; i < n->len; i++) {
			n->u.pairs[i].key = b->stack[f->base + 2 * i];
			n->u.pairs[i].value = b->stack[f->base + 2 * i + 1];
		}
		if (!air__ymap_first_duplicate(n, &dup))
			return oom(b);
		if (dup) {
			char q[96];
			return fail_at(b, dup->line, dup->column, "duplicate key %s (already defined above)",
			               air__cfg_quote(q, sizeof(q), dup->u.text, dup->len));
		}
	}
	b->nstack = f->base;
	b->depth--;
	if (push(b, n))
		return b->rc;
	if (f->anchor && anchor_define(b, f->anchor, f->anchor_len, n))
		return b->rc;
	return 0;
}

static int on_event(builder *b, struct fy_event *ev, bool *done)
{
	set_pos(b, ev);
	switch (ev->type) {
	case FYET_SCALAR:
		return add_scalar(b, ev);
	case FYET_ALIAS:
		return add_alias(b, ev);
	case FYET_MAPPING_START:
		return open_container(b, ev, AIR__Y_MAP);
	case FYET_SEQUENCE_START:
		return open_container(b, ev, AIR__Y_SEQ);
	case FYET_MAPPING_END:
	case FYET_SEQUENCE_END:
		return close_container(b);
	case FYET_DOCUMENT_END:
	case FYET_STREAM_END:
		*done = true; /* later documents are never read */
		return 0;
	default:
		return 0;
	}
}

static int syntax_error(builder *b, struct fy_diag *diag)
{
	void *it = NULL;
	struct fy_diag_error *e;

	while ((e = fy_diag_errors_iterate(diag, &it)) != NULL)
		if (e->type == FYET_ERROR)
			return fail_at(b, e->line, e->column, "YAML syntax error: %s",
			               e->msg ? e->msg : "invalid YAML");
	return fail_at(b, b->line, b->column, "YAML syntax error");
}

/* libfyaml's objects for one parse. Making them costs about a tenth of a
 * load (the parser's setup, a diagnostic object), so one set is kept
 * between loads: a load takes it, or makes its own when another thread
 * holds it, and gives it back reset when its parse ended without error. */
typedef struct yaml_reader {
	struct fy_diag *diag;
	struct fy_parser *parser;
	struct fy_token_iter *iter;
} yaml_reader;

static _Atomic(yaml_reader *) spare_reader;

static void reader_free(yaml_reader *r)
{
	if (!r)
		return;
	if (r->parser)
		fy_parser_destroy(r->parser);
	if (r->diag)
		fy_diag_destroy(r->diag);
	if (r->iter)
		fy_token_iter_destroy(r->iter);
	air__free(r);
}

static yaml_reader *reader_new(void)
{
	/* Filled here rather than by fy_diag_cfg_default(), which asks
	 * whether stderr is a terminal: nothing is printed anyway. */
	struct fy_diag_cfg dcfg = {.level = FYET_ERROR, .module_mask = ~0u};
	struct fy_parse_cfg pcfg;
	yaml_reader *r = air__calloc(1, sizeof(*r));

	if (!r || !(r->diag = fy_diag_create(&dcfg)) || !(r->iter = fy_token_iter_create(NULL))) {
		reader_free(r);
		return NULL;
	}
	fy_diag_set_collect_errors(r->diag, true);
	memset(&pcfg, 0, sizeof(pcfg));
	pcfg.flags = FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 | FYPCF_JSON_NONE |
	             FYPCF_DISABLE_MMAP_OPT;
	pcfg.diag = r->diag;
	if (!(r->parser = fy_parser_create(&pcfg))) {
		reader_free(r);
		return NULL;
	}
	return r;
}

static yaml_reader *reader_take(void)
{
	yaml_reader *r = atomic_exchange(&spare_reader, NULL);

	return r ? r : reader_new();
}

/* Whether @r's stream ends after what was read, with no error: only such a
 * parser can be used again (libfyaml 0.7 does not recover one reset in the
 * middle of a stream). Reads at most two more events. */
static bool reader_at_end(yaml_reader *r)
{
	for (int i = 0; i < 2; i++) {
		struct fy_event *ev = fy_parser_parse(r->parser);
		bool end = ev && ev->type == FYET_STREAM_END;

		if (!ev)
			return !fy_parser_get_stream_error(r->parser) && !fy_diag_got_error(r->diag);
		fy_parser_event_free(r->parser, ev);
		if (!end && i == 0)
			return false; /* a later document */
	}
	return false;
}

/* Keeps @r for the next load if its parse ended cleanly. */
static void reader_give(yaml_reader *r, bool clean)
{
	yaml_reader *none = NULL;

	if (clean && reader_at_end(r) &&
	    atomic_compare_exchange_strong(&spare_reader, &none, r))
		return;
	reader_free(r);
}

__attribute__((destructor)) static void reader_drop_spare(void)
{
	reader_free(atomic_exchange(&spare_reader, NULL));
}

int air__yaml_parse(air__arena *a, const char *data, size_t len, const char *name,
                    bool positions, air__ynode **root, air_error **err)
{
	builder b;
	yaml_reader *r;
	bool done = false;

	memset(&b, 0, sizeof(b));
	b.arena = a;
	b.data = data;
	b.len = len;
	b.name = name;
	b.positions = positions;
	b.err = err;
	b.alias_budget = AIR__CFG_MAX_ALIAS_NODES;
	b.line = b.column = 1;
	*root = NULL;
	if ((b.rc = air__yaml_check_input(data, len, name, positions, err)) != 0)
		return b.rc;

	if (!(r = reader_take()))
		return oom(&b);
	b.iter = r->iter;
	if (fy_parser_set_string(r->parser, len ? data : "", len) != 0) {
		reader_free(r);
		return oom(&b);
	}
	while (!done && !b.rc) {
		struct fy_event *ev = fy_parser_parse(r->parser);
		if (!ev) {
			if (fy_parser_get_stream_error(r->parser) || fy_diag_got_error(r->diag))
				syntax_error(&b, r->diag);
			break;
		}
		on_event(&b, ev, &done);
		fy_parser_event_free(r->parser, ev);
	}
	if (!b.rc && b.nstack > 0)
		*root = b.stack[0];
	reader_give(r, b.rc == 0);
	air__buf_dispose(&b.text);
	air__free(b.stack);
	air__free(b.anchors);
	return b.rc;
}
