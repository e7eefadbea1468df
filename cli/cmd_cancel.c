/* cmd_cancel.c: `air cancel` (placeholder). */
#include "cli.h"

int cmd_cancel(int argc, char **argv, cli_globals *g)
{
	(void)argc;
	(void)argv;
	(void)g;
	return cli_error("\"air cancel\" is not available in this build");
}
