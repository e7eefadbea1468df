/* help.c: field help, `air run -h config[.<path>]`, from the schema table. */
#include "config/config.h"

#include <string.h>

static int help_fail(air_error **err, const char *field, const char *fmt, ...) AIR__PRINTF(3, 4);

static int help_fail(air_error **err, const char *field, const char *fmt, ...)
{
	va_list ap;
	air_error *e;

	if (!err)
		return AIR_ECONFIG;
	va_start(ap, fmt);
	e = air__error_vnew(AIR_ECONFIG, 0, fmt, ap);
	va_end(ap);
	return air__fail(err, air__error_set_field(e, field));
}

/* Resolve @rest (without "config.") into *out, building the full path in @full. */
static int resolve(const char *rest, air__buf *full, const air__field **out, air_error **err)
{
	const air__field *f = air__schema_root();
	const char *seg = rest;
	char q[96];

	air__buf_puts(full, "config");
	while (*rest) {
		const char *dot = strchr(seg, '.');
		size_t len = dot ? (size_t)(dot - seg) : strlen(seg), parent_len = full->len;
		const air__field *child;

		air__buf_putc(full, '.');
		air__buf_put(full, seg, len);
		if (air__buf_oom(full))
			return air__oom(err);
		if (len == 0)
			return help_fail(err, air__buf_cstr(full), "%s: empty field name in the path",
			                 air__buf_cstr(full));
		if (air__field_is_user_map(f))
			return help_fail(err, air__buf_cstr(full),
			                 "%s: %.*s holds user-defined keys, so %s is not a schema field; "
			                 "the help of %.*s describes the map itself",
			                 air__buf_cstr(full), (int)parent_len, air__buf_cstr(full),
			                 air__cfg_quote(q, sizeof(q), seg, len), (int)parent_len,
			                 air__buf_cstr(full));
		if (!air__field_has_children(f))
			return help_fail(err, air__buf_cstr(full),
			                 "%s: %.*s is %s %s, not an object; it has no field %s",
			                 air__buf_cstr(full), (int)parent_len, air__buf_cstr(full),
			                 f->type_label[0] == 'i' ? "an" : "a", f->type_label,
			                 air__cfg_quote(q, sizeof(q), seg, len));
		if (!(child = air__field_child(f, seg, len))) {
			air__buf fields = AIR__BUF_INIT;
			const char *s = air__field_suggest(f, seg, len);
			int rc;
			air__field_put_sorted(&fields, f);
			rc = help_fail(err, air__buf_cstr(full),
			               "%s: unknown field %s%s%s%s; fields of %.*s: %s",
			               air__buf_cstr(full), air__cfg_quote(q, sizeof(q), seg, len),
			               s ? " (did you mean \"" : "", s ? s : "", s ? "\"?)" : "",
			               (int)parent_len, air__buf_cstr(full), air__buf_cstr(&fields));
			if (err && *err && s)
				air__error_set_suggestion(*err, s);
			air__buf_dispose(&fields);
			return rc;
		}
		f = child;
		if (!dot)
			break;
		seg = dot + 1;
	}
	*out = f;
	return 0;
}

int air_schema_lookup(const char *path, const air_field **out, air_error **err)
{
	air__buf full = AIR__BUF_INIT;
	const air__field *f = NULL;
	const char *rest;
	size_t len;
	char *p;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_schema_lookup: out is NULL");
	*out = NULL;
	rest = air__trim(path ? path : "", &len);
	if ((rc = air__yaml_check_text(rest, len, NULL, err)))
		return rc;
	if (!(p = air__strndup(rest, len)))
		return air__oom(err);
	/* "config", "config.x" and "x" all name fields from the root. */
	rest = p;
	if (!strncmp(rest, "config", 6) && (rest[6] == '\0' || rest[6] == '.'))
		rest += 6;
	if (*rest == '.')
		rest++;
	rc = resolve(rest, &full, &f, err);
	if (rc == 0)
		*out = f;
	air__free(p);
	air__buf_dispose(&full);
	return rc;
}

const air_field *air_schema_root(void) { return air__schema_root(); }

const char *air_field_name(const air_field *f) { return f ? f->name : NULL; }
const char *air_field_type(const air_field *f) { return f ? f->type_label : NULL; }
const char *air_field_required_when(const air_field *f) { return f ? f->required : NULL; }
int32_t air_field_required(const air_field *f) { return f && !strcmp(f->required, "yes"); }
const char *air_field_default(const air_field *f) { return f ? f->dflt : NULL; }
const char *air_field_description(const air_field *f) { return f ? f->description : NULL; }

int32_t air_field_kind(const air_field *f)
{
	static const int32_t kinds[] = {
		[AIR__F_OBJECT] = AIR_FIELD_OBJECT,
		[AIR__F_STRING] = AIR_FIELD_STRING,
		[AIR__F_INT] = AIR_FIELD_INT,
		[AIR__F_SCALAR] = AIR_FIELD_SCALAR,
		[AIR__F_BOOL_OR_STRING] = AIR_FIELD_BOOL_OR_STRING,
		[AIR__F_STRING_LIST] = AIR_FIELD_STRING_LIST,
		[AIR__F_OBJECT_LIST] = AIR_FIELD_OBJECT_LIST,
		[AIR__F_STRING_MAP] = AIR_FIELD_STRING_MAP,
		[AIR__F_ANY_MAP] = AIR_FIELD_ANY_MAP,
	};

	return f ? kinds[f->kind] : 0;
}

size_t air_field_child_count(const air_field *f) { return f ? f->nfields : 0; }

const air_field *air_field_child(const air_field *f, size_t i)
{
	return f && i < f->nfields ? &f->fields[i] : NULL;
}
