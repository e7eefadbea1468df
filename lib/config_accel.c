/* config_accel.c: the accelerator types libair knows offline. */
#include "config_internal.h"

#include <string.h>

/* The digit before 'x' is the per-node GPU count; allocation is in whole
 * nodes. GPU_8xB300 is in the Jobs API enum but not (yet) confirmed for the
 * CLI, so it stays out until it is. */
static const air__accelerator accelerators[] = {
	{"GPU_1xA10", "A10", 1},
	{"GPU_1xH100", "H100", 1},
	{"GPU_8xH100", "H100", 8},
};

const air__accelerator *air__accelerator_find(const char *type)
{
	for (size_t i = 0; type && i < AIR__ARRAY_SIZE(accelerators); i++)
		if (!strcmp(accelerators[i].type, type))
			return &accelerators[i];
	return NULL;
}

const char *air__accelerator_list(void)
{
	return "GPU_1xA10, GPU_1xH100, GPU_8xH100";
}

int32_t air_accelerator_gpus_per_node(const char *accelerator_type)
{
	const air__accelerator *a = air__accelerator_find(accelerator_type);

	return a ? a->gpus_per_node : 0;
}

const char *air_accelerator_display_name(const char *accelerator_type)
{
	const air__accelerator *a = air__accelerator_find(accelerator_type);

	return a ? a->display : accelerator_type;
}
