/* cmd_convert_to_dabs.c: `air convert-to-dabs YAML_PATH`
 * (docs/cli.md#run-a-workload-as-a-job-air-convert-to-dabs-yaml_path): write a
 * Declarative Automation Bundle that runs the workload as a persistent job,
 * without contacting the workspace. Failures are plain "Error:" lines, also
 * under -o json. */
#include <string.h>

#include "cli.h"

static const char convert_usage[] = "air convert-to-dabs YAML_PATH [--output-dir DIR] [--force]";

static const char convert_description[] =
	"Convert a workload YAML into a Declarative Automation Bundle (databricks.yml and\n"
	"generated_artifacts/) that runs the same workload as a persistent job. Nothing is sent to\n"
	"the workspace; deploy the bundle with the databricks CLI.\n";

static int fail(const air_error *err, int rc)
{
	if (rc == AIR_ECONFLICT && err && !cli_interrupted())
		return cli_error("%s; pass --force to overwrite it", air_error_message(err));
	return cli_error_air(err, rc);
}

static void print_text(const air_bundle *b)
{
	const char *key = air_bundle_job_key(b);

	printf("Wrote a bundle for job %s to %s:\n", key, air_bundle_dir(b));
	for (size_t i = 0; i < air_bundle_file_count(b); i++)
		printf("  %s\n", air_bundle_file(b, i));
	for (size_t i = 0; i < air_bundle_removed_count(b); i++)
		printf("  %s (removed: no longer part of the workload)\n", air_bundle_removed(b, i));
	/* The official tool's closing block, word for word, then how to remove
	 * the persistent job again. */
	printf("\nTo deploy and run this workload as a bundle:\n");
	printf("  1. databricks bundle validate\n");
	printf("  2. databricks bundle deploy\n");
	printf("  3. databricks bundle run %s\n", key);
	printf("Run them in %s; `databricks bundle destroy` removes the job again.\n",
	       air_bundle_dir(b));
	fflush(stdout);
}

static int print_json(const air_bundle *b)
{
	json_t *d = json_object(), *files = json_array(), *removed = json_array();

	for (size_t i = 0; i < air_bundle_file_count(b); i++)
		json_array_append_new(files, json_string(air_bundle_file(b, i)));
	for (size_t i = 0; i < air_bundle_removed_count(b); i++)
		json_array_append_new(removed, json_string(air_bundle_removed(b, i)));
	json_object_set_new(d, "bundle_dir", json_string(air_bundle_dir(b)));
	json_object_set_new(d, "job_key", json_string(air_bundle_job_key(b)));
	json_object_set_new(d, "files", files);
	json_object_set_new(d, "removed", removed);
	return cli_print_data(d);
}

static int convert(const cli_globals *g, const char *path, const char *output_dir, bool force)
{
	air_bundle_options *o = NULL;
	air_config *cfg = NULL;
	air_bundle *b = NULL;
	air_error *err = NULL;
	int rc = air_config_load_file(path, &cfg, &err);

	if (rc == AIR_OK)
		rc = air_bundle_options_new(&o);
	if (rc == AIR_OK)
		rc = air_bundle_options_set_int(o, AIR_BUNDLE_FORCE, force);
	if (rc == AIR_OK)
		rc = air_bundle_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK)
		rc = air_config_write_bundle(cfg, output_dir, o, &b, &err);
	if (rc == AIR_OK)
		rc = g->json ? print_json(b) : (print_text(b), 0);
	else
		rc = fail(err, rc);
	air_bundle_free(b);
	air_bundle_options_free(o);
	air_config_free(cfg);
	air_error_free(err);
	return rc;
}

int cmd_convert_to_dabs(int argc, char **argv, cli_globals *g)
{
	const char *output_dir = NULL;
	bool force = false;
	cli_strlist pos = {NULL, 0};
	const cli_flag flags[] = {
		{"output-dir", 0, CLI_STRING, &output_dir, NULL, "DIR",
		 "where to write the bundle (default: the YAML file's directory; must contain the code "
		 "source)", false},
		{"force", 0, CLI_BOOL, &force, NULL, NULL,
		 "overwrite an existing databricks.yml and generated artifacts", false},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};
	int rc;

	if (cli_wants_help(argc, argv)) {
		fputs(convert_description, stdout);
		cli_print_usage(stdout, convert_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, convert_usage)) {
		cli_strlist_free(&pos);
		return 1;
	}
	if (pos.count != 1) {
		rc = cli_error("accepts 1 arg(s), received %d", pos.count);
		cli_print_usage(stderr, convert_usage, flags);
	} else if (output_dir && !*output_dir) {
		rc = cli_error("--output-dir is empty");
	} else {
		rc = convert(g, pos.items[0], output_dir, force);
	}
	cli_strlist_free(&pos);
	return rc;
}
