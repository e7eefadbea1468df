/* cmd_metrics.c: `air metrics RUN_ID [--metric NAME]... [--watch]`
 * (docs/cli.md#metrics), and the Metrics panel of `air get`. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "metrics_cli.h"

static const char metrics_usage[] = "air metrics RUN_ID [--metric NAME]... [--watch]";

static const char metrics_description[] =
	"Show how a run is learning: its MLflow metrics (system metrics such as\n"
	"system/gpu_0_utilization_percentage included), each drawn as a line chart (step on the\n"
	"x axis) sized to the terminal, or a table with a sparkline per metric when there are\n"
	"many. --watch redraws as points arrive until the run ends (the exit status is then the\n"
	"run's outcome); Ctrl-C stops watching, the run keeps going. -o json prints every point.\n";

/* What reading the histories needs besides the iterator. */
typedef struct reader {
	air_client *c;
	int64_t run_id;
	cli_metric_set *set;
	const cli_strlist *only;   /* keys kept when reading every key; NULL: all */
	bool redraw;               /* --watch on a terminal: draw at each poll */
	int32_t state;             /* the run's display state at the last poll */
	bool has_mlflow;           /* the run has an MLflow run */
} reader;

static bool wanted(const cli_strlist *only, const char *key)
{
	for (int i = 0; only && i < only->count; i++)
		if (!strcmp(only->items[i], key))
			return true;
	return !only;
}

static void draw(const reader *r, const char *state)
{
	int cols, rows;

	cli_term_size(&cols, &rows);
	cli_term_clear();
	if (cli_metric_set_points(r->set) > 0)
		cli_metrics_print_text(r->set, cols, rows > 1 ? rows - 1 : rows);
	printf("Run %" PRId64 " is %s: watching its metrics (Ctrl-C stops watching).\n", r->run_id,
	       cli_clean(state));
	fflush(stdout);
}

static int on_poll(const char *state, void *ud)
{
	const reader *r = ud;

	if (r->redraw)
		draw(r, state);
	return 0;
}

/* Every point of @key (NULL: every metric) into r->set. */
static int read_history(reader *r, const char *key, const air_metrics_options *o,
                        air_error **err)
{
	air_metric_iter *it = NULL;
	const air_metric_point *pt;
	int rc = air_client_open_metric_history(r->c, r->run_id, key, o, &it, err);

	while (rc == AIR_OK && (rc = air_metric_iter_next(it, &pt, err)) == AIR_OK) {
		const char *k = air_metric_point_key(pt);
		cli_series *s;

		if (!wanted(r->only, k))
			continue;
		if (!(s = cli_metric_set_series(r->set, k)) ||
		    !cli_series_add(s, air_metric_point_step(pt), air_metric_point_value(pt),
		                    air_metric_point_timestamp_ms(pt)))
			rc = AIR_ENOMEM;
	}
	if (it) {
		r->state = air_metric_iter_run_state(it);
		r->has_mlflow = r->has_mlflow || air_metric_iter_mlflow_run_id(it);
	}
	air_metric_iter_free(it);
	return rc == AIR_EDONE ? AIR_OK : rc;
}

static int make_options(bool watch, reader *r, air_metrics_options **out)
{
	air_metrics_options *o = NULL;
	int64_t poll = cli_logs_poll_ms();
	int rc = air_metrics_options_new(&o);

	if (rc == AIR_OK)
		rc = air_metrics_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK)
		rc = air_metrics_options_set_int(o, AIR_METRICS_FOLLOW, watch);
	if (rc == AIR_OK && poll >= 0)
		rc = air_metrics_options_set_int(o, AIR_METRICS_POLL_INTERVAL_MS, poll);
	if (rc == AIR_OK && watch)
		rc = air_metrics_options_set_poll_cb(o, on_poll, r);
	if (rc != AIR_OK) {
		air_metrics_options_free(o);
		return rc;
	}
	*out = o;
	return AIR_OK;
}

