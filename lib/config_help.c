/* config_help.c: field help, `air run -h config[.<path>]`, from the schema table. */
#include "config_internal.h"

#include <string.h>

/* Length of the first sentence: up to the first ". " that does not end an
 * abbreviation; the whole text when there is none. */
static size_t summary_len(const char *d)
{
	static const char *const abbrev[] = {"e.g", "i.e", "etc", "vs", "cf"};

	for (const char *p = strstr(d, ". "); p; p = strstr(p + 1, ". ")) {
		bool skip = false;
		for (size_t i = 0; i < AIR__ARRAY_SIZE(abbrev); i++) {
			size_t n = strlen(abbrev[i]);
			if ((size_t)(p - d) >= n && !strncmp(p - n, abbrev[i], n) &&
			    ((size_t)(p - d) == n || p[-(ptrdiff_t)n - 1] == ' ' || p[-(ptrdiff_t)n - 1] == '('))
				skip = true;
		}
		if (!skip)
			return (size_t)(p - d) + 1;
	}
	return strlen(d);
}

static void text_help(air__buf *b, const char *path, const air__field *f)
{
	air__buf_printf(b, "%s\n  %s\n\n", path, f->description);
	if (!air__field_has_children(f)) {
		air__buf_printf(b, "  Type:     %s\n  Required: %s\n", f->type_label, f->required);
		return;
	}
	size_t width = 0;
	for (size_t i = 0; i < f->nfields; i++)
		if (strlen(f->fields[i].name) > width)
			width = strlen(f->fields[i].name);
	air__buf_puts(b, "  Fields:\n");
	for (size_t i = 0; i < f->nfields; i++) {
		const air__field *c = &f->fields[i];
		air__buf_printf(b, "    %-*s  %s%.*s\n", (int)width, c->name,
		                strcmp(c->required, "yes") ? "" : "(required) ",
		                (int)summary_len(c->description), c->description);
	}
	air__buf_printf(b, "\n  Run \"air run -h %s.<field>\" for the details of a field.\n", path);
}

static void json_member(air__buf *b, const char *key, const char *value, size_t len, bool first)
{
	air__buf_puts(b, first ? "\"" : ",\"");
	air__buf_puts(b, key);
	air__buf_puts(b, "\":");
	air__json_put_string(b, value, len);
}

static void json_help(air__buf *b, const char *path, const air__field *f)
{
	air__buf_putc(b, '{');
	json_member(b, "path", path, strlen(path), true);
	json_member(b, "type", f->type_label, strlen(f->type_label), false);
	json_member(b, "required", f->required, strlen(f->required), false);
	json_member(b, "description", f->description, strlen(f->description), false);
	if (air__field_has_children(f)) {
		air__buf_puts(b, ",\"fields\":[");
		for (size_t i = 0; i < f->nfields; i++) {
			const air__field *c = &f->fields[i];
			air__buf_puts(b, i ? ",{" : "{");
			json_member(b, "name", c->name, strlen(c->name), true);
			json_member(b, "type", c->type_label, strlen(c->type_label), false);
			json_member(b, "required", c->required, strlen(c->required), false);
			json_member(b, "summary", c->description, summary_len(c->description), false);
			air__buf_putc(b, '}');
		}
		air__buf_putc(b, ']');
	}
	air__buf_puts(b, "}\n");
}

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
			return air__failf(err, AIR_ENOMEM, 0, "out of memory");
		if (len == 0)
			return help_fail(err, air__buf_cstr(full), "%s: empty field name in the path",
			                 air__buf_cstr(full));
		if (air__field_is_user_map(f))
			return help_fail(err, air__buf_cstr(full),
			                 "%s: %.*s holds user-defined keys, so %s is not a schema field; "
			                 "run \"air run -h %.*s\" for the map itself",
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

int air_schema_help(const char *path, uint32_t flags, char **out, air_error **err)
{
	air__buf full = AIR__BUF_INIT, text = AIR__BUF_INIT;
	const air__field *f = NULL;
	const char *rest;
	size_t len;
	char *p;
	int rc;

	if (!out || flags > AIR_HELP_JSON)
		return air__failf(err, AIR_EINVAL, 0, "air_schema_help: %s",
		                  out ? "flags must be AIR_HELP_TEXT or AIR_HELP_JSON" : "out is NULL");
	*out = NULL;
	rest = air__trim(path ? path : "", &len);
	if ((rc = air__yaml_check_text(rest, len, NULL, err)))
		return rc;
	if (!(p = air__strndup(rest, len)))
		return air__failf(err, AIR_ENOMEM, 0, "out of memory");
	/* "config", "config.x" and "x" all name fields from the root. */
	rest = p;
	if (!strncmp(rest, "config", 6) && (rest[6] == '\0' || rest[6] == '.'))
		rest += 6;
	if (*rest == '.')
		rest++;
	rc = resolve(rest, &full, &f, err);
	if (rc == 0) {
		if (flags == AIR_HELP_JSON)
			json_help(&text, air__buf_cstr(&full), f);
		else
			text_help(&text, air__buf_cstr(&full), f);
		if (air__buf_oom(&text) || !(*out = air__buf_detach(&text)))
			rc = air__failf(err, AIR_ENOMEM, 0, "out of memory");
	}
	air__free(p);
	air__buf_dispose(&full);
	air__buf_dispose(&text);
	return rc;
}
