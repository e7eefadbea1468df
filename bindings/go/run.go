package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import (
	"context"
	"time"
	"unsafe"
)

// Run is a snapshot of one Jobs run, copied out of libair (it may be kept).
type Run struct {
	ID                  int64
	Name                string
	Creator             string
	State               State  // display state: the result once there is one
	StateName           string // State as the workspace wrote it ("RUNNING"), also for StateOther
	LifeCycleState      string // state.life_cycle_state, or ""
	ResultState         string // state.result_state, or "" until finished
	StateMessage        string
	IsTerminal          bool
	Succeeded           bool
	IsAIRuntime         bool
	StartTime           time.Time // zero until started
	EndTime             time.Time // zero while running
	TaskRunID           int64     // run id of the last task (what runs/get-output takes)
	AttemptNumber       int       // attempt of the last task, 0-based
	LatestAttempt       int       // highest attempt over the tasks
	MaxRetries          int       // of the last task; -1 = unlimited
	ExperimentName      string
	AcceleratorType     string // "GPU_8xH100"
	AcceleratorCount    int64
	Accelerators        string // display label "8x H100", or ""
	CommandPath         string
	CodeSourcePath      string
	EnvironmentVersion  string
	DashboardURL        string
	MLflowRunID         string // with GetOptions.MLflow
	MLflowExperimentID  string // with GetOptions.MLflow
	MLflowRunName       string // with GetOptions.MLflowName
	MLflowRunURL        string
	MLflowExperimentURL string
	StatusMessage       string      // the task's status message (GetOptions.MLflow)
	IsSweep             bool        // the first task is a sweep (for_each_task)
	Sweep               *SweepStats // nil unless IsSweep
	Iterations          []Iteration // with GetOptions.Sweep
	ConfigYAML          []byte      // the uploaded workload YAML (GetOptions.Config), or nil
	JSON                string      // the merged runs/get object

	client *Client // the client that read it (Run.Failure reads through it)
}

// Duration is EndTime - StartTime once both are known (a run that has
// ended), else 0; as Python's Run.duration.
func (r *Run) Duration() time.Duration {
	if r.StartTime.IsZero() || r.EndTime.IsZero() {
		return 0
	}
	return r.EndTime.Sub(r.StartTime)
}

// SweepStats are the counters of a sweep run.
type SweepStats struct{ Total, Completed, Succeeded, Failed, Active int64 }

// Iteration is one iteration of a sweep.
type Iteration struct {
	TaskKey    string
	RunID      int64
	State      State
	StateName  string
	Experiment string
}

func runFromC(r *C.air_run) (*Run, error) {
	run := &Run{
		ID:                  int64(C.air_run_id(r)),
		Name:                gostr(C.air_run_name(r)),
		Creator:             gostr(C.air_run_creator(r)),
		State:               State(C.air_run_state(r)),
		StateName:           gostr(C.air_run_state_name(r)),
		LifeCycleState:      gostr(C.air_run_life_cycle_state(r)),
		ResultState:         gostr(C.air_run_result_state(r)),
		StateMessage:        gostr(C.air_run_state_message(r)),
		IsTerminal:          C.air_run_is_terminal(r) != 0,
		Succeeded:           C.air_run_succeeded(r) != 0,
		IsAIRuntime:         C.air_run_is_ai_runtime(r) != 0,
		StartTime:           timeFromMs(int64(C.air_run_start_time_ms(r))),
		EndTime:             timeFromMs(int64(C.air_run_end_time_ms(r))),
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
		stat := func(which C.int32_t) int64 { return int64(C.air_run_sweep_stat(r, which)) }
		run.Sweep = &SweepStats{Total: stat(sweepTotal), Completed: stat(sweepCompleted),
			Succeeded: stat(sweepSucceeded), Failed: stat(sweepFailed), Active: stat(sweepActive)}
	}
	n := C.air_run_iteration_count(r)
	for i := C.size_t(0); i < n; i++ {
		run.Iterations = append(run.Iterations, Iteration{
			TaskKey:    gostr(C.air_run_iteration_task_key(r, i)),
			RunID:      int64(C.air_run_iteration_run_id(r, i)),
			State:      State(C.air_run_iteration_state(r, i)),
			StateName:  gostr(C.air_run_iteration_state_name(r, i)),
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

// GetOptions choose what GetRun reads besides runs/get.
type GetOptions struct {
	MLflow      bool // resolve the MLflow run and experiment ids (runs/get-output)
	Sweep       bool // read the iterations of a sweep
	WorkspaceID bool // fail unless the workspace id is known (for dashboard URLs with ?o=)
	MLflowName  bool // also read the MLflow run name
	Config      bool // also read the uploaded workload YAML (best-effort)
}

// GetRun reads run runID; opts may be nil (runs/get only).
func (c *Client) GetRun(ctx context.Context, runID int64, opts *GetOptions) (*Run, error) {
	return withCall(c, ctx, getOpts, func(o *C.air_get_options) error {
		return setGetOptions(o, opts)
	}, func(k *call, o *C.air_get_options) (*Run, error) {
		var r *C.air_run
		var e *C.air_error
		if err := k.result(C.air_client_get_run(k.h, C.int64_t(runID), o, &r, &e), e); err != nil {
			return nil, err
		}
		return c.takeRun(r)
	})
}

// takeRun converts a run that libair handed over for c, and releases it.
func (c *Client) takeRun(r *C.air_run) (*Run, error) {
	defer C.air_run_free(r)
	run, err := runFromC(r)
	if run != nil {
		run.client = c
	}
	return run, err
}

func setGetOptions(o *C.air_get_options, opts *GetOptions) error {
	if opts == nil {
		return nil
	}
	for _, f := range []struct {
		opt C.int32_t
		on  bool
	}{{getMLflow, opts.MLflow}, {getSweep, opts.Sweep}, {getWorkspaceID, opts.WorkspaceID},
		{getMLflowName, opts.MLflowName}, {getConfig, opts.Config}} {
		if f.on {
			if err := check(C.air_get_options_set_int(o, f.opt, 1), nil); err != nil {
				return err
			}
		}
	}
	return nil
}
