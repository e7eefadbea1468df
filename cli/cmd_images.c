/* cmd_images.c: `air images` (placeholder). */
#include "cli.h"

int cmd_images(int argc, char **argv, cli_globals *g)
{
	(void)argc;
	(void)argv;
	(void)g;
	return cli_error("\"air images\" is not available in this build");
}
