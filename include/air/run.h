/**
 * @file
 * run.h: read, list and cancel AI Runtime runs.
 *
 * An air_run is a snapshot of `jobs/runs/get` (all pages merged) plus what
 * the requested flags resolved (MLflow ids, sweep iterations, workspace id).
 * Strings returned by air_run_* getters are owned by the run and live as long
 * as it does.
 */
#ifndef AIR_RUN_H
#define AIR_RUN_H

#include "options.h"

AIR_BEGIN_DECLS

/**
 * Display states of a run: the result state once there is one, else the life
 * cycle state. Values are grouped (active 100.., ended without result 200..,
 * results 300..) with room for states added later. ABI: append only.
 */
typedef enum air_state {
	AIR_STATE_UNKNOWN = 0,          /**< no state reported */
	AIR_STATE_PENDING = 100,        /**< waiting for capacity */
	AIR_STATE_QUEUED = 110,         /**< queued behind other runs */
	AIR_STATE_BLOCKED = 120,        /**< blocked by a dependency */
	AIR_STATE_WAITING_FOR_RETRY = 130, /**< between attempts */
	AIR_STATE_RUNNING = 140,        /**< running */
	AIR_STATE_TERMINATING = 150,    /**< stopping */
	AIR_STATE_TERMINATED = 200,     /**< ended, no result reported */
	AIR_STATE_SKIPPED = 210,        /**< skipped */
	AIR_STATE_INTERNAL_ERROR = 220, /**< the platform failed */
	AIR_STATE_SUCCESS = 300,        /**< succeeded */
	AIR_STATE_SUCCESS_WITH_FAILURES = 310, /**< succeeded with failed tasks */
	AIR_STATE_FAILED = 320,         /**< failed */
	AIR_STATE_TIMEDOUT = 330,       /**< timed out */
	AIR_STATE_CANCELED = 340,       /**< cancelled */
	AIR_STATE_MAXIMUM_CONCURRENT_RUNS_REACHED = 350, /**< not started: concurrency limit */
	AIR_STATE_EXCLUDED = 360,       /**< excluded by a condition */
	AIR_STATE_UPSTREAM_FAILED = 370,   /**< a dependency failed */
	AIR_STATE_UPSTREAM_CANCELED = 380, /**< a dependency was cancelled */
	AIR_STATE_DISABLED = 390,       /**< disabled */
	AIR_STATE_OTHER = 1000          /**< a state this version of libair does not know */
} air_state;

/** Name of @p state ("RUNNING"); "OTHER" for AIR_STATE_OTHER, NULL for values not in air_state. Static. @since 1.0 */
AIR_EXTERN const char *air_state_name(int32_t state);
/** 1 when @p state is final (200 and above, AIR_STATE_OTHER excluded). @since 1.0 */
AIR_EXTERN int32_t air_state_is_terminal(int32_t state);

/** Options of air_client_get_run(): what to read besides runs/get. ABI: append only. */
typedef enum air_get_option {
	AIR_GET_MLFLOW = 100,       /**< 1: resolve MLflow run/experiment ids (runs/get-output) */
	AIR_GET_SWEEP = 101,        /**< 1: read sweep (for-each) iterations */
	AIR_GET_WORKSPACE_ID = 102, /**< 1: fail unless the workspace id is known (dashboard ?o=) */
	AIR_GET_MLFLOW_NAME = 103,  /**< 1: also read the MLflow run name (mlflow/runs/get) */
	AIR_GET_CONFIG = 104        /**< 1: also read the uploaded training_config.yaml (best-effort) */
} air_get_option;

/**
 * Create lookup options: runs/get only, no interrupt, no deadline.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_get_options_new(air_get_options **out);
/** Release options; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_get_options_free(air_get_options *opts);
/** Set an AIR_GET_* option (0 or 1). @return AIR_OK, AIR_EINVAL, AIR_EUNSUPPORTED. @since 1.0 */
AIR_EXTERN int air_get_options_set_int(air_get_options *opts, int32_t opt, int64_t value);
/**
 * Stop the lookup when @p intr is raised (borrowed; see options.h).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_get_options_set_interrupt(air_get_options *opts, air_interrupt *intr);
/**
 * At most @p ms milliseconds for the lookup; 0 = none (see options.h).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.0
 */
