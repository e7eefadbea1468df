package airtest

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"libair/air"
)

// A run's MLflow metrics (docs/runs-and-logs.md#metrics) against the fake
// workspace and the local workspace.

// metricRun is a started run of the fake workspace with these points
// (values by key, steps from 0) in its MLflow run; its MLflow run id.
func metricRun(t *testing.T, fw *fakeWS, active bool, metrics map[string][]interface{}) (int64, string) {
	body := map[string]interface{}{"start_time": 1700000000000,
		"tasks": []interface{}{map[string]interface{}{"ai_runtime_task": map[string]interface{}{"experiment": "m"}}}}
	if active {
		body["state"] = map[string]interface{}{"life_cycle_state": "RUNNING"}
	}
	var out struct {
		RunID int64 `json:"run_id"`
	}
	fw.call(t, "POST", "/__fakews/runs", body, &out)
	var info struct {
		MLflow struct {
			RunID string `json:"run_id"`
		} `json:"mlflow"`
	}
	fw.call(t, "GET", fmt.Sprintf("/__fakews/runs/%d", out.RunID), nil, &info)
	addPoints(t, fw, info.MLflow.RunID, 0, metrics)
	return out.RunID, info.MLflow.RunID
}

func addPoints(t *testing.T, fw *fakeWS, mlflow string, first int, metrics map[string][]interface{}) {
	m := map[string]interface{}{}
	for k, vs := range metrics {
		var pts []interface{}
		for i, v := range vs {
			pts = append(pts, map[string]interface{}{"value": v, "step": first + i,
				"timestamp": 1700000000000 + first + i})
		}
		m[k] = pts
	}
	fw.call(t, "POST", "/__fakews/mlflow/"+mlflow+"/metrics", map[string]interface{}{"metrics": m}, nil)
}

func TestMetrics(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	id, mlflow := metricRun(t, fw, false, map[string][]interface{}{
		"loss": {2.5, 1.0, "NaN"}, "system/gpu_0_utilization_percentage": {80}})

	got, err := c.Metrics(bg, id, nil)
	must(t, err)
	if len(got) != 2 || len(got["loss"]) != 3 || len(got["system/gpu_0_utilization_percentage"]) != 1 {
		t.Fatalf("metrics %+v", got)
	}
	want := air.MetricPoint{Key: "loss", Step: 1, Value: 1.0, Time: time.UnixMilli(1700000000001).UTC()}
	if p := got["loss"][1]; p != want || !math.IsNaN(got["loss"][2].Value) {
		t.Fatalf("points %+v", got["loss"])
	}
	got, err = c.Metrics(bg, id, &air.MetricsOptions{Keys: []string{"nope", "loss"}})
	must(t, err)
	if len(got["nope"]) != 0 || len(got["loss"]) != 3 || len(got) != 2 {
		t.Fatalf("named metrics %+v", got)
	}

	latest, err := c.LatestMetrics(bg, id, nil)
	must(t, err)
	if p, ok := latest.Get("loss"); !ok || p.Step != 2 || latest.MLflowRunID != mlflow ||
		latest.MLflowStatus != "FINISHED" || latest.State != air.StateSuccess {
		t.Fatalf("latest %+v", latest)
	}
	if _, ok := latest.Get("nope"); ok || len(latest.Points) != 2 ||
		latest.Points[1].Key != "system/gpu_0_utilization_percentage" {
		t.Fatalf("latest points %+v", latest.Points)
	}

	_, err = c.Metrics(bg, 424242, nil)
	if !errors.Is(err, air.ENOTFOUND) {
		t.Fatalf("missing run: %v", err)
	}
}

func TestMetricHistoryFollowsARunToItsEnd(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	id, mlflow := metricRun(t, fw, true, map[string][]interface{}{"loss": {3}})
	var polls []string
	opts := &air.MetricsOptions{Follow: true, PollInterval: time.Millisecond, PageSize: 2,
		OnPoll: func(state string) error {
			polls = append(polls, state)
			switch len(polls) {
			case 1:
				addPoints(t, fw, mlflow, 1, map[string][]interface{}{"loss": {2, 1}, "acc": {0.5}})
			case 2:
				addPoints(t, fw, mlflow, 3, map[string][]interface{}{"loss": {0.5}})
				fw.call(t, "POST", fmt.Sprintf("/__fakews/runs/%d", id), map[string]interface{}{
					"state": map[string]interface{}{"life_cycle_state": "TERMINATED", "result_state": "SUCCESS"}}, nil)
			}
			return nil
		}}
	it := c.MetricHistory(bg, id, "", opts)
	var got []string
	for it.Next() {
		got = append(got, fmt.Sprintf("%s:%d=%g", it.Point().Key, it.Point().Step, it.Point().Value))
	}
	must(t, it.Err())
	want := []string{"loss:0=3", "acc:1=0.5", "loss:1=2", "loss:2=1", "loss:3=0.5"}
	if !reflect.DeepEqual(got, want) || len(polls) != 2 || it.RunState() != air.StateSuccess ||
		it.RunStateName() != "SUCCESS" || it.MLflowRunID() != mlflow {
		t.Fatalf("points %v (want %v), polls %v, state %v", got, want, polls, it.RunState())
	}

	// An error of the poll callback stops the iteration and is its cause.
	boom := errors.New("boom")
	it = c.MetricHistory(bg, fw.newRun(t, "active", true), "loss", &air.MetricsOptions{
		Follow: true, PollInterval: time.Millisecond, OnPoll: func(string) error { return boom }})
	for it.Next() {
	}
	if !errors.Is(it.Err(), boom) || !errors.Is(it.Err(), air.EABORTED) {
		t.Fatalf("callback error: %v", it.Err())
	}
}

func TestLocalMetrics(t *testing.T) {
	lw := newLocal(t)
	id := lw.submit(bg, t, `experiment_name: go-local-metrics
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
command: |
  d="${MLFLOW_TRACKING_URI#file://}/$MLFLOW_EXPERIMENT_ID/$MLFLOW_RUN_ID/metrics"
  printf '1700000000000 0.5 0\n1700000000500 0.25 1\n' > "$d/loss"
`)
	run, err := lw.c.Wait(bg, id, &air.WaitOptions{PollInterval: 50 * time.Millisecond})
	must(t, err)
	if run.State != air.StateSuccess {
		t.Fatalf("run %v: %s", run.State, run.StateMessage)
	}
	got, err := lw.c.Metrics(bg, id, nil)
	must(t, err)
	if len(got["loss"]) != 2 || got["loss"][1].Value != 0.25 || got["loss"][1].Step != 1 {
		t.Fatalf("local metrics %+v", got)
	}
}
