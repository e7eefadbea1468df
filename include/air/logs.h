/*
 * logs.h: stream a run's logs to callbacks, or download them to files.
 *
 * air_client_stream_logs() reads the AI Runtime log endpoint page by page and
 * calls back once per record, in order, without duplicates. For an active run
 * it follows (polls) until the run is terminal and the last records are
 * drained; for a finished run it delivers the tail. When the log endpoint is
 * disabled or absent it falls back to the MLflow log artifacts. Memory stays
 * bounded by one page. Callbacks run on the calling thread; any of them stops
 * the stream by returning non-zero (AIR_EABORTED), and an air_interrupt
 * stops it from another thread (AIR_EINTERRUPTED).
 */
#ifndef AIR_LOGS_H
#define AIR_LOGS_H

#include "types.h"

AIR_BEGIN_DECLS

/** Integer options of a log stream. ABI: append only. */
typedef enum air_logs_option {
	AIR_LOGS_FOLLOW = 100,           /**< 1 (default): follow an active run until terminal; 0: one pass */
	AIR_LOGS_TAIL_LINES = 101,       /**< tail size for a finished run; -1 (default) = 10000; 0 = none */
	AIR_LOGS_MINUTES = 102,          /**< only the last N minutes; 0 (default) = off */
	AIR_LOGS_NODE = 103,             /**< node index; default 0 (downloads: -1 = every node) */
	AIR_LOGS_ATTEMPT = 104,          /**< retry attempt (0-based); -1 (default) = latest */
	AIR_LOGS_POLL_INTERVAL_MS = 105, /**< pause between polls and page retries; default 3000 */
	AIR_LOGS_MAX_PAGE_FAILURES = 106 /**< consecutive page failures before the MLflow fallback; default 5 */
} air_logs_option;

/** Where a record came from. */
typedef enum air_log_source {
	AIR_LOG_SOURCE_ENDPOINT = 1, /**< the AI Runtime log endpoint */
	AIR_LOG_SOURCE_MLFLOW = 2    /**< MLflow log artifacts (fallback) */
} air_log_source;

/** Called once per log record; return non-zero to stop. */
typedef int (*air_log_record_cb)(const air_log_record *rec, void *userdata);
/** Called on the first observed display state (@p previous NULL) and on each change. */
typedef int (*air_log_status_cb)(const char *current, const char *previous, void *userdata);
/** Called just before the record callback for a line matching fatal pattern @p pattern (1-based). */
typedef int (*air_log_alert_cb)(const air_log_record *rec, int32_t pattern, void *userdata);
/**
 * Called while a followed run has delivered no line yet, with what it is
 * waiting for (see air_logs_options_set_waiting_cb()), and with @p message
 * NULL once the wait is over, so that a display can erase the message.
 * @p message is borrowed for the duration of the call. Return non-zero to stop.
 */
typedef int (*air_log_waiting_cb)(const char *message, void *userdata);

/** Create options with defaults. @since 0.1 */
AIR_EXTERN int air_logs_options_new(air_logs_options **out);
/** Release options; NULL is a no-op. @since 0.1 */
AIR_EXTERN void air_logs_options_free(air_logs_options *opts);
/** Set an AIR_LOGS_* option. @return AIR_OK, AIR_EINVAL (bad value), AIR_EUNSUPPORTED. @since 0.1 */
AIR_EXTERN int air_logs_options_set_int(air_logs_options *opts, int32_t opt, int64_t value);
/** Attach an interrupt flag (borrowed; must outlive the call). @since 0.1 */
AIR_EXTERN int air_logs_options_set_interrupt(air_logs_options *opts, air_interrupt *intr);
/**
 * Report the waiting state of a followed run (PROTOCOL §5.5). While the run
 * is active and no record has been delivered, on polls 0, 5, 10, ... of the
 * follow loop (after that poll's runs/get and log read), the stream reads
 * `runs/get-output` of the run's latest task and calls @p cb with one line:
 * the task's status message when it has the form `STATUS:<text>` (shown as
 * "<text>...", trailing dots normalised; other types and a blank text are
 * not shown), else "Waiting for accelerator capacity..." while the run is
 * PENDING, else "Waiting for the run to start on node N...". After a message,
 * @p cb gets NULL just before the first record is delivered and, if still
 * needed, before air_client_stream_logs() returns (its result is then
 * ignored). A failure to read the status message is not an error.
 *
 * Costs one extra request every fifth poll of a run without lines; none for
 * tails, static views, the MLflow fallback, downloads, or when @p cb is NULL
 * (the default). Callbacks run on the calling thread with @p userdata.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 0.1
 */
AIR_EXTERN int air_logs_options_set_waiting_cb(air_logs_options *opts, air_log_waiting_cb cb,
                                               void *userdata);

/** The line text without its newline, NUL-terminated; length in @p len_out (may be NULL). @since 0.1 */
AIR_EXTERN const char *air_log_record_line(const air_log_record *rec, size_t *len_out);
/** Record time in nanoseconds since the epoch; 0 when unknown. @since 0.1 */
AIR_EXTERN int64_t air_log_record_time_ns(const air_log_record *rec);
/** The requested node index. @since 0.1 */
AIR_EXTERN int32_t air_log_record_node(const air_log_record *rec);
/** AIR_LOG_SOURCE_* of the record. @since 0.1 */
AIR_EXTERN int32_t air_log_record_source(const air_log_record *rec);

