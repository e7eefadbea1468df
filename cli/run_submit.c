/* run_submit.c: the submission half of `air run` (placeholder). */
#include "cli.h"

int cli_run_submit(const cli_globals *g, const air_config *cfg, const cli_run_request *req)
{
	(void)g;
	(void)cfg;
	(void)req;
	return cli_error("submitting is not available in this build");
}