AIR_EXTERN int air_get_options_set_deadline_ms(air_get_options *opts, int64_t ms);

/**
 * Read run @p run_id.
 * @param opts may be NULL (runs/get only).
 * @return AIR_OK; AIR_EINVAL for an id <= 0; AIR_ENOTFOUND when the run does
 *         not exist (either way the Jobs API reports it); transport codes.
 * @since 1.0
 */
AIR_EXTERN int air_client_get_run(air_client *client, int64_t run_id,
                                  const air_get_options *opts, air_run **out, air_error **err);
/** Release @p run; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_run_free(air_run *run);

/** The Jobs run id. @since 1.0 */
AIR_EXTERN int64_t air_run_id(const air_run *run);
/** run_name, or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_name(const air_run *run);
/** creator_user_name, or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_creator(const air_run *run);
/**
 * Display state (an air_state): result_state if set, else life_cycle_state,
 * else AIR_STATE_UNKNOWN; AIR_STATE_OTHER for a state newer than this library
 * (air_run_state_name() has its text). @since 1.0
 */
AIR_EXTERN int32_t air_run_state(const air_run *run);
/** Display state as the workspace wrote it ("SUCCESS", "RUNNING", "UNKNOWN"). Never NULL. @since 1.0 */
AIR_EXTERN const char *air_run_state_name(const air_run *run);
/** state.life_cycle_state or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_life_cycle_state(const air_run *run);
/** state.result_state or NULL (absent until finished). @since 1.0 */
AIR_EXTERN const char *air_run_result_state(const air_run *run);
/** state.state_message or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_state_message(const air_run *run);
/** 1 when the run has finished (TERMINATED, SKIPPED, INTERNAL_ERROR or a final result). @since 1.0 */
AIR_EXTERN int32_t air_run_is_terminal(const air_run *run);
/** 1 when result_state is SUCCESS. @since 1.0 */
AIR_EXTERN int32_t air_run_succeeded(const air_run *run);
/** 1 when the run is an AI Runtime run (ai_runtime_task or legacy training task). @since 1.0 */
AIR_EXTERN int32_t air_run_is_ai_runtime(const air_run *run);

/** Reported start, epoch ms UTC (last task's start if set, else the run's); 0 when not started. @since 1.0 */
AIR_EXTERN int64_t air_run_start_time_ms(const air_run *run);
/** Reported end, epoch ms UTC; 0 while running. @since 1.0 */
AIR_EXTERN int64_t air_run_end_time_ms(const air_run *run);
/** Run id of the last task (the one runs/get-output takes); 0 without tasks. @since 1.0 */
AIR_EXTERN int64_t air_run_task_run_id(const air_run *run);
/** attempt_number of the last task (0-based). @since 1.0 */
AIR_EXTERN int32_t air_run_attempt_number(const air_run *run);
/** Highest attempt_number over the tasks (the latest retry attempt). @since 1.0 */
AIR_EXTERN int32_t air_run_latest_attempt(const air_run *run);
/** max_retries of the last task; -1 means unlimited. @since 1.0 */
AIR_EXTERN int32_t air_run_max_retries(const air_run *run);

