package air

/*
#include <air/air.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"runtime/cgo"
	"time"
)

// WaitOptions tune Wait; zero values are the defaults.
type WaitOptions struct {
	// PollInterval is the pause between reads of the run; default 3 s
	// (1 s for a local workspace).
	PollInterval time.Duration
	// OnState receives the run when it is first read and at every change of
	// its state, on the calling goroutine; an error stops the wait (EABORTED,
	// with that error as the cause).
	OnState func(*Run) error
}

// Wait waits until run runID reaches a terminal state and returns it
// (whatever its result: check Run.State). Transient read failures are
// retried at the next poll. The context bounds the wait; opts may be nil.
func (c *Client) Wait(ctx context.Context, runID int64, opts *WaitOptions) (*Run, error) {
	k, err := c.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer k.end()
	var o *C.air_wait_options
	if err := check(C.air_wait_options_new(&o), nil); err != nil {
		return nil, err
	}
	defer C.air_wait_options_free(o)
	if err := k.apply(
		func(i *C.air_interrupt) C.int { return C.air_wait_options_set_interrupt(o, i) },
		func(ms C.int64_t) C.int { return C.air_wait_options_set_deadline_ms(o, ms) }); err != nil {
		return nil, err
	}
	var state *callState
	if opts != nil {
		if opts.PollInterval != 0 {
			ms := C.int64_t(millis(opts.PollInterval))
			if err := check(C.air_wait_options_set_int(o, waitPollIntervalMs, ms), nil); err != nil {
				return nil, err
			}
		}
		if opts.OnState != nil {
			state = &callState{onState: opts.OnState}
			h := cgo.NewHandle(state)
			defer h.Delete()
			if err := check(C.airgo_wait_options_set_state(o, C.uintptr_t(h)), nil); err != nil {
				return nil, err
			}
		}
	}
	var r *C.air_run
	var e *C.air_error
	rc := C.air_client_wait_run(k.h, C.int64_t(runID), o, &r, &e)
	state.repanic()
	if err := state.cause(check(rc, e)); err != nil {
		return nil, k.fail(err)
	}
	defer C.air_run_free(r)
	return runFromC(r)
}
