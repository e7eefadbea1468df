package air

/*
#include <air/air.h>
*/
import "C"

import "context"

// CancelOutcome is one entry of a cancellation report.
type CancelOutcome struct {
	RunID   int64
	Status  Status // OK when cancellation was requested, else the failure
	Message string // why it failed, or ""
}

// CancelReport lists the outcome of every run of a cancellation.
type CancelReport struct {
	Outcomes []CancelOutcome
	Failures int
}

func cancelReportFromC(rep *C.air_cancel_report) *CancelReport {
	out := &CancelReport{Failures: int(C.air_cancel_report_failures(rep))}
	n := C.air_cancel_report_count(rep)
	for i := C.size_t(0); i < n; i++ {
		out.Outcomes = append(out.Outcomes, CancelOutcome{
			RunID:   int64(C.air_cancel_report_run_id(rep, i)),
			Status:  Status(C.air_cancel_report_status(rep, i)),
			Message: gostr(C.air_cancel_report_message(rep, i)),
		})
	}
	return out
}

// CancelRun requests the cancellation of one run; the run stops
// asynchronously (Wait for it).
func (c *Client) CancelRun(ctx context.Context, runID int64) error {
	_, err := withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) (none, error) {
		var e *C.air_error
		return none{}, k.result(C.air_client_cancel_run(k.h, C.int64_t(runID), o, &e), e)
	})
	return err
}

// CancelRuns requests the cancellation of several runs: one failing id does
// not stop the others, the report has every outcome. The context (or Close)
// stops the whole call.
func (c *Client) CancelRuns(ctx context.Context, runIDs []int64) (*CancelReport, error) {
	return c.cancelMany(ctx, func(h *C.air_client, o *C.air_call_options, rep **C.air_cancel_report, e **C.air_error) C.int {
		var ids *C.int64_t
		if len(runIDs) > 0 {
			// A Go slice of integers may be passed: libair reads it during the call only.
			ids = (*C.int64_t)(&runIDs[0])
		}
		return C.air_client_cancel_runs(h, ids, C.size_t(len(runIDs)), o, rep, e)
	})
}

// CancelAll requests the cancellation of every active AI Runtime run of the caller.
func (c *Client) CancelAll(ctx context.Context) (*CancelReport, error) {
	return c.cancelMany(ctx, func(h *C.air_client, o *C.air_call_options, rep **C.air_cancel_report, e **C.air_error) C.int {
		return C.air_client_cancel_all(h, o, rep, e)
	})
}

func (c *Client) cancelMany(ctx context.Context, f func(*C.air_client, *C.air_call_options, **C.air_cancel_report, **C.air_error) C.int) (*CancelReport, error) {
	return withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) (*CancelReport, error) {
		var rep *C.air_cancel_report
		var e *C.air_error
		if err := k.result(f(k.h, o, &rep, &e), e); err != nil {
			return nil, err
		}
		defer C.air_cancel_report_free(rep)
		return cancelReportFromC(rep), nil
	})
}

// StopSweep stops the sweep whose base key is baseKey wherever it is being
// submitted: it submits no further variant, now or when submitted again;
// its runs go on (CancelSweep cancels them too). See docs/submit.md,
// "Stopping a sweep".
func (c *Client) StopSweep(ctx context.Context, baseKey string) error {
	_, err := withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) (none, error) {
		key := cstr(baseKey)
		defer free(key)
		var e *C.air_error
		return none{}, k.result(C.air_client_stop_sweep(k.h, key, o, &e), e)
	})
	return err
}

// CancelSweep stops the sweep whose base key is baseKey (StopSweep), then
// requests the cancellation of its active runs: one failing run does not
// stop the others, the report has every outcome.
func (c *Client) CancelSweep(ctx context.Context, baseKey string) (*CancelReport, error) {
	return c.cancelMany(ctx, func(h *C.air_client, o *C.air_call_options, rep **C.air_cancel_report, e **C.air_error) C.int {
		key := cstr(baseKey)
		defer free(key)
		return C.air_client_cancel_sweep(h, key, o, rep, e)
	})
}
