/*
 * test_cases.c: data-driven workload cases (jansson's suites layout).
 *
 *   tests/config/cases/valid/<case>/{input.yaml,expected}
 *   tests/config/cases/invalid/<case>/{input.yaml,expected}
 *
 * `expected` holds one directive per line ('#' starts a comment):
 *   override PATH=VALUE       applied in order before validation
 *   code AIR_ECONFIG          status of the failure (invalid cases; default AIR_ECONFIG)
 *   field PATH | field -      air_error_field() (- = none)
 *   position L:C | position - air_error_line()/column(); with a position the
 *                             message must start "<file>:L:C: <field>: "
 *   contains TEXT             the message contains TEXT
 *   expect GETTER VALUE       valid cases: air_config_GETTER() (".N" indexes;
 *                             VALUE "(null)" for NULL, \n escapes)
 * Every case is checked; the test fails at the end listing the failed cases.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <air/air.h>

#include "test.h"

typedef struct getter {
	const char *name;
	const char *(*str)(const air_config *);
	int64_t (*i64)(const air_config *);
	int32_t (*i32)(const air_config *);
	size_t (*count)(const air_config *);
	const char *(*at)(const air_config *, size_t);
	int32_t (*i32_at)(const air_config *, size_t);
} getter;

#define S(n) {#n, air_config_##n, NULL, NULL, NULL, NULL, NULL}
#define I(n) {#n, NULL, air_config_##n, NULL, NULL, NULL, NULL}
#define B(n) {#n, NULL, NULL, air_config_##n, NULL, NULL, NULL}
#define C(n) {#n, NULL, NULL, NULL, air_config_##n, NULL, NULL}
#define A(n) {#n, NULL, NULL, NULL, NULL, air_config_##n, NULL}

static const getter getters[] = {
	S(experiment_name), S(command), S(accelerator_type), I(num_accelerators), I(num_nodes),
	S(pool_id), S(priority_class), S(environment_version), B(has_dependencies),
	C(dependency_count), A(dependency), S(unity_catalog_image), S(docker_image_url),
	S(docker_image_tag_policy), S(docker_image_credentials_scope),
	S(docker_image_credentials_key), C(env_count), A(env_name), A(env_value), C(secret_count),
	A(secret_name), A(secret_ref), A(secret_scope), A(secret_key), B(has_parameters),
	B(code_source_form), S(root_path), S(remote_volume), C(include_path_count),
	A(include_path), S(git_commit), S(git_branch), I(max_retries), I(timeout_minutes),
	S(idempotency_token), S(mlflow_run_name), S(mlflow_experiment_directory),
	S(mlflow_artifact_location), S(usage_policy_name), S(usage_policy_id),
	C(permission_count), A(permission_principal), A(permission_level),
	{"permission_principal_type", NULL, NULL, NULL, NULL, NULL,
	 air_config_permission_principal_type},
};

static char failures[8192];
static int nfailed;

/* The error's message, or a placeholder without one. */
static const char *message_of(const air_error *err)
{
	return air_error_message(err) ? air_error_message(err) : "(no message)";
}

/* Note one failure of case @name; the message is formatted whole, never cut. */
static void case_fail(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void case_fail(const char *name, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	air_test_note("%s: %s", name, line ? line : fmt);
	free(line);
	if (strlen(failures) + strlen(name) + 3 < sizeof(failures)) {
		strcat(failures, " ");
		strcat(failures, name);
	}
	nfailed++;
}

static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == 'n')
			*o++ = '\n', s++;
		else if (s[0] == '\\' && s[1] == '\\')
			*o++ = '\\', s++;
		else
			*o++ = *s;
	}
	*o = '\0';
}

/* The value of getter "name" or "name.N" as text ("(null)" for NULL). */
static bool get(const air_config *cfg, const char *spec, char *out, size_t cap)
{
	char name[64];
	const char *dot = strchr(spec, '.');
	size_t idx = dot ? strtoul(dot + 1, NULL, 10) : 0, n = dot ? (size_t)(dot - spec) : strlen(spec);

	snprintf(name, sizeof(name), "%.*s", (int)n, spec);
	for (size_t i = 0; i < sizeof(getters) / sizeof(getters[0]); i++) {
		const getter *g = &getters[i];
		const char *s = NULL;
		if (strcmp(g->name, name))
			continue;
		if (g->str || g->at) {
			s = g->str ? g->str(cfg) : g->at(cfg, idx);
			snprintf(out, cap, "%s", s ? s : "(null)");
		} else if (g->i64) {
			snprintf(out, cap, "%lld", (long long)g->i64(cfg));
		} else if (g->i32) {
			snprintf(out, cap, "%d", (int)g->i32(cfg));
		} else if (g->count) {
			snprintf(out, cap, "%zu", g->count(cfg));
		} else {
			snprintf(out, cap, "%d", (int)g->i32_at(cfg, idx));
		}
		return true;
	}
	return false;
}

