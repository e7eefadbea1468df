/* cmd_list.c: `air list` (placeholder). */
#include "cli.h"

int cmd_list(int argc, char **argv, cli_globals *g)
{
	(void)argc;
	(void)argv;
	(void)g;
	return cli_error("\"air list\" is not available in this build");
}
