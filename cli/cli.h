/*
 * cli.h: shared pieces of the `air` command line. The CLI is a thin user of
 * the public libair API (it includes only <air/air.h>).
 */
#ifndef AIR_CLI_H
#define AIR_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include <air/air.h>

/* Options every command accepts (anywhere on the command line). */
typedef struct cli_globals {
	bool json;            /* -o json */
	const char *profile;  /* -p/--profile */
	bool debug;           /* --debug: trace requests on stderr (credentials redacted) */
	bool local;           /* --local: the local workspace (host local://) */
} cli_globals;

/* ---- flag parsing (args.c) ---- */
typedef enum cli_flag_kind { CLI_BOOL, CLI_STRING, CLI_INT, CLI_STRING_LIST } cli_flag_kind;

typedef struct cli_strlist {
	const char **items;
	int count;
} cli_strlist;

typedef struct cli_flag {
	const char *long_name;  /* "file" */
	char short_name;        /* 'f' or 0 */
	cli_flag_kind kind;
	void *target;           /* bool*, const char **, int64_t *, cli_strlist * */
	bool *seen;             /* optional: set when given on the command line */
	const char *metavar;    /* "FILE" */
	const char *help;
	bool hidden;            /* accepted, not listed */
} cli_flag;

/* Parse @argv (after the command words) against @flags plus the global flags.
 * Positional arguments are collected in @pos (argv pointers). On error prints
 * "Error: ..." and the @usage on stderr and returns false. */
bool cli_parse(int argc, char **argv, const cli_flag *flags, cli_globals *g, cli_strlist *pos,
               const char *usage);
void cli_strlist_free(cli_strlist *l);
/* Append @s (borrowed) to @l; false when out of memory. */
bool cli_strlist_push(cli_strlist *l, const char *s);
/* The first argument that is neither a flag of @flags (or a global flag) nor
 * the value of one: the subcommand word of `air list pools`. NULL when none. */
const char *cli_first_positional(int argc, char **argv, const cli_flag *flags);
/* True when -h or --help appears before any "--". */
bool cli_wants_help(int argc, char **argv);
/* Print "Usage: ...\n\nFlags:\n..." for @flags. */
void cli_print_usage(FILE *out, const char *usage, const cli_flag *flags);
/* Strict positive int64 (run ids): false for "abc", "0", "-3". */
bool cli_parse_run_id(const char *s, int64_t *out);

/* ---- output (output.c) ---- */
/* "Error: <message>" on stderr. Returns 1 (the failure exit code). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the library error as "Error: ..." on stderr and return 1 ("Error:
 * interrupted" after Ctrl-C), followed by its flag hint; in text mode then
 * cli_print_access_hint(). */
int cli_error_air(const air_error *err, int rc);
/* The same with @hint (advice in the CLI's terms) instead of the field's. */
int cli_error_air_hint(const air_error *err, int rc, const char *hint);
/* The flag that sets the option an error's field names ("pass --profile
 * NAME"), or NULL: the library's messages never name the CLI's flags. */
const char *cli_flag_hint(const air_error *err);
/* "<message>; <hint>" (@hint, else the field's flag hint; the message alone
 * without one). free(); NULL when out of memory. */
char *cli_air_message(const air_error *err, int rc, const char *hint);
/* Whether the output mode is JSON (-o json); set while the flags are read. */
void cli_set_json_output(bool on);
/* The workspace flags of this command line, for the commands the CLI
 * suggests: " --local", " -p NAME" or "" (the default profile or the
 * environment); set while the flags are read. */
void cli_set_target(const cli_globals *g);
const char *cli_target_flags(void);
/* Success envelope {"v":1,"ts":...,"data":@data} pretty-printed on stdout. Steals @data. Returns 0. */
int cli_print_data(json_t *data);
/* Error envelope on stdout; returns 1. */
int cli_print_error_envelope(const char *code, const char *kind, const char *message,
                             bool retryable);
