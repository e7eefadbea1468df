/**
 * @file
 * logs.h: read a run's logs record by record (pull), through callbacks
 * (push), or download them to files.
 *
 * The logs of a run are read from the AI Runtime log endpoint page by page
 * and delivered once per record, in order, without duplicates. For an active
 * run the reader follows (polls) until the run is terminal and the last
 * records are drained; for a finished run it delivers the tail. When the log
 * endpoint is disabled or absent it falls back to the MLflow log artifacts.
 * Memory stays bounded by one page.
 *
 * air_client_open_logs() + air_log_iter_next() pull records on the caller's
 * own thread (what language bindings build their iterators on);
 * air_client_stream_logs() pushes the same records to a callback. Either
 * stops at once when the interrupt of its options is raised
 * (AIR_EINTERRUPTED) or its deadline passes (AIR_ETIMEOUT).
 */
#ifndef AIR_LOGS_H
#define AIR_LOGS_H

#include "options.h"

AIR_BEGIN_DECLS

/** Integer options of a log stream, iterator or download. ABI: append only. */
typedef enum air_logs_option {
	AIR_LOGS_FOLLOW = 100,           /**< 1 (default): follow an active run until terminal; 0: one pass */
	AIR_LOGS_TAIL_LINES = 101,       /**< tail size for a finished run; -1 (default) = 10000; 0 = none */
	AIR_LOGS_MINUTES = 102,          /**< only the last N minutes; 0 (default) = off */
	AIR_LOGS_NODE = 103,             /**< node index; default 0 (downloads: -1 = every node) */
	AIR_LOGS_ATTEMPT = 104,          /**< retry attempt (0-based); -1 (default) = latest */
	AIR_LOGS_POLL_INTERVAL_MS = 105, /**< pause between polls and page retries; default 3000 (1000 for a local workspace) */
	AIR_LOGS_MAX_PAGE_FAILURES = 106 /**< consecutive page failures before the MLflow fallback; default 5 */
} air_logs_option;

/** Where a record came from. ABI: append only. */
typedef enum air_log_source {
	AIR_LOG_SOURCE_ENDPOINT = 1, /**< the AI Runtime log endpoint */
	AIR_LOG_SOURCE_MLFLOW = 2    /**< MLflow log artifacts (fallback) */
} air_log_source;

/** Called once per log record, in order; return non-zero to stop (AIR_EABORTED). */
typedef int (*air_log_record_cb)(const air_log_record *rec, void *userdata);
/**
 * Called with the lines of consecutive records at once: @p text holds @p len
 * bytes, each record's line followed by "\n", in order; borrowed for the
 * duration of the call. Return non-zero to stop (AIR_EABORTED).
 */
typedef int (*air_log_text_cb)(const char *text, size_t len, void *userdata);
/**
 * Called on the first observed display state (@p previous NULL) and on each
 * change; both strings are borrowed for the duration of the call.
 */
typedef int (*air_log_status_cb)(const char *current, const char *previous, void *userdata);
/**
 * Called while following a run's latest attempt when the run has started
 * another one: @p attempt (0-based, the `--retry` of `air logs`). Records
 * delivered after the call are that attempt's, but for the first lines of
 * one that began between a poll's runs/get and its log read (then the call
 * comes at the next poll). Return non-zero to stop (AIR_EABORTED).
 */
typedef int (*air_log_attempt_cb)(int32_t attempt, void *userdata);
/**
 * Called while a followed run has delivered no line yet, with what it is
 * waiting for (see air_logs_options_set_waiting_cb()), and with @p message
 * NULL once the wait is over, so that a display can erase the message.
 * @p message is borrowed for the duration of the call. Return non-zero to stop.
 */
typedef int (*air_log_waiting_cb)(const char *message, void *userdata);