/* The histories asked for: every metric, or each --metric in its order. */
static int read_all(reader *r, const cli_strlist *names, bool watch, air_error **err)
{
	air_metrics_options *o = NULL;
	int rc = make_options(watch, r, &o);

	/* The named metrics come first, in the order given, points or not. */
	for (int i = 0; rc == AIR_OK && i < names->count; i++)
		if (!cli_metric_set_series(r->set, names->items[i]))
			rc = AIR_ENOMEM;
	if (rc != AIR_OK) {
		/* nothing to add */
	} else if (names->count == 0) {
		rc = read_history(r, NULL, o, err);
	} else if (names->count == 1 || !watch) {
		for (int i = 0; rc == AIR_OK && i < names->count; i++)
			rc = read_history(r, names->items[i], o, err);
	} else {
		/* Several metrics followed at once: every key, the others left out. */
		r->only = names;
		rc = read_history(r, NULL, o, err);
	}
	air_metrics_options_free(o);
	return rc;
}

static int print_text(const reader *r, const cli_strlist *names, bool watch)
{
	int cols, rows;

	if (r->redraw)
		cli_term_clear();
	if (names->count == 0 && cli_metric_set_points(r->set) == 0) {
		if (r->has_mlflow)
			printf("Run %" PRId64 " has no metrics: nothing was logged to its MLflow run.\n",
			       r->run_id);
		else
			printf("Run %" PRId64 " has no metrics: it has no MLflow run yet (%s).\n",
			       r->run_id, air_state_name(r->state) ? air_state_name(r->state) : "UNKNOWN");
	} else {
		cli_term_size(&cols, &rows);
		cli_metrics_print_text(r->set, cols, r->redraw ? rows : 0);
	}
	if (watch)
		printf("Run %" PRId64 " ended: %s.\n", r->run_id,
		       air_state_name(r->state) ? air_state_name(r->state) : "UNKNOWN");
	fflush(stdout);
	return 0;
}

/* The run's metric keys, up to 10, as "a, b, c" (and how many more); NULL
 * when it has none or they cannot be read. */
static char *known_keys(air_client *c, int64_t run_id)
{
	air_metrics_options *o = NULL;
	air_metrics *m = NULL;
	char *list = NULL;
	size_t n = 0, len = 0;
	FILE *f;
	int rc = air_metrics_options_new(&o);

	if (rc == AIR_OK)
		rc = air_metrics_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK)
		rc = air_client_get_metrics(c, run_id, o, &m, NULL);
	air_metrics_options_free(o);
	if (rc == AIR_OK)
		n = air_metrics_count(m);
	if (n > 0 && (f = open_memstream(&list, &len)) != NULL) {
		for (size_t i = 0; i < n && i < 10; i++)
			fprintf(f, "%s%s", i ? ", " : "", cli_clean(air_metrics_key(m, i)));
		if (n > 10)
			fprintf(f, " and %zu more", n - 10);
		if (fclose(f) != 0) {
			free(list);
			list = NULL;
		}
	}
	air_metrics_free(m);
	return list;
}

/* A --metric the ended run never logged is named on stderr with the metrics
 * it has (a typo, most often); the exit status is unchanged. */
static void note_unknown(const reader *r, const cli_strlist *names)
{
	char *known = NULL;
	bool looked = false;

	if (!air_state_is_terminal(r->state) || !r->has_mlflow)
		return;
	for (size_t i = 0; i < r->set->n && i < (size_t)names->count; i++) {
		if (r->set->items[i].n > 0)
			continue;
		if (!looked)
			known = known_keys(r->c, r->run_id);
		looked = true;
		fprintf(stderr, "Note: run %" PRId64 " has no metric \"%s\"; %s%s.\n", r->run_id,
		        cli_clean(r->set->items[i].key), known ? "its metrics: " : "it has none",
		        known ? known : "");
	}
	free(known);
}

