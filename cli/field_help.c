/* field_help.c: `air run -h config[.PATH]`, the documentation of a workload
 * YAML field laid out from the schema API (air_schema_lookup, air_field_*):
 * text for people, or one JSON object
 * {"path","type","required","description","fields":[{"name","type","required","summary"}]}
 * ("fields" only for objects). The help of compute and its accelerator_type
 * adds the types a configured workspace offers
 * (docs/cli.md#check-a-workload-without-submitting-dry-run). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Length of the first sentence of @d: up to the first ". " that does not end
 * one of the abbreviations below; the whole text when there is none. */
static size_t summary_len(const char *d)
{
	static const char *const abbrev[] = {"e.g", "i.e", "etc", "vs", "cf"};

	for (const char *p = strstr(d, ". "); p; p = strstr(p + 1, ". ")) {
		size_t at = (size_t)(p - d);
		bool skip = false;

		for (size_t i = 0; i < sizeof(abbrev) / sizeof(abbrev[0]); i++) {
			size_t n = strlen(abbrev[i]);
			if (at >= n && !strncmp(p - n, abbrev[i], n) &&
			    (at == n || p[-(ptrdiff_t)n - 1] == ' ' || p[-(ptrdiff_t)n - 1] == '('))
				skip = true;
		}
		if (!skip)
			return at + 1;
	}
	return strlen(d);
}

/* Objects and lists of objects list their fields; everything else is a leaf. */
static bool has_children(const air_field *f)
{
	int32_t kind = air_field_kind(f);
	return kind == AIR_FIELD_OBJECT || kind == AIR_FIELD_OBJECT_LIST;
}

/* The full path the library resolved: the input trimmed, without a leading
 * "config" (followed by '.' or the end) and then '.', under "config". */
static char *full_path(const char *path)
{
	static const char space[] = " \t\n\r\f\v";
	const char *rest = path ? path : "";
	size_t len;
	char *out;

	rest += strspn(rest, space);
	len = strlen(rest);
	while (len > 0 && strchr(space, rest[len - 1]))
		len--;
	if (len >= 6 && !strncmp(rest, "config", 6) && (len == 6 || rest[6] == '.')) {
		rest += 6;
		len -= 6;
	}
	if (len > 0 && *rest == '.') {
		rest++;
		len--;
	}
	out = malloc(len + 8);
	if (out)
		snprintf(out, len + 8, len ? "config.%.*s" : "config", (int)len, rest);
	return out;
}

/* What the CLI adds to the library's description of a field: its flags. */
static const char *flag_note(const char *path)
{
	return !strcmp(path, "config.idempotency_token")
	               ? " In air run, that is the --idempotency-key flag."
	               : "";
}

