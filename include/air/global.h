/**
 * @file
 * global.h: process-wide initialisation and release of returned memory.
 */
#ifndef AIR_GLOBAL_H
#define AIR_GLOBAL_H

#include "common.h"

AIR_BEGIN_DECLS

/**
 * Initialise process-wide state (load libcurl and run its global init).
 * Reference counted: each successful call needs one air_global_cleanup().
 * air_client_new() takes a reference implicitly and loads libcurl only when
 * the client first needs it, so most programs never call this; call it from
 * the main thread before starting other threads when libcurl is also used
 * elsewhere.
 * @return AIR_OK or a negative AIR_E* code. @since 1.0
 */
AIR_EXTERN int air_global_init(void);
/** Drop one air_global_init() reference; the last one releases libcurl. @since 1.0 */
AIR_EXTERN void air_global_cleanup(void);

/** Release memory that libair handed to the caller through a `char **out`
 *  parameter. NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_free(void *ptr);

AIR_END_DECLS

#endif /* AIR_GLOBAL_H */
