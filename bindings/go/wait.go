package air

/*
#include <air/air.h>
#include "shim.h"
*/
import "C"

import (
	"context"
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
	var state *callState
	if opts != nil {
		state = callbacks(callState{onState: opts.OnState, client: c})
	}
	h, release := state.handle()
	defer release()
	return withCall(c, ctx, waitOpts, func(o *C.air_wait_options) error {
		if opts != nil && opts.PollInterval != 0 {
			ms := C.int64_t(millis(opts.PollInterval))
			if err := check(C.air_wait_options_set_int(o, waitPollIntervalMs, ms), nil); err != nil {
				return err
			}
		}
		if h != 0 {
			return check(C.airgo_wait_options_set_state(o, C.uintptr_t(h)), nil)
		}
		return nil
	}, func(k *call, o *C.air_wait_options) (*Run, error) {
		var r *C.air_run
		var e *C.air_error
		rc := C.air_client_wait_run(k.h, C.int64_t(runID), o, &r, &e)
		state.repanic()
		if err := state.cause(check(rc, e)); err != nil {
			return nil, k.fail(err)
		}
		return c.takeRun(r)
	})
}