/**
 * Create options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_logs_options_new(air_logs_options **out);
/** Release options; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_logs_options_free(air_logs_options *opts);
/** Set an AIR_LOGS_* option. @return AIR_OK, AIR_EINVAL (bad value), AIR_EUNSUPPORTED. @since 1.0 */
AIR_EXTERN int air_logs_options_set_int(air_logs_options *opts, int32_t opt, int64_t value);
/**
 * Stop the stream, iterator or download when @p intr is raised (borrowed).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_logs_options_set_interrupt(air_logs_options *opts, air_interrupt *intr);
/**
 * At most @p ms milliseconds for the call; for an iterator, from
 * air_client_open_logs() to its last air_log_iter_next(). 0 = none.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.0
 */
AIR_EXTERN int air_logs_options_set_deadline_ms(air_logs_options *opts, int64_t ms);
/**
 * Deliver records to @p cb (air_client_stream_logs() only; NULL removes it).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_logs_options_set_record_cb(air_logs_options *opts, air_log_record_cb cb,
                                              void *userdata);
/**
 * Deliver the records to @p cb as text, many at a time, instead of one by one
 * to a record callback (air_client_stream_logs() only; NULL removes it): for
 * a program that writes the lines out as they are, the cheapest way to read
 * a log (a finished local run's lines come straight from a block of the
 * node log). The summary counts the records the same way. Setting both a
 * record and a text callback makes air_client_stream_logs() fail with
 * AIR_EINVAL.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_logs_options_set_text_cb(air_logs_options *opts, air_log_text_cb cb,
                                            void *userdata);
/**
 * Report display-state changes to @p cb (stream and iterator; NULL removes it).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_logs_options_set_status_cb(air_logs_options *opts, air_log_status_cb cb,
                                              void *userdata);
/**
 * Report each new attempt of a followed run to @p cb (stream and iterator,
 * following the latest attempt: AIR_LOGS_ATTEMPT negative, the default;
 * NULL removes it),
 * so that a display can mark where a retry begins. Costs no request. Runs on
 * the calling thread.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_logs_options_set_attempt_cb(air_logs_options *opts, air_log_attempt_cb cb,
                                               void *userdata);
/**
 * Report the waiting state of a followed run. While the run is active and no
 * record has been delivered, on polls 0, 5, 10, ... of the follow loop (after
 * that poll's runs/get and log read), the stream reads `runs/get-output` of
 * the run's latest task and calls @p cb with one line: the task's status
 * message when it has the form `STATUS:<text>` (shown as "<text>...",
 * trailing dots normalised; other types and a blank text are not shown), else
 * "Waiting for accelerator capacity..." while the run is PENDING, else
 * "Waiting for the run to start on node N...". After a message, @p cb gets
 * NULL just before the first record is delivered and, if still needed, when
 * the stream or iterator ends (its result is then ignored). A failure to read
 * the status message is not an error.
 *
 * Costs one extra request every fifth poll of a run without lines; none for
 * tails, static views, the MLflow fallback, downloads, or when @p cb is NULL
 * (the default). Stream and iterator; runs on the calling thread.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_logs_options_set_waiting_cb(air_logs_options *opts, air_log_waiting_cb cb,
                                               void *userdata);

/** The line text without its newline, NUL-terminated; length in @p len_out (may be NULL). @since 1.0 */
AIR_EXTERN const char *air_log_record_line(const air_log_record *rec, size_t *len_out);
/** Record time in nanoseconds since the epoch; 0 when unknown. @since 1.0 */
AIR_EXTERN int64_t air_log_record_time_ns(const air_log_record *rec);
/** The requested node index. @since 1.0 */
AIR_EXTERN int32_t air_log_record_node(const air_log_record *rec);
/** AIR_LOG_SOURCE_* of the record. @since 1.0 */
AIR_EXTERN int32_t air_log_record_source(const air_log_record *rec);
/** The first fatal pattern the line matches (1-based, see air_log_alert_pattern()), or 0. @since 1.0 */
AIR_EXTERN int32_t air_log_record_alert(const air_log_record *rec);

