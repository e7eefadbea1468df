package air_test

// The examples talk to the fake Databricks workspace of the libair source
// tree (tests/fakews), started here for the whole package: a real HTTP
// server on 127.0.0.1 whose address the examples find in DATABRICKS_HOST,
// as a program would. Without Python or the fake workspace the examples
// are skipped (with a note), since they need a workspace to talk to.

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	stop, err := startWorkspace()
	if err != nil {
		fmt.Fprintf(os.Stderr, "air: examples skipped: %v\n", err)
		os.Exit(0)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

// startWorkspace starts fakews, points the DATABRICKS_* variables at it and
// returns the function that stops it.
func startWorkspace() (func(), error) {
	script := os.Getenv("FAKEWS_PY")
	if script == "" {
		script = filepath.Join("..", "..", "tests", "fakews", "fakews.py")
	}
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("no fake workspace: %v (set FAKEWS_PY)", err)
	}
	python := os.Getenv("PYTHON")
	if python == "" {
		python = "python3"
	}
	dir, err := os.MkdirTemp("", "air-examples-")
	if err != nil {
		return nil, err
	}
	portFile := filepath.Join(dir, "port")
	// Runs end at once, each with three log lines per node.
	cmd := exec.Command(python, "-S", script, "--port-file", portFile, "--quiet",
		"--parent-pid", strconv.Itoa(os.Getpid()), "--config", `{"auto_logs": 3}`)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("cannot start %s: %v", python, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(3 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		os.RemoveAll(dir)
	}
	timeout := time.After(20 * time.Second)
	for {
		if b, err := os.ReadFile(portFile); err == nil && strings.HasSuffix(string(b), "\n") {
			for _, v := range os.Environ() { // no setting of the machine applies
				if name := strings.SplitN(v, "=", 2)[0]; strings.HasPrefix(name, "DATABRICKS_") {
					os.Unsetenv(name)
				}
			}
			os.Setenv("DATABRICKS_HOST", "http://127.0.0.1:"+strings.TrimSpace(string(b)))
			os.Setenv("DATABRICKS_TOKEN", "dapi-test")
			os.Setenv("DATABRICKS_CONFIG_FILE", filepath.Join(dir, "databrickscfg"))
			return stop, nil
		}
		select {
		case <-exited:
			os.RemoveAll(dir)
			panic("the fake workspace exited at start-up")
		case <-timeout:
			stop()
			panic("the fake workspace did not start")
		case <-time.After(10 * time.Millisecond):
		}
	}
}
