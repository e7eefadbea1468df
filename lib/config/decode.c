/*
 * decode.c: strict decoding of a workload document against the schema
 * table. Walks the document in its own order so that the first problem in
 * the file is the one reported: unknown keys (with a did-you-mean), type
 * mismatches at any depth. Then records the value node of every field.
 */
#include "config/config.h"

#include <stdio.h>
#include <string.h>

typedef struct decoder {
	const char *file;
	air__buf path;
	air_error **err;
} decoder;

/* Keys of older schemas get a pointer to what replaced them. */
static const struct {
	const char *path, *hint;
} removed_keys[] = {
	{"_bases_", "config composition (_bases_) is not supported; write the whole config"},
	{"priority", "priority was removed; use compute.priority_class together with compute.pool_id"},
	{"compute.node_pool_id", "node_pool_id was removed; use compute.pool_id"},
	{"compute.pool_name", "pool_name was removed; use compute.pool_id"},
	{"compute.provisioned_capacity_id", "use compute.pool_id"},
};

static const char *expected_shape(air__fkind kind)
{
	switch (kind) {
	case AIR__F_STRING: return "a string";
	case AIR__F_INT: return "an integer";
	case AIR__F_SCALAR: return "a string or an integer";
	case AIR__F_BOOL_OR_STRING: return "false or a string";
	case AIR__F_STRING_LIST: return "a list of strings";
	case AIR__F_OBJECT_LIST: return "a list of mappings";
	default: return "a mapping";
	}
}

static size_t path_push(decoder *d, const char *name, size_t len)
{
	size_t mark = d->path.len;

	if (mark)
		air__buf_putc(&d->path, '.');
	air__buf_put(&d->path, name, len);
	return mark;
}

static size_t path_push_index(decoder *d, size_t i)
{
	size_t mark = d->path.len;
	char digits[24], *p = digits + sizeof(digits);

	/* Hand-formatted: this runs for every list item of every load. */
	*--p = ']';
	do
		*--p = (char)('0' + i % 10);
	while ((i /= 10) != 0);
	*--p = '[';
	air__buf_put(&d->path, p, (size_t)(digits + sizeof(digits) - p));
	return mark;
}

static void path_pop(decoder *d, size_t mark)
{
	if (d->path.ptr) {
		d->path.len = mark;
		d->path.ptr[mark] = '\0';
	}
}

static int fail(decoder *d, const air__ynode *at, const char *fmt, ...) AIR__PRINTF(3, 4);

static int fail(decoder *d, const air__ynode *at, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int rc;

	if (!d->err)
		return AIR_ECONFIG;
	if (air__buf_oom(&d->path))
		return air__oom(d->err);
	va_start(ap, fmt);
	msg = air__vsprintf(fmt, ap);
	va_end(ap);
	rc = air__cfg_fail(d->err, d->file, at, air__buf_cstr(&d->path), "%s", msg ? msg : "");
	air__free(msg);
	return rc;
}

static int type_error(decoder *d, const air__field *f, const air__ynode *n, const char *expected)
{
	char got[160];

	air__ynode_describe(n, got, sizeof(got));
	return fail(d, n, "expected %s, got %s%s%s", expected, got, f->type_hint ? ". " : "",
	            f->type_hint ? f->type_hint : "");
}

/* @mark: length of the path before the key was appended (the parent's path). */
static int unknown_key(decoder *d, const air__field *parent, const air__ynode *key, size_t mark)
{
	char q[96], aside[160] = "";
	const char *suggestion = NULL;
	air__buf fields = AIR__BUF_INIT;
	int rc;

	for (size_t i = 0; i < AIR__ARRAY_SIZE(removed_keys); i++)
		if (!strcmp(removed_keys[i].path, air__buf_cstr(&d->path)))
			snprintf(aside, sizeof(aside), " (%s)", removed_keys[i].hint);
	if (!aside[0] && (suggestion = air__field_suggest(parent, key->u.text, key->len)) != NULL)
		snprintf(aside, sizeof(aside), " (did you mean \"%s\"?)", suggestion);
	air__field_put_sorted(&fields, parent);
	rc = fail(d, key, "unknown field %s%s%.*s%s; valid fields: %s",
	          air__cfg_quote(q, sizeof(q), key->u.text, key->len), mark ? " in " : "",
	          (int)mark, air__buf_cstr(&d->path), aside, air__buf_cstr(&fields));
	if (suggestion && d->err && *d->err)
		air__error_set_suggestion(*d->err, suggestion);
	air__buf_dispose(&fields);
	return rc;
}

static int decode_value(decoder *d, const air__field *f, const air__ynode *n);

static int decode_object(decoder *d, const air__field *f, const air__ynode *map)
{
	if (map->kind != AIR__Y_MAP)
		return type_error(d, f, map, "a mapping");
	for (size_t i = 0; i < map->len; i++) {
		const air__ynode *key = map->u.pairs[i].key;
		const air__field *child = air__field_child(f, key->u.text, key->len);
		size_t mark = path_push(d, key->u.text, key->len);
		int rc = child ? decode_value(d, child, map->u.pairs[i].value)
		               : unknown_key(d, f, key, mark);
		if (rc)
			return rc;
		path_pop(d, mark);
	}
	return 0;
}

