/**
 * @file
 * types.h: the opaque handle types of libair.
 *
 * No structure crosses the ABI: every handle is created by a libair function,
 * read through getters and released by its *_free() function (NULL is a no-op).
 * An air_client may be used from many threads at once, and an air_interrupt
 * may be raised from anywhere; every other handle is used by one thread at a
 * time (see docs/threading.md).
 */
#ifndef AIR_TYPES_H
#define AIR_TYPES_H

#include "common.h"

AIR_BEGIN_DECLS

/** Details of a failure (errors.h). */
typedef struct air_error air_error;
/** A flag that stops blocking calls, raised from any thread or a signal handler (interrupt.h). */
typedef struct air_interrupt air_interrupt;
/** Options of a call without options of its own: interrupt and deadline (options.h). */
typedef struct air_call_options air_call_options;

/** A parsed workload YAML document and its validated values (config.h). */
typedef struct air_config air_config;
/** One field of the workload YAML schema; static storage, never freed (config.h). */
typedef struct air_field air_field;

/** Options of a client: connection settings, credentials, debug trace (client.h). */
typedef struct air_client_options air_client_options;
/** A connection to one Databricks workspace: auth, transport, caches (client.h). */
typedef struct air_client air_client;

/** Options of one submission (submit.h). */
typedef struct air_submit_options air_submit_options;
/** The outcome of a submission: run id, dashboard URL, token (submit.h). */
typedef struct air_submission air_submission;
/** A progress notification during a submission (submit.h). */
typedef struct air_progress air_progress;

/** Options of a run lookup (run.h). */
typedef struct air_get_options air_get_options;
/** A snapshot of one Jobs run (run.h). */
typedef struct air_run air_run;
/** Filters and options of a run listing (run.h). */
typedef struct air_list_options air_list_options;
/** An iterator over a paged run listing (run.h). */
typedef struct air_run_iter air_run_iter;
/** Per-run outcome of a cancellation request (run.h). */
typedef struct air_cancel_report air_cancel_report;
/** Options of a wait for a run to finish (run.h). */
typedef struct air_wait_options air_wait_options;

/** Options of a log stream, iterator or download (logs.h). */
typedef struct air_logs_options air_logs_options;
/** A pull-style iterator over a run's log records (logs.h). */
typedef struct air_log_iter air_log_iter;
/** One log record (logs.h). */
typedef struct air_log_record air_log_record;
/** What a finished log stream observed (logs.h). */
typedef struct air_logs_summary air_logs_summary;
/** The files a log download produced (logs.h). */
typedef struct air_download_report air_download_report;

/** Options of a failure report (failure.h). */
typedef struct air_failure_options air_failure_options;
/** Why a run failed: messages, node, attempt, log excerpt (failure.h). */
typedef struct air_failure air_failure;

/** A provisioned GPU pool (pool.h). */
typedef struct air_pool air_pool;
/** A list of GPU pools (pool.h). */
typedef struct air_pool_list air_pool_list;

/** Options of a pre-submit check (check.h). */
typedef struct air_check_options air_check_options;
/** The outcome of a pre-submit check: its checks in order (check.h). */
typedef struct air_check_report air_check_report;
/** One check of a report: name, status, field, message (check.h). */
typedef struct air_check air_check;

/** Options of an image push (images.h). */
typedef struct air_image_push_options air_image_push_options;
/** Options of a legacy image registration (images.h). */
typedef struct air_register_image_options air_register_image_options;
/** The outcome of a legacy image registration (images.h). */
typedef struct air_image_registration air_image_registration;

/** Options of a bundle conversion (bundle.h). */
typedef struct air_bundle_options air_bundle_options;
/** The files a bundle conversion wrote (bundle.h). */
typedef struct air_bundle air_bundle;

/** Options of a metrics read or history (metrics.h). */
typedef struct air_metrics_options air_metrics_options;
/** The latest value of each metric of a run (metrics.h). */
typedef struct air_metrics air_metrics;
/** An iterator over metric histories (metrics.h). */
typedef struct air_metric_iter air_metric_iter;
/** One point of a metric's history (metrics.h). */
typedef struct air_metric_point air_metric_point;

AIR_END_DECLS

#endif /* AIR_TYPES_H */
