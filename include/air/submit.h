/**
 * @file
 * submit.h: submit a validated workload as a Jobs run.
 *
 * air_client_submit() performs, in order: the identity lookup (cached on the
 * client), the workspace's pre-flight validation (before anything is
 * uploaded), usage-policy resolution, the experiment-directory check, the
 * launch directory, the launch artifacts (uploaded in parallel), the code
 * snapshot (skipped when the same git-pinned snapshot is already there) and
 * `runs/submit` carrying an idempotency token, so a retried submission never
 * starts a second run; then the workload's permissions are granted on the
 * run's MLflow experiment too.
 */
#ifndef AIR_SUBMIT_H
#define AIR_SUBMIT_H

#include "options.h"

AIR_BEGIN_DECLS

/** Submit options. 1..99 strings, 100..199 integers. ABI: append only. */
typedef enum air_submit_option {
	AIR_SUBMIT_IDEMPOTENCY_KEY = 1, /**< wins over the YAML idempotency_token; 1..64 bytes: setting
	                                     an empty or blank key is AIR_EINVAL (NULL unsets it), a
	                                     longer one fails the submission with AIR_EINVAL */
	AIR_SUBMIT_BASE_DIR = 2,        /**< directory for relative root_path (default: the config's) */
	AIR_SUBMIT_SKIP_PREFLIGHT = 100 /**< 1: do not call the pre-flight validation (default 0) */
} air_submit_option;

/**
 * Phases reported to the progress callback, in the order they happen. Values
 * are spaced so that a phase added later sorts where it happens; DONE stays
 * last. ABI: values never change.
 */
typedef enum air_phase {
	AIR_PHASE_IDENTITY = 100,   /**< looking up the current user */
	AIR_PHASE_PREFLIGHT = 200,  /**< server-side validation */
	AIR_PHASE_POLICY = 300,     /**< usage policy name -> id */
	AIR_PHASE_DIRECTORY = 400,  /**< experiment / launch directories */
	AIR_PHASE_IMAGE = 500,      /**< legacy docker image registration check */
	AIR_PHASE_ARTIFACTS = 600,  /**< launch artifacts upload (bytes) */
	AIR_PHASE_PACKAGING = 700,  /**< building the code snapshot */
	AIR_PHASE_SNAPSHOT = 800,   /**< uploading the code snapshot (bytes) */
	AIR_PHASE_SUBMIT = 900,     /**< runs/submit */
	AIR_PHASE_PERMISSIONS = 950, /**< granting the permissions on the MLflow experiment, after
	                                  runs/submit (the return value is ignored); new in 1.2 */
	AIR_PHASE_DONE = 10000      /**< submitted */
} air_phase;

/** Name of @p phase ("PREFLIGHT"), or NULL for values not in air_phase. Static. @since 1.0 */
AIR_EXTERN const char *air_phase_name(int32_t phase);

/**
 * Progress callback: runs on the submitting thread. @p ev is borrowed until
 * return. Return 0 to continue; non-zero stops the submission with
 * AIR_EABORTED (before runs/submit nothing is submitted; artifacts already
 * uploaded stay in the launch directory).
 */
typedef int (*air_progress_cb)(const air_progress *ev, void *userdata);

/** AIR_PHASE_* of the notification. @since 1.0 */
AIR_EXTERN int32_t air_progress_phase(const air_progress *ev);
/** Bytes transferred so far in this phase (upload phases), else 0. @since 1.0 */
AIR_EXTERN int64_t air_progress_bytes_done(const air_progress *ev);
/** Total bytes of this phase when known, else 0. @since 1.0 */
AIR_EXTERN int64_t air_progress_bytes_total(const air_progress *ev);
/** What the phase works on (a path, a policy name) or NULL; borrowed. @since 1.0 */
AIR_EXTERN const char *air_progress_detail(const air_progress *ev);

/**
 * Create submit options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_submit_options_new(air_submit_options **out);
/** Release options; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_submit_options_free(air_submit_options *opts);
/** Set a string option (copied; NULL unsets). @return AIR_OK, AIR_EINVAL, AIR_EUNSUPPORTED. @since 1.0 */
AIR_EXTERN int air_submit_options_set_str(air_submit_options *opts, int32_t opt, const char *value);
/**
 * Set an integer option.
 * @return AIR_OK, AIR_EINVAL (NULL @p opts, a string option, a value other than 0 or 1)
 *         or AIR_EUNSUPPORTED. @since 1.0
 */
AIR_EXTERN int air_submit_options_set_int(air_submit_options *opts, int32_t opt, int64_t value);
/**
 * Install a progress callback with its userdata (NULL removes it).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_submit_options_set_progress_cb(air_submit_options *opts, air_progress_cb cb,
                                                  void *userdata);
/**
 * Stop the submission when @p intr is raised (borrowed). Before runs/submit
 * nothing is submitted; uploaded artifacts stay in the launch directory. An
 * interrupt during runs/submit itself leaves the outcome unknown: submitting
 * again with the same idempotency key never creates a second run.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_submit_options_set_interrupt(air_submit_options *opts, air_interrupt *intr);
/**
 * At most @p ms milliseconds for the whole submission; 0 = none (see set_interrupt).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.0
 */
