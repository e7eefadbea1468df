/**
 * @file
 * sweep.h: many variants of one workload, each submitted exactly once, and
 * reruns of past runs.
 *
 * A sweep is a validated config and a set of points, each a set of
 * overrides in the `--override PATH=VALUE` language (air_config_set()): a
 * grid (the cartesian product of axes), explicit points, or a seeded random
 * sample of either. air_client_submit_sweep() validates every variant
 * offline before anything is uploaded, uploads the code snapshot and the
 * shared checks once, then each variant's launch directory and runs/submit,
 * bounded in parallel over the client's connections. Each variant carries an
 * idempotency key derived from a base key and its canonical overrides
 * (docs/submit.md, "Sweeps"): submitting the same sweep again starts nothing
 * new and returns the same run ids; changing one point changes only that
 * variant's key. air_client_rerun() submits the exact workload of a past
 * run again.
 *
 * Callbacks run on the calling thread. A points object, options and a sweep
 * result are used by one thread at a time.
 */
#ifndef AIR_SWEEP_H
#define AIR_SWEEP_H

#include "options.h"

AIR_BEGIN_DECLS

/** The variants of a sweep, built by the caller. @since 1.2 */
typedef struct air_sweep_points air_sweep_points;
/** Options of a sweep. @since 1.2 */
typedef struct air_sweep_options air_sweep_options;
/** The outcome of a sweep: one entry per variant. @since 1.2 */
typedef struct air_sweep air_sweep;
/** Options of a rerun. @since 1.2 */
typedef struct air_rerun_options air_rerun_options;

/** Limits of a sweep. */
typedef enum air_sweep_limit {
	AIR_SWEEP_LIMIT_VARIANTS = 100000, /**< most variants of one sweep (after sampling) */
	AIR_SWEEP_LIMIT_PARALLEL = 64 /**< largest AIR_SWEEP_MAX_PARALLEL */
} air_sweep_limit;

/* ---- points ------------------------------------------------------------- */

/**
 * Create an empty set of points.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_sweep_points_new(air_sweep_points **out);
/** Release @p points; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_sweep_points_free(air_sweep_points *points);

/**
 * Add a grid axis: @p path (a field path of the override language) takes
 * each of the @p n YAML values (copied: "1e-3", "32", "'text'", "[a, b]").
 * The variants are the cartesian product of the axes, the first axis
 * varying slowest. A path may appear on one axis only, and no axis may set
 * a field within another's; a points object holds either axes or explicit
 * points.
 * @return AIR_OK; AIR_EINVAL (NULL argument, @p n 0, an empty, repeated or
 *         overlapping path, an empty value (write null for a null), a value
 *         that is not one line of YAML, explicit points already
 *         added, or more than AIR_SWEEP_LIMIT_VARIANTS variants without a
 *         sample); AIR_ECONFIG (a path the schema does not know, naming it);
 *         AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_sweep_points_add_axis(air_sweep_points *points, const char *path,
                                         const char *const *values, size_t n, air_error **err);

/**
 * Add an explicit point: @p n "PATH=VALUE" assignments (the `--override`
 * syntax, copied). A path may appear once per point, and not within another
 * of its paths; an empty point (n 0) is the base config itself.
 * @return AIR_OK; AIR_EINVAL (NULL argument, no '=', an empty, repeated or
 *         overlapping path, grid axes already added, too many points); AIR_ECONFIG (an
 *         unknown path); AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_sweep_points_add_point(air_sweep_points *points,
                                          const char *const *assignments, size_t n,
                                          air_error **err);

/**
 * Add the explicit points of a file: JSON Lines (one JSON object per line,
 * blank lines skipped) or YAML (a list of mappings, or one mapping per
 * document), each mapping from an override path to its value, e.g.
 * `{"parameters.lr": 0.001, "compute.num_accelerators": 8}`. A file whose
 * first non-blank character is '{' is read as JSON Lines.
 * @return AIR_OK; AIR_EIO (unreadable); AIR_ECONFIG (not such a file, or an
 *         unknown path: the error names the file, the line and the path);
 *         AIR_EINVAL (grid axes already added); AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_sweep_points_load_file(air_sweep_points *points, const char *path,
                                          air_error **err);

/**
 * Keep a random sample of @p n of the points (without repetition, in their
 * original order), chosen by a generator seeded with @p seed: the same
 * points and seed always give the same sample, on every platform. @p n at
 * least the number of points keeps them all.
 * @return AIR_OK, AIR_EINVAL (NULL @p points, @p n 0 or above
 *         AIR_SWEEP_LIMIT_VARIANTS) or AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_sweep_points_sample(air_sweep_points *points, uint64_t n, uint64_t seed,
                                       air_error **err);

/** Number of points (after sampling). @since 1.2 */
AIR_EXTERN size_t air_sweep_points_count(const air_sweep_points *points);
/** Number of overrides of point @p i (0 when out of range). @since 1.2 */
AIR_EXTERN size_t air_sweep_points_size(const air_sweep_points *points, size_t i);
/** Path of override @p j of point @p i, or NULL; borrowed until the points change. @since 1.2 */
AIR_EXTERN const char *air_sweep_points_path(const air_sweep_points *points, size_t i, size_t j);
/** YAML value text of override @p j of point @p i, or NULL; borrowed. @since 1.2 */
AIR_EXTERN const char *air_sweep_points_value(const air_sweep_points *points, size_t i,
                                              size_t j);

