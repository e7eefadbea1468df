/* chart.c: see chart.h. */
#include "chart.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing string; on allocation failure it stays failed (ptr NULL). */
typedef struct text {
	char *ptr;
	size_t len, cap;
	bool failed;
} text;

static void put(text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *more = realloc(t->ptr, cap);
		if (!more) {
			free(t->ptr);
			*t = (text){NULL, 0, 0, true};
			return;
		}
		t->ptr = more;
		t->cap = cap;
	}
	memcpy(t->ptr + t->len, s, n);
	t->len += n;
	t->ptr[t->len] = '\0';
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

static void putf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(text *t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(t, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void repeat(text *t, const char *s, int n)
{
	for (int i = 0; i < n; i++)
		puts_(t, s);
}

static char *done(text *t)
{
	if (!t->failed && !t->ptr)
		puts_(t, "");
	return t->failed ? NULL : t->ptr;
}

void cli_chart_value(double v, char *out, size_t n)
{
	if (isnan(v))
		snprintf(out, n, "NaN");
	else if (isinf(v))
		snprintf(out, n, "%s", v > 0 ? "Infinity" : "-Infinity"); /* as in JSON */
	else
		snprintf(out, n, "%.4g", v == 0 ? 0.0 : v); /* no "-0" */
}

/* ---- the line chart ------------------------------------------------------------- */

/* Braille cells: each holds 2 x 4 dots; dot (x, y) of a cell is this bit. */
static const unsigned char dot_bit[4][2] = {
	{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80},
};

typedef struct canvas {
	unsigned char *cells; /* rows * cols */
	int rows, cols;       /* in cells; dots are 2x and 4x */
} canvas;

/* Dot (x, y) with y counted from the bottom. */
static void plot(canvas *c, int x, int y)
{
	int row = c->rows - 1 - y / 4, dy = 3 - y % 4;

	if (x < 0 || y < 0 || x >= 2 * c->cols || y >= 4 * c->rows)
		return;
	c->cells[row * c->cols + x / 2] |= dot_bit[dy][x % 2];
}

/* Bresenham between two dots. */
static void line(canvas *c, int x0, int y0, int x1, int y1)
{
	int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
	int e = dx + dy;

	for (;;) {
		int e2 = 2 * e;

		plot(c, x0, y0);
		if (x0 == x1 && y0 == y1)
			break;
		if (e2 >= dy) {
			e += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			e += dx;
			y0 += sy;
		}
	}
}

static void put_cell(text *t, unsigned char bits)
{
	/* U+2800 + bits in UTF-8. */
	char u[4] = {(char)0xE2, (char)(0xA0 | (bits >> 6)), (char)(0x80 | (bits & 0x3F)), 0};
	put(t, u, 3);
}

/* Lowest and highest finite value (false when there is none), and the
 * step range. */
static bool ranges(const cli_points *p, double *lo, double *hi, int64_t *s0, int64_t *s1)
{
	bool any = false;

	*s0 = *s1 = p->n ? p->steps[0] : 0;
	for (size_t i = 0; i < p->n; i++) {
		double v = p->values[i];

		if (p->steps[i] < *s0)
			*s0 = p->steps[i];
		if (p->steps[i] > *s1)
			*s1 = p->steps[i];
		if (!isfinite(v))
			continue;
		if (!any || v < *lo)
			*lo = v;
		if (!any || v > *hi)
			*hi = v;
		any = true;
	}
	return any;
}

static void title_line(text *t, const char *title, const cli_points *p, double lo, double hi,
                       bool any)
{
	char last[32], min[32], max[32];

	puts_(t, title);
	if (p->n == 0) {
		puts_(t, "  (no points)\n");
		return;
	}
	cli_chart_value(p->values[p->n - 1], last, sizeof(last));
	putf(t, "  last %s (step %lld)", last, (long long)p->steps[p->n - 1]);
	if (any) {
		cli_chart_value(lo, min, sizeof(min));
		cli_chart_value(hi, max, sizeof(max));
		putf(t, "  min %s  max %s", min, max);
	}
	puts_(t, "\n");
}

static void draw(canvas *c, const cli_points *p, double lo, double hi, int64_t s0, int64_t s1)
{
	int w = 2 * c->cols - 1, h = 4 * c->rows - 1, px = 0, py = 0;
	bool have_prev = false;

	for (size_t i = 0; i < p->n; i++) {
		double v = p->values[i];
		int x, y;

		if (!isfinite(v)) {
			have_prev = false;
			continue;
		}
		x = s1 == s0 ? 0 : (int)lround((double)(p->steps[i] - s0) * w / (double)(s1 - s0));
		y = hi == lo ? h / 2 : (int)lround((v - lo) * h / (hi - lo));
		if (have_prev)
			line(c, px, py, x, y);
		else
			plot(c, x, y);
		px = x;
		py = y;
		have_prev = true;
	}
}

char *cli_chart_line(const char *title, const cli_points *p, int width, int height)
{
	text t = {NULL, 0, 0, false};
	char min[32], max[32], first[32], last[32];
	double lo = 0, hi = 0;
	int64_t s0, s1;
	bool any = ranges(p, &lo, &hi, &s0, &s1);
	int label, plot_w;
	canvas c;

	title_line(&t, title, p, lo, hi, any);
	if (!any) {
		if (p->n)
			puts_(&t, "  (no finite value to draw)\n");
		return done(&t);
	}
	width = width < 40 ? 40 : width;
	height = height < 2 ? 2 : height;
	cli_chart_value(hi, max, sizeof(max));
	cli_chart_value(lo, min, sizeof(min));
	label = (int)(strlen(max) > strlen(min) ? strlen(max) : strlen(min));
	plot_w = width - label - 2;
	c = (canvas){calloc((size_t)height * (size_t)plot_w, 1), height, plot_w};
	if (!c.cells) {
		free(t.ptr);
		return NULL;
	}
	draw(&c, p, lo, hi, s0, s1);
	for (int r = 0; r < height; r++) {
		const char *lab = r == 0 ? max : r == height - 1 ? min : "";
		putf(&t, "%*s %s", label, lab, *lab ? "┤" : "│");
		for (int k = 0; k < plot_w; k++)
			put_cell(&t, c.cells[r * plot_w + k]);
		puts_(&t, "\n");
	}
	free(c.cells);
	putf(&t, "%*s └", label, "");
	repeat(&t, "─", plot_w);
	snprintf(first, sizeof(first), "%lld", (long long)s0);
	snprintf(last, sizeof(last), "%lld", (long long)s1);
	putf(&t, "\n%*s  %s", label, "", first);
	if (s1 != s0 && (int)(strlen(first) + strlen(last)) < plot_w)
		putf(&t, "%*s", plot_w - (int)strlen(first), last);
	puts_(&t, "  step\n");
	return done(&t);
}

/* ---- the sparkline -------------------------------------------------------------- */

char *cli_chart_sparkline(const cli_points *p, int width)
{
	static const char *const blocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	text t = {NULL, 0, 0, false};
	size_t cells = width < 1 ? 1 : (size_t)width;
	double *mean, lo = 0, hi = 0;
	bool any = false;

	if (p->n < cells)
		cells = p->n;
	if (!(mean = calloc(cells ? cells : 1, sizeof(*mean))))
		return NULL;
	/* Cell k: the mean of the finite values of points [k*n/cells, (k+1)*n/cells). */
	for (size_t k = 0; k < cells; k++) {
		size_t a = k * p->n / cells, b = (k + 1) * p->n / cells, m = 0;
		double sum = 0;

		for (size_t i = a; i < b; i++)
			if (isfinite(p->values[i])) {
				sum += p->values[i];
				m++;
			}
		mean[k] = m ? sum / (double)m : NAN;
		if (m && (!any || mean[k] < lo))
			lo = mean[k];
		if (m && (!any || mean[k] > hi))
			hi = mean[k];
		any = any || m;
	}
	for (size_t k = 0; k < cells; k++) {
		if (isnan(mean[k]))
			puts_(&t, " ");
		else
			puts_(&t, blocks[hi == lo ? 3 : (int)lround((mean[k] - lo) * 7 / (hi - lo))]);
	}
	free(mean);
	return done(&t);
}
