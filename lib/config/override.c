/*
 * override.c: `--override FIELD_PATH=VALUE`. The path is checked
 * against the schema before anything changes; VALUE is parsed as a YAML
 * document and set in the parsed tree (not in typed values), creating
 * intermediate mappings and replacing non-mappings on the way. Validation is
 * the caller's next step, so overrides may pass through invalid states.
 */
#include "config/config.h"

#include <string.h>

typedef struct override {
	air_config *cfg;
	const char *path;   /* trimmed */
	size_t path_len;
	const char *value;
	const char *shown;  /* "path=value" as the user wrote it */
	air_error **err;
} override;

static int fail(const override *o, const char *fmt, ...) AIR__PRINTF(2, 3);

static int fail(const override *o, const char *fmt, ...)
{
	va_list ap;
	air_error *e;
	char *field;

	if (!o->err)
		return AIR_ECONFIG;
	va_start(ap, fmt);
	e = air__error_vnew(AIR_ECONFIG, 0, fmt, ap);
	va_end(ap);
	field = o->path_len ? air__strndup(o->path, o->path_len) : NULL;
	air__error_set_field(e, field);
	air__free(field);
	return air__fail(o->err, e);
}

static int check_path(const override *o)
{
	const air__field *f = air__schema_root();
	const char *seg = o->path, *end = o->path + o->path_len;
	char q[96], q2[96];

	while (seg <= end) {
		const char *dot = memchr(seg, '.', (size_t)(end - seg));
		size_t len = dot ? (size_t)(dot - seg) : (size_t)(end - seg);
		const air__field *child;

		if (air__field_is_user_map(f))
			return 0; /* user-defined keys below */
		if (len == 0)
			return fail(o, "invalid override %s: empty field name in the path",
			            air__cfg_quote(q, sizeof(q), o->shown, strlen(o->shown)));
		if (!air__field_has_children(f))
			return fail(o, "invalid override %s: %.*s is %s %s, not an object, so it has no "
			            "field %s",
			            air__cfg_quote(q, sizeof(q), o->shown, strlen(o->shown)),
			            (int)(seg - 1 - o->path), o->path,
			            f->type_label[0] == 'i' ? "an" : "a", f->type_label,
			            air__cfg_quote(q2, sizeof(q2), seg, (size_t)(end - seg)));
		if (!(child = air__field_child(f, seg, len))) {
			air__buf fields = AIR__BUF_INIT;
			const char *s = air__field_suggest(f, seg, len);
			int rc;
			air__field_put_sorted(&fields, f);
			rc = fail(o, "invalid override %s: unknown field %s%s%.*s%s%s%s; valid fields: %s",
			          air__cfg_quote(q, sizeof(q), o->shown, strlen(o->shown)),
			          air__cfg_quote(q2, sizeof(q2), seg, len), seg == o->path ? "" : " in ",
			          (int)(seg == o->path ? 0 : seg - 1 - o->path), o->path,
			          s ? " (did you mean \"" : "", s ? s : "", s ? "\"?)" : "",
			          air__buf_cstr(&fields));
			if (s && o->err && *o->err)
				air__error_set_suggestion(*o->err, s);
			air__buf_dispose(&fields);
			return rc;
		}
		f = child;
		seg += len + 1;
	}
	return 0;
}

/* Walk @path in the tree: the node it names, or NULL. */
static const air__ynode *lookup(const air__ynode *n, const char *path, size_t len)
{
	const char *seg = path, *end = path + len;

	while (n && seg <= end) {
		const char *dot = memchr(seg, '.', (size_t)(end - seg));
		size_t slen = dot ? (size_t)(dot - seg) : (size_t)(end - seg);
		const air__ypair *p = air__ymap_pair(n, seg, slen);
		n = p ? p->value : NULL;
		seg += slen + 1;
	}
	return n;
}

static char *flow_text(air__arena *a, const air__ynode *n)
{
	air__buf b = AIR__BUF_INIT;
	char *s;

	air__yemit_flow(&b, n);
	s = air__buf_oom(&b) ? NULL : air__arena_strndup(a, air__buf_cstr(&b), b.len);
	air__buf_dispose(&b);
	return s;
}

