package air

/*
#include <stdlib.h>
#include <air/air.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"unsafe"
)

// Axis is one axis of a sweep's grid: the field Path takes each of Values.
type Axis struct {
	Path   string
	Values []any // string, int, float64, bool, nil, or slices and maps of them
}

// SweepOptions are the points and options of one sweep (Client.Sweep). Give
// Grid, Points or PointsFile.
type SweepOptions struct {
	// Grid: every combination of the axes' values is a variant, the first
	// axis varying slowest.
	Grid []Axis
	// Points: the variants themselves, each a map from a field path to its
	// value ({"parameters.lr": 1e-3, "compute.num_accelerators": 8}).
	Points []map[string]any
	// PointsFile: a JSON Lines or YAML file of points.
	PointsFile string
	// Sample keeps a random sample of this many points (0: all), chosen by
	// Seed: the same seed picks the same points.
	Sample int
	Seed   uint64
	// BaseKey is the base of every variant's idempotency key (default: the
	// YAML idempotency_token, else derived from the user, the experiment,
	// the date and the config); a new one starts a fresh sweep.
	BaseKey string
	// MaxParallel is how many variants go at a time (0: 8, or 1 on a local
	// workspace, where it bounds the runs going at once).
	MaxParallel   int
	BaseDir       string // directory for a relative root_path (default: the config's)
	SkipPreflight bool   // do not call the workspace's pre-flight validation
	DryRun        bool   // only validate every variant; nothing is sent
	// Resume undoes an earlier stop of this sweep (Client.StopSweep) once its
	// checks have passed, so that its variants without a run are submitted
	// (Sweep.Resumed says whether there was one to undo). It needs BaseKey
	// (or the YAML idempotency_token): a derived key changes with the date.
	Resume bool
	// OnProgress receives a variant when it starts uploading, is submitted
	// or fails, on the calling goroutine; an error stops the sweep (EABORTED,
	// with that error as the cause).
	OnProgress func(Variant) error
}

// Variant is one variant of a sweep and what became of it.
type Variant struct {
	Index          int
	Point          map[string]any // its overrides in canonical form
	RunName        string         // "exp lr=0.001 batch_size=32"
	IdempotencyKey string         // "" in a dry run without a base key
	Status         VariantStatus
	RunID          int64  // 0 when it was not submitted
	DashboardURL   string // "" without a run
	LaunchDir      string // "" when none was written
	Err            error  // why it was not submitted, or nil
}

// Sweep is the outcome of Client.Sweep: every variant, in order.
type Sweep struct {
	BaseKey  string // the base of the keys: `air list --sweep BASE` finds the runs
	Variants []Variant
	Resumed  bool // this submission undid an earlier stop (SweepOptions.Resume)
}

// Failed returns the variants that were not submitted.
func (s *Sweep) Failed() []Variant {
	var out []Variant
	for _, v := range s.Variants {
		if v.Status == VariantFailed {
			out = append(out, v)
		}
	}
	return out
}

// RunIDs returns the runs of the variants that were submitted.
func (s *Sweep) RunIDs() []int64 {
	var out []int64
	for _, v := range s.Variants {
		if v.RunID > 0 {
			out = append(out, v.RunID)
		}
	}
	return out
}

// Sweep submits many variants of a validated workload, each exactly once
// (docs/submit.md, "Sweeps"). Every variant is validated before anything is
// uploaded (a bad point is an ECONFIG error naming the variant and the
// field); the same call again starts nothing new and returns the same runs.
// A variant can fail on its own (Variant.Err) without failing the call. When
// the context ends once variants were being sent, the outcome so far comes
// back with the error.
func (c *Client) Sweep(ctx context.Context, cfg *Config, opts SweepOptions) (*Sweep, error) {
	if cfg == nil {
		return nil, invalid("Sweep: the Config is nil")
	}
	if cfg.h == nil {
		return nil, closedError("Config")
	}
	points, err := sweepPoints(&opts)
	if err != nil {
		return nil, err
	}
	defer C.air_sweep_points_free(points)
	state := callbacks(callState{onVariant: opts.OnProgress})
	h, release := state.handle()
	defer release()
	type outcome struct {
		s   *Sweep
		err error
	}
	res, err := withCall(c, ctx, sweepOpts, func(o *C.air_sweep_options) error {
		return setSweepOptions(o, &opts, uintptr(h))
	}, func(k *call, o *C.air_sweep_options) (outcome, error) {
		var out *C.air_sweep
		var e *C.air_error
		var rc C.int
		if opts.DryRun {
			rc = C.air_config_validate_sweep(cfg.h, points, o, &out, &e)
		} else {
			rc = C.air_client_submit_sweep(k.h, cfg.h, points, o, &out, &e)
		}
		runtime.KeepAlive(cfg)
		var s *Sweep
		if out != nil {
			s = sweepFromC(out)
			C.air_sweep_free(out)
		}
		state.repanic()
		if err := state.cause(check(rc, e)); err != nil {
			return outcome{s, k.fail(err)}, nil
		}
		return outcome{s, nil}, nil
	})
	if err != nil {
		return nil, err
	}
	return res.s, res.err
}

// RerunOptions are the options of Client.Rerun; zero values are the defaults.
type RerunOptions struct {
	Overrides      []string // "PATH=VALUE", applied to the past run's config in order
	IdempotencyKey string   // default: derived from the run id and the overrides
	SkipPreflight  bool
}

// Rerun submits the exact workload of the past run runID again
// (docs/submit.md, "Reruns"): its config (with Overrides), code snapshot and
// launch files, uploading nothing again. What the past run was submitted
// with beyond its training_config.yaml (air run --override) is kept, and
// named in the submission's Warnings. The same rerun twice starts one
// run unless IdempotencyKey says otherwise. A deleted snapshot or launch
// file is ENOTFOUND naming it.
func (c *Client) Rerun(ctx context.Context, runID int64, opts RerunOptions) (*Submission, error) {
	return withCall(c, ctx, rerunOpts, func(o *C.air_rerun_options) error {
		for _, ov := range opts.Overrides {
			p := cstr(ov)
			rc := C.air_rerun_options_add_override(o, p)
			free(p)
			if rc == C.AIR_EINVAL {
				return invalid("invalid override %q: expected PATH=VALUE", ov)
			}
			if err := check(rc, nil); err != nil {
				return err
			}
		}
		if opts.SkipPreflight {
			if err := check(C.air_rerun_options_set_int(o, C.AIR_RERUN_SKIP_PREFLIGHT, 1), nil); err != nil {
				return err
			}
		}
		return setStrOptions(func(opt C.int32_t, v *C.char) C.int {
			return C.air_rerun_options_set_str(o, opt, v)
		}, strOption{C.AIR_RERUN_IDEMPOTENCY_KEY, opts.IdempotencyKey, "IdempotencyKey"})
	}, func(k *call, o *C.air_rerun_options) (*Submission, error) {
		var sub *C.air_submission
		var e *C.air_error
		if err := k.result(C.air_client_rerun(k.h, C.int64_t(runID), o, &sub, &e), e); err != nil {
			return nil, err
		}
		defer C.air_submission_free(sub)
		return submissionFromC(sub), nil
	})
}

func submissionFromC(sub *C.air_submission) *Submission {
	out := &Submission{
		RunID:            int64(C.air_submission_run_id(sub)),
		DashboardURL:     gostr(C.air_submission_dashboard_url(sub)),
		IdempotencyToken: gostr(C.air_submission_idempotency_token(sub)),
		LaunchDir:        gostr(C.air_submission_launch_dir(sub)),
		CodeSourcePath:   gostr(C.air_submission_code_source_path(sub)),
		SnapshotReused:   C.air_submission_snapshot_reused(sub) != 0,
	}
	for i := C.size_t(0); i < C.air_submission_warning_count(sub); i++ {
		out.Warnings = append(out.Warnings, gostr(C.air_submission_warning(sub, i)))
	}
	return out
}

func setSweepOptions(o *C.air_sweep_options, opts *SweepOptions, h uintptr) error {
	err := setStrOptions(func(opt C.int32_t, v *C.char) C.int {
		return C.air_sweep_options_set_str(o, opt, v)
	}, strOption{C.AIR_SWEEP_BASE_KEY, opts.BaseKey, "BaseKey"},
		strOption{C.AIR_SWEEP_BASE_DIR, opts.BaseDir, ""})
	if err == nil && opts.MaxParallel != 0 {
		err = check(C.air_sweep_options_set_int(o, C.AIR_SWEEP_MAX_PARALLEL, C.int64_t(opts.MaxParallel)), nil)
		if err != nil {
			err = badOption(err, "MaxParallel")
		}
	}
	if err == nil && opts.SkipPreflight {
		err = check(C.air_sweep_options_set_int(o, C.AIR_SWEEP_SKIP_PREFLIGHT, 1), nil)
	}
	if err == nil && opts.Resume {
		err = check(C.air_sweep_options_set_int(o, C.AIR_SWEEP_RESUME, 1), nil)
	}
	if err == nil && h != 0 {
		err = check(C.airgo_sweep_options_set_progress(o, C.uintptr_t(h)), nil)
	}
	return err
}

// yamlValue is the override language's text of a Go value: JSON, which is YAML.
func yamlValue(v any) (string, error) {
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return "", invalid("a point's value cannot be %v", f)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", invalid("a point's value %v: %v", v, err)
	}
	return string(b), nil
}

// cstrings is a C array of C strings (const char *const *); free it with freeCstrings.
func cstrings(texts []string) **C.char {
	n := len(texts)
	if n == 0 {
		n = 1
	}
	arr := (**C.char)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	items := unsafe.Slice(arr, n)
	for i, t := range texts {
		items[i] = cstr(t)
	}
	return arr
}

func freeCstrings(arr **C.char, n int) {
	for _, p := range unsafe.Slice(arr, n) {
		free(p)
	}
	C.free(unsafe.Pointer(arr))
}

// sweepPoints builds the C points of opts.
func sweepPoints(opts *SweepOptions) (*C.air_sweep_points, error) {
	given := 0
	for _, b := range []bool{len(opts.Grid) > 0, len(opts.Points) > 0, opts.PointsFile != ""} {
		if b {
			given++
		}
	}
	if given != 1 {
		return nil, invalid("Sweep: give one of Grid, Points and PointsFile")
	}
	var p *C.air_sweep_points
	if err := check(C.air_sweep_points_new(&p), nil); err != nil {
		return nil, err
	}
	err := addPoints(p, opts)
	if err == nil && opts.Sample > 0 {
		var e *C.air_error
		err = check(C.air_sweep_points_sample(p, C.uint64_t(opts.Sample), C.uint64_t(opts.Seed), &e), e)
	}
	if err != nil {
		C.air_sweep_points_free(p)
		return nil, err
	}
	return p, nil
}

func addPoints(p *C.air_sweep_points, opts *SweepOptions) error {
	for _, ax := range opts.Grid {
		texts := make([]string, len(ax.Values))
		for i, v := range ax.Values {
			t, err := yamlValue(v)
			if err != nil {
				return err
			}
			texts[i] = t
		}
		arr, path := cstrings(texts), cstr(ax.Path)
		var e *C.air_error
		rc := C.air_sweep_points_add_axis(p, path, arr, C.size_t(len(texts)), &e)
		freeCstrings(arr, len(texts))
		free(path)
		if err := check(rc, e); err != nil {
			return err
		}
	}
	for _, pt := range opts.Points {
		keys := make([]string, 0, len(pt))
		for k := range pt {
			keys = append(keys, k)
		}
		sort.Strings(keys) // a map has no order: the run name's order is the paths'
		texts := make([]string, len(keys))
		for i, k := range keys {
			t, err := yamlValue(pt[k])
			if err != nil {
				return err
			}
			texts[i] = k + "=" + t
		}
		arr := cstrings(texts)
		var e *C.air_error
		rc := C.air_sweep_points_add_point(p, arr, C.size_t(len(texts)), &e)
		freeCstrings(arr, len(texts))
		if err := check(rc, e); err != nil {
			return err
		}
	}
	if opts.PointsFile != "" {
		path := cstr(opts.PointsFile)
		var e *C.air_error
		rc := C.air_sweep_points_load_file(p, path, &e)
		free(path)
		return check(rc, e)
	}
	return nil
}

func variantFromC(s *C.air_sweep, i int) Variant {
	ci := C.size_t(i)
	v := Variant{
		Index:          i,
		RunName:        gostr(C.air_sweep_variant_run_name(s, ci)),
		IdempotencyKey: gostr(C.air_sweep_variant_idempotency_key(s, ci)),
		Status:         VariantStatus(C.air_sweep_variant_status(s, ci)),
		RunID:          int64(C.air_sweep_variant_run_id(s, ci)),
		DashboardURL:   gostr(C.air_sweep_variant_dashboard_url(s, ci)),
		LaunchDir:      gostr(C.air_sweep_variant_launch_dir(s, ci)),
	}
	if err := json.Unmarshal([]byte(gostr(C.air_sweep_variant_point(s, ci))), &v.Point); err != nil {
		v.Point = map[string]any{}
	}
	if e := C.air_sweep_variant_error(s, ci); e != nil {
		v.Err = errorOf(C.air_error_code(e), (*C.air_error)(unsafe.Pointer(e)))
	}
	return v
}

func sweepFromC(s *C.air_sweep) *Sweep {
	out := &Sweep{BaseKey: gostr(C.air_sweep_base_key(s)), Resumed: C.air_sweep_resumed(s) != 0}
	for i := 0; i < int(C.air_sweep_count(s)); i++ {
		out.Variants = append(out.Variants, variantFromC(s, i))
	}
	return out
}

// String describes the variant: "3 lr=0.001 batch_size=32: run 123".
func (v Variant) String() string {
	if v.RunID > 0 {
		return fmt.Sprintf("%d %s: run %d", v.Index, v.RunName, v.RunID)
	}
	if v.Err != nil {
		return fmt.Sprintf("%d %s: %v", v.Index, v.RunName, v.Err)
	}
	return fmt.Sprintf("%d %s: %v", v.Index, v.RunName, v.Status)
}
