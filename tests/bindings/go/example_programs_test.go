package airtest

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"libair/air"
)

// TestExamplePrograms runs examples/go/watch against a local workspace
// (local:///<dir>): it submits the workload, prints node 0's log lines and
// exits 0 for a run that succeeded, 1 for one that failed.
func TestExamplePrograms(t *testing.T) {
	ex := newWatchExample(t, `experiment_name: watch-example
compute:
  accelerator_type: GPU_1xA10
  num_accelerators: 1
env_variables:
  GREETING: hello
command: |
  echo "$GREETING from node $NODE_RANK of $NUM_NODES"
  exit ${EXIT_CODE:-0}
max_retries: 0
`)
	watch := func(overrides ...string) (string, int) {
		t.Helper()
		cmd := ex.command(overrides...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		t.Logf("stderr:\n%s", stderr.String())
		return stdout.String(), code
	}

	out, code := watch()
	if code != 0 || !strings.Contains(out, "hello from node 0 of 1\n") ||
		!strings.Contains(out, "ended SUCCESS\n") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	out, code = watch("env_variables.EXIT_CODE=3")
	if code != 1 || !strings.Contains(out, "hello from node 0 of 1\n") ||
		!strings.Contains(out, "ended FAILED\n") {
		t.Fatalf("a failing run: exit %d, output:\n%s", code, out)
	}
}

// TestExampleWatchCtrlC interrupts examples/go/watch while it follows a long
// run: it exits 1 and says on stderr that the run keeps going and how to
// stop it; the run is still active afterwards.
func TestExampleWatchCtrlC(t *testing.T) {
	ex := newWatchExample(t, `experiment_name: watch-ctrl-c
compute:
  accelerator_type: GPU_1xA10
  num_accelerators: 1
command: |
  echo started
  sleep 600
max_retries: 0
`)
	cmd := ex.command()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "started" {
	}
	must(t, cmd.Process.Signal(syscall.SIGINT))
	for lines.Scan() {
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "run 1 keeps going; `air cancel 1` stops it\n") {
		t.Fatalf("stderr:\n%s", stderr.String())
	}
	c, err := air.NewClient(&air.ClientOptions{Host: "local://" + ex.state, IgnoreEnvironment: true})
	must(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := c.GetRun(ctx, 1, nil)
	must(t, err)
	if run.State.IsTerminal() {
		t.Fatalf("the run ended with the example: %v", run.State)
	}
	must(t, c.CancelRun(ctx, 1))
	_, err = c.Wait(ctx, 1, &air.WaitOptions{PollInterval: 50 * time.Millisecond})
	must(t, err)
}

// watchExample is examples/go/watch with a workload file and a local
// workspace of its own.
type watchExample struct {
	exe, dir, state, workload string
}

func newWatchExample(t *testing.T, yaml string) *watchExample {
	exe := os.Getenv("AIR_GO_EXAMPLE_WATCH")
	if exe == "" {
		t.Skip("examples/go is built by run_go_tests.py in the plain build only")
	}
	dir := t.TempDir()
	ex := &watchExample{exe, dir, filepath.Join(dir, "state"), filepath.Join(dir, "workload.yaml")}
	if err := os.WriteFile(ex.workload, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return ex
}

// command runs the example on the workload with @overrides.
func (ex *watchExample) command(overrides ...string) *exec.Cmd {
	cmd := exec.Command(ex.exe, append([]string{ex.workload}, overrides...)...)
	cmd.Env = append(os.Environ(), "DATABRICKS_HOST=local://"+ex.state, "HOME="+ex.dir,
		"DATABRICKS_CONFIG_FILE="+filepath.Join(ex.dir, "none"))
	return cmd
}
