/* client.c: the CLI's air_client, configured from the global flags. */
#include <stdio.h>

#include "cli.h"

static int debug_to_stderr(int32_t type, const char *text, size_t len, void *userdata)
{
	static const char *const tags[] = {"*", ">", "<", "}", "{"};
	const char *tag = (type >= 0 && type <= 4) ? tags[type] : "?";

	(void)userdata;
	fprintf(stderr, "[debug] %s %.*s\n", tag, (int)len, text);
	return 0;
}

int cli_client_new(const cli_globals *g, air_client **out, air_error **err)
{
	air_client_options *o = NULL;
	int rc = air_client_options_new(&o);

	if (rc == AIR_OK && g->profile)
		rc = air_client_options_set_str(o, AIR_OPT_PROFILE, g->profile);
	/* --local: runs on this machine, whatever the profile or environment say. */
	if (rc == AIR_OK && g->local)
		rc = air_client_options_set_str(o, AIR_OPT_HOST, "local://");
	if (rc == AIR_OK)
		rc = air_client_options_set_str(o, AIR_OPT_USER_AGENT_SUFFIX,
		                                "air-cli/" AIR_VERSION_STRING);
	if (rc == AIR_OK && g->debug)
		rc = air_client_options_set_debug_cb(o, debug_to_stderr, NULL);
	if (rc == AIR_OK)
		rc = air_client_new(o, out, err);
	air_client_options_free(o);
	return rc;
}
