/* host.c: local workspace hosts ("local://", "local:///dir") and their state
 * directories. */
#include "local/local.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SCHEME "local://"

bool air__local_is_host(const char *host)
{
	return host && strncasecmp(host, SCHEME, strlen(SCHEME)) == 0;
}

static int bad_host(const char *host, const char *why, air_error **err)
{
	return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
	                  "local workspace host \"%s\": %s (use local:// for the default state "
	                  "directory or local:///absolute/dir)",
	                  host, why);
}

/* True when @dir is the root directory, also through symbolic links. */
static bool is_root(const char *dir)
{
	char *real = strcmp(dir, "/") ? realpath(dir, NULL) : NULL;
	bool root = !strcmp(dir, "/") || (real && !strcmp(real, "/"));

	free(real);
	return root;
}

int air__local_state_dir(const char *host, const char *xdg_state_home, const char *home,
                         char **out, air_error **err)
{
	const char *rest;

	*out = NULL;
	if (!air__local_is_host(host))
		return bad_host(host ? host : "", "not a local:// host", err);
	rest = host + strlen(SCHEME);
	if (strpbrk(rest, "?#"))
		return bad_host(host, "a query or fragment is not allowed", err);
	if (*rest == '\0') {
		if (xdg_state_home && xdg_state_home[0] == '/')
			*out = air__sprintf("%s/air/local", xdg_state_home);
		else if (home && home[0] == '/')
			*out = air__sprintf("%s/.local/state/air/local", home);
		else
			return bad_host(host, "no home directory to keep the state directory in", err);
		return *out ? AIR_OK : air__oom(err);
	}
	if (*rest != '/')
		return bad_host(host, "the state directory must be an absolute path", err);
	if (!(*out = air__path_clean(rest)))
		return air__oom(err);
	if (is_root(*out)) {
		air__free(*out);
		*out = NULL;
		return bad_host(host, "the root directory cannot be a state directory", err);
	}
	return AIR_OK;
}
