/**
 * @file
 * failure.h: why a run failed — what the platform says and what the logs
 * show, in one report.
 *
 * air_client_get_failure() reads a run that ended without succeeding
 * (FAILED, TIMEDOUT, CANCELED, INTERNAL_ERROR, ...) and returns its
 * failure report: the state message and termination details of runs/get,
 * the failing node and attempt, and an excerpt of that node's log:
 *
 * - the last Python traceback (from "Traceback (most recent call last):"
 *   to its final exception line; of chained exceptions, the last one);
 * - else the first line that matches an alert pattern (air_log_match_alert()),
 *   with up to three lines before and after it;
 * - else the last 20 lines.
 *
 * The log is read as a tail (the last AIR_FAILURE_SCAN_LINES records, from
 * the log endpoint or the MLflow fallback): memory is bounded by that tail
 * and the excerpt, never by the size of the log. libair makes no guess at a
 * root cause: the report holds what the platform and the log say.
 */
#ifndef AIR_FAILURE_H
#define AIR_FAILURE_H

#include "options.h"

AIR_BEGIN_DECLS

/** Integer options of air_client_get_failure(). ABI: append only. @since 1.2 */
typedef enum air_failure_option {
	AIR_FAILURE_EXCERPT_LINES = 100, /**< most lines in the excerpt, 1..1000; default 40 */
	AIR_FAILURE_NODE = 101,          /**< the node whose log is read; -1 (default): the failing
	                                      node (air_failure_node_source() says how it was found) */
	AIR_FAILURE_ATTEMPT = 102,       /**< the attempt (0-based) whose log is read; -1 (default):
	                                      the latest, the one that ended the run */
	AIR_FAILURE_SCAN_LINES = 103,    /**< the log records read, the newest, 1..100000; default 5000 */
	AIR_FAILURE_SCAN_NODES = 104     /**< without a node named by the platform: the nodes whose
	                                      logs are searched for a traceback, 1..256; default 8 */
} air_failure_option;

/** What the excerpt of a failure report is. ABI: append only. @since 1.2 */
typedef enum air_excerpt_kind {
	AIR_EXCERPT_NONE = 0,      /**< no excerpt: see air_failure_excerpt_problem() */
	AIR_EXCERPT_TRACEBACK = 1, /**< the last Python traceback of the log */
	AIR_EXCERPT_ALERT = 2,     /**< the first line matching an alert pattern, with its neighbours */
	AIR_EXCERPT_TAIL = 3       /**< the last lines of the log */
} air_excerpt_kind;

/** How the node of a failure report was chosen. ABI: append only. @since 1.2 */
typedef enum air_node_source {
	AIR_NODE_SOURCE_NONE = 0,     /**< no node: the run never started */
	AIR_NODE_SOURCE_OPTION = 1,   /**< AIR_FAILURE_NODE asked for it */
	AIR_NODE_SOURCE_REPORTED = 2, /**< the platform named it ("node 1 exited with status 1") */
	AIR_NODE_SOURCE_SEARCHED = 3, /**< the first node whose log has a traceback (else an alert line) */
	AIR_NODE_SOURCE_DEFAULT = 4   /**< node 0: nothing named or found another */
} air_node_source;

/**
 * Create options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.2
 */
AIR_EXTERN int air_failure_options_new(air_failure_options **out);
/** Release options; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_failure_options_free(air_failure_options *opts);
/**
 * Set an AIR_FAILURE_* option.
 * @return AIR_OK, AIR_EINVAL (NULL @p opts, a value out of range), AIR_EUNSUPPORTED. @since 1.2
 */
AIR_EXTERN int air_failure_options_set_int(air_failure_options *opts, int32_t opt,
                                           int64_t value);
/**
 * Stop the call when @p intr is raised (borrowed; see options.h).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.2
 */
AIR_EXTERN int air_failure_options_set_interrupt(air_failure_options *opts,
                                                 air_interrupt *intr);
/**
 * At most @p ms milliseconds for the call, log reads included; 0 = none.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.2
 */
AIR_EXTERN int air_failure_options_set_deadline_ms(air_failure_options *opts, int64_t ms);

/**
 * The failure report of run @p run_id. Reads runs/get; for a run that
 * ended without succeeding, also the tail of the failing node's log.
 *
 * A run that succeeded or is still active has no failure: the call returns
 * AIR_OK with *out NULL (after runs/get only). A log that cannot be read
 * does not fail the call: the report then has no excerpt and says why
 * (air_failure_excerpt_problem()).
 *
 * The failing node: AIR_FAILURE_NODE when set; else the node the platform
 * names in the termination or state message ("node 1 exited with status
 * 1", as the local workspace writes it); else the first of the first
 * AIR_FAILURE_SCAN_NODES nodes whose log tail has a traceback (else an
 * alert line), else node 0. The attempt is the latest one.
 *
 * @param opts may be NULL for defaults.
 * @param[out] out the report (air_failure_free()), or NULL when the run did not fail.
 * @return AIR_OK; AIR_EINVAL (id <= 0, NULL @p client or @p out, an attempt
 *         beyond the latest); AIR_ENOTFOUND; AIR_EINTERRUPTED; AIR_ETIMEOUT;
 *         transport codes of runs/get.
 * @since 1.2
 */