static void text_help(const char *path, const air_field *f)
{
	size_t width = 0, n = air_field_child_count(f);

	printf("%s\n  %s%s\n\n", path, air_field_description(f), flag_note(path));
	if (!has_children(f)) {
		printf("  Type:     %s\n  Required: %s\n", air_field_type(f), air_field_required_when(f));
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (strlen(air_field_name(air_field_child(f, i))) > width)
			width = strlen(air_field_name(air_field_child(f, i)));
	fputs("  Fields:\n", stdout);
	for (size_t i = 0; i < n; i++) {
		const air_field *c = air_field_child(f, i);
		const char *d = air_field_description(c);
		printf("    %-*s  %s%.*s\n", (int)width, air_field_name(c),
		       air_field_required(c) ? "(required) " : "", (int)summary_len(d), d);
	}
	printf("\n  Run \"air run -h %s.<field>\" for the details of a field.\n", path);
}

/* A JSON string: quotes, backslashes and control characters escaped, other
 * bytes (UTF-8 included) as they are. */
static void json_string_out(const char *s, size_t len)
{
	putchar('"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c == '\r')
			fputs("\\r", stdout);
		else if (c < 0x20 || c == 0x7F)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_member(const char *key, const char *value, size_t len, bool first)
{
	printf("%s\"%s\":", first ? "" : ",", key);
	json_string_out(value, len);
}

static void json_help(const char *path, const air_field *f)
{
	const char *type = air_field_type(f), *req = air_field_required_when(f);
	char *desc = NULL;

	if (asprintf(&desc, "%s%s", air_field_description(f), flag_note(path)) < 0)
		desc = NULL;
	putchar('{');
	json_member("path", path, strlen(path), true);
	json_member("type", type, strlen(type), false);
	json_member("required", req, strlen(req), false);
	json_member("description", desc ? desc : "", desc ? strlen(desc) : 0, false);
	free(desc);
	if (has_children(f)) {
		fputs(",\"fields\":[", stdout);
		for (size_t i = 0; i < air_field_child_count(f); i++) {
			const air_field *c = air_field_child(f, i);
			const char *name = air_field_name(c), *d = air_field_description(c);
			type = air_field_type(c);
			req = air_field_required_when(c);
			fputs(i ? ",{" : "{", stdout);
			json_member("name", name, strlen(name), true);
			json_member("type", type, strlen(type), false);
			json_member("required", req, strlen(req), false);
			json_member("summary", d, summary_len(d), false);
			putchar('}');
		}
		putchar(']');
	}
	fputs("}\n", stdout);
}

/* For a path into a map of user-defined keys: where the map's own help is. */
static char *map_hint(const air_error *err)
{
	const char *field = err ? air_error_field(err) : NULL;
	const char *dot = field ? strrchr(field, '.') : NULL;
	const air_field *f = NULL;
	char *parent = dot ? strndup(field, (size_t)(dot - field)) : NULL, *hint = NULL;

	if (parent && air_schema_lookup(parent, &f, NULL) == AIR_OK &&
	    (air_field_kind(f) == AIR_FIELD_STRING_MAP || air_field_kind(f) == AIR_FIELD_ANY_MAP) &&
	    asprintf(&hint, "run \"air run -h %s\"", parent) < 0)
		hint = NULL;
	free(parent);
	return hint;
}

/* How long the accelerator types of the workspace may take. */
#define OFFERED_TYPES_MS 5000

/* "GPU_1xA10, GPU_8xH100" of the built-in types in @list ("a,b"), or NULL
 * when it names none. free(). */
static char *known_types(const char *list)
{
	size_t cap = strlen(list) * 2 + 1, len = 0;
	char *out = malloc(cap);

	for (const char *p = list; out && *p;) {
		size_t n = strcspn(p, ",");
		char type[128];
		snprintf(type, sizeof(type), "%.*s", (int)n, p);
		if (n < sizeof(type) && air_accelerator_gpus_per_node(type) > 0)
			len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ", " : "", type);
		p += n + (p[n] == ',');
	}
	if (out && !len) {
		free(out);
		out = NULL;
	}
	return out;
}

/* The accelerator types of the workspace @g configures, under the help:
 * nothing without a workspace (the help works offline), a warning when
 * they cannot be listed in time. */
static void offered_types(const cli_globals *g)
{
	air_client *client = NULL;
	air_call_options *o = NULL;
	air_error *err = NULL;
	char *list = NULL, *shown = NULL;
	int rc;

	if (cli_client_new(g, &client, NULL) != AIR_OK)
		return;
	rc = air_call_options_new(&o);
	if (rc == AIR_OK)
		rc = air_call_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK)
		rc = air_call_options_set_deadline_ms(o, OFFERED_TYPES_MS);
	/* No workspace configured: the offline help alone. */
	if (rc == AIR_OK && air_client_resolve(client, o, NULL) == AIR_OK) {
		rc = air_client_list_accelerator_types(client, o, &list, &err);
		if (rc == AIR_OK && (shown = known_types(list)))
			printf("\n  This workspace offers: %s\n", shown);
		else
			fprintf(stderr, "Warning: the accelerator types this workspace offers are not "
			        "known (%s); the help lists every built-in type\n",
			        rc == AIR_OK ? "it lists none of them" : cli_clean(air_error_message(err)));
	}
	free(shown);
	air_free(list);
	air_error_free(err);
	air_call_options_free(o);
	cli_client_free(client);
}

void cli_field_help(const char *path, bool json, const cli_globals *g)
{
	const air_field *f = NULL;
	air_error *err = NULL;
	int rc = air_schema_lookup(path, &f, &err);
	char *full = rc == AIR_OK ? full_path(path) : NULL;

	if (rc == AIR_OK && !full)
		rc = AIR_ENOMEM;
	if (rc != AIR_OK) {
		char *hint = map_hint(err);
		cli_error_air_hint(err, rc, hint);
		free(hint);
	} else if (json) {
		json_help(full, f);
	} else {
		text_help(full, f);
		if (!strcmp(full, "config.compute") || !strcmp(full, "config.compute.accelerator_type"))
			offered_types(g);
	}
	fflush(stdout);
	free(full);
	air_error_free(err);
}
