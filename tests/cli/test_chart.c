/* test_chart.c: the charts of `air metrics` (cli/chart.c), character for
 * character: braille line charts with their labels and axes, NaN breaking a
 * line, flat series, sparklines and value formatting. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "chart.h"
#include "test.h"

static void expect_chart(const char *title, const int64_t *steps, const double *values, size_t n,
                         int width, int height, const char *want)
{
	cli_points p = {steps, values, n};
	char *got = cli_chart_line(title, &p, width, height);

	ASSERT_EQ_STR(got, want);
	free(got);
}

static void expect_spark(const double *values, size_t n, int width, const char *want)
{
	int64_t steps[64] = {0};
	cli_points p = {steps, values, n};
	char *got = cli_chart_sparkline(&p, width);

	ASSERT_EQ_STR(got, want);
	free(got);
}

AIR_TEST(chart__values_read_like_numbers)
{
	char b[32];

	cli_chart_value(0.5, b, sizeof(b));
	ASSERT_EQ_STR(b, "0.5");
	cli_chart_value(1234567, b, sizeof(b));
	ASSERT_EQ_STR(b, "1.235e+06");
	cli_chart_value(0.000123456, b, sizeof(b));
	ASSERT_EQ_STR(b, "0.0001235");
	cli_chart_value(-0.0, b, sizeof(b));
	ASSERT_EQ_STR(b, "0");
	cli_chart_value(NAN, b, sizeof(b));
	ASSERT_EQ_STR(b, "NaN");
	cli_chart_value(INFINITY, b, sizeof(b));
	ASSERT_EQ_STR(b, "Infinity");
	cli_chart_value(-INFINITY, b, sizeof(b));
	ASSERT_EQ_STR(b, "-Infinity");
}

AIR_TEST(chart__a_falling_line_with_min_max_and_last)
{
	static const int64_t steps[] = {0, 1, 2, 3, 4};
	static const double values[] = {4, 2, 1, 0.5, 0.25};

	expect_chart("loss", steps, values, 5, 40, 3,
		"loss  last 0.25 (step 4)  min 0.25  max 4\n"
		"   4 ┤⠉⠒⠢⠤⣀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
		"     │⠀⠀⠀⠀⠀⠉⠑⠒⠤⠤⣀⣀⣀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
		"0.25 ┤⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠉⠉⠉⠒⠒⠒⠒⠒⠤⠤⠤⠤⠤⠤⠤⠤⢄⣀⣀⣀⣀\n"
		"     └──────────────────────────────────\n"
		"      0                                4  step\n");
}

AIR_TEST(chart__nan_breaks_the_line)
{
	static const int64_t steps[] = {0, 5, 10};
	static const double values[] = {1, NAN, 3};

	expect_chart("gap", steps, values, 3, 40, 2,
		"gap  last 3 (step 10)  min 1  max 3\n"
		"3 ┤⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠈\n"
		"1 ┤⡀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
		"  └─────────────────────────────────────\n"
		"   0                                  10  step\n");
}

AIR_TEST(chart__a_flat_line_sits_in_the_middle)
{
	static const int64_t steps[] = {0, 10};
	static const double values[] = {5, 5};
	/* Dot row 3 of 8: the top dots of the bottom cells (0x01 | 0x08), every column. */
	const char *want =
		"flat  last 5 (step 10)  min 5  max 5\n"
		"5 ┤⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀⠀\n"
		"5 ┤⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉⠉\n"
		"  └─────────────────────────────────────\n"
		"   0                                  10  step\n";

	expect_chart("flat", steps, values, 2, 40, 2, want);
}

AIR_TEST(chart__no_points_or_no_finite_value_say_so)
{
	static const int64_t steps[] = {3};
	static const double values[] = {NAN};

	expect_chart("empty", steps, values, 0, 60, 4, "empty  (no points)\n");
	expect_chart("odd", steps, values, 1, 60, 4,
	             "odd  last NaN (step 3)\n  (no finite value to draw)\n");
}

AIR_TEST(chart__the_width_is_the_terminal_s)
{
	static const int64_t steps[] = {0, 1};
	static const double values[] = {1, 2};
	cli_points p = {steps, values, 2};

	for (int width = 40; width <= 200; width += 37) {
		char *got = cli_chart_line("w", &p, width, 4), *line = got;
		int rows = 0;

		/* Every row of the plot: "<label> ┤" or "│", then width - 3 cells. */
		for (char *nl; (nl = strchr(line, '\n')); line = nl + 1) {
			size_t chars = 0;
			for (char *c = line; c < nl; c++)
				chars += ((unsigned char)*c & 0xC0) != 0x80;
			if (line != got && rows < 4) {
				ASSERT_EQ_INT(chars, (size_t)width);
				rows++;
			}
		}
		ASSERT_EQ_INT(rows, 4);
		free(got);
	}
}

/* A steep line is joined: every row of the plot has dots. */
AIR_TEST(chart__points_are_joined_by_lines)
{
	static const int64_t steps[] = {0, 1, 2};
	static const double values[] = {0, 100, 0};
	cli_points p = {steps, values, 3};
	char *got = cli_chart_line("steep", &p, 40, 6), *line = strchr(got, '\n') + 1;

	for (int r = 0; r < 6; r++) {
		char *nl = strchr(line, '\n');
		bool dots = false;

		/* A braille cell other than U+2800 (E2 A0 80). */
		for (char *c = line; c + 2 < nl; c++)
			if ((unsigned char)c[0] == 0xE2 && ((unsigned char)c[1] & 0xFC) == 0xA0 &&
			    !((unsigned char)c[1] == 0xA0 && (unsigned char)c[2] == 0x80))
				dots = true;
		if (!dots)
			FAIL("row %d has no dot: %s", r, got);
		line = nl + 1;
	}
	free(got);
}

AIR_TEST(chart__sparklines_scale_means_to_eight_levels)
{
	static const double rising[] = {1, 2, 3, 4, 5, 6, 7, 8};
	static const double flat[] = {5, 5, 5};
	static const double gap[] = {1, NAN, 2};
	static const double pairs[] = {1, 1, 2, 2, 3, 3, 8, 8};

	expect_spark(rising, 8, 8, "▁▂▃▄▅▆▇█");
	expect_spark(rising, 8, 40, "▁▂▃▄▅▆▇█"); /* one cell per point at most */
	expect_spark(flat, 3, 10, "▄▄▄");
	expect_spark(gap, 3, 3, "▁ █");
	expect_spark(pairs, 8, 4, "▁▂▃█");
	expect_spark(rising, 0, 8, "");
}
