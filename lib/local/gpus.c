/* gpus.c: the GPUs of this machine, as nvidia-smi lists them. */
#include "local/local_priv.h"

#include <stdlib.h>
#include <string.h>

#define NVIDIA_SMI_TIMEOUT_MS 20000
#define NVIDIA_SMI "nvidia-smi"

bool air__lgpus_slow(void)
{
	return air__proc_found(NVIDIA_SMI);
}

int32_t *air__lgpus(const air__ctx *ctx, size_t *n)
{
	static const char *const argv[] = {NVIDIA_SMI, "--query-gpu=index",
	                                   "--format=csv,noheader", NULL};
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;
	int32_t *ids = NULL;
	size_t cap = 0;

	*n = 0;
	o.timeout_ms = NVIDIA_SMI_TIMEOUT_MS;
	o.ctx = ctx;
	if (air__proc_run(argv, &o, &r, NULL) == AIR_OK && air__proc_ok(&r)) {
		for (char *line = r.out.ptr; line && *line;) {
			char *nl = strchr(line, '\n'), *end;
			long v;

			if (nl)
				*nl = '\0';
			v = strtol(line, &end, 10);
			if (end != line && v >= 0 && v < 4096) {
				if (*n == cap) {
					int32_t *more = air__realloc(ids, (cap = cap ? 2 * cap : 8) * sizeof(*ids));
					if (!more)
						break;
					ids = more;
				}
				ids[(*n)++] = (int32_t)v;
			}
			line = nl ? nl + 1 : NULL;
		}
	}
	air__proc_result_dispose(&r);
	return ids;
}