AIR_EXTERN int air_submit_options_set_deadline_ms(air_submit_options *opts, int64_t ms);

/**
 * Submit @p cfg (validated again here) through @p client.
 * @param opts may be NULL for defaults.
 * @param[out] out the submission; release with air_submission_free().
 * @return AIR_OK; AIR_ECONFIG for local problems found before any request;
 *         AIR_EREJECTED when pre-flight validation fails (the message lists
 *         every server finding); AIR_ESNAPSHOT for packaging problems (all
 *         found before anything is uploaded); transport and API codes otherwise.
 * @since 1.0
 */
AIR_EXTERN int air_client_submit(air_client *client, const air_config *cfg,
                                 const air_submit_options *opts, air_submission **out,
                                 air_error **err);

/**
 * Check @p cfg for a submission without contacting anything: the checks
 * air_client_submit() makes without the workspace, so that a workload that
 * passes fails no local check of its submission. In order: the configuration
 * (validated after its last override); the idempotency key
 * (AIR_SUBMIT_IDEMPOTENCY_KEY, else the YAML idempotency_token, used verbatim:
 * at most 64 bytes); with a code_source, the snapshot plan (root, git state,
 * include paths) and, for a plain-tar snapshot, its packaging into a
 * temporary file then deleted (unreadable files, links that leave the root,
 * the size limit). `air run --dry-run` runs it.
 * @param opts may be NULL; its idempotency key, base directory, progress
 *        callback (AIR_PHASE_PACKAGING), interrupt and deadline apply.
 * @return AIR_OK; AIR_EINVAL (cfg NULL, or the key longer than 64 bytes,
 *         naming the length in bytes and the field); AIR_ECONFIG (not
 *         validated); AIR_ESNAPSHOT and AIR_EIO (the code snapshot);
 *         AIR_EINTERRUPTED, AIR_ETIMEOUT, AIR_EABORTED from the options.
 * @since 1.2
 */
AIR_EXTERN int air_config_check_submission(const air_config *cfg, const air_submit_options *opts,
                                           air_error **err);

/** The Jobs run id. @since 1.0 */
AIR_EXTERN int64_t air_submission_run_id(const air_submission *sub);
/** Dashboard URL "<host>/jobs/runs/<id>"; owned by @p sub. @since 1.0 */
AIR_EXTERN const char *air_submission_dashboard_url(const air_submission *sub);
/** The idempotency token that was sent; owned by @p sub. @since 1.0 */
AIR_EXTERN const char *air_submission_idempotency_token(const air_submission *sub);
/** The workspace launch directory holding command.sh and the other artifacts. @since 1.0 */
AIR_EXTERN const char *air_submission_launch_dir(const air_submission *sub);
/** code_source_path sent with the run, or NULL without code_source. @since 1.0 */
AIR_EXTERN const char *air_submission_code_source_path(const air_submission *sub);
/** 1 when an identical snapshot was already uploaded and reused. @since 1.0 */
AIR_EXTERN int32_t air_submission_snapshot_reused(const air_submission *sub);
/**
 * Number of warnings: steps after runs/submit that failed without failing
 * the submission (granting the permissions on the MLflow experiment), and
 * for air_client_rerun(), the settings of the past run that its
 * training_config.yaml does not give (overrides it was submitted with),
 * kept by the rerun. @since 1.2
 */
AIR_EXTERN size_t air_submission_warning_count(const air_submission *sub);
/** Warning @p i (one sentence), or NULL when out of range; owned by @p sub. @since 1.2 */
AIR_EXTERN const char *air_submission_warning(const air_submission *sub, size_t i);
/** Release @p sub; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_submission_free(air_submission *sub);

/**
 * Best-effort MLflow links of a run just submitted: one runs/get, then up to
 * @p max_polls reads of its last task's output, @p interval_ms apart, until
 * the MLflow ids appear (they exist once the task has started).
 * @param[out] run_url "<host>/ml/experiments/<exp>/runs/<run>", or NULL when
 *             not known yet; free with air_free().
 * @param[out] experiment_url "<host>/ml/experiments/<exp>", or NULL.
 * @return AIR_OK, also when the ids are not known yet; the runs/get error;
 *         AIR_EINTERRUPTED or AIR_ETIMEOUT from the options.
 * @since 1.0
 */
AIR_EXTERN int air_client_poll_mlflow_links(air_client *client, int64_t run_id, int32_t max_polls,
                                            int64_t interval_ms, const air_call_options *opts,
                                            char **run_url, char **experiment_url,
                                            air_error **err);

AIR_END_DECLS

#endif /* AIR_SUBMIT_H */
