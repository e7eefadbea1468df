/* rules_code.c: rules 18a-28, `code_source` in either of its forms. */
#include "config/config.h"

#include <stdio.h>
#include <string.h>

#define FAIL(node, field, ...) air__cfg_fail(err, cfg->name, (node), (field), __VA_ARGS__)

static bool has_flat_keys(const air__cfg_model *m)
{
	const air__cfg_snapshot *f = &m->flat;

	return f->root_path || f->remote_volume || f->include_paths || f->git;
}

static bool has_nested_keys(const air__cfg_model *m)
{
	return m->code_source_type || m->code_source_snapshot;
}

const air__cfg_snapshot *air__cfg_snapshot_of(const air__cfg_model *m, int32_t *form)
{
	*form = !m->code_source        ? AIR_CODE_SOURCE_NONE
	        : has_nested_keys(m)   ? AIR_CODE_SOURCE_NESTED
	                               : AIR_CODE_SOURCE_FLAT;
	return *form == AIR_CODE_SOURCE_NONE ? NULL
	       : *form == AIR_CODE_SOURCE_FLAT ? &m->flat
	                                       : &m->nested;
}

/* Rule 18a: one form, not empty. */
static int form_rule(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	static const char *const nested[] = {"type", "snapshot"};
	static const char *const flat[] = {"root_path", "remote_volume", "include_paths", "git"};
	char n_keys[64] = "", f_keys[96] = "";

	if (!has_flat_keys(m) && !has_nested_keys(m))
		return FAIL(m->code_source, "code_source",
		            "is empty; set root_path (the directory to upload) directly under "
		            "code_source");
	if (!has_flat_keys(m) || !has_nested_keys(m))
		return 0;
	for (size_t i = 0; i < AIR__ARRAY_SIZE(nested); i++)
		if (air__ymap_get(m->code_source, nested[i]))
			snprintf(n_keys + strlen(n_keys), sizeof(n_keys) - strlen(n_keys), "%s%s",
			         n_keys[0] ? ", " : "", nested[i]);
	for (size_t i = 0; i < AIR__ARRAY_SIZE(flat); i++)
		if (air__ymap_get(m->code_source, flat[i]))
			snprintf(f_keys + strlen(f_keys), sizeof(f_keys) - strlen(f_keys), "%s%s",
			         f_keys[0] ? ", " : "", flat[i]);
	return FAIL(m->code_source, "code_source",
	            "mixes the nested form (%s) with the flattened form (%s); write root_path, "
	            "remote_volume, include_paths and git either directly under code_source or "
	            "under code_source.snapshot with type: snapshot, not both",
	            n_keys, f_keys);
}

/* Rule 24 for entry @index: relative, non-blank, no ".." segment. */
static int include_path_rule(const air_config *cfg, const air__cfg_snapshot *snap, size_t index,
                             air_error **err)
{
	const air__ynode *n = snap->include_paths->u.items[index];
	size_t len;
	const char *s = air__trim(n->u.text, &len), *seg = s, *problem = NULL;
	char q[96], field[96];

	for (size_t i = 0; len && s[0] != '/' && i <= len; i++) {
		if (i < len && s[i] != '/')
			continue;
		if (s + i - seg == 2 && seg[0] == '.' && seg[1] == '.')
			problem = "must not contain a '..' segment";
		seg = s + i + 1;
	}
	if (len && s[0] == '/')
		problem = "must be relative to root_path";
	if (len && !problem)
		return 0;
	snprintf(field, sizeof(field), "%s.include_paths[%zu]", snap->prefix, index);
	if (len == 0)
		return FAIL(n, field, "must not be blank");
	return FAIL(n, field, "%s %s", air__cfg_quote(q, sizeof(q), n->u.text, n->len), problem);
}

static bool is_branch_name(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '/' || c == '-'))
			return false;
	}
	return true;
}

/* Rules 21-28 on the snapshot fields. */
static int snapshot_rules(const air_config *cfg, const air__cfg_snapshot *s, air_error **err)
{
	char field[96], q[96];
	const air__ynode *remote = s->git_remote;
	int rc;

#define FIELD(name) (snprintf(field, sizeof(field), "%s.%s", s->prefix, (name)), field)
	if (!s->root_path)
		return FAIL(s->map, FIELD("root_path"), "is required");
	if (air__is_blank(s->root_path->u.text))
		return FAIL(s->root_path, FIELD("root_path"), "must not be blank");
	if (s->remote_volume && strncmp(s->remote_volume->u.text, "/Volumes/", 9) != 0)
		return FAIL(s->remote_volume, FIELD("remote_volume"), "%s must start with /Volumes/",
		            air__cfg_quote(q, sizeof(q), s->remote_volume->u.text, s->remote_volume->len));
	if (s->include_paths && s->include_paths->len == 0)
		return FAIL(s->include_paths, FIELD("include_paths"),
		            "must not be an empty list (leave it out to upload all of root_path)");
	for (size_t i = 0; s->include_paths && i < s->include_paths->len; i++)
		if ((rc = include_path_rule(cfg, s, i, err)))
			return rc;
	if (!s->git)
		return 0;
	if (s->git_branch && !is_branch_name(s->git_branch->u.text, s->git_branch->len))
		return FAIL(s->git_branch, FIELD("git.branch"),
		            "%s is not a branch name (letters, digits, '_', '.', '/', '-')",
		            air__cfg_quote(q, sizeof(q), s->git_branch->u.text, s->git_branch->len));
	if (remote && !(remote->type == AIR__YT_BOOL && (remote->u.text[0] | 0x20) == 'f') &&
	    remote->len != 0)
		return FAIL(remote, FIELD("git.remote"),
		            "is no longer supported (remote fetching was removed); remove it or set "
		            "it to false");
	if (!s->git_branch && !s->git_commit)
		return FAIL(s->git, FIELD("git"), "set branch or commit");
	if (s->git_branch && s->git_commit)
		return FAIL(s->git, FIELD("git"), "set either branch or commit, not both");
#undef FIELD
	return 0;
}

int air__cfg_rules_code_source(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	int32_t form;
	const air__cfg_snapshot *s;
	char q[96];
	int rc;

	if (!m->code_source)
		return 0;
	if ((rc = form_rule(cfg, m, err)))
		return rc;
	s = air__cfg_snapshot_of(m, &form);
	if (form == AIR_CODE_SOURCE_NESTED) {
		const air__ynode *type = m->code_source_type;
		if (!type)
			return FAIL(m->code_source, "code_source.type",
			            "is required next to code_source.snapshot and must be \"snapshot\"");
		if (strcmp(type->u.text, "snapshot") != 0)
			return FAIL(type, "code_source.type",
			            "%s is not supported; the only type is \"snapshot\"",
			            air__cfg_quote(q, sizeof(q), type->u.text, type->len));
		if (!m->code_source_snapshot)
			return FAIL(m->code_source, "code_source.snapshot",
			            "is required when code_source.type is \"snapshot\"");
	}
	return snapshot_rules(cfg, s, err);
}