/* One compact JSON line on stdout (JSON-lines events). Steals @obj. */
void cli_print_jsonl(json_t *obj);
/* A submission's warnings, "Warning: ..." on stderr. */
void cli_print_warnings(const air_submission *sub);
/* "====== label ======" on stdout, 60 columns (the label longer: as is). */
void cli_print_rule(const char *label);
/* Current time as RFC 3339 UTC seconds ("2024-01-15T14:30:45Z"). */
void cli_now_rfc3339(char out[32]);
/* "2023-11-14T22:13:20+00:00" (with .ffffff when sub-second), or NULL json for 0. */
json_t *cli_json_time(int64_t epoch_ms);
/* "1h 2m 3s" / "0s". */
void cli_format_duration(int64_t seconds, char *out, size_t n);
/* Whole seconds from @start_ms to @end_ms (now when <= 0), halves to the even
 * neighbour (Python's round(), as the reference rounds `duration_seconds`):
 * the one duration of `get`, `list` and `sweep --watch`. */
int64_t cli_duration_s(int64_t start_ms, int64_t end_ms);
/* "YYYY-MM-DD HH:MM UTC" */
void cli_format_utc_minutes(int64_t epoch_ms, char *out, size_t n);
/* ISO 8601 local time to the second with its offset: "2023-11-14T23:13:20+01:00". */
void cli_format_local_iso(int64_t epoch_ms, char *out, size_t n);
/* Whether a stream is an interactive terminal. */
bool cli_isatty_stderr(void);
bool cli_isatty_stdout(void);
/* Full buffering with a large buffer when stdout is not a terminal (first
 * thing in main, before any output). */
void cli_buffer_stdout(void);
/* Whether a write to stdout failed (a full disk, a closed pipe when SIGPIPE
 * is ignored): its first errno is kept for cli_finish_stdout(). */
bool cli_stdout_failed(void);
/* At the end of a command: stdout flushed, and a write that failed (now or
 * before) said ("Error: writing standard output: ...") and made the exit
 * status 1 when @rc was 0. The exit status. */
int cli_finish_stdout(int rc);
/*
 * Server-supplied text for the terminal (text mode): every control
 * character (C0 with tab and line breaks, DEL, C1), byte that is not UTF-8
 * and Unicode bidirectional control becomes '?', so that a run name, a pool
 * id or an error message cannot move the cursor, clear the screen, retitle
 * the terminal or reorder what follows it. Returns @s itself when it needs
 * no change, else a cleaned copy that lives until cli_clean_release(). NULL
 * stays NULL. cli_clean_lines() keeps line feeds (multi-line messages).
 */
const char *cli_clean(const char *s);
const char *cli_clean_lines(const char *s);
/* The same for @len bytes into a new string (free() it). */
char *cli_clean_dup(const char *s, size_t len, bool keep_newlines);
/* Release the copies made by cli_clean(); at exit. */
void cli_clean_release(void);

/* ---- the terminal (term.c) ---- */
/* Columns and rows for drawing: $COLUMNS and $LINES when set, else those of
 * the terminal on stdout (terminfo), else 0 (unknown). */
void cli_term_size(int *cols, int *rows);
/* Clear the terminal on stdout (nothing when it is not one). */
void cli_term_clear(void);

/* ---- client (client.c) ---- */
/* A client configured from the globals (profile, debug trace). */
int cli_client_new(const cli_globals *g, air_client **out, air_error **err);
/* air_client_free() for a client of cli_client_new(). */
void cli_client_free(air_client *c);
/* After an "Error:" line in text mode: for a 403 PERMISSION_DENIED, the
 * profile, host and auth type of the client and what to check next (the
 * official tool's block), on stderr. */
void cli_print_access_hint(const air_error *err);

/* ---- Ctrl-C (interrupt.c) ----
 * SIGINT and SIGTERM raise one air_interrupt that every blocking call gets in
 * its options, so the call returns AIR_EINTERRUPTED at once; the command then
 * reports "Error: interrupted" and exits 1. */
/* Create the interrupt and install the handlers; false (reported) on failure. */
bool cli_interrupt_install(void);
/* Restore the default handlers and release the interrupt. */
void cli_interrupt_uninstall(void);
/* The interrupt to put in the options of every blocking call. */
air_interrupt *cli_interrupt(void);
/* Options holding only the interrupt, for calls without options of their own. */
const air_call_options *cli_call_options(void);
/* True once SIGINT or SIGTERM arrived. */
bool cli_interrupted(void);
/* "Error: interrupted" on stderr (also in JSON mode); returns 1. */
int cli_report_interrupted(void);
/* Before reading a prompt's answer: wait until stdin has input (or is at its
 * end); false when interrupted first. */
bool cli_wait_stdin(void);

