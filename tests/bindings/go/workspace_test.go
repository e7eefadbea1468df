package airtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"libair/air"
)

var ws *fakeWS

// workspace returns the shared fake workspace, reset for this test.
func workspace(t *testing.T) *fakeWS {
	t.Helper()
	if ws == nil {
		// Started once for the package; its cleanup is the process exit
		// (fakews watches --parent-pid) or TestMain.
		ws = startFakeWS(&keepAlive{t})
	}
	ws.reset(t)
	return ws
}

// keepAlive lets the shared server outlive the test that started it.
type keepAlive struct{ *testing.T }

func (k *keepAlive) Cleanup(func()) {}

func TestMain(m *testing.M) {
	code := m.Run()
	if ws != nil {
		ws.stop()
	}
	osExit(code)
}

func TestClientOptions(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t)
	err := c.SetString(air.Option(99), "x")
	if !errors.Is(err, air.EUNSUPPORTED) {
		t.Fatalf("unknown option: %v", err)
	}
	airErr(t, c.SetInt(air.OptHost, 1), air.EINVAL)
	must(t, c.Resolve(context.Background()))
	if strings.TrimRight(c.Host(), "/") != fw.URL || c.AuthType() != "pat" {
		t.Fatalf("host %q auth %q", c.Host(), c.AuthType())
	}
	user, err := c.CurrentUser(context.Background())
	must(t, err)
	if user != "tester@databricks.com" {
		t.Fatalf("user %q", user)
	}
	id, err := c.WorkspaceID(context.Background())
	must(t, err)
	if id != 900800700600500 {
		t.Fatalf("workspace id %d", id)
	}
}

func TestClientInterruptStopsEveryGoroutine(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t)
	intr, err := air.NewInterrupt()
	must(t, err)
	defer intr.Close()
	must(t, c.SetInterrupt(intr))
	fw.call(t, "POST", "/__fakews/faults", map[string]interface{}{
		"path": "/api/2.0/preview/scim/v2/Me", "action": "delay", "delay_ms": 5000, "times": -1}, nil)
	errs := make(chan error, 3)
	start := time.Now()
	for i := 0; i < 3; i++ {
		go func() {
			_, err := c.CurrentUser(context.Background())
			errs <- err
		}()
	}
	time.Sleep(300 * time.Millisecond)
	intr.Trigger()
	for i := 0; i < 3; i++ {
		e := airErr(t, <-errs, air.EINTERRUPTED)
		if e.Kind != air.KindAborted {
			t.Fatalf("kind %v", e.Kind)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("calls returned after %v", d)
	}
	// Lowered again the client works; removed, a raised flag does not matter.
	fw.call(t, "DELETE", "/__fakews/faults", nil, nil)
	intr.Reset()
	_, err = c.CurrentUser(context.Background())
	must(t, err)
	intr.Trigger()
	must(t, c.SetInterrupt(nil))
	_, err = c.WorkspaceID(context.Background())
	must(t, err)
	closed, err := air.NewInterrupt()
	must(t, err)
	closed.Close()
	if err := c.SetInterrupt(closed); err == nil {
		t.Fatal("SetInterrupt accepted a closed Interrupt")
	}
}

func TestClientDebugAndAuthError(t *testing.T) {
	fw := workspace(t)
	var mu sync.Mutex
	var traces []string
	c := fw.client(t, air.WithToken("dapi-wrong"), air.WithDebug(func(_ air.DebugType, s string) {
		mu.Lock()
		traces = append(traces, s)
		mu.Unlock()
	}))
	_, err := c.CurrentUser(context.Background())
	e := airErr(t, err, air.EAUTH)
	if e.HTTPStatus != 401 || e.Kind != air.KindPermanent || e.Retryable {
		t.Fatalf("auth error %+v", e)
	}
	if len(traces) == 0 {
		t.Fatal("no debug traces")
	}
	for _, s := range traces {
		if strings.Contains(s, "dapi-wrong") {
			t.Fatalf("token in trace %q", s)
		}
	}
}

func TestClientClosed(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetRun(context.Background(), 1, 0); err == nil {
		t.Fatal("call on a closed client succeeded")
	}
}

