package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import (
	"context"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Iteration is one sweep iteration.
type Iteration struct {
	TaskKey    string
	RunID      int64
	State      string
	Experiment string
}

// SweepStats are the counters of a sweep run.
type SweepStats struct{ Total, Completed, Succeeded, Failed, Active int64 }

// Run is a snapshot of one run, copied out of libair.
type Run struct {
	ID                  int64
	Name                string
	Creator             string
	State               string // display state, never ""
	LifeCycleState      string
	ResultState         string
	StateMessage        string
	IsTerminal          bool
	Succeeded           bool
	IsAIRuntime         bool
	StartTimeMs         int64
	EndTimeMs           int64
	TaskRunID           int64
	AttemptNumber       int
	LatestAttempt       int
	MaxRetries          int
	ExperimentName      string
	AcceleratorType     string
	AcceleratorCount    int64
	Accelerators        string // display label "8x H100", or ""
	CommandPath         string
	CodeSourcePath      string
	EnvironmentVersion  string
	DashboardURL        string
	MLflowRunID         string
	MLflowExperimentID  string
	MLflowRunName       string
	MLflowRunURL        string
	MLflowExperimentURL string
	StatusMessage       string
	IsSweep             bool
	Sweep               *SweepStats // nil unless IsSweep
	Iterations          []Iteration // with GetSweep
	ConfigYAML          []byte      // the uploaded workload YAML (GetConfig), or nil
	JSON                string      // the merged runs/get object
}

func runFromC(r *C.air_run) (*Run, error) {
	run := &Run{
		ID:                  int64(C.air_run_id(r)),
		Name:                gostr(C.air_run_name(r)),
		Creator:             gostr(C.air_run_creator(r)),
		State:               gostr(C.air_run_state(r)),
		LifeCycleState:      gostr(C.air_run_life_cycle_state(r)),
		ResultState:         gostr(C.air_run_result_state(r)),
		StateMessage:        gostr(C.air_run_state_message(r)),
		IsTerminal:          C.air_run_is_terminal(r) != 0,
		Succeeded:           C.air_run_succeeded(r) != 0,
		IsAIRuntime:         C.air_run_is_ai_runtime(r) != 0,
		StartTimeMs:         int64(C.air_run_start_time_ms(r)),
		EndTimeMs:           int64(C.air_run_end_time_ms(r)),
		TaskRunID:           int64(C.air_run_task_run_id(r)),
		AttemptNumber:       int(C.air_run_attempt_number(r)),
		LatestAttempt:       int(C.air_run_latest_attempt(r)),
		MaxRetries:          int(C.air_run_max_retries(r)),
		ExperimentName:      gostr(C.air_run_experiment_name(r)),
		AcceleratorType:     gostr(C.air_run_accelerator_type(r)),
		AcceleratorCount:    int64(C.air_run_accelerator_count(r)),
		Accelerators:        gostr(C.air_run_accelerators(r)),
		CommandPath:         gostr(C.air_run_command_path(r)),
		CodeSourcePath:      gostr(C.air_run_code_source_path(r)),
		EnvironmentVersion:  gostr(C.air_run_environment_version(r)),
		DashboardURL:        gostr(C.air_run_dashboard_url(r)),
		MLflowRunID:         gostr(C.air_run_mlflow_run_id(r)),
		MLflowExperimentID:  gostr(C.air_run_mlflow_experiment_id(r)),
		MLflowRunName:       gostr(C.air_run_mlflow_run_name(r)),
		MLflowRunURL:        gostr(C.air_run_mlflow_run_url(r)),
		MLflowExperimentURL: gostr(C.air_run_mlflow_experiment_url(r)),
		StatusMessage:       gostr(C.air_run_status_message(r)),
		IsSweep:             C.air_run_is_sweep(r) != 0,
	}
	if run.IsSweep {
		run.Sweep = &SweepStats{
			Total:     int64(C.air_run_sweep_stat(r, C.AIR_SWEEP_TOTAL)),
			Completed: int64(C.air_run_sweep_stat(r, C.AIR_SWEEP_COMPLETED)),
			Succeeded: int64(C.air_run_sweep_stat(r, C.AIR_SWEEP_SUCCEEDED)),
			Failed:    int64(C.air_run_sweep_stat(r, C.AIR_SWEEP_FAILED)),
			Active:    int64(C.air_run_sweep_stat(r, C.AIR_SWEEP_ACTIVE)),
		}
	}
	n := C.air_run_iteration_count(r)
	for i := C.size_t(0); i < n; i++ {
		run.Iterations = append(run.Iterations, Iteration{
			TaskKey:    gostr(C.air_run_iteration_task_key(r, i)),
			RunID:      int64(C.air_run_iteration_run_id(r, i)),
			State:      gostr(C.air_run_iteration_state(r, i)),
			Experiment: gostr(C.air_run_iteration_experiment(r, i)),
		})
	}
	var ylen C.size_t
	if y := C.air_run_config_yaml(r, &ylen); y != nil {
		run.ConfigYAML = C.GoBytes(unsafe.Pointer(y), C.int(ylen))
	}
	var js *C.char
	var e *C.air_error
	rc := C.air_run_to_json(r, &js, &e)
	run.JSON = takeStr(js)
	if err := check(rc, e); err != nil {
		return nil, err
	}
	return run, nil
}

// GetRun reads run runID; flags are Get* bits.
func (c *Client) GetRun(ctx context.Context, runID int64, flags uint32) (*Run, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	var r *C.air_run
	var e *C.air_error
	if err := check(C.air_client_get_run(h, C.int64_t(runID), C.uint32_t(flags), &r, &e), e); err != nil {
		C.air_run_free(r)
		return nil, err
	}
	defer C.air_run_free(r)
	return runFromC(r)
}

// ListOptions filter a run listing; zero values mean the library defaults.
type ListOptions struct {
	Limit        int64    // most runs; default 20
	AllStatus    bool     // include finished runs
	AllUsers     bool     // include other users' runs
	MaxInspected int64    // stop after inspecting this many; default 2000
	Filters      []string // "KEY=VALUE": user, experiment, accelerator_type, num_accelerators
	WorkspaceID  *bool    // default true: probe the workspace id for dashboard URLs
	MLflow       bool     // also resolve MLflow ids and run names (best-effort)
}

// RunIterator walks a listing page by page:
//
//	it, err := client.ListRuns(ctx, nil)
//	defer it.Close()
//	for it.Next() { use(it.Run()) }
//	if err := it.Err(); err != nil { ... }
type RunIterator struct {
	c         *Client
	ctx       context.Context
	h         *C.air_run_iter
	run       *Run
	err       error
	truncated bool
}

// ListRuns starts a listing of AI Runtime runs, newest first.
func (c *Client) ListRuns(ctx context.Context, opts *ListOptions) (*RunIterator, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	var o *C.air_list_options
	if err := check(C.air_list_options_new(&o), nil); err != nil {
		return nil, err
	}
	defer C.air_list_options_free(o)
	if opts != nil {
		set := func(opt int32, v int64) error {
			return check(C.air_list_options_set_int(o, C.int32_t(opt), C.int64_t(v)), nil)
		}
		if opts.Limit != 0 {
			if err := set(ListLimit, opts.Limit); err != nil {
				return nil, err
			}
		}
		if opts.MaxInspected != 0 {
			if err := set(ListMaxInspected, opts.MaxInspected); err != nil {
				return nil, err
			}
		}
		if opts.AllStatus {
			if err := set(ListAllStatus, 1); err != nil {
				return nil, err
			}
		}
		if opts.AllUsers {
			if err := set(ListAllUsers, 1); err != nil {
				return nil, err
			}
		}
		if opts.WorkspaceID != nil {
			if err := set(ListWorkspaceID, int64(cbool(*opts.WorkspaceID))); err != nil {
				return nil, err
			}
		}
		if opts.MLflow {
			if err := set(ListMLflow, 1); err != nil {
				return nil, err
			}
		}
		for _, f := range opts.Filters {
			p := cstr(f)
			var e *C.air_error
			err := check(C.air_list_options_add_filter(o, p, &e), e)
			free(p)
			if err != nil {
				return nil, err
			}
		}
	}
	var it *C.air_run_iter
	var e *C.air_error
	if err := check(C.air_client_list_runs(h, o, &it, &e), e); err != nil {
		C.air_run_iter_free(it)
		return nil, err
	}
	ri := &RunIterator{c: c, ctx: ctx, h: it}
	atomic.AddInt32(&c.iters, 1) // under the shared lock: Close cannot run now
	runtime.SetFinalizer(ri, (*RunIterator).Close)
	return ri, nil
}

// Next advances to the next run; false at the end or on an error (see Err).
func (it *RunIterator) Next() bool {
	it.run = nil
	if it.h == nil || it.err != nil {
		return false
	}
	if err := it.ctx.Err(); err != nil {
		it.err = err
		it.Close()
		return false
	}
	it.c.mu.RLock()
	var r *C.air_run
	var e *C.air_error
	err := check(C.air_run_iter_next(it.h, &r, &e), e)
	if err == nil && r != nil {
		it.run, err = runFromC(r)
	}
	it.c.mu.RUnlock()
	if err != nil {
		it.err = err
	}
	if it.run == nil {
		it.Close()
		return false
	}
	return true
}

// Run is the current run (valid after Next returned true).
func (it *RunIterator) Run() *Run { return it.run }

// Err is the error that ended the listing, if any.
func (it *RunIterator) Err() error { return it.err }

// Truncated reports whether the listing stopped at MaxInspected.
func (it *RunIterator) Truncated() bool { return it.truncated }

// Close releases the iterator (idempotent); a finished listing is closed already.
func (it *RunIterator) Close() {
	if it.h == nil {
		return
	}
	it.truncated = C.air_run_iter_truncated(it.h) != 0
	C.air_run_iter_free(it.h)
	it.h = nil
	atomic.AddInt32(&it.c.iters, -1)
	runtime.SetFinalizer(it, nil)
}

// CancelRun requests cancellation of one run.
func (c *Client) CancelRun(ctx context.Context, runID int64) error {
	h, err := c.enter(ctx)
	if err != nil {
		return err
	}
	defer c.mu.RUnlock()
	var e *C.air_error
	return check(C.air_client_cancel_run(h, C.int64_t(runID), &e), e)
}

// CancelOutcome is one entry of a cancellation report; Status is OK when
// cancellation was requested.
type CancelOutcome struct {
	RunID   int64
	Status  Status
	Message string
}

// CancelReport lists per-run outcomes.
type CancelReport struct {
	Outcomes []CancelOutcome
	Failures int
}

func cancelReportFromC(rep *C.air_cancel_report) *CancelReport {
	defer C.air_cancel_report_free(rep)
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

// CancelRuns requests cancellation of several runs; one failing id does not stop the rest.
func (c *Client) CancelRuns(ctx context.Context, runIDs []int64) (*CancelReport, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	// The ids are copied to C memory: libair must not see a Go pointer it could keep.
	var ids *C.int64_t
	if len(runIDs) > 0 {
		ids = (*C.int64_t)(C.malloc(C.size_t(len(runIDs)) * 8))
		defer C.free(unsafe.Pointer(ids))
		arr := unsafe.Slice(ids, len(runIDs))
		for i, id := range runIDs {
			arr[i] = C.int64_t(id)
		}
	}
	var rep *C.air_cancel_report
	var e *C.air_error
	if err := check(C.air_client_cancel_runs(h, ids, C.size_t(len(runIDs)), &rep, &e), e); err != nil {
		C.air_cancel_report_free(rep)
		return nil, err
	}
	return cancelReportFromC(rep), nil
}

// CancelAll cancels every active AI Runtime run of the caller.
func (c *Client) CancelAll(ctx context.Context) (*CancelReport, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	var rep *C.air_cancel_report
	var e *C.air_error
	if err := check(C.air_client_cancel_all(h, &rep, &e), e); err != nil {
		C.air_cancel_report_free(rep)
		return nil, err
	}
	return cancelReportFromC(rep), nil
}
