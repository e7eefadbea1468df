/* cmd_check.c: `air check` — the pre-submit check of a workload
 * (air_client_check(), docs/cli.md#check-a-workload-before-submitting-air-check), and
 * the check `air run --check` makes before it submits. */
#include <langinfo.h>
#include <locale.h>
#include <string.h>

#include "cli.h"

static const char check_usage[] = "air check -f FILE [--override PATH=VALUE]... [--strict]";

static const char check_description[] =
	"Check a workload before submitting it: the workspace's resources it names (secret scopes\n"
	"and keys, images, folders, the GPU pool and accelerator type, permissions), the\n"
	"workspace's pre-flight validation, and its reproducibility (pinned environment and\n"
	"dependencies, code at a commit). Nothing is uploaded or submitted; no secret value is\n"
	"read. Exit status 1 when a check fails (or warns, with --strict).\n";

/* The mark of a status: UTF-8 symbols, or ASCII when the terminal's
 * character set is not UTF-8. */
static const char *mark(int32_t status)
{
	static int utf8 = -1;

	if (utf8 < 0) {
		const char *cs;
		setlocale(LC_CTYPE, "");
		cs = nl_langinfo(CODESET);
		utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
		setlocale(LC_CTYPE, "C");
	}
	switch (status) {
	case AIR_CHECK_PASS:
		return utf8 ? "\xE2\x9C\x93" : "+"; /* ✓ */
	case AIR_CHECK_WARN:
		return "!";
	case AIR_CHECK_FAIL:
		return utf8 ? "\xE2\x9C\x97" : "x"; /* ✗ */
	default:
		return "-";
	}
}

void cli_print_check(FILE *out, const air_check *c)
{
	const char *field = air_check_field(c);

	fprintf(out, "%s %s: %s\n", mark(air_check_status(c)),
	        cli_clean(field ? field : air_check_name(c)), cli_clean(air_check_message(c)));
	fflush(out);
}

/* Text mode: each check on stdout as it completes. */
static int print_as_made(const air_check *c, void *userdata)
{
	(void)userdata;
	cli_print_check(stdout, c);
	return 0;
}

static json_t *check_json(const air_check *c)
{
	const char *field = air_check_field(c);
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(air_check_name(c)));
	json_object_set_new(o, "status", json_string(air_check_status_name(air_check_status(c))));
	json_object_set_new(o, "field", field ? json_string(field) : json_null());
	json_object_set_new(o, "message", json_string(air_check_message(c)));
	if (air_check_bytes(c) >= 0)
		json_object_set_new(o, "bytes", json_integer(air_check_bytes(c)));
	if (air_check_files(c) >= 0)
		json_object_set_new(o, "files", json_integer(air_check_files(c)));
	return o;
}

/* "3 passed, 1 warning, 1 failed, 2 skipped" on stderr. */
static void print_summary(const air_check_report *r)
{
	size_t n[5] = {0};

	for (size_t i = 0; i < air_check_report_count(r); i++) {
		int32_t s = air_check_status(air_check_report_get(r, i));
		n[s >= AIR_CHECK_PASS && s <= AIR_CHECK_SKIPPED ? s : 0]++;
	}
	fprintf(stderr, "%zu passed, %zu warning%s, %zu failed, %zu skipped\n", n[AIR_CHECK_PASS],
	        n[AIR_CHECK_WARN], n[AIR_CHECK_WARN] == 1 ? "" : "s", n[AIR_CHECK_FAIL],
	        n[AIR_CHECK_SKIPPED]);
}

int cli_check(const cli_globals *g, air_client *client, const air_config *cfg,
              const cli_check_request *req, air_check_report **out)
{
	air_check_options *o = NULL;
	air_error *err = NULL;
	int rc = air_check_options_new(&o);

	*out = NULL;
	if (rc == AIR_OK)
		rc = air_check_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK && req->idempotency_key)
		rc = air_check_options_set_str(o, AIR_CHECKS_IDEMPOTENCY_KEY, req->idempotency_key);
	if (rc == AIR_OK && req->strict)
		rc = air_check_options_set_int(o, AIR_CHECKS_STRICT, 1);
	if (rc == AIR_OK && req->offline)
		rc = air_check_options_set_int(o, AIR_CHECKS_RESOURCES, 0);
	if (rc == AIR_OK && req->stream && !g->json)
		rc = air_check_options_set_check_cb(o, print_as_made, NULL);
	if (rc == AIR_OK)
		rc = air_client_check(client, cfg, o, out, &err);
	air_check_options_free(o);
	if (rc != AIR_OK) {
		cli_error_air(err, rc);
		air_error_free(err);
		return 1;
	}
	return 0;
}

int cmd_check(int argc, char **argv, cli_globals *g)
{
	const char *file = NULL;
	bool strict = false;
	cli_strlist overrides = {NULL, 0}, pos = {NULL, 0};
	air_config *cfg = NULL;
	air_client *client = NULL;
	air_check_report *report = NULL;
	air_error *err = NULL;
	int rc = 1;
	const cli_flag flags[] = {
		{"file", 'f', CLI_STRING, &file, NULL, "FILE", "workload YAML file (required)", false},
		{"override", 0, CLI_STRING_LIST, &overrides, NULL, "PATH=VALUE",
		 "override a config field (repeatable)", false},
		{"strict", 0, CLI_BOOL, &strict, NULL, NULL, "a warning fails the check too", false},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};

	if (cli_wants_help(argc, argv)) {
		fputs(check_description, stdout);
		cli_print_usage(stdout, check_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, check_usage))
		goto out;
	if (pos.count > 0) {
		cli_error("unknown command \"%s\" for \"air check\"", pos.items[0]);
		cli_print_usage(stderr, check_usage, flags);
		goto out;
	}
	if (!file) {
		cli_error("required flag(s) \"file\" not set");
		cli_print_usage(stderr, check_usage, flags);
		goto out;
	}
	if (cli_load_config(file, &overrides, NULL, &cfg) != 0)
		goto out;
	if ((rc = cli_client_new(g, &client, &err)) != AIR_OK) {
		cli_error_air(err, rc);
		air_error_free(err);
		rc = 1;
		goto out;
	}
	rc = 1;
	{
		cli_check_request req = {NULL, strict, false, true};
		if (cli_check(g, client, cfg, &req, &report) != 0)
			goto out;
	}
	if (g->json) {
		json_t *data = json_object(), *checks = json_array();
		for (size_t i = 0; i < air_check_report_count(report); i++)
			json_array_append_new(checks, check_json(air_check_report_get(report, i)));
		json_object_set_new(data, "ok", json_boolean(air_check_report_ok(report)));
		json_object_set_new(data, "checks", checks);
		cli_print_data(data);
	} else {
		print_summary(report);
	}
	rc = air_check_report_ok(report) ? 0 : 1;
out:
	air_check_report_free(report);
	cli_client_free(client);
	air_config_free(cfg);
	cli_strlist_free(&overrides);
	cli_strlist_free(&pos);
	return rc;
}
