/*
 * runs_cli.h: what the run commands (get, list, cancel, logs, pools, watch)
 * share: error classification (docs/runs-and-logs.md#command-line), opening a
 * client with the identity probe, and the log stream printer.
 */
#ifndef AIR_RUNS_CLI_H
#define AIR_RUNS_CLI_H

#include "cli.h"

/* Where a failure happened; it decides the reported code. */
typedef enum cli_stage {
	CLI_STAGE_SETUP,  /* client configuration and credentials */
	CLI_STAGE_PROBE,  /* the identity probe (SCIM Me) */
	CLI_STAGE_CALL,   /* the command's own calls */
	CLI_STAGE_CANCEL  /* cancel: nothing is classified as an auth failure */
} cli_stage;

/* Report a failure as an error envelope (JSON) or "Error: ..." (text);
 * after Ctrl-C only "Error: interrupted" on stderr. Returns 1. @err may be NULL. */
int cli_runs_fail(const cli_globals *g, cli_stage stage, int rc, const air_error *err);
/* Report an INVALID_ARGS failure with a printf message; returns 1. */
int cli_runs_invalid(const cli_globals *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Flags of cli_runs_open(). */
#define CLI_OPEN_CANCEL   1u /* cancel: failures are INTERNAL_ERROR, never auth errors */
#define CLI_OPEN_NO_PROBE 2u /* resolve only, no identity probe */

/* A resolved client that (unless CLI_OPEN_NO_PROBE) passed the identity probe;
 * the user name in *user when wanted (air_free()). Returns 0, or 1 after
 * reporting the failure. */
int cli_runs_open(const cli_globals *g, unsigned flags, air_client **out, char **user);

/* Poll interval from $AIR_LOGS_POLL_MS (tests), else -1: the library's
 * default for the client (3000 ms, 1000 ms for a local workspace). */
int64_t cli_logs_poll_ms(void);

/* Stream run @run_id with @opts printing lines (text) or LOG/ALERT events
 * (JSON); with @watch also STATUS events. In text mode on an interactive
 * stderr, also the waiting message of a run without lines. The callbacks are
 * set on @opts for the call and removed after it. *followed (may be NULL)
 * tells whether the run was active when the stream first saw it. Returns
 * the library status; after Ctrl-C, AIR_EINTERRUPTED once
 * cli_report_follow_interrupted() has reported it. */
int cli_logs_stream(const cli_globals *g, air_client *c, int64_t run_id,
                    air_logs_options *opts, int32_t node, bool watch,
                    air_logs_summary **summary, bool *followed, air_error **err);

/* After Ctrl-C while following run @run_id: "Error: interrupted", then
 * (unless the run was seen @ended) that the run keeps going and how to stop
 * it, on stderr. Returns 1. */
int cli_report_follow_interrupted(int64_t run_id, bool ended);

/* The waiting line on stderr (waiting.c), an air_log_waiting_cb taking a
 * cli_waiting: a message replaces the line in place, NULL erases it. */
typedef struct cli_waiting {
	bool shown;
} cli_waiting;
int cli_waiting_line(const char *message, void *userdata);
/* Log lines in text mode are printed verbatim; with @on (air logs
 * --sanitize) and stdout a terminal, cleaned like other server text
 * (cli_clean()). */
void cli_logs_sanitize(bool on);
/* The "no logs" message: an ERROR event (JSON) or a stdout line (text). */
void cli_logs_print_no_logs(const cli_globals *g, int32_t node, const char *message);
/* A JSON string for possibly invalid UTF-8 (invalid bytes become U+FFFD). */
json_t *cli_json_text(const char *s, size_t len);
/* A JSON-lines event {"type": @type, "ts": now}; the caller adds its fields. */
json_t *cli_event(const char *type);
/* The same with "run_id": "<@run_id>" (SUBMITTED, FAILURE). */
json_t *cli_run_event(const char *type, int64_t run_id);

/* ---- why a run failed (failure.c) ---- */
/* The failure report of run @run_id under the command's interrupt; *out
 * NULL when the run did not fail. Returns the library status. */
int cli_failure_read(air_client *c, int64_t run_id, air_failure **out, air_error **err);
/* The report as lines for the terminal (server text cleaned): "Run 123
 * FAILED (attempt 3 of 3, node 0): <message>", what the excerpt is, the
 * excerpt, and the `air logs` command that shows the whole log. */
void cli_failure_lines(const air_failure *f, void (*emit)(const char *line, void *ud), void *ud);
/* After a followed run ended without succeeding: the report on stderr (or
 * why it could not be read). Returns the library status. */
int cli_failure_print_block(air_client *c, int64_t run_id);
/* {"message","node","attempt","excerpt":[...]} of air get -o json. */
json_t *cli_failure_json(const air_failure *f);
/* The FAILURE event of `run --watch -o json` (nothing when the run did not
 * fail or the report cannot be read). Returns the library status. */
int cli_failure_print_event(air_client *c, int64_t run_id);

/* ---- the run table of `air list` (cmd_list.c) ---- */
#define CLI_LIST_COLS 8
/* What the interactive view shows of a row beyond its cells (NULL: unknown). */
typedef struct cli_list_run {
	int64_t run_id;
	char *dashboard_url, *mlflow_url, *state_message;
} cli_list_run;
/* Rows as cell strings ("-" for unknown values), and their runs. */
typedef struct cli_list_table {
	char *(*cells)[CLI_LIST_COLS];
	cli_list_run *runs;
	size_t n;
} cli_list_table;
/* "Run ID", "Experiment", "Status", "Started", "Duration", "MLflow", "User", "Accelerators" */
extern const char *const cli_list_headers[CLI_LIST_COLS];
void cli_list_table_add(cli_list_table *t, const air_run *run);
/* Column widths: the longest of the header and every cell. */
void cli_list_table_widths(const cli_list_table *t, size_t w[CLI_LIST_COLS]);
void cli_list_table_free(cli_list_table *t);

/* ---- the interactive `air list` (list_pager.c, list_actions.c) ---- */
/* The listing limit of the interactive view: it pages through everything. */
#define CLI_PAGER_LIMIT 100000
/* Show the runs of @it a screen at a time, fetching more as the user scrolls
 * (arrows and j/k select a row, space, b, PgUp/PgDn, g/G), until q: Enter
 * opens the selected run's MLflow page in a browser, i shows its details, L
 * a snapshot of its logs (read through @c). Ctrl-C interrupts ("Error:
 * interrupted", 1). Errors are reported after the screen is restored. When
 * there are no runs, *@empty is set without opening the view. Returns the
 * exit code. */
int cli_list_pager(air_client *c, air_run_iter *it, bool *empty);

/* Start a browser on @url: each command of $BROWSER (':'-separated; "%s" is
 * replaced by the URL, else it is appended), then xdg-open. True when one
 * started and did not fail at once; else false with the reason in @why. */
bool cli_open_url(const char *url, char *why, size_t n);
/* The last @max lines of node 0 of run @run_id (one pass, no following),
 * cleaned for the terminal, oldest first, in *@lines (free each and the
 * array); returns their count, or -1 with the reason in @why. */
int cli_logs_snapshot(air_client *c, int64_t run_id, size_t max, char ***lines, char *why,
                      size_t n);

/* ---- the Metrics panel of `air get` (cmd_metrics.c) ---- */
#define CLI_METRICS_PANEL_MAX 8
/* The panel's lines (free each and the array): the latest value of up to
 * CLI_METRICS_PANEL_MAX metrics of run @run_id ("loss  0.25 (step 9)"), and
 * a line saying how many more there are; none when the run has no metric
 * or they cannot be read. Returns 0, or 1 after reporting Ctrl-C. */
int cli_metrics_panel(air_client *c, int64_t run_id, char ***rows, size_t *count);

#endif /* AIR_RUNS_CLI_H */
