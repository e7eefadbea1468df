/* cmd_list.c: `air list` (docs/runs-and-logs.md#listing-runs). Every
 * failure is a plain "Error:" line, also in JSON mode. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runs_cli.h"

static const char list_usage[] =
	"air list [--all-status] [--all-users] [--limit N] [--filter KEY=VALUE]... [--sweep BASE]"
	" | air list pools";

/* A row's times come from tasks[0] (else the run), docs/runs-and-logs.md#listing-runs. */
typedef struct row_times {
	int64_t start_ms, end_ms;
} row_times;

static row_times times_of(const air_run *run)
{
	row_times t = {0, 0};
	char *raw = NULL;
	json_t *obj = NULL, *task;
	json_int_t start = 0, end = 0, tstart = 0, tend = 0;

	if (air_run_to_json(run, &raw, NULL) == AIR_OK)
		obj = json_loads(raw, 0, NULL);
	air_free(raw);
	json_unpack(obj, "{s?I s?I}", "start_time", &start, "end_time", &end);
	task = json_array_get(json_object_get(obj, "tasks"), 0);
	json_unpack(task, "{s?I s?I}", "start_time", &tstart, "end_time", &tend);
	json_decref(obj);
	t.start_ms = tstart > 0 ? (int64_t)tstart : (int64_t)start;
	t.end_ms = tend > 0 ? (int64_t)tend : (int64_t)end;
	return t;
}

static json_t *json_row(const air_run *run)
{
	json_t *r = json_object();
	char id[24];

	snprintf(id, sizeof(id), "%" PRId64, air_run_id(run));
	json_object_set_new(r, "run_id", json_string(id));
	json_object_set_new(r, "run_name", air_run_name(run) ? json_string(air_run_name(run))
	                                                     : json_null());
	json_object_set_new(r, "user", air_run_creator(run) ? json_string(air_run_creator(run))
	                                                    : json_null());
	json_object_set_new(r, "status", json_string(air_run_state_name(run)));
	json_object_set_new(r, "started_at", cli_json_time(times_of(run).start_ms));
	json_object_set_new(r, "is_sweep", json_boolean(air_run_is_sweep(run)));
	return r;
}

/* ---- text table (also the rows of the interactive view, list_pager.c) ---- */

#define NCOLS CLI_LIST_COLS

const char *const cli_list_headers[CLI_LIST_COLS] = {
	"Run ID", "Experiment", "Status", "Started", "Duration", "MLflow", "User", "Accelerators"};

/* A cell: the server's text cleaned for the terminal, "-" when missing. */
static char *dup_or_dash(const char *s) { return strdup(s && *s ? cli_clean(s) : "-"); }

static char *dup_or_null(const char *s) { return s && *s ? strdup(s) : NULL; }

void cli_list_table_add(cli_list_table *t, const air_run *run)
{
	char *(*cells)[NCOLS] = realloc(t->cells, (t->n + 1) * sizeof(*cells));
	cli_list_run *runs;
	row_times tm = times_of(run);
	char buf[64];
	const char *name = air_run_mlflow_run_name(run), *mid = air_run_mlflow_run_id(run);

	if (!cells)
		return;
	t->cells = cells;
	if (!(runs = realloc(t->runs, (t->n + 1) * sizeof(*runs))))
		return;
	t->runs = runs;
	runs[t->n].run_id = air_run_id(run);
	runs[t->n].dashboard_url = dup_or_null(air_run_dashboard_url(run));
	runs[t->n].mlflow_url = dup_or_null(air_run_mlflow_run_url(run));
	runs[t->n].state_message = dup_or_null(air_run_state_message(run));
	snprintf(buf, sizeof(buf), "%" PRId64, air_run_id(run));
	cells[t->n][0] = strdup(buf);
	cells[t->n][1] = dup_or_dash(air_run_experiment_name(run));
	cells[t->n][2] = dup_or_dash(air_run_state_name(run));
	if (tm.start_ms > 0)
		cli_format_local_iso(tm.start_ms, buf, sizeof(buf));
	cells[t->n][3] = dup_or_dash(tm.start_ms > 0 ? buf : NULL);
	if (tm.start_ms > 0)
		cli_format_duration(cli_duration_s(tm.start_ms, tm.end_ms), buf, sizeof(buf));
	cells[t->n][4] = dup_or_dash(tm.start_ms > 0 ? buf : NULL);
	if (mid && !(name && *name))
		snprintf(buf, sizeof(buf), "...%s", cli_clean(strlen(mid) > 8 ? mid + strlen(mid) - 8 : mid));
	cells[t->n][5] = dup_or_dash(name && *name ? name : mid ? buf : NULL);
	cells[t->n][6] = dup_or_dash(air_run_creator(run));
	cells[t->n][7] = dup_or_dash(air_run_accelerators(run));
	t->n++;
}