func TestSubmitGetListCancel(t *testing.T) {
	fw := workspace(t)
	fw.call(t, "POST", "/__fakews/config", map[string]interface{}{
		"lifecycle": map[string]interface{}{"pending_ms": 0, "running_ms": 600000}}, nil)
	c := fw.client(t)
	ctx := context.Background()
	cfg := loadMinimal(t)
	var phases []air.Phase
	sub, err := c.Submit(ctx, cfg, &air.SubmitOptions{IdempotencyKey: "go-key-1",
		Progress: func(p air.Progress) error { phases = append(phases, p.Phase); return nil }})
	must(t, err)
	if sub.RunID <= 0 || sub.IdempotencyToken != "go-key-1" || !strings.HasSuffix(sub.DashboardURL, fmt.Sprintf("/jobs/runs/%d", sub.RunID)) {
		t.Fatalf("submission %+v", sub)
	}
	if len(phases) == 0 || phases[len(phases)-1] < air.PhaseSubmit {
		t.Fatalf("phases %v", phases)
	}
	run, err := c.GetRun(ctx, sub.RunID, 0)
	must(t, err)
	if run.ID != sub.RunID || run.Name != "bindings-test" || run.IsTerminal || !run.IsAIRuntime {
		t.Fatalf("run %+v", run)
	}
	second, err := c.Submit(ctx, cfg, nil)
	must(t, err)

	it, err := c.ListRuns(ctx, nil)
	must(t, err)
	var ids []int64
	for it.Next() {
		ids = append(ids, it.Run().ID)
	}
	must(t, it.Err())
	if len(ids) != 2 || ids[0] != second.RunID || ids[1] != sub.RunID {
		t.Fatalf("listing %v", ids)
	}

	must(t, c.CancelRun(ctx, sub.RunID))
	rep, err := c.CancelRuns(ctx, []int64{second.RunID, 987654321})
	must(t, err)
	if len(rep.Outcomes) != 2 || rep.Failures != 1 || rep.Outcomes[0].Status != air.OK || rep.Outcomes[1].Status != air.ENOTFOUND {
		t.Fatalf("report %+v", rep)
	}
	_, err = c.GetRun(ctx, 987654321, 0)
	e := airErr(t, err, air.ENOTFOUND)
	if e.Kind != air.KindNotFound || e.Retryable {
		t.Fatalf("not found %+v", e)
	}
}

func TestSubmitProgressStops(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t)
	cfg := loadMinimal(t)
	stop := errors.New("enough")
	_, err := c.Submit(context.Background(), cfg, &air.SubmitOptions{
		Progress: func(air.Progress) error { return stop }})
	airErr(t, err, air.EABORTED)
	if !errors.Is(err, stop) {
		t.Fatalf("callback error not the cause: %v", err)
	}
	if n := fw.count(t, "POST", "/api/2.2/jobs/runs/submit"); n != 0 {
		t.Fatalf("%d submissions", n)
	}
}

func TestStreamLogs(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "logs", false)
	fw.addLogs(t, rid, 50, "step {i}")
	c := fw.client(t)
	var lines []string
	var states []string
	sum, err := c.StreamLogs(context.Background(), rid, nil, air.LogHandlers{
		Record: func(r air.LogRecord) error { lines = append(lines, r.Line); return nil },
		Status: func(cur, prev string) error { states = append(states, prev+">"+cur); return nil },
	})
	must(t, err)
	if len(lines) != 50 || lines[0] != "step 0" || lines[49] != "step 49" {
		t.Fatalf("lines %d %v", len(lines), lines)
	}
	if sum == nil || sum.Records != 50 || sum.State != "SUCCESS" || !sum.OK || len(states) == 0 || states[0] != ">SUCCESS" {
		t.Fatalf("summary %+v states %v", sum, states)
	}

	// A callback error stops the stream and is the cause of the EABORTED error.
	n := 0
	halt := errors.New("halt")
	_, err = c.StreamLogs(context.Background(), rid, &air.LogsOptions{TailLines: air.Int64(20)}, air.LogHandlers{
		Record: func(air.LogRecord) error {
			n++
			if n == 5 {
				return halt
			}
			return nil
		}})
	airErr(t, err, air.EABORTED)
	if !errors.Is(err, halt) || n != 5 {
		t.Fatalf("err %v after %d records", err, n)
	}
}

// waitingRun is PENDING on polls 0-5 with a status message, then RUNNING
// with one line on poll 6, then SUCCESS.
func waitingRun(t *testing.T, fw *fakeWS) int64 {
	type m = map[string]interface{}
	seq := []interface{}{}
	for i := 0; i < 6; i++ {
		seq = append(seq, m{})
	}
	seq = append(seq, m{"state": m{"life_cycle_state": "RUNNING"}},
		m{"state": m{"life_cycle_state": "TERMINATED", "result_state": "SUCCESS"}, "end_time": 1700000030000})
	var out struct {
		RunID int64 `json:"run_id"`
	}
	fw.call(t, "POST", "/__fakews/runs", m{"state": m{"life_cycle_state": "PENDING"},
		"tasks": []interface{}{m{"ai_runtime_task": m{}}}, "sequence": seq}, &out)
	fw.call(t, "POST", fmt.Sprintf("/__fakews/runs/%d/output", out.RunID),
		m{"ai_runtime_task_output": m{"status_message": "STATUS:Allocating nodes.."}}, nil)
	fw.call(t, "POST", fmt.Sprintf("/__fakews/runs/%d/logs", out.RunID),
		m{"records": []interface{}{m{"time_unix_nano": int64(1700000001000000000), "body": "up"}}}, nil)
	fw.call(t, "POST", "/__fakews/faults", m{"path": fmt.Sprintf("/api/2.0/ai-training/workflows/by-run-id/%d/logs", out.RunID),
		"status": 200, "body": m{"log_records": []interface{}{}}, "times": 6}, nil)
	return out.RunID
}

