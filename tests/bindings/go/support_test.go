package airtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"libair/air"
)

const minimalYAML = `experiment_name: bindings-test
compute:
  accelerator_type: GPU_1xA10
  num_accelerators: 1
command: python train.py
`

func sourceRoot(t testing.TB) string {
	if r := os.Getenv("AIR_SOURCE_ROOT"); r != "" {
		return r
	}
	abs, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// strict turns "module not implemented yet" skips into failures.
var strict = os.Getenv("AIR_BINDINGS_STRICT") == "1"

// landed skips the test when err says that a libair module is not
// implemented yet (AIR_EUNSUPPORTED), and returns err otherwise.
func landed(t testing.TB, err error) error {
	t.Helper()
	if errors.Is(err, air.EUNSUPPORTED) && !strict {
		t.Skipf("libair module not implemented yet: %v", err)
	}
	return err
}

// must fails the test on an error (skipping it for an unimplemented module).
func must(t testing.TB, err error) {
	t.Helper()
	if landed(t, err) != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

// airErr asserts that err is an *air.Error with the given code.
func airErr(t testing.TB, err error, code air.Status) *air.Error {
	t.Helper()
	landed(t, err)
	var e *air.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *air.Error %v, got %T %v", code, err, err)
	}
	if e.Code != code {
		t.Fatalf("want %v, got %v (%v)", code, e.Code, e)
	}
	return e
}

// fakeWS is a fakews.py server process (tests/fakews/README.md).
type fakeWS struct {
	cmd *exec.Cmd
	URL string
	dir string
}

func startFakeWS(t testing.TB) *fakeWS {
	t.Helper()
	py := os.Getenv("PYTHON")
	if py == "" {
		py = "python3"
	}
	script := os.Getenv("FAKEWS_PY")
	if script == "" {
		script = filepath.Join(sourceRoot(t), "tests", "fakews", "fakews.py")
	}
	dir := t.TempDir()
	portFile := filepath.Join(dir, "port")
	cmd := exec.Command(py, "-S", script, "--port-file", portFile, "--quiet",
		"--parent-pid", strconv.Itoa(os.Getpid()))
	cmd.Stdout = io.Discard
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start fakews: %v", err)
	}
	fw := &fakeWS{cmd: cmd, dir: dir}
	t.Cleanup(fw.stop)
	deadline := time.Now().Add(60 * time.Second) // a wait, not a measure: ~0.5 s idle
	for {
		b, err := os.ReadFile(portFile)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			fw.URL = "http://127.0.0.1:" + strings.TrimSpace(string(b))
			return fw
		}
		if time.Now().After(deadline) {
			t.Fatalf("fakews did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (fw *fakeWS) stop() {
	if fw.cmd != nil && fw.cmd.Process != nil {
		fw.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { fw.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			fw.cmd.Process.Kill()
			<-done
		}
		fw.cmd = nil
	}
}

// call makes a control call and decodes the JSON reply into out (may be nil).
func (fw *fakeWS) call(t testing.TB, method, path string, body interface{}, out interface{}) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, fw.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("fakews %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("fakews %s %s: HTTP %d: %s", method, path, resp.StatusCode, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("fakews %s %s: %v", method, path, err)
		}
	}
}

func (fw *fakeWS) reset(t testing.TB) {
	fw.call(t, "POST", "/__fakews/reset", map[string]interface{}{}, nil)
}

// newRun stores an AI Runtime run; active runs stay RUNNING for ten minutes.
func (fw *fakeWS) newRun(t testing.TB, name string, active bool) int64 {
	body := map[string]interface{}{
		"run_name": name,
		"tasks": []interface{}{map[string]interface{}{
			"task_key": name,
			"ai_runtime_task": map[string]interface{}{"experiment": name, "deployments": []interface{}{
				map[string]interface{}{"compute": map[string]interface{}{
					"accelerator_type": "GPU_1xA10", "accelerator_count": 1}}}},
		}},
	}
	if active {
		body["lifecycle"] = map[string]interface{}{"pending_ms": 0, "running_ms": 600000}
	}
	var out struct {
		RunID int64 `json:"run_id"`
	}
	fw.call(t, "POST", "/__fakews/runs", body, &out)
	return out.RunID
}

func (fw *fakeWS) addLogs(t testing.TB, runID int64, count int, text string) {
	fw.call(t, "POST", fmt.Sprintf("/__fakews/runs/%d/logs", runID), map[string]interface{}{
		"synthetic": map[string]interface{}{"count": count, "start_ns": int64(1700000000000000000),
			"step_ns": 1000000, "text": text}}, nil)
}

func (fw *fakeWS) count(t testing.TB, method, path string) int {
	var out struct {
		Requests []struct {
			Method string `json:"method"`
			Path   string `json:"path"`
		} `json:"requests"`
	}
	fw.call(t, "GET", "/__fakews/requests", nil, &out)
	n := 0
	for _, r := range out.Requests {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}

// fault adds a fault rule (tests/fakews/README.md); the next reset removes it.
func (fw *fakeWS) fault(t testing.TB, rule map[string]interface{}) {
	fw.call(t, "POST", "/__fakews/faults", rule, nil)
}

// stall makes the workspace sit on every request to path (a prefix when it
// ends with "*") for stallTime before answering.
func (fw *fakeWS) stall(t testing.TB, path string) {
	fw.fault(t, map[string]interface{}{"path": path, "action": "delay",
		"delay_ms": stallTime.Milliseconds(), "times": -1})
}

// stallTime is far beyond any deadline of the tests: a call that ignored
// its context would take this long.
const stallTime = 30 * time.Second

// options are client options pointed at fw: test token, no environment,
// fast back-off, no rate limit.
func (fw *fakeWS) options() *air.ClientOptions {
	return &air.ClientOptions{Host: fw.URL, Token: "dapi-test", IgnoreEnvironment: true,
		RetryBackoff: 10 * time.Millisecond, RateLimit: air.Int(0)}
}

// client is a client made of fw.options() changed by edit (may be nil),
// closed when the test ends.
func (fw *fakeWS) client(t testing.TB, edit func(*air.ClientOptions)) *air.Client {
	t.Helper()
	o := fw.options()
	if edit != nil {
		edit(o)
	}
	c, err := air.NewClient(o)
	must(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}
