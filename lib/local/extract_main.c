/*
 * extract_main.c: the air-local-extract program.
 *
 *     air-local-extract ARCHIVE DEST [SUPERVISOR_PID]
 *
 * Extracts a local run's code snapshot (extract.c) for its supervisor,
 * which runs it from beside itself (extractor.c). A program of its own
 * because it loads libarchive with dlopen(), which a statically linked
 * supervisor cannot do. Exits 0 with the snapshot's top-level folder on
 * stdout (nothing when it has none), else 1 with the reason on stdout;
 * stderr is the supervisor's log. Given its parent's pid, it ends when
 * that process does (its parent-death signal), as a node's guard does.
 */
#include "local/local_priv.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

int main(int argc, char **argv)
{
	air__buf why = AIR__BUF_INIT;
	char *top = NULL;
	int64_t parent = 0;
	int rc;

	if ((argc != 3 && argc != 4) ||
	    (argc == 4 && (!air__parse_int64(argv[3], &parent) || parent <= 0))) {
		fprintf(stderr, "usage: %s ARCHIVE DEST [SUPERVISOR_PID] (started by "
		        "air-local-supervisor)\n", argv[0]);
		return 2;
	}
#ifdef __linux__
	if (parent > 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	/* Gone before the death signal was set up: nobody wants the snapshot. */
	if (parent > 0 && (int64_t)getppid() != parent) {
		fputs("the supervisor that started the extraction is gone", stdout);
		return 1;
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
