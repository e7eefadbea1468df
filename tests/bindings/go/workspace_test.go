package airtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
		// Started once for the package; stopped by TestMain (or, after a
		// crash, by fakews itself: it watches --parent-pid).
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

var bg = context.Background()

func TestClientOptions(t *testing.T) {
	fw := workspace(t)
	o := fw.options()
	o.Strings = map[air.Option]string{air.Option(99): "x"}
	if _, err := air.NewClient(o); !errors.Is(err, air.EUNSUPPORTED) { // an option of a newer libair
		t.Fatalf("unknown option: %v", err)
	}
	o = fw.options()
	o.Ints = map[air.Option]int64{air.OptHost: 1}
	_, err := air.NewClient(o)
	airErr(t, err, air.EINVAL)

	c := fw.client(t, func(o *air.ClientOptions) {
		o.RateLimit = air.Int(100)
		o.ConnectTimeout = 5 * time.Second
		o.UserAgentSuffix = "bindings-test/1.0"
	})
	if c.Host() != "" {
		t.Fatalf("host %q before resolution", c.Host())
	}
	must(t, c.Resolve(bg))
	if strings.TrimRight(c.Host(), "/") != fw.URL || c.AuthType() != "pat" {
		t.Fatalf("host %q auth %q", c.Host(), c.AuthType())
	}
	user, err := c.CurrentUser(bg)
	must(t, err)
	if user != "tester@databricks.com" {
		t.Fatalf("user %q", user)
	}
	id, err := c.WorkspaceID(bg)
	must(t, err)
	if id != 900800700600500 {
		t.Fatalf("workspace id %d", id)
	}
	var ua []string
	var out struct {
		Requests []struct {
			Headers map[string]string `json:"headers"`
		} `json:"requests"`
	}
	fw.call(t, "GET", "/__fakews/requests", nil, &out)
	for _, r := range out.Requests {
		ua = append(ua, r.Headers["user-agent"])
	}
	if len(ua) == 0 || !strings.Contains(ua[0], "bindings-test/1.0") {
		t.Fatalf("user agents %q", ua)
	}
}

func TestClientOptionsHideSecrets(t *testing.T) {
	o := air.ClientOptions{Host: "https://x", Token: "dapi-secret", ClientSecret: "s3cr3t", Password: "pw"}
	for _, s := range []string{fmt.Sprint(o), fmt.Sprintf("%+v %#v %s", o, o, &o)} {
		if strings.Contains(s, "dapi-secret") || strings.Contains(s, "s3cr3t") || strings.Contains(s, "pw\"") {
			t.Fatalf("secret printed: %s", s)
		}
		if !strings.Contains(s, "https://x") {
			t.Fatalf("host missing: %s", s)
		}
	}
}

