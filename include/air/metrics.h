/**
 * @file
 * metrics.h: how a run is learning — its MLflow metrics.
 *
 * A run's metrics live in the MLflow run libair resolves for it (the Jobs
 * run's last task, `runs/get-output`). air_client_get_metrics() reads the
 * latest value of each metric (`mlflow/runs/get`); an air_metric_iter reads
 * the full history of one metric, or of every metric of the run, page by
 * page (`mlflow/metrics/get-history`), in bounded memory, and may follow an
 * active run until it ends. System metrics (`system/gpu_0_utilization_percentage`,
 * ...) are ordinary metrics whose key starts with `system/`. Values are
 * doubles and may be NaN or infinite.
 *
 * A run that has no MLflow run yet, or no metric, is not an error: it has
 * no metric (count 0, an empty history).
 */
#ifndef AIR_METRICS_H
#define AIR_METRICS_H

#include "options.h"

AIR_BEGIN_DECLS

/** Integer options of air_client_get_metrics() and metric histories. ABI: append only. */
typedef enum air_metrics_option {
	AIR_METRICS_FOLLOW = 100,           /**< histories: 1 = follow an active run until it ends
	                                         (new points as they are logged); 0 (default): one pass */
	AIR_METRICS_POLL_INTERVAL_MS = 101, /**< pause between polls of a followed run; default the
	                                         client's (3000 ms, 1000 ms for a local workspace) */
	AIR_METRICS_PAGE_SIZE = 102         /**< points per get-history page (`max_results`),
	                                         1..25000; default 10000 */
} air_metrics_option;

/**
 * Called by a followed history after each poll, once the points the poll
 * found have been handed out and before the pause that follows it, with
 * the run's display state (borrowed for the call). Return non-zero to stop
 * (AIR_EABORTED). A display redraws here.
 */
typedef int (*air_metrics_poll_cb)(const char *state, void *userdata);

/**
 * Create options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_metrics_options_new(air_metrics_options **out);
/** Release options; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_metrics_options_free(air_metrics_options *opts);
/**
 * Set an AIR_METRICS_* option.
 * @return AIR_OK, AIR_EINVAL (NULL @p opts, a bad value), AIR_EUNSUPPORTED. @since 1.2
 */
AIR_EXTERN int air_metrics_options_set_int(air_metrics_options *opts, int32_t opt, int64_t value);
/**
 * Stop the call or the iterator when @p intr is raised (borrowed: it must
 * outlive them).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_metrics_options_set_interrupt(air_metrics_options *opts, air_interrupt *intr);
/**
 * At most @p ms milliseconds for the call; for an iterator, from its opening
 * to its last air_metric_iter_next(). 0 = none.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.2
 */
AIR_EXTERN int air_metrics_options_set_deadline_ms(air_metrics_options *opts, int64_t ms);
/**
 * Call @p cb after each poll of a followed history (NULL removes it); it runs
 * on the calling thread, inside air_metric_iter_next().
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_metrics_options_set_poll_cb(air_metrics_options *opts, air_metrics_poll_cb cb,
                                               void *userdata);

/* ---- the latest value of each metric ------------------------------------------ */

/**
 * The latest value of each metric of run @p run_id (the Jobs run id), sorted
 * by key: runs/get, runs/get-output of its last task (the MLflow run id),
 * then mlflow/runs/get.
 * @param opts may be NULL (defaults); only the interrupt and deadline apply.
 * @param[out] out the metrics; release with air_metrics_free(). A run without
 *        an MLflow run yet, or without metrics, gives AIR_OK and a count of 0.
 * @return AIR_OK; AIR_EINVAL (NULL @p client or @p out, an id <= 0);
 *         AIR_ENOTFOUND (no such run); AIR_EPROTO (a reply that is not the
 *         MLflow shape); AIR_EINTERRUPTED; AIR_ETIMEOUT; transport codes.
 * @since 1.2
 */
AIR_EXTERN int air_client_get_metrics(air_client *client, int64_t run_id,
                                      const air_metrics_options *opts, air_metrics **out,
                                      air_error **err);
/** Number of metrics. @since 1.2 */
AIR_EXTERN size_t air_metrics_count(const air_metrics *m);
/** Key of metric @p i ("loss", "system/gpu_0_utilization_percentage"), or NULL out of range. @since 1.2 */
AIR_EXTERN const char *air_metrics_key(const air_metrics *m, size_t i);
/** Latest value of metric @p i (NaN and infinities as logged); NaN out of range. @since 1.2 */
AIR_EXTERN double air_metrics_value(const air_metrics *m, size_t i);
/** Step of the latest value of metric @p i; 0 out of range. @since 1.2 */
AIR_EXTERN int64_t air_metrics_step(const air_metrics *m, size_t i);
/** Time the latest value of metric @p i was logged, epoch ms UTC; 0 out of range. @since 1.2 */
AIR_EXTERN int64_t air_metrics_timestamp_ms(const air_metrics *m, size_t i);
/** The MLflow run id the metrics were read from, or NULL when the run has none yet. @since 1.2 */
AIR_EXTERN const char *air_metrics_mlflow_run_id(const air_metrics *m);
/** The MLflow run's status ("RUNNING", "FINISHED", "FAILED", "KILLED", ...), or NULL. @since 1.2 */
AIR_EXTERN const char *air_metrics_mlflow_status(const air_metrics *m);
/** Display state (an air_state) of the Jobs run when the metrics were read. @since 1.2 */
AIR_EXTERN int32_t air_metrics_run_state(const air_metrics *m);
/** That state as the workspace wrote it ("RUNNING", "SUCCESS"). Never NULL. @since 1.2 */
AIR_EXTERN const char *air_metrics_run_state_name(const air_metrics *m);
/** Release @p m; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_metrics_free(air_metrics *m);

/* ---- metric histories ------------------------------------------------------------ */

