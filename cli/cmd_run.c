/* cmd_run.c: `air run` — field help, config loading with overrides, dry run;
 * the submission itself is in run_submit.c. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char run_usage[] =
	"air run -f FILE [--override PATH=VALUE]... [--check] [--dry-run] [--watch] [--idempotency-key KEY]\n"
	"  air run -h config[.FIELD_PATH]    document the workload YAML fields (also --help PATH)";

static const char run_description[] =
	"Submit a workload described by a YAML file to Databricks AI Runtime.\n";

/* Flags of `air run` (and global ones) whose value is the next argument. */
static bool takes_value(const char *a)
{
	static const char *const names[] = {"-f", "--file", "--override", "--idempotency-key", "-o",
	                                    "--output", "-p", "--profile"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(a, names[i]))
			return true;
	return false;
}

/* The field path of `-h PATH` / `--help PATH`, or of a PATH given as an
 * argument next to -h/--help (`air run config.compute -h`); NULL when the help
 * flag stands alone (the command's help). */
static const char *help_path(int argc, char **argv)
{
	const char *positional = NULL;
	bool help = false;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			if (i + 1 < argc && argv[i + 1][0] != '-')
				return argv[i + 1];
			help = true;
		} else if (a[0] == '-') {
			if (takes_value(a))
				i++;
		} else if (!positional) {
			positional = a;
		}
	}
	return help ? positional : NULL;
}

/* The global flags of a command line that is only read for its field help
 * (`air run -h config.compute -p dev`), not parsed. */
static void help_globals(int argc, char **argv, cli_globals *g)
{
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--local"))
			g->local = true;
		else if ((!strcmp(a, "-p") || !strcmp(a, "--profile")) && i + 1 < argc)
			g->profile = argv[++i];
		else if (!strncmp(a, "--profile=", 10))
			g->profile = a + 10;
		else if (!strncmp(a, "-p", 2) && a[2])
			g->profile = a + (a[2] == '=' ? 3 : 2);
	}
}

int cli_load_config(const char *file, const cli_strlist *overrides, const char *invalid_hint,
                    air_config **out)
{
	air_config *cfg = NULL;
	air_error *err = NULL;
	const char *hint = NULL;
	int rc = air_config_parse_file(file, &cfg, &err);

	for (int i = 0; rc == AIR_OK && i < overrides->count; i++) {
		size_t before = air_config_change_count(cfg);
		const char *item = overrides->items[i];
		size_t n = strlen(item);
		rc = air_config_override(cfg, item, &err);
		/* A workload file given as an override. */
		if (rc != AIR_OK && !strchr(item, '=') &&
		    ((n > 5 && !strcmp(item + n - 5, ".yaml")) || (n > 4 && !strcmp(item + n - 4, ".yml"))))
			hint = "pass it with -f";
		if (rc == AIR_OK && air_config_change_count(cfg) > before) {
			size_t k = air_config_change_count(cfg) - 1;
			const char *old = air_config_change_old(cfg, k);
			if (old)
				fprintf(stderr, "changing %s from %s to %s\n", air_config_change_path(cfg, k),
				        old, air_config_change_new(cfg, k));
			else
				fprintf(stderr, "setting %s to %s\n", air_config_change_path(cfg, k),
				        air_config_change_new(cfg, k));
		}
	}
	if (rc == AIR_OK && (rc = air_config_validate(cfg, &err)) != AIR_OK)
		hint = invalid_hint;
	if (rc != AIR_OK) {
		cli_error_air_hint(err, rc, hint);
		air_error_free(err);
		air_config_free(cfg);
		return 1;
	}
	*out = cfg;
	return 0;
}

int cmd_run(int argc, char **argv, cli_globals *g)
{
	const char *file = NULL, *idem = NULL, *hpath;
	bool watch = false, dry_run = false, check = false;
	cli_strlist overrides = {NULL, 0}, pos = {NULL, 0};
	air_config *cfg = NULL;
	int rc;
	const cli_flag flags[] = {
		{"file", 'f', CLI_STRING, &file, NULL, "FILE", "workload YAML file (required)", false},
		{"watch", 0, CLI_BOOL, &watch, NULL, NULL,
		 "stream the logs of node 0 until the run ends; exit with its outcome", false},
		{"override", 0, CLI_STRING_LIST, &overrides, NULL, "PATH=VALUE",
		 "override a config field (repeatable)", false},
		{"dry-run", 0, CLI_BOOL, &dry_run, NULL, NULL,
		 "validate locally; no authentication, nothing submitted", false},
		{"check", 0, CLI_BOOL, &check, NULL, NULL,
		 "check the workload and its resources first (air check); submit nothing when it fails",
		 false},
		{"idempotency-key", 0, CLI_STRING, &idem, NULL, "KEY",
		 "reuse the run of an earlier submission with this key (at most 64 bytes)", false},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};

	hpath = help_path(argc, argv);
	if (hpath) {
		/* Text whatever -o says; exit 0 even for an unknown path
		 * (docs/cli.md#in-ci-json-output-and-exit-codes). */
		help_globals(argc, argv, g);
		cli_field_help(hpath, false, g);
		return 0;
	}
	if (cli_wants_help(argc, argv)) {
		fputs(run_description, stdout);
		cli_print_usage(stdout, run_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, run_usage)) {
		rc = 1;
		goto out;
	}
	if (pos.count > 0) {
		cli_error("unknown command \"%s\" for \"air run\"", pos.items[0]);
		cli_print_usage(stderr, run_usage, flags);
		rc = 1;
		goto out;
	}
	if (idem && !idem[strspn(idem, " \t\r\n")]) {
		/* An unset shell variable must not lose exactly-once silently. */
		cli_error("--idempotency-key is empty: give a key of 1 to 64 bytes, or leave the "
		          "flag out");
		cli_print_usage(stderr, run_usage, flags);
		rc = 1;
		goto out;
	}
	if (!file) {
		cli_error("required flag(s) \"file\" not set");
		cli_print_usage(stderr, run_usage, flags);
		rc = 1;
		goto out;
	}
	rc = cli_load_config(file, &overrides, NULL, &cfg);
	if (rc != 0)
		goto out;
	{
		/* --dry-run wins over --watch: nothing is submitted or streamed. */
		cli_run_request req = {idem, watch, dry_run, check};
		rc = cli_run_submit(g, cfg, &req);
	}
out:
	air_config_free(cfg);
	cli_strlist_free(&overrides);
	cli_strlist_free(&pos);
	return rc;
}
