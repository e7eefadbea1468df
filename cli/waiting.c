/* waiting.c: the one-line waiting message of `air logs` and `air run --watch`
 * on an interactive stderr (docs/runs-and-logs.md#waiting-message), redrawn in
 * place and erased once log lines start. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "runs_cli.h"

/* Carriage return, then erase the whole line. */
#define ERASE_LINE "\r\033[2K"

static size_t terminal_columns(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* Print @message on one row, cleaned (cli_clean(): control characters
 * would be taken for escape sequences) and cut to @columns - 1 characters so
 * that the line never wraps (a wrapped line could not be erased with one
 * ERASE_LINE). */
static void put_line(const char *message, size_t columns)
{
	char *clean = cli_clean_dup(message, strlen(message), false);
	const unsigned char *p = (const unsigned char *)clean;
	size_t shown = 0;

	while (p && *p && shown + 1 < columns) {
		size_t n = 1;

		while (n < 4 && (p[n] & 0xC0) == 0x80) /* clean: well-formed UTF-8 */
			n++;
		fwrite(p, 1, n, stderr);
		p += n;
		shown++;
	}
	free(clean);
}

int cli_waiting_line(const char *message, void *userdata)
{
	cli_waiting *w = userdata;

	if (message) {
		fputs(ERASE_LINE, stderr);
		put_line(message, terminal_columns());
		w->shown = true;
	} else if (w->shown) {
		fputs(ERASE_LINE, stderr);
		w->shown = false;
	}
	fflush(stderr);
	return 0;
}
