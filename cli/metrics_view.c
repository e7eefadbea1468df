/* metrics_view.c: the points of `air metrics` collected per metric, and
 * shown as line charts, as a table with sparklines, or as JSON
 * (docs/cli.md#metrics). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "metrics_cli.h"

/* ---- the points ----------------------------------------------------------------- */

cli_series *cli_metric_set_series(cli_metric_set *set, const char *key)
{
	for (size_t i = set->n; i > 0; i--) /* points come key by key: the last one first */
		if (!strcmp(set->items[i - 1].key, key))
			return &set->items[i - 1];
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 8;
		cli_series *more = realloc(set->items, cap * sizeof(*more));
		if (!more)
			return NULL;
		set->items = more;
		set->cap = cap;
	}
	set->items[set->n] = (cli_series){0};
	if (!(set->items[set->n].key = strdup(key)))
		return NULL;
	return &set->items[set->n++];
}

bool cli_series_add(cli_series *s, int64_t step, double value, int64_t timestamp)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		int64_t *steps = realloc(s->steps, cap * sizeof(*steps));
		int64_t *ts = steps ? realloc(s->timestamps, cap * sizeof(*ts)) : NULL;
		double *values = ts ? realloc(s->values, cap * sizeof(*values)) : NULL;

		if (steps)
			s->steps = steps;
		if (ts)
			s->timestamps = ts;
		if (!values)
			return false;
		s->values = values;
		s->cap = cap;
	}
	s->steps[s->n] = step;
	s->values[s->n] = value;
	s->timestamps[s->n] = timestamp;
	s->n++;
	return true;
}

size_t cli_metric_set_points(const cli_metric_set *set)
{
	size_t n = 0;

	for (size_t i = 0; i < set->n; i++)
		n += set->items[i].n;
	return n;
}

void cli_metric_set_free(cli_metric_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->items[i].key);
		free(set->items[i].steps);
		free(set->items[i].timestamps);
		free(set->items[i].values);
	}
	free(set->items);
	*set = (cli_metric_set){0};
}

/* ---- text ----------------------------------------------------------------------- */

static cli_points points_of(const cli_series *s)
{
	return (cli_points){s->steps, s->values, s->n};
}

static void print_charts(const cli_metric_set *set, int cols, int rows)
{
	/* Each chart: a title, its rows, the axis and its labels, a blank line. */
	int height = rows > 0 ? (rows - 1) / (int)set->n - 4 : 8;

	height = height < 3 ? 3 : height > 16 ? 16 : height;
	for (size_t i = 0; i < set->n; i++) {
		cli_points p = points_of(&set->items[i]);
		char *chart = cli_chart_line(cli_clean(set->items[i].key), &p, cols, height);

		if (i > 0)
			putchar('\n');
		if (chart)
			fputs(chart, stdout);
		free(chart);
	}
}

/* Lowest and highest finite value of @s (NaN when none). */
static void finite_range(const cli_series *s, double *lo, double *hi)
{
	*lo = *hi = NAN;
	for (size_t i = 0; i < s->n; i++) {
		double v = s->values[i];
		if (isfinite(v) && (isnan(*lo) || v < *lo))
			*lo = v;
		if (isfinite(v) && (isnan(*hi) || v > *hi))
			*hi = v;
	}
}

static void print_table(const cli_metric_set *set, int cols)
{
	int key_w = 6, trend;

	for (size_t i = 0; i < set->n; i++) {
		int w = (int)strlen(set->items[i].key);
		key_w = w > key_w ? w : key_w;
	}
	/* METRIC LAST MIN MAX POINTS TREND: the trend takes what is left. */
	trend = cols - key_w - 4 * 11 - 1;
	trend = trend < 8 ? 8 : trend > 60 ? 60 : trend;
	printf("%-*s %-10s %-10s %-10s %-10s %s\n", key_w, "METRIC", "LAST", "MIN", "MAX", "POINTS",
	       "TREND");
	for (size_t i = 0; i < set->n; i++) {
		const cli_series *s = &set->items[i];
		cli_points p = points_of(s);
		char last[32] = "-", min[32] = "-", max[32] = "-", *spark;
		double lo, hi;

		finite_range(s, &lo, &hi);
		if (s->n)
			cli_chart_value(s->values[s->n - 1], last, sizeof(last));
		if (!isnan(lo)) {
			cli_chart_value(lo, min, sizeof(min));
			cli_chart_value(hi, max, sizeof(max));
		}
		spark = cli_chart_sparkline(&p, trend);
		printf("%-*s %-10s %-10s %-10s %-10zu %s\n", key_w, cli_clean(s->key), last, min, max,
		       s->n, spark ? spark : "");
		free(spark);
	}
}

void cli_metrics_print_text(const cli_metric_set *set, int cols, int rows)
{
	cols = cols > 0 ? cols : 80;
	if (set->n <= CLI_METRICS_CHARTS_MAX)
		print_charts(set, cols, rows);
	else
		print_table(set, cols);
	fflush(stdout);
}

/* ---- JSON ----------------------------------------------------------------------- */

static json_t *value_json(double v)
{
	if (isnan(v))
		return json_string("NaN");
	if (isinf(v))
		return json_string(v > 0 ? "Infinity" : "-Infinity");
	return json_real(v);
}

int cli_metrics_print_json(const cli_metric_set *set, int64_t run_id)
{
	json_t *data = json_object(), *metrics = json_object();
	char id[24];

	snprintf(id, sizeof(id), "%" PRId64, run_id);
	json_object_set_new(data, "run_id", json_string(id));
	for (size_t i = 0; i < set->n; i++) {
		const cli_series *s = &set->items[i];
		json_t *list = json_array();

		for (size_t k = 0; k < s->n; k++)
			json_array_append_new(list, json_pack("{s:I, s:o, s:I}", "step",
			                                      (json_int_t)s->steps[k], "value",
			                                      value_json(s->values[k]), "timestamp",
			                                      (json_int_t)s->timestamps[k]));
		json_object_set_new(metrics, s->key, list);
	}
	json_object_set_new(data, "metrics", metrics);
	return cli_print_data(data);
}
