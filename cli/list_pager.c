/* list_pager.c: `air list` on a terminal without --limit
 * (docs/runs-and-logs.md#command-line): like the official CLI, a table that
 * shows a screen of runs and fetches more as the user scrolls. ncurses draws it
 * on the alternate screen; keys: Down/j and Up/k a row, space/f/PgDn and b/PgUp
 * a screen, g/Home and G/End the first and the last fetched rows, q quits.
 * Ctrl-C is the command's interrupt: the fetch in progress stops, the screen is
 * restored and the command ends with "Error: interrupted". */
#include <curses.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "runs_cli.h"

/* How often the key wait looks at the interrupt (ms). */
#define KEY_WAIT_MS 100
/* Rows a terminal ncurses cannot drive still gets as a plain table. */
#define FALLBACK_ROWS 20

enum { PAIR_GOOD = 1, PAIR_BAD, PAIR_OTHER };

typedef struct view {
	air_run_iter *it;
	cli_list_table t;
	bool done;       /* the listing has no more runs */
	size_t top;      /* first row on screen */
	air_error *err;  /* why a fetch failed */
	int rc;          /* AIR_OK or that failure */
	bool color;
} view;

/* Fetch until @want rows are known or the listing ends. */
static int fetch_until(view *v, size_t want)
{
	while (v->rc == AIR_OK && !v->done && v->t.n < want) {
		const air_run *run;
		int rc = air_run_iter_next(v->it, &run, &v->err);
		if (rc == AIR_EDONE)
			v->done = true;
		else if (rc != AIR_OK)
			v->rc = rc;
		else
			cli_list_table_add(&v->t, run);
	}
	return v->rc;
}

static size_t page_rows(void)
{
	return LINES > 2 ? (size_t)LINES - 2 : 1;
}

/* Display-state colour (docs/runs-and-logs.md#command-line): green, red or amber. */
static int status_pair(const char *s)
{
	static const char *const bad[] = {"FAILED", "TIMEDOUT", "CANCELED", "INTERNAL_ERROR",
	                                  "UPSTREAM_FAILED", "UPSTREAM_CANCELED"};

	if (!strcmp(s, "SUCCESS"))
		return PAIR_GOOD;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!strcmp(s, bad[i]))
			return PAIR_BAD;
	return PAIR_OTHER;
}

/* One line of cells at @y, cut at the screen's edge. */
static void draw_line(const view *v, int y, const char *const *cells, const size_t *w, bool header)
{
	int x = 0;

	for (int c = 0; c < CLI_LIST_COLS && x < COLS; c++) {
		int pair = !header && v->color && c == 2 ? status_pair(cells[c]) : 0;
		if (pair)
			attron(COLOR_PAIR(pair));
		mvaddnstr(y, x, cells[c], COLS - x);
		if (pair)
			attroff(COLOR_PAIR(pair));
		x += (int)w[c] + 2;
	}
}

static void draw(const view *v, bool loading)
{
	size_t w[CLI_LIST_COLS], rows = page_rows(), last;
	char status[256];

	erase();
	cli_list_table_widths(&v->t, w);
	attron(A_BOLD);
	draw_line(v, 0, cli_list_headers, w, true);
	attroff(A_BOLD);
	for (size_t i = 0; i < rows && v->top + i < v->t.n; i++)
		draw_line(v, (int)i + 1, (const char *const *)v->t.cells[v->top + i], w, false);
	last = v->top + rows < v->t.n ? v->top + rows : v->t.n;
	snprintf(status, sizeof(status), " Runs %zu-%zu of %zu%s  %s  Up/Down j/k: row  "
	         "Space/b: page  q: quit ", v->t.n ? v->top + 1 : 0, last, v->t.n,
	         v->done ? "" : "+", loading ? "loading..." : "");
	attron(A_REVERSE);
	mvaddnstr(LINES - 1, 0, status, COLS);
	attroff(A_REVERSE);
	refresh();
}

