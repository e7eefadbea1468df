/*
 * client_internal.h: what other modules may use of an air_client (client.c,
 * resolve.c, auth.c). All functions are safe to call from many threads.
 */
#ifndef AIR_CLIENT_INTERNAL_H
#define AIR_CLIENT_INTERNAL_H

#include "http.h"
#include "internal.h"

/* Resolve configuration and credentials once (locked); later calls return the
 * cached outcome. Every workspace call goes through this first. */
int air__client_ensure_resolved(air_client *c, const air__ctx *ctx, air_error **err);

/* Normalised host "scheme://host[:port]" after resolution, else NULL. */
const char *air__client_host(const air_client *c);

/* getenv(@name) unless AIR_OPT_USE_ENVIRONMENT is 0; NULL when unset or empty. */
const char *air__client_env(const air_client *c, const char *name);

/* Explicitly set option values (NULL / the default when unset). */
const char *air__client_opt_str(const air_client *c, int32_t opt);
int64_t air__client_opt_int(const air_client *c, int32_t opt);

/* SCIM Me userName, cached after the first success. *out: air__free(). */
int air__client_user_name(air_client *c, const air__ctx *ctx, char **out, air_error **err);

/* The user's artifact base: AIR_OPT_USER_WORKSPACE_DIR or env
 * DATABRICKS_INTERNAL_USER_WORKSPACE_DIR when set (no request), else
 * "/Workspace/Users/<userName>". *out: air__free(). */
int air__client_user_base(air_client *c, const air__ctx *ctx, char **out, air_error **err);

/* Workspace id from the X-Databricks-Org-Id header of SCIM Me
 * (excludedAttributes=entitlements), cached. AIR_EPROTO when absent. */
int air__client_workspace_id(air_client *c, const air__ctx *ctx, int64_t *out, air_error **err);

/* Workspace id if already known (configured or probed), else 0. No request. */
int64_t air__client_known_workspace_id(const air_client *c);

/* Default environment channel: AIR_OPT_DEFAULT_RUNTIME, else env
 * DATABRICKS_DL_RUNTIME_IMAGE, else NULL (caller uses the built-in "6"). */
const char *air__client_default_runtime(const air_client *c);

/* Whether the call must stop: @intr (the call's, may be NULL) or the
 * client's interrupt (air_client_set_interrupt) is raised. */
bool air__client_interrupted(const air_client *c, const air_interrupt *intr);

/* Sleep @ms (polling, waiting between attempts), waking within about 50 ms
 * when @intr (may be NULL) or the client's interrupt is raised.
 * AIR_OK or AIR_EINTERRUPTED. */
int air__client_sleep(const air_client *c, air_interrupt *intr, int64_t ms);

/* Debug callback, printf-style; no-op without a callback. Never pass secrets. */
void air__client_debug(const air_client *c, int32_t type, const char *fmt, ...) AIR__PRINTF(3, 4);

#endif /* AIR_CLIENT_INTERNAL_H */
