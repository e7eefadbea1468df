/*
 * chart.h: metrics drawn as text (UTF-8) for `air metrics`: a line chart of
 * braille dots (step on the x axis, value on the y axis, min, max and last
 * labelled), a sparkline of block characters, and values as people read
 * them. Pure functions of their input (no terminal access), so that their
 * output is tested character for character (tests/cli/test_chart.c).
 */
#ifndef AIR_CLI_CHART_H
#define AIR_CLI_CHART_H

#include <stddef.h>
#include <stdint.h>

/* The points of one metric, in the order they were logged. */
typedef struct cli_points {
	const int64_t *steps;
	const double *values;
	size_t n;
} cli_points;

/* @v as "%.4g", or "NaN", "inf", "-inf". */
void cli_chart_value(double v, char *out, size_t n);

/*
 * A line chart of @p, @width columns wide (40 at least): a title line
 * ("<title>  last V (step S)  min V  max V"), @height rows (2 at least) of
 * braille dots with the y axis labelled with the maximum (top) and the
 * minimum (bottom), then the x axis with the first and last step. Points
 * are joined by lines; NaN and infinite values are not drawn and break the
 * line. Every line ends with "\n". malloc'ed (free()); NULL when out of memory.
 */
char *cli_chart_line(const char *title, const cli_points *p, int width, int height);

/* @p as @width (or fewer, one per point) cells of ▁▂▃▄▅▆▇█: the mean of the
 * finite values of each run of points, scaled from their lowest to their
 * highest; a cell without a finite value is a space. malloc'ed (free()). */
char *cli_chart_sparkline(const cli_points *p, int width);

#endif /* AIR_CLI_CHART_H */