/** Number of fatal patterns (they are numbered 1..count). @since 1.0 */
AIR_EXTERN int32_t air_log_alert_pattern_count(void);
/** Regular expression of fatal pattern @p pattern, or NULL. Static storage. @since 1.0 */
AIR_EXTERN const char *air_log_alert_pattern(int32_t pattern);
/** First fatal pattern matching @p line (@p len bytes), or 0 when none does. @since 1.0 */
AIR_EXTERN int32_t air_log_match_alert(const char *line, size_t len);
/**
 * A short label of fatal pattern @p pattern, naming what it detects
 * ("CUDA out of memory", "NCCL watchdog timeout"), or NULL. Static. @since 1.2
 */
AIR_EXTERN const char *air_log_alert_label(int32_t pattern);

/* ---- pull: the iterator ---------------------------------------------------- */

/**
 * Open the logs of run @p run_id (the Jobs run id) for iteration. Makes the
 * first requests (identity, runs/get) so that a bad id or attempt fails here.
 * @param opts may be NULL for defaults; copied (the interrupt and callback
 *        userdata are borrowed and must outlive the iterator).
 * @param[out] out the iterator; release with air_log_iter_free().
 * @return AIR_OK; AIR_EINVAL (id <= 0, an attempt beyond the latest);
 *         AIR_ENOTFOUND; AIR_EINTERRUPTED; AIR_ETIMEOUT; transport codes.
 * @since 1.0
 */
AIR_EXTERN int air_client_open_logs(air_client *client, int64_t run_id,
                                    const air_logs_options *opts, air_log_iter **out,
                                    air_error **err);
/**
 * The next record, on the calling thread: AIR_OK with *rec set (borrowed
 * until the next call or air_log_iter_free()); AIR_EDONE when the logs are
 * complete (a followed run ended and was drained, or the tail was delivered;
 * see air_log_iter_summary()); or a failure (*rec NULL). While following an
 * active run it blocks between polls, waking at once for the interrupt.
 * After AIR_EINTERRUPTED or AIR_ETIMEOUT it may be advanced again (once the
 * interrupt is lowered; a passed deadline stays passed) and goes on where it
 * stopped, without losing or repeating a record; after any other failure it
 * is finished and further calls return the same code. The status and waiting
 * callbacks of the options run inside this call.
 * @return AIR_OK, AIR_EDONE, AIR_EINVAL (NULL argument), AIR_EINTERRUPTED, AIR_ETIMEOUT,
 *         AIR_EABORTED (a callback stopped it), transport codes. @since 1.0
 */
AIR_EXTERN int air_log_iter_next(air_log_iter *iter, const air_log_record **rec,
                                 air_error **err);
/**
 * What the iteration observed so far (records delivered, last display state,
 * source, the "no logs" message once complete). Borrowed from @p iter;
 * final once air_log_iter_next() returned AIR_EDONE. @since 1.0
 */
AIR_EXTERN const air_logs_summary *air_log_iter_summary(const air_log_iter *iter);
/**
 * How many records the next calls of air_log_iter_next() hand out from
 * memory: without waiting, making a request or calling a callback. 0 when
 * the next call may do any of these (or @p iter is NULL or finished). A
 * binding may skip what it prepares for a call that blocks (routing signals
 * to the interrupt) while this is positive; every call stays safe without it.
 * @return the number of such records. @since 1.2
 */
AIR_EXTERN int64_t air_log_iter_buffered(const air_log_iter *iter);
/** Release the iterator (ends a waiting message still shown); NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_log_iter_free(air_log_iter *iter);

/* ---- push: the callback stream ------------------------------------------------ */

/**
 * Stream the logs of run @p run_id to the callbacks of @p opts: the same
 * records, in the same order, as iterating with air_client_open_logs().
 * @param opts may be NULL (then nothing is delivered: the call only waits
 *        for the run to end and reports it).
 * @param[out] summary optional; what the stream observed. Free with air_logs_summary_free().
 * @return AIR_OK when the stream ended normally (whatever the run's result);
 *         AIR_EINVAL for bad options (e.g. an attempt beyond the latest);
 *         AIR_ENOTFOUND; AIR_EABORTED; AIR_EINTERRUPTED; AIR_ETIMEOUT;
 *         transport codes.
 * @since 1.0
 */
AIR_EXTERN int air_client_stream_logs(air_client *client, int64_t run_id,
                                      const air_logs_options *opts,
                                      air_logs_summary **summary, air_error **err);

