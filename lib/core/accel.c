/* accel.c: the accelerator types libair knows offline (one table for the
 * workload validation, run display and log downloads). */
#include "core/core.h"

#include <string.h>

/* The digit before 'x' is the per-node GPU count; allocation is in whole
 * nodes. GPU_8xB300 is in the Jobs API enum but not (yet) confirmed for the
 * CLI, so it stays out until it is. Legacy rows are gpu_type values of old
 * gen_ai_compute_task runs: shown, never accepted in a workload. */
static const struct {
	air__accelerator a;
	bool legacy;
} accelerators[] = {
	{{"GPU_1xA10", "A10", 1}, false},
	{{"GPU_1xH100", "H100", 1}, false},
	{{"GPU_8xH100", "H100", 8}, false},
	{{"a10", "A10", 0}, true},
	{{"h100_80gb", "H100", 0}, true},
};

static const air__accelerator *lookup(const char *type, bool with_legacy)
{
	for (size_t i = 0; type && i < AIR__ARRAY_SIZE(accelerators); i++)
		if ((with_legacy || !accelerators[i].legacy) && !strcmp(accelerators[i].a.type, type))
			return &accelerators[i].a;
	return NULL;
}

const air__accelerator *air__accelerator_find(const char *type) { return lookup(type, false); }

const char *air__accelerator_list(void)
{
	return "GPU_1xA10, GPU_1xH100, GPU_8xH100";
}

const char *air__accelerator_display(const char *type)
{
	const air__accelerator *a = lookup(type, true);

	return a ? a->display : type;
}

int32_t air_accelerator_gpus_per_node(const char *accelerator_type)
{
	const air__accelerator *a = air__accelerator_find(accelerator_type);

	return a ? a->gpus_per_node : 0;
}

const char *air_accelerator_display_name(const char *accelerator_type)
{
	return air__accelerator_display(accelerator_type);
}
