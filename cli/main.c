/* main.c: the `air` command: dispatch to subcommands, --version, help. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef int (*cmd_fn)(int argc, char **argv, cli_globals *g);

static const struct command {
	const char *name;
	cmd_fn fn;
	const char *summary;
} commands[] = {
	{"run", cmd_run, "Submit a workload described by a YAML file"},
	{"check", cmd_check, "Check a workload and the workspace resources it needs, submitting nothing"},
	{"sweep", cmd_sweep, "Submit many variants of a workload, each exactly once"},
	{"rerun", cmd_rerun, "Submit the exact workload of a past run again"},
	{"get", cmd_get, "Show one run (or `get pool POOL_ID`)"},
	{"list", cmd_list, "List runs (or `list pools`)"},
	{"logs", cmd_logs, "Print or follow the logs of a run"},
	{"metrics", cmd_metrics, "Show how a run is learning: its MLflow metrics as charts"},
	{"cancel", cmd_cancel, "Cancel runs"},
	{"images", cmd_images, "Push container images for environment.unity_catalog_image"},
	{"register-image", cmd_register_image,
	 "Register a legacy environment.docker_image with the workspace"},
	{"convert-to-dabs", cmd_convert_to_dabs,
	 "Write a Declarative Automation Bundle that runs a workload as a job"},
	{NULL, NULL, NULL},
};

static void print_help(FILE *out)
{
	fprintf(out,
	        "air - submit and manage Databricks AI Runtime workloads (libair %s)\n\n"
	        "Usage:\n  air [command]\n\nAvailable Commands:\n",
	        air_version_string());
	for (const struct command *c = commands; c->name; c++)
		fprintf(out, "  %-16s %s\n", c->name, c->summary);
	fprintf(out, "  %-16s %s\n", "help", "Help about any command");
	fprintf(out,
	        "\nFlags:\n"
	        "  -o, --output text|json   output format (default: $DATABRICKS_OUTPUT_FORMAT or text)\n"
	        "  -p, --profile NAME       ~/.databrickscfg profile\n"
	        "      --debug              trace requests on stderr (credentials redacted)\n"
	        "      --local              use the local workspace on this machine (host local://)\n"
	        "  -h, --help               help for air\n"
	        "      --version            print the version\n"
	        "\nUse \"air [command] --help\" for more information about a command.\n");
}

static bool takes_value(const char *a)
{
	return !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "-p") ||
	       !strcmp(a, "--profile");
}

static const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	cli_globals g = {false, NULL, false, false};
	const char *fmt = getenv("DATABRICKS_OUTPUT_FORMAT");
	int cmd_index = -1;
	char **rest;
	int nrest = 0, rc;

	if (fmt && !strcmp(fmt, "json"))
		g.json = true;
	cli_buffer_stdout();

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (argv[i][0] != '-') {
			cmd_index = i;
			break;
		}
		if (takes_value(argv[i]))
			i++;
	}
	if (cmd_index < 0) {
		for (int i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-v")) {
				printf("air version %s (libair %s)\n", AIR_VERSION_STRING,
				       air_version_string());
				return 0;
			}
		}
		print_help(argc > 1 ? stdout : stderr);
		return argc > 1 && cli_wants_help(argc - 1, argv + 1) ? 0 : 1;
	}
	if (!strcmp(argv[cmd_index], "help") || !strcmp(argv[cmd_index], "version")) {
		if (argv[cmd_index][0] == 'v') {
			printf("air version %s (libair %s)\n", AIR_VERSION_STRING, air_version_string());
			return 0;
		}
		if (cmd_index + 1 < argc && find_command(argv[cmd_index + 1])) {
			char *help_argv[] = {(char *)"--help", NULL};
			return find_command(argv[cmd_index + 1])->fn(1, help_argv, &g);
		}
		print_help(stdout);
		return 0;
	}
	{
		const struct command *c = find_command(argv[cmd_index]);
		if (!c) {
			cli_error("unknown command \"%s\" for \"air\"", argv[cmd_index]);
			fprintf(stderr, "Run 'air --help' for usage.\n");
			return 1;
		}
		rest = calloc((size_t)argc + 1, sizeof(*rest));
		if (!rest)
			return 1;
		for (int i = 1; i < argc; i++)
			if (i != cmd_index)
				rest[nrest++] = argv[i];
		/* From here on Ctrl-C stops the command's blocking calls (interrupt.c). */
		if (cli_interrupt_install()) {
			rc = c->fn(nrest, rest, &g);
			cli_interrupt_uninstall();
		} else {
			rc = 1;
		}
		free(rest);
	}
	cli_clean_release();
	return cli_finish_stdout(rc);
}