/* ---- field help (field_help.c) ---- */
/* `air run -h config[.PATH]`: the field's documentation on stdout, as text or
 * as one JSON object; an unknown path is an "Error:" line on stderr. For
 * compute and its accelerator_type, with a workspace configured (@g: a
 * profile, the environment, --local), the types it offers are added (best
 * effort, within 5 s; a warning on stderr when they cannot be listed). */
void cli_field_help(const char *path, bool json, const cli_globals *g);

/* ---- commands ---- */
int cmd_run(int argc, char **argv, cli_globals *g);
int cmd_get(int argc, char **argv, cli_globals *g);
int cmd_list(int argc, char **argv, cli_globals *g);
int cmd_cancel(int argc, char **argv, cli_globals *g);
int cmd_logs(int argc, char **argv, cli_globals *g);
int cmd_images(int argc, char **argv, cli_globals *g);
int cmd_register_image(int argc, char **argv, cli_globals *g);
int cmd_convert_to_dabs(int argc, char **argv, cli_globals *g);
int cmd_metrics(int argc, char **argv, cli_globals *g);
int cmd_check(int argc, char **argv, cli_globals *g);

/* The check of a workload (cmd_check.c), for `air check` and `air run --check`. */
typedef struct cli_check_request {
	const char *idempotency_key;  /* the submission's --idempotency-key, or NULL */
	bool strict;                  /* --strict: a warning fails the report */
	bool offline;                 /* only the checks that need no workspace (--dry-run) */
	bool stream;                  /* text mode: each check on stdout as it completes */
} cli_check_request;
/* Run the check; 0 with *out (air_check_report_free()), else 1 after
 * printing the error. */
int cli_check(const cli_globals *g, air_client *client, const air_config *cfg,
              const cli_check_request *req, air_check_report **out);
/* One line "<mark> <field>: <message>" of a check (marks: ✓ ! ✗ -, or + ! x -
 * when the character set is not UTF-8). */
void cli_print_check(FILE *out, const air_check *c);
int cmd_sweep(int argc, char **argv, cli_globals *g);
int cmd_rerun(int argc, char **argv, cli_globals *g);
/* `air list pools` and `air get pool ID` (cmd_pools.c). */
int cmd_list_pools(int argc, char **argv, cli_globals *g);
int cmd_get_pool(int argc, char **argv, cli_globals *g);

/* `-f FILE` with its `--override`s (each change reported on stderr),
 * validated; an "Error:" line and 1 on failure (cmd_run.c). @invalid_hint,
 * when not NULL, follows the message of a config that parsed but is not
 * valid. */
int cli_load_config(const char *file, const cli_strlist *overrides, const char *invalid_hint,
                    air_config **out);

/* Submission half of `air run` (run_submit.c): submits @cfg and prints the
 * result; with @watch continues with cli_watch(); with @dry_run only checks
 * what the submission checks offline. Returns the exit code. */
typedef struct cli_run_request {
	const char *idempotency_key;  /* --idempotency-key or NULL */
	bool watch;                   /* --watch */
	bool dry_run;                 /* --dry-run (wins over --watch) */
	bool check;                   /* --check: the check first; nothing submitted when it fails */
} cli_run_request;
int cli_run_submit(const cli_globals *g, const air_config *cfg, const cli_run_request *req);
/* Best effort: run @run_id's MLflow links on stdout when they appear within
 * about a second (Ctrl-C ends the lookup; the submission stands). */
void cli_print_mlflow_links(air_client *client, int64_t run_id);

/* `run --watch` after a successful submission (watch.c): stream node 0 of the
 * latest attempt until terminal, JSON events or text. Returns the exit code. */
int cli_watch(const cli_globals *g, air_client *client, int64_t run_id,
              const char *dashboard_url);

/* ---- sweeps (sweep_watch.c, sweep_metric.c) ---- */
/* `air sweep --watch`: a row per variant (state, duration, the last value of
 * @metric when given) until every run ends; Ctrl-C stops watching only.
 * Returns the exit code (0 when every run succeeded). */
int cli_sweep_watch(const cli_globals *g, air_client *client, const air_sweep *sweep,
                    const char *metric);
/* The latest value of metric @name of run @run_id into *value: 1 when known,
 * 0 when not (yet). */
int cli_sweep_metric(air_client *client, int64_t run_id, const char *name, double *value);
/* "lr=0.001 batch_size=32": variant @i's point as its run name shows it. */
const char *cli_sweep_point_text(const air_sweep *sweep, size_t i);

#endif /* AIR_CLI_H */