void cli_list_table_widths(const cli_list_table *t, size_t w[CLI_LIST_COLS])
{
	for (int c = 0; c < NCOLS; c++) {
		w[c] = strlen(cli_list_headers[c]);
		for (size_t r = 0; r < t->n; r++)
			if (t->cells[r][c] && strlen(t->cells[r][c]) > w[c])
				w[c] = strlen(t->cells[r][c]);
	}
}

static void table_print(const cli_list_table *t)
{
	size_t w[NCOLS];

	cli_list_table_widths(t, w);
	for (int c = 0; c < NCOLS; c++)
		printf("%-*s%s", (int)w[c], cli_list_headers[c], c + 1 < NCOLS ? "  " : "\n");
	for (size_t r = 0; r < t->n; r++)
		for (int c = 0; c < NCOLS; c++)
			printf("%-*s%s", (int)w[c], t->cells[r][c] ? t->cells[r][c] : "-",
			       c + 1 < NCOLS ? "  " : "\n");
}

void cli_list_table_free(cli_list_table *t)
{
	for (size_t r = 0; r < t->n; r++) {
		for (int c = 0; c < NCOLS; c++)
			free(t->cells[r][c]);
		free(t->runs[r].dashboard_url);
		free(t->runs[r].mlflow_url);
		free(t->runs[r].state_message);
	}
	free(t->cells);
	free(t->runs);
}

/* What the command line asks for. */
typedef struct list_args {
	int64_t limit;
	bool all_status, all_users;
	cli_strlist filters;
} list_args;

/* A run the listing leaves out (damaged): said on stderr, the rest goes on. */
static int report_skipped(int64_t run_id, const air_error *problem, void *userdata)
{
	(void)run_id;
	(void)userdata;
	fprintf(stderr, "Warning: %s\n", cli_clean_lines(air_error_message(problem)));
	return 0;
}

static int build_options(const cli_globals *g, int64_t limit, bool all_status, bool all_users,
                         const cli_strlist *filters, air_list_options **out)
{
	air_list_options *o = NULL;
	air_error *err = NULL;
	int rc = air_list_options_new(&o);

	if (rc == AIR_OK && limit <= 0) {
		air_list_options_free(o);
		return cli_error("--limit must be greater than 0, got %" PRId64, limit);
	}
	if (rc == AIR_OK)
		rc = air_list_options_set_int(o, AIR_LIST_LIMIT, limit);
	if (rc == AIR_OK)
		rc = air_list_options_set_int(o, AIR_LIST_ALL_STATUS, all_status);
	if (rc == AIR_OK)
		rc = air_list_options_set_int(o, AIR_LIST_ALL_USERS, all_users);
	if (rc == AIR_OK)
		rc = air_list_options_set_int(o, AIR_LIST_MLFLOW, !g->json);
	if (rc == AIR_OK)
		rc = air_list_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK)
		rc = air_list_options_set_skip_cb(o, report_skipped, NULL);
	for (int i = 0; rc == AIR_OK && i < filters->count; i++)
		rc = air_list_options_add_filter(o, filters->items[i], &err);
	if (rc != AIR_OK) {
		cli_error_air(err, rc);
		air_error_free(err);
		air_list_options_free(o);
		return 1;
	}
	*out = o;
	return 0;
}

/* On a terminal, without --limit: the interactive view (the official CLI's
 * pager); a plain table when stdout or stdin is not a terminal or TERM is
 * dumb or unset. */
static bool interactive(const cli_globals *g, bool limit_given)
{
	const char *term = getenv("TERM");

	return !g->json && !limit_given && cli_isatty_stdout() && isatty(STDIN_FILENO) && term &&
	       *term && strcmp(term, "dumb") != 0;
}

/* Finished runs an active-only listing left out, up to @cap + 1 (the
 * listing stops there); -1 when they could not be counted. */
static int64_t count_finished(const cli_globals *g, air_client *c, const list_args *a,
                              int64_t cap)
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	const air_run *run;
	int64_t n = 0;
	int rc;

	if (build_options(g, cap + 1, true, a->all_users, &a->filters, &o) != 0)
		return -1;
	/* The listing before this one already warned of damaged runs. */
	rc = air_list_options_set_int(o, AIR_LIST_MLFLOW, 0);
	if (rc == AIR_OK)
		rc = air_list_options_set_skip_cb(o, NULL, NULL);
	if (rc == AIR_OK)
		rc = air_client_list_runs(c, o, &it, NULL);
	while (rc == AIR_OK && (rc = air_run_iter_next(it, &run, NULL)) == AIR_OK)
		n += air_run_is_terminal(run) != 0;
	air_run_iter_free(it);
	air_list_options_free(o);
	return rc == AIR_EDONE ? n : -1;
}

/* Nothing to show. Without --all-status, say how many finished runs there
 * are and how to see them (stdout keeps its single line). */
