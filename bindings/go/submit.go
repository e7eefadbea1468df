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

// Progress is one notification of a submission.
type Progress struct {
	Phase      Phase
	BytesDone  int64  // bytes transferred so far in an upload phase, else 0
	BytesTotal int64  // bytes of the phase when known, else 0
	Detail     string // what the phase works on (a path, a policy name), or ""
}

// SubmitOptions are the options of one submission; zero values are the defaults.
type SubmitOptions struct {
	IdempotencyKey string // wins over the YAML idempotency_token; at most 64 bytes
	BaseDir        string // directory for a relative root_path (default: the config's)
	SkipPreflight  bool   // do not call the workspace's pre-flight validation
	// OnProgress receives each step, on the calling goroutine; an error
	// stops the submission (EABORTED, with that error as the cause; nothing
	// is submitted when it stops before PhaseSubmit).
	OnProgress func(Progress) error
}

// Submission is the outcome of Submit.
type Submission struct {
	RunID            int64
	DashboardURL     string
	IdempotencyToken string // the token that was sent
	LaunchDir        string // the workspace directory holding the launch artifacts
	CodeSourcePath   string // code_source_path sent with the run, or ""
	SnapshotReused   bool   // an identical code snapshot was already uploaded
	// Warnings are the steps after runs/submit that failed without failing
	// the submission (granting the permissions on the MLflow experiment),
	// and for a rerun the settings of the past run that its
	// training_config.yaml does not give, kept.
	Warnings []string
}

// Submit submits a validated workload as a Jobs run; opts may be nil. The
// submission carries an idempotency token: when the context ends during
// runs/submit itself the outcome is unknown, and submitting again with the
// same IdempotencyKey never starts a second run.
func (c *Client) Submit(ctx context.Context, cfg *Config, opts *SubmitOptions) (*Submission, error) {
	if cfg == nil {
		return nil, invalid("Submit: the Config is nil")
	}
	if cfg.h == nil {
		return nil, closedError("Config")
	}
	var state *callState
	if opts != nil {
		state = callbacks(callState{onProgress: opts.OnProgress})
	}
	h, release := state.handle()
	defer release()
	return withCall(c, ctx, submitOpts, func(o *C.air_submit_options) error {
		return setSubmitOptions(o, opts, h)
	}, func(k *call, o *C.air_submit_options) (*Submission, error) {
		var sub *C.air_submission
		var e *C.air_error
		rc := C.air_client_submit(k.h, cfg.h, o, &sub, &e)
		runtime.KeepAlive(cfg)
		state.repanic()
		if err := state.cause(check(rc, e)); err != nil {
			return nil, k.fail(err)
		}
		defer C.air_submission_free(sub)
		return submissionFromC(sub), nil
	})
}

// setSubmitOptions fills o from opts (which may be nil) and installs the
// progress callback of the callState of handle h (when it is not 0).
func setSubmitOptions(o *C.air_submit_options, opts *SubmitOptions, h cgo.Handle) error {
	if opts == nil {
		return nil
	}
	err := setStrOptions(func(opt C.int32_t, v *C.char) C.int {
		return C.air_submit_options_set_str(o, opt, v)
	}, strOption{submitIdempotencyKey, opts.IdempotencyKey, ""},
		strOption{submitBaseDir, opts.BaseDir, ""})
	if err != nil {
		return err
	}
	if opts.SkipPreflight {
		if err := check(C.air_submit_options_set_int(o, submitSkipPreflight, 1), nil); err != nil {
			return err
		}
	}
	if h != 0 {
		return check(C.airgo_submit_options_set_progress(o, C.uintptr_t(h)), nil)
	}
	return nil
}

// CheckSubmission makes the checks a submission of the validated workload
// makes without the workspace, as `air run --dry-run` does; nothing is
// contacted. opts may be nil; its IdempotencyKey and BaseDir are used.
//
// In order: the idempotency key (IdempotencyKey, else the YAML
// idempotency_token, sent verbatim: at most 64 bytes; EINVAL with the length
// in bytes), then with a code_source the snapshot plan (root, git state,
// include paths) and, for a plain-tar snapshot, its packaging into a
// temporary file that is then deleted (ESNAPSHOT). The context interrupts
// the packaging. A workload that passes fails no local check of its
// submission. Since libair 1.2.
func (c *Config) CheckSubmission(ctx context.Context, opts *SubmitOptions) error {
	if c.h == nil {
		return closedError("Config")
	}
	w, err := watch(ctx)
	if err != nil {
		return err
	}
	defer w.release()
	o, err := newOptions(w, submitOpts)
	if err != nil {
		return err
	}
	defer submitOpts.release(o)
	if err := setSubmitOptions(o, opts, 0); err != nil {
		return err
	}
	var e *C.air_error
	rc := C.air_config_check_submission(c.h, o, &e)
	runtime.KeepAlive(c)
	return w.annotate(check(rc, e))
}

// PollMLflowLinks returns the MLflow links of a run just submitted,
// best-effort: one runs/get, then up to polls reads of its task's output,
// interval apart, until the MLflow ids appear. Empty strings mean "not
// known yet"; that is no error, unless the context ended (or the Client was
// closed) before the ids appeared.
func (c *Client) PollMLflowLinks(ctx context.Context, runID int64, polls int, interval time.Duration) (runURL, experimentURL string, err error) {
	links, err := withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) ([2]string, error) {
		var ru, eu *C.char
		var e *C.air_error
		rc := C.air_client_poll_mlflow_links(k.h, C.int64_t(runID), C.int32_t(polls),
			C.int64_t(millis(interval)), o, &ru, &eu, &e)
		links := [2]string{takeStr(ru), takeStr(eu)}
		if err := k.result(rc, e); err != nil {
			return links, err
		}
		if links[0] == "" {
			// libair ends the polls early without an error when the call is
			// interrupted (best effort); the context's end is reported here.
			return links, k.endedError()
		}
		return links, nil
	})
	if err != nil {
		return "", "", err
	}
	return links[0], links[1], nil
}
