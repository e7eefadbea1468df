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
	"sort"
	"time"
)

// MetricPoint is one point of a metric's history (a copy: it may be kept).
type MetricPoint struct {
	Key   string    // "loss", "system/gpu_0_utilization_percentage"
	Step  int64     // the step it was logged at
	Value float64   // NaN and infinities as logged
	Time  time.Time // when it was logged; zero when unknown
}

// MetricsOptions select and pace what Metrics, LatestMetrics and
// MetricHistory read. Zero values (and a nil *MetricsOptions) are the
// library's defaults.
type MetricsOptions struct {
	Keys         []string      // Metrics: only these metrics, in this order (default: every metric)
	Follow       bool          // MetricHistory: follow an active run until it ends
	PollInterval time.Duration // pause between polls while following; default 3 s (1 s local)
	PageSize     int           // points per get-history page (1..25000); default 10000
	// OnPoll receives the run's display state after each poll while
	// following (on the goroutine that calls Next); an error stops the
	// iteration with EABORTED and that error as the cause.
	OnPoll func(state string) error
}

// LatestMetrics is the latest value of each metric of a run.
type LatestMetrics struct {
	Points       []MetricPoint // sorted by key
	MLflowRunID  string        // the MLflow run read from; "" when the run has none yet
	MLflowStatus string        // "RUNNING", "FINISHED", "FAILED", "KILLED", or ""
	State        State         // the Jobs run's display state when they were read
	StateName    string        // State as written
}

// Get is the latest point of metric key.
func (m *LatestMetrics) Get(key string) (MetricPoint, bool) {
	i := sort.Search(len(m.Points), func(i int) bool { return m.Points[i].Key >= key })
	if i < len(m.Points) && m.Points[i].Key == key {
		return m.Points[i], true
	}
	return MetricPoint{}, false
}

func setMetricsOptions(o *C.air_metrics_options, opts *MetricsOptions, state *callState, h cgo.Handle) error {
	if opts == nil {
		return nil
	}
	ints := map[C.int32_t]int64{}
	if opts.Follow {
		ints[metricsFollow] = 1
	}
	if opts.PollInterval != 0 {
		ints[metricsPollIntervalMs] = millis(opts.PollInterval)
	}
	if opts.PageSize != 0 {
		ints[metricsPageSize] = int64(opts.PageSize)
	}
	for opt, v := range ints {
		if err := check(C.air_metrics_options_set_int(o, opt, C.int64_t(v)), nil); err != nil {
			return err
		}
	}
	if state != nil {
		return check(C.airgo_metrics_options_set_poll(o, C.uintptr_t(h)), nil)
	}
	return nil
}

func pointFromC(pt *C.air_metric_point) MetricPoint {
	return MetricPoint{
		Key:   gostr(C.air_metric_point_key(pt)),
		Step:  int64(C.air_metric_point_step(pt)),
		Value: float64(C.air_metric_point_value(pt)),
		Time:  timeFromMs(int64(C.air_metric_point_timestamp_ms(pt))),
	}
}

// LatestMetrics reads the latest value of each MLflow metric of run runID
// (the Jobs run id). A run without an MLflow run yet, or without metrics,
// has none (not an error); a run that does not exist is ENOTFOUND.
func (c *Client) LatestMetrics(ctx context.Context, runID int64, opts *MetricsOptions) (*LatestMetrics, error) {
	return withCall(c, ctx, metricsOpts, nil, func(k *call, o *C.air_metrics_options) (*LatestMetrics, error) {
		var m *C.air_metrics
		var e *C.air_error
		if err := k.result(C.air_client_get_metrics(k.h, C.int64_t(runID), o, &m, &e), e); err != nil {
			return nil, err
		}
		defer C.air_metrics_free(m)
		out := &LatestMetrics{
			MLflowRunID:  gostr(C.air_metrics_mlflow_run_id(m)),
			MLflowStatus: gostr(C.air_metrics_mlflow_status(m)),
			State:        State(C.air_metrics_run_state(m)),
			StateName:    gostr(C.air_metrics_run_state_name(m)),
		}
		for i := C.size_t(0); i < C.air_metrics_count(m); i++ {
			out.Points = append(out.Points, MetricPoint{
				Key:   gostr(C.air_metrics_key(m, i)),
				Step:  int64(C.air_metrics_step(m, i)),
				Value: float64(C.air_metrics_value(m, i)),
				Time:  timeFromMs(int64(C.air_metrics_timestamp_ms(m, i))),
			})
		}
		return out, nil
	})
}

