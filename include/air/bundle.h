/**
 * @file
 * bundle.h: turn a workload into a Declarative Automation Bundle, so that it
 * runs as a persistent job (`databricks bundle deploy`, `bundle run`) instead
 * of a one-time run. Local only: the workspace is not contacted.
 *
 * air_config_write_bundle() writes, into the output directory:
 *   databricks.yml                      bundle name, sync paths, a dev target
 *                                       and the job: one task with the
 *                                       ai_runtime_task (compute, command,
 *                                       code source, MLflow fields), its
 *                                       environment, retries, timeout, budget
 *                                       policy and permissions, mapped as
 *                                       runs/submit would send them;
 *   generated_artifacts/training_config.yaml, command.sh and the sidecars a
 *                                       submission uploads (hyperparameters.yaml,
 *                                       env_vars.json, secret_env_vars.json).
 * No code is copied: the job's code_source_path points at the code source's
 * root, which must lie inside the output directory (bundle deploy uploads
 * only files under the bundle root). The YAML is written by libfyaml and is
 * the same bytes for the same input.
 *
 * Refused (AIR_EUNSUPPORTED, field set): usage_policy_name (resolving it needs
 * the workspace; use usage_policy_id), environment.docker_image, and the code
 * source's remote_volume, git and include_paths.
 */
#ifndef AIR_BUNDLE_H
#define AIR_BUNDLE_H

#include "options.h"

AIR_BEGIN_DECLS

/** Bundle options. 1..99 strings, 100..199 integers. ABI: append only. */
typedef enum air_bundle_option {
	AIR_BUNDLE_BASE_DIR = 1,         /**< directory relative code_source.root_path values resolve
	                                      against (default: the config's) */
	AIR_BUNDLE_DEFAULT_RUNTIME = 2,  /**< environment channel used when the YAML names no
	                                      environment.version ("CLIENT-GPU-6", "5",
	                                      "databricks_ai_v6"); default:
	                                      $DATABRICKS_DL_RUNTIME_IMAGE, else "6", as for
	                                      air_client_submit() */
	AIR_BUNDLE_FORCE = 100,          /**< 1: overwrite an existing databricks.yml and generated
	                                      artifacts (and remove sidecars the workload no longer
	                                      has); default 0: refuse */
	AIR_BUNDLE_USE_ENVIRONMENT = 101 /**< 1 (default): read $DATABRICKS_DL_RUNTIME_IMAGE; 0: ignore it */
} air_bundle_option;

/**
 * Create bundle options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.1
 */
AIR_EXTERN int air_bundle_options_new(air_bundle_options **out);
/** Release options; NULL is a no-op. @since 1.1 */
AIR_EXTERN void air_bundle_options_free(air_bundle_options *opts);
/** Set a string option (copied; NULL unsets). @return AIR_OK, AIR_EINVAL, AIR_EUNSUPPORTED. @since 1.1 */
AIR_EXTERN int air_bundle_options_set_str(air_bundle_options *opts, int32_t opt, const char *value);
/** Set an integer option (0 or 1). @return AIR_OK, AIR_EINVAL, AIR_EUNSUPPORTED. @since 1.1 */
AIR_EXTERN int air_bundle_options_set_int(air_bundle_options *opts, int32_t opt, int64_t value);
/**
 * Stop before the next file is written when @p intr is raised (borrowed).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.1
 */
AIR_EXTERN int air_bundle_options_set_interrupt(air_bundle_options *opts, air_interrupt *intr);
/**
 * At most @p ms milliseconds for the whole call; 0 = none.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.1
 */
AIR_EXTERN int air_bundle_options_set_deadline_ms(air_bundle_options *opts, int64_t ms);

/**
 * Write the bundle of the validated @p cfg into @p output_dir (created when
 * missing; NULL: the config's base directory). Every check is made before the
 * first file is written. The bundle is replaced whole: the new
 * generated_artifacts/ is built in a temporary directory beside the old one
 * (other files the old one holds are kept, generated artifacts the workload
 * no longer has are not), databricks.yml in a temporary file, then both are
 * renamed into place; a failure or an interrupt leaves the old bundle as it
 * was. databricks.yml or generated_artifacts as a symbolic link is followed
 * only when it resolves inside @p output_dir; nothing is written or deleted
 * through a link that leaves it.
 * @param[out] out what was written; release with air_bundle_free().
 * @return AIR_OK; AIR_ECONFIG (the config is not validated); AIR_EUNSUPPORTED
 *         (a field a bundle cannot express; air_error_field() names it);
 *         AIR_ESNAPSHOT (the code source's root does not exist); AIR_EINVAL
 *         (the root lies outside the output directory; databricks.yml or
 *         generated_artifacts is a symbolic link that leaves it, or leads
 *         nowhere: the error names it); AIR_ECONFLICT (a file exists and
 *         AIR_BUNDLE_FORCE is 0; the error names it); AIR_EIO.
 * @since 1.1
 */
AIR_EXTERN int air_config_write_bundle(const air_config *cfg, const char *output_dir,
                                       const air_bundle_options *opts, air_bundle **out,
                                       air_error **err);

/** The output directory, absolute. @since 1.1 */
AIR_EXTERN const char *air_bundle_dir(const air_bundle *bundle);
/** The job's resource key (resources.jobs.KEY, the experiment name): `bundle run KEY`. @since 1.1 */
AIR_EXTERN const char *air_bundle_job_key(const air_bundle *bundle);
/** Number of files written. @since 1.1 */
AIR_EXTERN size_t air_bundle_file_count(const air_bundle *bundle);
/** File @p i, relative to the output directory ("databricks.yml",
 * "generated_artifacts/command.sh"), in the order written; NULL when out of range. @since 1.1 */
AIR_EXTERN const char *air_bundle_file(const air_bundle *bundle, size_t i);
/** Number of stale generated artifacts removed (AIR_BUNDLE_FORCE only). @since 1.1 */
AIR_EXTERN size_t air_bundle_removed_count(const air_bundle *bundle);
/** Removed file @p i, relative to the output directory; NULL when out of range. @since 1.1 */
AIR_EXTERN const char *air_bundle_removed(const air_bundle *bundle, size_t i);
/** Release @p bundle; NULL is a no-op. @since 1.1 */
AIR_EXTERN void air_bundle_free(air_bundle *bundle);

AIR_END_DECLS

#endif /* AIR_BUNDLE_H */