/* ---- options ------------------------------------------------------------ */

/** Sweep options. 1..99 strings, 100..199 integers. ABI: append only. */
typedef enum air_sweep_option {
	AIR_SWEEP_BASE_KEY = 1,        /**< the base of every variant's idempotency key (1..256
	                                    bytes); default: the YAML idempotency_token, else
	                                    "<user>-<experiment>-<YYYYMMDD>-<digest of the config>" */
	AIR_SWEEP_BASE_DIR = 2,        /**< directory for a relative root_path (default: the config's) */
	AIR_SWEEP_MAX_PARALLEL = 100,  /**< variants at a time, 1..AIR_SWEEP_LIMIT_PARALLEL;
	                                    0 (default): 8 for a workspace (submissions in flight),
	                                    1 for a local one (runs going) */
	AIR_SWEEP_SKIP_PREFLIGHT = 101, /**< 1: do not call the workspace's pre-flight validation */
	AIR_SWEEP_RESUME = 102         /**< 1: undo an earlier stop of this sweep
	                                    (air_client_stop_sweep(), or a run of it
	                                    cancelled) once its checks have passed, before
	                                    its first submission, so that its variants
	                                    without a run are submitted (air_sweep_resumed());
	                                    needs a base key given (AIR_SWEEP_BASE_KEY or the
	                                    YAML idempotency_token); ignored by
	                                    air_config_validate_sweep(). @since 1.2 */
} air_sweep_option;

/** What a variant has come to (air_sweep_variant_status()). ABI: values never change. */
typedef enum air_variant_status {
	AIR_VARIANT_VALID = 100,     /**< validated; nothing sent yet */
	AIR_VARIANT_UPLOADING = 200, /**< its launch directory is being written */
	AIR_VARIANT_SUBMITTED = 300, /**< runs/submit returned its run id */
	AIR_VARIANT_FAILED = 400     /**< not submitted: air_sweep_variant_error() says why */
} air_variant_status;

/**
 * Progress of a sweep: variant @p index of @p sweep changed its status
 * (uploading, submitted, failed). Runs on the calling thread; @p sweep is
 * borrowed until return (read the variant with the air_sweep_variant_*
 * getters). Non-zero stops the sweep with AIR_EABORTED.
 */
typedef int (*air_sweep_progress_cb)(const air_sweep *sweep, size_t index, void *userdata);

/**
 * Create sweep options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_sweep_options_new(air_sweep_options **out);
/** Release options; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_sweep_options_free(air_sweep_options *opts);
/**
 * Set a string option (copied; NULL unsets).
 * @return AIR_OK; AIR_EINVAL (NULL @p opts, an integer option, an empty,
 *         blank or over-long key); AIR_EUNSUPPORTED. @since 1.2
 */
