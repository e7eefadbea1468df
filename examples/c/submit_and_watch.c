/*
 * submit_and_watch.c: the smallest complete libair program.
 *
 *     submit_and_watch WORKLOAD.yaml [--override PATH=VALUE]...
 *
 * Loads and validates the workload, submits it to the workspace configured
 * the usual way (DATABRICKS_HOST/DATABRICKS_TOKEN, ~/.databrickscfg, ...),
 * then reads the logs of node 0 record by record until the run ends. Ctrl-C
 * stops whatever is running (a submitted run goes on: the program says how
 * to stop it). Exit status 0 when the run succeeded.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <air/air.h>

/* Raised by Ctrl-C: air_interrupt_trigger() is async-signal-safe. */
static air_interrupt *stop;

static void on_sigint(int sig)
{
	(void)sig;
	air_interrupt_trigger(stop);
}

static int print_status(const char *current, const char *previous, void *userdata)
{
	(void)userdata;
	fprintf(stderr, "status: %s%s%s\n", previous ? previous : "", previous ? " -> " : "",
	        current);
	return 0; /* non-zero would stop the call */
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
	air_submit_options *sopts = NULL;
	air_submission *sub = NULL;
	air_logs_options *lopts = NULL;
	air_log_iter *logs = NULL;
	const air_log_record *rec;
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

	/* 2. One interrupt for every blocking call, raised by Ctrl-C. */
	if ((rc = air_interrupt_new(&stop)) != AIR_OK) {
		fail("interrupt", rc, NULL);
		goto out;
	}
	signal(SIGINT, on_sigint);

	/* 3. A client resolves host and credentials like the Databricks CLI. */
	rc = air_client_new(NULL, &client, &err);
	if (rc == AIR_OK)
		rc = air_submit_options_new(&sopts);
	if (rc == AIR_OK)
		rc = air_submit_options_set_interrupt(sopts, stop);
	if (rc == AIR_OK)
		rc = air_client_submit(client, cfg, sopts, &sub, &err);
	if (rc != AIR_OK) {
		fail("submit", rc, err);
		goto out;
	}
	printf("run %lld: %s\n", (long long)air_submission_run_id(sub),
	       air_submission_dashboard_url(sub));

	/* 4. Pull the logs until the run is terminal (AIR_EDONE). */
	rc = air_logs_options_new(&lopts);
	if (rc == AIR_OK)
		rc = air_logs_options_set_interrupt(lopts, stop);
	if (rc == AIR_OK)
		rc = air_logs_options_set_status_cb(lopts, print_status, NULL);
	if (rc == AIR_OK)
		rc = air_client_open_logs(client, air_submission_run_id(sub), lopts, &logs, &err);
	while (rc == AIR_OK && (rc = air_log_iter_next(logs, &rec, &err)) == AIR_OK) {
		size_t len;
		const char *line = air_log_record_line(rec, &len);
		printf("%.*s\n", (int)len, line);
	}
	if (rc != AIR_EDONE) {
		fail("logs", rc, err);
		if (rc == AIR_EINTERRUPTED) /* Ctrl-C stopped the reading, not the run */
			fprintf(stderr, "run %lld keeps going; `air cancel %lld` stops it\n",
			        (long long)air_submission_run_id(sub), (long long)air_submission_run_id(sub));
		goto out;
	}
	if (air_logs_summary_no_logs_message(air_log_iter_summary(logs)))
		printf("%s\n", air_logs_summary_no_logs_message(air_log_iter_summary(logs)));
	status = air_logs_summary_succeeded(air_log_iter_summary(logs)) ? 0 : 1;
out:
	air_log_iter_free(logs);
	air_logs_options_free(lopts);
	air_submission_free(sub);
	air_submit_options_free(sopts);
	air_client_free(client);
	air_config_free(cfg);
	signal(SIGINT, SIG_DFL);
	air_interrupt_free(stop);
	return status;
}
