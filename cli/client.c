/* client.c: the CLI's air_client, configured from the global flags. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int debug_to_stderr(int32_t type, const char *text, size_t len, void *userdata)
{
	static const char *const tags[] = {"*", ">", "<", "}", "{"};
	const char *tag = (type >= 0 && type <= 4) ? tags[type] : "?";

	(void)userdata;
	fprintf(stderr, "[debug] %s %.*s\n", tag, (int)len, text);
	return 0;
}

/* The client of the running command, for the access hint. */
static air_client *current;

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
	if (rc == AIR_OK)
		current = *out;
	air_client_options_free(o);
	return rc;
}

void cli_client_free(air_client *c)
{
	if (c && c == current)
		current = NULL;
	air_client_free(c);
}

/* The workspace refused (403, not a disabled feature): the official tool's
 * identity block and next steps (not for a local workspace, whose refusal
 * is a state directory of another user). */
void cli_print_access_hint(const air_error *err)
{
	const char *code = air_error_server_code(err);
	const char *profile = current ? air_client_profile(current) : NULL;
	const char *host = current ? air_client_host(current) : NULL;
	const char *auth = current ? air_client_auth_type(current) : NULL;

	if (!err || air_error_http_status(err) != 403 || (code && strcmp(code, "PERMISSION_DENIED") != 0))
		return;
	if (auth && !strcmp(auth, "local"))
		return; /* a local workspace has no identities: its message says it all */
	fputc('\n', stderr);
	if (profile && *profile)
		fprintf(stderr, "Profile: %s\n", profile);
	fprintf(stderr, "Host: %s\n", host && *host ? host : "(unknown)");
	fprintf(stderr, "Auth type: %s\n", auth && *auth ? auth : "(unknown)");
	fputs("\nNext steps:\n"
	      "  - Verify that you have the required permissions on this workspace for this "
	      "operation.\n"
	      "  - Check your identity: databricks auth describe\n"
	      "  - Consider a profile with the right identity: databricks auth login --profile "
	      "<name>\n",
	      stderr);
}
