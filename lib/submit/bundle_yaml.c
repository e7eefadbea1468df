/*
 * bundle_yaml.c: a JSON model (objects in insertion order, arrays, strings,
 * integers, booleans) written as block YAML by libfyaml's emitter.
 *
 * Every scalar is typed the way YAML 1.1 and 1.2 readers both read it: a
 * string is plain only when nothing could read it as another type (the
 * rules of core's yaml_scalar.c, shared with the workload emitter),
 * otherwise it is a double-quoted node; numbers and booleans are plain. The text is then parsed back and compared
 * with the model, so a file that would not read as intended is never written.
 */
#include "submit/bundle.h"

#include <stdlib.h>
#include <string.h>

#include <libfyaml.h>

#define EMIT_FLAGS (FYECF_MODE_BLOCK | FYECF_INDENT_2 | FYECF_WIDTH_INF | \
                    FYECF_DOC_START_MARK_OFF | FYECF_DOC_END_MARK_OFF)

static struct fy_node *string_node(struct fy_document *d, const char *s)
{
	size_t n = strlen(s);
	air__buf tok = AIR__BUF_INIT;
	struct fy_node *node = NULL;
	char *text;

	if (air__yaml_plain_ok(s, n))
		return fy_node_create_scalar_copy(d, s, n);
	air__yaml_put_quoted(&tok, s, n);
	/* The node keeps pointing into its source text: the document owns it. */
	if (!air__buf_oom(&tok) && (text = malloc(tok.len + 1))) {
		memcpy(text, tok.ptr, tok.len + 1);
		node = fy_node_build_from_malloc_string(d, text, tok.len); /* owns @text, also on failure */
	}
	air__buf_dispose(&tok);
	return node;
}

static struct fy_node *build(struct fy_document *d, const json_t *v)
{
	struct fy_node *n = NULL;
	const char *key;
	json_t *member;
	size_t i;
	char num[32];

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		n = fy_node_create_mapping(d);
		json_object_foreach((json_t *)v, key, member) {
			struct fy_node *k = string_node(d, key), *val = build(d, member);
			if (!n || !k || !val || fy_node_mapping_append(n, k, val) != 0) {
				fy_node_free(k);
				fy_node_free(val);
				fy_node_free(n);
				return NULL;
			}
		}
		return n;
	case JSON_ARRAY:
		n = fy_node_create_sequence(d);
		json_array_foreach(v, i, member) {
			struct fy_node *item = build(d, member);
			if (!n || !item || fy_node_sequence_append(n, item) != 0) {
				fy_node_free(item);
				fy_node_free(n);
				return NULL;
			}
		}
		return n;
	case JSON_STRING:
		return string_node(d, json_string_value(v));
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
		return fy_node_create_scalar_copy(d, num, strlen(num));
	case JSON_TRUE:
		return fy_node_create_scalar(d, "true", 4);
	case JSON_FALSE:
		return fy_node_create_scalar(d, "false", 5);
	default:
		return NULL; /* the model holds no nulls or reals */
	}
}

static bool scalar_is(struct fy_node *n, const char *want, bool plain_required)
{
	size_t len = 0;
	const char *text;

	if (!n || !fy_node_is_scalar(n) || fy_node_get_tag(n, NULL))
		return false;
	text = fy_node_get_scalar(n, &len);
	if (!text || len != strlen(want) || memcmp(text, want, len) != 0)
		return false;
	if (fy_node_get_style(n) == FYNS_PLAIN)
		return plain_required || air__yaml_plain_ok(text, len);
	return !plain_required;
}

/* The parsed node @n reads as the model @v. */
static bool same(struct fy_node *n, const json_t *v)
{
	const char *key;
	json_t *member;
	size_t i;
	char num[32];

	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		void *iter = NULL;
		struct fy_node_pair *p;
		if (!n || !fy_node_is_mapping(n) || (size_t)fy_node_mapping_item_count(n) != json_object_size(v))
			return false;
		json_object_foreach((json_t *)v, key, member) {
			if (!(p = fy_node_mapping_iterate(n, &iter)) ||
			    !scalar_is(fy_node_pair_key(p), key, false) || !same(fy_node_pair_value(p), member))
				return false;
		}
		return true;
	}
	case JSON_ARRAY:
		if (!n || !fy_node_is_sequence(n) || (size_t)fy_node_sequence_item_count(n) != json_array_size(v))
			return false;
		json_array_foreach(v, i, member)
			if (!same(fy_node_sequence_get_by_index(n, (int)i), member))
				return false;
		return true;
	case JSON_STRING:
		return scalar_is(n, json_string_value(v), false);
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
		return scalar_is(n, num, true);
	case JSON_TRUE:
		return scalar_is(n, "true", true);
	case JSON_FALSE:
		return scalar_is(n, "false", true);
	default:
		return false;
	}
}

int air__bundle_yaml(const json_t *model, char **out, air_error **err)
{
	struct fy_document *d = fy_document_create(NULL), *back = NULL;
	struct fy_node *root = d ? build(d, model) : NULL;
	char *text = NULL;
	int rc = AIR_OK;

	*out = NULL;
	if (!root || fy_document_set_root(d, root) != 0 ||
	    !(text = fy_emit_document_to_string(d, EMIT_FLAGS))) {
		if (root && !text && fy_document_root(d) != root)
			fy_node_free(root);
		rc = air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_CONFIG,
		                "the bundle cannot be written as YAML (a value is not valid UTF-8?)");
	} else if (!(back = fy_document_build_from_string(NULL, text, strlen(text))) ||
	           !same(fy_document_root(back), model)) {
		rc = air__failf(err, AIR_EINTERNAL, AIR_KIND_INTERNAL,
		                "the YAML written for the bundle does not read back as intended");
	} else if (!(*out = air__strdup(text))) {
		rc = air__oom(err);
	}
	fy_document_destroy(back);
	fy_document_destroy(d);
	free(text);
	return rc;
}
