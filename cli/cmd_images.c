/* cmd_images.c: `air images push` — push a local container image to the
 * workspace's artifact registry for environment.unity_catalog_image
 * (docs/submit.md#air-images-push). Every failure is a plain `Error:` line. */
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char images_usage[] = "air images push -s IMAGE --catalog NAME --schema NAME "
                                   "[--artifact NAME[:TAG]] [--pull] -p PROFILE";

static const char images_description[] =
	"Push a local container image to the workspace's Databricks Artifact Registry, for use as\n"
	"environment.unity_catalog_image. Needs a profile with an OAuth login (databricks auth login).\n";

/* On an interactive terminal a missing value is asked for; else NULL. */
static const char *prompt(const char *label, char *buf, size_t n)
{
	size_t len;

	if (!isatty(STDIN_FILENO) || !cli_isatty_stderr())
		return NULL;
	fprintf(stderr, "%s: ", label);
	fflush(stderr);
	if (!cli_wait_stdin() || !fgets(buf, (int)n, stdin))
		return NULL;
	len = strcspn(buf, "\r\n");
	buf[len] = '\0';
	return len ? buf : NULL;
}

/* The options of the push; the profile is the client's (--profile). */
static int push_options(const char *source, const char *catalog, const char *schema,
                        const char *artifact, bool pull, air_image_push_options **out)
{
	air_image_push_options *o = NULL;
	int rc = air_image_push_options_new(&o);

	if (rc == AIR_OK)
		rc = air_image_push_options_set_str(o, AIR_IMAGE_SOURCE, source);
	if (rc == AIR_OK)
		rc = air_image_push_options_set_str(o, AIR_IMAGE_CATALOG, catalog);
	if (rc == AIR_OK)
		rc = air_image_push_options_set_str(o, AIR_IMAGE_SCHEMA, schema);
	if (rc == AIR_OK)
		rc = air_image_push_options_set_str(o, AIR_IMAGE_ARTIFACT, artifact);
	if (rc == AIR_OK)
		rc = air_image_push_options_set_int(o, AIR_IMAGE_PULL, pull);
	if (rc == AIR_OK)
		rc = air_image_push_options_set_interrupt(o, cli_interrupt());
	if (rc != AIR_OK) {
		air_image_push_options_free(o);
		return rc;
	}
	*out = o;
	return AIR_OK;
}

static int push(const cli_globals *g, const char *source, const char *catalog, const char *schema,
                const char *artifact, bool pull)
{
	air_image_push_options *o = NULL;
	air_client *client = NULL;
	char *uc = NULL, *remote = NULL;
	air_error *err = NULL;
	int rc = push_options(source, catalog, schema, artifact, pull, &o);

	if (rc == AIR_OK)
		rc = cli_client_new(g, &client, &err);
	if (rc == AIR_OK)
		rc = air_client_push_image(client, o, &uc, &remote, &err);
	air_image_push_options_free(o);
	cli_client_free(client);
	if (rc != AIR_OK) {
		/* The source's platform is wrong: the library names its pull option. */
		bool platform = !pull && rc == AIR_EINVAL && air_error_field(err) &&
		                !strcmp(air_error_field(err), "source");
		cli_error_air_hint(err, rc, platform ? "pass --pull to fetch the linux/amd64 variant"
		                                     : NULL);
		air_error_free(err);
		return 1;
	}
	if (g->json) {
		json_t *data = json_object();
		json_object_set_new(data, "unity_catalog_image", json_string(uc));
		json_object_set_new(data, "registry_image", json_string(remote));
		rc = cli_print_data(data);
	} else {
		printf("Pushed %s. Set environment.unity_catalog_image = %s in your workload YAML.\n", remote,
		       uc);
		rc = 0;
	}
	air_free(uc);
	air_free(remote);
	return rc;
}

/* A required value neither given nor typed at the prompt (Ctrl-C there is an
 * interruption). */
static void missing(const char *flag)
{
	if (cli_interrupted()) {
		fputc('\n', stderr);
		cli_report_interrupted();
	} else {
		cli_error("required flag \"%s\" not set", flag);
	}
}

int cmd_images(int argc, char **argv, cli_globals *g)
{
	const char *source = NULL, *catalog = NULL, *schema = NULL, *artifact = NULL;
	char sbuf[512], cbuf[256], kbuf[256];
	bool pull = false;
	cli_strlist pos = {NULL, 0};
	int rc = 1;
	const cli_flag flags[] = {
		{"source", 's', CLI_STRING, &source, NULL, "IMAGE", "local image NAME[:TAG] or NAME@DIGEST", false},
		{"catalog", 0, CLI_STRING, &catalog, NULL, "NAME", "destination Unity Catalog catalog", false},
		{"schema", 0, CLI_STRING, &schema, NULL, "NAME", "destination schema", false},
		{"artifact", 0, CLI_STRING, &artifact, NULL, "NAME[:TAG]",
		 "destination artifact (default: the source's name and tag)", false},
		{"pull", 0, CLI_BOOL, &pull, NULL, NULL,
		 "pull the linux/amd64 image even when it exists locally", false},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};

	if (cli_wants_help(argc, argv)) {
		fputs(images_description, stdout);
		cli_print_usage(stdout, images_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, images_usage))
		goto out;
	if (pos.count != 1 || strcmp(pos.items[0], "push") != 0) {
		if (pos.count == 0)
			cli_error("a subcommand is required: \"air images push\"");
		else
			cli_error("unknown command \"%s\" for \"air images\"", pos.items[0]);
		cli_print_usage(stderr, images_usage, flags);
		goto out;
	}
	fprintf(stderr, "Warning: \"air images push\" is in Preview.\n");
	if (!source && !(source = prompt("Source image", sbuf, sizeof(sbuf)))) {
		missing("--source");
		goto out;
	}
	if (!catalog && !(catalog = prompt("Catalog", cbuf, sizeof(cbuf)))) {
		missing("--catalog");
		goto out;
	}
	if (!schema && !(schema = prompt("Schema", kbuf, sizeof(kbuf)))) {
		missing("--schema");
		goto out;
	}
	rc = push(g, source, catalog, schema, artifact, pull);
out:
	cli_strlist_free(&pos);
	return rc;
}