func TestClientDebugAndAuthError(t *testing.T) {
	fw := workspace(t)
	var mu sync.Mutex
	var traces []string
	types := map[air.DebugType]bool{}
	c := fw.client(t, func(o *air.ClientOptions) {
		o.Token = "dapi-wrong"
		o.Debug = func(typ air.DebugType, s string) {
			mu.Lock()
			traces = append(traces, s)
			types[typ] = true
			mu.Unlock()
		}
	})
	_, err := c.CurrentUser(bg)
	e := airErr(t, err, air.EAUTH)
	if e.HTTPStatus != 401 || e.Kind != air.KindPermanent || e.Retryable || e.RequestID == "" {
		t.Fatalf("auth error %+v", e)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(traces) == 0 || !types[air.DebugRequest] || !types[air.DebugResponse] {
		t.Fatalf("traces %d, types %v", len(traces), types)
	}
	for _, s := range traces {
		if strings.Contains(s, "dapi-wrong") {
			t.Fatalf("token in trace %q", s)
		}
	}
}

func TestSubmitGetListCancel(t *testing.T) {
	fw := workspace(t)
	fw.call(t, "POST", "/__fakews/config", map[string]interface{}{
		"lifecycle": map[string]interface{}{"pending_ms": 0, "running_ms": 600000}}, nil)
	c := fw.client(t, nil)
	cfg := loadMinimal(t)
	var phases []air.Phase
	sub, err := c.Submit(bg, cfg, &air.SubmitOptions{IdempotencyKey: "go-key-1",
		OnProgress: func(p air.Progress) error { phases = append(phases, p.Phase); return nil }})
	must(t, err)
	if sub.RunID <= 0 || sub.IdempotencyToken != "go-key-1" || !strings.HasSuffix(sub.DashboardURL, fmt.Sprintf("/jobs/runs/%d", sub.RunID)) {
		t.Fatalf("submission %+v", sub)
	}
	if len(phases) == 0 || phases[0] != air.PhaseIdentity || phases[len(phases)-1] != air.PhaseDone {
		t.Fatalf("phases %v", phases)
	}
	run, err := c.GetRun(bg, sub.RunID, &air.GetOptions{MLflow: true, Config: true})
	must(t, err)
	if run.ID != sub.RunID || run.Name != "bindings-test" || run.IsTerminal || !run.IsAIRuntime ||
		run.State != air.StateRunning || run.StateName != "RUNNING" || run.State.IsTerminal() {
		t.Fatalf("run %+v", run)
	}
	if run.StartTime.IsZero() || !run.EndTime.IsZero() || run.StartTime.Location() != time.UTC ||
		time.Since(run.StartTime) > time.Hour || run.MLflowRunID == "" || !strings.Contains(string(run.ConfigYAML), "bindings-test") {
		t.Fatalf("times %v %v, mlflow %q, yaml %q", run.StartTime, run.EndTime, run.MLflowRunID, run.ConfigYAML)
	}
	second, err := c.Submit(bg, cfg, nil)
	must(t, err)

	it := c.ListRuns(bg, nil)
	var ids []int64
	for it.Next() {
		ids = append(ids, it.Run().ID)
	}
	must(t, it.Err())
	if len(ids) != 2 || ids[0] != second.RunID || ids[1] != sub.RunID || it.Truncated() {
		t.Fatalf("listing %v", ids)
	}
	it.Close()
	bad := c.ListRuns(bg, &air.ListOptions{Filters: []string{"colour=blue"}})
	if bad.Next() {
		t.Fatal("listing with a bad filter")
	}
	airErr(t, bad.Err(), air.EINVAL)

	must(t, c.CancelRun(bg, sub.RunID))
	rep, err := c.CancelRuns(bg, []int64{second.RunID, 987654321})
	must(t, err)
	if len(rep.Outcomes) != 2 || rep.Failures != 1 || rep.Outcomes[0].Status != air.OK || rep.Outcomes[1].Status != air.ENOTFOUND {
		t.Fatalf("report %+v", rep)
	}
	final, err := c.Wait(bg, sub.RunID, &air.WaitOptions{PollInterval: 10 * time.Millisecond})
	must(t, err)
	if final.State != air.StateCanceled || !final.IsTerminal || final.EndTime.IsZero() {
		t.Fatalf("after cancel %+v", final)
	}
	_, err = c.GetRun(bg, 987654321, nil)
	e := airErr(t, err, air.ENOTFOUND)
	if e.Kind != air.KindNotFound || e.Retryable {
		t.Fatalf("not found %+v", e)
	}
	rep, err = c.CancelAll(bg)
	must(t, err)
	if rep.Failures != 0 {
		t.Fatalf("cancel all %+v", rep)
	}
}

func TestSubmitProgressStops(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	cfg := loadMinimal(t)
	stop := errors.New("enough")
	_, err := c.Submit(bg, cfg, &air.SubmitOptions{
		OnProgress: func(air.Progress) error { return stop }})
	airErr(t, err, air.EABORTED)
	if !errors.Is(err, stop) {
		t.Fatalf("callback error not the cause: %v", err)
	}
	if n := fw.count(t, "POST", "/api/2.2/jobs/runs/submit"); n != 0 {
		t.Fatalf("%d submissions", n)
	}
	if _, err := c.Submit(bg, nil, nil); !errors.Is(err, air.EINVAL) {
		t.Fatalf("nil config: %v", err)
	}
}

func TestWaitStates(t *testing.T) {
	fw := workspace(t)
	type m = map[string]interface{}
	var out struct {
		RunID int64 `json:"run_id"`
	}
	fw.call(t, "POST", "/__fakews/runs", m{"state": m{"life_cycle_state": "PENDING"},
		"tasks": []interface{}{m{"ai_runtime_task": m{}}}, "sequence": []interface{}{
			m{}, m{"state": m{"life_cycle_state": "RUNNING"}}, m{"state": m{"life_cycle_state": "RUNNING"}},
			m{"state": m{"life_cycle_state": "TERMINATED", "result_state": "FAILED"}, "end_time": 1700000030000}}}, &out)
	c := fw.client(t, nil)
	var seen []string
	run, err := c.Wait(bg, out.RunID, &air.WaitOptions{PollInterval: time.Millisecond,
		OnState: func(r *air.Run) error { seen = append(seen, r.State.String()); return nil }})
	must(t, err)
	if run.State != air.StateFailed || run.Succeeded || strings.Join(seen, " ") != "PENDING RUNNING FAILED" {
		t.Fatalf("final %v, states %v", run.State, seen)
	}
	if !run.EndTime.Equal(time.UnixMilli(1700000030000)) {
		t.Fatalf("end %v", run.EndTime)
	}
	halt := errors.New("halt")
	_, err = c.Wait(bg, out.RunID, &air.WaitOptions{OnState: func(*air.Run) error { return halt }})
	airErr(t, err, air.EABORTED)
	if !errors.Is(err, halt) {
		t.Fatalf("cause: %v", err)
	}
	_, err = c.Wait(bg, 987654321, nil)
	airErr(t, err, air.ENOTFOUND)
}

func TestLogIter(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "logs", false)
	fw.addLogs(t, rid, 50, "step {i}")
	c := fw.client(t, nil)
	var states []string
	it := c.Logs(bg, rid, &air.LogsOptions{OnStatus: func(cur, prev string) error {
		states = append(states, prev+">"+cur)
		return nil
	}})
	var lines []string
	var first air.LogRecord
	for it.Next() {
		if len(lines) == 0 {
			first = it.Record()
		}
		lines = append(lines, it.Record().Line)
	}
	must(t, it.Err())
	sum := it.Summary()
	if len(lines) != 50 || lines[0] != "step 0" || lines[49] != "step 49" {
		t.Fatalf("lines %d %v", len(lines), lines)
	}
	if !first.Time.Equal(time.Unix(0, 1700000000000000000)) || first.Source != air.LogSourceEndpoint || first.Node != 0 {
		t.Fatalf("first record %+v", first)
	}
	if sum == nil || sum.Records != 50 || sum.State != air.StateSuccess || !sum.Terminal || !sum.Succeeded ||
		len(states) == 0 || states[0] != ">SUCCESS" {
		t.Fatalf("summary %+v states %v", sum, states)
	}
	if it.Next() || it.Close() != nil || it.Close() != nil {
		t.Fatal("Next or Close after the end")
	}

	// A tail, closed early: Close releases it, Next then reports nothing.
	it = c.Logs(bg, rid, &air.LogsOptions{TailLines: air.Int(5)})
	if !it.Next() || it.Record().Line != "step 45" {
		t.Fatalf("tail starts with %q (%v)", it.Record().Line, it.Err())
	}
	it.Close()
	if it.Next() || it.Err() != nil || it.Summary() != nil {
		t.Fatalf("after Close: err %v", it.Err())
	}

	// A callback error ends the iteration with EABORTED and that error as the cause.
	it = c.Logs(bg, rid, &air.LogsOptions{OnStatus: func(string, string) error { return air.ErrStop }})
	if it.Next() || !errors.Is(it.Err(), air.ErrStop) || !errors.Is(it.Err(), air.EABORTED) {
		t.Fatalf("stopped by OnStatus: %v", it.Err())
	}

	// A bad run id fails at the first Next.
	it = c.Logs(bg, 987654321, nil)
	if it.Next() {
		t.Fatal("records of a missing run")
	}
	airErr(t, it.Err(), air.ENOTFOUND)
}

