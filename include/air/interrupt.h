/**
 * @file
 * interrupt.h: stop a blocking call from another thread or a signal handler.
 *
 * Every call that can block (anything that may touch the network, wait or
 * run a helper program) takes an air_interrupt through its options object
 * (air_<call>_options_set_interrupt()). Raise it with air_interrupt_trigger()
 * and the call returns AIR_EINTERRUPTED promptly: a wait wakes at once, a
 * transfer in progress is abandoned, a helper program is killed. An
 * air_client may also carry a client-wide interrupt
 * (air_client_options_set_interrupt()) that stops every call on it.
 *
 * An interrupt is an atomic flag plus a non-blocking pipe whose read end
 * every wait of libair watches. That makes air_interrupt_trigger()
 * async-signal-safe: a SIGINT handler may call it. Runtimes whose signal
 * handlers cannot call C (Python) may instead write any byte to
 * air_interrupt_wakeup_fd() (e.g. with Python's signal.set_wakeup_fd()),
 * which raises the interrupt just the same.
 *
 * Threads: air_interrupt_trigger(), air_interrupt_is_triggered() and writes
 * to the wakeup descriptor may come from any thread or signal handler at any
 * time while the object is alive; new, reset and free follow the usual
 * one-thread-per-handle rule. One interrupt may be shared by several calls.
 */
#ifndef AIR_INTERRUPT_H
#define AIR_INTERRUPT_H

#include "types.h"

AIR_BEGIN_DECLS

/**
 * Create a lowered interrupt (it holds two file descriptors, close-on-exec).
 * @param[out] out receives it; release with air_interrupt_free().
 * @return AIR_OK, AIR_ENOMEM, or AIR_EIO when no descriptor is available.
 * @since 1.0
 */
AIR_EXTERN int air_interrupt_new(air_interrupt **out);
/**
 * Raise the interrupt. Async-signal-safe (an atomic store and one write(2);
 * errno is preserved) and safe from any thread. Raising it again is harmless.
 * @since 1.0
 */
AIR_EXTERN void air_interrupt_trigger(air_interrupt *intr);
/**
 * 1 when raised (by air_interrupt_trigger() or a byte written to the wakeup
 * descriptor), else 0. Async-signal-safe. @since 1.0
 */
AIR_EXTERN int32_t air_interrupt_is_triggered(const air_interrupt *intr);
/**
 * Lower the interrupt so that it can be used again. No call may be using it,
 * and nothing may trigger it concurrently. @since 1.0
 */
AIR_EXTERN void air_interrupt_reset(air_interrupt *intr);
/**
 * A non-blocking descriptor: writing any byte to it raises the interrupt.
 * Owned by @p intr (do not close it); valid until air_interrupt_free().
 * @return the descriptor, or -1 for NULL. @since 1.0
 */
AIR_EXTERN int air_interrupt_wakeup_fd(const air_interrupt *intr);
/** Release @p intr; no call may still be using it. NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_interrupt_free(air_interrupt *intr);

AIR_END_DECLS

#endif /* AIR_INTERRUPT_H */