AIR_EXTERN int air_sweep_options_set_str(air_sweep_options *opts, int32_t opt, const char *value);
/**
 * Set an integer option.
 * @return AIR_OK; AIR_EINVAL (NULL @p opts, a string option, a value out of
 *         range); AIR_EUNSUPPORTED. @since 1.2
 */
AIR_EXTERN int air_sweep_options_set_int(air_sweep_options *opts, int32_t opt, int64_t value);
/**
 * Install a progress callback with its userdata (NULL removes it).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_sweep_options_set_progress_cb(air_sweep_options *opts,
                                                 air_sweep_progress_cb cb, void *userdata);
/**
 * Stop the sweep when @p intr is raised (borrowed). Variants already
 * submitted go on; a variant whose runs/submit was in flight may or may not
 * have a run: submitting the sweep again with the same base key tells,
 * without starting a second one.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_sweep_options_set_interrupt(air_sweep_options *opts, air_interrupt *intr);
/**
 * At most @p ms milliseconds for the whole sweep; 0 = none (see set_interrupt).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.2
 */
AIR_EXTERN int air_sweep_options_set_deadline_ms(air_sweep_options *opts, int64_t ms);

/* ---- validating and submitting ---------------------------------------- */

/**
 * Validate every variant of @p cfg and @p points without contacting
 * anything (`air sweep --dry-run`): each point applied to a copy of the
 * config and validated, the fields variants share (experiment_name,
 * code_source, idempotency_token, usage policy, mlflow_experiment_directory,
 * environment.docker_image) unchanged, and the checks of
 * air_config_check_submission() made once for the shared code snapshot.
 * @param opts may be NULL; its base key, base directory, interrupt and
 *        deadline apply.
 * @param[out] out the variants (status AIR_VARIANT_VALID, point, run name,
 *             and the idempotency key when a base key is known offline);
 *             release with air_sweep_free().
 * @return AIR_OK; AIR_ECONFIG naming the variant (its index and overrides)
 *         and the field; AIR_EINVAL (NULL argument, no points, a config
 *         not validated); the codes of air_config_check_submission().
 * @since 1.2
 */
AIR_EXTERN int air_config_validate_sweep(const air_config *cfg, const air_sweep_points *points,
                                         const air_sweep_options *opts, air_sweep **out,
                                         air_error **err);

/**
 * Submit every variant of @p cfg and @p points as a run of its own, each
 * exactly once (docs/submit.md, "Sweeps"). Every variant is validated first
 * (as air_config_validate_sweep(); a bad point fails the whole sweep before
 * any request). Then, once: the snapshot plan, identity, the pre-flight of
 * each distinct variant (the local node limit among its checks), the usage
 * policy, experiment directory and legacy image checks, the code snapshot.
 * Then per variant, at most AIR_SWEEP_MAX_PARALLEL at a time: its launch
 * directory (one mkdirs, its files in parallel) and runs/submit with its
 * idempotency key and a run name carrying its point. On a local workspace
 * at most AIR_SWEEP_MAX_PARALLEL of the sweep's runs go at once: the call
 * waits for one to end before it submits the next.
 * @param opts may be NULL for defaults.
 * @param[out] out the outcome of every variant; release with air_sweep_free().
 *             Also set after AIR_EINTERRUPTED, AIR_ETIMEOUT or AIR_EABORTED once
 *             variants were being submitted (which were is in it).
 * @return AIR_OK when every variant was tried (check air_sweep_failed_count():
 *         a variant can fail on its own); the codes of
 *         air_config_validate_sweep(); AIR_EREJECTED (a pre-flight finding,
 *         naming the variant); transport and API codes of the shared steps;
 *         AIR_EINTERRUPTED, AIR_ETIMEOUT, AIR_EABORTED.
 * @since 1.2
 */
AIR_EXTERN int air_client_submit_sweep(air_client *client, const air_config *cfg,
                                       const air_sweep_points *points,
                                       const air_sweep_options *opts, air_sweep **out,
                                       air_error **err);

