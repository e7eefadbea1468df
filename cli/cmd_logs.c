/* cmd_logs.c: `air logs RUN_ID` (docs/runs-and-logs.md#reading-logs) and
 * the log printer shared with `run --watch`. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "runs_cli.h"

/* ---- shared: printing records and events (docs/cli.md#logs) -------------- */

json_t *cli_json_text(const char *s, size_t len)
{
	json_t *v = json_stringn(s, len);
	char *clean, *o;

	if (v)
		return v;
	/* Not UTF-8: keep valid sequences, replace each bad byte by U+FFFD. */
	clean = malloc(len * 3 + 1);
	if (!clean)
		return json_string("");
	o = clean;
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		json_t *probe = n && i + n <= len ? json_stringn(s + i, n) : NULL;

		if (probe) {
			memcpy(o, s + i, n);
			o += n;
			i += n;
			json_decref(probe);
		} else {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		}
	}
	v = json_stringn(clean, (size_t)(o - clean));
	free(clean);
	return v ? v : json_string("");
}

json_t *cli_event(const char *type)
{
	json_t *e = json_object();
	char ts[32];

	cli_now_rfc3339(ts);
	json_object_set_new(e, "type", json_string(type));
	json_object_set_new(e, "ts", json_string(ts));
	return e;
}

json_t *cli_run_event(const char *type, int64_t run_id)
{
	json_t *e = cli_event(type);
	char id[24];

	snprintf(id, sizeof(id), "%" PRId64, run_id);
	json_object_set_new(e, "run_id", json_string(id));
	return e;
}

static void print_line_event(const char *type, int32_t node, const char *line, size_t len)
{
	json_t *e = cli_event(type);

	json_object_set_new(e, "node", json_integer(node));
	json_object_set_new(e, "line", cli_json_text(line, len));
	cli_print_jsonl(e);
}

void cli_logs_print_no_logs(const cli_globals *g, int32_t node, const char *message)
{
	if (g->json) {
		print_line_event("ERROR", node, message, strlen(message));
	} else {
		puts(cli_clean(message)); /* it quotes the run's state message */
		fflush(stdout);
	}
}

/* `air logs --sanitize` on a terminal: log lines cleaned like other text. */
static bool sanitize_lines;

void cli_logs_sanitize(bool on)
{
	sanitize_lines = on && cli_isatty_stdout();
}

typedef struct printer {
	const cli_globals *g;
	int64_t run_id;
	int32_t node;
	bool watch;          /* STATUS events (JSON) */
	bool ended;          /* the run was seen in a final state */
	bool followed;       /* the first state seen was an active one */
} printer;

/* A line: raw (text), or a LOG event preceded by an ALERT event when the line
 * matches a fatal pattern (JSON only). */
static int on_record(const air_log_record *rec, void *ud)
{
	const printer *p = ud;
	size_t len;
	const char *line = air_log_record_line(rec, &len);

	if (p->g->json) {
		if (air_log_record_alert(rec) > 0)
			print_line_event("ALERT", p->node, line, len);
		print_line_event("LOG", p->node, line, len);
	} else {
		/* Verbatim (docs/runs-and-logs.md#command-line), unless cleaning was asked for. */
		char *clean = sanitize_lines ? cli_clean_dup(line, len, false) : NULL;

		if (clean)
			fputs(clean, stdout);
		else
			fwrite_unlocked(line, 1, len, stdout);
		free(clean);
		putc_unlocked('\n', stdout);
		/* A line of a run going on is shown at once; a finished run's
		 * lines go out in large writes (a terminal flushes each line). */
		if (!p->ended)
			fflush(stdout);
	}
	return cli_stdout_failed(); /* nowhere to write: the stream stops */
}

/* Lines as text, many at a time (text output without --sanitize). */
static int on_text(const char *text, size_t len, void *ud)
{
	const printer *p = ud;

	fwrite_unlocked(text, 1, len, stdout);
	if (!p->ended)
		fflush(stdout);
	return cli_stdout_failed(); /* nowhere to write: the stream stops */
}

