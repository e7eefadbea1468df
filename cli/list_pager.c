/* list_pager.c: `air list` on a terminal without --limit
 * (docs/runs-and-logs.md#command-line): like the official CLI, a table that
 * shows a screen of runs and fetches more as the user scrolls. ncurses draws
 * it on the alternate screen; keys: Down/j and Up/k select a row,
 * space/f/PgDn and b/PgUp move a screen, g/Home and G/End go to the first and
 * the last fetched rows, Enter opens the selected run's MLflow page in a
 * browser (its URL is shown when none can be started), i shows its details,
 * L a snapshot of its logs, q quits. Ctrl-C is the command's interrupt: the
 * fetch in progress stops, the screen is restored and the command ends with
 * "Error: interrupted". */
#include <curses.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "runs_cli.h"

/* How often the key wait looks at the interrupt (ms). */
#define KEY_WAIT_MS 100
/* Rows a terminal ncurses cannot drive still gets as a plain table. */
#define FALLBACK_ROWS 20

enum { PAIR_GOOD = 1, PAIR_BAD, PAIR_OTHER };

typedef struct view {
	air_client *c;
	air_run_iter *it;
	cli_list_table t;
	bool done;       /* the listing has no more runs */
	size_t top;      /* first row on screen */
	size_t sel;      /* the selected row */
	air_error *err;  /* why a fetch failed */
	int rc;          /* AIR_OK or that failure */
	bool color;
	char note[1024]; /* shown in the status line until the next key */
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

/* One line of cells at @y, cut at the screen's edge; the selected row in
 * reverse video. */
static void draw_line(const view *v, int y, const char *const *cells, const size_t *w, bool header,
                      bool selected)
{
	int x = 0;

	if (selected) {
		attron(A_REVERSE);
		mvhline(y, 0, ' ', COLS);
	}
	for (int c = 0; c < CLI_LIST_COLS && x < COLS; c++) {
		int pair = !header && !selected && v->color && c == 2 ? status_pair(cells[c]) : 0;
		if (pair)
			attron(COLOR_PAIR(pair));
		mvaddnstr(y, x, cells[c], COLS - x);
		if (pair)
			attroff(COLOR_PAIR(pair));
		x += (int)w[c] + 2;
	}
	if (selected)
		attroff(A_REVERSE);
}

static void draw_status(const char *text)
{
	attron(A_REVERSE);
	mvhline(LINES - 1, 0, ' ', COLS);
	mvaddnstr(LINES - 1, 0, text, COLS);
	attroff(A_REVERSE);
}

static void draw(const view *v, bool loading)
{
	size_t w[CLI_LIST_COLS], rows = page_rows(), last;
	char status[sizeof(v->note) + 2];

	erase();
	cli_list_table_widths(&v->t, w);
	attron(A_BOLD);
	draw_line(v, 0, cli_list_headers, w, true, false);
	attroff(A_BOLD);
	for (size_t i = 0; i < rows && v->top + i < v->t.n; i++)
		draw_line(v, (int)i + 1, (const char *const *)v->t.cells[v->top + i], w, false,
		          v->top + i == v->sel);
	last = v->top + rows < v->t.n ? v->top + rows : v->t.n;
	if (v->note[0])
		snprintf(status, sizeof(status), " %s", v->note);
	else
		snprintf(status, sizeof(status), " Runs %zu-%zu of %zu%s  [%s]  %s  j/k: select  "
		         "Space/b: page  Enter: MLflow  i: details  L: logs  q: quit ",
		         v->t.n ? v->top + 1 : 0, last, v->t.n, v->done ? "" : "+",
		         v->t.n ? v->t.cells[v->sel][0] : "-", loading ? "loading..." : "");
	draw_status(status);
	refresh();
}

/* Select row @target (clamped), fetching what the screen needs, and scroll
 * so that it shows. */
static void need_rows(view *v, size_t want)
{
	if (!v->done && v->t.n < want) {
		draw(v, true);
		fetch_until(v, want);
	}
}

static void select_row(view *v, long long target)
{
	size_t rows = page_rows();

	if (target < 0)
		target = 0;
	need_rows(v, (size_t)target + 1);
	if (v->t.n == 0)
		return;
	if ((size_t)target >= v->t.n)
		target = (long long)v->t.n - 1;
	v->sel = (size_t)target;
	if (v->sel < v->top)
		v->top = v->sel;
	else if (v->sel >= v->top + rows)
		v->top = v->sel - rows + 1;
	need_rows(v, v->top + rows); /* a full screen */
}

/* Move the screen by @delta rows, the selection with it. */
static void page_by(view *v, long long delta)
{
	size_t rows = page_rows();
	long long top = (long long)v->top + delta, sel = (long long)v->sel + delta;

	if (top < 0)
		top = 0;
	need_rows(v, (size_t)top + rows);
	select_row(v, sel < 0 ? 0 : sel);
	if (v->t.n > rows && (size_t)top > v->t.n - rows)
		top = (long long)(v->t.n - rows);
	if ((size_t)top <= v->sel && v->sel < (size_t)top + rows)
		v->top = (size_t)top;
}

/* A full screen of @lines under @title until a key is pressed (any key;
 * Ctrl-C ends the command). */
static void show_pane(const char *title, char *const *lines, size_t n)
{
	erase();
	attron(A_BOLD);
	mvaddnstr(0, 0, title, COLS);
	attroff(A_BOLD);
	for (size_t i = 0; i < n && (int)i + 1 < LINES - 1; i++)
		mvaddnstr((int)i + 1, 0, lines[i], COLS);
	draw_status(" Any key: back to the list ");
	refresh();
	while (!cli_interrupted() && getch() == ERR)
		;
}

/* i: the selected run, field by field. */
static void show_details(const view *v)
{
	static const char *const extra[] = {"Dashboard", "MLflow run URL", "State message"};
	const cli_list_run *run = &v->t.runs[v->sel];
	const char *values[] = {run->dashboard_url, run->mlflow_url, run->state_message};
	char *lines[CLI_LIST_COLS + 3], title[64];
	size_t n = 0;

	for (int c = 0; c < CLI_LIST_COLS; c++)
		if (asprintf(&lines[n], "%-16s%s", cli_list_headers[c], v->t.cells[v->sel][c]) >= 0)
			n++;
	for (size_t i = 0; i < 3; i++)
		if (asprintf(&lines[n], "%-16s%s", extra[i], values[i] ? cli_clean(values[i]) : "-") >= 0)
			n++;
	snprintf(title, sizeof(title), "Run %s", v->t.cells[v->sel][0]);
	show_pane(title, lines, n);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
}

/* L: the last lines of node 0 of the selected run, as they are now. */
static void show_logs(view *v)
{
	const cli_list_run *run = &v->t.runs[v->sel];
	size_t max = LINES > 3 ? (size_t)LINES - 2 : 1;
	char **lines = NULL, title[128], why[512];
	int n;

	draw_status(" loading the logs... ");
	refresh();
	n = cli_logs_snapshot(v->c, run->run_id, max, &lines, why, sizeof(why));
	if (n < 0 && !cli_interrupted())
		snprintf(v->note, sizeof(v->note), "Logs of run %s: %s", v->t.cells[v->sel][0], why);
	snprintf(title, sizeof(title), "Logs of run %s (node 0), the last %d lines", v->t.cells[v->sel][0],
	         n > 0 ? n : 0);
	if (n >= 0 && !cli_interrupted())
		show_pane(title, lines, (size_t)n);
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* Enter: the run's MLflow page (its Jobs page while it has none). */
static void open_selected(view *v)
{
	const cli_list_run *run = &v->t.runs[v->sel];
	const char *url = run->mlflow_url ? run->mlflow_url : run->dashboard_url;
	const char *what = run->mlflow_url ? "MLflow run" : "Run (no MLflow run yet)";
	char why[512];

	if (!url) {
		snprintf(v->note, sizeof(v->note), "Run %s has no page to open yet", v->t.cells[v->sel][0]);
	} else if (cli_open_url(url, why, sizeof(why))) {
		snprintf(v->note, sizeof(v->note), "Opened in the browser: %s", cli_clean(url));
	} else {
		snprintf(v->note, sizeof(v->note), "%s: %s   (no browser could be started: %s)", what,
		         cli_clean(url), why);
	}
}

/* The key loop; returns when the user quits, Ctrl-C or a fetch failure. */
static void run_view(view *v)
{
	select_row(v, 0);
	while (v->rc == AIR_OK && !cli_interrupted()) {
		long long page = (long long)page_rows();
		int ch;

		draw(v, false);
		ch = getch();
		while (waitpid(-1, NULL, WNOHANG) > 0) /* browsers started earlier */
			;
		if (ch != ERR)
			v->note[0] = '\0';
		switch (ch) {
		case 'q':
		case 'Q':
			return;
		case KEY_DOWN:
		case 'j':
			select_row(v, (long long)v->sel + 1);
			break;
		case KEY_UP:
		case 'k':
			select_row(v, (long long)v->sel - 1);
			break;
		case ' ':
		case 'f':
		case KEY_NPAGE:
			page_by(v, page);
			break;
		case 'b':
		case KEY_PPAGE:
			page_by(v, -page);
			break;
		case 'g':
		case KEY_HOME:
			select_row(v, 0);
			break;
		case 'G':
		case KEY_END:
			select_row(v, (long long)v->t.n);
			break;
		case '\n':
		case '\r':
		case KEY_ENTER:
			open_selected(v);
			break;
		case 'i':
			show_details(v);
			break;
		case 'L':
			show_logs(v);
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

int cli_list_pager(air_client *c, air_run_iter *it, bool *empty)
{
	view v;
	SCREEN *screen = NULL;
	int rc = 0;

	memset(&v, 0, sizeof(v));
	v.c = c;
	v.it = it;
	/* The first run before the screen changes: nothing to page through, or a
	 * failure, is reported like the plain listing does. */
	if (fetch_until(&v, 1) == AIR_OK && v.t.n == 0) {
		*empty = true;
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
