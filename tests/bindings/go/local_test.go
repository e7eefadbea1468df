package airtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"libair/air"
)

// The local workspace (docs/local.md): host local:///<dir> runs workloads
// on this machine through the same API. libair finds its supervisor program
// next to the loaded library (the build tree) unless $AIR_LOCAL_SUPERVISOR
// names it. Nothing here depends on how fast the machine is: the tests wait
// for states and log lines, and localPatience only ends a hang.

const localPatience = 2 * time.Minute

// localWS is a client on a fresh state directory.
type localWS struct {
	c     *air.Client
	state string
	runs  []int64
}

// newLocal starts a local workspace in a temporary directory. When the test
// ends, runs still going are cancelled and their supervisors waited for, so
// that the directory can be removed, and the supervisors' own logs are
// checked to be empty.
func newLocal(t *testing.T) *localWS {
	t.Helper()
	if air.Features()&air.FeatureLocal == 0 && !strict {
		t.Skip("libair without the local workspace")
	}
	lw := &localWS{state: t.TempDir()}
	c, err := air.NewClient(&air.ClientOptions{Host: "local://" + lw.state, IgnoreEnvironment: true})
	must(t, err)
	lw.c = c
	t.Cleanup(func() { lw.settle(t); c.Close() })
	return lw
}

// submit submits a workload written in YAML.
func (lw *localWS) submit(ctx context.Context, t *testing.T, yaml string) int64 {
	t.Helper()
	cfg, err := air.LoadConfigBytes([]byte(yaml), "workload.yaml", lw.state)
	must(t, err)
	defer cfg.Close()
	sub, err := lw.c.Submit(ctx, cfg, nil)
	must(t, err)
	lw.runs = append(lw.runs, sub.RunID)
	return sub.RunID
}

// settle cancels the runs still going, waits for them to end and for their
// supervisors to release their locks, and reports what a supervisor logged.
func (lw *localWS) settle(t *testing.T) {
	ctx, cancel := context.WithTimeout(bg, localPatience)
	defer cancel()
	for _, id := range lw.runs {
		if r, err := lw.c.GetRun(ctx, id, nil); err == nil && !r.IsTerminal {
			lw.c.CancelRun(ctx, id)
			lw.c.Wait(ctx, id, &air.WaitOptions{PollInterval: 50 * time.Millisecond})
		}
	}
	runs, _ := filepath.Glob(filepath.Join(lw.state, "jobs", "runs", "*"))
	for _, dir := range runs {
		for !unlocked(filepath.Join(dir, "supervisor.lock")) {
			if ctx.Err() != nil {
				t.Errorf("the supervisor of %s still holds its lock", dir)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "supervisor.log")); err == nil && len(b) > 0 {
			t.Errorf("the supervisor of %s wrote to its log:\n%s", dir, b)
		}
	}
}

// unlocked reports whether no process holds the flock of path.
func unlocked(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}

// fastLogs poll a followed local run often.
var fastLogs = &air.LogsOptions{PollInterval: 50 * time.Millisecond}

// nextWorkloadLine is the next line the workload wrote, skipping the notes
// of the local workspace itself ("[air local] warning: ... GPU", on a
// machine with fewer GPUs than the workload asks for); false at the end.
func nextWorkloadLine(it *air.LogIter) (string, bool) {
	for it.Next() {
		if line := it.Record().Line; !strings.HasPrefix(line, "[air local] ") {
			return line, true
		}
	}
	return "", false
}

func TestLocalRunSucceedsWithItsLogs(t *testing.T) {
	lw := newLocal(t)
	ctx, cancel := context.WithTimeout(bg, localPatience)
	defer cancel()
	id := lw.submit(ctx, t, `experiment_name: local-go
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
env_variables: {MY_VAR: from-yaml}
command: echo "node=$NODE_RANK of $NUM_NODES world=$WORLD_SIZE var=$MY_VAR"
max_retries: 0
`)
	run, err := lw.c.Wait(ctx, id, &air.WaitOptions{PollInterval: 50 * time.Millisecond})
	must(t, err)
	if run.State != air.StateSuccess || run.ExperimentName != "local-go" {
		t.Fatalf("run %d: %v %q", id, run.State, run.StateMessage)
	}
	if run.StartTime.IsZero() || run.Duration() != run.EndTime.Sub(run.StartTime) || run.Duration() < 0 {
		t.Fatalf("run %d: duration %v from %v to %v", id, run.Duration(), run.StartTime, run.EndTime)
	}
	if (&air.Run{StartTime: run.StartTime}).Duration() != 0 {
		t.Fatal("a run without an end has a duration")
	}
	it := lw.c.Logs(ctx, id, fastLogs)
	defer it.Close()
	var lines []string
	for line, ok := nextWorkloadLine(it); ok; line, ok = nextWorkloadLine(it) {
		lines = append(lines, line)
	}
	must(t, it.Err())
	if len(lines) != 1 || lines[0] != "node=0 of 1 world=1 var=from-yaml" {
		t.Fatalf("log lines %q", lines)
	}
	if s := it.Summary(); s.State != air.StateSuccess || !s.Terminal || s.Records < 1 {
		t.Fatalf("summary %+v", s)
	}
}

