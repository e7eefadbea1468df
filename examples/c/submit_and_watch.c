/*
 * submit_and_watch.c: the smallest complete libair program.
 *
 *     submit_and_watch WORKLOAD.yaml [--override PATH=VALUE]...
 *
 * Loads and validates the workload, submits it to the workspace configured
 * the usual way (DATABRICKS_HOST/DATABRICKS_TOKEN, ~/.databrickscfg, ...),
 * then streams the logs of node 0 until the run ends. Exit status 0 when the
 * run succeeded.
 */
#include <stdio.h>
#include <string.h>

#include <air/air.h>

static int print_line(const air_log_record *rec, void *userdata)
{
	size_t len;
	const char *line = air_log_record_line(rec, &len);

	(void)userdata;
	printf("%.*s\n", (int)len, line);
	return 0; /* non-zero would stop the stream */
}

static int print_status(const char *current, const char *previous, void *userdata)
{
	(void)userdata;
	fprintf(stderr, "status: %s%s%s\n", previous ? previous : "", previous ? " -> " : "",
	        current);
	return 0;
}

static int fail(const char *what, int rc, air_error *err)
{
	fprintf(stderr, "%s: %s\n", what, err ? air_error_message(err) : air_strerror(rc));
	air_error_free(err);
	return 1;
}

int main(int argc, char **argv)
{
	air_config *cfg = NULL;
	air_client *client = NULL;
	air_submission *sub = NULL;
	air_logs_summary *summary = NULL;
	air_error *err = NULL;
	int rc, status = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: %s WORKLOAD.yaml [--override PATH=VALUE]...\n", argv[0]);
		return 2;
	}
	/* 1. Parse, apply overrides, validate: everything is checked offline. */
	rc = air_config_parse_file(argv[1], &cfg, &err);
	for (int i = 2; rc == AIR_OK && i + 1 < argc; i += 2)
		if (!strcmp(argv[i], "--override"))
			rc = air_config_override(cfg, argv[i + 1], &err);
	if (rc == AIR_OK)
		rc = air_config_validate(cfg, &err);
	if (rc != AIR_OK) {
		fail(argv[1], rc, err);
		goto out;
	}

	/* 2. A client resolves host and credentials like the Databricks CLI. */
	rc = air_client_new(&client, &err);
	if (rc == AIR_OK)
		rc = air_client_submit(client, cfg, NULL, &sub, &err);
	if (rc != AIR_OK) {
		fail("submit", rc, err);
		goto out;
	}
	printf("run %lld: %s\n", (long long)air_submission_run_id(sub),
	       air_submission_dashboard_url(sub));

	/* 3. Follow the logs until the run is terminal. */
	rc = air_client_stream_logs(client, air_submission_run_id(sub), NULL, print_line,
	                            print_status, NULL, NULL, &summary, &err);
	if (rc != AIR_OK) {
		fail("logs", rc, err);
		goto out;
	}
	if (air_logs_summary_no_logs_message(summary))
		printf("%s\n", air_logs_summary_no_logs_message(summary));
	status = air_logs_summary_succeeded(summary) ? 0 : 1;
out:
	air_logs_summary_free(summary);
	air_submission_free(sub);
	air_client_free(client);
	air_config_free(cfg);
	return status;
}