AIR_EXTERN int air_client_get_failure(air_client *client, int64_t run_id,
                                      const air_failure_options *opts, air_failure **out,
                                      air_error **err);
/** Release a report; NULL is a no-op. @since 1.2 */
AIR_EXTERN void air_failure_free(air_failure *failure);

/** The Jobs run id. @since 1.2 */
AIR_EXTERN int64_t air_failure_run_id(const air_failure *failure);
/** Display state of the run (an air_state: AIR_STATE_FAILED, ...). @since 1.2 */
AIR_EXTERN int32_t air_failure_state(const air_failure *failure);
/** Display state as the workspace wrote it ("FAILED"). Never NULL. @since 1.2 */
AIR_EXTERN const char *air_failure_state_name(const air_failure *failure);
/**
 * Why the run ended, in the platform's words: the state message, else the
 * termination message; NULL when the platform gave neither. @since 1.2
 */
AIR_EXTERN const char *air_failure_message(const air_failure *failure);
/** state.state_message of runs/get, or NULL. @since 1.2 */
AIR_EXTERN const char *air_failure_state_message(const air_failure *failure);
/** status.termination_details.code ("RUN_EXECUTION_ERROR"), or NULL. @since 1.2 */
AIR_EXTERN const char *air_failure_termination_code(const air_failure *failure);
/** status.termination_details.type ("CLIENT_ERROR"), or NULL. @since 1.2 */
AIR_EXTERN const char *air_failure_termination_type(const air_failure *failure);
/** status.termination_details.message, or NULL. @since 1.2 */
AIR_EXTERN const char *air_failure_termination_message(const air_failure *failure);

/** The node whose log the excerpt comes from; -1 when none (the run never started). @since 1.2 */
AIR_EXTERN int32_t air_failure_node(const air_failure *failure);
/** How that node was chosen (an air_node_source). @since 1.2 */
AIR_EXTERN int32_t air_failure_node_source(const air_failure *failure);
/** The attempt (0-based) the report is about: the latest, or AIR_FAILURE_ATTEMPT. @since 1.2 */
AIR_EXTERN int32_t air_failure_attempt(const air_failure *failure);
/** Attempts the run was allowed (max_retries + 1); -1 when unlimited. @since 1.2 */
AIR_EXTERN int32_t air_failure_attempts_allowed(const air_failure *failure);

/** What the excerpt is (an air_excerpt_kind). @since 1.2 */
AIR_EXTERN int32_t air_failure_excerpt_kind(const air_failure *failure);
/** Lines in the excerpt (0 with AIR_EXCERPT_NONE). @since 1.2 */
AIR_EXTERN size_t air_failure_excerpt_count(const air_failure *failure);
/**
 * Line @p i of the excerpt, oldest first, as the log has it (a line longer
 * than 8 KiB is cut there); its length in @p len_out (may be NULL). NULL
 * when out of range. Borrowed from @p failure. @since 1.2
 */
AIR_EXTERN const char *air_failure_excerpt_line(const air_failure *failure, size_t i,
                                                size_t *len_out);
/**
 * Lines of a traceback longer than AIR_FAILURE_EXCERPT_LINES left out
 * between its first line (line 0) and the rest, which ends with the
 * exception; 0 when nothing was left out. @since 1.2
 */
AIR_EXTERN int64_t air_failure_excerpt_omitted(const air_failure *failure);
/**
 * Why there is no excerpt ("No logs found for run 7, ...", "the log of node
 * 0 could not be read: ..."), or NULL when there is one. @since 1.2
 */
AIR_EXTERN const char *air_failure_excerpt_problem(const air_failure *failure);
/**
 * The alert pattern (1-based, see air_log_alert_pattern()) that labels the
 * excerpt: the one its exception line, alert line or another of its lines
 * matches first; 0 when none does. @since 1.2
 */
AIR_EXTERN int32_t air_failure_alert_pattern(const air_failure *failure);
/** The label of that pattern (air_log_alert_label(): "CUDA out of memory"), or NULL. @since 1.2 */
AIR_EXTERN const char *air_failure_alert_label(const air_failure *failure);
/**
 * The report's first line, as `air` prints it: "Run 7 FAILED (attempt 2 of
 * 2, node 0): <air_failure_message()>" ("attempt 2" when retries are
 * unlimited; no node when air_failure_node() is -1; no ": ..." without a
 * message). A last " (attempt N)" of the message, which the place says
 * already, is left out. The message is the platform's, control characters
 * included: clean it before it reaches a terminal. Borrowed from
 * @p failure; NULL only for a NULL @p failure. @since 1.2
 */
AIR_EXTERN const char *air_failure_summary(const air_failure *failure);

AIR_END_DECLS

#endif /* AIR_FAILURE_H */