func TestLogIterCallbackPanicIsReraised(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	it := c.Logs(bg, waitingRun(t, fw), &air.LogsOptions{PollInterval: 5 * time.Millisecond,
		OnWaiting: func(string) error { panic("boom") }})
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v", r)
		}
		if it.Next() {
			t.Fatal("Next after the panic")
		}
		if _, err := c.CurrentUser(bg); err != nil { // the client still works
			t.Fatal(err)
		}
	}()
	for it.Next() {
	}
	t.Fatalf("no panic (err %v)", it.Err())
}

func TestStreamLogs(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "logs", false)
	fw.addLogs(t, rid, 50, "step {i}")
	c := fw.client(t, nil)
	var lines []string
	sum, err := c.StreamLogs(bg, rid, nil, func(r air.LogRecord) error {
		lines = append(lines, r.Line)
		return nil
	})
	must(t, err)
	if len(lines) != 50 || lines[0] != "step 0" || lines[49] != "step 49" || sum.Records != 50 || sum.State != air.StateSuccess {
		t.Fatalf("lines %d, summary %+v", len(lines), sum)
	}

	// A callback error stops the stream and is the cause of the EABORTED error.
	n := 0
	halt := errors.New("halt")
	_, err = c.StreamLogs(bg, rid, &air.LogsOptions{TailLines: air.Int(20)}, func(air.LogRecord) error {
		n++
		if n == 5 {
			return halt
		}
		return nil
	})
	airErr(t, err, air.EABORTED)
	if !errors.Is(err, halt) || n != 5 {
		t.Fatalf("err %v after %d records", err, n)
	}

	// Alerts: a fatal line is flagged with its pattern.
	rid = fw.newRun(t, "alerts", false)
	fw.call(t, "POST", fmt.Sprintf("/__fakews/runs/%d/logs", rid), map[string]interface{}{
		"records": []interface{}{map[string]interface{}{"time_unix_nano": 1, "body": "CUDA out of memory"}}}, nil)
	var rec air.LogRecord
	_, err = c.StreamLogs(bg, rid, nil, func(r air.LogRecord) error { rec = r; return nil })
	must(t, err)
	if rec.Alert == 0 || rec.Alert != air.MatchAlert(rec.Line) || rec.Alert > len(air.AlertPatterns()) {
		t.Fatalf("alert %d of %q (patterns %d)", rec.Alert, rec.Line, len(air.AlertPatterns()))
	}
	// NoAlerts: the same record, not matched (through both readers).
	_, err = c.StreamLogs(bg, rid, &air.LogsOptions{NoAlerts: true},
		func(r air.LogRecord) error { rec = r; return nil })
	must(t, err)
	it := c.Logs(bg, rid, &air.LogsOptions{NoAlerts: true})
	for it.Next() {
		if it.Record().Alert != 0 || it.Record().Line != rec.Line {
			t.Fatalf("iterator with NoAlerts: %+v", it.Record())
		}
	}
	must(t, it.Err())
	if rec.Alert != 0 || rec.Line != "CUDA out of memory" {
		t.Fatalf("NoAlerts: %+v", rec)
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
	fw.fault(t, m{"path": fmt.Sprintf("/api/2.0/ai-training/workflows/by-run-id/%d/logs", out.RunID),
		"status": 200, "body": m{"log_records": []interface{}{}}, "times": 6})
	return out.RunID
}