/* Whether display state @name is a final one. */
static bool final_state(const char *name)
{
	for (int32_t s = AIR_STATE_TERMINATED; s < AIR_STATE_OTHER; s++)
		if (air_state_name(s) && !strcmp(air_state_name(s), name))
			return true;
	return false;
}

/* Remembers whether the run ended; STATUS events for --watch in JSON. */
static int on_status(const char *current, const char *previous, void *ud)
{
	printer *p = ud;
	json_t *e;

	p->ended = final_state(current);
	if (!previous)
		p->followed = !p->ended;
	if (!(p->g->json && p->watch))
		return 0;
	e = cli_event("STATUS");
	json_object_set_new(e, "status", json_string(current));
	if (previous)
		json_object_set_new(e, "previous_status", json_string(previous));
	cli_print_jsonl(e);
	return 0;
}

/* A followed run began another attempt: an ATTEMPT event (--watch, JSON), a
 * rule among the lines (--watch), or a note on stderr (`air logs`, whose
 * stdout is the log alone). */
static int on_attempt(int32_t attempt, void *ud)
{
	const printer *p = ud;
	char label[96];

	if (p->g->json) {
		if (p->watch) {
			json_t *e = cli_run_event("ATTEMPT", p->run_id);
			json_object_set_new(e, "attempt", json_integer(attempt));
			cli_print_jsonl(e);
		}
		return 0;
	}
	snprintf(label, sizeof(label), " Attempt %d (--retry %d) ", (int)attempt + 1, (int)attempt);
	if (p->watch) {
		cli_print_rule(label);
		fflush(stdout);
	} else {
		fflush(stdout);
		fprintf(stderr, "Run %" PRId64 ": attempt %d begins (air logs%s %" PRId64
		        " --retry %d shows it alone).\n", p->run_id, (int)attempt + 1,
		        cli_target_flags(), p->run_id, (int)attempt);
	}
	return 0;
}

int cli_report_follow_interrupted(int64_t run_id, bool ended)
{
	cli_report_interrupted();
	if (!ended)
		fprintf(stderr, "Run %" PRId64 " keeps going; `air cancel%s %" PRId64 "` stops it.\n",
		        run_id, cli_target_flags(), run_id);
	return 1;
}

int64_t cli_logs_poll_ms(void)
{
	const char *v = getenv("AIR_LOGS_POLL_MS");
	char *end;
	long long ms;

	if (!v || !*v)
		return -1;
	ms = strtoll(v, &end, 10);
	return *end || ms < 0 ? -1 : (int64_t)ms;
}

int cli_logs_stream(const cli_globals *g, air_client *c, int64_t run_id,
                    air_logs_options *opts, int32_t node, bool watch,
                    air_logs_summary **summary, bool *followed, air_error **err)
{
	printer p = {g, run_id, node, watch, false, false};
	cli_waiting w = {false};
	/* The waiting message is for people: text mode on a terminal only (it
	 * costs a runs/get-output every fifth poll until lines arrive). */
	air_log_waiting_cb waiting = !g->json && cli_isatty_stderr() ? cli_waiting_line : NULL;
	/* Lines as written go out as text; JSON events and cleaned lines need
	 * each record. */
	bool as_text = !g->json && !sanitize_lines;
	int rc = as_text ? air_logs_options_set_text_cb(opts, on_text, &p)
	                 : air_logs_options_set_record_cb(opts, on_record, &p);

	if (rc == AIR_OK)
		rc = air_logs_options_set_status_cb(opts, on_status, &p);
	if (rc == AIR_OK)
		rc = air_logs_options_set_waiting_cb(opts, waiting, &w);
	if (rc == AIR_OK)
		rc = air_logs_options_set_attempt_cb(opts, on_attempt, &p);
	if (rc == AIR_OK)
		rc = air_client_stream_logs(c, run_id, opts, summary, err);
	/* @p and @w die here: leave no dangling pointer in @opts. */
	air_logs_options_set_record_cb(opts, NULL, NULL);
	air_logs_options_set_text_cb(opts, NULL, NULL);
	air_logs_options_set_status_cb(opts, NULL, NULL);
	air_logs_options_set_waiting_cb(opts, NULL, NULL);
	air_logs_options_set_attempt_cb(opts, NULL, NULL);
	/* Ctrl-C: following stops, the run does not. */
	if (rc == AIR_EINTERRUPTED || cli_interrupted()) {
		cli_report_follow_interrupted(run_id, p.ended);
		rc = AIR_EINTERRUPTED;
	}
	if (followed)
		*followed = p.followed;
	return rc;
}

