/* cmd_pools.c: `air list pools`, `air get pool POOL_ID` (placeholder). */
#include "cli.h"

int cmd_list_pools(int argc, char **argv, cli_globals *g)
{
	(void)argc;
	(void)argv;
	(void)g;
	return cli_error("\"air list pools\" is not available in this build");
}

int cmd_get_pool(int argc, char **argv, cli_globals *g)
{
	(void)argc;
	(void)argv;
	(void)g;
	return cli_error("\"air get pool\" is not available in this build");
}