/** Experiment name with a leading "/Users/<user>/" removed, or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_experiment_name(const air_run *run);
/** Accelerator type ("GPU_8xH100"), or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_accelerator_type(const air_run *run);
/** Accelerator count; 0 when unknown. @since 1.0 */
AIR_EXTERN int64_t air_run_accelerator_count(const air_run *run);
/** Display label "<count>x <name>" ("8x H100"), or NULL when the count is unknown. @since 1.0 */
AIR_EXTERN const char *air_run_accelerators(const air_run *run);
/** deployments[0].command_path, or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_command_path(const air_run *run);
/** code_source_path, or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_code_source_path(const air_run *run);
/** environment_version of the "default" environment, or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_environment_version(const air_run *run);

/** "<host>/jobs/runs/<id>", with "?o=<workspace id>" when the id is known. @since 1.0 */
AIR_EXTERN const char *air_run_dashboard_url(const air_run *run);
/** MLflow run id (AIR_GET_MLFLOW), or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_mlflow_run_id(const air_run *run);
/** MLflow experiment id (AIR_GET_MLFLOW), or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_mlflow_experiment_id(const air_run *run);
/** MLflow run name (AIR_GET_MLFLOW_NAME), or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_mlflow_run_name(const air_run *run);
/** "<host>/ml/experiments/<exp>/runs/<run>", or NULL when unresolved. @since 1.0 */
AIR_EXTERN const char *air_run_mlflow_run_url(const air_run *run);
/** "<host>/ml/experiments/<exp>", or NULL when unresolved. @since 1.0 */
AIR_EXTERN const char *air_run_mlflow_experiment_url(const air_run *run);
/** ai_runtime_task_output.status_message (AIR_GET_MLFLOW), or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_status_message(const air_run *run);

/** 1 when the first task is a sweep (for_each_task). @since 1.0 */
AIR_EXTERN int32_t air_run_is_sweep(const air_run *run);
/** Sweep statistics of air_run_sweep_stat(). ABI: append only. */
typedef enum air_sweep_stat {
	AIR_SWEEP_TOTAL = 0,     /**< total_iterations */
	AIR_SWEEP_COMPLETED = 1, /**< completed_iterations */
	AIR_SWEEP_SUCCEEDED = 2, /**< succeeded_iterations */
	AIR_SWEEP_FAILED = 3,    /**< failed_iterations */
	AIR_SWEEP_ACTIVE = 4     /**< active_iterations */
} air_sweep_stat;
/** Sweep statistic @p which (an air_sweep_stat); 0 when not a sweep or unknown. @since 1.0 */
AIR_EXTERN int64_t air_run_sweep_stat(const air_run *run, int32_t which);
/** Number of sweep iterations read (AIR_GET_SWEEP). @since 1.0 */
AIR_EXTERN size_t air_run_iteration_count(const air_run *run);
/** Task key of iteration @p i, or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_iteration_task_key(const air_run *run, size_t i);
/** Run id of iteration @p i, or 0. @since 1.0 */
AIR_EXTERN int64_t air_run_iteration_run_id(const air_run *run, size_t i);
/** Display state (air_state) of iteration @p i; AIR_STATE_UNKNOWN when out of range. @since 1.0 */
AIR_EXTERN int32_t air_run_iteration_state(const air_run *run, size_t i);
/** Display state of iteration @p i as written, or NULL when out of range. @since 1.0 */
AIR_EXTERN const char *air_run_iteration_state_name(const air_run *run, size_t i);
/** Experiment of iteration @p i, or NULL. @since 1.0 */
AIR_EXTERN const char *air_run_iteration_experiment(const air_run *run, size_t i);

/**
 * The workload YAML uploaded with the run (training_config.yaml next to
 * command_path, read with AIR_GET_CONFIG), or NULL when it was not read.
 * Not NUL-safe: its length is in @p len_out (may be NULL). @since 1.0
 */
AIR_EXTERN const char *air_run_config_yaml(const air_run *run, size_t *len_out);

/**
 * The merged runs/get JSON object. Free *out with air_free().
 * @return AIR_OK, AIR_EINVAL (NULL @p run or @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_run_to_json(const air_run *run, char **out, air_error **err);

/* ---- listing ---------------------------------------------------------- */

/** Integer options of a listing. ABI: append only. */
typedef enum air_list_option {
	AIR_LIST_LIMIT = 100,         /**< most runs to return; default 20; must be > 0 */
	AIR_LIST_ALL_STATUS = 101,    /**< 1: include finished runs (default: active only) */
	AIR_LIST_ALL_USERS = 102,     /**< 1: include other users' runs */
	AIR_LIST_MAX_INSPECTED = 103, /**< stop after inspecting this many runs; default 2000 */
	AIR_LIST_WORKSPACE_ID = 104,  /**< 1 (default): probe the workspace id for dashboard URLs
	                                   (failure tolerated: "?o=0"); 0: no probe */
	AIR_LIST_MLFLOW = 105,        /**< 1: also resolve MLflow ids and run names of the runs
	                                   returned (runs/get-output of tasks[0], mlflow/runs/get,
	                                   up to 8 in parallel, best-effort); default 0 */
	AIR_LIST_CACHE = 106          /**< 1 (default): keep what is fetched for finished runs in
	                                   the on-disk list cache and read it back instead of asking
	                                   again (off when DATABRICKS_CACHE_ENABLED=false); 0: neither
	                                   read nor write it. @since 1.2 */
} air_list_option;