func TestStreamLogsWaiting(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t)
	var events []string
	opts := &air.LogsOptions{PollIntervalMs: 5}
	sum, err := c.StreamLogs(context.Background(), waitingRun(t, fw), opts, air.LogHandlers{
		Record:  func(r air.LogRecord) error { events = append(events, "L:"+r.Line); return nil },
		Waiting: func(msg string) error { events = append(events, "W:"+msg); return nil },
	})
	must(t, err)
	want := "W:Allocating nodes... W:Allocating nodes... W: L:up"
	if got := strings.Join(events, " "); got != want || sum.Records != 1 {
		t.Fatalf("events %q (want %q), summary %+v", got, want, sum)
	}
	if n := fw.count(t, "GET", "/api/2.2/jobs/runs/get-output"); n != 2 {
		t.Fatalf("%d get-output requests", n)
	}

	// A Waiting error stops the stream and is the cause of EABORTED.
	stop := errors.New("enough")
	_, err = c.StreamLogs(context.Background(), waitingRun(t, fw), opts, air.LogHandlers{
		Waiting: func(msg string) error { return stop }})
	airErr(t, err, air.EABORTED)
	if !errors.Is(err, stop) {
		t.Fatalf("callback error not the cause: %v", err)
	}

	// Without a Waiting handler there is no get-output request at all.
	before := fw.count(t, "GET", "/api/2.2/jobs/runs/get-output")
	_, err = c.StreamLogs(context.Background(), waitingRun(t, fw), opts, air.LogHandlers{})
	must(t, err)
	if n := fw.count(t, "GET", "/api/2.2/jobs/runs/get-output"); n != before {
		t.Fatalf("%d get-output requests without a handler", n-before)
	}
}

func TestStreamLogsPanicIsReraised(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "panics", false)
	fw.addLogs(t, rid, 10, "line {i}")
	c := fw.client(t)
	calls := 0
	defer func() {
		r := recover()
		if r != "boom" || calls != 3 {
			t.Fatalf("recovered %v after %d calls", r, calls)
		}
		// the client is still usable after the panic
		_, err := c.GetRun(context.Background(), rid, 0)
		must(t, err)
	}()
	_, err := c.StreamLogs(context.Background(), rid, nil, air.LogHandlers{Record: func(air.LogRecord) error {
		calls++
		if calls == 3 {
			panic("boom")
		}
		return nil
	}})
	landed(t, err)
	t.Fatalf("no panic (err %v)", err)
}

func TestContextCancellation(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "active", true)
	c := fw.client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.StreamLogs(ctx, rid, &air.LogsOptions{PollIntervalMs: 5000}, air.LogHandlers{})
	e := airErr(t, err, air.EINTERRUPTED)
	if !errors.Is(err, context.DeadlineExceeded) || e.Kind != air.KindAborted {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("took %v", d)
	}
	// An already cancelled context fails before any request.
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := c.GetRun(done, rid, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled ctx: %v", err)
	}
}

func TestManyGoroutinesShareOneClient(t *testing.T) {
	fw := workspace(t)
	var ids []int64
	for i := 0; i < 8; i++ {
		ids = append(ids, fw.newRun(t, fmt.Sprintf("g%d", i), false))
	}
	logsRun := fw.newRun(t, "stream", false)
	fw.addLogs(t, logsRun, 300, "line {i}")
	c := fw.client(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 5; k++ {
				id := ids[(g+k)%len(ids)]
				r, err := c.GetRun(ctx, id, 0)
				if err != nil {
					errs <- err
					return
				}
				if r.ID != id {
					errs <- fmt.Errorf("asked %d got %d", id, r.ID)
					return
				}
			}
		}(g)
	}
	var streamed []string
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := c.StreamLogs(ctx, logsRun, nil, air.LogHandlers{Record: func(r air.LogRecord) error {
			streamed = append(streamed, r.Line)
			return nil
		}})
		if err != nil {
			errs <- err
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	if len(streamed) != 300 || streamed[299] != "line 299" {
		t.Fatalf("streamed %d lines", len(streamed))
	}
}

func TestPools(t *testing.T) {
	fw := workspace(t)
	fw.call(t, "POST", "/__fakews/pools", map[string]interface{}{"pools": []interface{}{
		map[string]interface{}{"id": "pool-a", "accelerator_type": "GPU_8xH100", "accelerator_count": 64, "used": 16, "idle": 48}}}, nil)
	c := fw.client(t)
	pools, err := c.ListPools(context.Background())
	must(t, err)
	if len(pools) != 1 || pools[0] != (air.Pool{ID: "pool-a", AcceleratorType: "GPU_8xH100",
		ReservedAccelerators: 64, UsedAccelerators: 16, IdleAccelerators: 48}) {
		t.Fatalf("pools %+v", pools)
	}
	_, err = c.GetPool(context.Background(), "pool-zzz")
	airErr(t, err, air.ENOTFOUND)
}
