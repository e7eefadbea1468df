/* cmd_get.c: `air get RUN_ID` (docs/runs-and-logs.md#command-line), plus the error
 * classification and client opening shared by the run commands. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runs_cli.h"

/* ---- shared: classification (docs/runs-and-logs.md#command-line) ------------ */

static int report(const cli_globals *g, const char *code, const char *kind, bool retryable,
                  const char *message)
{
	if (g->json)
		return cli_print_error_envelope(code, kind, message, retryable);
	return cli_error("%s", cli_clean_lines(message));
}

static bool auth_rejected(int rc, const air_error *err)
{
	int32_t status = err ? air_error_http_status(err) : 0;
	return rc == AIR_EAUTH || rc == AIR_EPERMISSION || status == 401 || status == 403;
}

int cli_runs_fail(const cli_globals *g, cli_stage stage, int rc, const air_error *err)
{
	char *full, *text = NULL;
	const char *msg;
	int out;

	if (rc == AIR_EINTERRUPTED || cli_interrupted())
		return cli_report_interrupted();
	full = cli_air_message(err, rc, NULL);
	msg = full ? full : air_strerror(rc);
	if (stage == CLI_STAGE_SETUP && auth_rejected(rc, err)) {
		/* The library's message already says how to configure credentials. */
		out = report(g, "UNAUTHENTICATED", "PERMANENT", false, msg);
	} else if (stage == CLI_STAGE_PROBE && auth_rejected(rc, err)) {
		if (asprintf(&text, "authentication failed: %s", msg) < 0)
			text = NULL;
		out = report(g, "UNAUTHENTICATED", "PERMANENT", false, text ? text : msg);
	} else if (stage == CLI_STAGE_PROBE) {
		if (asprintf(&text, "the identity check could not be completed: %s", msg) < 0)
			text = NULL;
		out = report(g, "INTERNAL_ERROR", "TRANSIENT", true, text ? text : msg);
	} else if (stage != CLI_STAGE_CANCEL && rc == AIR_ENOTFOUND) {
		out = report(g, "NOT_FOUND", "NOT_FOUND", false, msg);
	} else if (stage != CLI_STAGE_CANCEL && rc == AIR_EINVAL) {
		out = report(g, "INVALID_ARGS", "PERMANENT", false, msg);
	} else if (rc == AIR_EDISABLED) {
		out = report(g, "FEATURE_DISABLED", "PERMANENT", false, msg);
	} else {
		out = report(g, "INTERNAL_ERROR", "TRANSIENT", true, msg);
	}
	if (!g->json)
		cli_print_access_hint(err);
	free(text);
	free(full);
	return out;
}

int cli_runs_invalid(const cli_globals *g, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	rc = report(g, "INVALID_ARGS", "PERMANENT", false, msg ? msg : "invalid arguments");
	free(msg);
	return rc;
}

int cli_runs_open(const cli_globals *g, unsigned flags, air_client **out, char **user)
{
	air_client *c = NULL;
	air_error *err = NULL;
	char *me = NULL;
	int rc = cli_client_new(g, &c, &err);
	cli_stage stage = CLI_STAGE_SETUP;

	if (rc == AIR_OK)
		rc = air_client_resolve(c, cli_call_options(), &err);
	if (rc == AIR_OK && !(flags & CLI_OPEN_NO_PROBE)) {
		/* PAT setup contacts nobody: the identity probe checks the credentials. */
		stage = CLI_STAGE_PROBE;
		rc = air_client_current_user(c, cli_call_options(), &me, &err);
	}
	if (rc != AIR_OK) {
		cli_runs_fail(g, (flags & CLI_OPEN_CANCEL) ? CLI_STAGE_CANCEL : stage, rc, err);
		air_error_free(err);
		cli_client_free(c);
		air_free(me);
		return 1;
	}
	if (user)
		*user = me;
	else
		air_free(me);
	*out = c;
	return 0;
}

/* ---- get ------------------------------------------------------------------- */

static const char get_usage[] = "air get RUN_ID | air get pool POOL_ID";