static void print_no_runs(const cli_globals *g, air_client *c, const list_args *a)
{
	int64_t n = a->all_status ? 0 : count_finished(g, c, a, a->limit);

	puts(n > 0 ? "No active runs found." : "No runs found.");
	fflush(stdout);
	if (n <= 0)
		return;
	if (n > a->limit)
		fprintf(stderr, "more than %" PRId64 " finished runs are not shown", a->limit);
	else
		fprintf(stderr, "%" PRId64 " finished run%s not shown", n, n == 1 ? " is" : "s are");
	if (a->filters.count)
		fprintf(stderr, "; add --all-status to list them.\n");
	else
		fprintf(stderr, "; `air list --all-status%s%s` lists %s.\n",
		        a->all_users ? " --all-users" : "", cli_target_flags(), n == 1 ? "it" : "them");
}

static int run_listing(const cli_globals *g, const air_list_options *o, const list_args *a,
                       bool pager)
{
	air_client *c = NULL;
	air_run_iter *it = NULL;
	air_error *err = NULL;
	const air_run *run;
	json_t *rows = json_array();
	cli_list_table t = {NULL, NULL, 0};
	int rc = cli_client_new(g, &c, &err);

	if (rc == AIR_OK)
		rc = air_client_list_runs(c, o, &it, &err);
	if (rc == AIR_OK && pager) {
		bool empty = false;
		rc = cli_list_pager(c, it, &empty);
		if (empty)
			print_no_runs(g, c, a);
		json_decref(rows);
		air_run_iter_free(it);
		cli_client_free(c);
		return rc;
	}
	while (rc == AIR_OK && (rc = air_run_iter_next(it, &run, &err)) == AIR_OK) {
		if (g->json)
			json_array_append_new(rows, json_row(run));
		else
			cli_list_table_add(&t, run);
	}
	if (rc == AIR_EDONE)
		rc = AIR_OK;
	if (rc != AIR_OK) {
		cli_error_air(err, rc);
		rc = 1;
	} else {
		if (air_run_iter_truncated(it))
			fprintf(stderr, "Warning: stopped after inspecting the most recent runs; the list "
			                "may be incomplete (narrow it with --filter).\n");
		if (g->json) {
			json_t *data = json_object();
			json_object_set(data, "runs", rows);
			rc = cli_print_data(data);
		} else {
			if (t.n)
				table_print(&t);
			else
				print_no_runs(g, c, a);
			fflush(stdout);
			rc = cli_interrupted() ? cli_report_interrupted() : 0;
		}
	}
	json_decref(rows);
	cli_list_table_free(&t);
	air_error_free(err);
	air_run_iter_free(it);
	cli_client_free(c);
	return rc;
}

int cmd_list(int argc, char **argv, cli_globals *g)
{
	list_args a = {20, false, false, {NULL, 0}};
	const char *sweep = NULL;
	char *sweep_filter = NULL;
	bool limit_given = false, pager;
	cli_strlist pos = {NULL, 0};
	const cli_flag flags[] = {
		{"all-status", 0, CLI_BOOL, &a.all_status, NULL, NULL, "include finished runs", false},
		{"all-users", 0, CLI_BOOL, &a.all_users, NULL, NULL, "include other users' runs", false},
		{"limit", 0, CLI_INT, &a.limit, &limit_given, "N",
		 "most runs to show (default 20; on a terminal, without it, an interactive view pages "
		 "through all of them)", false},
		{"filter", 0, CLI_STRING_LIST, &a.filters, NULL, "KEY=VALUE",
		 "user, experiment (glob), accelerator_type, num_accelerators; repeatable", false},
		{"sweep", 0, CLI_STRING, &sweep, NULL, "BASE",
		 "the runs of the sweep with this base key (finished ones too; all of them without "
		 "--limit)", false},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};
	air_list_options *o = NULL;
	const char *sub = cli_first_positional(argc, argv, flags);
	int rc;

	/* `air list pools` has flags (and help) of its own. */
	if (sub && !strcmp(sub, "pools"))
		return cmd_list_pools(argc, argv, g);
	if (cli_wants_help(argc, argv)) {
		cli_print_usage(stdout, list_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, list_usage)) {
		cli_strlist_free(&pos);
		cli_strlist_free(&a.filters);
		return 1;
	}
	if (pos.count) {
		rc = cli_error("unknown command \"%s\" for \"air list\"", pos.items[0]);
		cli_print_usage(stderr, list_usage, flags);
	} else {
		if (sweep) {
			/* A sweep's runs are a set: all of them, whatever their state. */
			sweep_filter = malloc(strlen(sweep) + sizeof("sweep="));
			if (sweep_filter)
				sprintf(sweep_filter, "sweep=%s", sweep);
			if (!sweep_filter || !cli_strlist_push(&a.filters, sweep_filter))
				return cli_error("out of memory");
			a.all_status = true;
			if (!limit_given)
				a.limit = AIR_SWEEP_LIMIT_VARIANTS;
		}
		pager = interactive(g, limit_given);
		rc = build_options(g, pager ? CLI_PAGER_LIMIT : a.limit, a.all_status, a.all_users,
		                   &a.filters, &o);
		if (rc == 0)
			rc = run_listing(g, o, &a, pager);
	}
	air_list_options_free(o);
	cli_strlist_free(&pos);
	cli_strlist_free(&a.filters);
	free(sweep_filter);
	return rc;
}