static int record(override *o, const air__ynode *old, const air__ynode *value)
{
	air_config *cfg = o->cfg;
	air__cfg_change *c;

	if (cfg->nchanges == cfg->changes_cap) {
		size_t cap = cfg->changes_cap ? cfg->changes_cap * 2 : 8;
		air__cfg_change *v = air__realloc(cfg->changes, cap * sizeof(*v));
		if (!v)
			return AIR_ENOMEM;
		cfg->changes = v;
		cfg->changes_cap = cap;
	}
	c = &cfg->changes[cfg->nchanges];
	c->path = air__arena_strndup(&cfg->doc, o->path, o->path_len);
	c->old_value = air__ynode_is_null(old) ? NULL : flow_text(&cfg->doc, old);
	c->new_value = flow_text(&cfg->doc, value);
	if (!c->path || !c->new_value || (!air__ynode_is_null(old) && !c->old_value))
		return AIR_ENOMEM;
	cfg->nchanges++;
	return AIR_OK;
}

static air__ynode *key_node(air__arena *a, const char *s, size_t len)
{
	return air__yscalar_new(a, AIR__YT_STR, s, len, 0, 0);
}

/* Set @value at the path. Every allocation happens before the single store
 * that links the new nodes in, so a failure leaves the tree unchanged. */
static int set_value(override *o, air__ynode *value)
{
	air__arena *a = &o->cfg->doc;
	air__ynode *root = o->cfg->root, *parent, *node = value;
	const char *seg = o->path, *end = o->path + o->path_len, *last;
	size_t len;
	air__ypair *pair;

	if (!root && !(root = air__ynode_new(a, AIR__Y_MAP, 0, 0)))
		return AIR_ENOMEM;
	/* Descend through existing mappings. */
	for (parent = root;; seg += len + 1) {
		const char *dot = memchr(seg, '.', (size_t)(end - seg));
		len = dot ? (size_t)(dot - seg) : (size_t)(end - seg);
		pair = air__ymap_pair(parent, seg, len);
		if (!dot || !pair || pair->value->kind != AIR__Y_MAP)
			break;
		parent = pair->value;
	}
	/* Build the missing tail bottom-up: {seg2: {seg3: value}}. */
	for (last = end; last > seg + len;) {
		const char *start = last;
		air__ynode *m = air__ynode_new(a, AIR__Y_MAP, 0, 0);
		while (start > seg + len + 1 && start[-1] != '.')
			start--;
		if (!m || !(m->u.pairs = air__arena_alloc(a, sizeof(*m->u.pairs))) ||
		    !(m->u.pairs[0].key = key_node(a, start, (size_t)(last - start))))
			return AIR_ENOMEM;
		m->len = 1;
		m->u.pairs[0].value = node;
		node = m;
		last = start - 1;
	}
	if (pair) {
		pair->value = node;
	} else {
		air__ypair *pairs = air__arena_alloc(a, (parent->len + 1) * sizeof(*pairs));
		air__ynode *key = key_node(a, seg, len);
		if (!pairs || !key)
			return AIR_ENOMEM;
		if (parent->len)
			memcpy(pairs, parent->u.pairs, parent->len * sizeof(*pairs));
		pairs[parent->len].key = key;
		pairs[parent->len].value = node;
		parent->u.pairs = pairs;
		parent->len++;
	}
	o->cfg->root = root;
	return AIR_OK;
}

/* Collections nested in @n, @n included (the parser bounds it). */
static size_t nesting(const air__ynode *n)
{
	size_t most = 0;

	if (!n || n->kind == AIR__Y_SCALAR)
		return 0;
	for (size_t i = 0; i < n->len; i++) {
		size_t d = nesting(n->kind == AIR__Y_MAP ? n->u.pairs[i].value : n->u.items[i]);
		if (d > most)
			most = d;
	}
	return most + 1;
}

/* The mappings of the path (the document's included) and the value's
 * collections, within the parser's limit: the config written with this
 * override must load again. */
static int check_depth(const override *o, const air__ynode *value)
{
	size_t maps = 1;
	char q[96];

	for (size_t i = 0; i < o->path_len; i++)
		maps += o->path[i] == '.';
	if (maps + nesting(value) <= AIR__CFG_MAX_DEPTH)
		return AIR_OK;
	return fail(o, "invalid override %s: it nests deeper than %d levels",
	            air__cfg_quote(q, sizeof(q), o->shown, strlen(o->shown)), AIR__CFG_MAX_DEPTH);
}

