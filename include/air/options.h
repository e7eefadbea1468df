/**
 * @file
 * options.h: the calling convention, and the options of calls that have no
 * options type of their own.
 *
 * Every libair call has one shape:
 *
 *     int air_<subject>_<verb>(subject, inputs..., const air_<x>_options *opts,
 *                              outputs..., air_error **err);
 *
 * - @p opts may be NULL (defaults). An options object is built with
 *   air_<x>_options_new(), filled with typed setters, and may be reused for
 *   any number of calls and freed right after the call returns (values are
 *   copied; interrupts and callback userdata are borrowed).
 * - Callbacks belong to the options object of the call that runs them, each
 *   with its own userdata: `int cb(const air_<event> *ev, void *userdata)`,
 *   run synchronously on the calling thread; a non-zero return stops the call
 *   with AIR_EABORTED.
 * - Every call that can block (network, waiting, helper programs) honours the
 *   interrupt and the deadline of its options: AIR_EINTERRUPTED when the
 *   interrupt is raised, AIR_ETIMEOUT (kind TRANSIENT, retryable) when the
 *   deadline passes. For an iterator the deadline counts from the call that
 *   opened it and bounds every later `next`.
 * - Outputs are NULL (or 0) on every failure; `air_error **err` is last and
 *   optional (see errors.h).
 * - "Transport codes" in the @return lists are what every call that talks
 *   to the workspace may return besides its own codes (docs/errors.md):
 *   AIR_ENET, AIR_ETIMEOUT, AIR_ERATELIMIT, AIR_ESERVER (retryable);
 *   AIR_EAUTH, AIR_EPERMISSION, AIR_EAPI, AIR_EDISABLED, AIR_EPROTO;
 *   AIR_EINTERRUPTED; AIR_ENOMEM; and on a client's first call the
 *   resolution failures of docs/auth.md.
 *
 * Purely local calls (config parsing, field help, getters) take no options.
 */
#ifndef AIR_OPTIONS_H
#define AIR_OPTIONS_H

#include "types.h"

AIR_BEGIN_DECLS

/**
 * Create options with defaults: no interrupt, no deadline. Used by calls that
 * need nothing else (resolve, current user, workspace id, cancel, pools,
 * MLflow links).
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_call_options_new(air_call_options **out);
/** Release options; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_call_options_free(air_call_options *opts);
/**
 * Stop the call when @p intr is raised (NULL removes it). @p intr is
 * borrowed: it must outlive every call made with these options.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_call_options_set_interrupt(air_call_options *opts, air_interrupt *intr);
/**
 * Give the call at most @p ms milliseconds from its start, retries and
 * waits included; 0 (the default) means no deadline.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts, negative @p ms). @since 1.0
 */
AIR_EXTERN int air_call_options_set_deadline_ms(air_call_options *opts, int64_t ms);

AIR_END_DECLS

#endif /* AIR_OPTIONS_H */