// A follower of a run that retries is told where each attempt begins,
// before its lines (StreamLogs with OnAttempt). Each attempt waits for the
// follower, so the order is not timing's.
func TestLocalAttemptsAreMarked(t *testing.T) {
	lw := newLocal(t)
	ctx, cancel := context.WithTimeout(bg, localPatience)
	defer cancel()
	gate := filepath.Join(lw.state, "gate")
	id := lw.submit(ctx, t, fmt.Sprintf(`experiment_name: local-go-retried
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
max_retries: 1
command: |
  wait_for() { for i in $(seq 2400); do [ -e "%[1]s.$1" ] && return; sleep 0.05; done; exit 9; }
  if [ ! -e "%[1]s.tried" ]; then touch "%[1]s.tried"; echo first; wait_for seen; exit 3; fi
  wait_for go; echo second
`, gate))
	var order []string
	opts := &air.LogsOptions{OnAttempt: func(attempt int) error {
		order = append(order, fmt.Sprintf("attempt %d", attempt))
		return os.WriteFile(gate+".go", nil, 0o600)
	}}
	sum, err := lw.c.StreamLogs(ctx, id, opts, func(rec air.LogRecord) error {
		if strings.HasPrefix(rec.Line, "[air local] ") {
			return nil
		}
		order = append(order, rec.Line)
		if rec.Line == "first" {
			return os.WriteFile(gate+".seen", nil, 0o600)
		}
		return nil
	})
	must(t, err)
	if strings.Join(order, ",") != "first,attempt 1,second" || sum.State != air.StateSuccess {
		t.Fatalf("order %q, state %v", order, sum.State)
	}
}

// CopyLogs writes the same lines as the iterator reads, as text; an error
// from the writer stops the copy and is its cause.
func TestLocalCopyLogs(t *testing.T) {
	lw := newLocal(t)
	ctx, cancel := context.WithTimeout(bg, localPatience)
	defer cancel()
	id := lw.submit(ctx, t, `experiment_name: local-copy
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
command: seq 1 50000
max_retries: 0
`)
	if _, err := lw.c.Wait(ctx, id, &air.WaitOptions{PollInterval: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	all := *fastLogs
	all.TailLines = air.Int(60000)
	sum, err := lw.c.CopyLogs(ctx, id, &all, &out)
	must(t, err)
	var want strings.Builder
	for i := 1; i <= 50000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	// The local workspace's own notes come first (no such GPU here).
	got := out.String()
	if i := strings.Index(got, "\n1\n"); i >= 0 {
		got = got[i+1:]
	}
	if got != want.String() || sum.Records < 50000 || !sum.Terminal {
		t.Fatalf("copied %d bytes, %d records (want %d bytes)", len(got), sum.Records, want.Len())
	}
	stop := errors.New("disk full")
	_, err = lw.c.CopyLogs(ctx, id, &all, failingWriter{stop})
	if !errors.Is(err, air.EABORTED) || !errors.Is(err, stop) {
		t.Fatalf("a failing writer: %v", err)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestLocalCancel(t *testing.T) {
	lw := newLocal(t)
	ctx, cancel := context.WithTimeout(bg, localPatience)
	defer cancel()
	id := lw.submit(ctx, t, `experiment_name: local-sleep
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
command: |
  echo sleeping
  sleep 300
`)
	// Following the logs: the first line shows the node is running.
	it := lw.c.Logs(ctx, id, fastLogs)
	defer it.Close()
	if line, _ := nextWorkloadLine(it); line != "sleeping" {
		t.Fatalf("first line %q: %v", line, it.Err())
	}

	// A context ends the call waiting for the run, not the run.
	wctx, wcancel := context.WithCancel(ctx)
	d := 250 * time.Millisecond
	timer := time.AfterFunc(d, wcancel)
	defer timer.Stop()
	start := time.Now()
	_, err := lw.c.Wait(wctx, id, &air.WaitOptions{PollInterval: time.Hour})
	checkEnded(t, err, context.Canceled, time.Since(start), d)
	run, err := lw.c.GetRun(ctx, id, nil)
	must(t, err)
	if run.State != air.StateRunning {
		t.Fatalf("run %d is %v after its wait was cancelled", id, run.State)
	}

	// CancelRun stops it; the followed logs then end with the run.
	must(t, lw.c.CancelRun(ctx, id))
	run, err = lw.c.Wait(ctx, id, &air.WaitOptions{PollInterval: 50 * time.Millisecond})
	must(t, err)
	if run.State != air.StateCanceled {
		t.Fatalf("run %d: %v %q", id, run.State, run.StateMessage)
	}
	for it.Next() {
	}
	if err := it.Err(); err != nil || it.Summary().State != air.StateCanceled {
		t.Fatalf("log iterator after the cancel: %v, summary %+v", err, it.Summary())
	}
	if !strings.HasPrefix(run.DashboardURL, "local://"+lw.state) {
		t.Fatalf("dashboard %q", run.DashboardURL)
	}
}