/**
 * Create listing options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_list_options_new(air_list_options **out);
/** Release options; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_list_options_free(air_list_options *opts);
/** Set an AIR_LIST_* option. @return AIR_OK, AIR_EINVAL (bad value), AIR_EUNSUPPORTED. @since 1.0 */
AIR_EXTERN int air_list_options_set_int(air_list_options *opts, int32_t opt, int64_t value);
/**
 * Stop the listing (opening and every air_run_iter_next()) when @p intr is raised
 * (borrowed).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_list_options_set_interrupt(air_list_options *opts, air_interrupt *intr);
/**
 * At most @p ms milliseconds from air_client_list_runs() to the last air_run_iter_next();
 * 0 = none.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.0
 */
AIR_EXTERN int air_list_options_set_deadline_ms(air_list_options *opts, int64_t ms);
/**
 * Add a `KEY=VALUE` filter (user, experiment, accelerator_type,
 * num_accelerators); a later filter with the same key wins.
 * @return AIR_OK or AIR_EINVAL naming the problem. @since 1.0
 */
AIR_EXTERN int air_list_options_add_filter(air_list_options *opts, const char *filter,
                                           air_error **err);
/**
 * Called for each run a listing finds but cannot read because its record is
 * damaged — a local run whose status.json or run.json is missing,
 * unreadable or not valid JSON, or a run a workspace answers with
 * DATA_LOSS. @p problem (borrowed until the callback returns) says which
 * run, which file and what is wrong. The listing leaves the run out and
 * goes on; a non-zero return stops it with AIR_EABORTED.
 * @since 1.2
 */
typedef int (*air_list_skip_cb)(int64_t run_id, const air_error *problem, void *userdata);
/**
 * Report the runs a listing leaves out (damaged ones) to @p cb with
 * @p userdata; NULL (the default) leaves them out silently. Every other run
 * is listed either way.
 * @return AIR_OK or AIR_EINVAL (@p opts is NULL). @since 1.2
 */
AIR_EXTERN int air_list_options_set_skip_cb(air_list_options *opts, air_list_skip_cb cb,
                                            void *userdata);

/**
 * Start a listing of AI Runtime runs (newest first). Pages are fetched as the
 * iterator advances, on the thread calling air_run_iter_next(), under the
 * interrupt and deadline of @p opts (copied; the interrupt must outlive the
 * iterator). @p opts may be NULL (active runs of the caller, 20).
 * @return AIR_OK, AIR_EINVAL (NULL @p client or @p out), AIR_ENOMEM, transport codes of
 *         the first requests (the caller's identity). @since 1.0
 */
AIR_EXTERN int air_client_list_runs(air_client *client, const air_list_options *opts,
                                    air_run_iter **out, air_error **err);
/**
 * Next run of the listing: AIR_OK with *run set (borrowed until the next call
 * or air_run_iter_free()), AIR_EDONE at the end (*run NULL, no error), or a
 * failure (*run NULL), after which the listing is over: further calls
 * return AIR_EDONE.
 * @return AIR_OK, AIR_EDONE, AIR_EINVAL (NULL argument), transport codes. @since 1.0
 */
AIR_EXTERN int air_run_iter_next(air_run_iter *iter, const air_run **run, air_error **err);
/** 1 when the listing stopped at AIR_LIST_MAX_INSPECTED and may be incomplete. @since 1.0 */
AIR_EXTERN int32_t air_run_iter_truncated(const air_run_iter *iter);
/** Release the iterator; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_run_iter_free(air_run_iter *iter);

/* ---- cancellation ----------------------------------------------------- */

/**
 * Request cancellation of one run (asynchronous on the server: wait for it
 * with air_client_wait_run()). @param opts may be NULL.
 * @return AIR_OK, AIR_EINVAL (id <= 0), AIR_ENOTFOUND, transport codes. @since 1.0
 */
AIR_EXTERN int air_client_cancel_run(air_client *client, int64_t run_id,
                                     const air_call_options *opts, air_error **err);
