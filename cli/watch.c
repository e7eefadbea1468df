/* watch.c: `air run --watch` (placeholder). */
#include "cli.h"

int cli_watch(const cli_globals *g, air_client *client, int64_t run_id, const char *dashboard_url)
{
	(void)g;
	(void)client;
	(void)run_id;
	(void)dashboard_url;
	return cli_error("--watch is not available in this build");
}