/* ---- `air logs` -------------------------------------------------------------- */

static const char logs_usage[] =
	"air logs RUN_ID [--tail N | --lines N] [--minutes N] [--node N] [--retry N] "
	"[--download-to DIR] [--sanitize]";

static const char logs_description[] =
	"Print the logs of a run (node 0 unless --node). An active run is followed until it ends:\n"
	"following is the default, so there is no --follow flag, and the exit status is the run's\n"
	"outcome. A finished run prints its last lines (--tail). Ctrl-C stops following; the run\n"
	"keeps going (air cancel RUN_ID stops it).\n";

typedef struct logs_args {
	int64_t lines, tail, minutes, node, retry;
	bool lines_seen, tail_seen, node_seen, review, sanitize;
	const char *download_to;
} logs_args;

/* The validation order of docs/runs-and-logs.md#command-line; returns 0 or the
 * exit code. */
static int validate(const cli_globals *g, logs_args *a, const char *id_arg, int64_t *id)
{
	bool tail_given = a->lines_seen || a->tail_seen;

	if (a->review)
		return cli_runs_invalid(g, "--review is not implemented");
	if (a->lines_seen && a->tail_seen && a->lines != a->tail)
		return cli_runs_invalid(g, "--tail %" PRId64 " and --lines %" PRId64
		                           " disagree: they are the same option, give one",
		                        a->tail, a->lines);
	if (a->tail_seen)
		a->lines = a->tail;
	if (a->download_to && tail_given)
		return cli_runs_invalid(g, "--download-to writes whole logs: it cannot be combined "
		                           "with --tail/--lines");
	if (a->download_to && a->minutes > 0)
		return cli_runs_invalid(g, "--download-to writes whole logs: it cannot be combined "
		                           "with --minutes");
	if (tail_given && a->lines > 0 && a->minutes > 0)
		return cli_runs_invalid(g, "--tail/--lines and --minutes cannot be combined");
	if (tail_given && a->lines < 0)
		return cli_runs_invalid(g, "--tail/--lines must be 0 or more, got %" PRId64, a->lines);
	if (a->minutes < 0)
		return cli_runs_invalid(g, "--minutes must be 0 or more, got %" PRId64, a->minutes);
	if (a->node < 0)
		return cli_runs_invalid(g, "--node must be 0 or more, got %" PRId64, a->node);
	if (a->node > INT32_MAX)
		return cli_runs_invalid(g, "--node %" PRId64 " is too large", a->node);
	if (a->minutes > (int64_t)366 * 24 * 60 * 100)
		return cli_runs_invalid(g, "--minutes %" PRId64 " is too large", a->minutes);
	if (a->retry > INT32_MAX)
		return cli_runs_invalid(g, "--retry %" PRId64 " is too large", a->retry);
	if (!cli_parse_run_id(id_arg, id))
		return cli_runs_invalid(g, "invalid run ID \"%s\": must be a positive integer (a Job Run ID)",
		                        id_arg);
	return 0;
}

