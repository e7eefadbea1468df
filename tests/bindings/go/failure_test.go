package airtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"libair/air"
)

// Why a run failed (Client.Failure, Run.Failure): against the fake
// workspace (the node a message names, its traceback, runs without a
// failure, no request for them) and the local workspace (a Python error).

var failureTraceback = []string{
	"Traceback (most recent call last):",
	`  File "train.py", line 3, in <module>`,
	"RuntimeError: CUDA error: an illegal memory access was encountered",
}

// failedRun is a FAILED run of two nodes whose state message names node 1,
// with the traceback in node 1's log.
func failedRun(t *testing.T, fw *fakeWS) int64 {
	var out struct {
		RunID int64 `json:"run_id"`
	}
	fw.call(t, "POST", "/__fakews/runs", map[string]interface{}{
		"start_time": 1700000000000, "end_time": 1700000010000,
		"state": map[string]interface{}{"life_cycle_state": "TERMINATED", "result_state": "FAILED",
			"state_message": "node 1 exited with status 1"},
		"tasks": []interface{}{map[string]interface{}{"max_retries": 2,
			"ai_runtime_task": map[string]interface{}{"experiment": "e", "deployments": []interface{}{
				map[string]interface{}{"compute": map[string]interface{}{
					"accelerator_type": "GPU_8xH100", "accelerator_count": 16}}}}}},
	}, &out)
	var records []interface{}
	for i, line := range failureTraceback {
		records = append(records, map[string]interface{}{
			"time_unix_nano": int64(1700000001000000000) + int64(i), "body": line, "node_index": 1})
	}
	fw.call(t, "POST", fmt.Sprintf("/__fakews/runs/%d/logs", out.RunID),
		map[string]interface{}{"records": records}, nil)
	return out.RunID
}

func TestFailure(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	id := failedRun(t, fw)
	f, err := c.Failure(bg, id, nil)
	must(t, err)
	summary := fmt.Sprintf("Run %d FAILED (attempt 1 of 3, node 1): node 1 exited with status 1", id)
	want := &air.Failure{RunID: id, State: air.StateFailed, StateName: "FAILED",
		Message: "node 1 exited with status 1", Node: 1, NodeSource: air.NodeSourceReported,
		Attempt: 0, AttemptsAllowed: 3, Excerpt: failureTraceback,
		ExcerptKind: air.ExcerptTraceback, AlertPattern: 8, AlertLabel: "CUDA error",
		StateMessage: "node 1 exited with status 1", Summary: summary}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("failure\n%+v, want\n%+v", f, want)
	}
	// String is the summary, then the excerpt indented.
	if s := f.String(); s != summary+"\n  "+strings.Join(failureTraceback, "\n  ") {
		t.Fatalf("String: %q", s)
	}
	if air.AlertLabel(f.AlertPattern) != "CUDA error" || air.AlertLabel(0) != "" {
		t.Fatalf("AlertLabel")
	}
	// Options: another node (no log there: the problem says so).
	f, err = c.Failure(bg, id, &air.FailureOptions{Node: air.Int(0), ExcerptLines: 5})
	must(t, err)
	if f.Node != 0 || f.NodeSource != air.NodeSourceOption || len(f.Excerpt) != 0 ||
		!strings.Contains(f.ExcerptProblem, "No logs found") {
		t.Fatalf("node 0: %+v", f)
	}
	_, err = c.Failure(bg, id, &air.FailureOptions{ExcerptLines: 1})
	if e := airErr(t, err, air.EINVAL); !strings.Contains(e.Error(), "ExcerptLines") {
		t.Fatalf("a bad option is named: %v", e)
	}
}

func TestRunFailure(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	id := failedRun(t, fw)
	run, err := c.GetRun(bg, id, nil)
	must(t, err)
	f, err := run.Failure(bg)
	must(t, err)
	if f == nil || f.Node != 1 || f.ExcerptKind != air.ExcerptTraceback {
		t.Fatalf("failure %+v", f)
	}
	// A run that succeeded or is still going has none, without a request.
	for _, active := range []bool{false, true} {
		run, err := c.GetRun(bg, fw.newRun(t, "fine", active), nil)
		must(t, err)
		before := fw.count(t, "GET", "/api/2.2/jobs/runs/get")
		if f, err := run.Failure(bg); f != nil || err != nil {
			t.Fatalf("active %v: %+v %v", active, f, err)
		}
		if n := fw.count(t, "GET", "/api/2.2/jobs/runs/get"); n != before {
			t.Fatalf("a request was made")
		}
		if f, err := c.Failure(bg, run.ID, nil); f != nil || err != nil {
			t.Fatalf("Client.Failure, active %v: %+v %v", active, f, err)
		}
	}
	// Runs of a listing and of a wait read through their client too.
	it := c.ListRuns(bg, &air.ListOptions{AllStatus: true})
	defer it.Close()
	for it.Next() {
		if it.Run().ID == id {
			if f, err := it.Run().Failure(bg); err != nil || f == nil || f.Node != 1 {
				t.Fatalf("listed run: %+v %v", f, err)
			}
		}
	}
	must(t, it.Err())
	var zero air.Run
	zero.IsTerminal = true
	if _, err := zero.Failure(bg); err == nil {
		t.Fatalf("a Run without a client read a failure")
	}
	// The context ends the read.
	fw.stall(t, "/api/2.0/ai-training/*")
	ctx, cancel := context.WithTimeout(bg, 200*time.Millisecond)
	defer cancel()
	if _, err := run.Failure(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("after the deadline: %v", err)
	}
}

func TestLocalFailure(t *testing.T) {
	lw := newLocal(t)
	ctx, cancel := context.WithTimeout(bg, localPatience)
	defer cancel()
	id := lw.submit(ctx, t, `experiment_name: local-go-failure
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
command: |
  echo loading
  "${PYTHON:-python3}" -c 'print("step 1", flush=True); 1 / 0'
max_retries: 0
`)
	run, err := lw.c.Wait(ctx, id, &air.WaitOptions{PollInterval: 50 * time.Millisecond})
	must(t, err)
	f, err := run.Failure(ctx)
	must(t, err)
	if f == nil || f.Message != "node 0 exited with status 1" || f.Node != 0 ||
		f.TerminationCode != "RUN_EXECUTION_ERROR" || f.ExcerptKind != air.ExcerptTraceback ||
		f.Excerpt[len(f.Excerpt)-1] != "ZeroDivisionError: division by zero" {
		t.Fatalf("failure %+v", f)
	}
}
