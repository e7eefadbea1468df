/**
 * @file
 * errors.h: status codes and the error object.
 *
 * Every fallible call returns an int: AIR_OK (0) or a negative AIR_E* code.
 * Details come back through the call's optional last parameter
 * `air_error **err`: pass NULL when they are not wanted, or the address of a
 * NULL pointer, which receives a new air_error on failure (and stays NULL on
 * success). The caller releases it with air_error_free(). There is no
 * thread-local "last error" and no error state on shared handles.
 */
#ifndef AIR_ERRORS_H
#define AIR_ERRORS_H

#include "types.h"

AIR_BEGIN_DECLS

/** Status codes. ABI: values are never reused or renumbered, only appended. */
typedef enum air_status {
	AIR_OK = 0,            /**< success */
	AIR_ENOMEM = -1,       /**< out of memory */
	AIR_EINVAL = -2,       /**< invalid argument to a call (or a bad run id, flag, option value) */
	AIR_ECONFIG = -3,      /**< the workload configuration is invalid (syntax, type, rule) */
	AIR_ENET = -4,         /**< network failure: resolve, connect, reset, TLS */
	AIR_ETIMEOUT = -5,     /**< a timeout, the retry deadline or the call's deadline expired */
	AIR_EAUTH = -6,        /**< no usable credentials, or the workspace rejected them (401) */
	AIR_ENOTFOUND = -7,    /**< the run, file or resource does not exist */
	AIR_ECONFLICT = -8,    /**< the resource already exists or changed concurrently (409) */
	AIR_ERATELIMIT = -9,   /**< the workspace kept answering 429 until the deadline */
	AIR_ESERVER = -10,     /**< the workspace failed (5xx) */
	AIR_EPROTO = -11,      /**< a reply could not be understood */
	AIR_EABORTED = -12,    /**< a callback returned non-zero */
	AIR_EINTERRUPTED = -13,/**< the call's (or the client's) interrupt was raised */
	AIR_EUNSUPPORTED = -14,/**< unknown option or feature not available in this build */
	AIR_EIO = -15,         /**< local file or process failure */
	AIR_EAPI = -16,        /**< the workspace rejected the request (other 4xx) */
	AIR_EREJECTED = -17,   /**< the workspace's pre-flight validation rejected the config */
	AIR_ESNAPSHOT = -18,   /**< the code snapshot cannot be built (root, git state, include paths) */
	AIR_EPERMISSION = -19, /**< the caller lacks permission (403) */
	AIR_EDISABLED = -20,   /**< the feature is not enabled in this workspace */
	AIR_EINTERNAL = -21,   /**< a libair bug; please report it */
	AIR_EDONE = -22        /**< an iterator has no more items: the normal end, not a failure
	                            (no air_error is produced) */
} air_status;

/** Error kinds: what a caller should do about a failure. ABI: append only. */
typedef enum air_kind {
	AIR_KIND_NONE = 0,             /**< no error */
	AIR_KIND_INVALID_CONFIG = 1,   /**< fix the workload YAML or override */
	AIR_KIND_INVALID_ARGUMENT = 2, /**< fix the call's arguments */
	AIR_KIND_PERMANENT = 3,        /**< retrying will not help (4xx, auth) */
	AIR_KIND_NOT_FOUND = 4,        /**< the target does not exist */
	AIR_KIND_CONFLICT = 5,         /**< already exists / concurrent change */
	AIR_KIND_TRANSIENT = 6,        /**< may succeed later (429, 5xx, network) */
	AIR_KIND_IO = 7,               /**< local file system or subprocess */
	AIR_KIND_INTERNAL = 8,         /**< a libair bug or resource exhaustion */
	AIR_KIND_ABORTED = 9           /**< stopped by the caller (callback or interrupt) */
} air_kind;

/** Static English text for @p status; never NULL, never to be freed. @since 1.0 */
AIR_EXTERN const char *air_strerror(int status);
/** Symbolic name of @p status ("AIR_ENOTFOUND"); "AIR_E?" when unknown. @since 1.0 */
AIR_EXTERN const char *air_status_name(int status);
/** Name of @p kind as used in JSON output ("NOT_FOUND", "TRANSIENT", ...). @since 1.0 */
AIR_EXTERN const char *air_kind_name(int32_t kind);

/** Status code of the failure (an AIR_E* value). @since 1.0 */
AIR_EXTERN int32_t air_error_code(const air_error *err);
/** AIR_KIND_* of the failure. @since 1.0 */
AIR_EXTERN int32_t air_error_kind(const air_error *err);
/** Human-readable message; owned by @p err, never NULL. Never contains a secret. @since 1.0 */
AIR_EXTERN const char *air_error_message(const air_error *err);
/**
 * Workload field path ("compute.num_accelerators"), or the option at fault
 * ("profile", "artifact"), or NULL. Messages name options in words, never a
 * front end's flags: a front end points at its own spelling from here.
 * Owned by @p err. @since 1.0
 */
AIR_EXTERN const char *air_error_field(const air_error *err);
/** Source file of a config error, or NULL. Owned by @p err. @since 1.0 */
AIR_EXTERN const char *air_error_file(const air_error *err);
/** 1-based line in air_error_file(); 0 when unknown. @since 1.0 */
AIR_EXTERN int32_t air_error_line(const air_error *err);
/** 1-based column in air_error_file(); 0 when unknown. @since 1.0 */
AIR_EXTERN int32_t air_error_column(const air_error *err);
/** 1 when the same call may succeed if repeated later, else 0. @since 1.0 */
AIR_EXTERN int32_t air_error_retryable(const air_error *err);
/**
 * A replacement the caller probably meant ("accelerator_type" for an unknown
 * field "acclerator_type"), or NULL. Owned by @p err. @since 1.0
 */
AIR_EXTERN const char *air_error_suggestion(const air_error *err);
/** HTTP status of the failing reply; 0 when no reply was involved. @since 1.0 */
AIR_EXTERN int32_t air_error_http_status(const air_error *err);
/** The workspace's error_code ("INVALID_PARAMETER_VALUE") or NULL. Owned by @p err. @since 1.0 */
AIR_EXTERN const char *air_error_server_code(const air_error *err);
/** The reply's request id header (x-request-id) or NULL. Owned by @p err. @since 1.0 */
AIR_EXTERN const char *air_error_request_id(const air_error *err);
/** The reply's Retry-After in milliseconds; -1 when absent. @since 1.0 */
AIR_EXTERN int64_t air_error_retry_after_ms(const air_error *err);
/** Release @p err; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_error_free(air_error *err);

AIR_END_DECLS

#endif /* AIR_ERRORS_H */