static int set_options(const logs_args *a, air_logs_options *o)
{
	int rc = AIR_OK;

	if (a->lines_seen || a->tail_seen)
		rc = air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, a->lines);
	if (rc == AIR_OK)
		rc = air_logs_options_set_int(o, AIR_LOGS_MINUTES, a->minutes);
	if (rc == AIR_OK && (a->node_seen || !a->download_to))
		rc = air_logs_options_set_int(o, AIR_LOGS_NODE, a->node);
	if (rc == AIR_OK)
		rc = air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, a->retry < 0 ? -1 : a->retry);
	if (rc == AIR_OK)
		rc = air_logs_options_set_interrupt(o, cli_interrupt());
	return rc;
}

static int download(const cli_globals *g, air_client *c, int64_t id, const char *dir,
                    const air_logs_options *o)
{
	air_download_report *rep = NULL;
	air_error *err = NULL;
	size_t n, files = 0;
	bool incomplete = false;
	int rc = air_client_download_logs(c, id, dir, o, &rep, &err);

	if (rc != AIR_OK) {
		rc = cli_runs_fail(g, CLI_STAGE_CALL, rc, err);
		air_error_free(err);
		return rc;
	}
	n = air_download_report_count(rep);
	for (size_t i = 0; i < n; i++)
		files += air_download_report_path(rep, i) != NULL;
	if (air_download_report_no_logs_message(rep)) {
		cli_logs_print_no_logs(g, 0, air_download_report_no_logs_message(rep));
	} else {
		fprintf(stderr, "Downloaded logs of %zu of %zu node%s:\n", files, n, n == 1 ? "" : "s");
		for (size_t i = 0; i < n; i++) {
			const char *path = air_download_report_path(rep, i);
			if (path)
				fprintf(stderr, "  %s (%" PRId64 " bytes)%s\n", cli_clean(path),
				        air_download_report_bytes(rep, i),
				        air_download_report_complete(rep, i) ? "" : " [incomplete]");
		}
		for (size_t i = 0; i < n; i++) {
			incomplete = incomplete || !air_download_report_complete(rep, i);
			if (air_download_report_error(rep, i))
				fprintf(stderr, "Warning: node %d: %s\n", air_download_report_node(rep, i),
				        cli_clean_lines(air_download_report_error(rep, i)));
		}
	}
	/* A download is ok when every node is complete and the run is still
	 * active or succeeded (docs/cli.md#in-ci-json-output-and-exit-codes). */
	rc = !incomplete && (!air_download_report_terminal(rep) || air_download_report_succeeded(rep))
	             ? 0 : 1;
	air_download_report_free(rep);
	return rc;
}

/* The tail of a finished run when --tail is not given (AIR_LOGS_TAIL_LINES
 * unset). */
#define DEFAULT_TAIL 10000

/* The log of run @id; @default_tail: neither --tail nor --minutes was given,
 * so a finished run's log is cut to its last DEFAULT_TAIL lines (said on
 * stderr when that many came: the log may have had just as many). */
static int stream(const cli_globals *g, air_client *c, int64_t id, air_logs_options *o,
                  int32_t node, bool default_tail)
{
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	bool followed = false;
	int rc = cli_logs_stream(g, c, id, o, node, false, &sum, &followed, &err);

	if (rc == AIR_EINTERRUPTED || (rc == AIR_EABORTED && cli_stdout_failed())) {
		/* reported: Ctrl-C here, a failed output by cli_finish_stdout() */
		air_error_free(err);
		return 1;
	}
	if (rc != AIR_OK) {
		rc = cli_runs_fail(g, CLI_STAGE_CALL, rc, err);
		air_error_free(err);
		return rc;
	}
	if (air_logs_summary_no_logs_message(sum))
		cli_logs_print_no_logs(g, node, air_logs_summary_no_logs_message(sum));
	else if (default_tail && !followed && !g->json && air_logs_summary_terminal(sum) &&
	         air_logs_summary_records(sum) == DEFAULT_TAIL)
		fprintf(stderr, "(at most the last %d lines: --tail N for more)\n", DEFAULT_TAIL);
	/* Ok: the run is still active (a one-shot view) or it succeeded. */
	rc = !air_logs_summary_terminal(sum) || air_logs_summary_succeeded(sum) ? 0 : 1;
	/* A run followed to a failed end: why, on stderr (text only). */
	if (rc != 0 && followed && !g->json)
		cli_failure_print_block(c, id);
	air_logs_summary_free(sum);
	return rc;
}