static int64_t duration_s(const air_run *run)
{
	return cli_duration_s(air_run_start_time_ms(run), air_run_end_time_ms(run));
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

/* Unless the run succeeded: its state message and its failure (null
 * while it is active), docs/cli.md#why-a-run-failed. */
static void failure_fields(json_t *d, const air_run *run, const air_failure *f)
{
	if (air_run_succeeded(run))
		return;
	json_object_set_new(d, "state_message", str_or_null(air_run_state_message(run)));
	json_object_set_new(d, "failure", f ? cli_failure_json(f) : json_null());
}

static int print_json(const air_run *run, const air_failure *f)
{
	json_t *d = json_object();
	char id[24], *mlflow = NULL;

	snprintf(id, sizeof(id), "%" PRId64, air_run_id(run));
	json_object_set_new(d, "run_id", json_string(id));
	json_object_set_new(d, "status", json_string(air_run_state_name(run)));
	json_object_set_new(d, "started_at", cli_json_time(air_run_start_time_ms(run)));
	json_object_set_new(d, "duration_seconds", air_run_start_time_ms(run) > 0
	                                                    ? json_integer(duration_s(run))
	                                                    : json_null());
	json_object_set_new(d, "attempt_number", json_integer(air_run_attempt_number(run)));
	json_object_set_new(d, "experiment_name", str_or_null(air_run_experiment_name(run)));
	json_object_set_new(d, "dashboard_url", str_or_null(air_run_dashboard_url(run)));
	if (air_run_mlflow_run_url(run) &&
	    asprintf(&mlflow, "%s/artifacts/logs/node_0", air_run_mlflow_run_url(run)) < 0)
		mlflow = NULL;
	json_object_set_new(d, "mlflow_url", str_or_null(mlflow));
	free(mlflow);
	failure_fields(d, run, f);
	return cli_print_data(d);
}

/* ---- text boxes ---- */

/* Display width: UTF-8 code points. */
static size_t width_of(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80;
	return w;
}

typedef struct text_lines {
	char **items;
	size_t n;
} text_lines;

static void lines_add(text_lines *l, const char *s, size_t n)
{
	char **items = realloc(l->items, (l->n + 1) * sizeof(*items));
	if (!items)
		return;
	l->items = items;
	l->items[l->n] = strndup(s, n);
	if (l->items[l->n])
		l->n++;
}

static void lines_addf(text_lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lines_addf(text_lines *l, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0) {
		lines_add(l, s, strlen(s));
		free(s);
	}
	va_end(ap);
}

static void lines_free(text_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

static void print_box(const char *title, const text_lines *l)
{
	size_t w = strlen(title) + 2;

	for (size_t i = 0; i < l->n; i++) {
		size_t lw = width_of(l->items[i], strlen(l->items[i]));
		w = lw > w ? lw : w;
	}
	printf("╭─ %s ", title);
	for (size_t i = strlen(title) + 3; i < w + 2; i++)
		fputs("─", stdout);
	puts("╮");
	for (size_t i = 0; i < l->n; i++) {
		printf("│ %s", l->items[i]);
		for (size_t k = width_of(l->items[i], strlen(l->items[i])); k < w; k++)
			putchar(' ');
		puts(" │");
	}
	fputs("╰", stdout);
	for (size_t i = 0; i < w + 2; i++)
		fputs("─", stdout);
	puts("╯");
}

static void add_text_lines(text_lines *l, const char *s, size_t n)
{
	while (n > 0) {
		const char *nl = memchr(s, '\n', n);
		size_t len = nl ? (size_t)(nl - s) : n;
		size_t shown = len > 0 && s[len - 1] == '\r' ? len - 1 : len;

		/* Tabs would break the frame: show them as spaces; other control
		 * characters could drive the terminal. */
		char *tabs = strndup(s, shown), *copy;
		for (char *p = tabs; p && *p; p++)
			if (*p == '\t')
				*p = ' ';
		copy = tabs ? cli_clean_dup(tabs, strlen(tabs), false) : NULL;
		free(tabs);
		if (copy) {
			lines_add(l, copy, strlen(copy));
			free(copy);
		}
		if (!nl)
			break;
		n -= len + 1;
		s = nl + 1;
	}
}

/* The uploaded YAML; legacy runs show their inline parameters; otherwise a
 * minimal config is put together from what the run reports. */
static void config_lines(const air_run *run, const json_t *obj, text_lines *l)
{
	size_t len = 0;
	const char *yaml = air_run_config_yaml(run, &len);
	json_t *tasks = json_object_get(obj, "tasks");
	json_t *last = json_array_get(tasks, json_array_size(tasks) ? json_array_size(tasks) - 1 : 0);
	const char *params = json_string_value(
		json_object_get(json_object_get(last, "gen_ai_compute_task"), "yaml_parameters"));

	if (yaml && len) {
		add_text_lines(l, yaml, len);
		return;
	}
	if (params && *params) {
		add_text_lines(l, params, strlen(params));
		return;
	}
	lines_addf(l, "experiment_name: %s",
	           air_run_experiment_name(run) ? cli_clean(air_run_experiment_name(run)) : "N/A");
	if (air_run_accelerator_type(run)) {
		lines_addf(l, "compute:");
		lines_addf(l, "  accelerator_type: %s", cli_clean(air_run_accelerator_type(run)));
		lines_addf(l, "  num_accelerators: %" PRId64, air_run_accelerator_count(run));
	}
}

/* A server-supplied value for a text line: cleaned, "N/A" when missing. */
static const char *na(const char *s) { return s && *s ? cli_clean(s) : "N/A"; }

static void metadata_lines(const air_run *run, const json_t *obj, text_lines *l)
{
	json_int_t submitted = 0;
	char buf[64], mlflow[64];
	const char *name = air_run_mlflow_run_name(run), *mid = air_run_mlflow_run_id(run);

	json_unpack((json_t *)obj, "{s?I}", "start_time", &submitted);
	lines_addf(l, "Run ID:       %" PRId64, air_run_id(run));
	lines_addf(l, "Status:       %s", na(air_run_state_name(run)));
	if (submitted > 0)
		cli_format_utc_minutes((int64_t)submitted, buf, sizeof(buf));
	lines_addf(l, "Submitted:    %s", submitted > 0 ? buf : "N/A");
	lines_addf(l, "Retries:      %d", air_run_attempt_number(run));
	if (air_run_max_retries(run) < 0)
		lines_addf(l, "Max Retries:  unlimited");
	else
		lines_addf(l, "Max Retries:  %d", air_run_max_retries(run));
	if (air_run_start_time_ms(run) > 0)
		cli_format_duration(duration_s(run), buf, sizeof(buf));
	lines_addf(l, "Duration:     %s", air_run_start_time_ms(run) > 0 ? buf : "N/A");
	lines_addf(l, "Experiment:   %s", na(air_run_experiment_name(run)));
	if (name && *name)
		snprintf(mlflow, sizeof(mlflow), "%s", cli_clean(name));
	else if (mid)
		snprintf(mlflow, sizeof(mlflow), "...%s",
		         cli_clean(strlen(mid) > 8 ? mid + strlen(mid) - 8 : mid));
	lines_addf(l, "MLflow Run:   %s", (name && *name) || mid ? mlflow : "N/A");
	lines_addf(l, "User:         %s", na(air_run_creator(run)));
	lines_addf(l, "Accelerators: %s", na(air_run_accelerators(run)));
	lines_addf(l, "Environment:  %s", na(air_run_environment_version(run)));
}

static void print_sweep(const air_run *run)
{
	size_t n = air_run_iteration_count(run);

	printf("Sweep run %" PRId64 " (%s)\n", air_run_id(run), na(air_run_state_name(run)));
	printf("Job: %s\n", na(air_run_dashboard_url(run)));
	printf("Iterations: %" PRId64 " total, %" PRId64 " completed, %" PRId64 " succeeded, %" PRId64
	       " failed, %" PRId64 " active\n",
	       air_run_sweep_stat(run, AIR_SWEEP_TOTAL), air_run_sweep_stat(run, AIR_SWEEP_COMPLETED),
	       air_run_sweep_stat(run, AIR_SWEEP_SUCCEEDED), air_run_sweep_stat(run, AIR_SWEEP_FAILED),
	       air_run_sweep_stat(run, AIR_SWEEP_ACTIVE));
	if (!n)
		return;
	printf("\n%-24s %-20s %-16s %s\n", "TASK KEY", "RUN ID", "STATUS", "EXPERIMENT");
	for (size_t i = 0; i < n; i++)
		printf("%-24s %-20" PRId64 " %-16s %s\n", na(air_run_iteration_task_key(run, i)),
		       air_run_iteration_run_id(run, i), na(air_run_iteration_state_name(run, i)),
		       na(air_run_iteration_experiment(run, i)));
}

static void add_line(const char *line, void *ud) { lines_add(ud, line, strlen(line)); }

/* A run that ended without succeeding: the Failure panel; an active one:
 * its state message, when it has one. */
static void print_failure(const air_run *run, const air_failure *f)
{
	text_lines l = {0};

	if (f) {
		cli_failure_lines(f, add_line, &l);
		print_box("Failure", &l);
		lines_free(&l);
	} else if (!air_run_is_terminal(run) && air_run_state_message(run)) {
		printf("State message: %s\n", cli_clean(air_run_state_message(run)));
	}
}

static int print_text(const air_run *run, const air_failure *f)
{
	text_lines l = {0};
	char *raw = NULL;
	json_t *obj = NULL;

	if (air_run_is_sweep(run)) {
		print_sweep(run);
		fflush(stdout);
		return 0;
	}
	if (air_run_to_json(run, &raw, NULL) == AIR_OK)
		obj = json_loads(raw, 0, NULL);
	air_free(raw);
	config_lines(run, obj, &l);
	print_box("Configuration", &l);
	lines_free(&l);
	metadata_lines(run, obj, &l);
	print_box("Metadata", &l);
	lines_free(&l);
	json_decref(obj);
	print_failure(run, f);
	printf("Dashboard: %s\n", na(air_run_dashboard_url(run)));
	printf("MLflow run: %s\n", na(air_run_mlflow_run_url(run)));
	fflush(stdout);
	return 0;
}

/* The Metrics panel (cmd_metrics.c) after the rest; returns the exit code. */
static int print_metrics(air_client *c, int64_t run_id)
{
	text_lines l = {0};
	char **rows = NULL;
	size_t n = 0;

	if (cli_metrics_panel(c, run_id, &rows, &n) != 0)
		return 1;
	for (size_t i = 0; i < n; i++) {
		lines_add(&l, rows[i], strlen(rows[i]));
		free(rows[i]);
	}
	free(rows);
	if (l.n)
		print_box("Metrics", &l);
	lines_free(&l);
	fflush(stdout);
	return 0;
}

/* What `get` reads besides runs/get: the workspace id, MLflow ids and sweep
 * iterations; for text also the MLflow run name and the uploaded YAML. */
static int get_options(const cli_globals *g, air_get_options **out)
{
	static const int32_t always[] = {AIR_GET_WORKSPACE_ID, AIR_GET_MLFLOW, AIR_GET_SWEEP};
	static const int32_t text[] = {AIR_GET_MLFLOW_NAME, AIR_GET_CONFIG};
	air_get_options *o = NULL;
	int rc = air_get_options_new(&o);

	for (size_t i = 0; rc == AIR_OK && i < sizeof(always) / sizeof(always[0]); i++)
		rc = air_get_options_set_int(o, always[i], 1);
	for (size_t i = 0; rc == AIR_OK && !g->json && i < sizeof(text) / sizeof(text[0]); i++)
		rc = air_get_options_set_int(o, text[i], 1);
	if (rc == AIR_OK)
		rc = air_get_options_set_interrupt(o, cli_interrupt());
	if (rc != AIR_OK) {
		air_get_options_free(o);
		return rc;
	}
	*out = o;
	return AIR_OK;
}

/* The failure report; one that cannot be read is left out with a warning
 * (the run itself was read). AIR_OK or AIR_EINTERRUPTED. */
static int read_failure(air_client *c, int64_t id, air_failure **out)
{
	air_error *err = NULL;
	int rc = cli_failure_read(c, id, out, &err);

	if (rc != AIR_OK && rc != AIR_EINTERRUPTED && !cli_interrupted()) {
		char *msg = cli_air_message(err, rc, NULL);
		fprintf(stderr, "Warning: the failure of run %" PRId64 " could not be read: %s\n", id,
		        msg ? cli_clean_lines(msg) : air_strerror(rc));
		free(msg);
		rc = AIR_OK;
	}
	air_error_free(err);
	return cli_interrupted() ? AIR_EINTERRUPTED : rc;
}

int cmd_get(int argc, char **argv, cli_globals *g)
{
	static const cli_flag flags[] = {{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false}};
	cli_strlist pos = {NULL, 0};
	air_client *c = NULL;
	air_run *run = NULL;
	air_failure *failure = NULL;
	air_error *err = NULL;
	int64_t id;
	air_get_options *o = NULL;
	const char *sub = cli_first_positional(argc, argv, flags);
	int rc;

	/* `air get pool ID` has help of its own. */
	if (sub && !strcmp(sub, "pool"))
		return cmd_get_pool(argc, argv, g);
	if (cli_wants_help(argc, argv)) {
		cli_print_usage(stdout, get_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, get_usage)) {
		cli_strlist_free(&pos);
		return 1;
	}
	if (pos.count != 1) {
		cli_error("accepts 1 arg(s), received %d", pos.count);
		cli_print_usage(stderr, get_usage, flags);
		cli_strlist_free(&pos);
		return 1;
	}
	if (!cli_parse_run_id(pos.items[0], &id)) {
		rc = cli_runs_invalid(g, "invalid run ID \"%s\": must be a positive integer (a Job Run ID)",
		                      pos.items[0]);
		cli_strlist_free(&pos);
		return rc;
	}
	cli_strlist_free(&pos);
	if (cli_runs_open(g, 0, &c, NULL) != 0)
		return 1;
	rc = get_options(g, &o);
	if (rc == AIR_OK)
		rc = air_client_get_run(c, id, o, &run, &err);
	/* Why a finished run did not succeed (a call of its own). */
	if (rc == AIR_OK && air_run_is_terminal(run) && !air_run_succeeded(run))
		rc = read_failure(c, id, &failure);
	if (rc == AIR_EINTERRUPTED)
		rc = cli_report_interrupted();
	else if (rc != AIR_OK)
		rc = cli_runs_fail(g, CLI_STAGE_CALL, rc, err);
	else
		rc = g->json ? print_json(run, failure) : print_text(run, failure);
	if (rc == 0 && !g->json && !air_run_is_sweep(run))
		rc = print_metrics(c, id);
	air_error_free(err);
	air_failure_free(failure);
	air_run_free(run);
	air_get_options_free(o);
	cli_client_free(c);
	return rc;
}