/**
 * Open the history of metric @p key of run @p run_id (the Jobs run id), or,
 * with @p key NULL, of every metric of the run (those mlflow/runs/get lists,
 * sorted by key; a followed run also gets the keys logged later). Reads the
 * run (runs/get) so that a bad id fails here; the MLflow run is resolved
 * (runs/get-output) by the first air_metric_iter_next(), and while the run
 * has none a followed history waits for it.
 *
 * Points come page by page (`max_results` AIR_METRICS_PAGE_SIZE); memory
 * stays bounded by one page whatever the length of the history. Each key's
 * points come in the order the server gives them (the order they were
 * logged), all of one key before the next within a pass.
 *
 * With AIR_METRICS_FOLLOW, an active run is polled until it ends and each
 * poll delivers only the points logged since the last: MLflow answers the
 * full history every time, so the iterator remembers, per key, how many
 * points it has delivered and the page they ended in, reads again from that
 * page and skips what it delivered (a history only grows at its end). A
 * page token the server no longer accepts makes it read from the first page
 * and skip that count. The last poll comes after the run was seen ended, so
 * the points of its last moments are delivered too.
 *
 * @param opts may be NULL; copied (the interrupt and callback userdata are
 *        borrowed and must outlive the iterator).
 * @param[out] out the iterator; release with air_metric_iter_free().
 * @return AIR_OK; AIR_EINVAL (an id <= 0, an empty @p key, NULL @p client or
 *         @p out); AIR_ENOTFOUND (no such run); AIR_EINTERRUPTED;
 *         AIR_ETIMEOUT; transport codes.
 * @since 1.2
 */
AIR_EXTERN int air_client_open_metric_history(air_client *client, int64_t run_id,
                                              const char *key, const air_metrics_options *opts,
                                              air_metric_iter **out, air_error **err);
/**
 * The next point, on the calling thread: AIR_OK with *pt set (borrowed until
 * the next call or air_metric_iter_free()); AIR_EDONE at the end (one pass
 * done, or a followed run ended and its last points were delivered); or a
 * failure (*pt NULL). While following it blocks between polls, waking at
 * once for the interrupt. After AIR_EINTERRUPTED or AIR_ETIMEOUT it may be
 * advanced again (once the interrupt is lowered; a passed deadline stays
 * passed) and goes on where it stopped, without losing or repeating a
 * point; after any other failure further calls return the same code.
 * @return AIR_OK, AIR_EDONE, AIR_EINVAL (NULL argument), AIR_EINTERRUPTED,
 *         AIR_ETIMEOUT, AIR_EABORTED (the poll callback stopped it),
 *         AIR_EPROTO, transport codes. @since 1.2
 */
AIR_EXTERN int air_metric_iter_next(air_metric_iter *iter, const air_metric_point **pt,
                                    air_error **err);
/** Display state (an air_state) of the run at the last poll. @since 1.2 */
AIR_EXTERN int32_t air_metric_iter_run_state(const air_metric_iter *iter);
/** That state as the workspace wrote it. Never NULL for a valid @p iter. @since 1.2 */
AIR_EXTERN const char *air_metric_iter_run_state_name(const air_metric_iter *iter);
/** The MLflow run id read from, or NULL while the run has none. Borrowed from @p iter. @since 1.2 */
AIR_EXTERN const char *air_metric_iter_mlflow_run_id(const air_metric_iter *iter);
/** Release the iterator; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_metric_iter_free(air_metric_iter *iter);

/** Key of the metric the point belongs to. @since 1.2 */
AIR_EXTERN const char *air_metric_point_key(const air_metric_point *pt);
/** Step of the point. @since 1.2 */
AIR_EXTERN int64_t air_metric_point_step(const air_metric_point *pt);
/** Value of the point (NaN and infinities as logged). @since 1.2 */
AIR_EXTERN double air_metric_point_value(const air_metric_point *pt);
/** Time the point was logged, epoch ms UTC. @since 1.2 */
AIR_EXTERN int64_t air_metric_point_timestamp_ms(const air_metric_point *pt);

AIR_END_DECLS

#endif /* AIR_METRICS_H */
