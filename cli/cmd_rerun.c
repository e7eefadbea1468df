/* cmd_rerun.c: `air rerun RUN_ID` (docs/cli.md#reruns, docs/submit.md#reruns):
 * the exact workload of a past run submitted again, optionally with
 * overrides; the output of `air run`. */
#include <inttypes.h>
#include <string.h>

#include "cli.h"

static const char rerun_usage[] =
	"air rerun RUN_ID [--override PATH=VALUE]... [--idempotency-key KEY] [--watch]";

static const char rerun_description[] =
	"Submit the exact workload of a past run again: its config, code snapshot and\n"
	"launch files, optionally with overrides. The same rerun submitted twice starts\n"
	"one run; --idempotency-key KEY starts another. What a run that `air run\n"
	"--override` submitted had beyond its config file (its launch files, and the\n"
	"compute, pool, priority, image, retries and timeout the workspace reports) is\n"
	"kept and named in a warning; this rerun's overrides apply on top, and a kept\n"
	"setting that cannot go with them is left out and named in another warning.\n";

static int rerun_options(const cli_strlist *overrides, const char *key, air_rerun_options **out)
{
	int rc = air_rerun_options_new(out);

	if (rc == AIR_OK)
		rc = air_rerun_options_set_interrupt(*out, cli_interrupt());
	for (int i = 0; rc == AIR_OK && i < overrides->count; i++)
		if ((rc = air_rerun_options_add_override(*out, overrides->items[i])) == AIR_EINVAL)
			return cli_error("invalid --override \"%s\": expected PATH=VALUE",
			                 overrides->items[i]);
	if (rc == AIR_OK && key && air_rerun_options_set_str(*out, AIR_RERUN_IDEMPOTENCY_KEY, key))
		return cli_error("--idempotency-key: give a key of 1 to 64 bytes");
	return rc == AIR_OK ? 0 : cli_error("out of memory");
}

static int rerun(const cli_globals *g, int64_t run_id, const air_rerun_options *o, bool watch)
{
	air_client *client = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;
	int rc = cli_client_new(g, &client, &err);

	if (rc == AIR_OK) {
		if (!g->json)
			fprintf(stderr, "Rerunning run %" PRId64 "...\n", run_id);
		rc = air_client_rerun(client, run_id, o, &sub, &err);
	}
	if (rc == AIR_OK)
		cli_print_warnings(sub);
	if (rc != AIR_OK) {
		cli_error_air(err, rc);
		rc = 1;
	} else if (watch) {
		if (!g->json)
			printf("Job Run ID: %" PRId64 "\nDashboard: %s\n", air_submission_run_id(sub),
			       air_submission_dashboard_url(sub));
		fflush(stdout);
		rc = cli_watch(g, client, air_submission_run_id(sub), air_submission_dashboard_url(sub));
	} else if (g->json) {
		char id[24], of[24];
		json_t *data = json_object();
		snprintf(id, sizeof(id), "%" PRId64, air_submission_run_id(sub));
		snprintf(of, sizeof(of), "%" PRId64, run_id);
		json_object_set_new(data, "status", json_string("PENDING"));
		json_object_set_new(data, "run_id", json_string(id));
		json_object_set_new(data, "rerun_of", json_string(of));
		json_object_set_new(data, "dashboard_url", json_string(air_submission_dashboard_url(sub)));
		json_object_set_new(data, "idempotency_key",
		                    json_string(air_submission_idempotency_token(sub)));
		rc = cli_print_data(data);
	} else {
		printf("Job Run ID: %" PRId64 "\nDashboard: %s\n", air_submission_run_id(sub),
		       air_submission_dashboard_url(sub));
		fflush(stdout);
		cli_print_mlflow_links(client, air_submission_run_id(sub));
		fprintf(stderr, "Tip: add --watch to follow the logs until the run ends (or run: air "
		        "logs%s %" PRId64 ").\n", cli_target_flags(), air_submission_run_id(sub));
		rc = 0;
	}
	air_error_free(err);
	air_submission_free(sub);
	cli_client_free(client);
	return rc;
}

int cmd_rerun(int argc, char **argv, cli_globals *g)
{
	const char *key = NULL;
	bool watch = false;
	cli_strlist overrides = {NULL, 0}, pos = {NULL, 0};
	air_rerun_options *o = NULL;
	int64_t run_id = 0;
	int rc;
	const cli_flag flags[] = {
		{"override", 0, CLI_STRING_LIST, &overrides, NULL, "PATH=VALUE",
		 "override a field of the past run's config (repeatable)", false},
		{"idempotency-key", 0, CLI_STRING, &key, NULL, "KEY",
		 "the new run's key (default: derived from RUN_ID and the overrides)", false},
		{"watch", 0, CLI_BOOL, &watch, NULL, NULL,
		 "stream the logs of node 0 until the run ends; exit with its outcome", false},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};

	if (cli_wants_help(argc, argv)) {
		fputs(rerun_description, stdout);
		cli_print_usage(stdout, rerun_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, rerun_usage)) {
		rc = 1;
	} else if (pos.count != 1) {
		rc = cli_error(pos.count ? "give one run ID" : "give the ID of the run to rerun");
		cli_print_usage(stderr, rerun_usage, flags);
	} else if (!cli_parse_run_id(pos.items[0], &run_id)) {
		rc = cli_error("invalid run ID \"%.100s\": must be a positive integer", pos.items[0]);
	} else if (key && !key[strspn(key, " \t\r\n")]) {
		rc = cli_error("--idempotency-key is empty: give a key of 1 to 64 bytes, or leave the "
		               "flag out");
	} else if ((rc = rerun_options(&overrides, key, &o)) == 0) {
		rc = rerun(g, run_id, o, watch);
	}
	air_rerun_options_free(o);
	cli_strlist_free(&overrides);
	cli_strlist_free(&pos);
	return rc;
}
