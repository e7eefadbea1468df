/*
 * extract_main.c: the air-local-extract program.
 *
 *     air-local-extract ARCHIVE DEST
 *
 * Extracts a local run's code snapshot (extract.c) for its supervisor,
 * which runs it from beside itself (extractor.c). A program of its own
 * because it loads libarchive with dlopen(), which a statically linked
 * supervisor cannot do. Exits 0 with the snapshot's top-level folder on
 * stdout (nothing when it has none), else 1 with the reason on stdout;
 * stderr is the supervisor's log.
 */
#include "local/local_priv.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	air__buf why = AIR__BUF_INIT;
	char *top = NULL;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ARCHIVE DEST (started by air-local-supervisor)\n", argv[0]);
		return 2;
	}
	rc = air__lextract(argv[1], argv[2], &top, &why);
	if (rc == AIR_OK)
		fputs(top ? top : "", stdout);
	else
		fputs(*air__buf_cstr(&why) ? air__buf_cstr(&why) : "cannot extract the code snapshot",
		      stdout);
	air__free(top);
	air__buf_dispose(&why);
	return fflush(stdout) == 0 && rc == AIR_OK ? 0 : 1;
}