static void check_error(const char *name, const char *dir, int rc, const air_error *err,
                        const char *want_code, const char *want_field, const char *want_pos)
{
	char pos[32] = "-", path[2048], prefix[2200];
	const char *field = air_error_field(err);

	if (strcmp(air_status_name(rc), want_code))
		case_fail(name, "code %s, want %s", air_status_name(rc), want_code);
	if (rc == AIR_ECONFIG && air_error_kind(err) != AIR_KIND_INVALID_CONFIG)
		case_fail(name, "kind %s, want %s", air_kind_name(air_error_kind(err)), "INVALID_CONFIG");
	if (want_field && strcmp(want_field, field ? field : "-"))
		case_fail(name, "field %s, want %s", field ? field : "(none)", want_field);
	if (air_error_line(err) > 0)
		snprintf(pos, sizeof(pos), "%d:%d", (int)air_error_line(err), (int)air_error_column(err));
	if (want_pos && strcmp(want_pos, pos))
		case_fail(name, "position %s, want %s", pos, want_pos);
	if (air_error_line(err) > 0) {
		/* The documented shape: "<file>:<line>:<col>: <field>: <problem>". */
		snprintf(path, sizeof(path), "%s/input.yaml", dir);
		snprintf(prefix, sizeof(prefix), "%s:%s: %s%s", path, pos, field ? field : "",
		         field ? ": " : "");
		if (strncmp(air_error_message(err), prefix, strlen(prefix)))
			case_fail(name, "message \"%s\" does not start with \"%s\"", message_of(err),
			          prefix);
	}
}

static void run_case(const char *kind, const char *name, const char *dir)
{
	char path[2048], value[4096], *text, *lines[256];
	size_t n = 0;
	air_config *cfg = NULL;
	air_error *err = NULL;
	bool valid = !strcmp(kind, "valid");
	const char *want_field = NULL, *want_pos = NULL, *want_code = "AIR_ECONFIG";
	int rc;

	snprintf(path, sizeof(path), "%s/expected", dir);
	if (!(text = air_test_read_file(path, NULL))) {
		case_fail(name, "cannot read %s", path);
		return;
	}
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < 256;
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;

	snprintf(path, sizeof(path), "%s/input.yaml", dir);
	rc = air_config_parse_file(path, &cfg, &err);
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(lines[i], "override ", 9) && rc == AIR_OK)
			rc = air_config_override(cfg, lines[i] + 9, &err);
		else if (!strncmp(lines[i], "field ", 6))
			want_field = lines[i] + 6;
		else if (!strncmp(lines[i], "position ", 9))
			want_pos = lines[i] + 9;
		else if (!strncmp(lines[i], "code ", 5))
			want_code = lines[i] + 5;
	}
	if (rc == AIR_OK)
		rc = air_config_validate(cfg, &err);

	if (valid && rc != AIR_OK) {
		case_fail(name, "expected valid, got %s: %s", air_status_name(rc), message_of(err));
		goto out;
	}
	if (!valid && rc == AIR_OK) {
		case_fail(name, "expected an error, validation passed");
		goto out;
	}
	if (!valid)
		check_error(name, dir, rc, err, want_code, want_field, want_pos);
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(lines[i], "contains ", 9)) {
			if (valid || !strstr(air_error_message(err), lines[i] + 9))
				case_fail(name, "message \"%s\" lacks \"%s\"",
				          valid ? "" : message_of(err), lines[i] + 9);
		} else if (!strncmp(lines[i], "expect ", 7)) {
			char *spec = lines[i] + 7, *want = strchr(spec, ' ');
			if (!want) {
				case_fail(name, "bad expect line \"%s\"", lines[i]);
				continue;
			}
			*want++ = '\0';
			unescape(want);
			if (!get(cfg, spec, value, sizeof(value)))
				case_fail(name, "unknown getter %s", spec);
			else if (strcmp(value, want))
				case_fail(name, "got \"%s\", want \"%s\"", value, want);
		}
	}
out:
	free(text);
	air_error_free(err);
	air_config_free(cfg);
}

static int run_kind(const char *kind)
{
	char dir[1024], sub[1300];
	struct dirent **names;
	int n, count = 0;

	snprintf(dir, sizeof(dir), "%s/tests/config/cases/%s", air_test_source_root(), kind);
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		FAIL("cannot list %s", dir);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]->d_name);
			run_case(kind, names[i]->d_name, sub);
			count++;
		}
		free(names[i]);
	}
	free(names);
	return count;
}

AIR_TEST(config_cases__valid)
{
	int n;

	failures[0] = '\0';
	nfailed = 0;
	n = run_kind("valid");
	air_test_note("%d valid cases", n);
	ASSERT_TRUE(n >= 20);
	if (nfailed)
		FAIL("%d failed:%s", nfailed, failures);
}

AIR_TEST(config_cases__invalid)
{
	int n;

	failures[0] = '\0';
	nfailed = 0;
	n = run_kind("invalid");
	air_test_note("%d invalid cases", n);
	ASSERT_TRUE(n >= 80);
	if (nfailed)
		FAIL("%d failed:%s", nfailed, failures);
}