/* Move the first row shown to @target, fetching what the screen needs. */
static void scroll_to(view *v, long long target)
{
	size_t rows = page_rows();

	if (target < 0)
		target = 0;
	if (!v->done && v->t.n < (size_t)target + rows) {
		draw(v, true);
		fetch_until(v, (size_t)target + rows);
	}
	if ((size_t)target + rows > v->t.n)
		target = v->t.n > rows ? (long long)(v->t.n - rows) : 0;
	v->top = (size_t)target;
}

/* The key loop; returns when the user quits, Ctrl-C or a fetch failure. */
static void run_view(view *v)
{
	scroll_to(v, 0);
	while (v->rc == AIR_OK && !cli_interrupted()) {
		long long page = (long long)page_rows();
		int ch;

		draw(v, false);
		ch = getch();
		switch (ch) {
		case 'q':
		case 'Q':
			return;
		case KEY_DOWN:
		case 'j':
			scroll_to(v, (long long)v->top + 1);
			break;
		case KEY_UP:
		case 'k':
			scroll_to(v, (long long)v->top - 1);
			break;
		case ' ':
		case 'f':
		case KEY_NPAGE:
			scroll_to(v, (long long)v->top + page);
			break;
		case 'b':
		case KEY_PPAGE:
			scroll_to(v, (long long)v->top - page);
			break;
		case 'g':
		case KEY_HOME:
			scroll_to(v, 0);
			break;
		case 'G':
		case KEY_END:
			scroll_to(v, (long long)v->t.n);
			break;
		default: /* ERR (the wait for a key timed out), KEY_RESIZE: redraw */
			break;
		}
	}
}

static void start_colors(view *v)
{
	const char *no_color = getenv("NO_COLOR");

	if (!has_colors() || (no_color && *no_color) || start_color() == ERR)
		return;
	use_default_colors();
	init_pair(PAIR_GOOD, COLOR_GREEN, -1);
	init_pair(PAIR_BAD, COLOR_RED, -1);
	init_pair(PAIR_OTHER, COLOR_YELLOW, -1);
	v->color = true;
}

/* A terminal ncurses does not know: the first rows as a plain table. */
static void print_plain(view *v)
{
	size_t w[CLI_LIST_COLS];

	fetch_until(v, FALLBACK_ROWS);
	cli_list_table_widths(&v->t, w);
	for (int c = 0; c < CLI_LIST_COLS; c++)
		printf("%-*s%s", (int)w[c], cli_list_headers[c], c + 1 < CLI_LIST_COLS ? "  " : "\n");
	for (size_t r = 0; r < v->t.n; r++)
		for (int c = 0; c < CLI_LIST_COLS; c++)
			printf("%-*s%s", (int)w[c], v->t.cells[r][c], c + 1 < CLI_LIST_COLS ? "  " : "\n");
	fflush(stdout);
}

int cli_list_pager(air_run_iter *it)
{
	view v;
	SCREEN *screen = NULL;
	int rc = 0;

	memset(&v, 0, sizeof(v));
	v.it = it;
	/* The first run before the screen changes: nothing to page through, or a
	 * failure, is reported like the plain listing does. */
	if (fetch_until(&v, 1) == AIR_OK && v.t.n == 0) {
		puts("No runs found.");
		fflush(stdout);
	} else if (v.rc == AIR_OK) {
		/* The terminal's characters (UTF-8 names); control characters from
		 * the workspace are drawn visibly (^[), never sent raw. */
		setlocale(LC_CTYPE, "");
		if (!(screen = newterm(NULL, stdout, stdin))) {
			print_plain(&v);
		} else {
			cbreak();
			noecho();
			keypad(stdscr, TRUE);
			curs_set(0);
			timeout(KEY_WAIT_MS);
			start_colors(&v);
			run_view(&v);
			endwin();
			delscreen(screen);
		}
	}
	if (cli_interrupted())
		rc = cli_report_interrupted();
	else if (v.rc != AIR_OK)
		rc = cli_error_air(v.err, v.rc);
	else if (air_run_iter_truncated(it))
		fprintf(stderr, "Warning: stopped after inspecting the most recent runs; the list may be "
		                "incomplete (narrow it with --filter).\n");
	air_error_free(v.err);
	cli_list_table_free(&v.t);
	return rc;
}
