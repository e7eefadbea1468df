/* cmd_logs.c: `air logs` (placeholder). */
#include "cli.h"

int cmd_logs(int argc, char **argv, cli_globals *g)
{
	(void)argc;
	(void)argv;
	(void)g;
	return cli_error("\"air logs\" is not available in this build");
}