/** Records delivered. @since 1.0 */
AIR_EXTERN int64_t air_logs_summary_records(const air_logs_summary *s);
/** Last observed display state of the run (an air_state). @since 1.0 */
AIR_EXTERN int32_t air_logs_summary_state(const air_logs_summary *s);
/** Last observed display state as written ("SUCCESS", "RUNNING", ...). @since 1.0 */
AIR_EXTERN const char *air_logs_summary_state_name(const air_logs_summary *s);
/** 1 when the run was terminal at the end. @since 1.0 */
AIR_EXTERN int32_t air_logs_summary_terminal(const air_logs_summary *s);
/** 1 when the run ended SUCCESS. @since 1.0 */
AIR_EXTERN int32_t air_logs_summary_succeeded(const air_logs_summary *s);
/** AIR_LOG_SOURCE_* that served the records (MLFLOW after a fallback). @since 1.0 */
AIR_EXTERN int32_t air_logs_summary_source(const air_logs_summary *s);
/** When no record at all was found: the "no logs" message (run id, state, state message); else NULL. @since 1.0 */
AIR_EXTERN const char *air_logs_summary_no_logs_message(const air_logs_summary *s);
/** Release a summary from air_client_stream_logs(); NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_logs_summary_free(air_logs_summary *s);

/**
 * Download the MLflow log artifacts of run @p run_id into
 * `<dir>/logs/node_<n>.log`, every node (or AIR_LOGS_NODE when >= 0),
 * chunks appended verbatim. A node whose download fails is reported, not
 * fatal, unless every node failed. Honours the interrupt and deadline of
 * @p opts (may be NULL).
 * @return AIR_OK (nodes that failed are in the report); AIR_EINVAL (NULL
 *         argument, id <= 0, an empty @p dir, an attempt or node the run does
 *         not have); AIR_ENOTFOUND; AIR_EIO (the directory cannot be created);
 *         AIR_ESERVER (every node failed); transport codes. @since 1.0
 */
AIR_EXTERN int air_client_download_logs(air_client *client, int64_t run_id, const char *dir,
                                        const air_logs_options *opts,
                                        air_download_report **out, air_error **err);
/** Number of nodes requested. @since 1.0 */
AIR_EXTERN size_t air_download_report_count(const air_download_report *rep);
/** Node index of entry @p i. @since 1.0 */
AIR_EXTERN int32_t air_download_report_node(const air_download_report *rep, size_t i);
/** File written for entry @p i, or NULL when nothing was. @since 1.0 */
AIR_EXTERN const char *air_download_report_path(const air_download_report *rep, size_t i);
/** Bytes written for entry @p i. @since 1.0 */
AIR_EXTERN int64_t air_download_report_bytes(const air_download_report *rep, size_t i);
/** 1 when every chunk of entry @p i was downloaded. @since 1.0 */
AIR_EXTERN int32_t air_download_report_complete(const air_download_report *rep, size_t i);
/** What went wrong for entry @p i, or NULL. @since 1.0 */
AIR_EXTERN const char *air_download_report_error(const air_download_report *rep, size_t i);
/** The "no logs" message when the run has no MLflow logs, else NULL. @since 1.0 */
AIR_EXTERN const char *air_download_report_no_logs_message(const air_download_report *rep);
/** 1 when the run was terminal when the download ended. @since 1.0 */
AIR_EXTERN int32_t air_download_report_terminal(const air_download_report *rep);
/** 1 when the run had ended SUCCESS. @since 1.0 */
AIR_EXTERN int32_t air_download_report_succeeded(const air_download_report *rep);
/** Display state (air_state) of the run when the download ended. @since 1.0 */
AIR_EXTERN int32_t air_download_report_state(const air_download_report *rep);
/** Display state of the run as written. @since 1.0 */
AIR_EXTERN const char *air_download_report_state_name(const air_download_report *rep);
/** Release the report; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_download_report_free(air_download_report *rep);

AIR_END_DECLS

#endif /* AIR_LOGS_H */