func TestLogsWaiting(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	var events []string
	opts := &air.LogsOptions{PollInterval: 5 * time.Millisecond,
		OnWaiting: func(msg string) error { events = append(events, "W:"+msg); return nil }}
	sum, err := c.StreamLogs(bg, waitingRun(t, fw), opts, func(r air.LogRecord) error {
		events = append(events, "L:"+r.Line)
		return nil
	})
	must(t, err)
	want := "W:Allocating nodes... W:Allocating nodes... W: L:up"
	if got := strings.Join(events, " "); got != want || sum.Records != 1 {
		t.Fatalf("events %q (want %q), summary %+v", got, want, sum)
	}
	if n := fw.count(t, "GET", "/api/2.2/jobs/runs/get-output"); n != 2 {
		t.Fatalf("%d get-output requests", n)
	}

	// The iterator reports the same, from inside Next.
	events = nil
	it := c.Logs(bg, waitingRun(t, fw), opts)
	for it.Next() {
		events = append(events, "L:"+it.Record().Line)
	}
	must(t, it.Err())
	if got := strings.Join(events, " "); got != want {
		t.Fatalf("iterator events %q", got)
	}

	// A waiting error stops the stream and is the cause of EABORTED.
	stop := errors.New("enough")
	_, err = c.StreamLogs(bg, waitingRun(t, fw), &air.LogsOptions{PollInterval: 5 * time.Millisecond,
		OnWaiting: func(string) error { return stop }}, nil)
	airErr(t, err, air.EABORTED)
	if !errors.Is(err, stop) {
		t.Fatalf("callback error not the cause: %v", err)
	}

	// Without a waiting callback there is no get-output request at all.
	before := fw.count(t, "GET", "/api/2.2/jobs/runs/get-output")
	_, err = c.StreamLogs(bg, waitingRun(t, fw), &air.LogsOptions{PollInterval: 5 * time.Millisecond}, nil)
	must(t, err)
	if n := fw.count(t, "GET", "/api/2.2/jobs/runs/get-output"); n != before {
		t.Fatalf("%d get-output requests without a callback", n-before)
	}
}

