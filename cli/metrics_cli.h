/*
 * metrics_cli.h: what `air metrics` (cmd_metrics.c) and its views
 * (metrics_view.c) share: the points collected per metric, and how they
 * are shown (charts, a table with sparklines, JSON).
 */
#ifndef AIR_METRICS_CLI_H
#define AIR_METRICS_CLI_H

#include "runs_cli.h"

/* The points of one metric, in the order they came. */
typedef struct cli_series {
	char *key;
	int64_t *steps, *timestamps;
	double *values;
	size_t n, cap;
} cli_series;

/* Every metric shown, in order (the --metric order, else by key). */
typedef struct cli_metric_set {
	cli_series *items;
	size_t n, cap;
} cli_metric_set;

/* The series of @key, added (empty) when new; NULL when out of memory. */
cli_series *cli_metric_set_series(cli_metric_set *set, const char *key);
/* Append a point; false when out of memory. */
bool cli_series_add(cli_series *s, int64_t step, double value, int64_t timestamp);
/* Points of all series together. */
size_t cli_metric_set_points(const cli_metric_set *set);
void cli_metric_set_free(cli_metric_set *set);

/* More metrics than this are a table with a sparkline per metric. */
#define CLI_METRICS_CHARTS_MAX 4

/* Text: a line chart per metric sized to the terminal (@cols x @rows, 0 =
 * unknown: 80 columns, charts of 8 rows), or the table beyond
 * CLI_METRICS_CHARTS_MAX metrics. */
void cli_metrics_print_text(const cli_metric_set *set, int cols, int rows);
/* JSON: the envelope {"run_id", "metrics": {key: [{"step","value","timestamp"}]}};
 * NaN and the infinities as "NaN", "Infinity", "-Infinity". */
int cli_metrics_print_json(const cli_metric_set *set, int64_t run_id);

#endif /* AIR_METRICS_CLI_H */