/* ---- the outcome -------------------------------------------------------- */

/** Number of variants. @since 1.2 */
AIR_EXTERN size_t air_sweep_count(const air_sweep *sweep);
/** Number of variants that failed (AIR_VARIANT_FAILED). @since 1.2 */
AIR_EXTERN size_t air_sweep_failed_count(const air_sweep *sweep);
/**
 * The base key of the variants' idempotency keys, or NULL when it is not
 * known yet (a dry run without a base key). `air list --sweep BASE` finds
 * the sweep's runs by it. @since 1.2
 */
AIR_EXTERN const char *air_sweep_base_key(const air_sweep *sweep);
/** 1 when this submission undid an earlier stop of the sweep (AIR_SWEEP_RESUME
 *  given, and the sweep was stopped), else 0 (also for NULL). @since 1.2 */
AIR_EXTERN int32_t air_sweep_resumed(const air_sweep *sweep);
/** AIR_VARIANT_* of variant @p i (0 when out of range). @since 1.2 */
AIR_EXTERN int32_t air_sweep_variant_status(const air_sweep *sweep, size_t i);
/**
 * Variant @p i's point as a compact JSON object of its canonical overrides
 * ({"parameters.lr":0.001,"parameters.batch_size":32}: paths sorted, numbers
 * in canonical form), or NULL when out of range; borrowed. @since 1.2
 */
AIR_EXTERN const char *air_sweep_variant_point(const air_sweep *sweep, size_t i);
/** The Jobs run name of variant @p i ("exp lr=0.001 batch_size=32"); borrowed. @since 1.2 */
AIR_EXTERN const char *air_sweep_variant_run_name(const air_sweep *sweep, size_t i);
/** The idempotency key of variant @p i, or NULL when not known yet; borrowed. @since 1.2 */
AIR_EXTERN const char *air_sweep_variant_idempotency_key(const air_sweep *sweep, size_t i);
/** The run id of variant @p i, or 0 when it has none. @since 1.2 */
AIR_EXTERN int64_t air_sweep_variant_run_id(const air_sweep *sweep, size_t i);
/** Its dashboard URL "<host>/jobs/runs/<id>", or NULL without a run; borrowed. @since 1.2 */
AIR_EXTERN const char *air_sweep_variant_dashboard_url(const air_sweep *sweep, size_t i);
/** Its launch directory, or NULL when none was written; borrowed. @since 1.2 */
AIR_EXTERN const char *air_sweep_variant_launch_dir(const air_sweep *sweep, size_t i);
/**
 * Why variant @p i failed (AIR_VARIANT_FAILED), or NULL; borrowed from
 * @p sweep (read it before air_sweep_free()). @since 1.2
 */
AIR_EXTERN const air_error *air_sweep_variant_error(const air_sweep *sweep, size_t i);
/** Release @p sweep; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_sweep_free(air_sweep *sweep);

/* ---- reruns ------------------------------------------------------------- */

/** Rerun options. 1..99 strings, 100..199 integers. ABI: append only. */
typedef enum air_rerun_option {
	AIR_RERUN_IDEMPOTENCY_KEY = 1, /**< 1..64 bytes; default: derived from the run id and the
	                                    overrides (docs/submit.md, "Reruns") */
	AIR_RERUN_SKIP_PREFLIGHT = 100 /**< 1: do not call the pre-flight validation */
} air_rerun_option;

/**
 * Create rerun options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_rerun_options_new(air_rerun_options **out);
/** Release options; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_rerun_options_free(air_rerun_options *opts);
/**
 * Set a string option (copied; NULL unsets).
 * @return AIR_OK; AIR_EINVAL (NULL @p opts, an integer option, an empty,
 *         blank or over-long key); AIR_EUNSUPPORTED. @since 1.2
 */
AIR_EXTERN int air_rerun_options_set_str(air_rerun_options *opts, int32_t opt, const char *value);
/**
 * Set an integer option.
 * @return AIR_OK, AIR_EINVAL (NULL @p opts, a string option, not 0 or 1),
 *         AIR_EUNSUPPORTED. @since 1.2
 */
