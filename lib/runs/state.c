/* state.c: display states as an enum (air_state) and back. */
#include "runs/runs.h"

#include <string.h>

static const struct {
	int32_t state;
	const char *name;
} states[] = {
	{AIR_STATE_UNKNOWN, "UNKNOWN"},
	{AIR_STATE_PENDING, "PENDING"},
	{AIR_STATE_QUEUED, "QUEUED"},
	{AIR_STATE_BLOCKED, "BLOCKED"},
	{AIR_STATE_WAITING_FOR_RETRY, "WAITING_FOR_RETRY"},
	{AIR_STATE_RUNNING, "RUNNING"},
	{AIR_STATE_TERMINATING, "TERMINATING"},
	{AIR_STATE_TERMINATED, "TERMINATED"},
	{AIR_STATE_SKIPPED, "SKIPPED"},
	{AIR_STATE_INTERNAL_ERROR, "INTERNAL_ERROR"},
	{AIR_STATE_SUCCESS, "SUCCESS"},
	{AIR_STATE_SUCCESS_WITH_FAILURES, "SUCCESS_WITH_FAILURES"},
	{AIR_STATE_FAILED, "FAILED"},
	{AIR_STATE_TIMEDOUT, "TIMEDOUT"},
	{AIR_STATE_CANCELED, "CANCELED"},
	{AIR_STATE_MAXIMUM_CONCURRENT_RUNS_REACHED, "MAXIMUM_CONCURRENT_RUNS_REACHED"},
	{AIR_STATE_EXCLUDED, "EXCLUDED"},
	{AIR_STATE_UPSTREAM_FAILED, "UPSTREAM_FAILED"},
	{AIR_STATE_UPSTREAM_CANCELED, "UPSTREAM_CANCELED"},
	{AIR_STATE_DISABLED, "DISABLED"},
	{AIR_STATE_OTHER, "OTHER"},
};

const char *air_state_name(int32_t state)
{
	for (size_t i = 0; i < AIR__ARRAY_SIZE(states); i++)
		if (states[i].state == state)
			return states[i].name;
	return NULL;
}

int32_t air_state_is_terminal(int32_t state)
{
	return state >= AIR_STATE_TERMINATED && state != AIR_STATE_OTHER && air_state_name(state);
}

int32_t air__state_from_name(const char *name)
{
	if (!name)
		return AIR_STATE_UNKNOWN;
	for (size_t i = 0; i < AIR__ARRAY_SIZE(states); i++)
		if (states[i].state != AIR_STATE_OTHER && !strcmp(states[i].name, name))
			return states[i].state;
	return AIR_STATE_OTHER;
}
