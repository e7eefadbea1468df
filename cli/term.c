/* term.c: the size of the terminal and clearing it, through terminfo
 * (ncurses' low-level interface: no screen is taken over), for the charts
 * of `air metrics`. Kept apart: <term.h> defines macros with common names. */
#include <stdlib.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include "cli.h"

static bool term_ready;

/* terminfo for stdout, once; false when it is not a terminal or unknown. */
static bool ready(void)
{
	static bool tried;
	int err = 0;

	if (!tried) {
		tried = true;
		term_ready = cli_isatty_stdout() && setupterm(NULL, STDOUT_FILENO, &err) == OK;
	}
	return term_ready;
}

/* A positive integer environment variable, else 0. */
static int env_int(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long n = v && *v ? strtol(v, &end, 10) : 0;

	return v && *v && !*end && n > 0 && n < 100000 ? (int)n : 0;
}

void cli_term_size(int *cols, int *rows)
{
	/* COLUMNS and LINES first (as ncurses reads them); then the terminal. */
	*cols = env_int("COLUMNS");
	*rows = env_int("LINES");
	if ((!*cols || !*rows) && ready()) {
		if (!*cols && tigetnum("cols") > 0)
			*cols = tigetnum("cols");
		if (!*rows && tigetnum("lines") > 0)
			*rows = tigetnum("lines");
	}
}

void cli_term_clear(void)
{
	char *clear = ready() ? tigetstr("clear") : NULL;

	if (clear && clear != (char *)-1)
		putp(clear);
	fflush(stdout);
}