int cmd_logs(int argc, char **argv, cli_globals *g)
{
	logs_args a = {0, 0, 0, 0, -1, false, false, false, false, false, NULL};
	const cli_flag flags[] = {
		{"tail", 0, CLI_INT, &a.tail, &a.tail_seen, "N",
		 "last N lines of a finished run (default 10000; 0 prints nothing)", false},
		{"lines", 0, CLI_INT, &a.lines, &a.lines_seen, "N", "same as --tail", false},
		{"minutes", 0, CLI_INT, &a.minutes, NULL, "N", "only the last N minutes", false},
		{"node", 0, CLI_INT, &a.node, &a.node_seen, "N", "node index (default 0)", false},
		{"retry", 0, CLI_INT, &a.retry, NULL, "N", "retry attempt, 0-based (default: latest)",
		 false},
		{"download-to", 0, CLI_STRING, &a.download_to, NULL, "DIR",
		 "write DIR/logs/node_<n>.log for every node (or --node)", false},
		{"sanitize", 0, CLI_BOOL, &a.sanitize, NULL, NULL,
		 "on a terminal, show control characters of log lines as '?' (escape sequences "
		 "the workload printed cannot drive the terminal); default: lines as written",
		 false},
		{"review", 0, CLI_BOOL, &a.review, NULL, NULL, NULL, true},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};
	cli_strlist pos = {NULL, 0};
	air_logs_options *o = NULL;
	air_client *c = NULL;
	int64_t id = 0;
	int rc;

	if (cli_wants_help(argc, argv)) {
		fputs(logs_description, stdout);
		cli_print_usage(stdout, logs_usage, flags);
		return 0;
	}
	for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
		/* Flags of other tools' log commands: the behaviour is the default. */
		if (!strcmp(argv[i], "--follow") || !strcmp(argv[i], "-f")) {
			cli_error("unknown flag: %s (air logs follows an active run until it ends by "
			          "default: leave the flag out)", argv[i]);
			cli_print_usage(stderr, logs_usage, flags);
			return 1;
		}
	}
	if (!cli_parse(argc, argv, flags, g, &pos, logs_usage)) {
		cli_strlist_free(&pos);
		return 1;
	}
	if (pos.count != 1) {
		cli_error("accepts 1 arg(s), received %d", pos.count);
		cli_print_usage(stderr, logs_usage, flags);
		cli_strlist_free(&pos);
		return 1;
	}
	rc = validate(g, &a, pos.items[0], &id);
	cli_strlist_free(&pos);
	cli_logs_sanitize(a.sanitize);
	if (rc != 0)
		return rc;
	if (air_logs_options_new(&o) != AIR_OK)
		return cli_runs_fail(g, CLI_STAGE_CALL, AIR_ENOMEM, NULL);
	if (set_options(&a, o) != AIR_OK) {
		/* validate() mirrors the library's ranges; this is the backstop. */
		air_logs_options_free(o);
		return cli_runs_invalid(g, "a numeric flag is out of range");
	}
	if (cli_runs_open(g, 0, &c, NULL) == 0) {
		int64_t poll = cli_logs_poll_ms();
		if (poll >= 0)
			air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, poll);
		rc = a.download_to ? download(g, c, id, a.download_to, o)
		                   : stream(g, c, id, o, (int32_t)a.node,
		                            !a.lines_seen && !a.tail_seen && a.minutes == 0);
	} else {
		rc = 1;
	}
	cli_client_free(c);
	air_logs_options_free(o);
	return rc;
}