func TestStreamLogsPanicIsReraised(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "panics", false)
	fw.addLogs(t, rid, 10, "line {i}")
	c := fw.client(t, nil)
	calls := 0
	defer func() {
		r := recover()
		if r != "boom" || calls != 3 {
			t.Fatalf("recovered %v after %d calls", r, calls)
		}
		_, err := c.GetRun(bg, rid, nil) // the client still works
		must(t, err)
	}()
	_, err := c.StreamLogs(bg, rid, nil, func(air.LogRecord) error {
		calls++
		if calls == 3 {
			panic("boom")
		}
		return nil
	})
	landed(t, err)
	t.Fatalf("no panic (err %v)", err)
}

func TestDownloadLogs(t *testing.T) {
	fw := workspace(t)
	rid := fw.newRun(t, "dl", false)
	var run struct {
		Run struct {
			Tasks []struct {
				RunID int64 `json:"run_id"`
			} `json:"tasks"`
		} `json:"run"`
	}
	fw.call(t, "GET", fmt.Sprintf("/__fakews/runs/%d", rid), nil, &run)
	fw.call(t, "POST", fmt.Sprintf("/__fakews/runs/%d/output", rid), map[string]interface{}{
		"ai_runtime_task_output": map[string]interface{}{"mlflow_experiment_id": "exp1", "mlflow_run_id": "run1"}}, nil)
	fw.call(t, "POST", "/__fakews/mlflow", map[string]interface{}{"runs": map[string]interface{}{
		"run1": map[string]interface{}{"experiment_id": "exp1", "artifacts": map[string]interface{}{
			"logs/node_0/logs-0.chunk.txt": "hello\n"}}}}, nil)
	c := fw.client(t, nil)
	dir := t.TempDir()
	rep, err := c.DownloadLogs(bg, rid, dir, nil)
	must(t, err)
	if len(rep.Entries) == 0 || rep.Entries[0].Path == "" || !rep.Entries[0].Complete || rep.State != air.StateSuccess ||
		!rep.Terminal || !rep.Succeeded {
		t.Fatalf("report %+v", rep)
	}
	b, err := os.ReadFile(filepath.Join(dir, "logs", "node_0.log"))
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("node_0.log %q %v", b, err)
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
	c := fw.client(t, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 5; k++ {
				id := ids[(g+k)%len(ids)]
				r, err := c.GetRun(bg, id, nil)
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
	var streamed, iterated []string
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, err := c.StreamLogs(bg, logsRun, nil, func(r air.LogRecord) error {
			streamed = append(streamed, r.Line)
			return nil
		})
		if err != nil {
			errs <- err
		}
	}()
	go func() {
		defer wg.Done()
		it := c.Logs(bg, logsRun, nil)
		for it.Next() {
			iterated = append(iterated, it.Record().Line)
		}
		if err := it.Err(); err != nil {
			errs <- err
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err)
	}
	if len(streamed) != 300 || streamed[299] != "line 299" || len(iterated) != 300 || iterated[299] != "line 299" {
		t.Fatalf("streamed %d, iterated %d lines", len(streamed), len(iterated))
	}
}

func TestPools(t *testing.T) {
	fw := workspace(t)
	fw.call(t, "POST", "/__fakews/pools", map[string]interface{}{"pools": []interface{}{
		map[string]interface{}{"id": "pool-a", "accelerator_type": "GPU_8xH100", "accelerator_count": 64, "used": 16, "idle": 48}}}, nil)
	c := fw.client(t, nil)
	pools, err := c.ListPools(bg)
	must(t, err)
	want := air.Pool{ID: "pool-a", AcceleratorType: "GPU_8xH100", ReservedAccelerators: 64,
		UsedAccelerators: 16, IdleAccelerators: 48}
	if len(pools) != 1 || pools[0] != want {
		t.Fatalf("pools %+v", pools)
	}
	p, err := c.GetPool(bg, "provisioned-capacities/pool-a")
	must(t, err)
	if *p != want {
		t.Fatalf("pool %+v", p)
	}
	_, err = c.GetPool(bg, "pool-zzz")
	airErr(t, err, air.ENOTFOUND)
}

func TestPollMLflowLinks(t *testing.T) {
	fw := workspace(t)
	c := fw.client(t, nil)
	sub, err := c.Submit(bg, loadMinimal(t), nil)
	must(t, err)
	runURL, expURL, err := c.PollMLflowLinks(bg, sub.RunID, 3, 10*time.Millisecond)
	must(t, err)
	if !strings.Contains(runURL, "/ml/experiments/") || !strings.HasPrefix(runURL, expURL) {
		t.Fatalf("links %q %q", runURL, expURL)
	}
}

// The second AllStatus listing asks nothing about a finished run: the
// library's on-disk list cache, the same call as C and Python.
func TestListCacheSparesFinishedRuns(t *testing.T) {
	fw := workspace(t)
	t.Setenv("DATABRICKS_CACHE_ENABLED", "true")
	t.Setenv("DATABRICKS_CACHE_DIR", t.TempDir())
	fw.newRun(t, "done-0", false)
	fw.newRun(t, "done-1", false)
	fw.newRun(t, "busy", true)
	c := fw.client(t, nil)
	list := func() int {
		it := c.ListRuns(context.Background(), &air.ListOptions{AllStatus: true})
		defer it.Close()
		n := 0
		for it.Next() {
			n++
		}
		must(t, it.Err())
		return n
	}
	const get = "/api/2.2/jobs/runs/get"
	if n := list(); n != 3 {
		t.Fatalf("first listing: %d runs", n)
	}
	before := fw.count(t, "GET", get)
	if n := list(); n != 3 {
		t.Fatalf("second listing: %d runs", n)
	}
	if asked := fw.count(t, "GET", get) - before; asked != 1 {
		t.Fatalf("second listing read %d runs, want only the active one", asked)
	}
}