/** Number of fatal patterns (they are numbered 1..count). @since 0.1 */
AIR_EXTERN int32_t air_log_alert_pattern_count(void);
/** Regular expression of fatal pattern @p pattern, or NULL. Static storage. @since 0.1 */
AIR_EXTERN const char *air_log_alert_pattern(int32_t pattern);
/** First fatal pattern matching @p line (@p len bytes), or 0 when none does. @since 0.1 */
AIR_EXTERN int32_t air_log_match_alert(const char *line, size_t len);

/**
 * Stream the logs of run @p run_id (the Jobs run id).
 * @param opts may be NULL for defaults. Any callback may be NULL.
 * @param[out] summary optional; what the stream observed. Free with air_logs_summary_free().
 * @return AIR_OK when the stream ended normally (whatever the run's result);
 *         AIR_EINVAL for bad options (e.g. an attempt beyond the latest);
 *         AIR_ENOTFOUND; AIR_EABORTED; AIR_EINTERRUPTED; transport codes.
 * @since 0.1
 */
AIR_EXTERN int air_client_stream_logs(air_client *client, int64_t run_id,
                                      const air_logs_options *opts,
                                      air_log_record_cb on_record, air_log_status_cb on_status,
                                      air_log_alert_cb on_alert, void *userdata,
                                      air_logs_summary **summary, air_error **err);

/** Records delivered. @since 0.1 */
AIR_EXTERN int64_t air_logs_summary_records(const air_logs_summary *s);
/** Last observed display state of the run ("SUCCESS", "RUNNING", ...). @since 0.1 */
AIR_EXTERN const char *air_logs_summary_state(const air_logs_summary *s);
/** 1 when the run was terminal at the end. @since 0.1 */
AIR_EXTERN int32_t air_logs_summary_terminal(const air_logs_summary *s);
/** 1 when the run ended SUCCESS. @since 0.1 */
AIR_EXTERN int32_t air_logs_summary_succeeded(const air_logs_summary *s);
/** AIR_LOG_SOURCE_* that served the records (MLFLOW after a fallback). @since 0.1 */
AIR_EXTERN int32_t air_logs_summary_source(const air_logs_summary *s);
/**
 * 1 when the outcome counts as success for a command-line tool: a followed
 * run ended SUCCESS, or a one-shot view (tail of a past attempt, MLflow
 * fallback, download) of a run that is active or succeeded. @since 0.1
 */
AIR_EXTERN int32_t air_logs_summary_ok(const air_logs_summary *s);
/** When no record at all was found: the "no logs" message (run id, state, state message); else NULL. @since 0.1 */
AIR_EXTERN const char *air_logs_summary_no_logs_message(const air_logs_summary *s);
/** Release the summary; NULL is a no-op. @since 0.1 */
AIR_EXTERN void air_logs_summary_free(air_logs_summary *s);

/**
 * Download the MLflow log artifacts of run @p run_id into
 * `<dir>/logs/node_<n>.log`, every node (or AIR_LOGS_NODE when >= 0),
 * chunks appended verbatim. A node whose download fails is reported, not
 * fatal, unless every node failed.
 * @since 0.1
 */
AIR_EXTERN int air_client_download_logs(air_client *client, int64_t run_id, const char *dir,
                                        const air_logs_options *opts,
                                        air_download_report **out, air_error **err);
/** Number of nodes requested. @since 0.1 */
AIR_EXTERN size_t air_download_report_count(const air_download_report *rep);
/** Node index of entry @p i. @since 0.1 */
AIR_EXTERN int32_t air_download_report_node(const air_download_report *rep, size_t i);
/** File written for entry @p i, or NULL when nothing was. @since 0.1 */
AIR_EXTERN const char *air_download_report_path(const air_download_report *rep, size_t i);
/** Bytes written for entry @p i. @since 0.1 */
AIR_EXTERN int64_t air_download_report_bytes(const air_download_report *rep, size_t i);
/** 1 when every chunk of entry @p i was downloaded. @since 0.1 */
AIR_EXTERN int32_t air_download_report_complete(const air_download_report *rep, size_t i);
/** What went wrong for entry @p i, or NULL. @since 0.1 */
AIR_EXTERN const char *air_download_report_error(const air_download_report *rep, size_t i);
/** The "no logs" message when the run has no MLflow logs, else NULL. @since 0.1 */
AIR_EXTERN const char *air_download_report_no_logs_message(const air_download_report *rep);
/** 1 when the outcome counts as success (see air_logs_summary_ok()). @since 0.1 */
AIR_EXTERN int32_t air_download_report_ok(const air_download_report *rep);
/** Release the report; NULL is a no-op. @since 0.1 */
AIR_EXTERN void air_download_report_free(air_download_report *rep);

AIR_END_DECLS

#endif /* AIR_LOGS_H */
