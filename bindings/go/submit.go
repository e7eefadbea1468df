package air

/*
#include <stdlib.h>
#include <air/air.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"runtime"
	"runtime/cgo"
	"time"
)

// Progress is one submission progress notification.
type Progress struct {
	Phase      Phase
	BytesDone  int64
	BytesTotal int64
	Detail     string
}

// SubmitOptions are the options of one submission (all optional).
type SubmitOptions struct {
	IdempotencyKey string               // wins over the YAML idempotency_token
	BaseDir        string               // directory for a relative root_path
	SkipPreflight  bool                 // do not call the pre-flight validation
	Progress       func(Progress) error // on the calling goroutine; an error stops the submission
}

// Submission is the outcome of Submit.
type Submission struct {
	RunID            int64
	DashboardURL     string
	IdempotencyToken string
	LaunchDir        string
	CodeSourcePath   string
	SnapshotReused   bool
}

// Submit submits a validated workload. The submission stops with an
// EINTERRUPTED *Error (Cause = ctx.Err()) when ctx ends; with EABORTED
// (Cause = the callback's error) when Progress returns an error.
func (c *Client) Submit(ctx context.Context, cfg *Config, opts *SubmitOptions) (*Submission, error) {
	if cfg == nil || cfg.h == nil {
		return nil, errClosed("Config")
	}
	h, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()

	var o *C.air_submit_options
	if err := check(C.air_submit_options_new(&o), nil); err != nil {
		return nil, err
	}
	defer C.air_submit_options_free(o)
	state := &callState{}
	if opts != nil {
		if opts.IdempotencyKey != "" {
			if err := setSubmitStr(o, SubmitIdempotencyKey, opts.IdempotencyKey); err != nil {
				return nil, err
			}
		}
		if opts.BaseDir != "" {
			if err := setSubmitStr(o, SubmitBaseDir, opts.BaseDir); err != nil {
				return nil, err
			}
		}
		if opts.SkipPreflight {
			if err := check(C.air_submit_options_set_int(o, C.int32_t(SubmitSkipPreflight), 1), nil); err != nil {
				return nil, err
			}
		}
		if opts.Progress != nil {
			state.onProgress = opts.Progress
			handle := cgo.NewHandle(state)
			defer handle.Delete()
			if err := check(C.airgo_submit_options_set_progress(o, C.uintptr_t(handle)), nil); err != nil {
				return nil, err
			}
		}
	}
	w, err := watch(ctx)
	if err != nil {
		return nil, err
	}
	defer w.stop()
	if err := check(C.air_submit_options_set_interrupt(o, w.h), nil); err != nil {
		return nil, err
	}

	var sub *C.air_submission
	var e *C.air_error
	rc := C.air_client_submit(h, cfg.h, o, &sub, &e)
	runtime.KeepAlive(cfg)
	if rc != C.AIR_OK {
		C.air_submission_free(sub)
		return nil, w.annotate(state.finish(rc, e))
	}
	defer C.air_submission_free(sub)
	return &Submission{
		RunID:            int64(C.air_submission_run_id(sub)),
		DashboardURL:     gostr(C.air_submission_dashboard_url(sub)),
		IdempotencyToken: gostr(C.air_submission_idempotency_token(sub)),
		LaunchDir:        gostr(C.air_submission_launch_dir(sub)),
		CodeSourcePath:   gostr(C.air_submission_code_source_path(sub)),
		SnapshotReused:   C.air_submission_snapshot_reused(sub) != 0,
	}, nil
}

func setSubmitStr(o *C.air_submit_options, opt int32, v string) error {
	p := cstr(v)
	defer free(p)
	return check(C.air_submit_options_set_str(o, C.int32_t(opt), p), nil)
}

// PollMLflowLinks returns the MLflow links of a run just submitted
// (best-effort): one runs/get, then up to maxPolls reads of its task output,
// interval apart. Empty strings mean "not known yet". ctx is checked before
// the call only: libair offers no interrupt for it.
func (c *Client) PollMLflowLinks(ctx context.Context, runID int64, maxPolls int, interval time.Duration) (runURL, experimentURL string, err error) {
	h, err := c.enter(ctx)
	if err != nil {
		return "", "", err
	}
	defer c.mu.RUnlock()
	var ru, eu *C.char
	var e *C.air_error
	rc := C.air_client_poll_mlflow_links(h, C.int64_t(runID), C.int32_t(maxPolls),
		C.int64_t(interval.Milliseconds()), &ru, &eu, &e)
	runURL, experimentURL = takeStr(ru), takeStr(eu)
	if err := check(rc, e); err != nil {
		return "", "", err
	}
	return runURL, experimentURL, nil
}