// Metrics reads the full history of each metric of run runID (or of
// opts.Keys, each present, possibly empty), page by page, one pass.
func (c *Client) Metrics(ctx context.Context, runID int64, opts *MetricsOptions) (map[string][]MetricPoint, error) {
	out := map[string][]MetricPoint{}
	keys := []string{""}
	if opts != nil && len(opts.Keys) > 0 {
		keys = opts.Keys
	}
	one := MetricsOptions{}
	if opts != nil {
		one.PageSize = opts.PageSize
	}
	for _, key := range keys {
		if key != "" {
			out[key] = []MetricPoint{}
		}
		it := c.MetricHistory(ctx, runID, key, &one)
		for it.Next() {
			pt := it.Point()
			out[pt.Key] = append(out[pt.Key], pt)
		}
		if err := it.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MetricIter reads metric histories point by point on the goroutine that
// calls Next, a page at a time:
//
//	it := client.MetricHistory(ctx, runID, "loss", &air.MetricsOptions{Follow: true})
//	defer it.Close()
//	for it.Next() {
//		fmt.Println(it.Point().Step, it.Point().Value)
//	}
//	if err := it.Err(); err != nil { ... }
//
// With Follow an active run is followed until it ends, each point once;
// Next blocks between polls. The context of MetricHistory governs the whole
// iteration. A MetricIter is used by one goroutine at a time.
type MetricIter struct {
	core  *iterCore
	h     *C.air_metric_iter
	state *callState
	pt    MetricPoint
	err   error
	run   State
	name  string // run's display state as written
	ml    string // MLflow run id
}

// MetricHistory opens the history of metric key of run runID ("" for every
// metric of the run); opts may be nil. It reads the run at once, so a bad
// run id shows in Err after the first Next; it always returns an iterator.
func (c *Client) MetricHistory(ctx context.Context, runID int64, key string, opts *MetricsOptions) *MetricIter {
	it := &MetricIter{}
	if opts != nil {
		it.state = callbacks(callState{onPoll: opts.OnPoll})
	}
	it.core, it.err = openIterWith(c, ctx, metricsOpts, it.state,
		func(o *C.air_metrics_options, h cgo.Handle) error {
			return setMetricsOptions(o, opts, it.state, h)
		},
		func(h *C.air_client, o *C.air_metrics_options) error {
			var e *C.air_error
			k := cstrOpt(key)
			defer free(k)
			return check(C.air_client_open_metric_history(h, C.int64_t(runID), k, o, &it.h, &e), e)
		},
		func() { C.air_metric_iter_free(it.h) })
	if it.core != nil {
		runtime.SetFinalizer(it, (*MetricIter).Close)
	}
	return it
}

// Next advances to the next point: false at the end (see Err) or on a
// failure. The iterator is released when Next returns false.
func (it *MetricIter) Next() bool {
	var pt *C.air_metric_point
	return it.core.next(&it.err, it.state, func() (C.int, *C.air_error) {
		var e *C.air_error
		rc := C.air_metric_iter_next(it.h, &pt, &e)
		it.run = State(C.air_metric_iter_run_state(it.h))
		it.name = gostr(C.air_metric_iter_run_state_name(it.h))
		it.ml = gostr(C.air_metric_iter_mlflow_run_id(it.h))
		return rc, e
	}, func() { it.pt = pointFromC(pt) }, nil)
}

// Point is the current point (after Next returned true).
func (it *MetricIter) Point() MetricPoint { return it.pt }

// Err is the failure that ended the iteration, or nil.
func (it *MetricIter) Err() error { return it.err }

// RunState is the run's display state at the last poll.
func (it *MetricIter) RunState() State { return it.run }

// RunStateName is RunState as the workspace wrote it.
func (it *MetricIter) RunStateName() string { return it.name }

// MLflowRunID is the MLflow run read from; "" while the run has none.
func (it *MetricIter) MLflowRunID() string { return it.ml }

// Close releases the iterator; idempotent, and implied when Next returns false.
func (it *MetricIter) Close() error {
	if it.core != nil {
		it.core.shut(nil)
	}
	runtime.SetFinalizer(it, nil)
	return nil
}