AIR_EXTERN int air_rerun_options_set_int(air_rerun_options *opts, int32_t opt, int64_t value);
/**
 * Add an override "PATH=VALUE" (the `--override` syntax, copied), applied
 * to the past run's config in the order added.
 * @return AIR_OK, AIR_EINVAL (NULL argument, no '=') or AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_rerun_options_add_override(air_rerun_options *opts, const char *assignment);
/**
 * Stop the rerun when @p intr is raised (borrowed).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_rerun_options_set_interrupt(air_rerun_options *opts, air_interrupt *intr);
/**
 * At most @p ms milliseconds for the whole rerun; 0 = none.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.2
 */
AIR_EXTERN int air_rerun_options_set_deadline_ms(air_rerun_options *opts, int64_t ms);

/**
 * Submit the exact workload of the past run @p run_id again
 * (docs/submit.md, "Reruns"): its effective config (the training_config.yaml
 * of its launch directory, with what runs/get and its launch files say the
 * run had otherwise, named in a warning of the submission) with the
 * overrides of @p opts, its code snapshot
 * (which must still exist) and, without overrides, its launch directory as
 * it is; nothing is uploaded again while it exists. The new run's
 * idempotency key is the option, else derived from @p run_id and the
 * overrides, so the same rerun submitted twice starts one run.
 * @param opts may be NULL.
 * @param[out] out the new run's submission; release with air_submission_free().
 * @return AIR_OK; AIR_EINVAL (id <= 0, NULL argument); AIR_ENOTFOUND (no
 *         such run, a run that is not an AI Runtime run, or its launch files
 *         or code snapshot deleted, naming the path); AIR_ECONFIG (an
 *         override, naming the field); AIR_EREJECTED; transport and API codes.
 * @since 1.2
 */
AIR_EXTERN int air_client_rerun(air_client *client, int64_t run_id, const air_rerun_options *opts,
                                air_submission **out, air_error **err);

/* ---- stopping a sweep -------------------------------------------------- */

/**
 * Stop the sweep whose base key is @p base_key (air_sweep_base_key()): an
 * air_client_submit_sweep() of it that is going, in any process, submits no
 * further variant once it has seen the stop; its runs already started go
 * on (air_client_cancel_sweep() cancels them too). The stop is a mark in the
 * caller's workspace folder, `<user base>/.air/sweeps/<sweep tag>/stopped`
 * (docs/submit.md, "Stopping a sweep"): a sweep reads it before its first
 * runs/submit and again a second after each look while it submits; a local
 * workspace also refuses at once the runs/submit of a variant of a stopped
 * sweep. The stop stays: the sweep submitted again starts nothing new and
 * reports the runs its variants have.
 * @param opts may be NULL.
 * @return AIR_OK; AIR_EINVAL (NULL @p client or @p base_key, a key blank or
 *         longer than 256 bytes, as AIR_SWEEP_BASE_KEY); the client's resolution, identity and
 *         transport codes. @since 1.2
 */
AIR_EXTERN int air_client_stop_sweep(air_client *client, const char *base_key,
                                     const air_call_options *opts, air_error **err);

/**
 * Stop the sweep whose base key is @p base_key (air_client_stop_sweep()),
 * then request the cancellation of its active runs (those the list filter
 * `sweep=BASE` finds). One failing run does not stop the rest: every
 * outcome is in the report, which is empty when the sweep had no active
 * run.
 * @param opts may be NULL.
 * @param[out] out the report; release with air_cancel_report_free().
 * @return AIR_OK when the report was built (check it for failures);
 *         the codes of air_client_stop_sweep() (no report: nothing was
 *         cancelled); the listing's transport codes; AIR_EINTERRUPTED or
 *         AIR_ETIMEOUT also during the cancellations (no report). @since 1.2
 */
AIR_EXTERN int air_client_cancel_sweep(air_client *client, const char *base_key,
                                       const air_call_options *opts, air_cancel_report **out,
                                       air_error **err);

AIR_END_DECLS

#endif /* AIR_SWEEP_H */
