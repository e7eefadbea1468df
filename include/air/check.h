/**
 * @file
 * check.h: the pre-submit check of a workload.
 *
 * air_client_check() looks at everything a submission of the workload would
 * depend on, before anything is uploaded, and reports one entry per check:
 * its name (a stable identifier, docs/cli.md lists them), its status
 * (AIR_CHECK_PASS, _WARN, _FAIL, _SKIPPED), the field of the workload it is
 * about ("secrets.HF_TOKEN") and a message (for a skipped check: why it was
 * not made).
 *
 * - Resources: secret scopes and keys (listed, never read), the Unity Catalog
 *   image in the workspace's registry, the legacy image's registration, the
 *   artifact base and the MLflow experiment's folder, the GPU pool and the
 *   accelerator types on offer, the permissions to grant on the experiment,
 *   the code paths with the snapshot's size and file count, and last the
 *   workspace's own pre-flight validation. On a local workspace (local://)
 *   the same report has local meanings: the secrets' local values, this
 *   machine's GPUs and node limit.
 * - Reproducibility (no request): a pinned environment version, pinned
 *   dependencies, code at a known commit, a custom image used alone.
 * - Sanity (no request): rendezvous variables in a multi-node command, the
 *   accelerator count against the type's GPUs per node.
 *
 * Nothing is uploaded, created or submitted, and no secret value is read.
 */
#ifndef AIR_CHECK_H
#define AIR_CHECK_H

#include "options.h"

AIR_BEGIN_DECLS

/** Outcome of one check (its status). ABI: values never change. */
typedef enum air_check_outcome {
	AIR_CHECK_PASS = 1,   /**< checked: fine */
	AIR_CHECK_WARN = 2,   /**< checked: the run would work, but not as reproducibly or as
	                           surely as it could; fails the report with AIR_CHECKS_STRICT */
	AIR_CHECK_FAIL = 3,   /**< checked: the submission or the run would fail; fails the report */
	AIR_CHECK_SKIPPED = 4 /**< not checked; the message says why */
} air_check_outcome;

/** Options of a check. 1..99 strings, 100..199 integers. ABI: append only. */
typedef enum air_check_option {
	AIR_CHECKS_IDEMPOTENCY_KEY = 1,   /**< the key the submission would use
	                                       (AIR_SUBMIT_IDEMPOTENCY_KEY): at most 64 bytes */
	AIR_CHECKS_BASE_DIR = 2,          /**< directory for relative root_path (default: the
	                                       config's), as AIR_SUBMIT_BASE_DIR */
	AIR_CHECKS_REGISTRY_HOST = 3,     /**< the workspace's artifact registry, "host[:port]"
	                                       (https) or a URL, for unity_catalog_image; default:
	                                       the ".container." registry of the Docker
	                                       configuration's credHelpers */
	AIR_CHECKS_DOCKER_CONFIG_DIR = 4, /**< directory of Docker's config.json; default
	                                       $DOCKER_CONFIG (when the client reads the
	                                       environment), else $HOME/.docker */
	AIR_CHECKS_STRICT = 100,          /**< 1: a warning fails the report too (default 0) */
	AIR_CHECKS_RESOURCES = 101,       /**< 0: leave out the checks of resources, which are the
	                                       only ones that contact the workspace (default 1) */
	AIR_CHECKS_REPRODUCIBILITY = 102, /**< 0: leave out the reproducibility checks (default 1) */
	AIR_CHECKS_SANITY = 103           /**< 0: leave out the resource sanity checks (default 1) */
} air_check_option;

/** Static lower-case name of a status ("pass", "warn", "fail", "skipped"), or NULL for values not in air_check_outcome. @since 1.2 */
AIR_EXTERN const char *air_check_status_name(int32_t status);