/**
 * Request cancellation of @p n runs. One failing id does not stop the rest:
 * every outcome is in the report. An interrupt or the deadline stops the
 * whole call (no report).
 * @return AIR_OK when the report was built (check it for failures);
 *         AIR_EINVAL (NULL @p client or @p out, NULL @p run_ids with @p n > 0);
 *         AIR_ENOMEM; the resolution failures of the client; AIR_EINTERRUPTED
 *         or AIR_ETIMEOUT (no report). @since 1.0
 */
AIR_EXTERN int air_client_cancel_runs(air_client *client, const int64_t *run_ids, size_t n,
                                      const air_call_options *opts, air_cancel_report **out,
                                      air_error **err);
/**
 * Cancel every active AI Runtime run of the caller.
 * @return AIR_OK when the report was built (check it for failures);
 *         AIR_EINVAL (NULL @p client or @p out); AIR_ENOMEM; transport codes of
 *         the listing; AIR_EINTERRUPTED or AIR_ETIMEOUT also during the
 *         cancellations (no report). @since 1.0
 */
AIR_EXTERN int air_client_cancel_all(air_client *client, const air_call_options *opts,
                                     air_cancel_report **out, air_error **err);
/** Number of runs in the report. @since 1.0 */
AIR_EXTERN size_t air_cancel_report_count(const air_cancel_report *rep);
/** Run id of entry @p i. @since 1.0 */
AIR_EXTERN int64_t air_cancel_report_run_id(const air_cancel_report *rep, size_t i);
/** AIR_OK when cancellation of entry @p i was requested, else its error code. @since 1.0 */
AIR_EXTERN int32_t air_cancel_report_status(const air_cancel_report *rep, size_t i);
/** Error message of entry @p i, or NULL when it succeeded. @since 1.0 */
AIR_EXTERN const char *air_cancel_report_message(const air_cancel_report *rep, size_t i);
/** Number of failed entries. @since 1.0 */
AIR_EXTERN size_t air_cancel_report_failures(const air_cancel_report *rep);
/** Release the report; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_cancel_report_free(air_cancel_report *rep);

/* ---- waiting ------------------------------------------------------------ */

/** Integer options of a wait. ABI: append only. */
typedef enum air_wait_option {
	AIR_WAIT_POLL_INTERVAL_MS = 100 /**< pause between runs/get reads; default 3000 (1000 for a local workspace), >= 0 */
} air_wait_option;

/**
 * Called with each newly observed state of the run (the first read, then
 * every change), the run borrowed until return. Return non-zero to stop the
 * wait (AIR_EABORTED).
 */
typedef int (*air_wait_state_cb)(const air_run *run, void *userdata);

/**
 * Create wait options: poll every 3 s (every second for a local workspace),
 * no deadline.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_wait_options_new(air_wait_options **out);
/** Release options; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_wait_options_free(air_wait_options *opts);
/** Set an AIR_WAIT_* option. @return AIR_OK, AIR_EINVAL, AIR_EUNSUPPORTED. @since 1.0 */
AIR_EXTERN int air_wait_options_set_int(air_wait_options *opts, int32_t opt, int64_t value);
/**
 * Stop waiting when @p intr is raised (borrowed).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_wait_options_set_interrupt(air_wait_options *opts, air_interrupt *intr);
/**
 * Wait at most @p ms milliseconds; 0 = until the run ends.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.0
 */
AIR_EXTERN int air_wait_options_set_deadline_ms(air_wait_options *opts, int64_t ms);
/**
 * Report state changes to @p cb with @p userdata (NULL removes it).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_wait_options_set_state_cb(air_wait_options *opts, air_wait_state_cb cb,
                                             void *userdata);

/**
 * Wait until run @p run_id reaches a terminal state, reading runs/get every
 * poll interval. Transient failures of a read are retried at the next poll;
 * a run that does not exist ends the wait.
 * @param[out] out the final run (air_run_free()).
 * @return AIR_OK whatever the run's result (check air_run_state());
 *         AIR_ETIMEOUT when the deadline passed first; AIR_EINTERRUPTED;
 *         AIR_EABORTED; AIR_ENOTFOUND; AIR_EINVAL (id <= 0).
 * @since 1.0
 */
AIR_EXTERN int air_client_wait_run(air_client *client, int64_t run_id,
                                   const air_wait_options *opts, air_run **out, air_error **err);

AIR_END_DECLS

#endif /* AIR_RUN_H */