static int apply(override *o)
{
	air_config *cfg = o->cfg;
	air__ynode *value = NULL;
	air_error *perr = NULL;
	char q[96];
	int rc;

	if ((rc = air__yaml_check_text(o->path, o->path_len, NULL, &perr)) ||
	    (rc = check_path(o)))
		goto out;
	if (strlen(o->value) > AIR_CONFIG_MAX_BYTES) {
		rc = fail(o, "invalid override %s: the value is longer than %d bytes",
		          air__cfg_quote(q, sizeof(q), o->shown, strlen(o->shown)), AIR_CONFIG_MAX_BYTES);
		goto out;
	}
	if ((rc = air__yaml_parse(&cfg->doc, o->value, strlen(o->value), NULL, false, &value,
	                          &perr)))
		goto out;
	if (!value && !(value = air__yscalar_new(&cfg->doc, AIR__YT_NULL, "", 0, 0, 0))) {
		rc = AIR_ENOMEM;
		goto out;
	}
	if ((rc = check_depth(o, value)) != AIR_OK)
		goto out;
	if ((rc = record(o, lookup(cfg->root, o->path, o->path_len), value)) == AIR_OK &&
	    (rc = set_value(o, value)) != AIR_OK)
		cfg->nchanges--; /* keep the records in step with the tree */
	cfg->valid = false;
out:
	if (perr) {
		rc = fail(o, "invalid override %s: %s",
		          air__cfg_quote(q, sizeof(q), o->shown, strlen(o->shown)),
		          air_error_message(perr));
		air_error_free(perr);
	} else if (rc == AIR_ENOMEM) {
		rc = air__failf(o->err, AIR_ENOMEM, 0, "out of memory applying an override");
	}
	return rc;
}

int air_config_override(air_config *cfg, const char *assignment, air_error **err)
{
	override o = {cfg, NULL, 0, NULL, assignment, err};
	const char *eq;
	char q[96];

	if (!cfg || !assignment)
		return air__failf(err, AIR_EINVAL, 0, "air_config_override: %s is NULL",
		                  cfg ? "assignment" : "cfg");
	if (!(eq = strchr(assignment, '='))) {
		bool file = air__ends_with(assignment, ".yaml") || air__ends_with(assignment, ".yml");
		o.path = assignment;
		o.path_len = strlen(assignment);
		return fail(&o, "invalid override %s: expected FIELD_PATH=VALUE%s",
		            air__cfg_quote(q, sizeof(q), assignment, strlen(assignment)),
		            file ? "; it looks like a config file, not an override" : "");
	}
	o.path = assignment;
	while (o.path < eq && (*o.path == ' ' || *o.path == '\t'))
		o.path++;
	o.path_len = (size_t)(eq - o.path);
	while (o.path_len && (o.path[o.path_len - 1] == ' ' || o.path[o.path_len - 1] == '\t'))
		o.path_len--;
	if (o.path_len == 0)
		return fail(&o, "invalid override %s: the field path before '=' is empty",
		            air__cfg_quote(q, sizeof(q), assignment, strlen(assignment)));
	o.value = eq + 1;
	return apply(&o);
}

int air_config_set(air_config *cfg, const char *path, const char *yaml_value, air_error **err)
{
	override o = {cfg, NULL, 0, yaml_value ? yaml_value : "", NULL, err};
	char *shown;
	size_t len;
	int rc;

	if (!cfg || !path)
		return air__failf(err, AIR_EINVAL, 0, "air_config_set: %s is NULL",
		                  cfg ? "path" : "cfg");
	o.path = air__trim(path, &o.path_len);
	if (o.path_len == 0)
		return fail(&o, "invalid override: the field path is empty");
	len = o.path_len;
	if (!(shown = air__sprintf("%.*s=%s", (int)len, o.path, o.value)))
		return air__oom(err);
	o.shown = shown;
	rc = apply(&o);
	air__free(shown);
	return rc;
}

size_t air_config_change_count(const air_config *cfg)
{
	return cfg ? cfg->nchanges : 0;
}

const char *air_config_change_path(const air_config *cfg, size_t i)
{
	return cfg && i < cfg->nchanges ? cfg->changes[i].path : NULL;
}

const char *air_config_change_old(const air_config *cfg, size_t i)
{
	return cfg && i < cfg->nchanges ? cfg->changes[i].old_value : NULL;
}

const char *air_config_change_new(const air_config *cfg, size_t i)
{
	return cfg && i < cfg->nchanges ? cfg->changes[i].new_value : NULL;
}
