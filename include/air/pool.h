/**
 * @file
 * pool.h: provisioned GPU pools, the values usable as compute.pool_id, and the
 * accelerator types a workspace offers.
 */
#ifndef AIR_POOL_H
#define AIR_POOL_H

#include "options.h"

AIR_BEGIN_DECLS

/**
 * List the workspace's GPU pools (all pages). @p opts may be NULL.
 * @return AIR_OK; AIR_EDISABLED when the workspace has not enabled pools.
 * @since 1.0
 */
AIR_EXTERN int air_client_list_pools(air_client *client, const air_call_options *opts,
                                     air_pool_list **out, air_error **err);
/** Number of pools in @p list. @since 1.0 */
AIR_EXTERN size_t air_pool_list_count(const air_pool_list *list);
/** Pool @p i, borrowed from @p list; NULL when out of range. @since 1.0 */
AIR_EXTERN const air_pool *air_pool_list_get(const air_pool_list *list, size_t i);
/** Release the list and its pools; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_pool_list_free(air_pool_list *list);

/**
 * Read one pool; @p pool_id is the bare id or "provisioned-capacities/<id>".
 * @return AIR_OK, AIR_EINVAL (blank id), AIR_ENOTFOUND, AIR_EDISABLED. @since 1.0
 */
AIR_EXTERN int air_client_get_pool(air_client *client, const char *pool_id,
                                   const air_call_options *opts, air_pool **out, air_error **err);
/** Release a pool from air_client_get_pool(); NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_pool_free(air_pool *pool);

/** Bare pool id (what compute.pool_id takes). @since 1.0 */
AIR_EXTERN const char *air_pool_id(const air_pool *pool);
/** Accelerator type of the pool, or NULL. @since 1.0 */
AIR_EXTERN const char *air_pool_accelerator_type(const air_pool *pool);
/** Reserved accelerators. @since 1.0 */
AIR_EXTERN int64_t air_pool_reserved_accelerators(const air_pool *pool);
/** Accelerators in use; -1 when the workspace does not report usage. @since 1.0 */
AIR_EXTERN int64_t air_pool_used_accelerators(const air_pool *pool);
/** Idle accelerators; -1 when the workspace does not report usage. @since 1.0 */
AIR_EXTERN int64_t air_pool_idle_accelerators(const air_pool *pool);

/**
 * The accelerator types the workspace offers (its compute options), in the
 * workspace's order without repeats: "GPU_1xA10,GPU_8xH100" (comma-separated,
 * "" when it lists none). Types libair does not know are included; filter
 * them with air_accelerator_gpus_per_node().
 * @param[out] out receives the list; free with air_free().
 * @return AIR_OK; AIR_EDISABLED when the workspace has not enabled it;
 *         AIR_ENOTFOUND when it has no such endpoint; transport codes.
 * @since 1.2
 */
AIR_EXTERN int air_client_list_accelerator_types(air_client *client, const air_call_options *opts,
                                                 char **out, air_error **err);

AIR_END_DECLS

#endif /* AIR_POOL_H */
