/* watch.c: `air run --watch` after the submission (docs/submit.md#after-submitting). */
#include <inttypes.h>
#include <string.h>

#include "runs_cli.h"

static void print_submitted(int64_t run_id, const char *dashboard_url)
{
	json_t *e = cli_run_event("SUBMITTED", run_id);

	json_object_set_new(e, "dashboard_url", json_string(dashboard_url ? dashboard_url : ""));
	cli_print_jsonl(e);
}

/* The last line: a fresh read of the run's state ("UNKNOWN" when it fails). */
static void print_terminal(air_client *client, int64_t run_id, const char *dashboard_url)
{
	json_t *env = json_object(), *data = json_object();
	air_get_options *o = NULL;
	air_run *run = NULL;
	char ts[32], id[24];

	cli_now_rfc3339(ts);
	snprintf(id, sizeof(id), "%" PRId64, run_id);
	if (air_get_options_new(&o) != AIR_OK ||
	    air_get_options_set_interrupt(o, cli_interrupt()) != AIR_OK ||
	    air_client_get_run(client, run_id, o, &run, NULL) != AIR_OK)
		run = NULL;
	air_get_options_free(o);
	json_object_set_new(data, "status", json_string(run ? air_run_state_name(run) : "UNKNOWN"));
	json_object_set_new(data, "run_id", json_string(id));
	json_object_set_new(data, "dashboard_url", json_string(dashboard_url ? dashboard_url : ""));
	json_object_set_new(env, "v", json_integer(1));
	json_object_set_new(env, "ts", json_string(ts));
	json_object_set_new(env, "data", data);
	cli_print_jsonl(env);
	air_run_free(run);
}

int cli_watch(const cli_globals *g, air_client *client, int64_t run_id, const char *dashboard_url)
{
	air_logs_options *o = NULL;
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	int64_t poll = cli_logs_poll_ms();
	int rc, exit_code;

	if (g->json) {
		print_submitted(run_id, dashboard_url);
	} else {
		printf("\nMonitoring run %" PRId64 " until it finishes (Ctrl-C stops watching; the run "
		       "keeps going).\n",
		       run_id);
		cli_print_rule(" Logs ");
		fflush(stdout);
	}
	/* Node 0, latest attempt, no tail or window: follow until terminal. */
	rc = air_logs_options_new(&o);
	if (rc == AIR_OK)
		rc = air_logs_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK && poll >= 0)
		rc = air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, poll);
	if (rc == AIR_OK)
		rc = cli_logs_stream(g, client, run_id, o, 0, true, &sum, NULL, &err);
	if (rc == AIR_OK && air_logs_summary_no_logs_message(sum))
		cli_logs_print_no_logs(g, 0, air_logs_summary_no_logs_message(sum));
	/* Ctrl-C is reported by the stream, a failed output by cli_finish_stdout() */
	if (rc != AIR_OK && rc != AIR_EINTERRUPTED && !(rc == AIR_EABORTED && cli_stdout_failed()))
		cli_runs_fail(g, CLI_STAGE_CALL, rc, err);
	exit_code = rc == AIR_OK && air_logs_summary_succeeded(sum) ? 0 : 1;
	/* A run that ended without succeeding: why (a FAILURE event, or the
	 * block on stderr). */
	if (rc == AIR_OK && air_logs_summary_terminal(sum) && !air_logs_summary_succeeded(sum)) {
		if (g->json)
			cli_failure_print_event(client, run_id);
		else
			cli_failure_print_block(client, run_id);
	}
	/* Ctrl-C stops watching at once: no terminal line (it needs a request). */
	if (g->json && !cli_interrupted())
		print_terminal(client, run_id, dashboard_url);
	air_error_free(err);
	air_logs_summary_free(sum);
	air_logs_options_free(o);
	return exit_code;
}