/** Stable identifier of the check ("secret_key"); borrowed. @since 1.2 */
AIR_EXTERN const char *air_check_name(const air_check *check);
/** AIR_CHECK_* status of the check. @since 1.2 */
AIR_EXTERN int32_t air_check_status(const air_check *check);
/** The workload field the check is about ("secrets.HF_TOKEN"), or NULL; borrowed. @since 1.2 */
AIR_EXTERN const char *air_check_field(const air_check *check);
/** What was found, or why the check was skipped; never NULL, borrowed. @since 1.2 */
AIR_EXTERN const char *air_check_message(const air_check *check);
/** Bytes of the files the check measured (the code snapshot), or -1. @since 1.2 */
AIR_EXTERN int64_t air_check_bytes(const air_check *check);
/** Number of files the check counted (the code snapshot), or -1. @since 1.2 */
AIR_EXTERN int64_t air_check_files(const air_check *check);

/**
 * Called after each check with its outcome, on the checking thread; @p check
 * is borrowed until return. Return 0 to continue; non-zero stops the call
 * with AIR_EABORTED.
 */
typedef int (*air_check_cb)(const air_check *check, void *userdata);

/**
 * Create check options with defaults (every group, not strict).
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_check_options_new(air_check_options **out);
/** Release options; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_check_options_free(air_check_options *opts);
/**
 * Set a string option (copied; NULL unsets).
 * @return AIR_OK, AIR_EINVAL (NULL @p opts, an integer option, an empty or blank
 *         idempotency key), AIR_EUNSUPPORTED (unknown option) or AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_check_options_set_str(air_check_options *opts, int32_t opt, const char *value);
/**
 * Set an integer option.
 * @return AIR_OK, AIR_EINVAL (NULL @p opts, a string option, a value other than 0 or 1)
 *         or AIR_EUNSUPPORTED. @since 1.2
 */
AIR_EXTERN int air_check_options_set_int(air_check_options *opts, int32_t opt, int64_t value);
/**
 * Install a callback told of each check as it completes (NULL removes it).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_check_options_set_check_cb(air_check_options *opts, air_check_cb cb,
                                              void *userdata);
/**
 * Stop the check when @p intr is raised (borrowed).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_check_options_set_interrupt(air_check_options *opts, air_interrupt *intr);
/**
 * At most @p ms milliseconds for the whole check; 0 = none.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.2
 */
AIR_EXTERN int air_check_options_set_deadline_ms(air_check_options *opts, int64_t ms);

/**
 * Check @p cfg (validated) for a submission through @p client. A check that
 * fails, and a workspace request that fails (reported by the check that made
 * it, as a failure or as skipped with the reason), still return AIR_OK with
 * the report: air_check_report_ok() tells whether the workload is fit to
 * submit.
 * @param opts may be NULL for defaults.
 * @param[out] out the report; release with air_check_report_free().
 * @return AIR_OK; AIR_EINVAL (NULL argument); AIR_ECONFIG (not validated);
 *         the client's resolution failures (docs/auth.md) when resources are
 *         checked; AIR_EINTERRUPTED, AIR_ETIMEOUT, AIR_EABORTED from the
 *         options; AIR_ENOMEM.
 * @since 1.2
 */
AIR_EXTERN int air_client_check(air_client *client, const air_config *cfg,
                                const air_check_options *opts, air_check_report **out,
                                air_error **err);

/** 1 when no check failed (and, with AIR_CHECKS_STRICT, none warned), else 0. @since 1.2 */
AIR_EXTERN int32_t air_check_report_ok(const air_check_report *report);
/** Number of checks in the report. @since 1.2 */
AIR_EXTERN size_t air_check_report_count(const air_check_report *report);
/** Check @p i in the order they were made, borrowed from @p report; NULL when out of range. @since 1.2 */
AIR_EXTERN const air_check *air_check_report_get(const air_check_report *report, size_t i);
/** Release @p report; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_check_report_free(air_check_report *report);

AIR_END_DECLS

#endif /* AIR_CHECK_H */
