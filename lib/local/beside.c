/*
 * beside.c: the programs the supervisor runs from beside its own,
 * air-local-extract (extract_main.c). Shared: the library checks that one
 * is there before it accepts a run that needs it.
 */
#include "local/local_priv.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *air__lextractor_beside(const char *program)
{
	char *real = realpath(program, NULL), *abs = NULL, *path;
	const char *p = real, *slash;
	char cwd[PATH_MAX];

	/* Not resolved (gone, or a part unreadable): absolute all the same,
	 * the supervisor leaves its working directory. */
	if (!p && program[0] != '/' && getcwd(cwd, sizeof(cwd)))
		p = abs = air__sprintf("%s/%s", cwd, program);
	if (!p)
		p = program;
	slash = strrchr(p, '/');
	path = slash ? air__sprintf("%.*s/" AIR__LOCAL_EXTRACTOR, (int)(slash - p), p)
	             : air__strdup("./" AIR__LOCAL_EXTRACTOR);
	free(real);
	air__free(abs);
	return path;
}