static int decode_items(decoder *d, const air__field *f, const air__ynode *seq)
{
	if (seq->kind != AIR__Y_SEQ)
		return type_error(d, f, seq, expected_shape(f->kind));
	for (size_t i = 0; i < seq->len; i++) {
		const air__ynode *item = seq->u.items[i];
		size_t mark = path_push_index(d, i);
		int rc = 0;

		if (f->kind == AIR__F_OBJECT_LIST)
			rc = decode_object(d, f, item);
		else if (item->kind != AIR__Y_SCALAR || item->type == AIR__YT_NULL)
			rc = type_error(d, f, item, "a string");
		if (rc)
			return rc;
		path_pop(d, mark);
	}
	return 0;
}

static int decode_user_map(decoder *d, const air__field *f, const air__ynode *map)
{
	if (map->kind != AIR__Y_MAP)
		return type_error(d, f, map, expected_shape(f->kind));
	if (f->kind == AIR__F_ANY_MAP)
		return 0; /* free-form values */
	for (size_t i = 0; i < map->len; i++) {
		const air__ynode *v = map->u.pairs[i].value;
		size_t mark = path_push(d, map->u.pairs[i].key->u.text, map->u.pairs[i].key->len);
		if (v->kind != AIR__Y_SCALAR)
			return type_error(d, f, v, "a string");
		path_pop(d, mark);
	}
	return 0;
}

static int decode_value(decoder *d, const air__field *f, const air__ynode *n)
{
	int64_t v;

	if (air__ynode_is_null(n))
		return 0; /* null = absent */
	switch (f->kind) {
	case AIR__F_OBJECT:
		return decode_object(d, f, n);
	case AIR__F_STRING_LIST:
	case AIR__F_OBJECT_LIST:
		return decode_items(d, f, n);
	case AIR__F_STRING_MAP:
	case AIR__F_ANY_MAP:
		return decode_user_map(d, f, n);
	case AIR__F_INT:
		if (n->kind != AIR__Y_SCALAR || n->type != AIR__YT_INT)
			return type_error(d, f, n, "an integer");
		if (!air__yint_value(n, &v))
			return fail(d, n, "the integer %s is out of range", n->u.text);
		return 0;
	default: /* strings and other scalars accept any scalar as its text */
		if (n->kind != AIR__Y_SCALAR)
			return type_error(d, f, n, expected_shape(f->kind));
		return 0;
	}
}

static void snapshot_of(air__cfg_snapshot *s, const char *prefix, const air__ynode *map)
{
	s->prefix = prefix;
	s->map = map;
	if (!map)
		return;
	s->root_path = air__ymap_get(map, "root_path");
	s->remote_volume = air__ymap_get(map, "remote_volume");
	s->include_paths = air__ymap_get(map, "include_paths");
	s->git = air__ymap_get(map, "git");
	s->git_branch = air__ymap_get(s->git, "branch");
	s->git_commit = air__ymap_get(s->git, "commit");
	s->git_remote = air__ymap_get(s->git, "remote");
}

static void extract(air__cfg_model *m, const air__ynode *r)
{
	memset(m, 0, sizeof(*m));
	m->root = r;
	m->experiment_name = air__ymap_get(r, "experiment_name");
	m->command = air__ymap_get(r, "command");
	m->compute = air__ymap_get(r, "compute");
	m->accelerator_type = air__ymap_get(m->compute, "accelerator_type");
	m->num_accelerators = air__ymap_get(m->compute, "num_accelerators");
	m->pool_id = air__ymap_get(m->compute, "pool_id");
	m->priority_class = air__ymap_get(m->compute, "priority_class");
	m->environment = air__ymap_get(r, "environment");
	m->version = air__ymap_get(m->environment, "version");
	m->dependencies = air__ymap_get(m->environment, "dependencies");
	m->unity_catalog_image = air__ymap_get(m->environment, "unity_catalog_image");
	m->docker_image = air__ymap_get(m->environment, "docker_image");
	m->docker_url = air__ymap_get(m->docker_image, "url");
	m->docker_tag_policy = air__ymap_get(m->docker_image, "tag_policy");
	m->docker_credentials_scope = air__ymap_get(m->docker_image, "credentials_scope");
	m->docker_credentials_key = air__ymap_get(m->docker_image, "credentials_key");
	m->env_variables = air__ymap_get(r, "env_variables");
	m->secrets = air__ymap_get(r, "secrets");
	m->parameters = air__ymap_get(r, "parameters");
	m->permissions = air__ymap_get(r, "permissions");
	m->code_source = air__ymap_get(r, "code_source");
	m->code_source_type = air__ymap_get(m->code_source, "type");
	m->code_source_snapshot = air__ymap_get(m->code_source, "snapshot");
	snapshot_of(&m->flat, "code_source", m->code_source);
	snapshot_of(&m->nested, "code_source.snapshot", m->code_source_snapshot);
	m->max_retries = air__ymap_get(r, "max_retries");
	m->timeout_minutes = air__ymap_get(r, "timeout_minutes");
	m->idempotency_token = air__ymap_get(r, "idempotency_token");
	m->mlflow_run_name = air__ymap_get(r, "mlflow_run_name");
	m->mlflow_experiment_directory = air__ymap_get(r, "mlflow_experiment_directory");
	m->mlflow_artifact_location = air__ymap_get(r, "mlflow_artifact_location");
	m->usage_policy_name = air__ymap_get(r, "usage_policy_name");
	m->usage_policy_id = air__ymap_get(r, "usage_policy_id");
}

int air__cfg_decode(const air_config *cfg, air__cfg_model *m, air_error **err)
{
	decoder d = {cfg->name, AIR__BUF_INIT, err};
	int rc = decode_object(&d, air__schema_root(), cfg->root);

	air__buf_dispose(&d.path);
	if (rc == 0)
		extract(m, cfg->root);
	return rc;
}
