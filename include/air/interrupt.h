/*
 * interrupt.h: stop a long call (log stream, submission, wait) from another
 * thread.
 *
 * Attach an air_interrupt to the options of the call, run the call, and raise
 * it with air_interrupt_trigger() from any thread: the call returns
 * AIR_EINTERRUPTED promptly, also from inside a network transfer or a poll
 * sleep. Trigger and is_triggered are the thread-safe exceptions to the
 * one-thread-per-handle rule.
 */
#ifndef AIR_INTERRUPT_H
#define AIR_INTERRUPT_H

#include "types.h"

AIR_BEGIN_DECLS

/** Create a lowered interrupt flag. @return AIR_OK or AIR_ENOMEM. @since 0.1 */
AIR_EXTERN int air_interrupt_new(air_interrupt **out);
/** Raise the flag. Safe from any thread and from signal-free contexts. @since 0.1 */
AIR_EXTERN void air_interrupt_trigger(air_interrupt *intr);
/** Lower the flag again so that the object can be reused. @since 0.1 */
AIR_EXTERN void air_interrupt_reset(air_interrupt *intr);
/** 1 when raised, else 0. Safe from any thread. @since 0.1 */
AIR_EXTERN int32_t air_interrupt_is_triggered(const air_interrupt *intr);
/** Release the flag; no call may still be using it. NULL is a no-op. @since 0.1 */
AIR_EXTERN void air_interrupt_free(air_interrupt *intr);

AIR_END_DECLS

#endif /* AIR_INTERRUPT_H */