int cmd_metrics(int argc, char **argv, cli_globals *g)
{
	cli_strlist names = {NULL, 0}, pos = {NULL, 0};
	bool watch = false;
	const cli_flag flags[] = {
		{"metric", 0, CLI_STRING_LIST, &names, NULL, "NAME",
		 "only this metric (repeatable; default: every metric of the run)", false},
		{"watch", 0, CLI_BOOL, &watch, NULL, NULL,
		 "redraw as points arrive until the run ends; exit with its outcome", false},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};
	cli_metric_set set = {0};
	reader r = {0};
	air_error *err = NULL;
	int64_t id = 0;
	int rc = 0;

	if (cli_wants_help(argc, argv)) {
		fputs(metrics_description, stdout);
		cli_print_usage(stdout, metrics_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, metrics_usage)) {
		rc = 1;
	} else if (pos.count != 1) {
		rc = cli_error("accepts 1 arg(s), received %d", pos.count);
		cli_print_usage(stderr, metrics_usage, flags);
	} else if (!cli_parse_run_id(pos.items[0], &id)) {
		rc = cli_runs_invalid(g, "invalid run ID \"%s\": must be a positive integer (a Job Run ID)",
		                      pos.items[0]);
	}
	for (int i = 0; rc == 0 && i < names.count; i++)
		if (!*names.items[i])
			rc = cli_runs_invalid(g, "--metric needs a metric name");
	if (rc == 0 && cli_runs_open(g, 0, &r.c, NULL) != 0)
		rc = 1;
	if (rc == 0) {
		r.run_id = id;
		r.set = &set;
		r.redraw = watch && !g->json && cli_isatty_stdout();
		rc = read_all(&r, &names, watch, &err);
		if (rc == AIR_EINTERRUPTED || cli_interrupted())
			rc = watch ? cli_report_follow_interrupted(id, air_state_is_terminal(r.state))
			           : cli_report_interrupted();
		else if (rc != AIR_OK)
			rc = cli_runs_fail(g, CLI_STAGE_CALL, rc, err);
		else if (g->json ? cli_metrics_print_json(&set, id) : print_text(&r, &names, watch))
			rc = 1;
		/* Watching ends with the run: its outcome is the exit status. */
		else
			rc = watch && r.state != AIR_STATE_SUCCESS ? 1 : 0;
		if (rc == 0 || (watch && air_state_is_terminal(r.state)))
			note_unknown(&r, &names);
	}
	air_error_free(err);
	cli_metric_set_free(&set);
	cli_client_free(r.c);
	cli_strlist_free(&pos);
	cli_strlist_free(&names);
	return rc;
}

/* ---- the Metrics panel of `air get` ---------------------------------------------- */

/* MLflow's system metrics: "system/gpu_0_utilization_percentage", ... */
static int is_system(const char *key)
{
	return !strncmp(key, "system/", strlen("system/"));
}

/* The lines of the panel: the latest value of up to CLI_METRICS_PANEL_MAX
 * metrics, those of the workload first, then the system metrics. */
int cli_metrics_panel(air_client *c, int64_t run_id, char ***rows, size_t *count)
{
	air_metrics_options *o = NULL;
	air_metrics *m = NULL;
	size_t n = 0, shown = 0;
	int key_w = 0, rc;

	*rows = NULL;
	*count = 0;
	rc = air_metrics_options_new(&o);
	if (rc == AIR_OK)
		rc = air_metrics_options_set_interrupt(o, cli_interrupt());
	if (rc == AIR_OK)
		rc = air_client_get_metrics(c, run_id, o, &m, NULL);
	air_metrics_options_free(o);
	if (rc == AIR_EINTERRUPTED || cli_interrupted())
		return cli_report_interrupted();
	/* Best effort: no panel when the metrics cannot be read. */
	if (rc != AIR_OK || !(n = air_metrics_count(m)) || !(*rows = calloc(CLI_METRICS_PANEL_MAX + 1,
	                                                                  sizeof(**rows)))) {
		air_metrics_free(m);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		int w = (int)strlen(air_metrics_key(m, i));
		key_w = w > key_w ? (w > 40 ? 40 : w) : key_w;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n && shown < CLI_METRICS_PANEL_MAX; i++) {
			const char *key = air_metrics_key(m, i);
			char value[32];

			if (is_system(key) != pass)
				continue;
			cli_chart_value(air_metrics_value(m, i), value, sizeof(value));
			if (asprintf(&(*rows)[shown], "%-*s  %s (step %" PRId64 ")", key_w, cli_clean(key),
			             value, air_metrics_step(m, i)) >= 0)
				shown++;
		}
	}
	if (n > shown && asprintf(&(*rows)[shown], "(%zu more: air metrics %" PRId64 ")", n - shown,
	                          run_id) >= 0)
		shown++;
	*count = shown;
	air_metrics_free(m);
	return 0;
}
