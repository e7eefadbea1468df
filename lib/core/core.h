/*
 * core.h: what the core module offers every other libair module. It is the
 * only header of lib/core/ that files outside the folder include.
 *
 *   base.h    allocation, buffers, errors, time, randomness, strings
 *   json.h    jansson helpers for the workspace's JSON (64-bit ids)
 *   proc.h    running helper programs (git, docker) without a shell
 *   sha256.h  SHA-256
 *   accel.c   the accelerator types known offline (below)
 */
#ifndef AIR_CORE_CORE_H
#define AIR_CORE_CORE_H

#include "core/base.h"
#include "core/json.h"
#include "core/proc.h"
#include "core/sha256.h"

/* ---- accelerator types (accel.c): the one table config and runs use ---- */
typedef struct air__accelerator {
	const char *type;      /* "GPU_8xH100" */
	const char *display;   /* "H100" */
	int32_t gpus_per_node; /* 8 */
} air__accelerator;

/* The entry of @type (exact match), or NULL. */
const air__accelerator *air__accelerator_find(const char *type);
/* "GPU_1xA10, GPU_1xH100, GPU_8xH100" (sorted) */
const char *air__accelerator_list(void);
/* Display name ("H100") of a current or legacy type ("h100_80gb"); @type itself when unknown. */
const char *air__accelerator_display(const char *type);

#endif /* AIR_CORE_CORE_H */
