/* cmd_get.c: `air get` (placeholder). */
#include "cli.h"

int cmd_get(int argc, char **argv, cli_globals *g)
{
	(void)argc;
	(void)argv;
	(void)g;
	return cli_error("\"air get\" is not available in this build");
}
