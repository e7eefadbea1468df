/* args.c: a small flag parser with cobra-like syntax (--name value,
 * --name=value, -n value, -nvalue, -- ends flags, global flags anywhere). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *g_output, *g_profile;
static bool g_debug, g_local;

static const cli_flag global_flags[] = {
	{"output", 'o', CLI_STRING, &g_output, NULL, "text|json", "output format", false},
	{"profile", 'p', CLI_STRING, &g_profile, NULL, "NAME", "~/.databrickscfg profile", false},
	{"debug", 0, CLI_BOOL, &g_debug, NULL, NULL, "trace requests on stderr", false},
	{"local", 0, CLI_BOOL, &g_local, NULL, NULL,
	 "use the local workspace on this machine (host local://, no account)", false},
	{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
};

static const cli_flag *find_flag(const cli_flag *flags, const char *name, size_t n, char shortc)
{
	for (int pass = 0; pass < 2; pass++) {
		const cli_flag *set = pass ? global_flags : flags;
		for (const cli_flag *f = set; f && f->long_name; f++) {
			if (shortc ? f->short_name == shortc
			           : (strlen(f->long_name) == n && strncmp(f->long_name, name, n) == 0))
				return f;
		}
	}
	return NULL;
}

bool cli_strlist_push(cli_strlist *l, const char *s)
{
	const char **items = realloc(l->items, sizeof(*items) * (size_t)(l->count + 1));
	if (!items)
		return false;
	items[l->count++] = s;
	l->items = items;
	return true;
}

void cli_strlist_free(cli_strlist *l)
{
	free(l->items);
	l->items = NULL;
	l->count = 0;
}

static bool set_value(const cli_flag *f, const char *value, const char *usage, const cli_flag *flags)
{
	switch (f->kind) {
	case CLI_STRING:
		*(const char **)f->target = value;
		break;
	case CLI_INT: {
		char *end;
		long long v;
		errno = 0;
		v = strtoll(value, &end, 10);
		if (!*value || *end || errno) {
			cli_error("invalid argument \"%s\" for \"--%s\" flag: expected an integer", value,
			          f->long_name);
			cli_print_usage(stderr, usage, flags);
			return false;
		}
		*(int64_t *)f->target = (int64_t)v;
		break;
	}
	case CLI_STRING_LIST:
		if (!cli_strlist_push((cli_strlist *)f->target, value))
			return false;
		break;
	case CLI_BOOL:
		if (!strcmp(value, "true") || !strcmp(value, "1"))
			*(bool *)f->target = true;
		else if (!strcmp(value, "false") || !strcmp(value, "0"))
			*(bool *)f->target = false;
		else {
			cli_error("invalid argument \"%s\" for \"--%s\" flag: expected true or false",
			          value, f->long_name);
			return false;
		}
		break;
	}
	if (f->seen)
		*f->seen = true;
	return true;
}

static bool apply_globals(cli_globals *g)
{
	if (g_output) {
		if (!strcmp(g_output, "json"))
			g->json = true;
		else if (!strcmp(g_output, "text"))
			g->json = false;
		else {
			cli_error("invalid argument \"%s\" for \"-o, --output\" flag: must be text or json",
			          g_output);
			return false;
		}
	}
	if (g_profile)
		g->profile = g_profile;
	if (g_debug)
		g->debug = true;
	if (g_local)
		g->local = true;
	cli_set_json_output(g->json);
	cli_set_target(g);
	return true;
}

bool cli_parse(int argc, char **argv, const cli_flag *flags, cli_globals *g, cli_strlist *pos,
               const char *usage)
{
	bool only_positional = false;

	g_output = g_profile = NULL;
	g_debug = g_local = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const cli_flag *f;
		const char *value = NULL;

		if (only_positional || a[0] != '-' || !strcmp(a, "-")) {
			if (!cli_strlist_push(pos, a))
				return false;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_positional = true;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			f = find_flag(flags, name, n, 0);
			if (!f) {
				cli_error("unknown flag: --%.*s", (int)n, name);
				cli_print_usage(stderr, usage, flags);
				return false;
			}
			if (eq)
				value = eq + 1;
		} else {
			f = find_flag(flags, NULL, 0, a[1]);
			if (!f) {
				cli_error("unknown shorthand flag: '%c' in %s", a[1], a);
				cli_print_usage(stderr, usage, flags);
				return false;
			}
			if (a[2])
				value = a[2] == '=' ? a + 3 : a + 2;
		}
		if (f->kind == CLI_BOOL && !value) {
			*(bool *)f->target = true;
			if (f->seen)
				*f->seen = true;
			continue;
		}
		if (!value) {
			if (i + 1 >= argc) {
				cli_error("flag needs an argument: --%s", f->long_name);
				cli_print_usage(stderr, usage, flags);
				return false;
			}
			value = argv[++i];
		}
		if (!set_value(f, value, usage, flags))
			return false;
	}
	return apply_globals(g);
}

static void print_flag_rows(FILE *out, const cli_flag *flags)
{
	for (const cli_flag *f = flags; f && f->long_name; f++) {
		char left[64];
		if (f->hidden)
			continue;
		if (f->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", f->short_name, f->long_name,
			         f->metavar ? " " : "", f->metavar ? f->metavar : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", f->long_name, f->metavar ? " " : "",
			         f->metavar ? f->metavar : "");
		fprintf(out, "  %-32s %s\n", left, f->help ? f->help : "");
	}
}

void cli_print_usage(FILE *out, const char *usage, const cli_flag *flags)
{
	fprintf(out, "\nUsage:\n  %s\n", usage);
	if (flags && flags->long_name) {
		fprintf(out, "\nFlags:\n");
		print_flag_rows(out, flags);
	}
	fprintf(out, "\nGlobal Flags:\n");
	print_flag_rows(out, global_flags);
	fprintf(out, "  %-32s %s\n", "-h, --help", "help for this command");
}

const char *cli_first_positional(int argc, char **argv, const cli_flag *flags)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const cli_flag *f;

		if (!strcmp(a, "--"))
			return i + 1 < argc ? argv[i + 1] : NULL;
		if (a[0] != '-' || !strcmp(a, "-"))
			return a;
		if (a[1] == '-') {
			const char *name = a + 2;
			if (strchr(name, '='))
				continue;
			f = find_flag(flags, name, strlen(name), 0);
		} else {
			f = a[2] ? NULL : find_flag(flags, NULL, 0, a[1]);
		}
		if (f && f->kind != CLI_BOOL)
			i++;
	}
	return NULL;
}

bool cli_parse_run_id(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s || *s == '+' || *s == '-' || *s == ' ')
		return false;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end || errno || v <= 0)
		return false;
	*out = (int64_t)v;
	return true;
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	}
	return false;
}
